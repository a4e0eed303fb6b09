#!/usr/bin/env bash
# Where a move's time goes: `perf record` (DWARF call graphs) of `colosseum load`'s closed
# loop (every service in-process on a throwaway redis-server, the load clients too), then
# the samples folded by stack (tools/fold-perf.py): inclusive shares per layer and the top
# self-time functions, plus a folded-stacks file any flame-graph tool draws
# (inferno-flamegraph, speedscope). Needs perf; figures go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
out=${PROFILE_DIR:-/tmp/colosseum-profile}
mkdir -p "$out"
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "$out/redis.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
perf record -F "${FREQ:-250}" --call-graph dwarf,32768 -o "$out/perf.data" -- \
    "$bin" load --game gops --matches "${MATCHES:-1500}" --concurrency 200 --think-ms 0 ${LOAD_ARGS:-}
perf script -i "$out/perf.data" --no-inline 2>/dev/null | python3 tools/fold-perf.py "$out/folded.txt"
echo "folded stacks: $out/folded.txt"
