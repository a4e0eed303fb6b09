//! The lobby on Redis: [`LobbyStore`] for [`RedisStore`], a sequencer. A ticket's state
//! change, a seek's acceptance and a rated result read what they decide on, decide in
//! [`crate::lobby::rules`] (the memory store's rules too) and write through one generic
//! compare-and-set script, `lua/cas.lua` ([`crate::lobby::cas`]): only if every value read
//! is still current, else read again (at most [`crate::lobby::cas::ATTEMPTS`] times). All on
//! `{lobby}` keys, one slot, so each script is atomic on one node of a cluster.
//!
//! | operation | Redis |
//! | --- | --- |
//! | `register` / `update_account` | `register.lua` / `update_account.lua` on the email and account keys |
//! | `account` / `account_by_email` | `HGETALL account:<player>` (after `GET email:<digest>`) |
//! | `delete_session` | `DEL colosseum:session:<sha256>` |
//! | `rate_limit` | `rate_limit.lua`: `INCR`, `PEXPIRE` on the first hit, `PTTL`; [`rules::rate_limit`] |
//! | `create_ticket` | `create_ticket.lua` after `prelude.lua`, ending with a `PUBLISH` |
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
//! string ([`Record`], in `record.rs`), so `create_ticket.lua` decodes and re-encodes it with cjson without
//! the 14-digit rounding cjson applies to numbers; `cas.lua` only compares a record's
//! exact text with what was read. The ticket itself rides in it as JSON written here; its
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
use crate::lobby::cas::{ATTEMPTS, Cas, contended};
use crate::lobby::record::Record;
use crate::lobby::rules::{self, Accept, Cancel, SeekRead, Settle};
use crate::lobby::{
    self, Account, AccountChange, Board, HISTORY_KEPT, LobbyStore, Pairing, Queue, RateDecision,
    RatedMatch, Rating, RatingChange, RatingUpdate, Recorded, Registered, SeekAccepted,
    TICKETS_KEPT, Ticket, TicketCreated, TicketFeed, TicketState,
};
use crate::matches::model::is_sha256_hex;
use crate::redis_store::codec::{decode, json};
use crate::redis_store::keys;
use crate::redis_store::{RedisStore, corrupt};
use async_trait::async_trait;
use ids::{MatchId, PlayerId, TicketId};
use redis::{Script, ScriptInvocation};
use std::collections::{BTreeMap, BTreeSet};
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
    create_ticket: Script,
}

/// A ticket script: the shared prelude, then the script itself.
macro_rules! ticket_script {
    ($file:literal) => {
        Script::new(concat!(include_str!("lua/prelude.lua"), include_str!($file)))
    };
}

impl Scripts {
    pub(crate) fn new() -> Self {
        Scripts {
            register: Script::new(include_str!("lua/register.lua")),
            update_account: Script::new(include_str!("lua/update_account.lua")),
            rate_limit: Script::new(include_str!("lua/rate_limit.lua")),
            place: Script::new(include_str!("lua/place.lua")),
            create_ticket: ticket_script!("lua/create_ticket.lua"),
        }
    }
}

