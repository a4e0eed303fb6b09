//! The lobby on Redis: [`LobbyStore`] for [`RedisStore`], a sequencer. A ticket's state
//! change, a seek's acceptance and a rated result read what they decide on, decide in
//! [`crate::lobby::rules`] (the memory store's rules too) and write through one generic
//! compare-and-set script, `cas.lua` ([`crate::redis_store::cas`]): only if every value read
//! is still current, else read again (at most [`crate::redis_store::cas::ATTEMPTS`] times). All on
//! `{lobby}` keys, one slot, so each script is atomic on one node of a cluster.
//!
//! | operation | Redis |
//! | --- | --- |
//! | `register` / `update_account` | `register.lua` / `update_account.lua` on the email and account keys |
//! | `account` / `account_by_email` | `HGETALL account:<player>` (after `GET email:<digest>`) |
//! | `delete_session` | `DEL colosseum:session:<sha256>` |
//! | `rate_limit` | `rate_limit.lua`: `INCR`, `PEXPIRE` on the first hit, `PTTL`; [`rules::rate_limit`] |
//! | `create_ticket` | `HGET` idem, id, live and `ZRANGE WITHSCORES player-tickets` (one pipeline), `HMGET tickets`; [`rules::create`] and [`rules::forget`], `cas.lua` |
//! | `cancel_ticket` | `HGET tickets`, [`rules::cancel`], `cas.lua` |
//! | `expire` | `HMGET tickets`, [`rules::expire`] each, `cas.lua` |
//! | `pair` | `HMGET tickets` and `HMGET pairings` (one pipeline), [`rules::can_pair`] and [`rules::paired`] in order, `cas.lua` |
//! | `assign` / `unpair` | `HGET pairings`, `HMGET tickets`, [`rules::settle`], `cas.lua` |
//! | `accept_seek` | `HGET` idem, the seek, pairings, the accepter's id, live and `ZRANGE WITHSCORES player-tickets` (one pipeline), `HMGET tickets`; [`rules::accept_seek`] and [`rules::forget`], `cas.lua` |
//! | `ticket` / `tickets_of` / `waiting` / `seeks` | `HGET tickets` / `ZREVRANGE player-tickets`, `SMEMBERS waiting:<queue>`, `ZRANGE seeks`, each then `HMGET tickets` |
//! | `waiting_queues` / `pending_pairings` | `HVALS queues` / `HVALS pairings` |
//! | `ticket_feed` | `SUBSCRIBE colosseum:lobby:tickets` on a dedicated connection |
//! | `rated_match` / `unrated_matches` | `HGET rated-matches` / `SMEMBERS unrated`, `HMGET rated-matches` |
//! | `rating` / `history` | `HGET rating:<game>` / `LRANGE history:<game>:<player>` |
//! | `record_result` | `HGET rated-matches`, `HMGET rating:<game>` (one pipeline), [`rules::record_result`], `cas.lua` |
//! | `place` | `place.lua` |
//! | `leaderboard` / `rank` | `ZREVRANGE WITHSCORES` and `ZCARD` / `ZREVRANK` |
//!
//! Every ticket change ends with a `PUBLISH` per player changed, in the same script.
//!
//! # Tickets in scripts
//!
//! A ticket is one field of `colosseum:{lobby}:tickets`: a record whose every value is a
//! string (`Record`, in `record.rs`), written once when the ticket is created; its state
//! now is a short field of `colosseum:{lobby}:ticket-state`, which every later change
//! compares (`cas.lua`) and writes alone, so no change sends or re-encodes the record. The ticket itself rides in it as JSON written here; its
//! state is the record's. Ratings are written whole from Rust.
//!
//! # Blocking reads
//!
//! `XREADGROUP ... BLOCK` holds its connection until an entry comes or the time runs out,
//! and every command sent behind it on the same connection waits too: on the shared
//! multiplexed connection that would stall the whole process and trip its 2 s response
//! timeout. So a read that blocks goes over a second connection, opened on the first
//! such read (to the server, the Sentinel master in use, or the cluster) with a response
//! timeout above the longest block, [`MAX_BLOCK`], and opened again after a failure. A
//! read that does not block (`block_ms = 0`) uses the shared one.

use crate::error::StoreError;
use crate::lobby::kept::Kept;
use crate::lobby::record::Stored;
use crate::lobby::rules::{self, Accept, Cancel, Create, SeekRead, Settle};
use crate::lobby::{
    self, Account, AccountChange, Board, HISTORY_KEPT, LobbyStore, Pairing, Queue, RateDecision,
    RatedMatch, Rating, RatingChange, RatingUpdate, Recorded, Registered, SeekAccepted,
    TICKETS_KEPT, Ticket, TicketCreated, TicketFeed, TicketState,
};
use crate::matches::model::is_sha256_hex;
use crate::redis_store::cas::{ATTEMPTS, Cas, contended};
use crate::redis_store::codec::{decode, json};
use crate::redis_store::keys;
use crate::redis_store::{RedisStore, corrupt};
use async_trait::async_trait;
use ids::{MatchId, PlayerId, TicketId};
use redis::Script;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use tokio_stream::StreamExt;

