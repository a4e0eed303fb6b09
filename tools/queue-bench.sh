#!/usr/bin/env bash
# The match-maker benchmark (docs/benchmarks.md, issue 14): a throwaway redis-server on a
# free port, then `colosseum load --queue` three times: guest players arriving through the
# match-maker (session, WatchTickets, a casual ticket, the pushed assignment), then the
# matching pass alone over 10,000 waiting tickets, after a bare tonic echo measured in the
# same run as the baseline. Prints each run's JSON and the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-qbench-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
players=${PLAYERS:-10000}
concurrency=${CONCURRENCY:-1000}
out=()
for run in 1 2 3; do
    echo "# run $run: $players players, $concurrency arriving at once; the pass over 10,000 tickets" >&2
    line=$("$bin" load --queue --players "$players" --concurrency "$concurrency" \
        --pass-tickets 10000 --pass-runs 3 --echo-seconds 5)
    echo "$line"
    out+=("$line")
    redis-cli -p "$port" flushall >/dev/null
done
python3 - "${out[@]}" <<'PY'
import json, statistics, sys
runs = [json.loads(a) for a in sys.argv[1:]]
def med(f):
    xs = [f(r) for r in runs]
    return statistics.median(xs), xs
for name, f in [
    ("pairings/s", lambda r: r["arrivals"]["pairings_per_s"]),
    ("ticket->assignment p50 ms", lambda r: r["arrivals"]["ticket_to_assignment_p50_ms"]),
    ("ticket->assignment p99 ms", lambda r: r["arrivals"]["ticket_to_assignment_p99_ms"]),
    ("pass, backlog of 10,000 (pairs none), median ms", lambda r: r["pass"]["backlog"]["median_ms"]),
    ("pass, burst of 10,000 (pairs all), median ms", lambda r: r["pass"]["burst"]["median_ms"]),
    ("echo requests/s", lambda r: r["echo"]["requests_per_s"]),
    ("pairings/s per 1k echo requests/s", lambda r: round(1000 * r["arrivals"]["pairings_per_s"] / r["echo"]["requests_per_s"], 1)),
]:
    m, xs = med(f)
    print(f"{name}: median {m} (runs {xs})")
PY
