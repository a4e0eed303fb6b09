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

use crate::error::EngineError;
use events::{
    AppendOutcome, DeadlineChange, Entry, EventStore, MatchId, MatchMeta, MatchSecret, SeatHolder,
    VIEWERS, ViewerVersions,
};
use fields::holder_name;
use games::host::{self, Encoded, Host, StepIn};
use games::{Family, Record};
use rules_core::{Audience, Seat, SeatSet, Seed, Viewer};
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};

/// One cached match.
struct Slot {
    hosted: Box<dyn Host>,
    meta: MatchMeta,
    /// The seed, published in the outcome once the match ends.
    secret: MatchSecret,
    version: u64,
    /// The tag of the entry at `version`: what tells this copy from a reissued version.
    tag: u64,
    /// Each viewer's numbering of `version` (the public API's versions).
    seen: ViewerVersions,
    /// Idempotency keys seen, to answer a retry without touching the state: the version
    /// the key's step made, and that version as the stepping seat numbers it.
    keys: BTreeMap<String, (u64, u64)>,
    /// The armed deadline, when this replica knows it.
    due_ms: Option<u64>,
    /// Every step so far (the stream's `step` fields), for snapshots.
    steps: Vec<String>,
    /// The time account behind the deadlines.
    clock: TimeAccount,
    last_used_ms: u64,
    /// Set while `hosted` holds a step the stream may not have: whoever finds it set
    /// rebuilds the slot from the stream instead of trusting it.
    dirty: bool,
}

impl Slot {
    /// Takes in the next stored entry (while rebuilding or catching up): replays its step
    /// through the rules and keeps the same time account the live replica kept.
    fn absorb(&mut self, e: Entry) -> Result<(), EngineError> {
        let before = self.hosted.to_move();
        let windows = self.hosted.windows(self.meta.move_time_ms);
        self.hosted.replay(&e.step_json)?;
        let moving = moving_seat(&e.step_json);
        if let Some(seat) = moving {
            self.clock.charge(&windows, seat, e.at_ms, self.hosted.reserve_allowance_ms());
        }
        if !keeps_window(before, self.hosted.to_move(), moving) {
            self.clock.window_start_ms = e.at_ms;
        }
        self.version = e.version;
        self.tag = e.tag;
        self.seen = self.seen.after(&e);
        if let Some(k) = e.idempotency_key {
            self.keys.insert(k, (e.version, self.seen.of(actor(&e.step_json))));
        }
        self.steps.push(e.step_json);
        Ok(())
    }
}

type SlotRef = Arc<tokio::sync::Mutex<Option<Slot>>>;

/// Every this many versions the engine stores a snapshot of the match's steps, so a
/// replica rebuilding it reads one key and the entries after it, not the whole stream
/// with every event.
pub const SNAPSHOT_EVERY: u64 = 32;

/// How many times a step is tried against a fresher copy of its match (another replica
/// moved it on, or the clock's deadline went first) before the caller is told to retry.
const TRIES: usize = 4;

/// A snapshot: the steps up to its version and the idempotency keys seen.
#[derive(serde::Serialize, serde::Deserialize)]
struct Snapshot {
    steps: Vec<String>,
    keys: BTreeMap<String, u64>,
    /// Each viewer's numbering at the snapshot, and each key's version as its seat
    /// numbers it (absent in older snapshots, which are then not used).
    #[serde(default)]
    seen: Option<ViewerVersions>,
    #[serde(default)]
    key_versions: BTreeMap<String, u64>,
    /// The time account at the snapshot (the steps carry no timestamps).
    #[serde(default)]
    clock: TimeAccount,
    /// The tag of the entry at the snapshot's version (0 in older snapshots): a snapshot
    /// of a version the stream has since reissued is ignored.
    #[serde(default)]
    tag: u64,
}

/// A step's answer: what it did, and the match's version after it as the stepping seat
/// numbers it (the spectators' numbering for a deadline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Answer {
    /// What it did, in the stream's versions.
    pub result: StepResult,
    /// The version in the public API's numbering for the seat that stepped.
    pub seat_version: u64,
}

/// What a step did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepResult {
    /// Applied; the match is at this version.
    Applied(u64),
    /// Seen before at this version; nothing changed.
    Duplicate(u64),
    /// A deadline whose fence is older than the match: nothing changed.
    Stale(u64),
}

