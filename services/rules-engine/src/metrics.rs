//! What the rules engine counts, described once (exported at zero from the start, with help
//! and type); the dashboards in deploy/grafana and the alerts in deploy/prometheus read these.

use service_kit::metrics::{Desc, Kind, LATENCY_BUCKETS};

/// One request's step from arrival to answer (the rules, the append, any rebuild), by
/// step: `create`, `move`, `resign`, `deadline`.
pub const APPLY_SECONDS: &str = "colosseum_engine_apply_duration_seconds";
/// The matches this replica holds, by game and state (`live`: used within the last minute;
/// `idle`), as of the last eviction sweep (every 10 s, or twice per idle time if shorter).
pub const MATCHES: &str = "colosseum_engine_matches";

/// Matches evicted from this replica's memory, by reason: `idle` (unused for the idle
/// time) or `cap` (the least recently used, past the most it holds).
pub const EVICTED: &str = "colosseum_engine_evicted_total";

/// Steps streams (the gateway's and the clock's links) opened, and open now.
pub const LINKS_OPENED: &str = "colosseum_engine_links_opened_total";
/// Steps streams open now.
pub const LINKS_OPEN: &str = "colosseum_engine_links_open";

/// A Steps stream, counted open from its start until its last answer is sent.
pub struct LinkOpen(());

impl LinkOpen {
    /// Counts a stream opened.
    pub fn count() -> Self {
        service_kit::metrics::add(LINKS_OPENED, 1);
        service_kit::metrics::add(LINKS_OPEN, 1);
        LinkOpen(())
    }
}

impl Drop for LinkOpen {
    fn drop(&mut self) {
        service_kit::metrics::add(LINKS_OPEN, -1);
    }
}

/// Every metric of the rules engine.
pub const ALL: &[Desc] = &[
    Desc {
        name: APPLY_SECONDS,
        kind: Kind::Histogram(LATENCY_BUCKETS),
        help: "A step (or a create) from arrival to answer, rules and append included, by step",
    },
    Desc { name: MATCHES, kind: Kind::Gauge, help: "Matches held in memory, by game and state" },
    Desc {
        name: "colosseum_engine_steps_total",
        kind: Kind::Counter,
        help: "Steps applied and stored",
    },
    Desc {
        name: "colosseum_engine_refusals_total",
        kind: Kind::Counter,
        help: "Steps the rules refused (checked against the stream's head first)",
    },
    Desc {
        name: "colosseum_engine_hot_matches",
        kind: Kind::Gauge,
        help: "Matches in this replica's cache",
    },
    Desc {
        name: EVICTED,
        kind: Kind::Counter,
        help: "Matches evicted from memory, by reason (idle, cap)",
    },
    Desc {
        name: "colosseum_engine_rebuilds_total",
        kind: Kind::Counter,
        help: "Matches rebuilt from their stream (first use, a dirty slot, a reissued stream)",
    },
    Desc {
        name: "colosseum_engine_catch_ups_total",
        kind: Kind::Counter,
        help: "Times a cached match absorbed entries another replica appended",
    },
    Desc {
        name: "colosseum_engine_reissued_total",
        kind: Kind::Counter,
        help: "Times the stream no longer held this replica's copy (lost writes): rebuilt",
    },
    Desc {
        name: "colosseum_engine_late_deadlines_total",
        kind: Kind::Counter,
        help: "Deadlines applied by a late move because the clock had not fired them",
    },
    Desc {
        name: "colosseum_engine_panics_total",
        kind: Kind::Counter,
        help: "Step tasks that panicked (answered INTERNAL; the slot is rebuilt)",
    },
    Desc {
        name: LINKS_OPENED,
        kind: Kind::Counter,
        help: "Steps streams (the gateway's and the clock's links) opened",
    },
    Desc { name: LINKS_OPEN, kind: Kind::Gauge, help: "Steps streams open now" },
    Desc {
        name: "colosseum_engine_unauthenticated_total",
        kind: Kind::Counter,
        help: "Internal calls refused for a missing or wrong internal token",
    },
];
