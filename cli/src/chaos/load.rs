//! The chaos trial's load: bot-vs-bot matches of every game through the gateway's public
//! API, and matches against the gateway's built-in bots, played by clients that retry
//! with the same idempotency key, resume their watch where it broke, sometimes miss a
//! deadline or cut a submit short, and record every acknowledgement they receive.

use api::v1;
use client::requests::{self, opponent};
use client::{Client, Cursor, Turns};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio_util::sync::CancellationToken;
use tonic::Code;

/// How the clients behave.
#[derive(Clone, Copy, Debug)]
pub struct Behaviour {
    /// Matches in flight at once.
    pub slots: u64,
    /// Per-move time of each match, ms.
    pub move_time_ms: u64,
    /// Mean think time before a move, ms (drawn from 0 to twice this).
    pub think_ms: u64,
    /// One move in this many sleeps past its deadline (0: never).
    pub late_every: u32,
    /// One submit in this many gets a 5 ms deadline (0: never).
    pub cancel_every: u32,
    /// Keep playing after the load stops, until the match ends (the matches against the
    /// built-in bots: each must finish).
    pub play_on: bool,
}

impl Behaviour {
    /// What ends a player's part before its match ends: the load's stop, unless it plays on.
    fn stop(&self, sh: &Shared) -> CancellationToken {
        if self.play_on { CancellationToken::new() } else { sh.stop.clone() }
    }
}

/// Per-move time of the matches against the built-in bots (where the rules do not fix
/// it): longer than the bot runner's lease (3 s, services/gateway/src/bots.rs) and a
/// gateway's restart together, so when the gateway playing the bots is killed the next
/// lease holder resumes each match before the bot's seat runs out of time.
pub const BOT_MOVE_TIME_MS: u64 = 6_000;

/// One acknowledgement a client received for a SubmitMove.
#[derive(Clone, Debug)]
pub struct Ack {
    /// The match.
    pub match_id: String,
    /// The seat that submitted.
    pub seat: u32,
    /// The client's idempotency key (the gateway stores `seat{N}:{key}`).
    pub key: String,
    /// The version the answer named.
    pub version: u64,
    /// Whether the answer was `duplicate` rather than `accepted`.
    pub duplicate: bool,
    /// When the attempt that got it was sent.
    pub sent: Instant,
    /// When it arrived.
    pub at: Instant,
    /// The family of the match's game.
    pub family: games::Family,
}

/// A match the load created.
#[derive(Clone, Debug)]
pub struct Tracked {
    /// The game.
    pub game: &'static str,
    /// The built-in bot's seat, in a match against one.
    pub bot_seat: Option<u32>,
}

/// What every client shares: the stop signal and everything recorded.
pub struct Shared {
    /// Cancelled when the load stops: clients stop submitting.
    pub stop: CancellationToken,
    /// Every acknowledgement, in arrival order.
    pub acks: Mutex<Vec<Ack>>,
    /// Every match created, by id.
    pub matches: Mutex<BTreeMap<String, Tracked>>,
    /// Errors seen by the clients, by status code.
    pub errors: Mutex<BTreeMap<&'static str, u64>>,
    /// Matches a client saw end.
    pub finished: AtomicU64,
    /// Submits sent with a 5 ms deadline.
    pub short_submits: AtomicU64,
    /// Moves made after sleeping past the deadline.
    pub late_moves: AtomicU64,
    /// Players that gave up on a match because no new view came for a long time, and
    /// GetView showed the match had moved on without their watch.
    pub stalled_watch_behind: AtomicU64,
    /// Likewise, but GetView showed the match had not moved (or did not answer).
    pub stalled_match_still: AtomicU64,
    /// `resync` messages received (the store lost writes: only with --kill-redis).
    pub resyncs: AtomicU64,
}

