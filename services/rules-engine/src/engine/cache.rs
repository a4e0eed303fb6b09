//! The matches in memory: a slot per hot match, filled from the match's stream (a
//! snapshot, then the entries after it) and kept at its head: absorbed when the stream
//! moved on as this copy knows it, rebuilt when it did not, evicted when idle or when the
//! replica holds more than its cap (the least recently used first).

use super::Engine;
use super::stored_step::{actor, moving_seat};
use super::time::{TimeAccount, keeps_window};
use crate::error::EngineError;
use crate::metrics::{EVICTED, MATCHES};
use games::host::{self, Host};
use rules_core::Seed;
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::ops::Bound;
use std::sync::Arc;
use store::{Entry, MatchId, MatchMeta, ViewerVersions};

/// One cached match.
pub(super) struct Slot {
    pub(super) host: Box<dyn Host>,
    pub(super) meta: MatchMeta,
    pub(super) version: u64,
    /// The tag of the entry at `version`: what tells this copy from a reissued version.
    pub(super) tag: u64,
    /// Each viewer's numbering of `version` (the public API's versions).
    pub(super) seen: ViewerVersions,
    /// Idempotency keys seen, to answer a retry without touching the state: the version
    /// the key's step made, and that version as the stepping seat numbers it.
    pub(super) keys: BTreeMap<String, (u64, u64)>,
    /// The armed deadline, when this replica knows it.
    pub(super) due_ms: Option<u64>,
    /// Every step so far (the stream's `step` fields), for snapshots.
    pub(super) steps: Vec<String>,
    /// The time account behind the deadlines.
    pub(super) clock: TimeAccount,
    pub(super) last_used_ms: u64,
    /// Set while `host` holds a step the stream may not have: whoever finds it set
    /// rebuilds the slot from the stream instead of trusting it.
    pub(super) dirty: bool,
}

impl Slot {
    /// Takes in the next stored entry (while rebuilding or catching up): replays its step
    /// through the rules and keeps the same time account the live replica kept.
    fn absorb(&mut self, e: Entry) -> Result<(), EngineError> {
        let before = self.host.to_move();
        let windows = self.host.windows(self.meta.move_time_ms);
        self.host.replay(&e.step_json)?;
        let moving = moving_seat(&e.step_json);
        if let Some(seat) = moving {
            self.clock.charge(&windows, seat, e.at_ms, self.host.reserve_allowance_ms());
        }
        if !keeps_window(before, self.host.to_move(), moving) {
            self.clock.window_start_ms = e.at_ms;
        }
        let seen = self.seen.after(&e);
        self.moved_on(e.version, e.tag, seen, self.clock, e.step_json, e.idempotency_key);
        Ok(())
    }

    /// This copy's head is now the entry of `version` (its tag, step and key; `seen` and
    /// `clock` as they are after it): the one place a slot moves on, whether it replayed
    /// the entry from the stream or made and stored it.
    pub(super) fn moved_on(
        &mut self,
        version: u64,
        tag: u64,
        seen: ViewerVersions,
        clock: TimeAccount,
        step_json: String,
        key: Option<String>,
    ) {
        self.version = version;
        self.tag = tag;
        self.seen = seen;
        self.clock = clock;
        if let Some(k) = key {
            self.keys.insert(k, (version, seen.of(actor(&step_json))));
        }
        self.steps.push(step_json);
    }
}

/// A match used within this long counts as live in [`MATCHES`], else idle.
const LIVE_WITHIN_MS: u64 = 60_000;

pub(super) type SlotRef = Arc<tokio::sync::Mutex<Option<Slot>>>;

/// The matches held past the cap are evicted (the least recently used first) when a new
/// one comes in; this many of the oldest are looked at per eviction before giving up (all
/// of them in use: the cap is exceeded until a later insert finds one free).
const LRU_LOOKS: usize = 64;

/// The idle sweep walks the cache in batches of this many, the cache's lock released (and
/// the task yielding) between them, so requests are never held up by a whole sweep.
const SWEEP_BATCH: usize = 1024;

/// The hot matches, and the order they were last asked for in.
#[derive(Default)]
pub(super) struct Hot {
    /// Each match's slot and the number of its last use (a key of `by_use`).
    slots: BTreeMap<MatchId, (SlotRef, u64)>,
    /// The matches by last use, oldest first.
    by_use: BTreeMap<u64, MatchId>,
    /// Uses so far: the next one's number.
    uses: u64,
}

impl Hot {
    /// How many matches are held.
    pub(super) fn len(&self) -> usize {
        self.slots.len()
    }

