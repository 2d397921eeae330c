package client_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/bankrail/bankrail/internal/config"
)

// TestMain starts the instance the examples run against: a sandbox with the
// demo merchant, as `bankrail serve` starts, on SQLite in a temporary
// directory. Its address is BANKRAIL_URL, as the examples read it.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "bankrail-examples-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	cfg := config.Default()
	cfg.DataDir = dir
	demo, err := startDemo(cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Setenv("BANKRAIL_URL", demo.URL)
	code := m.Run()
	demo.close()
	os.RemoveAll(dir)
	os.Exit(code)
}
