"""Checks what deploy/ and charts/colosseum ship, offline, then runs the chart for real.

    python tools/deploy-check/check.py [--bin-dir DIR] [--offline] [--keep-logs]

(`make deploy-check` installs the venv in tools/deploy-check/venv and runs this with the
binaries of $(CARGO_TARGET_DIR or target)/debug.)

Offline: hadolint on deploy/Dockerfile, and its build's inputs (packages, a current
Cargo.lock, a .dockerignore that sends every file the build reads); `helm lint --strict` and a render of every
example values file (charts/colosseum/ci/*.yaml); a typo in values must fail; every
rendered manifest validated with kubernetes-validate --strict against two Kubernetes
versions; what no schema says (probes, resources, securityContext, graceful stop, env
vars the binaries read, Service ports that name container ports, engine URLs that reach
an engine of the right family and the gateway's MATCHMAKER_URL the match-maker and
TOURNAMENTS_URL the tournament service, NetworkPolicies that let each caller reach what
it calls and nothing else in, identical bytes on a second render); the compose file cross-checked the same way (healthchecks and
start order included) and against the Compose Specification; every
PromQL expression of the dashboards and alert rules parsed, panel types and datasources
checked; with promtool (required), the Prometheus config and rules checked and the
alerts' unit tests (deploy/prometheus/rules.test.yaml) run.

Live (unless --offline): the workloads of every example are started as local processes,
one per replica (at most --max-replicas), with their command, args, env and mounted
Secrets; each Service is a loopback port that hands each new connection to the next
replica (kube-proxy's balancing), a StatefulSet's pods are reached by name; the Redis is
the rendered one, or a redis-server (a Redis Cluster for mode cluster) standing in for
the values' own; an archive the values name is a PostgreSQL of ours (initdb, as the
`postgres` user when run as root). Every probe is run, the engines, the match-maker and the tournament
service must refuse a call without the secret, matches of every family are played through
the rendered gateway with the `colosseum` CLI, a deadline is left to the clock,
LobbyService is called through the gateway (an empty leaderboard, two guests queued and
paired into a match the match-maker created through the engines), the tournament service
answers health through its Service, a tenant and an API key are made with `colosseum
tenant` and the internal secret, and that key lists no tournament through the gateway;
exactly one match-maker holds the matcher lease and one tournament service the driver
lease (each holder killed with -9: another takes over), each process must stop within
its termination grace, the archive (when named) holds every match played, as many as the
match-makers' archiver counts, and every metric the dashboards and rules name must be exported.

What each binary reads is derived from the Rust sources (see `env_vars_read`), so the
check follows the code. Exit status 1 on any failure; every failure is printed.
"""

from __future__ import annotations

import argparse
import base64
import copy
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
import urllib.request

import yaml

ROOT = pathlib.Path(__file__).resolve().parents[2]
CHART = ROOT / "charts" / "colosseum"
DEPLOY = ROOT / "deploy"
K8S_VERSIONS = ["1.36.0", "1.37.0"]
# The binaries the image ships, by the path the chart and compose run them at.
OUR_BINARIES = {"gateway", "rules-engine", "clock", "match-maker", "tournaments", "colosseum"}
# The variable each service listens on for gRPC, and its port in the chart and compose.
LISTEN_VAR = {"gateway": "GATEWAY_ADDR", "rules-engine": "ENGINE_ADDR", "clock": "CLOCK_ADDR", "match-maker": "MATCHMAKER_ADDR",
              "tournaments": "TOURNAMENTS_ADDR"}
# What the gateway fronts: the variable naming a backend's replicas, that backend's binary,
# and the service that answers UNAVAILABLE without it.
FRONTED = {"MATCHMAKER_URL": ("match-maker", "LobbyService"), "TOURNAMENTS_URL": ("tournaments", "TournamentService")}
# Who may call each component's gRPC port inside the release (the NetworkPolicies): the
# engines take the gateway, the clock, the match-maker and the tournament service; the
# match-maker and the tournament service the gateway only (it fronts LobbyService and
# TournamentService; operators reach TenantAdminService by port-forward, which no
# NetworkPolicy sees); the clock nobody. The gateway is open to its clients.
CALLERS = {
    "rules-engine": {"gateway", "clock", "match-maker", "tournaments"},
    "match-maker": {"gateway"},
    "tournaments": {"gateway"},
    "clock": set(),
    "redis": {"gateway", "rules-engine", "clock", "match-maker", "tournaments"},
}
# The binaries that read the archive of finished matches (PostgreSQL: ARCHIVE_URL or
# ARCHIVE_URL_FILE) when the values name one; the match-maker runs the archiver.
ARCHIVE_READERS = {"gateway", "match-maker", "rules-engine"}
# The binaries that create matches through the engines (ENGINE_<FAMILY>_URL).
ENGINE_CALLERS = ("gateway", "clock", "match-maker", "tournaments")
FAMILIES = {"goofspiel", "placement", "duel"}
# A game per family, played in the live check.
GAME_OF_FAMILY = {"goofspiel": "gops", "placement": "cure-plague", "duel": "masterminds"}
RELEASE, NAMESPACE = "live", "games"
# Series Prometheus makes itself, never exported by a service.
PROMETHEUS_SERIES = {"up", "scrape_duration_seconds", "scrape_samples_scraped", "ALERTS"}
# gRPC status code names: upper-case literals in the sources that are never env vars.
GRPC_CODES = {
    "OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
    "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION",
    "ABORTED", "OUT_OF_RANGE", "UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS",
    "UNAUTHENTICATED",
}
PANEL_TYPES = {"timeseries", "stat", "gauge", "table", "row", "text", "bargauge", "heatmap"}


class Report:
    def __init__(self) -> None:
        self.failures: list[str] = []

    def ok(self, what: str) -> None:
        print(f"ok    {what}", flush=True)

    def fail(self, what: str) -> None:
        self.failures.append(what)
        print(f"FAIL  {what}", flush=True)

    def check(self, cond: bool, what: str, why: str = "") -> bool:
        if cond:
            self.ok(what)
        else:
            self.fail(f"{what}{': ' + why if why else ''}")
        return cond

    def section(self, title: str) -> None:
        print(f"\n== {title}", flush=True)


# ---------------------------------------------------------------------------------------
# What each binary reads: derived from the Rust sources.


def _sanitize(src: str) -> tuple[str, list[str]]:
    """The source with comments dropped and each string literal replaced by `"#<i>"`."""
    literals: list[str] = []

    def keep(m: re.Match) -> str:
        literals.append(m.group(0))
        return f'"#{len(literals) - 1}"'

    pattern = re.compile(
        r'r(#*)".*?"\1|"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/|\'(?:\\.|[^\\\'\n])\'', re.S
    )

    def sub(m: re.Match) -> str:
        t = m.group(0)
        if t.startswith("//") or t.startswith("/*"):
            return " "
        if t.startswith("'"):
            return "'c'"
        return keep(m)

    return pattern.sub(sub, src), literals


def _functions(path: pathlib.Path) -> list[tuple[str, str, list[str]]]:
    """Each fn of a file outside its test module: (name, sanitized body, literals)."""
    text = path.read_text()
    cut = re.search(r"#\[cfg\(test\)\]\s*mod\s+\w+\s*\{", text)
    if cut:
        text = text[: cut.start()]
    clean, literals = _sanitize(text)
    out = []
    for m in re.finditer(r"\bfn\s+(\w+)", clean):
        i = m.end()
        # The body starts at the first `{` before any `;` (a declaration has no body).
        while i < len(clean) and clean[i] not in "{;":
            i += 1
        if i >= len(clean) or clean[i] == ";":
            continue
        depth, j = 0, i
        while j < len(clean):
            depth += {"{": 1, "}": -1}.get(clean[j], 0)
            j += 1
            if depth == 0:
                break
        body = clean[i:j]
        lits = [literals[int(n)] for n in re.findall(r'"#(\d+)"', body)]
        # The first argument of a config helper or std::env call, marked: an env var even
        # without an `_` in its name (FAMILIES).
        lits += ["ARG:" + literals[int(n)] for n in re.findall(rf'\b(?:{"|".join(sorted(ENV_HELPERS))})\(\s*"#(\d+)"', body)]
        out.append((m.group(1), body, lits))
    # Constants and statics too (a table of variable names), reached when a fn names them.
    for m in re.finditer(r"\b(?:const|static)\s+([A-Z][A-Z0-9_]*)\s*:[^=;]*=([^;]*);", clean):
        lits = [literals[int(n)] for n in re.findall(r'"#(\d+)"', m.group(2))]
        out.append((m.group(1), m.group(2), lits))
    return out


# Functions whose first argument names an env var: std::env's, and (added by
# `env_vars_read`) every workspace fn declared `fn name(var: &'static str ...`.
ENV_HELPERS = {"var", "var_os"}


def _workspace() -> dict[str, dict]:
    """Workspace packages: name -> {dir, deps (workspace path deps), bins}."""
    root = tomllib.loads((ROOT / "Cargo.toml").read_text())
    ws = root["workspace"]
    path_deps = {n for n, d in ws.get("dependencies", {}).items() if isinstance(d, dict) and "path" in d}
    pkgs = {}
    for member in ws["members"]:
        d = ROOT / member
        manifest = d / "Cargo.toml"
        if not manifest.exists():
            continue
        t = tomllib.loads(manifest.read_text())
        name = t["package"]["name"]
        deps = set()
        for dep, spec in t.get("dependencies", {}).items():
            if dep in path_deps or (isinstance(spec, dict) and "path" in spec):
                deps.add(dep)
        bins = {b["name"] for b in t.get("bin", [])} or {name}
        pkgs[name] = {"dir": d, "deps": deps, "bins": bins}
    return pkgs


def _third_party_vars(marker: str) -> set[str]:
    """Env var names in the registry sources of the crates behind `marker`."""
    cargo_home = pathlib.Path(os.environ.get("CARGO_HOME", pathlib.Path.home() / ".cargo"))
    lock = tomllib.loads((ROOT / "Cargo.lock").read_text())
    versions = {p["name"]: p["version"] for p in lock["package"]}
    crates = {
        "opentelemetry_otlp": ["opentelemetry-otlp", "opentelemetry_sdk"],
        "default_env": ["tracing-subscriber"],
    }[marker]
    found: set[str] = set()
    for crate in crates:
        for src in cargo_home.glob(f"registry/src/*/{crate}-{versions.get(crate, 'none')}/src"):
            for f in src.rglob("*.rs"):
                t = f.read_text(errors="replace")
                if marker == "default_env":
                    found |= set(re.findall(r'DEFAULT_ENV: &\'static str = "([A-Z_]+)"', t))
                else:
                    found |= set(re.findall(r'"(OTEL_[A-Z_]+)"', t))
    return found


def env_vars_read() -> dict[str, set[str]]:
    """The env vars each binary reads: upper-case string literals of the functions its
    crate's code reaches (by name, across the workspace crates it depends on), plus what
    tracing-subscriber (RUST_LOG) and the OTLP exporter (OTEL_*) read when reached.
    Over-approximate on purpose (a name shared by two fns reaches both): an env var the
    binary does not read is still caught unless some reached fn names it."""
    pkgs = _workspace()
    for p in pkgs.values():
        for f in (p["dir"] / "src").rglob("*.rs") if (p["dir"] / "src").exists() else []:
            ENV_HELPERS.update(re.findall(r"\bfn\s+(\w+)\s*\(\s*var:\s*&'static str", f.read_text()))
    fns_of = {}
    for name, p in pkgs.items():
        fns = []
        src = p["dir"] / "src"
        for f in sorted(src.rglob("*.rs")) if src.exists() else []:
            fns += _functions(f)
        fns_of[name] = fns
    env_like = re.compile(r'^"([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+)"$')
    out = {}
    for pkg, p in pkgs.items():
        for binary in p["bins"] & OUR_BINARIES:
            closure, todo = set(), [pkg]
            while todo:
                c = todo.pop()
                if c in closure or c not in pkgs:
                    continue
                closure.add(c)
                todo += pkgs[c]["deps"]
            # Roots: every fn of the binary's own package.
            reached = list(fns_of[pkg])
            names_called = set()
            pool = [f for c in closure if c != pkg for f in fns_of[c]]
            frontier = reached
            while frontier:
                calls = set()
                for _, body, _ in frontier:
                    calls |= set(re.findall(r"\b(\w+)\s*(?:::<[^>]*>)?\s*\(", body))
                    calls |= set(re.findall(r"\b([A-Z][A-Z0-9_]+)\b", body))
                new_calls = calls - names_called
                names_called |= new_calls
                frontier = [f for f in pool if f[0] in new_calls]
                reached += frontier
            env = set()
            bodies = ""
            for _, body, lits in reached:
                bodies += body
                for lit in lits:
                    m = env_like.match(lit) or re.fullmatch(r'ARG:"([A-Z][A-Z0-9_]{2,})"', lit)
                    if m and m.group(1) not in GRPC_CODES:
                        env.add(m.group(1))
            if re.search(r"\b(try_)?from_default_env\b", bodies):
                env |= _third_party_vars("default_env") or {"RUST_LOG"}
            if "opentelemetry_otlp" in bodies:
                env |= _third_party_vars("opentelemetry_otlp")
            out[binary] = env
    return out


