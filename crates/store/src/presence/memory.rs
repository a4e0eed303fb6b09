//! Seat presence in memory: [`PresenceStore`] for [`MemoryStore`], each seat's leases as
//! Redis keeps them (holder -> expiry), the feed a broadcast channel sent under the lock.

use super::tables::live;
use crate::error::StoreError;
use crate::memory::MemoryStore;
use crate::presence::{
    Presence, PresenceFeed, PresenceNote, PresenceStore, SeatChange, check_holder,
};
use async_trait::async_trait;
use ids::MatchId;
use rules_core::Seat;
use tokio_stream::StreamExt;
use tokio_stream::wrappers::BroadcastStream;

impl MemoryStore {
    /// Applies `change` to `holder`'s lease on `seat` of `id` (`Some(expiry)`: take or
    /// renew; `None`: give up), announcing a change of the seat's presence.
    pub(crate) fn presence_lease(
        &self,
        (id, seat): (MatchId, Seat),
        holder: &str,
        now_ms: u64,
        change: Option<u64>,
    ) -> Result<SeatChange, StoreError> {
        check_holder(holder)?;
        let mut state = self.lock();
        let leases = state.presence.entry((id, seat.index())).or_default();
        let before = live(leases, now_ms);
        match change {
            Some(expiry) => {
                leases.insert(holder.to_string(), expiry);
            }
            None => {
                leases.remove(holder);
            }
        }
        let connected = live(leases, now_ms);
        if leases.is_empty() {
            state.presence.remove(&(id, seat.index()));
        }
        let changed = before != connected;
        if changed {
            // No subscriber is not an error: nobody is listening.
            let _ = self.presence_feed.send(PresenceNote { id, seat, connected });
        }
        Ok(SeatChange { connected, changed })
    }
}

#[async_trait]
impl PresenceStore for MemoryStore {
    async fn mark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
        ttl_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        let until = now_ms.saturating_add(ttl_ms.max(1));
        self.presence_lease((id, seat), holder, now_ms, Some(until))
    }

    async fn unmark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
    ) -> Result<SeatChange, StoreError> {
        self.presence_lease((id, seat), holder, now_ms, None)
    }

    async fn presence(&self, id: MatchId, now_ms: u64) -> Result<Presence, StoreError> {
        let state = self.lock();
        Ok(Seat::BOTH.map(|seat| {
            state
                .presence
                .get(&(id, seat.index()))
                .is_some_and(|leases| leases.values().any(|&expiry| expiry > now_ms))
        }))
    }

    async fn presence_feed(&self) -> Result<PresenceFeed, StoreError> {
        // A lagged reader missed changes: its stream ends, as a dropped Redis
        // subscription's does, and it reads the presence again.
        let feed = BroadcastStream::new(self.presence_feed.subscribe()).map_while(Result::ok);
        Ok(Box::pin(feed))
    }
}
