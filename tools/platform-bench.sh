#!/usr/bin/env bash
# The platform API's benchmarks (docs/benchmarks.md, issue 15), each run on a throwaway
# redis-server flushed between runs, with a bare tonic echo measured in the same run as the
# baseline: CreateMatches of 10,000 matches (`colosseum load --bulk`), three runs; swiss
# pairing of one round for 500 and 10,000 players (`colosseum tournament simulate`).
# Prints each run's JSON and the medians. The 1,000-player arena is `make arena-bench`.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-pbench-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
matches=${MATCHES:-10000}
out=()
for run in 1 2 3; do
    echo "# run $run: CreateMatches of $matches, after a 5 s echo" >&2
    line=$("$bin" load --bulk "$matches" --bulk-runs 1 --echo-seconds 5)
    echo "$line"
    out+=("$line")
    redis-cli -p "$port" flushall >/dev/null
done
for players in 500 10000; do
    echo "# swiss pairing, $players players, 9 rounds (3 events)" >&2
    "$bin" tournament simulate --format swiss --players "$players" --rounds 9 --events 3 | tr -d '\n ' ; echo
done
python3 - "${out[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
for name, f in [
    ("CreateMatches of 10,000, ms", lambda r: r["bulk"]["median_ms"]),
    ("matches created/s", lambda r: round(r["bulk"]["matches_per_s"])),
    ("echo requests/s", lambda r: r["echo"]["requests_per_s"]),
    ("matches/s per 1k echo requests/s", lambda r: round(1000 * r["bulk"]["matches_per_s"] / r["echo"]["requests_per_s"], 1)),
]:
    xs = [f(r) for r in runs]
    print(f"{name}: median {statistics.median(xs)} (runs {xs})")
PY
