"""Writes the Grafana dashboards of deploy/grafana/dashboards/ (committed; edit this file,
then `python3 deploy/grafana/generate.py`; `make deploy-check` fails when they differ).

One overview and one dashboard per service. Current panel types only (timeseries, stat,
gauge, table, text), the datasource a variable (`${datasource}`) so one file fits any
Prometheus. Series are labelled `component` and `family` by the scrape (the chart's
ServiceMonitor, deploy/prometheus/prometheus.yml). docs/operations.md ("Metrics") lists
every metric; `make deploy-check` checks each one named here is exported.
"""

import json
import pathlib
import sys

OUT = pathlib.Path(__file__).resolve().parent / "dashboards"
DS = {"type": "prometheus", "uid": "${datasource}"}
RATE = "$__rate_interval"
# A lease gauge's stat: red at 0 holders, green at 1.
LEASE_THRESHOLDS = {"fieldConfig": {"defaults": {"unit": "short", "thresholds": {
    "mode": "absolute", "steps": [{"color": "red", "value": None}, {"color": "green", "value": 1}]}}, "overrides": []}}
# The lease holder's count of live tournaments and unfinished bulk requests: a replica that
# lost the lease keeps its last value, so only the holder's is read.
LIVE = "sum(colosseum_tournaments_live and on (instance) (colosseum_tournaments_driver_leader == 1))"


class Board:
    def __init__(self, uid: str, title: str, description: str, family_var: bool = False):
        self.uid, self.title, self.description = uid, title, description
        self.panels: list[dict] = []
        self.x = self.y = 0
        self.row_h = 0
        self.family_var = family_var

    def add(self, kind: str, title: str, exprs, w: int = 12, h: int = 8, unit: str = "short",
            description: str = "", legend: list[str] | None = None, extra: dict | None = None):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        exprs = [exprs] if isinstance(exprs, str) else exprs
        legend = legend or ["" for _ in exprs]
        p = {
            "id": len(self.panels) + 1,
            "type": kind,
            "title": title,
            "description": description,
            "datasource": DS,
            "gridPos": {"x": self.x, "y": self.y, "w": w, "h": h},
            "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
            "options": {},
            "targets": [
                {"refId": chr(65 + i), "datasource": DS, "expr": e, "legendFormat": lf,
                 **({"instant": True, "format": "table"} if kind == "table" else {})}
                for i, (e, lf) in enumerate(zip(exprs, legend))
            ],
        }
        if kind == "timeseries":
            p["options"] = {"legend": {"displayMode": "list", "placement": "bottom"}, "tooltip": {"mode": "multi"}}
        if kind == "stat":
            p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"]}, "colorMode": "value", "graphMode": "area"}
        if extra:
            p.update(extra)
        self.panels.append(p)
        self.x += w
        self.row_h = max(self.row_h, h)

    def text(self, title: str, content: str, w: int = 24, h: int = 3):
        if self.x + w > 24:
            self.x, self.y = 0, self.y + self.row_h
            self.row_h = 0
        self.panels.append({
            "id": len(self.panels) + 1, "type": "text", "title": title,
            "gridPos": {"x": self.x, "y": self.y, "w": w, "h": h},
            "options": {"mode": "markdown", "content": content},
        })
        self.x += w
        self.row_h = max(self.row_h, h)

    def json(self) -> dict:
        variables = [{
            "name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus",
            "current": {}, "hide": 0, "refresh": 1, "options": [],
        }]
        if self.family_var:
            variables.append({
                "name": "family", "label": "Family", "type": "query", "datasource": DS,
                "query": {"query": "label_values(colosseum_engine_steps_total, family)", "refId": "family"},
                "definition": "label_values(colosseum_engine_steps_total, family)",
                "includeAll": True, "multi": True, "allValue": ".*", "current": {}, "refresh": 2,
                "hide": 0, "options": [], "sort": 1,
            })
        return {
            "uid": self.uid,
            "title": self.title,
            "description": self.description,
            "tags": ["colosseum"],
            "editable": False,
            "schemaVersion": 39,
            "version": 1,
            "time": {"from": "now-1h", "to": "now"},
            "refresh": "30s",
            "timezone": "utc",
            "templating": {"list": variables},
            "annotations": {"list": []},
            "links": [{"title": "Colosseum", "type": "dashboards", "tags": ["colosseum"], "asDropdown": True}],
            "panels": self.panels,
        }


