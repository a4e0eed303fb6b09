//! Deadlines at scale on a real Redis (issue 17; `colosseum load --deadlines` in short):
//! 2,000 GOPS matches left alone, due over 5 s, two clock replicas: every deadline is
//! applied exactly once, none missed, every match ends by it.

use api::v1;
use cluster_tests::Env;
use futures_util::StreamExt;
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

const MATCHES: u64 = 2_000;
/// The first deadline falls due this long after creation starts (the shortest time per
/// move is 1 s; a debug build takes a few seconds to create 2,000 matches).
const LEAD_MS: u64 = 6_000;
/// The deadlines fall due over this span.
const OVER_MS: u64 = 5_000;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_thousand_deadlines_under_two_clocks_each_fire_once() {
    let mut env = Env::start().await;
    env.cluster.keep_clock_firings();
    env.cluster.start_extra_clock().expect("a second clock replica");
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let p = env.tenant("deadlines", &["matches:create", "results:read"]).await.2;

    // Each match's time per move puts its deadline at its place in the span.
    let now = now_ms();
    let intended = |i: u64| now + LEAD_MS + OVER_MS * i / (MATCHES - 1);
    let matches = (0..MATCHES)
        .map(|i| v1::MatchSpec {
            game: Some(v1::GameSpec {
                game: "gops".into(),
                options_json: String::new(),
                move_time_ms: intended(i) - now,
            }),
            seat0_player_id: a.id.clone(),
            seat1_player_id: b.id.clone(),
            start_at_ms: 0,
            label: String::new(),
        })
        .collect();
    let req = v1::CreateMatchesRequest {
        idempotency_key: "deadlines".into(),
        matches,
        validate_only: false,
    };
    let ids = p.api().create_matches(p.request(req)).await.expect("created").into_inner().match_ids;
    assert_eq!(ids.len() as u64, MATCHES);
    let index: BTreeMap<store::MatchId, u64> =
        ids.iter().enumerate().map(|(i, id)| (id.parse().expect("a match id"), i as u64)).collect();

    // Until both clocks together have applied as many deadlines as there are (or long
    // after the last one fell due), then a moment for the slower replica's answers.
    let clocks = env.cluster.clocks();
    assert_eq!(clocks.len(), 2);
    let fired = || clocks.iter().map(|c| c.stats.fired.load(Ordering::Relaxed)).sum::<u64>();
    let give_up = intended(MATCHES - 1) + 60_000;
    while fired() < MATCHES && now_ms() < give_up {
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    tokio::time::sleep(Duration::from_millis(500)).await;

    // Exactly one applied firing per match, between them; the other replica's calls were
    // answered stale or duplicate, none failed.
    assert_eq!(fired(), MATCHES, "applied firings over both clocks");
    let mut applied: BTreeMap<store::MatchId, u64> = BTreeMap::new();
    for f in clocks.iter().flat_map(|c| c.stats.firings()) {
        let i = *index.get(&f.match_id).expect("a firing of one of these matches");
        *applied.entry(f.match_id).or_default() += 1;
        assert!(f.due_ms >= intended(i), "armed no earlier than meant: {f:?}");
        assert!(f.lag_ms < 10_000, "fired, if late, within seconds: {f:?}");
    }
    assert_eq!(applied.len() as u64, MATCHES, "none missed");
    assert!(applied.values().all(|&n| n == 1), "none applied twice");
    let failed: u64 = clocks.iter().map(|c| c.stats.failed.load(Ordering::Relaxed)).sum();
    assert_eq!(failed, 0);
    for c in &clocks {
        assert!(c.stats.fired.load(Ordering::Relaxed) > 0, "both replicas fired some");
    }

    // The store: one step after creation (the deadline), nothing left armed.
    let store = store::RedisStore::connect(&env.redis.url()).await.expect("redis");
    let store = &store;
    let left: Vec<(Option<u64>, bool)> = futures_util::stream::iter(index.keys().copied())
        .map(|id| async move {
            use store::EventStore;
            let version = store.last_version(id).await.expect("a version");
            let armed = store.deadline(id).await.expect("a deadline read").is_some();
            (version, armed)
        })
        .buffer_unordered(32)
        .collect()
        .await;
    assert!(left.iter().all(|&(v, armed)| v == Some(1) && !armed), "one step each, none armed");

    // The public API: every match finished by the missed deadline (results land a moment
    // after the match ends).
    let until = now_ms() + 30_000;
    for id in &ids {
        loop {
            let req = p.request(v1::GetMatchRequest { match_id: id.clone() });
            let got = p.api().get_match(req).await.expect("the match").into_inner();
            let m = got.r#match.expect("a match");
            if m.state == v1::MatchState::Finished as i32 {
                let result = m.result.expect("a result");
                assert_eq!(result.reason, "missed_deadline", "{id}");
                break;
            }
            assert!(now_ms() < until, "{id} never finished: {m:?}");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
    env.shutdown().await;
}

/// A clock configured without the match's family (during a deploy) keeps its deadline
/// and fires it once it can reach an engine: nothing is dropped for want of one.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_clock_without_the_family_keeps_the_deadline_for_later() {
    let env = Env::start().await;
    // Due in 30 s: the cluster's own clock leaves it alone while the test's clocks tick
    // past it.
    let (_alice, _bob, id) = env.gops_between(30_000).await;
    let id: store::MatchId = id.parse().expect("a match id");
    let store: std::sync::Arc<dyn store::EventStore> = std::sync::Arc::new(
        store::RedisStore::connect(&env.redis.url()).await.expect("connect to redis"),
    );
    let later = now_ms() + 60_000;
    let armed = |due: Vec<store::Deadline>| due.iter().any(|d| d.match_id == id);
    assert!(armed(store.due_deadlines(later, 100).await.expect("read")), "armed at the join");
    let token = env.cluster.internal_token();
    let none = engines::Engines::new(&[], Some(token)).expect("no engines");
    let blind = clock::Clock::new(store.clone(), none);
    assert!(blind.tick(later).await >= 1);
    assert!(blind.stats.failed.load(Ordering::Relaxed) >= 1, "not fired: no engine");
    assert!(armed(store.due_deadlines(later, 100).await.expect("read")), "kept for later");
    let url = env.cluster.engine_url(games::Family::Goofspiel).expect("the engine");
    let goofspiel = engines::Engines::new(&[(games::Family::Goofspiel, vec![url])], Some(token))
        .expect("engines");
    let clock = clock::Clock::new(store.clone(), goofspiel);
    clock.tick(later).await;
    assert_eq!(clock.stats.fired.load(Ordering::Relaxed), 1, "fired once an engine is there");
    env.shutdown().await;
}
