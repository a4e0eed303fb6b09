//! The rules engines behind the gateway, one per family, as gRPC clients.

use api::internal::rules_engine_service_client::RulesEngineServiceClient;
use service_kit::status::ServiceError;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tonic::transport::{Channel, Endpoint};

/// HTTP/2 connections the gateway keeps to each family's engine address, used in turn:
/// behind a Kubernetes Service (a layer-4 balancer) one connection would pin every move
/// of the family to one engine replica. (On the 2-core benchmark machine, with one
/// replica, 4 connections measured the same as 1.)
pub const CONNECTIONS_PER_ENGINE: usize = 4;

/// Clients per game family.
#[derive(Clone)]
pub struct Engines {
    by_family: BTreeMap<String, Vec<RulesEngineServiceClient<Channel>>>,
    next: Arc<AtomicUsize>,
}

impl Engines {
    /// Clients for `(family, url)` pairs; connections are made lazily.
    ///
    /// # Errors
    /// A URL that does not parse.
    pub fn new(urls: &[(String, String)]) -> Result<Self, tonic::transport::Error> {
        let mut by_family = BTreeMap::new();
        for (family, url) in urls {
            let endpoint = Endpoint::from_shared(url.clone())?;
            let clients = (0..CONNECTIONS_PER_ENGINE)
                .map(|_| RulesEngineServiceClient::new(endpoint.connect_lazy()))
                .collect();
            by_family.insert(family.clone(), clients);
        }
        Ok(Engines { by_family, next: Arc::default() })
    }

    /// The next of `clients`, in turn.
    fn pick(
        &self,
        clients: &[RulesEngineServiceClient<Channel>],
    ) -> Option<RulesEngineServiceClient<Channel>> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        clients.get(n % clients.len().max(1)).cloned()
    }

    /// The engine hosting `game`.
    ///
    /// # Errors
    /// INVALID_ARGUMENT for an unknown game, UNAVAILABLE when no engine hosts its family.
    pub fn for_game(&self, game: &str) -> Result<RulesEngineServiceClient<Channel>, ServiceError> {
        let family =
            games::GAMES.iter().find(|g| g.name == game).map(|g| g.family).ok_or_else(|| {
                ServiceError::InvalidArgument(format!(
                    "unknown game {game:?}; the games are {}",
                    games::catalog::names()
                ))
            })?;
        self.by_family.get(family).and_then(|c| self.pick(c)).ok_or_else(|| {
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
            .and_then(|c| self.pick(c))
            .ok_or_else(|| ServiceError::Unavailable("no rules engine".into()))
    }
}
