#!/usr/bin/env bash
# The cost of Redis' fsync policy on the move path: the same closed-loop GOPS load
# (`colosseum load`, every service in-process) against a fresh redis-server with AOF off,
# `appendfsync everysec` and `appendfsync always`, interleaved over ROUNDS rounds so the
# machine's noise falls on all three alike. Prints one line per run and the medians.
# Figures go to docs/benchmarks.md ("Redis fsync policy") by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
MATCHES=${MATCHES:-1000}
CONCURRENCY=${CONCURRENCY:-100}
# The release binary: COLOSSEUM_BIN, else cargo's target directory (CARGO_TARGET_DIR or ./target).
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
results=$(mktemp)
trap 'rm -f "$results"' EXIT
run() {
    local policy=$1 dir port pid out
    dir=$(mktemp -d)
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    case $policy in
        off) args=(--appendonly no) ;;
        *) args=(--appendonly yes --appendfsync "$policy") ;;
    esac
    redis-server --port "$port" --bind 127.0.0.1 --save '' --dir "$dir" "${args[@]}" \
        --daemonize yes --pidfile "$dir/redis.pid" >/dev/null
    for _ in $(seq 100); do redis-cli -p "$port" ping >/dev/null 2>&1 && break; sleep 0.05; done
    out=$(REDIS_URL="redis://127.0.0.1:$port/" "$bin" load --game gops --matches "$MATCHES" \
        --concurrency "$CONCURRENCY" --think-ms 0 2>/dev/null)
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true
    rm -rf "$dir"
    echo "$policy $out" | tee -a "$results"
}
for round in $(seq "$ROUNDS"); do
    echo "# round $round of $ROUNDS" >&2
    for policy in off everysec always; do run "$policy"; done
done
python3 - "$results" <<'PY'
import json, statistics, sys
rows = {}
for line in open(sys.argv[1]):
    policy, js = line.split(" ", 1)
    rows.setdefault(policy, []).append(json.loads(js))
base = statistics.median(r["moves_per_s"] for r in rows["off"])
for policy in ("off", "everysec", "always"):
    mps = statistics.median(r["moves_per_s"] for r in rows[policy])
    print(f"{policy:9} median {mps:8.0f} moves/s  ratio to AOF off {mps / base:.2f}")
PY
