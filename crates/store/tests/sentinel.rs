//! The store on a real Redis Sentinel deployment (a master, a replica, two sentinels,
//! started by `test-harness` on free loopback ports): opened through the sentinels as
//! `REDIS_SENTINEL_URLS`/`REDIS_SENTINEL_MASTER` open it, it follows a failover: what was
//! acknowledged before is still there, and later appends land on the new master; and
//! the lobby's blocking lifecycle reads, on a connection of their own, follow it too.

use rules_core::{Audience, PerSeat};
use std::time::Duration;
use store::{
    AppendOutcome, DeadlineChange, Entry, EventStore, Finished, HostStore, LifecycleStore, MatchId,
    MatchMeta, MatchSecret, RedisStore, SeatHolder, StoreError, StoredEvent,
};
use test_harness::RedisSentinel;

fn meta() -> MatchMeta {
    MatchMeta {
        game: "gops".into(),
        options_json: r#"{"cards":13}"#.into(),
        commitment_hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        seats: PerSeat([SeatHolder::Open, SeatHolder::Open]),
        move_time_ms: 30_000,
        created_at_ms: 1_700_000_000_000,
        listed: true,
    }
}

fn entry(version: u64) -> Entry {
    Entry {
        version,
        step_json: format!(r#"{{"move":{version}}}"#),
        idempotency_key: Some(format!("k{version}")),
        events: vec![StoredEvent { audience: Audience::Public, payload: vec![version as u8] }],
        views: Vec::new(),
        traceparent: None,
        at_ms: 1_700_000_000_000 + version,
        tag: version,
    }
}

/// Appends `version`, retrying while the store finds the new master (the calls in flight
/// at the failover fail, as on a single Redis that restarts). A retry of an append that
/// had landed answers `Duplicate` (same idempotency key): acknowledged either way.
async fn append(store: &RedisStore, id: MatchId, version: u64) {
    let mut last = None;
    for _ in 0..100 {
        match store.append(id, &entry(version), DeadlineChange::Keep).await {
            Ok(
                AppendOutcome::Appended { version: v } | AppendOutcome::Duplicate { version: v },
            ) => {
                assert_eq!(v, version);
                return;
            }
            Ok(other) => panic!("append {version}: {other:?}"),
            Err(e @ StoreError::Redis(_)) => {
                last = Some(e);
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
            Err(other) => panic!("append {version}: {other}"),
        }
    }
    panic!("append {version} never reached the new master; last error: {last:?}");
}

fn finished() -> Finished {
    Finished {
        match_id: MatchId::random(),
        game: "gops".into(),
        players: [None, None],
        winner: None,
        reason: "completed".into(),
        at_ms: 1_700_000_000_000,
        seed_hex: None,
    }
}

/// Announces `f` and reads it back with a blocking read, retrying while the store finds
/// the new master (the blocking connection fails there first, then is opened again).
async fn announce_and_read(store: &RedisStore, f: &Finished) {
    let mut last = None;
    for _ in 0..100 {
        match store.announce_finished(f).await {
            Ok(()) => break,
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for _ in 0..100 {
        match store.lifecycle_read("ratings", "r1", 10, 100).await {
            Ok(read) if read.iter().any(|d| d.finished.as_ref() == Some(f)) => return,
            Ok(_) => {}
            Err(e) => last = Some(e),
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("the lifecycle entry was never read back; last error: {last:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_store_follows_a_sentinel_failover() {
    let deployment = tokio::task::spawn_blocking(|| RedisSentinel::start(2)).await.expect("start");
    let first_master = deployment.master_port();
    let store = RedisStore::connect_sentinel(&deployment.sentinel_urls(), deployment.master_name())
        .await
        .expect("connect through the sentinels");

    let id = MatchId::random();
    let secret = MatchSecret { seed_hex: "0123456789abcdef0123456789abcdef".into() };
    let mut opening = entry(0);
    opening.idempotency_key = None;
    store.create_match(id, &meta(), &secret, &opening, None).await.expect("create");
    for v in 1..=5 {
        assert_eq!(
            store.append(id, &entry(v), DeadlineChange::Keep).await,
            Ok(AppendOutcome::Appended { version: v })
        );
    }
    // Opens the blocking connection, to this master.
    announce_and_read(&store, &finished()).await;

    let (deployment, new_master) = tokio::task::spawn_blocking(move || {
        let port = deployment.failover();
        (deployment, port)
    })
    .await
    .expect("failover");
    assert_ne!(new_master, first_master, "the failover changed nothing");

    // Through the same store object, after the failover.
    for v in 6..=10 {
        append(&store, id, v).await;
    }
    let read = store.read(id, 0, 100).await.expect("read");
    assert_eq!(
        read,
        (0..=10).map(|v| if v == 0 { opening.clone() } else { entry(v) }).collect::<Vec<_>>()
    );
    assert_eq!(store.meta(id).await.expect("meta"), Some(meta()));
    assert_eq!(store.match_secret(id).await.expect("secret"), Some(secret));
    announce_and_read(&store, &finished()).await;

    // The new appends are on the new master: asked directly, not through the store.
    let xlen = |port: u16| async move {
        let direct = redis::Client::open(format!("redis://127.0.0.1:{port}/")).expect("client");
        let mut conn = direct.get_multiplexed_async_connection().await.expect("connect");
        let len: u64 = redis::cmd("XLEN")
            .arg(store::redis_store::keys::log(id))
            .query_async(&mut conn)
            .await
            .expect("XLEN");
        len
    };
    assert_eq!(xlen(new_master).await, 10, "the new master holds every step");

    // Once the sentinels have made the old master a replica (which drops what only it had),
    // everything acknowledged is still there, on both.
    let deployment = tokio::task::spawn_blocking(move || {
        deployment.wait_until_replica_of(first_master, new_master);
        deployment
    })
    .await
    .expect("demotion");
    assert_eq!(store.read(id, 0, 100).await.expect("read").len(), 11);
    append(&store, id, 11).await;
    assert_eq!(xlen(new_master).await, 11, "the stream holds the steps, the opening its own hash");
    drop(deployment);
}
