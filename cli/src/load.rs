//! `colosseum load`: bot-vs-bot matches through the gateway, as real clients (guest
//! sessions, CreateMatch/JoinMatch, then watches with views and moves: each session's on
//! one Play stream for all its matches, or, with `--wire unary`, a WatchMatch per match
//! and a SubmitMove per move), many at once. It
//! measures moves per second and the latency from a submit to the opponent receiving
//! that move's event, and can measure a bare tonic unary echo in the same run. With
//! `--queue`, players arrive through the match-maker instead ([`queue`]); with `--bulk`,
//! CreateMatches is timed ([`bulk`]); with `--deadlines`, deadlines at scale ([`deadlines`]);
//! with `--idle`, what matches left waiting cost, and a move on one of them ([`idle`]);
//! with `--archive`, the matches moved to an archive as they finish, and what that leaves
//! in Redis, the archive and each player's history ([`archive`]).

pub mod archive;
pub mod bulk;
pub mod deadlines;
pub mod idle;
pub mod queue;

use api::v1;
use clap::{Args, ValueEnum};
use client::requests::{self, opponent};
use client::{Client, Cursor, Feed, Play, Turns};
use serde_json::json;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Options of `colosseum load`.
#[derive(Args)]
pub struct LoadArgs {
    /// The game.
    #[arg(long, default_value = "gops")]
    game: String,
    /// Matches to play.
    #[arg(long, default_value_t = 100)]
    matches: u64,
    /// Matches in flight at once.
    #[arg(long, default_value_t = 10)]
    concurrency: u64,
    /// Each bot waits this long before each move (0: a closed loop).
    #[arg(long, default_value_t = 0)]
    think_ms: u64,
    /// Each think time is drawn uniformly from think_ms ± this (0: exactly think_ms).
    #[arg(long, default_value_t = 0)]
    think_jitter_ms: u64,
    /// The workers' first matches start spread evenly over this many ms, as players
    /// arriving at a site do, rather than all in one instant (default: the think time).
    #[arg(long)]
    ramp_ms: Option<u64>,
    /// The gateway; default: start the cluster in this process (Redis at REDIS_URL, else in memory).
    #[arg(long)]
    gateway: Option<String>,
    /// How each bot session watches and moves: one Play stream for all its matches, or
    /// a WatchMatch per match and a SubmitMove per move.
    #[arg(long, value_enum, default_value = "play")]
    wire: Wire,
    /// Also measure a bare tonic unary echo (64 in flight) for this many seconds first.
    #[arg(long, default_value_t = 0)]
    echo_seconds: u64,
    /// Per-move time of the matches, in seconds.
    #[arg(long, default_value_t = 60)]
    move_time: u64,
    /// Players arrive through the match-maker (a casual queue) instead of CreateMatch;
    /// then the matching pass is timed alone (see `--pass-tickets`). In-process cluster only.
    #[arg(long)]
    queue: bool,
    /// Time the platform API's CreateMatches of this many matches instead (in-process
    /// cluster only; see `--bulk-runs`).
    #[arg(long, default_value_t = 0)]
    bulk: u64,
    /// With --bulk: how many calls.
    #[arg(long, default_value_t = 3)]
    bulk_runs: u64,
    /// Measure deadlines at scale instead: this many GOPS matches made by CreateMatches
    /// and left alone, their deadlines falling due spread over `--over-ms`; reports how
    /// late each fired (in-process cluster only).
    #[arg(long, default_value_t = 0)]
    deadlines: u64,
    /// With --deadlines: the span the deadlines fall due over, ms.
    #[arg(long, default_value_t = 60_000)]
    over_ms: u64,
    /// With --deadlines: the first falls due this long after creation starts, ms.
    #[arg(long, default_value_t = 20_000)]
    lead_ms: u64,
    /// With --deadlines: stop the clock this long after the first deadline falls due,
    /// restart it 5 s later, and report its catch-up.
    #[arg(long)]
    clock_restart_ms: Option<u64>,
    /// With --deadlines: clock replicas polling the same store (the second one's calls
    /// are wasted: stale or duplicate answers).
    #[arg(long, default_value_t = 1)]
    clocks: u64,
    /// With --deadlines: also write each recorded firing (match id, due ms, lag ms) to
    /// this CSV file.
    #[arg(long)]
    deadlines_csv: Option<std::path::PathBuf>,
    /// Measure idle matches instead: this many GOPS matches made by CreateMatches and left
    /// waiting; reports memory (the process, Redis per match) and the latency of a move on
    /// a random one the engines no longer hold (in-process cluster only).
    #[arg(long, default_value_t = 0)]
    idle: u64,
    /// With --idle: moves probed, each on a different random idle match.
    #[arg(long, default_value_t = 2_000)]
    probe_moves: u64,
    /// With --idle: probe moves in flight at most.
    #[arg(long, default_value_t = 16)]
    probe_in_flight: u64,
    /// With --idle: probe moves started per second (0: each as soon as one in flight ends).
    #[arg(long, default_value_t = 200)]
    probe_rate: u64,
    /// With --idle: the matches' time per move, in seconds (at most a week).
    #[arg(long, default_value_t = 604_800)]
    move_time_s: u64,
    /// With --queue: players to arrive (`--concurrency` at once).
    #[arg(long, default_value_t = 10_000)]
    players: u64,
    /// With --queue: waiting tickets in the queue of each timed matching pass.
    #[arg(long, default_value_t = 10_000)]
    pass_tickets: u64,
    /// With --queue: timed matching passes.
    #[arg(long, default_value_t = 5)]
    pass_runs: u64,
    /// Move finished matches to an archive (a PostgreSQL started here), then measure
    /// Redis's memory before, during and after, the archive, a sample of its records
    /// verified and every player's history paged through. Needs REDIS_URL; in-process
    /// cluster only.
    #[arg(long)]
    archive: bool,
    /// With --archive: how long a match stays in Redis once archived, seconds.
    #[arg(long, default_value_t = 5)]
    release_after_s: u64,
    /// With --archive: archived records verified, chosen at random.
    #[arg(long, default_value_t = 1_000)]
    verify_sample: u64,
}

