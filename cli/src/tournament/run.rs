//! `colosseum tournament run`: a tournament through the platform API as a platform runs
//! one: guest players for every seat, CreateTournament, each round started when the last
//! ends, every match played by random-move bots through the public API (each bot's
//! matches on its one Play stream), followed on the
//! tournament's results stream (with a progress bar); then the standings table (a
//! knockout: its bracket, round by round, and the winner), and a check that they agree with
//! every match's record (each record verified by replay).

use api::v1;
use clap::Args;
use client::platform::Platform;
use client::{Client, Cursor, Play, Turns};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::process::ExitCode;
use std::time::Duration;

/// Options of `colosseum tournament run`. A file gives the tournament; flags override it.
#[derive(Args)]
pub struct RunArgs {
    /// The tournament as TOML or JSON (name, game, options, move_time_ms, format, rounds,
    /// players, duration_ms, knockout_draw, round_gap_ms, public).
    #[arg(long)]
    file: Option<std::path::PathBuf>,
    /// The gateway.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    url: String,
    /// The tenant's API key (or COLOSSEUM_API_KEY); without one, a tenant and key are made
    /// through the tenant admin file `colosseum run` wrote for the gateway at --url.
    #[arg(long)]
    key: Option<String>,
    /// swiss, round-robin, double-round-robin, knockout or arena.
    #[arg(long)]
    format: Option<String>,
    /// Players (bots), one per seat.
    #[arg(long)]
    players: Option<u32>,
    /// Swiss rounds.
    #[arg(long)]
    rounds: Option<u32>,
    /// The game.
    #[arg(long)]
    game: Option<String>,
    /// The game's options as JSON.
    #[arg(long)]
    options: Option<String>,
    /// An arena's length, ms.
    #[arg(long)]
    duration_ms: Option<u64>,
    /// Print the export as JSON instead of the table (a knockout: the bracket).
    #[arg(long)]
    json: bool,
    /// Also print a JSON line of figures: matches, wall time, and the standings lag (a
    /// match's end to its result in the standings, and to this client receiving it).
    #[arg(long)]
    stats: bool,
    /// Give the tournament a public page (anyone with its id reads it, live, with no key)
    /// and print its address on the gateway.
    #[arg(long)]
    public: bool,
}

/// HTTP/2 connections the bots share.
const CONNECTIONS: usize = 16;

/// The file's shape (every field optional; flags win).
#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Config {
    name: Option<String>,
    game: Option<String>,
    options: Option<String>,
    move_time_ms: Option<u64>,
    format: Option<String>,
    rounds: Option<u32>,
    players: Option<u32>,
    duration_ms: Option<u64>,
    knockout_draw: Option<String>,
    round_gap_ms: Option<u64>,
    public: Option<bool>,
}

fn config(args: &RunArgs) -> Result<Config, String> {
    let Some(path) = &args.file else { return Ok(Config::default()) };
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let is_json =
        path.extension().is_some_and(|e| e == "json") || text.trim_start().starts_with('{');
    if is_json {
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    } else {
        toml::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
    }
}

/// Where a browser opens tournament `tid`'s public page: the web client at the gateway's
/// address, on its route `/tournaments/<id>`.
fn page_url(gateway: &str, tid: &str) -> String {
    format!("{}/#/tournaments/{tid}", gateway.trim_end_matches('/'))
}

