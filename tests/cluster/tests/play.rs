//! The Play stream (many matches on one bidirectional stream) on a real cluster: two
//! players play two GOPS matches to their end over one stream each (one raw, one through
//! the client's `Play`), and each match's messages are those of an unbroken WatchMatch;
//! a move resubmitted on a new stream is a duplicate applied once; a watch resumed on a
//! new stream gets exactly the rest; bad requests are answered in-band and the stream
//! goes on; a seat learns nothing of the other seat's sealed bid over Play; a garbled
//! stream, and a session that ends, end the stream.

use api::v1::{self, play_answer, play_response};
use client::{Cursor, PlayStream, Turns};
use cluster_tests::{Env, Picker, Player, assert_status, create_request, gops, open};
use prost::Message;
use std::collections::BTreeMap;
use std::time::Duration;
use tonic::Code;

/// How long any one message may take to come.
const PATIENCE: Duration = Duration::from_secs(20);

/// The next message of `s`, which must come in time.
async fn next(s: &mut PlayStream) -> play_response::Kind {
    match tokio::time::timeout(PATIENCE, s.message()).await {
        Ok(Ok(Some(m))) => m.kind.expect("a message of some kind"),
        other => panic!("expected a Play message, got {other:?}"),
    }
}

/// The next answer or error of `s`, skipping match messages.
async fn answer(s: &mut PlayStream) -> play_response::Kind {
    loop {
        match next(s).await {
            play_response::Kind::MatchMessage(_) => {}
            other => return other,
        }
    }
}

/// The in-band error of request `id`, which `s` must answer next.
async fn refusal(s: &mut PlayStream, id: u64) -> v1::CallStatus {
    match answer(s).await {
        play_response::Kind::Error(v1::PlayError { request_id, status: Some(st) }) => {
            assert_eq!(request_id, id, "{st:?}");
            assert!(st.message.len() <= 512, "a bounded message: {}", st.message.len());
            st
        }
        other => panic!("expected request {id} refused, got {other:?}"),
    }
}

/// The answer to request `id`, which `s` must answer next.
async fn answered(s: &mut PlayStream, id: u64) -> play_answer::Kind {
    match answer(s).await {
        play_response::Kind::Answer(v1::PlayAnswer { request_id, kind: Some(k) }) => {
            assert_eq!(request_id, id);
            k
        }
        other => panic!("expected request {id} answered, got {other:?}"),
    }
}

/// A message as compared between two ways of receiving it: the view's time left is
/// blanked (it is computed when the message is sent).
fn comparable(mut m: v1::WatchMatchResponse) -> v1::WatchMatchResponse {
    if let Some(v) = m.view.as_mut() {
        v.deadline_in_ms = None;
    }
    m
}

