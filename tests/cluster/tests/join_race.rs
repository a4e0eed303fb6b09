//! A join racing a resignation across two rules-engine replicas of one family: the join
//! goes through the first gateway to the first replica, the resignation through a second
//! gateway to a second replica, so no one replica's lock orders them. Whichever the store
//! takes first, every answer must agree with the stored match: a join answered with a
//! seat names its player in the finished match's announcement (it came before the end),
//! a join refused left the seat as it was (it came after), and nobody is seated once the
//! match is over.

use cluster_tests::Env;
use games::Family;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use store::{EventStore, Finished, MatchId, PlayerId, SeatHolder};
use tonic::Code;

/// How many matches race.
const MATCHES: usize = 240;

/// How many races run at once: few, so the offsets below are not lost in queueing.
const AT_ONCE: usize = 4;

/// The join's start relative to the resignation's, per match: from 8 ms before it to
/// 2 ms after, in steps of 250 us (a join takes longer than a resignation), so some pair
/// lands inside each window there is.
fn offset_us(i: usize) -> i64 {
    (i % 41) as i64 * 250 - 8_000
}

/// Waits `us` microseconds, finer than the runtime's millisecond timer.
async fn pause(us: u64) {
    let until = tokio::time::Instant::now() + Duration::from_micros(us);
    while tokio::time::Instant::now() < until {
        tokio::task::yield_now().await;
    }
}

/// Retries `call` while it answers UNAVAILABLE or ABORTED (the retry contract).
async fn retrying<T, F, Fut>(mut call: F) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    for _ in 0..50 {
        match call().await {
            Err(s) if matches!(s.code(), Code::Unavailable | Code::Aborted) => {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            other => return other,
        }
    }
    call().await
}

/// Every announcement on the lifecycle stream, by match.
async fn announcements(redis_url: &str) -> BTreeMap<MatchId, Vec<Finished>> {
    let client = redis::Client::open(redis_url).expect("a redis url");
    let mut conn = client.get_multiplexed_async_connection().await.expect("redis");
    let entries: Vec<(String, Vec<(String, String)>)> = redis::cmd("XRANGE")
        .arg(store::redis_store::keys::LIFECYCLE)
        .arg("-")
        .arg("+")
        .query_async(&mut conn)
        .await
        .expect("XRANGE lifecycle");
    let mut by_match: BTreeMap<MatchId, Vec<Finished>> = BTreeMap::new();
    for (_, fields) in entries {
        for (field, value) in fields {
            if field == "f" {
                let f: Finished = serde_json::from_str(&value).expect("a Finished");
                by_match.entry(f.match_id).or_default().push(f);
            }
        }
    }
    by_match
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn joins_racing_resignations_on_two_replicas_agree_with_the_store() {
    let mut env = Env::start().await;
    // The first gateway sends GOPS to the first replica; this one to a second replica only.
    let second = env.cluster.start_second_gateway(Family::Goofspiel).await.expect("a replica");
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let alice_on_second = Arc::new(alice.client.on(&second).expect("alice on the second"));
    let store = store::RedisStore::connect(&env.redis.url()).await.expect("redis");
    let (alice_id, bob_id): (PlayerId, PlayerId) =
        (alice.id.parse().expect("an id"), bob.id.parse().expect("an id"));

    // Alice in seat 0 of each; seat 1 open, or (every other match) reserved for Bob.
    let mut ids = Vec::with_capacity(MATCHES);
    for i in 0..MATCHES {
        let opponent = if i % 2 == 0 {
            client::requests::opponent::open()
        } else {
            client::requests::opponent::player(&bob.id)
        };
        let req = client::requests::create("gops", "", opponent, 0);
        ids.push(alice.create(req).await.expect("created").match_id);
    }

    // Both replicas hold every match (the first made them; a view loads them into the
    // second), so neither side of a race starts with a rebuild.
    for id in &ids {
        alice_on_second.view(id).await.expect("a view through the second replica");
    }
    let bob = Arc::new(bob.client);
    let mut answers = Vec::with_capacity(MATCHES);
    for batch in ids.chunks(AT_ONCE).enumerate().map(|(b, c)| (b * AT_ONCE, c)) {
        let (first, chunk) = batch;
        let mut races = Vec::with_capacity(AT_ONCE);
        for (j, id) in chunk.iter().enumerate() {
            let (bob, alice, id) = (bob.clone(), alice_on_second.clone(), id.clone());
            let offset = offset_us(first + j);
            races.push(tokio::spawn(async move {
                let join = {
                    let (bob, id) = (bob.clone(), id.clone());
                    async move {
                        pause(offset.max(0).unsigned_abs()).await;
                        retrying(|| bob.join(&id, "")).await
                    }
                };
                let resign = async move {
                    pause(offset.min(0).unsigned_abs()).await;
                    retrying(|| alice.resign(&id)).await
                };
                tokio::join!(join, resign)
            }));
        }
        for race in races {
            answers.push(race.await.expect("the race task"));
        }
    }

    // Every finish announced (the engine announces off the move's path).
    let mut announced = BTreeMap::new();
    for _ in 0..200 {
        announced = announcements(&env.redis.url()).await;
        if announced.len() >= MATCHES {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let (mut joined, mut refused) = (0, 0);
    let mut broken = Vec::new();
    for (id, (join, resign)) in ids.iter().zip(answers) {
        let mid: MatchId = id.parse().expect("a match id");
        resign.unwrap_or_else(|s| panic!("alice's resignation of {id}: {s:?}"));
        let meta = store.meta(mid).await.expect("meta").expect("the match");
        let holder = &meta.seats[rules_core::Seat::ONE];
        let seated = *holder == SeatHolder::Player(bob_id);
        let finished = announced.get(&mid).map(Vec::as_slice).unwrap_or_default();
        let [finished] = finished else {
            panic!("match {id} announced {} times: {finished:?}", finished.len());
        };
        assert_eq!(finished.players[0], Some(alice_id), "{id}");
        assert_eq!(finished.reason, "resigned", "{id}");
        let bob_in_record = finished.players[1] == Some(bob_id);
        match join {
            Ok(seat) => {
                assert_eq!(seat, 1, "{id}");
                joined += 1;
                // Seated before the end: the announcement names him.
                if !(seated && bob_in_record) {
                    broken.push(format!("{id}: joined, meta {holder:?}, announced {finished:?}"));
                }
            }
            Err(s) => {
                assert_eq!(s.code(), Code::FailedPrecondition, "{id}: {s:?}");
                refused += 1;
                // Refused after the end: nothing written.
                if seated || bob_in_record {
                    broken.push(format!("{id}: refused, meta {holder:?}, announced {finished:?}"));
                }
            }
        }
    }
    eprintln!("{joined} joins answered a seat, {refused} refused, {} inconsistent", broken.len());
    assert!(
        broken.is_empty(),
        "{} of {MATCHES} inconsistent:\n{}",
        broken.len(),
        broken.join("\n")
    );
    // Both orders happened, so the check saw each.
    assert!(joined > 0 && refused > 0, "joined {joined}, refused {refused}");
    env.shutdown().await;
}