/// What one attempt to store a step came to.
enum Commit {
    Applied(u64),
    /// The rules refused it; the state is unchanged.
    Refused(EngineError),
    /// The store knew the key already: the slot is behind.
    Duplicate,
    /// The stream is not where the slot thought: the slot is behind or ahead.
    Conflict,
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

/// The rules engine of one or more families.
pub struct Engine {
    store: Arc<dyn EventStore>,
    families: Vec<Family>,
    hot: Mutex<BTreeMap<MatchId, SlotRef>>,
    /// Idle matches are evicted after this long, so memory follows live matches.
    idle_ms: u64,
}

impl Engine {
    /// An engine for `families` (e.g. `[Family::Goofspiel]`) over `store`.
    pub fn new(store: Arc<dyn EventStore>, families: Vec<Family>, idle_ms: u64) -> Self {
        Engine { store, families, hot: Mutex::new(BTreeMap::new()), idle_ms }
    }

    /// The store (for readiness checks).
    pub fn store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// How many matches are in memory.
    pub fn hot_matches(&self) -> usize {
        self.hot.lock().expect("the cache lock").len()
    }

    fn check_family(&self, game: &str) -> Result<(), EngineError> {
        match games::registry::family_of(game) {
            Some(f) if self.families.contains(&f) => Ok(()),
            Some(f) => Err(EngineError::OtherFamily {
                game: game.to_string(),
                family: f.to_string(),
                hosted: self.families.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", "),
            }),
            None => Err(EngineError::UnknownGame(game.to_string())),
        }
    }

