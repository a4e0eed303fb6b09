//! The engine over the in-memory store: steps are appended with their versions, a retry
//! with the same key is a duplicate, a stale deadline changes nothing, and a match evicted
//! from memory (idle, or past the cache's cap) is rebuilt (from a snapshot and the stream)
//! into exactly the same state.

use api::v1;
use games::Family;
use games::host::StepIn;
use rules_core::{Seat, Viewer};
use rules_engine::engine::{Engine, SNAPSHOT_EVERY, StepResult};
use rules_engine::error::EngineError;
use std::sync::Arc;
use store::{EventStore, MatchId, MemoryStore, SeatHolder};

fn engine(idle_ms: u64) -> (Arc<MemoryStore>, Arc<Engine>) {
    let store = Arc::new(MemoryStore::new());
    let e = Arc::new(Engine::new(store.clone(), vec![Family::Goofspiel], idle_ms));
    (store, e)
}

async fn new_match(e: &Arc<Engine>, game: &str) -> MatchId {
    new_match_timed(e, game, 60_000).await
}

async fn new_match_timed(e: &Arc<Engine>, game: &str, move_time_ms: u64) -> MatchId {
    let id = MatchId::random();
    let seats = [
        SeatHolder::Player(store::PlayerId::random()),
        SeatHolder::Player(store::PlayerId::random()),
    ];
    e.create(id, game, "", seats, move_time_ms, true).await.unwrap();
    id
}

/// Plays the first legal move of whichever seat owes one; returns the version.
async fn play_one(e: &Arc<Engine>, id: MatchId, key: &str) -> Option<u64> {
    play_one_move(e, id, key).await.map(|(v, _, _)| v)
}

/// As [`play_one`], with the seat and move played (what a retry must send again).
async fn play_one_move(e: &Arc<Engine>, id: MatchId, key: &str) -> Option<(u64, Seat, v1::Move)> {
    for seat in Seat::BOTH {
        let view = e.view(id, Viewer::Seat(seat)).await.unwrap();
        if view.outcome.is_some() {
            return None;
        }
        if let Some(mv) = view.legal_moves.last() {
            let r = e
                .step(id, StepIn::Move { seat, mv: mv.clone() }, None, Some(key.to_string()), None)
                .await
                .unwrap();
            let StepResult::Applied(v) = r.result else { panic!("{r:?}") };
            return Some((v, seat, mv.clone()));
        }
    }
    None
}

