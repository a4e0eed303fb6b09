//! The matches' part of the in-memory store.

pub(crate) mod bots;
pub(crate) mod lists;
pub(crate) mod tables;

use crate::error::StoreError;
use crate::lifecycle::Finished;
use crate::matches::bots::BotMatch;
use crate::matches::feed::AppendFeed;
use crate::matches::lists::Listed;
use crate::matches::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, MatchSecret, Session,
    is_sha256_hex,
};
use crate::matches::traits::{EventStore, HostStore};
use crate::memory::{MatchState, MemoryStore, State};
use async_trait::async_trait;
use ids::{MatchId, PlayerId, SeatHolder};
use rules_core::Seat;
use std::collections::BTreeMap;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;

/// Whether `finished` names every player `meta` seats (seats are only ever taken, so a
/// final step decided on stale holders names fewer).
pub(crate) fn names_every_player(meta: &MatchMeta, finished: &Finished) -> bool {
    Seat::BOTH.into_iter().all(|seat| match &meta.seats[seat] {
        SeatHolder::Player(p) => finished.players[seat.index()] == Some(*p),
        SeatHolder::Open | SeatHolder::Reserved(_) | SeatHolder::Bot(_) => true,
    })
}

impl State {
    pub(crate) fn set_deadline(&mut self, id: MatchId, due_ms: u64, fence: u64) {
        if let Some((old_due, _)) = self.deadlines.insert(id, (due_ms, fence)) {
            self.due.remove(&(old_due, id));
        }
        self.due.insert((due_ms, id));
    }

    pub(crate) fn clear_deadline(&mut self, id: MatchId) {
        if let Some((due, _)) = self.deadlines.remove(&id) {
            self.due.remove(&(due, id));
        }
    }
}

impl MemoryStore {
    /// An append under the state lock ([`EventStore::append`]); `finished` for a final
    /// step ([`HostStore::append_final`]), fenced by the seat holders as on Redis.
    pub(crate) fn append_entry(
        &self,
        state: &mut State,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
        finished: Option<&Finished>,
    ) -> Result<AppendOutcome, StoreError> {
        {
            let m = state.matches.get_mut(&id).ok_or(StoreError::NotFound(id))?;
            if m.compacted {
                // As on Redis: a conflict at the last version, so a caller behind it
                // rebuilds and finds a retried key in the record.
                return Ok(AppendOutcome::Conflict { current_version: m.log.len() as u64 - 1 });
            }
            if let Some(key) = &entry.idempotency_key
                && let Some(&version) = m.idem.get(key)
            {
                return Ok(AppendOutcome::Duplicate { version });
            }
            let current = m.log.len() as u64 - 1;
            if entry.version != current + 1 {
                return Ok(AppendOutcome::Conflict { current_version: current });
            }
            // The holders' fence: a seat taken since the final step read the holders.
            if finished.is_some_and(|f| !names_every_player(&m.meta, f)) {
                return Ok(AppendOutcome::Conflict { current_version: current });
            }
            m.over |= finished.is_some();
            if finished.is_some() {
                let game = m.meta.game.clone();
                state.lists.remove_live(&game, id);
            }
            let m = state.matches.get_mut(&id).ok_or(StoreError::NotFound(id))?;
            if let Some(key) = &entry.idempotency_key {
                m.idem.insert(key.clone(), entry.version);
            }
            m.log.push(Entry { views: Vec::new(), ..entry.clone() });
            m.views = entry.views.clone();
            match deadline {
                DeadlineChange::Keep => {}
                DeadlineChange::Clear => state.clear_deadline(id),
                DeadlineChange::Set { due_ms, fence_version } => {
                    state.set_deadline(id, due_ms, fence_version)
                }
            }
            // No subscriber is not an error: nobody is listening.
            let _ = self.feed.send((id, entry.version));
        }
        Ok(AppendOutcome::Appended { version: entry.version })
    }
}

