//! The gateway: Colosseum's public gRPC API (`colosseum.v1.ColosseumService`).
//!
//! Stateless: sessions, match metadata and streams live in the event store, matches in
//! the rules engines. The tower chain, outermost first: the authentication layer (a token
//! becomes a `Caller`), then the service. One hub per gateway follows the store's append feed
//! and fans new entries out to watchers, and holds the presence of the seats its watchers
//! play. The bot runner lives here too, as a client of this
//! API: a duty every gateway runs and the holder of its lease performs.
//!
//! # Layout
//! - [`auth`]: the tower layer that authenticates tokens (and finds the client's address).
//! - [`forwarded`]: the trusted proxies, and the client's address they forward.
//! - [`matches`]: the match core: the `Gateway`, and SubmitMove, Resign and WatchMatch for
//!   a caller, shared by the unary handlers and the Play streams.
//! - [`public`]: ColosseumService's handlers.
//! - [`play`]: one Play stream: many matches' watches, moves and resignations.
//! - [`hub`]: the fan-out of every watched match's new entries and seats' presence.
//! - [`limits`]: the bound of every request field.
//! - [`lists`]: ListMyMatches and ListLiveMatches, from the store's match lists.
//! - [`history`]: ListPlayerHistory, from the archive.
//! - [`verify`]: VerifyRecord, a posted record replayed a few at a time.
//! - [`forward`]: the one forwarder of the APIs passed on whole (the next three).
//! - [`lobby`]: LobbyService, passed on to the match-maker.
//! - [`platform`]: TournamentService, passed on to the tournament service.
//! - [`tournament_view`]: TournamentViewService (public pages, open), passed on the same way.
//! - [`watch`]: one WatchMatch stream: backfill, then live, per viewer.
//! - [`encoded`]: what watchers are sent, written around the engine's stored bytes.
//! - [`served`]: ColosseumService's route: WatchMatch and Play sent as [`encoded`] writes
//!   them, the rest by the generated server.
//! - [`web`]: the browser front on the same port: the web client's page, CORS, origins;
//!   gRPC-Web goes through tonic-web to the same stack.
//! - [`error`]: what can go wrong, and the one match from it to a status.
//! - [`connect`]: the Connect protocol's calls, translated to gRPC's.
//! - [`bots`]: the bot runner (under a lease; it resumes every bot match recorded).
//! - [`metrics`]: what the gateway counts.

pub mod auth;
pub mod bots;
pub mod connect;
pub mod encoded;
pub mod error;
pub mod forward;
pub mod forwarded;
pub mod history;
pub mod hub;
pub mod limits;
pub mod lists;
pub mod lobby;
pub mod matches;
pub mod metrics;
pub mod platform;
pub mod play;
pub mod public;
pub mod served;
pub mod tournament_view;
pub mod verify;
pub mod watch;
pub mod web;

use api::v1;
use std::sync::Arc;
use store::GatewayStore;
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
            fixed_move_time_ms: match games::time::fixed_move_time(g.name, &serde_json::Value::Null)
            {
                Some(rules_core::MoveTime::Fixed { move_ms, .. }) => Some(move_ms),
                Some(rules_core::MoveTime::Standard) | None => None,
            },
        })
        .collect()
}

/// The services the gateway passes calls on to, and what it serves browsers.
#[derive(Clone, Default)]
pub struct Backends {
    /// LobbyService's: the match-maker (none: every call answers UNAVAILABLE).
    pub lobby: Option<lobby::MatchMakerClient>,
    /// TournamentService's: the tournament service (none: every call answers UNAVAILABLE).
    pub tournaments: Option<platform::TournamentsClient>,
    /// The web client's files and the other origins that may call (none: the API alone).
    pub web: web::Web,
    /// The archive of finished matches (none: records are read from the store alone, and
    /// ListPlayerHistory answers FAILED_PRECONDITION).
    pub archive: Option<Arc<dyn store::ArchiveStore>>,
}

/// Serves the gateway on `listener` until `shutdown`, with the bot runner's duty beside it
/// ([`bots::Runner`]: when this gateway holds the lease, it plays every bot match through
/// `public_url`, this gateway's own address). LobbyService and TournamentService calls go
/// to `backends`. The client's address (for the match-maker's per-address limits) is
/// taken from `x-forwarded-for` only on calls from `proxies`.
///
/// # Errors
/// The server failed.
pub async fn serve(
    listener: TcpListener,
    store: Arc<dyn GatewayStore>,
    engines: engines::Engines,
    backends: Backends,
    proxies: forwarded::TrustedProxies,
    public_url: String,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    service_kit::metrics::describe(metrics::ALL);
    let Backends { lobby, tournaments, web, archive } = backends;
    let hub = hub::Hub::new(store.clone());
    tokio::spawn(hub.clone().run(shutdown.clone()));
    // The bot runner plays through this gateway like any client, whenever this gateway
    // holds its lease (its calls wait for the server below to be up).
    tokio::spawn(bots::Runner::new(store.clone(), &public_url).run(shutdown.clone()));
    let store: Arc<dyn store::EventStore> = store;
    let gateway =
        matches::Gateway::new(store.clone(), engines, hub, shutdown.clone()).with_archive(archive);
    let services = service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET)
        .with(served::Served::new(gateway))
        .with(v1::lobby_service_server::LobbyServiceServer::new(lobby::LobbyFront::new(lobby)))
        .with(v1::tournament_view_service_server::TournamentViewServiceServer::new(
            tournament_view::ViewFront::new(tournaments.as_ref()),
        ))
        .with(
            v1::tournament_service_server::TournamentServiceServer::new(
                platform::PlatformFront::new(tournaments),
            )
            .max_decoding_message_size(service_kit::serve::MAX_LARGER_REQUEST_BYTES),
        )
        .larger_messages(api_convert::text::LARGER_MESSAGES);
    // Inside the edge: every request is authenticated before any handler runs. Outside it:
    // the browser front, then Connect's and gRPC-Web's translations, so a browser's call
    // is a gRPC call by the time the edge counts and bounds it.
    let auth = auth::AuthLayer::new(store).trusting(proxies);
    let front = tower::ServiceBuilder::new()
        .layer(web)
        .layer(connect::ConnectLayer)
        .layer(tonic_web::GrpcWebLayer::new());
    service_kit::serve::serve_behind(front.into_inner(), auth, services, listener, shutdown).await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn list_games_says_which_rules_fix_the_time_per_move() {
        let null = serde_json::Value::Null;
        let infos = games_info();
        assert_eq!(infos.len(), games::GAMES.len());
        for g in &infos {
            match g.fixed_move_time_ms {
                // What ListGames says is the one time a match of it takes.
                Some(ms) => {
                    let policy = games::time::Policy::Hosted;
                    assert_eq!(
                        games::time::accept(&g.name, &null, ms, policy),
                        Ok(ms),
                        "{}",
                        g.name
                    );
                    assert!(games::time::accept(&g.name, &null, ms * 2, policy).is_err());
                }
                None => assert!(games::time::fixed_move_time(&g.name, &null).is_none()),
            }
        }
        let fixed: Vec<&str> = infos
            .iter()
            .filter(|g| g.fixed_move_time_ms.is_some())
            .map(|g| g.name.as_str())
            .collect();
        assert_eq!(fixed, ["dueling-monsters", "cure-plague", "hexspiel"]);
    }
}
