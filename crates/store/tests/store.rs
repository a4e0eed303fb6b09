//! One suite, three stores: every test here runs against the `MemoryStore`, against a
//! `RedisStore` on a real `redis-server` and against one on a real 3-primary Redis Cluster,
//! both started by `test-harness` on free loopback ports (each Redis test has its own
//! server or cluster). The Redis-only
//! checks (key names in the server, one round trip per append, script reload, restart,
//! the deadline index and the feed's connection) and the cluster-only ones (matches on
//! every node) are at the end.

mod common;

use common::{cluster_fixture, memory_fixture, redis_fixture, start_redis};
use rules_core::{Audience, PerSeat, Seat};
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use store::{
    AppendFeed, AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, FullStore, HostStore,
    MatchId, MatchMeta, MatchSecret, PlayerId, RedisStore, SeatHolder, Session, StoreError,
    StoredEvent, redis_store::keys,
};
use test_harness::{Persistence, RedisCluster, RedisOptions, RedisServer};
use tokio_stream::StreamExt;

type Store = Arc<dyn HostStore>;

// ---------------------------------------------------------------------------------------
// Fixtures

fn meta(seats: [SeatHolder; 2]) -> MatchMeta {
    MatchMeta {
        game: "gops".into(),
        options_json: r#"{"cards":13}"#.into(),
        commitment_hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        seats: PerSeat(seats),
        move_time_ms: 30_000,
        created_at_ms: 1_700_000_000_000,
        listed: true,
    }
}

fn secret() -> MatchSecret {
    MatchSecret { seed_hex: "0123456789abcdef0123456789abcdef".into() }
}

fn open_meta() -> MatchMeta {
    meta([SeatHolder::Open, SeatHolder::Open])
}

fn entry(version: u64, key: Option<&str>) -> Entry {
    Entry {
        version,
        step_json: if version == 0 {
            "{}".into()
        } else {
            format!(r#"{{"seat":{},"move":{{"card":{version}}}}}"#, version % 2)
        },
        idempotency_key: key.map(str::to_string),
        events: vec![
            StoredEvent { audience: Audience::Public, payload: vec![8, version as u8, 0, 255] },
            StoredEvent { audience: Audience::Seat(Seat::ONE), payload: b"private".to_vec() },
        ],
        views: vec![StoredEvent {
            audience: Audience::Seat(Seat::ZERO),
            payload: b"view".to_vec(),
        }],
        traceparent: Some(format!("00-{:032x}-{:016x}-01", version + 1, version + 7)),
        at_ms: 1_700_000_000_000 + version,
        tag: 0x5eed_0000 + version,
    }
}

async fn new_match(store: &Store) -> MatchId {
    let id = MatchId::random();
    store.create_match(id, &open_meta(), &secret(), &entry(0, None), None).await.expect("create");
    id
}

/// Appends versions `1..=n` with keys `k1..kn`.
async fn append_n(store: &Store, id: MatchId, n: u64) {
    for v in 1..=n {
        let outcome =
            store.append(id, &entry(v, Some(&format!("k{v}"))), DeadlineChange::Keep).await;
        assert_eq!(outcome, Ok(AppendOutcome::Appended { version: v }));
    }
}

fn versions(entries: &[Entry]) -> Vec<u64> {
    entries.iter().map(|e| e.version).collect()
}

fn sha(n: u8) -> String {
    format!("{n:02x}").repeat(32)
}

/// Runs each named test function (`async fn(Store)`) against the three stores, the
/// `single_node` ones against the first two only.
macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        suite!(@stores memory_store, memory_fixture, $($name,)*);
        suite!(@stores redis_store, redis_fixture, $($name,)*);
        suite!(@stores redis_cluster, cluster_fixture, $($name,)*);
    };
    (@stores $module:ident, $fixture:ident, $($name:ident,)*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let fixture = super::$fixture().await;
                    super::$name(fixture.store.clone()).await;
                    // The servers stop only after the test is done with them.
                    drop(fixture);
                }
            )*
        }
    };
}

suite!(
    create_and_meta,
    claim_seat_rules,
    claim_race_has_one_winner,
    joins_and_final_steps_are_fenced,
    append_versions_are_dense,
    append_race_has_one_winner,
    duplicate_key_answers_the_first_version,
    read_from_a_version,
    deadlines,
    deadline_lookup,
    repair_leaves_a_whole_index_alone,
    the_feed_announces_each_append_once,
    snapshots,
    compaction,
    sessions,
    players_exist_once_they_have_a_session,
    ping,
    bot_matches_are_read_in_the_order_recorded,
);

// ---------------------------------------------------------------------------------------
// The suite

/// The `Finished` of a final step decided with `players` seated.
fn finished_with(id: MatchId, players: [Option<PlayerId>; 2]) -> store::Finished {
    store::Finished {
        match_id: id,
        game: "gops".into(),
        players,
        winner: Some(Seat::ONE),
        reason: "resigned".into(),
        at_ms: 1_700_000_000_100,
        seed_hex: None,
    }
}

