//! The match log: one event envelope, one store trait, two implementations (Redis Streams
//! for production and every integration test; in-memory for `make run` without Redis and
//! for pure unit tests).
//!
//! A match is a log of [`Entry`]s, one per accepted step, numbered by version: version 0 is
//! the creation (the opening events), version `n` the `n`-th step. The log is the source of
//! truth: a rules-engine replica rebuilds a match by replaying its steps (from the latest
//! snapshot, if any), and the gateway streams each entry's events to the watchers their
//! audience admits. Beside the log the store keeps what the services share: the match's
//! [`MatchMeta`] and seats, snapshots, deadlines for the clock and guest sessions; and what
//! only the rules engine reads: the match's [`MatchSecret`] (its seed).
//!
//! # Layout
//!
//! - The ids ([`MatchId`], [`PlayerId`]...) and [`SeatHolder`] come from the `ids` crate.
//! - [`model`]: the envelope ([`Entry`], [`StoredEvent`]), [`MatchMeta`] (public, no seed),
//!   [`MatchSecret`] (the seed; its `Debug` hides it), and the typed answers
//!   ([`AppendOutcome`], [`ClaimOutcome`], [`Deadline`]...).
//! - [`store`]: the [`EventStore`] trait (object-safe: services hold `Arc<dyn EventStore>`)
//!   and [`HostStore`], the rules engine's, with match creation and the seed.
//! - [`parts`]: [`TenantStore`] (the tournament service's) and [`FullStore`] (all of them,
//!   which a process running several services upcasts to each one's part).
//! - [`bots`]: [`BotMatch`], the live matches a built-in bot plays (the bot runner's).
//! - [`lobby`]: [`LobbyStore`], the match-maker's (accounts, tickets, ratings, the
//!   lifecycle stream's consumer side), and its model.
//! - [`lifecycle`]: the lifecycle stream's model: [`Finished`] (the engine announces it),
//!   [`Delivery`] (a consumer group reads it); [`consumer`]: the one consumer of the
//!   stream, for the services that read finished matches through a consumer group.
//! - [`platform`]: [`PlatformStore`], the tournament service's (tenants, API keys, audit
//!   logs, idempotent requests, results streams).
//! - [`archive`]: [`ArchiveStore`], finished matches after they leave Redis (PostgreSQL,
//!   or memory for `make run`): records by id, each player's history by the page.
//! - [`presence`]: [`PresenceStore`], the gateway's: whether each seat's player is
//!   connected to a match, as leases its holders renew, and the feed of its changes.
//! - [`memory`]: [`MemoryStore`]. [`redis_store`]: [`RedisStore`], with its Lua scripts in
//!   `src/lua/`. Each keeps its lobby part in a `lobby.rs` of its own (and its platform
//!   and presence parts likewise).
//! - [`keys`]: the Redis key layout (the table is there). [`codec`]: how records become
//!   Redis fields.
//! - [`feed`]: the append feed's stream type ([`AppendFeed`]) and notification format.
//! - [`error`]: [`StoreError`], the one error type.
//! - [`open`]: [`open_from_env`] (and [`open_host_store_from_env`] for the engine,
//!   [`open_gateway_store_from_env`] for the gateway, [`open_full_store_from_env`] for
//!   everything), the store a process's environment
//!   names, wrapped in [`instrumented`]'s metrics.
//! - [`instrumented`]: a store that times and counts every call of another, by operation.
//!
//! # Choices
//!
//! - **Explicit stream ids.** Entry `v` has the stream id `<v>-1` (`0-1` for the creation,
//!   since Redis refuses `0-0`). `append` checks in one Lua script that `v` is the last
//!   version + 1 and then `XADD`s with that id, so two replicas can never both append step
//!   `v`: the second gets [`AppendOutcome::Conflict`] with the current version. The
//!   idempotency check comes first in the same script, so a retried submit answers
//!   [`AppendOutcome::Duplicate`] with the version it was accepted at, even after later
//!   steps. The deadline change rides in the same script: a step and its deadline are
//!   stored together or not at all.
//! - **Inclusive `from_version`.** `read` takes the first version wanted (0 for
//!   everything, `last_seen + 1` to resume), so the opening entry is reachable and callers
//!   need no `Option` for "nothing seen yet".
//! - **An append feed.** `append_feed` announces each append (`PUBLISH` from the append
//!   script; a broadcast channel in memory), at most once: a reader that loses it
//!   subscribes again and reads the logs for what it missed. Readers never block on a
//!   stream, and every read names one match, so nothing spans Redis Cluster slots.
//! - **No clock in the store.** Times (`at_ms`, `created_at_ms`, `due_ms`, `now_ms`) come
//!   in as arguments; the store never reads the wall clock.
//! - **Seats as strings.** A seat holder is `open`, `player:<id>`, `reserved:<id>` or
//!   `bot:<name>` in its own hash field, so claiming is a string compare in Lua with no
//!   JSON in scripts; the fixed meta is one JSON field.
//! - **The seed apart.** The secret is its own key (`colosseum:{<match>}:secret`), written
//!   by the same create script as the meta, and its own type, read through [`HostStore`]
//!   (the rules engine's store) alone: what reads the meta (the gateway, the clock, which
//!   hold an [`EventStore`]) never receives the seed, not even as bytes it ignores (a match
//!   stored before the split has its seed moved out of the meta on the engine's first read).
//! - **Snapshots only move forward.** `put_snapshot` ignores a snapshot older than (or as
//!   old as) the stored one, so racing replicas cannot move it back.
//!
//! # Redis Cluster
//!
//! Per-match keys share the hash tag `{<match-id>}`, and every script touches the keys of
//! one match only, so each runs on that match's node. A match's armed deadline is one of
//! its keys, the truth; the deadline index the clock polls (`colosseum:deadlines`) is
//! global, in another slot, written by a separate command and kept at or before the truth:
//! a hint that `due_deadlines` corrects as it reads and `repair_deadline_index` rebuilds
//! (the reasoning is in [`redis_store`]). The fence makes a late or repeated firing safe.
//! The lobby's keys all share the hash tag `{lobby}`, one slot, so each lobby script is
//! atomic on one node; the lifecycle stream (`colosseum:lifecycle`) is one global key. So
//! a match's final step cannot put its announcement on that stream in its own script:
//! it writes the announcement into its own slot (`colosseum:{<match>}:finished`) instead,
//! after an entry in the global index `colosseum:announcing` (a hint, like the deadline
//! index), and whoever announces it (the engine, or `repair_announcements` for one whose
//! engine died) deletes both: a finished match is announced whatever dies when.

