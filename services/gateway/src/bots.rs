//! The bot runner: built-in bots play through the public API like any client (a session,
//! JoinMatch and GetView, each match's watch and moves on a Play stream the runner shares
//! among its matches), never through a side door.
//!
//! It is a duty, not a server: every gateway runs [`run`], and the one holding the lease
//! [`LEASE`] from the store plays. The gateway records each bot match in the store
//! before it answers the CreateMatch ([`store::EventStore::add_bot_match`]); the holder
//! reads every recorded match when it takes over and the new ones every [`PASS`], plays
//! each to its end and then forgets it. Every bot seat is reserved for one player,
//! [`PLAYER_ID`], for whom each runner opens a session of its own, so a runner that dies
//! (its gateway killed, its lease lost) leaves its matches to the next holder, which
//! resumes them: moves are keyed by the version they answer, so a move sent twice is
//! applied once.

use client::{Client, Cursor, Play, Turns};
use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{BotMatch, GatewayStore, PlayerId};
use tokio_util::sync::CancellationToken;

/// The lease whose holder plays every bot match.
pub const LEASE: &str = "bots";
/// How long the lease lasts unless renewed: a dead holder's matches wait this long, plus a
/// pass, for the next.
pub const LEASE_TTL_MS: u64 = 3_000;
/// How often the holder reads the bot matches recorded since its last read.
pub const PASS: Duration = Duration::from_millis(100);
/// How often the lease is renewed (and a gateway not holding it tries to take it).
const RENEW: Duration = Duration::from_millis(500);
/// How many recorded bot matches one read takes.
const PAGE: usize = 1_000;
/// Matches one of the runner's Play streams carries before the next match opens another
/// (the gateway takes at most 1,000 watches a stream; a match that ends frees its place).
const MATCHES_PER_STREAM: usize = 500;
/// The longest wait before a match whose play failed is resumed.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// An attempt at a match that lasted this long was no failure in a row: the backoff
/// starts over.
const STEADY: Duration = Duration::from_secs(10);

/// The player every bot seat is reserved for ([`ids::BOT_PLAYER`]).
pub const PLAYER_ID: PlayerId = store::BOT_PLAYER;

/// The name the bots are shown by.
const DISPLAY_NAME: &str = "bots";

/// Whether `game` has a bot called `name`.
pub fn has_bot(game: &str, name: &str) -> bool {
    games::registry::bot_names(game).contains(&name)
}

/// What one gateway's runner needs: the store (the lease, the bot matches, the bot's
/// session) and where to play (this gateway's own public address).
#[derive(Clone)]
pub struct Runner {
    store: Arc<dyn GatewayStore>,
    gateway_url: String,
    token: String,
    /// This runner's name in the lease (unique per process).
    holder: String,
}

impl Runner {
    /// A runner playing through the gateway at `gateway_url`, with a session of its own
    /// (one per process: a gateway restarted opens a new one), known in the lease by
    /// that address and a random suffix (two processes never share a name).
    pub fn new(store: Arc<dyn GatewayStore>, gateway_url: &str) -> Runner {
        let suffix = hex::encode(&service_kit::time::os_random_32()[..4]);
        Runner {
            store,
            gateway_url: gateway_url.to_string(),
            token: hex::encode(service_kit::time::os_random_32()),
            holder: format!("{gateway_url}-{suffix}"),
        }
    }

    /// Runs until `shutdown`: whenever this runner holds the lease, it plays every bot
    /// match; when it loses it, it stops playing (the next holder resumes).
    pub async fn run(self, shutdown: CancellationToken) {
        let mut renew = tokio::time::interval(RENEW);
        renew.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        let mut term: Option<CancellationToken> = None;
        loop {
            tokio::select! {
                () = shutdown.cancelled() => break,
                _ = renew.tick() => {}
            }
            let held = match self.store.lease(LEASE, &self.holder, LEASE_TTL_MS).await {
                Ok(held) => held,
                Err(e) => {
                    tracing::warn!(error = %e, "bot runner lease not renewed");
                    false
                }
            };
            match (&term, held) {
                (None, true) => {
                    tracing::info!(holder = %self.holder, "bot runner lease taken: playing");
                    let t = shutdown.child_token();
                    tokio::spawn(self.clone().term(t.clone()));
                    term = Some(t);
                }
                (Some(t), false) => {
                    tracing::warn!(holder = %self.holder, "bot runner lease lost: stopping");
                    t.cancel();
                    term = None;
                }
                (Some(_), true) | (None, false) => {}
            }
        }
        if let Some(t) = term {
            t.cancel();
        }
    }