#[tokio::test]
async fn steps_get_versions_and_retries_are_duplicates() {
    let (_store, e) = engine(60_000);
    let id = new_match(&e, "gops").await;
    let (v, seat, first) = play_one_move(&e, id, "k1").await.unwrap();
    assert_eq!(v, 1);
    let view = e.view(id, Viewer::Seat(Seat::ZERO)).await.unwrap();
    let again =
        e.step(id, StepIn::Move { seat, mv: first }, None, Some("k1".into()), None).await.unwrap();
    assert_eq!(again.result, StepResult::Duplicate(1));
    // Another move under the key is refused, naming the version its first move made.
    let mv = v1::Move { game: Some(v1::r#move::Game::Gops(v1::GopsMove { card: 1 })) };
    let other = e.step(id, StepIn::Move { seat: Seat::ONE, mv }, None, Some("k1".into()), None);
    assert!(matches!(other.await, Err(EngineError::KeyReused { version: 1 })));
    assert_eq!(e.view(id, Viewer::Seat(Seat::ZERO)).await.unwrap().version, view.version);
    let stale = e.step(id, StepIn::Deadline, Some(0), Some("d0".into()), None).await.unwrap();
    assert_eq!(stale.result, StepResult::Stale(1));
}

#[tokio::test]
async fn an_evicted_match_is_rebuilt_to_the_same_state() {
    let (store, e) = engine(0);
    let id = new_match(&e, "dueling-monsters").await;
    let (_, seat0, first) = play_one_move(&e, id, "k0").await.unwrap();
    let mut n = 1;
    while let Some(v) = play_one(&e, id, &format!("k{n}")).await {
        n += 1;
        if v > SNAPSHOT_EVERY + 5 {
            break;
        }
    }
    assert!(n as u64 > SNAPSHOT_EVERY, "the match ran past a snapshot");
    // Snapshots are written off the move's path; give the task a moment.
    for _ in 0..100 {
        if store.snapshot(id).await.unwrap().is_some() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
    assert_eq!(store.snapshot(id).await.unwrap().map(|(v, _)| v), Some(SNAPSHOT_EVERY));
    let before = views(&e, id).await;
    assert!(e.evict_idle().await >= 1);
    assert_eq!(e.hot_matches(), 0);
    let after = views(&e, id).await;
    for (b, a) in before.iter().zip(&after) {
        assert_eq!(b.view_json, a.view_json);
        assert_eq!(b.version, a.version);
        assert_eq!(b.legal_moves, a.legal_moves);
    }
    // A retried key from before the snapshot is still a duplicate after the rebuild.
    let r = e
        .step(id, StepIn::Move { seat: seat0, mv: first }, None, Some("k0".into()), None)
        .await
        .unwrap();
    assert_eq!(r.result, StepResult::Duplicate(1));
}

async fn views(e: &Engine, id: MatchId) -> Vec<v1::GetViewResponse> {
    let mut out = Vec::new();
    for v in [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator] {
        out.push(e.view(id, v).await.unwrap());
    }
    out
}

#[tokio::test]
async fn games_of_another_family_are_refused() {
    let (_store, e) = engine(60_000);
    let seats = [SeatHolder::Open, SeatHolder::Open];
    let err =
        e.create(MatchId::random(), "masterminds", "", seats, 60_000, true).await.unwrap_err();
    assert!(err.to_string().contains("is a duel game; this engine hosts goofspiel"), "{err}");
}

#[tokio::test]
async fn a_window_with_reserve_runs_for_the_move_time_plus_the_reserve() {
    let store = Arc::new(MemoryStore::new());
    let e = Arc::new(Engine::new(store.clone(), vec![Family::Placement], 60_000));
    let id = new_match(&e, "cure-plague").await;
    // Cure & Plague: a minute per move plus a five-minute reserve.
    let d = store.deadline(id).await.unwrap().expect("armed at creation");
    assert_eq!(d.fence_version, 0);
    let left = e.view(id, Viewer::Spectator).await.unwrap().deadline_in_ms.unwrap();
    assert!((355_000..=360_000).contains(&left), "{left}");
    // A normal move opens the next seat's window, with its own reserve.
    let v = play_one(&e, id, "m1").await.unwrap();
    assert_eq!(v, 1);
    let left = e.view(id, Viewer::Spectator).await.unwrap().deadline_in_ms.unwrap();
    assert!((355_000..=360_000).contains(&left), "{left}");
}

#[tokio::test]
async fn a_replica_behind_another_catches_up_instead_of_refusing() {
    // Two replicas over one store, as behind a balancer: each move goes to the other one,
    // whose cached copy is a version behind. Every legal move is accepted, and each
    // replica's view is the stream's head.
    let (store, a) = engine(60_000);
    let b = Arc::new(Engine::new(store.clone(), vec![Family::Goofspiel], 60_000));
    let id = new_match(&a, "gops").await;
    // Both replicas hold the match in memory at version 0.
    assert_eq!(b.view(id, Viewer::Spectator).await.unwrap().version, 0);
    let mut version = 0;
    let mut first = None;
    for n in 0..26 {
        let e = if n % 2 == 0 { &a } else { &b };
        match play_one_move(e, id, &format!("k{n}")).await {
            Some((v, seat, mv)) => {
                if n == 0 {
                    first = Some((seat, mv));
                }
                assert_eq!(v, version + 1, "move {n}");
                version = v;
            }
            None => break,
        }
        let other = if n % 2 == 0 { &b } else { &a };
        assert_eq!(other.view(id, Viewer::Spectator).await.unwrap().version, version);
    }
    assert_eq!(version, 26, "all 13 rounds of GOPS played");
    // A retry reaching the replica that did not apply it is still a duplicate.
    let (seat, mv) = first.expect("the first move");
    let r = b.step(id, StepIn::Move { seat, mv }, None, Some("k0".into()), None);
    assert_eq!(r.await.unwrap().result, StepResult::Duplicate(1));
}

#[tokio::test]
async fn a_move_after_the_deadline_has_the_deadline_applied_first() {
    // Nobody fires the deadline here (no clock): the engine must, before the late move.
    let (store, e) = engine(60_000);
    let id = new_match_timed(&e, "gops", 50).await;
    let due = store.deadline(id).await.unwrap().expect("armed").due_ms;
    while service_kit::time::now_ms() <= due {
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    let mv = v1::Move { game: Some(v1::r#move::Game::Gops(v1::GopsMove { card: 1 })) };
    let late = e.step(id, StepIn::Move { seat: Seat::ZERO, mv }, None, Some("late".into()), None);
    // Both seats missed the first bid's deadline: the deadline ends the match (GOPS: a
    // missed deadline loses), so the late bid finds it over.
    let err = late.await.unwrap_err();
    assert!(err.to_string().starts_with("game_over"), "{err}");
    let entries = store.read(id, 0, 10).await.unwrap();
    let steps: Vec<&str> = entries.iter().map(|e| e.step_json.as_str()).collect();
    assert_eq!(steps, ["{\"created\":true}", "{\"deadline\":true}"]);
    // The clock's own firing of the same deadline, coming second, is a duplicate.
    let clock = e.step(id, StepIn::Deadline, Some(0), Some("deadline:0".into()), None);
    assert_eq!(clock.await.unwrap().result, StepResult::Duplicate(1));
}

/// The GOPS part of a view.
fn gops_view(v: &v1::GetViewResponse) -> &v1::GopsView {
    match v.view.as_ref().and_then(|v| v.game.as_ref()) {
        Some(v1::view::Game::Gops(g)) => g,
        other => panic!("not a GOPS view: {other:?}"),
    }
}

/// A GOPS bid of `card`.
fn bid(card: i64) -> v1::Move {
    v1::Move { game: Some(v1::r#move::Game::Gops(v1::GopsMove { card })) }
}

#[tokio::test]
async fn the_cap_holds_and_an_evicted_match_moves_on_from_its_stream() {
    const CAP: usize = 3;
    let store = Arc::new(MemoryStore::new());
    let e =
        Arc::new(Engine::new(store, vec![Family::Goofspiel], 3_600_000).with_max_hot_matches(CAP));
    let seats = || {
        [
            SeatHolder::Player(store::PlayerId::random()),
            SeatHolder::Player(store::PlayerId::random()),
        ]
    };
    let mut ids = Vec::new();
    for i in 0..10i64 {
        let id = MatchId::random();
        e.create(id, "gops", "", seats(), 60_000, true).await.unwrap();
        // Seat 0 bids 1..=10 in its match: each step makes its match hot.
        let mv = StepIn::Move { seat: Seat::ZERO, mv: bid(i + 1) };
        let r = e.step(id, mv, None, Some(format!("a{i}")), None).await.unwrap();
        assert_eq!(r.result, StepResult::Applied(1));
        assert!(e.hot_matches() <= CAP, "{} matches held, cap {CAP}", e.hot_matches());
        ids.push(id);
    }
    assert_eq!(e.hot_matches(), CAP);
    // The first match was evicted long ago: its next move is applied on the state
    // rebuilt from its stream (seat 0's sealed bid of 1 included), and resolves the
    // round with the right bids.
    let first = ids[0];
    let r = e
        .step(first, StepIn::Move { seat: Seat::ONE, mv: bid(13) }, None, Some("b".into()), None)
        .await
        .unwrap();
    assert_eq!(r.result, StepResult::Applied(2));
    assert!(e.hot_matches() <= CAP);
    let view = e.view(first, Viewer::Spectator).await.unwrap();
    assert_eq!(view.version, 2);
    let g = gops_view(&view);
    assert_eq!(g.round, 1, "the round resolved");
    let hand = |h: &Option<v1::Cards>| h.as_ref().map(|c| c.values.clone()).unwrap_or_default();
    assert!(!hand(&g.hand0).contains(&1) && hand(&g.hand0).len() == 12, "{g:?}");
    assert!(!hand(&g.hand1).contains(&13) && hand(&g.hand1).len() == 12, "{g:?}");
    let score = g.score_halves.unwrap();
    assert_eq!(score.seat0, 0, "seat 0's 1 lost to 13");
    assert!(score.seat1 > 0, "seat 1 took the prize: {score:?}");
    // Seat 0's retry of its first bid, after the eviction, is still a duplicate.
    let again = e
        .step(first, StepIn::Move { seat: Seat::ZERO, mv: bid(1) }, None, Some("a0".into()), None)
        .await
        .unwrap();
    assert_eq!(again.result, StepResult::Duplicate(1));
}
