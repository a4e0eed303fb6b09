//! `colosseum chaos`: a fault trial of the whole cluster as separate processes. It plays
//! bot-vs-bot matches through the gateway (casual ones, rated ones through the lobby, bulk
//! matches and round robins through the platform API, and matches against the gateway's
//! built-in bots, each played to its end) while kill -9'ing and restarting
//! services (and the archive's PostgreSQL), the engines holding each announcement a while
//! after the final step so kills land in between, then checks every match in Redis, what
//! every consumer of finished matches heard and what the archive holds, and prints one
//! JSON summary (docs/reliability.md).

mod archive;
mod check;
mod consumers;
mod load;
mod procs;

use clap::Args;
use serde_json::json;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

/// Options of `colosseum chaos`.
#[derive(Args, Clone)]
pub struct ChaosArgs {
    /// How long the load runs (and services are killed), in seconds.
    #[arg(long, default_value_t = 60)]
    duration: u64,
    /// Kill a random service every this many seconds.
    #[arg(long, default_value_t = 10)]
    kill_every: u64,
    /// Matches in flight at once (each slot starts a new match when one ends).
    #[arg(long, default_value_t = 40)]
    matches: u64,
    /// Matches against the gateway's built-in bots in flight at once, besides --matches
    /// (each player starts a new one when one ends; 0: none).
    #[arg(long, default_value_t = 4)]
    bot_matches: u64,
    /// Per-move time of the matches, ms.
    #[arg(long, default_value_t = 2000)]
    move_time_ms: u64,
    /// Mean think time before a move, ms (each drawn from 0 to twice this).
    #[arg(long, default_value_t = 20)]
    think_ms: u64,
    /// One move in this many sleeps past its deadline (0: never).
    #[arg(long, default_value_t = 25)]
    late_every: u32,
    /// One submit in this many is sent with a 5 ms deadline (0: never).
    #[arg(long, default_value_t = 20)]
    cancel_every: u32,
    /// A killed service is restarted after this pause, ms.
    #[arg(long, default_value_t = 300)]
    restart_after_ms: u64,
    /// After the load stops, matches run on their deadlines this long before the check, in
    /// seconds (default: three move times).
    #[arg(long)]
    grace: Option<u64>,
    /// How long the engines hold each finished match's announcement after its final step
    /// (the fault hook `COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS`), so engine kills land between
    /// the two; 0: not at all.
    #[arg(long, default_value_t = 1500)]
    announce_delay_ms: u64,
    /// Also kill Redis (restarted on its append-only file).
    #[arg(long)]
    kill_redis: bool,
    /// Kill only these services (comma-separated names as the summary's `kills` has
    /// them: `postgres,match-maker`); default: every one.
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Run without the archive: no PostgreSQL, finished matches stay in Redis. By default
    /// a PostgreSQL is started, the match-maker archives into it, and it is killed and
    /// restarted among the services.
    #[arg(long)]
    no_archive: bool,
    /// Stop services as a rolling update does (SIGTERM, then wait for the drain, at most
    /// 30 s) instead of kill -9.
    #[arg(long)]
    graceful: bool,
    /// Where the rules-engine, clock and gateway binaries are (default: beside this one).
    #[arg(long)]
    bin_dir: Option<PathBuf>,
    /// Seed of the kill schedule (which service, in turn); default random.
    #[arg(long)]
    seed: Option<u64>,
    /// Keep the temporary directory (Redis data, service logs) even when nothing is found.
    #[arg(long)]
    keep_dir: bool,
}

/// One kill of the trial.
struct Kill {
    service: String,
    at: Instant,
    /// The same, wall ms (to set beside the times the store records).
    at_ms: u64,
    /// From the kill to the restarted service answering SERVING (PING for Redis).
    ready: Option<Duration>,
}

