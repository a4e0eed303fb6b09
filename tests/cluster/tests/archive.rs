//! Finished matches leave Redis for the archive: a real PostgreSQL (started here) beside a
//! real Redis and the whole cluster. A finished match is archived once, with its record
//! byte for byte, and only then let go from Redis; GetMatchRecord and VerifyRecord answer
//! the same after Redis has dropped it; a player's history pages through the archive with
//! opponent, result and rating change; with the database down nothing leaves Redis, and
//! it all arrives once the database is back.

use api::v1::{self, SeatResult};
use cluster_tests::{Env, Picker, Player, play_out, queue};
use in_process::{Archive, Cluster, EngineCache};
use std::sync::Arc;
use std::time::Duration;
use store::archive::postgres::PgArchive;
use store::{ArchiveStore, MatchId, Owner};
use test_harness::{PostgresServer, RedisServer};

/// How long a match stays in Redis once archived, in these tests.
const RELEASE_AFTER_MS: u64 = 1_500;

struct Archived {
    env: Env,
    pg: PostgresServer,
    archive: Arc<PgArchive>,
}

async fn start() -> Archived {
    let redis = tokio::task::spawn_blocking(RedisServer::start).await.expect("redis-server");
    let pg = tokio::task::spawn_blocking(PostgresServer::start).await.expect("postgres");
    let store = store::RedisStore::connect(&redis.url()).await.expect("connect to redis");
    let archive = Arc::new(PgArchive::open(&pg.url()).await.expect("the archive opens"));
    let setup = Archive { archive: archive.clone(), release_after_ms: RELEASE_AFTER_MS };
    let any = "127.0.0.1:0".parse().expect("an address");
    let cluster =
        Cluster::start_archived(Arc::new(store), any, EngineCache::default(), Some(setup))
            .await
            .expect("the cluster starts");
    Archived { env: Env { cluster, redis }, pg, archive }
}

/// The Redis key of a match's meta, and its time to live (ms; -1 none, -2 gone).
async fn meta_ttl(redis: &RedisServer, id: &str) -> i64 {
    let client = redis::Client::open(redis.url()).expect("redis url");
    let mut c = client.get_multiplexed_async_connection().await.expect("redis");
    redis::cmd("PTTL")
        .arg(format!("colosseum:{{{id}}}:meta"))
        .query_async(&mut c)
        .await
        .expect("PTTL")
}

/// Whether `player`'s list of matches (ListMyMatches's) names `id`.
async fn listed(redis: &RedisServer, player: &str, id: &str) -> bool {
    let client = redis::Client::open(redis.url()).expect("redis url");
    let mut c = client.get_multiplexed_async_connection().await.expect("redis");
    let score: Option<f64> = redis::cmd("ZSCORE")
        .arg(format!("colosseum:{{player:{player}}}:matches"))
        .arg(id)
        .query_async(&mut c)
        .await
        .expect("ZSCORE");
    score.is_some()
}

