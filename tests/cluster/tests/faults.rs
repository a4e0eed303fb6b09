//! Faults on a real Redis and the real services: a SubmitMove cancelled while its append
//! waits on Redis, replicas behind one another, and a Redis that loses
//! its last writes (as a host crash under `appendfsync everysec` does). Each ends with the
//! match going on and its record verifying.

use cluster_tests::{Env, Picker, accepted, check_record, gops, read_n, wait_view};
use std::time::Duration;
use tonic::Code;

async fn redis(env: &Env) -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(env.redis.url()).expect("url");
    // SAVE writes to disk: on a busy machine it can take longer than the default timeout.
    let config = redis::AsyncConnectionConfig::new()
        .set_response_timeout(Some(std::time::Duration::from_secs(30)));
    client.get_multiplexed_async_connection_with_config(&config).await.expect("connect")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_submit_cancelled_during_its_append_is_stored_once_and_the_match_goes_on() {
    let mut env = Env::start().await;
    let (alice, bob, id) = env.gops_between(2_000).await;

    // Redis holds every write for a second: alice's append waits, and her client gives up
    // after 200 ms (the gateway and the engine see the call dropped).
    let mut conn = redis(&env).await;
    let () = redis::cmd("CLIENT")
        .arg(&["PAUSE", "1000", "WRITE"][..])
        .query_async(&mut conn)
        .await
        .expect("CLIENT PAUSE");
    let msg = v1_submit(&id, 7, "alice-7");
    let mut req = alice.client.request(msg.clone());
    req.set_timeout(Duration::from_millis(200));
    let cut = alice.client.api().submit_move(req).await;
    let code = cut.expect_err("the client gave up").code();
    assert!(matches!(code, Code::DeadlineExceeded | Code::Cancelled), "{code:?}");

    // The retry, with the same key, once Redis takes writes again: the move was stored
    // exactly once, at version 1.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let retry = alice.client.api().submit_move(alice.client.request(msg)).await;
    let outcome = retry.expect("the retry is answered").into_inner().outcome;
    assert_eq!(
        outcome,
        Some(api::v1::submit_move_response::Outcome::Duplicate(api::v1::Accepted { version: 1 })),
        "the cancelled move was stored once"
    );

    // The opponent moves on, then alice bids and bob lets his deadline pass: it fires.
    assert_eq!(bob.submit(&id, gops(3)).await.expect("bob bids"), 2);
    assert_eq!(alice.submit(&id, gops(1)).await.expect("alice bids"), 3);
    let last = wait_view(&bob, &id, 200, |v| v.outcome.is_some()).await;
    let outcome = last.outcome.clone().expect("ended");
    assert_eq!((outcome.winner, outcome.reason.as_str()), (Some(0), "missed_deadline"));
    assert_eq!(last.version, 4);

    // The stream replays: an engine with an empty cache rebuilds the match from it, and
    // the record verifies and holds each move once.
    env.cluster.stop_engine(games::Family::Goofspiel).await;
    env.cluster.restart_engine(games::Family::Goofspiel).await.expect("the engine restarts");
    // The gateway reconnects to the new engine: UNAVAILABLE until then.
    for _ in 0..100 {
        match alice.try_view(&id).await {
            Err(s) if s.code() == Code::Unavailable => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => {
                assert_eq!(other.expect("the view").version, 4);
                break;
            }
        }
    }
    let record = check_record(&alice, &id, &outcome).await;
    assert_eq!(
        record.steps,
        vec![
            serde_json::json!({"seat": 0, "move": {"card": 7}}),
            serde_json::json!({"seat": 1, "move": {"card": 3}}),
            serde_json::json!({"seat": 0, "move": {"card": 1}}),
            serde_json::json!({"deadline": true}),
        ]
    );
    env.shutdown().await;
}

