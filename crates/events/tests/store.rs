//! One suite, two stores: every test here runs against the `MemoryStore` and against a
//! `RedisStore` on a real `redis-server` started by `test-harness` on a free loopback port
//! (each Redis test has its own server). The Redis-only checks (key names in the server,
//! one round trip per append, script reload, restart) are at the end.

use events::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, EventStore, MatchId, MatchMeta,
    MemoryStore, PlayerId, RedisStore, SeatHolder, Session, StoreError, StoredEvent, TAIL_BATCH,
    keys,
};
use rules_core::{Audience, PerSeat, Seat};
use std::sync::Arc;
use std::time::Duration;
use test_harness::{Persistence, RedisOptions, RedisServer};

type Store = Arc<dyn EventStore>;

// ---------------------------------------------------------------------------------------
// Fixtures

fn meta(seats: [SeatHolder; 2]) -> MatchMeta {
    MatchMeta {
        game: "gops".into(),
        options_json: r#"{"cards":13}"#.into(),
        seed_hex: "0123456789abcdef0123456789abcdef".into(),
        commitment_hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        seats: PerSeat(seats),
        move_time_ms: 30_000,
        created_at_ms: 1_700_000_000_000,
    }
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
        traceparent: Some(format!("00-{:032x}-{:016x}-01", version + 1, version + 7)),
        at_ms: 1_700_000_000_000 + version,
    }
}

async fn new_match(store: &Store) -> MatchId {
    let id = MatchId::random();
    store.create_match(id, &open_meta(), &entry(0, None)).await.expect("create");
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

struct Fixture {
    store: Store,
    redis: Option<RedisServer>,
}

async fn memory_fixture() -> Fixture {
    Fixture { store: Arc::new(MemoryStore::new()), redis: None }
}

async fn start_redis(options: RedisOptions) -> RedisServer {
    tokio::task::spawn_blocking(move || RedisServer::start_with(options)).await.expect("start")
}

async fn redis_fixture() -> Fixture {
    let server = start_redis(RedisOptions::default()).await;
    let store = RedisStore::connect(&server.url()).await.expect("connect");
    Fixture { store: Arc::new(store), redis: Some(server) }
}

/// Runs each named test function (`async fn(Store)`) against both stores.
macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        mod memory_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let fixture = super::memory_fixture().await;
                    super::$name(fixture.store.clone()).await;
                }
            )*
        }
        mod redis_store {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let fixture = super::redis_fixture().await;
                    super::$name(fixture.store.clone()).await;
                    drop(fixture.redis);
                }
            )*
        }
    };
}

suite!(
    create_and_meta,
    claim_seat_rules,
    claim_race_has_one_winner,
    append_versions_are_dense,
    append_race_has_one_winner,
    duplicate_key_answers_the_first_version,
    read_from_a_version,
    tail_returns_when_an_entry_arrives,
    tail_times_out_empty,
    deadlines,
    deadline_lookup,
    snapshots,
    sessions,
    ping,
);

// ---------------------------------------------------------------------------------------
// The suite