    /// Creates a match: validates the options, draws the seed, writes meta and version 0
    /// and arms the first deadline (in a task of its own: both writes happen, or the
    /// caller hears of the failure).
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
    ) -> Result<String, EngineError> {
        self.check_family(game)?;
        // A game whose rules fix the time per move takes no other (docs/rules.md).
        let options: serde_json::Value =
            serde_json::from_str(options_json).unwrap_or(serde_json::Value::Null);
        games::registry::check_move_time(game, &options, move_time_ms)
            .map_err(EngineError::BadOptions)?;
        let seed = Seed::from_array(service_kit::time::os_random_32());
        let hosted = host::start_text(game, options_json, seed)?;
        let commitment = hosted.commitment().to_hex();
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
        };
        let secret = MatchSecret { seed_hex: seed.to_hex() };
        let due = meta.all_seated().then(|| {
            let windows = hosted.windows(move_time_ms);
            TimeAccount::default().due(&windows, now, hosted.reserve_allowance_ms(), move_time_ms)
        });
        let opening = Entry {
            version: 0,
            step_json: "{\"created\":true}".into(),
            idempotency_key: None,
            events: hosted.opening().into_iter().map(stored).collect(),
            views: stored_views(&*hosted, &meta, &secret, ViewerVersions::default(), due),
            traceparent: None,
            at_ms: now,
            tag: entry_tag(),
        };
        let store = self.store.clone();
        let game = game.to_string();
        detached(async move {
            store.create_match(id, &meta, &secret, &opening).await?;
            if let Some(due) = due {
                store.set_deadline(id, due, 0).await?;
            }
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
        player: events::PlayerId,
    ) -> Result<Seat, EngineError> {
        let this = self.clone();
        detached(async move { this.join_now(id, player).await }).await
    }

    /// Takes a seat for `player` under the match's lock, so no step of this replica (a
    /// resignation ending the match) falls between the check that the match is not over
    /// and the claim.
    async fn join_now(&self, id: MatchId, player: events::PlayerId) -> Result<Seat, EngineError> {
        let slot = self.slot_ref(id);
        let mut guard = slot.lock().await;
        let meta = self.meta(id).await?;
        // A finished match seats no one new (a seated player's retry still gets its seat).
        let seated = Seat::BOTH
            .iter()
            .any(|&s| matches!(&meta.seats[s], SeatHolder::Player(p) if *p == player));
        if !seated && self.current(id, &mut guard).await?.hosted.outcome().is_some() {
            return Err(EngineError::MatchOver);
        }
        let mine = |seat: Seat| matches!(&meta.seats[seat], SeatHolder::Player(p) | SeatHolder::Reserved(p) if *p == player);
        let candidates = match Seat::BOTH.into_iter().find(|&s| mine(s)) {
            Some(seat) => vec![seat],
            None => Seat::BOTH.into_iter().filter(|&s| meta.seats[s] == SeatHolder::Open).collect(),
        };
        for seat in candidates {
            match self.store.claim_seat(id, seat, player).await? {
                events::ClaimOutcome::Claimed | events::ClaimOutcome::AlreadyYours => {
                    self.after_join(id, &mut guard).await?;
                    return Ok(seat);
                }
                events::ClaimOutcome::Taken | events::ClaimOutcome::ReservedForOther
                    if mine(seat) =>
                {
                    return Err(EngineError::SeatTaken);
                }
                events::ClaimOutcome::Taken | events::ClaimOutcome::ReservedForOther => {}
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
        if !s.meta.all_seated() || s.hosted.outcome().is_some() {
            return Ok(());
        }
        if self.armed(id, s.version).await?.is_some() {
            return Ok(());
        }
        let now = now_ms();
        let windows = s.hosted.windows(s.meta.move_time_ms);
        let mut clock = s.clock;
        clock.window_start_ms = now;
        let due = clock.due(&windows, now, s.hosted.reserve_allowance_ms(), s.meta.move_time_ms);
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

    /// The match's slot in the cache (created empty if absent).
    fn slot_ref(&self, id: MatchId) -> SlotRef {
        let slot = {
            let mut hot = self.hot.lock().expect("the cache lock");
            hot.entry(id).or_insert_with(|| Arc::new(tokio::sync::Mutex::new(None))).clone()
        };
        service_kit::metrics::set("colosseum_engine_hot_matches", self.hot_matches() as i64);
        slot
    }

    /// The slot's match, rebuilt from the stream if it is absent or dirty; and whether it
    /// was (a rebuilt slot is at the stream's head).
    async fn fresh<'g>(
        &self,
        id: MatchId,
        guard: &'g mut Option<Slot>,
    ) -> Result<(&'g mut Slot, bool), EngineError> {
        let rebuilt = match guard {
            Some(s) if !s.dirty => false,
            _ => {
                *guard = None;
                *guard = Some(self.rebuild(id).await?);
                true
            }
        };
        let s = guard.as_mut().expect("just filled");
        s.last_used_ms = now_ms();
        Ok((s, rebuilt))
    }

    /// Brings the slot to the stream's head: the entries after its version are absorbed
    /// if the stream still holds its version with the same tag; otherwise (the store lost
    /// its last writes and reissued them, or anything fails to replay) it is rebuilt.
    async fn sync(&self, id: MatchId, guard: &mut Option<Slot>) -> Result<(), EngineError> {
        let caught_up = match guard.as_mut().filter(|s| !s.dirty) {
            Some(s) => self.catch_up(id, s).await?,
            None => false,
        };
        if !caught_up {
            if guard.as_ref().is_some_and(|s| !s.dirty) {
                service_kit::metrics::add("colosseum_engine_reissued_total", 1);
                tracing::warn!(match_id = %id, "the stream no longer holds this replica's copy of the match; rebuilding");
            }
            *guard = None;
            *guard = Some(self.rebuild(id).await?);
        }
        Ok(())
    }

    /// Absorbs the entries after the slot's version; `false` if the stream no longer holds
    /// that version as the slot knows it (the slot is then unusable). The slot is dirty
    /// while this runs, so an error halfway leaves it to be rebuilt.
    async fn catch_up(&self, id: MatchId, s: &mut Slot) -> Result<bool, EngineError> {
        let before = s.version;
        let mut from = before;
        s.dirty = true;
        loop {
            let entries = self.store.read(id, from, 512).await?;
            let full = entries.len() == 512;
            let mut entries = entries.into_iter();
            if from == before {
                match entries.next() {
                    Some(e) if e.version == before && e.tag == s.tag => {}
                    _ => return Ok(false),
                }
            }
            for e in entries {
                if e.version != s.version + 1 || s.absorb(e).is_err() {
                    return Ok(false);
                }
            }
            if !full {
                break;
            }
            from = s.version + 1;
        }
        if s.version != before {
            service_kit::metrics::add("colosseum_engine_catch_ups_total", 1);
            if !s.meta.all_seated() {
                s.meta = self.meta(id).await?;
            }
            s.due_ms = self.armed(id, s.version).await?;
        }
        s.dirty = false;
        Ok(true)
    }

    async fn rebuild(&self, id: MatchId) -> Result<Slot, EngineError> {
        let meta = self.meta(id).await?;
        self.check_family(&meta.game)?;
        let secret = self
            .store
            .match_secret(id)
            .await?
            .ok_or_else(|| EngineError::Corrupt(format!("match {id} has no stored seed")))?;
        let seed = Seed::parse(&secret.seed_hex)
            .map_err(|e| EngineError::Corrupt(format!("stored seed: {e}")))?;
        let hosted = host::start_text(&meta.game, &meta.options_json, seed)?;
        let clock = TimeAccount { window_start_ms: meta.created_at_ms, reserve_used_ms: [0; 2] };
        let mut slot = Slot {
            hosted,
            meta,
            secret,
            version: 0,
            tag: 0,
            seen: ViewerVersions::default(),
            keys: BTreeMap::new(),
            due_ms: None,
            steps: Vec::new(),
            clock,
            last_used_ms: now_ms(),
            dirty: false,
        };
        let mut from = 0;
        if let Some((v, bytes)) = self.store.snapshot(id).await? {
            let snap: Snapshot = serde_json::from_slice(&bytes)
                .map_err(|e| EngineError::Corrupt(format!("snapshot: {e}")))?;
            if snap.steps.len() as u64 != v {
                return Err(EngineError::Corrupt(format!(
                    "snapshot at {v} holds {} steps",
                    snap.steps.len()
                )));
            }
            // Only a snapshot of a version the stream still holds, unchanged, is used.
            let at = self.store.read(id, v, 1).await?;
            let held =
                at.first().is_some_and(|e| e.version == v && (snap.tag == 0 || e.tag == snap.tag));
            if let (true, Some(seen)) = (held, snap.seen) {
                for step in &snap.steps {
                    slot.hosted.replay(step)?;
                }
                slot.version = v;
                slot.tag = snap.tag;
                slot.seen = seen;
                slot.keys = snap
                    .keys
                    .into_iter()
                    .map(|(k, version)| {
                        let seat_version = snap.key_versions.get(&k).copied().unwrap_or(version);
                        (k, (version, seat_version))
                    })
                    .collect();
                slot.steps = snap.steps;
                slot.clock = snap.clock;
                from = v + 1;
            }
        }
        loop {
            let entries = self.store.read(id, from, 512).await?;
            let Some(last) = entries.last() else { break };
            from = last.version + 1;
            for e in entries {
                if e.version == 0 {
                    slot.tag = e.tag;
                    continue;
                }
                if e.version != slot.version + 1 {
                    return Err(EngineError::Corrupt(format!(
                        "the match's stream skips from version {} to {}",
                        slot.version, e.version
                    )));
                }
                slot.absorb(e)?;
            }
        }
        tracing::debug!(match_id = %id, version = slot.version, "match rebuilt from its stream");
        service_kit::metrics::add("colosseum_engine_rebuilds_total", 1);
        // The round's deadline as armed: a rebuilt replica keeps it rather than granting a
        // fresh window (only when it belongs to this version).
        slot.due_ms = self.armed(id, slot.version).await?;
        Ok(slot)
    }

    /// The match's armed deadline, if it belongs to `version` (one armed for an earlier
    /// version is spent: the clock will find it stale).
    async fn armed(&self, id: MatchId, version: u64) -> Result<Option<u64>, EngineError> {
        let armed = self.store.deadline(id).await?;
        Ok(armed.filter(|d| d.fence_version == version).map(|d| d.due_ms))
    }

    fn evict(&self, id: MatchId) {
        let mut hot = self.hot.lock().expect("the cache lock");
        hot.remove(&id);
        service_kit::metrics::set("colosseum_engine_hot_matches", hot.len() as i64);
    }

    /// Evicts matches idle for longer than the idle time; returns how many.
    pub async fn evict_idle(&self) -> usize {
        let now = now_ms();
        let slots: Vec<(MatchId, SlotRef)> =
            self.hot.lock().expect("the cache lock").iter().map(|(k, v)| (*k, v.clone())).collect();
        let mut n = 0;
        for (id, slot) in slots {
            let Ok(guard) = slot.try_lock() else { continue };
            let idle =
                guard.as_ref().is_none_or(|s| now.saturating_sub(s.last_used_ms) >= self.idle_ms);
            drop(guard);
            if idle {
                self.evict(id);
                n += 1;
            }
        }
        n
    }

    /// Applies a step. `fence` is set for deadline firings: the step applies only if the
    /// match is still at that version. A move or resignation arriving after the armed
    /// deadline has the deadline applied first, exactly as the clock would have. The step
    /// runs to its end even if the caller goes away.
    ///
    /// # Errors
    /// A refusal (the match is unchanged), NOT_FOUND, ABORTED when the match kept moving
    /// under the step (retry), the store.
    pub async fn step(
        self: &Arc<Self>,
        id: MatchId,
        step: StepIn,
        fence: Option<u64>,
        idempotency_key: Option<String>,
        traceparent: Option<String>,
    ) -> Result<Answer, EngineError> {
        let this = self.clone();
        detached(async move { this.step_now(id, step, fence, idempotency_key, traceparent).await })
            .await
    }

    async fn step_now(
        &self,
        id: MatchId,
        step: StepIn,
        fence: Option<u64>,
        key: Option<String>,
        traceparent: Option<String>,
    ) -> Result<Answer, EngineError> {
        // Whose numbering the answer's version is in.
        let viewer = match &step {
            StepIn::Move { seat, .. } | StepIn::Resign(seat) => Viewer::Seat(*seat),
            StepIn::Deadline => Viewer::Spectator,
        };
        let slot = self.slot_ref(id);
        let mut guard = slot.lock().await;
        // Whether the slot has been checked against the stream's head in this call: every
        // answer but "applied" needs it (an append checks the head by itself).
        let mut synced = false;
        for _ in 0..TRIES {
            let (s, rebuilt) = self.fresh(id, &mut guard).await?;
            synced |= rebuilt;
            if let Some(k) = &key
                && let Some(&(v, seat_version)) = s.keys.get(k)
            {
                if synced {
                    // The key names one move: another one under it is refused.
                    same_step(s, v, seat_version, &step)?;
                    return Ok(Answer { result: StepResult::Duplicate(v), seat_version });
                }
                self.sync(id, &mut guard).await?;
                synced = true;
                continue;
            }
            if let Some(f) = fence
                && f != s.version
            {
                if synced {
                    let seat_version = s.seen.of(viewer);
                    return Ok(Answer { result: StepResult::Stale(s.version), seat_version });
                }
                self.sync(id, &mut guard).await?;
                synced = true;
                continue;
            }
            let late = s.due_ms.is_some_and(|due| now_ms() >= due);
            if late && fence.is_none() && s.hosted.outcome().is_none() {
                // The deadline passed and the clock has not fired it (it may be down):
                // fire it here, with the clock's own key, so whichever comes second is a
                // duplicate.
                let deadline_key = format!("deadline:{}", s.version);
                match self.commit(id, s, StepIn::Deadline, Some(deadline_key), None).await? {
                    Commit::Applied(_) => {
                        service_kit::metrics::add("colosseum_engine_late_deadlines_total", 1);
                    }
                    Commit::Refused(e) => {
                        return Err(EngineError::DeadlineRefused(e.to_string()));
                    }
                    Commit::Duplicate | Commit::Conflict => *guard = None,
                }
                continue;
            }
            match self.commit(id, s, step.clone(), key.clone(), traceparent.clone()).await? {
                Commit::Applied(v) => {
                    let seat_version = s.seen.of(viewer);
                    return Ok(Answer { result: StepResult::Applied(v), seat_version });
                }
                Commit::Refused(e) if synced => {
                    service_kit::metrics::add("colosseum_engine_refusals_total", 1);
                    return Err(e);
                }
                Commit::Refused(_) => {
                    self.sync(id, &mut guard).await?;
                    synced = true;
                }
                // Another replica stored this key: the rebuilt copy knows it (and its
                // numbering), and answers it on the next round.
                Commit::Duplicate | Commit::Conflict => *guard = None,
            }
        }
        Err(EngineError::KeptMoving)
    }

    /// Applies `step` to the slot and appends it. The slot is dirty from the moment the
    /// rules apply the step until the append is known to have stored it, so any way out
    /// between the two (an error, a panic) leaves a slot that is rebuilt before use.
    async fn commit(
        &self,
        id: MatchId,
        s: &mut Slot,
        step: StepIn,
        key: Option<String>,
        traceparent: Option<String>,
    ) -> Result<Commit, EngineError> {
        if !s.meta.all_seated() {
            // A seat may have been taken through another replica since this copy was made.
            s.meta = self.meta(id).await?;
        }
        let moving = match &step {
            StepIn::Move { seat, .. } => Some(*seat),
            _ => None,
        };
        let before = s.hosted.to_move();
        let windows_before = s.hosted.windows(s.meta.move_time_ms);
        s.dirty = true;
        let applied = match s.hosted.step_proto(step) {
            Ok(a) => a,
            Err(e) => {
                // The rules refuse without changing anything.
                s.dirty = false;
                return Ok(Commit::Refused(e.into()));
            }
        };
        let version = s.version + 1;
        let now = now_ms();
        let keep = keeps_window(before, s.hosted.to_move(), moving);
        let mut account = s.clock;
        if let Some(seat) = moving {
            account.charge(&windows_before, seat, now, s.hosted.reserve_allowance_ms());
        }
        if !keep {
            account.window_start_ms = now;
        }
        let (change, due) = next_deadline(s, keep, &account, now);
        let step_json = applied.step_json;
        let tag = entry_tag();
        let mut entry = Entry {
            version,
            step_json: step_json.clone(),
            idempotency_key: key.clone(),
            events: applied.events.into_iter().map(stored).collect(),
            views: Vec::new(),
            traceparent,
            at_ms: now,
            tag,
        };
        let seen = s.seen.after(&entry);
        entry.views = stored_views(&*s.hosted, &s.meta, &s.secret, seen, due);
        match self.store.append(id, &entry, change).await? {
            AppendOutcome::Appended { .. } => {
                s.version = version;
                s.tag = tag;
                s.seen = seen;
                s.due_ms = due;
                s.clock = account;
                s.steps.push(step_json);
                s.dirty = false;
                service_kit::metrics::add("colosseum_engine_steps_total", 1);
                if let Some(k) = key {
                    s.keys.insert(k, (version, seen.of(actor(&entry.step_json))));
                }
                if version.is_multiple_of(SNAPSHOT_EVERY) {
                    let snap = Snapshot {
                        steps: s.steps.clone(),
                        keys: s.keys.iter().map(|(k, &(v, _))| (k.clone(), v)).collect(),
                        seen: Some(s.seen),
                        key_versions: s.keys.iter().map(|(k, &(_, sv))| (k.clone(), sv)).collect(),
                        clock: s.clock,
                        tag,
                    };
                    let store = self.store.clone();
                    // Off the move's path: a lost snapshot only makes a rebuild read more.
                    tokio::spawn(async move {
                        if let Ok(bytes) = serde_json::to_vec(&snap)
                            && let Err(e) = store.put_snapshot(id, version, &bytes).await
                        {
                            tracing::warn!(match_id = %id, error = %e, "snapshot not stored");
                        }
                    });
                }
                Ok(Commit::Applied(version))
            }
            AppendOutcome::Duplicate { .. } => Ok(Commit::Duplicate),
            AppendOutcome::Conflict { .. } => Ok(Commit::Conflict),
        }
    }

    /// The slot of `id` at the stream's head.
    async fn current<'g>(
        &self,
        id: MatchId,
        guard: &'g mut Option<Slot>,
    ) -> Result<&'g mut Slot, EngineError> {
        if !self.fresh(id, guard).await?.1 {
            self.sync(id, guard).await?;
        }
        Ok(guard.as_mut().expect("synced"))
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
        let mut view =
            view_response(&*s.hosted, &s.meta, &s.secret, s.seen, s.due_ms, viewer, true);
        view.deadline_in_ms = view.deadline_at_ms.map(service_kit::time::ms_until);
        Ok(view)
    }

    /// A finished match's record.
    ///
    /// # Errors
    /// FAILED_PRECONDITION while the match runs (the record would reveal hidden cards).
    pub async fn record(&self, id: MatchId) -> Result<String, EngineError> {
        let slot = self.slot_ref(id);
        let mut guard = slot.lock().await;
        let s = self.current(id, &mut guard).await?;
        if s.hosted.outcome().is_none() {
            return Err(EngineError::StillRunning);
        }
        Ok(serde_json::to_string(&Record::of(&*s.hosted)).unwrap_or_default())
    }
}

