//! [`RedisStore`]: the store on Redis Streams, for production and every integration test.
//!
//! Key layout: see [`crate::keys`]; field encodings: see [`crate::codec`]. Every operation
//! that reads and then writes is a Lua script in `src/lua/`, run with `EVALSHA` (the scripts
//! are loaded at connect; after a server restart `redis::Script` reloads them on the first
//! `NOSCRIPT`), so each is atomic and one round trip:
//!
//! | operation | Redis |
//! | --- | --- |
//! | `create_match` | `create.lua`: `EXISTS`, `XADD 0-1`, `HSET` meta (and idem) |
//! | `meta` | `HMGET meta m seat0 seat1` |
//! | `claim_seat` | `claim.lua`: `HGET`/`HSET` of `seat0`/`seat1` |
//! | `append` | `append.lua`: `XREVRANGE` last id, `HGET` idem, `XADD <v>-1`, `HSET` idem, `ZADD`/`ZREM` + `HSET`/`HDEL` deadline |
//! | `read` | `XRANGE log <from>-0 + COUNT limit` |
//! | `last_version` | `XREVRANGE log + - COUNT 1` |
//! | `tail` | `XREAD COUNT 256 BLOCK ms STREAMS <logs...> <from>-0...`, on a blocking connection |
//! | `put_snapshot` / `snapshot` | `snapshot.lua` / `HMGET snap v b` |
//! | `set_deadline` | `MULTI ZADD HSET EXEC` |
//! | `due_deadlines` | `due.lua`: `ZRANGEBYSCORE ... WITHSCORES LIMIT` + `HGET` fences |
//! | `clear_deadline_if` | `clear_if.lua`: `HGET` fence, `ZREM` + `HDEL` |
//! | `put_session` / `session` | `HSET` / `HMGET` of `colosseum:session:<sha256>` |
//!
//! Connections: commands go over one [`ConnectionManager`] (a multiplexed connection that
//! reconnects after a failure, so a Redis restart costs the calls in flight, not the
//! process). Blocking `XREAD`s must not sit in front of other commands on a multiplexed
//! connection, so `tail` takes a dedicated connection from a small idle pool (opening one
//! if none is idle, and dropping it rather than reusing it after an error or a cancelled
//! call, since its reply would still be pending).
//!
//! Redis Cluster: each match's keys share a hash tag, so the per-match scripts run on one
//! node. `append` also writes the two global deadline keys; on a cluster those live in
//! another slot, so `append.lua` would be refused there with `CROSSSLOT` (the keys are
//! declared, so it fails loudly, never silently). Today's deployment is one Redis; see
//! the crate docs for the plan if that changes.

use crate::codec;
use crate::error::StoreError;
use crate::ids::{MatchId, PlayerId};
use crate::keys;
use crate::memory::dedup;
use crate::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, Session, is_sha256_hex,
};
use crate::store::{EventStore, TAIL_BATCH};
use async_trait::async_trait;
use redis::aio::{ConnectionManager, ConnectionManagerConfig, MultiplexedConnection};
use redis::{AsyncConnectionConfig, Client, Script, Value};
use rules_core::Seat;
use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

/// How long an ordinary command may take before it fails. Redis answers in microseconds;
/// this only bounds a hung connection.
const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long opening a connection may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// How much longer than its `BLOCK` a blocking `XREAD` may take before it is abandoned.
const BLOCK_GRACE: Duration = Duration::from_secs(5);

/// How many idle blocking connections to keep for `tail`.
const IDLE_BLOCKING: usize = 4;

/// The Lua scripts, hashed once.
struct Scripts {
    create: Script,
    claim: Script,
    append: Script,
    snapshot: Script,
    due: Script,
    clear_if: Script,
}

impl Scripts {
    fn new() -> Self {
        Scripts {
            create: Script::new(include_str!("lua/create.lua")),
            claim: Script::new(include_str!("lua/claim.lua")),
            append: Script::new(include_str!("lua/append.lua")),
            snapshot: Script::new(include_str!("lua/snapshot.lua")),
            due: Script::new(include_str!("lua/due.lua")),
            clear_if: Script::new(include_str!("lua/clear_if.lua")),
        }
    }

