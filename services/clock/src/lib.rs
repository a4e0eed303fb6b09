//! The clock service. Deadlines live in the event store (a Redis sorted set by due time,
//! armed by the rules engine in the same round trip as each step). The clock polls for
//! what is due and asks the match's rules engine to apply the deadline step, fenced by
//! the version the deadline was armed at: a duplicate or late firing changes nothing.
//! There are no timers in memory to lose: each poll is also the sweep, so a deadline that
//! fell due while the clock was down fires as soon as it is back. At start and every
//! minute the clock also has the store repair its deadline index, so a deadline whose
//! index entry was lost (a crash between its two writes) still fires.

use api::internal::{self, apply_step_request, apply_step_response};
use engines::{CallError, EngineClient, EngineUrls, Engines};
use events::{Deadline, EventStore};
use service_kit::config::BadUrl;
use service_kit::internal::InternalToken;
use service_kit::metrics::{Desc, Kind, LAG_BUCKETS};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
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

/// How often the clock has the store repair its deadline index (and once at start).
pub const REPAIR_EVERY: Duration = Duration::from_secs(60);

/// What the clock has done, for metrics and tests.
#[derive(Default, Debug)]
pub struct ClockStats {
    /// Deadline steps applied.
    pub fired: AtomicU64,
    /// Deadlines found stale (the match had moved on).
    pub stale: AtomicU64,
    /// Firings that failed (engine down): retried on later polls.
    pub failed: AtomicU64,
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
    /// A clock over `store`, firing through the engines of `(family, urls)`, each call
    /// carrying `token`.
    ///
    /// # Errors
    /// A URL that does not parse (named, truncated).
    pub fn new(
        store: Arc<dyn EventStore>,
        urls: &[EngineUrls],
        token: Option<&InternalToken>,
    ) -> Result<Arc<Self>, BadUrl> {
        let engines = Engines::new(urls, token)?;
        Ok(Arc::new(Clock { store, engines, stats: ClockStats::default() }))
    }

    /// Fires what is due now; returns how many deadlines were handled.
    pub async fn tick(&self, now_ms: u64) -> usize {
        let due = match self.store.due_deadlines(now_ms, 256).await {
            Ok(d) => d,
            Err(e) => {
                tracing::warn!(error = %e, "cannot read deadlines");
                return 0;
            }
        };
        let n = due.len();
        // Each firing is independent: run them side by side.
        let mut tasks = tokio::task::JoinSet::new();
        for d in due {
            let this = self.engine_for(d).await;
            let store = self.store.clone();
            tasks.spawn(async move { (d, fire(this, store, d).await) });
        }
        while let Some(Ok((d, result))) = tasks.join_next().await {
            match result {
                Ok(Fired::Applied) => {
                    self.stats.fired.fetch_add(1, Ordering::Relaxed);
                    service_kit::metrics::add("colosseum_clock_fired_total", 1);
                    let lag_ms = service_kit::time::now_ms().saturating_sub(d.due_ms);
                    service_kit::metrics::observe(LAG_SECONDS, &[], lag_ms as f64 / 1000.0);
                    tracing::info!(match_id = %d.match_id, fence = d.fence_version, late_ms = now_ms.saturating_sub(d.due_ms), "deadline fired");
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
        n
    }

    async fn engine_for(&self, d: Deadline) -> Option<EngineClient> {
        let meta = self.store.meta(d.match_id).await.ok().flatten()?;
        // The replica the gateway sends this match to (it holds the match in memory), or
        // the next while that one is down.
        self.engines.for_match(&meta.game, d.match_id).ok()
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
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = tick.tick() => { self.tick(service_kit::time::now_ms()).await; }
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

/// Why a deadline did not fire this time (logged; the next poll tries again).
#[derive(Debug)]
pub enum ClockError {
    /// No such match, or no engine for its game: the deadline is dropped, it can never
    /// fire.
    NoEngine,
    /// The engine answered with no outcome.
    NoOutcome,
    /// The engine could not be reached, or refused.
    Engine(CallError),
}

impl std::fmt::Display for ClockError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ClockError::NoEngine => f.write_str("no engine hosts this match's game"),
            ClockError::NoOutcome => f.write_str("the engine gave no outcome"),
            ClockError::Engine(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ClockError {}

async fn fire(
    engine: Option<EngineClient>,
    store: Arc<dyn EventStore>,
    d: Deadline,
) -> Result<Fired, ClockError> {
    let Some(mut engine) = engine else {
        // No such match or no engine for its family: drop the deadline, it can never fire.
        let _ = store.clear_deadline_if(d.match_id, d.fence_version).await;
        return Err(ClockError::NoEngine);
    };
    let resp = engine
        .apply_step(internal::ApplyStepRequest {
            match_id: d.match_id.to_string(),
            step: Some(apply_step_request::Step::Deadline(internal::Deadline {
                fence_version: d.fence_version,
            })),
            idempotency_key: format!("deadline:{}", d.fence_version),
            traceparent: String::new(),
        })
        .await;
    match resp.map(|r| r.into_inner().outcome) {
        Ok(Some(apply_step_response::Outcome::Applied(_))) => Ok(Fired::Applied),
        Ok(Some(
            apply_step_response::Outcome::Stale(_) | apply_step_response::Outcome::Duplicate(_),
        )) => {
            // The match moved on: this deadline is spent. Remove it unless it was re-armed.
            let _ = store.clear_deadline_if(d.match_id, d.fence_version).await;
            Ok(Fired::Stale)
        }
        Ok(None) => Err(ClockError::NoOutcome),
        Err(s) if s.code() == tonic::Code::FailedPrecondition => {
            // The match is over (game_over): nothing left to fire.
            let _ = store.clear_deadline_if(d.match_id, d.fence_version).await;
            Ok(Fired::Stale)
        }
        Err(s) => Err(ClockError::Engine(s.into())),
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
