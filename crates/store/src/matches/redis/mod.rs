//! The matches' part of the Redis store.

mod bots;
mod lists;

use crate::error::StoreError;
use crate::lifecycle::Finished;
use crate::matches::bots::BotMatch;
use crate::matches::feed::{self, AppendFeed};
use crate::matches::lists::{self as match_lists, Listed};
use crate::matches::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, MatchSecret, Session,
    StoredEvent, is_sha256_hex,
};
use crate::matches::record;
use crate::matches::traits::{EventStore, HostStore};
use crate::redis_store::cas::{ATTEMPTS, Cas, contended};
use crate::redis_store::codec;
use crate::redis_store::keys;
use crate::redis_store::{
    Conn, IndexFix, Node, RedisStore, SCAN_COUNT, SCAN_PAUSE, bytes, corrupt, index_add, text,
};
use async_trait::async_trait;
use ids::{MatchId, PlayerId, SeatHolder};
use redis::{ErrorKind, Script, ServerErrorKind, Value};
use rules_core::Seat;
use tokio_stream::StreamExt;

impl RedisStore {
    /// The common read (a watcher or an engine following a live match past its opening):
    /// `XRANGE`, the views and whether the stream exists, pipelined in one round trip
    /// without a script (a script costs Redis several times the commands it runs). `None`
    /// when there is no stream (a match still at its opening, or compacted): `read.lua`
    /// answers those. Not atomic, and need not be: entries read are entries stored, views
    /// go only with the entry of their own version, and a compaction between the commands
    /// leaves no stream for the last one to find.
    pub(crate) async fn read_steps(
        &self,
        id: MatchId,
        from_version: u64,
        limit: usize,
    ) -> Result<Option<Vec<Entry>>, StoreError> {
        let key = keys::log(id);
        let mut range = redis::cmd("XRANGE");
        range.arg(&key).arg(keys::before(from_version)).arg("+").arg("COUNT").arg(limit);
        let mut views = redis::cmd("HMGET");
        views.arg(keys::views(id)).arg(&["v", "b"]);
        let mut exists = redis::cmd("EXISTS");
        exists.arg(&key);
        let mut answers = self.conn().same_slot(vec![range, views, exists]).await?.into_iter();
        let (Some(range), Some(views), Some(exists)) =
            (answers.next(), answers.next(), answers.next())
        else {
            return Err(corrupt(&key, "a pipeline answer is missing"));
        };
        let mut entries = parse_entries(range?, &key)?;
        if entries.is_empty() {
            let exists: i64 = redis::from_redis_value(exists?).map_err(|e| corrupt(&key, e))?;
            return Ok((exists == 1).then_some(entries));
        }
        let (version, bytes): (Option<u64>, Option<Vec<u8>>) =
            redis::from_redis_value(views?).map_err(|e| corrupt(&keys::views(id), e))?;
        if let (Some(version), Some(bytes), Some(last)) = (version, bytes, entries.last_mut())
            && version == last.version
        {
            last.views = record::decode_views(&bytes).map_err(|e| corrupt(&keys::views(id), e))?;
        }
        Ok(Some(entries))
    }

    /// Every entry of a match, the latest with its views.
    pub(crate) async fn read_all(&self, id: MatchId) -> Result<Vec<Entry>, StoreError> {
        const PAGE: usize = 1_024;
        let mut all: Vec<Entry> = Vec::new();
        loop {
            let page = self.read(id, all.len() as u64, PAGE).await?;
            let full = page.len() == PAGE;
            all.extend(page);
            if !full {
                return Ok(all);
            }
        }
    }

    /// The armed deadline of each of `ids` (`(due_ms, fence_version)`), in order.
    pub(crate) async fn records(
        &self,
        ids: &[MatchId],
    ) -> Result<Vec<Option<(u64, u64)>>, StoreError> {
        if ids.is_empty() {
            return Ok(Vec::new());
        }
        let cmds = ids
            .iter()
            .map(|&id| {
                let mut cmd = redis::cmd("HMGET");
                cmd.arg(keys::deadline(id)).arg(&["due", "fence"]);
                cmd
            })
            .collect();
        let answers = self.conn.each(cmds).await?;
        ids.iter()
            .zip(answers)
            .map(|(&id, answer)| {
                let key = keys::deadline(id);
                let fields: (Option<u64>, Option<u64>) =
                    redis::from_redis_value(answer?).map_err(|e| corrupt(&key, e))?;
                match fields {
                    (None, None) => Ok(None),
                    (Some(due_ms), Some(fence)) => Ok(Some((due_ms, fence))),
                    _ => Err(corrupt(&key, "a deadline field is missing")),
                }
            })
            .collect()
    }

