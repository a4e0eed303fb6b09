//! The match-maker: accounts, queues, seeks, ratings and leaderboards
//! (`colosseum.v1.LobbyService`, fronted by the gateway). Stateless but for what the
//! store holds: any replica answers any call, one at a time holds the matcher lease.
//!
//! # Layout
//! - [`handlers`]: the handlers.
//! - [`accounts`]: passwords (Argon2id), emails, sessions, login rate limits.
//! - [`queues`]: queue specs, tickets as the API shows them, the match a pairing makes.
//! - [`matcher`]: the matching loop under the lease, and finishing pairings.
//! - [`ratings`]: Glicko-2 from the lifecycle stream, exactly once per match.
//! - [`archiver`]: finished matches moved from Redis to the archive (PostgreSQL).
//! - [`boards`]: leaderboard pages and ratings as clients read them.
//! - [`watch`]: WatchTickets, pushed from the store's ticket feed.
//! - [`error`]: what can go wrong, and the one match from it to a status.
//! - [`metrics`]: what the match-maker counts.

pub mod accounts;
pub mod archiver;
pub mod boards;
pub mod error;
pub mod handlers;
pub mod matcher;
pub mod metrics;
pub mod queues;
pub mod ratings;
pub mod watch;

use api::v1::lobby_service_server::LobbyServiceServer;
use service_kit::binary::{Failure, Up};
use service_kit::internal::InternalToken;
use std::sync::Arc;
use store::{FullStore, MatchMakerStore};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The `match-maker` binary's body ([`service_kit::binary::Service::run`]): the engines the
/// environment names, then [`serve`].
///
/// # Errors
/// The engines' variables are set wrong, or serving failed.
pub async fn main(up: Up, store: Arc<dyn FullStore>) -> Result<(), Failure> {
    let engines = engines::Engines::from_env(up.token.as_ref())?;
    let archiving = match store::archive::open_from_env().await? {
        Some(archive) => {
            let part: Arc<dyn store::ArchiverStore> = store.clone();
            Some(archiver::Archiving::from_env(part, archive)?)
        }
        None => None,
    };
    Ok(serve(up.listener, store, archiving, engines, up.token, up.shutdown).await?)
}

/// Serves the match-maker on `listener` until `shutdown`, running its matcher, ratings,
/// ticket hub and (given `archiving`) archiver beside the server; matches are created through `engines`.
///
/// # Errors
/// The server failed.
pub async fn serve(
    listener: TcpListener,
    store: Arc<dyn MatchMakerStore>,
    archiving: Option<archiver::Archiving>,
    engines: engines::Engines,
    token: Option<InternalToken>,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    service_kit::metrics::describe(metrics::ALL);
    let name = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
    let archiver = archiving.map(|a| archiver::Archiver::new(a, engines.clone()));
    let matcher = matcher::Matcher::new(store.clone(), engines, &name);
    let ratings = ratings::Ratings::new(store.clone());
    let hub = watch::TicketHub::new(store.clone());
    let mut tasks = vec![
        tokio::spawn(matcher.clone().run(shutdown.clone())),
        tokio::spawn(ratings.run(shutdown.clone())),
        tokio::spawn(hub.clone().run(shutdown.clone())),
    ];
    if let Some(archiver) = archiver {
        tasks.push(tokio::spawn(archiver.run(shutdown.clone())));
    }
    let lobby = handlers::Lobby::new(store, accounts::Passwords::new(), hub, matcher);
    let services = service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET)
        .with(LobbyServiceServer::new(lobby));
    // Inside the edge: only the gateway (which carries the secret) may name a caller.
    let auth = service_kit::internal::InternalAuthLayer::new(token);
    let result = service_kit::serve::serve(auth, services, listener, shutdown).await;
    for t in tasks {
        t.abort();
    }
    result
}