# ---------------------------------------------------------------------------------------
# YAML with duplicate keys refused (PyYAML keeps the last one silently).


class StrictLoader(yaml.SafeLoader):
    pass


def _no_duplicates(loader, node, deep=False):
    seen = set()
    for k, _ in node.value:
        if k.tag == "tag:yaml.org,2002:merge":
            continue
        key = loader.construct_object(k, deep=deep)
        if key in seen:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {key!r}", k.start_mark
            )
        seen.add(key)
    return loader.construct_mapping(node, deep)


StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _no_duplicates)


def load_docs(text: str) -> list[dict]:
    return [d for d in yaml.load_all(text, Loader=StrictLoader) if d]


# ---------------------------------------------------------------------------------------
# The chart, offline.


class quiet_stderr:
    """Silences fd 2 (the Helm SDK logs each symlink it follows: files/ links to deploy/)."""

    def __enter__(self):
        sys.stderr.flush()
        self.saved = os.dup(2)
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, 2)
        os.close(null)

    def __exit__(self, *exc):
        os.dup2(self.saved, 2)
        os.close(self.saved)


def examples() -> list[pathlib.Path]:
    return sorted((CHART / "ci").glob("*.yaml"))


def render(helm, values: dict, name: str = RELEASE) -> dict[str, str]:
    with quiet_stderr():
        chart = helm.Chart.load(str(CHART))
        return chart.render(values, name=name, namespace=NAMESPACE, is_install=True)


def manifests(rendered: dict[str, str]) -> list[dict]:
    docs = []
    for path, text in sorted(rendered.items()):
        if path.endswith("NOTES.txt"):
            continue
        for d in load_docs(text):
            d.setdefault("metadata", {})
            d["_source"] = path
            docs.append(d)
    return docs


def masked(rendered: dict[str, str]) -> str:
    """The rendered bytes with the chart-generated secret's value blanked (random at each
    `helm template`; in a cluster, lookup keeps it)."""
    text = "".join(f"# {p}\n{t}" for p, t in sorted(rendered.items()))
    return re.sub(
        r'(colosseum.dev/generated: "true"\ntype: Opaque\ndata:\n  token: )"[^"]*"',
        r'\1"<generated>"',
        text,
    )


def pod_specs(docs):
    for d in docs:
        if d.get("kind") in ("Deployment", "StatefulSet"):
            yield d, d["spec"]["template"]["spec"]


def selects(selector: dict, labels: dict) -> bool:
    return bool(selector) and all(labels.get(k) == v for k, v in selector.items())


def binary_of(container: dict) -> str:
    cmd = (container.get("command") or container.get("args") or [""])[0]
    return pathlib.PurePosixPath(cmd).name


def check_semantics(r: Report, label: str, docs: list[dict], env_read: dict[str, set[str]], values: dict) -> None:
    """What no schema checks, over one example's rendered manifests: one report line,
    every problem listed."""
    by_kind: dict[str, list[dict]] = {}
    for d in docs:
        by_kind.setdefault(d["kind"], []).append(d)
    workloads = [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]
    secrets = {d["metadata"]["name"]: d for d in by_kind.get("Secret", [])}
    external_secrets = {values.get("internalToken", {}).get("existingSecret"), values.get("redis", {}).get("existingSecret"),
                        values.get("archive", {}).get("existingSecret")} - {None, ""}
    archive_named = bool(values.get("archive", {}).get("existingSecret") or values.get("archive", {}).get("url"))
    problems: list[str] = []
    services = {s["metadata"]["name"]: s for s in by_kind.get("Service", [])}

    def reaches(url: str, binary: str) -> str:
        """Why `url` does not reach, through a rendered Service, only `binary` processes
        listening on the port it targets; "" when it does."""
        um = re.fullmatch(r"http://([^:/]+):(\d+)", url.strip())
        if not um:
            return "is not http://host:port"
        svc = services.get(um.group(1).split(".")[0])
        if not svc:
            return "names no rendered Service"
        sport = next((p for p in svc["spec"]["ports"] if p["port"] == int(um.group(2))), None)
        if not sport:
            return f"names no port of Service {svc['metadata']['name']}"
        targets = [t for t, _ in pod_specs(docs) if selects(svc["spec"].get("selector", {}), t["spec"]["template"]["metadata"]["labels"])]
        if not targets:
            return f"reaches Service {svc['metadata']['name']}, which selects no workload"
        for t in targets:
            tc = t["spec"]["template"]["spec"]["containers"][0]
            tport = {q.get("name"): q["containerPort"] for q in tc.get("ports", [])}
            tp = sport.get("targetPort", sport["port"])
            tp = tp if isinstance(tp, int) else tport.get(tp)
            tenv = {e["name"]: e.get("value") for e in tc.get("env", [])}
            if binary_of(tc) != binary or not (tenv.get(LISTEN_VAR[binary]) or "").endswith(f":{tp}"):
                return f"reaches {t['metadata']['name']}, not a {binary} listening on that port"
        return ""

    for w, spec in pod_specs(docs):
        wname = w["metadata"]["name"]
        psc = spec.get("securityContext", {})
        if not psc.get("runAsNonRoot") or psc.get("seccompProfile", {}).get("type") != "RuntimeDefault":
            problems.append(f"{wname}: pod securityContext lacks runAsNonRoot or seccompProfile RuntimeDefault")
        if spec.get("automountServiceAccountToken") is not False:
            problems.append(f"{wname}: automountServiceAccountToken is not false")
        grace = spec.get("terminationGracePeriodSeconds", 30)
        mounts_ok = {v["name"] for v in spec.get("volumes", [])}
        for v in spec.get("volumes", []):
            name = v.get("secret", {}).get("secretName")
            if name and name not in secrets and name not in external_secrets:
                problems.append(f"{wname}: volume {v['name']} mounts Secret {name}, which is neither rendered nor the values' own")
        for c in spec["containers"]:
            cn = f"{wname}/{c['name']}"
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                if probe not in c:
                    problems.append(f"{cn}: no {probe}")
            ports = {p["containerPort"] for p in c.get("ports", [])}
            names = {p.get("name") for p in c.get("ports", [])}
            for probe in ("startupProbe", "livenessProbe", "readinessProbe"):
                p = c.get(probe, {})
                for kind in ("grpc", "httpGet", "tcpSocket"):
                    if kind in p:
                        port = p[kind]["port"]
                        if port not in ports and port not in names:
                            problems.append(f"{cn}: {probe} port {port} is no container port")
            res = c.get("resources", {})
            if not res.get("requests", {}).get("cpu") or not res.get("requests", {}).get("memory") or not res.get("limits", {}).get("memory"):
                problems.append(f"{cn}: resources need cpu and memory requests and a memory limit")
            sc = c.get("securityContext", {})
            if not (sc.get("readOnlyRootFilesystem") and sc.get("allowPrivilegeEscalation") is False
                    and sc.get("capabilities", {}).get("drop") == ["ALL"] and sc.get("runAsNonRoot")):
                problems.append(f"{cn}: securityContext is not restricted (read-only root, no escalation, drop ALL, non-root)")
            for m in c.get("volumeMounts", []):
                if m["name"] not in mounts_ok and m["name"] not in {t["metadata"]["name"] for t in w["spec"].get("volumeClaimTemplates", [])}:
                    problems.append(f"{cn}: mounts unknown volume {m['name']}")
            binary = binary_of(c)
            if binary in OUR_BINARIES:
                stop = c.get("lifecycle", {}).get("preStop", {})
                sleep = stop.get("sleep", {}).get("seconds")
                if sleep is None:
                    problems.append(f"{cn}: no preStop sleep (the pod must leave its Service before SIGTERM)")
                elif grace < sleep + 30:
                    problems.append(f"{cn}: terminationGracePeriodSeconds {grace} leaves under 30 s of drain after a {sleep} s preStop")
                for e in c.get("env", []):
                    if e["name"] not in env_read[binary]:
                        problems.append(f"{cn}: env {e['name']} is not read by {binary}")
                    if e["name"] == "INTERNAL_AUTH" and e.get("value") != "on":
                        problems.append(f"{cn}: INTERNAL_AUTH={e.get('value')!r}: internal calls must be authenticated")
                    ref = e.get("valueFrom", {}).get("secretKeyRef")
                    if ref and ref["name"] not in external_secrets:
                        s = secrets.get(ref["name"])
                        if not s or ref["key"] not in s.get("data", {}):
                            problems.append(f"{cn}: env {e['name']} names Secret {ref['name']}/{ref['key']}, not rendered")
                env = {e["name"]: e.get("value") for e in c.get("env", [])}
                # With an archive in the values, each binary that reads it is told where it is
                # (and only then: without one, finished matches stay in Redis).
                if binary in ARCHIVE_READERS and archive_named != bool({"ARCHIVE_URL", "ARCHIVE_URL_FILE"} & set(env)):
                    problems.append(f"{cn}: the values {'name an' if archive_named else 'name no'} archive, "
                                    f"but its env {'lacks' if archive_named else 'has'} ARCHIVE_URL or ARCHIVE_URL_FILE")
                if "ARCHIVE_URL_FILE" in env and not any(env["ARCHIVE_URL_FILE"].startswith(m["mountPath"] + "/") for m in c.get("volumeMounts", [])):
                    problems.append(f"{cn}: ARCHIVE_URL_FILE={env['ARCHIVE_URL_FILE']} lies in no mounted volume")
                # Every engine URL reaches, through a rendered Service, an engine of that family.
                for var, val in env.items():
                    m = re.fullmatch(r"ENGINE_([A-Z]+)_URL", var)
                    if not m or val is None:
                        continue
                    fam = m.group(1).lower()
                    pods_named: dict[str, set[str]] = {}
                    for url in val.split(","):
                        um = re.fullmatch(r"http://([^:/]+):(\d+)", url.strip())
                        labels_ = um.group(1).split(".") if um else [""]
                        services = {s["metadata"]["name"]: s for s in by_kind.get("Service", [])}
                        svc = services.get(labels_[0])
                        pod_sts = None
                        if not svc and len(labels_) > 1 and labels_[1] in services:
                            # <pod>.<headless Service>: a StatefulSet's pod, by name.
                            svc = services[labels_[1]]
                            pod_sts = next((t for t in workloads if t["kind"] == "StatefulSet" and t["spec"].get("serviceName") == svc["metadata"]["name"]
                                            and re.fullmatch(re.escape(t["metadata"]["name"]) + r"-(\d+)", labels_[0])
                                            and int(labels_[0].rsplit("-", 1)[1]) < t["spec"]["replicas"]), None)
                            if not pod_sts or svc["spec"].get("clusterIP") != "None":
                                problems.append(f"{cn}: {var} names {um.group(1)}, no pod of a StatefulSet governed by a headless Service")
                                continue
                            pods_named.setdefault(pod_sts["metadata"]["name"], set()).add(labels_[0])
                        if not svc:
                            problems.append(f"{cn}: {var}={url} names no rendered Service")
                            continue
                        sport = next((p for p in svc["spec"]["ports"] if p["port"] == int(um.group(2))), None)
                        if pod_sts:
                            sport = {"targetPort": int(um.group(2))}
                        targets = [pod_sts] if pod_sts else [t for t, _ in pod_specs(docs) if selects(svc["spec"].get("selector", {}), t["spec"]["template"]["metadata"]["labels"])]
                        good = False
                        for t in targets:
                            tc = t["spec"]["template"]["spec"]["containers"][0]
                            tenv = {e["name"]: e.get("value") for e in tc.get("env", [])}
                            tport = {p.get("name"): p["containerPort"] for p in tc.get("ports", [])}
                            tp = sport and (sport["targetPort"] if isinstance(sport["targetPort"], int) else tport.get(sport["targetPort"]))
                            listens = tenv.get("ENGINE_ADDR", "").endswith(f":{tp}")
                            if binary_of(tc) == "rules-engine" and fam in (tenv.get("FAMILIES") or "").split(",") and listens:
                                good = True
                        if not good:
                            problems.append(f"{cn}: {var}={url} does not reach a {fam} rules engine listening on that port")
                    for sts_name, named in pods_named.items():
                        sts = next(t for t in workloads if t["metadata"]["name"] == sts_name)
                        if len(named) != sts["spec"]["replicas"]:
                            problems.append(f"{cn}: {var} lists {len(named)} of the {sts['spec']['replicas']} pods of {sts_name}")
                # The gateway passes LobbyService on to match-makers at MATCHMAKER_URL, and
                # TournamentService to the tournament service at TOURNAMENTS_URL.
                if binary == "gateway":
                    for var, (backend, service) in FRONTED.items():
                        urls = [u for u in (env.get(var) or "").split(",") if u.strip()]
                        if not urls:
                            problems.append(f"{cn}: no {var}: {service} would answer UNAVAILABLE")
                        for url in urls:
                            why = reaches(url, backend)
                            if why:
                                problems.append(f"{cn}: {var}={url} {why}")
                # Each *_ADDR a service listens on is a container port.
                for var in (*LISTEN_VAR.values(), "METRICS_ADDR"):
                    if env.get(var):
                        port = int(env[var].rsplit(":", 1)[1])
                        if port not in ports:
                            problems.append(f"{cn}: {var}={env[var]} is not a container port")
            elif c.get("env"):
                problems.append(f"{cn}: {binary} is not ours; its env cannot be checked")
    for s in by_kind.get("Service", []):
        sel = s["spec"].get("selector", {})
        targets = [t for t, _ in pod_specs(docs) if selects(sel, t["spec"]["template"]["metadata"]["labels"])]
        if not targets:
            problems.append(f"Service {s['metadata']['name']}: selects no workload")
        for p in s["spec"]["ports"]:
            tp = p.get("targetPort", p["port"])
            for t in targets:
                cports = [q for c in t["spec"]["template"]["spec"]["containers"] for q in c.get("ports", [])]
                if not any(q.get("name") == tp or q["containerPort"] == tp for q in cports):
                    problems.append(f"Service {s['metadata']['name']} port {p['name']}: targetPort {tp} is no container port of {t['metadata']['name']}")
    for kind, ref in (("HorizontalPodAutoscaler", "scaleTargetRef"),):
        for h in by_kind.get(kind, []):
            target = h["spec"][ref]["name"]
            d = next((w for w in workloads if w["metadata"]["name"] == target and w["kind"] == "Deployment"), None)
            if not d:
                problems.append(f"HPA {h['metadata']['name']}: no Deployment {target}")
            elif "replicas" in d["spec"]:
                problems.append(f"Deployment {target}: sets replicas and has an HPA (each upgrade would reset the HPA's count)")
    for p in by_kind.get("PodDisruptionBudget", []):
        if not any(selects(p["spec"]["selector"]["matchLabels"], w["spec"]["template"]["metadata"]["labels"]) for w in workloads):
            problems.append(f"PDB {p['metadata']['name']}: selects no workload")
    # Every Colosseum workload is covered by a PDB and (if a Deployment) a NetworkPolicy.
    pols = by_kind.get("NetworkPolicy", [])
    for w in workloads:
        labels = w["spec"]["template"]["metadata"]["labels"]
        if binary_of(w["spec"]["template"]["spec"]["containers"][0]) in OUR_BINARIES:
            if not any(selects(p["spec"]["selector"]["matchLabels"], labels) for p in by_kind.get("PodDisruptionBudget", [])):
                problems.append(f"{w['metadata']['name']}: no PodDisruptionBudget")
        if pols:
            mine = [p for p in pols if selects(p["spec"]["podSelector"]["matchLabels"], labels)]
            if not mine:
                problems.append(f"{w['metadata']['name']}: no NetworkPolicy selects it")
            open_rules = [rule for p in mine for rule in p["spec"].get("ingress", []) if not rule.get("from")]
            component = labels.get("app.kubernetes.io/component")
            if component != "gateway" and open_rules:
                problems.append(f"{w['metadata']['name']}: reachable from anywhere (only the gateway may be)")
            if component == "gateway" and open_rules and any(q.get("port") != "grpc" for rule in open_rules for q in rule.get("ports", [])):
                problems.append("gateway: a port other than grpc is open to anywhere")
    # Who may call whom: each caller reaches what it calls, nothing else in the release
    # reaches a component's serving port, and no peer outside the release does.
    if pols:
        for target in workloads:
            tlabels = target["spec"]["template"]["metadata"]["labels"]
            tcomp = tlabels.get("app.kubernetes.io/component")
            if tcomp not in CALLERS:
                continue
            cport = next((q for q in target["spec"]["template"]["spec"]["containers"][0].get("ports", []) if q.get("name") in ("grpc", "redis")), None)
            if not cport:
                continue
            for source in workloads:
                if source is target:
                    continue
                slabels = source["spec"]["template"]["metadata"]["labels"]
                scomp = slabels.get("app.kubernetes.io/component")
                may = admitted(pols, tlabels, cport, slabels)
                if may and scomp not in CALLERS[tcomp]:
                    problems.append(f"NetworkPolicy: {source['metadata']['name']} may call {target['metadata']['name']} ({cport['name']}): only {', '.join(sorted(CALLERS[tcomp])) or 'the scraper'} should")
                if not may and scomp in CALLERS[tcomp]:
                    problems.append(f"NetworkPolicy: {source['metadata']['name']} may not call {target['metadata']['name']} ({cport['name']}), which it needs")
            for pol in pols:
                if not selects(pol["spec"]["podSelector"].get("matchLabels", {}), tlabels):
                    continue
                for rule in pol["spec"].get("ingress", []):
                    if rule.get("ports") and not any(q.get("port") in (cport["name"], cport["containerPort"]) for q in rule["ports"]):
                        continue
                    if any("namespaceSelector" in peer or "ipBlock" in peer for peer in rule.get("from", [])):
                        problems.append(f"NetworkPolicy {pol['metadata']['name']}: {target['metadata']['name']} ({cport['name']}) is reachable from outside the release")
    if by_kind.get("ConfigMap"):
        for cm in by_kind["ConfigMap"]:
            if "dashboard" in cm["metadata"]["name"]:
                lab = values.get("monitoring", {}).get("dashboards", {}).get("label", "grafana_dashboard")
                if lab not in cm["metadata"].get("labels", {}):
                    problems.append(f"ConfigMap {cm['metadata']['name']}: no {lab} label")
                for k, v in cm.get("data", {}).items():
                    try:
                        json.loads(v)
                    except ValueError as e:
                        problems.append(f"ConfigMap {cm['metadata']['name']}: {k} is not JSON: {e}")
    for sm in by_kind.get("ServiceMonitor", []):
        svcs = [s for s in by_kind.get("Service", []) if selects(sm["spec"]["selector"]["matchLabels"], s["metadata"].get("labels", {}))]
        if not svcs:
            problems.append(f"ServiceMonitor {sm['metadata']['name']}: selects no Service")
        for ep in sm["spec"]["endpoints"]:
            for s in svcs:
                if ep["port"] not in {p["name"] for p in s["spec"]["ports"]}:
                    problems.append(f"ServiceMonitor {sm['metadata']['name']}: Service {s['metadata']['name']} has no port {ep['port']}")
    rules_file = yaml.safe_load((DEPLOY / "prometheus" / "rules.yaml").read_text())

    def relative_runbooks(spec):
        # monitoring.prometheusRule.runbookBaseUrl makes the links absolute: compare the rest.
        out = copy.deepcopy(spec)
        for g in out.get("groups", []):
            for rule in g.get("rules", []):
                ann = rule.get("annotations", {})
                if "runbook_url" in ann:
                    url = ann["runbook_url"]
                    if url != (rel := "docs/operations.md#" + url.split("docs/operations.md#", 1)[-1]):
                        if not re.match(r"^https?://[^ ]+/docs/operations\.md#", url):
                            problems.append(f"PrometheusRule: runbook_url {url!r} is neither relative nor absolute")
                    ann["runbook_url"] = rel
        return out

    for pr in by_kind.get("PrometheusRule", []):
        if relative_runbooks(pr["spec"]) != rules_file:
            problems.append(f"PrometheusRule {pr['metadata']['name']}: not deploy/prometheus/rules.yaml")
    shipped = {f.name: f.read_text() for f in (DEPLOY / "grafana" / "dashboards").glob("*.json")}
    in_maps = {k: v for cm in by_kind.get("ConfigMap", []) if "dashboard" in cm["metadata"]["name"] for k, v in cm.get("data", {}).items()}
    if in_maps and {k: json.loads(v) for k, v in in_maps.items()} != {k: json.loads(v) for k, v in shipped.items()}:
        problems.append(f"the dashboard ConfigMaps ({sorted(in_maps)}) are not deploy/grafana/dashboards ({sorted(shipped)})")
    families_run = {
        f for w, spec in pod_specs(docs) for c in spec["containers"] if binary_of(c) == "rules-engine"
        for e in c.get("env", []) if e["name"] == "FAMILIES" for f in e["value"].split(",")
    }
    if families_run != FAMILIES:
        problems.append(f"engines serve {sorted(families_run)}, not every family {sorted(FAMILIES)}")
    for backend, service in FRONTED.values():
        if not any(binary_of(spec["containers"][0]) == backend for _, spec in pod_specs(docs)):
            problems.append(f"no {backend} runs: {service} would answer UNAVAILABLE")
    r.check(not problems, f"{label}: probes, resources, securityContext, graceful stop, env, ports, wiring, policies", "\n      " + "\n      ".join(problems))


