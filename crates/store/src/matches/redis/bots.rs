//! The bot matches on Redis: one sorted set, each member `<match id> <game> <bot>` scored
//! by its position (a counter beside it, so positions never depend on a clock), both under
//! the hash tag `{bots}` (one slot, so the add script is atomic on one node).
//!
//! | operation | Redis |
//! | --- | --- |
//! | `add_bot_match` | `bot_add.lua`: `INCR` the counter, `ZADD` at it |
//! | `bot_matches` | `ZRANGEBYSCORE (<after> +inf WITHSCORES LIMIT 0 <limit>` |
//! | `remove_bot_match` | `ZREM` |

use crate::error::StoreError;
use crate::matches::bots::BotMatch;
use crate::redis_store::RedisStore;
use crate::redis_store::keys;
use redis::Script;
use std::sync::LazyLock;

/// Loaded on first use (`redis::Script` answers `NOSCRIPT` by loading).
pub(crate) static ADD: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("../lua/bot_add.lua")));

impl RedisStore {
    pub(crate) async fn add_bot(&self, m: &BotMatch) -> Result<(), StoreError> {
        let _: u64 = ADD
            .key(keys::BOT_MATCHES)
            .key(keys::BOT_SEQ)
            .arg(m.member()?)
            .invoke_async(&mut self.conn())
            .await?;
        Ok(())
    }

    pub(crate) async fn bots_after(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, BotMatch)>, StoreError> {
        if limit == 0 {
            return Ok(Vec::new());
        }
        let found: Vec<(String, u64)> = redis::cmd("ZRANGEBYSCORE")
            .arg(keys::BOT_MATCHES)
            .arg(format!("({after}"))
            .arg("+inf")
            .arg("WITHSCORES")
            .arg("LIMIT")
            .arg(0)
            .arg(limit)
            .query_async(&mut self.conn())
            .await?;
        found
            .into_iter()
            .map(|(member, at)| Ok((at, BotMatch::parse(keys::BOT_MATCHES, &member)?)))
            .collect()
    }

    pub(crate) async fn remove_bot(&self, m: &BotMatch) -> Result<(), StoreError> {
        let _: i64 = redis::cmd("ZREM")
            .arg(keys::BOT_MATCHES)
            .arg(m.member()?)
            .query_async(&mut self.conn())
            .await?;
        Ok(())
    }
}
