//! A store that times and counts every call of the store it wraps, by operation: what the
//! dashboards show as Redis latency and errors (`colosseum_store_duration_seconds`,
//! `colosseum_store_errors_total`, by `op`), and whether the store answers
//! (`colosseum_store_up`, from a ping every few seconds). The binaries open their store
//! through it ([`crate::open_from_env`]); it changes no answer.

use crate::error::StoreError;
use crate::lifecycle::{Delivery, Finished};
use crate::lobby::{
    Account, AccountChange, Board, LobbyStore, Pairing, Queue, RateDecision, RatedMatch, Rating,
    RatingChange, RatingUpdate, Recorded, Registered, SeekAccepted, Ticket, TicketCreated,
    TicketFeed,
};
use crate::matches::bots::BotMatch;
use crate::matches::feed::AppendFeed;
use crate::matches::lists::Listed;
use crate::matches::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, MatchSecret, Session,
};
use crate::matches::traits::{EventStore, HostStore};
use crate::parts::FullStore;
use crate::platform::{
    ApiKey, Append, Appended, Begin, Begun, PlatformStore, Stream, StreamEntry, Tenant, Unfinished,
};
use crate::presence::{Presence, PresenceFeed, PresenceStore, SeatChange};
use async_trait::async_trait;
use ids::{MatchId, PlayerId, TenantId, TicketId, TournamentId};
use rules_core::Seat;
use service_kit::metrics::{Desc, Kind, STORE_BUCKETS};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Each store call's time, by operation.
pub const DURATION_SECONDS: &str = "colosseum_store_duration_seconds";
/// Store calls that failed, by operation.
pub const ERRORS: &str = "colosseum_store_errors_total";
/// 1 when the store answered its last ping, else 0.
pub const UP: &str = "colosseum_store_up";

/// The store's metrics.
pub const METRICS: &[Desc] = &[
    Desc {
        name: DURATION_SECONDS,
        kind: Kind::Histogram(STORE_BUCKETS),
        help: "Event store calls (Redis round trips), by operation",
    },
    Desc { name: ERRORS, kind: Kind::Counter, help: "Event store calls that failed, by operation" },
    Desc { name: UP, kind: Kind::Gauge, help: "1 when the event store answered its last ping" },
];

/// How often the store is pinged for [`UP`].
const PING_EVERY: Duration = Duration::from_secs(5);

/// `inner`, timed and counted.
pub struct Instrumented {
    inner: Arc<dyn FullStore>,
}

impl Instrumented {
    /// Wraps `inner`, and pings it every few seconds until `stop` (for [`UP`]). The answer
    /// is a whole store again: upcast it to the part a service may hold.
    pub fn wrap(inner: Arc<dyn FullStore>, stop: CancellationToken) -> Arc<dyn FullStore> {
        service_kit::metrics::describe(METRICS);
        let store = Arc::new(Instrumented { inner });
        let pinged = store.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(PING_EVERY);
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => {
                        let up = pinged.ping().await.is_ok();
                        service_kit::metrics::set(UP, i64::from(up));
                    }
                }
            }
        });
        store
    }
}

/// Runs one call of `op`, timed, and counted if it fails.
async fn timed<T>(
    op: &'static str,
    call: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let timer = service_kit::metrics::Timer::start(DURATION_SECONDS, &[("op", op)]);
    let out = call.await;
    drop(timer);
    if out.is_err() {
        service_kit::metrics::add_with(ERRORS, &[("op", op)], 1);
    }
    out
}

#[async_trait]
impl EventStore for Instrumented {
    async fn meta(&self, id: MatchId) -> Result<Option<MatchMeta>, StoreError> {
        timed("meta", self.inner.meta(id)).await
    }

    async fn claim_seat(
        &self,
        id: MatchId,
        seat: Seat,
        player: PlayerId,
    ) -> Result<ClaimOutcome, StoreError> {
        timed("claim_seat", self.inner.claim_seat(id, seat, player)).await
    }

    async fn append(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
    ) -> Result<AppendOutcome, StoreError> {
        timed("append", self.inner.append(id, entry, deadline)).await
    }

    async fn read(
        &self,
        id: MatchId,
        from_version: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        timed("read", self.inner.read(id, from_version, limit)).await
    }

