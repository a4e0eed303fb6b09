//! Leases: what one process of many does at a time (the matcher, the tournament driver,
//! the bot runner) runs while it holds a named lease, renewed before it lapses. The trait
//! and both implementations, since each is a few lines.

use crate::error::StoreError;
use crate::memory::MemoryStore;
use crate::redis_store::{RedisStore, keys};
use async_trait::async_trait;

/// Named leases with a holder and a time to live.
#[async_trait]
pub trait LeaseStore: Send + Sync {
    /// Takes or keeps the lease `name` for `holder` for `ttl_ms`: true if `holder` holds
    /// it now (it was free, expired, or already `holder`'s, and is extended). What one
    /// process of many does at a time (the matcher, the tournament driver, the bot runner)
    /// runs under one.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn lease(&self, name: &str, holder: &str, ttl_ms: u64) -> Result<bool, StoreError>;
}

#[async_trait]
impl LeaseStore for MemoryStore {
    async fn lease(&self, name: &str, holder: &str, ttl_ms: u64) -> Result<bool, StoreError> {
        let now = service_kit::time::instant();
        let until = now + crate::memory::millis(ttl_ms.max(1));
        let mut state = self.lock();
        let leases = &mut state.leases;
        // Free, run out, or already `holder`'s: taken or extended.
        let takes = leases
            .get(name)
            .is_none_or(|(held_by, runs_out)| held_by == holder || *runs_out <= now);
        if takes {
            leases.insert(name.to_string(), (holder.to_string(), until));
        }
        Ok(takes)
    }
}

/// On Redis, `lease.lua`: `SET NX PX`, or `PEXPIRE` for the holder.
static LEASE: std::sync::LazyLock<redis::Script> =
    std::sync::LazyLock::new(|| redis::Script::new(include_str!("lease.lua")));

#[async_trait]
impl LeaseStore for RedisStore {
    async fn lease(&self, name: &str, holder: &str, ttl_ms: u64) -> Result<bool, StoreError> {
        let held: i64 = LEASE
            .key(keys::lease(name))
            .arg(holder)
            .arg(ttl_ms.max(1))
            .invoke_async(&mut self.conn())
            .await?;
        Ok(held == 1)
    }
}
