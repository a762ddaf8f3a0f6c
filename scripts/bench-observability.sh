#!/usr/bin/env bash
# Measures the cost of operation metrics and pprof labels on the get/set
# hot path: BenchmarkHotPath (client -> in-process member over loopback,
# 8 callers) in interleaved rounds (default 5) of every mode (off,
# metrics, labels, on), then the medians and the overhead of "on" (the
# default) against "off"; with a second argument the rounds' raw output
# is kept in that file.
#
#   scripts/bench-observability.sh [ROUNDS] [RAW-OUTPUT-FILE]
exec "$(dirname "$0")/bench-overhead.sh" HotPath off on "$@"
