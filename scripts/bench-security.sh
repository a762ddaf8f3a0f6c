#!/usr/bin/env bash
# Measures the cost of TLS and authentication on the get/set hot path:
# BenchmarkSecurity (client -> in-process member over loopback, 8
# callers) in interleaved rounds (default 5) of every mode (off:
# plaintext without security; tls; on: TLS with a user authenticated and
# permissions checked on every call), then the medians and the overhead
# of "on" against "off"; with a second argument the rounds' raw output is
# kept in that file.
#
#   scripts/bench-security.sh [ROUNDS] [RAW-OUTPUT-FILE]
exec "$(dirname "$0")/bench-overhead.sh" Security off on "$@"
