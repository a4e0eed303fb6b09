//! The lifecycle stream on Redis: `colosseum:lifecycle`, its consumer groups, and the
//! announcements a match's final step leaves owed in its own slot.

use super::{Delivery, Finished, LIFECYCLE_KEPT, LifecycleStore};
use crate::error::StoreError;
use crate::redis_store::codec::{decode, json};
use crate::redis_store::{Conn, MAX_BLOCK, RedisStore, bytes, corrupt, is_code, keys, text};
use async_trait::async_trait;
use ids::MatchId;
use redis::{RedisResult, Value};

#[async_trait]
impl LifecycleStore for RedisStore {
    async fn announce_finished(&self, finished: &Finished) -> Result<(), StoreError> {
        self.announce(finished).await?;
        self.clear_owed(finished.match_id).await
    }

    async fn repair_announcements(
        &self,
        before_ms: u64,
        limit: usize,
    ) -> Result<usize, StoreError> {
        if limit == 0 {
            return Ok(0);
        }
        let owed: Vec<(String, String)> = redis::cmd("ZRANGE")
            .arg(keys::ANNOUNCING)
            .arg("-inf")
            .arg(before_ms)
            .arg("BYSCORE")
            .arg("LIMIT")
            .arg(0)
            .arg(limit)
            .arg("WITHSCORES")
            .query_async(&mut self.conn())
            .await?;
        let mut announced = 0;
        let mut drop = crate::matches::redis::SCRIPTS.index_fix.prepare_invoke();
        drop.key(keys::ANNOUNCING);
        let mut dropping = false;
        for (member, score) in owed {
            let json: Option<String> = match member.parse::<MatchId>() {
                Ok(id) => {
                    redis::cmd("GET").arg(keys::finished(id)).query_async(&mut self.conn()).await?
                }
                Err(_) => None,
            };
            match json.map(|j| decode::<Finished>(keys::ANNOUNCING, &j)) {
                Some(Ok(finished)) => {
                    self.announce_finished(&finished).await?;
                    announced += 1;
                }
                Some(Err(e)) => return Err(e),
                // No final step stored with it (its append failed or was refused), or
                // announced meanwhile: only the entry as read goes, so one a new final
                // step wrote meanwhile stays.
                None => {
                    drop.arg(member).arg(score).arg("");
                    dropping = true;
                }
            }
        }
        if dropping {
            let _: Vec<i64> = drop.invoke_async(&mut self.conn()).await?;
        }
        Ok(announced)
    }

