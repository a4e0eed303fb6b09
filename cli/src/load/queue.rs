//! `colosseum load --queue`: players arriving through the match-maker instead of
//! CreateMatch. Two measurements in one run: guest players through the gateway (a
//! session, WatchTickets, a casual ticket, the pushed assignment: pairings per second and
//! the time from ticket to assignment), then the matching pass alone over a queue of
//! `--pass-tickets` waiting tickets, on the same store, with the cluster stopped.

use super::{LoadArgs, percentile};
use client::Client;
use serde_json::json;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use store::{FullStore, MatchMakerStore, PlayerId, Queue, Ticket, TicketId, TicketState};

/// Runs the queue load on `store` (started here as an in-process cluster).
///
/// # Errors
/// The cluster cannot start, or the store fails.
pub async fn run(args: &LoadArgs, store: Arc<dyn FullStore>) -> Result<serde_json::Value, String> {
    let cluster =
        in_process::Cluster::start(store.clone(), "127.0.0.1:0".parse().expect("an address"))
            .await
            .map_err(|e| e.to_string())?;
    let arrivals = arrivals(args, &cluster.gateway_url()).await?;
    cluster.shutdown().await;
    let pass = pass(args, store).await?;
    Ok(json!({ "game": args.game, "arrivals": arrivals, "pass": pass }))
}

/// Guest players through the gateway, `--concurrency` arriving at once, `--players` in
/// all: each opens WatchTickets, queues, and waits for its assignment.
async fn arrivals(args: &LoadArgs, url: &str) -> Result<serde_json::Value, String> {
    let endpoint =
        tonic::transport::Endpoint::from_shared(url.to_string()).map_err(|e| e.to_string())?;
    let channels: Vec<_> = (0..8).map(|_| endpoint.connect_lazy()).collect();
    let bar = crate::progress::bar(
        args.players,
        "{spinner} {bar:40} {pos}/{len} players assigned ({per_sec})",
        "players assigned",
    );
    let next = Arc::new(AtomicU64::new(0));
    let errors = Arc::new(Mutex::new(Vec::<String>::new()));
    let latencies = Arc::new(Mutex::new(Vec::<u64>::new()));
    let assigned = Arc::new(Mutex::new(Vec::<String>::new()));
    #[allow(clippy::disallowed_methods)] // The load client measures wall time.
    let started = Instant::now();
    let mut workers = tokio::task::JoinSet::new();
    for w in 0..args.concurrency.min(args.players) {
        let channel = channels[w as usize % channels.len()].clone();
        let (next, errors, latencies, assigned, bar) =
            (next.clone(), errors.clone(), latencies.clone(), assigned.clone(), bar.clone());
        let (total, game) = (args.players, args.game.clone());
        workers.spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                if n >= total {
                    return;
                }
                match arrive(&channel, n, &game).await {
                    Ok((micros, match_id)) => {
                        latencies.lock().expect("the stats lock").push(micros);
                        assigned.lock().expect("the stats lock").push(match_id);
                    }
                    Err(e) => {
                        let mut errors = errors.lock().expect("the stats lock");
                        errors.push(e);
                    }
                }
                bar.inc(1);
            }
        });
    }
    while workers.join_next().await.is_some() {}
    let seconds = started.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let mut lat = latencies.lock().expect("the stats lock").clone();
    lat.sort_unstable();
    let mut matches = assigned.lock().expect("the stats lock").clone();
    let players_assigned = matches.len();
    matches.sort_unstable();
    matches.dedup();
    let errors = errors.lock().expect("the stats lock").clone();
    Ok(json!({
        "players": args.players,
        "concurrency": args.concurrency,
        "assigned": players_assigned,
        "matches": matches.len(),
        "seconds": (seconds * 1000.0).round() / 1000.0,
        "pairings_per_s": (matches.len() as f64 / seconds).round(),
        "ticket_to_assignment_p50_ms": percentile(&lat, 0.50),
        "ticket_to_assignment_p99_ms": percentile(&lat, 0.99),
        "errors": errors.len(),
        "error_samples": errors.iter().take(5).collect::<Vec<_>>(),
    }))
}

/// One player: a guest session, its ticket watched, queued; the microseconds from the
/// ticket's creation to its assignment, and the match.
async fn arrive(
    channel: &tonic::transport::Channel,
    n: u64,
    game: &str,
) -> Result<(u64, String), String> {
    let c = Client::guest_on(channel.clone(), &format!("queue-{n}"))
        .await
        .map_err(|e| e.to_string())?;
    let mut stream = c.watch_tickets().await.map_err(|s| format!("watch: {}", s.code()))?;
    let queue = api::v1::QueueSpec {
        game: game.into(),
        options_json: String::new(),
        move_time_ms: 0,
        rated: false,
    };
    #[allow(clippy::disallowed_methods)] // The load client measures wall time.
    let t0 = Instant::now();
    // The watch is held: the ticket is followed there, and the answer only names it.
    let ticket_id = c
        .create_ticket_on_watch(queue, &format!("load-{n}"))
        .await
        .map_err(|s| format!("ticket: {}", s.code()))?;
    let (match_id, _) =
        tokio::time::timeout(Duration::from_secs(60), Client::assignment(&mut stream, &ticket_id))
            .await
            .map_err(|_| "not assigned within 60 s".to_string())?
            .map_err(|s| format!("assignment: {}", s.code()))?;
    Ok((t0.elapsed().as_micros() as u64, match_id))
}