/// How many ticket fields one `HMGET` asks for, and how many seeks one page reads.
pub(crate) const BATCH: usize = 500;

/// The lobby's scripts.
pub(crate) static SCRIPTS: std::sync::LazyLock<Scripts> = std::sync::LazyLock::new(Scripts::new);

/// The lobby's Lua scripts, hashed once. They are loaded on first use (`redis::Script`
/// answers `NOSCRIPT` by loading), so processes that never touch the lobby never load them.
pub(crate) struct Scripts {
    register: Script,
    update_account: Script,
    rate_limit: Script,
    place: Script,
}

impl Scripts {
    pub(crate) fn new() -> Self {
        Scripts {
            register: Script::new(include_str!("lua/register.lua")),
            update_account: Script::new(include_str!("lua/update_account.lua")),
            rate_limit: Script::new(include_str!("lua/rate_limit.lua")),
            place: Script::new(include_str!("lua/place.lua")),
        }
    }
}

/// The fields of an account's hash, but its player (the key's name).
pub(crate) fn account_fields(a: &Account) -> Vec<(&'static str, String)> {
    let flag = |b: bool| if b { "1" } else { "0" }.to_string();
    vec![
        ("email", a.email.clone()),
        ("password_phc", a.password_phc.clone()),
        ("display_name", a.display_name.clone()),
        ("leaderboard", flag(a.leaderboard)),
        ("bot", flag(a.bot)),
        ("created_ms", a.created_ms.to_string()),
    ]
}

pub(crate) fn account_from(
    player: PlayerId,
    mut fields: BTreeMap<String, String>,
) -> Result<Account, StoreError> {
    let key = keys::account(player);
    let mut take =
        |name: &str| fields.remove(name).ok_or_else(|| corrupt(&key, format!("no field {name}")));
    Ok(Account {
        player,
        email: take("email")?,
        password_phc: take("password_phc")?,
        display_name: take("display_name")?,
        leaderboard: take("leaderboard")? == "1",
        bot: take("bot")? == "1",
        created_ms: take("created_ms")?.parse().map_err(|e| corrupt(&key, e))?,
    })
}

/// A board's number in `place.lua` (1-3, in
/// [`Board::ALL`] order), `""` for none.
pub(crate) fn board_number(board: Option<Board>) -> String {
    board
        .and_then(|b| Board::ALL.iter().position(|x| *x == b))
        .map(|i| (i + 1).to_string())
        .unwrap_or_default()
}

pub(crate) fn score_arg(score: f64) -> Result<String, StoreError> {
    lobby::check_score(score)?;
    // Rust writes the shortest text that reads back as the same f64; so does Redis
    // (`%.17g`) when it answers.
    Ok(score.to_string())
}

impl RedisStore {
    /// The tickets of `ids` as stored, record and state (`None` for an id with none), in
    /// order: one round trip for the states and the records not kept from an earlier read
    /// (records are written once), and a second only for a kept record whose ticket turns
    /// out to have no state field (forgotten since, or stored before the field).
    pub(crate) async fn ticket_records(
        &self,
        ids: &[String],
    ) -> Result<Vec<Option<Stored>>, StoreError> {
        let kept: Vec<Option<Kept>> =
            ids.iter().map(|id| self.ticket_records.get(id.as_str(), 0)).collect();
        let unkept: Vec<&String> =
            ids.iter().zip(&kept).filter(|(_, k)| k.is_none()).map(|(id, _)| id).collect();
        let mut pipe = redis::pipe();
        for chunk in ids.chunks(BATCH) {
            pipe.cmd("HMGET").arg(keys::TICKET_STATES).arg(chunk);
        }
        for chunk in unkept.chunks(BATCH) {
            pipe.cmd("HMGET").arg(keys::TICKETS).arg(chunk);
        }
        let replies: Vec<Vec<Option<String>>> =
            if ids.is_empty() { Vec::new() } else { pipe.query_async(&mut self.conn()).await? };
        let state_chunks = ids.len().div_ceil(BATCH);
        let mut replies = replies.into_iter();
        let states: Vec<Option<String>> = replies.by_ref().take(state_chunks).flatten().collect();
        let mut fetched = replies.flatten();
        if states.len() != ids.len() {
            return Err(corrupt(keys::TICKETS, "HMGET answered another count"));
        }
        let mut out = Vec::with_capacity(ids.len());
        let mut again = Vec::new();
        for (at, ((id, kept), state)) in ids.iter().zip(kept).zip(states).enumerate() {
            let read = match kept {
                Some(kept) if state.is_some() => Some(kept.stored(state)),
                Some(_) => {
                    // Forgotten, or stored with its state in its record: read it again.
                    self.ticket_records.remove(id.as_str());
                    again.push(at);
                    None
                }
                None => {
                    let record = fetched
                        .next()
                        .ok_or_else(|| corrupt(keys::TICKETS, "HMGET answered another count"))?;
                    match (record, state) {
                        // Kept decoded: a later read decodes nothing (a record that does
                        // not decode is not kept, and the caller's decode says why).
                        (Some(record), Some(state)) => {
                            let record: Arc<str> = Arc::from(record);
                            match Kept::new(record.clone()) {
                                Ok(kept) => {
                                    self.ticket_records.insert(id.clone(), kept.clone(), 0);
                                    Some(kept.stored(Some(state)))
                                }
                                Err(_) => Some(Stored::new(record, Some(state))),
                            }
                        }
                        (record, state) => record.map(|r| Stored::new(r, state)),
                    }
                }
            };
            out.push(read);
        }
        if !again.is_empty() {
            let fields: Vec<&String> = again.iter().map(|&at| &ids[at]).collect();
            let (records, states): (Vec<Option<String>>, Vec<Option<String>>) = redis::pipe()
                .cmd("HMGET")
                .arg(keys::TICKETS)
                .arg(&fields)
                .cmd("HMGET")
                .arg(keys::TICKET_STATES)
                .arg(&fields)
                .query_async(&mut self.conn())
                .await?;
            for ((at, record), state) in again.into_iter().zip(records).zip(states) {
                out[at] = record.map(|record| Stored::new(record, state));
            }
        }
        Ok(out)
    }