    async fn last_version(&self, id: MatchId) -> Result<Option<u64>, StoreError> {
        timed("last_version", self.inner.last_version(id)).await
    }

    async fn put_snapshot(
        &self,
        id: MatchId,
        version: u64,
        bytes: &[u8],
    ) -> Result<bool, StoreError> {
        timed("put_snapshot", self.inner.put_snapshot(id, version, bytes)).await
    }

    async fn snapshot(&self, id: MatchId) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        timed("snapshot", self.inner.snapshot(id)).await
    }

    async fn set_deadline(
        &self,
        id: MatchId,
        due_ms: u64,
        fence_version: u64,
    ) -> Result<(), StoreError> {
        timed("set_deadline", self.inner.set_deadline(id, due_ms, fence_version)).await
    }

    async fn due_deadlines(&self, now_ms: u64, limit: usize) -> Result<Vec<Deadline>, StoreError> {
        timed("due_deadlines", self.inner.due_deadlines(now_ms, limit)).await
    }

    async fn deadline(&self, id: MatchId) -> Result<Option<Deadline>, StoreError> {
        timed("deadline", self.inner.deadline(id)).await
    }

    async fn clear_deadline_if(&self, id: MatchId, fence_version: u64) -> Result<bool, StoreError> {
        timed("clear_deadline_if", self.inner.clear_deadline_if(id, fence_version)).await
    }

    async fn repair_deadline_index(&self) -> Result<usize, StoreError> {
        timed("repair_deadline_index", self.inner.repair_deadline_index()).await
    }

    async fn append_feed(&self) -> Result<AppendFeed, StoreError> {
        timed("append_feed", self.inner.append_feed()).await
    }

    async fn put_session(
        &self,
        token_sha256_hex: &str,
        player: PlayerId,
        display_name: &str,
    ) -> Result<(), StoreError> {
        timed("put_session", self.inner.put_session(token_sha256_hex, player, display_name)).await
    }

    async fn session(&self, token_sha256_hex: &str) -> Result<Option<Session>, StoreError> {
        timed("session", self.inner.session(token_sha256_hex)).await
    }

    async fn player_exists(&self, player: PlayerId) -> Result<bool, StoreError> {
        timed("player_exists", self.inner.player_exists(player)).await
    }

    async fn add_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError> {
        timed("add_bot_match", self.inner.add_bot_match(bot_match)).await
    }

    async fn bot_matches(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, BotMatch)>, StoreError> {
        timed("bot_matches", self.inner.bot_matches(after, limit)).await
    }

    async fn remove_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError> {
        timed("remove_bot_match", self.inner.remove_bot_match(bot_match)).await
    }

    async fn bot_of(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        timed("bot_of", self.inner.bot_of(id)).await
    }

    async fn player_matches(
        &self,
        player: PlayerId,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        timed("player_matches", self.inner.player_matches(player, before, limit)).await
    }

    async fn unlist_player_match(&self, player: PlayerId, id: MatchId) -> Result<(), StoreError> {
        timed("unlist_player_match", self.inner.unlist_player_match(player, id)).await
    }

    async fn live_matches(
        &self,
        game: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        timed("live_matches", self.inner.live_matches(game, before, limit)).await
    }

    async fn unlist_live_match(&self, game: &str, id: MatchId) -> Result<(), StoreError> {
        timed("unlist_live_match", self.inner.unlist_live_match(game, id)).await
    }

    async fn display_names(&self, players: &[PlayerId]) -> Result<Vec<Option<String>>, StoreError> {
        timed("display_names", self.inner.display_names(players)).await
    }

    async fn release_finished(&self, id: MatchId, after_ms: u64) -> Result<bool, StoreError> {
        timed("release_finished", self.inner.release_finished(id, after_ms)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        timed("ping", self.inner.ping()).await
    }
}

#[async_trait]
impl HostStore for Instrumented {
    async fn append_final(
        &self,
        id: MatchId,
        entry: &Entry,
        finished: &Finished,
    ) -> Result<AppendOutcome, StoreError> {
        timed("append_final", self.inner.append_final(id, entry, finished)).await
    }

    async fn create_match(
        &self,
        id: MatchId,
        meta: &MatchMeta,
        secret: &MatchSecret,
        opening: &Entry,
        first_deadline: Option<u64>,
    ) -> Result<(), StoreError> {
        let create = self.inner.create_match(id, meta, secret, opening, first_deadline);
        timed("create_match", create).await
    }

