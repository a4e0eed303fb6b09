//! The bot runner: built-in bots play through the public API like any client (a guest
//! session, JoinMatch and GetView, then each match's watch and moves on a Play stream the
//! runner shares among its matches), never through a side door. The gateway only tells
//! it which matches reserved a seat for it. It plays with the same client crate as every
//! other player.

use client::{Client, Cursor, Play, Turns};
use events::{MatchId, PlayerId};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

/// Matches one of the runner's Play streams carries before the next match opens another
/// (the gateway takes at most 1,000 watches a stream; a match that ends frees its place).
const MATCHES_PER_STREAM: usize = 500;

/// The runner's Play streams: the one new matches join, and how many it carries.
struct Streams {
    client: Client,
    current: Option<(Play, Arc<AtomicUsize>)>,
}

impl Streams {
    /// A stream for one more match, and its count (taken: the match gives it back).
    async fn take(&mut self) -> Result<(Play, Arc<AtomicUsize>), RunnerError> {
        let usable = |(p, n): &(Play, Arc<AtomicUsize>)| {
            !p.is_closed() && n.load(Ordering::Relaxed) < MATCHES_PER_STREAM
        };
        if !self.current.as_ref().is_some_and(usable) {
            // The old stream lives on while its matches hold it.
            let play = self.client.play().await?;
            self.current = Some((play, Arc::new(AtomicUsize::new(0))));
        }
        let (play, count) = self.current.clone().expect("a stream was just opened");
        count.fetch_add(1, Ordering::Relaxed);
        Ok((play, count))
    }
}

/// Whether `game` has a bot called `name`.
pub fn has_bot(game: &str, name: &str) -> bool {
    games::registry::bot_names(game).contains(&name)
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

/// Starts the bot runner against the gateway at `url`; returns its dispatch.
///
/// # Errors
/// The gateway cannot be reached.
pub async fn start(url: &str, shutdown: CancellationToken) -> Result<BotDispatch, RunnerError> {
    let client = Client::guest(url, "bots").await?;
    let player_id = client.player_id().parse().map_err(|_| RunnerError::BadPlayerId)?;
    let mut streams = Streams { client: client.clone(), current: None };
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
            let (stream, count) = match streams.take().await {
                Ok(s) => s,
                Err(e) => {
                    // Not played now; a match handed over again (a retried CreateMatch)
                    // is tried again.
                    tracing::warn!(match_id = %id, error = %e, "no Play stream for the bot");
                    playing.lock().expect("the bot runner's lock").remove(&id);
                    continue;
                }
            };
            let client = client.clone();
            let shutdown = shutdown.clone();
            let playing = playing.clone();
            tokio::spawn(async move {
                tokio::select! {
                    _ = shutdown.cancelled() => {}
                    r = play(client, &stream, id, &game, &bot) => if let Err(e) = r {
                        tracing::warn!(match_id = %id, error = %e, "bot stopped playing");
                    }
                }
                count.fetch_sub(1, Ordering::Relaxed);
                playing.lock().expect("the bot runner's lock").remove(&id);
            });
        }
    });
    Ok(BotDispatch { player_id, tx })
}

/// Why the runner could not start, or stopped playing a match (logged; it answers no one).
#[derive(Debug)]
pub enum RunnerError {
    /// The public API refused or failed a call.
    Api(tonic::Status),
    /// The guest session could not be opened here: why.
    Session(String),
    /// The guest session's player id is not a UUID.
    BadPlayerId,
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
            RunnerError::Session(m) => f.write_str(m),
            RunnerError::BadPlayerId => f.write_str("the guest session's player id is no UUID"),
            RunnerError::BadSeat(n) => write!(f, "joined at seat {n}, which does not exist"),
            RunnerError::NoSuchBot => f.write_str("no such bot"),
            RunnerError::Brain(m) => f.write_str(m),
        }
    }
}

impl From<client::Error> for RunnerError {
    fn from(e: client::Error) -> Self {
        match e {
            client::Error::Api(s) => RunnerError::Api(s),
            e => RunnerError::Session(e.to_string()),
        }
    }
}

impl From<tonic::Status> for RunnerError {
    fn from(s: tonic::Status) -> Self {
        RunnerError::Api(s)
    }
}

/// Plays one match to its end: joined and viewed by unary calls, watched and moved on
/// `stream`.
async fn play(
    client: Client,
    stream: &Play,
    id: MatchId,
    game: &str,
    bot: &str,
) -> Result<(), RunnerError> {
    let match_id = id.to_string();
    let seat = client.join(&match_id, "").await?;
    let seat = rules_core::Seat::new(u64::from(seat)).ok_or(RunnerError::BadSeat(seat))?;
    let mut brain = games::registry::json_bot(game, bot, service_kit::time::os_random_32())
        .ok_or(RunnerError::NoSuchBot)?;
    // The stream's views say when the bot owes a move; only then does it ask GetView for
    // the JSON form its brain reads.
    let mut events = stream.watch(&match_id, Cursor::START, true).await?;
    let mut turns = Turns::default();
    while let Some(msg) = events.message().await? {
        if msg.resync.is_some() {
            // The store lost its last writes: versions are being reissued, so a version
            // acted at may come again with a new step.
            turns.forget();
            continue;
        }
        let Some(seen) = msg.view else { continue };
        if seen.outcome.is_some() {
            return Ok(());
        }
        if !turns.owed(&seen) {
            continue;
        }
        let view = client.view(&match_id).await?;
        if view.legal_moves.is_empty() || view.outcome.is_some() {
            continue;
        }
        let legal: Vec<serde_json::Value> = view
            .legal_moves
            .iter()
            .filter_map(|m| games::registry::move_to_json(game, m).ok())
            .collect();
        let choice = brain.choose(seat, &view.view_json, &legal).map_err(RunnerError::Brain)?;
        let mv = games::registry::move_from_json(game, &choice).map_err(RunnerError::Brain)?;
        let key = format!("bot:{id}:{}", view.version);
        match stream.submit(&match_id, Some(mv), &key).await {
            Ok(_) => {}
            // The match moved on between the view and the move (a deadline): the stream
            // brings the next view.
            Err(s) if s.code() == tonic::Code::FailedPrecondition => {}
            Err(s) => return Err(s.into()),
        }
        turns.acted(view.version);
    }
    Ok(())
}