#[async_trait]
impl EventStore for MemoryStore {
    async fn meta(&self, id: MatchId) -> Result<Option<MatchMeta>, StoreError> {
        Ok(self.lock().matches.get(&id).map(|m| m.meta.clone()))
    }

    async fn claim_seat(
        &self,
        id: MatchId,
        seat: Seat,
        player: PlayerId,
    ) -> Result<ClaimOutcome, StoreError> {
        let mut state = self.lock();
        let m = state.matches.get_mut(&id).ok_or(StoreError::NotFound(id))?;
        let over = m.over || m.compacted;
        let holder = &mut m.meta.seats[seat];
        let outcome = ClaimOutcome::of(holder, over, player);
        if outcome == ClaimOutcome::Claimed {
            *holder = SeatHolder::Player(player);
        }
        if matches!(outcome, ClaimOutcome::Claimed | ClaimOutcome::AlreadyYours) {
            let listed = Listed { created_at_ms: m.meta.created_at_ms, id };
            let live = crate::matches::lists::live_game(&m.meta).map(str::to_string);
            state.lists.add_player(player, listed);
            if let Some(game) = live {
                state.lists.add_live(&game, listed);
            }
        }
        Ok(outcome)
    }

    async fn append(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
    ) -> Result<AppendOutcome, StoreError> {
        self.append_entry(&mut self.lock(), id, entry, deadline, None)
    }

    async fn read(
        &self,
        id: MatchId,
        from_version: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        let state = self.lock();
        let Some(m) = state.matches.get(&id) else { return Ok(Vec::new()) };
        let from = usize::try_from(from_version).unwrap_or(usize::MAX);
        let mut entries: Vec<Entry> = m.log.iter().skip(from).take(limit).cloned().collect();
        if let Some(last) = entries.last_mut()
            && last.version + 1 == m.log.len() as u64
        {
            last.views = m.views.clone();
        }
        Ok(entries)
    }

    async fn last_version(&self, id: MatchId) -> Result<Option<u64>, StoreError> {
        Ok(self.lock().matches.get(&id).map(|m| m.log.len() as u64 - 1))
    }

    async fn put_snapshot(
        &self,
        id: MatchId,
        version: u64,
        bytes: &[u8],
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let Some(m) = state.matches.get_mut(&id) else { return Ok(false) };
        if m.compacted || m.snapshot.as_ref().is_some_and(|(v, _)| *v >= version) {
            return Ok(false);
        }
        m.snapshot = Some((version, bytes.to_vec()));
        Ok(true)
    }