    async fn match_secret(&self, id: MatchId) -> Result<Option<MatchSecret>, StoreError> {
        timed("match_secret", self.inner.match_secret(id)).await
    }

    async fn compact(
        &self,
        id: MatchId,
        last_version: u64,
        retention_ms: u64,
    ) -> Result<bool, StoreError> {
        timed("compact", self.inner.compact(id, last_version, retention_ms)).await
    }
}

#[async_trait]
impl LobbyStore for Instrumented {
    async fn register(&self, account: &Account) -> Result<Registered, StoreError> {
        timed("register", self.inner.register(account)).await
    }

    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
        timed("account_by_email", self.inner.account_by_email(email)).await
    }

    async fn account(&self, player: PlayerId) -> Result<Option<Account>, StoreError> {
        timed("account", self.inner.account(player)).await
    }

    async fn update_account(
        &self,
        player: PlayerId,
        change: &AccountChange,
    ) -> Result<bool, StoreError> {
        timed("update_account", self.inner.update_account(player, change)).await
    }

    async fn delete_session(&self, token_sha256_hex: &str) -> Result<(), StoreError> {
        timed("delete_session", self.inner.delete_session(token_sha256_hex)).await
    }

    async fn rate_limit(
        &self,
        bucket: &str,
        window_ms: u64,
        limit: u32,
    ) -> Result<RateDecision, StoreError> {
        timed("rate_limit", self.inner.rate_limit(bucket, window_ms, limit)).await
    }

    async fn create_ticket(&self, ticket: &Ticket) -> Result<TicketCreated, StoreError> {
        timed("create_ticket", self.inner.create_ticket(ticket)).await
    }

    async fn ticket(&self, id: TicketId) -> Result<Option<Ticket>, StoreError> {
        timed("ticket", self.inner.ticket(id)).await
    }

    async fn tickets_of(&self, player: PlayerId) -> Result<Vec<Ticket>, StoreError> {
        timed("tickets_of", self.inner.tickets_of(player)).await
    }

    async fn cancel_ticket(
        &self,
        id: TicketId,
        player: PlayerId,
        now_ms: u64,
    ) -> Result<Option<Ticket>, StoreError> {
        timed("cancel_ticket", self.inner.cancel_ticket(id, player, now_ms)).await
    }

    async fn waiting_queues(&self) -> Result<Vec<Queue>, StoreError> {
        timed("waiting_queues", self.inner.waiting_queues()).await
    }

    async fn waiting(&self, queue: &Queue) -> Result<Vec<Ticket>, StoreError> {
        timed("waiting", self.inner.waiting(queue)).await
    }

    async fn seeks(&self, game: Option<&str>, limit: usize) -> Result<Vec<Ticket>, StoreError> {
        timed("seeks", self.inner.seeks(game, limit)).await
    }

    async fn pair(&self, pairings: &[Pairing], now_ms: u64) -> Result<Vec<bool>, StoreError> {
        timed("pair", self.inner.pair(pairings, now_ms)).await
    }

    async fn accept_seek(
        &self,
        seek: TicketId,
        accepter: &Ticket,
        pairing: &Pairing,
    ) -> Result<SeekAccepted, StoreError> {
        timed("accept_seek", self.inner.accept_seek(seek, accepter, pairing)).await
    }

    async fn pending_pairings(&self) -> Result<Vec<Pairing>, StoreError> {
        timed("pending_pairings", self.inner.pending_pairings()).await
    }

    async fn assign(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError> {
        timed("assign", self.inner.assign(match_id, now_ms)).await
    }

    async fn unpair(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError> {
        timed("unpair", self.inner.unpair(match_id, now_ms)).await
    }

    async fn expire(&self, ids: &[TicketId], now_ms: u64) -> Result<Vec<Ticket>, StoreError> {
        timed("expire", self.inner.expire(ids, now_ms)).await
    }

    async fn ticket_feed(&self) -> Result<TicketFeed, StoreError> {
        timed("ticket_feed", self.inner.ticket_feed()).await
    }

    async fn rated_match(&self, match_id: MatchId) -> Result<Option<RatedMatch>, StoreError> {
        timed("rated_match", self.inner.rated_match(match_id)).await
    }

    async fn unrated_matches(&self) -> Result<Vec<(MatchId, RatedMatch)>, StoreError> {
        timed("unrated_matches", self.inner.unrated_matches()).await
    }

    async fn rating(&self, game: &str, player: PlayerId) -> Result<Option<Rating>, StoreError> {
        timed("rating", self.inner.rating(game, player)).await
    }

    async fn record_result(
        &self,
        match_id: MatchId,
        game: &str,
        updates: &[RatingUpdate; 2],
    ) -> Result<Recorded, StoreError> {
        timed("record_result", self.inner.record_result(match_id, game, updates)).await
    }

    async fn place(
        &self,
        game: &str,
        player: PlayerId,
        board: Option<Board>,
        score: f64,
    ) -> Result<(), StoreError> {
        timed("place", self.inner.place(game, player, board, score)).await
    }

    async fn leaderboard(
        &self,
        game: &str,
        board: Board,
        start: u64,
        limit: usize,
    ) -> Result<(Vec<(PlayerId, f64)>, u64), StoreError> {
        timed("leaderboard", self.inner.leaderboard(game, board, start, limit)).await
    }

    async fn rank(
        &self,
        game: &str,
        board: Board,
        player: PlayerId,
    ) -> Result<Option<u64>, StoreError> {
        timed("rank", self.inner.rank(game, board, player)).await
    }

    async fn history(
        &self,
        game: &str,
        player: PlayerId,
        limit: usize,
    ) -> Result<Vec<RatingChange>, StoreError> {
        timed("history", self.inner.history(game, player, limit)).await
    }
}

#[async_trait]
impl PresenceStore for Instrumented {
    async fn mark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
        ttl_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        timed("mark_present", self.inner.mark_present(id, seat, holder, now_ms, ttl_ms)).await
    }

    async fn unmark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        timed("unmark_present", self.inner.unmark_present(id, seat, holder, now_ms)).await
    }

    async fn presence(&self, id: MatchId, now_ms: u64) -> Result<Presence, StoreError> {
        timed("presence", self.inner.presence(id, now_ms)).await
    }

    async fn presence_feed(&self) -> Result<PresenceFeed, StoreError> {
        timed("presence_feed", self.inner.presence_feed()).await
    }
}

