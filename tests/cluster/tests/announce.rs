//! A finished match is announced whatever dies when: the engine holds each announcement
//! (the fault hook `Cluster::hold_announcements`, `COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS` of the
//! binary) and is killed after the final step is stored, before it announces. The final
//! step left the announcement owed in the store; the tournament service's driver makes it,
//! and each consumer of the lifecycle stream hears of the match once: the ratings (a rated
//! match is rated), bulk matches (GetMatch and the tenant's results stream say finished)
//! and tournaments (the match counted, the tournament finished). And an engine slower
//! than the repair: the match announced twice, each consumer hearing of it once.

use api::v1;
use client::platform::Platform;
use cluster_tests::{Env, Picker, Player, gops3, play_out, queue};
use games::Family;
use std::time::Duration;
use store::{LifecycleStore, RedisStore};
use tokio_stream::StreamExt;

/// Long enough that only the repair can announce within a test.
const HELD_MS: u64 = 600_000;

/// How long a consumer may take to hear of the match: the repair's five seconds, a driver
/// pass, the consumer's read.
const WITHIN: Duration = Duration::from_secs(30);

const ALL: [&str; 3] = ["matches:create", "tournaments:manage", "results:read"];

/// Plays `id` out with announcements held, then kills the GOPS family's engine (its held
/// announcement dies with it) and starts it again with an empty cache. The final view.
async fn finish_then_kill_the_engine(
    env: &mut Env,
    seats: [&Player; 2],
    id: &str,
    seed: u64,
) -> v1::GetViewResponse {
    env.cluster.hold_announcements(HELD_MS);
    let played = play_out(seats, id, &mut Picker::new(seed), 200).await;
    assert!(played.last.outcome.is_some(), "the match ended");
    env.cluster.stop_engine(Family::Goofspiel).await;
    env.cluster.restart_engine(Family::Goofspiel).await.expect("the engine restarts");
    played.last
}

/// Alice and bob queued for rated GOPS and paired: the match, and its players by seat.
async fn rated_gops<'a>(alice: &'a Player, bob: &'a Player) -> (String, [&'a Player; 2]) {
    let q = queue("gops", true);
    let ta = alice.ticket_retrying(&q, "alice-1").await;
    let tb = bob.ticket_retrying(&q, "bob-1").await;
    let (id, sa) = alice.assignment(&ta.ticket_id, Duration::from_secs(10)).await;
    bob.assignment(&tb.ticket_id, Duration::from_secs(10)).await;
    (id, if sa == 0 { [alice, bob] } else { [bob, alice] })
}

/// One bulk 3-card GOPS match between `seats`, created by the platform client `p`.
async fn bulk_gops(p: &Platform, seats: [&Player; 2], key: &str) -> String {
    let spec = v1::MatchSpec {
        game: Some(gops3()),
        seat0_player_id: seats[0].id.clone(),
        seat1_player_id: seats[1].id.clone(),
        start_at_ms: 0,
        label: String::new(),
    };
    let req = v1::CreateMatchesRequest {
        idempotency_key: key.into(),
        matches: vec![spec],
        validate_only: false,
    };
    let ids = p.api().create_matches(p.request(req)).await.expect("created").into_inner().match_ids;
    ids[0].clone()
}