/// When the current move window opened, and how much of its reserve each seat has used.
/// Kept from the stream's timestamps, so a rebuilt replica arrives at the same account.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
struct TimeAccount {
    window_start_ms: u64,
    reserve_used_ms: [u64; 2],
}

impl TimeAccount {
    /// Charges `seat`'s move at `now` against the window it had (`windows` as before the
    /// move): time past the window's length comes out of the reserve, if it could use it.
    fn charge(&mut self, windows: &[(Seat, u64, bool)], seat: Seat, now: u64, allowance: u64) {
        if let Some(&(_, len, true)) = windows.iter().find(|w| w.0 == seat) {
            let over = now.saturating_sub(self.window_start_ms).saturating_sub(len);
            let used = &mut self.reserve_used_ms[seat.index()];
            *used = (*used + over).min(allowance);
        }
    }

    /// When the windows of the seats owing a move run out, opened at `start`.
    fn due(
        &self,
        windows: &[(Seat, u64, bool)],
        start: u64,
        allowance: u64,
        standard_ms: u64,
    ) -> u64 {
        let longest = windows
            .iter()
            .map(|&(seat, len, reserve)| {
                let left = if reserve {
                    allowance.saturating_sub(self.reserve_used_ms[seat.index()])
                } else {
                    0
                };
                len + left
            })
            .max()
            .unwrap_or(standard_ms);
        start + longest
    }
}

