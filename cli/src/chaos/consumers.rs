//! The chaos trial's consumers of finished matches, under the same kills: accounts that
//! queue for rated matches again and again, two per family's first game (the ratings), a
//! tenant's bulk matches of every game and GOPS round robins (the tournament service), all
//! played by the trial's own bot players, so every engine's kill strands announcements
//! some consumer waits on. At the end,
//! what each consumer must have heard, once: every finished rated match rated, every
//! finished bulk match FINISHED in GetMatch and on its tenant's results stream, every
//! tournament's finished matches counted and a fully played tournament finished.

use super::load::{self, Behaviour, Shared, Tracked, code_name, retry};
use api::internal::tenant_admin_service_client::TenantAdminServiceClient;
use api::v1;
use client::Client;
use client::platform::Platform;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{LobbyStore, MatchId, PlayerId};
use tokio_stream::StreamExt;
use tonic::Code;

/// Accounts queueing for rated matches (each on its own; the matcher pairs them): two per
/// family, in its first game's queue.
const RATED_PLAYERS: usize = 2 * games::Family::ALL.len();
/// Bulk matches per CreateMatches call.
const BULK_MATCHES: usize = 4;
/// Entrants of each round robin (three rounds of two matches).
const ENTRANTS: usize = 4;

/// A rated match the trial's accounts were assigned.
#[derive(Clone, Debug)]
pub struct RatedGame {
    /// The match.
    pub match_id: String,
    /// Its game.
    pub game: &'static str,
    /// The accounts assigned to it (both, once both were told).
    pub players: Vec<String>,
}

/// A round robin the trial created.
#[derive(Clone, Debug, Default)]
pub struct Tournament {
    /// Its id.
    pub id: String,
    /// Its matches so far.
    pub matches: Vec<String>,
    /// Every round was started and played.
    pub complete: bool,
}

/// Everything the consumers' load made.
#[derive(Default)]
pub struct Made {
    /// Rated matches, by id.
    pub rated: Mutex<BTreeMap<String, RatedGame>>,
    /// Bulk matches.
    pub bulk: Mutex<Vec<String>>,
    /// Round robins.
    pub tournaments: Mutex<Vec<Tournament>>,
}

/// The tenant the trial's platform load runs as.
pub struct Tenant {
    /// Its key's platform client through the gateway.
    pub platform: Platform,
}

