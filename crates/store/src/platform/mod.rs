//! The tournament service's store ([`PlatformStore`]): tenants and their API keys, audit
//! logs, idempotent requests (bulk matches, tournaments), the tenant of each match, and the
//! results streams (one per tenant, one per tournament) with dense sequence numbers. What
//! an event or a request record says is the service's JSON: the store sequences, indexes
//! and guards it, and never parses it.

pub(crate) mod memory;
pub(crate) mod redis;
pub(crate) mod tables;

use crate::error::StoreError;
use crate::matches::traits::EventStore;
use async_trait::async_trait;
use ids::{MatchId, TenantId, TournamentId};
use serde::{Deserialize, Serialize};

/// A tenant: an organiser with its own keys, matches, tournaments and results.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Tenant {
    /// Its id.
    pub id: TenantId,
    /// Its name.
    pub name: String,
    /// When it was made, Unix ms.
    pub created_ms: u64,
}

/// An API key as kept: its hash, never the key.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct ApiKey {
    /// The key's public id (the part of the key before its secret).
    pub key_id: String,
    /// Its tenant.
    pub tenant: TenantId,
    /// Its scopes.
    pub scopes: Vec<String>,
    /// A label for people.
    pub label: String,
    /// SHA-256 of the whole key, lower-case hex.
    pub digest_hex: String,
    /// When it was made, Unix ms.
    pub created_ms: u64,
    /// When it was revoked; 0 while live.
    pub revoked_ms: u64,
}

/// One entry of a results stream.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StreamEntry {
    /// Its sequence number: dense from 1 in its stream.
    pub seq: u64,
    /// The service's JSON.
    pub json: String,
}

/// Which results stream: a tenant's, or one of its tournaments'.
#[derive(Clone, Copy, PartialEq, Eq, Debug, PartialOrd, Ord)]
pub enum Stream {
    /// Everything of the tenant's.
    Tenant(TenantId),
    /// One tournament's (whose events also go to its tenant's stream).
    Tournament(TenantId, TournamentId),
}

impl Stream {
    /// The tenant the stream belongs to.
    pub fn tenant(self) -> TenantId {
        match self {
            Stream::Tenant(t) | Stream::Tournament(t, _) => t,
        }
    }
}

/// An idempotent request to begin ([`PlatformStore::begin`]).
#[derive(Clone, Copy, Debug)]
pub struct Begin<'a> {
    /// The kind of request (`bulk`, `tournament`): keys of two kinds never collide.
    pub kind: &'a str,
    /// The tenant.
    pub tenant: TenantId,
    /// The idempotency key.
    pub key: &'a str,
    /// The request's digest: the same key with another digest is another request.
    pub digest: &'a str,
    /// What the service keeps of the request.
    pub record_json: &'a str,
    /// The matches it makes, with the tenant's record of each.
    pub owned: &'a [(MatchId, String)],
    /// Those of its matches that start later, with when (Unix ms), for
    /// [`PlatformStore::due_scheduled`].
    pub scheduled: &'a [(MatchId, u64)],
    /// When, Unix ms.
    pub now_ms: u64,
}

/// What [`PlatformStore::begin`] found.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum Begun {
    /// The key was new: the record is stored, not done.
    New,
    /// The key was used for the same request (the same digest): its record, and whether
    /// [`PlatformStore::finish`] marked it done.
    Same {
        /// The record stored by the first call.
        record_json: String,
        /// Done.
        done: bool,
    },
    /// The key was used for another request: nothing changed.
    Mismatch,
}

/// An idempotent request begun and not finished (its caller may have died).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Unfinished {
    /// The tenant.
    pub tenant: TenantId,
    /// The idempotency key.
    pub key: String,
    /// The record.
    pub record_json: String,
    /// When it was begun, Unix ms.
    pub begun_ms: u64,
}

/// An append to a results stream (and so to the tenant's).
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Append {
    /// Where: a tournament's stream (each event also goes to its tenant's), or the
    /// tenant's alone.
    pub stream: Stream,
    /// Append only if the stream's last sequence number is this (a tournament's writers
    /// fold its stream and decide on what they read); `None`: whatever it is.
    pub expect_seq: Option<u64>,
    /// Append only once for this mark: if it was appended with before, nothing changes
    /// (one match's finish, seen twice on the lifecycle stream).
    pub once: Option<String>,
    /// The events, in order.
    pub events: Vec<String>,
    /// Matches whose record ([`PlatformStore::owned`]) is written in the same step.
    pub owned: Vec<(MatchId, String)>,
    /// When, Unix ms (a tournament's first append lists it by this time).
    pub at_ms: u64,
    /// The tournament is over: no longer among [`PlatformStore::live_tournaments`].
    pub close: bool,
}

/// What an [`Append`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Appended {
    /// Appended: the stream's last sequence number now (the tournament's, or the tenant's
    /// for a tenant stream).
    Done {
        /// The last sequence number.
        last_seq: u64,
    },
    /// The stream's last sequence number was not `expect_seq`: nothing changed.
    Conflict {
        /// The last sequence number.
        last_seq: u64,
    },
    /// The `once` mark was used before: nothing changed.
    Already,
}

