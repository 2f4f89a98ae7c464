GO ?= go
GOLANGCI_LINT ?= golangci-lint

.PHONY: build test test-short lint fmt tidy-check bench ci

build:
	$(GO) build -o bin/switchboard ./cmd/switchboard

# The one test command: the README and .ci/run both use it.
test:
	$(GO) test -race -count=1 ./...

test-short:
	$(GO) test -short -count=1 ./...

lint:
	$(GO) vet ./...
	$(GOLANGCI_LINT) run ./...

fmt:
	$(GOLANGCI_LINT) fmt ./...

tidy-check:
	$(GO) mod tidy -diff

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

ci:
	bash .ci/run
