#!/usr/bin/env bash
# The cluster benchmark: throwaway Redis on free loopback ports, then `colosseum load`
# (which starts every service in-process and plays through the gateway), after a bare
# tonic echo measured in the same run. REDIS_MODE=cluster (default single) runs it on a
# 3-primary Redis Cluster instead of one redis-server; RUNS=3 repeats the whole set.
# Figures go to docs/benchmarks.md by hand.
set -euo pipefail
cd "$(dirname "$0")/.."
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
dir=$(mktemp -d /tmp/colosseum-bench.XXXXXX)
ports=()
cleanup() {
    for p in "${ports[@]}"; do redis-cli -p "$p" shutdown nosave >/dev/null 2>&1 || true; done
    rm -rf "$dir"
}
trap cleanup EXIT
start_redis() { # port, extra args...
    local port=$1; shift
    mkdir -p "$dir/$port"
    redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes \
        --dir "$dir/$port" --pidfile "$dir/$port.pid" "$@" >/dev/null
    ports+=("$port")
    until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
}
if [ "${REDIS_MODE:-single}" = cluster ]; then
    for _ in 1 2 3; do start_redis "$(free_port)" --cluster-enabled yes --cluster-config-file nodes.conf; done
    redis-cli --cluster create "${ports[@]/#/127.0.0.1:}" --cluster-replicas 0 --cluster-yes >/dev/null
    until [ "$(redis-cli -p "${ports[0]}" cluster info | tr -d '\r' | awk -F: '/cluster_state/ {print $2}')" = ok ]; do sleep 0.1; done
    export REDIS_CLUSTER_URLS
    REDIS_CLUSTER_URLS=$(printf 'redis://127.0.0.1:%s/,' "${ports[@]}"); REDIS_CLUSTER_URLS=${REDIS_CLUSTER_URLS%,}
    unset REDIS_URL
else
    start_redis "$(free_port)"
    export REDIS_URL="redis://127.0.0.1:${ports[0]}/"
fi
# The release binary: COLOSSEUM_BIN, else cargo's target directory (CARGO_TARGET_DIR or ./target).
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
calls() {
    local total=0 p
    for p in "${ports[@]}"; do
        total=$((total + $(redis-cli -p "$p" info stats | awk -F: '/^total_commands_processed/ {print $2+0}')))
    done
    echo "$total"
}
# Redis's own CPU seconds (user + system), every server together.
redis_cpu() {
    local p
    for p in "${ports[@]}"; do redis-cli -p "$p" info cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {print s}'; done |
        awk '{s += $1} END {printf "%.2f", s}'
}
run() {
    local before after cpu_before cpu_after out moves
    before=$(calls)
    cpu_before=$(redis_cpu)
    out=$("$bin" load "$@")
    after=$(calls)
    cpu_after=$(redis_cpu)
    moves=$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["moves"])' "$out")
    echo "$out"
    echo "redis commands: $((after - before)) for $moves moves: $(python3 -c "print(round(($after - $before) / max(1, $moves), 2))") per move (every service's, the hub's blocking reads included)"
    echo "redis cpu: $(python3 -c "print(round(($cpu_after - $cpu_before) * 1e6 / max(1, $moves)))") us per move"
}
for n in $(seq 1 "${RUNS:-1}"); do
    echo "## run $n of ${RUNS:-1} on ${REDIS_MODE:-single} Redis"
    echo "# (a) throughput: closed loop, 200 concurrent GOPS matches, with a 10 s echo baseline"
    run --game gops --matches 2000 --concurrency 200 --think-ms 0 --echo-seconds 10 ${LOAD_ARGS:-}
    echo "# (b) latency: 1,000 concurrent GOPS matches, bots thinking 500 ms per move"
    run --game gops --matches 1000 --concurrency 1000 --think-ms 500 ${LOAD_ARGS:-}
    echo "# (b') the same, each think time drawn from 450-550 ms"
    run --game gops --matches 1000 --concurrency 1000 --think-ms 500 --think-jitter-ms 50 ${LOAD_ARGS:-}
done
