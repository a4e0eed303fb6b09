#!/usr/bin/env bash
# The deadline benchmark (docs/benchmarks.md, issue 17): a throwaway redis-server, then
# `colosseum load --deadlines N` (default 100,000 GOPS matches made by CreateMatches and left
# alone, their deadlines falling due over 60 s; the whole cluster in the process): three
# plain runs, one with the clock stopped for 5 s 20 s into the span (`--clock-restart-ms`),
# one with two clock replicas (`--clocks 2`), Redis flushed between runs. Prints each run's
# JSON and the medians of the plain runs.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-dbench-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
n=${DEADLINES:-100000}
over=${OVER_MS:-60000}
run() {
    echo "# $*" >&2
    redis-cli -p "$port" flushall >/dev/null
    "$bin" load --deadlines "$n" --over-ms "$over" "$@"
}
out=()
for r in 1 2 3; do
    line=$(run)
    echo "$line"
    out+=("$line")
done
run --clock-restart-ms 20000
run --clocks 2
python3 - "${out[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
for name, f in [
    ("lag p50 ms", lambda r: r["lag_ms"]["p50"]),
    ("lag p99 ms", lambda r: r["lag_ms"]["p99"]),
    ("lag p99.9 ms", lambda r: r["lag_ms"]["p999"]),
    ("lag max ms", lambda r: r["lag_ms"]["max"]),
    ("missed", lambda r: r["missed"]),
    ("creation s", lambda r: r["creation_s"]),
]:
    xs = [f(r) for r in runs]
    print(f"{name}: median {statistics.median(xs)} (runs {xs})")
PY
