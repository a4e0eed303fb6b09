//! Services that crash and come back: a rules engine stopped mid-match loses nothing that
//! was acknowledged (the stream is the truth, a restarted engine rebuilds from it), a
//! deadline that falls due while the clock is down fires once the clock is back, and so
//! does one whose deadline index entry was lost (the clock repairs the index at start);
//! and a watcher keeps receiving a match through a Redis restart (the gateway's hub
//! subscribes to the append feed again and reads what it missed).

use api::v1;
use cluster_tests::{
    Env, Picker, Player, accepted, assert_status, check_record, gops, gops_view, read_n, wait_view,
};
use std::time::Duration;
use test_harness::{Persistence, RedisOptions};
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_restarted_mid_match_loses_nothing_acknowledged() {
    let mut env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 0).await;
    bob.join(&id).await.expect("bob joins");
    let seats = [&alice, &bob];
    let mut picker = Picker::new(7);
    // Every acknowledged move: (seat, move) in order.
    let mut acked: Vec<(u32, v1::Move)> = Vec::new();
    // Four rounds before the crash.
    for _ in 0..4 {
        for (seat, p) in seats.iter().enumerate() {
            let mv = picker.pick(&p.view(&id).await).expect("a legal bid");
            let v = p.submit(&id, mv.clone()).await.expect("accepted");
            acked.push((seat as u32, mv));
            assert_eq!(v, acked.len() as u64);
        }
    }
    // Half a round: alice has sealed, bob has not.
    let mv = picker.pick(&alice.view(&id).await).expect("a legal bid");
    acked.push((0, mv.clone()));
    assert_eq!(alice.submit(&id, mv).await.expect("accepted"), acked.len() as u64);
    let bob_view = bob.view(&id).await;
    let bob_move = picker.pick(&bob_view).expect("a legal bid");

    env.cluster.stop_engine(games::Family::Goofspiel).await;
    // A move while the engine is down is refused as UNAVAILABLE, not silently lost.
    let key = bob.key();
    let down = bob.submit_with(&id, Some(bob_move.clone()), &key).await;
    assert_eq!(
        down.as_ref().map_err(tonic::Status::code).err(),
        Some(Code::Unavailable),
        "{down:?}"
    );

    env.cluster.restart_engine(games::Family::Goofspiel).await.expect("the engine restarts");
    // The client retries with the same key until the engine answers.
    let answer = bob.submit_retrying(&id, &bob_move, &key).await;
    let v = accepted(answer).expect("applied once, now");
    acked.push((1, bob_move));
    assert_eq!(v, acked.len() as u64);
    // The rebuilt engine knows every acknowledged step.
    let view = alice.view(&id).await;
    assert_eq!(view.version, acked.len() as u64);
    assert_eq!(gops_view(&view).round, 5, "five rounds resolved");

    // Play on to the end.
    loop {
        let mut moved = false;
        for (seat, p) in seats.iter().enumerate() {
            let view = p.view(&id).await;
            if view.outcome.is_some() {
                break;
            }
            if let Some(mv) = picker.pick(&view) {
                let v = p.submit(&id, mv.clone()).await.expect("accepted");
                acked.push((seat as u32, mv));
                assert_eq!(v, acked.len() as u64);
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let last = alice.view(&id).await;
    let outcome = last.outcome.clone().expect("the match ended");
    assert_eq!(last.version, acked.len() as u64, "the version counts every acknowledged step");
    let record = check_record(&alice, &id, &outcome).await;
    let expected: Vec<serde_json::Value> = acked
        .iter()
        .map(|(seat, mv)| {
            serde_json::json!({"seat": seat, "move": games::registry::move_to_json("gops", mv).expect("json")})
        })
        .collect();
    assert_eq!(record.steps, expected, "the record holds every acknowledged move, in order");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_due_while_the_clock_is_down_fires_after_it_restarts() {
    let mut env = Env::start().await;
    let (alice, bob, id) = bid_with_the_clock_down(&mut env).await;
    // The deadline passes with nobody to fire it: nothing happens.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let view = bob.view(&id).await;
    assert!(view.outcome.is_none(), "nothing fires while the clock is down: {view:?}");
    assert_eq!(view.version, 1);

    env.cluster.restart_clock().await.expect("the clock restarts");
    let outcome = bob_missed_the_deadline(&bob, &id).await;
    check_record(&alice, &id, &outcome).await;
    // Fenced by version: a late duplicate firing (the sweep again) changes nothing.
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert_eq!(alice.view(&id).await.version, 2);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deadline_whose_index_entry_was_lost_fires_after_the_clock_restarts() {
    let mut env = Env::start().await;
    let (_alice, bob, id) = bid_with_the_clock_down(&mut env).await;
    // The index the clock polls loses the entry (as when a writer dies between its two
    // writes); the match's own deadline stays armed.
    let client = redis::Client::open(env.redis.url()).expect("url");
    let mut conn = client.get_multiplexed_async_connection().await.expect("connect");
    let () = redis::cmd("DEL")
        .arg(store::redis_store::keys::DEADLINES)
        .query_async(&mut conn)
        .await
        .expect("DEL");
    tokio::time::sleep(Duration::from_millis(1_500)).await;

    env.cluster.restart_clock().await.expect("the clock restarts");
    bob_missed_the_deadline(&bob, &id).await;
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watcher_keeps_its_match_through_a_redis_restart() {
    let options = RedisOptions { persistence: Persistence::AppendOnly, ..RedisOptions::default() };
    let mut env = Env::start_with(options).await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 0).await;
    bob.join(&id).await.expect("bob joins");
    let mut watch = bob.watch_with(&id, 0, None, true).await.expect("bob watches");
    let mut picker = Picker::new(12);
    let first = alice.submit(&id, picker.pick(&alice.view(&id).await).expect("a bid")).await;
    assert_eq!(first.expect("accepted"), 1);
    view_at(&mut watch, 1).await;

    // Redis goes down and comes back: the hub's subscription ends with it.
    tokio::task::block_in_place(|| env.redis.restart());
    // Calls in flight during the restart may fail; the next ones reconnect.
    let version = loop {
        let answer = match bob.try_view(&id).await {
            Ok(view) => {
                let mv = picker.pick(&view).expect("a bid");
                bob.submit_with(&id, Some(mv), "after-restart").await
            }
            Err(s) => Err(s),
        };
        match answer {
            Ok(r) => break accepted(r).expect("accepted"),
            Err(s) if s.code() == Code::Unavailable || s.code() == Code::Internal => {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(s) => panic!("{s:?}"),
        }
    };
    assert_eq!(version, 2);
    // The same stream, never reopened, brings the move made after the restart.
    let view = view_at(&mut watch, 2).await;
    assert_eq!(view.version, 2);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_late_move_with_the_clock_down_has_the_deadline_applied_first() {
    let mut env = Env::start().await;
    let (alice, bob, id) = bid_with_the_clock_down(&mut env).await;
    // Bob's deadline passes with no clock to fire it; then he bids: the engine applies the
    // deadline first (he loses on time), so his late bid finds the match over.
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let late = bob.submit(&id, gops(1)).await;
    assert_status(late, Code::FailedPrecondition, "game_over");
    let outcome = bob_missed_the_deadline(&bob, &id).await;
    let record = check_record(&alice, &id, &outcome).await;
    assert_eq!(record.steps.len(), 2, "alice's bid and the deadline; the late bid not at all");
    assert_eq!(record.steps[1], serde_json::json!({"deadline": true}));
    // The clock, back, finds nothing left to fire.
    env.cluster.restart_clock().await.expect("the clock restarts");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(alice.view(&id).await.version, 2);
    env.shutdown().await;
}

/// Reads `watch` until its view of `version` arrives (bounded by the reads' own timeout).
async fn view_at(
    watch: &mut tonic::Streaming<v1::WatchMatchResponse>,
    version: u64,
) -> v1::GetViewResponse {
    loop {
        let m = read_n(watch, 1).await.remove(0);
        if m.version == version
            && let Some(v) = m.view
        {
            return v;
        }
    }
}

/// A GOPS match with one-second moves whose clock is stopped before bob's join arms the
/// deadline (so it cannot fire early on a slow machine), and alice's bid: bob owes a move
/// that nobody times out until the clock is back. Returns (alice, bob, match id).
async fn bid_with_the_clock_down(env: &mut Env) -> (Player, Player, String) {
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 1_000).await;
    env.cluster.stop_clock().await;
    bob.join(&id).await.expect("bob joins");
    let view = alice.view(&id).await;
    let mv = Picker::new(8).pick(&view).expect("a legal bid");
    alice.submit(&id, mv).await.expect("alice bids");
    (alice, bob, id)
}

/// Waits until the deadline ends the match: bob missed it, and it fired once.
async fn bob_missed_the_deadline(bob: &Player, id: &str) -> v1::Outcome {
    let last = wait_view(bob, id, 100, |v| v.outcome.is_some()).await;
    let outcome = last.outcome.clone().expect("ended");
    assert_eq!(outcome.winner, Some(0), "bob missed the deadline");
    assert_eq!(outcome.reason, "missed_deadline");
    assert_eq!(last.version, 2, "the deadline fired once");
    outcome
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_idempotency_key_cannot_suppress_a_deadline() {
    // The clock fires with its own idempotency keys; a client's key that looks like one
    // must not make the firing look like a duplicate (the deadline would be dropped and
    // the late seat never penalized).
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 1_000).await;
    bob.join(&id).await.expect("bob joins");
    let r = alice.submit_with(&id, Some(gops(13)), "deadline:1").await.expect("alice bids 13");
    assert_eq!(accepted(r).expect("accepted"), 1);
    let last = wait_view(&alice, &id, 100, |v| v.outcome.is_some()).await;
    let outcome = last.outcome.clone().expect("ended");
    assert_eq!(outcome.winner, Some(0));
    assert_eq!(outcome.reason, "missed_deadline");
    let record = check_record(&alice, &id, &outcome).await;
    assert_eq!(
        record.steps,
        vec![
            serde_json::json!({"seat": 0, "move": {"card": 13}}),
            serde_json::json!({"deadline": true})
        ]
    );
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_engine_crash_mid_move_answers_unavailable_and_the_retry_is_safe() {
    let mut env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 0).await;
    bob.join(&id).await.expect("bob joins");
    let mut picker = Picker::new(11);
    let first = picker.pick(&alice.view(&id).await).expect("a legal bid");
    alice.submit(&id, first).await.expect("accepted");
    let bid = picker.pick(&bob.view(&id).await).expect("a legal bid");

    // Redis holds every write, so bob's move waits inside the engine (its seat, session
    // and match are known by now: nothing else on its path writes); the engine crashes
    // with the request in flight.
    let client = redis::Client::open(env.redis.url()).expect("url");
    let mut conn = client.get_multiplexed_async_connection().await.expect("connect");
    let () = redis::cmd("CLIENT")
        .arg(&["PAUSE", "3000", "WRITE"])
        .query_async(&mut conn)
        .await
        .expect("CLIENT PAUSE");
    let key = bob.key();
    let in_flight = {
        let (bob, id, bid, key) = (bob.clone(), id.clone(), bid.clone(), key.clone());
        tokio::spawn(async move { bob.submit_with(&id, Some(bid), &key).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!in_flight.is_finished(), "the move waits on Redis");
    env.cluster.stop_engine(games::Family::Goofspiel).await;
    let cut = in_flight.await.expect("the request task");
    assert_eq!(cut.as_ref().map_err(tonic::Status::code).err(), Some(Code::Unavailable), "{cut:?}");
    // With the engine down, a new attempt is refused the same way.
    let down = bob.submit_with(&id, Some(bid.clone()), &key).await;
    assert_eq!(
        down.as_ref().map_err(tonic::Status::code).err(),
        Some(Code::Unavailable),
        "{down:?}"
    );
    let () = redis::cmd("CLIENT").arg("UNPAUSE").query_async(&mut conn).await.expect("UNPAUSE");

    env.cluster.restart_engine(games::Family::Goofspiel).await.expect("the engine restarts");
    // The retry with the same key: applied now, or found applied (if the cut request's
    // write reached Redis after all). Either way the move is in the match exactly once.
    let answer = bob.submit_retrying(&id, &bid, &key).await;
    assert!(
        matches!(
            answer.outcome,
            Some(
                v1::submit_move_response::Outcome::Accepted(v1::Accepted { version: 2 })
                    | v1::submit_move_response::Outcome::Duplicate(v1::Accepted { version: 2 })
            )
        ),
        "{answer:?}"
    );
    let view = alice.view(&id).await;
    assert_eq!((view.version, gops_view(&view).round), (2, 1), "one round, bob's bid once");
    env.shutdown().await;
}
