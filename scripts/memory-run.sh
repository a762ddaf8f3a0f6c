#!/usr/bin/env bash
# Memory per entry, measured from the command line against a real member:
# for the workloads' SMALL and LARGE Compact objects it starts a member,
# reads its heap (after a GC), fills a map with N entries through the CLI,
# and reports the serialized key+value size, the owned entry memory cost
# the member reports, and the member's real heap growth, per entry.
#
#   scripts/memory-run.sh [ENTRIES]      (default 100000)
set -euo pipefail
cd "$(dirname "$0")/.."
entries="${1:-100000}"
work="$(mktemp -d)"
# Stop the member still running, if any ("kill 0" would signal the whole
# process group, the caller included).
trap 'if [ -n "${pid:-}" ]; then kill "$pid" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
go build -o "$work/atoll" ./cmd/atoll
atoll="$work/atoll"

printf '%-6s %8s %12s %14s %10s %14s %10s\n' kind entries "key+value B" "owned cost B" overhead "heap growth B" overhead
for kind in small large; do
	"$atoll" member start --bind 127.0.0.1:0 --admin 127.0.0.1:0 2>"$work/member.log" &
	pid=$!
	for _ in $(seq 1 300); do
		grep -q 'msg="member started"' "$work/member.log" && break
		sleep 0.1
	done
	addr=$(sed -n 's/.*msg="member started".* address=\([^ ]*\).*/\1/p' "$work/member.log")
	admin=$(sed -n 's/.*msg="member started".* admin=\([^ ]*\).*/\1/p' "$work/member.log")
	heap() { "$atoll" member memory --admin "$admin" | awk '/^heap-alloc-bytes/ {print $2}'; }
	before=$(heap)
	kv=$("$atoll" map fill "mem_$kind" --count "$entries" --value-type "$kind" --addr "$addr" | awk '/^serialized key\+value/ {print $3}')
	after=$(heap)
	cost=$("$atoll" map stats "mem_$kind" --addr "$addr" | awk '/^owned-memory-cost-per-entry/ {print $2}')
	growth=$(awk -v a="$after" -v b="$before" -v n="$entries" 'BEGIN {printf "%.1f", (a - b) / n}')
	printf '%-6s %8d %12s %14s %10.1f %14s %10.1f\n' "$kind" "$entries" "$kv" "$cost" \
		"$(awk -v c="$cost" -v k="$kv" 'BEGIN {print c - k}')" "$growth" "$(awk -v g="$growth" -v k="$kv" 'BEGIN {print g - k}')"
	kill -TERM "$pid"
	wait "$pid" || true
	pid=
done