    /// The slot of `id` (made empty if absent), now its most recent use; and whether it
    /// was made.
    fn touch(&mut self, id: MatchId) -> (SlotRef, bool) {
        self.uses += 1;
        let now = self.uses;
        match self.slots.get_mut(&id) {
            Some((slot, used)) => {
                let before = std::mem::replace(used, now);
                let slot = slot.clone();
                self.by_use.remove(&before);
                self.by_use.insert(now, id);
                (slot, false)
            }
            None => {
                let slot: SlotRef = Arc::new(tokio::sync::Mutex::new(None));
                self.slots.insert(id, (slot.clone(), now));
                self.by_use.insert(now, id);
                (slot, true)
            }
        }
    }

    /// Removes `id` if no one but the cache holds its slot: a slot handed out (a request
    /// waiting for it, or stepping under its lock) stays, so no two slots of one match
    /// are ever in use in one replica. Under the cache's lock the count cannot grow: every
    /// handing out goes through [`Hot::touch`].
    fn remove_if_unused(&mut self, id: MatchId) -> bool {
        let Some((slot, used)) = self.slots.get(&id) else { return false };
        if Arc::strong_count(slot) > 1 {
            return false;
        }
        let used = *used;
        self.slots.remove(&id);
        self.by_use.remove(&used);
        true
    }

    /// Evicts the least recently used matches not in use until at most `max` are held
    /// (or [`LRU_LOOKS`] candidates were all in use); returns how many.
    fn evict_over(&mut self, max: usize) -> usize {
        let mut evicted = 0;
        while self.slots.len() > max {
            let over = self.slots.len() - max;
            let oldest: Vec<MatchId> =
                self.by_use.values().take(LRU_LOOKS.max(over)).copied().collect();
            let before = evicted;
            for id in oldest {
                if self.slots.len() <= max {
                    break;
                }
                if self.remove_if_unused(id) {
                    evicted += 1;
                }
            }
            if evicted == before {
                break;
            }
        }
        evicted
    }
}

/// Every this many versions the engine stores a snapshot of the match's steps, so a
/// replica rebuilding it reads one key and the entries after it, not the whole stream
/// with every event.
pub const SNAPSHOT_EVERY: u64 = 32;

/// A snapshot: the steps up to its version and the idempotency keys seen.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Snapshot {
    pub(super) steps: Vec<String>,
    pub(super) keys: BTreeMap<String, u64>,
    /// Each viewer's numbering at the snapshot, and each key's version as its seat
    /// numbers it (absent in older snapshots, which are then not used).
    #[serde(default)]
    pub(super) seen: Option<ViewerVersions>,
    #[serde(default)]
    pub(super) key_versions: BTreeMap<String, u64>,
    /// The time account at the snapshot (the steps carry no timestamps).
    #[serde(default)]
    pub(super) clock: TimeAccount,
    /// The tag of the entry at the snapshot's version (0 in older snapshots): a snapshot
    /// of a version the stream has since reissued is ignored.
    #[serde(default)]
    pub(super) tag: u64,
}

impl Engine {
    /// The match's slot in the cache (created empty if absent), now its most recently
    /// used. A new slot past the cap evicts the least recently used ones not in use (never
    /// this one: it is handed out).
    pub(super) fn slot_ref(&self, id: MatchId) -> SlotRef {
        let (slot, evicted, held) = {
            let mut hot = self.hot.lock().expect("the cache lock");
            let (slot, made) = hot.touch(id);
            let evicted = if made { hot.evict_over(self.max_hot) } else { 0 };
            (slot, evicted, hot.len())
        };
        if evicted > 0 {
            service_kit::metrics::add_with(EVICTED, &[("reason", "cap")], evicted as i64);
        }
        service_kit::metrics::set("colosseum_engine_hot_matches", held as i64);
        slot
    }

