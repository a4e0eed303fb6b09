//! The typed client of Colosseum's public API (`colosseum.v1.ColosseumService` and
//! `LobbyService`), for
//! everything that plays through it: the gateway's bot runner, the CLI's `play`, `load`
//! and `chaos`, and the whole-cluster tests. It depends on the API (and tokio) alone,
//! never on a service: a third party's client could be this crate.
//!
//! # Layout
//! - this file: [`Client`], a guest session (its token on every call) with one method per
//!   RPC; a call its connection dropped unsent (a gateway's GOAWAY) is sent again
//!   ([`unsent`]).
//! - [`requests`]: the requests that take more than a match id ([`requests::create`], the
//!   [`requests::opponent`]s).
//! - [`follow`]: what a player keeps while it follows a match: what its watch asks for
//!   ([`WatchOptions`]), where it resumes ([`Cursor`]), which views ask it for a move
//!   ([`Turns`]) and who is connected ([`presence`]).
//! - [`lobby`]: accounts, tickets, seeks and leaderboards (LobbyService).
//! - [`platform`]: the platform API (TournamentService) with a tenant's API key.
//! - [`play`]: Play streams: many matches' watches and moves on one stream, raw
//!   ([`PlayStream`]) or with an answer per request and a feed per watch ([`Play`]).

pub mod follow;
pub mod lobby;
pub mod platform;
pub mod play;
pub mod requests;

pub use follow::{Cursor, Turns, WatchOptions, presence};
pub use play::{Feed, Play, PlayStream, resumable};

use api::v1::{
    self, colosseum_service_client::ColosseumServiceClient,
    lobby_service_client::LobbyServiceClient,
};
use std::fmt;
use std::time::Duration;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::{Channel, Endpoint};
use tonic::{Request, Status, Streaming};

/// A guest session on a gateway: every call carries its token (`authorization: Bearer`).
/// Cheap to clone (the channel is shared).
#[derive(Clone)]
pub struct Client {
    api: ColosseumServiceClient<Channel>,
    lobby: LobbyServiceClient<Channel>,
    authorization: MetadataValue<Ascii>,
    player_id: String,
    /// The deadline every call is sent with (`grpc-timeout`), if any.
    timeout: Option<Duration>,
}

/// Why a session could not be opened or moved: a fault here, or the gateway's answer.
#[derive(Debug)]
pub enum Error {
    /// The gateway URL does not parse: why.
    BadUrl(String),
    /// The gateway's session token cannot be sent as a header value.
    BadToken,
    /// The gateway refused, or could not be reached.
    Api(Status),
}

impl Error {
    /// The status of the call, when the error is the gateway's answer (or the transport's).
    pub fn status(&self) -> Option<&Status> {
        match self {
            Error::Api(s) => Some(s),
            Error::BadUrl(_) | Error::BadToken => None,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::BadUrl(why) => write!(f, "not a gateway URL: {why}"),
            Error::BadToken => f.write_str("the session token is no header value"),
            Error::Api(s) => fmt::Display::fmt(s, f),
        }
    }
}

impl std::error::Error for Error {}

impl From<Status> for Error {
    fn from(s: Status) -> Self {
        Error::Api(s)
    }
}

/// Whether a call failed before it was sent, or before the server processed it. A server
/// asks each connection to go away (an HTTP/2 GOAWAY) once it is its maximum age (a
/// gateway's, an engine's: five minutes); a connection still carrying a call (a watch, a
/// Play stream, any call in flight) lives on for it, and a call started on it meanwhile
/// is either dropped from our own HTTP/2 client's queue, never written, and answered
/// CANCELLED ("operation was canceled: connection closed"), or refused by the GOAWAY (its
/// stream above the last one the server says it processed). Sending such a call again is
/// safe, whatever it is: the callee never acted on it. The one test of this, for this
/// client and the services' clients of the engines (crates/engines) alike; see
/// [`dropped_unsent`].
pub fn unsent(s: &Status) -> bool {
    std::error::Error::source(s).is_some_and(dropped_unsent)
}

