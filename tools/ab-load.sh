#!/usr/bin/env bash
# Two or more builds compared in one run: the same `colosseum load` on each binary in
# turn, ROUNDS times, on one throwaway redis-server, each round after a bare tonic echo
# (the host's baseline that round). CPU per move is the load process's user + system time
# (every service and the load clients) and Redis's, divided by the moves: unlike moves/s,
# it hardly moves with the host's noise. Prints one line a run:
#   round label moves/s p50_ms p99_ms echo_req/s moves/s÷echo cpu_us/move redis_cpu_us/move
# A BIN may be a wrapper script that adds flags (`exec /path/colosseum "$@" --wire unary`).
# Usage: tools/ab-load.sh LABEL=BIN LABEL=BIN... (ROUNDS=3; LOAD_ARGS, by default the
# closed loop of 2,000 GOPS matches 200 at a time; (b) is
# LOAD_ARGS="--matches 1000 --concurrency 1000 --think-ms 500").
# SPLIT=1: the servers (`colosseum run`) and Redis on core 0, the load clients
# (`colosseum load --gateway`) on core 1 (taskset), so the servers' CPU is seen alone; the
# line then ends with the servers' CPU µs/move and the clients'.
set -euo pipefail
[ -x /usr/bin/time ] || { echo "$0: needs /usr/bin/time (Debian's package time)" >&2; exit 2; }
[ $# -ge 2 ] || { echo "usage: $0 old=/path/colosseum new=/path/colosseum [...]" >&2; exit 2; }
rounds=${ROUNDS:-3}
read -r -a load_args <<< "${LOAD_ARGS:---matches 2000 --concurrency 200 --think-ms 0}"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
split=${SPLIT:-0}
pin_servers=()
pin_clients=()
if [ "$split" = 1 ]; then
    command -v taskset >/dev/null || { echo "$0: SPLIT=1 needs taskset (util-linux)" >&2; exit 2; }
    pin_servers=(taskset -c 0)
    pin_clients=(taskset -c 1)
fi
"${pin_servers[@]}" redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize yes --pidfile "/tmp/ab-load-$port.pid" >/dev/null
times=$(mktemp)
trap 'redis-cli -p "$port" shutdown nosave >/dev/null 2>&1 || true; rm -f "$times"' EXIT
until redis-cli -p "$port" ping >/dev/null 2>&1; do sleep 0.05; done
export REDIS_URL="redis://127.0.0.1:$port/"
# A process's user + system CPU so far, in seconds (/proc/PID/stat, clock ticks).
proc_cpu() { awk -v hz="$(getconf CLK_TCK)" '{printf "%.3f", ($14 + $15) / hz}' "/proc/$1/stat"; }
redis_cpu() { redis-cli -p "$port" info cpu | tr -d '\r' | awk -F: '/^used_cpu_(user|sys):/ {s += $2} END {printf "%.3f", s}'; }
first_bin=${1#*=}
for round in $(seq 1 "$rounds"); do
    echo "round $round/$rounds: echo" >&2
    echo_rps=$("$first_bin" load --matches 0 --echo-seconds 5 2>/dev/null |
        python3 -c 'import json,sys; print(json.load(sys.stdin)["echo"]["requests_per_s"])')
    for pair in "$@"; do
        label=${pair%%=*}
        bin=${pair#*=}
        redis-cli -p "$port" flushall >/dev/null
        echo "round $round/$rounds: $label" >&2
        server_args=()
        s0=0
        if [ "$split" = 1 ]; then
            gport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
            "${pin_servers[@]}" "$bin" run --addr "127.0.0.1:$gport" >/dev/null 2>&1 &
            server=$!
            until python3 -c "import socket,sys; socket.create_connection(('127.0.0.1',$gport),0.2)" 2>/dev/null; do sleep 0.1; done
            server_args=(--gateway "http://127.0.0.1:$gport")
            s0=$(proc_cpu "$server")
        fi
        r0=$(redis_cpu)
        out=$(/usr/bin/time -f '%U %S' -o "$times" "${pin_clients[@]}" "$bin" load --game gops "${load_args[@]}" "${server_args[@]}" 2>/dev/null)
        r1=$(redis_cpu)
        s1=0
        if [ "$split" = 1 ]; then
            s1=$(proc_cpu "$server")
            kill -INT "$server"
            wait "$server" || true
        fi
        python3 - "$round" "$label" "$out" "$echo_rps" "$(cat "$times")" "$r0" "$r1" "$s0" "$s1" "$split" <<'EOF'
import json, sys
rnd, label, out, echo, times, r0, r1, s0, s1, split = sys.argv[1:]
d = json.loads(out)
moves = max(1, d["moves"])
cpu = sum(float(x) for x in times.split())
line = [rnd, label, d["moves_per_s"], d["p50_ms"], d["p99_ms"], echo,
        round(d["moves_per_s"] / float(echo), 4)]
server = float(s1) - float(s0)
# Split: the process's share is the servers' plus the clients'; then each alone.
line += [round((cpu + server) * 1e6 / moves), round((float(r1) - float(r0)) * 1e6 / moves)]
if split == "1":
    line += [round(server * 1e6 / moves), round(cpu * 1e6 / moves)]
print(*line)
EOF
    done
done
