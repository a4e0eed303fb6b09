//! The engine: hot matches cached in memory, every other match rebuilt from its stream on
//! first use; one step at a time per match; each accepted step appended to the stream
//! with an explicit id (its version) together with the next deadline, in one round trip.
//!
//! The stream is the truth and the cache only a copy of it, kept honest three ways:
//! - a step runs to its end in a task of its own, so a caller that goes away (a client
//!   deadline, a disconnect) cannot stop it between applying a move and storing it;
//! - a slot is marked dirty while its state is ahead of the stream, and a dirty slot is
//!   rebuilt before anyone reads it (a panic or a failed append leaves it dirty);
//! - every answer but "applied" (a refusal, a duplicate, a stale deadline, a view) is
//!   checked against the stream's head first, so a replica behind another never refuses a
//!   legal move, and one whose store lost its last writes rebuilds.
//!
//! # Layout
//! - this file: the engine and its requests (create, join, step, view, record);
//! - [`cache`]: the matches in memory, and their rebuild from the stream;
//! - [`step`]: one step, applied and appended, with its retries and the deadline it leaves;
//! - [`stored_step`]: a stored step read back (the seat that moved, whose answer it is);
//! - [`time`]: the time account behind each deadline;
//! - [`views`]: what each viewer sees, as GetView answers it and as stored with a step.

mod cache;
mod step;
mod stored_step;
mod time;
mod views;

pub use cache::SNAPSHOT_EVERY;
pub use step::{Answer, StepResult};

use crate::error::EngineError;
use cache::{Hot, Slot};
use games::host::{self, Encoded};
use games::{Family, Record};
use rules_core::{Seat, Seed, Viewer};
use service_kit::time::now_ms;
use std::future::Future;
use std::sync::{Arc, Mutex};
use store::{Entry, HostStore, MatchId, MatchMeta, MatchSecret, SeatHolder, ViewerVersions};
use time::TimeAccount;
use views::{stored_views, view_response};

/// The most matches an engine holds in memory unless told otherwise
/// (`ENGINE_MAX_HOT_MATCHES`). A hot match's heap grows with its steps: 1.3 KB new, 8 KB
/// for GOPS and 23 KB for Cure & Plague after 12 moves (docs/benchmarks.md, "A million
/// idle matches"), so a full cache of the heaviest family stays near 0.5 GB, inside the
/// chart's 1 GiB limit per replica.
pub const DEFAULT_MAX_HOT_MATCHES: usize = 20_000;

/// The rules engine of one or more families.
pub struct Engine {
    store: Arc<dyn HostStore>,
    families: Vec<Family>,
    hot: Mutex<Hot>,
    /// Idle matches are evicted after this long, so memory follows live matches.
    idle_ms: u64,
    /// At most this many matches are held (bar those in use at the moment): matches made
    /// or moved faster than the idle time lets go would otherwise all stay.
    max_hot: usize,
    /// A finished match's compacted record is kept this long (0: for ever).
    retention_ms: u64,
    /// Finished matches waiting for compaction, worked through a few at a time by one task
    /// (started with the first): a round of matches ending together would otherwise start
    /// a thousand compactions at once, beside the moves still in play.
    compactions: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<(MatchId, u64)>>,
    /// Where finished matches go once they leave the store: a record the store no longer
    /// holds is read there.
    archive: Option<Arc<dyn store::ArchiveStore>>,
    /// Fault injection for tests only (`COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS`): how long a
    /// finished match's announcement waits after its final step is stored, in ms (0: not
    /// at all), so a test can kill the engine between the two.
    announce_delay_ms: std::sync::atomic::AtomicU64,
}

/// How long a finished match's record is kept unless told otherwise
/// (`RECORD_RETENTION_DAYS`): 90 days.
pub const DEFAULT_RETENTION_MS: u64 = 90 * 24 * 3_600_000;

