// Package api holds bankrail's OpenAPI 3.1 document, the description of
// every endpoint, embedded so that the binary serves it at /openapi.json and
// tests check real requests and responses against it, and the Go types of
// its request and response bodies (types.gen.go), generated from it: the
// one source of the wire format, for the server and for Go clients.
package api

//go:generate go tool oapi-codegen -config oapi-codegen.yaml openapi.yaml

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"go.yaml.in/yaml/v3"
)

// YAML is the OpenAPI document as written.
//
//go:embed openapi.yaml
var YAML []byte

var (
	once    sync.Once
	jsonDoc []byte
	jsonErr error
)

// JSON returns the document as JSON, converted once.
func JSON() ([]byte, error) {
	once.Do(func() {
		var doc any
		if err := yaml.Unmarshal(YAML, &doc); err != nil {
			jsonErr = fmt.Errorf("parse openapi.yaml: %w", err)
			return
		}
		jsonDoc, jsonErr = json.Marshal(doc)
	})
	return jsonDoc, jsonErr
}