impl Shared {
    /// Nothing recorded yet.
    pub fn new() -> Arc<Shared> {
        Arc::new(Shared {
            stop: CancellationToken::new(),
            acks: Mutex::default(),
            matches: Mutex::default(),
            errors: Mutex::default(),
            finished: AtomicU64::new(0),
            resyncs: AtomicU64::new(0),
            short_submits: AtomicU64::new(0),
            late_moves: AtomicU64::new(0),
            stalled_watch_behind: AtomicU64::new(0),
            stalled_match_still: AtomicU64::new(0),
        })
    }

    /// Counts one error status.
    pub fn error(&self, code: Code) {
        *self.errors.lock().expect("the errors lock").entry(code_name(code)).or_default() += 1;
    }

    /// Acknowledgements so far.
    pub fn acked(&self) -> usize {
        self.acks.lock().expect("the acks lock").len()
    }

    /// Matches created so far.
    pub fn created(&self) -> usize {
        self.matches.lock().expect("the matches lock").len()
    }
}

/// A status code's canonical name, as gRPC spells it.
pub use service_kit::status::code_name;

/// The codes after which a call is retried as it was (same idempotency key): the
/// contract makes a retried submit safe. CANCELLED is how a server reports the expiry
/// of the client's own `grpc-timeout`, so it counts as DEADLINE_EXCEEDED does.
pub fn retryable(code: Code) -> bool {
    matches!(
        code,
        Code::Unavailable
            | Code::Aborted
            | Code::DeadlineExceeded
            | Code::Cancelled
            | Code::Unknown
            | Code::Internal
    )
}

/// Attempts per call before a client gives up on it.
const ATTEMPTS: u32 = 80;

fn backoff(attempt: u32) -> Duration {
    Duration::from_millis((25 * u64::from(attempt)).min(400))
}

/// A unary call, retried on [`retryable`] codes until it succeeds, fails otherwise, or
/// the load stops (`None`). Every error is counted.
pub(super) async fn retry<T, F, Fut>(sh: &Shared, mut call: F) -> Option<Result<T, tonic::Status>>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    for attempt in 1..=ATTEMPTS {
        let r = tokio::select! {
            _ = sh.stop.cancelled() => return None,
            r = tokio::time::timeout(Duration::from_secs(10), call()) => r
                .unwrap_or_else(|_| Err(tonic::Status::deadline_exceeded("client timeout"))),
        };
        match r {
            Ok(v) => return Some(Ok(v)),
            Err(s) => {
                sh.error(s.code());
                if !retryable(s.code()) || attempt == ATTEMPTS {
                    return Some(Err(s));
                }
            }
        }
        tokio::select! {
            _ = sh.stop.cancelled() => return None,
            _ = tokio::time::sleep(backoff(attempt)) => {}
        }
    }
    None
}

/// Runs the load until `sh.stop` is cancelled: `b.slots` match slots over `channels`,
/// each playing match after match, the games in turn.
pub async fn run(channels: Vec<tonic::transport::Channel>, b: Behaviour, sh: Arc<Shared>) {
    let mut slots = tokio::task::JoinSet::new();
    for w in 0..b.slots {
        let channel = channels[w as usize % channels.len()].clone();
        let sh = sh.clone();
        slots.spawn(async move {
            // Spread the first matches over a second, as arriving players would.
            tokio::time::sleep(Duration::from_millis(1000 * w / b.slots.max(1))).await;
            slot(w, channel, b, sh).await;
        });
    }
    while slots.join_next().await.is_some() {}
}

/// A guest session, retried through gateway restarts.
pub(super) async fn guest(
    channel: &tonic::transport::Channel,
    name: &str,
    sh: &Shared,
) -> Option<Client> {
    // Only the gateway's refusals and failures are retried, not a token it sent unusable.
    let open = || {
        let channel = channel.clone();
        async move {
            match Client::guest_on(channel, name).await {
                Ok(c) => Ok(Ok(c)),
                Err(client::Error::Api(s)) => Err(s),
                Err(e) => Ok(Err(e)),
            }
        }
    };
    match retry(sh, open).await? {
        Ok(Ok(c)) => Some(c),
        Ok(Err(e)) => {
            tracing::warn!(error = %e, "no guest session");
            None
        }
        Err(s) => {
            tracing::warn!(code = code_name(s.code()), "no guest session");
            None
        }
    }
}