/// [`unsent`] on the transport's error itself (what a tower service under a tonic client
/// sees before it becomes a status), anywhere in its chain of causes: a hyper error of a
/// request canceled unsent (hyper answers a request it sent and then lost otherwise), or
/// an HTTP/2 stream the server's graceful GOAWAY refused: `GoAway(NO_ERROR)` from the
/// peer on a stream, which h2 gives only the streams above the GOAWAY's last stream id,
/// those the server promises it never processed (RFC 9113, section 6.8), or one it reset
/// with REFUSED_STREAM (section 8.7).
pub fn dropped_unsent(e: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(e);
    while let Some(e) = cause {
        if let Some(h) = e.downcast_ref::<hyper::Error>()
            && h.is_canceled()
        {
            return true;
        }
        if let Some(h2) = e.downcast_ref::<h2::Error>() {
            let refused = h2.is_remote()
                && ((h2.is_go_away() && h2.reason() == Some(h2::Reason::NO_ERROR))
                    || (h2.is_reset() && h2.reason() == Some(h2::Reason::REFUSED_STREAM)));
            return refused;
        }
        cause = e.source();
    }
    false
}

/// How many times a call that failed unsent is sent again (each on a fresh connection).
const RESENDS: u32 = 3;

/// `call` until it fails otherwise than [`unsent`] (at most [`RESENDS`] times more).
async fn resend_unsent<T, Fut>(mut call: impl FnMut() -> Fut) -> Result<T, Status>
where
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    let mut resent = 0;
    loop {
        match call().await {
            Err(s) if unsent(&s) && resent < RESENDS => resent += 1,
            done => return done,
        }
    }
}

/// A lazy channel to `url` (it connects on the first call, and again after a failure).
///
/// # Errors
/// [`Error::BadUrl`]: a URL that does not parse.
pub fn channel(url: &str) -> Result<Channel, Error> {
    Ok(Endpoint::from_shared(url.to_string())
        .map_err(|e| Error::BadUrl(e.to_string()))?
        .connect_lazy())
}

impl Client {
    /// A fresh guest session named `name` on the gateway at `url`.
    ///
    /// # Errors
    /// A URL that does not parse; the gateway cannot be reached or refuses.
    pub async fn guest(url: &str, name: &str) -> Result<Client, Error> {
        Client::guest_on(channel(url)?, name).await
    }

    /// A fresh guest session over an existing channel (many sessions can share one HTTP/2
    /// connection).
    ///
    /// # Errors
    /// The gateway cannot be reached or refuses; its token is no header value.
    pub async fn guest_on(channel: Channel, name: &str) -> Result<Client, Error> {
        let api = ColosseumServiceClient::new(channel.clone());
        let req = v1::CreateGuestSessionRequest { display_name: name.to_string() };
        let s = resend_unsent(|| {
            let (mut api, req) = (api.clone(), req.clone());
            async move { api.create_guest_session(req).await }
        })
        .await?
        .into_inner();
        Client::with_token(channel, &s.token, &s.player_id)
    }

    /// The session of `token` (a guest's or an account's, as Register, Login or
    /// CreateGuestSession gave it) over `channel`; nothing is asked of the gateway.
    ///
    /// # Errors
    /// [`Error::BadToken`]: the token is no header value.
    pub fn with_token(channel: Channel, token: &str, player_id: &str) -> Result<Client, Error> {
        let authorization = format!("Bearer {token}").parse().map_err(|_| Error::BadToken)?;
        Ok(Client {
            api: ColosseumServiceClient::new(channel.clone()),
            lobby: LobbyServiceClient::new(channel),
            authorization,
            player_id: player_id.to_string(),
            timeout: None,
        })
    }

    /// The same session through the gateway at `url` (sessions live in the shared store).
    ///
    /// # Errors
    /// [`Error::BadUrl`]: a URL that does not parse.
    pub fn on(&self, url: &str) -> Result<Client, Error> {
        let channel = channel(url)?;
        Ok(Client {
            api: ColosseumServiceClient::new(channel.clone()),
            lobby: LobbyServiceClient::new(channel),
            ..self.clone()
        })
    }

    /// The same session, its calls sent with the deadline `timeout`.
    #[must_use]
    pub fn with_timeout(&self, timeout: Duration) -> Client {
        Client { timeout: Some(timeout), ..self.clone() }
    }

    /// The session's player id (a UUID), as the gateway gave it.
    pub fn player_id(&self) -> &str {
        &self.player_id
    }

    /// `msg` as a request of this session: its token, and its deadline if it has one.
    pub fn request<T>(&self, msg: T) -> Request<T> {
        let mut r = Request::new(msg);
        r.metadata_mut().insert("authorization", self.authorization.clone());
        if let Some(t) = self.timeout {
            r.set_timeout(t);
        }
        r
    }