/// Nothing is owed any more: every announcement was made.
async fn nothing_owed(env: &Env) {
    let store = RedisStore::connect(&env.redis.url()).await.expect("redis");
    assert_eq!(store.repair_announcements(u64::MAX, 100).await, Ok(0), "nothing left owed");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_match_whose_engine_died_before_announcing_it_is_rated_once() {
    let mut env = Env::start().await;
    let url = env.cluster.gateway_url();
    let alice = Player::account(&url, "alice").await;
    let bob = Player::account(&url, "bob").await;
    let (id, seats) = rated_gops(&alice, &bob).await;
    finish_then_kill_the_engine(&mut env, seats, &id, 1).await;

    let ra = alice.rating_after_within("gops", 1, WITHIN).await;
    let rb = bob.rating_after_within("gops", 1, WITHIN).await;
    assert_eq!((ra.games, rb.games), (1, 1));
    assert_eq!(ra.history.iter().map(|h| h.match_id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    nothing_owed(&env).await;
    // Rated once: a while later, still one game each.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let again = alice.client.rating("gops", &alice.id, 10).await.expect("rating");
    assert_eq!((again.games, again.history.len()), (1, 1));
    env.shutdown().await;
}

/// The tenant's results stream from the start: every event up to `n`, then (within
/// `quiet`) nothing more.
async fn results(p: &Platform, tournament_id: &str, n: usize) -> Vec<v1::WatchResultsResponse> {
    let req = v1::WatchResultsRequest { tournament_id: tournament_id.into(), after_sequence: 0 };
    let mut s = p.api().watch_results(p.request(req)).await.expect("watch").into_inner();
    let mut out = Vec::new();
    while out.len() < n {
        match tokio::time::timeout(WITHIN, s.next()).await {
            Ok(Some(Ok(e))) => out.push(e),
            other => panic!("the results stream stalled after {} events: {other:?}", out.len()),
        }
    }
    let more = tokio::time::timeout(Duration::from_millis(1_500), s.next()).await;
    assert!(more.is_err(), "nothing more on the stream: {more:?}");
    out
}

fn finished_ids(events: &[v1::WatchResultsResponse]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Some(v1::watch_results_response::Event::MatchFinished(m)) => {
                m.r#match.as_ref().map(|m| m.match_id.clone())
            }
            _ => None,
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_match_whose_engine_died_before_announcing_it_finishes() {
    let mut env = Env::start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (_, _, p) = env.tenant("bulk", &ALL).await;
    let id = bulk_gops(&p, [&a, &b], "bulk-1").await;
    let last = finish_then_kill_the_engine(&mut env, [&a, &b], &id, 2).await;

    let get = || {
        let p = p.clone();
        let id = id.clone();
        async move {
            p.api()
                .get_match(p.request(v1::GetMatchRequest { match_id: id }))
                .await
                .expect("GetMatch")
                .into_inner()
                .r#match
                .expect("a match")
        }
    };
    let mut state = get().await.state;
    for _ in 0..WITHIN.as_millis() / 100 {
        if state == v1::MatchState::Finished as i32 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
        state = get().await.state;
    }
    assert_eq!(state, v1::MatchState::Finished as i32, "GetMatch says finished");
    let m = get().await;
    let outcome = last.outcome.expect("an outcome");
    assert_eq!(m.result.as_ref().map(|r| r.seed_hex.clone()), Some(outcome.seed.clone()));
    // Started, then finished once, on the tenant's stream.
    let events = results(&p, "", 2).await;
    assert_eq!(finished_ids(&events), std::slice::from_ref(&id));
    nothing_owed(&env).await;
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tournament_whose_match_lost_its_engine_before_the_announcement_finishes() {
    let mut env = Env::start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (_, _, p) = env.tenant("rr", &ALL).await;
    let entrants = [&a, &b]
        .iter()
        .map(|pl| v1::Entrant {
            player_id: pl.id.clone(),
            seed_rating: None,
            name: pl.name.clone(),
        })
        .collect();
    let created = p
        .api()
        .create_tournament(p.request(v1::CreateTournamentRequest {
            idempotency_key: "rr-1".into(),
            name: "rr".into(),
            format: Some(v1::TournamentFormat {
                kind: Some(v1::tournament_format::Kind::RoundRobin(v1::RoundRobin {
                    double: false,
                })),
            }),
            game: Some(gops3()),
            entrants,
            round_gap_ms: 0,
            public_page: false,
        }))
        .await
        .expect("created")
        .into_inner()
        .tournament
        .expect("a tournament");
    let tid = created.tournament_id;
    let paired = p
        .api()
        .start_round(p.request(v1::StartRoundRequest { tournament_id: tid.clone(), round: 1 }))
        .await
        .expect("round 1")
        .into_inner()
        .round
        .expect("paired");
    assert_eq!(paired.pairings.len(), 1);
    let pair = &paired.pairings[0];
    let seats = if pair.seat0_player_id == a.id { [&a, &b] } else { [&b, &a] };
    finish_then_kill_the_engine(&mut env, seats, &pair.match_id, 3).await;

    let mut t = None;
    for _ in 0..WITHIN.as_millis() / 100 {
        let now = p
            .api()
            .get_tournament(p.request(v1::GetTournamentRequest { tournament_id: tid.clone() }))
            .await
            .expect("GetTournament")
            .into_inner()
            .tournament
            .expect("a tournament");
        let done = now.state == v1::TournamentState::Finished as i32;
        t = Some(now);
        if done {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let t = t.expect("read");
    assert_eq!(t.state, v1::TournamentState::Finished as i32, "the tournament finished: {t:?}");
    assert_eq!(t.matches_finished, 1, "its match counted once");
    let events = results(&p, &tid, count_tournament_events(&p, &tid).await).await;
    assert_eq!(
        finished_ids(&events),
        std::slice::from_ref(&pair.match_id),
        "finished once on its stream"
    );
    nothing_owed(&env).await;
    env.shutdown().await;
}

/// How many events the tournament's stream holds now.
async fn count_tournament_events(p: &Platform, tid: &str) -> usize {
    let req = v1::WatchResultsRequest { tournament_id: tid.into(), after_sequence: 0 };
    let mut s = p.api().watch_results(p.request(req)).await.expect("watch").into_inner();
    let mut n = 0;
    while let Ok(Some(Ok(_))) = tokio::time::timeout(Duration::from_millis(1_000), s.next()).await {
        n += 1;
    }
    n
}

/// An engine slower than the repair (its announcement held past the repair's 5 s, the
/// engine alive): the match is announced twice, and each consumer still hears of it once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_match_announced_twice_is_rated_and_reported_once() {
    let mut env = Env::start().await;
    let url = env.cluster.gateway_url();
    let alice = Player::account(&url, "alice").await;
    let bob = Player::account(&url, "bob").await;
    let (rated, seats) = rated_gops(&alice, &bob).await;
    let (_, _, p) = env.tenant("twice", &ALL).await;
    let bulk = bulk_gops(&p, [&alice, &bob], "twice-1").await;

    // Held 8 s: the repair announces each at 5 s, the engine again at 8 s.
    env.cluster.hold_announcements(8_000);
    play_out(seats, &rated, &mut Picker::new(4), 200).await;
    play_out([&alice, &bob], &bulk, &mut Picker::new(5), 200).await;
    tokio::time::sleep(Duration::from_secs(10)).await;
    // Twice each on the lifecycle stream (a new group reads it from its start)...
    let store = RedisStore::connect(&env.redis.url()).await.expect("redis");
    let all = store.lifecycle_read("audit", "a", 10_000, 0).await.expect("read");
    for id in [&rated, &bulk] {
        let n = all
            .iter()
            .filter(|d| d.finished.as_ref().is_some_and(|f| f.match_id.to_string() == *id))
            .count();
        assert_eq!(n, 2, "announced by the repair and by the engine");
    }
    // ... and heard once.
    let ra = alice.rating_after_within("gops", 1, WITHIN).await;
    assert_eq!((ra.games, ra.history.len()), (1, 1));
    let rb = bob.client.rating("gops", &bob.id, 10).await.expect("rating");
    assert_eq!(rb.games, 1);
    let events = results(&p, "", 2).await;
    assert_eq!(finished_ids(&events), std::slice::from_ref(&bulk));
    nothing_owed(&env).await;
    env.shutdown().await;
}
