//! The platform on Redis: [`PlatformStore`] for [`RedisStore`]. Every key is under the
//! `{platform}` hash tag (one slot), so each read-modify-write is one atomic Lua script
//! (`src/platform/lua/*.lua`), even on a cluster.
//!
//! | operation | Redis |
//! | --- | --- |
//! | `put_tenant` / `tenants` / `tenant` | `HSET` / `HVALS` / `HGET colosseum:{platform}:tenants` |
//! | `put_api_key` / `api_key` / `api_keys_of` | `HSET` / `HGET` / `HVALS colosseum:{platform}:keys` |
//! | `audit` / `audit_tail` | `XADD audit:<tenant> MAXLEN ~ 100000` / `XREVRANGE COUNT` |
//! | `begin` / `finish` | `platform_begin.lua` / `platform_finish.lua` |
//! | `unfinished` | `ZRANGE unfinished:<kind>`, then `HGETALL` each |
//! | `owned` | `HGET colosseum:{platform}:owned` |
//! | `append_results` | `platform_append.lua` |
//! | `read_results` / `results_seq` | `XRANGE` from `<after + 1>-0` / `XREVRANGE COUNT 1` |
//! | `due_scheduled` / `unschedule` | `ZRANGE scheduled -inf <now> BYSCORE LIMIT` / `ZREM` |
//! | `tournaments_of` / `live_tournaments` | `ZREVRANGE tournaments:<tenant>` / `SMEMBERS live` |
//! | `put_public_tournament` / `public_tournament` | `HSET` / `HGET colosseum:{platform}:public` |

use crate::error::StoreError;
use crate::platform::{
    AUDIT_KEPT, ApiKey, Append, Appended, Begin, Begun, PlatformStore, Stream, StreamEntry, Tenant,
    Unfinished,
};
use crate::redis_store::codec::{decode, json};
use crate::redis_store::keys;
use crate::redis_store::{RedisStore, corrupt};
use async_trait::async_trait;
use ids::{MatchId, TenantId, TournamentId};
use redis::Script;
use redis::streams::StreamRangeReply;
use std::collections::BTreeMap;

/// The platform's scripts, hashed once and loaded on first use (`redis::Script` answers
/// `NOSCRIPT` by loading).
pub(crate) static SCRIPTS: std::sync::LazyLock<Scripts> = std::sync::LazyLock::new(Scripts::new);

/// The platform's Lua scripts, loaded on first use.
pub(crate) struct Scripts {
    begin: Script,
    finish: Script,
    append: Script,
}

impl Scripts {
    pub(crate) fn new() -> Self {
        let prelude = include_str!("lua/prelude.lua");
        Scripts {
            begin: Script::new(include_str!("lua/begin.lua")),
            finish: Script::new(&format!("{prelude}{}", include_str!("lua/finish.lua"))),
            append: Script::new(&format!("{prelude}{}", include_str!("lua/append.lua"))),
        }
    }
}

/// The sequence number of a results stream's entry id (`<seq>-1`).
pub(crate) fn seq_of(key: &str, id: &str) -> Result<u64, StoreError> {
    keys::version_of(id).ok_or_else(|| corrupt(key, format!("entry id {id} is not <seq>-1")))
}

/// The `f` field of each entry of an `XRANGE` reply, with its id.
pub(crate) fn entries(
    key: &str,
    reply: StreamRangeReply,
) -> Result<Vec<(String, String)>, StoreError> {
    reply
        .ids
        .into_iter()
        .map(|e| {
            let f: String = e.get("f").ok_or_else(|| corrupt(key, "an entry has no field f"))?;
            Ok((e.id, f))
        })
        .collect()
}

#[async_trait]
impl PlatformStore for RedisStore {
    async fn put_tenant(&self, tenant: &Tenant) -> Result<(), StoreError> {
        redis::cmd("HSET")
            .arg(keys::TENANTS)
            .arg(tenant.id.to_string())
            .arg(json(tenant)?)
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        let all: Vec<String> =
            redis::cmd("HVALS").arg(keys::TENANTS).query_async(&mut self.conn()).await?;
        let mut all: Vec<Tenant> =
            all.iter().map(|t| decode(keys::TENANTS, t)).collect::<Result<_, _>>()?;
        all.sort_by_key(|t| (t.created_ms, t.id));
        Ok(all)
    }

    async fn tenant(&self, id: TenantId) -> Result<Option<Tenant>, StoreError> {
        let t: Option<String> = redis::cmd("HGET")
            .arg(keys::TENANTS)
            .arg(id.to_string())
            .query_async(&mut self.conn())
            .await?;
        t.map(|t| decode(keys::TENANTS, &t)).transpose()
    }

