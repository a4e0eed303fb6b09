//! Full matches through the gateway: one of each game in the registry between two guest clients
//! (one creates with an open seat, the other joins) playing random legal moves until the
//! match ends, then the published record replays to the same result; and a GOPS match
//! against the built-in strong bot, which plays through the public API too. And all of it
//! again at once on a sharded 3-primary Redis Cluster, a deadline firing included.

use api::v1;
use cluster_tests::{Env, Picker, bot, check_record, create_request, play_out, wait_view};
use std::future::Future;
use std::pin::Pin;
use std::time::Duration;
use tonic::Code;

/// Plays a full match of `game` with default options and checks its record.
async fn full_match(game: &str, seed: u64) {
    let env = Env::start().await;
    play_full_match(&env, game, seed).await;
    env.shutdown().await;
}

/// Plays a full match of `game` on `env` with default options and checks its record.
async fn play_full_match<R>(env: &Env<R>, game: &str, seed: u64) {
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open(game, "", 0).await;
    assert_eq!(bob.join(&id).await.expect("bob joins"), 1);
    let played = play_out([&alice, &bob], &id, &mut Picker::new(seed), 5_000).await;
    let outcome = played.last.outcome.clone().expect("the match ended");
    assert_eq!(played.last.version, played.moves.len() as u64, "one version per move");
    // Every seat's view and a spectator's agree on the end.
    assert_eq!(bob.view(&id).await.outcome.as_ref(), Some(&outcome));
    let carol = env.player("carol").await;
    assert_eq!(carol.view(&id).await.outcome.as_ref(), Some(&outcome));
    let record = check_record(&carol, &id, &outcome).await;
    assert_eq!(record.game, game);
    assert_eq!(record.steps.len(), played.moves.len(), "a step per accepted move");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_plays_on_a_sharded_redis_cluster() {
    let env = Env::start_sharded().await;
    // Every game at once, each match on whichever node serves its slot, and a GOPS match
    // whose seat 1 misses its one-second deadline: the clock finds it in the index and
    // fires it on the match's node.
    let timeout = async {
        let alice = env.player("alice").await;
        let bob = env.player("bob").await;
        let id = alice.create_open("gops", "", 1_000).await;
        bob.join(&id).await.expect("bob joins");
        let mv = Picker::new(8).pick(&alice.view(&id).await).expect("a legal bid");
        alice.submit(&id, mv).await.expect("alice bids");
        let last = wait_view(&bob, &id, 100, |v| v.outcome.is_some()).await;
        let outcome = last.outcome.clone().expect("ended");
        assert_eq!((outcome.winner, outcome.reason.as_str()), (Some(0), "missed_deadline"));
        check_record(&alice, &id, &outcome).await;
    };
    // Every game in the registry at once, beside the deadline.
    type Play<'a> = Pin<Box<dyn Future<Output = ()> + 'a>>;
    let mut all: Vec<Play<'_>> = games::GAMES
        .iter()
        .zip(10..)
        .map(|(g, seed)| Box::pin(play_full_match(&env, g.name, seed)) as Play<'_>)
        .collect();
    all.push(Box::pin(timeout));
    futures_util::future::join_all(all).await;
    env.shutdown().await;
}

/// A full match of every game in the registry, each on a cluster of its own, in turn.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_game_plays_a_full_match() {
    for (g, seed) in games::GAMES.iter().zip(1..) {
        eprintln!("a full match of {}", g.name);
        full_match(g.name, seed).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gops_against_the_strong_bot_finishes() {
    against_the_strong_bot("").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_create_against_a_bot_plays_one_match() {
    against_the_strong_bot("vs-bot-1").await;
}

/// Alice plays GOPS against the strong bot to the end; with a `key`, every CreateMatch
/// is sent twice (and once more mid-match), and each answers the same match.
async fn against_the_strong_bot(key: &str) {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let create = || v1::CreateMatchRequest {
        idempotency_key: key.to_string(),
        ..create_request("gops", "", bot("strong"), 0)
    };
    // The bot runner connects back to the gateway once it is up: retry while it starts.
    let mut created = None;
    for _ in 0..100 {
        match alice.create(create()).await {
            Ok(c) => {
                if !key.is_empty() {
                    let again = alice.create(create()).await.expect("the retry");
                    assert_eq!(again, c, "the retry answers the same match");
                }
                created = Some(c);
                break;
            }
            Err(s) if s.code() == tonic::Code::Unavailable => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(s) => panic!("create against the bot: {s:?}"),
        }
    }
    let created = created.expect("the bot runner started");
    let id = created.match_id.clone();
    let mut picker = Picker::new(6);
    let mut moves = 0;
    let last = loop {
        // Wait until the match ends or it is alice's turn (the bot joins, then plays).
        let v =
            wait_view(&alice, &id, 200, |v| v.outcome.is_some() || !v.legal_moves.is_empty()).await;
        if v.outcome.is_some() {
            break v;
        }
        let mv = picker.pick(&v).expect("a legal move");
        alice.submit(&id, mv).await.expect("alice's bid is accepted");
        moves += 1;
        if !key.is_empty() && moves == 5 {
            assert_eq!(alice.create(create()).await.expect("a late retry"), created);
        }
        assert!(moves <= 13, "GOPS has 13 rounds by default");
    };
    assert_eq!(moves, 13, "alice bid in every round");
    assert_eq!(last.version, 26, "the bot bid in every round too");
    assert!(
        !last.player_ids[1].is_empty() && last.player_ids[1] != alice.id,
        "the bot holds seat 1"
    );
    let outcome = last.outcome.expect("the match ended");
    assert_eq!(outcome.reason, "completed");
    check_record(&alice, &id, &outcome).await;
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_gateway_given_two_engines_for_a_family_plays_on_both() {
    let mut env = Env::start().await;
    let second =
        env.cluster.start_replica(games::Family::Goofspiel).await.expect("a second engine");
    let urls =
        [env.cluster.engine_url(games::Family::Goofspiel).expect("the first engine"), second];
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    // A match on each engine (the gateway sends each match to one of them).
    let mut on = [None, None];
    for _ in 0..40 {
        if on.iter().all(Option::is_some) {
            break;
        }
        let id = alice.create_open("gops", "", 0).await;
        let slot = &mut on[engines::replica_for(&urls, &id)];
        if slot.is_none() {
            bob.join(&id).await.expect("bob joins");
            *slot = Some(id);
        }
    }
    let on = on.map(|id| id.expect("forty matches land on both engines"));
    for (n, id) in on.iter().enumerate() {
        let played = play_out([&alice, &bob], id, &mut Picker::new(20 + n as u64), 100).await;
        let outcome = played.last.outcome.clone().expect("the match ended");
        assert_eq!(played.last.version, played.moves.len() as u64, "one version per move");
        check_record(&alice, id, &outcome).await;
    }
    // With the first engine down, its match fails over to the second (after at most a
    // few UNAVAILABLE answers while the gateway learns it is down), which rebuilds it from
    // the stream; the second's own match answers throughout.
    env.cluster.stop_engine(games::Family::Goofspiel).await;
    assert!(alice.view(&on[1]).await.outcome.is_some());
    let mut unavailable = 0;
    let view = loop {
        match alice.try_view(&on[0]).await {
            Ok(v) => break v,
            Err(s) if s.code() == Code::Unavailable && unavailable < 20 => {
                unavailable += 1;
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            }
            Err(s) => panic!("the first engine's match did not fail over: {s:?}"),
        }
    };
    assert!(view.outcome.is_some(), "the failed-over match is the finished one");
    check_record(&alice, &on[0], view.outcome.as_ref().expect("ended")).await;
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_go_on_when_an_engine_replica_dies() {
    // Two replicas behind the gateway's list; six matches, some on each. One replica
    // dies mid-match and stays down: every match plays to its end on the other.
    let mut env = Env::start().await;
    env.cluster.start_replica(games::Family::Goofspiel).await.expect("a second engine");
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let mut ids = Vec::new();
    for _ in 0..6 {
        let id = alice.create_open("gops", "", 0).await;
        bob.join(&id).await.expect("bob joins");
        assert_eq!(alice.submit(&id, cluster_tests::gops(1)).await.expect("a first bid"), 1);
        ids.push(id);
    }
    env.cluster.stop_engine(games::Family::Goofspiel).await;
    for (n, id) in ids.iter().enumerate() {
        let mut picker = Picker::new(40 + n as u64);
        // The first calls may find the dead replica; retrying (as the contract says) is
        // safe, and the gateway soon passes it over.
        let mut tries = 0;
        let view = loop {
            match bob.try_view(id).await {
                Ok(v) => break v,
                Err(s) if s.code() == Code::Unavailable && tries < 20 => {
                    tries += 1;
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                }
                Err(s) => panic!("match {n} did not fail over: {s:?}"),
            }
        };
        assert_eq!(view.version, 1, "the failed-over copy holds alice's bid");
        let played = play_out([&alice, &bob], id, &mut picker, 30).await;
        let outcome = played.last.outcome.clone().expect("the match ended");
        check_record(&alice, id, &outcome).await;
    }
    env.shutdown().await;
}