/// How a bot session watches its matches and moves in them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum Wire {
    /// One Play stream per session, for all its matches' watches and moves.
    Play,
    /// A WatchMatch stream per match, a SubmitMove call per move.
    Unary,
}

/// A bot session as it reaches the gateway: creating and joining matches is unary either
/// way; watches and moves go over its Play stream, or one call each.
#[derive(Clone)]
struct Line {
    client: Client,
    play: Option<Play>,
}

impl Line {
    /// `client` on `wire` (a Play stream opened now for [`Wire::Play`]).
    async fn open(client: Client, wire: Wire) -> Result<Line, String> {
        let play = match wire {
            Wire::Play => Some(client.play().await.map_err(|s| format!("play: {s}"))?),
            Wire::Unary => None,
        };
        Ok(Line { client, play })
    }

    /// Watches `id` with the session's views, from the start.
    async fn watch(&self, id: &str) -> Result<Events, tonic::Status> {
        Ok(match &self.play {
            Some(p) => Events::Play(p.watch(id, Cursor::START, true).await?),
            None => Events::Unary(self.client.watch(id, Cursor::START, true).await?),
        })
    }

    /// A move, under `key`.
    async fn submit(
        &self,
        id: &str,
        mv: v1::Move,
        key: &str,
    ) -> Result<v1::SubmitMoveResponse, tonic::Status> {
        match &self.play {
            Some(p) => p.submit(id, Some(mv), key).await,
            None => self.client.submit(id, Some(mv), key).await,
        }
    }
}

/// One match's messages, as the session's wire brings them.
enum Events {
    Play(Feed),
    Unary(tonic::Streaming<v1::WatchMatchResponse>),
}

impl Events {
    async fn message(&mut self) -> Result<Option<v1::WatchMatchResponse>, tonic::Status> {
        match self {
            Events::Play(f) => f.message().await,
            Events::Unary(s) => s.message().await,
        }
    }
}

/// Latencies and counts shared by all players.
#[derive(Default)]
struct Stats {
    moves: AtomicU64,
    errors: AtomicU64,
    /// The first few errors, in words.
    error_samples: Mutex<Vec<String>>,
    /// Per (match, version): who submitted the move and when, and when each player's
    /// watch stream first showed that version. Either side may come first.
    seen: Mutex<BTreeMap<(u64, u64), Sighting>>,
    /// Submit-to-opponent-receipt latencies, microseconds.
    latencies: Mutex<Vec<u64>>,
}

/// What is known of one version of one match.
#[derive(Default)]
struct Sighting {
    submitted: Option<(u8, Instant)>,
    received: Vec<(u8, Instant)>,
}