def q(p: float, metric: str, by: str, where: str = "") -> str:
    return f"histogram_quantile({p}, sum by (le, {by}) (rate({metric}_bucket{where}[{RATE}])))"


def process_panels(b: Board, component: str):
    sel = f'{{component="{component}"}}' if component else ""
    b.add("timeseries", "CPU (cores)", f"sum by (component, family, instance) (rate(process_cpu_seconds_total{sel}[{RATE}]))",
          unit="short", legend=["{{component}} {{family}} {{instance}}"])
    b.add("timeseries", "Resident memory", f"sum by (component, family, instance) (process_resident_memory_bytes{sel})",
          unit="bytes", legend=["{{component}} {{family}} {{instance}}"])


def store_panels(b: Board, component: str):
    sel = f'{{component="{component}"}}'
    b.add("timeseries", "Redis latency p99 by operation", q(0.99, "colosseum_store_duration_seconds", "op", sel),
          unit="s", legend=["{{op}}"])
    b.add("timeseries", "Redis errors/s by operation", f"sum by (op) (rate(colosseum_store_errors_total{sel}[{RATE}]))",
          unit="reqps", legend=["{{op}}"])


def overview() -> Board:
    b = Board("colosseum-overview", "Colosseum: overview",
              "Moves, latency, matches, deadlines, refusals, Redis and the processes, cluster-wide.")
    b.add("stat", "Moves/s", f"sum(rate(colosseum_engine_steps_total[{RATE}]))", w=6, h=4, unit="reqps",
          description="Steps applied by every rules engine (moves, resignations, deadlines).")
    b.add("stat", "Matches in engine memory", "sum(colosseum_engine_hot_matches)", w=6, h=4)
    b.add("stat", "Matches watched", "sum(colosseum_gateway_watched_matches)", w=6, h=4)
    b.add("stat", "INTERNAL/UNAVAILABLE refusals/s",
          f'sum(rate(colosseum_grpc_requests_total{{component="gateway",code=~"INTERNAL|UNAVAILABLE"}}[{RATE}])) or vector(0)',
          w=6, h=4, unit="reqps", extra={"fieldConfig": {"defaults": {"unit": "reqps", "thresholds": {
              "mode": "absolute", "steps": [{"color": "green", "value": None}, {"color": "red", "value": 0.1}]}}, "overrides": []}})
    b.add("timeseries", "Moves/s by game", f"sum by (game) (rate(colosseum_gateway_submit_duration_seconds_count[{RATE}]))",
          unit="reqps", legend=["{{game}}"], description="SubmitMove calls answered, by game.")
    b.add("timeseries", "SubmitMove latency by game (p50, p99)",
          [q(0.5, "colosseum_gateway_submit_duration_seconds", "game"), q(0.99, "colosseum_gateway_submit_duration_seconds", "game")],
          unit="s", legend=["p50 {{game}}", "p99 {{game}}"])
    b.add("timeseries", "Live and idle matches", "sum by (state) (colosseum_engine_matches)",
          legend=["{{state}}"], description="Matches the engines hold: live (a step in the last minute) or idle.")
    b.add("timeseries", "Deadline firing lag (p50, p99)",
          [q(0.5, "colosseum_clock_deadline_lag_seconds", "component"), q(0.99, "colosseum_clock_deadline_lag_seconds", "component")],
          unit="s", legend=["p50", "p99"], description="From a deadline's due time to the clock's firing of it.")
    b.add("timeseries", "Refusals/s by code", f'sum by (code) (rate(colosseum_grpc_requests_total{{component="gateway",code!="OK"}}[{RATE}]))',
          unit="reqps", legend=["{{code}}"], description="Every non-OK answer of the public API, by gRPC code.")
    b.add("timeseries", "Redis latency p99 by service", q(0.99, "colosseum_store_duration_seconds", "component"),
          unit="s", legend=["{{component}}"])
    b.add("timeseries", "Redis errors/s by service", [
        f"sum by (component) (rate(colosseum_store_errors_total[{RATE}]))",
        f"sum(rate(colosseum_gateway_feed_failures_total[{RATE}]))",
    ], unit="reqps", legend=["{{component}}", "gateway feed reads failed"])
    b.add("timeseries", "Gateway streams", ["sum(colosseum_gateway_watch_streams)", "sum(colosseum_gateway_watched_matches)",
                                           "sum(colosseum_gateway_play_streams)"],
          legend=["match watches open", "matches watched", "Play streams open"])
    b.add("table", "Services up", "sum by (component, family, instance) (up{component=~\"gateway|rules-engine|clock|match-maker|tournaments\"})",
          description="1: scraped; 0: the target is down.")
    process_panels(b, "")
    b.add("stat", "Tickets/s", f"sum(rate(colosseum_matchmaker_tickets_total[{RATE}]))", w=6, h=4, unit="reqps",
          description="Match-making tickets created (seeks included).")
    b.add("stat", "Pairings/s", f"sum(rate(colosseum_matchmaker_pairings_total[{RATE}]))", w=6, h=4, unit="reqps")
    b.add("stat", "Matcher lease holders", "sum(colosseum_matchmaker_leader)", w=6, h=4,
          description="Match-makers holding the matcher lease: 1 in a healthy cluster; 0 means nobody pairs tickets.",
          extra=LEASE_THRESHOLDS)
    b.add("stat", "Rated results/s", f"sum(rate(colosseum_matchmaker_rated_total[{RATE}]))", w=6, h=4, unit="reqps")
    b.add("stat", "Tenant matches created/s", f"sum(rate(colosseum_tournaments_bulk_matches_total[{RATE}]))", w=6, h=4, unit="reqps",
          description="Matches organisers created with CreateMatches.")
    b.add("stat", "Tenant matches finished/s", f"sum(rate(colosseum_tournaments_finished_total[{RATE}]))", w=6, h=4, unit="reqps")
    b.add("stat", "Driver lease holders", "sum(colosseum_tournaments_driver_leader)", w=6, h=4,
          description="Tournament service replicas holding the driver lease: 1 in a healthy cluster; 0 means scheduled matches and rounds wait.",
          extra=LEASE_THRESHOLDS)
    b.add("stat", "Live tournaments and bulk requests", LIVE, w=6, h=4,
          description="What the driver lease holder looked at in its last pass: live tournaments and unfinished bulk requests.")
    return b


