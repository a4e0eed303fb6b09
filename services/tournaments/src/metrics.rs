//! What the tournament service counts, for the dashboards.

use service_kit::metrics::{Desc, Kind};

/// Matches created by CreateMatches.
pub const BULK_CREATED: &str = "colosseum_tournaments_bulk_matches_total";
/// Tenant matches whose finish was recorded.
pub const FINISHED: &str = "colosseum_tournaments_finished_total";
/// 1 while this replica holds the driver lease.
pub const LEADER: &str = "colosseum_tournaments_driver_leader";
/// Unfinished bulk requests and live tournaments the driver looked at in its last pass.
pub const LIVE: &str = "colosseum_tournaments_live";

/// Finished matches the driver announced because their engine never did (it died between
/// the final step and the announcement).
pub const ANNOUNCEMENTS_REPAIRED: &str = "colosseum_announcements_repaired_total";

/// Every metric of the service.
pub const ALL: &[Desc] = &[
    Desc {
        name: ANNOUNCEMENTS_REPAIRED,
        kind: Kind::Counter,
        help: "Finished matches announced by the driver's repair (their engine never did)",
    },
    Desc { name: BULK_CREATED, kind: Kind::Counter, help: "Matches created by CreateMatches" },
    Desc { name: FINISHED, kind: Kind::Counter, help: "Tenant matches whose finish was recorded" },
    Desc { name: LEADER, kind: Kind::Gauge, help: "1 while this replica holds the driver lease" },
    Desc {
        name: LIVE,
        kind: Kind::Gauge,
        help: "Live tournaments and unfinished bulk requests the driver looked at",
    },
];

/// Tenant matches' finishes recorded.
pub fn finished(n: usize) {
    service_kit::metrics::add(FINISHED, n as i64);
}