#[async_trait]
impl PlatformStore for Instrumented {
    async fn put_tenant(&self, tenant: &Tenant) -> Result<(), StoreError> {
        timed("put_tenant", self.inner.put_tenant(tenant)).await
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        timed("tenants", self.inner.tenants()).await
    }

    async fn tenant(&self, id: TenantId) -> Result<Option<Tenant>, StoreError> {
        timed("tenant", self.inner.tenant(id)).await
    }

    async fn put_api_key(&self, key: &ApiKey) -> Result<(), StoreError> {
        timed("put_api_key", self.inner.put_api_key(key)).await
    }

    async fn api_key(&self, key_id: &str) -> Result<Option<ApiKey>, StoreError> {
        timed("api_key", self.inner.api_key(key_id)).await
    }

    async fn api_keys_of(&self, tenant: TenantId) -> Result<Vec<ApiKey>, StoreError> {
        timed("api_keys_of", self.inner.api_keys_of(tenant)).await
    }

    async fn audit(&self, tenant: TenantId, json: &str) -> Result<(), StoreError> {
        timed("audit", self.inner.audit(tenant, json)).await
    }

    async fn audit_tail(&self, tenant: TenantId, limit: usize) -> Result<Vec<String>, StoreError> {
        timed("audit_tail", self.inner.audit_tail(tenant, limit)).await
    }

    async fn begin(&self, b: &Begin<'_>) -> Result<Begun, StoreError> {
        timed("begin", self.inner.begin(b)).await
    }

    async fn finish(
        &self,
        kind: &str,
        tenant: TenantId,
        key: &str,
        events: &[String],
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        timed("finish", self.inner.finish(kind, tenant, key, events, now_ms)).await
    }

    async fn unfinished(&self, kind: &str, limit: usize) -> Result<Vec<Unfinished>, StoreError> {
        timed("unfinished", self.inner.unfinished(kind, limit)).await
    }

    async fn owned(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        timed("owned", self.inner.owned(id)).await
    }

