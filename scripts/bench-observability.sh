#!/usr/bin/env bash
# Measures the cost of operation metrics and pprof labels on the get/set
# hot path: BenchmarkHotPath (client -> in-process member over loopback,
# 8 callers) ROUNDS times, each round running every mode (off, metrics,
# labels, on) so that drift of a shared machine spreads over all of them,
# then prints the median ns/op per operation and mode and the overhead of
# "on" (the default) against "off".
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
out=$(mktemp)
for i in $(seq "$ROUNDS"); do
	go test -run '^$' -bench HotPath -benchtime 3s -count 1 ./internal/member/ | grep '^BenchmarkHotPath' >>"$out"
done
awk '{ split($1, n, "/"); key = n[2] "/" n[3]; sub(/-[0-9]+$/, "", key); v[key] = v[key] " " $3 }
END {
	for (k in v) {
		c = split(substr(v[k], 2), a, " "); asort(a)
		med[k] = (c % 2) ? a[(c + 1) / 2] : (a[c / 2] + a[c / 2 + 1]) / 2
		printf "%-12s median %8.0f ns/op  (%s )\n", k, med[k], v[k]
	}
	for (op in ops) {}
	split("get set", o, " ")
	for (i = 1; i <= 2; i++) {
		off = med[o[i] "/off"]; on = med[o[i] "/on"]
		if (off > 0) printf "%s: on vs off %+.1f%%\n", o[i], 100 * (on - off) / off
	}
}' "$out" | sort
rm -f "$out"
