//! `colosseum.v1.LobbyService` at the gateway: every call passed on to the match-maker
//! as it came, the message untouched, with the caller the authentication layer found
//! (`x-colosseum-player`, set here and never taken from the client), the client's address
//! as the authentication layer found it (the TCP peer, or what a trusted proxy forwards:
//! login and registration rate limits), the session token (Logout) and the trace context. The
//! match-maker's answer, status included, goes back as it is.

use crate::auth::Caller;
use crate::forwarded::ClientAddress;
use api::v1::{self, lobby_service_client::LobbyServiceClient, lobby_service_server::LobbyService};
use service_kit::internal::{CLIENT_HEADER, InternalToken, PLAYER_HEADER, Stamp};
use service_kit::telemetry::TraceContext;
use std::pin::Pin;
use tokio_stream::{Stream, StreamExt};
use tonic::metadata::MetadataValue;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};

/// A client of the match-maker's replicas, stamping every call with the internal secret.
pub type MatchMakerClient = LobbyServiceClient<InterceptedService<Channel, Stamp>>;

/// A client over `urls` (every replica of the match-maker; calls are balanced over
/// them, past one that is down).
///
/// # Errors
/// A URL that does not parse.
pub fn client(
    urls: &[String],
    token: Option<&InternalToken>,
) -> Result<MatchMakerClient, service_kit::config::BadUrl> {
    Ok(LobbyServiceClient::with_interceptor(balanced(urls)?, Stamp::new(token)))
}