def admitted(pols: list[dict], target_labels: dict, port: dict, source_labels: dict) -> bool:
    """Whether the NetworkPolicies let a pod labelled `source_labels` (of the release's
    namespace) connect to `port` (a container port: name and number) of a pod labelled
    `target_labels`: no Ingress policy selects the target, or a rule of one admits it."""
    mine = [p for p in pols if selects(p["spec"]["podSelector"].get("matchLabels", {}), target_labels)
            and "Ingress" in p["spec"].get("policyTypes", ["Ingress"])]
    if not mine:
        return True
    for p in mine:
        for rule in p["spec"].get("ingress", []):
            if rule.get("ports") and not any(q.get("port") in (port["name"], port["containerPort"]) for q in rule["ports"]):
                continue
            if not rule.get("from"):
                return True
            for peer in rule["from"]:
                sel = peer.get("podSelector")
                # A podSelector alone: pods of the policy's namespace (an empty one: all).
                if sel is not None and "namespaceSelector" not in peer and all(source_labels.get(k) == v for k, v in sel.get("matchLabels", {}).items()):
                    return True
    return False


def check_chart(r: Report, helm, k8s_validate, env_read) -> dict[str, list[dict]]:
    r.section("Helm chart: lint, schema, render, validate, semantics")
    rendered_by_example = {}
    for ex in examples():
        values = yaml.safe_load(ex.read_text()) or {}
        with quiet_stderr():
            lint = helm.lint(str(CHART), values, strict=True, namespace=NAMESPACE)
        msgs = [f"{m['path']}: {m['error']}" for m in lint.get("messages", []) if m.get("severity", 0) >= 2]
        # Helm's strict lint warns about a missing icon: a chart for a registry, not ours.
        msgs += lint.get("errors", [])
        r.check(not msgs, f"helm lint --strict with {ex.name}", "; ".join(msgs))
        try:
            first = render(helm, values)
            second = render(helm, values)
        except Exception as e:  # noqa: BLE001 - the message is the finding
            r.fail(f"render {ex.name}: {e}")
            continue
        r.check(masked(first) == masked(second), f"{ex.name}: rendering twice gives the same bytes (the generated secret aside)")
        try:
            docs = manifests(first)
        except yaml.YAMLError as e:
            r.fail(f"{ex.name}: rendered YAML: {e}")
            continue
        r.ok(f"{ex.name}: {len(docs)} manifests, no duplicate keys")
        rendered_by_example[ex.name] = (values, docs)
        for version in K8S_VERSIONS:
            errors = []
            for d in docs:
                body = {k: v for k, v in d.items() if k != "_source"}
                if body["apiVersion"].startswith("monitoring.coreos.com/"):
                    continue  # CRDs: no bundled schema; checked by check_semantics
                try:
                    k8s_validate.validate(body, version, strict=True)
                except k8s_validate.ValidationError as e:
                    errors.append(f"{d['kind']}/{d['metadata'].get('name')}: {e.message} at {list(e.path)}")
                except Exception as e:  # noqa: BLE001
                    errors.append(f"{d['kind']}/{d['metadata'].get('name')}: {e}")
            r.check(not errors, f"{ex.name}: kubernetes-validate --strict, Kubernetes {version}", "; ".join(errors))
        check_semantics(r, ex.name, docs, env_read, values)
    # Without a Redis the chart refuses to install (each service would keep its own
    # in-memory store), saying what to set.
    try:
        render(helm, {})
        r.fail("the default values (no Redis) render: they should be refused")
    except Exception as e:  # noqa: BLE001
        r.check("set redis.url" in str(e), "the default values are refused: they name no Redis", str(e)[-200:])
    # The schema refuses what a typo would make.
    base = yaml.safe_load((CHART / "ci" / "minimal.yaml").read_text())
    for bad, why in (
        ({"gatway": {"replicas": 3}}, "an unknown top-level key"),
        ({"gateway": {"replica": 3}}, "an unknown gateway key"),
        ({"gateway": {"trustedProxies": ["10.0.0.0/8,10.1.0.0/16"]}}, "trusted proxies in one string, not a list"),
        ({"gateway": {"webOrigins": ["https://play.example.com/lobby"]}}, "a web origin with a path"),
        ({"matchMaker": {"replicas": -1}}, "a negative match-maker replica count"),
        ({"matchMaker": {"resource": {}}}, "an unknown matchMaker key"),
        ({"tournaments": {"replicas": -1}}, "a negative tournament service replica count"),
        ({"tournaments": {"autoscaling": {"enable": True}}}, "an unknown tournaments.autoscaling key"),
        ({"redis": {"mode": "replicated"}}, "a Redis mode the binaries lack"),
        ({"redis": {"mode": "sentinel", "internal": {"enabled": False}, "sentinel": {"urls": ["redis://s:26379"]}}}, "Sentinel without the master's name"),
        ({"engines": {"families": [{"name": "goofspiel"}, {"name": "duel"}]}}, "a family left out"),
        ({"internalToken": {"value": "short"}}, "a weak secret"),
        ({"engines": {"defaults": {"addressing": "pods", "autoscaling": {"enabled": True}}}}, "engines listed pod by pod and autoscaled"),
        ({"terminationGracePeriodSeconds": 20, "preStopSleepSeconds": 5}, "a grace shorter than preStop plus the drain"),
        ({"monitoring": {"serviceMonitor": {"enabled": True}}, "networkPolicy": {"metricsFrom": []}}, "a ServiceMonitor the NetworkPolicy would block"),
        ({"archive": {"existingSecretKey": "url"}}, "an unknown archive key"),
        ({"archive": {"url": "mysql://u:p@db:3306/colosseum"}}, "an archive URL that is not PostgreSQL"),
        ({"archive": {"url": "postgres://u:p@db:5432/c", "retentionDays": -1}}, "a negative archive retention"),
    ):
        values = helm_merge(copy.deepcopy(base), bad)
        try:
            render(helm, values)
            r.fail(f"values with {why} render: the schema should refuse them")
        except Exception as e:  # noqa: BLE001
            r.ok(f"values with {why} are refused ({str(e).strip().splitlines()[-1].strip()[:90]})")
    return rendered_by_example