    /// The tickets of `ids` that exist, in order.
    pub(crate) async fn tickets(&self, ids: &[String]) -> Result<Vec<Ticket>, StoreError> {
        let records = self.ticket_records(ids).await?;
        records.into_iter().flatten().map(|t| t.ticket()).collect()
    }
}

/// A ticket as read, in its state now.
fn decoded(read: Option<&Stored>) -> Result<Option<Ticket>, StoreError> {
    read.map(Stored::ticket).transpose()
}

/// A new ticket's place in the lobby: the fields and keys its creation reads and guards
/// (its idempotency key's, its id's, its live field's, its player's list), for
/// `create_ticket` and for the accepter's ticket of `accept_seek`.
struct NewTicket {
    id: String,
    idem: String,
    live: String,
    list: String,
}

/// What was read of a [`NewTicket`]'s place: the first round trip's indexes, then the
/// records they name.
struct NewTicketRead {
    idem_id: Option<String>,
    taken: bool,
    live_id: Option<String>,
    listed: Vec<(String, u64)>,
    before_record: Option<Stored>,
    live_record: Option<Stored>,
    list_records: Vec<Option<Stored>>,
}

/// The first round trip's answers for a [`NewTicket`]: idem, id, live, list.
type NewTicketIndexes = (Option<String>, bool, Option<String>, Vec<(String, u64)>);

impl NewTicket {
    fn new(ticket: &Ticket) -> Self {
        NewTicket {
            id: ticket.id.to_string(),
            idem: keys::idem_field(ticket.player, &ticket.idempotency_key),
            live: keys::live_field(ticket.player, &ticket.queue.key()),
            list: keys::player_tickets(ticket.player),
        }
    }

    /// Adds the first round trip's four reads to `pipe`, in [`NewTicketIndexes`]'s order.
    fn read_indexes(&self, pipe: &mut redis::Pipeline) {
        pipe.cmd("HGET").arg(keys::TICKET_IDEM).arg(&self.idem);
        pipe.cmd("HEXISTS").arg(keys::TICKETS).arg(&self.id);
        pipe.cmd("HGET").arg(keys::LIVE).arg(&self.live);
        pipe.cmd("ZRANGE").arg(&self.list).arg(0).arg(-1).arg("WITHSCORES");
    }

    /// The second round trip: the records the indexes name.
    async fn read_records(
        &self,
        store: &RedisStore,
        (idem_id, taken, live_id, listed): NewTicketIndexes,
    ) -> Result<NewTicketRead, StoreError> {
        let mut wanted: Vec<String> = listed.iter().map(|(m, _)| m.clone()).collect();
        wanted.extend(idem_id.iter().chain(&live_id).cloned());
        let mut records = store.ticket_records(&wanted).await?;
        let live_record = if live_id.is_some() { records.pop().flatten() } else { None };
        let before_record = if idem_id.is_some() { records.pop().flatten() } else { None };
        Ok(NewTicketRead {
            idem_id,
            taken,
            live_id,
            listed,
            before_record,
            live_record,
            list_records: records,
        })
    }