/// The results feed: the tenant of each results append, as it happens (every append to a
/// tournament's stream also appends to its tenant's). At most once, like the append feed:
/// it ends when the subscription is lost, and a follower reads its stream again anyway.
pub type ResultsFeed = std::pin::Pin<Box<dyn tokio_stream::Stream<Item = TenantId> + Send>>;

/// The tournament service's store. Every operation is atomic; both [`crate::RedisStore`]
/// (every key under the `{platform}` hash tag, one slot) and [`crate::MemoryStore`]
/// implement it and pass `tests/platform.rs`.
#[async_trait]
pub trait PlatformStore: EventStore {
    /// Stores a tenant.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn put_tenant(&self, tenant: &Tenant) -> Result<(), StoreError>;

    /// Every tenant, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError>;

    /// A tenant.
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn tenant(&self, id: TenantId) -> Result<Option<Tenant>, StoreError>;

    /// Stores a key (a new one, or a revoked one).
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn put_api_key(&self, key: &ApiKey) -> Result<(), StoreError>;

    /// A key by its id.
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn api_key(&self, key_id: &str) -> Result<Option<ApiKey>, StoreError>;

    /// A tenant's keys, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn api_keys_of(&self, tenant: TenantId) -> Result<Vec<ApiKey>, StoreError>;

    /// Appends to the tenant's audit log (about [`AUDIT_KEPT`] entries are kept).
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn audit(&self, tenant: TenantId, json: &str) -> Result<(), StoreError>;

    /// The last `limit` entries of the tenant's audit log, oldest first.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn audit_tail(&self, tenant: TenantId, limit: usize) -> Result<Vec<String>, StoreError>;

    /// Begins an idempotent request: under (`kind`, tenant, `key`), stores `record_json`
    /// and `digest` unless the key was used, and writes each of `owned` (the matches it
    /// makes, for [`PlatformStore::owned`]) unless already written. Answers what it found.
    /// See [`Begin`].
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn begin(&self, begin: &Begin<'_>) -> Result<Begun, StoreError>;

    /// Marks a begun request done and appends `events` to the tenant's stream, once: a
    /// request done before changes nothing (answers false).
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] if it was never begun; [`StoreError::Redis`].
    async fn finish(
        &self,
        kind: &str,
        tenant: TenantId,
        key: &str,
        events: &[String],
        now_ms: u64,
    ) -> Result<bool, StoreError>;

    /// The requests of `kind` begun and not done, oldest first, at most `limit`.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn unfinished(&self, kind: &str, limit: usize) -> Result<Vec<Unfinished>, StoreError>;

    /// The record of a match a tenant made (the service's JSON), if any.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn owned(&self, id: MatchId) -> Result<Option<String>, StoreError>;

    /// Appends to a results stream, as [`Append`] says.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn append_results(&self, append: &Append) -> Result<Appended, StoreError>;

    /// Subscribes to the results feed ([`ResultsFeed`]): each append to a results stream
    /// from now on names its tenant.
    ///
    /// # Errors
    /// [`StoreError::Redis`]: the subscription could not be made.
    async fn results_feed(&self) -> Result<ResultsFeed, StoreError>;

    /// At most `limit` entries of a stream after sequence number `after`, in order.
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn read_results(
        &self,
        stream: Stream,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, StoreError>;

    /// A stream's last sequence number (0 if empty).
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn results_seq(&self, stream: Stream) -> Result<u64, StoreError>;

    /// A tenant's tournaments (those whose stream has an entry), newest first, at most
    /// `limit`.
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn tournaments_of(
        &self,
        tenant: TenantId,
        limit: usize,
    ) -> Result<Vec<TournamentId>, StoreError>;

    /// At most `limit` scheduled matches ([`Begin::scheduled`]) due at or before `now_ms`,
    /// earliest first; they stay listed until [`PlatformStore::unschedule`].
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn due_scheduled(&self, now_ms: u64, limit: usize) -> Result<Vec<MatchId>, StoreError>;

    /// Takes a scheduled match off the list (it was created).
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn unschedule(&self, id: MatchId) -> Result<(), StoreError>;

    /// Every tournament of every tenant not closed yet (the first append to its stream
    /// opens it, an [`Append::close`] closes it), as (tenant, tournament).
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn live_tournaments(&self) -> Result<Vec<(TenantId, TournamentId)>, StoreError>;

    /// Lists tournament `id` of `tenant` as public: found by its id alone
    /// ([`PlatformStore::public_tournament`]), for its public page. Listing it again
    /// changes nothing. A hint, written before the tournament's stream is opened: it may
    /// name a tournament never created, which a reader finds empty.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn put_public_tournament(
        &self,
        id: TournamentId,
        tenant: TenantId,
    ) -> Result<(), StoreError>;

    /// The tenant of tournament `id` if it is listed public; `None` for any other id (a
    /// private tournament's, or one that names nothing: the same answer).
    ///
    /// # Errors
    /// [`StoreError::Redis`] or [`StoreError::Corrupt`].
    async fn public_tournament(&self, id: TournamentId) -> Result<Option<TenantId>, StoreError>;
}

/// About how many audit entries a tenant keeps (`XADD MAXLEN ~`).
pub const AUDIT_KEPT: usize = 100_000;