    /// One unary call of `req` through `call`, with this session's token and deadline,
    /// sent again while it fails [`unsent`].
    async fn unary<Q: Clone, R, Fut>(
        &self,
        req: Q,
        call: impl Fn(ColosseumServiceClient<Channel>, Request<Q>) -> Fut,
    ) -> Result<R, Status>
    where
        Fut: std::future::Future<Output = Result<tonic::Response<R>, Status>>,
    {
        let sent = resend_unsent(|| call(self.api(), self.request(req.clone()))).await?;
        Ok(sent.into_inner())
    }

    /// The generated client, for calls this one does not shape (a request with metadata
    /// of the caller's own; pass it [`Client::request`]'s requests to authenticate them).
    pub fn api(&self) -> ColosseumServiceClient<Channel> {
        self.api.clone()
    }

    /// ListGames: the hosted games.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn games(&self) -> Result<Vec<v1::GameInfo>, Status> {
        let r =
            self.unary(v1::ListGamesRequest {}, |mut a, r| async move { a.list_games(r).await });
        Ok(r.await?.games)
    }

    /// CreateMatch (see [`requests::create`]).
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn create(
        &self,
        req: v1::CreateMatchRequest,
    ) -> Result<v1::CreateMatchResponse, Status> {
        self.unary(req, |mut a, r| async move { a.create_match(r).await }).await
    }

    /// JoinMatch with `idempotency_key` (empty: none); the seat taken.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn join(&self, match_id: &str, idempotency_key: &str) -> Result<u32, Status> {
        let req = v1::JoinMatchRequest {
            match_id: match_id.to_string(),
            idempotency_key: idempotency_key.to_string(),
        };
        Ok(self.unary(req, |mut a, r| async move { a.join_match(r).await }).await?.seat)
    }

    /// SubmitMove with `idempotency_key` (a retry with the same key is answered
    /// `duplicate`, never applied twice). `mv` is optional only so that tests can send
    /// none.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn submit(
        &self,
        match_id: &str,
        mv: Option<v1::Move>,
        idempotency_key: &str,
    ) -> Result<v1::SubmitMoveResponse, Status> {
        let req = v1::SubmitMoveRequest {
            match_id: match_id.to_string(),
            r#move: mv,
            idempotency_key: idempotency_key.to_string(),
        };
        self.unary(req, |mut a, r| async move { a.submit_move(r).await }).await
    }

    /// Resign; the match's version after it, in the caller's numbering.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn resign(&self, match_id: &str) -> Result<u64, Status> {
        let req = v1::ResignRequest { match_id: match_id.to_string() };
        Ok(self.unary(req, |mut a, r| async move { a.resign(r).await }).await?.version)
    }

    /// GetView: what this session may see of the match now.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn view(&self, match_id: &str) -> Result<v1::GetViewResponse, Status> {
        let req = v1::GetViewRequest { match_id: match_id.to_string() };
        self.unary(req, |mut a, r| async move { a.get_view(r).await }).await
    }

    /// WatchMatch from `from` ([`Cursor::START`] for the whole match), with the caller's
    /// current view (with its latest version as read) when `include_views`.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn watch(
        &self,
        match_id: &str,
        from: Cursor,
        include_views: bool,
    ) -> Result<Streaming<v1::WatchMatchResponse>, Status> {
        self.watch_with(match_id, from, WatchOptions::views(include_views)).await
    }

    /// WatchMatch from `from`, asking for what `options` names (the views, the seats'
    /// presence: read a presence message with [`presence`]).
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn watch_with(
        &self,
        match_id: &str,
        from: Cursor,
        options: WatchOptions,
    ) -> Result<Streaming<v1::WatchMatchResponse>, Status> {
        let req = requests::watch(match_id, from, options);
        self.unary(req, |mut a, r| async move { a.watch_match(r).await }).await
    }

    /// GetMatchRecord: the finished match's record, as JSON.
    ///
    /// # Errors
    /// The gateway's refusal (FAILED_PRECONDITION while the match runs).
    pub async fn record(&self, match_id: &str) -> Result<String, Status> {
        let req = v1::GetMatchRecordRequest { match_id: match_id.to_string() };
        let r = self.unary(req, |mut a, r| async move { a.get_match_record(r).await });
        Ok(r.await?.record_json)
    }

    /// A page of a player's finished matches (empty `player_id`: this session's own),
    /// newest first, from `page_token` (empty: the first page).
    ///
    /// # Errors
    /// The gateway's refusal (FAILED_PRECONDITION: the cluster keeps no archive).
    pub async fn history(
        &self,
        player_id: &str,
        page_size: u32,
        page_token: &str,
    ) -> Result<v1::ListPlayerHistoryResponse, Status> {
        let req = v1::ListPlayerHistoryRequest {
            player_id: player_id.to_string(),
            page_size,
            page_token: page_token.to_string(),
        };
        self.unary(req, |mut a, r| async move { a.list_player_history(r).await }).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    /// A real hyper error of a request dropped from the queue of a connection that closed
    /// before sending it: an HTTP/2 client over an in-memory pipe, its connection task
    /// dropped with the request still queued.
    async fn dropped_from_a_closed_connection() -> hyper::Error {
        let (io, _server) = tokio::io::duplex(1 << 16);
        let (mut send, conn) = hyper::client::conn::http2::handshake(
            hyper_util::rt::TokioExecutor::new(),
            hyper_util::rt::TokioIo::new(io),
        )
        .await
        .expect("the handshake writes the preface into the pipe");
        let request = tonic::codegen::http::Request::builder()
            .uri("http://engine/colosseum.internal.v1.RulesEngineService/ApplyStep")
            .body(String::from("x"))
            .expect("a request");
        let answer = send.send_request(request);
        drop(conn);
        answer.await.expect_err("the connection closed with the request queued")
    }

    /// A real h2 error of a stream the server's GOAWAY left unprocessed: the server shuts
    /// its connection down (GOAWAY, last stream 0, NO_ERROR) before it reads the client's
    /// first request.
    async fn refused_by_a_goaway() -> h2::Error {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        let (client, server) =
            tokio::join!(h2::client::handshake(client_io), h2::server::handshake(server_io));
        let (mut send, conn) = client.expect("the client handshake");
        let mut server = server.expect("the server handshake");
        let request = tonic::codegen::http::Request::builder()
            .uri("http://engine/colosseum.internal.v1.RulesEngineService/GetView")
            .body(())
            .expect("a request");
        let (answer, _) = send.send_request(request, true).expect("the request is queued");
        server.abrupt_shutdown(h2::Reason::NO_ERROR);
        tokio::spawn(conn);
        tokio::spawn(async move { while server.accept().await.is_some() {} });
        answer.await.expect_err("the server refused the stream")
    }

    #[tokio::test]
    async fn a_stream_a_goaway_refused_is_unsent_and_a_reset_one_is_not() {
        let refused = refused_by_a_goaway().await;
        assert!(refused.is_go_away() && refused.is_remote(), "{refused:?}");
        assert!(dropped_unsent(&refused));
        // A stream reset for another reason, or a connection torn down, may have been
        // processed.
        assert!(!dropped_unsent(&h2::Error::from(h2::Reason::CANCEL)));
        assert!(!dropped_unsent(&h2::Error::from(h2::Reason::REFUSED_STREAM)), "not from the peer");
    }

    #[tokio::test]
    async fn a_call_dropped_unsent_is_told_from_every_other_failure() {
        let hyper = dropped_from_a_closed_connection().await;
        assert!(hyper.is_canceled(), "{hyper}");
        assert!(dropped_unsent(&hyper));
        // As tonic passes it on: CANCELLED, the hyper error its source (the message the
        // issue saw), also when wrapped once more (a transport error around it).
        let status = Status::from_error(Box::new(hyper));
        assert_eq!(status.code(), Code::Cancelled, "{status:?}");
        assert!(format!("{status:?}").contains("connection closed"), "{status:?}");
        assert!(unsent(&status));
        let wrapped = std::io::Error::other(status.clone());
        assert!(dropped_unsent(&wrapped));
        // The same words sent by a peer (no source), a broken connection (a call that may
        // have been sent), a refusal: none is unsent.
        assert!(!unsent(&Status::cancelled("operation was canceled: connection closed")));
        let mut reset = Status::unavailable("stream reset");
        reset.set_source(std::sync::Arc::new(std::io::Error::other("connection reset")));
        assert!(!unsent(&reset));
        assert!(!dropped_unsent(&std::io::Error::other("connection reset")));
        assert!(!unsent(&Status::failed_precondition("game over")));
    }
}
