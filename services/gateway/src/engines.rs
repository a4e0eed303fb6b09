//! The rules engines behind the gateway, one per family, as gRPC clients.

use api::internal::rules_engine_service_client::RulesEngineServiceClient;
use service_kit::status::ServiceError;
use std::collections::BTreeMap;
use tonic::transport::{Channel, Endpoint};

/// A client per game family.
#[derive(Clone)]
pub struct Engines {
    by_family: BTreeMap<String, RulesEngineServiceClient<Channel>>,
}

impl Engines {
    /// Clients for `(family, url)` pairs; connections are made lazily.
    ///
    /// # Errors
    /// A URL that does not parse.
    pub fn new(urls: &[(String, String)]) -> Result<Self, tonic::transport::Error> {
        let mut by_family = BTreeMap::new();
        for (family, url) in urls {
            let channel = Endpoint::from_shared(url.clone())?.connect_lazy();
            by_family.insert(family.clone(), RulesEngineServiceClient::new(channel));
        }
        Ok(Engines { by_family })
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
        self.by_family.get(family).cloned().ok_or_else(|| {
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
            .cloned()
            .ok_or_else(|| ServiceError::Unavailable("no rules engine".into()))
    }
}