def helm_merge(a: dict, b: dict) -> dict:
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            helm_merge(a[k], v)
        else:
            a[k] = v
    return a


# ---------------------------------------------------------------------------------------
# deploy/compose.yaml


def check_compose(r: Report, env_read) -> None:
    r.section("deploy/compose.yaml")
    try:
        compose = yaml.load((DEPLOY / "compose.yaml").read_text(), Loader=StrictLoader)
    except yaml.YAMLError as e:
        r.fail(f"compose.yaml: {e}")
        return
    # The Compose Specification (the compose-spec package), merge keys resolved first.
    import compose_spec
    try:
        compose_spec.PyCompose.from_json(json.dumps(compose))
        r.ok("compose.yaml follows the Compose Specification")
    except ValueError as e:
        r.fail(f"compose.yaml against the Compose Specification: {e}")
    services = compose["services"]
    problems = []
    secrets = set(compose.get("secrets", {}))
    listen: dict[str, dict[str, int]] = {}
    for name, s in services.items():
        cmd = s.get("command") or []
        binary = pathlib.PurePosixPath(cmd[0]).name if cmd else ""
        if binary not in OUR_BINARIES:
            continue
        env = {k: str(v) for k, v in (s.get("environment") or {}).items()}
        for var in env:
            if var not in env_read[binary]:
                problems.append(f"{name}: env {var} is not read by {binary}")
        if env.get("INTERNAL_AUTH", "on") != "on":
            problems.append(f"{name}: INTERNAL_AUTH={env['INTERNAL_AUTH']}: internal calls must be authenticated")
        exposed = {str(p).split(":")[-1] for p in s.get("expose", [])} | {str(p).split(":")[-1] for p in s.get("ports", [])}
        listen[name] = {}
        for var in (*LISTEN_VAR.values(), "METRICS_ADDR"):
            if var in env:
                port = env[var].rsplit(":", 1)[1]
                listen[name][var] = int(port)
                if not env[var].startswith("0.0.0.0:"):
                    problems.append(f"{name}: {var}={env[var]} is not reachable from other containers")
                if port not in exposed:
                    problems.append(f"{name}: {var} port {port} is neither exposed nor published")
        needed = LISTEN_VAR.get(binary)
        if needed and needed not in env:
            problems.append(f"{name}: no {needed} (the default listens on loopback only)")
        # Healthy means grpc.health.v1 answers SERVING on its own gRPC port.
        if needed and needed in env:
            want = ["CMD", "/usr/local/bin/colosseum", "health", f"http://127.0.0.1:{env[needed].rsplit(':', 1)[1]}"]
            if [str(x) for x in (s.get("healthcheck") or {}).get("test", [])] != want:
                problems.append(f"{name}: healthcheck is not {want}")
        # What it calls is healthy before it starts.
        called = [v for k, v in env.items() if re.fullmatch(r"ENGINE_[A-Z]+_URL", k) or k in FRONTED]
        deps = s.get("depends_on") or {}
        for url in called:
            host = re.sub(r"^http://([^:/]+).*$", r"\1", url)
            if not isinstance(deps, dict) or deps.get(host, {}).get("condition") != "service_healthy":
                problems.append(f"{name}: calls {host} but does not wait for it to be healthy (depends_on)")
        if "METRICS_ADDR" not in env:
            problems.append(f"{name}: no METRICS_ADDR (Prometheus scrapes it)")
        tf = env.get("INTERNAL_TOKEN_FILE", "")
        if not (tf.startswith("/run/secrets/") and tf.rsplit("/", 1)[1] in set(s.get("secrets", [])) & secrets):
            problems.append(f"{name}: INTERNAL_TOKEN_FILE={tf!r} is not a mounted compose secret")
        m = re.fullmatch(r"redis://([^:/]+):(\d+)(/\d+)?", env.get("REDIS_URL", ""))
        if not m or m.group(1) not in services:
            problems.append(f"{name}: REDIS_URL={env.get('REDIS_URL')!r} names no compose service")
        if binary == "gateway":
            for var, (backend, _) in FRONTED.items():
                um = re.fullmatch(r"http://([^:/]+):(\d+)", env.get(var, ""))
                target = services.get(um.group(1)) if um else None
                tenv = {k: str(v) for k, v in ((target or {}).get("environment") or {}).items()}
                if not (target and (target.get("command") or [""])[0].endswith(f"/{backend}")
                        and tenv.get(LISTEN_VAR[backend], "").endswith(f":{um.group(2)}")):
                    problems.append(f"{name}: {var}={env.get(var)!r} does not reach a {backend}")
        if binary in ENGINE_CALLERS:
            for fam in FAMILIES:
                var = f"ENGINE_{fam.upper()}_URL"
                um = re.fullmatch(r"http://([^:/]+):(\d+)", env.get(var, ""))
                target = services.get(um.group(1)) if um else None
                tenv = {k: str(v) for k, v in ((target or {}).get("environment") or {}).items()}
                if not (target and (target.get("command") or [""])[0].endswith("/rules-engine")
                        and fam in tenv.get("FAMILIES", "").split(",")
                        and tenv.get("ENGINE_ADDR", "").endswith(f":{um.group(2)}")):
                    problems.append(f"{name}: {var}={env.get(var)!r} does not reach a {fam} rules engine")
    redis = services.get("redis", {})
    rcmd = [str(x) for x in redis.get("command", [])]
    if not ("--appendonly" in rcmd and rcmd[rcmd.index("--appendonly") + 1] == "yes" and "--appendfsync" in rcmd and rcmd[rcmd.index("--appendfsync") + 1] == "always"):
        problems.append("redis: AOF with appendfsync always is not on")
    for svc in ("otel-collector", "prometheus", "grafana"):
        if svc not in services:
            problems.append(f"no {svc} service")
    ran = {pathlib.PurePosixPath(str((s.get("command") or [""])[0])).name for s in services.values()}
    for binary in sorted(set(LISTEN_VAR) - ran):
        problems.append(f"no service runs {binary}")
    # Prometheus scrapes every service's METRICS_ADDR.
    prom = yaml.safe_load((DEPLOY / "prometheus" / "prometheus.yml").read_text())
    targets = {t for job in prom["scrape_configs"] for sc in job["static_configs"] for t in sc["targets"]}
    for name, ports in listen.items():
        if "METRICS_ADDR" in ports and f"{name}:{ports['METRICS_ADDR']}" not in targets:
            problems.append(f"prometheus.yml does not scrape {name}:{ports['METRICS_ADDR']}")
    for t in targets:
        host, port = t.rsplit(":", 1)
        if listen.get(host, {}).get("METRICS_ADDR") != int(port):
            problems.append(f"prometheus.yml scrapes {t}, which is no service's METRICS_ADDR")
    for s in services.values():
        for v in s.get("volumes", []):
            src = str(v).split(":")[0]
            if src.startswith("./") and not (DEPLOY / src).exists():
                problems.append(f"a volume mounts {src}, which does not exist")
    r.check(not problems, f"compose: {len(listen)} Colosseum services: commands, ports, env, engine, match-maker and tournaments URLs, healthchecks, start order, secrets, Redis AOF, scrape targets",
            "\n      " + "\n      ".join(problems))


# ---------------------------------------------------------------------------------------
# Dashboards and alerting rules


def promql_exprs() -> list[tuple[str, str]]:
    """(where, expression) of every dashboard target and alert rule."""
    out = []
    for f in sorted((DEPLOY / "grafana" / "dashboards").glob("*.json")):
        d = json.loads(f.read_text())
        panels = list(d.get("panels", []))
        while panels:
            p = panels.pop()
            panels += p.get("panels", [])
            for t in p.get("targets", []):
                if "expr" in t:
                    out.append((f"{f.name} / {p.get('title')}", t["expr"]))
        for v in d.get("templating", {}).get("list", []):
            if v.get("type") == "query":
                q = v.get("query")
                q = q.get("query") if isinstance(q, dict) else q
                m = re.fullmatch(r"label_values\((.*),\s*\w+\)", q or "")
                if m:
                    out.append((f"{f.name} / variable {v['name']}", m.group(1)))
    rules = yaml.safe_load((DEPLOY / "prometheus" / "rules.yaml").read_text())
    for g in rules.get("groups", []):
        for rule in g["rules"]:
            out.append((f"rules.yaml / {rule.get('alert') or rule.get('record')}", rule["expr"]))
    return out


def metric_names(promql, expr: str) -> set[str]:
    """Every metric selector's name in `expr` (by walking the parsed tree)."""
    tree = promql.parse(expr.replace("$__rate_interval", "5m").replace("$__range", "1h").replace("$__interval", "1m"))
    names: set[str] = set()

    def walk(node):
        if node is None:
            return
        t = type(node).__name__
        if t == "VectorSelector":
            if node.name:
                names.add(node.name)
            else:
                for m in getattr(node, "matchers", None).matchers if getattr(node, "matchers", None) else []:
                    if m.name == "__name__":
                        names.add(m.value)
            return
        for attr in ("expr", "lhs", "rhs", "vector_selector", "param"):
            child = getattr(node, attr, None)
            if child is not None and not isinstance(child, (str, int, float)):
                walk(child)
        for a in getattr(node, "args", None) or []:
            walk(a)

    walk(tree)
    return names


def check_observability(r: Report, promql) -> set[str]:
    r.section("Dashboards and alerting rules")
    named: set[str] = set()
    bad = []
    exprs = promql_exprs()
    for where, expr in exprs:
        try:
            named |= metric_names(promql, expr)
        except Exception as e:  # noqa: BLE001
            bad.append(f"{where}: {expr!r}: {e}")
    r.check(not bad and exprs, f"{len(exprs)} PromQL expressions parse", "; ".join(bad))
    problems = []
    files = sorted((DEPLOY / "grafana" / "dashboards").glob("*.json"))
    for f in files:
        d = json.loads(f.read_text())
        vars_ = {v["name"]: v for v in d.get("templating", {}).get("list", [])}
        if vars_.get("datasource", {}).get("type") != "datasource":
            problems.append(f"{f.name}: no datasource variable")
        if not d.get("uid"):
            problems.append(f"{f.name}: no uid")
        panels = list(d.get("panels", []))
        while panels:
            p = panels.pop()
            panels += p.get("panels", [])
            if p.get("type") not in PANEL_TYPES:
                problems.append(f"{f.name}: panel {p.get('title')!r} has type {p.get('type')!r}")
            if p.get("type") not in ("row", "text"):
                ds = p.get("datasource", {})
                if (ds.get("uid") if isinstance(ds, dict) else ds) != "${datasource}":
                    problems.append(f"{f.name}: panel {p.get('title')!r} datasource is not ${{datasource}}")
                for t in p.get("targets", []):
                    tds = t.get("datasource", {"uid": "${datasource}"})
                    if (tds.get("uid") if isinstance(tds, dict) else tds) != "${datasource}":
                        problems.append(f"{f.name}: a target of {p.get('title')!r} has its own datasource")
    import runpy
    generated = runpy.run_path(str(DEPLOY / "grafana" / "generate.py"))["render"]()
    for name, text in generated.items():
        f = DEPLOY / "grafana" / "dashboards" / name
        if not f.exists() or f.read_text() != text:
            problems.append(f"{name} differs from what deploy/grafana/generate.py writes: run it")
    needed = {"overview.json", "gateway.json", "rules-engine.json", "clock.json", "matchmaker.json", "tournaments.json"}
    missing = needed - {f.name for f in files}
    if missing:
        problems.append(f"missing dashboards: {sorted(missing)}")
    rules = yaml.safe_load((DEPLOY / "prometheus" / "rules.yaml").read_text())
    for g in rules.get("groups", []):
        for rule in g["rules"]:
            if "alert" in rule and not (rule.get("labels", {}).get("severity") and rule.get("annotations", {}).get("summary") and rule.get("annotations", {}).get("runbook_url")):
                problems.append(f"alert {rule['alert']}: needs a severity label and summary and runbook_url annotations")
    r.check(not problems, f"{len(files)} dashboards: current panel types, ${{datasource}} everywhere; alerts labelled and documented", "; ".join(problems))
    return named - PROMETHEUS_SERIES