def gateway() -> Board:
    b = Board("colosseum-gateway", "Colosseum: gateway",
              "The public API: requests, refusals, SubmitMove latency, watch streams, the hub's feed.")
    b.add("timeseries", "Requests/s", f"sum by (instance) (rate(colosseum_gateway_requests_total[{RATE}]))",
          unit="reqps", legend=["{{instance}}"])
    b.add("timeseries", "Refusals/s by method and code", f'sum by (method, code) (rate(colosseum_grpc_requests_total{{component="gateway",code!="OK"}}[{RATE}]))',
          unit="reqps", legend=["{{method}} {{code}}"])
    b.add("timeseries", "SubmitMove latency by game (p50, p99)",
          [q(0.5, "colosseum_gateway_submit_duration_seconds", "game"), q(0.99, "colosseum_gateway_submit_duration_seconds", "game")],
          unit="s", legend=["p50 {{game}}", "p99 {{game}}"])
    b.add("timeseries", "Request latency p99 by method", q(0.99, 'colosseum_grpc_request_duration_seconds', "method", '{component="gateway"}'),
          unit="s", legend=["{{method}}"])
    b.add("timeseries", "Watch streams and watched matches",
          ["sum by (instance) (colosseum_gateway_watch_streams)", "sum by (instance) (colosseum_gateway_watched_matches)"],
          legend=["match watches {{instance}}", "matches {{instance}}"])
    b.add("timeseries", "Play streams open", "sum by (instance) (colosseum_gateway_play_streams)",
          legend=["{{instance}}"],
          description="Bidirectional Play streams: typically one per client session, carrying its watches and moves.")
    b.add("timeseries", "Play requests/s by kind and code",
          f"sum by (kind, code) (rate(colosseum_gateway_play_requests_total[{RATE}]))",
          unit="reqps", legend=["{{kind}} {{code}}"],
          description="Requests answered in-band on Play streams (watch, unwatch, submit_move, resign), by gRPC code.")
    b.add("timeseries", "Browser front: answers/s by kind",
          f"sum by (kind) (rate(colosseum_gateway_web_requests_total[{RATE}]))",
          unit="reqps", legend=["{{kind}}"],
          description="What the browser front answered itself: the web client's files, 404s, CORS preflights, calls refused for their origin. gRPC-Web and Connect calls count with the gRPC calls above.")
    b.add("timeseries", "Hub: feed reads/s and failures/s", [
        f"sum(rate(colosseum_gateway_hub_reads_total[{RATE}]))",
        f"sum(rate(colosseum_gateway_feed_failures_total[{RATE}]))",
    ], unit="reqps", legend=["reads", "failures"])
    b.add("timeseries", "Resyncs and rewinds (lost Redis writes)", [
        f"sum(increase(colosseum_gateway_resyncs_total[{RATE}]))",
        f"sum(increase(colosseum_gateway_rewound_total[{RATE}]))",
    ], legend=["resyncs sent", "hub rewound"], description="Non-zero only after Redis lost acknowledged writes.")
    b.add("stat", "Panics (1h)", "sum(increase(colosseum_panics_total{component=\"gateway\"}[1h]))", w=6)
    b.add("stat", "Gateways up", "sum(up{component=\"gateway\"})", w=6)
    store_panels(b, "gateway")
    process_panels(b, "gateway")
    return b


