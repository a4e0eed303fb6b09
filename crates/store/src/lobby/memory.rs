//! The lobby in memory: [`LobbyStore`] for [`MemoryStore`], the same records the Redis keys
//! hold, under the store's one lock (never held across an await): each change reads the
//! tables, decides in [`crate::lobby::rules`] as Redis does, and writes. The ticket feed is
//! a broadcast channel.

use super::tables::{BUCKETS_SWEPT_PAST, Lobby};
use crate::error::StoreError;
use crate::lobby::rules::{self, Accept, Cancel, Create, SeekRead, Settle};
use crate::lobby::{
    self, Account, AccountChange, Board, HISTORY_KEPT, LobbyStore, Pairing, Queue, RateDecision,
    RatedMatch, Rating, RatingChange, RatingUpdate, Recorded, Registered, SeekAccepted,
    TICKETS_KEPT, Ticket, TicketCreated, TicketFeed,
};
use crate::matches::model::is_sha256_hex;
use crate::memory::{MemoryStore, millis, millis_ceil};
use async_trait::async_trait;
use ids::{MatchId, PlayerId, TicketId};
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;

impl MemoryStore {
    /// Announces the players the operation changed tickets of, under the lock, as the
    /// scripts `PUBLISH` at their end.
    pub(crate) fn announce_changes(&self, lobby: &mut Lobby) {
        for player in std::mem::take(&mut lobby.tickets.changed) {
            // No subscriber is not an error: nobody is listening.
            let _ = self.ticket_feed.send(player);
        }
    }
}

impl MemoryStore {
    /// `assign` and `unpair` under the lock: the tickets still pairing in the match move
    /// as [`rules::settle`] says, the pairing goes (and on unpairing, its rated match).
    fn settle(&self, match_id: MatchId, how: Settle, now_ms: u64) -> bool {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        let t = &mut lobby.tickets;
        let Some(pairing) = t.pairings.remove(&match_id) else { return false };
        let tickets = pairing.tickets.map(|id| t.by_id.get(&id).cloned());
        for after in rules::settle(match_id, &tickets, how, now_ms) {
            match how {
                Settle::Assign => t.unlive(&after),
                Settle::Unpair => t.list(&after),
            }
            t.save(&after);
        }
        if how == Settle::Unpair {
            // The match will not be made: nothing to rate.
            lobby.ratings.rated.remove(&match_id);
            lobby.ratings.unrated.remove(&match_id);
        }
        self.announce_changes(lobby);
        true
    }
}