    /// Stores `stored` (the ticket as created) if its place is still as `read` says: the
    /// record, its indexes, its queue or the seeks, its player's list with the oldest ended
    /// tickets past [`TICKETS_KEPT`] forgotten ([`rules::forget`]).
    fn write(
        &self,
        cas: &mut Cas,
        read: &NewTicketRead,
        stored: &Ticket,
    ) -> Result<(), StoreError> {
        cas.expect(keys::TICKET_IDEM, &self.idem, read.idem_id.as_deref());
        if let Some(before) = &read.idem_id {
            cas.expect_ticket(before, read.before_record.as_ref());
        }
        cas.expect(keys::TICKETS, &self.id, None);
        cas.expect(keys::LIVE, &self.live, read.live_id.as_deref());
        if let Some(live_id) = &read.live_id {
            cas.expect_ticket(live_id, read.live_record.as_ref());
        }
        cas.save(stored)?;
        cas.write("HSET", keys::TICKET_IDEM, &[&self.idem, &self.id]);
        cas.write("HSET", keys::LIVE, &[&self.live, &self.id]);
        if stored.state == TicketState::Waiting {
            cas.list(stored)?;
        }
        // The list with the new ticket, as ZADD orders it; the oldest ended ones past
        // TICKETS_KEPT are forgotten.
        let members: Vec<String> = read.listed.iter().map(|(m, _)| m.clone()).collect();
        cas.expect_members(&self.list, &members);
        let mut mine: Vec<(u64, String, Option<Ticket>)> = Vec::with_capacity(members.len() + 1);
        for ((member, score), record) in read.listed.iter().zip(&read.list_records) {
            if read.listed.len() + 1 > TICKETS_KEPT {
                cas.expect_ticket(member, record.as_ref());
            }
            mine.push((*score, member.clone(), decoded(record.as_ref())?));
        }
        mine.push((stored.created_ms, self.id.clone(), Some(stored.clone())));
        mine.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
        let entries = mine
            .iter()
            .map(|(_, m, t)| Ok((m.parse().map_err(|e| corrupt(&self.list, e))?, t.as_ref())))
            .collect::<Result<Vec<(TicketId, Option<&Ticket>)>, StoreError>>()?;
        cas.write("ZADD", &self.list, &[&stored.created_ms.to_string(), &self.id]);
        for old in rules::forget(&entries, TICKETS_KEPT) {
            let old_field = old.to_string();
            cas.write("ZREM", &self.list, &[&old_field]);
            if let Some((_, _, Some(t))) = mine.iter().find(|(_, m, _)| *m == old_field) {
                cas.forget(&old_field);
                let old_idem = keys::idem_field(t.player, &t.idempotency_key);
                cas.write("HDELEQ", keys::TICKET_IDEM, &[&old_idem, &old_field]);
            }
        }
        Ok(())
    }
}

impl RedisStore {
    /// `assign` and `unpair`: the pending pairing and its tickets read, the tickets still
    /// pairing in its match moved as [`rules::settle`] says, the pairing dropped (and on
    /// unpairing, its rated match), if all is still as read.
    async fn settle(
        &self,
        match_id: MatchId,
        how: Settle,
        now_ms: u64,
    ) -> Result<bool, StoreError> {
        let field = match_id.to_string();
        for _ in 0..ATTEMPTS {
            let old: Option<String> = redis::cmd("HGET")
                .arg(keys::PAIRINGS)
                .arg(&field)
                .query_async(&mut self.conn())
                .await?;
            let Some(old) = old else { return Ok(false) };
            let pairing: Pairing = decode(keys::PAIRINGS, &old)?;
            let ids = pairing.tickets.map(|t| t.to_string());
            let records = self.ticket_records(&ids).await?;
            let mut cas = Cas::new();
            cas.expect(keys::PAIRINGS, &field, Some(&old));
            let mut tickets = Vec::with_capacity(2);
            for (id, record) in ids.iter().zip(&records) {
                cas.expect_ticket(id, record.as_ref());
                tickets.push(decoded(record.as_ref())?);
            }
            for after in rules::settle(match_id, &tickets, how, now_ms) {
                match how {
                    Settle::Assign => cas.unlive(&after),
                    Settle::Unpair => cas.list(&after)?,
                }
                let at = tickets.iter().position(|t| t.as_ref().is_some_and(|t| t.id == after.id));
                cas.save_over(at.and_then(|at| records[at].as_ref()), &after)?;
            }
            cas.write("HDEL", keys::PAIRINGS, &[&field]);
            if how == Settle::Unpair {
                // The match will not be made: nothing to rate.
                cas.write("HDEL", keys::RATED_MATCHES, &[&field]);
                cas.write("SREM", keys::UNRATED, &[&field]);
            }
            if cas.run(self).await? {
                return Ok(true);
            }
        }
        Err(contended(match how {
            Settle::Assign => "lobby assign",
            Settle::Unpair => "lobby unpair",
        }))
    }
}