    async fn put_api_key(&self, key: &ApiKey) -> Result<(), StoreError> {
        redis::cmd("HSET")
            .arg(keys::API_KEYS)
            .arg(&key.key_id)
            .arg(json(key)?)
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn api_key(&self, key_id: &str) -> Result<Option<ApiKey>, StoreError> {
        let k: Option<String> = redis::cmd("HGET")
            .arg(keys::API_KEYS)
            .arg(key_id)
            .query_async(&mut self.conn())
            .await?;
        k.map(|k| decode(keys::API_KEYS, &k)).transpose()
    }

    async fn api_keys_of(&self, tenant: TenantId) -> Result<Vec<ApiKey>, StoreError> {
        let all: Vec<String> =
            redis::cmd("HVALS").arg(keys::API_KEYS).query_async(&mut self.conn()).await?;
        let mut keys: Vec<ApiKey> = all
            .iter()
            .map(|k| decode::<ApiKey>(keys::API_KEYS, k))
            .filter(|k| k.as_ref().map_or(true, |k| k.tenant == tenant))
            .collect::<Result<_, _>>()?;
        keys.sort_by(|a, b| (a.created_ms, &a.key_id).cmp(&(b.created_ms, &b.key_id)));
        Ok(keys)
    }

    async fn audit(&self, tenant: TenantId, json: &str) -> Result<(), StoreError> {
        redis::cmd("XADD")
            .arg(keys::audit(tenant))
            .arg("MAXLEN")
            .arg("~")
            .arg(AUDIT_KEPT)
            .arg("*")
            .arg("f")
            .arg(json)
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn audit_tail(&self, tenant: TenantId, limit: usize) -> Result<Vec<String>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = keys::audit(tenant);
        let reply: StreamRangeReply = redis::cmd("XREVRANGE")
            .arg(&key)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(limit)
            .query_async(&mut self.conn())
            .await?;
        let mut tail: Vec<String> = entries(&key, reply)?.into_iter().map(|(_, f)| f).collect();
        tail.reverse();
        Ok(tail)
    }

    async fn begin(&self, b: &Begin<'_>) -> Result<Begun, StoreError> {
        let mut call = SCRIPTS.begin.prepare_invoke();
        call.key(keys::request(b.kind, b.tenant, b.key))
            .key(keys::unfinished(b.kind))
            .key(keys::OWNED)
            .key(keys::SCHEDULED);
        call.arg(b.digest).arg(b.record_json).arg(b.now_ms).arg(b.tenant.to_string()).arg(b.key);
        call.arg(b.scheduled.len());
        for (id, at) in b.scheduled {
            call.arg(*at).arg(id.to_string());
        }
        for (id, json) in b.owned {
            call.arg(id.to_string()).arg(json);
        }
        let (code, record, done): (i64, Option<String>, Option<String>) =
            call.invoke_async(&mut self.conn()).await?;
        Ok(match (code, record) {
            (0, _) => Begun::New,
            (1, Some(record_json)) => {
                Begun::Same { record_json, done: done.as_deref() == Some("1") }
            }
            _ => Begun::Mismatch,
        })
    }

    async fn finish(
        &self,
        kind: &str,
        tenant: TenantId,
        key: &str,
        events: &[String],
        _now_ms: u64,
    ) -> Result<bool, StoreError> {
        let mut call = SCRIPTS.finish.prepare_invoke();
        call.key(keys::request(kind, tenant, key))
            .key(keys::unfinished(kind))
            .key(keys::results(Stream::Tenant(tenant)));
        for e in events {
            call.arg(e);
        }
        let done: i64 = call.invoke_async(&mut self.conn()).await?;
        match done {
            1 => Ok(true),
            0 => Ok(false),
            _ => Err(StoreError::InvalidArgument("finish: the request was never begun")),
        }
    }

    async fn unfinished(&self, kind: &str, limit: usize) -> Result<Vec<Unfinished>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let set = keys::unfinished(kind);
        let names: Vec<String> = redis::cmd("ZRANGE")
            .arg(&set)
            .arg(0)
            .arg(limit - 1)
            .query_async(&mut self.conn())
            .await?;
        let mut out = Vec::with_capacity(names.len());
        for name in names {
            let fields: BTreeMap<String, String> =
                redis::cmd("HGETALL").arg(&name).query_async(&mut self.conn()).await?;
            if fields.get("done").map(String::as_str) != Some("0") {
                continue;
            }
            let field = |f: &str| {
                fields.get(f).cloned().ok_or_else(|| corrupt(&name, format!("no field {f}")))
            };
            let tenant = field("tenant")?.parse().map_err(|e| corrupt(&name, e))?;
            let key = field("key")?;
            let record_json = field("record")?;
            let begun_ms = field("begun")?.parse().map_err(|e| corrupt(&name, e))?;
            out.push(Unfinished { tenant, key, record_json, begun_ms });
        }
        Ok(out)
    }

    async fn owned(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        Ok(redis::cmd("HGET")
            .arg(keys::OWNED)
            .arg(id.to_string())
            .query_async(&mut self.conn())
            .await?)
    }

