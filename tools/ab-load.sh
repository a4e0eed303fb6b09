#!/usr/bin/env bash
# The move path of two builds compared in one run: the same `colosseum load` (closed
# loop, 200 concurrent GOPS matches, a bare tonic echo as each run's baseline) on each
# binary in turn, ROUNDS times, on one throwaway redis-server. Prints one line a run:
#   round label moves/s p50_ms p99_ms echo_req/s moves/s÷echo
# Usage: tools/ab-load.sh LABEL=BIN LABEL=BIN... (ROUNDS=3 MATCHES=2000 by default).
set -euo pipefail
[ $# -ge 2 ] || { echo "usage: $0 old=/path/colosseum new=/path/colosseum [...]" >&2; exit 2; }
rounds=${ROUNDS:-3}
matches=${MATCHES:-2000}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/ab-load-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
for round in $(seq 1 "$rounds"); do
    for pair in "$@"; do
        label=${pair%%=*}
        bin=${pair#*=}
        redis-cli -p "$port" flushall >/dev/null
        echo "round $round/$rounds: $label" >&2
        out=$("$bin" load --game gops --matches "$matches" --concurrency 200 --think-ms 0 --echo-seconds 5 2>/dev/null)
        python3 -c 'import json,sys; d=json.loads(sys.argv[3]); print(sys.argv[1], sys.argv[2], d["moves_per_s"], d["p50_ms"], d["p99_ms"], d["echo"]["requests_per_s"], round(d["moves_per_s"]/d["echo"]["requests_per_s"],4))' "$round" "$label" "$out"
    done
done