/// Waits (at most `within`) until `done` holds.
async fn until<F: std::future::Future<Output = bool>>(
    within: Duration,
    mut done: impl FnMut() -> F,
) -> bool {
    let stop = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < stop {
        if done().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    false
}

async fn archived(archive: &PgArchive, id: &str) -> bool {
    let id: MatchId = id.parse().expect("a match id");
    archive.summary(id).await.expect("the archive answers").is_some()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_match_moves_to_the_archive_and_reads_the_same() {
    let Archived { env, pg, archive } = start().await;
    let url = env.cluster.gateway_url();
    let alice = Player::account(&url, "alice").await;
    let bob = Player::account(&url, "bob").await;
    // A rated match through the queue.
    let q = queue("gops", true);
    let ta = alice.ticket_retrying(&q, "alice-1").await;
    let tb = bob.ticket_retrying(&q, "bob-1").await;
    let (id, sa) = alice.assignment(&ta.ticket_id, Duration::from_secs(10)).await;
    bob.assignment(&tb.ticket_id, Duration::from_secs(10)).await;
    let seats = if sa == 0 { [&alice, &bob] } else { [&bob, &alice] };
    let played = play_out(seats, &id, &mut Picker::new(11), 100).await;
    let outcome = played.last.outcome.clone().expect("an outcome");
    // The record as Redis answers it, before anything moved.
    let before = alice.record(&id).await.expect("the record");

    assert!(
        until(Duration::from_secs(20), || archived(&archive, &id)).await,
        "the match was never archived"
    );
    // Archived, then released: Redis keeps it for the window, no longer; the players'
    // lists hold it for the window too, then let it go.
    for p in [&alice, &bob] {
        assert!(listed(&env.redis, &p.id, &id).await, "{} lost the match before the window", p.id);
    }
    let ttl = meta_ttl(&env.redis, &id).await;
    assert!(ttl > 0 && ttl <= RELEASE_AFTER_MS as i64, "meta's TTL {ttl}");
    assert!(
        until(Duration::from_secs(10), || async { meta_ttl(&env.redis, &id).await == -2 }).await,
        "Redis kept the match past its window"
    );
    let keys: Vec<String> = {
        let client = redis::Client::open(env.redis.url()).expect("redis url");
        let mut c = client.get_multiplexed_async_connection().await.expect("redis");
        redis::cmd("KEYS")
            .arg(format!("colosseum:{{{id}}}:*"))
            .query_async(&mut c)
            .await
            .expect("KEYS")
    };
    assert!(keys.is_empty(), "keys of the match left in Redis: {keys:?}");
    for p in [&alice, &bob] {
        let gone =
            until(Duration::from_secs(5), || async { !listed(&env.redis, &p.id, &id).await });
        assert!(gone.await, "{}'s list kept the released match", p.id);
    }

    // Nothing a client sees changes: the same record bytes, and it verifies.
    let after = alice.record(&id).await.expect("the record from the archive");
    assert_eq!(after, before);
    let verified = alice
        .client
        .api()
        .verify_record(v1::VerifyRecordRequest { record: after.clone().into_bytes() })
        .await
        .expect("VerifyRecord")
        .into_inner();
    assert!(verified.valid, "{verified:?}");
    // Once in the archive: one row, and a second archiver's write changed nothing.
    assert_eq!(
        pg.query(&format!("SELECT count(*) FROM archived_matches WHERE match_id = '{id}'")).trim(),
        "1"
    );

    // Alice's history: the match, from her side, with her rating change.
    let ra = alice.rating_after("gops", 1).await;
    let page = alice.client.history("", 10, "").await.expect("ListPlayerHistory");
    assert_eq!(page.entries.len(), 1, "{page:?}");
    assert!(page.next_page_token.is_empty());
    let e = &page.entries[0];
    assert_eq!((e.match_id.as_str(), e.game.as_str(), e.seat), (id.as_str(), "gops", sa));
    assert_eq!((e.opponent_name.as_str(), e.opponent_is_bot), ("bob", false));
    assert_eq!(e.opponent_player_id, bob.id);
    let expect = match outcome.winner {
        None => SeatResult::Draw,
        Some(w) if w == sa => SeatResult::Won,
        Some(_) => SeatResult::Lost,
    };
    assert_eq!(e.result, expect as i32);
    assert_eq!(e.reason, outcome.reason);
    assert_eq!(e.rating_before, Some(1500.0));
    assert_eq!(e.rating_after, Some(ra.rating));
    // Anyone may read it (a guest), by the player's id; a bad token is refused.
    let guest = env.player("carol").await;
    let seen = guest.client.history(&alice.id, 10, "").await.expect("another's history");
    assert_eq!(seen.entries, page.entries);
    let bad = guest.client.history(&alice.id, 10, "not-a-token").await.expect_err("bad token");
    assert_eq!(bad.code(), tonic::Code::InvalidArgument);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_history_pages_newest_first_through_every_match() {
    let Archived { env, pg: _pg, archive } = start().await;
    let alice = env.player("alice").await;
    let mut ids = Vec::new();
    for i in 0..7 {
        // Against the random bot, resigned at once: a finished match each.
        let created = alice
            .create(cluster_tests::create_request("gops", "", cluster_tests::bot("random"), 0))
            .await
            .expect("a match against a bot")
            .match_id;
        let req = v1::ResignRequest { match_id: created.clone() };
        alice.client.api().resign(alice.client.request(req)).await.expect("resign");
        if i == 3 {
            // Finished at the same ms as another, by chance or not: still each once.
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        ids.push(created);
    }
    for id in &ids {
        assert!(until(Duration::from_secs(20), || archived(&archive, id)).await, "{id} archived");
    }
    // Three at a time, newest first, each once.
    let mut seen = Vec::new();
    let mut token = String::new();
    loop {
        let page = alice.client.history("", 3, &token).await.expect("a page");
        assert!(page.entries.len() <= 3);
        for e in &page.entries {
            assert!(e.opponent_is_bot && e.opponent_name == "random", "{e:?}");
            assert_eq!(e.rating_before, None, "a casual match has no rating change");
        }
        seen.extend(page.entries.iter().map(|e| (e.finished_at_ms, e.match_id.clone())));
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    let mut expect = seen.clone();
    expect.sort_by(|a, b| b.cmp(a));
    assert_eq!(seen, expect, "newest first");
    let mut got: Vec<String> = seen.into_iter().map(|(_, id)| id).collect();
    got.sort();
    ids.sort();
    assert_eq!(got, ids);
    let listed = archive
        .list(Owner::Player(alice.id.parse().expect("a player id")), None, 100)
        .await
        .expect("list");
    assert_eq!(listed.len(), 7);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_the_database_down_nothing_leaves_redis_until_the_archive_has_it() {
    let Archived { env, mut pg, archive } = start().await;
    pg.crash();
    let (alice, _bob, id) = env.gops_between(0).await;
    let req = v1::ResignRequest { match_id: id.clone() };
    alice.client.api().resign(alice.client.request(req)).await.expect("alice resigns");
    let record = alice.record(&id).await.expect("the record");
    // The archiver tries and fails: the match stays in Redis, not released.
    tokio::time::sleep(Duration::from_secs(3)).await;
    // (None, or the record retention's days: not the release window.)
    let ttl = meta_ttl(&env.redis, &id).await;
    assert!(ttl == -1 || ttl > 86_400_000, "released before the archive had it: TTL {ttl}");
    // The entry left pending is claimed again after the archiver's claim delay.
    let _pg = tokio::task::spawn_blocking(move || {
        pg.restart();
        pg
    })
    .await
    .expect("postgres restarts");
    assert!(
        until(Duration::from_secs(60), || archived(&archive, &id)).await,
        "archived once the database is back"
    );
    assert!(
        until(Duration::from_secs(10), || async { meta_ttl(&env.redis, &id).await == -2 }).await,
        "released once archived"
    );
    assert_eq!(alice.record(&id).await.expect("from the archive"), record);
    env.shutdown().await;
}

/// A platform's match: archived with its tenant, its record read through the rules engine
/// (GetTenantMatchRecord) the same after Redis let it go, and kept from other players'
/// view of the history.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_platforms_match_reads_the_same_from_the_archive() {
    let Archived { env, pg: _pg, archive } = start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (tenant, _, platform) = env.tenant("acme", &["matches:create", "results:read"]).await;
    let spec = v1::MatchSpec {
        game: Some(v1::GameSpec {
            game: "gops".into(),
            options_json: String::new(),
            move_time_ms: 0,
        }),
        seat0_player_id: a.id.clone(),
        seat1_player_id: b.id.clone(),
        start_at_ms: 0,
        label: String::new(),
    };
    let req = v1::CreateMatchesRequest {
        idempotency_key: "one".into(),
        matches: vec![spec],
        validate_only: false,
    };
    let id = platform
        .api()
        .create_matches(platform.request(req))
        .await
        .expect("created")
        .into_inner()
        .match_ids
        .remove(0);
    play_out([&a, &b], &id, &mut Picker::new(3), 100).await;
    let read = || async {
        let req = v1::GetTenantMatchRecordRequest { match_id: id.clone() };
        platform
            .api()
            .get_tenant_match_record(platform.request(req))
            .await
            .map(|r| r.into_inner().record_json)
    };
    let before = read().await.expect("the record from Redis");
    assert!(until(Duration::from_secs(20), || archived(&archive, &id)).await, "archived");
    let summary =
        archive.summary(id.parse().expect("an id")).await.expect("summary").expect("there");
    assert_eq!(summary.tenant.map(|t| t.to_string()), Some(tenant));
    assert!(
        until(Duration::from_secs(10), || async { meta_ttl(&env.redis, &id).await == -2 }).await,
        "released"
    );
    // Through the tournament service and the rules engine, from the archive now.
    assert_eq!(read().await.expect("the record from the archive"), before);
    // Alice sees it in her own history; bob, reading hers, does not.
    let own = a.client.history("", 10, "").await.expect("own history");
    assert_eq!(own.entries.iter().map(|e| e.match_id.as_str()).collect::<Vec<_>>(), [id.as_str()]);
    let theirs = b.client.history(&a.id, 10, "").await.expect("alice's history, read by bob");
    assert!(theirs.entries.is_empty(), "{theirs:?}");
    env.shutdown().await;
}