/// Runs `colosseum chaos`. Exit 0: nothing lost, duplicated, stuck or unloadable and
/// every killed service came back; 1: something was; 2: the trial could not run.
pub fn run(args: ChaosArgs) -> Result<ExitCode, String> {
    crate::progress::logs_to_stderr("info");
    if args.duration == 0 || args.kill_every == 0 || args.matches == 0 || args.move_time_ms == 0 {
        return Err("--duration, --kill-every, --matches and --move-time-ms must be above 0".into());
    }
    let bin = procs::bin_dir(args.bin_dir.clone())?;
    procs::kill_children_on_panic();
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    let result = rt.block_on(async move {
        tokio::select! {
            r = trial(args, bin) => r,
            s = interrupted() => Err(format!("interrupted by {s}: every service stopped")),
        }
    });
    procs::kill_all();
    result
}

/// Resolves on Ctrl-C or SIGTERM, naming which.
async fn interrupted() -> &'static str {
    let mut term = match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(s) => s,
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
            return "SIGINT";
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => "SIGINT",
        _ = term.recv() => "SIGTERM",
    }
}

#[allow(clippy::disallowed_methods)] // The trial measures wall time.
fn now() -> Instant {
    Instant::now()
}

/// The p50 and max of durations, in ms (null when there are none).
fn p50_max(mut ms: Vec<u64>) -> serde_json::Value {
    if ms.is_empty() {
        return json!({ "p50": null, "max": null });
    }
    ms.sort_unstable();
    json!({ "p50": ms[(ms.len() - 1) / 2], "max": ms[ms.len() - 1] })
}

/// How long the matches against the bots may take to end once the load stops.
const BOT_MATCHES_DRAIN: Duration = Duration::from_secs(120);

/// How long after a gateway's kill a bot's missed deadline is put down to it: the kill to
/// the restarted gateway ready, then the bot runner's lease running out (3 s) and the next
/// holder's renewal and first pass (1 s), then a move time the bot's seat had then.
fn after_gateway_kill(kills: &[Kill], ended_at_ms: u64, move_time_ms: u64) -> bool {
    kills.iter().filter(|k| k.service == "gateway").any(|k| {
        let outage = k.ready.map_or(30_000, |d| d.as_millis() as u64) + 3_000 + 1_000;
        (k.at_ms..=k.at_ms + outage + move_time_ms).contains(&ended_at_ms)
    })
}

/// The matches against the built-in bots, as the summary reports them.
#[derive(serde::Serialize)]
struct BotMatches {
    /// Matches against a bot.
    matches: u64,
    /// Of which finished.
    finished: u64,
    /// Not finished (each a finding `bot_unfinished`).
    unfinished: u64,
    /// Stuck or unloadable (also counted in the trial's `stuck` and `unloadable`).
    stuck: u64,
    unloadable: u64,
    /// By game.
    by_game: BTreeMap<&'static str, u64>,
    /// How they ended: `completed`, `missed_deadline`... (the bot's seat's misses apart).
    by_reason: BTreeMap<String, u64>,
    /// Ended because the bot's seat missed its deadline: a bot that stopped playing.
    bot_missed_deadline: u64,
    /// Of those, how many ended within a gateway's kill's outage and a move time after
    /// it (the runner lives in the gateway: its lease must run out first).
    bot_missed_deadline_after_gateway_kill: u64,
    /// The others (at most 10).
    bot_missed_deadline_unexplained: Vec<String>,
}

impl BotMatches {
    /// A bot match that did not finish, none at all when some were asked for, or a bot that
    /// missed a deadline with no gateway kill to explain it. (Stuck and unloadable fail
    /// the trial already.)
    fn bad(&self, asked: u64) -> bool {
        self.unfinished > 0
            || (asked > 0 && self.matches == 0)
            || self.bot_missed_deadline > self.bot_missed_deadline_after_gateway_kill
    }
}