impl Stats {
    /// Notes a submit (`by` is the player, 0 or 1) or a receipt, and records the latency
    /// once the submit and the other player's receipt are both known.
    fn note(&self, key: (u64, u64), by: u8, at: Instant, submit: bool) {
        let mut seen = self.seen.lock().expect("the stats lock");
        let s = seen.entry(key).or_default();
        if submit {
            s.submitted = Some((by, at));
        } else if !s.received.iter().any(|(p, _)| *p == by) {
            s.received.push((by, at));
        }
        if let Some((p, t0)) = s.submitted
            && let Some(&(_, t1)) = s.received.iter().find(|(q, _)| *q != p)
        {
            let micros = t1.saturating_duration_since(t0).as_micros() as u64;
            seen.remove(&key);
            self.latencies.lock().expect("the stats lock").push(micros);
        }
    }
}

fn percentile(sorted: &[u64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i] as f64 / 1000.0
}

/// Runs `colosseum load`.
pub fn run(args: LoadArgs) -> Result<ExitCode, String> {
    // The services' own lines (a failure the figures would hide) only when RUST_LOG asks:
    // by default stderr carries the progress and the summary's notes.
    crate::progress::logs_to_stderr("off");
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let echo = if args.echo_seconds > 0 { Some(echo(args.echo_seconds).await?) } else { None };
        if args.idle > 0 {
            let mut summary = idle::run(&args).await?;
            if let Some(e) = echo {
                summary["echo"] = e;
            }
            println!("{summary}");
            return Ok(ExitCode::SUCCESS);
        }
        if args.deadlines > 0 {
            let mut summary = deadlines::run(&args).await?;
            if let Some(e) = echo {
                summary["echo"] = e;
            }
            println!("{summary}");
            return Ok(ExitCode::SUCCESS);
        }
        if args.bulk > 0 {
            let mut summary = bulk::run(&args).await?;
            if let Some(e) = echo {
                summary["echo"] = e;
            }
            println!("{summary}");
            return Ok(ExitCode::SUCCESS);
        }
        if args.queue {
            let store = store::open_full_store_from_env().await.map_err(|e| e.to_string())?;
            let mut summary = queue::run(&args, store).await?;
            if let Some(e) = echo {
                summary["echo"] = e;
            }
            println!("{summary}");
            return Ok(ExitCode::SUCCESS);
        }
        let mut embedded = None;
        let mut archived = None;
        let url = match &args.gateway {
            Some(u) => u.clone(),
            None => {
                let store = store::open_full_store_from_env().await.map_err(|e| e.to_string())?;
                let setup = if args.archive {
                    let redis = std::env::var("REDIS_URL")
                        .map_err(|_| "--archive measures Redis: set REDIS_URL".to_string())?;
                    let run = archive::start(&redis).await?;
                    let a = run.archive.clone();
                    archived = Some(run);
                    let release_after_ms = args.release_after_s * 1000;
                    Some(in_process::Archive { archive: a, release_after_ms })
                } else {
                    None
                };
                let any = "127.0.0.1:0".parse().expect("an address");
                let cache = in_process::EngineCache::default();
                let c = in_process::Cluster::start_archived(store, any, cache, setup)
                    .await
                    .map_err(|e| e.to_string())?;
                let u = c.gateway_url();
                embedded = Some(c);
                u
            }
        };
        let stats = Arc::new(Stats::default());
        let bar = crate::progress::bar(
            args.matches,
            "{spinner} {bar:40} {pos}/{len} matches ({per_sec}, eta {eta})",
            "matches",
        );
        let next = Arc::new(AtomicU64::new(0));
        // A few HTTP/2 connections shared by all players, as a real fleet of clients
        // behind a few proxies would be; thousands of connections would measure the kernel.
        let endpoint =
            tonic::transport::Endpoint::from_shared(url.clone()).map_err(|e| e.to_string())?;
        let channels: Vec<tonic::transport::Channel> =
            (0..8).map(|_| endpoint.connect_lazy()).collect();
        if let Some(a) = &archived {
            a.sample();
        }
        #[allow(clippy::disallowed_methods)] // The load client measures wall time.
        let started = Instant::now();
        let cpu_before = service_kit::metrics::cpu_seconds();
        let mut workers = tokio::task::JoinSet::new();
        for w in 0..args.concurrency.min(args.matches) {
            let (channel, stats, next, bar) = (
                channels[w as usize % channels.len()].clone(),
                stats.clone(),
                next.clone(),
                bar.clone(),
            );
            let think = (args.think_ms, args.think_jitter_ms.min(args.think_ms));
            let (game, move_time, wire) = (args.game.clone(), args.move_time, args.wire);
            let total = args.matches;
            let ramp = args.ramp_ms.unwrap_or(args.think_ms);
            let stagger = Duration::from_micros(ramp * 1000 * w / args.concurrency.max(1));
            workers.spawn(async move {
                tokio::time::sleep(stagger).await;
                let a = Client::guest_on(channel.clone(), &format!("load-{w}-a")).await;
                let b = Client::guest_on(channel, &format!("load-{w}-b")).await;
                let lines = match (a, b) {
                    (Ok(a), Ok(b)) => tokio::try_join!(Line::open(a, wire), Line::open(b, wire)),
                    (Err(e), _) | (_, Err(e)) => Err(format!("session: {e}")),
                };
                let (a, b) = match lines {
                    Ok(lines) => lines,
                    Err(e) => {
                        stats.errors.fetch_add(1, Ordering::Relaxed);
                        stats.error_samples.lock().expect("the stats lock").push(e);
                        return;
                    }
                };
                loop {
                    let n = next.fetch_add(1, Ordering::Relaxed);
                    if n >= total {
                        break;
                    }
                    if let Err(e) = one_match(n, &a, &b, &game, think, move_time, &stats).await {
                        stats.errors.fetch_add(1, Ordering::Relaxed);
                        let mut samples = stats.error_samples.lock().expect("the stats lock");
                        if samples.len() < 5 {
                            samples.push(format!("{}: {}", e.code(), e.message()));
                        }
                    }
                    bar.inc(1);
                }
            });
        }
        while workers.join_next().await.is_some() {}
        let seconds = started.elapsed().as_secs_f64();
        let cpu = cpu_before.zip(service_kit::metrics::cpu_seconds()).map(|(a, b)| b - a);
        bar.finish_and_clear();
        let mut lat = stats.latencies.lock().expect("the stats lock").clone();
        lat.sort_unstable();
        let moves = stats.moves.load(Ordering::Relaxed);
        let mut summary = json!({
            "game": args.game,
            "wire": format!("{:?}", args.wire).to_lowercase(),
            "matches": args.matches,
            "concurrency": args.concurrency,
            "think_ms": args.think_ms,
            "think_jitter_ms": args.think_jitter_ms,
            "moves": moves,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "moves_per_s": (moves as f64 / seconds).round(),
            "p50_ms": percentile(&lat, 0.50),
            "p99_ms": percentile(&lat, 0.99),
            "latency_samples": lat.len(),
            // CPU is what a move costs whatever else the host runs: the wall-clock figures
            // move with the machine's noise, this one far less. The whole process: with an
            // in-process cluster, every service and the load clients together (Redis apart).
            "process_cpu_s": cpu.map(|c| (c * 100.0).round() / 100.0),
            "cpu_us_per_move": cpu.map(|c| (c * 1e6 / moves.max(1) as f64).round()),
            "errors": stats.errors.load(Ordering::Relaxed),
            "error_samples": *stats.error_samples.lock().expect("the stats lock"),
        });
        if let Some(e) = echo {
            summary["echo"] = e;
        }
        if let Some(a) = &mut archived {
            let live = args.concurrency.min(args.matches);
            let release_ms = args.release_after_s * 1000;
            summary["archive"] =
                a.measure(&url, args.matches, live, release_ms, args.verify_sample).await?;
        }
        println!("{summary}");
        if let Some(c) = embedded {
            c.shutdown().await;
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// Plays match number `n` between `a` and `b`.
async fn one_match(
    n: u64,
    a: &Line,
    b: &Line,
    game: &str,
    think: (u64, u64),
    move_time: u64,
    stats: &Arc<Stats>,
) -> Result<(), tonic::Status> {
    let created =
        a.client.create(requests::create(game, "", opponent::open(), move_time * 1000)).await?;
    let id = created.match_id;
    b.client.join(&id, "").await?;
    let pa = tokio::spawn(player(a.clone(), 0, (n, id.clone()), think, stats.clone()));
    let pb = tokio::spawn(player(b.clone(), 1, (n, id), think, stats.clone()));
    let (ra, rb) = (pa.await, pb.await);
    ra.map_err(|e| tonic::Status::internal(e.to_string()))??;
    rb.map_err(|e| tonic::Status::internal(e.to_string()))??;
    Ok(())
}

/// One seat of one match (`(n, id)`: its number in the run and its id; `think`: the think
/// time and its jitter, ms): random legal
/// moves until the end, timing the opponent's moves. The watch brings the seat's view
/// after every version, so the player never asks for it: a move costs one submit.
async fn player(
    c: Line,
    me: u8,
    (n, id): (u64, String),
    think: (u64, u64),
    stats: Arc<Stats>,
) -> Result<(), tonic::Status> {
    let mut events = c.watch(&id).await?;
    // The stream is drained as messages arrive (so receipt times are true while the player
    // thinks), and the player gets the newest view.
    let (view_tx, mut views) = tokio::sync::watch::channel(None::<v1::GetViewResponse>);
    let reader = {
        let stats = stats.clone();
        tokio::spawn(async move {
            loop {
                match events.message().await {
                    Ok(Some(m)) => {
                        #[allow(clippy::disallowed_methods)] // The load client measures wall time.
                        let now = Instant::now();
                        stats.note((n, m.version), me, now, false);
                        if let Some(v) = m.view {
                            let _ = view_tx.send(Some(v));
                        }
                    }
                    Ok(None) => return Ok(()),
                    Err(s) => return Err(s),
                }
            }
        })
    };
    let mut rng = bots::BotRng::from_seed(service_kit::time::os_random_32());
    // The views it has acted on need nothing more.
    let mut turns = Turns::default();
    loop {
        if views.changed().await.is_err() {
            // The stream ended: the match is over, or the reader saw an error.
            return reader.await.map_err(|e| tonic::Status::internal(e.to_string()))?;
        }
        let Some(view) = views.borrow_and_update().clone() else { continue };
        if view.outcome.is_some() {
            return Ok(());
        }
        if !turns.owed(&view) {
            continue;
        }
        if think.0 > 0 {
            let (t, j) = think;
            let jitter = if j == 0 { 0 } else { u64::from(rng.below(2 * j as u32 + 1)) };
            tokio::time::sleep(Duration::from_millis(t.saturating_sub(j) + jitter)).await;
        }
        let mv = view.legal_moves[rng.below(view.legal_moves.len() as u32) as usize].clone();
        #[allow(clippy::disallowed_methods)] // The load client measures wall time.
        let t0 = Instant::now();
        let key = format!("load:{}:{}", view.version, uuid::Uuid::new_v4());
        match c.submit(&id, mv, &key).await {
            Ok(r) => {
                if let Some(v1::submit_move_response::Outcome::Accepted(a)) = r.outcome {
                    stats.moves.fetch_add(1, Ordering::Relaxed);
                    stats.note((n, a.version), me, t0, true);
                }
            }
            // The match moved on meanwhile (a deadline): the stream brings the next view.
            Err(s) if s.code() == tonic::Code::FailedPrecondition => {}
            Err(s) => return Err(s),
        }
        turns.acted(view.version);
    }
}

/// A bare tonic unary echo (grpc.health.v1 Check on a server with nothing else), 64
/// calls in flight over one channel, for `seconds`.
async fn echo(seconds: u64) -> Result<serde_json::Value, String> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.map_err(|e| e.to_string())?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    let (health, service) = service_kit::serve::health();
    health.set_service_status("", tonic_health::ServingStatus::Serving).await;
    let stop = tokio_util::sync::CancellationToken::new();
    let server = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let _ = tonic::transport::Server::builder()
                .add_service(service)
                .serve_with_incoming_shutdown(
                    service_kit::serve::incoming(listener),
                    stop.cancelled_owned(),
                )
                .await;
        })
    };
    let channel = tonic::transport::Endpoint::from_shared(format!("http://{addr}"))
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    let count = Arc::new(AtomicU64::new(0));
    let lat = Arc::new(Mutex::new(Vec::new()));
    #[allow(clippy::disallowed_methods)] // The load client measures wall time.
    let start = Instant::now();
    let end = start + Duration::from_secs(seconds);
    let mut tasks = tokio::task::JoinSet::new();
    for _ in 0..64 {
        let mut client = tonic_health::pb::health_client::HealthClient::new(channel.clone());
        let (count, lat) = (count.clone(), lat.clone());
        tasks.spawn(async move {
            let mut mine = Vec::new();
            #[allow(clippy::disallowed_methods)]
            while Instant::now() < end {
                #[allow(clippy::disallowed_methods)]
                let t0 = Instant::now();
                if client
                    .check(tonic_health::pb::HealthCheckRequest { service: String::new() })
                    .await
                    .is_ok()
                {
                    mine.push(t0.elapsed().as_micros() as u64);
                    count.fetch_add(1, Ordering::Relaxed);
                }
            }
            lat.lock().expect("the latency lock").extend(mine);
        });
    }
    while tasks.join_next().await.is_some() {}
    let secs = start.elapsed().as_secs_f64();
    stop.cancel();
    let _ = server.await;
    let mut l = lat.lock().expect("the latency lock").clone();
    l.sort_unstable();
    Ok(json!({
        "requests": count.load(Ordering::Relaxed),
        "requests_per_s": (count.load(Ordering::Relaxed) as f64 / secs).round(),
        "p50_ms": percentile(&l, 0.5),
        "p99_ms": percentile(&l, 0.99),
    }))
}
