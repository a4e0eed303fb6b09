//! Idle matches on a real Redis (issue 17; `colosseum load --idle` in short): 3,000 GOPS
//! matches made by CreateMatches and left waiting, engines holding at most 100 for 2 s:
//! the goofspiel engine never holds more than its cap, and moves on random evicted matches
//! (rebuilt from their streams) are accepted at the right versions and resolve their round
//! with the bids made, as the seats' watch streams and views show.

use api::v1;
use client::Cursor;
use cluster_tests::{Env, Picker, Player, accepted, gops, gops_view};
use futures_util::StreamExt;
use games::Family;
use in_process::{Cluster, EngineCache};
use service_kit::time::now_ms;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;
use test_harness::RedisServer;
use v1::gops_event::Kind as Gops;

const MATCHES: usize = 3_000;
const PLAYERS: usize = 10;
/// The most matches an engine holds.
const CAP: usize = 100;
/// An engine evicts a match unused this long (its sweep runs every half of it).
const IDLE_MS: u64 = 2_000;
/// Matches looked at (GetView) to fill the cache past its cap.
const WARMED: usize = 600;
/// Matches moved on, each twice (one bid per seat), evicted before each move.
const MOVED: usize = 150;
/// Requests in flight at once.
const IN_FLIGHT: usize = 16;

/// The players of match `i` (indexes into the pool): two different ones.
fn seated(i: usize) -> [usize; 2] {
    let a = i % PLAYERS;
    [a, (a + 1 + (i / PLAYERS) % (PLAYERS - 1)) % PLAYERS]
}

/// The matches the goofspiel engine holds.
fn hot(env: &Env) -> usize {
    env.cluster.hot_matches().get(&Family::Goofspiel).copied().unwrap_or(0)
}

/// Matches evicted past the cap so far (the engines' counter, shared in this process).
fn evicted_by_cap() -> i64 {
    let text = service_kit::metrics::render();
    let line = "colosseum_engine_evicted_total{reason=\"cap\"} ";
    text.lines().find_map(|l| l.strip_prefix(line)).and_then(|v| v.parse().ok()).unwrap_or(0)
}

