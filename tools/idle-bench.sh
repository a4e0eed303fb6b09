#!/usr/bin/env bash
# The idle-match benchmark (docs/benchmarks.md, issue 17): a throwaway redis-server, then
# `colosseum load --idle N` (default 1,000,000 GOPS matches made by CreateMatches with a week
# per move and left waiting; the whole cluster in the process): the process's RSS, Redis's
# bytes per idle match and per key, and SubmitMove latency on random matches the engines
# evicted (each rebuilt from its stream). Prints the run's JSON.
# IDLE_N, PROBE_MOVES, PROBE_RATE: the matches, the probe moves and their rate a second (0:
# 16 in flight back to back); ENGINE_IDLE_MS and ENGINE_MAX_HOT_MATCHES reach the in-process
# engines as they reach the engine binary. Further arguments go to `colosseum load`.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-ibench-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
for _ in $(seq 50); do
    redis-cli -p "$port" ping >/dev/null 2>&1 && break
    sleep 0.1
done
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
echo "# $(redis-server --version | cut -d' ' -f1-3), commit $(git log -1 --format=%h 2>/dev/null || echo unknown)" >&2
"$bin" load --idle "${IDLE_N:-1000000}" --probe-moves "${PROBE_MOVES:-2000}" --probe-rate "${PROBE_RATE:-200}" "$@"