def _dockerignore_regex(pattern: str) -> re.Pattern:
    """A .dockerignore pattern (Go filepath.Match plus `**`) as a regex over a path."""
    pattern = pattern.strip("/")
    out, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out, i = out + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            out, i = out + ".*", i + 2
        elif pattern[i] == "*":
            out, i = out + "[^/]*", i + 1
        elif pattern[i] == "?":
            out, i = out + "[^/]", i + 1
        else:
            out, i = out + re.escape(pattern[i]), i + 1
    return re.compile(out + "$")


def docker_context(ignore: pathlib.Path) -> list[str]:
    """The files of the repository (git's list) that Docker sends as the build context:
    the last pattern matching a path or one of its parents decides, `!` re-includes."""
    rules = []
    for line in ignore.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            neg = line.startswith("!")
            rules.append((neg, _dockerignore_regex(line.lstrip("!"))))
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True).stdout.split()
    sent = []
    for f in files:
        parts = f.split("/")
        prefixes = ["/".join(parts[: i + 1]) for i in range(len(parts))]
        excluded = False
        for neg, rx in rules:
            if any(rx.match(p) for p in prefixes):
                excluded = not neg
        if not excluded:
            sent.append(f)
    return sent


def check_image_build(r: Report) -> None:
    """What the image build needs, checked without Docker: the packages it builds exist,
    Cargo.lock is current (the build runs with --locked), and .dockerignore sends every
    file the build reads (each member's manifest and sources, build scripts, the protos,
    files pulled in with include_str!/include_bytes!)."""
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    built = set(re.findall(r"-p ([a-z][a-z0-9-]*)", dockerfile))
    pkgs = _workspace()
    r.check(built and built <= set(pkgs), f"the image builds workspace packages {sorted(built)}", f"unknown: {sorted(built - set(pkgs))}")
    # The host's packages only: a fresh machine has downloaded only what its build needed,
    # and metadata for every platform would ask for the rest (Windows-only crates).
    host = re.search(r"^host: (\S+)$", subprocess.run(["rustc", "-vV"], capture_output=True, text=True).stdout, re.M)
    platform = ["--filter-platform", host.group(1)] if host else []
    out = subprocess.run(["cargo", "metadata", "--locked", "--offline", "--format-version", "1", *platform], cwd=ROOT, capture_output=True, text=True)
    r.check(out.returncode == 0, "Cargo.lock is current (the image builds with --locked)", out.stderr[-500:])
    sent = set(docker_context(ROOT / ".dockerignore"))
    needed = {"Cargo.toml", "Cargo.lock"}
    root_manifest = tomllib.loads((ROOT / "Cargo.toml").read_text())
    for member in root_manifest["workspace"]["members"]:
        needed.add(f"{member}/Cargo.toml")
        for f in (ROOT / member).rglob("*"):
            rel = f.relative_to(ROOT).as_posix()
            if f.is_file() and "/target/" not in rel and (rel.startswith(f"{member}/src/") or f.name == "build.rs"
                                                           or rel.startswith(f"{member}/benches/") or rel.startswith(f"{member}/tests/")):
                needed.add(rel)
            # What the release build compiles: sources and build scripts (tests are not built).
            if f.suffix == ".rs" and f.is_file() and (rel.startswith(f"{member}/src/") or f.name == "build.rs"):
                for inc in re.findall(r'include_(?:str|bytes)!\("([^"]+)"\)', f.read_text(errors="replace")):
                    target = (f.parent / inc).resolve()
                    if target.is_relative_to(ROOT):
                        needed.add(target.relative_to(ROOT).as_posix())
    needed |= {p.relative_to(ROOT).as_posix() for p in (ROOT / "proto").rglob("*.proto")}
    tracked = set(subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=ROOT, capture_output=True, text=True).stdout.split())
    missing = sorted((needed & tracked) - sent)
    r.check(not missing, f"the build context (.dockerignore) sends the {len(needed & tracked)} files the build reads, {len(sent)} files in all",
            f"left out: {missing[:20]}")


def check_promtool(r: Report) -> None:
    """promtool's own checks of the Prometheus config and rules, and the rules' unit tests
    (deploy/prometheus/rules.test.yaml); promtool must be installed."""
    promtool = shutil.which("promtool")
    # Required: a check that silently skips is no check (.ci/run installs it).
    r.check(promtool is not None, "promtool is on PATH (Debian: apt-get install prometheus)",
            "the rules' unit tests and promtool's config check cannot run without it")
    if not promtool:
        return
    out = subprocess.run([promtool, "check", "rules", str(DEPLOY / "prometheus" / "rules.yaml")], capture_output=True, text=True)
    r.check(out.returncode == 0, "promtool check rules rules.yaml", out.stdout + out.stderr)
    with tempfile.TemporaryDirectory() as d:
        # compose mounts the rules at /etc/prometheus/rules.yaml; here they sit beside it.
        cfg = (DEPLOY / "prometheus" / "prometheus.yml").read_text().replace("/etc/prometheus/rules.yaml", "rules.yaml")
        (pathlib.Path(d) / "prometheus.yml").write_text(cfg)
        shutil.copy(DEPLOY / "prometheus" / "rules.yaml", d)
        out = subprocess.run([promtool, "check", "config", "prometheus.yml"], capture_output=True, text=True, cwd=d)
        r.check(out.returncode == 0, "promtool check config prometheus.yml", out.stdout + out.stderr)
    out = subprocess.run([promtool, "test", "rules", "rules.test.yaml"], capture_output=True, text=True, cwd=DEPLOY / "prometheus")
    tests = len(yaml.safe_load((DEPLOY / "prometheus" / "rules.test.yaml").read_text())["tests"])
    r.check(out.returncode == 0, f"promtool test rules: {tests} alert tests pass", out.stdout[-3000:] + out.stderr[-1000:])
    rules = yaml.safe_load((DEPLOY / "prometheus" / "rules.yaml").read_text())
    alerts = {rule["alert"] for g in rules["groups"] for rule in g["rules"] if "alert" in rule}
    tested = {t["alertname"] for test in yaml.safe_load((DEPLOY / "prometheus" / "rules.test.yaml").read_text())["tests"]
              for t in test.get("alert_rule_test", []) if t.get("exp_alerts")}
    r.check(alerts <= tested, f"every one of the {len(alerts)} alerts has a test in which it fires", f"untested: {sorted(alerts - tested)}")


def metrics_in_sources() -> set[str]:
    """Metric names the services register today (literals passed to service_kit::metrics)."""
    names = set()
    for d in ("crates", "services", "cli"):
        for f in (ROOT / d).rglob("*.rs"):
            names |= set(re.findall(r'"(colosseum_[a-z0-9_]+)"', f.read_text()))
    return names


# ---------------------------------------------------------------------------------------
# Live: the rendered workloads as local processes.


# Ports handed out in this run (a port picked is bound by its process only later).
_HANDED_OUT: set[int] = set()