/// One match slot: two players, one match after another until the load stops.
async fn slot(w: u64, channel: tonic::transport::Channel, b: Behaviour, sh: Arc<Shared>) {
    let Some(a) = guest(&channel, &format!("chaos-{w}-a"), &sh).await else { return };
    let Some(bb) = guest(&channel, &format!("chaos-{w}-b"), &sh).await else { return };
    let mut n = 0u64;
    while !sh.stop.is_cancelled() {
        let info = &games::GAMES[((w + n) % games::GAMES.len() as u64) as usize];
        n += 1;
        // Where the rules fix the time per move (a minute), the match takes that time and
        // nobody sleeps past it: the trial would wait a minute a time.
        let b = match games::time::fixed_move_time(info.name, &serde_json::Value::Null) {
            Some(rules_core::MoveTime::Fixed { move_ms, .. }) => {
                Behaviour { move_time_ms: move_ms, late_every: 0, ..b }
            }
            _ => b,
        };
        // Keyed: a create retried after UNAVAILABLE answers the match it made, not another.
        let create_key = format!("chaos-create-{w}-{n}");
        let create = v1::CreateMatchRequest {
            idempotency_key: create_key,
            ..requests::create(info.name, "", opponent::open(), b.move_time_ms)
        };
        let created = match retry(&sh, || a.create(create.clone())).await {
            None => return,
            Some(Ok(r)) => r,
            Some(Err(_)) => continue,
        };
        let id = created.match_id;
        sh.matches
            .lock()
            .expect("the matches lock")
            .insert(id.clone(), Tracked { game: info.name, bot_seat: None });
        let join_key = format!("chaos-join-{w}-{n}");
        let seat_b = match retry(&sh, || bb.join(&id, &join_key)).await {
            None => return,
            Some(Ok(seat)) => seat,
            Some(Err(_)) => continue,
        };
        let seat_a = created.seat;
        let pa = player(a.clone(), id.clone(), seat_a, info.family, b, sh.clone());
        let pb = player(bb.clone(), id.clone(), seat_b, info.family, b, sh.clone());
        tokio::join!(pa, pb);
    }
}

/// Runs `slots` players against the built-in bots until `sh.stop` is cancelled, each
/// playing match after match, the games and each game's bots in turn; a match under way
/// when the load stops is played to its end.
pub async fn run_bots(
    channel: tonic::transport::Channel,
    slots: u64,
    b: Behaviour,
    sh: Arc<Shared>,
) {
    let mut players = tokio::task::JoinSet::new();
    for w in 0..slots {
        let (channel, sh) = (channel.clone(), sh.clone());
        players.spawn(async move { vs_bots(w, channel, b, sh).await });
    }
    while players.join_next().await.is_some() {}
}

/// One player against the built-in bots: a match after another, the other seat the bot's
/// (played by whichever gateway holds the bot runner's lease).
async fn vs_bots(w: u64, channel: tonic::transport::Channel, b: Behaviour, sh: Arc<Shared>) {
    let Some(c) = guest(&channel, &format!("chaos-vs-bot-{w}"), &sh).await else { return };
    let count = games::GAMES.len() as u64;
    let mut n = 0u64;
    while !sh.stop.is_cancelled() {
        let info = &games::GAMES[((w + n) % count) as usize];
        let names = games::registry::bot_names(info.name);
        let bot = names.get(((w + n / count) % names.len().max(1) as u64) as usize).copied();
        n += 1;
        let Some(bot) = bot else { continue };
        let move_time_ms = match games::time::fixed_move_time(info.name, &serde_json::Value::Null) {
            Some(rules_core::MoveTime::Fixed { move_ms, .. }) => move_ms,
            Some(rules_core::MoveTime::Standard) | None => BOT_MOVE_TIME_MS,
        };
        // No move sleeps past its deadline: a match that ends on time must be the bot's doing.
        let b = Behaviour { move_time_ms, late_every: 0, play_on: true, ..b };
        let create = v1::CreateMatchRequest {
            idempotency_key: format!("chaos-vs-bot-{w}-{n}"),
            ..requests::create(info.name, "", opponent::bot(bot), move_time_ms)
        };
        let created = match retry(&sh, || c.create(create.clone())).await {
            None => return,
            Some(Ok(r)) => r,
            Some(Err(s)) => {
                tracing::warn!(
                    game = info.name,
                    bot,
                    code = code_name(s.code()),
                    "no match against the bot"
                );
                continue;
            }
        };
        let id = created.match_id;
        let bot_seat = 1 - created.seat.min(1);
        sh.matches
            .lock()
            .expect("the matches lock")
            .insert(id.clone(), Tracked { game: info.name, bot_seat: Some(bot_seat) });
        player(c.clone(), id, created.seat, info.family, b, sh.clone()).await;
    }
}