    async fn lifecycle_read(
        &self,
        group: &str,
        consumer: &str,
        count: usize,
        block_ms: u64,
    ) -> Result<Vec<Delivery>, StoreError> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let max = u64::try_from(MAX_BLOCK.as_millis()).unwrap_or(u64::MAX);
        let block = (block_ms > 0).then(|| block_ms.min(max));
        let mut conn = match block {
            Some(_) => self.blocking_conn().await?,
            None => self.conn(),
        };
        let mut reply = RedisStore::read_group(&mut conn, group, consumer, count, block).await;
        if let Err(e) = &reply
            && is_code(e, "NOGROUP")
        {
            self.create_group(group).await?;
            reply = RedisStore::read_group(&mut conn, group, consumer, count, block).await;
        }
        match reply {
            Ok(reply) => read_reply(reply),
            Err(e) => {
                if block.is_some() {
                    // Opened again by the next read: after a failover, to the new master.
                    *self.blocking.lock().await = None;
                }
                Err(e.into())
            }
        }
    }

    async fn lifecycle_claim(
        &self,
        group: &str,
        consumer: &str,
        min_idle_ms: u64,
        count: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let reply: RedisResult<Value> = redis::cmd("XAUTOCLAIM")
            .arg(keys::LIFECYCLE)
            .arg(group)
            .arg(consumer)
            .arg(min_idle_ms)
            .arg("0-0")
            .arg("COUNT")
            .arg(count)
            .query_async(&mut self.conn())
            .await;
        let reply = match reply {
            // No group yet: nothing was ever delivered to it.
            Err(e) if is_code(&e, "NOGROUP") => return Ok(Vec::new()),
            reply => reply?,
        };
        // `[next cursor, entries, deleted ids]` (no third part before Redis 7).
        let Value::Array(parts) = reply else {
            return Err(corrupt(keys::LIFECYCLE, "an XAUTOCLAIM reply is not an array"));
        };
        match parts.into_iter().nth(1) {
            Some(entries) => deliveries(entries),
            None => Err(corrupt(keys::LIFECYCLE, "an XAUTOCLAIM reply has no entries")),
        }
    }

    async fn lifecycle_ack(&self, group: &str, ids: &[String]) -> Result<(), StoreError> {
        if ids.is_empty() {
            return Ok(());
        }
        let acked: RedisResult<i64> = redis::cmd("XACK")
            .arg(keys::LIFECYCLE)
            .arg(group)
            .arg(ids)
            .query_async(&mut self.conn())
            .await;
        match acked {
            Err(e) if is_code(&e, "NOGROUP") => Ok(()),
            acked => acked.map(|_| ()).map_err(StoreError::from),
        }
    }

    async fn trim_lifecycle(&self, readers: &[&str]) -> Result<usize, StoreError> {
        // Not atomic, and need not be: between the reads and the trim, deliveries only move
        // on and acknowledgements only shrink the pending lists, so the floor read is at
        // or below the true one.
        let groups: RedisResult<Value> = redis::cmd("XINFO")
            .arg("GROUPS")
            .arg(keys::LIFECYCLE)
            .query_async(&mut self.conn())
            .await;
        let groups = match groups {
            Err(e) if is_code(&e, "ERR") => return Ok(0), // no stream yet
            groups => groups?,
        };
        let groups = group_infos(groups);
        if readers.iter().any(|r| !groups.iter().any(|(name, _, _)| name == r)) {
            return Ok(0);
        }
        let mut floor: Option<StreamId> = None;
        for (name, pending, delivered) in groups {
            let first_owed = if pending > 0 {
                // XPENDING's summary: [count, smallest id, greatest id, consumers].
                let summary: Value = redis::cmd("XPENDING")
                    .arg(keys::LIFECYCLE)
                    .arg(&name)
                    .query_async(&mut self.conn())
                    .await?;
                let Value::Array(parts) = summary else { return Ok(0) };
                match parts.into_iter().nth(1).and_then(text).and_then(|id| StreamId::parse(&id)) {
                    Some(id) => id,
                    None => return Ok(0),
                }
            } else {
                match StreamId::parse(&delivered) {
                    Some(id) => id.next(),
                    None => return Ok(0),
                }
            };
            floor = Some(floor.map_or(first_owed, |f| f.min(first_owed)));
        }
        let Some(floor) = floor else { return Ok(0) };
        let trimmed: i64 = redis::cmd("XTRIM")
            .arg(keys::LIFECYCLE)
            .arg("MINID")
            .arg(floor.to_string())
            .query_async(&mut self.conn())
            .await?;
        Ok(usize::try_from(trimmed).unwrap_or(0))
    }
}

/// A stream entry id, `<ms>-<seq>`, ordered as Redis orders them.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct StreamId(u64, u64);

impl StreamId {
    fn parse(id: &str) -> Option<StreamId> {
        let (ms, seq) = id.split_once('-')?;
        Some(StreamId(ms.parse().ok()?, seq.parse().ok()?))
    }

    /// The least id after this one.
    fn next(self) -> StreamId {
        match self.1.checked_add(1) {
            Some(seq) => StreamId(self.0, seq),
            None => StreamId(self.0 + 1, 0),
        }
    }
}

impl std::fmt::Display for StreamId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}-{}", self.0, self.1)
    }
}

/// Each group of `XINFO GROUPS`: its name, pending count and last delivered id (RESP2's
/// flat field lists or RESP3's maps).
fn group_infos(reply: Value) -> Vec<(String, i64, String)> {
    let Value::Array(groups) = reply else { return Vec::new() };
    groups
        .into_iter()
        .filter_map(|g| {
            let pairs: Vec<(Value, Value)> = match g {
                Value::Map(pairs) => pairs,
                Value::Array(flat) => {
                    let mut it = flat.into_iter();
                    std::iter::from_fn(|| Some((it.next()?, it.next()?))).collect()
                }
                _ => return None,
            };
            let (mut name, mut pending, mut delivered) = (None, None, None);
            for (k, v) in pairs {
                match text(k).as_deref() {
                    Some("name") => name = text(v),
                    Some("pending") => {
                        pending = match v {
                            Value::Int(n) => Some(n),
                            other => text(other).and_then(|t| t.parse().ok()),
                        }
                    }
                    Some("last-delivered-id") => delivered = text(v),
                    _ => {}
                }
            }
            Some((name?, pending?, delivered?))
        })
        .collect()
}