    /// One term as the lease holder: opens the bot's session, then plays every recorded
    /// bot match and each new one until `stop`.
    async fn term(self, stop: CancellationToken) {
        let client = loop {
            match self.session().await {
                Ok(c) => break c,
                Err(e) => {
                    tracing::warn!(error = %e, "the bot runner's session could not be opened");
                    tokio::select! {
                        () = stop.cancelled() => return,
                        () = tokio::time::sleep(RENEW) => {}
                    }
                }
            }
        };
        let streams = Arc::new(Streams { client: client.clone(), current: Default::default() });
        let playing: Arc<Mutex<BTreeSet<BotMatch>>> = Arc::default();
        let mut after = 0;
        loop {
            let page = match self.store.bot_matches(after, PAGE).await {
                Ok(p) => p,
                Err(e) => {
                    tracing::warn!(error = %e, "bot matches not read");
                    Vec::new()
                }
            };
            let full = page.len() == PAGE;
            for (at, m) in page {
                after = at;
                // Recorded again (a retried CreateMatch) while played: played once.
                if !playing.lock().expect("the bot runner's lock").insert(m.clone()) {
                    continue;
                }
                let job = Job {
                    runner: self.clone(),
                    client: client.clone(),
                    streams: streams.clone(),
                    m,
                };
                let (stop, playing) = (stop.clone(), playing.clone());
                service_kit::metrics::add(crate::metrics::BOT_PLAYING, 1);
                tokio::spawn(async move {
                    let m = job.m.clone();
                    tokio::select! {
                        () = stop.cancelled() => {}
                        () = job.play_to_the_end() => {}
                    }
                    playing.lock().expect("the bot runner's lock").remove(&m);
                    service_kit::metrics::add(crate::metrics::BOT_PLAYING, -1);
                });
            }
            if full {
                continue;
            }
            tokio::select! {
                () = stop.cancelled() => return,
                () = tokio::time::sleep(PASS) => {}
            }
        }
    }

    /// The bot player's session, opened (again) in the store: its client on the gateway.
    async fn session(&self) -> Result<Client, RunnerError> {
        let key = crate::auth::token_key(&self.token);
        self.store
            .put_session(&key, PLAYER_ID, DISPLAY_NAME)
            .await
            .map_err(|e| RunnerError::Session(e.to_string()))?;
        let channel =
            client::channel(&self.gateway_url).map_err(|e| RunnerError::Session(e.to_string()))?;
        Client::with_token(channel, &self.token, &PLAYER_ID.to_string())
            .map_err(|e| RunnerError::Session(e.to_string()))
    }
}

/// The runner's Play streams: the one new matches join, and how many it carries.
struct Streams {
    client: Client,
    current: tokio::sync::Mutex<Option<(Play, Arc<AtomicUsize>)>>,
}

/// A match's place on a Play stream, given back when dropped.
struct Place {
    play: Play,
    count: Arc<AtomicUsize>,
}

impl Drop for Place {
    fn drop(&mut self) {
        self.count.fetch_sub(1, Ordering::Relaxed);
    }
}

impl Streams {
    /// A place on a stream for one more match: the current one, or a new one if it is
    /// full or closed for good (its matches resume on the new one).
    async fn take(&self) -> Result<Place, RunnerError> {
        let mut current = self.current.lock().await;
        let usable = |(p, n): &(Play, Arc<AtomicUsize>)| {
            !p.is_closed() && n.load(Ordering::Relaxed) < MATCHES_PER_STREAM
        };
        if !current.as_ref().is_some_and(usable) {
            // The old stream lives on while its matches hold it.
            let play = self.client.play().await?;
            *current = Some((play, Arc::new(AtomicUsize::new(0))));
        }
        let (play, count) = current.clone().expect("a stream was just opened");
        count.fetch_add(1, Ordering::Relaxed);
        Ok(Place { play, count })
    }
}

/// One bot match of a term.
struct Job {
    runner: Runner,
    client: Client,
    streams: Arc<Streams>,
    m: BotMatch,
}