/// Waits (at most 10 s) until the engines hold no match: every one was evicted as idle.
async fn until_none_held(env: &Env) {
    let give_up = now_ms() + 10_000;
    while hot(env) > 0 {
        assert!(now_ms() < give_up, "{} matches still held after 10 s", hot(env));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_matches_stay_within_the_cap_and_evicted_ones_move_on() {
    let redis = tokio::task::spawn_blocking(RedisServer::start).await.expect("redis-server");
    let store = store::RedisStore::connect(&redis.url()).await.expect("connect to redis");
    let cache = EngineCache { idle_ms: IDLE_MS, max_hot: CAP };
    let cluster =
        Cluster::start_with(Arc::new(store), "127.0.0.1:0".parse().expect("an address"), cache)
            .await
            .expect("the cluster starts");
    let env = Env { cluster, redis };
    let mut players = Vec::new();
    for i in 0..PLAYERS {
        players.push(env.player(&format!("p{i}")).await);
    }
    let p = env.tenant("idle", &["matches:create"]).await.2;
    let matches = (0..MATCHES)
        .map(|i| {
            let [a, b] = seated(i);
            v1::MatchSpec {
                game: Some(v1::GameSpec {
                    game: "gops".into(),
                    options_json: String::new(),
                    move_time_ms: 7 * 24 * 3600 * 1000,
                }),
                seat0_player_id: players[a].id.clone(),
                seat1_player_id: players[b].id.clone(),
                start_at_ms: 0,
                label: String::new(),
            }
        })
        .collect();
    let req =
        v1::CreateMatchesRequest { idempotency_key: "idle".into(), matches, validate_only: false };
    let ids = p.api().create_matches(p.request(req)).await.expect("created").into_inner().match_ids;
    assert_eq!(ids.len(), MATCHES);
    assert!(hot(&env) <= CAP, "creation leaves at most the cap held");

    // Random matches, all different: the first WARMED are looked at, the next MOVED moved on.
    let mut pick = Picker::new(17);
    let mut chosen = BTreeSet::new();
    let mut order = Vec::new();
    while order.len() < WARMED + MOVED {
        let i = (pick.next_u64() % MATCHES as u64) as usize;
        if chosen.insert(i) {
            order.push(i);
        }
    }
    let (warmed, moved) = order.split_at(WARMED);

    // GetView as seat 0 on each warmed match brings it into the engine's memory: far more
    // of them than the cap within the idle time. Sampled as every answer comes in, the
    // engine never holds more than the cap, and matches were evicted for it.
    let cap_evictions = evicted_by_cap();
    let views = futures_util::stream::iter(warmed.iter().copied())
        .map(|i| {
            let player = &players[seated(i)[0]];
            let id = &ids[i];
            async move { player.view(id).await }
        })
        .buffer_unordered(IN_FLIGHT);
    let most = views
        .fold(0, |most, view| {
            assert_eq!(view.version, 0);
            let held = hot(&env);
            async move { most.max(held) }
        })
        .await;
    assert!(most <= CAP, "the engine held {most} matches, cap {CAP}");
    assert!(
        evicted_by_cap() - cap_evictions >= (WARMED - CAP) as i64 / 2,
        "the cap, not the idle time, evicted most of them: {} evicted past the cap",
        evicted_by_cap() - cap_evictions
    );
    until_none_held(&env).await;

    // Seat 0 bids on each moved match, held by no engine: rebuilt from its stream, it is
    // accepted at seat 0's version 1.
    let bids: Vec<[i64; 2]> = moved
        .iter()
        .map(|_| [1 + (pick.next_u64() % 13) as i64, 1 + (pick.next_u64() % 13) as i64])
        .collect();
    let rebuilds = service_kit::metrics::metric("colosseum_engine_rebuilds_total");
    let rebuilt_before = rebuilds.load(Ordering::Relaxed);
    let submit_all = |seat: usize| {
        let (players, ids, bids) = (&players, &ids, &bids);
        futures_util::stream::iter(moved.iter().copied().zip(0..))
            .map(move |(i, n)| {
                let player: &Player = &players[seated(i)[seat]];
                let (id, card) = (&ids[i], bids[n][seat]);
                async move {
                    let r = player.submit_with(id, Some(gops(card)), &format!("bid-{i}")).await;
                    accepted(r.unwrap_or_else(|s| panic!("seat {seat} of match {i}: {s:?}")))
                        .unwrap_or_else(|s| panic!("seat {seat} of match {i}: {s:?}"))
                }
            })
            .buffer_unordered(IN_FLIGHT)
            .collect::<Vec<u64>>()
    };
    let versions = submit_all(0).await;
    assert!(versions.iter().all(|&v| v == 1), "seat 0's bids at its version 1: {versions:?}");
    assert!(hot(&env) <= CAP);
    until_none_held(&env).await;

    // Seat 1 bids on the same matches, each evicted again with seat 0's sealed bid only in
    // its stream: accepted at seat 1's version 2 (seat 0's bid was its version 1).
    let versions = submit_all(1).await;
    assert!(versions.iter().all(|&v| v == 2), "seat 1's bids at its version 2: {versions:?}");
    assert!(hot(&env) <= CAP);
    let rebuilt = rebuilds.load(Ordering::Relaxed) - rebuilt_before;
    assert!(rebuilt >= 2 * MOVED as i64, "every move rebuilt its match: {rebuilt} rebuilds");

    // Each round resolved with the bids made: seat 0's stream delivers the reveal at its
    // version 2, and seat 1's view shows the round over and the prize's winner.
    for (n, &i) in moved.iter().enumerate() {
        let [c0, c1] = bids[n];
        let seat0 = &players[seated(i)[0]];
        let mut stream = seat0.client.watch(&ids[i], Cursor::START, false).await.expect("watch");
        let revealed = loop {
            let m = tokio::time::timeout(Duration::from_secs(10), stream.message())
                .await
                .expect("the reveal is delivered")
                .expect("the stream")
                .expect("a message");
            if let Some(v1::event::Kind::Gops(g)) = m.event.as_ref().and_then(|e| e.kind.as_ref())
                && let Some(Gops::Revealed(r)) = &g.kind
            {
                assert_eq!(m.version, 2, "the reveal is seat 0's version 2");
                break *r;
            }
        };
        assert_eq!(revealed.bids, Some(v1::SeatPair { seat0: c0, seat1: c1 }), "match {i}");
        let winner = match c0.cmp(&c1) {
            std::cmp::Ordering::Greater => Some(0),
            std::cmp::Ordering::Less => Some(1),
            std::cmp::Ordering::Equal => None,
        };
        assert_eq!(revealed.winner, winner, "match {i}: {c0} against {c1}");
        let view = players[seated(i)[1]].view(&ids[i]).await;
        assert_eq!(view.version, 2);
        let g = gops_view(&view);
        assert_eq!(g.round, 1, "match {i}: the round is over");
        assert_eq!(g.score_halves, revealed.score_halves, "match {i}");
    }
    env.shutdown().await;
}
