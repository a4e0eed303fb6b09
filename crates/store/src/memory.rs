//! [`MemoryStore`]: the store in process memory, for `make run` without Redis and for pure
//! unit tests. Same semantics as the Redis store (the same suite runs against both), no
//! durability. This file holds the state every domain shares under one lock; each domain's
//! operations are in its own `memory.rs` (`matches/memory/`, `lobby/memory.rs`,
//! `platform/memory.rs`, `presence/memory.rs`).

use crate::lifecycle::Finished;
use crate::matches::model::{Entry, MatchMeta, MatchSecret, Session, StoredEvent};
use ids::{MatchId, PlayerId};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, MutexGuard};
use tokio::sync::broadcast;

/// How many appends the feed holds for a slow reader before that reader's stream ends.
pub(crate) const FEED_CAPACITY: usize = 4_096;

/// The event store in memory.
///
/// One `std::sync::Mutex` guards everything: every operation is a few map operations and
/// never awaits while holding it, so an async mutex would only add cost (the reasoning of
/// mini-redis's `Db`). The append feed and the ticket feed are broadcast channels.
pub struct MemoryStore {
    /// All the data.
    pub(crate) state: Mutex<State>,
    /// The append feed: `(match, version)` of each append, sent under the state lock so
    /// each match's versions go out in order.
    pub(crate) feed: broadcast::Sender<(MatchId, u64)>,
    /// The ticket feed: the players of each ticket change, sent under the state lock.
    pub(crate) ticket_feed: broadcast::Sender<PlayerId>,
    /// The results feed: the tenant of each results append, sent under the state lock.
    pub(crate) results_feed: broadcast::Sender<ids::TenantId>,
    /// The presence feed: each change of a seat's presence, sent under the state lock.
    pub(crate) presence_feed: broadcast::Sender<crate::presence::PresenceNote>,
    /// Wakes the lifecycle readers waiting for an entry (`lifecycle_read`'s `block_ms`).
    pub(crate) finished: tokio::sync::Notify,
}

#[derive(Default)]
pub(crate) struct State {
    pub(crate) matches: BTreeMap<MatchId, MatchState>,
    /// Armed deadlines: match -> (due_ms, fence_version).
    pub(crate) deadlines: BTreeMap<MatchId, (u64, u64)>,
    /// The same deadlines ordered by due time, then match id (as Redis orders them).
    pub(crate) due: BTreeSet<(u64, MatchId)>,
    /// Token SHA-256 (hex) -> session.
    pub(crate) sessions: BTreeMap<String, Session>,
    /// Every player a session was made for, with its latest session's display name.
    pub(crate) players: BTreeMap<PlayerId, String>,
    /// Accounts, tickets, ratings, leases, the lifecycle stream.
    pub(crate) lobby: crate::lobby::tables::Lobby,
    /// The lifecycle stream and its consumer groups.
    pub(crate) lifecycle: crate::lifecycle::tables::Lifecycle,
    /// Lease name -> its holder, and when the lease runs out.
    pub(crate) leases: BTreeMap<String, (String, std::time::Instant)>,
    /// The announcements owed ([`HostStore::append_final`]): match -> its `Finished`.
    pub(crate) owed: BTreeMap<MatchId, Finished>,
    /// Tenants, keys, audit logs, requests, results streams.
    pub(crate) platform: crate::platform::tables::Platform,
    /// The live bot matches.
    pub(crate) bots: crate::matches::memory::tables::Bots,
    /// The players' and the games' match lists.
    pub(crate) lists: crate::matches::memory::tables::Lists,
    /// The seats' presence leases.
    pub(crate) presence: crate::presence::tables::Leases,
}

pub(crate) struct MatchState {
    pub(crate) meta: MatchMeta,
    pub(crate) secret: MatchSecret,
    /// `log[v]` is version `v`, without views.
    pub(crate) log: Vec<Entry>,
    /// Each viewer's view after the latest version.
    pub(crate) views: Vec<StoredEvent>,
    /// Compacted ([`HostStore::compact`]): `log` is what the record reads back as, and
    /// nothing more is appended.
    pub(crate) compacted: bool,
    /// Its final step is stored (the meta's `over` on Redis): no seat is taken from then on.
    pub(crate) over: bool,
    /// Idempotency key -> version.
    pub(crate) idem: BTreeMap<String, u64>,
    pub(crate) snapshot: Option<(u64, Vec<u8>)>,
}

impl Default for MemoryStore {
    fn default() -> Self {
        MemoryStore {
            state: Mutex::default(),
            feed: broadcast::channel(FEED_CAPACITY).0,
            ticket_feed: broadcast::channel(FEED_CAPACITY).0,
            results_feed: broadcast::channel(FEED_CAPACITY).0,
            presence_feed: broadcast::channel(FEED_CAPACITY).0,
            finished: tokio::sync::Notify::new(),
        }
    }
}

impl MemoryStore {
    /// An empty store.
    pub fn new() -> Self {
        Self::default()
    }

    pub(crate) fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the maps half-updated in a way that
        // matters more than the panic itself; keep serving.
        self.state.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// `ms` as a duration, capped at decades so that adding it to an instant cannot overflow
/// (every domain's waits and expiries in this store go through it).
pub(crate) fn millis(ms: u64) -> std::time::Duration {
    std::time::Duration::from_millis(ms.min(1 << 40))
}

/// A duration in whole milliseconds, rounded up.
pub(crate) fn millis_ceil(d: std::time::Duration) -> u64 {
    u64::try_from(d.as_micros().div_ceil(1_000)).unwrap_or(u64::MAX)
}
