//! The clock service. Deadlines live in the event store (a Redis sorted set by due time,
//! armed by the rules engine in the same round trip as each step). The clock polls for
//! what is due or about to be (a poll's worth ahead, each firing waiting for its own due
//! time) and asks the match's rules engine to apply the deadline step, fenced by the
//! version the deadline was armed at: a duplicate or late firing changes nothing. A
//! deadline stays armed in the store until its firing is answered, so nothing in memory
//! can be lost: each poll is also the sweep, and a deadline that fell due while the clock
//! was down fires as soon as it is back. At start and every minute the clock also has the
//! store repair its deadline index, so a deadline whose index entry was lost (a crash
//! between its two writes) still fires.

use api::internal::{self, apply_step_request, apply_step_response};
use engines::{CallError, Engines};
use service_kit::metrics::{Desc, Kind, LAG_BUCKETS};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{Deadline, EventStore, MatchId};
use tokio_util::sync::CancellationToken;

/// How late each applied deadline fired: its applying minus its due time.
pub const LAG_SECONDS: &str = "colosseum_clock_deadline_lag_seconds";

/// Every metric of the clock, described once (exported at zero from the start).
pub const METRICS: &[Desc] = &[
    Desc {
        name: LAG_SECONDS,
        kind: Kind::Histogram(LAG_BUCKETS),
        help: "How late each applied deadline fired (applied minus due)",
    },
    Desc { name: "colosseum_clock_fired_total", kind: Kind::Counter, help: "Deadlines applied" },
    Desc {
        name: "colosseum_clock_stale_total",
        kind: Kind::Counter,
        help: "Deadlines found stale (the match moved on first)",
    },
    Desc {
        name: "colosseum_clock_failed_total",
        kind: Kind::Counter,
        help: "Deadline firings that failed (retried on the next poll)",
    },
    Desc {
        name: "colosseum_clock_index_repaired_total",
        kind: Kind::Counter,
        help: "Deadline index entries repaired from the matches' own deadlines",
    },
];
/// How often the clock looks for due deadlines.
pub const POLL_MS: u64 = 50;

/// How far ahead each poll reads: two polls' worth, so every deadline is in hand before
/// it falls due (even after a slow poll) and fires at its due time rather than at the
/// next poll after it.
pub const LOOKAHEAD_MS: u64 = 2 * POLL_MS;

/// Deadlines read per poll: room for a backlog (a restart finds every deadline that fell
/// due while the clock was down) beside the ones in flight and the index's spent entries.
pub const PAGE: usize = 1024;

/// Firings in flight at once (waiting for their due time or for the engine's answer).
pub const MAX_IN_FLIGHT: usize = 512;

/// How often the clock has the store repair its deadline index (and once at start).
pub const REPAIR_EVERY: Duration = Duration::from_secs(60);

/// The most applied firings [`ClockStats`] keeps when asked to (about 64 MB).
pub const MAX_FIRINGS_KEPT: usize = 2_000_000;

/// One applied deadline: the match, its due time as the store armed it, and how late it
/// was applied (the engine's answer minus the due time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Firing {
    /// The match.
    pub match_id: MatchId,
    /// The due time as armed, Unix ms.
    pub due_ms: u64,
    /// Applied minus due, ms.
    pub lag_ms: u64,
}

/// What the clock has done, for metrics and tests.
#[derive(Default, Debug)]
pub struct ClockStats {
    /// Deadline steps applied.
    pub fired: AtomicU64,
    /// Deadlines found stale (the match had moved on, or another clock replica fired
    /// them first: a duplicate answer).
    pub stale: AtomicU64,
    /// Firings that failed (engine down): retried on later polls.
    pub failed: AtomicU64,
    /// Whether to keep each applied firing in `firings` (off by default: a long-running
    /// clock would only grow it; the load benchmark and tests turn it on).
    keep: AtomicBool,
    /// The applied firings, in the order they were answered, at most
    /// [`MAX_FIRINGS_KEPT`]: exact lags and per-match counts, which the histogram lacks.
    firings: Mutex<Vec<Firing>>,
}

