#!/usr/bin/env bash
# Measures the cost of operation metrics and pprof labels on the get/set
# hot path: BenchmarkHotPath (client -> in-process member over loopback,
# 8 callers) ROUNDS times, each round running every mode (off, metrics,
# labels, on) so that drift of a shared machine spreads over all of them,
# then prints the median ns/op per operation and mode and the overhead of
# "on" (the default) against "off". With a second argument, the rounds'
# raw `go test -bench` output (benchstat's input format) is kept in that
# file.
#
#   scripts/bench-observability.sh [ROUNDS] [RAW-OUTPUT-FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-5}
RAW=${2:-/dev/null}
: >"$RAW"
out=$(mktemp)
for i in $(seq "$ROUNDS"); do
	go test -run '^$' -bench HotPath -benchtime 3s -count 1 ./internal/member/ | tee -a "$RAW" | grep '^BenchmarkHotPath' >>"$out"
done
python3 - "$out" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    name = re.sub(r"-[0-9]+$", "", f[0]).split("/")  # BenchmarkHotPath/get/off
    runs.setdefault((name[1], name[2]), []).append(float(f[2]))
med = {k: statistics.median(v) for k, v in runs.items()}
for (op, mode), m in sorted(med.items()):
    print(f"{op}/{mode:<8} median {m:8.0f} ns/op  ({' '.join(f'{x:.0f}' for x in runs[(op, mode)])})")
for op in ("get", "set"):
    off, on = med.get((op, "off")), med.get((op, "on"))
    if off and on:
        print(f"{op}: on vs off {100 * (on - off) / off:+.1f}%")
PY
rm -f "$out"
