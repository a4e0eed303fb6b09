#!/usr/bin/env bash
# The cluster benchmark: a throwaway redis-server on a free port, then `colosseum load`
# (which starts every service in-process and plays through the gateway), after a bare
# tonic echo measured in the same run. Figures go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-bench-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
# The release binary: COLOSSEUM_BIN, else cargo's target directory (CARGO_TARGET_DIR or ./target).
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
calls() { redis-cli -p "$port" info stats | awk -F: '/^total_commands_processed/ {print $2+0}'; }
run() {
    local before after out moves
    before=$(calls)
    out=$("$bin" load "$@")
    after=$(calls)
    moves=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["moves"])' "$out")
    echo "$out"
    echo "redis commands: $((after - before)) for $moves moves: $(python3 -c "print(round(($after - $before) / max(1, $moves), 2))") per move (every service's, the hub's blocking reads included)"
}
echo "# (a) throughput: closed loop, 200 concurrent GOPS matches, with a 10 s echo baseline"
run --game gops --matches 2000 --concurrency 200 --think-ms 0 --echo-seconds 10
echo "# (b) latency: 1,000 concurrent GOPS matches, bots thinking 500 ms per move"
run --game gops --matches 1000 --concurrency 1000 --think-ms 500
echo "# (b') the same, each think time drawn from 450-550 ms"
run --game gops --matches 1000 --concurrency 1000 --think-ms 500 --think-jitter-ms 50
