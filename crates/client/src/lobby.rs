//! LobbyService through a [`Client`]: registering and logging in (a session like a
//! guest's), tickets and their pushed assignments, seeks, ratings and leaderboards.

use crate::{Client, Error, channel};
use api::v1::{self, lobby_service_client::LobbyServiceClient};
use tonic::{Status, Streaming};

impl Client {
    /// Registers an account on the gateway at `url` and returns its session.
    ///
    /// # Errors
    /// A bad URL, or the gateway's refusal (`email_taken`...).
    pub async fn register(
        url: &str,
        email: &str,
        password: &str,
        display_name: &str,
        leaderboard: bool,
    ) -> Result<Client, Error> {
        let channel = channel(url)?;
        let req = v1::RegisterRequest {
            email: email.to_string(),
            password: password.to_string(),
            display_name: display_name.to_string(),
            leaderboard,
            bot: false,
        };
        let s = LobbyServiceClient::new(channel.clone()).register(req).await?.into_inner();
        let s = s.session.ok_or_else(|| Status::internal("Register answered no session"))?;
        Client::with_token(channel, &s.token, &s.player_id)
    }

    /// Logs in on the gateway at `url`: a new session of the account, and its token (to
    /// keep for [`Client::with_token`]).
    ///
    /// # Errors
    /// A bad URL, or the gateway's refusal (`bad_credentials`, `rate_limited`).
    pub async fn login(url: &str, email: &str, password: &str) -> Result<(Client, String), Error> {
        let channel = channel(url)?;
        let req = v1::LoginRequest { email: email.to_string(), password: password.to_string() };
        let s = LobbyServiceClient::new(channel.clone()).login(req).await?.into_inner();
        let s = s.session.ok_or_else(|| Status::internal("Login answered no session"))?;
        Ok((Client::with_token(channel, &s.token, &s.player_id)?, s.token))
    }

    /// The generated lobby client, for calls this one does not shape (pass it
    /// [`Client::request`]'s requests to authenticate them).
    pub fn lobby(&self) -> LobbyServiceClient<tonic::transport::Channel> {
        self.lobby.clone()
    }

    /// Logout: this session's token is refused from then on.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn logout(&self) -> Result<(), Status> {
        self.lobby().logout(self.request(v1::LogoutRequest {})).await?;
        Ok(())
    }

    /// GetProfile: this session's player.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn profile(&self) -> Result<v1::Profile, Status> {
        let r = self.lobby().get_profile(self.request(v1::GetProfileRequest {})).await?;
        r.into_inner().profile.ok_or_else(|| Status::internal("GetProfile answered no profile"))
    }

    /// CreateTicket in `queue` with `idempotency_key` (ttl 0: the queue's default).
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn create_ticket(
        &self,
        queue: v1::QueueSpec,
        idempotency_key: &str,
        ttl_seconds: u32,
    ) -> Result<v1::CreateTicketResponse, Status> {
        let req = v1::CreateTicketRequest {
            queue: Some(queue),
            idempotency_key: idempotency_key.to_string(),
            ttl_seconds,
            answer_on_watch: false,
        };
        Ok(self.lobby().create_ticket(self.request(req)).await?.into_inner())
    }

    /// CreateTicket for a caller that follows its tickets on a [`Client::watch_tickets`]
    /// stream: only the ticket's id is answered; the ticket comes on the stream.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn create_ticket_on_watch(
        &self,
        queue: v1::QueueSpec,
        idempotency_key: &str,
    ) -> Result<String, Status> {
        let req = v1::CreateTicketRequest {
            queue: Some(queue),
            idempotency_key: idempotency_key.to_string(),
            ttl_seconds: 0,
            answer_on_watch: true,
        };
        let r = self.lobby().create_ticket(self.request(req)).await?.into_inner();
        r.ticket
            .map(|t| t.ticket_id)
            .ok_or_else(|| Status::internal("CreateTicket answered no ticket"))
    }

    /// CancelTicket: the ticket after the call.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn cancel_ticket(&self, ticket_id: &str) -> Result<v1::Ticket, Status> {
        let req = v1::CancelTicketRequest { ticket_id: ticket_id.to_string() };
        let r = self.lobby().cancel_ticket(self.request(req)).await?.into_inner();
        r.ticket.ok_or_else(|| Status::internal("CancelTicket answered no ticket"))
    }

    /// WatchTickets: this session's tickets as they change.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn watch_tickets(&self) -> Result<Streaming<v1::WatchTicketsResponse>, Status> {
        Ok(self.lobby().watch_tickets(self.request(v1::WatchTicketsRequest {})).await?.into_inner())
    }

    /// Waits on `stream` for ticket `ticket_id` to be assigned: its match id and seat.
    ///
    /// # Errors
    /// The stream failed or ended, or the ticket was cancelled or expired (FAILED_PRECONDITION
    /// naming its state).
    pub async fn assignment(
        stream: &mut Streaming<v1::WatchTicketsResponse>,
        ticket_id: &str,
    ) -> Result<(String, u32), Status> {
        while let Some(m) = stream.message().await? {
            let Some(t) = m.ticket.filter(|t| t.ticket_id == ticket_id) else { continue };
            match v1::TicketState::try_from(t.state) {
                Ok(v1::TicketState::Assigned) => return Ok((t.match_id, t.seat)),
                Ok(v1::TicketState::Waiting | v1::TicketState::Pairing) => {}
                Ok(other) => {
                    return Err(Status::failed_precondition(format!(
                        "ticket {}",
                        other.as_str_name()
                    )));
                }
                Err(_) => return Err(Status::internal("unknown ticket state")),
            }
        }
        Err(Status::unavailable("the ticket stream ended"))
    }

    /// GetLeaderboard.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn leaderboard(
        &self,
        req: v1::GetLeaderboardRequest,
    ) -> Result<v1::GetLeaderboardResponse, Status> {
        Ok(self.lobby().get_leaderboard(self.request(req)).await?.into_inner())
    }

    /// GetRating of `player_id` in `game`, with up to `history` changes.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn rating(
        &self,
        game: &str,
        player_id: &str,
        history: u32,
    ) -> Result<v1::GetRatingResponse, Status> {
        let req = v1::GetRatingRequest {
            game: game.to_string(),
            player_id: player_id.to_string(),
            history_limit: history,
        };
        Ok(self.lobby().get_rating(self.request(req)).await?.into_inner())
    }
}
