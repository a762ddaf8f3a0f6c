# Atoll build and test entry points. `make test` is the one command CI runs
# (see .ci/run); it installs what it needs on a fresh machine first.

GO      ?= go
GOFILES  = $(shell git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './clients/*')
# Packages that run goroutines or share state between them; they also run under -race.
RACE_PKGS = ./pkg/... ./internal/...

.PHONY: test deps lint unit race java build run fuzz vectors hazelcast-random

test: deps lint unit race java

deps:
	./scripts/install-deps.sh

lint:
	@out="$$(gofmt -l $(GOFILES))"; if [ -n "$$out" ]; then echo "gofmt needed on:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...

unit:
	$(GO) test -count=1 -timeout 30m ./...

race:
	$(GO) test -count=1 -timeout 30m -race $(RACE_PKGS)

# The Java modules (pom.xml lists them): the SDK against real members, the Hazelcast
# benchmark runner, and the vector tools: the committed vectors checked against the SDK and
# against what Hazelcast writes now, and a comparison of Hazelcast with the SDK on random
# objects. Go then checks the same random objects (written to $(RANDOM_VECTORS)).
RANDOM_VECTORS = $(CURDIR)/tools/hazelcast-vectors/target/random-vectors
java:
	mvn -q -B verify
	ATOLL_RANDOM_VECTORS=$(RANDOM_VECTORS) $(GO) test -count=1 -run '^TestHazelcastRandom$$' ./internal/vectors/

# Rewrites testdata/vectors with Hazelcast's serialization service (tools/hazelcast-vectors).
vectors:
	mvn -q -B -DskipTests package -pl tools/hazelcast-vectors -am
	cd tools/hazelcast-vectors && java -cp "target/classes:$$(cat target/runtime.classpath)" io.atoll.vectors.Generate ../../testdata/vectors

# The random comparison with Hazelcast alone, at any size: make hazelcast-random COUNT=100000 [SEED=n].
COUNT ?= 3000
SEED ?= 0
hazelcast-random:
	mvn -q -B test -pl tools/hazelcast-vectors -am -Dtest=HazelcastRandomTest -Dsurefire.failIfNoSpecifiedTests=false \
		-Datoll.random.count=$(COUNT) -Datoll.random.seed=$(SEED)
	ATOLL_RANDOM_VECTORS=$(RANDOM_VECTORS) $(GO) test -count=1 -v -run '^TestHazelcastRandom$$' ./internal/vectors/

build:
	$(GO) build -o bin/ ./cmd/...

run:
	$(GO) run ./cmd/atoll member start

# Runs every fuzz target for FUZZTIME each (default 10m); crashers land in testdata/fuzz.
FUZZTIME ?= 10m
fuzz:
	./scripts/fuzz.sh $(FUZZTIME)