#[async_trait]
impl LobbyStore for RedisStore {
    async fn register(&self, account: &Account) -> Result<Registered, StoreError> {
        let mut call = SCRIPTS.register.prepare_invoke();
        call.key(keys::email(&account.email)).key(keys::account(account.player));
        call.arg(account.player.to_string());
        for (field, value) in account_fields(account) {
            call.arg(field).arg(value);
        }
        let stored: i64 = call.invoke_async(&mut self.conn()).await?;
        Ok(if stored == 1 { Registered::Created } else { Registered::EmailTaken })
    }

    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError> {
        let key = keys::email(email);
        let player: Option<String> =
            redis::cmd("GET").arg(&key).query_async(&mut self.conn()).await?;
        let Some(player) = player else { return Ok(None) };
        let player: PlayerId = player.parse().map_err(|e| corrupt(&key, e))?;
        match self.account(player).await? {
            Some(account) => Ok(Some(account)),
            // Both are written by one script: an email without its account is damage.
            None => Err(corrupt(&key, "its account is missing")),
        }
    }

    async fn account(&self, player: PlayerId) -> Result<Option<Account>, StoreError> {
        let fields: BTreeMap<String, String> =
            redis::cmd("HGETALL").arg(keys::account(player)).query_async(&mut self.conn()).await?;
        if fields.is_empty() {
            return Ok(None);
        }
        account_from(player, fields).map(Some)
    }

    async fn update_account(
        &self,
        player: PlayerId,
        change: &AccountChange,
    ) -> Result<bool, StoreError> {
        let mut call = SCRIPTS.update_account.prepare_invoke();
        call.key(keys::account(player));
        for (field, value) in change.fields() {
            call.arg(field).arg(value);
        }
        let updated: i64 = call.invoke_async(&mut self.conn()).await?;
        Ok(updated == 1)
    }