    /// Applies `fixes` to the deadline index, each only if its entry is unchanged, then
    /// puts back any entry an arming needs after all (see the module docs).
    pub(crate) async fn fix_index(&self, fixes: &[IndexFix]) -> Result<(), StoreError> {
        let mut call = SCRIPTS.index_fix.prepare_invoke();
        call.key(keys::DEADLINES);
        for fix in fixes {
            let new = fix.new_due_ms.map(|due| due.to_string()).unwrap_or_default();
            call.arg(fix.id.to_string()).arg(&fix.score).arg(new);
        }
        let applied: Vec<i64> = call.invoke_async(&mut self.conn()).await?;
        let fixed: Vec<&IndexFix> = fixes
            .iter()
            .zip(applied)
            .filter(|(_, applied)| *applied == 1)
            .map(|(f, _)| f)
            .collect();
        if fixed.is_empty() {
            return Ok(());
        }
        let ids: Vec<MatchId> = fixed.iter().map(|f| f.id).collect();
        let records = self.records(&ids).await?;
        let mut put_back = redis::cmd("ZADD");
        put_back.arg(keys::DEADLINES).arg("LT");
        let mut any = false;
        for (fix, record) in fixed.iter().zip(records) {
            if let Some((due_ms, _)) = record
                && fix.new_due_ms.is_none_or(|new| due_ms < new)
            {
                put_back.arg(due_ms).arg(fix.id.to_string());
                any = true;
            }
        }
        if any {
            let () = put_back.exec_async(&mut self.conn()).await?;
        }
        Ok(())
    }

    /// Restores the index entries of the deadlines kept on `node`. Returns how many entries
    /// it added or lowered.
    pub(crate) async fn repair_node(&self, node: Node) -> Result<usize, StoreError> {
        let mut repaired = 0;
        let mut cursor = 0u64;
        loop {
            let mut scan = redis::cmd("SCAN");
            scan.arg(cursor).arg("MATCH").arg(keys::DEADLINE_PATTERN).arg("COUNT").arg(SCAN_COUNT);
            let reply = self.conn().on_node(scan, node).await?;
            let (next, found): (u64, Vec<String>) =
                redis::from_redis_value(reply).map_err(|e| corrupt("SCAN", e))?;
            let ids: Vec<MatchId> =
                found.iter().filter_map(|k| keys::match_of_deadline(k)).collect();
            let records = self.records(&ids).await?;
            let mut add = redis::cmd("ZADD");
            add.arg(keys::DEADLINES).arg("LT").arg("CH");
            let mut any = false;
            // A hash cleared since the SCAN is skipped; one cleared after its HMGET leaves
            // an entry with no hash, which `due_deadlines` drops.
            for (id, record) in ids.iter().zip(records) {
                if let Some((due_ms, _)) = record {
                    add.arg(due_ms).arg(id.to_string());
                    any = true;
                }
            }
            if any {
                let changed: usize = add.query_async(&mut self.conn()).await?;
                repaired += changed;
            }
            if next == 0 {
                return Ok(repaired);
            }
            cursor = next;
            tokio::time::sleep(SCAN_PAUSE).await;
        }
    }
}

/// The matches' scripts, hashed once and loaded on first use (`redis::Script` answers
/// `NOSCRIPT` by loading, on whichever node a match's keys are).
pub(crate) static SCRIPTS: std::sync::LazyLock<Scripts> = std::sync::LazyLock::new(Scripts::new);

/// The Lua scripts, hashed once.
pub(crate) struct Scripts {
    pub(crate) create: Script,
    pub(crate) append: Script,
    pub(crate) snapshot: Script,
    pub(crate) clear_if: Script,
    pub(crate) index_fix: Script,
    pub(crate) move_secret: Script,
    pub(crate) read: Script,
    pub(crate) compact: Script,
    pub(crate) release: Script,
}