impl ClockStats {
    /// Keeps every applied firing from now on (up to [`MAX_FIRINGS_KEPT`]).
    pub fn keep_firings(&self) {
        self.keep.store(true, Ordering::Relaxed);
    }

    /// The applied firings kept so far.
    pub fn firings(&self) -> Vec<Firing> {
        self.firings_from(0)
    }

    /// The applied firings kept from the `from`-th on (a reader following them).
    pub fn firings_from(&self, from: usize) -> Vec<Firing> {
        let kept = self.firings.lock().expect("the firings lock");
        kept.get(from..).map(<[Firing]>::to_vec).unwrap_or_default()
    }

    fn applied(&self, f: Firing) {
        if self.keep.load(Ordering::Relaxed) {
            let mut kept = self.firings.lock().expect("the firings lock");
            if kept.len() < MAX_FIRINGS_KEPT {
                kept.push(f);
            }
        }
    }
}

/// The clock.
pub struct Clock {
    store: Arc<dyn EventStore>,
    /// The engines, picked per match as the gateway picks them (and past a dead replica).
    engines: Engines,
    /// Statistics.
    pub stats: ClockStats,
}

impl Clock {
    /// A clock over `store`, firing through `engines`.
    pub fn new(store: Arc<dyn EventStore>, engines: Engines) -> Arc<Self> {
        Arc::new(Clock { store, engines, stats: ClockStats::default() })
    }

    /// Fires what is due at `now_ms` (a page of it), all side by side, and waits for
    /// every answer; returns how many deadlines were handled. [`Clock::run`] polls on its
    /// own terms; this is the one-shot sweep.
    pub async fn tick(self: &Arc<Self>, now_ms: u64) -> usize {
        let due = self.due(now_ms).await;
        let n = due.len();
        let mut tasks = tokio::task::JoinSet::new();
        for d in due {
            let this = self.clone();
            tasks.spawn(async move { this.fire_and_record(d).await });
        }
        while tasks.join_next().await.is_some() {}
        n
    }