/// A key of a new tenant, through the admin file `colosseum run` wrote for `gateway`.
async fn new_key(gateway: &str) -> Result<String, String> {
    let out = |args: &[&str]| -> Result<String, String> {
        let exe = std::env::current_exe().map_err(|e| e.to_string())?;
        let o = std::process::Command::new(exe).args(args).output().map_err(|e| e.to_string())?;
        if !o.status.success() {
            return Err(String::from_utf8_lossy(&o.stderr).trim().to_string());
        }
        Ok(String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let tenant =
        out(&["tenant", "--gateway", gateway, "create", "--name", "colosseum tournament run"])?;
    out(&[
        "tenant",
        "--gateway",
        gateway,
        "key",
        "create",
        "--tenant",
        &tenant,
        "--label",
        "tournament run",
    ])
}

fn fail(s: tonic::Status) -> String {
    format!("{}: {}", service_kit::status::code_name(s.code()), s.message())
}

/// Runs it.
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(run_async(args))
}

async fn run_async(args: RunArgs) -> Result<ExitCode, String> {
    let c = config(&args)?;
    let format_name = args.format.clone().or(c.format).unwrap_or_else(|| "swiss".into());
    let n = args.players.or(c.players).unwrap_or(16);
    let rounds = args.rounds.or(c.rounds).unwrap_or(5);
    let duration_ms = args.duration_ms.or(c.duration_ms).unwrap_or(60_000);
    let game = args.game.clone().or(c.game).unwrap_or_else(|| "gops".into());
    let options = args.options.clone().or(c.options).unwrap_or_default();
    let higher_seed = c.knockout_draw.as_deref() == Some("higher-seed");
    let public_page = args.public || c.public.unwrap_or(false);
    let words = tournament_rules::Words { name: &format_name, rounds, duration_ms, higher_seed };
    let chosen = tournament_rules::Format::from_words(&words)?;
    let format = chosen.to_proto();
    let key = match args.key.clone().or_else(|| std::env::var("COLOSSEUM_API_KEY").ok()) {
        Some(k) => k,
        None => new_key(&args.url)
            .await
            .map_err(|e| format!("no --key, and no tenant could be made: {e}"))?,
    };
    let p = Platform::connect(&args.url, &key).map_err(|e| e.to_string())?;
    eprintln!("{n} bots join...");
    // A few HTTP/2 connections shared by every bot, as a fleet behind a few proxies would
    // be: a connection each would measure the kernel (and run out of file descriptors).
    let endpoint =
        tonic::transport::Endpoint::from_shared(args.url.clone()).map_err(|e| e.to_string())?;
    let channels: Vec<tonic::transport::Channel> =
        (0..CONNECTIONS).map(|_| endpoint.connect_lazy()).collect();
    // Each bot plays all its matches (a round's, an arena's overlapping ones) on one Play
    // stream, as a client with a game socket would.
    let mut players = BTreeMap::new();
    for i in 0..n {
        let channel = channels[i as usize % channels.len()].clone();
        let c =
            Client::guest_on(channel, &format!("bot{i:03}")).await.map_err(|e| e.to_string())?;
        let play = c.play().await.map_err(fail)?;
        players.insert(c.player_id().to_string(), play);
    }
    let entrants = players
        .keys()
        .enumerate()
        .map(|(i, id)| v1::Entrant {
            player_id: id.clone(),
            seed_rating: Some(2000.0 - f64::from(i as u32)),
            name: format!("bot{i:03}"),
        })
        .collect();
    let t = p
        .api()
        .create_tournament(p.request(v1::CreateTournamentRequest {
            idempotency_key: format!("run-{}", uuid::Uuid::new_v4()),
            name: c.name.unwrap_or_else(|| format!("{format_name} of {n} bots")),
            format: Some(format),
            game: Some(v1::GameSpec {
                game: game.clone(),
                options_json: options,
                move_time_ms: c.move_time_ms.unwrap_or(0),
            }),
            entrants,
            round_gap_ms: c.round_gap_ms.unwrap_or(0),
            public_page,
        }))
        .await
        .map_err(fail)?
        .into_inner()
        .tournament
        .ok_or("no tournament answered")?;
    let tid = t.tournament_id.clone();
    eprintln!("tournament {tid}: {} rounds, {} players", t.rounds, t.players);
    if public_page {
        // The web client the gateway serves routes by the fragment.
        eprintln!("public page: {}", page_url(&args.url, &tid));
    }
    // The format's planned games: a guide (replays and arenas aside).
    let bar = crate::progress::bar(
        chosen.rules().planned_games(n as usize),
        "round {msg} {bar:40} {pos}/{len} matches, {elapsed}",
        "matches",
    );
    let mut watch = p
        .api()
        .watch_results(
            p.request(v1::WatchResultsRequest { tournament_id: tid.clone(), after_sequence: 0 }),
        )
        .await
        .map_err(fail)?
        .into_inner();
    start_round(&p, &tid, 1).await?;
    let mut round = 1;
    bar.set_message("1");
    let mut bots = tokio::task::JoinSet::new();
    let (mut applied_ms, mut received_ms) = (Vec::new(), Vec::new());
    let (mut last_seq, mut resumed) = (0u64, 0u32);
    // Each round's byes, for a knockout's bracket (the export lists only matches).
    let mut byes: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    #[allow(clippy::disallowed_methods)] // The CLI measures wall time.
    let started = std::time::Instant::now();
    loop {
        let e = match tokio::time::timeout(Duration::from_secs(600), watch.message()).await {
            Ok(Ok(Some(e))) => e,
            // The stream broke (a connection reset, a backend restarting): resumed after
            // the last event received, as the API says, so nothing is missed or repeated.
            Ok(Err(s)) if retryable(&s) && resumed < SEAT_RETRIES => {
                resumed += 1;
                tokio::time::sleep(Duration::from_millis(200)).await;
                let req = v1::WatchResultsRequest {
                    tournament_id: tid.clone(),
                    after_sequence: last_seq,
                };
                watch = p.api().watch_results(p.request(req)).await.map_err(fail)?.into_inner();
                continue;
            }
            Ok(Ok(None)) => return Err("the results stream ended".into()),
            Ok(Err(s)) => return Err(fail(s)),
            Err(_) => return Err("no result for 10 minutes".into()),
        };
        last_seq = e.sequence;
        use v1::watch_results_response::Event;
        match e.event {
            Some(Event::MatchStarted(m)) => {
                let m = m.r#match.ok_or("a start without its match")?;
                for seat in [&m.seat0_player_id, &m.seat1_player_id] {
                    let c = players
                        .get(seat)
                        .ok_or("a match of a player not in the tournament")?
                        .clone();
                    bots.spawn(play_seat(c, m.match_id.clone()));
                }
            }
            Some(Event::RoundPaired(r)) => {
                byes.insert(r.round, r.bye_player_ids);
            }
            Some(Event::MatchFinished(m)) => {
                bar.inc(1);
                if let Some(r) = m.r#match.and_then(|m| m.result) {
                    // In the standings when the stream appended the result (the same
                    // step); here when this client received it.
                    applied_ms.push(e.at_ms.saturating_sub(r.finished_at_ms));
                    received_ms.push(service_kit::time::now_ms().saturating_sub(r.finished_at_ms));
                }
            }
            Some(Event::StateChanged(s))
                if s.state == v1::TournamentState::BetweenRounds as i32 =>
            {
                round += 1;
                bar.set_message(round.to_string());
                start_round(&p, &tid, round).await?;
            }
            Some(Event::StateChanged(s)) if s.state == v1::TournamentState::Finished as i32 => {
                break;
            }
            _ => {}
        }
        while let Some(done) = bots.try_join_next() {
            done.map_err(|e| e.to_string())??;
        }
    }
    bar.finish_and_clear();
    while let Some(done) = bots.join_next().await {
        done.map_err(|e| e.to_string())??;
    }
    // The lag figures first: they are the run's measurement, and the checks after can
    // take a while on a long arena.
    if args.stats {
        let pct = |xs: &mut Vec<u64>, p: f64| -> u64 {
            xs.sort_unstable();
            xs.get(((xs.len().max(1) - 1) as f64 * p).round() as usize).copied().unwrap_or(0)
        };
        let stats = serde_json::json!({
            "format": format_name,
            "players": n,
            "matches": applied_ms.len(),
            "seconds": started.elapsed().as_secs_f64(),
            "standings_lag_ms": {
                "p50": pct(&mut applied_ms, 0.5),
                "p99": pct(&mut applied_ms, 0.99),
                "max": pct(&mut applied_ms, 1.0),
            },
            "received_lag_ms": {
                "p50": pct(&mut received_ms, 0.5),
                "p99": pct(&mut received_ms, 0.99),
                "max": pct(&mut received_ms, 1.0),
            },
        });
        println!("{stats}");
    }
    let (json, text) = export(&p, &tid).await?;
    eprintln!(
        "checking {} match records by replay",
        json["matches"].as_array().map_or(0, Vec::len)
    );
    let checked = check_against_records(&p, &json).await?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&json).map_err(|e| e.to_string())?);
    } else if format_name == "knockout" {
        for line in super::bracket::bracket_lines(&knockout(&p, &tid, &json, byes).await?) {
            println!("{line}");
        }
    } else {
        print!("{text}");
    }
    eprintln!("{checked} match records verified by replay; the standings agree with them");
    Ok(ExitCode::SUCCESS)
}

