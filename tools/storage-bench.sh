#!/usr/bin/env bash
# What a match keeps in Redis: a throwaway redis-server on a free port, `colosseum load`
# plays finished GOPS-13 matches (compacted at their end) and `colosseum load --bulk`
# creates idle ones (nothing played); then MEMORY USAGE of every key of each match,
# summed per match and by key kind. Figures go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-storage-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
# Bytes per match of the keys named colosseum:{<match>}:*, by kind; $1 labels the lines.
measure() {
    redis-cli -p "$port" --scan --pattern 'colosseum:{*-*-*-*-*}:*' | while read -r key; do
        echo "$key $(redis-cli -p "$port" memory usage "$key" samples 0)"
    done | python3 -c '
import sys, statistics, collections
label = sys.argv[1]
per_match = collections.defaultdict(int); kinds = collections.defaultdict(list)
for line in sys.stdin:
    key, size = line.split()
    match, kind = key.split("}:", 1)
    per_match[match] += int(size); kinds[kind].append(int(size))
sizes = sorted(per_match.values())
print(f"{label}: {len(sizes)} matches, bytes per match median {statistics.median(sizes):.0f} (min {sizes[0]}, max {sizes[-1]})")
for kind, v in sorted(kinds.items()):
    print(f"  {kind:9} {len(v):5} keys, median {statistics.median(v):.0f} bytes")
' "$1"
}
"$bin" load --game gops --matches "${MATCHES:-50}" --concurrency 10 >/dev/null
sleep 1 # the compactions run just after each match's last step
measure "finished GOPS-13 (colosseum load --game gops --matches ${MATCHES:-50})"
redis-cli -p "$port" flushall >/dev/null
"$bin" load --bulk "${MATCHES:-50}" --bulk-runs 1 >/dev/null 2>&1
measure "idle GOPS-13, created and not played (colosseum load --bulk ${MATCHES:-50})"
