//! Seat presence on Redis: [`PresenceStore`] for [`RedisStore`]. Each seat's leases are one
//! hash under the match's hash tag (holder -> expiry), so a lease change is one script on
//! the match's node; the feed is a pub/sub channel, as the append feed is.
//!
//! | operation | Redis |
//! | --- | --- |
//! | `mark_present`, `unmark_present` | `presence.lua`: `HGETALL` (run-out leases `HDEL`ed), `HSET`/`HDEL` of the holder, `PEXPIRE` the key past its longest lease, `PUBLISH colosseum:presence` on a change |
//! | `presence` | `HGETALL` of both seats' hashes, pipelined (one slot) |
//! | `presence_feed` | `SUBSCRIBE colosseum:presence` on a connection of its own |

use crate::error::StoreError;
use crate::presence::{self, Presence, PresenceFeed, PresenceStore, SeatChange, check_holder};
use crate::redis_store::keys;
use crate::redis_store::{RedisStore, corrupt};
use async_trait::async_trait;
use ids::MatchId;
use redis::Script;
use rules_core::Seat;
use std::collections::BTreeMap;
use std::sync::LazyLock;
use tokio_stream::StreamExt;

/// Loaded on first use (`redis::Script` answers `NOSCRIPT` by loading).
pub(crate) static LEASE: LazyLock<Script> =
    LazyLock::new(|| Script::new(include_str!("lua/lease.lua")));

impl RedisStore {
    /// Runs `presence.lua`: `op` (`mark` or `unmark`) for `holder` on `seat` of `id`.
    pub(crate) async fn presence_lease(
        &self,
        op: &str,
        (id, seat): (MatchId, Seat),
        holder: &str,
        now_ms: u64,
        until_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        check_holder(holder)?;
        let (connected, changed): (i64, i64) = LEASE
            .key(keys::presence(id, seat))
            .arg(op)
            .arg(holder)
            .arg(now_ms)
            .arg(until_ms)
            .arg(keys::PRESENCE_CHANGES)
            .arg(format!("{id} {}", seat.index()))
            .invoke_async(&mut self.conn())
            .await?;
        Ok(SeatChange { connected: connected == 1, changed: changed == 1 })
    }
}

#[async_trait]
impl PresenceStore for RedisStore {
    async fn mark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
        ttl_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        let until = now_ms.saturating_add(ttl_ms.max(1));
        self.presence_lease("mark", (id, seat), holder, now_ms, until).await
    }

    async fn unmark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        self.presence_lease("unmark", (id, seat), holder, now_ms, 0).await
    }

    async fn presence(&self, id: MatchId, now_ms: u64) -> Result<Presence, StoreError> {
        let cmds = Seat::BOTH
            .into_iter()
            .map(|seat| {
                let mut cmd = redis::cmd("HGETALL");
                cmd.arg(keys::presence(id, seat));
                cmd
            })
            .collect();
        let answers = self.conn().same_slot(cmds).await?;
        let mut out = [false; 2];
        for (seat, answer) in Seat::BOTH.into_iter().zip(answers) {
            let key = keys::presence(id, seat);
            let leases: BTreeMap<String, String> =
                redis::from_redis_value(answer?).map_err(|e| corrupt(&key, e))?;
            for (_, expiry) in leases {
                let expiry: u64 = expiry.parse().map_err(|e| corrupt(&key, e))?;
                out[seat.index()] |= expiry > now_ms;
            }
        }
        Ok(out)
    }

    async fn presence_feed(&self) -> Result<PresenceFeed, StoreError> {
        let messages = self.listen(keys::PRESENCE_CHANGES).await?;
        let feed = messages.filter_map(|msg| {
            let parsed = presence::parse_payload(msg.get_payload_bytes());
            if parsed.is_none() {
                tracing::warn!(
                    channel = keys::PRESENCE_CHANGES,
                    payload = %String::from_utf8_lossy(msg.get_payload_bytes()),
                    "skipped a malformed presence notification"
                );
            }
            parsed
        });
        Ok(Box::pin(feed))
    }
}