/// A finished knockout as the bracket draws it: the export's matches, each entrant's round
/// reached (GetStandings), the byes the results stream listed.
async fn knockout(
    p: &Platform,
    tid: &str,
    export: &serde_json::Value,
    byes: BTreeMap<u32, Vec<String>>,
) -> Result<super::bracket::Knockout, String> {
    use super::bracket::{Entrant, Game, GameResult, Knockout};
    let standings = retrying(|| {
        let (mut api, req) =
            (p.api(), p.request(v1::GetStandingsRequest { tournament_id: tid.to_string() }));
        async move { api.get_standings(req).await }
    })
    .await?
    .into_inner()
    .standings;
    let t = &export["tournament"];
    let text = |v: &serde_json::Value| v.as_str().unwrap_or_default().to_string();
    Ok(Knockout {
        title: format!("{} ({})", text(&t["name"]), text(&t["game"])),
        rounds: t["rounds"].as_u64().unwrap_or(0) as u32,
        entrants: standings
            .into_iter()
            .map(|s| (s.player_id, Entrant { name: s.name, reached_round: s.reached_round }))
            .collect(),
        games: export["matches"]
            .as_array()
            .ok_or("an export without matches")?
            .iter()
            .map(|m| Game {
                round: m["round"].as_u64().unwrap_or(0) as u32,
                seat0: text(&m["seat0"]),
                seat1: text(&m["seat1"]),
                result: GameResult::parse(m["result"].as_str().unwrap_or_default()),
            })
            .collect(),
        byes,
    })
}