/// The matching pass alone, over `--pass-tickets` waiting tickets of distinct players in
/// a fresh queue, `--pass-runs` times in each of two shapes: a backlog (ratings far
/// apart: the pass reads and weighs every ticket and pairs none, the steady state of a
/// queue whose players wait for an opponent near them) and a burst (ratings close: every
/// ticket is paired in that one pass). The pairings made are undone afterwards, untimed,
/// so nothing is left waiting or pending.
async fn pass(args: &LoadArgs, store: Arc<dyn FullStore>) -> Result<serde_json::Value, String> {
    let lobby: Arc<dyn MatchMakerStore> = store;
    let engines = engines::Engines::new(&[], None).map_err(|e| e.to_string())?;
    let matcher = match_maker::matcher::Matcher::new(lobby.clone(), engines, "load");
    let bar = crate::progress::bar(2 * args.pass_runs, "{spinner} pass {pos}/{len}", "passes");
    let mut out = serde_json::Map::new();
    for (shape, spacing) in [("backlog", 1_000.0), ("burst", 0.06)] {
        let mut runs = Vec::new();
        for run in 0..args.pass_runs {
            runs.push(one_pass(args, &lobby, &matcher, spacing, run).await?);
            bar.inc(1);
        }
        let mut ms: Vec<f64> = runs.iter().filter_map(|r| r["ms"].as_f64()).collect();
        ms.sort_by(f64::total_cmp);
        let median = ms.get(ms.len() / 2).copied().unwrap_or(0.0);
        out.insert(shape.into(), json!({ "median_ms": median, "runs": runs }));
    }
    bar.finish_and_clear();
    out.insert("tickets".into(), json!(args.pass_tickets));
    Ok(serde_json::Value::Object(out))
}

/// One timed pass over a fresh queue of tickets rated `spacing` apart (in a shuffled
/// order), then undone.
async fn one_pass(
    args: &LoadArgs,
    lobby: &Arc<dyn MatchMakerStore>,
    matcher: &match_maker::matcher::Matcher,
    spacing: f64,
    run: u64,
) -> Result<serde_json::Value, String> {
    let now = service_kit::time::now_ms();
    // A queue of its own: a per-move time no one else uses.
    let queue = Queue {
        game: args.game.clone(),
        options_json: "{}".into(),
        move_time_ms: 60_000 + 1_000 * (now % 100_000) + run,
        rated: false,
    };
    let n = args.pass_tickets;
    for chunk in (0..n).collect::<Vec<_>>().chunks(256) {
        let batch = chunk.iter().map(|i| {
            // A permutation of 0..n, so neighbours in rating arrive apart.
            let rank = (i.wrapping_mul(2_654_435_761)) % n.max(1);
            let ticket = waiting(&queue, *i, 1000.0 + spacing * rank as f64, now);
            let lobby = lobby.clone();
            async move { lobby.create_ticket(&ticket).await }
        });
        for r in futures_util::future::join_all(batch).await {
            r.map_err(|e| e.to_string())?;
        }
    }
    // Where the time goes: the read alone, the ladder alone, then the whole pass.
    #[allow(clippy::disallowed_methods)] // The load client measures wall time.
    let t0 = Instant::now();
    let read = lobby.waiting(&queue).await.map_err(|e| e.to_string())?;
    let read_ms = t0.elapsed().as_secs_f64() * 1000.0;
    #[allow(clippy::disallowed_methods)]
    let t0 = Instant::now();
    let planned = match_maker::matcher::pairings(&read, now + 1).len();
    let plan_ms = t0.elapsed().as_secs_f64() * 1000.0;
    #[allow(clippy::disallowed_methods)]
    let t0 = Instant::now();
    let (looked, _, pairings) =
        matcher.pass_queue(&queue, now + 1).await.map_err(|e| e.to_string())?;
    let ms = t0.elapsed().as_secs_f64() * 1000.0;
    for p in &pairings {
        lobby.unpair(p.match_id, now).await.map_err(|e| e.to_string())?;
    }
    for t in lobby.waiting(&queue).await.map_err(|e| e.to_string())? {
        lobby.cancel_ticket(t.id, t.player, now).await.map_err(|e| e.to_string())?;
    }
    let round = |x: f64| (x * 10.0).round() / 10.0;
    Ok(json!({
        "tickets": looked,
        "paired": pairings.len() * 2,
        "planned_pairs": planned,
        "ms": round(ms),
        "read_ms": round(read_ms),
        "plan_ms": round(plan_ms),
    }))
}

/// Waiting ticket number `i` of a pass benchmark: its own player, rated `rating`.
fn waiting(queue: &Queue, i: u64, rating: f64, now: u64) -> Ticket {
    Ticket {
        id: TicketId::random(),
        player: PlayerId::random(),
        queue: queue.clone(),
        seek: false,
        rating,
        idempotency_key: format!("pass-{i}"),
        created_ms: now,
        expires_ms: now + 600_000,
        state: TicketState::Waiting,
        changed_ms: now,
        display_name: format!("load-{i}"),
    }
}