/// One stream entry of the lifecycle stream, `[id, [field, value, ...]]` (the fields nil
/// for an entry deleted while pending): its delivery.
pub(crate) fn delivery(entry: Value) -> Result<Delivery, StoreError> {
    let bad = |what: &str| corrupt(keys::LIFECYCLE, what);
    let Value::Array(parts) = entry else { return Err(bad("an entry is not an array")) };
    let mut parts = parts.into_iter();
    let id = parts.next().and_then(text).ok_or_else(|| bad("an entry has no id"))?;
    let flat: Vec<Value> = match parts.next() {
        Some(Value::Array(flat)) => flat,
        Some(Value::Map(pairs)) => pairs.into_iter().flat_map(|(k, v)| [k, v]).collect(),
        _ => Vec::new(),
    };
    let mut flat = flat.into_iter();
    let mut finished = None;
    while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
        if bytes(k).as_deref() == Some(b"f".as_slice()) {
            finished = bytes(v).and_then(|v| serde_json::from_slice::<Finished>(&v).ok());
        }
    }
    if finished.is_none() {
        // Acknowledged by the consumer all the same, so it does not come back forever.
        tracing::warn!(stream = keys::LIFECYCLE, id = %id, "a lifecycle entry is not a Finished");
    }
    Ok(Delivery { id, finished })
}

pub(crate) fn deliveries(entries: Value) -> Result<Vec<Delivery>, StoreError> {
    match entries {
        Value::Nil => Ok(Vec::new()),
        Value::Array(entries) => entries.into_iter().map(delivery).collect(),
        _ => Err(corrupt(keys::LIFECYCLE, "an entry list is not an array")),
    }
}

/// The reply of `XREADGROUP` on the one stream: nil (nothing came), `[[stream, entries]]`
/// or, in RESP3, `{stream: entries}`.
pub(crate) fn read_reply(reply: Value) -> Result<Vec<Delivery>, StoreError> {
    let streams: Vec<Value> = match reply {
        Value::Nil => return Ok(Vec::new()),
        Value::Array(streams) => streams
            .into_iter()
            .filter_map(|s| match s {
                Value::Array(mut pair) if pair.len() == 2 => pair.pop(),
                _ => None,
            })
            .collect(),
        Value::Map(pairs) => pairs.into_iter().map(|(_, entries)| entries).collect(),
        _ => return Err(corrupt(keys::LIFECYCLE, "an XREADGROUP reply is not an array")),
    };
    let mut out = Vec::new();
    for entries in streams {
        out.extend(deliveries(entries)?);
    }
    Ok(out)
}

impl RedisStore {
    /// `XREADGROUP GROUP <group> <consumer> COUNT <count> [BLOCK <ms>] STREAMS
    /// colosseum:lifecycle >`.
    pub(crate) async fn read_group(
        conn: &mut Conn,
        group: &str,
        consumer: &str,
        count: usize,
        block_ms: Option<u64>,
    ) -> RedisResult<Value> {
        let mut cmd = redis::cmd("XREADGROUP");
        cmd.arg("GROUP").arg(group).arg(consumer).arg("COUNT").arg(count);
        if let Some(ms) = block_ms {
            cmd.arg("BLOCK").arg(ms);
        }
        cmd.arg("STREAMS").arg(keys::LIFECYCLE).arg(">");
        cmd.query_async(conn).await
    }

    /// Makes `group` at the stream's start (and the stream, if it has no entry yet).
    pub(crate) async fn create_group(&self, group: &str) -> Result<(), StoreError> {
        let made: RedisResult<()> = redis::cmd("XGROUP")
            .arg("CREATE")
            .arg(keys::LIFECYCLE)
            .arg(group)
            .arg("0")
            .arg("MKSTREAM")
            .exec_async(&mut self.conn())
            .await;
        match made {
            // Another consumer made it first.
            Err(e) if is_code(&e, "BUSYGROUP") => Ok(()),
            made => Ok(made?),
        }
    }

    /// Appends `finished` to the lifecycle stream.
    pub(crate) async fn announce(&self, finished: &Finished) -> Result<(), StoreError> {
        let () = redis::cmd("XADD")
            .arg(keys::LIFECYCLE)
            .arg("MAXLEN")
            .arg("~")
            .arg(LIFECYCLE_KEPT)
            .arg("*")
            .arg("f")
            .arg(json(finished)?)
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }
}