impl Job {
    /// Plays the match to its end, resuming it after any failure (with backoff), then
    /// forgets it; a match the bot cannot play (gone, its seat not the bot's, a bot the
    /// game no longer has) is forgotten at once.
    async fn play_to_the_end(self) {
        let mut backoff = Duration::from_millis(50);
        loop {
            let started = tokio::time::Instant::now();
            match self.play().await {
                Ok(()) => break,
                Err(e) if e.is_final() => {
                    tracing::warn!(match_id = %self.m.id, error = %e, "the bot cannot play this match: forgotten");
                    break;
                }
                Err(e) => {
                    if started.elapsed() >= STEADY {
                        backoff = Duration::from_millis(50);
                    }
                    tracing::warn!(match_id = %self.m.id, error = %e, retry_ms = backoff.as_millis() as u64, "bot match interrupted: resuming");
                    service_kit::metrics::add(crate::metrics::BOT_RESUMES, 1);
                    if matches!(&e, RunnerError::Api(s) if s.code() == tonic::Code::Unauthenticated)
                    {
                        // The session is gone from the store (lost writes): open it again.
                        if let Err(e) = self.runner.session().await {
                            tracing::warn!(error = %e, "the bot runner's session could not be opened");
                        }
                    }
                    tokio::time::sleep(backoff).await;
                    backoff = (backoff * 2).min(MAX_BACKOFF);
                }
            }
        }
        for _ in 0..5 {
            match self.runner.store.remove_bot_match(&self.m).await {
                Ok(()) => return,
                Err(e) => {
                    tracing::warn!(match_id = %self.m.id, error = %e, "a finished bot match not forgotten yet");
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
            }
        }
    }

    /// One attempt at the match, to its end: joined (again: the seat is answered the same)
    /// and viewed by unary calls, watched from the start and moved on a Play stream.
    async fn play(&self) -> Result<(), RunnerError> {
        let (client, game) = (&self.client, self.m.game.as_str());
        let match_id = self.m.id.to_string();
        let seat = match client.join(&match_id, "").await {
            Ok(seat) => seat,
            Err(s) if refuses_the_bot(&s) => return Err(RunnerError::CannotPlay(s)),
            Err(s) => return Err(s.into()),
        };
        let seat = rules_core::Seat::new(u64::from(seat)).ok_or(RunnerError::BadSeat(seat))?;
        let mut brain =
            games::registry::json_bot(game, &self.m.bot, service_kit::time::os_random_32())
                .ok_or(RunnerError::NoSuchBot)?;
        let place = self.streams.take().await?;
        // The stream's views say when the bot owes a move; only then does it ask GetView
        // for the JSON form its brain reads.
        let mut events = place.play.watch(&match_id, Cursor::START, true).await?;
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
            if view.outcome.is_some() {
                return Ok(());
            }
            if view.legal_moves.is_empty() {
                continue;
            }
            let legal: Vec<serde_json::Value> = view
                .legal_moves
                .iter()
                .filter_map(|m| games::registry::move_to_json(game, m).ok())
                .collect();
            let choice = brain.choose(seat, &view.view_json, &legal).map_err(RunnerError::Brain)?;
            let mv = games::registry::move_from_json(game, &choice).map_err(RunnerError::Brain)?;
            // Keyed by the version it answers: resent after a failure (by this runner or
            // the next holder), it is applied once.
            let key = format!("bot:{}:{}", self.m.id, view.version);
            match place.play.submit(&match_id, Some(mv), &key).await {
                Ok(_) => {}
                // The match moved on between the view and the move (a deadline), or this
                // version was answered before with another choice (an attempt that died
                // after its move): the stream brings the next view.
                Err(s)
                    if matches!(
                        s.code(),
                        tonic::Code::FailedPrecondition | tonic::Code::AlreadyExists
                    ) => {}
                Err(s) => return Err(s.into()),
            }
            turns.acted(view.version);
        }
        // The watch ended with the match.
        Ok(())
    }
}

/// Whether JoinMatch's refusal means the bot can never play the match: it does not exist,
/// or its seat is not the bot's.
fn refuses_the_bot(s: &tonic::Status) -> bool {
    matches!(
        s.code(),
        tonic::Code::NotFound
            | tonic::Code::PermissionDenied
            | tonic::Code::InvalidArgument
            | tonic::Code::FailedPrecondition
    )
}

/// Why the runner stopped playing a match for now (logged; it answers no one).
#[derive(Debug)]
pub enum RunnerError {
    /// The public API refused or failed a call (resumed).
    Api(tonic::Status),
    /// JoinMatch refused the bot for good: the match is gone or the seat is not the bot's.
    CannotPlay(tonic::Status),
    /// The bot's session could not be opened here: why (resumed).
    Session(String),
    /// JoinMatch answered a seat that does not exist.
    BadSeat(u32),
    /// The game has no bot of this name.
    NoSuchBot,
    /// The bot's brain, or the move it chose, failed: what (resumed).
    Brain(String),
}

impl RunnerError {
    /// Whether resuming the match could never help.
    fn is_final(&self) -> bool {
        match self {
            RunnerError::CannotPlay(_) | RunnerError::BadSeat(_) | RunnerError::NoSuchBot => true,
            RunnerError::Api(_) | RunnerError::Session(_) | RunnerError::Brain(_) => false,
        }
    }
}

impl std::fmt::Display for RunnerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            RunnerError::Api(s) | RunnerError::CannotPlay(s) => {
                write!(f, "{}: {}", s.code(), s.message())
            }
            RunnerError::Session(m) => f.write_str(m),
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_refusal_of_the_seat_or_the_match_ends_a_bot_match() {
        assert!(RunnerError::CannotPlay(tonic::Status::not_found("gone")).is_final());
        assert!(RunnerError::NoSuchBot.is_final());
        for s in [
            tonic::Status::unavailable("a gateway restarting"),
            tonic::Status::cancelled("operation was canceled: connection closed"),
            tonic::Status::unauthenticated("session lost"),
        ] {
            assert!(!RunnerError::Api(s).is_final());
        }
        assert!(!RunnerError::Brain("a bad choice".into()).is_final());
        assert!(refuses_the_bot(&tonic::Status::permission_denied("not your seat")));
        assert!(!refuses_the_bot(&tonic::Status::unavailable("engine down")));
    }
}