fn bot_matches(verdicts: &[check::Verdict], kills: &[Kill]) -> BotMatches {
    let mut out = BotMatches {
        matches: 0,
        finished: 0,
        unfinished: 0,
        stuck: 0,
        unloadable: 0,
        by_game: BTreeMap::new(),
        by_reason: BTreeMap::new(),
        bot_missed_deadline: 0,
        bot_missed_deadline_after_gateway_kill: 0,
        bot_missed_deadline_unexplained: Vec::new(),
    };
    for v in verdicts {
        let Some(bot_seat) = v.bot_seat else { continue };
        out.matches += 1;
        out.finished += u64::from(v.finished);
        out.unfinished += u64::from(v.bot_unfinished);
        out.stuck += u64::from(v.stuck);
        out.unloadable += u64::from(v.unloadable);
        *out.by_game.entry(v.game).or_default() += 1;
        let Some(outcome) = v.outcome else { continue };
        let bot_missed = outcome.reason == rules_core::EndReason::MissedDeadline
            && outcome.winner.is_none_or(|w| w.index() as u32 != bot_seat);
        let reason = serde_json::to_value(outcome.reason)
            .ok()
            .and_then(|r| r.as_str().map(str::to_string))
            .unwrap_or_default();
        let reason = if bot_missed { format!("{reason}_by_bot") } else { reason };
        *out.by_reason.entry(reason).or_default() += 1;
        if bot_missed {
            out.bot_missed_deadline += 1;
            let ended = v.last_at_ms.unwrap_or(0);
            if after_gateway_kill(kills, ended, v.move_time_ms) {
                out.bot_missed_deadline_after_gateway_kill += 1;
            } else if out.bot_missed_deadline_unexplained.len() < 10 {
                out.bot_missed_deadline_unexplained.push(v.match_id.clone());
            }
        }
    }
    out
}

