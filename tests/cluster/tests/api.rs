//! The public API's promises, checked against the running cluster: a duplicate submit is
//! applied once, a seat cannot move for the other, private events and sealed bids reach
//! only their own seat, malformed requests are refused with the right code and change
//! nothing, WatchMatch resumes exactly after a version or a message, its views are the
//! ones GetView gives, and the gateway answers grpc.health.v1.

use api::v1::{self, colosseum_service_client::ColosseumServiceClient};
use cluster_tests::{
    Env, Picker, Player, accepted, assert_status, create_request, gops, gops_view, open, play_out,
    read_n, read_to_end,
};
use tonic::Code;
use v1::gops_event::Kind as Gops;

/// A GOPS match between two fresh players, bob joined; returns (env, alice, bob, id).
async fn gops_match() -> (Env, Player, Player, String) {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    (env, alice, bob, id)
}

/// The refusal's conformance code (the `colosseum-error-code` metadata), if any.
fn error_code<T>(r: &Result<T, tonic::Status>) -> Option<&str> {
    let s = r.as_ref().err()?;
    s.metadata().get(service_kit::status::ERROR_CODE_KEY)?.to_str().ok()
}

/// The GOPS event of a watch response, if it is one.
fn gops_event(e: &v1::WatchMatchResponse) -> Option<&Gops> {
    match e.event.as_ref().and_then(|e| e.kind.as_ref()) {
        Some(v1::event::Kind::Gops(g)) => g.kind.as_ref(),
        _ => None,
    }
}

