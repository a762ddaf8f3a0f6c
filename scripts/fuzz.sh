#!/usr/bin/env bash
# Runs every native Go fuzz target of the repository for the given time each
# (default 10m). New crashers are written to the package's testdata/fuzz
# directory by go test; commit them as regression seeds.
set -euo pipefail
cd "$(dirname "$0")/.."
fuzztime="${1:-10m}"
status=0
for pkg in $(go list ./...); do
	dir=$(go list -f '{{.Dir}}' "$pkg")
	for target in $(grep -ho '^func Fuzz[A-Za-z0-9_]*' "$dir"/*_test.go 2>/dev/null | sed 's/^func //'); do
		echo "== $pkg $target ($fuzztime)"
		if ! go test -run=NONE -fuzz="^${target}\$" -fuzztime="$fuzztime" -parallel=1 "$pkg"; then
			status=1
		fi
	done
done
exit $status