/// Checks that `got` (one match's messages over Play) is what the unbroken WatchMatch
/// `whole` sent: the same events, in order, nothing lost or twice; and each view one of
/// `whole`'s. (The store keeps only the latest version's views, so a watch that starts
/// later, or resumes, backfills the versions it missed with that one view alone, as
/// WatchMatch does; views of versions it follows live all come.)
fn assert_same_as_unbroken(
    got: &[v1::WatchMatchResponse],
    whole: &[v1::WatchMatchResponse],
    what: &str,
) {
    let events = |ms: &[v1::WatchMatchResponse]| {
        ms.iter().filter(|m| m.view.is_none()).cloned().collect::<Vec<_>>()
    };
    assert_eq!(events(got), events(whole), "{what}: the same events");
    for m in got.iter().filter(|m| m.view.is_some()) {
        assert!(whole.contains(m), "{what}: a view the unbroken stream has too: {m:?}");
    }
    let positions: Vec<(u64, u32)> = got.iter().map(|m| (m.version, m.index)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{what}: in order, nothing twice");
    assert_eq!(got.last(), whole.last(), "{what}: both end with the final view");
}

/// Everything a WatchMatch (with views) of `id` opened now sends `p`, to the match's end,
/// read in a task of its own. Opened before the match ends: a finished match's stream is
/// compacted (its views are dropped), so only a watch that followed it live compares.
async fn unary_watch(p: &Player, id: &str) -> tokio::task::JoinHandle<Vec<v1::WatchMatchResponse>> {
    let stream = p.watch_with(id, 0, None, true).await.expect("WatchMatch");
    tokio::spawn(async move {
        cluster_tests::read_to_end(stream).await.into_iter().map(comparable).collect()
    })
}

/// Plays every match of `ids` for `p` on one raw Play stream: watches each (with views),
/// submits a random legal move whenever a view asks for one, until every watch has ended
/// with the match. Each match's messages, as received.
async fn play_raw(
    p: &Player,
    ids: &[String],
    seed: u64,
) -> BTreeMap<String, Vec<v1::WatchMatchResponse>> {
    /// One match as the driver follows it.
    #[derive(Default)]
    struct Seat {
        turns: Turns,
        /// The newest view received.
        latest: Option<v1::GetViewResponse>,
        /// A move's request id, while it is unanswered (the views that come meanwhile may
        /// predate it: the newest is acted on once it is answered).
        moving: Option<(u64, u64)>,
        received: Vec<v1::WatchMatchResponse>,
    }
    let mut s = p.client.play_stream().await.expect("a Play stream");
    let mut picker = Picker::new(seed);
    let mut seats: BTreeMap<String, Seat> = BTreeMap::new();
    let mut watches = BTreeMap::new();
    for id in ids {
        watches.insert(s.watch(id, Cursor::START, true).await.expect("sent"), id.clone());
        seats.insert(id.clone(), Seat::default());
    }
    let mut open = ids.len();
    // A move's answer and its match's end come on their own ways: either may be first.
    while open > 0 || seats.values().any(|x| x.moving.is_some()) {
        let moved = match next(&mut s).await {
            play_response::Kind::MatchMessage(v1::MatchMessage { match_id, message }) => {
                let m = message.expect("a message");
                let seat = seats.get_mut(&match_id).expect("a match of ours");
                if let Some(view) = &m.view {
                    seat.latest = Some(view.clone());
                }
                seat.received.push(comparable(m));
                match_id
            }
            play_response::Kind::Answer(v1::PlayAnswer { request_id, kind }) => match kind {
                Some(play_answer::Kind::Watch(w)) => {
                    assert_eq!(watches.remove(&request_id).as_ref(), Some(&w.match_id));
                    assert!(w.seat.is_some(), "{} is seated in {}", p.name, w.match_id);
                    continue;
                }
                Some(play_answer::Kind::SubmitMove(r)) => {
                    let (id, seat) = seats
                        .iter_mut()
                        .find(|(_, x)| x.moving.is_some_and(|(r, _)| r == request_id))
                        .expect("a move of ours");
                    let (_, at) = seat.moving.take().expect("moving");
                    let version = cluster_tests::accepted(r).expect("accepted");
                    assert!(version > at, "{id}: accepted at {version}, after {at}");
                    // Every view up to the move's own version predates it.
                    seat.turns.acted(version);
                    id.clone()
                }
                other => panic!("an answer to no request of ours: {other:?}"),
            },
            play_response::Kind::Error(e) => panic!("{} was refused: {e:?}", p.name),
            play_response::Kind::WatchEnded(w) => {
                let st = w.status.expect("a status");
                assert_eq!((st.code, st.reason.as_str()), (0, ""), "{} ended: {st:?}", w.match_id);
                open -= 1;
                continue;
            }
        };
        let seat = seats.get_mut(&moved).expect("a match of ours");
        if let Some(view) = &seat.latest
            && seat.moving.is_none()
            && seat.turns.owed(view)
        {
            let mv = picker.pick(view).expect("a legal move");
            let r = s.submit(&moved, Some(mv), &p.key()).await.expect("sent");
            seat.moving = Some((r, view.version));
            seat.turns.acted(view.version);
        }
    }
    assert!(watches.is_empty(), "every watch was answered");
    seats.into_iter().map(|(id, x)| (id, x.received)).collect()
}

/// A move on `play`, retried with the same key while the answer is UNAVAILABLE (the
/// stream broke before it came: the retry contract says the same key is safe); the
/// version it made (accepted now or before: a duplicate).
async fn submit_retrying(play: &client::Play, id: &str, mv: v1::Move, key: &str) -> u64 {
    for _ in 0..100 {
        match play.submit(id, Some(mv.clone()), key).await {
            Ok(v1::SubmitMoveResponse {
                outcome:
                    Some(
                        v1::submit_move_response::Outcome::Accepted(a)
                        | v1::submit_move_response::Outcome::Duplicate(a),
                    ),
            }) => return a.version,
            Err(s) if s.code() == Code::Unavailable => {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            other => panic!("the move on {id}: {other:?}"),
        }
    }
    panic!("the move on {id} was never answered")
}

/// [`play_raw`] through the client's `Play`: a feed and a task per match, each waiting
/// `think` before each move. Also how many times the stream was reopened.
async fn play_with_feeds(
    p: &Player,
    ids: &[String],
    seed: u64,
    think: Duration,
) -> (BTreeMap<String, Vec<v1::WatchMatchResponse>>, u64) {
    let play = p.client.play().await.expect("a Play");
    let mut tasks = tokio::task::JoinSet::new();
    for (n, id) in ids.iter().enumerate() {
        let mut feed = play.watch(id, Cursor::START, true).await.expect("watched");
        let (play, p, id) = (play.clone(), p.clone(), id.clone());
        tasks.spawn(async move {
            let mut picker = Picker::new(seed + n as u64);
            let mut turns = Turns::default();
            let mut received = Vec::new();
            while let Some(m) = tokio::time::timeout(PATIENCE, feed.message())
                .await
                .expect("in time")
                .expect("the feed goes on")
            {
                if let Some(view) = &m.view
                    && turns.owed(view)
                {
                    let mv = picker.pick(view).expect("a legal move");
                    tokio::time::sleep(think).await;
                    let version = submit_retrying(&play, &id, mv, &p.key()).await;
                    assert!(version > view.version);
                    // The views queued meanwhile, up to the move's own version, predate it.
                    turns.acted(version);
                }
                received.push(comparable(m));
            }
            (id, received)
        });
    }
    let mut out = BTreeMap::new();
    while let Some(done) = tasks.join_next().await {
        let (id, received) = done.expect("a match played");
        out.insert(id, received);
    }
    (out, play.reopens())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_players_play_two_matches_over_one_stream_each() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let first = alice.create_open("gops", "", 60_000).await;
    assert_eq!(bob.join(&first).await.expect("bob joins"), 1);
    let second = bob.create_open("gops", "", 60_000).await;
    assert_eq!(alice.join(&second).await.expect("alice joins"), 1);
    let ids = [first, second];
    let mut unbroken = BTreeMap::new();
    for id in &ids {
        for p in [&alice, &bob] {
            unbroken.insert((p.name.clone(), id.clone()), unary_watch(p, id).await);
        }
    }
    let (a, (b, reopens)) =
        tokio::join!(play_raw(&alice, &ids, 1), play_with_feeds(&bob, &ids, 2, Duration::ZERO));
    assert_eq!(reopens, 0, "nothing broke");
    for id in &ids {
        for (p, got) in [(&alice, &a), (&bob, &b)] {
            let got = &got[id];
            let whole = unbroken.remove(&(p.name.clone(), id.clone())).expect("watched");
            let last = got.last().and_then(|m| m.view.clone()).expect("a last view");
            let outcome = last.outcome.expect("the match ended");
            // What the player saw ended as the record says (replayed from its seed).
            let record = cluster_tests::check_record(p, id, &outcome).await;
            assert_eq!(record.game, "gops");
            let moves = record.steps.iter().filter(|s| s.get("move").is_some()).count();
            assert_eq!(moves, 26, "13 bids each");
            // And it is exactly what an unbroken WatchMatch of the match sends.
            let whole = whole.await.expect("read");
            assert_same_as_unbroken(got, &whole, &format!("{}'s messages of {id}", p.name));
        }
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_resubmitted_on_a_new_stream_is_a_duplicate_applied_once() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(60_000).await;
    let key = alice.key();
    let mut first = alice.client.play_stream().await.expect("a stream");
    // The first attempt carries its trace context, as a unary call's metadata would.
    let trace = "4bf92f3577b34da6a3ce929d0e0e4736";
    first
        .send_raw(v1::PlayRequest {
            request_id: 1,
            kind: Some(v1::play_request::Kind::SubmitMove(v1::SubmitMoveRequest {
                match_id: id.clone(),
                r#move: Some(gops(5)),
                idempotency_key: key.clone(),
            })),
            traceparent: format!("00-{trace}-00f067aa0ba902b7-01"),
        })
        .await
        .expect("sent");
    let version = match answered(&mut first, 1).await {
        play_answer::Kind::SubmitMove(r) => cluster_tests::accepted(r).expect("accepted"),
        other => panic!("{other:?}"),
    };
    drop(first);
    // The move's entry joined that trace.
    let mut watch = alice.watch(&id, 0).await.expect("watch");
    let moved = loop {
        let m = cluster_tests::read_n(&mut watch, 1).await.remove(0);
        if m.version == version {
            break m;
        }
    };
    assert!(moved.traceparent.contains(trace), "{:?}", moved.traceparent);
    let mut second = alice.client.play_stream().await.expect("a new stream");
    let r = second.submit(&id, Some(gops(5)), &key).await.expect("sent");
    match answered(&mut second, r).await {
        play_answer::Kind::SubmitMove(v1::SubmitMoveResponse {
            outcome: Some(v1::submit_move_response::Outcome::Duplicate(d)),
        }) => assert_eq!(d.version, version, "the first move's version"),
        other => panic!("expected a duplicate: {other:?}"),
    }
    // The key with another move: refused, naming the first move's version.
    let r = second.submit(&id, Some(gops(6)), &key).await.expect("sent");
    let st = refusal(&mut second, r).await;
    assert_eq!(
        (st.code, st.reason.as_str()),
        (Code::AlreadyExists as i32, "IDEMPOTENCY_KEY_REUSED")
    );
    assert_eq!(st.metadata.get("version"), Some(&version.to_string()));
    // Applied once: the version unchanged, the first move's bid sealed.
    let view = alice.view(&id).await;
    assert_eq!(view.version, version);
    assert_eq!(cluster_tests::gops_view(&view).my_bid, Some(5));

    // Bob's stream drops right after sending, its answer never read: the same key on a
    // new stream is answered (accepted or duplicate), then a duplicate of that version.
    let key = bob.key();
    let mut first = bob.client.play_stream().await.expect("a stream");
    first.submit(&id, Some(gops(9)), &key).await.expect("sent");
    drop(first);
    let mut second = bob.client.play_stream().await.expect("a new stream");
    let mut versions = Vec::new();
    for _ in 0..2 {
        let r = second.submit(&id, Some(gops(9)), &key).await.expect("sent");
        match answered(&mut second, r).await {
            play_answer::Kind::SubmitMove(v1::SubmitMoveResponse { outcome: Some(o) }) => {
                versions.push(o)
            }
            other => panic!("{other:?}"),
        }
    }
    let v = |o: &v1::submit_move_response::Outcome| match o {
        v1::submit_move_response::Outcome::Accepted(a)
        | v1::submit_move_response::Outcome::Duplicate(a) => a.version,
    };
    assert!(matches!(versions[1], v1::submit_move_response::Outcome::Duplicate(_)));
    assert_eq!(v(&versions[0]), v(&versions[1]));
    // The round resolved once: both bids in, one round resolved.
    let view = bob.view(&id).await;
    assert_eq!(cluster_tests::gops_view(&view).hand1.as_ref().map(|h| h.values.len()), Some(12));
    assert_eq!(cluster_tests::gops_view(&view).round, 1);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_resumed_on_a_new_stream_gets_exactly_the_rest() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(60_000).await;
    let mut picker = Picker::new(11);
    // Two rounds played, then bob watches over Play and breaks off inside a version.
    for _ in 0..2 {
        for p in [&alice, &bob] {
            let mv = picker.pick(&p.view(&id).await).expect("a move");
            p.submit(&id, mv).await.expect("accepted");
        }
    }
    let whole = unary_watch(&bob, &id).await;
    let mut first = bob.client.play_stream().await.expect("a stream");
    let r = first.watch(&id, Cursor::START, true).await.expect("sent");
    let mut before = Vec::new();
    let mut at = Cursor::START;
    let mut started = false;
    // Stop after a message that is not its version's last (an event before a view).
    while !(at.index.is_some()
        && before.len() >= 5
        && before.last().is_some_and(|m: &v1::WatchMatchResponse| m.view.is_none()))
    {
        match next(&mut first).await {
            play_response::Kind::Answer(v1::PlayAnswer { request_id, .. }) => {
                assert_eq!(request_id, r);
                assert!(before.is_empty(), "the watch is answered before its first message");
                started = true;
            }
            play_response::Kind::MatchMessage(m) => {
                assert_eq!(m.match_id, id);
                let m = m.message.expect("a message");
                at = at.next(&m);
                before.push(comparable(m));
            }
            other => panic!("{other:?}"),
        }
    }
    assert!(started);
    drop(first);
    // The match goes on while bob is away (three more rounds), then he resumes on a new
    // stream, following the rest live while the match is played out.
    for _ in 0..3 {
        for p in [&alice, &bob] {
            let mv = picker.pick(&p.view(&id).await).expect("a move");
            p.submit(&id, mv).await.expect("accepted");
        }
    }
    let mut second = bob.client.play_stream().await.expect("a new stream");
    let r = second.watch(&id, at, true).await.expect("sent");
    assert!(matches!(answered(&mut second, r).await, play_answer::Kind::Watch(_)));
    let rest = tokio::spawn(async move {
        let mut after = Vec::new();
        loop {
            match next(&mut second).await {
                play_response::Kind::MatchMessage(m) => {
                    after.push(comparable(m.message.expect("a message")))
                }
                play_response::Kind::WatchEnded(w) => {
                    assert_eq!(w.status.expect("a status").code, 0, "ended with the match");
                    return after;
                }
                other => panic!("{other:?}"),
            }
        }
    });
    cluster_tests::play_out([&alice, &bob], &id, &mut picker, 26).await;
    let after = rest.await.expect("the rest read");
    let whole = whole.await.expect("read");
    assert!(!after.is_empty());
    let joined = [before, after].concat();
    assert_same_as_unbroken(&joined, &whole, "the watch resumed");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_are_answered_in_band_and_the_stream_goes_on() {
    let env = Env::start().await;
    let (alice, _bob, id) = env.gops_between(60_000).await;
    let carol = env.player("carol").await;
    let mut s = carol.client.play_stream().await.expect("a stream");
    let unknown = "6f1e7a52-0000-4000-8000-000000000001";

    let r = s.watch("not a match id", Cursor::START, false).await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!((st.code, st.reason.as_str()), (Code::InvalidArgument as i32, "INVALID_FIELD"));
    assert_eq!(st.metadata.get("field").map(String::as_str), Some("watch.match_id"));

    let r = s.watch(unknown, Cursor::START, false).await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!((st.code, st.reason.as_str()), (Code::NotFound as i32, "NOT_FOUND"));

    let r = s.submit(&id, Some(gops(1)), "k1").await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!((st.code, st.reason.as_str()), (Code::PermissionDenied as i32, "PERMISSION_DENIED"));
    assert_eq!(alice.view(&id).await.version, 0, "nothing applied");

    let r = s.submit(&id, Some(gops(1)), "").await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!(st.metadata.get("field").map(String::as_str), Some("submit_move.idempotency_key"));

    let r = s.resign(&id).await.expect("sent");
    assert_eq!(refusal(&mut s, r).await.code, Code::PermissionDenied as i32);

    let huge = "x".repeat(100_000);
    let r = s.submit(&huge, Some(gops(1)), "k2").await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!(st.code, Code::InvalidArgument as i32);
    assert!(!st.message.contains(&"x".repeat(100)), "the input is not echoed");

    s.send_raw(v1::PlayRequest { request_id: 77, kind: None, traceparent: String::new() })
        .await
        .expect("sent");
    assert_eq!(refusal(&mut s, 77).await.code, Code::InvalidArgument as i32);

    let r = s.unwatch(&huge).await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!(st.metadata.get("field").map(String::as_str), Some("unwatch.match_id"));
    assert!(!st.message.contains(&"x".repeat(100)), "the input is not echoed");

    let r = s.unwatch(&id).await.expect("sent");
    match answered(&mut s, r).await {
        play_answer::Kind::Unwatch(u) => assert!(!u.watching),
        other => panic!("{other:?}"),
    }

    // The stream goes on: carol watches as a spectator; twice is refused.
    let r = s.watch(&id, Cursor::START, false).await.expect("sent");
    match answered(&mut s, r).await {
        play_answer::Kind::Watch(w) => {
            assert_eq!((w.match_id.as_str(), w.seat), (id.as_str(), None))
        }
        other => panic!("{other:?}"),
    }
    match next(&mut s).await {
        play_response::Kind::MatchMessage(m) => {
            let e = m.message.and_then(|m| m.event).and_then(|e| e.kind);
            assert!(matches!(e, Some(v1::event::Kind::MatchStarted(_))), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    let r = s.watch(&id, Cursor::START, false).await.expect("sent");
    assert_eq!(refusal(&mut s, r).await.code, Code::AlreadyExists as i32);

    // Up to the limit of watched matches, then RESOURCE_EXHAUSTED; one unwatched makes room.
    let mut ids = Vec::new();
    let mut creating = tokio::task::JoinSet::new();
    for _ in 0..999 {
        let alice = alice.clone();
        creating.spawn(async move { alice.create_open("gops", "", 60_000).await });
        if creating.len() >= 16 {
            ids.push(creating.join_next().await.expect("a create").expect("created"));
        }
    }
    while let Some(id) = creating.join_next().await {
        ids.push(id.expect("created"));
    }
    for batch in ids.chunks(100) {
        let mut asked = BTreeMap::new();
        for m in batch {
            asked.insert(s.watch(m, Cursor::START, false).await.expect("sent"), m.clone());
        }
        while !asked.is_empty() {
            match answer(&mut s).await {
                play_response::Kind::Answer(v1::PlayAnswer {
                    request_id,
                    kind: Some(play_answer::Kind::Watch(_)),
                }) => {
                    asked.remove(&request_id).expect("one of ours");
                }
                other => panic!("{other:?}"),
            }
        }
    }
    let over = alice.create_open("gops", "", 60_000).await;
    let r = s.watch(&over, Cursor::START, false).await.expect("sent");
    let st = refusal(&mut s, r).await;
    assert_eq!(
        (st.code, st.reason.as_str()),
        (Code::ResourceExhausted as i32, "RESOURCE_EXHAUSTED")
    );
    let r = s.unwatch(&ids[0]).await.expect("sent");
    match answered(&mut s, r).await {
        play_answer::Kind::Unwatch(u) => assert!(u.watching),
        other => panic!("{other:?}"),
    }
    let r = s.watch(&over, Cursor::START, false).await.expect("sent");
    assert!(matches!(answered(&mut s, r).await, play_answer::Kind::Watch(_)));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_garbled_stream_ends_invalid_and_an_ended_session_ends_its_streams() {
    let env = Env::start().await;
    let (alice, _bob, id) = env.gops_between(60_000).await;
    // A message of another shape: its field 1 is no PlayRequest's request id.
    let channel = client::channel(&env.cluster.gateway_url()).expect("a channel");
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("ready");
    let garbage = v1::UnwatchRequest { match_id: "x".into() };
    let mut req = alice.client.request(futures_util::stream::iter([garbage]));
    req.set_timeout(PATIENCE);
    let codec = tonic_prost::ProstCodec::<v1::UnwatchRequest, v1::PlayResponse>::default();
    let path =
        tonic::codegen::http::uri::PathAndQuery::from_static("/colosseum.v1.ColosseumService/Play");
    let mut stream = grpc.streaming(req, path, codec).await.expect("the stream opens").into_inner();
    assert_status(stream.message().await, Code::InvalidArgument, "not a PlayRequest");

    // The player's session ends: its stream ends UNAUTHENTICATED within the check's period.
    let mut s = alice.client.play_stream().await.expect("a stream");
    let r = s.watch(&id, Cursor::START, false).await.expect("sent");
    assert!(matches!(answered(&mut s, r).await, play_answer::Kind::Watch(_)));
    alice.client.logout().await.expect("logged out");
    let ended = tokio::time::timeout(Duration::from_secs(15), async {
        loop {
            match s.message().await {
                Ok(Some(_)) => {}
                other => return other,
            }
        }
    })
    .await
    .expect("the stream ends");
    assert_status(ended, Code::Unauthenticated, "session");
    env.shutdown().await;
}

/// What a viewer received of one twin, blanked of what is random or timed by nature (as
/// leaks.rs does).
fn blanked(mut m: v1::WatchMatchResponse) -> Vec<u8> {
    m.tag = 0;
    m.traceparent.clear();
    if let Some(v) = m.view.as_mut() {
        v.deadline_at_ms = None;
        v.deadline_in_ms = None;
    }
    if let Some(v1::event::Kind::MatchStarted(s)) = m.event.as_mut().and_then(|e| e.kind.as_mut()) {
        s.commitment.clear();
    }
    m.encode_to_vec()
}

/// Reads `s` (bob's, seat 1 in every match it watches) into `received` until each match
/// of `target` has brought its view of the version given; no private event of seat 0
/// may come.
async fn follow_until(
    s: &mut PlayStream,
    target: &BTreeMap<String, u64>,
    received: &mut BTreeMap<String, Vec<Vec<u8>>>,
) {
    let mut done = 0;
    while done < target.len() {
        match next(s).await {
            play_response::Kind::MatchMessage(v1::MatchMessage { match_id, message }) => {
                let m = message.expect("a message");
                if let Some(v1::event::Kind::Gops(g)) =
                    m.event.as_ref().and_then(|e| e.kind.as_ref())
                    && let Some(v1::gops_event::Kind::BidSealed(b)) = &g.kind
                {
                    assert_eq!(b.seat, 1, "seat 0's sealed bid reached bob");
                }
                if m.view.as_ref().is_some_and(|v| v.version == target[&match_id]) {
                    done += 1;
                }
                received.entry(match_id).or_default().push(blanked(m));
            }
            play_response::Kind::Answer(v1::PlayAnswer {
                kind: Some(play_answer::Kind::Watch(w)),
                ..
            }) => assert_eq!(w.seat, Some(1)),
            other => panic!("{other:?}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_learns_nothing_of_the_other_seats_sealed_bid_over_play() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    // Twins: the same prize order, both seats held alike.
    let prizes: Vec<u32> = (1..=13).rev().collect();
    let options = serde_json::json!({ "prizes": prizes }).to_string();
    let mut twins = Vec::new();
    for _ in 0..2 {
        let req = create_request("gops", &options, open(), 60_000);
        let id = alice.create(req).await.expect("created").match_id;
        bob.join(&id).await.expect("bob joins");
        twins.push(id);
    }
    // Bob follows both on one stream (live once each has brought its first view: the
    // store keeps only the latest version's views, so a later backfill would differ by
    // timing alone); then alice seals a different bid in each.
    let mut s = bob.client.play_stream().await.expect("a stream");
    for id in &twins {
        s.watch(id, Cursor::START, true).await.expect("sent");
    }
    let mut received: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    let at_start: BTreeMap<String, u64> = twins.iter().map(|id| (id.clone(), 0)).collect();
    follow_until(&mut s, &at_start, &mut received).await;
    alice.submit(&twins[0], gops(3)).await.expect("twin A's bid");
    alice.submit(&twins[1], gops(12)).await.expect("twin B's bid");
    let mut target = BTreeMap::new();
    for id in &twins {
        target.insert(id.clone(), bob.view(id).await.version);
    }
    follow_until(&mut s, &target, &mut received).await;
    // His refusal of an impossible bid, in-band, is the same in both twins too.
    for id in &twins {
        let r = s.submit(id, Some(gops(99)), &bob.key()).await.expect("sent");
        let st = refusal(&mut s, r).await;
        received.get_mut(id).expect("received").push(st.encode_to_vec());
    }
    let (a, b) = (&received[&twins[0]], &received[&twins[1]]);
    assert_eq!(a.len(), b.len(), "a different message count");
    for (i, (x, y)) in a.iter().zip(b).enumerate() {
        assert!(x == y, "message {i} differs between the twins");
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stopping_gateway_ends_each_watch_with_where_to_resume_then_the_stream() {
    let env = Env::start().await;
    let (alice, _bob, id) = env.gops_between(60_000).await;
    let mut s = alice.client.play_stream().await.expect("a stream");
    let r = s.watch(&id, Cursor::START, true).await.expect("sent");
    assert!(matches!(answered(&mut s, r).await, play_answer::Kind::Watch(_)));
    // Read to the stream's end while the cluster stops.
    let reader = tokio::spawn(async move {
        let mut ended = Vec::new();
        loop {
            match tokio::time::timeout(PATIENCE, s.message()).await.expect("in time") {
                Ok(Some(m)) => {
                    if let Some(play_response::Kind::WatchEnded(w)) = m.kind {
                        ended.push(w);
                    }
                }
                other => return (ended, other.map(|_| ())),
            }
        }
    });
    env.shutdown().await;
    let (ended, last) = reader.await.expect("read");
    assert_eq!(ended.len(), 1, "{ended:?}");
    let st = ended[0].status.clone().expect("a status");
    assert_eq!(st.code, Code::Unavailable as i32, "{st:?}");
    assert!(st.message.contains("after_version = 0, after_index = 3"), "a hint: {}", st.message);
    assert_status(last, Code::Unavailable, "open a new Play stream");
}

/// A TCP relay to `to` whose connections can all be cut at once (the listener stays):
/// a client's connection breaks as a network fault breaks it, and it connects again.
struct Relay {
    url: String,
    cut: tokio::sync::watch::Sender<u64>,
}

impl Relay {
    async fn to(to: std::net::SocketAddr) -> Relay {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let url = format!("http://{}", listener.local_addr().expect("an address"));
        let (cut, cuts) = tokio::sync::watch::channel(0u64);
        tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                let mut cuts = cuts.clone();
                cuts.mark_unchanged();
                tokio::spawn(async move {
                    let Ok(mut server) = tokio::net::TcpStream::connect(to).await else { return };
                    tokio::select! {
                        _ = tokio::io::copy_bidirectional(&mut client, &mut server) => {}
                        _ = cuts.changed() => {}
                    }
                });
            }
        });
        Relay { url, cut }
    }

    /// Drops every connection open now.
    fn cut(&self) {
        self.cut.send_modify(|n| *n += 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_reconnects_and_resumes_every_watch_when_its_connection_breaks() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let ids =
        [alice.create_open("gops", "", 60_000).await, alice.create_open("gops", "", 60_000).await];
    for id in &ids {
        bob.join(id).await.expect("bob joins");
    }
    let gateway = env.cluster.gateway_url();
    let addr = gateway.trim_start_matches("http://").parse().expect("an address");
    let relay = Relay::to(addr).await;
    let mut unbroken = BTreeMap::new();
    for id in &ids {
        for p in [&alice, &bob] {
            unbroken.insert((p.name.clone(), id.clone()), unary_watch(p, id).await);
        }
    }
    // Both play over the relay; it cuts every connection a few times meanwhile.
    let (a, b) = (alice.via(&relay.url), bob.via(&relay.url));
    let cutter = tokio::spawn(async move {
        for _ in 0..4 {
            tokio::time::sleep(Duration::from_millis(150)).await;
            relay.cut();
        }
        relay
    });
    // 13 moves each, 40 ms apart: the cuts fall while the matches are played.
    let think = Duration::from_millis(40);
    let ((ga, ra), (gb, rb)) =
        tokio::join!(play_with_feeds(&a, &ids, 5, think), play_with_feeds(&b, &ids, 6, think));
    let _relay = cutter.await.expect("cut");
    assert!(ra >= 2 && rb >= 2, "both streams were cut and reopened: {ra}, {rb}");
    for id in &ids {
        for (p, got) in [(&alice, &ga), (&bob, &gb)] {
            let whole = unbroken.remove(&(p.name.clone(), id.clone())).expect("watched");
            let whole = whole.await.expect("read");
            assert_same_as_unbroken(&got[id], &whole, &format!("{}'s messages of {id}", p.name));
            let outcome = whole.last().and_then(|m| m.view.clone()).and_then(|v| v.outcome);
            cluster_tests::check_record(p, id, &outcome.expect("ended")).await;
        }
    }
    env.shutdown().await;
}
