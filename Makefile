# Atoll build and test entry points. `make test` is the one command CI runs
# (see .ci/run); it installs what it needs on a fresh machine first.

GO      ?= go
GOFILES  = $(shell git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './clients/*')
# Packages that run goroutines or share state between them; they also run under -race.
RACE_PKGS = ./pkg/... ./internal/...

.PHONY: test deps lint unit race java build run fuzz

test: deps lint unit race java

deps:
	./scripts/install-deps.sh

lint:
	@out="$$(gofmt -l $(GOFILES))"; if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 ./...

race:
	$(GO) test -count=1 -race $(RACE_PKGS)

# The Java SDK: compiles, runs its tests (vectors, and later a real member).
java:
	cd clients/java && mvn -q -B verify

build:
	$(GO) build -o bin/ ./cmd/...

run:
	$(GO) run ./cmd/atoll member start

# Runs every fuzz target for FUZZTIME each (default 10m); crashers land in testdata/fuzz.
FUZZTIME ?= 10m
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)