impl Scripts {
    pub(crate) fn new() -> Self {
        Scripts {
            create: Script::new(include_str!("../lua/create.lua")),
            append: Script::new(include_str!("../lua/append.lua")),
            snapshot: Script::new(include_str!("../lua/snapshot.lua")),
            clear_if: Script::new(include_str!("../lua/clear_if.lua")),
            index_fix: Script::new(include_str!("../lua/index_fix.lua")),
            move_secret: Script::new(include_str!("../lua/move_secret.lua")),
            read: Script::new(include_str!("../lua/read.lua")),
            compact: Script::new(include_str!("../lua/compact.lua")),
            release: Script::new(include_str!("../lua/release.lua")),
        }
    }
}

/// Adds a flag and the idempotency key as two script arguments (`'1'`/`'0'`, key).
pub(crate) fn idem_args(entry: &Entry) -> (&'static str, &str) {
    match &entry.idempotency_key {
        Some(key) => ("1", key.as_str()),
        None => ("0", ""),
    }
}

/// The views argument of the append and create scripts: encoded, or `''` for none.
pub(crate) fn views_arg(entry: &Entry) -> Vec<u8> {
    if entry.views.is_empty() {
        Vec::new()
    } else {
        // Packed for the opening, where an idle match may wait a week.
        record::encode_views(&entry.views, entry.version == 0)
    }
}

/// A field name and its value, as bytes.
pub(crate) type FieldPair = (Vec<u8>, Vec<u8>);

/// The version and the record of a `record` key's value, `<version>:<record>`.
pub(crate) fn split_record(stored: &[u8]) -> Option<(u64, &[u8])> {
    let colon = stored.iter().position(|&b| b == b':')?;
    let version = std::str::from_utf8(&stored[..colon]).ok()?.parse().ok()?;
    Some((version, &stored[colon + 1..]))
}

/// A flat `[field, value, ...]` reply as byte pairs.
pub(crate) fn field_pairs(flat: Vec<Value>) -> Result<Vec<FieldPair>, String> {
    if !flat.len().is_multiple_of(2) {
        return Err("an odd field list".into());
    }
    let mut pairs = Vec::with_capacity(flat.len() / 2);
    let mut flat = flat.into_iter();
    while let (Some(k), Some(v)) = (flat.next(), flat.next()) {
        pairs.push((bytes(k).ok_or("a non-string field")?, bytes(v).ok_or("a non-string value")?));
    }
    Ok(pairs)
}

/// What a read of `limit` entries from `from_version` answers from a compacted record:
/// the last entry carries the final views.
pub(crate) fn from_record(
    mut entries: Vec<Entry>,
    views: Vec<StoredEvent>,
    from_version: u64,
    limit: usize,
) -> Vec<Entry> {
    if let Some(last) = entries.last_mut() {
        last.views = views;
    }
    let from = usize::try_from(from_version).unwrap_or(usize::MAX);
    entries.into_iter().skip(from).take(limit).collect()
}

/// One stream entry, `[id, [field, value, ...]]`.
pub(crate) fn parse_entry(value: Value) -> Result<Entry, String> {
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
    let pairs = field_pairs(flat).map_err(|e| format!("entry {id}: {e}"))?;
    codec::entry_from_fields(version, pairs)
}

/// The reply of `XRANGE`/`XREVRANGE`: an array of entries.
pub(crate) fn parse_entries(value: Value, key: &str) -> Result<Vec<Entry>, StoreError> {
    match value {
        Value::Nil => Ok(Vec::new()),
        Value::Array(items) => {
            items.into_iter().map(|v| parse_entry(v).map_err(|e| corrupt(key, e))).collect()
        }
        _ => Err(corrupt(key, "a range reply is not an array")),
    }
}