    async fn snapshot(&self, id: MatchId) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        Ok(self.lock().matches.get(&id).and_then(|m| m.snapshot.clone()))
    }

    async fn set_deadline(
        &self,
        id: MatchId,
        due_ms: u64,
        fence_version: u64,
    ) -> Result<(), StoreError> {
        self.lock().set_deadline(id, due_ms, fence_version);
        Ok(())
    }

    async fn due_deadlines(&self, now_ms: u64, limit: usize) -> Result<Vec<Deadline>, StoreError> {
        let state = self.lock();
        Ok(state
            .due
            .iter()
            .take_while(|(due, _)| *due <= now_ms)
            .take(limit)
            .map(|&(due_ms, match_id)| Deadline {
                match_id,
                due_ms,
                fence_version: state.deadlines[&match_id].1,
            })
            .collect())
    }

    async fn deadline(&self, id: MatchId) -> Result<Option<Deadline>, StoreError> {
        Ok(self.lock().deadlines.get(&id).map(|&(due_ms, fence_version)| Deadline {
            match_id: id,
            due_ms,
            fence_version,
        }))
    }

    async fn clear_deadline_if(&self, id: MatchId, fence_version: u64) -> Result<bool, StoreError> {
        let mut state = self.lock();
        if state.deadlines.get(&id).is_some_and(|&(_, fence)| fence == fence_version) {
            state.clear_deadline(id);
            Ok(true)
        } else {
            Ok(false)
        }
    }

    async fn repair_deadline_index(&self) -> Result<usize, StoreError> {
        Ok(0)
    }

    async fn append_feed(&self) -> Result<AppendFeed, StoreError> {
        // A lagged reader missed appends: its stream ends, as a dropped Redis subscription's
        // does, and it reads the logs again.
        let feed = BroadcastStream::new(self.feed.subscribe()).map_while(Result::ok);
        Ok(Box::pin(feed))
    }

    async fn put_session(
        &self,
        token_sha256_hex: &str,
        player: PlayerId,
        display_name: &str,
    ) -> Result<(), StoreError> {
        if !is_sha256_hex(token_sha256_hex) {
            return Err(StoreError::InvalidArgument("a session key is a lower-case hex SHA-256"));
        }
        let session = Session { player_id: player, display_name: display_name.into() };
        let mut state = self.lock();
        state.players.insert(player, display_name.into());
        state.sessions.insert(token_sha256_hex.into(), session);
        Ok(())
    }

    async fn player_exists(&self, player: PlayerId) -> Result<bool, StoreError> {
        Ok(self.lock().players.contains_key(&player))
    }

    async fn session(&self, token_sha256_hex: &str) -> Result<Option<Session>, StoreError> {
        if !is_sha256_hex(token_sha256_hex) {
            return Err(StoreError::InvalidArgument("a session key is a lower-case hex SHA-256"));
        }
        Ok(self.lock().sessions.get(token_sha256_hex).cloned())
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }

    async fn add_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError> {
        self.add_bot(bot_match)?;
        self.lock().lists.set_bot(bot_match.id, &bot_match.bot);
        Ok(())
    }

    async fn bot_of(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        Ok(self.bot_name(id))
    }

    async fn player_matches(
        &self,
        player: PlayerId,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        Ok(self.player_page(player, before, limit))
    }

    async fn unlist_player_match(&self, player: PlayerId, id: MatchId) -> Result<(), StoreError> {
        self.unlist_player(player, id);
        Ok(())
    }

    async fn live_matches(
        &self,
        game: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        self.live_page(game, before, limit)
    }

    async fn unlist_live_match(&self, game: &str, id: MatchId) -> Result<(), StoreError> {
        self.unlist_live(game, id)
    }

    async fn display_names(&self, players: &[PlayerId]) -> Result<Vec<Option<String>>, StoreError> {
        Ok(self.names(players))
    }

    async fn release_finished(&self, id: MatchId, _after_ms: u64) -> Result<bool, StoreError> {
        Ok(self.lock().matches.get(&id).is_some_and(|m| m.over || m.compacted))
    }

    async fn bot_matches(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, BotMatch)>, StoreError> {
        Ok(self.bots_after(after, limit))
    }

    async fn remove_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError> {
        bot_match.member()?;
        self.remove_bot(bot_match);
        Ok(())
    }
}

#[async_trait]
impl HostStore for MemoryStore {
    async fn append_final(
        &self,
        id: MatchId,
        entry: &Entry,
        finished: &Finished,
    ) -> Result<AppendOutcome, StoreError> {
        let mut state = self.lock();
        let outcome =
            self.append_entry(&mut state, id, entry, DeadlineChange::Clear, Some(finished))?;
        if let AppendOutcome::Appended { .. } = outcome {
            state.owed.insert(id, finished.clone());
        }
        Ok(outcome)
    }