async fn trial(args: ChaosArgs, bin: PathBuf) -> Result<ExitCode, String> {
    let mut pg = if args.no_archive { None } else { Some(archive::start().await?) };
    let archive_url = pg.as_ref().map(|p| p.url());
    let cluster = procs::Cluster::plan(&bin, args.announce_delay_ms, archive_url.as_deref())?;
    tracing::info!(dir = %cluster.dir.display(), "data and service logs");
    for s in cluster.services.clone() {
        cluster.start(&s.name)?;
        if cluster.wait_ready(&s.name, Duration::from_secs(30)).await.is_none() {
            return Err(format!(
                "{} did not become ready; see {}",
                s.name,
                cluster.dir.join(format!("{}.log", s.name)).display()
            ));
        }
    }
    let gateway = cluster.service("gateway").url();
    tracing::info!(%gateway, redis = %cluster.redis_url, "cluster up");
    let endpoint = tonic::transport::Endpoint::from_shared(gateway.clone())
        .map_err(|e| e.to_string())?
        .connect_timeout(Duration::from_millis(500));
    let channels: Vec<_> = (0..4).map(|_| endpoint.connect_lazy()).collect();
    let behaviour = load::Behaviour {
        slots: args.matches,
        move_time_ms: args.move_time_ms,
        think_ms: args.think_ms,
        late_every: args.late_every,
        cancel_every: args.cancel_every,
        play_on: false,
    };
    let shared = load::Shared::new();
    let started = now();
    let tournaments_url = cluster.service("tournaments").url();
    let tenant = Arc::new(consumers::tenant(&tournaments_url, &cluster.token, &gateway).await?);
    let made = Arc::new(consumers::Made::default());
    let consumers_task = tokio::spawn(consumers::run(
        gateway.clone(),
        channels[0].clone(),
        tenant.clone(),
        behaviour,
        shared.clone(),
        made.clone(),
    ));
    let bots_task = tokio::spawn(load::run_bots(
        channels[1].clone(),
        args.bot_matches,
        behaviour,
        shared.clone(),
    ));
    let load_task = tokio::spawn(load::run(channels, behaviour, shared.clone()));

    let mut targets: Vec<String> =
        vec!["gateway".into(), "clock".into(), "match-maker".into(), "tournaments".into()];
    targets.extend(games::Family::ALL.iter().map(|f| format!("engine-{f}")));
    if args.kill_redis {
        targets.push("redis".into());
    }
    if pg.is_some() {
        targets.push("postgres".into());
    }
    if !args.only.is_empty() {
        if let Some(unknown) = args.only.iter().find(|o| !targets.contains(o)) {
            return Err(format!(
                "--only {unknown}: no such service (one of {})",
                targets.join(", ")
            ));
        }
        targets.retain(|t| args.only.contains(t));
    }
    let mut rng = bots::BotRng::from_seed(match args.seed {
        Some(s) => {
            let mut b = [0u8; 32];
            b[..8].copy_from_slice(&s.to_le_bytes());
            b
        }
        None => service_kit::time::os_random_32(),
    });
    let end = started + Duration::from_secs(args.duration);
    let mut next_kill = started + Duration::from_secs(args.kill_every);
    let mut next_progress = started + Duration::from_secs(3);
    let mut kills: Vec<Kill> = Vec::new();
    let mut crashed: BTreeMap<String, u64> = BTreeMap::new();
    loop {
        let wake = next_kill.min(next_progress).min(end);
        tokio::time::sleep_until(wake.into()).await;
        let t = now();
        if t >= next_progress || t >= end {
            for (name, status) in cluster.exited() {
                tracing::warn!(service = %name, %status, "exited on its own: restarting");
                *crashed.entry(name.clone()).or_default() += 1;
                cluster.start(&name)?;
            }
            tracing::info!(
                elapsed_s = started.elapsed().as_secs(),
                matches = shared.created(),
                finished = shared.finished.load(Ordering::Relaxed),
                acked = shared.acked(),
                kills = kills.len(),
                errors = shared.errors.lock().expect("the errors lock").values().sum::<u64>(),
                "progress"
            );
            next_progress = t + Duration::from_secs(3);
        }
        if t >= end {
            break;
        }
        if t >= next_kill {
            // Every other kill is an engine's: with announcements held after each final
            // step, each lands between the final steps and announcements of the matches
            // of its family that just ended.
            let engines: Vec<&String> =
                targets.iter().filter(|t| t.starts_with("engine-")).collect();
            let pool: Vec<&String> = if kills.len().is_multiple_of(2) && !engines.is_empty() {
                engines
            } else {
                targets.iter().collect()
            };
            let target = pool[rng.below(pool.len() as u32) as usize].clone();
            let (at, at_ms) = (now(), service_kit::time::now_ms());
            if target == "postgres"
                && let Some(db) = pg.take()
            {
                let pause = Duration::from_millis(args.restart_after_ms);
                let (db, back) = archive::crash_and_restart(db, pause).await;
                pg = Some(db);
                let ready = back.then(|| at.elapsed());
                tracing::info!(service = %target, back, "killed (SIGQUIT) and restarted");
                kills.push(Kill { service: target, at, at_ms, ready });
                next_kill += Duration::from_secs(args.kill_every);
                next_kill = next_kill.max(now() + Duration::from_secs(1));
                continue;
            }
            if args.graceful {
                cluster.terminate(&target, Duration::from_secs(30)).await;
            } else {
                cluster.kill(&target);
            }
            tokio::time::sleep(Duration::from_millis(args.restart_after_ms)).await;
            cluster.start(&target)?;
            let ready =
                cluster.wait_ready(&target, Duration::from_secs(30)).await.map(|_| at.elapsed());
            match ready {
                Some(d) => {
                    tracing::info!(service = %target, recovery_ms = d.as_millis() as u64, "back")
                }
                None => tracing::error!(service = %target, "did not come back within 30 s"),
            }
            kills.push(Kill { service: target, at, at_ms, ready });
            next_kill += Duration::from_secs(args.kill_every);
            // A slow recovery must not make kills pile up.
            next_kill = next_kill.max(now() + Duration::from_secs(1));
        }
    }
    let load_s = started.elapsed().as_secs_f64();
    shared.stop.cancel();
    tracing::info!("load stopped");
    let mut load_task = load_task;
    if tokio::time::timeout(Duration::from_secs(15), &mut load_task).await.is_err() {
        load_task.abort();
    }
    // The matches against the bots are played to their end (no more kills come).
    let mut bots_task = bots_task;
    if tokio::time::timeout(BOT_MATCHES_DRAIN, &mut bots_task).await.is_err() {
        tracing::warn!(
            drain_s = BOT_MATCHES_DRAIN.as_secs(),
            "matches against the bots still running: the check will say which"
        );
        bots_task.abort();
    }
    let mut consumers_task = consumers_task;
    if tokio::time::timeout(Duration::from_secs(15), &mut consumers_task).await.is_err() {
        consumers_task.abort();
    }
    let grace = args.grace.unwrap_or((3 * args.move_time_ms).div_ceil(1000));
    tracing::info!(grace_s = grace, "grace period: matches run on their deadlines");
    tokio::time::sleep(Duration::from_secs(grace)).await;
    for (name, status) in cluster.exited() {
        tracing::warn!(service = %name, %status, "exited on its own: restarting for the check");
        *crashed.entry(name.clone()).or_default() += 1;
        cluster.start(&name)?;
        cluster.wait_ready(&name, Duration::from_secs(30)).await;
    }

    // The check.
    tracing::info!(matches = shared.created(), "checking every match in Redis");
    let store =
        Arc::new(store::RedisStore::connect(&cluster.redis_url).await.map_err(|e| e.to_string())?);
    let checker = {
        let mut attempt = 0;
        loop {
            match client::Client::guest(&gateway, "chaos-checker").await {
                Ok(c) => break c,
                Err(client::Error::Api(s)) if attempt < 20 => {
                    attempt += 1;
                    tracing::debug!(code = load::code_name(s.code()), "checker session: retrying");
                    tokio::time::sleep(Duration::from_millis(250)).await;
                }
                Err(client::Error::Api(s)) => {
                    return Err(format!("no checker session: {}", load::code_name(s.code())));
                }
                Err(e) => return Err(format!("no checker session: {e}")),
            }
        }
    };
    let tracked = shared.matches.lock().expect("the matches lock").clone();
    let acks = shared.acks.lock().expect("the acks lock").clone();
    let mut by_match: BTreeMap<String, Vec<load::Ack>> = BTreeMap::new();
    for a in &acks {
        by_match.entry(a.match_id.clone()).or_default().push(a.clone());
    }
    let limit = Arc::new(tokio::sync::Semaphore::new(8));
    let mut checks = tokio::task::JoinSet::new();
    for (id, t) in tracked {
        let (store, checker, limit) = (store.clone(), checker.clone(), limit.clone());
        let mine = by_match.remove(&id).unwrap_or_default();
        checks.spawn(async move {
            let _permit = limit.acquire_owned().await;
            let now_ms = service_kit::time::now_ms();
            check::check(&*store, &checker, &id, &t, &mine, now_ms).await
        });
    }
    let mut verdicts = Vec::new();
    while let Some(v) = checks.join_next().await {
        verdicts.push(v.map_err(|e| format!("a check failed: {e}"))?);
    }
    // What the consumers of finished matches heard: the ratings, bulk matches, tournaments.
    tracing::info!("checking the ratings, bulk matches and tournaments");
    let mut heard =
        consumers::check(&*store, &checker, &tenant.platform, &made, Duration::from_secs(30)).await;
    heard.announcements_repaired = std::fs::read_to_string(cluster.dir.join("tournaments.log"))
        .map(|log| consumers::repaired_in_log(&log))
        .unwrap_or(0);

    // The archive: every finished match in it once, none let go from Redis before.
    let archived = match &pg {
        Some(db) => {
            tracing::info!("checking the archive");
            let finished: Vec<String> =
                verdicts.iter().filter(|v| v.finished).map(|v| v.match_id.clone()).collect();
            let window = match_maker::archiver::DEFAULT_RELEASE_AFTER_MS;
            Some(archive::check(db, &cluster.redis_url, &checker, &finished, window).await?)
        }
        None => None,
    };

    // The summary.
    let count = |f: &dyn Fn(&check::Verdict) -> u64| verdicts.iter().map(f).sum::<u64>();
    let lost = count(&|v| v.lost);
    let duplicated = count(&|v| v.duplicated);
    let stuck = count(&|v| u64::from(v.stuck));
    let unloadable = count(&|v| u64::from(v.unloadable));
    let mut kills_by: BTreeMap<String, u64> = BTreeMap::new();
    let mut kill_log = Vec::new();
    let mut first_acks = Vec::new();
    for k in &kills {
        *kills_by.entry(k.service.clone()).or_default() += 1;
        // The first move acknowledged of those sent after the kill, in a match the service
        // serves (a reply already on its way when the kill came does not count).
        // An engine's service is named for its family (`engine-goofspiel`).
        let family = k.service.strip_prefix("engine-").map(games::Family::parse);
        // Only the gateway, Redis and the engines are on a move's path.
        let first = (matches!(k.service.as_str(), "gateway" | "redis") || family.is_some())
            .then(|| {
                acks.iter()
                    .filter(|a| a.sent > k.at && family.is_none_or(|f| f == Some(a.family)))
                    .map(|a| a.at.duration_since(k.at).as_millis() as u64)
                    .min()
            })
            .flatten();
        first_acks.extend(first);
        kill_log.push(json!({
            "service": k.service,
            "at_s": (k.at.duration_since(started).as_secs_f64() * 10.0).round() / 10.0,
            "ready_ms": k.ready.map(|d| d.as_millis() as u64),
            "first_ack_ms": first,
        }));
    }
    let unrecovered = kills.iter().filter(|k| k.ready.is_none()).count();
    let mut findings: Vec<&check::Finding> = verdicts.iter().flat_map(|v| &v.findings).collect();
    findings.sort_by(|a, b| (a.kind, &a.match_id).cmp(&(b.kind, &b.match_id)));
    let mut by_kind_game: BTreeMap<String, u64> = BTreeMap::new();
    for f in &findings {
        *by_kind_game.entry(format!("{}:{}", f.kind, f.game)).or_default() += 1;
    }
    let vs_bots = bot_matches(&verdicts, &kills);
    let bad = lost + duplicated + stuck + unloadable > 0
        || unrecovered > 0
        || heard.bad()
        || vs_bots.bad(args.bot_matches)
        || archived.as_ref().is_some_and(archive::Archived::bad);
    let keep = bad || args.keep_dir;
    let summary = json!({
        "duration_s": (load_s * 10.0).round() / 10.0,
        "kills": kills_by,
        "stop": if args.graceful { "SIGTERM (drain)" } else { "SIGKILL" },
        "matches": verdicts.len(),
        "finished": count(&|v| u64::from(v.finished)),
        "acked": count(&|v| v.acked),
        "acks_answered_duplicate": acks.iter().filter(|a| a.duplicate).count(),
        "lost": lost,
        "duplicated": duplicated,
        "stuck": stuck,
        "unloadable": unloadable,
        "consumers": heard,
        "bot_matches": vs_bots,
        "archive": archived,
        "announce_delay_ms": args.announce_delay_ms,
        "recovery_ms": p50_max(kills.iter().filter_map(|k| k.ready).map(|d| d.as_millis() as u64).collect()),
        "first_ack_after_kill_ms": p50_max(first_acks),
        "errors_by_code": *shared.errors.lock().expect("the errors lock"),
        "unrecovered": unrecovered,
        "crashed": crashed,
        "unseated": count(&|v| u64::from(!v.seated)),
        "short_deadline_submits": shared.short_submits.load(Ordering::Relaxed),
        "late_moves": shared.late_moves.load(Ordering::Relaxed),
        "resyncs": shared.resyncs.load(Ordering::Relaxed),
        "players_stalled": {
            "watch_behind": shared.stalled_watch_behind.load(Ordering::Relaxed),
            "match_still": shared.stalled_match_still.load(Ordering::Relaxed),
        },
        "findings_by_kind_and_game": by_kind_game,
        "findings": findings.iter().take(20).collect::<Vec<_>>(),
        "kill_log": kill_log,
        "dir": keep.then(|| cluster.dir.display().to_string()),
    });
    println!("{summary}");
    let dir = cluster.dir.clone();
    drop(cluster);
    if keep {
        eprintln!("colosseum chaos: Redis data and service logs kept in {}", dir.display());
    } else {
        let _ = std::fs::remove_dir_all(&dir);
    }
    Ok(if bad { ExitCode::from(1) } else { ExitCode::SUCCESS })
}
