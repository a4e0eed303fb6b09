//! What the match-maker counts, described once (exported at zero from the start, with help
//! and type); docs/operations.md lists them for the dashboards and alerts.

use service_kit::metrics::{Desc, Kind, LAG_BUCKETS, LATENCY_BUCKETS};

/// Tickets created (seeks included).
pub const TICKETS: &str = "colosseum_matchmaker_tickets_total";
/// Pairings made (queue passes and accepted seeks).
pub const PAIRED: &str = "colosseum_matchmaker_pairings_total";
/// Pairings whose match was created and tickets assigned.
pub const ASSIGNED: &str = "colosseum_matchmaker_assigned_total";
/// Tickets expired unpaired.
pub const EXPIRED: &str = "colosseum_matchmaker_expired_total";
/// One matching pass over every queue.
pub const PASS_SECONDS: &str = "colosseum_matchmaker_pass_duration_seconds";
/// From pairing to assignment (the match's creation).
pub const CREATE_SECONDS: &str = "colosseum_matchmaker_create_duration_seconds";
/// Whether this replica holds the matcher lease.
pub const LEADER: &str = "colosseum_matchmaker_leader";
/// Rated results recorded.
pub const RATED: &str = "colosseum_matchmaker_rated_total";
/// Results seen again and ignored (already rated).
pub const RATED_AGAIN: &str = "colosseum_matchmaker_rated_again_total";
/// Accounts registered.
pub const REGISTERED: &str = "colosseum_matchmaker_registered_total";
/// Logins refused for bad credentials.
pub const LOGIN_FAILED: &str = "colosseum_matchmaker_login_failed_total";
/// Tickets left waiting after the last pass, by game and rated (the lease holder's view;
/// a queue that empties keeps its last figure until it fills again).
pub const WAITING: &str = "colosseum_matchmaker_waiting_tickets";
/// Open WatchTickets streams.
pub const WATCHES: &str = "colosseum_matchmaker_ticket_watches";

/// How long the oldest finished match read by the archiver has waited for the archive, s
/// (0: none waits).
pub const ARCHIVE_LAG: &str = "colosseum_archive_lag_seconds";
/// Finished matches written to the archive.
pub const ARCHIVE_WRITTEN: &str = "colosseum_archive_written_total";
/// Finished matches found archived already (a repeat): nothing written.
pub const ARCHIVE_DUPLICATES: &str = "colosseum_archive_duplicates_total";
/// Archive attempts that failed (the database, the engine): retried.
pub const ARCHIVE_FAILURES: &str = "colosseum_archive_failures_total";
/// Archived matches deleted past the retention.
pub const ARCHIVE_PRUNED: &str = "colosseum_archive_pruned_total";

/// Every metric of the match-maker.
pub const ALL: &[Desc] = &[
    Desc { name: TICKETS, kind: Kind::Counter, help: "Tickets created, seeks included" },
    Desc { name: PAIRED, kind: Kind::Counter, help: "Pairings made" },
    Desc { name: ASSIGNED, kind: Kind::Counter, help: "Pairings whose match was created" },
    Desc { name: EXPIRED, kind: Kind::Counter, help: "Tickets expired unpaired" },
    Desc {
        name: PASS_SECONDS,
        kind: Kind::Histogram(LATENCY_BUCKETS),
        help: "One matching pass over every queue (the lease holder's)",
    },
    Desc {
        name: CREATE_SECONDS,
        kind: Kind::Histogram(LAG_BUCKETS),
        help: "From a pairing to its match created and both tickets assigned",
    },
    Desc { name: LEADER, kind: Kind::Gauge, help: "1 while this replica holds the matcher lease" },
    Desc { name: RATED, kind: Kind::Counter, help: "Rated results recorded" },
    Desc { name: RATED_AGAIN, kind: Kind::Counter, help: "Results seen again, changing nothing" },
    Desc { name: REGISTERED, kind: Kind::Counter, help: "Accounts registered" },
    Desc { name: LOGIN_FAILED, kind: Kind::Counter, help: "Logins refused for bad credentials" },
    Desc { name: WATCHES, kind: Kind::Gauge, help: "Open WatchTickets streams" },
    Desc {
        name: ARCHIVE_LAG,
        kind: Kind::Gauge,
        help: "Age of the oldest finished match read and not archived yet, seconds",
    },
    Desc { name: ARCHIVE_WRITTEN, kind: Kind::Counter, help: "Finished matches archived" },
    Desc {
        name: ARCHIVE_DUPLICATES,
        kind: Kind::Counter,
        help: "Finished matches found archived already, nothing written",
    },
    Desc { name: ARCHIVE_FAILURES, kind: Kind::Counter, help: "Archive attempts that failed" },
    Desc { name: ARCHIVE_PRUNED, kind: Kind::Counter, help: "Archived matches past retention" },
    Desc {
        name: WAITING,
        kind: Kind::Gauge,
        help: "Tickets left waiting after the last pass, by game and rated",
    },
];
