//! The bot runner: built-in bots play through the public API like any client (a guest
//! session, JoinMatch, WatchMatch, GetView, SubmitMove), never through a side door. The
//! gateway only tells it which matches reserved a seat for it.

use api::v1::{self, colosseum_service_client::ColosseumServiceClient};
use events::{MatchId, PlayerId};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;
use tonic::transport::Channel;

/// Whether `game` has a bot called `name`.
pub fn has_bot(game: &str, name: &str) -> bool {
    bots::bot_names(game).contains(&name)
}

/// How the gateway hands a match to the bot runner.
#[derive(Clone, Debug)]
pub struct BotDispatch {
    /// The bot runner's player id: matches reserve the bot's seat for it.
    pub player_id: PlayerId,
    tx: mpsc::UnboundedSender<(MatchId, String, String)>,
}

impl BotDispatch {
    /// Asks the runner to play `bot` in `game` match `id`.
    pub fn send(&self, id: MatchId, game: String, bot: String) {
        if self.tx.send((id, game, bot)).is_err() {
            tracing::error!(match_id = %id, "the bot runner has stopped");
        }
    }
}

/// A client of the public API carrying a session token.
#[derive(Clone)]
pub struct Client {
    inner: ColosseumServiceClient<Channel>,
    token: String,
}

impl Client {
    /// A client of the gateway at `url` with a fresh guest session named `name`.
    ///
    /// # Errors
    /// The gateway cannot be reached.
    pub async fn guest(url: &str, name: &str) -> Result<(Self, PlayerId), tonic::Status> {
        let channel = tonic::transport::Endpoint::from_shared(url.to_string())
            .map_err(|e| tonic::Status::invalid_argument(e.to_string()))?
            .connect_lazy();
        Self::guest_on(channel, name).await
    }

    /// A client with a fresh guest session over an existing channel (many clients can
    /// share one HTTP/2 connection).
    ///
    /// # Errors
    /// The gateway cannot be reached.
    pub async fn guest_on(channel: Channel, name: &str) -> Result<(Self, PlayerId), tonic::Status> {
        let mut inner = ColosseumServiceClient::new(channel);
        let s = inner
            .create_guest_session(v1::CreateGuestSessionRequest { display_name: name.to_string() })
            .await?
            .into_inner();
        let player = s.player_id.parse().map_err(|_| tonic::Status::internal("a bad player id"))?;
        Ok((Client { inner, token: s.token }, player))
    }

    /// The same session on another gateway (sessions live in the shared store).
    ///
    /// # Errors
    /// A URL that does not parse.
    pub fn on(&self, url: &str) -> Result<Self, tonic::Status> {
        let channel = tonic::transport::Endpoint::from_shared(url.to_string())
            .map_err(|e| tonic::Status::invalid_argument(e.to_string()))?
            .connect_lazy();
        Ok(Client { inner: ColosseumServiceClient::new(channel), token: self.token.clone() })
    }

    /// A request with the session token.
    pub fn request<T>(&self, msg: T) -> tonic::Request<T> {
        let mut r = tonic::Request::new(msg);
        if let Ok(v) = format!("Bearer {}", self.token).parse() {
            r.metadata_mut().insert("authorization", v);
        }
        r
    }

    /// The raw client.
    pub fn api(&self) -> ColosseumServiceClient<Channel> {
        self.inner.clone()
    }
}

/// Starts the bot runner against the gateway at `url`; returns its dispatch.
///
/// # Errors
/// The gateway cannot be reached.
pub async fn start(url: &str, shutdown: CancellationToken) -> Result<BotDispatch, tonic::Status> {
    let (client, player_id) = Client::guest(url, "bots").await?;
    let (tx, mut rx) = mpsc::unbounded_channel::<(MatchId, String, String)>();
    // The matches being played: a match handed over twice (a retried CreateMatch) is
    // played once.
    let playing = std::sync::Arc::new(std::sync::Mutex::new(std::collections::BTreeSet::new()));
    tokio::spawn(async move {
        loop {
            let job = tokio::select! {
                _ = shutdown.cancelled() => return,
                j = rx.recv() => j,
            };
            let Some((id, game, bot)) = job else { return };
            if !playing.lock().expect("the bot runner's lock").insert(id) {
                continue;
            }
            let client = client.clone();
            let shutdown = shutdown.clone();
            let playing = playing.clone();
            tokio::spawn(async move {
                tokio::select! {
                    _ = shutdown.cancelled() => {}
                    r = play(client, id, &game, &bot) => if let Err(e) = r {
                        tracing::warn!(match_id = %id, error = %e, "bot stopped playing");
                    }
                }
                playing.lock().expect("the bot runner's lock").remove(&id);
            });
        }
    });
    Ok(BotDispatch { player_id, tx })
}