    fn all(&self) -> [&Script; 6] {
        [&self.create, &self.claim, &self.append, &self.snapshot, &self.due, &self.clear_if]
    }
}

/// The event store on Redis.
pub struct RedisStore {
    /// Opens the blocking connections of `tail`.
    client: Client,
    /// Every command but the blocking `XREAD`.
    conn: ConnectionManager,
    /// Idle connections for blocking `XREAD`s.
    ///
    /// A std mutex: held only to push or pop, never across an await.
    blocking: Mutex<Vec<MultiplexedConnection>>,
    scripts: Scripts,
}

impl RedisStore {
    /// Connects to Redis at `url` (`redis://host:port/`) and loads the scripts.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`] if the URL is invalid or the server does not answer.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = Client::open(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECT_TIMEOUT));
        let mut conn = ConnectionManager::new_with_config(client.clone(), config).await?;
        let scripts = Scripts::new();
        for script in scripts.all() {
            script.load_async(&mut conn).await?;
        }
        Ok(RedisStore { client, conn, blocking: Mutex::new(Vec::new()), scripts })
    }

    fn conn(&self) -> ConnectionManager {
        // A clone shares the one multiplexed connection.
        self.conn.clone()
    }

    async fn blocking_conn(&self) -> Result<MultiplexedConnection, StoreError> {
        let idle = self.blocking.lock().unwrap_or_else(|p| p.into_inner()).pop();
        if let Some(conn) = idle {
            return Ok(conn);
        }
        // No response timeout: a blocking XREAD legitimately waits; `tail` bounds it.
        let config = AsyncConnectionConfig::new()
            .set_response_timeout(None)
            .set_connection_timeout(Some(CONNECT_TIMEOUT));
        Ok(self.client.get_multiplexed_async_connection_with_config(&config).await?)
    }

    fn return_blocking_conn(&self, conn: MultiplexedConnection) {
        let mut idle = self.blocking.lock().unwrap_or_else(|p| p.into_inner());
        if idle.len() < IDLE_BLOCKING {
            idle.push(conn);
        }
    }
}

/// Adds a flag and the idempotency key as two script arguments (`'1'`/`'0'`, key).
fn idem_args(entry: &Entry) -> (&'static str, &str) {
    match &entry.idempotency_key {
        Some(key) => ("1", key.as_str()),
        None => ("0", ""),
    }
}

fn corrupt(key: &str, what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{key}: {what}"))
}

fn bytes(value: Value) -> Option<Vec<u8>> {
    match value {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.into_bytes()),
        Value::VerbatimString { text, .. } => Some(text.into_bytes()),
        _ => None,
    }
}

fn text(value: Value) -> Option<String> {
    bytes(value).and_then(|b| String::from_utf8(b).ok())
}

/// One stream entry, `[id, [field, value, ...]]`.
fn parse_entry(value: Value) -> Result<Entry, String> {
    let Value::Array(parts) = value else { return Err("an entry is not an array".into()) };
    let [id, fields] = <[Value; 2]>::try_from(parts).map_err(|_| "an entry is not [id, fields]")?;
    let id = text(id).ok_or("an entry id is not a string")?;
    let version = keys::version_of(&id).ok_or_else(|| format!("entry id {id} is not <v>-1"))?;
    let flat = match fields {
        Value::Array(flat) => flat,
        // RESP3 may send the fields as a map.
        Value::Map(pairs) => pairs.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => return Err(format!("entry {id} has no field list")),
    };
    if flat.len() % 2 != 0 {
        return Err(format!("entry {id} has an odd field list"));
    }
    let mut pairs = Vec::with_capacity(flat.len() / 2);
    let mut flat = flat.into_iter();
    while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
        let k = bytes(k).ok_or_else(|| format!("entry {id} has a non-string field name"))?;
        let v = bytes(v).ok_or_else(|| format!("entry {id} has a non-string value"))?;
        pairs.push((k, v));
    }
    codec::entry_from_fields(version, pairs)
}

/// The reply of `XRANGE`/`XREVRANGE`: an array of entries.
fn parse_entries(value: Value, key: &str) -> Result<Vec<Entry>, StoreError> {
    match value {
        Value::Nil => Ok(Vec::new()),
        Value::Array(items) => {
            items.into_iter().map(|v| parse_entry(v).map_err(|e| corrupt(key, e))).collect()
        }
        _ => Err(corrupt(key, "a range reply is not an array")),
    }
}