    /// A page of the armed deadlines due by `until_ms`, earliest first (none if the store
    /// cannot be read: the next poll tries again).
    async fn due(&self, until_ms: u64) -> Vec<Deadline> {
        match self.store.due_deadlines(until_ms, PAGE).await {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read deadlines");
                Vec::new()
            }
        }
    }

    /// One poll of [`Clock::run`]: reads what falls due within [`LOOKAHEAD_MS`] and starts
    /// a firing for each one not already in flight, up to [`MAX_IN_FLIGHT`]; each firing
    /// waits for its own due time, then fires. The poll never waits for a firing, so a
    /// slow engine call holds up no other deadline.
    async fn poll(self: &Arc<Self>, firing: &mut tokio::task::JoinSet<()>, in_flight: &InFlight) {
        // Reap the finished firings (their entries left `in_flight` as they ended).
        while firing.try_join_next().is_some() {}
        if firing.len() >= MAX_IN_FLIGHT {
            return;
        }
        in_flight.next_poll();
        let until = service_kit::time::now_ms() + LOOKAHEAD_MS;
        for d in self.due(until).await {
            if firing.len() >= MAX_IN_FLIGHT {
                break;
            }
            // A deadline stays armed until its firing has been answered, so later polls
            // see it again meanwhile: one firing per armed deadline at a time.
            let Some(entry) = in_flight.enter((d.match_id, d.fence_version)) else { continue };
            let this = self.clone();
            firing.spawn(async move {
                let _entry = entry;
                until_due(d.due_ms).await;
                this.fire_and_record(d).await;
            });
        }
    }

    /// Fires `d` through its match's engine and counts the answer.
    async fn fire_and_record(&self, d: Deadline) {
        let result = match self.game_of(d).await {
            Ok(game) => fire(&self.engines, game, self.store.clone(), d).await,
            Err(e) => Err(e),
        };
        match result {
            Ok(Fired::Applied) => {
                self.stats.fired.fetch_add(1, Ordering::Relaxed);
                service_kit::metrics::add("colosseum_clock_fired_total", 1);
                let lag_ms = service_kit::time::now_ms().saturating_sub(d.due_ms);
                service_kit::metrics::observe(LAG_SECONDS, &[], lag_ms as f64 / 1000.0);
                self.stats.applied(Firing { match_id: d.match_id, due_ms: d.due_ms, lag_ms });
                tracing::info!(match_id = %d.match_id, fence = d.fence_version, late_ms = lag_ms, "deadline fired");
            }
            Ok(Fired::Stale) => {
                self.stats.stale.fetch_add(1, Ordering::Relaxed);
                service_kit::metrics::add("colosseum_clock_stale_total", 1);
            }
            Err(e) => {
                self.stats.failed.fetch_add(1, Ordering::Relaxed);
                service_kit::metrics::add("colosseum_clock_failed_total", 1);
                tracing::warn!(match_id = %d.match_id, error = %e, "deadline not fired yet; will retry");
            }
        }
    }

    /// The game of `d`'s match: `None` only when the match does not exist. A store that
    /// cannot be read is an error retried at the next poll, as is no engine for the game
    /// (all its replicas down, or a clock configured without its family during a deploy),
    /// which [`fire`] meets: either passes, and a deadline dropped for it would never fire.
    async fn game_of(&self, d: Deadline) -> Result<Option<String>, ClockError> {
        let meta = self.store.meta(d.match_id).await.map_err(ClockError::Store)?;
        Ok(meta.map(|m| m.game))
    }

    /// Has the store repair its deadline index; returns how many entries it restored.
    pub async fn repair_index(&self) -> usize {
        match self.store.repair_deadline_index().await {
            Ok(repaired) => {
                service_kit::metrics::add("colosseum_clock_index_repaired_total", repaired as i64);
                tracing::info!(repaired, "deadline index repaired");
                repaired
            }
            Err(e) => {
                tracing::warn!(error = %e, "cannot repair the deadline index; will retry");
                0
            }
        }
    }

    /// Polls until `shutdown`, repairing the deadline index beside it (its own loop, so a
    /// long scan never holds up a firing).
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        service_kit::metrics::describe(METRICS);
        let poll = async {
            let mut tick = tokio::time::interval(Duration::from_millis(POLL_MS));
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            // Aborted at shutdown, and waited for, so that nothing fires after the clock
            // has stopped (their deadlines stay armed for the next clock).
            let mut firing = tokio::task::JoinSet::new();
            let in_flight = InFlight::default();
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => {
                        firing.shutdown().await;
                        return;
                    }
                    _ = tick.tick() => self.poll(&mut firing, &in_flight).await,
                }
            }
        };
        let repair = async {
            // The first tick is immediate: a repair at start.
            let mut tick = tokio::time::interval(REPAIR_EVERY);
            tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                // Shutdown waits neither for the next tick nor for a scan of a large store.
                let round = async {
                    tick.tick().await;
                    self.repair_index().await
                };
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = round => {}
                }
            }
        };
        tokio::join!(poll, repair);
    }
}

enum Fired {
    Applied,
    Stale,
}

/// The deadlines (match, fence) with a firing in flight, shared with the firings: each
/// leaves as its firing ends, however it ends (answered, failed, aborted at shutdown).
#[derive(Default, Clone)]
struct InFlight(Arc<Mutex<Firings>>);

/// What [`InFlight`] holds.
#[derive(Default)]
struct Firings {
    /// The firings under way.
    running: BTreeSet<(MatchId, u64)>,
    /// The firings that ended during the current poll, which its read may still have
    /// found armed (read before the step cleared it): skipped by this poll, forgotten at
    /// the next (its read starts after they ended, and finds only what is still armed).
    ended: BTreeSet<(MatchId, u64)>,
}

impl InFlight {
    /// Begins a poll: the firings that ended before it are forgotten.
    fn next_poll(&self) {
        self.0.lock().expect("the in-flight lock").ended.clear();
    }