def free_port() -> int:
    """A free loopback port below the kernel's ephemeral range. A port is picked here and
    bound by its process a moment later; one from the ephemeral range could be taken
    meanwhile by any outgoing connection or port-0 bind on the machine (a service's Redis
    connection, another test), and the process would fail with AddrInUse."""
    import random
    try:
        low = int(pathlib.Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        low = 0
    for _ in range(1000 if low > 12000 else 0):
        port = random.randrange(10000, low)
        if port in _HANDED_OUT:
            continue
        with socket.socket() as s:
            try:
                s.bind(("127.0.0.1", port))
            except OSError:
                continue
        _HANDED_OUT.add(port)
        return port
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Proxy:
    """kube-proxy's part for one Service port: a loopback port that hands each new
    connection to the next backend in turn (connections are balanced, not calls)."""

    def __init__(self, backends: list[int]):
        import threading
        self.backends, self.next = backends, 0
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(256)
        self.port = self.sock.getsockname()[1]
        self.threading = threading
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.sock.accept()
            except OSError:
                return
            backend = self.backends[self.next % len(self.backends)]
            self.next += 1
            try:
                upstream = socket.create_connection(("127.0.0.1", backend))
            except OSError:
                client.close()
                continue
            for s_ in (client, upstream):
                s_.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            for a, b in ((client, upstream), (upstream, client)):
                self.threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(a: socket.socket, b: socket.socket) -> None:
        try:
            while data := a.recv(65536):
                b.sendall(data)
        except OSError:
            pass
        try:
            b.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        self.sock.close()


class Live:
    """The rendered workloads as local processes: one per replica (capped), each with its
    own loopback ports; each Service port a Proxy over the replicas it selects."""

    def __init__(self, r: Report, docs: list[dict], bin_dir: pathlib.Path, work: pathlib.Path, external_redis: str | None,
                 stand_ins: dict[str, dict[str, str]], max_replicas: int, external_archive: str | None = None):
        self.r, self.docs, self.bin_dir, self.work = r, docs, bin_dir, work
        self.external_redis = external_redis
        self.external_archive = external_archive
        self.procs: list[tuple[str, subprocess.Popen, dict]] = []
        self.ports: dict[tuple[str, str | int], int] = {}  # (instance, port name or number) -> loopback port
        self.proxies: dict[tuple[str, int], Proxy] = {}
        self.services = {d["metadata"]["name"]: d for d in docs if d["kind"] == "Service"}
        self.secrets = {
            d["metadata"]["name"]: {k: base64.b64decode(v).decode() for k, v in d.get("data", {}).items()}
            for d in docs if d["kind"] == "Secret"
        }
        # Secrets the values name but the chart does not make (existingSecret): ours stand in.
        for name, data in stand_ins.items():
            self.secrets.setdefault(name, data)
        self.workloads = [d for d in docs if d["kind"] in ("Deployment", "StatefulSet")]
        hpa_min = {h["spec"]["scaleTargetRef"]["name"]: h["spec"]["minReplicas"] for h in docs if h["kind"] == "HorizontalPodAutoscaler"}
        self.instances: list[tuple[str, dict]] = []
        for w in self.workloads:
            n = w["spec"].get("replicas", hpa_min.get(w["metadata"]["name"], 1))
            # A StatefulSet's pods are each named by someone: all of them run.
            count = n if w["kind"] == "StatefulSet" else max(1, min(n, max_replicas))
            for i in range(count):
                inst = f"{w['metadata']['name']}-{i}"
                self.instances.append((inst, w))
                for c in w["spec"]["template"]["spec"]["containers"]:
                    for p in c.get("ports", []):
                        port = free_port()
                        self.ports[(inst, p["containerPort"])] = port
                        self.ports[(inst, p["name"])] = port

    def of(self, w: dict) -> list[str]:
        return [inst for inst, x in self.instances if x is w]

    def service_target(self, host: str, port: int) -> int | None:
        """The loopback port of Service `host`:`port` (any DNS form of its name): a Proxy
        over the ports of the replicas it selects."""
        labels = host.split(".")
        if len(labels) >= 2 and labels[1] in self.services and (labels[0], port) in self.ports:
            # <pod>.<headless Service>: that pod itself.
            sub = ".".join(labels[1:])
            if sub in (labels[1], f"{labels[1]}.{NAMESPACE}", f"{labels[1]}.{NAMESPACE}.svc", f"{labels[1]}.{NAMESPACE}.svc.cluster.local"):
                return self.ports[(labels[0], port)]
        name = labels[0]
        if host not in (name, f"{name}.{NAMESPACE}", f"{name}.{NAMESPACE}.svc", f"{name}.{NAMESPACE}.svc.cluster.local"):
            return None
        svc = self.services.get(name)
        if not svc:
            return None
        sp = next((p for p in svc["spec"]["ports"] if p["port"] == port), None)
        if not sp:
            return None
        if (name, port) not in self.proxies:
            backends = [
                self.ports[(inst, sp.get("targetPort", port))]
                for inst, w in self.instances
                if selects(svc["spec"]["selector"], w["spec"]["template"]["metadata"]["labels"])
                and (inst, sp.get("targetPort", port)) in self.ports
            ]
            if not backends:
                return None
            self.proxies[(name, port)] = Proxy(backends)
        return self.proxies[(name, port)].port

    def rewrite(self, inst: str, value: str, mounts: dict[str, pathlib.Path]) -> str:
        own = {k[1]: v for k, v in self.ports.items() if k[0] == inst and isinstance(k[1], int)}

        def addr(m: re.Match) -> str:
            host, port = m.group(1), int(m.group(2))
            if host in ("0.0.0.0", "127.0.0.1", "localhost") and port in own:
                return f"127.0.0.1:{own[port]}"
            target = self.service_target(host, port)
            if target:
                return f"127.0.0.1:{target}"
            return m.group(0)

        value = re.sub(r"([A-Za-z0-9.-]+):(\d+)", addr, value)
        # The longest mount path the value lies under (a mount inside /tmp is not /tmp).
        for path in sorted(mounts, key=len, reverse=True):
            if value == path or value.startswith(path + "/"):
                return str(mounts[path]) + value[len(path):]
        return value

    def start(self, inst: str, w: dict) -> bool:
        spec = w["spec"]["template"]["spec"]
        c = spec["containers"][0]
        wdir = self.work / inst
        wdir.mkdir(parents=True, exist_ok=True)
        volumes = {}
        for v in spec.get("volumes", []):
            d = wdir / "vol" / v["name"]
            d.mkdir(parents=True, exist_ok=True)
            if "secret" in v:
                data = self.secrets.get(v["secret"]["secretName"], {})
                for item in v["secret"].get("items", [{"key": k, "path": k} for k in data]):
                    (d / item["path"]).write_text(data[item["key"]])
            volumes[v["name"]] = d
        for t in w["spec"].get("volumeClaimTemplates", []):
            d = wdir / "vol" / t["metadata"]["name"]
            d.mkdir(parents=True, exist_ok=True)
            volumes[t["metadata"]["name"]] = d
        mounts = {m["mountPath"]: volumes[m["name"]] for m in c.get("volumeMounts", [])}
        binary = binary_of(c)
        exe = self.bin_dir / binary if binary in OUR_BINARIES else pathlib.Path(shutil.which(binary) or binary)
        if not exe.exists():
            self.r.fail(f"live: {inst}: no binary {exe}")
            return False
        args = [self.rewrite(inst, a, mounts) for a in (c.get("command", [])[1:] + c.get("args", []))]
        if binary == "redis-server":
            args += ["--port", str(self.ports[(inst, 6379)]), "--bind", "127.0.0.1"]
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
        for e in c.get("env", []):
            if "value" in e:
                val = e["value"]
            else:
                ref = e["valueFrom"]["secretKeyRef"]
                val = self.secrets.get(ref["name"], {}).get(ref["key"])
                if val is None:
                    self.r.fail(f"live: {inst}: env {e['name']} names Secret {ref['name']}/{ref['key']}, which the live check lacks")
                    return False
            val = self.rewrite(inst, val, mounts)
            if e["name"] in ("REDIS_URL", "REDIS_CLUSTER_URLS") and self.external_redis and "127.0.0.1" not in val:
                val = self.external_redis  # an external Redis named by the values: ours stands in
            if e["name"] == "ARCHIVE_URL" and self.external_archive:
                val = self.external_archive  # the values' PostgreSQL: ours stands in
            env[e["name"]] = val
        log = open(wdir / "log", "w")
        proc = subprocess.Popen([str(exe), *args], env=env, cwd=wdir, stdout=log, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True)
        self.procs.append((inst, proc, {"spec": spec, "container": c, "log": wdir / "log", "dir": wdir}))
        return True

    def probe(self, inst: str, probe: dict) -> tuple[bool, str]:
        if "grpc" in probe:
            port = self.ports[(inst, probe["grpc"]["port"])]
            import grpc
            from grpc_health.v1 import health_pb2, health_pb2_grpc
            try:
                with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
                    resp = health_pb2_grpc.HealthStub(ch).Check(
                        health_pb2.HealthCheckRequest(service=probe["grpc"].get("service", "")), timeout=2)
                return resp.status == health_pb2.HealthCheckResponse.SERVING, f"grpc {port}: SERVING"
            except grpc.RpcError as e:
                return False, f"grpc {port}: {e.code()}"
        if "httpGet" in probe:
            port = self.ports[(inst, probe["httpGet"]["port"])]
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}{probe['httpGet'].get('path', '/')}", timeout=2) as resp:
                    return 200 <= resp.status < 400, f"GET {probe['httpGet'].get('path', '/')} {resp.status}"
            except Exception as e:  # noqa: BLE001
                return False, f"http {port}: {e}"
        if "tcpSocket" in probe:
            port = self.ports[(inst, probe["tcpSocket"]["port"])]
            try:
                socket.create_connection(("127.0.0.1", port), timeout=2).close()
                return True, f"tcp {port}"
            except OSError as e:
                return False, f"tcp {port}: {e}"
        if "exec" in probe:
            cmd = list(probe["exec"]["command"])
            if cmd[0] == "redis-cli":
                cmd[1:1] = ["-p", str(self.ports[(inst, 6379)])]
            out = subprocess.run(cmd, capture_output=True, text=True, timeout=5)
            return out.returncode == 0, f"exec {' '.join(cmd)}: {out.stdout.strip()}"
        return False, "no probe handler"

    def wait_ready(self, names: list[str], timeout: float = 60) -> bool:
        """Runs each instance's startup, liveness and readiness probes until they pass."""
        ok = True
        for inst, proc, info in self.procs:
            if inst not in names:
                continue
            passed = []
            for kind in ("startupProbe", "livenessProbe", "readinessProbe"):
                probe = info["container"].get(kind)
                if not probe:
                    continue
                deadline, why, good = time.time() + timeout, "", False
                while time.time() < deadline:
                    if proc.poll() is not None:
                        why = f"exited {proc.returncode}: {info['log'].read_text()[-600:]}"
                        break
                    good, why = self.probe(inst, probe)
                    if good:
                        break
                    time.sleep(0.2)
                if not good:
                    ok = self.r.check(False, f"live: {inst} {kind}", why)
                    break
                passed.append(f"{kind.removesuffix('Probe')} {why}")
            else:
                self.r.ok(f"live: {inst} probes pass: {'; '.join(passed)}")
        return ok

    def stop_all(self) -> None:
        for inst, proc, info in reversed(self.procs):
            if proc.poll() is not None:
                self.r.fail(f"live: {inst} had exited ({proc.returncode}) before the stop: {info['log'].read_text()[-400:]}")
                continue
            grace = info["spec"].get("terminationGracePeriodSeconds", 30)
            sleep = info["container"].get("lifecycle", {}).get("preStop", {}).get("sleep", {}).get("seconds", 0)
            t0 = time.time()
            proc.send_signal(signal.SIGTERM)
            try:
                code = proc.wait(timeout=grace - sleep)
                self.r.check(code == 0, f"live: {inst} drained and exited {code} {time.time() - t0:.1f} s after SIGTERM (grace after preStop: {grace - sleep} s)")
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
                self.r.fail(f"live: {inst} still running {grace - sleep} s after SIGTERM: Kubernetes would SIGKILL it")

    def kill_all(self) -> None:
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        for p in self.proxies.values():
            p.close()

    def scrape(self, only: list[str] | None = None) -> dict[str, dict[str, float]]:
        """Each instance's metrics (of `only` when given), summed by name."""
        out = {}
        for inst, _ in self.instances:
            if only is not None and inst not in only:
                continue
            port = self.ports.get((inst, "metrics"))
            if not port:
                continue
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=3) as resp:
                text = resp.read().decode()
            vals = {}
            for line in text.splitlines():
                if line and not line.startswith("#"):
                    name = re.split(r"[{ ]", line, maxsplit=1)[0]
                    try:
                        vals[name] = vals.get(name, 0.0) + float(line.rsplit(" ", 1)[1])
                    except ValueError:
                        pass
            out[inst] = vals
        return out


def play(r: Report, cli: pathlib.Path, gateway: str, game: str, extra: list[str], what: str) -> dict | None:
    cmd = [str(cli), "load", "--gateway", gateway, "--game", game, *extra]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=180)
    line = (out.stdout.strip().splitlines() or [""])[-1]
    try:
        res = json.loads(line)
    except ValueError:
        r.fail(f"live: {what}: `{' '.join(cmd)}` printed no result: {out.stderr[-600:]}")
        return None
    return res


def start_redis(r: Report, work: pathlib.Path, cluster: bool) -> tuple[list[subprocess.Popen], str | None]:
    """A redis-server with AOF always, or a three-primary Redis Cluster; returns the
    processes and the URL (or the comma-separated seed nodes)."""
    def cluster_port() -> int:
        # A cluster node also listens on port + 10000 (its bus): both must be free.
        while True:
            port = free_port()
            if port <= 55535:
                try:
                    with socket.socket() as s_:
                        s_.bind(("127.0.0.1", port + 10000))
                    return port
                except OSError:
                    pass

    ports = [cluster_port() if cluster else free_port() for _ in range(3 if cluster else 1)]
    procs = []
    for port in ports:
        d = work / f"redis-{port}"
        d.mkdir()
        args = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--appendonly", "yes",
                "--appendfsync", "always", "--save", "", "--dir", str(d)]
        if cluster:
            args += ["--cluster-enabled", "yes", "--cluster-config-file", str(d / "nodes.conf")]
        procs.append(subprocess.Popen(args, stdout=open(d / "log", "w"), stderr=subprocess.STDOUT, start_new_session=True))
    for port in ports:
        deadline = time.time() + 20
        while time.time() < deadline and subprocess.run(["redis-cli", "-p", str(port), "ping"], capture_output=True).returncode:
            time.sleep(0.1)
    if cluster:
        out = subprocess.run(["redis-cli", "--cluster", "create", *[f"127.0.0.1:{p}" for p in ports],
                              "--cluster-replicas", "0", "--cluster-yes"], capture_output=True, text=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            states = [subprocess.run(["redis-cli", "-p", str(p), "cluster", "info"], capture_output=True, text=True).stdout for p in ports]
            if all("cluster_state:ok" in st for st in states):
                break
            time.sleep(0.2)
        else:
            r.fail(f"live: the Redis Cluster did not form: {out.stdout[-400:]} {out.stderr[-400:]}")
            return procs, None
        r.ok(f"live: a Redis Cluster of 3 primaries on ports {ports} (AOF always) stands in for the values' Redis")
        return procs, ",".join(f"redis://127.0.0.1:{p}" for p in ports)
    r.ok(f"live: a redis-server on port {ports[0]} (AOF always) stands in for the values' Redis")
    return procs, f"redis://127.0.0.1:{ports[0]}/0"


def postgres_bin_dir() -> pathlib.Path | None:
    """Where PostgreSQL's server programs are: Debian's newest /usr/lib/postgresql/<N>/bin
    (package postgresql; not on PATH), else beside an `initdb` on PATH."""
    dirs = [d for d in pathlib.Path("/usr/lib/postgresql").glob("*/bin") if (d / "initdb").exists() and d.parent.name.isdigit()]
    if dirs:
        return max(dirs, key=lambda d: int(d.parent.name))
    found = shutil.which("initdb")
    return pathlib.Path(found).resolve().parent if found else None


class Postgres:
    """A PostgreSQL server of ours (initdb, then postgres on a free loopback port) standing
    in for the values' archive: a user `colosseum` with a random password (scram-sha-256
    over TCP) and a database `colosseum`. initdb refuses to run as root: as root, the
    server runs as the `postgres` user (Debian's package makes it)."""

    def __init__(self, r: Report):
        self.r = r
        self.proc: subprocess.Popen | None = None
        self.dir: pathlib.Path | None = None
        self.url = ""
        self.bin = postgres_bin_dir()
        self.password = os.urandom(16).hex()
        self.port = 0
        self.user_kw: dict = {}

    def _run(self, *args: str, env: dict | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.bin / args[0]), *args[1:]], capture_output=True, text=True, timeout=timeout,
                              cwd=self.dir, env={**os.environ, **(env or {})}, **self.user_kw)

    def start(self) -> bool:
        if not self.bin:
            self.r.fail("live: the values name an archive, and no PostgreSQL to stand in (Debian: apt-get install postgresql)")
            return False
        self.dir = pathlib.Path(tempfile.mkdtemp(prefix="deploy-check-pg-"))
        (self.dir / "pw").write_text(self.password + "\n")
        if os.geteuid() == 0:
            import pwd
            try:
                pg = pwd.getpwnam("postgres")
            except KeyError:
                self.r.fail("live: running as root, initdb needs another user, and there is no `postgres` user (Debian's postgresql package makes it)")
                return False
            for f in (self.dir, self.dir / "pw"):
                os.chown(f, pg.pw_uid, pg.pw_gid)
            self.user_kw = {"user": pg.pw_uid, "group": pg.pw_gid, "extra_groups": []}
        out = self._run("initdb", "-D", str(self.dir / "data"), "-U", "colosseum", f"--pwfile={self.dir / 'pw'}",
                        "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--locale=C", "--no-sync")
        if out.returncode:
            self.r.fail(f"live: initdb for the archive's stand-in: {out.stdout[-300:]} {out.stderr[-500:]}")
            return False
        self.port = free_port()
        # Durability is not what this run checks: fsync off keeps it quick.
        self.proc = subprocess.Popen(
            [str(self.bin / "postgres"), "-D", str(self.dir / "data"), "-p", str(self.port), "-c", "listen_addresses=127.0.0.1",
             "-k", str(self.dir), "-c", "fsync=off", "-c", "max_connections=200"],
            stdout=open(self.dir / "log", "w"), stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, cwd=self.dir,
            start_new_session=True, **self.user_kw)
        deadline = time.time() + 30
        while time.time() < deadline:
            if self.proc.poll() is not None:
                break
            if self._run("pg_isready", "-q", "-h", str(self.dir), "-p", str(self.port)).returncode == 0:
                break
            time.sleep(0.2)
        if self.proc.poll() is not None or self._run("pg_isready", "-q", "-h", str(self.dir), "-p", str(self.port)).returncode:
            self.r.fail(f"live: the archive's stand-in PostgreSQL did not start: {(self.dir / 'log').read_text()[-600:]}")
            return False
        out = self._run("createdb", "-h", str(self.dir), "-p", str(self.port), "-U", "colosseum", "colosseum")
        if out.returncode:
            self.r.fail(f"live: createdb colosseum: {out.stderr[-400:]}")
            return False
        self.url = f"postgres://colosseum:{self.password}@127.0.0.1:{self.port}/colosseum"
        version = self._run("postgres", "--version").stdout.strip()
        self.r.ok(f"live: a PostgreSQL ({version}) on port {self.port}, database colosseum, stands in for the values' archive")
        return True

    def query(self, sql: str) -> tuple[bool, str]:
        """One statement through psql over TCP with the URL's password: (ok, the rows)."""
        out = self._run("psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port), "-U", "colosseum",
                        "-d", "colosseum", "-c", sql, env={"PGPASSWORD": self.password}, timeout=20)
        return out.returncode == 0, (out.stdout if out.returncode == 0 else out.stderr).strip()

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)  # fast shutdown: clients are gone already
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.dir:
            shutil.rmtree(self.dir, ignore_errors=True)