/// One channel over every replica of a backend at `urls`, balanced past one that is down.
///
/// # Errors
/// A URL that does not parse.
pub fn balanced(urls: &[String]) -> Result<Channel, service_kit::config::BadUrl> {
    let endpoints = urls
        .iter()
        .map(|u| {
            service_kit::config::endpoint(u).map(|e| {
                e.connect_timeout(std::time::Duration::from_secs(2))
                    .tcp_keepalive(Some(std::time::Duration::from_secs(30)))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Channel::balance_list(endpoints.into_iter()))
}

/// The gateway's face of the lobby.
#[derive(Clone)]
pub struct LobbyFront {
    client: Option<MatchMakerClient>,
}

impl LobbyFront {
    /// Passes calls to `client`; without one (no match-maker configured), every call
    /// answers UNAVAILABLE.
    pub fn new(client: Option<MatchMakerClient>) -> LobbyFront {
        LobbyFront { client }
    }

    fn client(&self) -> Result<MatchMakerClient, Status> {
        self.client.clone().ok_or_else(|| {
            service_kit::status::unavailable("no match-maker configured (MATCHMAKER_URL)")
        })
    }
}

/// The request to send on: the message with only the metadata the match-maker may read.
pub(crate) fn onward<T>(req: Request<T>) -> Request<T> {
    let caller = req.extensions().get::<Caller>().map(|c| c.player_id);
    let addr = req.extensions().get::<ClientAddress>().map(|a| a.0);
    let authorization = req.metadata().get("authorization").cloned();
    let trace = TraceContext::from_metadata(req.metadata());
    let mut out = Request::new(req.into_inner());
    let m = out.metadata_mut();
    if let Some(player) = caller
        && let Ok(v) = MetadataValue::try_from(player.to_string())
    {
        m.insert(PLAYER_HEADER, v);
    }
    if let Some(addr) = addr
        && let Ok(v) = MetadataValue::try_from(addr.to_string())
    {
        m.insert(CLIENT_HEADER, v);
    }
    if let Some(v) = authorization {
        m.insert("authorization", v);
    }
    trace.inject(m);
    out
}

/// The match-maker's answer as the client gets it: its own refusals as they are; a
/// transport failure (its replica down or restarting) as UNAVAILABLE, which the retry
/// contract says to retry, as for the rules engines.
pub(crate) fn relay(s: Status) -> Status {
    if service_kit::status::is_transport_failure(&s) {
        service_kit::status::unavailable(s)
    } else {
        s
    }
}

type Watch = Pin<Box<dyn Stream<Item = Result<v1::WatchTicketsResponse, Status>> + Send>>;

#[tonic::async_trait]
impl LobbyService for LobbyFront {
    async fn register(
        &self,
        req: Request<v1::RegisterRequest>,
    ) -> Result<Response<v1::RegisterResponse>, Status> {
        self.client()?.register(onward(req)).await.map_err(relay)
    }

    async fn login(
        &self,
        req: Request<v1::LoginRequest>,
    ) -> Result<Response<v1::LoginResponse>, Status> {
        self.client()?.login(onward(req)).await.map_err(relay)
    }

    async fn logout(
        &self,
        req: Request<v1::LogoutRequest>,
    ) -> Result<Response<v1::LogoutResponse>, Status> {
        self.client()?.logout(onward(req)).await.map_err(relay)
    }

    async fn change_password(
        &self,
        req: Request<v1::ChangePasswordRequest>,
    ) -> Result<Response<v1::ChangePasswordResponse>, Status> {
        self.client()?.change_password(onward(req)).await.map_err(relay)
    }

    async fn update_profile(
        &self,
        req: Request<v1::UpdateProfileRequest>,
    ) -> Result<Response<v1::UpdateProfileResponse>, Status> {
        self.client()?.update_profile(onward(req)).await.map_err(relay)
    }

    async fn get_profile(
        &self,
        req: Request<v1::GetProfileRequest>,
    ) -> Result<Response<v1::GetProfileResponse>, Status> {
        self.client()?.get_profile(onward(req)).await.map_err(relay)
    }

    async fn create_ticket(
        &self,
        req: Request<v1::CreateTicketRequest>,
    ) -> Result<Response<v1::CreateTicketResponse>, Status> {
        self.client()?.create_ticket(onward(req)).await.map_err(relay)
    }

    async fn cancel_ticket(
        &self,
        req: Request<v1::CancelTicketRequest>,
    ) -> Result<Response<v1::CancelTicketResponse>, Status> {
        self.client()?.cancel_ticket(onward(req)).await.map_err(relay)
    }

    async fn create_seek(
        &self,
        req: Request<v1::CreateSeekRequest>,
    ) -> Result<Response<v1::CreateSeekResponse>, Status> {
        self.client()?.create_seek(onward(req)).await.map_err(relay)
    }

    async fn list_seeks(
        &self,
        req: Request<v1::ListSeeksRequest>,
    ) -> Result<Response<v1::ListSeeksResponse>, Status> {
        self.client()?.list_seeks(onward(req)).await.map_err(relay)
    }

    async fn accept_seek(
        &self,
        req: Request<v1::AcceptSeekRequest>,
    ) -> Result<Response<v1::AcceptSeekResponse>, Status> {
        self.client()?.accept_seek(onward(req)).await.map_err(relay)
    }

    async fn get_leaderboard(
        &self,
        req: Request<v1::GetLeaderboardRequest>,
    ) -> Result<Response<v1::GetLeaderboardResponse>, Status> {
        self.client()?.get_leaderboard(onward(req)).await.map_err(relay)
    }

    async fn get_rating(
        &self,
        req: Request<v1::GetRatingRequest>,
    ) -> Result<Response<v1::GetRatingResponse>, Status> {
        self.client()?.get_rating(onward(req)).await.map_err(relay)
    }

    type WatchTicketsStream = Watch;

    async fn watch_tickets(
        &self,
        req: Request<v1::WatchTicketsRequest>,
    ) -> Result<Response<Watch>, Status> {
        let stream = self.client()?.watch_tickets(onward(req)).await.map_err(relay)?.into_inner();
        Ok(Response::new(Box::pin(stream.map(|m| m.map_err(relay)))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn a_transport_failure_is_unavailable_and_a_refusal_passes_as_it_is() {
        let broken = Status::from_error(Box::new(std::io::Error::other("connection reset")));
        assert_eq!(relay(broken).code(), Code::Unavailable);
        let refused = Status::failed_precondition("the seek is no longer open");
        let passed = relay(refused);
        assert_eq!(
            (passed.code(), passed.message()),
            (Code::FailedPrecondition, "the seek is no longer open")
        );
    }
}