/// What a refusal or a failure of the host answers.
/// An event of the host as the store keeps it.
fn stored(e: Encoded) -> events::StoredEvent {
    events::StoredEvent { audience: e.audience, payload: e.payload }
}

/// A key seen at version `v` answers a duplicate only for the move it was first used
/// for: another move under it is refused (ALREADY_EXISTS naming `v`), never dropped
/// silently. Deadlines and resignations carry no client key.
fn same_step(s: &Slot, v: u64, seat_version: u64, step: &StepIn) -> Result<(), EngineError> {
    let StepIn::Move { seat, mv } = step else { return Ok(()) };
    let parse = |j: &str| serde_json::from_str::<serde_json::Value>(j).ok();
    // `steps[i]` is the step of version i + 1.
    let stored = v.checked_sub(1).and_then(|i| s.steps.get(usize::try_from(i).ok()?));
    let stored = stored.and_then(|j| parse(j));
    let incoming = s.hosted.move_step_json(*seat, mv).and_then(|j| parse(&j));
    match (stored, incoming) {
        (Some(a), Some(b)) if a == b => Ok(()),
        // The version as the seat numbers it: the one it was told when the key was used.
        _ => Err(EngineError::KeyReused { version: seat_version }),
    }
}

/// Whether a step keeps the round's window: a seat sealing its move while others still
/// owe theirs (the same minute runs on). Any other step opens a new window.
fn keeps_window(before: SeatSet, after: SeatSet, moving: Option<Seat>) -> bool {
    moving.is_some_and(|seat| after == before.without(seat))
}