impl Engine {
    /// An engine for `families` (e.g. `[Family::Goofspiel]`) over `store`, holding at
    /// most [`DEFAULT_MAX_HOT_MATCHES`].
    pub fn new(store: Arc<dyn HostStore>, families: Vec<Family>, idle_ms: u64) -> Self {
        Engine {
            store,
            families,
            hot: Mutex::new(Hot::default()),
            idle_ms,
            max_hot: DEFAULT_MAX_HOT_MATCHES,
            retention_ms: DEFAULT_RETENTION_MS,
            compactions: std::sync::OnceLock::new(),
            archive: None,
            announce_delay_ms: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Fault injection, for tests only: from now on each finished match's announcement
    /// waits `ms` after its final step is stored (0: none), which holds the window
    /// between the two open for a test (or `colosseum chaos`) to kill the engine in.
    pub fn hold_announcements(&self, ms: u64) {
        self.announce_delay_ms.store(ms, std::sync::atomic::Ordering::Relaxed);
    }

    /// The same engine keeping each finished match's record for `ms` (0: for ever).
    #[must_use]
    pub fn with_record_retention_ms(mut self, ms: u64) -> Self {
        self.retention_ms = ms;
        self
    }

    /// The same engine reading the records of matches gone from the store in `archive`.
    #[must_use]
    pub fn with_archive(mut self, archive: Option<Arc<dyn store::ArchiveStore>>) -> Self {
        self.archive = archive;
        self
    }

    /// The same engine holding at most `max` matches in memory: past it, the least
    /// recently used one not in use is evicted (rebuilt from its stream on its next use).
    #[must_use]
    pub fn with_max_hot_matches(mut self, max: usize) -> Self {
        self.max_hot = max;
        self
    }

    /// The store (for readiness checks).
    pub fn store(&self) -> &Arc<dyn HostStore> {
        &self.store
    }

    /// How many matches are in memory.
    pub fn hot_matches(&self) -> usize {
        self.hot.lock().expect("the cache lock").len()
    }

    /// How long an unused match stays in memory.
    pub fn idle_ms(&self) -> u64 {
        self.idle_ms
    }

    fn check_family(&self, game: &str) -> Result<(), EngineError> {
        match games::registry::family_of(game) {
            Some(f) if self.families.contains(&f) => Ok(()),
            Some(f) => Err(EngineError::OtherFamily {
                game: game.to_string(),
                family: f,
                hosted: self.families.clone(),
            }),
            None => Err(EngineError::UnknownGame(game.to_string())),
        }
    }

    /// Creates a match: validates the options, draws the seed, writes meta and version 0
    /// and arms the first deadline (in a task of its own: both writes happen, or the
    /// caller hears of the failure). `listed`: whether it goes on its game's live list
    /// once both seats are held (`MatchMeta::listed`).
    ///
    /// # Errors
    /// Bad options (INVALID_ARGUMENT), a game of another family, the store.
    pub async fn create(
        self: &Arc<Self>,
        id: MatchId,
        game: &str,
        options_json: &str,
        seats: [SeatHolder; 2],
        move_time_ms: u64,
        listed: bool,
    ) -> Result<String, EngineError> {
        let _timer = service_kit::metrics::Timer::start(
            crate::metrics::APPLY_SECONDS,
            &[("step", "create")],
        );
        self.check_family(game)?;
        // A game whose rules fix the time per move takes no other (docs/rules.md); the
        // host's policies are the callers' (`games::time::accept`): internal callers and
        // tests may time a match as they need.
        let options: serde_json::Value =
            serde_json::from_str(options_json).unwrap_or(serde_json::Value::Null);
        games::time::check_rules(game, &options, move_time_ms)
            .map_err(|e| EngineError::BadOptions(e.to_string()))?;
        let seed = Seed::from_array(service_kit::time::os_random_32());
        let game_host = host::start_text(game, options_json, seed)?;
        let commitment = game_host.commitment().to_hex();
        let now = now_ms();
        let meta = MatchMeta {
            game: game.to_string(),
            options_json: if options_json.trim().is_empty() {
                "{}".into()
            } else {
                options_json.to_string()
            },
            commitment_hex: commitment.clone(),
            seats: rules_core::PerSeat(seats),
            move_time_ms,
            created_at_ms: now,
            listed,
        };
        let secret = MatchSecret { seed_hex: seed.to_hex() };
        let due = meta.all_seated().then(|| {
            let windows = game_host.windows(move_time_ms);
            TimeAccount::default().due(
                &windows,
                now,
                game_host.reserve_allowance_ms(),
                move_time_ms,
            )
        });
        let opening = Entry {
            version: 0,
            step_json: "{\"created\":true}".into(),
            idempotency_key: None,
            events: game_host.opening().into_iter().map(stored).collect(),
            views: stored_views(&*game_host, &meta, ViewerVersions::default(), due),
            traceparent: None,
            at_ms: now,
            tag: entry_tag(),
        };
        let store = self.store.clone();
        let game = game.to_string();
        detached(async move {
            store.create_match(id, &meta, &secret, &opening, due).await?;
            tracing::info!(match_id = %id, game, "match created");
            Ok(())
        })
        .await?;
        Ok(commitment)
    }

    /// A player takes a seat; once both seats are held the clock starts.
    ///
    /// # Errors
    /// No such match, no seat for this player, the store.
    pub async fn join(
        self: &Arc<Self>,
        id: MatchId,
        player: store::PlayerId,
    ) -> Result<Seat, EngineError> {
        let this = self.clone();
        detached(async move { this.join_now(id, player).await }).await
    }

    /// Takes a seat for `player` under the match's lock, so no step of this replica (a
    /// resignation ending the match) falls between the check that the match is not over
    /// and the claim. A step through another replica is fenced in the store: the claim
    /// refuses a match whose final step is stored, and a final step decided before the
    /// claim is refused as a conflict and decided again with the new holder
    /// ([`store::HostStore::append_final`]).
    async fn join_now(&self, id: MatchId, player: store::PlayerId) -> Result<Seat, EngineError> {
        let slot = self.slot_ref(id);
        let mut guard = slot.lock().await;
        let meta = self.meta(id).await?;
        // A finished match seats no one new (a seated player's retry still gets its seat).
        let seated = Seat::BOTH
            .iter()
            .any(|&s| matches!(&meta.seats[s], SeatHolder::Player(p) if *p == player));
        if !seated && self.current(id, &mut guard).await?.host.outcome().is_some() {
            return Err(EngineError::MatchOver);
        }
        let mine = |seat: Seat| matches!(&meta.seats[seat], SeatHolder::Player(p) | SeatHolder::Reserved(p) if *p == player);
        let candidates = match Seat::BOTH.into_iter().find(|&s| mine(s)) {
            Some(seat) => vec![seat],
            None => Seat::BOTH.into_iter().filter(|&s| meta.seats[s] == SeatHolder::Open).collect(),
        };
        for seat in candidates {
            match self.store.claim_seat(id, seat, player).await? {
                store::ClaimOutcome::Claimed | store::ClaimOutcome::AlreadyYours => {
                    self.after_join(id, &mut guard).await?;
                    return Ok(seat);
                }
                store::ClaimOutcome::Taken | store::ClaimOutcome::ReservedForOther
                    if mine(seat) =>
                {
                    return Err(EngineError::SeatTaken);
                }
                store::ClaimOutcome::Taken | store::ClaimOutcome::ReservedForOther => {}
                store::ClaimOutcome::MatchOver => return Err(EngineError::MatchOver),
            }
        }
        Err(EngineError::NoOpenSeat)
    }

    /// Once both seats are held, arms the deadline of whoever owes a move, if none is
    /// armed: at version 0, or later if a seat moved before its opponent joined (else
    /// the joiner could stall the match forever).
    async fn after_join(&self, id: MatchId, guard: &mut Option<Slot>) -> Result<(), EngineError> {
        let s = self.current(id, guard).await?;
        s.meta = self.meta(id).await?;
        if !s.meta.all_seated() || s.host.outcome().is_some() {
            return Ok(());
        }
        if self.armed(id, s.version).await?.is_some() {
            return Ok(());
        }
        let now = now_ms();
        let windows = s.host.windows(s.meta.move_time_ms);
        let mut clock = s.clock;
        clock.window_start_ms = now;
        let due = clock.due(&windows, now, s.host.reserve_allowance_ms(), s.meta.move_time_ms);
        self.store.set_deadline(id, due, s.version).await?;
        s.clock = clock;
        s.due_ms = Some(due);
        Ok(())
    }

    /// The match's metadata.
    ///
    /// # Errors
    /// NOT_FOUND, the store.
    pub async fn meta(&self, id: MatchId) -> Result<MatchMeta, EngineError> {
        self.store.meta(id).await?.ok_or(EngineError::NoSuchMatch(id))
    }

    /// What `viewer` sees, with the match's version, seats and deadline: at the stream's
    /// head, whichever replica moved it there.
    ///
    /// # Errors
    /// NOT_FOUND, the store.
    pub async fn view(
        &self,
        id: MatchId,
        viewer: Viewer,
    ) -> Result<api::v1::GetViewResponse, EngineError> {
        let slot = self.slot_ref(id);
        let mut guard = slot.lock().await;
        let s = self.current(id, &mut guard).await?;
        let mut view = view_response(&*s.host, &s.meta, s.seen, s.due_ms, viewer, true);
        view.deadline_in_ms = view.deadline_at_ms.map(service_kit::time::ms_until);
        Ok(view)
    }

    /// A finished match's record: from the store, or from the archive once the store has
    /// let it go.
    ///
    /// # Errors
    /// FAILED_PRECONDITION while the match runs (the record would reveal hidden cards).
    pub async fn record(&self, id: MatchId) -> Result<String, EngineError> {
        let slot = self.slot_ref(id);
        let mut guard = slot.lock().await;
        let s = match self.current(id, &mut guard).await {
            Err(EngineError::NoSuchMatch(_)) if self.archive.is_some() => {
                // Gone from the store: archived, and released after its window.
                let archive = self.archive.as_ref().expect("checked");
                return archive.record(id).await?.ok_or(EngineError::NoSuchMatch(id));
            }
            s => s?,
        };
        if s.host.outcome().is_none() {
            return Err(EngineError::StillRunning);
        }
        Ok(serde_json::to_string(&Record::of(&*s.host)).unwrap_or_default())
    }
}

/// Runs `work` to its end in a task of its own and waits for it. A caller dropped at the
/// await (a client deadline, a disconnect) no longer stops the work halfway; a panic in it
/// is answered INTERNAL (the slot it held stays dirty, so it is rebuilt).
async fn detached<T: Send + 'static>(
    work: impl Future<Output = Result<T, EngineError>> + Send + 'static,
) -> Result<T, EngineError> {
    match tokio::spawn(work).await {
        Ok(result) => result,
        Err(e) => {
            service_kit::metrics::add("colosseum_engine_panics_total", 1);
            Err(EngineError::StepTaskFailed(e.to_string()))
        }
    }
}

/// A fresh random tag for an entry (never 0, which means "written before tags").
fn entry_tag() -> u64 {
    uuid::Uuid::new_v4().as_u64_pair().0 | 1
}

/// An event of the host as the store keeps it.
fn stored(e: Encoded) -> store::StoredEvent {
    store::StoredEvent { audience: e.audience, payload: e.payload }
}