/// One seat of one match: acts on the views its watch brings, until the match ends, the
/// load stops, or no new view comes for four move times (the match is stuck; the checker
/// will say so).
pub(super) async fn player(
    c: Client,
    id: String,
    seat: u32,
    family: games::Family,
    b: Behaviour,
    sh: Arc<Shared>,
) {
    let mut rng = bots::BotRng::from_seed(service_kit::time::os_random_32());
    let stop = b.stop(&sh);
    let (tx, mut views) = tokio::sync::watch::channel(None::<v1::GetViewResponse>);
    let done = CancellationToken::new();
    let reader = tokio::spawn(watch(c.clone(), id.clone(), tx, sh.clone(), done.clone()));
    let stall = Duration::from_millis(4 * b.move_time_ms + 2000);
    let mut turns = Turns::default();
    let mut seen = 0;
    loop {
        tokio::select! {
            _ = stop.cancelled() => break,
            r = tokio::time::timeout(stall, views.changed()) => match r {
                Err(_) => {
                    // Did the match move on without this watch, or not move at all?
                    let now_at = tokio::time::timeout(Duration::from_secs(5), c.view(&id))
                        .await
                        .ok()
                        .and_then(Result::ok)
                        .map(|v| v.version);
                    let behind = now_at.is_some_and(|v| v > seen);
                    if behind {
                        sh.stalled_watch_behind.fetch_add(1, Ordering::Relaxed);
                    } else {
                        sh.stalled_match_still.fetch_add(1, Ordering::Relaxed);
                    }
                    tracing::warn!(match_id = %id, seat, last_seen = seen, get_view = ?now_at, "no new view for four move times: leaving the match");
                    break;
                }
                Ok(Err(_)) => break,
                Ok(Ok(())) => {}
            },
        }
        let Some(view) = views.borrow_and_update().clone() else { continue };
        seen = seen.max(view.version);
        if view.outcome.is_some() {
            if seat == 0 {
                sh.finished.fetch_add(1, Ordering::Relaxed);
            }
            break;
        }
        if !turns.owed(&view) {
            continue;
        }
        turns.acted(view.version);
        let late = b.late_every > 0 && rng.below(b.late_every) == 0;
        let think = if late {
            sh.late_moves.fetch_add(1, Ordering::Relaxed);
            Duration::from_millis(b.move_time_ms + 300)
        } else if b.think_ms > 0 {
            Duration::from_millis(u64::from(rng.below(2 * b.think_ms as u32 + 1)))
        } else {
            Duration::ZERO
        };
        tokio::select! {
            _ = stop.cancelled() => break,
            _ = tokio::time::sleep(think) => {}
        }
        let mv = view.legal_moves[rng.below(view.legal_moves.len() as u32) as usize].clone();
        let key = format!("chaos:{}:{}:{:08x}", seat, view.version, rng.below(u32::MAX));
        submit(&c, &id, seat, family, mv, key, b, &sh, &mut rng).await;
    }
    done.cancel();
    let _ = reader.await;
}

