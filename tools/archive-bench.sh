#!/usr/bin/env bash
# The archive benchmark (docs/benchmarks.md, issue 30): a throwaway redis-server on a free
# port, then `colosseum load --archive`: MATCHES GOPS matches played bot against bot
# through the gateway (CONCURRENCY at once, two guests per slot, so each player's history
# holds MATCHES/CONCURRENCY matches), each archived into a PostgreSQL the command starts
# and released from Redis RELEASE_S after; then Redis's memory before, during and after,
# VERIFY archived records verified as `colosseum verify` does, and every player's history
# paged through ListPlayerHistory, each page timed; a bare tonic echo (ECHO_S seconds)
# first, the same run's baseline. Prints the run's JSON.
set -euo pipefail
cd "$(dirname "$0")/.."
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-abench-$port.pid" >/dev/null
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true' EXIT
export REDIS_URL="redis://127.0.0.1:$port/"
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
"$bin" load --archive --game gops --matches "${MATCHES:-1000000}" --concurrency "${CONCURRENCY:-100}" \
    --release-after-s "${RELEASE_S:-5}" --verify-sample "${VERIFY:-1000}" --move-time 60 \
    --echo-seconds "${ECHO_S:-5}"
