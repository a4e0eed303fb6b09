//! One step of a match: tried against the freshest copy of it (a duplicate key, a stale
//! fence, a deadline due first), applied by the rules and appended to the stream with the
//! next deadline; the slot is dirty from the apply until the append is known stored.

use super::cache::{SNAPSHOT_EVERY, Slot, Snapshot};
use super::time::{TimeAccount, keeps_window};
use super::views::stored_views;
use super::{Engine, detached, entry_tag, stored};
use crate::error::EngineError;
use crate::metrics::APPLY_SECONDS;
use games::host::StepIn;
use rules_core::{Seat, Viewer};
use service_kit::time::now_ms;
use std::sync::Arc;
use std::time::Duration;
use store::{AppendOutcome, DeadlineChange, Entry, Finished, MatchId, MatchMeta, SeatHolder};

/// How many times a step is tried against a fresher copy of its match (another replica
/// moved it on, or the clock's deadline went first) before the caller is told to retry.
const TRIES: usize = 4;

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

impl Engine {
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
        let kind = match &step {
            StepIn::Move { .. } => "move",
            StepIn::Resign(_) => "resign",
            StepIn::Deadline => "deadline",
        };
        let _timer = service_kit::metrics::Timer::start(APPLY_SECONDS, &[("step", kind)]);
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
            if late && fence.is_none() && s.host.outcome().is_none() {
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
        let before = s.host.to_move();
        let windows_before = s.host.windows(s.meta.move_time_ms);
        s.dirty = true;
        let applied = match s.host.step_proto(step) {
            Ok(a) => a,
            Err(e) => {
                // The rules refuse without changing anything.
                s.dirty = false;
                return Ok(Commit::Refused(e.into()));
            }
        };
        let version = s.version + 1;
        let now = now_ms();
        let keep = keeps_window(before, s.host.to_move(), moving);
        let mut account = s.clock;
        if let Some(seat) = moving {
            account.charge(&windows_before, seat, now, s.host.reserve_allowance_ms());
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
        entry.views = stored_views(&*s.host, &s.meta, seen, due);
        // The step that ends the match leaves its announcement owed in the same write, so
        // that whatever dies before it is made, the store's repair makes it.
        let finished = s.host.outcome().map(|outcome| {
            let seed = s.host.revealed_seed().map(|seed| seed.to_hex());
            finished_of(id, &s.meta, &outcome, seed, now)
        });
        let appended = match &finished {
            Some(f) => self.store.append_final(id, &entry, f).await?,
            None => self.store.append(id, &entry, change).await?,
        };
        match appended {
            AppendOutcome::Appended { .. } => {
                s.moved_on(version, tag, seen, account, step_json, key);
                s.due_ms = due;
                s.dirty = false;
                service_kit::metrics::add("colosseum_engine_steps_total", 1);
                if let Some(finished) = finished {
                    self.announce(finished);
                    self.compact(id, version);
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
}

/// What the lifecycle stream says of a match that `outcome` ended at `at_ms`.
fn finished_of(
    id: MatchId,
    meta: &MatchMeta,
    outcome: &rules_core::Outcome,
    seed_hex: Option<String>,
    at_ms: u64,
) -> Finished {
    let player = |h: &SeatHolder| match h {
        SeatHolder::Player(p) => Some(*p),
        SeatHolder::Open | SeatHolder::Reserved(_) | SeatHolder::Bot(_) => None,
    };
    Finished {
        match_id: id,
        game: meta.game.clone(),
        players: [player(&meta.seats[Seat::ZERO]), player(&meta.seats[Seat::ONE])],
        winner: outcome.winner,
        reason: wire::reason(outcome),
        at_ms,
        seed_hex,
    }
}

impl Engine {
    /// Announces a finished match on the lifecycle stream, off the move's path and with a
    /// few retries. The final step left the announcement owed in the store
    /// ([`store::HostStore::append_final`]): if this replica dies first, or every try
    /// fails, the store's repair (run by the tournament service's driver) makes it.
    fn announce(&self, finished: Finished) {
        let store = self.store.clone();
        let delay = self.announce_delay_ms.load(std::sync::atomic::Ordering::Relaxed);
        tokio::spawn(async move {
            if delay > 0 {
                tokio::time::sleep(Duration::from_millis(delay)).await;
            }
            let id = finished.match_id;
            for attempt in 0..5u64 {
                match store.announce_finished(&finished).await {
                    Ok(()) => return,
                    Err(e) if attempt == 4 => {
                        tracing::warn!(match_id = %id, error = %e, "finish not announced (the repair will)")
                    }
                    Err(_) => tokio::time::sleep(Duration::from_millis(100 << attempt)).await,
                }
            }
        });
    }
}

impl Engine {
    /// Queues a finished match for compaction into its record, off the move's path: one
    /// task works through the queue, [`COMPACTIONS_AT_ONCE`] matches at a time, each with
    /// a few retries. One that
    /// never happens (this replica died first) is made by the next rebuild of the match;
    /// until then it costs memory, not correctness: the stream reads the same either way.
    pub(super) fn compact(&self, id: MatchId, last_version: u64) {
        let queue = self.compactions.get_or_init(|| {
            use futures_util::StreamExt;
            let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<(MatchId, u64)>();
            let store = self.store.clone();
            let retention_ms = self.retention_ms;
            let queued = futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx));
            tokio::spawn(queued.for_each_concurrent(COMPACTIONS_AT_ONCE, move |(id, last_version)| {
                let store = store.clone();
                async move { compact_with_retries(&*store, id, last_version, retention_ms).await }
            }));
            tx
        });
        // The task ends only with the engine (the sender lives in it): a send cannot fail.
        let _ = queue.send((id, last_version));
    }
}

/// Compactions in flight at once. One at a time was bound by its round trips (two to
/// Redis, each waiting its turn on a busy machine): about half of 230 matches ending a
/// second, so the queue, and the finished matches Redis held whole, grew without end.
const COMPACTIONS_AT_ONCE: usize = 8;

/// Compacts one finished match, with a few retries.
async fn compact_with_retries(
    store: &dyn store::HostStore,
    id: MatchId,
    last_version: u64,
    retention_ms: u64,
) {
    for attempt in 0..5u64 {
        match store.compact(id, last_version, retention_ms).await {
            Ok(_) => return,
            Err(e) if attempt == 4 => {
                tracing::warn!(match_id = %id, error = %e, "finished match not compacted")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100 << attempt)).await,
        }
    }
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
    let incoming = s.host.move_step_json(*seat, mv).and_then(|j| parse(&j));
    match (stored, incoming) {
        (Some(a), Some(b)) if a == b => Ok(()),
        // The version as the seat numbers it: the one it was told when the key was used.
        _ => Err(EngineError::KeyReused { version: seat_version }),
    }
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
    if s.host.outcome().is_some() || !s.meta.all_seated() {
        return (DeadlineChange::Clear, None);
    }
    let fence_version = s.version + 1;
    if keep && let Some(due) = s.due_ms {
        return (DeadlineChange::Set { due_ms: due, fence_version }, Some(due));
    }
    let windows = s.host.windows(s.meta.move_time_ms);
    let due = account.due(&windows, now, s.host.reserve_allowance_ms(), s.meta.move_time_ms);
    (DeadlineChange::Set { due_ms: due, fence_version }, Some(due))
}