async fn start_round(p: &Platform, tid: &str, round: u32) -> Result<(), String> {
    p.api()
        .start_round(p.request(v1::StartRoundRequest { tournament_id: tid.to_string(), round }))
        .await
        .map_err(fail)?;
    Ok(())
}

/// One seat of one match: random legal moves until the end, driven by the match's watch
/// on the bot's Play stream (views included), so a move costs one submit. The Play
/// reopens a broken stream and resumes its watches itself; a submit it could not answer
/// (UNAVAILABLE: the stream broke first) or a watch that failed in transport is retried,
/// as the API's retry contract says: the watch again from the start (the views it acted on
/// are remembered), the submit with the same key.
async fn play_seat(c: Play, id: String) -> Result<(), String> {
    let mut rng = bots::BotRng::from_seed(service_kit::time::os_random_32());
    let mut turns = Turns::default();
    let mut failures = 0;
    loop {
        match seat_until_over(&c, &id, &mut rng, &mut turns).await {
            Ok(()) => return Ok(()),
            Err(s) if retryable(&s) && failures < SEAT_RETRIES => {
                failures += 1;
                tokio::time::sleep(Duration::from_millis(100 << failures.min(5))).await;
            }
            Err(s) => return Err(format!("match {id}: {}", fail(s))),
        }
    }
}

/// A read retried on a transport failure (a connection reset under load), as the API's
/// retry contract says, up to [`SEAT_RETRIES`] times.
async fn retrying<T, F, Fut>(call: F) -> Result<T, String>
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    let mut failures = 0;
    loop {
        match call().await {
            Ok(t) => return Ok(t),
            Err(s) if retryable(&s) && failures < SEAT_RETRIES => {
                failures += 1;
                tokio::time::sleep(Duration::from_millis(100 << failures.min(5))).await;
            }
            Err(s) => return Err(fail(s)),
        }
    }
}

/// How many times a seat's watch or submit is retried before the run gives up on it.
const SEAT_RETRIES: u32 = 20;

fn retryable(s: &tonic::Status) -> bool {
    use tonic::Code;
    service_kit::status::is_transport_failure(s)
        || matches!(
            s.code(),
            Code::Unavailable
                | Code::Aborted
                | Code::DeadlineExceeded
                | Code::Cancelled
                | Code::ResourceExhausted
                | Code::Unknown
        )
}

async fn seat_until_over(
    c: &Play,
    id: &str,
    rng: &mut bots::BotRng,
    turns: &mut Turns,
) -> Result<(), tonic::Status> {
    let mut events = c.watch(id, Cursor::START, true).await?;
    while let Some(m) = events.message().await? {
        let Some(view) = m.view else { continue };
        if view.outcome.is_some() {
            // Read to the watch's end (the gateway ends it after the last event), so the
            // feed is not dropped early: that would unwatch a match that is over anyway.
            while events.message().await?.is_some() {}
            return Ok(());
        }
        if !turns.owed(&view) || view.legal_moves.is_empty() {
            continue;
        }
        let mv = view.legal_moves[rng.below(view.legal_moves.len() as u32) as usize].clone();
        let key = format!("bot:{id}:{}", view.version);
        match c.submit(id, Some(mv), &key).await {
            Ok(_) => {}
            // The match moved on meanwhile (a deadline), or this key's move was made with
            // another choice before a retry: the stream brings the next view.
            Err(s)
                if matches!(
                    s.code(),
                    tonic::Code::FailedPrecondition | tonic::Code::AlreadyExists
                ) => {}
            Err(s) => return Err(s),
        }
        turns.acted(view.version);
    }
    Ok(())
}

