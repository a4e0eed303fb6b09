//! The gateway: Colosseum's public gRPC API (`colosseum.v1.ColosseumService`).
//!
//! Stateless: sessions, match metadata and streams live in the event store, matches in
//! the rules engines. The tower chain, outermost first: the authentication layer (a token
//! becomes a `Caller`), then the service. One hub per gateway follows the store's append feed
//! and fans new entries out to watchers. The bot runner lives here too, as a client of this API.
//!
//! # Layout
//! - [`auth`]: the tower layer that authenticates tokens.
//! - [`public`]: the handlers.
//! - [`play`]: one Play stream: many matches' watches, moves and resignations.
//! - [`hub`]: the fan-out of every watched match's new entries.
//! - [`limits`]: the bound of every request field.
//! - [`lobby`]: LobbyService, passed on to the match-maker.
//! - [`platform`]: TournamentService, passed on to the tournament service.
//! - [`watch`]: one WatchMatch stream: backfill, then live, per viewer.
//! - [`error`]: what can go wrong, and the one match from it to a status.
//! - [`bots`]: the bot runner.
//! - [`metrics`]: what the gateway counts.

pub mod auth;
pub mod bots;
pub mod error;
pub mod hub;
pub mod limits;
pub mod lobby;
pub mod metrics;
pub mod platform;
pub mod play;
pub mod public;
pub mod watch;

use api::v1;
use events::EventStore;
use std::sync::{Arc, OnceLock};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The hosted games as ListGames describes them.
pub fn games_info() -> Vec<v1::GameInfo> {
    struct Defaults;
    impl games::Visit for Defaults {
        type Out = String;
        fn visit<G: games::Hostable>(self) -> String {
            serde_json::to_string(&G::Options::default()).unwrap_or_default()
        }
    }
    games::GAMES
        .iter()
        .map(|g| v1::GameInfo {
            name: g.name.to_string(),
            family: g.family.to_string(),
            title: g.title.to_string(),
            default_options_json: games::visit(g.name, Defaults).unwrap_or_default(),
            bots: games::registry::bot_names(g.name).iter().map(|b| b.to_string()).collect(),
        })
        .collect()
}

/// Serves the gateway on `listener` until `shutdown`; the bot runner connects back to
/// `public_url` (this gateway's own address) once the server is up. LobbyService calls go
/// to `lobby` (the match-maker), TournamentService calls to `tournaments` (the tournament
/// service); either answers UNAVAILABLE without one.
///
/// # Errors
/// The server failed.
pub async fn serve(
    listener: TcpListener,
    store: Arc<dyn EventStore>,
    engines: engines::Engines,
    lobby: Option<lobby::MatchMakerClient>,
    tournaments: Option<platform::TournamentsClient>,
    public_url: String,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    service_kit::metrics::describe(metrics::ALL);
    let hub = hub::Hub::new(store.clone());
    tokio::spawn(hub.clone().run(shutdown.clone()));
    let dispatch = Arc::new(OnceLock::new());
    let gateway =
        public::Gateway::new(store.clone(), engines, hub, dispatch.clone(), shutdown.clone());
    {
        let shutdown = shutdown.clone();
        tokio::spawn(async move {
            // The bot runner is a client like any other: it needs the server up first.
            for attempt in 0..50 {
                match bots::start(&public_url, shutdown.clone()).await {
                    Ok(d) => {
                        let _ = dispatch.set(d);
                        tracing::info!("bot runner ready");
                        return;
                    }
                    Err(e) if attempt == 49 => {
                        tracing::error!(error = %e, "the bot runner could not start")
                    }
                    Err(_) => tokio::time::sleep(std::time::Duration::from_millis(100)).await,
                }
            }
        });
    }
    let services = service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET)
        .with(gateway.into_service())
        .with(v1::lobby_service_server::LobbyServiceServer::new(lobby::LobbyFront::new(lobby)))
        .with(
            v1::tournament_service_server::TournamentServiceServer::new(
                platform::PlatformFront::new(tournaments),
            )
            .max_decoding_message_size(service_kit::serve::MAX_LARGER_REQUEST_BYTES),
        )
        .larger_messages(fields::text::LARGER_MESSAGES);
    // Inside the edge: every request is authenticated before any handler runs.
    service_kit::serve::serve(auth::AuthLayer::new(store), services, listener, shutdown).await
}