    async fn append_results(&self, append: &Append) -> Result<Appended, StoreError> {
        let tenant = append.stream.tenant();
        let tournament = match append.stream {
            Stream::Tournament(_, id) => id.to_string(),
            Stream::Tenant(_) => String::new(),
        };
        let mut call = SCRIPTS.append.prepare_invoke();
        call.key(keys::results(append.stream))
            .key(keys::results(Stream::Tenant(tenant)))
            .key(keys::ONCE)
            .key(keys::OWNED)
            .key(keys::tournaments(tenant))
            .key(keys::LIVE_TOURNAMENTS);
        call.arg(append.expect_seq.map(|s| s.to_string()).unwrap_or_default())
            .arg(append.once.clone().unwrap_or_default())
            .arg(append.at_ms)
            .arg(if append.close { "1" } else { "0" })
            .arg(&tournament)
            .arg(format!("{tenant}/{tournament}"))
            .arg(append.owned.len());
        for (id, json) in &append.owned {
            call.arg(id.to_string()).arg(json);
        }
        for e in &append.events {
            call.arg(e);
        }
        let (what, last_seq): (String, u64) = call.invoke_async(&mut self.conn()).await?;
        Ok(match what.as_str() {
            "done" => Appended::Done { last_seq },
            "conflict" => Appended::Conflict { last_seq },
            _ => Appended::Already,
        })
    }

    async fn results_feed(&self) -> Result<crate::platform::ResultsFeed, StoreError> {
        let messages = self.listen(keys::RESULTS_CHANGES).await?;
        // `<tenant>/<tournament>`: the tenant's part wakes every follower of its streams.
        let feed = tokio_stream::StreamExt::filter_map(messages, |msg| {
            let text = std::str::from_utf8(msg.get_payload_bytes()).ok()?;
            text.split('/').next()?.parse::<TenantId>().ok()
        });
        Ok(Box::pin(feed))
    }

    async fn read_results(
        &self,
        stream: Stream,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = keys::results(stream);
        let reply: StreamRangeReply = redis::cmd("XRANGE")
            .arg(&key)
            .arg(keys::before(after.saturating_add(1)))
            .arg("+")
            .arg("COUNT")
            .arg(limit)
            .query_async(&mut self.conn())
            .await?;
        entries(&key, reply)?
            .into_iter()
            .map(|(id, json)| Ok(StreamEntry { seq: seq_of(&key, &id)?, json }))
            .collect()
    }

    async fn results_seq(&self, stream: Stream) -> Result<u64, StoreError> {
        let key = keys::results(stream);
        let reply: StreamRangeReply = redis::cmd("XREVRANGE")
            .arg(&key)
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut self.conn())
            .await?;
        match reply.ids.first() {
            Some(e) => seq_of(&key, &e.id),
            None => Ok(0),
        }
    }

    async fn tournaments_of(
        &self,
        tenant: TenantId,
        limit: usize,
    ) -> Result<Vec<TournamentId>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let key = keys::tournaments(tenant);
        let ids: Vec<String> = redis::cmd("ZREVRANGE")
            .arg(&key)
            .arg(0)
            .arg(limit - 1)
            .query_async(&mut self.conn())
            .await?;
        ids.iter().map(|id| id.parse().map_err(|e| corrupt(&key, e))).collect()
    }

    async fn due_scheduled(&self, now_ms: u64, limit: usize) -> Result<Vec<MatchId>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let ids: Vec<String> = redis::cmd("ZRANGE")
            .arg(keys::SCHEDULED)
            .arg("-inf")
            .arg(now_ms)
            .arg("BYSCORE")
            .arg("LIMIT")
            .arg(0)
            .arg(limit)
            .query_async(&mut self.conn())
            .await?;
        ids.iter().map(|id| id.parse().map_err(|e| corrupt(keys::SCHEDULED, e))).collect()
    }

    async fn unschedule(&self, id: MatchId) -> Result<(), StoreError> {
        redis::cmd("ZREM")
            .arg(keys::SCHEDULED)
            .arg(id.to_string())
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn live_tournaments(&self) -> Result<Vec<(TenantId, TournamentId)>, StoreError> {
        let all: Vec<String> = redis::cmd("SMEMBERS")
            .arg(keys::LIVE_TOURNAMENTS)
            .query_async(&mut self.conn())
            .await?;
        let mut out = all
            .iter()
            .map(|m| {
                let bad = || corrupt(keys::LIVE_TOURNAMENTS, format!("a member {m:?}"));
                let (t, id) = m.split_once('/').ok_or_else(bad)?;
                Ok((t.parse().map_err(|_| bad())?, id.parse().map_err(|_| bad())?))
            })
            .collect::<Result<Vec<_>, StoreError>>()?;
        out.sort();
        Ok(out)
    }

    async fn put_public_tournament(
        &self,
        id: TournamentId,
        tenant: TenantId,
    ) -> Result<(), StoreError> {
        redis::cmd("HSET")
            .arg(keys::PUBLIC_TOURNAMENTS)
            .arg(id.to_string())
            .arg(tenant.to_string())
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    async fn public_tournament(&self, id: TournamentId) -> Result<Option<TenantId>, StoreError> {
        let tenant: Option<String> = redis::cmd("HGET")
            .arg(keys::PUBLIC_TOURNAMENTS)
            .arg(id.to_string())
            .query_async(&mut self.conn())
            .await?;
        tenant.map(|t| t.parse().map_err(|e| corrupt(keys::PUBLIC_TOURNAMENTS, e))).transpose()
    }
}
