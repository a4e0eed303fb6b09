//! `colosseum.v1.LobbyService` at the gateway: every call passed on to the match-maker
//! as it came, the message untouched, with the caller the authentication layer found
//! (`x-colosseum-player`, set here and never taken from the client), the client's address
//! as the authentication layer found it (the TCP peer, or what a trusted proxy forwards:
//! login and registration rate limits), the session token (Logout) and the trace context
//! ([`crate::forward`]). The match-maker's answer, status included, goes back as it is.

use crate::forward::balanced;
use api::v1::{lobby_service_client::LobbyServiceClient, lobby_service_server::LobbyService};
use service_kit::internal::{InternalToken, Stamp};
use tonic::Status;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

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

crate::forward::forward! {
    LobbyService for LobbyFront;
    unary {
        register: RegisterRequest => RegisterResponse;
        login: LoginRequest => LoginResponse;
        logout: LogoutRequest => LogoutResponse;
        change_password: ChangePasswordRequest => ChangePasswordResponse;
        update_profile: UpdateProfileRequest => UpdateProfileResponse;
        get_profile: GetProfileRequest => GetProfileResponse;
        create_ticket: CreateTicketRequest => CreateTicketResponse;
        cancel_ticket: CancelTicketRequest => CancelTicketResponse;
        create_seek: CreateSeekRequest => CreateSeekResponse;
        list_seeks: ListSeeksRequest => ListSeeksResponse;
        accept_seek: AcceptSeekRequest => AcceptSeekResponse;
        get_leaderboard: GetLeaderboardRequest => GetLeaderboardResponse;
        get_rating: GetRatingRequest => GetRatingResponse;
    }
    stream watch_tickets: WatchTicketsRequest => WatchTicketsResponse as WatchTicketsStream;
}
