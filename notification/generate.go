package notification

// The bodies (bodies.gen.go) are generated from the webhooks of the
// OpenAPI document, the one definition of what bankrail sends.
//
//go:generate go run ./internal/generate