/// The seat of a stored move step, if it is one.
fn moving_seat(step_json: &str) -> Option<Seat> {
    let v: serde_json::Value = serde_json::from_str(step_json).ok()?;
    v.get("move")?;
    v.get("seat").and_then(serde_json::Value::as_u64).and_then(Seat::new)
}

/// Whose numbering a stored step's answer is in: the seat that moved or resigned, else
/// the spectators'. (Reads the step once: `{"seat":S,"move":..}` or `{"resign":S}`.)
fn actor(step_json: &str) -> Viewer {
    let seat = serde_json::from_str::<serde_json::Value>(step_json).ok().and_then(|v| {
        let seat = if v.get("move").is_some() { v.get("seat") } else { v.get("resign") };
        seat.and_then(serde_json::Value::as_u64).and_then(Seat::new)
    });
    seat.map_or(Viewer::Spectator, Viewer::Seat)
}

/// What `viewer` sees of a match (at the versions `seen`, in the viewer's own numbering),
/// as GetView answers it (but for `deadline_in_ms`, which depends on when it is read).
fn view_response(
    hosted: &dyn Host,
    meta: &MatchMeta,
    secret: &MatchSecret,
    seen: ViewerVersions,
    due_ms: Option<u64>,
    viewer: Viewer,
    json: bool,
) -> api::v1::GetViewResponse {
    let out = hosted.view_proto(viewer, json);
    let outcome = hosted.outcome().map(|o| api::v1::Outcome {
        winner: o.winner.map(wire::seat_u32),
        reason: wire::reason(&o),
        seed: secret.seed_hex.clone(),
    });
    api::v1::GetViewResponse {
        version: seen.of(viewer),
        seat: viewer.seat().map(wire::seat_u32),
        to_move: hosted.to_move().iter().map(wire::seat_u32).collect(),
        view: Some(out.view),
        outcome,
        deadline_in_ms: None,
        deadline_at_ms: due_ms,
        player_ids: Seat::BOTH.iter().map(|&seat| holder_name(&meta.seats[seat])).collect(),
        game: meta.game.clone(),
        legal_moves: out.legal,
        view_json: out.view_json.unwrap_or_default(),
    }
}