def engines() -> Board:
    b = Board("colosseum-rules-engine", "Colosseum: rules engines",
              "Each family's engines: steps, refusals, apply latency, matches held, rebuilds.", family_var=True)
    f = '{family=~"$family"}'
    b.add("timeseries", "Steps/s by family", f"sum by (family) (rate(colosseum_engine_steps_total{f}[{RATE}]))",
          unit="reqps", legend=["{{family}}"])
    b.add("timeseries", "Refusals/s by family", f"sum by (family) (rate(colosseum_engine_refusals_total{f}[{RATE}]))",
          unit="reqps", legend=["{{family}}"], description="Steps the rules refused (illegal moves, out of turn...).")
    b.add("timeseries", "ApplyStep latency by family (p50, p99)", [
        q(0.5, "colosseum_engine_apply_duration_seconds", "family", f),
        q(0.99, "colosseum_engine_apply_duration_seconds", "family", f),
    ], unit="s", legend=["p50 {{family}}", "p99 {{family}}"])
    b.add("timeseries", "Matches in memory by replica", f"sum by (family, instance) (colosseum_engine_hot_matches{f})",
          legend=["{{family}} {{instance}}"])
    b.add("timeseries", "Live and idle matches by game", f"sum by (game, state) (colosseum_engine_matches{f})",
          legend=["{{game}} {{state}}"])
    b.add("timeseries", "Rebuilds, catch-ups, reissued/s", [
        f"sum by (family) (rate(colosseum_engine_rebuilds_total{f}[{RATE}]))",
        f"sum by (family) (rate(colosseum_engine_catch_ups_total{f}[{RATE}]))",
        f"sum by (family) (rate(colosseum_engine_reissued_total{f}[{RATE}]))",
    ], unit="reqps", legend=["rebuilds {{family}}", "catch-ups {{family}}", "reissued {{family}}"],
        description="Rebuilds: a match read back from its stream (a cold cache, a new replica); reissued: Redis lost writes.")
    b.add("timeseries", "Late deadlines applied by the engine/s", f"sum by (family) (rate(colosseum_engine_late_deadlines_total{f}[{RATE}]))",
          unit="reqps", legend=["{{family}}"], description="A deadline the clock had not fired yet when a step came: the clock is behind or down.")
    b.add("stat", "Panics (1h)", f"sum(increase(colosseum_engine_panics_total{f}[1h]))", w=6)
    b.add("stat", "Unauthenticated calls (1h)", f"sum(increase(colosseum_engine_unauthenticated_total{f}[1h]))", w=6,
          description="Calls without the internal secret: a service with another secret, or a stranger.")
    store_panels(b, "rules-engine")
    process_panels(b, "rules-engine")
    return b


