//! `colosseum.v1.TournamentViewService` at the gateway: the public pages of tournaments,
//! open to anyone (the authentication layer lets them through with no session), passed on
//! to the tournament service with the client's address and the trace context but no token.

use crate::forward::{onward, relay};
use crate::platform::{TournamentsClient, ViewClient};
use api::v1::{self, tournament_view_service_server::TournamentViewService};
use std::pin::Pin;
use tokio_stream::{Stream, StreamExt};
use tonic::{Request, Response, Status};

/// The gateway's face of the public pages.
#[derive(Clone)]
pub struct ViewFront {
    client: Option<ViewClient>,
}

impl ViewFront {
    /// Passes calls to the tournament service `client` reaches; without one, every call
    /// answers UNAVAILABLE.
    pub fn new(client: Option<&TournamentsClient>) -> ViewFront {
        ViewFront { client: client.map(|c| c.view.clone()) }
    }

    fn client(&self) -> Result<ViewClient, Status> {
        self.client.clone().ok_or_else(|| {
            service_kit::status::unavailable("no tournament service configured (TOURNAMENTS_URL)")
        })
    }
}

/// The request as the tournament service gets it: a visitor's session token, if it sent
/// one, stays here (a page needs none).
fn public<T>(req: Request<T>) -> Request<T> {
    let mut out = onward(req);
    out.metadata_mut().remove("authorization");
    out
}

type Watch = Pin<Box<dyn Stream<Item = Result<v1::WatchPublicTournamentResponse, Status>> + Send>>;

#[tonic::async_trait]
impl TournamentViewService for ViewFront {
    async fn get_public_tournament(
        &self,
        req: Request<v1::GetPublicTournamentRequest>,
    ) -> Result<Response<v1::GetPublicTournamentResponse>, Status> {
        self.client()?.get_public_tournament(public(req)).await.map_err(relay)
    }

    type WatchPublicTournamentStream = Watch;

    async fn watch_public_tournament(
        &self,
        req: Request<v1::WatchPublicTournamentRequest>,
    ) -> Result<Response<Watch>, Status> {
        let stream =
            self.client()?.watch_public_tournament(public(req)).await.map_err(relay)?.into_inner();
        Ok(Response::new(Box::pin(stream.map(|item| item.map_err(relay)))))
    }
}
