//! The lifecycle stream on Redis: `colosseum:lifecycle`, its consumer groups, and the
//! announcements a match's final step leaves owed in its own slot.

use super::{Delivery, Finished, LifecycleStore};
use crate::error::StoreError;
use crate::lobby::redis::{MAX_BLOCK, deliveries, is_code, read_reply};
use crate::redis_store::{RedisStore, corrupt, keys};
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
        let mut drop = self.scripts.index_fix.prepare_invoke();
        drop.key(keys::ANNOUNCING);
        let mut dropping = false;
        for (member, score) in owed {
            let json: Option<String> = match member.parse::<MatchId>() {
                Ok(id) => {
                    redis::cmd("GET").arg(keys::finished(id)).query_async(&mut self.conn()).await?
                }
                Err(_) => None,
            };
            match json.map(|j| crate::lobby::redis::decode::<Finished>(keys::ANNOUNCING, &j)) {
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
}