/// Each viewer's view after a step, stored with it so watchers need not ask. The seats'
/// own views are built by the rules, never filtered from another's.
fn stored_views(
    hosted: &dyn Host,
    meta: &MatchMeta,
    secret: &MatchSecret,
    seen: ViewerVersions,
    due_ms: Option<u64>,
) -> Vec<events::StoredEvent> {
    use prost::Message;
    VIEWERS
        .into_iter()
        .map(|viewer| events::StoredEvent {
            audience: viewer.seat().map_or(Audience::Public, Audience::Seat),
            payload: view_response(hosted, meta, secret, seen, due_ms, viewer, false)
                .encode_to_vec(),
        })
        .collect()
}

/// The deadline after a step, given the time account after it (`account`). A seat sealing
/// its move in a round others still owe keeps the round's deadline under the new version's
/// fence; any other step opens new windows (with what is left of each seat's reserve where
/// the rules allow it); the end of the match clears it.
fn next_deadline(
    s: &Slot,
    keep: bool,
    account: &TimeAccount,
    now: u64,
) -> (DeadlineChange, Option<u64>) {
    if s.hosted.outcome().is_some() || !s.meta.all_seated() {
        return (DeadlineChange::Clear, None);
    }
    let fence_version = s.version + 1;
    if keep && let Some(due) = s.due_ms {
        return (DeadlineChange::Set { due_ms: due, fence_version }, Some(due));
    }
    let windows = s.hosted.windows(s.meta.move_time_ms);
    let due = account.due(&windows, now, s.hosted.reserve_allowance_ms(), s.meta.move_time_ms);
    (DeadlineChange::Set { due_ms: due, fence_version }, Some(due))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u64 = 60_000;
    const RESERVE: u64 = 300_000;

    #[test]
    fn time_past_a_window_comes_out_of_the_reserve() {
        let mut a = TimeAccount { window_start_ms: 1_000, reserve_used_ms: [0; 2] };
        let w = [(Seat::ZERO, MIN, true)];
        assert_eq!(a.due(&w, 1_000, RESERVE, MIN), 1_000 + MIN + RESERVE);
        // Seat 0 moves 90 s into its minute: 30 s of reserve used.
        a.charge(&w, Seat::ZERO, 1_000 + 90_000, RESERVE);
        assert_eq!(a.reserve_used_ms, [30_000, 0]);
        assert_eq!(a.due(&w, 0, RESERVE, MIN), MIN + RESERVE - 30_000);
        // Inside its minute: nothing used.
        a.window_start_ms = 0;
        a.charge(&w, Seat::ZERO, 59_000, RESERVE);
        assert_eq!(a.reserve_used_ms, [30_000, 0]);
        // Never more than the allowance.
        a.charge(&w, Seat::ZERO, 10 * RESERVE, RESERVE);
        assert_eq!(a.reserve_used_ms, [RESERVE, 0]);
        assert_eq!(a.due(&w, 0, RESERVE, MIN), MIN);
    }

    #[test]
    fn windows_without_reserve_neither_use_nor_grant_it() {
        let mut a = TimeAccount::default();
        let rushed = [(Seat::ONE, 30_000, false)];
        a.charge(&rushed, Seat::ONE, 45_000, RESERVE);
        assert_eq!(a.reserve_used_ms, [0, 0]);
        assert_eq!(a.due(&rushed, 100, RESERVE, MIN), 30_100);
        // Simultaneous windows: the longest decides; nobody owing: the standard.
        let both = [(Seat::ZERO, MIN, false), (Seat::ONE, 2 * MIN, false)];
        assert_eq!(a.due(&both, 0, 0, MIN), 2 * MIN);
        assert_eq!(a.due(&[], 5, 0, MIN), 5 + MIN);
    }

    #[test]
    fn sealing_a_move_keeps_the_round_window() {
        assert!(keeps_window(SeatSet::BOTH, SeatSet::only(Seat::ONE), Some(Seat::ZERO)));
        assert!(!keeps_window(SeatSet::only(Seat::ONE), SeatSet::BOTH, Some(Seat::ONE)));
        assert!(!keeps_window(
            SeatSet::only(Seat::ZERO),
            SeatSet::only(Seat::ONE),
            Some(Seat::ZERO)
        ));
        assert!(!keeps_window(SeatSet::BOTH, SeatSet::BOTH, None));
        assert_eq!(moving_seat(r#"{"move":{"card":3},"seat":1}"#), Some(Seat::ONE));
        assert_eq!(moving_seat(r#"{"deadline":true}"#), None);
        assert_eq!(moving_seat(r#"{"resign":0}"#), None);
        assert_eq!(actor(r#"{"move":{"card":3},"seat":1}"#), Viewer::Seat(Seat::ONE));
        assert_eq!(actor(r#"{"resign":0}"#), Viewer::Seat(Seat::ZERO));
        assert_eq!(actor(r#"{"deadline":true}"#), Viewer::Spectator);
    }
}