def clock() -> Board:
    b = Board("colosseum-clock", "Colosseum: clock", "Deadlines: fired, stale, failed, lag, index repairs.")
    b.add("timeseries", "Deadlines/s", [
        f"sum(rate(colosseum_clock_fired_total[{RATE}]))",
        f"sum(rate(colosseum_clock_stale_total[{RATE}]))",
        f"sum(rate(colosseum_clock_failed_total[{RATE}]))",
    ], unit="reqps", legend=["fired", "stale (the match moved on)", "failed (retried)"])
    b.add("timeseries", "Firing lag (p50, p99, max bucket)", [
        q(0.5, "colosseum_clock_deadline_lag_seconds", "component"),
        q(0.99, "colosseum_clock_deadline_lag_seconds", "component"),
    ], unit="s", legend=["p50", "p99"])
    b.add("stat", "Index entries repaired (24h)", "sum(increase(colosseum_clock_index_repaired_total[24h]))", w=6)
    b.add("stat", "Clocks up", "sum(up{component=\"clock\"})", w=6)
    b.add("stat", "Late deadlines applied by engines (1h)", "sum(increase(colosseum_engine_late_deadlines_total[1h]))", w=12)
    store_panels(b, "clock")
    process_panels(b, "clock")
    return b


def match_maker() -> Board:
    b = Board("colosseum-match-maker", "Colosseum: match-maker",
              "The lobby: tickets, pairings, matching passes, match creation, the matcher lease, ratings, the archive, accounts.")
    b.add("timeseries", "Tickets/s", [
        f"sum(rate(colosseum_matchmaker_tickets_total[{RATE}]))",
        f"sum(rate(colosseum_matchmaker_expired_total[{RATE}]))",
    ], unit="reqps", legend=["created", "expired unpaired"], description="Tickets created (seeks included), and those whose time ran out.")
    b.add("timeseries", "Pairings/s", [
        f"sum(rate(colosseum_matchmaker_pairings_total[{RATE}]))",
        f"sum(rate(colosseum_matchmaker_assigned_total[{RATE}]))",
    ], unit="reqps", legend=["paired", "assigned (match created)"],
        description="A pairing is assigned once the rules engine created its match; a gap that lasts means creation fails.")
    b.add("timeseries", "Matching pass duration (p50, p99)", [
        q(0.5, "colosseum_matchmaker_pass_duration_seconds", "component"),
        q(0.99, "colosseum_matchmaker_pass_duration_seconds", "component"),
    ], unit="s", legend=["p50", "p99"], description="One pass over every queue by the lease holder (every 100 ms).")
    b.add("timeseries", "Match creation duration (p50, p99)", [
        q(0.5, "colosseum_matchmaker_create_duration_seconds", "component"),
        q(0.99, "colosseum_matchmaker_create_duration_seconds", "component"),
    ], unit="s", legend=["p50", "p99"], description="From a pairing to its match created and both tickets assigned.")
    b.add("timeseries", "Matcher lease holder", "max by (instance) (colosseum_matchmaker_leader)",
          legend=["{{instance}}"], description="1 on the replica holding the matcher lease; exactly one should at any time.")
    b.add("timeseries", "Ratings/s", [
        f"sum(rate(colosseum_matchmaker_rated_total[{RATE}]))",
        f"sum(rate(colosseum_matchmaker_rated_again_total[{RATE}]))",
    ], unit="reqps", legend=["rated", "seen again (no change)"], description="Rated results recorded from the lifecycle stream.")
    b.add("timeseries", "Archive lag", "max by (instance) (colosseum_archive_lag_seconds)",
          unit="s", legend=["{{instance}}"],
          description="Age of the oldest finished match the archiver has read but not yet written to PostgreSQL; 0 when none "
                      "waits. It grows while PostgreSQL is down or slow (the matches wait in Redis): ColosseumArchiveLagging at 600 s.")
    b.add("timeseries", "Archive writes/s", [
        f"sum(rate(colosseum_archive_written_total[{RATE}]))",
        f"sum(rate(colosseum_archive_duplicates_total[{RATE}]))",
        f"sum(rate(colosseum_archive_failures_total[{RATE}]))",
        f"sum(rate(colosseum_archive_pruned_total[{RATE}]))",
    ], unit="reqps", legend=["written", "duplicates (no change)", "failures", "pruned (retention)"],
        description="Finished matches written to the archive, written again unchanged (a repeated announcement), attempts "
                    "that failed and are retried (PostgreSQL down, a record not read from its engine), and archived matches "
                    "deleted past ARCHIVE_RETENTION_DAYS.")
    b.add("timeseries", "Accounts/s", [
        f"sum(rate(colosseum_matchmaker_registered_total[{RATE}]))",
        f"sum(rate(colosseum_matchmaker_login_failed_total[{RATE}]))",
    ], unit="reqps", legend=["registered", "logins refused"], description="A jump in refused logins: someone guessing passwords.")
    b.add("timeseries", "WatchTickets streams", "sum by (instance) (colosseum_matchmaker_ticket_watches)",
          legend=["{{instance}}"])
    b.add("timeseries", "Request latency p99 by method", q(0.99, "colosseum_grpc_request_duration_seconds", "method", '{component="match-maker"}'),
          unit="s", legend=["{{method}}"])
    b.add("timeseries", "Refusals/s by method and code", f'sum by (method, code) (rate(colosseum_grpc_requests_total{{component="match-maker",code!="OK"}}[{RATE}]))',
          unit="reqps", legend=["{{method}} {{code}}"])
    b.add("stat", "Lease holders", "sum(colosseum_matchmaker_leader)", w=6,
          extra=LEASE_THRESHOLDS)
    b.add("stat", "Match-makers up", "sum(up{component=\"match-maker\"})", w=6)
    b.add("stat", "Panics (1h)", "sum(increase(colosseum_panics_total{component=\"match-maker\"}[1h]))", w=6)
    b.add("stat", "Tickets expired (1h)", "sum(increase(colosseum_matchmaker_expired_total[1h]))", w=6)
    store_panels(b, "match-maker")
    process_panels(b, "match-maker")
    return b