    async fn create_match(
        &self,
        id: MatchId,
        meta: &MatchMeta,
        secret: &MatchSecret,
        opening: &Entry,
        first_deadline: Option<u64>,
    ) -> Result<(), StoreError> {
        if opening.version != 0 {
            return Err(StoreError::InvalidArgument("the opening entry must be version 0"));
        }
        {
            let mut state = self.lock();
            if state.matches.contains_key(&id) {
                return Err(StoreError::AlreadyExists(id));
            }
            let mut idem = BTreeMap::new();
            if let Some(key) = &opening.idempotency_key {
                idem.insert(key.clone(), 0);
            }
            state.matches.insert(
                id,
                MatchState {
                    meta: meta.clone(),
                    secret: secret.clone(),
                    log: vec![Entry { views: Vec::new(), ..opening.clone() }],
                    views: opening.views.clone(),
                    compacted: false,
                    over: false,
                    idem,
                    snapshot: None,
                },
            );
            if let Some(due_ms) = first_deadline {
                state.set_deadline(id, due_ms, 0);
            }
            let listed = Listed { created_at_ms: meta.created_at_ms, id };
            for player in crate::matches::lists::seated_players(meta) {
                state.lists.add_player(player, listed);
            }
            if let Some(game) = crate::matches::lists::live_game(meta)
                .filter(|g| crate::matches::lists::listable_game(g))
            {
                state.lists.add_live(game, listed);
            }
        }
        Ok(())
    }

    async fn match_secret(&self, id: MatchId) -> Result<Option<MatchSecret>, StoreError> {
        Ok(self.lock().matches.get(&id).map(|m| m.secret.clone()))
    }

    async fn compact(
        &self,
        id: MatchId,
        last_version: u64,
        _retention_ms: u64,
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let Some(m) = state.matches.get_mut(&id) else { return Ok(false) };
        if m.compacted || m.log.len() as u64 != last_version + 1 {
            return Ok(false);
        }
        // Through the record's own encoding, so reads answer exactly what Redis's would.
        let record = crate::matches::record::encode(&m.log, &m.views);
        let (log, views) = crate::matches::record::decode(&record)
            .map_err(|e| StoreError::Corrupt(format!("record of {id}: {e}")))?;
        m.log = log;
        m.views = views;
        m.idem.clear();
        m.snapshot = None;
        m.compacted = true;
        state.clear_deadline(id);
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::memory::FEED_CAPACITY;

    fn step(version: u64) -> Entry {
        Entry {
            version,
            step_json: "{}".into(),
            idempotency_key: None,
            events: Vec::new(),
            views: Vec::new(),
            traceparent: None,
            at_ms: version,
            tag: version + 1,
        }
    }

    #[tokio::test]
    async fn a_reader_that_falls_behind_loses_its_feed() {
        let store = MemoryStore::new();
        let id = MatchId::random();
        let meta = MatchMeta {
            game: "gops".into(),
            options_json: "{}".into(),
            commitment_hex: "11".repeat(32),
            seats: rules_core::PerSeat([SeatHolder::Open, SeatHolder::Open]),
            move_time_ms: 1,
            created_at_ms: 0,
            listed: true,
        };
        let secret = MatchSecret { seed_hex: "00".repeat(16) };
        store.create_match(id, &meta, &secret, &step(0), None).await.expect("create");
        let mut feed = store.append_feed().await.expect("subscribe");
        let appended = store.append(id, &step(1), DeadlineChange::Keep).await;
        assert_eq!(appended, Ok(AppendOutcome::Appended { version: 1 }));
        assert_eq!(feed.next().await, Some((id, 1)));
        for version in 2..=FEED_CAPACITY as u64 + 2 {
            let appended = store.append(id, &step(version), DeadlineChange::Keep).await;
            assert_eq!(appended, Ok(AppendOutcome::Appended { version }));
        }
        // It missed one: the stream ends rather than skipping it silently.
        assert_eq!(feed.next().await, None);
        // A new subscription hears what comes next.
        let mut again = store.append_feed().await.expect("subscribe");
        let next = FEED_CAPACITY as u64 + 3;
        store.append(id, &step(next), DeadlineChange::Keep).await.expect("append");
        assert_eq!(again.next().await, Some((id, next)));
    }
}