    /// Enters `key`, unless it is in flight already or ended during this poll.
    fn enter(&self, key: (MatchId, u64)) -> Option<InFlightEntry> {
        let mut f = self.0.lock().expect("the in-flight lock");
        let fresh = !f.ended.contains(&key) && f.running.insert(key);
        fresh.then(|| InFlightEntry { set: self.clone(), key })
    }
}

/// One deadline's place in [`InFlight`], given up when dropped.
struct InFlightEntry {
    set: InFlight,
    key: (MatchId, u64),
}

impl Drop for InFlightEntry {
    fn drop(&mut self) {
        let mut f = self.set.0.lock().expect("the in-flight lock");
        f.running.remove(&self.key);
        f.ended.insert(self.key);
    }
}

/// Waits until the wall clock reads `due_ms` (never earlier: a deadline fired before it
/// is due would end a match its player could still move in).
async fn until_due(due_ms: u64) {
    loop {
        let now = service_kit::time::now_ms();
        if now >= due_ms {
            return;
        }
        tokio::time::sleep(Duration::from_millis(due_ms - now)).await;
    }
}

/// Why a deadline did not fire this time (logged; the next poll tries again).
#[derive(Debug)]
pub enum ClockError {
    /// No such match: the deadline is dropped, it can never fire.
    NoMatch,
    /// The store could not be read.
    Store(store::StoreError),
    /// The engine answered with no outcome.
    NoOutcome,
    /// The engine could not be reached, or refused.
    Engine(CallError),
}

impl std::fmt::Display for ClockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClockError::NoMatch => f.write_str("no such match"),
            ClockError::Store(e) => write!(f, "the store: {e}"),
            ClockError::NoOutcome => f.write_str("the engine gave no outcome"),
            ClockError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ClockError {}

/// Fires deadline `d` of a match of `game` (none: no such match) over the engines' link.
async fn fire(
    engines: &Engines,
    game: Option<String>,
    store: Arc<dyn EventStore>,
    d: Deadline,
) -> Result<Fired, ClockError> {
    let Some(game) = game else {
        // No such match: drop the deadline, it can never fire.
        let _ = store.clear_deadline_if(d.match_id, d.fence_version).await;
        return Err(ClockError::NoMatch);
    };
    let step = internal::ApplyStepRequest {
        match_id: d.match_id.to_string(),
        step: Some(apply_step_request::Step::Deadline(internal::Deadline {
            fence_version: d.fence_version,
        })),
        idempotency_key: format!("deadline:{}", d.fence_version),
    };
    // No trace to join: the engine starts one of its own for the deadline.
    let resp = engines.apply_step(&game, d.match_id, step, None).await;
    match resp.map(|r| r.outcome) {
        Ok(Some(apply_step_response::Outcome::Applied(_))) => Ok(Fired::Applied),
        Ok(Some(
            apply_step_response::Outcome::Stale(_) | apply_step_response::Outcome::Duplicate(_),
        )) => {
            // The match moved on: this deadline is spent. Remove it unless it was re-armed.
            let _ = store.clear_deadline_if(d.match_id, d.fence_version).await;
            Ok(Fired::Stale)
        }
        Ok(None) => Err(ClockError::NoOutcome),
        Err(e) if tonic::Status::from(e.clone()).code() == tonic::Code::FailedPrecondition => {
            // The match is over (game_over): nothing left to fire.
            let _ = store.clear_deadline_if(d.match_id, d.fence_version).await;
            Ok(Fired::Stale)
        }
        Err(e) => Err(ClockError::Engine(e)),
    }
}

/// Serves health (`colosseum.clock` SERVING while it runs) and reflection for the clock
/// on `listener` until `shutdown`, through the house harness (it serves no API).
///
/// # Errors
/// The server failed.
pub async fn serve_health(
    listener: tokio::net::TcpListener,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    let services =
        service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET).health_name("colosseum.clock");
    let no_guard = tower::layer::util::Identity::new();
    service_kit::serve::serve(no_guard, services, listener, shutdown).await
}