/// A call of a ticket script with the keys and arguments of `prelude.lua`; its own keys
/// follow from `KEYS[6]`, its own arguments from `ARGV[4]`.
pub(crate) fn ticket_call(script: &Script) -> ScriptInvocation<'_> {
    let mut call = script.prepare_invoke();
    call.key(keys::TICKETS)
        .key(keys::SEEKS)
        .key(keys::QUEUES)
        .key(keys::LIVE)
        .key(keys::TICKET_IDEM);
    call.arg(keys::WAITING_PREFIX).arg(keys::TICKET_CHANGES).arg(TICKETS_KEPT);
    call
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
    /// The records of `ids` (`None` for an id with none), in order.
    pub(crate) async fn ticket_records(
        &self,
        ids: &[String],
    ) -> Result<Vec<Option<String>>, StoreError> {
        let mut out = Vec::with_capacity(ids.len());
        for chunk in ids.chunks(BATCH) {
            let found: Vec<Option<String>> = redis::cmd("HMGET")
                .arg(keys::TICKETS)
                .arg(chunk)
                .query_async(&mut self.conn())
                .await?;
            out.extend(found);
        }
        Ok(out)
    }

    /// The tickets of `ids` that exist, in order.
    pub(crate) async fn tickets(&self, ids: &[String]) -> Result<Vec<Ticket>, StoreError> {
        let records = self.ticket_records(ids).await?;
        records.into_iter().flatten().map(|r| Record::ticket(&r)).collect()
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
                cas.expect(keys::TICKETS, id, record.as_deref());
                tickets.push(record.as_deref().map(Record::ticket).transpose()?);
            }
            for after in rules::settle(match_id, &tickets, how, now_ms) {
                match how {
                    Settle::Assign => cas.unlive(&after),
                    Settle::Unpair => cas.list(&after)?,
                }
                let at = tickets.iter().position(|t| t.as_ref().is_some_and(|t| t.id == after.id));
                cas.save_over(at.and_then(|at| records[at].as_deref()), &after)?;
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
            Settle::Assign => "assign",
            Settle::Unpair => "unpair",
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
        let record = json(&Record::new(ticket, TicketState::Waiting, ticket.changed_ms)?)?;
        let mut call = ticket_call(&SCRIPTS.create_ticket);
        call.key(keys::player_tickets(ticket.player));
        call.arg(ticket.id.to_string()).arg(record);
        let (code, record): (i64, String) = call.invoke_async(&mut self.conn()).await?;
        match code {
            0 => Ok(TicketCreated::Created(Record::ticket(&record)?)),
            1 => {
                let before = Record::ticket(&record)?;
                Ok(if before.queue == ticket.queue && before.seek == ticket.seek {
                    TicketCreated::Duplicate(before)
                } else {
                    TicketCreated::KeyReused(before)
                })
            }
            2 => Ok(TicketCreated::LiveInQueue(Record::ticket(&record)?)),
            3 => Err(StoreError::InvalidArgument("the ticket id is taken")),
            other => Err(corrupt(keys::TICKETS, format!("create script answered {other}"))),
        }
    }

    async fn ticket(&self, id: TicketId) -> Result<Option<Ticket>, StoreError> {
        let record: Option<String> = redis::cmd("HGET")
            .arg(keys::TICKETS)
            .arg(id.to_string())
            .query_async(&mut self.conn())
            .await?;
        record.map(|r| Record::ticket(&r)).transpose()
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
            let old: Option<String> = redis::cmd("HGET")
                .arg(keys::TICKETS)
                .arg(&field)
                .query_async(&mut self.conn())
                .await?;
            let ticket = old.as_deref().map(Record::ticket).transpose()?;
            let after = match rules::cancel(ticket.as_ref(), player, now_ms) {
                Cancel::NotFound => return Ok(None),
                Cancel::Unchanged(ticket) => return Ok(Some(ticket)),
                Cancel::Cancelled(after) => after,
            };
            let mut cas = Cas::new();
            cas.expect(keys::TICKETS, &field, old.as_deref());
            cas.unlist(&after);
            cas.unlive(&after);
            cas.save_over(old.as_deref(), &after)?;
            if cas.run(self).await? {
                return Ok(Some(after));
            }
        }
        Err(contended("cancel_ticket"))
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
            // One round trip: the tickets and whether each match is pending already.
            let mut reads = redis::pipe();
            for chunk in ids.chunks(BATCH) {
                reads.cmd("HMGET").arg(keys::TICKETS).arg(chunk);
            }
            reads.cmd("HMGET").arg(keys::PAIRINGS).arg(&matches);
            let mut replies: Vec<Vec<Option<String>>> = reads.query_async(&mut self.conn()).await?;
            let pending = replies.pop().unwrap_or_default();
            let records: Vec<Option<String>> = replies.into_iter().flatten().collect();
            if records.len() != ids.len() || pending.len() != matches.len() {
                return Err(corrupt(keys::TICKETS, "HMGET answered another count"));
            }
            let mut cas = Cas::new();
            let (mut now, mut stored) = (BTreeMap::new(), BTreeMap::new());
            for (id, record) in ids.iter().zip(&records) {
                cas.expect(keys::TICKETS, id, record.as_deref());
                if let Some(record) = record {
                    let ticket = Record::ticket(record)?;
                    stored.insert(ticket.id, record.as_str());
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
                        cas.save_over(stored.get(&after.id).copied(), &after)?;
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
        Err(contended("pair"))
    }

    async fn accept_seek(
        &self,
        seek: TicketId,
        accepter: &Ticket,
        pairing: &Pairing,
    ) -> Result<SeekAccepted, StoreError> {
        rules::accept_seats(seek, accepter, pairing)?;
        let (seek_field, id) = (seek.to_string(), accepter.id.to_string());
        let match_field = pairing.match_id.to_string();
        let idem = keys::idem_field(accepter.player, &accepter.idempotency_key);
        let live = keys::live_field(accepter.player, &accepter.queue.key());
        let list = keys::player_tickets(accepter.player);
        for _ in 0..ATTEMPTS {
            // Two round trips: the indexes, then the tickets they name.
            #[allow(clippy::type_complexity)]
            let (idem_id, seek_record, pending, taken, live_id, listed): (
                Option<String>,
                Option<String>,
                Option<String>,
                Option<String>,
                Option<String>,
                Vec<(String, u64)>,
            ) = redis::pipe()
                .cmd("HGET")
                .arg(keys::TICKET_IDEM)
                .arg(&idem)
                .cmd("HGET")
                .arg(keys::TICKETS)
                .arg(&seek_field)
                .cmd("HGET")
                .arg(keys::PAIRINGS)
                .arg(&match_field)
                .cmd("HGET")
                .arg(keys::TICKETS)
                .arg(&id)
                .cmd("HGET")
                .arg(keys::LIVE)
                .arg(&live)
                .cmd("ZRANGE")
                .arg(&list)
                .arg(0)
                .arg(-1)
                .arg("WITHSCORES")
                .query_async(&mut self.conn())
                .await?;
            let mut wanted: Vec<String> = listed.iter().map(|(m, _)| m.clone()).collect();
            wanted.extend(idem_id.iter().chain(&live_id).cloned());
            let records = self.ticket_records(&wanted).await?;
            let record_of = |field: &Option<String>| {
                let at = wanted.iter().position(|w| Some(w) == field.as_ref())?;
                records[at].clone()
            };
            let (before_record, live_record) = (record_of(&idem_id), record_of(&live_id));
            let decoded = |r: &Option<String>| r.as_deref().map(Record::ticket).transpose();
            let (before, listed_seek, live_ticket) =
                (decoded(&before_record)?, decoded(&seek_record)?, decoded(&live_record)?);
            let read = SeekRead {
                before: before.as_ref(),
                seek: listed_seek.as_ref(),
                pending: pending.is_some(),
                id_taken: taken.is_some(),
                live: live_ticket.as_ref(),
            };
            let (after_seek, stored) = match rules::accept_seek(seek, accepter, pairing, &read)? {
                Accept::Answer(answer) => return Ok(answer),
                Accept::Pair { seek, accepter } => (seek, accepter),
            };
            let mut cas = Cas::new();
            cas.expect(keys::TICKET_IDEM, &idem, idem_id.as_deref());
            if let Some(before) = &idem_id {
                cas.expect(keys::TICKETS, before, before_record.as_deref());
            }
            cas.expect(keys::TICKETS, &seek_field, seek_record.as_deref());
            cas.expect(keys::PAIRINGS, &match_field, None);
            cas.expect(keys::TICKETS, &id, None);
            cas.expect(keys::LIVE, &live, live_id.as_deref());
            if let Some(live_id) = &live_id {
                cas.expect(keys::TICKETS, live_id, live_record.as_deref());
            }
            cas.unlist(&after_seek);
            cas.save_over(seek_record.as_deref(), &after_seek)?;
            cas.save(&stored)?;
            cas.write("HSET", keys::TICKET_IDEM, &[&idem, &id]);
            cas.write("HSET", keys::LIVE, &[&live, &id]);
            // The accepter's list with its new ticket, as ZADD orders it; the oldest ended
            // ones past TICKETS_KEPT are forgotten.
            let members: Vec<String> = listed.iter().map(|(m, _)| m.clone()).collect();
            cas.expect_members(&list, &members);
            let mut mine: Vec<(u64, String, Option<Ticket>)> = Vec::with_capacity(listed.len() + 1);
            for ((member, score), record) in listed.iter().zip(&records) {
                if listed.len() + 1 > TICKETS_KEPT {
                    cas.expect(keys::TICKETS, member, record.as_deref());
                }
                mine.push((*score, member.clone(), decoded(record)?));
            }
            mine.push((stored.created_ms, id.clone(), Some(stored.clone())));
            mine.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
            let entries = mine
                .iter()
                .map(|(_, m, t)| Ok((m.parse().map_err(|e| corrupt(&list, e))?, t.as_ref())))
                .collect::<Result<Vec<(TicketId, Option<&Ticket>)>, StoreError>>()?;
            cas.write("ZADD", &list, &[&stored.created_ms.to_string(), &id]);
            for old in rules::forget(&entries, TICKETS_KEPT) {
                let old_field = old.to_string();
                cas.write("ZREM", &list, &[&old_field]);
                if let Some((_, _, Some(t))) = mine.iter().find(|(_, m, _)| *m == old_field) {
                    cas.write("HDEL", keys::TICKETS, &[&old_field]);
                    let old_idem = keys::idem_field(t.player, &t.idempotency_key);
                    cas.write("HDELEQ", keys::TICKET_IDEM, &[&old_idem, &old_field]);
                }
            }
            cas.store_pairing(pairing)?;
            if cas.run(self).await? {
                return Ok(SeekAccepted::Paired(pairing.clone()));
            }
        }
        Err(contended("accept_seek"))
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
                let Some(after) = rules::expire(&Record::ticket(old)?, now_ms) else { continue };
                cas.expect(keys::TICKETS, field, Some(old));
                cas.unlist(&after);
                cas.unlive(&after);
                cas.save_over(Some(old), &after)?;
                expired.push(after);
            }
            if cas.is_empty() || cas.run(self).await? {
                return Ok(expired);
            }
        }
        Err(contended("expire"))
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
        Err(contended("record_result"))
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
