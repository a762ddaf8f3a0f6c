#!/usr/bin/env bash
# Regenerates the Go code of api/proto/atoll/v1 (committed with the .proto
# files). Needs protoc (Debian: protobuf-compiler) and the pinned plugins,
# which it installs into GOBIN when missing.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$(go env GOPATH)/bin:$PATH"
command -v protoc >/dev/null || { echo "gen-proto: install protoc (apt-get install -y protobuf-compiler)" >&2; exit 1; }
[ "$(protoc-gen-go --version 2>/dev/null)" = "protoc-gen-go v1.36.12" ] || GOFLAGS= go install google.golang.org/protobuf/cmd/protoc-gen-go@v1.36.12
protoc-gen-go-grpc --version 2>/dev/null | grep -q 1.6.2 || GOFLAGS= go install google.golang.org/grpc/cmd/protoc-gen-go-grpc@v1.6.2
protoc -I api/proto \
	--go_out=api/proto --go_opt=paths=source_relative \
	--go-grpc_out=api/proto --go-grpc_opt=paths=source_relative \
	api/proto/atoll/v1/*.proto api/proto/atoll/member/v1/*.proto
