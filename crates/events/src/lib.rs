//! The match log: one event envelope, one store trait, two implementations (Redis Streams
//! for production and every integration test; in-memory for `make run` without Redis and
//! for pure unit tests).
//!
//! A match is a log of [`Entry`]s, one per accepted step, numbered by version: version 0 is
//! the creation (the opening events), version `n` the `n`-th step. The log is the source of
//! truth: a rules-engine replica rebuilds a match by replaying its steps (from the latest
//! snapshot, if any), and the gateway streams each entry's events to the watchers their
//! audience admits. Beside the log the store keeps what the services share: the match's
//! [`MatchMeta`] and seats, snapshots, deadlines for the clock and guest sessions.
//!
//! # Layout
//!
//! - [`ids`]: [`MatchId`], [`PlayerId`] (UUID newtypes).
//! - [`model`]: the envelope ([`Entry`], [`StoredEvent`]), [`MatchMeta`] (its `Debug` hides
//!   the seed), and the typed answers ([`AppendOutcome`], [`ClaimOutcome`], [`Deadline`]...).
//! - [`store`]: the [`EventStore`] trait (object-safe: services hold `Arc<dyn EventStore>`).
//! - [`memory`]: [`MemoryStore`]. [`redis_store`]: [`RedisStore`], with its Lua scripts in
//!   `src/lua/`.
//! - [`keys`]: the Redis key layout (the table is there). [`codec`]: how records become
//!   Redis fields.
//! - [`error`]: [`StoreError`], the one error type.
//!
//! # Choices
//!
//! - **Explicit stream ids.** Entry `v` has the stream id `<v>-1` (`0-1` for the creation,
//!   since Redis refuses `0-0`). `append` checks in one Lua script that `v` is the last
//!   version + 1 and then `XADD`s with that id, so two replicas can never both append step
//!   `v`: the second gets [`AppendOutcome::Conflict`] with the current version. The
//!   idempotency check comes first in the same script, so a retried submit answers
//!   [`AppendOutcome::Duplicate`] with the version it was accepted at, even after later
//!   steps. The deadline change rides in the same script: the clock can never see a step
//!   without its deadline or the reverse.
//! - **Inclusive `from_version`.** `read` and `tail` take the first version wanted (0 for
//!   everything, `last_seen + 1` to resume), so the opening entry is reachable and callers
//!   need no `Option` for "nothing seen yet".
//! - **One blocking read for many matches.** `tail` is one `XREAD BLOCK` over every stream
//!   a gateway watches, on its own connection; the memory store blocks on a
//!   [`tokio::sync::Notify`] the same way.
//! - **No clock in the store.** Times (`at_ms`, `created_at_ms`, `due_ms`, `now_ms`) come
//!   in as arguments; the store never reads the wall clock.
//! - **Seats as strings.** A seat holder is `open`, `player:<id>`, `reserved:<id>` or
//!   `bot:<name>` in its own hash field, so claiming is a string compare in Lua with no
//!   JSON in scripts; the fixed meta is one JSON field.
//! - **Snapshots only move forward.** `put_snapshot` ignores a snapshot older than (or as
//!   old as) the stored one, so racing replicas cannot move it back.
//!
//! # Redis Cluster
//!
//! Per-match keys share the hash tag `{<match-id>}`. The deadline index
//! (`colosseum:deadlines`, `colosseum:deadline-fences`) is global and sits in another slot,
//! so `append.lua` (which touches both) runs on a single Redis or a primary with replicas,
//! not on a sharded cluster, where it fails with `CROSSSLOT`. Moving to a cluster would keep
//! the authoritative deadline in the match's slot (written by `append.lua`) and make the
//! global index a hint updated after it, which the fence already makes safe to fire late
//! or twice.

pub mod codec;
pub mod error;
pub mod ids;
pub mod keys;
pub mod memory;
pub mod model;
pub mod redis_store;
pub mod store;

pub use error::StoreError;
pub use ids::{BadId, MatchId, PlayerId};
pub use memory::MemoryStore;
pub use model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, SeatHolder, Session,
    StoredEvent,
};
pub use redis_store::RedisStore;
pub use store::{EventStore, TAIL_BATCH};