def check_archive(r: Report, live: "Live", pg: Postgres, finished: int) -> None:
    """With an archive in the values: the services applied its schema at start (the table
    archive_migrations lists the migrations applied), and the match-makers' archiver
    copied the matches played into archived_matches within 30 s: at least `finished`
    rows, as many as their colosseum_archive_written_total counts, no failure counted, and
    colosseum_archive_lag_seconds back at 0 (none waits)."""
    mm = [inst for inst, w in live.instances if binary_of(w["spec"]["template"]["spec"]["containers"][0]) == "match-maker"]
    ok, migrations = pg.query("select count(*) from archive_migrations")
    if not r.check(ok and migrations.isdigit() and int(migrations) > 0,
                   f"live: the archive's schema was applied at start ({migrations if migrations.isdigit() else 'no'} migration(s) in archive_migrations)",
                   migrations[-300:]):
        return
    t0, rows, vals = time.time(), "", {}
    while time.time() - t0 < 30:
        ok, rows = pg.query("select count(*) from archived_matches")
        scraped = live.scrape(mm)
        vals = {k: sum(v.get(k, 0) for v in scraped.values()) for k in ("colosseum_archive_written_total", "colosseum_archive_failures_total")}
        vals["colosseum_archive_lag_seconds"] = max((v.get("colosseum_archive_lag_seconds", 0) for v in scraped.values()), default=0)
        if ok and rows.isdigit() and int(rows) >= finished and int(rows) == vals["colosseum_archive_written_total"] \
                and vals["colosseum_archive_lag_seconds"] == 0:
            break
        time.sleep(0.5)
    r.check(ok and rows.isdigit() and int(rows) >= finished and int(rows) == vals["colosseum_archive_written_total"]
            and vals["colosseum_archive_lag_seconds"] == 0 and vals["colosseum_archive_failures_total"] == 0,
            f"live: the archiver copied the finished matches into PostgreSQL {time.time() - t0:.1f} s later: {rows} rows in "
            f"archived_matches (at least {finished}), written_total {int(vals['colosseum_archive_written_total'])}, "
            f"lag {vals['colosseum_archive_lag_seconds']} s, failures {int(vals['colosseum_archive_failures_total'])}",
            rows[-300:] if not ok else json.dumps(vals))


# A call each internal server authenticates: an empty request, refused for its argument
# (or answered) only after the secret was checked. (The tournament service's
# TournamentService would refuse the gateway's secret alone for want of an API key:
# TenantAdminService takes the secret alone.)
AUTHENTICATED_CALL = {
    "rules-engine": "/colosseum.internal.v1.RulesEngineService/GetMeta",
    "match-maker": "/colosseum.v1.LobbyService/GetLeaderboard",
    "tournaments": "/colosseum.internal.v1.TenantAdminService/ListTenants",
}


def mounted_token(live: "Live", component: str) -> str:
    """The internal secret the chart mounted into the first instance of `component` (as
    its INTERNAL_TOKEN_FILE names it)."""
    inst, w = next((i, w) for i, w in live.instances if w["spec"]["template"]["metadata"]["labels"].get("app.kubernetes.io/component") == component)
    c = w["spec"]["template"]["spec"]["containers"][0]
    token_file = next(e for e in c["env"] if e["name"] == "INTERNAL_TOKEN_FILE")["value"]
    mount = next(m for m in c["volumeMounts"] if token_file.startswith(m["mountPath"] + "/"))
    return (live.work / inst / "vol" / mount["name"] / token_file[len(mount["mountPath"]) + 1:]).read_text().strip()


def check_internal_auth(r: Report, live: "Live") -> None:
    """The engines, the match-makers and the tournament services refuse a call without the
    secret and take one with the secret the chart mounted into the gateway (a raw call of
    AUTHENTICATED_CALL)."""
    import grpc
    token = mounted_token(live, "gateway")
    for inst, w in live.instances:
        path = AUTHENTICATED_CALL.get(binary_of(w["spec"]["template"]["spec"]["containers"][0]))
        if not path:
            continue
        port = live.ports[(inst, "grpc")]
        with grpc.insecure_channel(f"127.0.0.1:{port}") as ch:
            call = ch.unary_unary(path, request_serializer=lambda b: b, response_deserializer=lambda b: b)
            codes = []
            for md in ([], [("x-colosseum-internal", token)]):
                try:
                    call(b"", metadata=md, timeout=3)
                    codes.append(grpc.StatusCode.OK)
                except grpc.RpcError as e:
                    codes.append(e.code())
        r.check(codes[0] == grpc.StatusCode.UNAUTHENTICATED and codes[1] != grpc.StatusCode.UNAUTHENTICATED,
                f"live: {inst} refuses a call without the secret ({codes[0].name}) and takes the gateway's ({codes[1].name})")


def check_lobby(r: Report, gateway: str) -> None:
    """LobbyService through the rendered gateway: the match-maker answers a leaderboard
    (empty on a new Redis), and two guests queued in the same casual queue are paired
    into one match, which the match-maker creates through the engines (both tickets
    ASSIGNED, pushed by WatchTickets; each guest's GetView of the match shows its seat).
    Messages come from the descriptors the gateway serves by reflection, so the check
    follows the protos."""
    import grpc
    import uuid
    from google.protobuf import descriptor_pool, message_factory
    from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase

    with grpc.insecure_channel(gateway.removeprefix("http://")) as ch:
        pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(ch))

        def msg(name: str):
            return message_factory.GetMessageClass(pool.FindMessageTypeByName(f"colosseum.v1.{name}"))

        def unary(service: str, method: str, req, token: str | None = None):
            m = pool.FindServiceByName(f"colosseum.v1.{service}").FindMethodByName(method)
            resp = message_factory.GetMessageClass(m.output_type)
            call = ch.unary_unary(f"/colosseum.v1.{service}/{method}", request_serializer=lambda x: x.SerializeToString(),
                                  response_deserializer=resp.FromString)
            return call(req, timeout=10, metadata=[("authorization", f"Bearer {token}")] if token else [])

        try:
            board = unary("LobbyService", "GetLeaderboard", msg("GetLeaderboardRequest")(game="gops"))
            r.check(board.total == 0 and not board.entries,
                    f"live: GetLeaderboard through the gateway answers OK from the match-maker (gops: {board.total} players)")
        except grpc.RpcError as e:
            r.fail(f"live: GetLeaderboard through the gateway: {e.code().name} {e.details()}")
            return
        t0 = time.time()
        try:
            guests = [unary("ColosseumService", "CreateGuestSession", msg("CreateGuestSessionRequest")(display_name=f"deploy-check {i}"))
                      for i in range(2)]
            queue = msg("QueueSpec")(game="gops")
            tickets = [unary("LobbyService", "CreateTicket", msg("CreateTicketRequest")(queue=queue, idempotency_key=str(uuid.uuid4())),
                             g.token).ticket for g in guests]
        except grpc.RpcError as e:
            r.fail(f"live: two guests queue for gops through the gateway: {e.code().name} {e.details()}")
            return
        assigned = pool.FindEnumTypeByName("colosseum.v1.TicketState").values_by_name["TICKET_STATE_ASSIGNED"].number
        watch = ch.unary_stream("/colosseum.v1.LobbyService/WatchTickets", request_serializer=lambda x: x.SerializeToString(),
                                response_deserializer=msg("WatchTicketsResponse").FromString)
        seats = {}
        for g, ticket in zip(guests, tickets):
            stream = watch(msg("WatchTicketsRequest")(), timeout=30, metadata=[("authorization", f"Bearer {g.token}")])
            try:
                for update in stream:
                    if update.ticket.ticket_id == ticket.ticket_id and update.ticket.state == assigned:
                        seats[update.ticket.seat] = (update.ticket.match_id, g.token)
                        break
            except grpc.RpcError as e:
                r.fail(f"live: WatchTickets through the gateway: {e.code().name} {e.details()}")
                return
            finally:
                stream.cancel()
        took = time.time() - t0
        matches = {m for m, _ in seats.values()}
        if not r.check(sorted(seats) == [0, 1] and len(matches) == 1,
                       f"live: two guests queued for gops are paired into one match, each ticket ASSIGNED a seat, "
                       f"{took:.1f} s from their sessions", f"seats: { {s: m for s, (m, _) in seats.items()} }"):
            return
        views = []
        for seat, (match_id, token) in sorted(seats.items()):
            try:
                view = unary("ColosseumService", "GetView", msg("GetViewRequest")(match_id=match_id), token)
                views.append(view.seat if view.HasField("seat") else None)
            except grpc.RpcError as e:
                views.append(e.code().name)
        r.check(views == [0, 1], f"live: match {matches.pop()} exists (the match-maker created it through the engines): "
                f"each guest's GetView shows its seat", f"GetView seats: {views}")


# The leases one replica at a time holds: binary -> (the lease's name, the gauge that is 1
# on its holder).
LEASES = {
    "match-maker": ("matcher", "colosseum_matchmaker_leader"),
    "tournaments": ("tournaments", "colosseum_tournaments_driver_leader"),
}


def check_lease(r: Report, live: "Live", binary: str) -> None:
    """The lease of `binary` (LEASES) is held by exactly one of its replicas. With two or
    more, its holder is killed (-9, no goodbye): another takes the lease once it expires
    (3 s TTL; a pass every 100 ms for the matcher, 500 ms for the tournament driver), and
    the killed one, restarted as Kubernetes would, becomes ready again without taking the
    lease back."""
    lease, gauge = LEASES[binary]
    reps = [(inst, w) for inst, w in live.instances if binary_of(w["spec"]["template"]["spec"]["containers"][0]) == binary]
    names = [inst for inst, _ in reps]

    def holders(among: list[str]) -> dict[str, int]:
        return {i: int(v.get(gauge, 0)) for i, v in live.scrape(among).items()}

    now = holders(names)
    if not r.check(sum(now.values()) == 1, f"live: exactly one of {len(now)} {binary} replica(s) holds the {lease} lease", json.dumps(now)):
        return
    if len(reps) < 2:
        return
    holder = next(i for i, v in now.items() if v)
    inst, proc, info = next(x for x in live.procs if x[0] == holder and x[1].poll() is None)
    proc.kill()
    proc.wait()
    live.procs.remove((inst, proc, info))
    others = [i for i in names if i != holder]
    t0, taken = time.time(), {}
    while time.time() - t0 < 10:
        taken = holders(others)
        if sum(taken.values()) == 1:
            break
        time.sleep(0.1)
    r.check(sum(taken.values()) == 1, f"live: {holder} killed with -9 while holding the {lease} lease: "
            f"{next((i for i, v in taken.items() if v), 'nobody')} took it {time.time() - t0:.1f} s later (TTL 3 s)", json.dumps(taken))
    w = next(w for i, w in reps if i == holder)
    if live.start(holder, w) and live.wait_ready([holder]):
        time.sleep(0.5)
        after = holders(names)
        r.check(sum(after.values()) == 1 and not after.get(holder), f"live: {holder} restarted, ready, and the {lease} lease stays where it is", json.dumps(after))


