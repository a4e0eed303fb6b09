//! The driver: under a lease, one replica at a time finishes what callers left (a bulk
//! request whose caller died, a pairing whose matches were not all created, a finished
//! match whose engine died before announcing it, for every consumer of the lifecycle
//! stream) and does what time decides (a scheduled bulk match whose time came, a round
//! after its gap, an arena's pairings and end).

use crate::bulk::{self, Bulk};
use crate::metrics;
use crate::tournaments::Tournaments;
use futures_util::StreamExt;
use service_kit::time::now_ms;
use std::sync::Arc;
use std::time::Duration;
use store::TenantStore;
use tokio_util::sync::CancellationToken;

/// The lease's name.
pub const LEASE: &str = "tournaments";
/// How long a lease lasts unless renewed.
pub const LEASE_TTL_MS: u64 = 3_000;
/// How often a pass runs.
pub const PASS_EVERY: Duration = Duration::from_millis(500);
/// A bulk request this old is its caller's no more: the driver finishes it.
pub const TAKEOVER_AFTER_MS: u64 = 5_000;
/// An announcement owed this long was left by an engine that died (or failed to make it):
/// the driver makes it. Far above the engine's own few hundred microseconds, so a live
/// engine is rarely doubled (a doubled announcement changes nothing anyway).
pub const ANNOUNCE_AFTER_MS: u64 = 5_000;
/// The most owed announcements one pass makes.
const ANNOUNCEMENTS_PER_PASS: usize = 200;
/// The most unfinished bulk requests one pass looks at.
const BULKS_PER_PASS: usize = 100;
/// The most scheduled matches one pass starts.
const SCHEDULED_PER_PASS: usize = 1_000;
/// Scheduled matches created at once.
const STARTING_AT_ONCE: usize = 64;

/// Runs passes until `shutdown`, whenever this replica holds the lease.
pub async fn run(
    store: Arc<dyn TenantStore>,
    bulk: Bulk,
    tournaments: Arc<Tournaments>,
    name: String,
    shutdown: CancellationToken,
) {
    let holder = format!("{name}/{}", uuid::Uuid::new_v4());
    let duty = service_kit::lease::Duty {
        name: "tournament driver",
        holder: holder.clone(),
        every: PASS_EVERY,
        leader_gauge: metrics::LEADER,
    };
    let renew = || store.lease(LEASE, &holder, LEASE_TTL_MS);
    let pass = || async {
        if let Err(e) = pass(&store, &bulk, &tournaments).await {
            tracing::warn!(error = %e, "driver pass failed");
        }
    };
    service_kit::lease::run(duty, shutdown, renew, pass).await;
}

/// One pass. Public for tests.
///
/// # Errors
/// The store failed (the next pass tries again); one request or tournament failing is
/// logged and the others go on.
pub async fn pass(
    store: &Arc<dyn TenantStore>,
    bulk: &Bulk,
    tournaments: &Tournaments,
) -> Result<(), crate::error::Error> {
    let now = now_ms();
    // First, and on its own: every consumer (ratings, bulk matches, tournaments) waits on
    // these, and a failure of the rest of the pass must not hold them.
    match store
        .repair_announcements(now.saturating_sub(ANNOUNCE_AFTER_MS), ANNOUNCEMENTS_PER_PASS)
        .await
    {
        Ok(0) => {}
        Ok(n) => {
            service_kit::metrics::add(metrics::ANNOUNCEMENTS_REPAIRED, n as i64);
            tracing::info!(announced = n, "finished matches announced for engines that died first");
        }
        Err(e) => tracing::warn!(error = %e, "owed announcements not made yet"),
    }
    let unfinished = store.unfinished(bulk::KIND, BULKS_PER_PASS).await?;
    let due = store.due_scheduled(now, SCHEDULED_PER_PASS).await?;
    let live = store.live_tournaments().await?;
    service_kit::metrics::set(metrics::LIVE, (unfinished.len() + live.len()) as i64);
    // A request is unfinished only while its caller is under way, or after it died: the
    // matches that start at once are all created before it is marked done.
    for u in unfinished.iter().filter(|u| now.saturating_sub(u.begun_ms) >= TAKEOVER_AFTER_MS) {
        let taken = async {
            let matches = bulk.matches_of(&u.record_json).await?;
            bulk.run(u.tenant, &u.key, matches).await
        };
        if let Err(e) = taken.await {
            tracing::warn!(tenant = %u.tenant, error = %e, "an unfinished bulk request not finished yet");
        }
    }
    let started = futures_util::stream::iter(due)
        .map(|id| async move { (id, bulk.start_scheduled(id).await) })
        .buffer_unordered(STARTING_AT_ONCE)
        .collect::<Vec<_>>()
        .await;
    for (id, r) in started {
        if let Err(e) = r {
            tracing::warn!(match_id = %id, error = %e, "a scheduled match not started yet");
        }
    }
    for (tenant, id) in live {
        if let Err(e) = tournaments.drive(tenant, id).await {
            tracing::warn!(tournament = %id, error = %e, "a tournament not driven yet");
        }
    }
    Ok(())
}