impl RedisStore {
    /// Runs a match's script (`call`) that arms a deadline due at `due`, if any, with that
    /// deadline's global index entry added first, in the same round trip (see the module
    /// docs): the append that arms one and the creation that arms the first. The script's
    /// write stands or falls alone; a missing index entry is the repair sweep's.
    async fn invoke_indexed(
        &self,
        call: &redis::ScriptInvocation<'_>,
        id: MatchId,
        due: Option<u64>,
    ) -> Result<Value, StoreError> {
        let mut conn = self.conn();
        let Some(due_ms) = due else { return Ok(call.invoke_async(&mut conn).await?) };
        // `redis::Script` hands out its EVALSHA command only through a pipeline.
        let script = redis::pipe().invoke_script(call).cmd_iter().cloned().collect();
        let mut answers = conn.in_order([vec![index_add(id, due_ms)], script].concat()).await?;
        let (Some(script), Some(index)) = (answers.pop(), answers.pop()) else {
            return Err(corrupt(keys::DEADLINES, "a pipeline answer is missing"));
        };
        if let Err(e) = index {
            tracing::warn!(match_id = %id, error = %e, "deadline index not updated");
        }
        Ok(match script {
            Err(e) if e.kind() == ErrorKind::Server(ServerErrorKind::NoScript) => {
                call.invoke_async(&mut conn).await?
            }
            answer => answer?,
        })
    }

    /// The append script, with the final step's owed announcement when `finished` is
    /// given ([`HostStore::append_final`]: its index entry is written by the caller).
    pub(crate) async fn append_entry(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
        finished: Option<&Finished>,
    ) -> Result<AppendOutcome, StoreError> {
        let (has_key, key) = idem_args(entry);
        let (op, due_ms, fence) = match deadline {
            DeadlineChange::Keep => ("keep", 0, 0),
            DeadlineChange::Clear => ("clear", 0, 0),
            DeadlineChange::Set { due_ms, fence_version } => ("set", due_ms, fence_version),
        };
        let mut call = SCRIPTS.append.prepare_invoke();
        call.key(keys::log(id))
            .key(keys::idem(id))
            .key(keys::deadline(id))
            .key(keys::views(id))
            .key(keys::opening(id))
            .key(keys::record(id))
            .key(keys::finished(id))
            .key(keys::meta(id));
        call.arg(entry.version)
            .arg(has_key)
            .arg(key)
            .arg(op)
            .arg(due_ms)
            .arg(fence)
            .arg(keys::APPENDED)
            .arg(feed::payload(id, entry.version))
            .arg(views_arg(entry))
            .arg(finished.map(codec::json).transpose()?.unwrap_or_default());
        for (field, value) in codec::entry_fields(entry) {
            call.arg(field).arg(value);
        }
        let due = match deadline {
            DeadlineChange::Set { due_ms, .. } => Some(due_ms),
            DeadlineChange::Keep | DeadlineChange::Clear => None,
        };
        let reply = self.invoke_indexed(&call, id, due).await?;
        let (code, version): (i64, u64) =
            redis::from_redis_value(reply).map_err(|e| corrupt(&keys::log(id), e))?;
        match code {
            0 => Ok(AppendOutcome::Appended { version }),
            1 => Ok(AppendOutcome::Duplicate { version }),
            2 => Ok(AppendOutcome::Conflict { current_version: version }),
            3 => Err(StoreError::NotFound(id)),
            other => Err(corrupt(&keys::log(id), format!("append script answered {other}"))),
        }
    }

    /// Clears a match's owed announcement: its `finished` key, then its index entry (a
    /// crash between the two leaves an entry the repair drops).
    pub(crate) async fn clear_owed(&self, id: MatchId) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let () = redis::cmd("DEL").arg(keys::finished(id)).exec_async(&mut conn).await?;
        let () = redis::cmd("ZREM")
            .arg(keys::ANNOUNCING)
            .arg(id.to_string())
            .exec_async(&mut conn)
            .await?;
        Ok(())
    }
}