/// A join and a final step racing through two replicas, both orders: a final step stored
/// first leaves no seat to take (a retried join of a seated player still answers its
/// seat); a seat taken first refuses a final step decided on the old holders, and one
/// decided again names the new player.
async fn joins_and_final_steps_are_fenced(store: Store) {
    let (alice, bob) = (PlayerId::random(), PlayerId::random());
    let seated = [SeatHolder::Player(alice), SeatHolder::Open];
    let resign = |v: u64| Entry { step_json: r#"{"resign":0}"#.into(), ..entry(v, None) };

    // The final step first: the join after it is refused and writes nothing.
    let over = MatchId::random();
    store
        .create_match(over, &meta(seated.clone()), &secret(), &entry(0, None), None)
        .await
        .expect("create");
    let f = finished_with(over, [Some(alice), None]);
    assert_eq!(
        store.append_final(over, &resign(1), &f).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    store.announce_finished(&f).await.expect("announced");
    assert_eq!(store.claim_seat(over, Seat::ONE, bob).await, Ok(ClaimOutcome::MatchOver));
    assert_eq!(
        store.meta(over).await.expect("meta").expect("a match").seats,
        PerSeat(seated.clone())
    );
    // A player seated before the end keeps its seat on a retried join.
    assert_eq!(store.claim_seat(over, Seat::ZERO, alice).await, Ok(ClaimOutcome::AlreadyYours));
    // Compacted, still over.
    store.compact(over, 1, 0).await.expect("compact");
    assert_eq!(store.claim_seat(over, Seat::ONE, bob).await, Ok(ClaimOutcome::MatchOver));

    // The join first: a final step decided before it (Bob not in it) is a conflict and
    // changes nothing; decided again, it names him.
    let raced = MatchId::random();
    store
        .create_match(raced, &meta(seated), &secret(), &entry(0, None), None)
        .await
        .expect("create");
    assert_eq!(store.claim_seat(raced, Seat::ONE, bob).await, Ok(ClaimOutcome::Claimed));
    let stale = finished_with(raced, [Some(alice), None]);
    assert_eq!(
        store.append_final(raced, &resign(1), &stale).await,
        Ok(AppendOutcome::Conflict { current_version: 0 })
    );
    assert_eq!(store.last_version(raced).await, Ok(Some(0)));
    assert_eq!(store.repair_announcements(u64::MAX, 10).await, Ok(0), "nothing owed");
    let fresh = finished_with(raced, [Some(alice), Some(bob)]);
    assert_eq!(
        store.append_final(raced, &resign(1), &fresh).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    // A step that does not end the match is not fenced (its holders change nothing stored).
    let running = MatchId::random();
    store
        .create_match(running, &open_meta(), &secret(), &entry(0, None), None)
        .await
        .expect("create");
    assert_eq!(store.claim_seat(running, Seat::ONE, bob).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(
        store.append(running, &entry(1, None), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(store.claim_seat(running, Seat::ZERO, alice).await, Ok(ClaimOutcome::Claimed));
}

async fn create_and_meta(store: Store) {
    let id = MatchId::random();
    assert_eq!(store.meta(id).await, Ok(None));
    assert_eq!(store.match_secret(id).await, Ok(None));
    assert_eq!(store.last_version(id).await, Ok(None));
    let bot = meta([SeatHolder::Open, SeatHolder::Bot("strong".into())]);
    let opening = entry(0, Some("create-1"));
    store.create_match(id, &bot, &secret(), &opening, None).await.expect("create");
    assert_eq!(store.meta(id).await, Ok(Some(bot.clone())));
    assert_eq!(store.match_secret(id).await, Ok(Some(secret())));
    assert_eq!(store.last_version(id).await, Ok(Some(0)));
    assert_eq!(store.read(id, 0, 10).await, Ok(vec![opening.clone()]));

    // The id is taken: refused, nothing changes.
    let other = meta([SeatHolder::Open, SeatHolder::Open]);
    let other_secret = MatchSecret { seed_hex: "ff".repeat(16) };
    assert_eq!(
        store.create_match(id, &other, &other_secret, &entry(0, None), None).await,
        Err(StoreError::AlreadyExists(id))
    );
    assert_eq!(store.meta(id).await, Ok(Some(bot)));
    assert_eq!(store.match_secret(id).await, Ok(Some(secret())));
    assert_eq!(store.read(id, 0, 10).await, Ok(vec![opening]));

    // The opening entry is version 0.
    assert!(matches!(
        store.create_match(MatchId::random(), &other, &secret(), &entry(1, None), None).await,
        Err(StoreError::InvalidArgument(_))
    ));
    // A retried creation request with the opening key is a duplicate of version 0.
    assert_eq!(
        store.append(id, &entry(1, Some("create-1")), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Duplicate { version: 0 })
    );
}

async fn claim_seat_rules(store: Store) {
    let (alice, bob) = (PlayerId::random(), PlayerId::random());
    let id = MatchId::random();
    store
        .create_match(
            id,
            &meta([SeatHolder::Open, SeatHolder::Reserved(bob)]),
            &secret(),
            &entry(0, None),
            None,
        )
        .await
        .expect("create");
    assert_eq!(store.claim_seat(id, Seat::ZERO, alice).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(store.claim_seat(id, Seat::ZERO, alice).await, Ok(ClaimOutcome::AlreadyYours));
    assert_eq!(store.claim_seat(id, Seat::ZERO, bob).await, Ok(ClaimOutcome::Taken));
    assert_eq!(store.claim_seat(id, Seat::ONE, alice).await, Ok(ClaimOutcome::ReservedForOther));
    assert_eq!(store.claim_seat(id, Seat::ONE, bob).await, Ok(ClaimOutcome::Claimed));
    let seats = store.meta(id).await.expect("meta").expect("exists").seats;
    assert_eq!(seats, PerSeat([SeatHolder::Player(alice), SeatHolder::Player(bob)]));

    let with_bot = MatchId::random();
    store
        .create_match(
            with_bot,
            &meta([SeatHolder::Open, SeatHolder::Bot("random".into())]),
            &secret(),
            &entry(0, None),
            None,
        )
        .await
        .expect("create");
    assert_eq!(store.claim_seat(with_bot, Seat::ONE, alice).await, Ok(ClaimOutcome::Taken));

    let unknown = MatchId::random();
    assert_eq!(
        store.claim_seat(unknown, Seat::ZERO, alice).await,
        Err(StoreError::NotFound(unknown))
    );
}

async fn claim_race_has_one_winner(store: Store) {
    for _ in 0..20 {
        let id = new_match(&store).await;
        let players = [PlayerId::random(), PlayerId::random()];
        let tasks = players.map(|p| {
            let store = store.clone();
            tokio::spawn(async move { store.claim_seat(id, Seat::ONE, p).await })
        });
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.expect("task").expect("claim"));
        }
        let winners: Vec<usize> =
            (0..2).filter(|&i| outcomes[i] == ClaimOutcome::Claimed).collect();
        assert_eq!(winners.len(), 1, "{outcomes:?}");
        assert_eq!(outcomes[1 - winners[0]], ClaimOutcome::Taken);
        let seats = store.meta(id).await.expect("meta").expect("exists").seats;
        assert_eq!(seats[Seat::ONE], SeatHolder::Player(players[winners[0]]));
        assert_eq!(seats[Seat::ZERO], SeatHolder::Open);
    }
}

async fn append_versions_are_dense(store: Store) {
    let id = new_match(&store).await;
    assert_eq!(
        store.append(id, &entry(2, None), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Conflict { current_version: 0 })
    );
    assert_eq!(
        store.append(id, &entry(0, None), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Conflict { current_version: 0 })
    );
    assert_eq!(
        store.append(id, &entry(1, None), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(
        store.append(id, &entry(1, None), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Conflict { current_version: 1 })
    );
    assert_eq!(store.last_version(id).await, Ok(Some(1)));
    assert_eq!(versions(&store.read(id, 0, 10).await.expect("read")), [0, 1]);

    let unknown = MatchId::random();
    assert_eq!(
        store.append(unknown, &entry(1, None), DeadlineChange::Keep).await,
        Err(StoreError::NotFound(unknown))
    );
}

async fn append_race_has_one_winner(store: Store) {
    for round in 0..20 {
        let id = new_match(&store).await;
        append_n(&store, id, round % 3).await;
        let version = round % 3 + 1;
        // Two replicas computed step `version` differently (different keys and moves).
        let candidates = [0u8, 1].map(|replica| {
            let mut e = entry(version, Some(&format!("replica-{replica}")));
            e.step_json = format!(r#"{{"replica":{replica}}}"#);
            e
        });
        let tasks = candidates.clone().map(|e| {
            let store = store.clone();
            tokio::spawn(async move { store.append(id, &e, DeadlineChange::Keep).await })
        });
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.expect("task").expect("append"));
        }
        let winners: Vec<usize> =
            (0..2).filter(|&i| outcomes[i] == AppendOutcome::Appended { version }).collect();
        assert_eq!(winners.len(), 1, "{outcomes:?}");
        assert_eq!(outcomes[1 - winners[0]], AppendOutcome::Conflict { current_version: version });
        let log = store.read(id, version, 10).await.expect("read");
        assert_eq!(log, vec![candidates[winners[0]].clone()]);
    }
}

async fn duplicate_key_answers_the_first_version(store: Store) {
    let id = new_match(&store).await;
    let deadline = DeadlineChange::Set { due_ms: 500, fence_version: 1 };
    assert_eq!(
        store.append(id, &entry(1, Some("submit-a")), deadline).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    // The retry carries the next version (the caller's state moved on) and another deadline.
    let retry = DeadlineChange::Set { due_ms: 10, fence_version: 2 };
    assert_eq!(
        store.append(id, &entry(2, Some("submit-a")), retry).await,
        Ok(AppendOutcome::Duplicate { version: 1 })
    );
    assert_eq!(store.last_version(id).await, Ok(Some(1)));
    let due = store.due_deadlines(u64::MAX >> 12, 10).await.expect("due");
    assert_eq!(due, [Deadline { match_id: id, due_ms: 500, fence_version: 1 }]);

    assert_eq!(
        store.append(id, &entry(2, Some("submit-b")), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Appended { version: 2 })
    );
    // Still a duplicate after later steps, even with a stale version.
    assert_eq!(
        store.append(id, &entry(1, Some("submit-a")), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Duplicate { version: 1 })
    );
    assert_eq!(versions(&store.read(id, 0, 10).await.expect("read")), [0, 1, 2]);
    // Keys are per match.
    let other = new_match(&store).await;
    assert_eq!(
        store.append(other, &entry(1, Some("submit-a")), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
}

/// A finished match compacted: the same entries, the final views with the last, its last version, no more appends or snapshots, and a second compaction
/// or one from a stale version changes nothing.
async fn compaction(store: Store) {
    let id = new_match(&store).await;
    append_n(&store, id, 4).await;
    store.put_snapshot(id, 2, b"s").await.expect("snapshot");
    store.set_deadline(id, 10, 4).await.expect("deadline");
    let before = store.read(id, 0, 100).await.expect("read");
    assert_eq!(store.compact(id, 3, 0).await, Ok(false), "moved past version 3");
    assert_eq!(store.compact(MatchId::random(), 0, 0).await, Ok(false));
    assert_eq!(store.compact(id, 4, 0).await, Ok(true));
    assert_eq!(store.compact(id, 4, 0).await, Ok(false), "once");
    let after = store.read(id, 0, 100).await.expect("read");
    assert_eq!(after, before, "the record reads as the stream did");
    assert_eq!(after[4].views, entry(4, None).views);
    assert_eq!(store.read(id, 3, 1).await.expect("read"), [before[3].clone()]);
    assert_eq!(store.read(id, 4, 9).await.expect("read"), [before[4].clone()]);
    assert_eq!(store.read(id, 5, 9).await, Ok(vec![]));
    assert_eq!(store.last_version(id).await, Ok(Some(4)));
    assert_eq!(store.snapshot(id).await, Ok(None));
    assert_eq!(store.deadline(id).await, Ok(None));
    assert!(store.meta(id).await.expect("meta").is_some());
    assert_eq!(store.match_secret(id).await, Ok(Some(secret())));
    // Nothing more is appended; a caller behind is told where the match ended, so it
    // rebuilds and finds a retried key there (a duplicate, not an unknown match).
    for v in [4, 5] {
        assert_eq!(
            store.append(id, &entry(v, Some("late")), DeadlineChange::Keep).await,
            Ok(AppendOutcome::Conflict { current_version: 4 })
        );
    }
    assert_eq!(store.read(id, 0, 100).await.expect("read"), before);
    assert_eq!(store.put_snapshot(id, 4, b"t").await, Ok(false));
}

async fn read_from_a_version(store: Store) {
    let id = new_match(&store).await;
    append_n(&store, id, 5).await;
    let all = store.read(id, 0, 100).await.expect("read");
    assert_eq!(versions(&all), [0, 1, 2, 3, 4, 5]);
    // Entries come back as appended: events with audiences, key, trace context; the views
    // only with the latest version (they are the match now, not its history).
    assert_eq!(all[3], Entry { views: vec![], ..entry(3, Some("k3")) });
    assert_eq!(all[0], Entry { views: vec![], ..entry(0, None) });
    assert_eq!(all[5], entry(5, Some("k5")));
    let middle = store.read(id, 3, 2).await.expect("read");
    assert_eq!(versions(&middle), [3, 4]);
    assert!(middle.iter().all(|e| e.views.is_empty()), "no views on superseded versions");
    assert_eq!(store.read(id, 5, 2).await.expect("read"), [entry(5, Some("k5"))]);
    assert_eq!(store.read(id, 6, 10).await, Ok(vec![]));
    assert_eq!(store.read(id, 0, 0).await, Ok(vec![]));
    assert_eq!(store.read(MatchId::random(), 0, 10).await, Ok(vec![]));
}

async fn deadlines(store: Store) {
    let [a, b, c] = [new_match(&store).await, new_match(&store).await, new_match(&store).await];
    assert_eq!(store.due_deadlines(u64::MAX >> 12, 10).await, Ok(vec![]));
    store.set_deadline(b, 100, 0).await.expect("set");
    let set_a = DeadlineChange::Set { due_ms: 300, fence_version: 1 };
    assert_eq!(
        store.append(a, &entry(1, None), set_a).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    let set_c = DeadlineChange::Set { due_ms: 200, fence_version: 1 };
    assert_eq!(
        store.append(c, &entry(1, None), set_c).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    let d = |match_id, due_ms, fence_version| Deadline { match_id, due_ms, fence_version };
    assert_eq!(store.due_deadlines(99, 10).await, Ok(vec![]));
    assert_eq!(store.due_deadlines(250, 10).await, Ok(vec![d(b, 100, 0), d(c, 200, 1)]));
    assert_eq!(
        store.due_deadlines(1_000, 10).await,
        Ok(vec![d(b, 100, 0), d(c, 200, 1), d(a, 300, 1)])
    );
    assert_eq!(store.due_deadlines(1_000, 1).await, Ok(vec![d(b, 100, 0)]));
    assert_eq!(store.due_deadlines(1_000, 0).await, Ok(vec![]));

    // A stale fence clears nothing; the right one clears.
    assert_eq!(store.clear_deadline_if(b, 7).await, Ok(false));
    assert_eq!(store.due_deadlines(150, 10).await, Ok(vec![d(b, 100, 0)]));
    assert_eq!(store.clear_deadline_if(b, 0).await, Ok(true));
    assert_eq!(store.clear_deadline_if(b, 0).await, Ok(false));

    // Re-armed by the next step: the old fence no longer clears it.
    let rearm = DeadlineChange::Set { due_ms: 50, fence_version: 2 };
    assert_eq!(
        store.append(a, &entry(2, None), rearm).await,
        Ok(AppendOutcome::Appended { version: 2 })
    );
    assert_eq!(store.clear_deadline_if(a, 1).await, Ok(false));
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![d(a, 50, 2), d(c, 200, 1)]));
    // Keep keeps; Clear clears; a refused append changes nothing.
    assert_eq!(
        store.append(a, &entry(3, None), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Appended { version: 3 })
    );
    assert_eq!(
        store.append(c, &entry(5, None), DeadlineChange::Clear).await,
        Ok(AppendOutcome::Conflict { current_version: 1 })
    );
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![d(a, 50, 2), d(c, 200, 1)]));
    assert_eq!(
        store.append(c, &entry(2, None), DeadlineChange::Clear).await,
        Ok(AppendOutcome::Appended { version: 2 })
    );
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![d(a, 50, 2)]));

    // Equal due times come in match-id order; large times (a week ahead) are exact.
    let week = 1_700_000_000_000 + 7 * 24 * 3_600_000;
    let mut same = vec![a, b, c];
    for &id in &same {
        store.set_deadline(id, week, 9).await.expect("set");
    }
    same.sort();
    let due = store.due_deadlines(week, 10).await.expect("due");
    assert_eq!(due, same.iter().map(|&id| d(id, week, 9)).collect::<Vec<_>>());
}

async fn snapshots(store: Store) {
    let id = new_match(&store).await;
    assert_eq!(store.snapshot(id).await, Ok(None));
    assert_eq!(store.put_snapshot(id, 3, b"state at 3\x00\xff").await, Ok(true));
    assert_eq!(store.snapshot(id).await, Ok(Some((3, b"state at 3\x00\xff".to_vec()))));
    assert_eq!(store.put_snapshot(id, 2, b"older").await, Ok(false));
    assert_eq!(store.put_snapshot(id, 3, b"same").await, Ok(false));
    assert_eq!(store.put_snapshot(id, 8, b"").await, Ok(true));
    assert_eq!(store.snapshot(id).await, Ok(Some((8, vec![]))));
    let unknown = MatchId::random();
    assert_eq!(store.put_snapshot(unknown, 1, b"x").await, Ok(false));
    assert_eq!(store.snapshot(unknown).await, Ok(None));
}

async fn sessions(store: Store) {
    let (p, q) = (PlayerId::random(), PlayerId::random());
    assert_eq!(store.session(&sha(1)).await, Ok(None));
    store.put_session(&sha(1), p, "Ada").await.expect("put");
    store.put_session(&sha(2), q, "Grace Hopper ✓").await.expect("put");
    assert_eq!(
        store.session(&sha(1)).await,
        Ok(Some(Session { player_id: p, display_name: "Ada".into() }))
    );
    assert_eq!(
        store.session(&sha(2)).await,
        Ok(Some(Session { player_id: q, display_name: "Grace Hopper ✓".into() }))
    );
    store.put_session(&sha(1), p, "Ada L.").await.expect("replace");
    assert_eq!(store.session(&sha(1)).await.expect("get").expect("some").display_name, "Ada L.");
    for bad in ["raw-token", "{tag}", &sha(0xab).to_uppercase()] {
        assert!(matches!(store.session(bad).await, Err(StoreError::InvalidArgument(_))));
        assert!(matches!(
            store.put_session(bad, p, "x").await,
            Err(StoreError::InvalidArgument(_))
        ));
    }
}

async fn players_exist_once_they_have_a_session(store: Store) {
    let (p, q) = (PlayerId::random(), PlayerId::random());
    assert_eq!(store.player_exists(p).await, Ok(false));
    store.put_session(&sha(7), p, "Ada").await.expect("put");
    assert_eq!(store.player_exists(p).await, Ok(true));
    assert_eq!(store.player_exists(q).await, Ok(false), "another player does not");
    // A second session of the same player changes nothing about it.
    store.put_session(&sha(8), p, "Ada again").await.expect("put");
    assert_eq!(store.player_exists(p).await, Ok(true));
    // A refused session makes no player.
    assert!(store.put_session("raw-token", q, "x").await.is_err());
    assert_eq!(store.player_exists(q).await, Ok(false));
}

async fn bot_matches_are_read_in_the_order_recorded(store: Store) {
    let bot = |game: &str, bot: &str| store::BotMatch {
        id: MatchId::random(),
        game: game.into(),
        bot: bot.into(),
    };
    let (a, b, c) = (bot("gops", "strong"), bot("hexspiel", "path"), bot("masterminds", "random"));
    for m in [&a, &b, &c] {
        store.add_bot_match(m).await.expect("recorded");
    }
    let all = store.bot_matches(0, 10).await.expect("read");
    let order: Vec<_> = all.iter().map(|(_, m)| m.clone()).collect();
    assert_eq!(order, [a.clone(), b.clone(), c.clone()]);
    assert!(all.windows(2).all(|w| w[0].0 < w[1].0), "positions rise: {all:?}");
    // From a position on: only what came after it, at most `limit`.
    let after_a = store.bot_matches(all[0].0, 1).await.expect("read");
    assert_eq!(after_a, vec![all[1].clone()]);
    assert_eq!(store.bot_matches(all[2].0, 10).await.expect("read"), vec![]);
    assert_eq!(store.bot_matches(0, 0).await.expect("read"), vec![]);
    // Recorded again (a retried CreateMatch): moved last, once.
    store.add_bot_match(&a).await.expect("again");
    let again = store.bot_matches(all[2].0, 10).await.expect("read");
    assert_eq!(again.len(), 1);
    assert_eq!(again[0].1, a);
    // Forgotten once ended; forgetting it twice, or one never recorded, changes nothing.
    store.remove_bot_match(&b).await.expect("forgotten");
    store.remove_bot_match(&b).await.expect("forgotten again");
    store.remove_bot_match(&bot("gops", "random")).await.expect("never recorded");
    let left: Vec<_> =
        store.bot_matches(0, 10).await.expect("read").into_iter().map(|(_, m)| m).collect();
    assert_eq!(left, [c, a.clone()]);
    // A name the member format cannot hold is refused, and nothing is recorded.
    let spaced = store::BotMatch { bot: "two words".into(), ..a };
    assert!(matches!(store.add_bot_match(&spaced).await, Err(StoreError::InvalidArgument(_))));
    assert_eq!(store.bot_matches(0, 10).await.expect("read").len(), 2);
}

async fn ping(store: Store) {
    assert_eq!(store.ping().await, Ok(()));
}

async fn repair_leaves_a_whole_index_alone(store: Store) {
    assert_eq!(store.repair_deadline_index().await, Ok(0));
    let [a, b, c] = [new_match(&store).await, new_match(&store).await, new_match(&store).await];
    store.set_deadline(a, 100, 0).await.expect("set");
    let arm = |due_ms, fence_version| DeadlineChange::Set { due_ms, fence_version };
    // Re-armed later, re-armed earlier, cleared.
    assert_eq!(
        store.append(a, &entry(1, None), arm(400, 1)).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(
        store.append(b, &entry(1, None), arm(200, 1)).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(
        store.append(b, &entry(2, None), DeadlineChange::Clear).await,
        Ok(AppendOutcome::Appended { version: 2 })
    );
    assert_eq!(
        store.append(c, &entry(1, None), arm(300, 1)).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(
        store.append(c, &entry(2, None), arm(50, 2)).await,
        Ok(AppendOutcome::Appended { version: 2 })
    );
    let d = |match_id, due_ms, fence_version| Deadline { match_id, due_ms, fence_version };
    assert_eq!(store.due_deadlines(150, 10).await, Ok(vec![d(c, 50, 2)]));
    assert_eq!(store.repair_deadline_index().await, Ok(0));
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![d(c, 50, 2), d(a, 400, 1)]));
    assert_eq!(store.repair_deadline_index().await, Ok(0));
}

/// The next `n` notifications of `feed` (each within a few seconds), by match.
async fn next_from(feed: &mut AppendFeed, n: usize) -> BTreeMap<MatchId, Vec<u64>> {
    let mut got: BTreeMap<MatchId, Vec<u64>> = BTreeMap::new();
    for _ in 0..n {
        let (id, version) = tokio::time::timeout(Duration::from_secs(5), feed.next())
            .await
            .expect("a notification in time")
            .expect("the feed is open");
        got.entry(id).or_default().push(version);
    }
    got
}

/// Whether `feed` stays quiet for a moment (a notification or its end would show).
async fn quiet(feed: &mut AppendFeed) -> bool {
    tokio::time::timeout(Duration::from_millis(300), feed.next()).await.is_err()
}

async fn the_feed_announces_each_append_once(store: Store) {
    let mut feed = store.append_feed().await.expect("subscribe");
    let [a, b] = [new_match(&store).await, new_match(&store).await];
    append_n(&store, a, 3).await;
    append_n(&store, b, 2).await;
    // Refused appends announce nothing: a duplicate key, a version conflict.
    assert_eq!(
        store.append(a, &entry(4, Some("k1")), DeadlineChange::Keep).await,
        Ok(AppendOutcome::Duplicate { version: 1 })
    );
    let arm = DeadlineChange::Set { due_ms: 9, fence_version: 3 };
    assert_eq!(
        store.append(b, &entry(5, None), arm).await,
        Ok(AppendOutcome::Conflict { current_version: 2 })
    );
    assert_eq!(
        store.append(b, &entry(3, None), arm).await,
        Ok(AppendOutcome::Appended { version: 3 })
    );
    // Each match's versions in order; creations (version 0) are not announced.
    assert_eq!(
        next_from(&mut feed, 6).await,
        BTreeMap::from([(a, vec![1, 2, 3]), (b, vec![1, 2, 3])])
    );
    assert!(quiet(&mut feed).await, "only the six appends are announced");

    // A later subscriber hears only what comes after it; both hear that.
    let mut late = store.append_feed().await.expect("subscribe");
    assert_eq!(
        store.append(a, &entry(4, None), DeadlineChange::Clear).await,
        Ok(AppendOutcome::Appended { version: 4 })
    );
    assert_eq!(next_from(&mut feed, 1).await, BTreeMap::from([(a, vec![4])]));
    assert_eq!(next_from(&mut late, 1).await, BTreeMap::from([(a, vec![4])]));
    assert!(quiet(&mut late).await);
}

// ---------------------------------------------------------------------------------------
// Redis only

/// A plain connection for inspecting the server behind the store's back.
async fn inspect(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(server.url()).expect("url");
    client.get_multiplexed_async_connection().await.expect("connect")
}

#[test]
fn key_names_carry_the_match_hash_tag() {
    let id: MatchId = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().expect("id");
    assert_eq!(keys::log(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:log");
    assert_eq!(keys::meta(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:meta");
    assert_eq!(keys::secret(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:secret");
    assert_eq!(keys::idem(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:idem");
    assert_eq!(keys::snapshot(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:snap");
    assert_eq!(keys::deadline(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:deadline");
    assert_eq!(keys::DEADLINES, "colosseum:deadlines");
    assert_eq!(keys::APPENDED, "colosseum:appended");
    assert_eq!(keys::session(&sha(10)), format!("colosseum:session:{}", sha(10)));
    let p: PlayerId = "0b7e2a51-4c1d-4f0e-9a3b-5d6c7e8f9a0b".parse().expect("player id");
    assert_eq!(keys::player(p), "colosseum:player:0b7e2a51-4c1d-4f0e-9a3b-5d6c7e8f9a0b");
    // Redis Cluster hashes only what is between the first `{` and the next `}`.
    for key in [
        keys::log(id),
        keys::meta(id),
        keys::secret(id),
        keys::idem(id),
        keys::views(id),
        keys::record(id),
        keys::opening(id),
        keys::snapshot(id),
        keys::deadline(id),
    ] {
        let tag = key.split_once('{').and_then(|(_, rest)| rest.split_once('}')).map(|t| t.0);
        assert_eq!(tag, Some("67e55044-10b1-426f-9247-bb680e5fe0c8"));
    }
}

#[tokio::test]
async fn redis_holds_exactly_the_documented_keys() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    append_n(store, id, 1).await;
    store.put_snapshot(id, 1, b"s").await.expect("snapshot");
    store.set_deadline(id, 10, 1).await.expect("deadline");
    let player = PlayerId::random();
    store.put_session(&sha(3), player, "x").await.expect("session");
    // A finished match keeps its record, meta and secret, expiring together.
    let done = new_match(store).await;
    append_n(store, done, 2).await;
    assert_eq!(store.compact(done, 2, 3_600_000).await, Ok(true));
    let mut conn = inspect(server).await;
    let mut found: Vec<String> =
        redis::cmd("KEYS").arg("*").query_async(&mut conn).await.expect("KEYS");
    found.sort();
    let mut expected = vec![
        keys::opening(id),
        keys::log(id),
        keys::meta(id),
        keys::secret(id),
        keys::idem(id),
        keys::views(id),
        keys::snapshot(id),
        keys::deadline(id),
        keys::record(done),
        keys::meta(done),
        keys::secret(done),
        keys::DEADLINES.to_string(),
        keys::session(&sha(3)),
        keys::player(player),
    ];
    expected.sort();
    assert_eq!(found, expected);
    // The stream ids are derived from the versions.
    let ids: Vec<redis::Value> = redis::cmd("XRANGE")
        .arg(keys::log(id))
        .arg("-")
        .arg("+")
        .query_async(&mut conn)
        .await
        .expect("XRANGE");
    let ids: Vec<String> = ids
        .into_iter()
        .map(|e| match e {
            redis::Value::Array(mut parts) => match parts.remove(0) {
                redis::Value::BulkString(b) => String::from_utf8(b).expect("utf8"),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        })
        .collect();
    // The opening is not in the stream: the first step made it.
    assert_eq!(ids, ["1-1"]);
    for key in [keys::record(done), keys::meta(done), keys::secret(done)] {
        let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut conn).await.expect("PTTL");
        assert!((3_500_000..=3_600_000).contains(&ttl), "{key} expires with the retention: {ttl}");
    }
    let ttl: i64 =
        redis::cmd("PTTL").arg(keys::meta(id)).query_async(&mut conn).await.expect("PTTL");
    assert_eq!(ttl, -1, "a live match never expires");
    // The meta hash, which the gateway and the clock read, holds no seed.
    let fields: Vec<String> =
        redis::cmd("HGETALL").arg(keys::meta(id)).query_async(&mut conn).await.expect("HGETALL");
    assert!(fields.iter().all(|f| !f.contains(&secret().seed_hex)), "{fields:?}");
}

#[tokio::test]
async fn redis_finds_the_seed_of_a_match_stored_before_the_secret_key() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    // The layout before: no secret key, the seed in the meta's JSON.
    let mut conn = inspect(server).await;
    let m: String =
        redis::cmd("HGET").arg(keys::meta(id)).arg("m").query_async(&mut conn).await.expect("m");
    let old = m.replacen('{', &format!(r#"{{"seed":"{}","#, secret().seed_hex), 1);
    let () = redis::cmd("HSET")
        .arg(keys::meta(id))
        .arg("m")
        .arg(&old)
        .query_async(&mut conn)
        .await
        .expect("HSET");
    let () = redis::cmd("DEL").arg(keys::secret(id)).query_async(&mut conn).await.expect("DEL");
    assert_eq!(store.meta(id).await, Ok(Some(open_meta())));
    assert_eq!(store.match_secret(id).await, Ok(Some(secret())));
    // That first read moved the seed to its own key: the meta holds it no more.
    let moved: String =
        redis::cmd("HGET").arg(keys::meta(id)).arg("m").query_async(&mut conn).await.expect("HGET");
    assert!(!moved.contains(&secret().seed_hex) && !moved.contains("seed"), "{moved}");
    assert_eq!(store.meta(id).await, Ok(Some(open_meta())));
    assert_eq!(store.match_secret(id).await, Ok(Some(secret())));
    let () = redis::cmd("DEL").arg(keys::secret(id)).query_async(&mut conn).await.expect("DEL");
    // A meta with no seed anywhere is corrupt, not a match without one.
    let () = redis::cmd("HSET")
        .arg(keys::meta(id))
        .arg("m")
        .arg(&m)
        .query_async(&mut conn)
        .await
        .expect("HSET");
    assert!(matches!(store.match_secret(id).await, Err(StoreError::Corrupt(_))));
}

/// `(calls of EVALSHA, calls of ZADD, commands processed)` from `INFO`.
async fn command_counts(conn: &mut redis::aio::MultiplexedConnection) -> (u64, u64, u64) {
    let info: String = redis::cmd("INFO").arg("all").query_async(conn).await.expect("INFO");
    let field = |line_start: &str, name: &str| -> u64 {
        let line = info.lines().find(|l| l.starts_with(line_start)).unwrap_or("");
        line.split([':', ',', '='])
            .skip_while(|part| *part != name)
            .nth(1)
            .map_or(0, |v| v.trim().parse().expect("a number"))
    };
    (
        field("cmdstat_evalsha:", "calls"),
        field("cmdstat_zadd:", "calls"),
        field("total_commands_processed:", "total_commands_processed"),
    )
}

#[tokio::test]
async fn append_is_one_evalsha_round_trip() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    // A script is loaded on its first use (an EVALSHA refused NOSCRIPT, SCRIPT LOAD, the
    // EVALSHA again): one append first, so what is counted is every append after it.
    append_n(store, new_match(store).await, 1).await;
    let id = new_match(store).await;
    let mut conn = inspect(server).await;
    let before = command_counts(&mut conn).await;
    let deadline = DeadlineChange::Set { due_ms: 5, fence_version: 1 };
    assert_eq!(
        store.append(id, &entry(1, Some("a")), deadline).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    let after = command_counts(&mut conn).await;
    assert_eq!(after.0 - before.0, 1, "one EVALSHA");
    assert_eq!(after.1 - before.1, 1, "one ZADD of the deadline index, pipelined before it");
    // `total_commands_processed` also counts the commands a script runs inside Redis. Between
    // the two INFOs: the first INFO, the ZADD, the EVALSHA, and the script's XREVRANGE,
    // EXISTS (the opening: no stream before the first step), HGET (idem), XADD, HSET (idem),
    // HSET (views), HSET (deadline), PUBLISH. Any extra command would add to it.
    assert_eq!(after.2 - before.2, 1 + 2 + 8, "commands between the INFOs");
    let duplicate = store.append(id, &entry(2, Some("a")), DeadlineChange::Keep).await;
    assert_eq!(duplicate, Ok(AppendOutcome::Duplicate { version: 1 }));
    let last = command_counts(&mut conn).await;
    assert_eq!(last.0 - after.0, 1, "a duplicate is one EVALSHA too");
    // INFO, EVALSHA, XREVRANGE, HGET: nothing written, no index entry for Keep.
    assert_eq!(last.2 - after.2, 1 + 1 + 2);
}

#[tokio::test]
async fn scripts_are_reloaded_after_script_flush() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    let mut conn = inspect(server).await;
    let () = redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut conn).await.expect("flush");
    append_n(store, id, 2).await;
    // The append that arms a deadline sends its EVALSHA in a pipeline: reloaded too.
    let () = redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut conn).await.expect("flush");
    let arm = DeadlineChange::Set { due_ms: 5, fence_version: 3 };
    assert_eq!(
        store.append(id, &entry(3, None), arm).await,
        Ok(AppendOutcome::Appended { version: 3 })
    );
    let armed = Deadline { match_id: id, due_ms: 5, fence_version: 3 };
    assert_eq!(store.due_deadlines(5, 10).await, Ok(vec![armed]));
    assert_eq!(
        store.claim_seat(id, Seat::ZERO, PlayerId::random()).await,
        Ok(ClaimOutcome::Claimed)
    );
}

/// A match stored before the opening had a hash of its own (its opening the stream's entry
/// 0-1) reads, takes steps and compacts as any other.
#[tokio::test]
async fn a_match_stored_with_its_opening_in_the_stream_still_works() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    let mut conn = inspect(server).await;
    // Back to the old layout: the opening's fields as stream entry 0-1, no `open` hash.
    let fields: Vec<(Vec<u8>, Vec<u8>)> =
        redis::cmd("HGETALL").arg(keys::opening(id)).query_async(&mut conn).await.expect("HGETALL");
    let mut xadd = redis::cmd("XADD");
    xadd.arg(keys::log(id)).arg("0-1");
    for (k, v) in &fields {
        xadd.arg(k).arg(v);
    }
    let _: String = xadd.query_async(&mut conn).await.expect("XADD");
    let _: i64 = redis::cmd("DEL")
        .arg(&[keys::opening(id), keys::views(id)])
        .query_async(&mut conn)
        .await
        .expect("DEL");
    let opening = Entry { views: vec![], ..entry(0, None) };
    assert_eq!(store.read(id, 0, 1).await.expect("read"), std::slice::from_ref(&opening));
    assert_eq!(store.last_version(id).await, Ok(Some(0)));
    append_n(store, id, 2).await;
    let all = store.read(id, 0, 10).await.expect("read");
    assert_eq!(versions(&all), [0, 1, 2]);
    assert_eq!(all[0], opening);
    assert_eq!(store.compact(id, 2, 0).await, Ok(true));
    assert_eq!(store.read(id, 0, 10).await.expect("read"), all);
}

/// A compaction built before a failover reissued the last version (same number, another
/// entry) changes nothing.
#[tokio::test]
async fn a_compaction_of_a_reissued_version_changes_nothing() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    append_n(store, id, 2).await;
    let mut conn = inspect(server).await;
    // The last entry lost and reissued with another tag, as after a failover.
    // (A stream never takes an id at or below its top again: it is written anew.)
    let _: i64 = redis::cmd("DEL").arg(keys::log(id)).query_async(&mut conn).await.expect("DEL");
    let mut reissued = entry(2, Some("k2-again"));
    reissued.tag = 77;
    for (id_text, e) in [("1-1", entry(1, Some("k1"))), ("2-1", reissued)] {
        let mut xadd = redis::cmd("XADD");
        xadd.arg(keys::log(id)).arg(id_text);
        for (k, v) in store::redis_store::codec::entry_fields(&e) {
            xadd.arg(k).arg(v);
        }
        let _: String = xadd.query_async(&mut conn).await.expect("XADD");
    }
    // The store's own compaction reads what is there now, so it is safe; a script given
    // the old entry's tag (what a compaction read before the failover would pass) is not.
    let script = redis::Script::new(include_str!("../src/matches/lua/compact.lua"));
    let mut call = script.prepare_invoke();
    for key in [
        keys::log(id),
        keys::idem(id),
        keys::snapshot(id),
        keys::views(id),
        keys::record(id),
        keys::meta(id),
        keys::secret(id),
        keys::deadline(id),
        keys::opening(id),
    ] {
        call.key(key);
    }
    call.arg(2).arg(b"stale".to_vec()).arg(0).arg(entry(2, None).tag);
    let done: i64 = call.invoke_async(&mut conn).await.expect("compact.lua");
    assert_eq!(done, 0, "the stale record is refused");
    assert_eq!(store.read(id, 2, 1).await.expect("read")[0].tag, 77);
    assert_eq!(store.compact(id, 2, 0).await, Ok(true));
    assert_eq!(store.read(id, 2, 1).await.expect("read")[0].tag, 77);
}

#[tokio::test]
async fn corrupt_entries_are_typed_errors() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    let mut conn = inspect(server).await;
    let _: String = redis::cmd("XADD")
        .arg(keys::log(id))
        .arg("1-1")
        .arg("step")
        .arg("{}")
        .arg("at")
        .arg("1")
        .arg("ev")
        .arg(&[9u8][..])
        .query_async(&mut conn)
        .await
        .expect("XADD");
    assert!(matches!(store.read(id, 0, 10).await, Err(StoreError::Corrupt(_))));
}

#[tokio::test]
async fn the_store_reconnects_after_a_redis_restart() {
    let mut server = start_redis(RedisOptions {
        persistence: Persistence::AppendOnly,
        ..RedisOptions::default()
    })
    .await;
    let store: Store = Arc::new(RedisStore::connect(&server.url()).await.expect("connect"));
    let id = new_match(&store).await;
    append_n(&store, id, 3).await;
    let server = tokio::task::spawn_blocking(move || {
        server.restart();
        server
    })
    .await
    .expect("restart");
    // The calls in flight during the restart fail; the next ones reconnect (and reload
    // the scripts, which a restart forgets).
    let mut appended = None;
    for _ in 0..50 {
        match store.append(id, &entry(4, Some("k4")), DeadlineChange::Keep).await {
            Ok(outcome) => {
                appended = Some(outcome);
                break;
            }
            Err(StoreError::Redis(_)) => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(other) => panic!("{other}"),
        }
    }
    assert_eq!(appended, Some(AppendOutcome::Appended { version: 4 }));
    assert_eq!(versions(&store.read(id, 0, 10).await.expect("read")), [0, 1, 2, 3, 4]);
    drop(server);
}

async fn deadline_lookup(store: Store) {
    let id = new_match(&store).await;
    assert_eq!(store.deadline(id).await.unwrap(), None);
    store.set_deadline(id, 5_000, 0).await.unwrap();
    let d = store.deadline(id).await.unwrap().expect("armed");
    assert_eq!((d.match_id, d.due_ms, d.fence_version), (id, 5_000, 0));
    let set = DeadlineChange::Set { due_ms: 7_000, fence_version: 1 };
    assert_eq!(
        store.append(id, &entry(1, None), set).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    let d = store.deadline(id).await.unwrap().expect("re-armed");
    assert_eq!((d.due_ms, d.fence_version), (7_000, 1));
    assert!(store.clear_deadline_if(id, 1).await.unwrap());
    assert_eq!(store.deadline(id).await.unwrap(), None);

    // A match created with its first deadline has it armed (fenced at version 0) and
    // indexed, as set_deadline would; a creation refused arms nothing.
    let armed = MatchId::random();
    let (meta, seed, opening) = (open_meta(), secret(), entry(0, None));
    store.create_match(armed, &meta, &seed, &opening, Some(6_000)).await.expect("create");
    let d = store.deadline(armed).await.unwrap().expect("armed at creation");
    assert_eq!((d.match_id, d.due_ms, d.fence_version), (armed, 6_000, 0));
    let due = store.due_deadlines(6_000, 100).await.unwrap();
    assert!(due.iter().any(|d| d.match_id == armed && d.due_ms == 6_000), "{due:?}");
    let again = store.create_match(armed, &meta, &seed, &opening, Some(9_000)).await;
    assert_eq!(again, Err(StoreError::AlreadyExists(armed)));
    assert_eq!(store.deadline(armed).await.unwrap().expect("kept").due_ms, 6_000);
}

// ---------------------------------------------------------------------------------------
// Redis only: the deadline index and the feed's connection

/// The deadline index as the server holds it: match -> score.
async fn index(conn: &mut impl redis::aio::ConnectionLike) -> BTreeMap<MatchId, u64> {
    let entries: Vec<(String, u64)> = redis::cmd("ZRANGE")
        .arg(keys::DEADLINES)
        .arg(0)
        .arg(-1)
        .arg("WITHSCORES")
        .query_async(conn)
        .await
        .expect("ZRANGE");
    entries.into_iter().map(|(m, score)| (m.parse().expect("a match id"), score)).collect()
}

#[tokio::test]
async fn the_index_is_a_hint_that_reading_corrects() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let mut conn = inspect(server).await;
    let [a, b, c] = [new_match(store).await, new_match(store).await, new_match(store).await];
    // A refused arming (a version conflict) leaves an index entry with no deadline.
    let arm = DeadlineChange::Set { due_ms: 10, fence_version: 2 };
    assert_eq!(
        store.append(a, &entry(2, None), arm).await,
        Ok(AppendOutcome::Conflict { current_version: 0 })
    );
    assert_eq!(store.deadline(a).await, Ok(None));
    // Arming later keeps the entry where it was (ZADD LT); arming earlier lowers it.
    store.set_deadline(b, 500, 0).await.expect("set");
    store.set_deadline(b, 900, 1).await.expect("set");
    store.set_deadline(c, 700, 0).await.expect("set");
    store.set_deadline(c, 600, 1).await.expect("set");
    assert_eq!(index(&mut conn).await, BTreeMap::from([(a, 10), (b, 500), (c, 600)]));

    // Reading: the entry with no deadline is dropped, the early one raised to its
    // deadline (not due yet), the due one returned.
    let d = |match_id, due_ms, fence_version| Deadline { match_id, due_ms, fence_version };
    assert_eq!(store.due_deadlines(650, 10).await, Ok(vec![d(c, 600, 1)]));
    assert_eq!(index(&mut conn).await, BTreeMap::from([(b, 900), (c, 600)]));
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![d(c, 600, 1), d(b, 900, 1)]));

    // Clearing with the fence removes the entry too; a cleared deadline's entry is left
    // for the next read to drop.
    assert_eq!(store.clear_deadline_if(c, 1).await, Ok(true));
    assert_eq!(
        store.append(b, &entry(1, None), DeadlineChange::Clear).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(index(&mut conn).await, BTreeMap::from([(b, 900)]));
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![]));
    assert_eq!(index(&mut conn).await, BTreeMap::new());

    // A final step takes its match's entry with it at once, due or not: a finished match
    // holds nothing in the index once the archive has let it go.
    store.set_deadline(a, 5_000, 0).await.expect("set");
    assert_eq!(index(&mut conn).await, BTreeMap::from([(a, 5_000)]));
    let f = finished_with(a, [None, None]);
    let last = Entry { step_json: r#"{"resign":0}"#.into(), ..entry(1, None) };
    assert_eq!(store.append_final(a, &last, &f).await, Ok(AppendOutcome::Appended { version: 1 }));
    assert_eq!(index(&mut conn).await, BTreeMap::new());
}

/// A match created and ended by a final step at version 1.
async fn finished_match(store: &Arc<dyn FullStore>) -> MatchId {
    let id = new_match(&(store.clone() as Store)).await;
    let last = Entry { step_json: r#"{"resign":0}"#.into(), ..entry(1, None) };
    let f = finished_with(id, [None, None]);
    assert_eq!(store.append_final(id, &last, &f).await, Ok(AppendOutcome::Appended { version: 1 }));
    id
}

/// Whether any of a match's kept keys (meta, record, secret) is still in Redis.
async fn held(conn: &mut redis::aio::MultiplexedConnection, id: MatchId) -> bool {
    let n: u64 = redis::cmd("EXISTS")
        .arg(keys::meta(id))
        .arg(keys::record(id))
        .arg(keys::secret(id))
        .query_async(conn)
        .await
        .expect("EXISTS");
    n > 0
}

#[tokio::test]
async fn a_compaction_never_gives_a_released_match_its_retention_back() {
    let fixture = redis_fixture().await;
    let server = fixture.redis.as_ref().expect("redis");
    let (store, mut conn) = (fixture.store.clone(), inspect(server).await);
    let retention_ms = 90 * 24 * 3_600_000;
    // Both orders with a window of seconds: whichever comes last, every key expires
    // within the window.
    for release_first in [true, false] {
        let id = finished_match(&store).await;
        if release_first {
            assert_eq!(store.release_finished(id, 5_000).await, Ok(true));
            assert_eq!(store.compact(id, 1, retention_ms).await, Ok(true));
        } else {
            assert_eq!(store.compact(id, 1, retention_ms).await, Ok(true));
            assert_eq!(store.release_finished(id, 5_000).await, Ok(true));
        }
        for key in [keys::meta(id), keys::record(id), keys::secret(id)] {
            let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut conn).await.expect("PTTL");
            assert!(
                (1..=5_000).contains(&ttl),
                "{key} expires in {ttl} ms (release first: {release_first})"
            );
        }
    }
    // A window of 1 ms, compacted at once: the compaction often lands in the very
    // millisecond the meta expires (PTTL 0, the key still there). None may outlive it.
    let mut ids = Vec::new();
    for _ in 0..200 {
        let id = finished_match(&store).await;
        assert_eq!(store.release_finished(id, 1).await, Ok(true));
        store.compact(id, 1, retention_ms).await.expect("compact");
        ids.push(id);
    }
    tokio::time::sleep(Duration::from_millis(20)).await;
    for id in ids {
        assert!(!held(&mut conn, id).await, "{id} outlived its release");
    }
    // A match not over is never released.
    let live = new_match(&(store.clone() as Store)).await;
    assert_eq!(store.release_finished(live, 1).await, Ok(false));
    tokio::time::sleep(Duration::from_millis(20)).await;
    assert!(held(&mut conn, live).await);
}

#[tokio::test]
async fn the_repair_restores_lost_and_late_index_entries() {
    let fixture = redis_fixture().await;
    let (store, server) =
        (&(fixture.store.clone() as Store), fixture.redis.as_ref().expect("redis"));
    let mut conn = inspect(server).await;
    // More deadlines than one SCAN step looks at.
    let mut armed: Vec<Deadline> = (0..2_500u64)
        .map(|i| Deadline { match_id: MatchId::random(), due_ms: 1_000 + i, fence_version: i })
        .collect();
    for d in &armed {
        store.set_deadline(d.match_id, d.due_ms, d.fence_version).await.expect("set");
    }
    armed.sort_by_key(|d| (d.due_ms, d.match_id));
    let () = redis::cmd("DEL").arg(keys::DEADLINES).query_async(&mut conn).await.expect("DEL");
    assert_eq!(store.due_deadlines(u64::MAX >> 12, 10).await, Ok(vec![]), "the index is gone");
    assert_eq!(store.repair_deadline_index().await, Ok(2_500));
    assert_eq!(store.due_deadlines(u64::MAX >> 12, 10).await.as_deref(), Ok(&armed[..10]));
    assert_eq!(store.repair_deadline_index().await, Ok(0), "nothing left to repair");

    // An entry later than its deadline would fire late: the repair lowers it.
    let first = armed[0];
    let () = redis::cmd("ZADD")
        .arg(keys::DEADLINES)
        .arg(9_999_999)
        .arg(first.match_id.to_string())
        .query_async(&mut conn)
        .await
        .expect("ZADD");
    assert_eq!(store.due_deadlines(first.due_ms, 10).await, Ok(vec![]));
    assert_eq!(store.repair_deadline_index().await, Ok(1));
    assert_eq!(store.due_deadlines(first.due_ms, 10).await, Ok(vec![first]));
}

#[tokio::test]
async fn the_feed_skips_malformed_notes_and_ends_with_its_connection() {
    let server = start_redis(RedisOptions::default()).await;
    let store: Store = Arc::new(RedisStore::connect(&server.url()).await.expect("connect"));
    let mut conn = inspect(&server).await;
    let mut feed = store.append_feed().await.expect("subscribe");
    for junk in ["", "garbage", "67e55044-10b1-426f-9247-bb680e5fe0c8", "nope 7"] {
        let _: i64 = redis::cmd("PUBLISH")
            .arg(keys::APPENDED)
            .arg(junk)
            .query_async(&mut conn)
            .await
            .expect("PUBLISH");
    }
    let id = new_match(&store).await;
    append_n(&store, id, 1).await;
    assert_eq!(next_from(&mut feed, 1).await, BTreeMap::from([(id, vec![1])]));

    // The server goes away: the stream ends (the caller subscribes again and re-reads).
    let mut server = tokio::task::spawn_blocking(move || {
        let mut server = server;
        server.stop();
        server
    })
    .await
    .expect("stop");
    let end = tokio::time::timeout(Duration::from_secs(5), feed.next()).await;
    assert_eq!(end.expect("the feed ended in time"), None);
    assert!(store.append_feed().await.is_err(), "no server, no subscription");

    let server = tokio::task::spawn_blocking(move || {
        server.restart();
        server
    })
    .await
    .expect("restart");
    let mut feed = store.append_feed().await.expect("subscribe again");
    // The command connection reconnects on its own, after failing the calls in flight.
    let mut id = None;
    for _ in 0..50 {
        let candidate = MatchId::random();
        match store.create_match(candidate, &open_meta(), &secret(), &entry(0, None), None).await {
            Ok(()) => {
                id = Some(candidate);
                break;
            }
            Err(StoreError::Redis(_)) => tokio::time::sleep(Duration::from_millis(100)).await,
            Err(other) => panic!("{other}"),
        }
    }
    let id = id.expect("Redis is back");
    append_n(&store, id, 2).await;
    assert_eq!(next_from(&mut feed, 2).await, BTreeMap::from([(id, vec![1, 2])]));
    drop(server);
}

// ---------------------------------------------------------------------------------------
// Redis Cluster only

/// A plain connection to each node of `cluster`, in its order.
async fn node_conns(cluster: &RedisCluster) -> Vec<redis::aio::MultiplexedConnection> {
    let mut conns = Vec::new();
    for url in cluster.urls() {
        let client = redis::Client::open(url).expect("url");
        conns.push(client.get_multiplexed_async_connection().await.expect("connect"));
    }
    conns
}

/// One match id per node of the cluster: `ids[i]`'s keys live on node `i`. A node answers
/// `EXISTS` only for keys of the slots it serves (`MOVED` otherwise).
async fn one_match_per_node(nodes: &mut [redis::aio::MultiplexedConnection]) -> Vec<MatchId> {
    let mut ids: Vec<Option<MatchId>> = vec![None; nodes.len()];
    for _ in 0..1_000 {
        let id = MatchId::random();
        for (slot, node) in ids.iter_mut().zip(nodes.iter_mut()) {
            let served: Result<i64, _> =
                redis::cmd("EXISTS").arg(keys::log(id)).query_async(node).await;
            if served.is_ok() && slot.is_none() {
                *slot = Some(id);
            }
        }
        if ids.iter().all(Option::is_some) {
            return ids.into_iter().flatten().collect();
        }
    }
    panic!("no match id found for every node");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn matches_on_every_node_share_deadlines_repair_and_feed() {
    let fixture = cluster_fixture().await;
    let (store, cluster) =
        (&(fixture.store.clone() as Store), fixture.cluster.as_ref().expect("cluster"));
    let mut nodes = node_conns(cluster).await;
    let ids = one_match_per_node(&mut nodes).await;
    let mut feed = store.append_feed().await.expect("subscribe");
    let player = PlayerId::random();
    for (i, &id) in ids.iter().enumerate() {
        store
            .create_match(id, &open_meta(), &secret(), &entry(0, None), None)
            .await
            .expect("create");
        assert_eq!(store.claim_seat(id, Seat::ZERO, player).await, Ok(ClaimOutcome::Claimed));
        let arm = DeadlineChange::Set { due_ms: 100 * (i as u64 + 1), fence_version: 1 };
        assert_eq!(
            store.append(id, &entry(1, Some("k1")), arm).await,
            Ok(AppendOutcome::Appended { version: 1 })
        );
        assert_eq!(
            store.append(id, &entry(2, Some("k1")), arm).await,
            Ok(AppendOutcome::Duplicate { version: 1 })
        );
        assert_eq!(
            store.append(id, &entry(3, None), arm).await,
            Ok(AppendOutcome::Conflict { current_version: 1 })
        );
    }
    // Each node holds its own match's keys.
    for (node, &id) in nodes.iter_mut().zip(&ids) {
        let held: i64 = redis::cmd("EXISTS")
            .arg(&[
                keys::log(id),
                keys::meta(id),
                keys::secret(id),
                keys::idem(id),
                keys::deadline(id),
            ])
            .query_async(node)
            .await
            .expect("EXISTS");
        assert_eq!(held, 5, "node of {id}");
    }
    // The feed hears appends made on every node.
    assert_eq!(next_from(&mut feed, 3).await, ids.iter().map(|&id| (id, vec![1])).collect());
    assert!(quiet(&mut feed).await, "refused appends are not announced");

    // Deadlines across nodes, earliest first; the fence decides what clears.
    let d = |match_id, due_ms, fence_version| Deadline { match_id, due_ms, fence_version };
    let all = vec![d(ids[0], 100, 1), d(ids[1], 200, 1), d(ids[2], 300, 1)];
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(all.clone()));
    assert_eq!(store.clear_deadline_if(ids[1], 0).await, Ok(false));
    assert_eq!(store.clear_deadline_if(ids[1], 1).await, Ok(true));
    let kept = vec![all[0], all[2]];
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(kept.clone()));

    // The index lost (on whichever node holds it): nothing is due until the repair.
    let client = redis::cluster::ClusterClient::new(cluster.urls()).expect("urls");
    let mut conn = client.get_async_connection().await.expect("connect");
    let () = redis::cmd("DEL").arg(keys::DEADLINES).query_async(&mut conn).await.expect("DEL");
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(vec![]));
    assert_eq!(store.repair_deadline_index().await, Ok(2));
    assert_eq!(store.due_deadlines(1_000, 10).await, Ok(kept));
    assert!(index(&mut conn).await.contains_key(&ids[0]));
}