/// `my_bid` in a view's JSON (null when absent).
fn my_bid_json(v: &v1::GetViewResponse) -> serde_json::Value {
    let json: serde_json::Value = serde_json::from_str(&v.view_json).expect("view JSON");
    json.get("my_bid").cloned().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_duplicate_submit_is_applied_once() {
    let (env, alice, bob, id) = gops_match().await;
    let mut bobs_stream = bob.watch(&id, 0).await.expect("bob watches");
    let key = alice.key();
    let first = alice.submit_with(&id, Some(gops(5)), &key).await.expect("first submit");
    let Some(v1::submit_move_response::Outcome::Accepted(v1::Accepted { version })) = first.outcome
    else {
        panic!("the first submit is accepted: {first:?}")
    };
    assert_eq!(version, 1);
    let again = alice.submit_with(&id, Some(gops(5)), &key).await.expect("the retry");
    assert_eq!(
        again.outcome,
        Some(v1::submit_move_response::Outcome::Duplicate(v1::Accepted { version })),
        "the retry is a duplicate at the same version"
    );
    // A different move under the same key is refused (ALREADY_EXISTS): nothing changes.
    let other = alice.submit_with(&id, Some(gops(6)), &key).await;
    assert_status(other, Code::AlreadyExists, "version 1");
    let view = alice.view(&id).await;
    assert_eq!(view.version, version, "the view's version is unchanged");
    assert_eq!(gops_view(&view).my_bid, Some(5));

    // Bob's move closes the round; his stream up to the reveal saw alice's move once.
    assert_eq!(bob.submit(&id, gops(7)).await.expect("bob bids"), 2);
    let mut moved = 0;
    loop {
        let e = read_n(&mut bobs_stream, 1).await.remove(0);
        assert!(e.version <= 2);
        match gops_event(&e) {
            Some(Gops::Moved(m)) if m.seat == 0 => moved += 1,
            Some(Gops::Revealed(r)) => {
                assert_eq!(r.bids, Some(v1::SeatPair { seat0: 5, seat1: 7 }));
                break;
            }
            _ => {}
        }
    }
    assert_eq!(moved, 1, "bob saw alice's move once");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idempotency_keys_belong_to_their_seat() {
    // Bob reusing a key alice used (a bot's keys are predictable) is his own new move,
    // not a duplicate of hers: nobody can make the other seat's move vanish.
    let (env, alice, bob, id) = gops_match().await;
    let r = alice.submit_with(&id, Some(gops(1)), "same-key").await.expect("alice bids");
    assert_eq!(accepted(r).expect("accepted"), 1);
    let r = bob.submit_with(&id, Some(gops(2)), "same-key").await.expect("bob bids");
    assert_eq!(accepted(r).expect("bob's move is his own"), 2);
    assert_eq!(gops_view(&alice.view(&id).await).round, 1, "the round resolved");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_cannot_move_for_the_other() {
    let (env, alice, bob, id) = gops_match().await;
    let carol = env.player("carol").await;
    // No seat: refused before the rules see it.
    assert_status(carol.submit(&id, gops(1)).await, Code::PermissionDenied, "no seat");
    assert_status(
        carol.submit_with(&id, Some(gops(1)), "k").await,
        Code::PermissionDenied,
        "no seat",
    );
    alice.submit(&id, gops(5)).await.expect("alice bids");
    // Alice has moved this round: another move from her is not hers to make (and can
    // never be taken as bob's).
    let r = alice.submit(&id, gops(6)).await;
    assert_status(r.clone(), Code::FailedPrecondition, "");
    assert_eq!(error_code(&r), Some("not_your_turn"), "the conformance code reaches the client");
    assert!(r.unwrap_err().message().starts_with("not_your_turn:"));
    // Bob's own refusals.
    let r = bob.submit(&id, gops(99)).await;
    assert_status(r.clone(), Code::FailedPrecondition, "");
    assert_eq!(error_code(&r), Some("illegal_move"));
    assert!(r.unwrap_err().message().starts_with("illegal_move: "));
    let monsters = v1::Move {
        game: Some(v1::r#move::Game::DuelingMonsters(v1::DuelingMonstersMove::default())),
    };
    let r = bob.submit(&id, monsters).await;
    assert_status(r.clone(), Code::InvalidArgument, "");
    assert_eq!(error_code(&r), Some("bad_move"));
    assert!(r.unwrap_err().message().starts_with("bad_move: "));
    let r = bob.submit(&id, v1::Move { game: None }).await;
    assert_status(r.clone(), Code::InvalidArgument, "");
    assert!(r.unwrap_err().message().starts_with("bad_move: "));
    // None of it changed the match; bob's real bid is still his to make.
    let view = bob.view(&id).await;
    assert_eq!(view.version, 1);
    assert_eq!(gops_view(&view).moved, vec![0]);
    assert_eq!(bob.submit(&id, gops(5)).await.expect("bob bids"), 2);
    // A played card is illegal afterwards.
    let r = alice.submit(&id, gops(5)).await;
    assert!(r.unwrap_err().message().starts_with("illegal_move: "));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_events_reach_only_their_seat() {
    let (env, alice, bob, id) = gops_match().await;
    let carol = env.player("carol").await;
    let streams = [
        alice.watch(&id, 0).await.expect("alice watches"),
        bob.watch(&id, 0).await.expect("bob watches"),
        carol.watch(&id, 0).await.expect("carol watches"),
    ];
    let readers = streams.map(|s| tokio::spawn(read_to_end(s)));
    let mut picker = Picker::new(9);
    let players = [&alice, &bob];
    // Each round, one seat bids first; the others' views then show no bid of theirs.
    for round in 0..13 {
        let (first, second) = if round % 2 == 0 { (0, 1) } else { (1, 0) };
        let mv = picker.pick(&players[first].view(&id).await).expect("a legal bid");
        let bid = match &mv.game {
            Some(v1::r#move::Game::Gops(g)) => g.card as u32,
            other => panic!("not a bid: {other:?}"),
        };
        players[first].submit(&id, mv).await.expect("accepted");
        let mover = players[first].view(&id).await;
        assert_eq!(gops_view(&mover).my_bid, Some(bid), "the mover sees its own bid");
        let opponent = players[second].view(&id).await;
        assert_eq!(gops_view(&opponent).my_bid, None, "the opponent sees no bid");
        assert!(my_bid_json(&opponent).is_null(), "{}", opponent.view_json);
        let spectator = carol.view(&id).await;
        assert_eq!(spectator.seat, None);
        assert_eq!(gops_view(&spectator).my_bid, None, "the spectator sees no bid");
        assert!(my_bid_json(&spectator).is_null(), "{}", spectator.view_json);
        assert!(spectator.legal_moves.is_empty());
        assert_eq!(gops_view(&spectator).moved, vec![first as u32]);
        let mv = picker.pick(&players[second].view(&id).await).expect("a legal bid");
        players[second].submit(&id, mv).await.expect("accepted");
    }
    let outcome = alice.view(&id).await.outcome.expect("the match ended");
    assert_eq!(outcome.reason, "completed");

    let mut received = Vec::new();
    for r in readers {
        received.push(r.await.expect("the reader"));
    }
    // Public events: the same on every stream (each stream numbers its own messages, so
    // a seat's private events shift the indexes of its own stream only).
    let public: Vec<Vec<(u64, &Option<v1::Event>)>> = received
        .iter()
        .map(|s| s.iter().filter(|e| !e.private).map(|e| (e.version, &e.event)).collect())
        .collect();
    assert!(public[0] == public[1], "seat 0 and seat 1 got different public events");
    assert!(public[0] == public[2], "a seat and the spectator got different public events");
    // Indexes count only what the stream carries: 0, 1, ... within each version.
    for stream in &received {
        let mut expected = (0, 0);
        for e in stream {
            let next = if e.version == expected.0 { expected.1 } else { 0 };
            assert_eq!((e.version, e.index), (e.version, next), "indexes have no gaps");
            expected = (e.version, next + 1);
        }
    }
    assert!(received[2].iter().all(|e| !e.private), "the spectator receives no private event");
    for (s, stream) in received.iter().take(2).enumerate() {
        let mut sealed = 0;
        for e in stream {
            if let Some(Gops::BidSealed(b)) = gops_event(e) {
                assert_eq!(b.seat, s as u32, "seat {s}'s stream has another seat's sealed bid");
                assert!(e.private, "a sealed bid is private");
                sealed += 1;
            } else {
                assert!(!e.private, "the only private GOPS event is one's own sealed bid: {e:?}");
            }
        }
        assert_eq!(sealed, 13, "seat {s} received each of its own sealed bids");
    }
    assert!(received[2].iter().all(|e| !matches!(gops_event(e), Some(Gops::BidSealed(_)))));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_requests_are_refused_and_change_nothing() {
    let (env, alice, bob, id) = gops_match().await;
    alice.submit(&id, gops(3)).await.expect("alice bids");
    let url = env.cluster.gateway_url();
    let mut raw = ColosseumServiceClient::connect(url.clone()).await.expect("connect");
    let view_of = |id: &str| v1::GetViewRequest { match_id: id.to_string() };
    let submit = |mv: Option<v1::Move>, key: &str| v1::SubmitMoveRequest {
        match_id: id.clone(),
        r#move: mv,
        idempotency_key: key.to_string(),
    };

    // Authentication.
    assert_status(raw.get_view(view_of(&id)).await, Code::Unauthenticated, "no session token");
    assert_status(
        raw.submit_move(submit(Some(gops(4)), "k")).await,
        Code::Unauthenticated,
        "no session token",
    );
    let mut bad = tonic::Request::new(submit(Some(gops(4)), "k"));
    bad.metadata_mut().insert("authorization", "Bearer not-a-token".parse().expect("ascii"));
    assert_status(raw.submit_move(bad).await, Code::Unauthenticated, "unknown or expired");
    let mut not_bearer = tonic::Request::new(view_of(&id));
    not_bearer.metadata_mut().insert("authorization", "Basic abc".parse().expect("ascii"));
    assert_status(raw.get_view(not_bearer).await, Code::Unauthenticated, "no session token");

    // Match ids.
    assert_status(bob.try_view("not-a-uuid").await, Code::InvalidArgument, "not a UUID");
    assert_status(bob.try_view("").await, Code::InvalidArgument, "match_id is required");
    let unknown = "0190aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee";
    assert_status(bob.try_view(unknown).await, Code::NotFound, "no match");
    assert_status(bob.submit(unknown, gops(4)).await, Code::NotFound, "no match");
    assert_status(bob.join(unknown).await, Code::NotFound, "no match");
    assert_status(bob.record(unknown).await, Code::NotFound, "no match");
    assert_status(bob.watch(unknown, 0).await, Code::NotFound, "no match");
    assert_status(bob.submit("not-a-uuid", gops(4)).await, Code::InvalidArgument, "not a UUID");

    // CreateMatch.
    let create = |game: &str, options: &str, seat: u32, move_time_ms: u64| v1::CreateMatchRequest {
        seat,
        ..create_request(game, options, open(), move_time_ms)
    };
    assert_status(
        bob.create(create("chess", "", 0, 0)).await,
        Code::InvalidArgument,
        "unknown game",
    );
    assert_status(
        bob.create(create("gops", r#"{"cards": 2}"#, 0, 0)).await,
        Code::InvalidArgument,
        "cards",
    );
    assert_status(bob.create(create("gops", "{", 0, 0)).await, Code::InvalidArgument, "not JSON");
    assert_status(bob.create(create("gops", "", 2, 0)).await, Code::InvalidArgument, "seat 2");
    assert_status(
        bob.create(create("gops", "", 0, 10)).await,
        Code::InvalidArgument,
        "move_time_ms",
    );
    assert_status(
        bob.create(create_request("gops", "", cluster_tests::bot("nobody"), 0)).await,
        Code::InvalidArgument,
        "no bot",
    );

    // SubmitMove.
    assert_status(bob.submit_with(&id, None, "k").await, Code::InvalidArgument, "move is required");
    assert_status(
        bob.submit_with(&id, Some(gops(4)), "").await,
        Code::InvalidArgument,
        "idempotency_key",
    );
    assert_status(
        bob.submit_with(&id, Some(gops(4)), &"k".repeat(129)).await,
        Code::InvalidArgument,
        "idempotency_key",
    );
    // The record of a running match would reveal what the rules hide.
    assert_status(bob.record(&id).await, Code::FailedPrecondition, "still running");
    // No seat left to join.
    let carol = env.player("carol").await;
    assert_status(carol.join(&id).await, Code::FailedPrecondition, "no open seat");

    // Nothing changed: the match is where alice's bid left it, bob still owes his.
    let view = bob.view(&id).await;
    assert_eq!(view.version, 1);
    assert_eq!(view.to_move, vec![1]);
    assert_eq!(gops_view(&view).moved, vec![0]);
    assert_eq!(bob.submit(&id, gops(4)).await.expect("bob bids"), 2);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_resumes_exactly_after_a_version() {
    let (env, alice, bob, id) = gops_match().await;
    let mut picker = Picker::new(10);
    let players = [&alice, &bob];
    async fn bid(p: &Player, id: &str, picker: &mut Picker) {
        let mv = picker.pick(&p.view(id).await).expect("a legal bid");
        p.submit(id, mv).await.expect("accepted");
    }
    for _ in 0..3 {
        for p in players {
            bid(p, &id, &mut picker).await;
        }
    }
    // Read the first three rounds: version 6's last event for alice turns up round 4.
    let mut first = alice.watch(&id, 0).await.expect("alice watches");
    let mut seen = Vec::new();
    loop {
        let e = read_n(&mut first, 1).await.remove(0);
        let done = matches!(gops_event(&e), Some(Gops::RoundStarted(r)) if r.round == 4);
        seen.push(e);
        if done {
            break;
        }
    }
    let last = seen.last().expect("events").version;
    assert_eq!(last, 6);
    // The connection drops; the match goes on meanwhile.
    drop(first);
    for p in players {
        bid(p, &id, &mut picker).await;
    }
    bid(&alice, &id, &mut picker).await;
    // Reconnect after the last version seen: backfill, then live to the end.
    let resumed = alice.watch(&id, last).await.expect("alice watches again");
    let reader = tokio::spawn(read_to_end(resumed));
    loop {
        let mut moved = false;
        for p in players {
            let v = p.view(&id).await;
            if v.outcome.is_some() {
                break;
            }
            if let Some(mv) = picker.pick(&v) {
                p.submit(&id, mv).await.expect("accepted");
                moved = true;
            }
        }
        if !moved {
            break;
        }
    }
    let rest = reader.await.expect("the reader");
    assert_eq!(rest.first().map(|e| e.version), Some(last + 1), "starts right after");
    // No gap, no repeat: the two parts are exactly one stream from the start.
    let full = read_to_end(alice.watch(&id, 0).await.expect("watch from 0")).await;
    let joined: Vec<v1::WatchMatchResponse> = seen.iter().chain(rest.iter()).cloned().collect();
    assert_eq!(joined, full);
    // And from any version of the finished match.
    for after in [1, 13, 25] {
        let part = read_to_end(alice.watch(&id, after).await.expect("watch")).await;
        let expected: Vec<_> = full.iter().filter(|e| e.version > after).cloned().collect();
        assert_eq!(part, expected, "after version {after}");
    }
    // (version, index) strictly increases: ordered, nothing twice.
    assert!(full.windows(2).all(|w| (w[0].version, w[0].index) < (w[1].version, w[1].index)));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watched_views_are_what_get_view_gives_each_viewer() {
    let (env, alice, bob, id) = gops_match().await;
    let carol = env.player("carol").await;
    let watchers = [&alice, &bob, &carol];
    let mut readers = Vec::new();
    for w in watchers {
        let s = w.watch_with(&id, 0, None, true).await.expect("watch with views");
        readers.push(tokio::spawn(read_to_end(s)));
    }
    // Play it out one move at a time, keeping what GetView gives each viewer at each
    // version (nothing else moves the match meanwhile).
    let mut picker = Picker::new(21);
    let mut got: Vec<std::collections::BTreeMap<u64, v1::GetViewResponse>> =
        vec![Default::default(), Default::default(), Default::default()];
    'play: loop {
        for p in [&alice, &bob] {
            let v = p.view(&id).await;
            if v.outcome.is_some() {
                break 'play;
            }
            let Some(mv) = picker.pick(&v) else { continue };
            p.submit(&id, mv).await.expect("accepted");
            for (w, seen) in watchers.iter().zip(got.iter_mut()) {
                let v = w.view(&id).await;
                seen.insert(v.version, v);
            }
        }
    }
    for (i, reader) in readers.into_iter().enumerate() {
        let stream = reader.await.expect("the reader");
        let views: Vec<&v1::WatchMatchResponse> =
            stream.iter().filter(|m| m.view.is_some()).collect();
        let last = stream.last().expect("messages").version;
        // Views come with the viewer's latest version as the stream reads it: at most one
        // per version, in order, each after its version's events, and the last version's
        // always (one move at a time here, so most versions have theirs).
        let versions: Vec<u64> = views.iter().map(|m| m.version).collect();
        assert!(versions.windows(2).all(|w| w[0] < w[1]), "{versions:?}");
        assert_eq!(versions.last(), Some(&last), "the final view");
        assert!(versions.len() as u64 > last / 2, "most versions have a view: {versions:?}");
        for m in &views {
            assert!(m.event.is_none());
            assert!(stream.iter().all(|e| e.version != m.version || e.index <= m.index));
            assert_eq!(m.private, i < 2, "a seat's view is private, a spectator's is not");
        }
        for m in views.iter().filter(|m| m.version > 0) {
            let mut streamed = m.view.clone().expect("a view");
            let mut asked = got[i].get(&m.version).cloned().expect("GetView at that version");
            // Only the time left (read at different moments) and the JSON form differ.
            assert!(streamed.view_json.is_empty());
            for v in [&mut streamed, &mut asked] {
                v.deadline_in_ms = None;
                v.view_json.clear();
            }
            assert_eq!(streamed, asked, "viewer {i} at version {}", m.version);
        }
        let end = views.last().and_then(|m| m.view.as_ref()).expect("the last view");
        assert!(end.outcome.as_ref().is_some_and(|o| !o.seed.is_empty()), "the end shows the seed");
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn watch_resumes_exactly_after_any_message() {
    let (env, alice, bob, id) = gops_match().await;
    play_out([&alice, &bob], &id, &mut Picker::new(22), 100).await;
    // The time left in a view depends on when it is sent: leave it out of the comparison.
    let timeless = |mut ms: Vec<v1::WatchMatchResponse>| {
        for m in &mut ms {
            if let Some(v) = &mut m.view {
                v.deadline_in_ms = None;
            }
        }
        ms
    };
    let full =
        timeless(read_to_end(alice.watch_with(&id, 0, None, true).await.expect("watch")).await);
    assert!(full.iter().any(|m| m.view.is_some()) && full.iter().any(|m| m.event.is_some()));
    for (n, m) in full.iter().enumerate() {
        let rest = timeless(
            read_to_end(
                alice.watch_with(&id, m.version, Some(m.index), true).await.expect("resume"),
            )
            .await,
        );
        assert_eq!(rest, full[n + 1..], "after version {} index {}", m.version, m.index);
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hub_and_the_engine_count_their_work() {
    // Counters are process-wide and other tests run beside this one (so are gauges, which
    // every test's hub sets): only a counter's growth is ours to check.
    let count = |name| service_kit::metrics::metric(name).load(std::sync::atomic::Ordering::SeqCst);
    let (env, alice, bob, id) = gops_match().await;
    let (reads, steps) =
        (count("colosseum_gateway_hub_reads_total"), count("colosseum_engine_steps_total"));
    let mut watch = bob.watch_with(&id, 0, None, true).await.expect("bob watches");
    let mv = Picker::new(3).pick(&alice.view(&id).await).expect("a legal bid");
    let version = alice.submit(&id, mv).await.expect("accepted");
    // Bob hears of it through the hub: its view at that version arrives.
    loop {
        let m = read_n(&mut watch, 1).await.remove(0);
        if m.view.is_some() && m.version == version {
            break;
        }
    }
    assert!(count("colosseum_gateway_hub_reads_total") > reads, "the hub read the new entry");
    assert!(count("colosseum_engine_steps_total") > steps, "the engine counted the step");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_answers_health_checks() {
    use tonic_health::pb::health_client::HealthClient;
    use tonic_health::pb::{HealthCheckRequest, health_check_response::ServingStatus};
    let env = Env::start().await;
    let channel = tonic::transport::Endpoint::from_shared(env.cluster.gateway_url())
        .expect("a URL")
        .connect()
        .await
        .expect("connect to the gateway");
    let mut health = HealthClient::new(channel);
    for service in ["", "colosseum.v1.ColosseumService"] {
        let r = health
            .check(HealthCheckRequest { service: service.to_string() })
            .await
            .unwrap_or_else(|s| panic!("check {service:?}: {s:?}"))
            .into_inner();
        assert_eq!(r.status(), ServingStatus::Serving, "{service:?}");
    }
    let unknown = health.check(HealthCheckRequest { service: "nope".into() }).await;
    assert_status(unknown, Code::NotFound, "");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_cluster_stops_while_a_client_watches() {
    // A watcher must not hold the gateway's graceful shutdown open forever, and must learn
    // that it should reconnect (UNAVAILABLE), not that the match ended (a clean end).
    let (env, alice, _bob, id) = gops_match().await;
    alice.submit(&id, gops(1)).await.expect("alice bids");
    let mut stream = alice.watch(&id, 0).await.expect("alice watches");
    read_n(&mut stream, 3).await;
    tokio::time::timeout(std::time::Duration::from_secs(10), env.shutdown())
        .await
        .expect("the cluster stops within 10 s");
    let mut end = None;
    for _ in 0..100 {
        match stream.message().await {
            Ok(Some(_)) => continue,
            other => {
                end = Some(other);
                break;
            }
        }
    }
    match end.expect("the stream ended") {
        Err(s) => assert_eq!(s.code(), Code::Unavailable, "{s:?}"),
        Ok(_) => panic!("the stream ended cleanly, as if the match had ended"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_create_or_join_answers_the_same_match() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let keyed = |game: &str, seat: u32, key: &str| v1::CreateMatchRequest {
        seat,
        idempotency_key: key.to_string(),
        ..create_request(game, "", open(), 0)
    };
    let first = alice.create(keyed("gops", 0, "create-1")).await.expect("created");
    let again = alice.create(keyed("gops", 0, "create-1")).await.expect("the retry");
    assert_eq!(first, again, "the same match id, seat and commitment");
    // A retried join is answered the same seat.
    assert_eq!(bob.join_with(&first.match_id, "join-1").await.expect("bob joins"), 1);
    assert_eq!(bob.join_with(&first.match_id, "join-1").await.expect("the retry"), 1);
    // A retry after the match started still answers it, and changes nothing.
    alice.submit(&first.match_id, gops(3)).await.expect("alice bids");
    assert_eq!(alice.create(keyed("gops", 0, "create-1")).await.expect("a late retry"), first);
    assert_eq!(bob.view(&first.match_id).await.version, 1);
    // The key with another request is final.
    for other in [keyed("hexspiel", 0, "create-1"), keyed("cure-plague", 0, "create-1")] {
        assert_status(
            alice.create(other).await,
            Code::AlreadyExists,
            "the idempotency key was used for another request",
        );
    }
    assert_status(alice.create(keyed("gops", 1, "create-1")).await, Code::AlreadyExists, "");
    assert_status(
        alice.create(keyed("gops", 0, &"k".repeat(129))).await,
        Code::InvalidArgument,
        "at most 128",
    );
    assert_status(
        bob.join_with(&first.match_id, &"k".repeat(129)).await,
        Code::InvalidArgument,
        "at most 128",
    );
    // Keys are the player's own; no key creates a match every time.
    let bobs = bob.create(keyed("gops", 0, "create-1")).await.expect("bob's own");
    assert_ne!(bobs.match_id, first.match_id);
    let a = alice.create(keyed("gops", 0, "")).await.expect("created");
    let b = alice.create(keyed("gops", 0, "")).await.expect("created");
    assert_ne!(a.match_id, b.match_id);
    // Four matches exist, no more.
    let client = redis::Client::open(env.redis.url()).expect("url");
    let mut conn = client.get_multiplexed_async_connection().await.expect("connect");
    let metas: Vec<String> =
        redis::cmd("KEYS").arg("colosseum:{*}:meta").query_async(&mut conn).await.expect("KEYS");
    assert_eq!(metas.len(), 4, "{metas:?}");
    env.shutdown().await;
}