    /// The slot's match, rebuilt from the stream if it is absent or dirty; and whether it
    /// was (a rebuilt slot is at the stream's head).
    pub(super) async fn fresh<'g>(
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
    pub(super) async fn sync(
        &self,
        id: MatchId,
        guard: &mut Option<Slot>,
    ) -> Result<(), EngineError> {
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

    pub(super) async fn rebuild(&self, id: MatchId) -> Result<Slot, EngineError> {
        let meta = self.meta(id).await?;
        self.check_family(&meta.game)?;
        let secret = self
            .store
            .match_secret(id)
            .await?
            .ok_or_else(|| EngineError::Corrupt(format!("match {id} has no stored seed")))?;
        let seed = Seed::parse(&secret.seed_hex)
            .map_err(|e| EngineError::Corrupt(format!("stored seed: {e}")))?;
        let host = host::start_text(&meta.game, &meta.options_json, seed)?;
        let clock = TimeAccount { window_start_ms: meta.created_at_ms, reserve_used_ms: [0; 2] };
        let mut slot = Slot {
            host,
            meta,
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
                    slot.host.replay(step)?;
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
        if slot.host.outcome().is_some() {
            // A finished match whose compaction was lost with its replica (or that ended
            // before compaction existed) is compacted now; one that is already answers no.
            self.compact(id, slot.version);
        }
        Ok(slot)
    }

    /// The match's armed deadline, if it belongs to `version` (one armed for an earlier
    /// version is spent: the clock will find it stale).
    pub(super) async fn armed(
        &self,
        id: MatchId,
        version: u64,
    ) -> Result<Option<u64>, EngineError> {
        let armed = self.store.deadline(id).await?;
        Ok(armed.filter(|d| d.fence_version == version).map(|d| d.due_ms))
    }

    /// The slot of `id` at the stream's head.
    pub(super) async fn current<'g>(
        &self,
        id: MatchId,
        guard: &'g mut Option<Slot>,
    ) -> Result<&'g mut Slot, EngineError> {
        if !self.fresh(id, guard).await?.1 {
            self.sync(id, guard).await?;
        }
        Ok(guard.as_mut().expect("synced"))
    }

    /// Evicts matches idle for longer than the idle time (and empty slots no one uses, as
    /// a failed rebuild leaves); returns how many. Publishes each game's matches held, live
    /// and idle.
    pub async fn evict_idle(&self) -> usize {
        let now = now_ms();
        let mut n = 0;
        // Per game, the matches used within the last minute and the others held.
        let mut held: BTreeMap<&'static str, [i64; 2]> =
            games::GAMES.iter().map(|g| (g.name, [0, 0])).collect();
        let mut after: Option<MatchId> = None;
        loop {
            let (batch_len, left) = {
                let mut hot = self.hot.lock().expect("the cache lock");
                let from = after.map_or(Bound::Unbounded, Bound::Excluded);
                let mut idle = Vec::new();
                let mut batch_len = 0;
                for (id, (slot, _)) in hot.slots.range((from, Bound::Unbounded)).take(SWEEP_BATCH) {
                    batch_len += 1;
                    after = Some(*id);
                    // A slot locked is in use: live, and not looked into.
                    let Ok(guard) = slot.try_lock() else { continue };
                    let unused_ms = guard.as_ref().map(|s| now.saturating_sub(s.last_used_ms));
                    if let Some(count) =
                        guard.as_ref().and_then(|s| held.get_mut(s.meta.game.as_str()))
                    {
                        count[usize::from(unused_ms.unwrap_or(0) >= LIVE_WITHIN_MS)] += 1;
                    }
                    if unused_ms.is_none_or(|ms| ms >= self.idle_ms) {
                        idle.push(*id);
                    }
                }
                for id in idle {
                    if hot.remove_if_unused(id) {
                        n += 1;
                    }
                }
                (batch_len, hot.len())
            };
            if batch_len < SWEEP_BATCH {
                service_kit::metrics::set("colosseum_engine_hot_matches", left as i64);
                break;
            }
            tokio::task::yield_now().await;
        }
        if n > 0 {
            service_kit::metrics::add_with(EVICTED, &[("reason", "idle")], n as i64);
        }
        for (game, [live, idle]) in held {
            service_kit::metrics::set_with(MATCHES, &[("game", game), ("state", "live")], live);
            service_kit::metrics::set_with(MATCHES, &[("game", game), ("state", "idle")], idle);
        }
        n
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_least_recently_used_free_slots_go_first() {
        let ids: Vec<MatchId> = (0..4).map(|_| MatchId::random()).collect();
        let mut hot = Hot::default();
        for &id in &ids {
            hot.touch(id);
        }
        // ids[1], the oldest now that ids[0] is used again, is still held by a request
        // (a long step) that took it when it was touched.
        hot.touch(ids[0]);
        let held = hot.slots[&ids[1]].0.clone();
        assert_eq!(hot.evict_over(2), 2, "4 held, at most 2");
        let mut expected = vec![ids[0], ids[1]];
        expected.sort();
        let left: Vec<MatchId> = hot.slots.keys().copied().collect();
        assert_eq!(left, expected, "the oldest free ones went (2 and 3), not the one in use");
        assert_eq!(hot.by_use.len(), 2, "the use order holds exactly the slots held");
        // Past the cap, a slot in use stays even when nothing else is left to evict.
        assert_eq!(hot.evict_over(0), 1);
        assert_eq!(hot.slots.keys().copied().collect::<Vec<_>>(), [ids[1]]);
        drop(held);
        assert_eq!(hot.evict_over(0), 1);
        assert_eq!((hot.len(), hot.by_use.len()), (0, 0));
    }
}