#[async_trait]
impl EventStore for RedisStore {
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
        // The lists first (other slots): a seat is never taken without its entries, and a
        // retried claim writes them again. Only a claim that can seat `player` lists it,
        // and only a listed match's claim of the last seat puts it on its live list.
        if let Some(meta) = self.meta(id).await? {
            let (theirs, fills) = match_lists::seating(&meta, seat, player);
            if theirs {
                let listed = Listed { created_at_ms: meta.created_at_ms, id };
                let live = fills.then_some(meta.game.as_str());
                self.list(&[player], live, listed).await?;
            }
        }
        // Read, decide (`ClaimOutcome::of`), write only if neither the seat nor the match's
        // end changed since the read: the finished mark (`over`, set by the final step's
        // append) fences a join against a final step stored through another replica.
        let key = keys::meta(id);
        let field = if seat == Seat::ZERO { "seat0" } else { "seat1" };
        for _ in 0..ATTEMPTS {
            let ((holder, over), compacted): ((Option<String>, Option<String>), bool) =
                redis::pipe()
                    .cmd("HMGET")
                    .arg(&key)
                    .arg(&[field, "over"])
                    .cmd("EXISTS")
                    .arg(keys::record(id))
                    .query_async(&mut self.conn())
                    .await?;
            let Some(holder) = holder else { return Err(StoreError::NotFound(id)) };
            let read = codec::decode_holder(&holder).map_err(|e| corrupt(&key, e))?;
            let outcome = ClaimOutcome::of(&read, over.is_some() || compacted, player);
            if outcome != ClaimOutcome::Claimed {
                return Ok(outcome);
            }
            let mut cas = Cas::new();
            cas.expect(&key, field, Some(&holder));
            cas.expect(&key, "over", None);
            let taken = codec::encode_holder(&SeatHolder::Player(player));
            cas.write("HSET", &key, &[field, &taken]);
            if cas.run(self).await? {
                return Ok(outcome);
            }
        }
        Err(contended("claim_seat"))
    }

    async fn append(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
    ) -> Result<AppendOutcome, StoreError> {
        self.append_entry(id, entry, deadline, None).await
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
        if from_version > 0
            && let Some(entries) = self.read_steps(id, from_version, limit).await?
        {
            return Ok(entries);
        }
        let key = keys::log(id);
        let reply: Value = SCRIPTS
            .read
            .key(&key)
            .key(keys::views(id))
            .key(keys::record(id))
            .key(keys::opening(id))
            .arg(from_version)
            .arg(limit)
            .invoke_async(&mut self.conn())
            .await?;
        let Value::Array(parts) = reply else {
            return Err(corrupt(&key, "the read script answered no array"));
        };
        let mut parts = parts.into_iter();
        match parts.next().map(redis::from_redis_value::<i64>) {
            Some(Ok(0)) => {
                let mut entries = Vec::new();
                if let Some(Value::Array(flat)) = parts.next()
                    && !flat.is_empty()
                {
                    let open_key = keys::opening(id);
                    let fields = field_pairs(flat).map_err(|e| corrupt(&open_key, e))?;
                    entries.push(
                        codec::entry_from_fields(0, fields).map_err(|e| corrupt(&open_key, e))?,
                    );
                }
                entries.extend(parse_entries(parts.next().unwrap_or(Value::Nil), &key)?);
                if let (Some(version), Some(views)) = (parts.next(), parts.next())
                    && let (Some(version), Some(views)) = (text(version), bytes(views))
                    && let Some(last) = entries.last_mut()
                    && version.parse() == Ok(last.version)
                {
                    last.views =
                        record::decode_views(&views).map_err(|e| corrupt(&keys::views(id), e))?;
                }
                Ok(entries)
            }
            Some(Ok(1)) => {
                let record_key = keys::record(id);
                let stored = parts
                    .next()
                    .and_then(bytes)
                    .ok_or_else(|| corrupt(&record_key, "no record"))?;
                let (_, blob) =
                    split_record(&stored).ok_or_else(|| corrupt(&record_key, "no version"))?;
                let (entries, views) = record::decode(blob).map_err(|e| corrupt(&record_key, e))?;
                Ok(from_record(entries, views, from_version, limit))
            }
            _ => Err(corrupt(&key, "the read script answered an unknown code")),
        }
    }

    async fn last_version(&self, id: MatchId) -> Result<Option<u64>, StoreError> {
        let key = keys::log(id);
        let mut last = redis::cmd("XREVRANGE");
        last.arg(&key).arg("+").arg("-").arg("COUNT").arg(1);
        let mut opening = redis::cmd("EXISTS");
        opening.arg(keys::opening(id));
        let mut record = redis::cmd("GETRANGE");
        record.arg(keys::record(id)).arg(0).arg(24);
        // In this order: a compaction between them leaves the record for the last.
        let mut answers = self.conn().in_order(vec![last, opening, record]).await?.into_iter();
        let (Some(last), Some(opening), Some(record)) =
            (answers.next(), answers.next(), answers.next())
        else {
            return Err(corrupt(&key, "a pipeline answer is missing"));
        };
        if let Some(entry) = parse_entries(last?, &key)?.first() {
            return Ok(Some(entry.version));
        }
        let opening: i64 = redis::from_redis_value(opening?).map_err(|e| corrupt(&key, e))?;
        if opening == 1 {
            return Ok(Some(0));
        }
        let record: Vec<u8> =
            redis::from_redis_value(record?).map_err(|e| corrupt(&keys::record(id), e))?;
        if record.is_empty() {
            return Ok(None);
        }
        let (version, _) =
            split_record(&record).ok_or_else(|| corrupt(&keys::record(id), "no version"))?;
        Ok(Some(version))
    }

    async fn put_snapshot(
        &self,
        id: MatchId,
        version: u64,
        bytes: &[u8],
    ) -> Result<bool, StoreError> {
        let stored: i64 = SCRIPTS
            .snapshot
            .key(keys::snapshot(id))
            .key(keys::log(id))
            .key(keys::opening(id))
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
        let mut record = redis::cmd("HSET");
        record.arg(keys::deadline(id)).arg("due").arg(due_ms).arg("fence").arg(fence_version);
        // The index entry first (see the module docs).
        for answer in self.conn().in_order(vec![index_add(id, due_ms), record]).await? {
            answer?;
        }
        Ok(())
    }

    async fn due_deadlines(&self, now_ms: u64, limit: usize) -> Result<Vec<Deadline>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let candidates: Vec<(String, String)> = redis::cmd("ZRANGEBYSCORE")
            .arg(keys::DEADLINES)
            .arg("-inf")
            .arg(now_ms)
            .arg("WITHSCORES")
            .arg("LIMIT")
            .arg(0)
            .arg(limit)
            .query_async(&mut self.conn())
            .await?;
        let ids = candidates
            .iter()
            .map(|(member, _)| {
                member.parse().map_err(|_| corrupt(keys::DEADLINES, format!("a member {member:?}")))
            })
            .collect::<Result<Vec<MatchId>, _>>()?;
        let records = self.records(&ids).await?;
        let mut due = Vec::new();
        let mut fixes = Vec::new();
        for ((id, (_, score)), record) in ids.into_iter().zip(candidates).zip(records) {
            match record {
                Some((due_ms, fence_version)) if due_ms <= now_ms => {
                    due.push(Deadline { match_id: id, due_ms, fence_version });
                }
                Some((due_ms, _)) => fixes.push(IndexFix { id, score, new_due_ms: Some(due_ms) }),
                None => fixes.push(IndexFix { id, score, new_due_ms: None }),
            }
        }
        if !fixes.is_empty()
            && let Err(e) = self.fix_index(&fixes).await
        {
            // What is due is still due; the stale entries are found again next time.
            tracing::warn!(error = %e, "deadline index not corrected");
        }
        // The index may be earlier than the truth, so its order is not quite theirs.
        due.sort_by_key(|d| (d.due_ms, d.match_id));
        Ok(due)
    }

    async fn deadline(&self, id: MatchId) -> Result<Option<Deadline>, StoreError> {
        let record = self.records(&[id]).await?.pop().flatten();
        Ok(record.map(|(due_ms, fence_version)| Deadline { match_id: id, due_ms, fence_version }))
    }

    async fn clear_deadline_if(&self, id: MatchId, fence_version: u64) -> Result<bool, StoreError> {
        let removed: Option<String> = SCRIPTS
            .clear_if
            .key(keys::deadline(id))
            .arg(fence_version)
            .invoke_async(&mut self.conn())
            .await?;
        let Some(score) = removed else { return Ok(false) };
        // The index entry goes too if it still says the removed due time; otherwise (lower,
        // or raced by a new arming) `due_deadlines` settles it.
        if let Err(e) = self.fix_index(&[IndexFix { id, score, new_due_ms: None }]).await {
            tracing::warn!(match_id = %id, error = %e, "deadline index entry left for later");
        }
        Ok(true)
    }

    async fn repair_deadline_index(&self) -> Result<usize, StoreError> {
        let nodes = match self.conn() {
            Conn::Single(_) | Conn::Sentinel(_) => vec![Node::Only],
            Conn::Cluster(mut c) => RedisStore::primaries(&mut c).await?,
        };
        let mut repaired = 0;
        for node in nodes {
            repaired += self.repair_node(node).await?;
        }
        Ok(repaired)
    }

    async fn append_feed(&self) -> Result<AppendFeed, StoreError> {
        let messages = self.listen(keys::APPENDED).await?;
        let feed = messages.filter_map(|msg| {
            let parsed = feed::parse_payload(msg.get_payload_bytes());
            if parsed.is_none() {
                tracing::warn!(
                    channel = keys::APPENDED,
                    payload = %String::from_utf8_lossy(msg.get_payload_bytes()),
                    "skipped a malformed append notification"
                );
            }
            parsed
        });
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
        // The player first: a session never names a player that does not exist. The two
        // keys are global (other slots), so they cannot share one transaction.
        let () = redis::cmd("HSET")
            .arg(keys::player(player))
            .arg("name")
            .arg(display_name)
            .exec_async(&mut self.conn())
            .await?;
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

    async fn player_exists(&self, player: PlayerId) -> Result<bool, StoreError> {
        let n: u64 =
            redis::cmd("EXISTS").arg(keys::player(player)).query_async(&mut self.conn()).await?;
        Ok(n == 1)
    }

    async fn ping(&self) -> Result<(), StoreError> {
        let pong: String = redis::cmd("PING").query_async(&mut self.conn()).await?;
        if pong == "PONG" {
            Ok(())
        } else {
            Err(StoreError::Redis(format!("PING answered {pong:?}")))
        }
    }

    async fn add_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError> {
        bot_match.member()?;
        // The name with the match first (another slot): what is recorded is named.
        self.set_bot_name(bot_match.id, &bot_match.bot).await?;
        self.add_bot(bot_match).await
    }

    async fn bot_of(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        self.bot_name(id).await
    }

    async fn player_matches(
        &self,
        player: PlayerId,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        self.page(&keys::player_matches(player), before, limit).await
    }

    async fn unlist_player_match(&self, player: PlayerId, id: MatchId) -> Result<(), StoreError> {
        self.unlist(&keys::player_matches(player), id).await
    }

    async fn live_matches(
        &self,
        game: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        self.live_page(game, before, limit).await
    }

    async fn unlist_live_match(&self, game: &str, id: MatchId) -> Result<(), StoreError> {
        self.unlist_live(game, id).await
    }

    async fn display_names(&self, players: &[PlayerId]) -> Result<Vec<Option<String>>, StoreError> {
        self.names(players).await
    }

    async fn bot_matches(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, BotMatch)>, StoreError> {
        self.bots_after(after, limit).await
    }

    async fn remove_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError> {
        self.remove_bot(bot_match).await
    }

    async fn release_finished(&self, id: MatchId, after_ms: u64) -> Result<bool, StoreError> {
        let released: i64 = SCRIPTS
            .release
            .key(keys::meta(id))
            .key(keys::record(id))
            .key(keys::secret(id))
            .key(keys::log(id))
            .key(keys::opening(id))
            .key(keys::views(id))
            .key(keys::idem(id))
            .key(keys::snapshot(id))
            .key(keys::deadline(id))
            .arg(after_ms.max(1))
            .invoke_async(&mut self.conn())
            .await?;
        Ok(released == 1)
    }
}