/// Submits one move, retrying with the same key on [`retryable`] codes; one submit in
/// `cancel_every` gets a 5 ms deadline, so some are cut off mid-append. Records the
/// acknowledgement, if one comes.
#[allow(clippy::too_many_arguments)]
async fn submit(
    c: &Client,
    id: &str,
    seat: u32,
    family: games::Family,
    mv: v1::Move,
    key: String,
    b: Behaviour,
    sh: &Shared,
    rng: &mut bots::BotRng,
) {
    let stop = b.stop(sh);
    for attempt in 1..=ATTEMPTS {
        let short = b.cancel_every > 0 && rng.below(b.cancel_every) == 0;
        let limit = if short {
            sh.short_submits.fetch_add(1, Ordering::Relaxed);
            Duration::from_millis(5)
        } else {
            Duration::from_secs(10)
        };
        let c = c.with_timeout(limit);
        #[allow(clippy::disallowed_methods)] // The trial measures wall time.
        let sent = Instant::now();
        let r = tokio::select! {
            _ = stop.cancelled() => return,
            r = tokio::time::timeout(limit, c.submit(id, Some(mv.clone()), &key)) => r
                .unwrap_or_else(|_| Err(tonic::Status::deadline_exceeded("client deadline"))),
        };
        match r {
            Ok(resp) => {
                let (version, duplicate) = match resp.outcome {
                    Some(v1::submit_move_response::Outcome::Accepted(a)) => (a.version, false),
                    Some(v1::submit_move_response::Outcome::Duplicate(a)) => (a.version, true),
                    None => return,
                };
                #[allow(clippy::disallowed_methods)] // The trial measures wall time.
                let at = Instant::now();
                sh.acks.lock().expect("the acks lock").push(Ack {
                    match_id: id.to_string(),
                    seat,
                    key,
                    version,
                    duplicate,
                    sent,
                    at,
                    family,
                });
                return;
            }
            Err(s) => {
                sh.error(s.code());
                if !retryable(s.code()) {
                    // FAILED_PRECONDITION: the match moved on (a deadline fired meanwhile).
                    return;
                }
            }
        }
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(backoff(attempt)) => {}
        }
    }
}

/// Follows the match for one seat, with views, resuming after any break from the last
/// message received (`after_version`, `after_index`); sends each view on `tx`. Ends when
/// a view shows the match over, on `done`, or on an error no retry can fix.
async fn watch(
    c: Client,
    id: String,
    tx: tokio::sync::watch::Sender<Option<v1::GetViewResponse>>,
    sh: Arc<Shared>,
    done: CancellationToken,
) {
    // Just after the last message received.
    let mut after = Cursor::START;
    loop {
        let opened = tokio::select! {
            _ = done.cancelled() => return,
            r = tokio::time::timeout(Duration::from_secs(10), c.watch(&id, after, true)) => r
                .unwrap_or_else(|_| Err(tonic::Status::deadline_exceeded("client timeout"))),
        };
        match opened {
            Ok(mut stream) => {
                loop {
                    let m = tokio::select! {
                        _ = done.cancelled() => return,
                        m = stream.message() => m,
                    };
                    match m {
                        Ok(Some(m)) if m.resync.is_some() => {
                            // The store lost writes: the match is restated from its start.
                            sh.resyncs.fetch_add(1, Ordering::Relaxed);
                            after = after.next(&m);
                        }
                        Ok(Some(m)) => {
                            after = after.next(&m);
                            if let Some(v) = m.view {
                                let over = v.outcome.is_some();
                                let _ = tx.send(Some(v));
                                if over {
                                    return;
                                }
                            }
                        }
                        Ok(None) => break,
                        Err(s) => {
                            sh.error(s.code());
                            break;
                        }
                    }
                }
            }
            Err(s) => {
                sh.error(s.code());
                if !retryable(s.code()) {
                    tracing::warn!(match_id = %id, code = code_name(s.code()), "watch refused");
                    return;
                }
            }
        }
        tokio::select! {
            _ = done.cancelled() => return,
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
}