fn claim_outcome(code: i64, id: MatchId) -> Result<ClaimOutcome, StoreError> {
    match code {
        0 => Ok(ClaimOutcome::Claimed),
        1 => Ok(ClaimOutcome::AlreadyYours),
        2 => Ok(ClaimOutcome::Taken),
        3 => Ok(ClaimOutcome::ReservedForOther),
        4 => Err(StoreError::NotFound(id)),
        other => Err(corrupt(&keys::meta(id), format!("claim script answered {other}"))),
    }
}

#[async_trait]
impl EventStore for RedisStore {
    async fn create_match(
        &self,
        id: MatchId,
        meta: &MatchMeta,
        opening: &Entry,
    ) -> Result<(), StoreError> {
        if opening.version != 0 {
            return Err(StoreError::InvalidArgument("the opening entry must be version 0"));
        }
        let [(_, fixed), (_, seat0), (_, seat1)] = codec::meta_fields(meta);
        let (has_key, key) = idem_args(opening);
        let mut call = self.scripts.create.prepare_invoke();
        call.key(keys::meta(id)).key(keys::log(id)).key(keys::idem(id));
        call.arg(fixed).arg(seat0).arg(seat1).arg(has_key).arg(key);
        for (field, value) in codec::entry_fields(opening) {
            call.arg(field).arg(value);
        }
        let created: i64 = call.invoke_async(&mut self.conn()).await?;
        if created == 1 { Ok(()) } else { Err(StoreError::AlreadyExists(id)) }
    }

    async fn meta(&self, id: MatchId) -> Result<Option<MatchMeta>, StoreError> {
        let key = keys::meta(id);
        let (fixed, seat0, seat1): (Option<String>, Option<String>, Option<String>) =
            redis::cmd("HMGET")
                .arg(&key)
                .arg(&["m", "seat0", "seat1"])
                .query_async(&mut self.conn())
                .await?;
        match (fixed, seat0, seat1) {
            (None, None, None) => Ok(None),
            (Some(fixed), Some(seat0), Some(seat1)) => {
                codec::meta_from_fields(&fixed, &seat0, &seat1)
                    .map(Some)
                    .map_err(|e| corrupt(&key, e))
            }
            _ => Err(corrupt(&key, "a meta field is missing")),
        }
    }

    async fn claim_seat(
        &self,
        id: MatchId,
        seat: Seat,
        player: PlayerId,
    ) -> Result<ClaimOutcome, StoreError> {
        let field = if seat == Seat::ZERO { "seat0" } else { "seat1" };
        let code: i64 = self
            .scripts
            .claim
            .key(keys::meta(id))
            .arg(field)
            .arg(player.to_string())
            .invoke_async(&mut self.conn())
            .await?;
        claim_outcome(code, id)
    }

    async fn append(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
    ) -> Result<AppendOutcome, StoreError> {
        let (has_key, key) = idem_args(entry);
        let (op, due_ms, fence) = match deadline {
            DeadlineChange::Keep => ("keep", 0, 0),
            DeadlineChange::Clear => ("clear", 0, 0),
            DeadlineChange::Set { due_ms, fence_version } => ("set", due_ms, fence_version),
        };
        let mut call = self.scripts.append.prepare_invoke();
        call.key(keys::log(id)).key(keys::idem(id)).key(keys::DEADLINES).key(keys::DEADLINE_FENCES);
        call.arg(entry.version)
            .arg(has_key)
            .arg(key)
            .arg(op)
            .arg(due_ms)
            .arg(fence)
            .arg(id.to_string());
        for (field, value) in codec::entry_fields(entry) {
            call.arg(field).arg(value);
        }
        let (code, version): (i64, u64) = call.invoke_async(&mut self.conn()).await?;
        match code {
            0 => Ok(AppendOutcome::Appended { version }),
            1 => Ok(AppendOutcome::Duplicate { version }),
            2 => Ok(AppendOutcome::Conflict { current_version: version }),
            3 => Err(StoreError::NotFound(id)),
            other => Err(corrupt(&keys::log(id), format!("append script answered {other}"))),
        }
    }