#[async_trait]
impl HostStore for RedisStore {
    async fn append_final(
        &self,
        id: MatchId,
        entry: &Entry,
        finished: &Finished,
    ) -> Result<AppendOutcome, StoreError> {
        // The index entry first, acknowledged before the step is sent: a final step is
        // never stored without it (it is only a hint; the `finished` key the script writes
        // is the truth). Once per match, so the round trip costs nothing that matters.
        let () = redis::cmd("ZADD")
            .arg(keys::ANNOUNCING)
            .arg(finished.at_ms)
            .arg(id.to_string())
            .exec_async(&mut self.conn())
            .await?;
        let outcome = self.append_entry(id, entry, DeadlineChange::Clear, Some(finished)).await?;
        if let AppendOutcome::Appended { .. } = outcome {
            // Over: nothing arms its deadline again, so its index entry goes now rather
            // than when it would have fallen due; a day's move time would otherwise hold a
            // day of finished matches in the index after the archive let them go. A failure
            // leaves the entry to `due_deadlines`, as any cleared deadline's.
            // (The index is a sorted set of match ids, as the lists are: the same removal.)
            if let Err(e) = self.unlist(keys::DEADLINES, id).await {
                tracing::warn!(match_id = %id, error = %e, "deadline index entry left for later");
            }
            if match_lists::listable_game(&finished.game)
                && let Err(e) = self.unlist(&keys::live(&finished.game), id).await
            {
                // The step is stored: the live list is a hint, and a reader drops an entry
                // whose match is over.
                tracing::warn!(match_id = %id, error = %e, "a finished match left on its live list");
            }
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
        // The lists first (other slots): a match never exists unlisted, and a retried
        // creation writes them again; a creation refused leaves entries readers skip.
        let listed = Listed { created_at_ms: meta.created_at_ms, id };
        let live = match_lists::live_game(meta);
        self.list(&match_lists::seated_players(meta), live, listed).await?;
        let [(_, fixed), (_, seat0), (_, seat1)] = codec::meta_fields(meta);
        let [(_, seed)] = codec::secret_fields(secret);
        let (has_key, key) = idem_args(opening);
        let mut call = SCRIPTS.create.prepare_invoke();
        call.key(keys::meta(id))
            .key(keys::log(id))
            .key(keys::idem(id))
            .key(keys::secret(id))
            .key(keys::views(id))
            .key(keys::opening(id))
            .key(keys::deadline(id));
        call.arg(fixed).arg(seat0).arg(seat1).arg(seed).arg(has_key).arg(key);
        call.arg(views_arg(opening));
        call.arg(first_deadline.map(|d| d.to_string()).unwrap_or_default());
        for (field, value) in codec::entry_fields(opening) {
            call.arg(field).arg(value);
        }
        let reply = self.invoke_indexed(&call, id, first_deadline).await?;
        let created: i64 =
            redis::from_redis_value(reply).map_err(|e| corrupt(&keys::meta(id), e))?;
        if created == 1 { Ok(()) } else { Err(StoreError::AlreadyExists(id)) }
    }

    async fn match_secret(&self, id: MatchId) -> Result<Option<MatchSecret>, StoreError> {
        let seed: Option<String> = redis::cmd("HGET")
            .arg(keys::secret(id))
            .arg("seed")
            .query_async(&mut self.conn())
            .await?;
        if let Some(seed_hex) = seed {
            return Ok(Some(MatchSecret { seed_hex }));
        }
        // A match created before the secret had a key of its own kept it in the meta.
        let key = keys::meta(id);
        let fixed: Option<String> =
            redis::cmd("HGET").arg(&key).arg("m").query_async(&mut self.conn()).await?;
        let Some(fixed) = fixed else { return Ok(None) };
        let Some(secret) = codec::legacy_secret(&fixed).map_err(|e| corrupt(&key, e))? else {
            return Err(corrupt(&keys::secret(id), "the match has no seed"));
        };
        // Moved to its own key on this first read, so the meta the gateway and the clock
        // read no longer carries it. Best effort: the seed is served either way.
        let without = codec::meta_without_seed(&fixed).map_err(|e| corrupt(&key, e))?;
        let moved: Result<i64, _> = SCRIPTS
            .move_secret
            .key(&key)
            .key(keys::secret(id))
            .arg(&fixed)
            .arg(&without)
            .arg(&secret.seed_hex)
            .invoke_async(&mut self.conn())
            .await;
        if let Err(e) = moved {
            tracing::warn!(match_id = %id, error = %e, "the seed stays in the meta for now");
        }
        Ok(Some(secret))
    }

    async fn compact(
        &self,
        id: MatchId,
        last_version: u64,
        retention_ms: u64,
    ) -> Result<bool, StoreError> {
        let entries = self.read_all(id).await?;
        let Some(last) = entries.last() else { return Ok(false) };
        if last.version != last_version || entries.len() as u64 != last_version + 1 {
            // Moved on, compacted already (the record reads back the same, but the stream
            // is gone), or unknown: the script would refuse too.
            return Ok(false);
        }
        let blob = record::encode(&entries, &last.views);
        let done: i64 = SCRIPTS
            .compact
            .key(keys::log(id))
            .key(keys::idem(id))
            .key(keys::snapshot(id))
            .key(keys::views(id))
            .key(keys::record(id))
            .key(keys::meta(id))
            .key(keys::secret(id))
            .key(keys::deadline(id))
            .key(keys::opening(id))
            .arg(last_version)
            .arg(blob)
            .arg(retention_ms)
            .arg(last.tag)
            .invoke_async(&mut self.conn())
            .await?;
        Ok(done == 1)
    }
}