/// Checks the export against every match's record: each record replays (its seed
/// commitment, events and result check out), its result is the export's, and each
/// player's points recomputed from the records are the standings'. Answers how many.
/// The tournament's whole export, page after page: one JSON document (the pages' standings
/// and matches concatenated) and the text table.
async fn export(p: &Platform, tid: &str) -> Result<(serde_json::Value, String), String> {
    let (mut whole, mut text, mut token) = (serde_json::Value::Null, String::new(), String::new());
    loop {
        let page = retrying(|| {
            let (mut api, req) = (
                p.api(),
                p.request(v1::ExportTournamentRequest {
                    tournament_id: tid.to_string(),
                    page_token: token.clone(),
                    page_size: 0,
                }),
            );
            async move { api.export_tournament(req).await }
        })
        .await?
        .into_inner();
        let json: serde_json::Value =
            serde_json::from_str(&page.json).map_err(|e| e.to_string())?;
        text.push_str(&page.text);
        if whole.is_null() {
            whole = json;
        } else {
            for part in ["standings", "matches"] {
                let more = json[part].as_array().cloned().unwrap_or_default();
                whole[part].as_array_mut().ok_or("a page without its arrays")?.extend(more);
            }
        }
        if page.next_page_token.is_empty() {
            return Ok((whole, text));
        }
        token = page.next_page_token;
    }
}

/// Checks every match of the export against its record, replayed (a few at once), and the
/// standings' points against the records' results; answers how many matches it checked.
async fn check_against_records(p: &Platform, export: &serde_json::Value) -> Result<usize, String> {
    use futures_util::{StreamExt, TryStreamExt};
    let matches = export["matches"].as_array().ok_or("an export without matches")?;
    let winners: Vec<Option<u64>> = futures_util::stream::iter(matches)
        .map(|m| async move {
            let id = m["match_id"].as_str().ok_or("a match without its id")?;
            let record = retrying(|| {
                let (mut api, req) =
                    (p.api(), p.request(v1::GetTenantMatchRecordRequest { match_id: id.into() }));
                async move { api.get_tenant_match_record(req).await }
            })
            .await?
            .into_inner()
            .record_json;
            let r = games::Record::parse(&record).map_err(|e| format!("match {id}: {e:?}"))?;
            r.verify().map_err(|e| format!("match {id} does not replay: {e:?}"))?;
            let result: serde_json::Value =
                serde_json::from_str(&record).map_err(|e| e.to_string())?;
            let winner = result["result"]["winner"].as_u64();
            let expected = match winner {
                Some(0) => "1-0",
                Some(_) => "0-1",
                None => "1/2-1/2",
            };
            if m["result"] != expected {
                return Err(format!(
                    "match {id}: the export says {}, the record {expected}",
                    m["result"]
                ));
            }
            Ok::<_, String>(winner)
        })
        .buffered(16)
        .try_collect()
        .await?;
    let mut points: BTreeMap<String, f64> = BTreeMap::new();
    for (m, winner) in matches.iter().zip(winners) {
        let (a, b) =
            (m["seat0"].as_str().unwrap_or_default(), m["seat1"].as_str().unwrap_or_default());
        let (pa, pb) = match winner {
            Some(0) => (1.0, 0.0),
            Some(_) => (0.0, 1.0),
            None => (0.5, 0.5),
        };
        *points.entry(a.into()).or_default() += pa;
        *points.entry(b.into()).or_default() += pb;
    }
    let format = export["tournament"]["format"].as_str().unwrap_or_default();
    if format.starts_with("Swiss") || format.starts_with("RoundRobin") {
        for s in export["standings"].as_array().ok_or("an export without standings")? {
            let id = s["player_id"].as_str().unwrap_or_default();
            let byes = s["byes"].as_f64().unwrap_or(0.0);
            let expected = points.get(id).copied().unwrap_or(0.0) + byes;
            if (s["points"].as_f64().unwrap_or(-1.0) - expected).abs() > 1e-9 {
                return Err(format!(
                    "{}: standings say {} points, the records {expected}",
                    s["name"], s["points"]
                ));
            }
        }
    }
    Ok(matches.len())
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_public_page_is_the_web_clients_route_on_the_gateway() {
        let id = "6f1e7a52-0000-4000-8000-000000000001";
        for url in ["http://127.0.0.1:50051", "http://127.0.0.1:50051/"] {
            assert_eq!(
                super::page_url(url, id),
                format!("http://127.0.0.1:50051/#/tournaments/{id}")
            );
        }
    }
}