def tournaments() -> Board:
    b = Board("colosseum-tournaments", "Colosseum: tournaments",
              "The platform API for organisers: matches created in bulk, tenant matches finished, the driver lease, "
              "live tournaments.")
    b.add("timeseries", "Bulk matches created/s", f"sum(rate(colosseum_tournaments_bulk_matches_total[{RATE}]))",
          unit="reqps", legend=["created"], description="Matches created by CreateMatches (by the caller, or by the driver finishing what a caller left).")
    b.add("timeseries", "Tenant matches finished/s", f"sum(rate(colosseum_tournaments_finished_total[{RATE}]))",
          unit="reqps", legend=["finished"],
          description="Tenant matches (bulk and tournament ones) whose finish was recorded from the lifecycle stream, once each.")
    b.add("timeseries", "Driver lease holder", "max by (instance) (colosseum_tournaments_driver_leader)",
          legend=["{{instance}}"], description="1 on the replica holding the driver lease; exactly one should at any time.")
    b.add("timeseries", "Live tournaments and unfinished bulk requests", LIVE, legend=["live"],
          description="What the lease holder's driver looked at in its last pass (every 500 ms).")
    b.add("timeseries", "Request latency p99 by method", q(0.99, "colosseum_grpc_request_duration_seconds", "method", '{component="tournaments"}'),
          unit="s", legend=["{{method}}"])
    b.add("timeseries", "Refusals/s by method and code", f'sum by (method, code) (rate(colosseum_grpc_requests_total{{component="tournaments",code!="OK"}}[{RATE}]))',
          unit="reqps", legend=["{{method}} {{code}}"], description="UNAUTHENTICATED here: API keys refused (unknown, revoked) or calls without the internal secret.")
    b.add("stat", "Lease holders", "sum(colosseum_tournaments_driver_leader)", w=6, extra=LEASE_THRESHOLDS)
    b.add("stat", "Tournament replicas up", "sum(up{component=\"tournaments\"})", w=6)
    b.add("stat", "Panics (1h)", "sum(increase(colosseum_panics_total{component=\"tournaments\"}[1h]))", w=6)
    b.add("stat", "Unauthenticated calls (1h)", "sum(increase(colosseum_engine_unauthenticated_total{component=\"tournaments\"}[1h]))", w=6,
          description="Calls without the internal secret: a service with another secret, or a stranger.")
    store_panels(b, "tournaments")
    process_panels(b, "tournaments")
    return b


# Not match-maker.json: .gitignore drops match-*.json (the match records `colosseum play` saves).
BOARDS = {"overview.json": overview, "gateway.json": gateway, "rules-engine.json": engines, "clock.json": clock,
          "matchmaker.json": match_maker, "tournaments.json": tournaments}


def render() -> dict[str, str]:
    return {name: json.dumps(make().json(), indent=2) + "\n" for name, make in BOARDS.items()}


def main() -> int:
    OUT.mkdir(exist_ok=True)
    for name, text in render().items():
        (OUT / name).write_text(text)
    print(f"wrote {len(BOARDS)} dashboards to {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