def check_tournaments(r: Report, live: "Live", gateway: str, cli: pathlib.Path) -> None:
    """The tournament service as an operator and an organiser meet it. Through its rendered
    Service: `colosseum health` finds the server and both its APIs SERVING; `colosseum
    tenant create --name ci` with the internal secret in INTERNAL_TOKEN (the one the chart
    mounted into the tournament service) prints the new tenant's id, a UUID, and
    `colosseum tenant key create --tenant <id>` an API key, `ck_...`. Then, if grpcio is
    installed, that key lists the tenant's tournaments through the rendered gateway
    (TOURNAMENTS_URL): OK, none (the messages from the gateway's reflection)."""
    import uuid
    svc = next((s for s in live.services.values() if s["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "tournaments"), None)
    if not svc:
        r.fail("live: no Service of the tournament service is rendered")
        return
    port = live.service_target(svc["metadata"]["name"], svc["spec"]["ports"][0]["port"])
    url = f"http://127.0.0.1:{port}"
    health = {}
    for name in ("", "colosseum.v1.TournamentService", "colosseum.internal.v1.TenantAdminService"):
        out = subprocess.run([str(cli), "health", url, "--service", name], capture_output=True, text=True, timeout=10)
        health[name or "(server)"] = out.stdout.strip() or out.stderr.strip()[-200:]
    if not r.check(all(v == "SERVING" for v in health.values()),
                   f"live: the tournament service answers grpc.health.v1 SERVING through its Service {svc['metadata']['name']} "
                   f"(the server, TournamentService, TenantAdminService)", json.dumps(health)):
        return
    base_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "COLOSSEUM_CONFIG_DIR": str(live.work / "operator")}
    operator = {**base_env, "INTERNAL_TOKEN": mounted_token(live, "tournaments")}

    def tenant(env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(cli), "tenant", *args, "--url", url], env=env, capture_output=True, text=True, timeout=30)

    out = tenant({**base_env, "INTERNAL_TOKEN": os.urandom(32).hex()}, "list")
    r.check(out.returncode != 0 and "UNAUTHENTICATED" in out.stderr,
            "live: `colosseum tenant list` with another secret is refused UNAUTHENTICATED",
            f"exit {out.returncode}: {out.stdout[-200:]} {out.stderr[-200:]}")
    out = tenant(operator, "create", "--name", "ci")
    tenant_id = out.stdout.strip()
    try:
        is_uuid = str(uuid.UUID(tenant_id)) == tenant_id.lower()
    except ValueError:
        is_uuid = False
    if not r.check(out.returncode == 0 and is_uuid,
                   f"live: `colosseum tenant create --name ci --url {url}` with INTERNAL_TOKEN prints the tenant's id {tenant_id}",
                   f"exit {out.returncode}: {out.stdout[-200:]} {out.stderr[-400:]}"):
        return
    out = tenant(operator, "key", "create", "--tenant", tenant_id)
    key = out.stdout.strip()
    if not r.check(out.returncode == 0 and key.startswith("ck_") and "\n" not in key,
                   f"live: `colosseum tenant key create --tenant {tenant_id}` prints an API key ({key[:7]}...)",
                   f"exit {out.returncode}: {out.stderr[-400:]}"):
        return
    try:
        import grpc
        from google.protobuf import descriptor_pool, message_factory
        from grpc_reflection.v1alpha.proto_reflection_descriptor_database import ProtoReflectionDescriptorDatabase
    except ImportError as e:
        print(f"      skipped: ListTournaments through the gateway ({e}: pip install -r tools/deploy-check/requirements.txt)")
        return
    with grpc.insecure_channel(gateway.removeprefix("http://")) as ch:
        try:
            pool = descriptor_pool.DescriptorPool(ProtoReflectionDescriptorDatabase(ch))
            m = pool.FindServiceByName("colosseum.v1.TournamentService").FindMethodByName("ListTournaments")
        except KeyError as e:
            r.fail(f"live: the gateway's reflection does not describe TournamentService.ListTournaments: {e}")
            return
        call = ch.unary_unary("/colosseum.v1.TournamentService/ListTournaments", request_serializer=lambda x: x.SerializeToString(),
                              response_deserializer=message_factory.GetMessageClass(m.output_type).FromString)
        try:
            resp = call(message_factory.GetMessageClass(m.input_type)(), timeout=10, metadata=[("authorization", f"Bearer {key}")])
        except grpc.RpcError as e:
            r.fail(f"live: ListTournaments through the gateway with the new key: {e.code().name} {e.details()}")
            return
        r.check(len(resp.tournaments) == 0,
                f"live: ListTournaments through the gateway with the new key answers OK from the tournament service ({len(resp.tournaments)} tournaments)")


def run_live(r: Report, name: str, values: dict, docs: list[dict], bin_dir: pathlib.Path, keep: bool, max_replicas: int) -> set[str]:
    """Runs one rendered example; returns the metric names exported."""
    r.section(f"Live: {name} as local processes")
    work = pathlib.Path(tempfile.mkdtemp(prefix=f"deploy-check-{pathlib.Path(name).stem}-"))
    uses_internal = values.get("redis", {}).get("internal", {}).get("enabled", False)
    cluster = values.get("redis", {}).get("mode") == "cluster"
    redis_procs, external = [], None
    if not uses_internal:
        # The values name a Redis outside the chart: a redis-server (or a Redis Cluster) of
        # ours stands in.
        redis_procs, external = start_redis(r, work, cluster)
    stand_ins = {}
    tok = values.get("internalToken", {})
    if tok.get("existingSecret"):
        stand_ins[tok["existingSecret"]] = {tok.get("existingSecretKey", "token"): os.urandom(32).hex()}
    red = values.get("redis", {})
    if red.get("existingSecret") and external:
        stand_ins.setdefault(red["existingSecret"], {})[red.get("existingSecretKey", "url")] = external
    # The values name an archive (a PostgreSQL outside the chart): a PostgreSQL of ours
    # stands in, as the Secret they name or in place of their URL.
    arch = values.get("archive", {})
    pg = Postgres(r) if arch.get("existingSecret") or arch.get("url") else None
    exported: set[str] = set()
    if pg and not pg.start():
        pg.stop()
        for p in redis_procs:
            p.terminate()
            p.wait()
        shutil.rmtree(work, ignore_errors=True)
        return exported
    if pg and arch.get("existingSecret"):
        stand_ins.setdefault(arch["existingSecret"], {})[arch.get("secretKey", "url")] = pg.url
    live = Live(r, docs, bin_dir, work, None if cluster else external, stand_ins, max_replicas, pg.url if pg else None)
    finished = 0
    try:
        # Redis first, as its clients wait for it; then every service.
        for first in (True, False):
            group = [(i, w) for i, w in live.instances
                     if (binary_of(w["spec"]["template"]["spec"]["containers"][0]) not in OUR_BINARIES) == first]
            for inst, w in group:
                if not live.start(inst, w):
                    return exported
            if not live.wait_ready([i for i, _ in group]):
                return exported
        print(f"      {len(live.procs)} processes: " + ", ".join(
            f"{w['metadata']['name'].removeprefix(RELEASE + '-colosseum-')} x{len(live.of(w))}" for w in live.workloads))
        gw_svc = next(s for s in live.services.values() if s["metadata"].get("labels", {}).get("app.kubernetes.io/component") == "gateway")
        gw_port = live.service_target(gw_svc["metadata"]["name"], gw_svc["spec"]["ports"][0]["port"])
        gateway = f"http://127.0.0.1:{gw_port}"
        check_internal_auth(r, live)
        cli = bin_dir / "colosseum"
        for fam, game in sorted(GAME_OF_FAMILY.items()):
            res = play(r, cli, gateway, game, ["--matches", "3", "--concurrency", "3"], f"{game} ({fam})")
            if res is not None:
                if r.check(res.get("errors") == 0 and res.get("matches") == 3 and res.get("moves", 0) > 0,
                           f"live: 3 {game} matches ({fam} engine) through the rendered gateway Service: {res.get('moves')} moves, {res.get('errors')} errors",
                           json.dumps(res.get("error_samples"))[:400]):
                    finished += 3
        # A deadline the clock must fire: bots that think longer than the move time.
        before = sum(v.get("colosseum_clock_fired_total", 0) for v in live.scrape().values())
        play(r, cli, gateway, "gops", ["--matches", "1", "--concurrency", "1", "--move-time", "1", "--think-ms", "2500"], "deadline")
        fired = sum(v.get("colosseum_clock_fired_total", 0) for v in live.scrape().values()) - before
        r.check(fired > 0, f"live: the rendered clock fired {int(fired)} deadline(s) through the engine Services")
        check_lobby(r, gateway)
        check_tournaments(r, live, gateway, cli)
        if pg:
            check_archive(r, live, pg, finished)
        # What the lease holders exported before check_lease kills them (the match creation
        # histogram is the matcher's alone).
        for vals in live.scrape().values():
            exported |= set(vals)
        for binary in LEASES:
            check_lease(r, live, binary)
        scraped = live.scrape()
        for vals in scraped.values():
            exported |= set(vals)
        # How the Service proxies spread the engines' work over their replicas.
        spread = [f"{i.removeprefix(RELEASE + '-colosseum-engine-')} {int(v.get('colosseum_engine_steps_total', 0))}"
                  f"/{int(v.get('colosseum_engine_catch_ups_total', 0))}/{int(v.get('colosseum_engine_rebuilds_total', 0))}"
                  for i, v in scraped.items() if "-engine-" in i]
        print(f"      engine replicas, steps/catch-ups/rebuilds: {', '.join(spread)}")
        r.ok(f"live: scraped {len(scraped)} metrics endpoints: {len(exported)} metric names")
        live.stop_all()
    finally:
        live.kill_all()
        for p in redis_procs:
            p.terminate()
            p.wait()
        if pg:
            if keep:
                print(f"      the archive's PostgreSQL log: {(pg.dir / 'log').read_text()[-2000:]}")
            pg.stop()
        if keep:
            print(f"      logs kept in {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return exported


def report_metrics(r: Report, named: set[str], exported: set[str]) -> None:
    r.section("Metrics the dashboards and alerts name vs what the running cluster exports")
    in_sources = metrics_in_sources()
    missing = sorted(named - exported)
    # A histogram's series, by its name.
    folded: dict[str, list[str]] = {}
    for m in missing:
        base = re.sub(r"_(bucket|count|sum)$", "", m)
        key = base if base != m and base not in exported else m
        folded.setdefault(key, []).append(m)
    for name, series in sorted(folded.items()):
        kind = "histogram " if series != [name] else ""
        if name in in_sources:
            print(f"      missing: {name} (registered in the sources; created only on first use, so absent until then)")
        else:
            print(f"      missing: {kind}{name} (no service exports it yet){' : ' + ', '.join(series) if kind else ''}")
    r.check(not missing, f"every one of the {len(named)} series names the dashboards and alerts use is exported ({len(named) - len(missing)} are)",
            f"{len(folded)} metrics missing: {', '.join(sorted(folded))}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin-dir", default="target/debug", help="where gateway, rules-engine, clock, match-maker, tournaments and colosseum are")
    ap.add_argument("--offline", action="store_true", help="skip the live run")
    ap.add_argument("--keep-logs", action="store_true", help="keep the live run's directory")
    ap.add_argument("--max-replicas", type=int, default=2, help="live: processes per workload at most (its replicas or HPA minimum)")
    args = ap.parse_args()
    bin_dir = pathlib.Path(args.bin_dir).resolve()
    r = Report()

    import helm_python as helm
    import kubernetes_validate as k8s_validate
    import promql_parser as promql

    r.section("deploy/Dockerfile")
    hadolint = pathlib.Path(sys.executable).parent / "hadolint"
    out = subprocess.run([str(hadolint), str(DEPLOY / "Dockerfile")], capture_output=True, text=True)
    r.check(out.returncode == 0, "hadolint deploy/Dockerfile", out.stdout + out.stderr)
    dockerfile = (DEPLOY / "Dockerfile").read_text()
    built = set(re.findall(r"target/release/([a-z-]+)", dockerfile))
    r.check(OUR_BINARIES <= built, f"the image builds and ships {sorted(OUR_BINARIES)}", f"it has {sorted(built)}")
    r.check(bool(re.search(r"^USER (?!0|root)", dockerfile, re.M)), "the image runs as a non-root USER")
    check_image_build(r)

    r.section("What each binary reads (from the Rust sources)")
    env_read = env_vars_read()
    for b in sorted(env_read):
        ours = sorted(v for v in env_read[b] if not v.startswith("OTEL_"))
        otel = len([v for v in env_read[b] if v.startswith("OTEL_")])
        print(f"      {b}: {' '.join(ours)} (+{otel} OTEL_* of the OTLP exporter)")
    r.check(set(env_read) >= OUR_BINARIES, f"env vars derived for {sorted(env_read)}")

    rendered = check_chart(r, helm, k8s_validate, env_read)
    check_compose(r, env_read)
    named = check_observability(r, promql)
    check_promtool(r)

    if not args.offline:
        for b in sorted(OUR_BINARIES):
            if not (bin_dir / b).exists():
                r.fail(f"live: {bin_dir / b} is missing (cargo build -p gateway -p rules-engine -p clock -p match-maker -p tournaments -p colosseum)")
        if not shutil.which("redis-server"):
            r.fail("live: redis-server is not on PATH")
        if any(v.get("archive", {}).get("existingSecret") or v.get("archive", {}).get("url") for v, _ in rendered.values()) and not postgres_bin_dir():
            r.fail("live: an example names an archive, and PostgreSQL's initdb is in neither /usr/lib/postgresql/*/bin nor PATH "
                   "(Debian: apt-get install postgresql)")
        if not r.failures:
            exported: set[str] = set()
            for name, (values, docs) in sorted(rendered.items()):
                exported |= run_live(r, name, values, docs, bin_dir, args.keep_logs, args.max_replicas)
            report_metrics(r, named, exported)
        else:
            print("\n== Live: skipped (failures above)")

    print()
    if r.failures:
        print(f"deploy-check: {len(r.failures)} failure(s)")
        return 1
    print("deploy-check: all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
