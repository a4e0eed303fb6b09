//! Bots that never drop a match: many bot matches of every game and every bot through a
//! cluster whose gateway asks each connection to go away every few hundred milliseconds
//! (as it does every five minutes in production: the stall of issue 25), and bot matches
//! that go on when the gateway playing them is stopped and another takes the lease.

use api::v1;
use cluster_tests::{Env, Player, bot, check_record, create_request};
use std::time::Duration;
use tonic::{Code, Status};

/// A failure the API says to retry, or a connection that broke under the caller.
fn transient(s: &Status) -> bool {
    matches!(s.code(), Code::Unavailable | Code::Aborted)
        || (matches!(s.code(), Code::Cancelled | Code::Unknown | Code::Internal)
            && std::error::Error::source(s).is_some())
}

/// `call` until it answers otherwise than [`transient`]ly (at most about 20 s).
async fn retrying<T, F, Fut>(what: &str, mut call: F) -> T
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    for _ in 0..400 {
        match call().await {
            Ok(v) => return v,
            Err(s) if transient(&s) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(s) => panic!("{what}: {s:?}"),
        }
    }
    panic!("{what}: never answered")
}

/// Whether a match ended on time (a seat stopped playing) rather than by its rules.
fn ran_out(o: &v1::Outcome) -> bool {
    matches!(o.reason.as_str(), "missed_deadline" | "abandoned")
}

/// A match of `game` between `p` (seat 0) and `bot_name`, with the game's usual time per
/// move (a minute or more: a bot that stops playing stalls it past the tests' bounds).
async fn create_vs_bot(p: &Player, game: &str, bot_name: &str) -> String {
    let req = v1::CreateMatchRequest {
        idempotency_key: p.key(),
        ..create_request(game, "", bot(bot_name), 0)
    };
    retrying("create", || p.create(req.clone())).await.match_id
}

/// Plays `p`'s seat of match `id` with random legal moves until the match ends (each move
/// keyed by the version it answers, retried as the API says). Returns the final view.
///
/// # Panics
/// If the match does not end within `within` (the bot stopped playing), or a call is
/// refused.
async fn play_vs_bot(p: &Player, id: &str, seed: u64, within: Duration) -> v1::GetViewResponse {
    let mut picker = cluster_tests::Picker::new(seed);
    let until = tokio::time::Instant::now() + within;
    loop {
        assert!(
            tokio::time::Instant::now() < until,
            "bot match {id} stalled: the bot stopped playing"
        );
        let view = retrying("view", || p.try_view(id)).await;
        if view.outcome.is_some() {
            return view;
        }
        let Some(mv) = picker.pick(&view) else {
            tokio::time::sleep(Duration::from_millis(20)).await;
            continue;
        };
        let key = format!("{}:{id}:{}", p.name, view.version);
        match retrying("move", || async {
            match p.submit_with(id, Some(mv.clone()), &key).await {
                // The bot's deadline passed, or the match moved on: look again.
                Err(s) if s.code() == Code::FailedPrecondition => Ok(None),
                other => other.map(Some),
            }
        })
        .await
        {
            Some(v1::SubmitMoveResponse { outcome: Some(_) }) | None => {}
            Some(other) => panic!("{id}: {other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bot_matches_of_every_game_finish_through_connection_goaways() {
    // Every connection is asked to go away 300 ms after it opens: the first call after
    // it, on a connection a stream keeps open, used to fail CANCELLED unsent, and the
    // bot runner's match with it.
    service_kit::serve::set_max_connection_age(Duration::from_millis(300));
    let env = Env::start().await;
    let mut playing = Vec::new();
    let mut seed = 0;
    for g in games::GAMES {
        for bot_name in games::registry::bot_names(g.name) {
            for n in 0..2 {
                seed += 1;
                let p = env.player(&format!("{}-{bot_name}-{n}", g.name)).await;
                let (game, bot_name) = (g.name, *bot_name);
                playing.push(tokio::spawn(async move {
                    let id = create_vs_bot(&p, game, bot_name).await;
                    let last = play_vs_bot(&p, &id, seed, Duration::from_secs(150)).await;
                    let outcome = last.outcome.clone().expect("the match ended");
                    assert!(
                        !ran_out(&outcome),
                        "{game} vs {bot_name}: {id} ended {}",
                        outcome.reason
                    );
                    check_record(&p, &id, &outcome).await;
                    (game, bot_name, last.version)
                }));
            }
        }
    }
    let mut finished = 0;
    for h in playing {
        let (game, bot_name, version) = h.await.expect("a bot match finished");
        assert!(version > 1, "{game} vs {bot_name} ended at version {version}");
        finished += 1;
    }
    assert_eq!(
        finished,
        2 * games::GAMES.iter().map(|g| games::registry::bot_names(g.name).len()).sum::<usize>()
    );
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn bot_matches_go_on_when_the_gateway_playing_them_stops() {
    let mut env = Env::start().await;
    let games = ["gops", "cure-plague", "hexspiel", "masterminds", "dueling-monsters"];
    let mut matches = Vec::new();
    for (i, game) in games.into_iter().enumerate() {
        let p = env.player(&format!("{game}-player")).await;
        let id = create_vs_bot(&p, game, "random").await;
        matches.push((p, id, i as u64));
    }
    // Each bot has moved at least once (its seat is taken and the match is past its
    // start) before the gateway playing them stops.
    for (p, id, _) in &matches {
        let mut moved = false;
        for _ in 0..200 {
            let v = retrying("view", || p.try_view(id)).await;
            if v.outcome.is_some() || v.version >= 2 || !v.legal_moves.is_empty() {
                moved = true;
                break;
            }
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
        assert!(moved, "the bot never started match {id}");
    }
    // The gateway stops: its bot runner with it, its lease left to run out; the gateway
    // started on its port takes the lease and resumes every bot match from the store.
    env.cluster.restart_gateway().await.expect("the gateway restarts");
    let mut playing = Vec::new();
    for (p, id, seed) in matches {
        playing.push(tokio::spawn(async move {
            let last = play_vs_bot(&p, &id, seed, Duration::from_secs(120)).await;
            let outcome = last.outcome.clone().expect("the match ended");
            assert!(!ran_out(&outcome), "{}: {id} ended {}", last.game, outcome.reason);
            check_record(&p, &id, &outcome).await;
        }));
    }
    for h in playing {
        h.await.expect("a bot match finished after the restart");
    }
    env.shutdown().await;
}
