//! The match lists on Redis: a sorted set per player (its own hash tag) and one per game's
//! live matches, each member a match id scored by its creation. Each list is its own slot,
//! apart from the match's, so its writes are separate commands, each idempotent (`ZADD` of
//! the same score, `ZREM`), made before the seating they announce is (so a seating never
//! lacks its entry, and a retry writes it again) or after the final step that ends one.
//!
//! | operation | Redis |
//! | --- | --- |
//! | listing at creation / claim | per player: `ZADD`, `ZREMRANGEBYRANK 0 -1001` (one pipeline, one slot); live: `ZADD` |
//! | `player_matches` / `live_matches` | `ZREVRANGEBYSCORE <before> -inf WITHSCORES LIMIT` (again from further on when ties at `before` were skipped) |
//! | `unlist_player_match` / `unlist_live_match`, the final step | `ZREM` |
//! | `bot_of` | `HGET meta bot` (`add_bot_match` writes it with `HSET`, before `bot_add.lua`) |
//! | `display_names` | per player: `HGET` of the account's `display_name` and the player's `name` |

use crate::error::StoreError;
use crate::matches::lists::{Listed, PLAYER_MATCHES_KEPT, checked_game, listable_game};
use crate::redis_store::keys;
use crate::redis_store::{RedisStore, corrupt};
use ids::{MatchId, PlayerId};
use redis::Value;

impl RedisStore {
    /// Lists `listed` for each of `players` (each list trimmed to the newest kept) and,
    /// with `live`, in that game's live list: one slot after another, each write a no-op
    /// when repeated.
    pub(crate) async fn list(
        &self,
        players: &[PlayerId],
        live: Option<&str>,
        listed: Listed,
    ) -> Result<(), StoreError> {
        let member = listed.id.to_string();
        for player in players {
            let key = keys::player_matches(*player);
            let mut add = redis::cmd("ZADD");
            add.arg(&key).arg(listed.created_at_ms).arg(&member);
            let mut trim = redis::cmd("ZREMRANGEBYRANK");
            // Ranks count from the oldest: everything below the newest kept goes.
            trim.arg(&key).arg(0).arg(-(PLAYER_MATCHES_KEPT as i64) - 1);
            for answer in self.conn().same_slot(vec![add, trim]).await? {
                answer?;
            }
        }
        if let Some(game) = live.filter(|g| listable_game(g)) {
            let () = redis::cmd("ZADD")
                .arg(keys::live(game))
                .arg(listed.created_at_ms)
                .arg(&member)
                .exec_async(&mut self.conn())
                .await?;
        }
        Ok(())
    }

    /// At most `limit` members of the list `key` older than `before`, newest first.
    pub(crate) async fn page(
        &self,
        key: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        let mut out = Vec::new();
        if limit == 0 {
            return Ok(out);
        }
        let max = before.map_or_else(|| "+inf".to_string(), |b| b.created_at_ms.to_string());
        // From `before`'s score inclusive: the members of that score that sort before it
        // are taken, the rest (it and those after it, already listed) skipped.
        let count = limit + 8;
        let mut offset = 0;
        loop {
            let found: Vec<(String, u64)> = redis::cmd("ZREVRANGEBYSCORE")
                .arg(key)
                .arg(&max)
                .arg("-inf")
                .arg("WITHSCORES")
                .arg("LIMIT")
                .arg(offset)
                .arg(count)
                .query_async(&mut self.conn())
                .await?;
            let got = found.len();
            for (member, created_at_ms) in found {
                let id: MatchId =
                    member.parse().map_err(|_| corrupt(key, format!("a member {member:?}")))?;
                let listed = Listed { created_at_ms, id };
                if before.is_none_or(|b| listed < b) {
                    out.push(listed);
                    if out.len() == limit {
                        return Ok(out);
                    }
                }
            }
            if got < count {
                return Ok(out);
            }
            offset += count;
        }
    }

    pub(crate) async fn unlist(&self, key: &str, id: MatchId) -> Result<(), StoreError> {
        let _: i64 =
            redis::cmd("ZREM").arg(key).arg(id.to_string()).query_async(&mut self.conn()).await?;
        Ok(())
    }

    pub(crate) async fn live_page(
        &self,
        game: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError> {
        checked_game(game)?;
        self.page(&keys::live(game), before, limit).await
    }

    pub(crate) async fn unlist_live(&self, game: &str, id: MatchId) -> Result<(), StoreError> {
        checked_game(game)?;
        self.unlist(&keys::live(game), id).await
    }

    pub(crate) async fn set_bot_name(&self, id: MatchId, bot: &str) -> Result<(), StoreError> {
        let () = redis::cmd("HSET")
            .arg(keys::meta(id))
            .arg("bot")
            .arg(bot)
            .exec_async(&mut self.conn())
            .await?;
        Ok(())
    }

    pub(crate) async fn bot_name(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        let name: Option<String> =
            redis::cmd("HGET").arg(keys::meta(id)).arg("bot").query_async(&mut self.conn()).await?;
        Ok(name)
    }

    pub(crate) async fn names(
        &self,
        players: &[PlayerId],
    ) -> Result<Vec<Option<String>>, StoreError> {
        if players.is_empty() {
            // An empty pipeline is an error to the client.
            return Ok(Vec::new());
        }
        let mut cmds = Vec::with_capacity(players.len() * 2);
        for player in players {
            let mut account = redis::cmd("HGET");
            account.arg(keys::account(*player)).arg("display_name");
            let mut session = redis::cmd("HGET");
            session.arg(keys::player(*player)).arg("name");
            cmds.push(account);
            cmds.push(session);
        }
        let answers = self.conn().each(cmds).await?;
        let mut names = Vec::with_capacity(players.len());
        let mut answers = answers.into_iter();
        while let (Some(account), Some(session)) = (answers.next(), answers.next()) {
            let read = |v: Value, key: &str| -> Result<Option<String>, StoreError> {
                redis::from_redis_value(v).map_err(|e| corrupt(key, e))
            };
            let account = read(account?, "an account's display_name")?;
            let session = read(session?, "a player's name")?;
            names.push(account.or(session));
        }
        Ok(names)
    }
}