async fn create_and_meta(store: Store) {
    let id = MatchId::random();
    assert_eq!(store.meta(id).await, Ok(None));
    assert_eq!(store.last_version(id).await, Ok(None));
    let bot = meta([SeatHolder::Open, SeatHolder::Bot("strong".into())]);
    let opening = entry(0, Some("create-1"));
    store.create_match(id, &bot, &opening).await.expect("create");
    assert_eq!(store.meta(id).await, Ok(Some(bot.clone())));
    assert_eq!(store.last_version(id).await, Ok(Some(0)));
    assert_eq!(store.read(id, 0, 10).await, Ok(vec![opening.clone()]));

    // The id is taken: refused, nothing changes.
    let other = meta([SeatHolder::Open, SeatHolder::Open]);
    assert_eq!(
        store.create_match(id, &other, &entry(0, None)).await,
        Err(StoreError::AlreadyExists(id))
    );
    assert_eq!(store.meta(id).await, Ok(Some(bot)));
    assert_eq!(store.read(id, 0, 10).await, Ok(vec![opening]));

    // The opening entry is version 0.
    assert!(matches!(
        store.create_match(MatchId::random(), &other, &entry(1, None)).await,
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
        .create_match(id, &meta([SeatHolder::Open, SeatHolder::Reserved(bob)]), &entry(0, None))
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
            &entry(0, None),
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

async fn read_from_a_version(store: Store) {
    let id = new_match(&store).await;
    append_n(&store, id, 5).await;
    let all = store.read(id, 0, 100).await.expect("read");
    assert_eq!(versions(&all), [0, 1, 2, 3, 4, 5]);
    // Entries come back exactly as appended: events with audiences, key, trace context.
    assert_eq!(all[3], entry(3, Some("k3")));
    assert_eq!(all[0], entry(0, None));
    assert_eq!(versions(&store.read(id, 3, 2).await.expect("read")), [3, 4]);
    assert_eq!(versions(&store.read(id, 5, 2).await.expect("read")), [5]);
    assert_eq!(store.read(id, 6, 10).await, Ok(vec![]));
    assert_eq!(store.read(id, 0, 0).await, Ok(vec![]));
    assert_eq!(store.read(MatchId::random(), 0, 10).await, Ok(vec![]));
}

async fn tail_returns_when_an_entry_arrives(store: Store) {
    let [a, b, c] = [new_match(&store).await, new_match(&store).await, new_match(&store).await];
    append_n(&store, a, 2).await;

    // Catching up does not wait: everything from the given versions, in positions order.
    let caught = store.tail(&[(c, 0), (a, 1)], 5_000).await.expect("tail");
    let seen: Vec<(MatchId, u64)> = caught.iter().map(|(m, e)| (*m, e.version)).collect();
    assert_eq!(seen, [(c, 0), (a, 1), (a, 2)]);

    // Nothing new: the reader blocks until one of its matches gets an entry.
    let positions = [(a, 3), (b, 1), (c, 1)];
    let reader = {
        let store = store.clone();
        tokio::spawn(async move { store.tail(&positions, 10_000).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!reader.is_finished(), "tail returned before anything arrived");
    let other = new_match(&store).await; // activity elsewhere does not wake it with data
    append_n(&store, other, 1).await;
    append_n(&store, b, 1).await;
    let got = tokio::time::timeout(Duration::from_secs(3), reader)
        .await
        .expect("tail returned well before its 10 s block")
        .expect("task")
        .expect("tail");
    assert_eq!(got, vec![(b, entry(1, Some("k1")))]);

    // A reader far behind gets one batch per match per call.
    let long = new_match(&store).await;
    append_n(&store, long, TAIL_BATCH as u64 + 4).await;
    let batch = store.tail(&[(long, 0)], 0).await.expect("tail");
    assert_eq!(batch.len(), TAIL_BATCH);
    assert_eq!(batch.last().map(|(_, e)| e.version), Some(TAIL_BATCH as u64 - 1));
}

async fn tail_times_out_empty(store: Store) {
    let id = new_match(&store).await;
    let waited = tokio::time::timeout(Duration::from_secs(3), store.tail(&[(id, 1)], 300))
        .await
        .expect("tail returned after its block");
    assert_eq!(waited, Ok(vec![]));
    // block_ms = 0 does not wait at all.
    let now = tokio::time::timeout(Duration::from_millis(500), store.tail(&[(id, 1)], 0))
        .await
        .expect("tail with block 0 returned at once");
    assert_eq!(now, Ok(vec![]));
    // Nothing to watch: it waits and returns empty (no spinning reader loop).
    let none = tokio::time::timeout(Duration::from_secs(3), store.tail(&[], 100))
        .await
        .expect("tail with no positions returned");
    assert_eq!(none, Ok(vec![]));
    // An unknown match is just a quiet one.
    assert_eq!(store.tail(&[(MatchId::random(), 0)], 50).await, Ok(vec![]));
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

async fn ping(store: Store) {
    assert_eq!(store.ping().await, Ok(()));
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
    assert_eq!(keys::idem(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:idem");
    assert_eq!(keys::snapshot(id), "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:snap");
    assert_eq!(keys::DEADLINES, "colosseum:deadlines");
    assert_eq!(keys::DEADLINE_FENCES, "colosseum:deadline-fences");
    assert_eq!(keys::session(&sha(10)), format!("colosseum:session:{}", sha(10)));
    // Redis Cluster hashes only what is between the first `{` and the next `}`.
    for key in [keys::log(id), keys::meta(id), keys::idem(id), keys::snapshot(id)] {
        let tag = key.split_once('{').and_then(|(_, rest)| rest.split_once('}')).map(|t| t.0);
        assert_eq!(tag, Some("67e55044-10b1-426f-9247-bb680e5fe0c8"));
    }
}

#[tokio::test]
async fn redis_holds_exactly_the_documented_keys() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    append_n(store, id, 1).await;
    store.put_snapshot(id, 1, b"s").await.expect("snapshot");
    store.set_deadline(id, 10, 1).await.expect("deadline");
    store.put_session(&sha(3), PlayerId::random(), "x").await.expect("session");
    let mut conn = inspect(server).await;
    let mut found: Vec<String> =
        redis::cmd("KEYS").arg("*").query_async(&mut conn).await.expect("KEYS");
    found.sort();
    let mut expected = vec![
        keys::log(id),
        keys::meta(id),
        keys::idem(id),
        keys::snapshot(id),
        keys::DEADLINES.to_string(),
        keys::DEADLINE_FENCES.to_string(),
        keys::session(&sha(3)),
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
    assert_eq!(ids, ["0-1", "1-1"]);
}

/// `(calls of EVALSHA, commands processed)` from `INFO`.
async fn command_counts(conn: &mut redis::aio::MultiplexedConnection) -> (u64, u64) {
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
        field("total_commands_processed:", "total_commands_processed"),
    )
}

#[tokio::test]
async fn append_is_one_evalsha_round_trip() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
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
    // `total_commands_processed` also counts the commands a script runs inside Redis. Between
    // the two INFOs: the first INFO, the EVALSHA, and the script's XREVRANGE, HGET (idem),
    // XADD, HSET (idem), ZADD, HSET (fence). Any extra round trip would add to it.
    assert_eq!(after.1 - before.1, 1 + 1 + 6, "commands between the INFOs");
    let duplicate = store.append(id, &entry(2, Some("a")), DeadlineChange::Keep).await;
    assert_eq!(duplicate, Ok(AppendOutcome::Duplicate { version: 1 }));
    let last = command_counts(&mut conn).await;
    assert_eq!(last.0 - after.0, 1, "a duplicate is one EVALSHA too");
    // INFO, EVALSHA, XREVRANGE, HGET: nothing written.
    assert_eq!(last.1 - after.1, 1 + 1 + 2);
}

#[tokio::test]
async fn scripts_are_reloaded_after_script_flush() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
    let id = new_match(store).await;
    let mut conn = inspect(server).await;
    let () = redis::cmd("SCRIPT").arg("FLUSH").query_async(&mut conn).await.expect("flush");
    append_n(store, id, 2).await;
    assert_eq!(
        store.claim_seat(id, Seat::ZERO, PlayerId::random()).await,
        Ok(ClaimOutcome::Claimed)
    );
}

#[tokio::test]
async fn corrupt_entries_are_typed_errors() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
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
    assert!(matches!(store.tail(&[(id, 1)], 0).await, Err(StoreError::Corrupt(_))));
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
    assert_eq!(store.tail(&[(id, 4)], 0).await.expect("tail").len(), 1);
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
}