    async fn append_results(&self, append: &Append) -> Result<Appended, StoreError> {
        timed("append_results", self.inner.append_results(append)).await
    }

    async fn results_feed(&self) -> Result<crate::platform::ResultsFeed, StoreError> {
        timed("results_feed", self.inner.results_feed()).await
    }

    async fn read_results(
        &self,
        stream: Stream,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, StoreError> {
        timed("read_results", self.inner.read_results(stream, after, limit)).await
    }

    async fn results_seq(&self, stream: Stream) -> Result<u64, StoreError> {
        timed("results_seq", self.inner.results_seq(stream)).await
    }

    async fn tournaments_of(
        &self,
        tenant: TenantId,
        limit: usize,
    ) -> Result<Vec<TournamentId>, StoreError> {
        timed("tournaments_of", self.inner.tournaments_of(tenant, limit)).await
    }

    async fn due_scheduled(&self, now_ms: u64, limit: usize) -> Result<Vec<MatchId>, StoreError> {
        timed("due_scheduled", self.inner.due_scheduled(now_ms, limit)).await
    }

    async fn unschedule(&self, id: MatchId) -> Result<(), StoreError> {
        timed("unschedule", self.inner.unschedule(id)).await
    }

    async fn live_tournaments(&self) -> Result<Vec<(TenantId, TournamentId)>, StoreError> {
        timed("live_tournaments", self.inner.live_tournaments()).await
    }

    async fn put_public_tournament(
        &self,
        id: TournamentId,
        tenant: TenantId,
    ) -> Result<(), StoreError> {
        timed("put_public_tournament", self.inner.put_public_tournament(id, tenant)).await
    }

    async fn public_tournament(&self, id: TournamentId) -> Result<Option<TenantId>, StoreError> {
        timed("public_tournament", self.inner.public_tournament(id)).await
    }
}

#[async_trait]
impl crate::lease::LeaseStore for Instrumented {
    async fn lease(&self, name: &str, holder: &str, ttl_ms: u64) -> Result<bool, StoreError> {
        timed("lease", self.inner.lease(name, holder, ttl_ms)).await
    }
}

#[async_trait]
impl crate::lifecycle::LifecycleStore for Instrumented {
    async fn announce_finished(&self, finished: &Finished) -> Result<(), StoreError> {
        timed("announce_finished", self.inner.announce_finished(finished)).await
    }

    async fn repair_announcements(
        &self,
        before_ms: u64,
        limit: usize,
    ) -> Result<usize, StoreError> {
        timed("repair_announcements", self.inner.repair_announcements(before_ms, limit)).await
    }

    async fn lifecycle_read(
        &self,
        group: &str,
        consumer: &str,
        count: usize,
        block_ms: u64,
    ) -> Result<Vec<Delivery>, StoreError> {
        // Its time includes the wait for an entry: the histogram shows it as such.
        timed("lifecycle_read", self.inner.lifecycle_read(group, consumer, count, block_ms)).await
    }

    async fn lifecycle_claim(
        &self,
        group: &str,
        consumer: &str,
        min_idle_ms: u64,
        count: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        timed("lifecycle_claim", self.inner.lifecycle_claim(group, consumer, min_idle_ms, count))
            .await
    }

    async fn lifecycle_ack(&self, group: &str, ids: &[String]) -> Result<(), StoreError> {
        timed("lifecycle_ack", self.inner.lifecycle_ack(group, ids)).await
    }

    async fn trim_lifecycle(&self, readers: &[&str]) -> Result<usize, StoreError> {
        timed("trim_lifecycle", self.inner.trim_lifecycle(readers)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;

    #[tokio::test]
    async fn every_call_is_timed_by_operation_and_answers_as_the_store_does() {
        let stop = CancellationToken::new();
        let store = Instrumented::wrap(Arc::new(MemoryStore::new()), stop.clone());
        let id = MatchId::random();
        assert_eq!(store.meta(id).await, Ok(None));
        assert_eq!(store.last_version(id).await, Ok(None));
        let m = service_kit::metrics::render();
        assert!(m.contains("colosseum_store_duration_seconds_count{op=\"meta\"} "), "{m}");
        assert!(m.contains("# TYPE colosseum_store_up gauge"), "{m}");
        stop.cancel();
    }
}
