#!/usr/bin/env bash
# Measures what a mode costs on the get/set hot path: runs the benchmark
# BENCH of internal/member (its sub-benchmarks OP/MODE) ROUNDS times, each
# round running every mode so that drift of a shared machine spreads over
# all of them, then prints the median ns/op (wall time) and cpu-ns/op
# (CPU time of client and member) per operation and mode, and the
# overhead of MODE against BASE in each.
#
# With RAW-OUTPUT-FILE the rounds' raw `go test -bench` output
# (benchstat's input format) is kept in that file.
#
# Usage: scripts/bench-overhead.sh BENCH BASE MODE [ROUNDS] [RAW-OUTPUT-FILE]
set -euo pipefail
cd "$(dirname "$0")/.."
BENCH=$1 BASE=$2 MODE=$3 ROUNDS=${4:-5} RAW=${5:-/dev/null}
: >"$RAW"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
for i in $(seq "$ROUNDS"); do
	go test -run '^$' -bench "^Benchmark${BENCH}\$" -benchtime 3s -count 1 ./internal/member/ | tee -a "$RAW" | grep "^Benchmark${BENCH}/" >>"$out"
done
python3 - "$out" "$BASE" "$MODE" <<'PY'
import re, statistics, sys
runs = {}
for line in open(sys.argv[1]):
    f = line.split()
    name = re.sub(r"-[0-9]+$", "", f[0]).split("/")  # BenchmarkX/get/off
    for i in range(3, len(f)):
        if f[i] in ("ns/op", "cpu-ns/op"):
            runs.setdefault((f[i], name[1], name[2]), []).append(float(f[i - 1]))
med = {k: statistics.median(v) for k, v in runs.items()}
for (unit, op, mode), m in sorted(med.items()):
    print(f"{op}/{mode:<8} median {m:8.0f} {unit:<10} ({' '.join(f'{x:.0f}' for x in runs[(unit, op, mode)])})")
base, mode = sys.argv[2], sys.argv[3]
for unit in ("ns/op", "cpu-ns/op"):
    for op in ("get", "set"):
        b, m = med.get((unit, op, base)), med.get((unit, op, mode))
        if b and m:
            print(f"{op} {unit}: {mode} vs {base} {100 * (m - b) / b:+.1f}%")
PY