/// Why the runner stopped playing a match (logged; it answers no one).
#[derive(Debug)]
pub enum RunnerError {
    /// The public API refused or failed a call.
    Api(tonic::Status),
    /// JoinMatch answered a seat that does not exist.
    BadSeat(u32),
    /// The game has no bot of this name.
    NoSuchBot,
    /// The bot's brain, or the move it chose, failed: what.
    Brain(String),
}

impl std::fmt::Display for RunnerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunnerError::Api(s) => write!(f, "{}: {}", s.code(), s.message()),
            RunnerError::BadSeat(n) => write!(f, "joined at seat {n}, which does not exist"),
            RunnerError::NoSuchBot => f.write_str("no such bot"),
            RunnerError::Brain(m) => f.write_str(m),
        }
    }
}

impl From<tonic::Status> for RunnerError {
    fn from(s: tonic::Status) -> Self {
        RunnerError::Api(s)
    }
}

/// Plays one match to its end.
async fn play(client: Client, id: MatchId, game: &str, bot: &str) -> Result<(), RunnerError> {
    let mut api = client.api();
    let seat = api
        .join_match(client.request(v1::JoinMatchRequest {
            match_id: id.to_string(),
            idempotency_key: String::new(),
        }))
        .await?
        .into_inner()
        .seat;
    let seat = rules_core::Seat::new(u64::from(seat)).ok_or(RunnerError::BadSeat(seat))?;
    let mut brain = bots::json_bot(game, bot, service_kit::time::os_random_32())
        .ok_or(RunnerError::NoSuchBot)?;
    // The stream's views say when the bot owes a move; only then does it ask GetView for
    // the JSON form its brain reads.
    let mut events = api
        .watch_match(client.request(v1::WatchMatchRequest {
            match_id: id.to_string(),
            after_version: 0,
            include_views: true,
            after_index: None,
            after_tag: None,
        }))
        .await?
        .into_inner();
    let mut acted_at = None;
    while let Some(msg) = events.message().await? {
        if msg.resync.is_some() {
            // The store lost its last writes: versions are being reissued, so a version
            // acted at may come again with a new step.
            acted_at = None;
            continue;
        }
        let Some(seen) = msg.view else { continue };
        if seen.outcome.is_some() {
            return Ok(());
        }
        if seen.legal_moves.is_empty() || acted_at.is_some_and(|v| v >= seen.version) {
            continue;
        }
        let view = api
            .get_view(client.request(v1::GetViewRequest { match_id: id.to_string() }))
            .await?
            .into_inner();
        if view.legal_moves.is_empty() || view.outcome.is_some() {
            continue;
        }
        let legal: Vec<serde_json::Value> =
            view.legal_moves.iter().filter_map(|m| wire::move_to_json(game, m).ok()).collect();
        let choice = brain.choose(seat, &view.view_json, &legal).map_err(RunnerError::Brain)?;
        let mv = wire::move_from_json(game, &choice).map_err(RunnerError::Brain)?;
        let key = format!("bot:{id}:{}", view.version);
        match api
            .submit_move(client.request(v1::SubmitMoveRequest {
                match_id: id.to_string(),
                r#move: Some(mv),
                idempotency_key: key,
            }))
            .await
        {
            Ok(_) => {}
            // The match moved on between the view and the move (a deadline): the stream
            // brings the next view.
            Err(s) if s.code() == tonic::Code::FailedPrecondition => {}
            Err(s) => return Err(s.into()),
        }
        acted_at = Some(view.version);
    }
    Ok(())
}