/// A tenant and a key with every scope, made through the tournament service's operator
/// API at `admin_url` (retried while the service is down).
///
/// # Errors
/// No answer within about a minute, or a refusal.
pub async fn tenant(
    admin_url: &str,
    token: &service_kit::internal::InternalToken,
    gateway: &str,
) -> Result<Tenant, String> {
    let channel = tonic::transport::Endpoint::from_shared(admin_url.to_string())
        .map_err(|e| e.to_string())?
        .connect_lazy();
    let admin = TenantAdminServiceClient::with_interceptor(
        channel,
        service_kit::internal::Stamp::new(Some(token)),
    );
    let mut last = String::new();
    for _ in 0..120 {
        let made = async {
            let t = admin
                .clone()
                .create_tenant(api::internal::CreateTenantRequest { name: "chaos".into() })
                .await?
                .into_inner()
                .tenant
                .ok_or_else(|| tonic::Status::internal("no tenant"))?;
            let scopes = ["matches:create", "tournaments:manage", "results:read"];
            let k = admin
                .clone()
                .create_api_key(api::internal::CreateApiKeyRequest {
                    tenant_id: t.tenant_id,
                    scopes: scopes.iter().map(|s| (*s).to_string()).collect(),
                    label: "chaos".into(),
                })
                .await?
                .into_inner();
            Ok::<_, tonic::Status>(k.key)
        };
        match made.await {
            Ok(key) => {
                let platform = Platform::connect(gateway, &key).map_err(|e| e.to_string())?;
                return Ok(Tenant { platform });
            }
            Err(s) => last = format!("{}: {}", code_name(s.code()), s.message()),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    Err(format!("no tenant: {last}"))
}

/// Runs the consumers' load until `sh.stop`: the rated accounts, the bulk matches and the
/// round robins.
pub async fn run(
    gateway: String,
    channel: tonic::transport::Channel,
    tenant: Arc<Tenant>,
    b: Behaviour,
    sh: Arc<Shared>,
    made: Arc<Made>,
) {
    let mut tasks = tokio::task::JoinSet::new();
    for w in 0..RATED_PLAYERS {
        let (gateway, sh, made) = (gateway.clone(), sh.clone(), made.clone());
        tasks.spawn(async move { rated_player(w, &gateway, b, &sh, &made).await });
    }
    {
        let (channel, tenant, sh, made) =
            (channel.clone(), tenant.clone(), sh.clone(), made.clone());
        tasks.spawn(async move { bulk(&channel, &tenant.platform, b, &sh, &made).await });
    }
    {
        let (sh, made) = (sh.clone(), made.clone());
        tasks.spawn(async move { round_robins(&channel, &tenant.platform, b, &sh, &made).await });
    }
    while tasks.join_next().await.is_some() {}
}

/// An account, registered through the gateway (logged in if a lost answer's
/// registration went through), retried while the load runs.
async fn account(gateway: &str, name: &str, sh: &Shared) -> Option<Client> {
    let email = format!("{name}-{}@chaos.example", uuid::Uuid::new_v4().simple());
    let password = "correct horse battery staple";
    for attempt in 1..=80u64 {
        if sh.stop.is_cancelled() {
            return None;
        }
        let r = match Client::register(gateway, &email, password, name, false).await {
            Err(client::Error::Api(s)) if s.code() == Code::AlreadyExists => {
                Client::login(gateway, &email, password).await.map(|(c, _)| c)
            }
            other => other,
        };
        match r {
            Ok(c) => return Some(c),
            Err(client::Error::Api(s)) => sh.error(s.code()),
            Err(e) => {
                tracing::warn!(error = %e, "no account");
                return None;
            }
        }
        tokio::time::sleep(Duration::from_millis((50 * attempt).min(500))).await;
    }
    None
}

/// Waits for the ticket's assignment, watching again whenever the stream breaks (a
/// match-maker or gateway killed). `None`: the load stopped or the ticket ended otherwise.
async fn assignment(c: &Client, ticket_id: &str, sh: &Shared) -> Option<(String, u32)> {
    while !sh.stop.is_cancelled() {
        let watched = tokio::select! {
            _ = sh.stop.cancelled() => return None,
            w = c.watch_tickets() => w,
        };
        match watched {
            Ok(mut stream) => {
                let a = tokio::select! {
                    _ = sh.stop.cancelled() => return None,
                    a = Client::assignment(&mut stream, ticket_id) => a,
                };
                match a {
                    Ok(a) => return Some(a),
                    Err(s) if s.code() == Code::FailedPrecondition => return None,
                    Err(s) => sh.error(s.code()),
                }
            }
            Err(s) => sh.error(s.code()),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    None
}

/// The first game of each family, in family order.
fn first_games() -> Vec<&'static games::GameInfo> {
    games::Family::ALL.iter().filter_map(|f| games::GAMES.iter().find(|g| g.family == *f)).collect()
}

/// `b` for a match of `game` whose time per move is `move_time_ms` unless its rules fix
/// one; the spec's `move_time_ms` (0: the rules' own).
fn timed(game: &str, move_time_ms: u64, b: Behaviour) -> (Behaviour, u64) {
    match games::time::fixed_move_time(game, &serde_json::Value::Null) {
        // Nobody sleeps past a fixed minute: the trial would wait that long.
        Some(rules_core::MoveTime::Fixed { move_ms, .. }) => {
            (Behaviour { move_time_ms: move_ms, late_every: 0, ..b }, 0)
        }
        _ => (Behaviour { move_time_ms, ..b }, move_time_ms),
    }
}

/// One account: a rated ticket in its family's first game, the match it is assigned, its
/// seat played out; again.
async fn rated_player(w: usize, gateway: &str, b: Behaviour, sh: &Arc<Shared>, made: &Made) {
    let firsts = first_games();
    let info = firsts[w / 2 % firsts.len()];
    let Some(c) = account(gateway, &format!("chaos-rated-{w}"), sh).await else { return };
    // A rated queue's time per move is a minute at least: nobody sleeps past it.
    let b = Behaviour { move_time_ms: 60_000, late_every: 0, ..b };
    let queue = v1::QueueSpec {
        game: info.name.into(),
        options_json: String::new(),
        move_time_ms: 0,
        rated: true,
    };
    let mut n = 0u64;
    while !sh.stop.is_cancelled() {
        n += 1;
        let key = format!("chaos-rated-{w}-{n}");
        let ticket = match retry(sh, || c.create_ticket(queue.clone(), &key, 0)).await {
            None => return,
            Some(Ok(r)) => r.ticket.map(|t| t.ticket_id).unwrap_or_default(),
            Some(Err(_)) => continue,
        };
        let Some((id, seat)) = assignment(&c, &ticket, sh).await else { continue };
        {
            let mut rated = made.rated.lock().expect("the rated lock");
            let game = rated.entry(id.clone()).or_insert_with(|| RatedGame {
                match_id: id.clone(),
                game: info.name,
                players: Vec::new(),
            });
            game.players.push(c.player_id().to_string());
        }
        sh.matches
            .lock()
            .expect("the matches lock")
            .insert(id.clone(), Tracked { game: info.name, bot_seat: None });
        load::player(c.clone(), id, seat, info.family, b, sh.clone()).await;
    }
}

/// Guest players for the platform's matches, retried through gateway restarts.
async fn guests(
    channel: &tonic::transport::Channel,
    what: &str,
    n: usize,
    sh: &Shared,
) -> Option<Vec<Client>> {
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        out.push(load::guest(channel, &format!("chaos-{what}-{i}"), sh).await?);
    }
    Some(out)
}

/// The spec of a match of `game` between two players, `move_time_ms` per move (0: the
/// rules' own).
fn spec(game: &str, seat0: &Client, seat1: &Client, move_time_ms: u64) -> v1::MatchSpec {
    v1::MatchSpec {
        game: Some(v1::GameSpec { game: game.into(), options_json: String::new(), move_time_ms }),
        seat0_player_id: seat0.player_id().to_string(),
        seat1_player_id: seat1.player_id().to_string(),
        start_at_ms: 0,
        label: String::new(),
    }
}

/// A match to play: its id, its game, seat 0's player and seat 1's, how they behave.
type ToPlay = (String, &'static games::GameInfo, Client, Client, Behaviour);

/// Plays each match to its end (or the load's).
async fn play_all(matches: Vec<ToPlay>, sh: &Arc<Shared>) {
    let mut plays = tokio::task::JoinSet::new();
    for (id, info, p0, p1, b) in matches {
        sh.matches
            .lock()
            .expect("the matches lock")
            .insert(id.clone(), Tracked { game: info.name, bot_seat: None });
        plays.spawn(load::player(p0, id.clone(), 0, info.family, b, sh.clone()));
        plays.spawn(load::player(p1, id, 1, info.family, b, sh.clone()));
    }
    while plays.join_next().await.is_some() {}
}

/// Bulk calls of [`BULK_MATCHES`] matches (the games in turn), each played out, one call
/// after another.
async fn bulk(
    channel: &tonic::transport::Channel,
    p: &Platform,
    b: Behaviour,
    sh: &Arc<Shared>,
    made: &Made,
) {
    let Some(players) = guests(channel, "bulk", 2 * BULK_MATCHES, sh).await else { return };
    let mut n = 0u64;
    while !sh.stop.is_cancelled() {
        n += 1;
        let planned: Vec<(&'static games::GameInfo, Behaviour, u64)> = (0..BULK_MATCHES)
            .map(|i| {
                let info = &games::GAMES[(n as usize * BULK_MATCHES + i) % games::GAMES.len()];
                let (b, ms) = timed(info.name, b.move_time_ms, b);
                (info, b, ms)
            })
            .collect();
        let req = v1::CreateMatchesRequest {
            idempotency_key: format!("chaos-bulk-{n}"),
            matches: players
                .chunks(2)
                .zip(&planned)
                .map(|(pair, (info, _, ms))| spec(info.name, &pair[0], &pair[1], *ms))
                .collect(),
            validate_only: false,
        };
        // Keyed: a call retried after UNAVAILABLE answers the matches it made.
        let ids = match retry(sh, || async { p.api().create_matches(p.request(req.clone())).await })
            .await
        {
            None => return,
            Some(Ok(r)) => r.into_inner().match_ids,
            Some(Err(s)) => {
                tracing::warn!(code = code_name(s.code()), "bulk matches refused");
                continue;
            }
        };
        made.bulk.lock().expect("the bulk lock").extend(ids.iter().cloned());
        let matches = ids
            .into_iter()
            .zip(players.chunks(2).zip(&planned))
            .map(|(id, (pair, (info, b, _)))| (id, *info, pair[0].clone(), pair[1].clone(), *b))
            .collect();
        play_all(matches, sh).await;
    }
}

/// StartRound, retried while the previous round's results are on their way (refused
/// FAILED_PRECONDITION until they are in) or a service is down.
async fn start_round(p: &Platform, tid: &str, round: u32, sh: &Shared) -> Option<v1::RoundPaired> {
    for _ in 0..600 {
        let req = v1::StartRoundRequest { tournament_id: tid.to_string(), round };
        match retry(sh, || async { p.api().start_round(p.request(req.clone())).await }).await? {
            Ok(r) => return r.into_inner().round,
            Err(s) if s.code() == Code::FailedPrecondition => {}
            Err(s) => {
                tracing::warn!(code = code_name(s.code()), round, "round not started");
                return None;
            }
        }
        tokio::select! {
            _ = sh.stop.cancelled() => return None,
            _ = tokio::time::sleep(Duration::from_millis(100)) => {}
        }
    }
    None
}

/// Round robins of [`ENTRANTS`] guests, every round started and played, one tournament
/// after another.
async fn round_robins(
    channel: &tonic::transport::Channel,
    p: &Platform,
    b: Behaviour,
    sh: &Arc<Shared>,
    made: &Made,
) {
    let Some(players) = guests(channel, "rr", ENTRANTS, sh).await else { return };
    let gops = games::registry::info("gops").expect("GOPS is a game");
    let by_id: BTreeMap<String, Client> =
        players.iter().map(|c| (c.player_id().to_string(), c.clone())).collect();
    let mut n = 0u64;
    while !sh.stop.is_cancelled() {
        n += 1;
        let req = v1::CreateTournamentRequest {
            idempotency_key: format!("chaos-rr-{n}"),
            name: format!("chaos-rr-{n}"),
            format: Some(v1::TournamentFormat {
                kind: Some(v1::tournament_format::Kind::RoundRobin(v1::RoundRobin {
                    double: false,
                })),
            }),
            game: spec("gops", &players[0], &players[1], b.move_time_ms).game,
            entrants: players
                .iter()
                .map(|c| v1::Entrant {
                    player_id: c.player_id().to_string(),
                    seed_rating: None,
                    name: c.player_id().to_string(),
                })
                .collect(),
            round_gap_ms: 0,
            public_page: false,
        };
        let created =
            match retry(sh, || async { p.api().create_tournament(p.request(req.clone())).await })
                .await
            {
                None => return,
                Some(Ok(r)) => r.into_inner().tournament,
                Some(Err(s)) => {
                    tracing::warn!(code = code_name(s.code()), "tournament refused");
                    continue;
                }
            };
        let Some(t) = created else { continue };
        let at = {
            let mut all = made.tournaments.lock().expect("the tournaments lock");
            all.push(Tournament { id: t.tournament_id.clone(), ..Tournament::default() });
            all.len() - 1
        };
        let mut played = 0;
        for round in 1..=t.rounds {
            let Some(paired) = start_round(p, &t.tournament_id, round, sh).await else { break };
            let mut matches = Vec::new();
            for pair in paired.pairings {
                let (Some(p0), Some(p1)) =
                    (by_id.get(&pair.seat0_player_id), by_id.get(&pair.seat1_player_id))
                else {
                    continue;
                };
                matches.push((pair.match_id.clone(), gops, p0.clone(), p1.clone(), b));
            }
            made.tournaments.lock().expect("the tournaments lock")[at]
                .matches
                .extend(matches.iter().map(|(id, ..)| id.clone()));
            play_all(matches, sh).await;
            if sh.stop.is_cancelled() {
                break;
            }
            played += 1;
        }
        made.tournaments.lock().expect("the tournaments lock")[at].complete = played == t.rounds;
    }
}

// ---------------------------------------------------------------------------------------
// The check

/// What the consumers heard, against what finished.
#[derive(Debug, Default, serde::Serialize)]
pub struct Report {
    /// Rated matches assigned / finished / rated once / finished and not rated / rated
    /// more than once (a player's history counts the match twice).
    pub rated: Counts,
    /// Bulk matches created / finished / reported once (GetMatch FINISHED and one
    /// MatchFinished on the tenant's stream) / not reported / reported twice.
    pub bulk: Counts,
    /// Tournament matches created / finished / counted once / not counted / counted twice.
    pub tournament_matches: Counts,
    /// Round robins created / fully played / finished: the fully played ones not finished.
    pub tournaments: TournamentCounts,
    /// Matches the repair announced for engines that died before announcing (the
    /// tournament service's log).
    pub announcements_repaired: u64,
    /// What was wrong (at most 20).
    pub findings: Vec<String>,
}

/// Per kind of consumer.
#[derive(Debug, Default, serde::Serialize)]
pub struct Counts {
    /// Made.
    pub matches: u64,
    /// Finished (the match's own record says so).
    pub finished: u64,
    /// Heard once.
    pub once: u64,
    /// Finished but never heard of: a lost announcement or a stuck consumer.
    pub lost: u64,
    /// Heard more than once.
    pub duplicated: u64,
}

/// Round robins.
#[derive(Debug, Default, serde::Serialize)]
pub struct TournamentCounts {
    /// Created.
    pub created: u64,
    /// Every round played.
    pub complete: u64,
    /// Every round played and every match finished, yet not FINISHED.
    pub stuck: u64,
}

impl Report {
    /// Anything lost, duplicated or stuck.
    pub fn bad(&self) -> bool {
        let c = [&self.rated, &self.bulk, &self.tournament_matches];
        c.iter().any(|c| c.lost + c.duplicated > 0) || self.tournaments.stuck > 0
    }

    fn note(&mut self, f: String) {
        if self.findings.len() < 20 {
            self.findings.push(f);
        }
    }
}

/// Whether the match is over, as the gateway shows it to a spectator.
async fn is_finished(checker: &Client, id: &str) -> bool {
    for _ in 0..10 {
        match checker.view(id).await {
            Ok(v) => return v.outcome.is_some(),
            Err(_) => tokio::time::sleep(Duration::from_millis(200)).await,
        }
    }
    false
}

/// How many `MatchFinished` of each match a results stream holds (read to its end).
async fn finishes_on(p: &Platform, tournament_id: &str) -> BTreeMap<String, u64> {
    let mut out = BTreeMap::new();
    let req = v1::WatchResultsRequest { tournament_id: tournament_id.into(), after_sequence: 0 };
    let Ok(stream) = p.api().watch_results(p.request(req)).await else { return out };
    let mut stream = stream.into_inner();
    while let Ok(Some(Ok(e))) =
        tokio::time::timeout(Duration::from_millis(1_500), stream.next()).await
    {
        if let Some(v1::watch_results_response::Event::MatchFinished(m)) = e.event
            && let Some(m) = m.r#match
        {
            *out.entry(m.match_id).or_default() += 1;
        }
    }
    out
}

/// How many times `player`'s rating history names `match_id`.
async fn rated_times(store: &dyn LobbyStore, g: &RatedGame, player: &str) -> Option<u64> {
    let player: PlayerId = player.parse().ok()?;
    let id: MatchId = g.match_id.parse().ok()?;
    // Every line kept (the store keeps 100 a game): a trial's account plays fewer.
    let lines = store.history(g.game, player, 100).await.ok()?;
    Some(lines.iter().filter(|l| l.match_id == id).count() as u64)
}

/// One look at every consumer.
async fn look(store: &dyn LobbyStore, checker: &Client, p: &Platform, made: &Made) -> Report {
    let mut r = Report::default();
    let rated: Vec<RatedGame> =
        made.rated.lock().expect("the rated lock").values().cloned().collect();
    for g in rated {
        r.rated.matches += 1;
        if !is_finished(checker, &g.match_id).await {
            continue;
        }
        r.rated.finished += 1;
        // Its players as the match holds them (an account may have been told of its
        // assignment only after the load stopped).
        let mut players = g.players.clone();
        if let Ok(id) = g.match_id.parse::<MatchId>()
            && let Ok(Some(meta)) = store.meta(id).await
        {
            players = meta
                .seats
                .0
                .iter()
                .filter_map(|s| match s {
                    store::SeatHolder::Player(p) => Some(p.to_string()),
                    store::SeatHolder::Open
                    | store::SeatHolder::Reserved(_)
                    | store::SeatHolder::Bot(_) => None,
                })
                .collect();
        }
        let mut times = Vec::new();
        for player in &players {
            times.push(rated_times(store, &g, player).await.unwrap_or(0));
        }
        if times.iter().any(|&t| t > 1) {
            r.rated.duplicated += 1;
            r.note(format!("rated match {} rated {times:?} times", g.match_id));
        } else if times.len() == 2 && times.iter().all(|&t| t == 1) {
            r.rated.once += 1;
        } else {
            r.rated.lost += 1;
            r.note(format!("rated match {} finished, rated {times:?} times", g.match_id));
        }
    }
    let bulk = made.bulk.lock().expect("the bulk lock").clone();
    let on_stream = finishes_on(p, "").await;
    for id in bulk {
        r.bulk.matches += 1;
        if !is_finished(checker, &id).await {
            continue;
        }
        r.bulk.finished += 1;
        let req = v1::GetMatchRequest { match_id: id.clone() };
        let state = p
            .api()
            .get_match(p.request(req))
            .await
            .ok()
            .and_then(|m| m.into_inner().r#match)
            .map(|m| m.state);
        let times = on_stream.get(&id).copied().unwrap_or(0);
        if times > 1 {
            r.bulk.duplicated += 1;
            r.note(format!("bulk match {id}: {times} MatchFinished on the tenant's stream"));
        } else if times == 1 && state == Some(v1::MatchState::Finished as i32) {
            r.bulk.once += 1;
        } else {
            r.bulk.lost += 1;
            r.note(format!(
                "bulk match {id} finished: {times} MatchFinished, GetMatch state {state:?}"
            ));
        }
    }
    let tournaments = made.tournaments.lock().expect("the tournaments lock").clone();
    for t in tournaments {
        r.tournaments.created += 1;
        let on_stream = finishes_on(p, &t.id).await;
        let mut all_finished = true;
        for id in &t.matches {
            r.tournament_matches.matches += 1;
            if !is_finished(checker, id).await {
                all_finished = false;
                continue;
            }
            r.tournament_matches.finished += 1;
            match on_stream.get(id).copied().unwrap_or(0) {
                1 => r.tournament_matches.once += 1,
                0 => {
                    r.tournament_matches.lost += 1;
                    r.note(format!("tournament {}: match {id} finished, not counted", t.id));
                }
                n => {
                    r.tournament_matches.duplicated += 1;
                    r.note(format!("tournament {}: match {id} counted {n} times", t.id));
                }
            }
        }
        if t.complete {
            r.tournaments.complete += 1;
            let req = v1::GetTournamentRequest { tournament_id: t.id.clone() };
            let got = p.api().get_tournament(p.request(req)).await.ok();
            let state = got.and_then(|g| g.into_inner().tournament).map(|t| t.state);
            if all_finished && state != Some(v1::TournamentState::Finished as i32) {
                r.tournaments.stuck += 1;
                r.note(format!("tournament {} fully played, state {state:?}", t.id));
            }
        }
    }
    r
}

/// Looks at every consumer until each heard of every finished match, or `within` passed
/// (the repair announces five seconds after a final step at the earliest).
pub async fn check(
    store: &dyn LobbyStore,
    checker: &Client,
    p: &Platform,
    made: &Made,
    within: Duration,
) -> Report {
    let until = tokio::time::Instant::now() + within;
    loop {
        let r = look(store, checker, p, made).await;
        if !r.bad() || tokio::time::Instant::now() >= until {
            return r;
        }
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
}

/// The matches the repair announced, summed from the tournament service's log lines
/// (plain or coloured: the terminal colour codes are skipped).
pub fn repaired_in_log(log: &str) -> u64 {
    log.lines()
        .map(without_colours)
        .filter(|l| l.contains("finished matches announced for engines that died first"))
        .filter_map(|l| {
            let at = l.rfind("announced=")? + "announced=".len();
            l[at..].split(|c: char| !c.is_ascii_digit()).next()?.parse::<u64>().ok()
        })
        .sum()
}

/// `line` without its ANSI colour codes (`ESC [ ... m`).
fn without_colours(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' {
            for c in chars.by_ref() {
                if c == 'm' {
                    break;
                }
            }
        } else {
            out.push(c);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repaired_counts_are_summed_from_the_log() {
        let log = "2026 INFO finished matches announced for engines that died first announced=3\n\
                   2026 INFO something else announced=9\n\
                   2026 INFO finished matches announced for engines that died first announced=2 x=1\n";
        assert_eq!(repaired_in_log(log), 5);
        let coloured = "\u{1b}[32m INFO\u{1b}[0m finished matches announced for engines that died \
                        first \u{1b}[3mannounced\u{1b}[0m\u{1b}[2m=\u{1b}[0m4";
        assert_eq!(repaired_in_log(coloured), 4);
        assert_eq!(repaired_in_log(""), 0);
    }
}
