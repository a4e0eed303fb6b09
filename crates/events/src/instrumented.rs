//! A store that times and counts every call of the store it wraps, by operation: what the
//! dashboards show as Redis latency and errors (`colosseum_store_duration_seconds`,
//! `colosseum_store_errors_total`, by `op`), and whether the store answers
//! (`colosseum_store_up`, from a ping every few seconds). The binaries open their store
//! through it ([`crate::open_from_env`]); it changes no answer.

use crate::error::StoreError;
use crate::feed::AppendFeed;
use crate::ids::{MatchId, PlayerId};
use crate::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, MatchSecret, Session,
};
use crate::store::{EventStore, HostStore};
use async_trait::async_trait;
use rules_core::Seat;
use service_kit::metrics::{Desc, Kind, STORE_BUCKETS};
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// Each store call's time, by operation.
pub const DURATION_SECONDS: &str = "colosseum_store_duration_seconds";
/// Store calls that failed, by operation.
pub const ERRORS: &str = "colosseum_store_errors_total";
/// 1 when the store answered its last ping, else 0.
pub const UP: &str = "colosseum_store_up";

/// The store's metrics.
pub const METRICS: &[Desc] = &[
    Desc {
        name: DURATION_SECONDS,
        kind: Kind::Histogram(STORE_BUCKETS),
        help: "Event store calls (Redis round trips), by operation",
    },
    Desc { name: ERRORS, kind: Kind::Counter, help: "Event store calls that failed, by operation" },
    Desc { name: UP, kind: Kind::Gauge, help: "1 when the event store answered its last ping" },
];

/// How often the store is pinged for [`UP`].
const PING_EVERY: Duration = Duration::from_secs(5);

/// `inner`, timed and counted.
pub struct Instrumented {
    inner: Arc<dyn HostStore>,
}

impl Instrumented {
    /// Wraps `inner`, and pings it every few seconds until `stop` (for [`UP`]).
    pub fn wrap(inner: Arc<dyn HostStore>, stop: CancellationToken) -> Arc<Instrumented> {
        service_kit::metrics::describe(METRICS);
        let store = Arc::new(Instrumented { inner });
        let pinged = store.clone();
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(PING_EVERY);
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => {
                        let up = pinged.ping().await.is_ok();
                        service_kit::metrics::set(UP, i64::from(up));
                    }
                }
            }
        });
        store
    }
}

/// Runs one call of `op`, timed, and counted if it fails.
async fn timed<T>(
    op: &'static str,
    call: impl Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    let timer = service_kit::metrics::Timer::start(DURATION_SECONDS, &[("op", op)]);
    let out = call.await;
    drop(timer);
    if out.is_err() {
        service_kit::metrics::add_with(ERRORS, &[("op", op)], 1);
    }
    out
}

#[async_trait]
impl EventStore for Instrumented {
    async fn meta(&self, id: MatchId) -> Result<Option<MatchMeta>, StoreError> {
        timed("meta", self.inner.meta(id)).await
    }

    async fn claim_seat(
        &self,
        id: MatchId,
        seat: Seat,
        player: PlayerId,
    ) -> Result<ClaimOutcome, StoreError> {
        timed("claim_seat", self.inner.claim_seat(id, seat, player)).await
    }

    async fn append(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
    ) -> Result<AppendOutcome, StoreError> {
        timed("append", self.inner.append(id, entry, deadline)).await
    }

    async fn read(
        &self,
        id: MatchId,
        from_version: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError> {
        timed("read", self.inner.read(id, from_version, limit)).await
    }

    async fn last_version(&self, id: MatchId) -> Result<Option<u64>, StoreError> {
        timed("last_version", self.inner.last_version(id)).await
    }

    async fn put_snapshot(
        &self,
        id: MatchId,
        version: u64,
        bytes: &[u8],
    ) -> Result<bool, StoreError> {
        timed("put_snapshot", self.inner.put_snapshot(id, version, bytes)).await
    }

    async fn snapshot(&self, id: MatchId) -> Result<Option<(u64, Vec<u8>)>, StoreError> {
        timed("snapshot", self.inner.snapshot(id)).await
    }

    async fn set_deadline(
        &self,
        id: MatchId,
        due_ms: u64,
        fence_version: u64,
    ) -> Result<(), StoreError> {
        timed("set_deadline", self.inner.set_deadline(id, due_ms, fence_version)).await
    }

    async fn due_deadlines(&self, now_ms: u64, limit: usize) -> Result<Vec<Deadline>, StoreError> {
        timed("due_deadlines", self.inner.due_deadlines(now_ms, limit)).await
    }

    async fn deadline(&self, id: MatchId) -> Result<Option<Deadline>, StoreError> {
        timed("deadline", self.inner.deadline(id)).await
    }

    async fn clear_deadline_if(&self, id: MatchId, fence_version: u64) -> Result<bool, StoreError> {
        timed("clear_deadline_if", self.inner.clear_deadline_if(id, fence_version)).await
    }

    async fn repair_deadline_index(&self) -> Result<usize, StoreError> {
        timed("repair_deadline_index", self.inner.repair_deadline_index()).await
    }

    async fn append_feed(&self) -> Result<AppendFeed, StoreError> {
        timed("append_feed", self.inner.append_feed()).await
    }

    async fn put_session(
        &self,
        token_sha256_hex: &str,
        player: PlayerId,
        display_name: &str,
    ) -> Result<(), StoreError> {
        timed("put_session", self.inner.put_session(token_sha256_hex, player, display_name)).await
    }

    async fn session(&self, token_sha256_hex: &str) -> Result<Option<Session>, StoreError> {
        timed("session", self.inner.session(token_sha256_hex)).await
    }

    async fn player_exists(&self, player: PlayerId) -> Result<bool, StoreError> {
        timed("player_exists", self.inner.player_exists(player)).await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        timed("ping", self.inner.ping()).await
    }
}

#[async_trait]
impl HostStore for Instrumented {
    async fn create_match(
        &self,
        id: MatchId,
        meta: &MatchMeta,
        secret: &MatchSecret,
        opening: &Entry,
    ) -> Result<(), StoreError> {
        timed("create_match", self.inner.create_match(id, meta, secret, opening)).await
    }

    async fn match_secret(&self, id: MatchId) -> Result<Option<MatchSecret>, StoreError> {
        timed("match_secret", self.inner.match_secret(id)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::MemoryStore;

    #[tokio::test]
    async fn every_call_is_timed_by_operation_and_answers_as_the_store_does() {
        let stop = CancellationToken::new();
        let store = Instrumented::wrap(Arc::new(MemoryStore::new()), stop.clone());
        let id = MatchId::random();
        assert_eq!(store.meta(id).await, Ok(None));
        assert_eq!(store.last_version(id).await, Ok(None));
        let m = service_kit::metrics::render();
        assert!(m.contains("colosseum_store_duration_seconds_count{op=\"meta\"} "), "{m}");
        assert!(m.contains("# TYPE colosseum_store_up gauge"), "{m}");
        stop.cancel();
    }
}