#[async_trait]
impl LobbyStore for MemoryStore {
    async fn register(&self, account: &Account) -> Result<Registered, StoreError> {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        if lobby.emails.contains_key(&account.email) {
            return Ok(Registered::EmailTaken);
        }
        lobby.emails.insert(account.email.clone(), account.player);
        lobby.accounts.insert(account.player, account.clone());
        Ok(Registered::Created)
    }

    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
        let state = self.lock();
        let lobby = &state.lobby;
        Ok(lobby.emails.get(email).and_then(|p| lobby.accounts.get(p)).cloned())
    }

    async fn account(&self, player: PlayerId) -> Result<Option<Account>, StoreError> {
        Ok(self.lock().lobby.accounts.get(&player).cloned())
    }

    async fn update_account(
        &self,
        player: PlayerId,
        change: &AccountChange,
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let Some(stored) = state.lobby.accounts.get_mut(&player) else { return Ok(false) };
        match change {
            AccountChange::Password(phc) => stored.password_phc.clone_from(phc),
            AccountChange::Profile { display_name, leaderboard } => {
                stored.display_name.clone_from(display_name);
                stored.leaderboard = *leaderboard;
            }
        }
        Ok(true)
    }

    async fn delete_session(&self, token_sha256_hex: &str) -> Result<(), StoreError> {
        if !is_sha256_hex(token_sha256_hex) {
            return Err(StoreError::InvalidArgument("a session key is a lower-case hex SHA-256"));
        }
        self.lock().sessions.remove(token_sha256_hex);
        Ok(())
    }

    async fn rate_limit(
        &self,
        bucket: &str,
        window_ms: u64,
        limit: u32,
    ) -> Result<RateDecision, StoreError> {
        let now = service_kit::time::instant();
        let mut state = self.lock();
        let buckets = &mut state.lobby.buckets;
        if buckets.len() > BUCKETS_SWEPT_PAST {
            buckets.retain(|_, (_, until)| *until > now);
        }
        let (hits, until) = buckets.entry(bucket.to_string()).or_insert((0, now));
        if *until <= now {
            // The window starts at its first hit, as the key's expiry does on Redis.
            *hits = 0;
            *until = now + millis(window_ms.max(1));
        }
        *hits += 1;
        let left_ms = millis_ceil(until.saturating_duration_since(now));
        Ok(rules::rate_limit(*hits, limit, left_ms))
    }

    async fn create_ticket(&self, ticket: &Ticket) -> Result<TicketCreated, StoreError> {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        let t = &mut lobby.tickets;
        let idem = (ticket.player, ticket.idempotency_key.clone());
        let live = (ticket.player, ticket.queue.key());
        let by_key = t.idem.get(&idem).and_then(|id| t.by_id.get(id));
        let live_ticket = t.live.get(&live).and_then(|id| t.by_id.get(id));
        let taken = t.by_id.contains_key(&ticket.id);
        let stored = match rules::create(ticket, by_key, live_ticket, taken)? {
            Create::Answer(answer) => return Ok(answer),
            Create::Store(stored) => stored,
        };
        t.by_id.insert(stored.id, stored.clone());
        t.idem.insert(idem, stored.id);
        t.live.insert(live, stored.id);
        t.list(&stored);
        t.remember(&stored);
        t.changed.insert(stored.player);
        self.announce_changes(lobby);
        Ok(TicketCreated::Created(stored))
    }

    async fn ticket(&self, id: TicketId) -> Result<Option<Ticket>, StoreError> {
        Ok(self.lock().lobby.tickets.by_id.get(&id).cloned())
    }

    async fn tickets_of(&self, player: PlayerId) -> Result<Vec<Ticket>, StoreError> {
        let state = self.lock();
        let t = &state.lobby.tickets;
        let Some(mine) = t.of_player.get(&player) else { return Ok(Vec::new()) };
        Ok(mine
            .iter()
            .rev()
            .take(TICKETS_KEPT)
            .filter_map(|(_, id)| t.by_id.get(id))
            .cloned()
            .collect())
    }

    async fn cancel_ticket(
        &self,
        id: TicketId,
        player: PlayerId,
        now_ms: u64,
    ) -> Result<Option<Ticket>, StoreError> {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        let t = &mut lobby.tickets;
        let after = match rules::cancel(t.by_id.get(&id), player, now_ms) {
            Cancel::NotFound => return Ok(None),
            Cancel::Unchanged(ticket) => return Ok(Some(ticket)),
            Cancel::Cancelled(after) => after,
        };
        t.unlist(&after);
        t.unlive(&after);
        t.save(&after);
        self.announce_changes(lobby);
        Ok(Some(after))
    }

    async fn waiting_queues(&self) -> Result<Vec<Queue>, StoreError> {
        Ok(self.lock().lobby.tickets.waiting.values().map(|(q, _)| q.clone()).collect())
    }

    async fn waiting(&self, queue: &Queue) -> Result<Vec<Ticket>, StoreError> {
        let state = self.lock();
        let t = &state.lobby.tickets;
        let Some((_, ids)) = t.waiting.get(&queue.key()) else { return Ok(Vec::new()) };
        Ok(ids.iter().filter_map(|id| t.by_id.get(id)).cloned().collect())
    }

    async fn seeks(&self, game: Option<&str>, limit: usize) -> Result<Vec<Ticket>, StoreError> {
        let state = self.lock();
        let t = &state.lobby.tickets;
        Ok(t.seeks
            .iter()
            .filter_map(|(_, id)| t.by_id.get(id))
            .filter(|s| game.is_none_or(|g| s.queue.game == g))
            .take(limit)
            .cloned()
            .collect())
    }

    async fn pair(&self, pairings: &[Pairing], now_ms: u64) -> Result<Vec<bool>, StoreError> {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        let mut made = Vec::with_capacity(pairings.len());
        for pairing in pairings {
            let t = &mut lobby.tickets;
            let [a, b] = pairing.tickets.map(|id| t.by_id.get(&id));
            let pending = t.pairings.contains_key(&pairing.match_id);
            let ok = rules::can_pair(pairing, [a, b], pending, now_ms);
            if let (true, Some(a), Some(b)) = (ok, a, b) {
                for after in rules::paired(pairing, [a, b], now_ms) {
                    t.unlist(&after);
                    t.save(&after);
                }
                t.store_pairing(&mut lobby.ratings, pairing);
            }
            made.push(ok);
        }
        self.announce_changes(lobby);
        Ok(made)
    }

    async fn accept_seek(
        &self,
        seek: TicketId,
        accepter: &Ticket,
        pairing: &Pairing,
    ) -> Result<SeekAccepted, StoreError> {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        let t = &mut lobby.tickets;
        let idem = (accepter.player, accepter.idempotency_key.clone());
        let live = (accepter.player, accepter.queue.key());
        let read = SeekRead {
            before: t.idem.get(&idem).and_then(|id| t.by_id.get(id)),
            seek: t.by_id.get(&seek),
            pending: t.pairings.contains_key(&pairing.match_id),
            id_taken: t.by_id.contains_key(&accepter.id),
            live: t.live.get(&live).and_then(|id| t.by_id.get(id)),
        };
        let (listed, stored) = match rules::accept_seek(seek, accepter, pairing, &read)? {
            Accept::Answer(answer) => return Ok(answer),
            Accept::Pair { seek, accepter } => (seek, accepter),
        };
        t.unlist(&listed);
        t.save(&listed);
        t.save(&stored);
        t.idem.insert(idem, stored.id);
        t.live.insert(live, stored.id);
        t.remember(&stored);
        t.store_pairing(&mut lobby.ratings, pairing);
        self.announce_changes(lobby);
        Ok(SeekAccepted::Paired(pairing.clone()))
    }

    async fn pending_pairings(&self) -> Result<Vec<Pairing>, StoreError> {
        Ok(self.lock().lobby.tickets.pairings.values().cloned().collect())
    }

    async fn assign(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError> {
        Ok(self.settle(match_id, Settle::Assign, now_ms))
    }

    async fn unpair(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError> {
        Ok(self.settle(match_id, Settle::Unpair, now_ms))
    }

    async fn expire(&self, ids: &[TicketId], now_ms: u64) -> Result<Vec<Ticket>, StoreError> {
        let mut state = self.lock();
        let lobby = &mut state.lobby;
        let t = &mut lobby.tickets;
        let mut expired = Vec::new();
        for id in ids {
            let Some(after) = t.by_id.get(id).and_then(|t| rules::expire(t, now_ms)) else {
                continue;
            };
            t.unlist(&after);
            t.unlive(&after);
            t.save(&after);
            expired.push(after);
        }
        self.announce_changes(lobby);
        Ok(expired)
    }

    async fn ticket_feed(&self) -> Result<TicketFeed, StoreError> {
        // A lagged reader missed changes: its stream ends, as a dropped Redis subscription's
        // does, and it reads the tickets it follows again.
        let feed = BroadcastStream::new(self.ticket_feed.subscribe()).map_while(Result::ok);
        Ok(Box::pin(feed))
    }

    async fn rated_match(&self, match_id: MatchId) -> Result<Option<RatedMatch>, StoreError> {
        Ok(self.lock().lobby.ratings.rated.get(&match_id).cloned())
    }

    async fn unrated_matches(&self) -> Result<Vec<(MatchId, RatedMatch)>, StoreError> {
        let state = self.lock();
        let r = &state.lobby.ratings;
        Ok(r.unrated.iter().filter_map(|m| Some((*m, r.rated.get(m)?.clone()))).collect())
    }

    async fn rating(&self, game: &str, player: PlayerId) -> Result<Option<Rating>, StoreError> {
        Ok(self.lock().lobby.ratings.ratings.get(&(game.to_string(), player)).copied())
    }

    async fn record_result(
        &self,
        match_id: MatchId,
        game: &str,
        updates: &[RatingUpdate; 2],
    ) -> Result<Recorded, StoreError> {
        for u in updates {
            lobby::check_score(u.after.rating)?;
        }
        let mut state = self.lock();
        let r = &mut state.lobby.ratings;
        let games = updates
            .each_ref()
            .map(|u| r.ratings.get(&(game.to_string(), u.player)).map_or(0, |x| x.games));
        let recorded = rules::record_result(r.rated.contains_key(&match_id), games, updates);
        if recorded != Recorded::Applied {
            return Ok(recorded);
        }
        for u in updates {
            r.ratings.insert((game.to_string(), u.player), u.after);
            r.place(game, u.player, u.board, u.after.rating);
            let lines = r.history.entry((game.to_string(), u.player)).or_default();
            lines.push_front(u.change.clone());
            lines.truncate(HISTORY_KEPT);
        }
        r.rated.remove(&match_id);
        r.unrated.remove(&match_id);
        Ok(Recorded::Applied)
    }

    async fn place(
        &self,
        game: &str,
        player: PlayerId,
        board: Option<Board>,
        score: f64,
    ) -> Result<(), StoreError> {
        lobby::check_score(score)?;
        self.lock().lobby.ratings.place(game, player, board, score);
        Ok(())
    }

    async fn leaderboard(
        &self,
        game: &str,
        board: Board,
        start: u64,
        limit: usize,
    ) -> Result<(Vec<(PlayerId, f64)>, u64), StoreError> {
        let ranked = self.lock().lobby.ratings.ranked(game, board);
        let total = ranked.len() as u64;
        let start = usize::try_from(start).unwrap_or(usize::MAX);
        Ok((ranked.into_iter().skip(start).take(limit).collect(), total))
    }

    async fn rank(
        &self,
        game: &str,
        board: Board,
        player: PlayerId,
    ) -> Result<Option<u64>, StoreError> {
        let ranked = self.lock().lobby.ratings.ranked(game, board);
        Ok(ranked.iter().position(|(p, _)| *p == player).map(|i| i as u64))
    }

    async fn history(
        &self,
        game: &str,
        player: PlayerId,
        limit: usize,
    ) -> Result<Vec<RatingChange>, StoreError> {
        let state = self.lock();
        let lines = state.lobby.ratings.history.get(&(game.to_string(), player));
        Ok(lines.map(|l| l.iter().take(limit).cloned().collect()).unwrap_or_default())
    }
}