pub mod archive;
pub mod error;
pub mod instrumented;
pub mod lease;
pub mod lifecycle;
pub mod lobby;
pub mod matches;
pub mod memory;
pub mod open;
pub mod parts;
pub mod platform;
pub mod presence;
pub mod redis_store;

pub use archive::{ArchiveStore, Archived, Owner, Put, RatingDelta, Summary};
pub use error::StoreError;
pub use ids::{BOT_PLAYER, BadId, MatchId, PlayerId, SeatHolder, TenantId, TicketId, TournamentId};
pub use lease::LeaseStore;
pub use lifecycle::{Delivery, Finished, LifecycleStore};
pub use lobby::{
    Account, AccountChange, Board, LobbyStore, Pairing, Queue, RateDecision, RatedMatch, Rating,
    RatingChange, RatingUpdate, Recorded, Registered, SeekAccepted, Ticket, TicketCreated,
    TicketFeed, TicketState,
};
pub use matches::bots::BotMatch;
pub use matches::feed::AppendFeed;
pub use matches::lists::{Listed, PLAYER_MATCHES_KEPT};
pub use matches::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, MatchSecret, Session,
    StoredEvent, VIEWERS, ViewerVersions, token_digest,
};
pub use matches::traits::{EventStore, HostStore};
pub use memory::MemoryStore;
pub use open::{
    description_from_env, open_from_env, open_full_store_from_env, open_gateway_store_from_env,
    open_host_store_from_env,
};
pub use parts::{ArchiverStore, FullStore, GatewayStore, MatchMakerStore, TenantStore};
pub use platform::{
    ApiKey, Append, Appended, Begin, Begun, PlatformStore, Stream as ResultsStream, StreamEntry,
    Tenant, Unfinished,
};
pub use presence::{Presence, PresenceFeed, PresenceNote, PresenceStore, SeatChange};
pub use redis_store::RedisStore;
