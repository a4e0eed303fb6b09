//! The rules engines behind the gateway, by family, as gRPC clients: every address a
//! family was given (`ENGINE_URL` may list several), each match on one of them.

use api::internal::rules_engine_service_client::RulesEngineServiceClient;
use events::MatchId;
use service_kit::config::{BadUrl, EngineUrls, replica_for};
use service_kit::status::ServiceError;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tonic::transport::Channel;

/// HTTP/2 connections the gateway keeps to each engine address, used in turn: behind a
/// Kubernetes Service (a layer-4 balancer) one connection would pin every move of the
/// family to one engine replica. (On the 2-core benchmark machine, with one replica, 4
/// connections measured the same as 1.)
pub const CONNECTIONS_PER_ENGINE: usize = 4;

/// One family's engines: each address and the connections to it, in the same order.
struct Family {
    urls: Vec<String>,
    replicas: Vec<Vec<RulesEngineServiceClient<Channel>>>,
}

/// Clients per game family: every address of the family, each with its connections.
#[derive(Clone)]
pub struct Engines {
    by_family: Arc<BTreeMap<String, Family>>,
    next: Arc<AtomicUsize>,
}

impl Engines {
    /// Clients for `(family, urls)` pairs; connections are made lazily.
    ///
    /// # Errors
    /// A URL that does not parse (named, truncated).
    pub fn new(urls: &[EngineUrls]) -> Result<Self, BadUrl> {
        let mut by_family = BTreeMap::new();
        for (family, urls) in urls {
            let mut replicas = Vec::new();
            for url in urls {
                let endpoint = service_kit::config::endpoint(url)?;
                replicas.push(
                    (0..CONNECTIONS_PER_ENGINE)
                        .map(|_| RulesEngineServiceClient::new(endpoint.connect_lazy()))
                        .collect(),
                );
            }
            by_family.insert(family.clone(), Family { urls: urls.clone(), replicas });
        }
        Ok(Engines { by_family: Arc::new(by_family), next: Arc::default() })
    }

    /// The next connection to the replica that serves match `id` (or to any replica, for
    /// requests about no one match).
    fn pick(
        &self,
        family: &Family,
        id: Option<MatchId>,
    ) -> Option<RulesEngineServiceClient<Channel>> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        let replica = match id {
            Some(id) => family.replicas.get(replica_for(&family.urls, &id.to_string())),
            None => family.replicas.get(n % family.replicas.len().max(1)),
        }?;
        replica.get(n % replica.len().max(1)).cloned()
    }

    /// The engine hosting match `id` of `game`: one replica of the family per match (see
    /// [`replica_for`]), its connections in turn.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for an unknown game, UNAVAILABLE when no engine hosts its family.
    pub fn for_match(
        &self,
        game: &str,
        id: MatchId,
    ) -> Result<RulesEngineServiceClient<Channel>, ServiceError> {
        let family =
            games::GAMES.iter().find(|g| g.name == game).map(|g| g.family).ok_or_else(|| {
                ServiceError::InvalidArgument(format!(
                    "unknown game {}; the games are {}",
                    service_kit::status::clip(game),
                    games::catalog::names()
                ))
            })?;
        self.by_family.get(family).and_then(|r| self.pick(r, Some(id))).ok_or_else(|| {
            ServiceError::Unavailable(format!("no rules engine for the {family} family"))
        })
    }

    /// Any engine (for lookups that work on any: match metadata).
    ///
    /// # Errors
    /// UNAVAILABLE when there is none.
    pub fn any(&self) -> Result<RulesEngineServiceClient<Channel>, ServiceError> {
        self.by_family
            .values()
            .next()
            .and_then(|r| self.pick(r, None))
            .ok_or_else(|| ServiceError::Unavailable("no rules engine".into()))
    }
}
