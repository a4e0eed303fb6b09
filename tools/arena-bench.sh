#!/usr/bin/env bash
# The arena benchmark (docs/benchmarks.md, issue 15): a throwaway redis-server, the whole
# cluster (`colosseum run`) on it with a config directory of its own, then an arena of
# PLAYERS GOPS bots (default 1,000) for DURATION_MS (default 5 minutes) through the
# platform API (`colosseum tournament run --stats`): every match played by random-move bots
# through the public API, every record verified afterwards; prints the figures (matches,
# standings lag: a match's end to its result in the standings, and to the client).
set -euo pipefail
cd "$(dirname "$0")/.."
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
port=$(free_port)
gw=$(free_port)
cfg=$(mktemp -d)
redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/colosseum-abench-$port.pid" >/dev/null
bin=${COLOSSEUM_BIN:-${CARGO_TARGET_DIR:-target}/release/colosseum}
XDG_CONFIG_HOME="$cfg" REDIS_URL="redis://127.0.0.1:$port/" "$bin" run --addr "127.0.0.1:$gw" >"$cfg/run.log" 2>&1 &
run=$!
trap 'kill $run 2>/dev/null || true; redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -rf "$cfg"' EXIT
for _ in $(seq 50); do [ -f "$cfg/colosseum/admin-127.0.0.1-$gw.json" ] && break; sleep 0.2; done
XDG_CONFIG_HOME="$cfg" "$bin" tournament run --url "http://127.0.0.1:$gw" --format arena \
    --players "${PLAYERS:-1000}" --duration-ms "${DURATION_MS:-300000}" --game gops --stats | grep --line-buffered standings_lag_ms