    async fn delete_session(&self, token_sha256_hex: &str) -> Result<(), StoreError> {
        if !is_sha256_hex(token_sha256_hex) {
            return Err(StoreError::InvalidArgument("a session key is a lower-case hex SHA-256"));
        }
        let () = redis::cmd("DEL")
            .arg(keys::session(token_sha256_hex))
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn rate_limit(
        &self,
        bucket: &str,
        window_ms: u64,
        limit: u32,
    ) -> Result<RateDecision, StoreError> {
        let (hits, left_ms): (u64, u64) = SCRIPTS
            .rate_limit
            .key(keys::rate_limit(bucket))
            .arg(window_ms.max(1))
            .invoke_async(&mut self.conn())
            .await?;
        Ok(rules::rate_limit(hits, limit, left_ms))
    }

    async fn create_ticket(&self, ticket: &Ticket) -> Result<TicketCreated, StoreError> {
        let place = NewTicket::new(ticket);
        for _ in 0..ATTEMPTS {
            // Two round trips: the indexes, then the tickets they name.
            let mut pipe = redis::pipe();
            place.read_indexes(&mut pipe);
            let indexes: NewTicketIndexes = pipe.query_async(&mut self.conn()).await?;
            let read = place.read_records(self, indexes).await?;
            let before = decoded(read.before_record.as_ref())?;
            let live = decoded(read.live_record.as_ref())?;
            let stored = match rules::create(ticket, before.as_ref(), live.as_ref(), read.taken)? {
                Create::Answer(answer) => return Ok(answer),
                Create::Store(stored) => stored,
            };
            let mut cas = Cas::new();
            place.write(&mut cas, &read, &stored)?;
            if cas.run(self).await? {
                return Ok(TicketCreated::Created(stored));
            }
        }
        Err(contended("lobby create_ticket"))
    }

    async fn ticket(&self, id: TicketId) -> Result<Option<Ticket>, StoreError> {
        let read = self.ticket_records(&[id.to_string()]).await?;
        decoded(read.first().and_then(Option::as_ref))
    }

    async fn tickets_of(&self, player: PlayerId) -> Result<Vec<Ticket>, StoreError> {
        let ids: Vec<String> = redis::cmd("ZREVRANGE")
            .arg(keys::player_tickets(player))
            .arg(0)
            .arg(TICKETS_KEPT - 1)
            .query_async(&mut self.conn())
            .await?;
        self.tickets(&ids).await
    }

    async fn cancel_ticket(
        &self,
        id: TicketId,
        player: PlayerId,
        now_ms: u64,
    ) -> Result<Option<Ticket>, StoreError> {
        let field = id.to_string();
        for _ in 0..ATTEMPTS {
            let old = self.ticket_records(std::slice::from_ref(&field)).await?.pop().flatten();
            let ticket = decoded(old.as_ref())?;
            let after = match rules::cancel(ticket.as_ref(), player, now_ms) {
                Cancel::NotFound => return Ok(None),
                Cancel::Unchanged(ticket) => return Ok(Some(ticket)),
                Cancel::Cancelled(after) => after,
            };
            let mut cas = Cas::new();
            cas.expect_ticket(&field, old.as_ref());
            cas.unlist(&after);
            cas.unlive(&after);
            cas.save_over(old.as_ref(), &after)?;
            if cas.run(self).await? {
                return Ok(Some(after));
            }
        }
        Err(contended("lobby cancel_ticket"))
    }

    async fn waiting_queues(&self) -> Result<Vec<Queue>, StoreError> {
        let queues: Vec<String> =
            redis::cmd("HVALS").arg(keys::QUEUES).query_async(&mut self.conn()).await?;
        queues.iter().map(|q| decode(keys::QUEUES, q)).collect()
    }

    async fn waiting(&self, queue: &Queue) -> Result<Vec<Ticket>, StoreError> {
        let ids: Vec<String> = redis::cmd("SMEMBERS")
            .arg(keys::waiting(&queue.key()))
            .query_async(&mut self.conn())
            .await?;
        // Read in two steps: a ticket paired or cancelled in between is left out.
        let tickets = self.tickets(&ids).await?;
        Ok(tickets.into_iter().filter(|t| t.state == TicketState::Waiting).collect())
    }

    async fn seeks(&self, game: Option<&str>, limit: usize) -> Result<Vec<Ticket>, StoreError> {
        let mut found = Vec::new();
        let mut start = 0;
        while found.len() < limit {
            let page: Vec<String> = redis::cmd("ZRANGE")
                .arg(keys::SEEKS)
                .arg(start)
                .arg(start + BATCH - 1)
                .query_async(&mut self.conn())
                .await?;
            let last = page.len() < BATCH;
            start += BATCH;
            found.extend(self.tickets(&page).await?.into_iter().filter(|t| {
                t.state == TicketState::Waiting && game.is_none_or(|g| t.queue.game == g)
            }));
            if last {
                break;
            }
        }
        found.truncate(limit);
        Ok(found)
    }

    async fn pair(&self, pairings: &[Pairing], now_ms: u64) -> Result<Vec<bool>, StoreError> {
        if pairings.is_empty() {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = pairings
            .iter()
            .flat_map(|p| p.tickets)
            .collect::<BTreeSet<_>>()
            .iter()
            .map(ToString::to_string)
            .collect();
        let matches: Vec<String> = pairings.iter().map(|p| p.match_id.to_string()).collect();
        for _ in 0..ATTEMPTS {
            // The tickets (their states, and only the records not kept) and whether each
            // match is pending already, asked at once.
            let mut conn = self.conn();
            let pending = redis::cmd("HMGET").arg(keys::PAIRINGS).arg(&matches).to_owned();
            let (records, pending): (Vec<Option<Stored>>, Vec<Option<String>>) =
                tokio::try_join!(self.ticket_records(&ids), async {
                    Ok(pending.query_async(&mut conn).await?)
                },)?;
            if records.len() != ids.len() || pending.len() != matches.len() {
                return Err(corrupt(keys::TICKETS, "HMGET answered another count"));
            }
            let mut cas = Cas::new();
            let (mut now, mut read) = (BTreeMap::new(), BTreeMap::new());
            for (id, record) in ids.iter().zip(&records) {
                cas.expect_ticket(id, record.as_ref());
                if let Some(record) = record {
                    let ticket = record.ticket()?;
                    read.insert(ticket.id, record);
                    now.insert(ticket.id, ticket);
                }
            }
            let mut made_now = BTreeSet::new();
            for (m, p) in matches.iter().zip(&pending) {
                cas.expect(keys::PAIRINGS, m, p.as_deref());
            }
            // Decided in order, each on what the ones before it made.
            let mut made = Vec::with_capacity(pairings.len());
            for (p, was_pending) in pairings.iter().zip(&pending) {
                let pending = was_pending.is_some() || made_now.contains(&p.match_id);
                let [a, b] = p.tickets.map(|id| now.get(&id));
                let ok = rules::can_pair(p, [a, b], pending, now_ms);
                if let (true, Some(a), Some(b)) = (ok, a, b) {
                    for after in rules::paired(p, [a, b], now_ms) {
                        cas.unlist(&after);
                        cas.save_over(read.get(&after.id).copied(), &after)?;
                        now.insert(after.id, after);
                    }
                    cas.store_pairing(p)?;
                    made_now.insert(p.match_id);
                }
                made.push(ok);
            }
            if cas.is_empty() || cas.run(self).await? {
                return Ok(made);
            }
        }
        Err(contended("lobby pair"))
    }

    async fn accept_seek(
        &self,
        seek: TicketId,
        accepter: &Ticket,
        pairing: &Pairing,
    ) -> Result<SeekAccepted, StoreError> {
        rules::accept_seats(seek, accepter, pairing)?;
        let seek_field = seek.to_string();
        let match_field = pairing.match_id.to_string();
        let place = NewTicket::new(accepter);
        for _ in 0..ATTEMPTS {
            // Two round trips: the indexes (the accepter's place, the seek, the pairing),
            // then the tickets they name.
            let mut pipe = redis::pipe();
            place.read_indexes(&mut pipe);
            pipe.cmd("HGET").arg(keys::TICKETS).arg(&seek_field);
            pipe.cmd("HGET").arg(keys::TICKET_STATES).arg(&seek_field);
            pipe.cmd("HGET").arg(keys::PAIRINGS).arg(&match_field);
            #[allow(clippy::type_complexity)]
            let (idem_id, taken, live_id, listed, seek_record, seek_state, pending): (
                Option<String>,
                bool,
                Option<String>,
                Vec<(String, u64)>,
                Option<String>,
                Option<String>,
                Option<String>,
            ) = pipe.query_async(&mut self.conn()).await?;
            let read = place.read_records(self, (idem_id, taken, live_id, listed)).await?;
            let seek_record = seek_record.map(|record| Stored::new(record, seek_state));
            let before = decoded(read.before_record.as_ref())?;
            let listed_seek = decoded(seek_record.as_ref())?;
            let live_ticket = decoded(read.live_record.as_ref())?;
            let seek_read = SeekRead {
                before: before.as_ref(),
                seek: listed_seek.as_ref(),
                pending: pending.is_some(),
                id_taken: read.taken,
                live: live_ticket.as_ref(),
            };
            let (after_seek, stored) =
                match rules::accept_seek(seek, accepter, pairing, &seek_read)? {
                    Accept::Answer(answer) => return Ok(answer),
                    Accept::Pair { seek, accepter } => (seek, accepter),
                };
            let mut cas = Cas::new();
            cas.expect_ticket(&seek_field, seek_record.as_ref());
            cas.expect(keys::PAIRINGS, &match_field, None);
            cas.unlist(&after_seek);
            cas.save_over(seek_record.as_ref(), &after_seek)?;
            place.write(&mut cas, &read, &stored)?;
            cas.store_pairing(pairing)?;
            if cas.run(self).await? {
                return Ok(SeekAccepted::Paired(pairing.clone()));
            }
        }
        Err(contended("lobby accept_seek"))
    }

    async fn pending_pairings(&self) -> Result<Vec<Pairing>, StoreError> {
        let pairings: Vec<String> =
            redis::cmd("HVALS").arg(keys::PAIRINGS).query_async(&mut self.conn()).await?;
        pairings.iter().map(|p| decode(keys::PAIRINGS, p)).collect()
    }

    async fn assign(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError> {
        self.settle(match_id, Settle::Assign, now_ms).await
    }

    async fn unpair(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError> {
        self.settle(match_id, Settle::Unpair, now_ms).await
    }

    async fn expire(&self, ids: &[TicketId], now_ms: u64) -> Result<Vec<Ticket>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let fields: Vec<String> = ids.iter().map(ToString::to_string).collect();
        for _ in 0..ATTEMPTS {
            let records = self.ticket_records(&fields).await?;
            let mut cas = Cas::new();
            let mut expired = Vec::new();
            let mut seen = BTreeSet::new();
            for ((id, field), old) in ids.iter().zip(&fields).zip(&records) {
                let Some(old) = old else { continue };
                if !seen.insert(*id) {
                    continue;
                }
                let Some(after) = rules::expire(&old.ticket()?, now_ms) else { continue };
                cas.expect_ticket(field, Some(old));
                cas.unlist(&after);
                cas.unlive(&after);
                cas.save_over(Some(old), &after)?;
                expired.push(after);
            }
            if cas.is_empty() || cas.run(self).await? {
                return Ok(expired);
            }
        }
        Err(contended("lobby expire"))
    }

    async fn ticket_feed(&self) -> Result<TicketFeed, StoreError> {
        let messages = self.listen(keys::TICKET_CHANGES).await?;
        let feed = messages.filter_map(|msg| {
            let player = std::str::from_utf8(msg.get_payload_bytes())
                .ok()
                .and_then(|text| text.parse::<PlayerId>().ok());
            if player.is_none() {
                tracing::warn!(
                    channel = keys::TICKET_CHANGES,
                    payload = %String::from_utf8_lossy(msg.get_payload_bytes()),
                    "skipped a malformed ticket notification"
                );
            }
            player
        });
        Ok(Box::pin(feed))
    }

    async fn rated_match(&self, match_id: MatchId) -> Result<Option<RatedMatch>, StoreError> {
        let rated: Option<String> = redis::cmd("HGET")
            .arg(keys::RATED_MATCHES)
            .arg(match_id.to_string())
            .query_async(&mut self.conn())
            .await?;
        rated.map(|r| decode(keys::RATED_MATCHES, &r)).transpose()
    }

    async fn unrated_matches(&self) -> Result<Vec<(MatchId, RatedMatch)>, StoreError> {
        let ids: Vec<String> =
            redis::cmd("SMEMBERS").arg(keys::UNRATED).query_async(&mut self.conn()).await?;
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(BATCH) {
            let rated: Vec<Option<String>> = redis::cmd("HMGET")
                .arg(keys::RATED_MATCHES)
                .arg(chunk)
                .query_async(&mut self.conn())
                .await?;
            for (id, rated) in chunk.iter().zip(rated) {
                // Rated meanwhile (or unpaired): no longer unrated.
                let Some(rated) = rated else { continue };
                let id = id.parse().map_err(|e| corrupt(keys::UNRATED, e))?;
                out.push((id, decode(keys::RATED_MATCHES, &rated)?));
            }
        }
        Ok(out)
    }

    async fn rating(&self, game: &str, player: PlayerId) -> Result<Option<Rating>, StoreError> {
        let key = keys::rating(game);
        let rating: Option<String> = redis::cmd("HGET")
            .arg(&key)
            .arg(player.to_string())
            .query_async(&mut self.conn())
            .await?;
        rating.map(|r| decode(&key, &r)).transpose()
    }

    async fn record_result(
        &self,
        match_id: MatchId,
        game: &str,
        updates: &[RatingUpdate; 2],
    ) -> Result<Recorded, StoreError> {
        let scores = [score_arg(updates[0].after.rating)?, score_arg(updates[1].after.rating)?];
        let field = match_id.to_string();
        let ratings = keys::rating(game);
        let players = updates.each_ref().map(|u| u.player.to_string());
        for _ in 0..ATTEMPTS {
            // One round trip: whether the match waits for its result, and both ratings.
            let (rated, current): (Option<String>, Vec<Option<String>>) = redis::pipe()
                .cmd("HGET")
                .arg(keys::RATED_MATCHES)
                .arg(&field)
                .cmd("HMGET")
                .arg(&ratings)
                .arg(&players)
                .query_async(&mut self.conn())
                .await?;
            let mut games = [0; 2];
            for (g, rating) in games.iter_mut().zip(&current) {
                if let Some(rating) = rating {
                    *g = decode::<Rating>(&ratings, rating)?.games;
                }
            }
            let recorded = rules::record_result(rated.is_some(), games, updates);
            if recorded != Recorded::Applied {
                return Ok(recorded);
            }
            let mut cas = Cas::new();
            cas.expect(keys::RATED_MATCHES, &field, rated.as_deref());
            for (player, rating) in players.iter().zip(&current) {
                cas.expect(&ratings, player, rating.as_deref());
            }
            for ((u, player), score) in updates.iter().zip(&players).zip(&scores) {
                cas.write("HSET", &ratings, &[player, &json(&u.after)?]);
                for board in Board::ALL {
                    if u.board == Some(board) {
                        cas.write("ZADD", &keys::board(game, board), &[score, player]);
                    } else {
                        cas.write("ZREM", &keys::board(game, board), &[player]);
                    }
                }
                let kept = HISTORY_KEPT.to_string();
                cas.write("TRIM", &keys::history(game, u.player), &[&json(&u.change)?, &kept]);
            }
            cas.write("HDEL", keys::RATED_MATCHES, &[&field]);
            cas.write("SREM", keys::UNRATED, &[&field]);
            if cas.run(self).await? {
                return Ok(Recorded::Applied);
            }
        }
        Err(contended("lobby record_result"))
    }

    async fn place(
        &self,
        game: &str,
        player: PlayerId,
        board: Option<Board>,
        score: f64,
    ) -> Result<(), StoreError> {
        let mut call = SCRIPTS.place.prepare_invoke();
        for b in Board::ALL {
            call.key(keys::board(game, b));
        }
        call.arg(player.to_string()).arg(board_number(board)).arg(score_arg(score)?);
        let _: i64 = call.invoke_async(&mut self.conn()).await?;
        Ok(())
    }

    async fn leaderboard(
        &self,
        game: &str,
        board: Board,
        start: u64,
        limit: usize,
    ) -> Result<(Vec<(PlayerId, f64)>, u64), StoreError> {
        let key = keys::board(game, board);
        let total: u64 = redis::cmd("ZCARD").arg(&key).query_async(&mut self.conn()).await?;
        if limit == 0 || start >= total {
            return Ok((Vec::new(), total));
        }
        // Redis ranges are i64: a limit past every board is "to the end".
        let stop = start.saturating_add(limit as u64 - 1).min(i64::MAX as u64);
        let page: Vec<(String, f64)> = redis::cmd("ZREVRANGE")
            .arg(&key)
            .arg(start)
            .arg(stop)
            .arg("WITHSCORES")
            .query_async(&mut self.conn())
            .await?;
        let page = page
            .into_iter()
            .map(|(p, score)| Ok((p.parse().map_err(|e| corrupt(&key, e))?, score)))
            .collect::<Result<Vec<_>, StoreError>>()?;
        Ok((page, total))
    }

    async fn rank(
        &self,
        game: &str,
        board: Board,
        player: PlayerId,
    ) -> Result<Option<u64>, StoreError> {
        Ok(redis::cmd("ZREVRANK")
            .arg(keys::board(game, board))
            .arg(player.to_string())
            .query_async(&mut self.conn())
            .await?)
    }

    async fn history(
        &self,
        game: &str,
        player: PlayerId,
        limit: usize,
    ) -> Result<Vec<RatingChange>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = keys::history(game, player);
        let lines: Vec<String> = redis::cmd("LRANGE")
            .arg(&key)
            .arg(0)
            .arg((limit - 1).min(i64::MAX as usize))
            .query_async(&mut self.conn())
            .await?;
        lines.iter().map(|l| decode(&key, l)).collect()
    }
}
