# Shortcuts; the README's two commands need nothing but Go.
.PHONY: run test test-short bench fuzz vet build

run:            ## start on the embedded default (SQLite, sandbox, demo merchant)
	go run ./cmd/bankrail serve

test:           ## the test suite, as CI runs it
	go test -race -timeout 45m ./...

test-short:     ## quicker, no race detector
	go test ./...

vet:
	go vet ./...

build:
	go build -o bin/bankrail ./cmd/bankrail

bench:          ## benchmarks of startup and authentication
	go test -run '^$$' -bench . -benchtime 2s ./internal/app/

FUZZTIME ?= 60s
fuzz:           ## run every fuzz target for FUZZTIME each
	@for pkg in $$(go list ./...); do \
	  for f in $$(go test -list '^Fuzz' $$pkg | grep '^Fuzz'); do \
	    echo "== $$pkg $$f"; go test -run '^$$' -fuzz "^$$f$$" -fuzztime $(FUZZTIME) $$pkg || exit 1; \
	  done; \
	done
