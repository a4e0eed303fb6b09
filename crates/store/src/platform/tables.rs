//! The platform's tables in the in-memory store (tenants, keys, audit logs, requests,
//! results streams), held in the store's one state; `memory.rs` beside this works them.

use crate::platform::{ApiKey, Stream, Tenant};
use ids::{MatchId, TenantId, TournamentId};
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// Everything of the platform's, inside the store's one `State`.
#[derive(Default)]
pub(crate) struct Platform {
    pub(crate) tenants: BTreeMap<TenantId, Tenant>,
    pub(crate) keys: BTreeMap<String, ApiKey>,
    pub(crate) audit: BTreeMap<TenantId, VecDeque<String>>,
    /// (kind, tenant, key) -> the request.
    pub(crate) requests: BTreeMap<(String, TenantId, String), Request>,
    pub(crate) owned: BTreeMap<MatchId, String>,
    /// (start, match) of the matches to create later.
    pub(crate) scheduled: BTreeSet<(u64, MatchId)>,
    /// Each stream's events; `streams[s][i]` has sequence number `i + 1`.
    pub(crate) streams: BTreeMap<Stream, Vec<String>>,
    /// Tenant -> (created ms, tournament), newest last.
    pub(crate) tournaments: BTreeMap<TenantId, BTreeSet<(u64, TournamentId)>>,
    pub(crate) live: BTreeSet<(TenantId, TournamentId)>,
    pub(crate) once: BTreeSet<String>,
    /// Public tournament -> its tenant.
    pub(crate) public: BTreeMap<TournamentId, TenantId>,
}

pub(crate) struct Request {
    pub(crate) digest: String,
    pub(crate) record: String,
    pub(crate) done: bool,
    pub(crate) begun_ms: u64,
}

impl Platform {
    pub(crate) fn push(&mut self, stream: Stream, events: &[String]) -> u64 {
        let s = self.streams.entry(stream).or_default();
        s.extend(events.iter().cloned());
        s.len() as u64
    }

    pub(crate) fn seq(&self, stream: Stream) -> u64 {
        self.streams.get(&stream).map_or(0, |s| s.len() as u64)
    }
}
