"""Folds `perf script` output (stdin) into stacks, writes them to argv[1] in the folded
format flame-graph tools read ("a;b;c count"), and prints where the time goes: the
inclusive share of each layer of the move path and the top functions by self time."""
import collections
import re
import sys

# A sample's layer is the first of these (in this order) found in its stack, by symbol
# prefix: the first match wins, so the more specific layers come first.
LAYERS = [
    ("rules engine: the step (rules, views, append)", ("rules_engine::engine::",)),
    ("rules: the games", ("rules_goofspiel::", "games::", "rules_core::", "wire::")),
    ("event store (Redis client, codecs, record)", ("events::", "redis::", "miniz_oxide::")),
    ("gateway: hub and watch streams", ("gateway::hub", "gateway::watch")),
    ("gateway: Play streams", ("gateway::play",)),
    ("gateway: handlers", ("gateway::",)),
    ("load clients (bots, the client crate)", ("colosseum::load", "client::", "bots::")),
    ("clock", ("clock::",)),
    ("tracing and telemetry", ("tracing", "opentelemetry", "service_kit::telemetry")),
    ("protobuf encode/decode", ("prost::", "<prost::", "tonic::codec")),
    ("HTTP/2 (h2, hyper, tonic transport)", ("h2::", "hyper::", "hyper_util::", "tonic::", "tower::")),
    ("tokio runtime", ("tokio::",)),
    ("allocator", ("malloc", "free", "realloc", "_int_", "cfree")),
    ("kernel and libc (syscalls, sockets)", ("[unknown]", "__libc", "__GI_", "syscall", "epoll", "write", "read", "send", "recv")),
]


def layer_of(stack):
    for name, prefixes in LAYERS:
        for frame in stack:
            if frame.startswith(prefixes):
                return name
    return "other"


def main():
    stacks = collections.Counter()
    current = []
    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line.strip():
            if current:
                stacks[";".join(reversed(current))] += 1
            current = []
            continue
        if line[0] not in " \t":
            continue  # the sample's header line (comm, pid, time, event)
        m = re.match(r"\s*[0-9a-f]+\s+(.*?)(\+0x[0-9a-f]+)?\s+\(", line)
        if m:
            current.append(m.group(1))
    if current:
        stacks[";".join(reversed(current))] += 1
    total = sum(stacks.values()) or 1
    with open(sys.argv[1], "w") as f:
        for stack, n in stacks.most_common():
            f.write(f"{stack} {n}\n")
    layers = collections.Counter()
    selfs = collections.Counter()
    for stack, n in stacks.items():
        frames = stack.split(";")
        # Outermost first in the folded form: the layer is found from the leaf outward.
        layers[layer_of(list(reversed(frames)))] += n
        selfs[frames[-1]] += n
    print(f"{total} samples")
    print("layer (the innermost named layer of each sample's stack): share of samples")
    for name, n in layers.most_common():
        print(f"  {100 * n / total:5.1f}%  {name}")
    print("top self time:")
    for name, n in selfs.most_common(25):
        print(f"  {100 * n / total:5.1f}%  {name[:110]}")


main()