    async fn read(
        &self,
        id: MatchId,
        from_version: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = keys::log(id);
        let reply: Value = redis::cmd("XRANGE")
            .arg(&key)
            .arg(keys::before(from_version))
            .arg("+")
            .arg("COUNT")
            .arg(limit)
            .query_async(&mut self.conn())
            .await?;
        parse_entries(reply, &key)
    }

    async fn last_version(&self, id: MatchId) -> Result<Option<u64>, StoreError> {
        let key = keys::log(id);
        let reply: Value = redis::cmd("XREVRANGE")
            .arg(&key)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut self.conn())
            .await?;
        Ok(parse_entries(reply, &key)?.first().map(|e| e.version))
    }

    async fn tail(
        &self,
        positions: &[(MatchId, u64)],
        block_ms: u64,
    ) -> Result<Vec<(MatchId, Entry)>, StoreError> {
        let positions = dedup(positions);
        if positions.is_empty() {
            tokio::time::sleep(Duration::from_millis(block_ms)).await;
            return Ok(Vec::new());
        }
        let by_key: BTreeMap<String, MatchId> =
            positions.iter().map(|&(id, _)| (keys::log(id), id)).collect();
        let mut cmd = redis::cmd("XREAD");
        cmd.arg("COUNT").arg(TAIL_BATCH);
        if block_ms > 0 {
            // BLOCK 0 would mean "forever" to Redis: no BLOCK at all is "do not wait".
            cmd.arg("BLOCK").arg(block_ms);
        }
        cmd.arg("STREAMS");
        for &(id, _) in &positions {
            cmd.arg(keys::log(id));
        }
        for &(_, from) in &positions {
            cmd.arg(keys::before(from));
        }
        let mut conn = self.blocking_conn().await?;
        let limit = Duration::from_millis(block_ms) + BLOCK_GRACE;
        // On an error or a timeout the connection is dropped, not returned to the pool.
        let reply: Value = tokio::time::timeout(limit, cmd.query_async(&mut conn))
            .await
            .map_err(|_| StoreError::Redis(format!("XREAD did not answer within {limit:?}")))??;
        self.return_blocking_conn(conn);

        let streams: Vec<(Value, Value)> = match reply {
            Value::Nil => return Ok(Vec::new()),
            Value::Map(pairs) => pairs,
            Value::Array(items) => {
                let mut pairs = Vec::with_capacity(items.len());
                for item in items {
                    let Value::Array(pair) = item else {
                        return Err(StoreError::Corrupt(
                            "XREAD: a stream is not [key, entries]".into(),
                        ));
                    };
                    let [k, v] = <[Value; 2]>::try_from(pair).map_err(|_| {
                        StoreError::Corrupt("XREAD: a stream is not [key, entries]".into())
                    })?;
                    pairs.push((k, v));
                }
                pairs
            }
            _ => return Err(StoreError::Corrupt("XREAD reply is not an array".into())),
        };
        let mut found: BTreeMap<MatchId, Vec<Entry>> = BTreeMap::new();
        for (key, entries) in streams {
            let key =
                text(key).ok_or_else(|| StoreError::Corrupt("XREAD: a key is not text".into()))?;
            let id = *by_key
                .get(&key)
                .ok_or_else(|| corrupt(&key, "XREAD answered a key it was not asked for"))?;
            found.insert(id, parse_entries(entries, &key)?);
        }
        // In the order of `positions`, like the memory store.
        let mut out = Vec::new();
        for (id, _) in positions {
            if let Some(entries) = found.remove(&id) {
                out.extend(entries.into_iter().map(|e| (id, e)));
            }
        }
        Ok(out)
    }

    async fn put_snapshot(
        &self,
        id: MatchId,
        version: u64,
        bytes: &[u8],
    ) -> Result<bool, StoreError> {
        let stored: i64 = self
            .scripts
            .snapshot
            .key(keys::snapshot(id))
            .key(keys::log(id))
            .arg(version)
            .arg(bytes)
            .invoke_async(&mut self.conn())
            .await?;
        Ok(stored == 1)
    }

    async fn snapshot(&self, id: MatchId) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        let key = keys::snapshot(id);
        let (version, bytes): (Option<u64>, Option<Vec<u8>>) =
            redis::cmd("HMGET").arg(&key).arg(&["v", "b"]).query_async(&mut self.conn()).await?;
        match (version, bytes) {
            (None, None) => Ok(None),
            (Some(version), Some(bytes)) => Ok(Some((version, bytes))),
            _ => Err(corrupt(&key, "a snapshot field is missing")),
        }
    }

    async fn set_deadline(
        &self,
        id: MatchId,
        due_ms: u64,
        fence_version: u64,
    ) -> Result<(), StoreError> {
        let member = id.to_string();
        let () = redis::pipe()
            .atomic()
            .zadd(keys::DEADLINES, &member, due_ms)
            .ignore()
            .hset(keys::DEADLINE_FENCES, &member, fence_version)
            .ignore()
            .query_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn due_deadlines(&self, now_ms: u64, limit: usize) -> Result<Vec<Deadline>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let flat: Vec<String> = self
            .scripts
            .due
            .key(keys::DEADLINES)
            .key(keys::DEADLINE_FENCES)
            .arg(now_ms)
            .arg(limit)
            .invoke_async(&mut self.conn())
            .await?;
        let bad = |what: &str, value: &str| corrupt(keys::DEADLINES, format!("{what} {value:?}"));
        flat.chunks(3)
            .map(|row| {
                let [member, due, fence] = row else { return Err(bad("a short row", "")) };
                let match_id = member.parse().map_err(|_| bad("a member", member))?;
                // Scores are doubles; whole numbers below 2^53 print exactly.
                let due_ms = due
                    .parse::<u64>()
                    .or_else(|_| due.parse::<f64>().map(|f| f as u64))
                    .map_err(|_| bad("a score", due))?;
                let fence_version = fence.parse().map_err(|_| bad("a fence", fence))?;
                Ok(Deadline { match_id, due_ms, fence_version })
            })
            .collect()
    }

    async fn deadline(&self, id: MatchId) -> Result<Option<Deadline>, StoreError> {
        let member = id.to_string();
        let (due, fence): (Option<u64>, Option<u64>) = redis::pipe()
            .cmd("ZSCORE")
            .arg(keys::DEADLINES)
            .arg(&member)
            .cmd("HGET")
            .arg(keys::DEADLINE_FENCES)
            .arg(&member)
            .query_async(&mut self.conn())
            .await?;
        Ok(match (due, fence) {
            (Some(due_ms), Some(fence_version)) => {
                Some(Deadline { match_id: id, due_ms, fence_version })
            }
            _ => None,
        })
    }

    async fn clear_deadline_if(&self, id: MatchId, fence_version: u64) -> Result<bool, StoreError> {
        let removed: i64 = self
            .scripts
            .clear_if
            .key(keys::DEADLINES)
            .key(keys::DEADLINE_FENCES)
            .arg(id.to_string())
            .arg(fence_version)
            .invoke_async(&mut self.conn())
            .await?;
        Ok(removed == 1)
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
        let () = redis::cmd("HSET")
            .arg(keys::session(token_sha256_hex))
            .arg("player")
            .arg(player.to_string())
            .arg("name")
            .arg(display_name)
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn session(&self, token_sha256_hex: &str) -> Result<Option<Session>, StoreError> {
        if !is_sha256_hex(token_sha256_hex) {
            return Err(StoreError::InvalidArgument("a session key is a lower-case hex SHA-256"));
        }
        let key = keys::session(token_sha256_hex);
        let (player, name): (Option<String>, Option<String>) = redis::cmd("HMGET")
            .arg(&key)
            .arg(&["player", "name"])
            .query_async(&mut self.conn())
            .await?;
        match (player, name) {
            (None, None) => Ok(None),
            (Some(player), Some(display_name)) => {
                let player_id = player.parse().map_err(|e| corrupt(&key, e))?;
                Ok(Some(Session { player_id, display_name }))
            }
            _ => Err(corrupt(&key, "a session field is missing")),
        }
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let pong: String = redis::cmd("PING").query_async(&mut self.conn()).await?;
        if pong == "PONG" {
            Ok(())
        } else {
            Err(StoreError::Redis(format!("PING answered {pong:?}")))
        }
    }
}