fn v1_submit(id: &str, card: i64, key: &str) -> api::v1::SubmitMoveRequest {
    api::v1::SubmitMoveRequest {
        match_id: id.to_string(),
        r#move: Some(gops(card)),
        idempotency_key: key.to_string(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_redis_that_loses_its_last_writes_leaves_no_watcher_silent() {
    let mut env = Env::start().await;
    let (alice, bob, id) = env.gops_between(60_000).await;
    let mut live = bob.watch_with(&id, 0, None, true).await.expect("bob watches");
    assert_eq!(alice.submit(&id, gops(5)).await.expect("bid"), 1);
    assert_eq!(bob.submit(&id, gops(6)).await.expect("bid"), 2);
    // What a relaxed fsync had made durable: the state after version 2.
    let mut conn = redis(&env).await;
    let () = redis::cmd("SAVE").query_async(&mut conn).await.expect("SAVE");
    assert_eq!(alice.submit(&id, gops(7)).await.expect("bid"), 3);
    assert_eq!(bob.submit(&id, gops(8)).await.expect("bid"), 4);
    let seen = read_until_view(&mut live, 4).await;
    let tag_4 = seen.iter().rev().find(|m| m.version == 4).expect("version 4").tag;
    assert_ne!(tag_4, 0, "every message carries its entry's tag");

    // The host crashes: Redis comes back with versions 3 and 4 gone.
    tokio::task::block_in_place(|| env.redis.restart());
    // The game goes on from version 2: versions 3 and 4 are reissued to other bids.
    let v3 = accepted(alice.submit_retrying(&id, &gops(12), "alice-12").await).expect("accepted");
    assert_eq!(v3, 3, "the stream lost versions 3 and 4; the engine follows it");
    let v4 = accepted(bob.submit_retrying(&id, &gops(2), "bob-2").await).expect("accepted");
    assert_eq!(v4, 4);

    // The live watcher is told, and restated the match: the new version 4 reaches it.
    let after = read_until_resync(&mut live).await;
    assert_eq!(after.resync, Some(api::v1::Resync { after_version: 0 }));
    let restated = read_until_view(&mut live, 4).await;
    let new_tag_4 = restated.iter().rev().find(|m| m.version == 4).expect("version 4").tag;
    assert_ne!(new_tag_4, tag_4, "version 4 was reissued");
    let view = restated.last().and_then(|m| m.view.clone()).expect("a view");
    assert_eq!(view, strip_deadline_in(bob.view(&id).await, &view));

    // A client resuming from the lost version 4 (its old tag) is resynchronized too,
    // and one resuming from a version the match does not have yet.
    for (after_version, tag) in [(4, Some(tag_4)), (9, None)] {
        let req = api::v1::WatchMatchRequest {
            match_id: id.clone(),
            after_version,
            include_views: true,
            after_index: None,
            after_tag: tag,
            include_presence: false,
        };
        let mut resumed = bob
            .client
            .api()
            .watch_match(bob.client.request(req))
            .await
            .expect("watch")
            .into_inner();
        let first = read_n(&mut resumed, 1).await.remove(0);
        assert_eq!(first.resync, Some(api::v1::Resync { after_version: 0 }), "{after_version}");
        read_until_view(&mut resumed, 4).await;
    }
    // Resuming with the current tag is an ordinary resume: nothing to resync.
    let req = api::v1::WatchMatchRequest {
        match_id: id.clone(),
        after_version: 4,
        include_views: true,
        after_index: None,
        after_tag: Some(new_tag_4),
        include_presence: false,
    };
    let mut resumed =
        bob.client.api().watch_match(bob.client.request(req)).await.expect("watch").into_inner();
    assert_eq!(alice.submit(&id, gops(4)).await.expect("bid"), 5);
    let next = read_n(&mut resumed, 1).await.remove(0);
    assert_eq!((next.version, next.resync), (5, None));

    // The match plays to its end and verifies.
    let played = cluster_tests::play_out([&alice, &bob], &id, &mut Picker::new(4), 40).await;
    let outcome = played.last.outcome.clone().expect("ended");
    check_record(&alice, &id, &outcome).await;
    env.shutdown().await;
}

/// The view as GetView gives it, with the stream view's time left (read at another time).
fn strip_deadline_in(
    mut v: api::v1::GetViewResponse,
    like: &api::v1::GetViewResponse,
) -> api::v1::GetViewResponse {
    v.deadline_in_ms = like.deadline_in_ms;
    v.view_json = String::new();
    v
}

/// Reads `watch` until the view of `version`; returns every message read.
async fn read_until_view(
    watch: &mut tonic::Streaming<api::v1::WatchMatchResponse>,
    version: u64,
) -> Vec<api::v1::WatchMatchResponse> {
    let mut out = Vec::new();
    loop {
        let m = read_n(watch, 1).await.remove(0);
        let done = m.version == version && m.view.is_some();
        out.push(m);
        if done {
            return out;
        }
    }
}

/// Reads `watch` until its `resync` message.
async fn read_until_resync(
    watch: &mut tonic::Streaming<api::v1::WatchMatchResponse>,
) -> api::v1::WatchMatchResponse {
    loop {
        let m = read_n(watch, 1).await.remove(0);
        if m.resync.is_some() {
            return m;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn moves_spread_over_two_engine_replicas_are_never_wrongly_refused() {
    // Two gateways, each sending GOPS to its own replica (as during a rollout): every call
    // goes through one or the other at random, so each replica's cached copy of a match is
    // often behind the other's. Six matches at once, to the end: no legal move refused.
    let mut env = Env::start().await;
    let second =
        env.cluster.start_second_gateway(games::Family::Goofspiel).await.expect("a second gateway");
    let mut matches = Vec::new();
    for n in 0..6 {
        let alice = env.player(&format!("alice{n}")).await;
        let bob = env.player(&format!("bob{n}")).await;
        let id = alice.create_open("gops", "", 60_000).await;
        bob.join(&id).await.expect("bob joins");
        matches.push((alice, bob, id));
    }
    let mut tasks = tokio::task::JoinSet::new();
    for (n, (alice, bob, id)) in matches.into_iter().enumerate() {
        let second = second.clone();
        tasks.spawn(async move {
            let mut picker = Picker::new(100 + n as u64);
            let seats = [alice, bob];
            let elsewhere: Vec<_> = seats.iter().map(|p| p.via(&second)).collect();
            let mut moves = 0;
            loop {
                for (seat, p) in seats.iter().enumerate() {
                    let via =
                        if picker.next_u64().is_multiple_of(2) { p } else { &elsewhere[seat] };
                    let view = via.view(&id).await;
                    if let Some(o) = view.outcome {
                        return (id, o);
                    }
                    let Some(mv) = picker.pick(&view) else { continue };
                    let via =
                        if picker.next_u64().is_multiple_of(2) { p } else { &elsewhere[seat] };
                    via.submit(&id, mv).await.unwrap_or_else(|s| {
                        panic!("a legal move at version {} was refused: {s:?}", view.version)
                    });
                    moves += 1;
                    assert!(moves <= 26, "GOPS has 26 moves");
                }
            }
        });
    }
    let mut done = 0;
    while let Some(r) = tasks.join_next().await {
        let (id, outcome) = r.expect("a match played out");
        let p = env.player("auditor").await;
        check_record(&p, &id, &outcome).await;
        done += 1;
    }
    assert_eq!(done, 6);
    env.shutdown().await;
}
