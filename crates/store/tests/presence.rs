//! The seats' presence contract, on the `MemoryStore`, a `RedisStore` on a real
//! `redis-server` and one on a real 3-primary Redis Cluster: a seat is connected while a
//! holder's lease on it is live; leases of several holders add up, and the seat leaves
//! only with the last; a lease a holder never gives up (it crashed) lapses by itself at
//! its expiry; each change is announced on the feed once, and nothing else is; holders
//! must be named.

#[macro_use]
mod common;

use rules_core::Seat;
use std::sync::Arc;
use std::time::Duration;
use store::{
    FullStore, MatchId, PresenceFeed, PresenceNote, PresenceStore, SeatChange, StoreError,
    redis_store::keys,
};
use tokio_stream::StreamExt;

type Store = Arc<dyn FullStore>;

/// A moment to count from (the store takes times as arguments and reads no clock).
const T0: u64 = 1_700_000_000_000;
const TTL: u64 = 30_000;

const CHANGED_ON: SeatChange = SeatChange { connected: true, changed: true };
const STILL_ON: SeatChange = SeatChange { connected: true, changed: false };
const CHANGED_OFF: SeatChange = SeatChange { connected: false, changed: true };
const STILL_OFF: SeatChange = SeatChange { connected: false, changed: false };

/// The next `n` notifications of `feed`, each in time.
async fn next_notes(feed: &mut PresenceFeed, n: usize) -> Vec<PresenceNote> {
    let mut got = Vec::new();
    for _ in 0..n {
        let note = tokio::time::timeout(Duration::from_secs(5), feed.next())
            .await
            .expect("a notification in time")
            .expect("the feed is open");
        got.push(note);
    }
    got
}

/// Whether `feed` stays quiet for a moment (a notification or its end would show).
async fn quiet(feed: &mut PresenceFeed) -> bool {
    tokio::time::timeout(Duration::from_millis(300), feed.next()).await.is_err()
}

fn note(id: MatchId, seat: Seat, connected: bool) -> PresenceNote {
    PresenceNote { id, seat, connected }
}

suite!(
    a_seat_is_connected_while_any_holder_holds_it,
    a_lease_never_given_up_lapses_at_its_expiry,
    each_change_is_announced_once,
    holders_are_named,
);

async fn a_seat_is_connected_while_any_holder_holds_it(store: Store) {
    let id = MatchId::random();
    assert_eq!(store.presence(id, T0).await, Ok([false, false]), "nobody yet");
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-a", T0, TTL).await, Ok(CHANGED_ON));
    assert_eq!(store.presence(id, T0).await, Ok([true, false]));
    // Renewed by its holder, held by another too: no change.
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-a", T0 + 10, TTL).await, Ok(STILL_ON));
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-b", T0 + 20, TTL).await, Ok(STILL_ON));
    // One holder leaves: the other still holds the seat.
    assert_eq!(store.unmark_present(id, Seat::ZERO, "gw-a", T0 + 30).await, Ok(STILL_ON));
    assert_eq!(store.presence(id, T0 + 30).await, Ok([true, false]));
    // Giving up what is not held changes nothing.
    assert_eq!(store.unmark_present(id, Seat::ZERO, "gw-a", T0 + 40).await, Ok(STILL_ON));
    assert_eq!(store.unmark_present(id, Seat::ONE, "gw-b", T0 + 40).await, Ok(STILL_OFF));
    // The seats are apart, and so are the matches.
    assert_eq!(store.mark_present(id, Seat::ONE, "gw-a", T0 + 50, TTL).await, Ok(CHANGED_ON));
    assert_eq!(store.presence(id, T0 + 50).await, Ok([true, true]));
    assert_eq!(store.presence(MatchId::random(), T0 + 50).await, Ok([false, false]));
    // The last holder leaves: the seat does.
    assert_eq!(store.unmark_present(id, Seat::ZERO, "gw-b", T0 + 60).await, Ok(CHANGED_OFF));
    assert_eq!(store.presence(id, T0 + 60).await, Ok([false, true]));
    // And comes back.
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-b", T0 + 70, TTL).await, Ok(CHANGED_ON));
    assert_eq!(store.presence(id, T0 + 70).await, Ok([true, true]));
}

async fn a_lease_never_given_up_lapses_at_its_expiry(store: Store) {
    let id = MatchId::random();
    // A holder that crashed: its short lease is never renewed nor given up.
    assert_eq!(store.mark_present(id, Seat::ONE, "gw-dead", T0, 200).await, Ok(CHANGED_ON));
    assert_eq!(store.presence(id, T0 + 199).await, Ok([false, true]));
    assert_eq!(store.presence(id, T0 + 200).await, Ok([false, false]), "lapsed at its expiry");
    // A holder that comes after it finds the seat left: taking it is a change.
    let mut feed = store.presence_feed().await.expect("subscribe");
    assert_eq!(store.mark_present(id, Seat::ONE, "gw-live", T0 + 500, TTL).await, Ok(CHANGED_ON));
    assert_eq!(next_notes(&mut feed, 1).await, [note(id, Seat::ONE, true)]);
    // The lapsed lease counts for nothing when the live one goes.
    assert_eq!(store.unmark_present(id, Seat::ONE, "gw-live", T0 + 600).await, Ok(CHANGED_OFF));
    assert_eq!(next_notes(&mut feed, 1).await, [note(id, Seat::ONE, false)]);
    // A renewal moves the expiry on: a lease renewed in time never lapses.
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-a", T0, 1_000).await, Ok(CHANGED_ON));
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-a", T0 + 900, 1_000).await, Ok(STILL_ON));
    assert_eq!(store.presence(id, T0 + 1_500).await, Ok([true, false]));
    assert_eq!(store.presence(id, T0 + 1_900).await, Ok([false, false]));
    // A renewal after the lapse takes the seat again.
    assert_eq!(store.mark_present(id, Seat::ZERO, "gw-a", T0 + 2_000, 1_000).await, Ok(CHANGED_ON));
}

async fn each_change_is_announced_once(store: Store) {
    let mut feed = store.presence_feed().await.expect("subscribe");
    let (a, b) = (MatchId::random(), MatchId::random());
    store.mark_present(a, Seat::ZERO, "gw-1", T0, TTL).await.expect("mark");
    store.mark_present(a, Seat::ZERO, "gw-2", T0, TTL).await.expect("no change");
    store.mark_present(a, Seat::ZERO, "gw-1", T0 + 1, TTL).await.expect("a renewal");
    store.mark_present(b, Seat::ONE, "gw-1", T0, TTL).await.expect("mark");
    store.unmark_present(a, Seat::ZERO, "gw-1", T0 + 2).await.expect("gw-2 still holds it");
    store.unmark_present(a, Seat::ZERO, "gw-2", T0 + 3).await.expect("left");
    store.unmark_present(a, Seat::ONE, "gw-2", T0 + 4).await.expect("never held");
    // Each match's notes come in order; two matches' need not (on a cluster each match's
    // node publishes its own).
    let got = next_notes(&mut feed, 3).await;
    let of = |id: MatchId| got.iter().filter(|n| n.id == id).cloned().collect::<Vec<_>>();
    assert_eq!(of(a), [note(a, Seat::ZERO, true), note(a, Seat::ZERO, false)]);
    assert_eq!(of(b), [note(b, Seat::ONE, true)]);
    assert!(quiet(&mut feed).await, "only the three changes are announced");
    // A later subscriber hears only what comes after it; both hear that.
    let mut late = store.presence_feed().await.expect("subscribe");
    store.unmark_present(b, Seat::ONE, "gw-1", T0 + 5).await.expect("left");
    assert_eq!(next_notes(&mut feed, 1).await, [note(b, Seat::ONE, false)]);
    assert_eq!(next_notes(&mut late, 1).await, [note(b, Seat::ONE, false)]);
    assert!(quiet(&mut late).await);
}

async fn holders_are_named(store: Store) {
    let id = MatchId::random();
    for bad in [String::new(), "h".repeat(129)] {
        let r = store.mark_present(id, Seat::ZERO, &bad, T0, TTL).await;
        assert!(matches!(r, Err(StoreError::InvalidArgument(_))), "{bad:?}: {r:?}");
        let r = store.unmark_present(id, Seat::ZERO, &bad, T0).await;
        assert!(matches!(r, Err(StoreError::InvalidArgument(_))), "{bad:?}: {r:?}");
    }
    assert_eq!(store.presence(id, T0).await, Ok([false, false]));
}

/// On Redis a seat's leases are one hash in the match's slot, which goes by itself after
/// its longest lease (with a minute's grace), and at once with its last holder.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_keeps_a_seats_leases_in_the_matchs_slot_and_lets_them_expire() {
    let server = common::start_redis(test_harness::RedisOptions::default()).await;
    let store = store::RedisStore::connect(&server.url()).await.expect("connect");
    let id: MatchId = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().expect("id");
    let key = keys::presence(id, Seat::ONE);
    assert_eq!(key, "colosseum:{67e55044-10b1-426f-9247-bb680e5fe0c8}:presence:1");
    let client = redis::Client::open(server.url()).expect("url");
    let mut conn = client.get_multiplexed_async_connection().await.expect("connect");
    store.mark_present(id, Seat::ONE, "gw-a", T0, 5_000).await.expect("mark");
    let ttl: i64 = redis::cmd("PTTL").arg(&key).query_async(&mut conn).await.expect("PTTL");
    assert!((60_000..=65_000).contains(&ttl), "{ttl}");
    store.unmark_present(id, Seat::ONE, "gw-a", T0 + 1).await.expect("unmark");
    let exists: i64 = redis::cmd("EXISTS").arg(&key).query_async(&mut conn).await.expect("EXISTS");
    assert_eq!(exists, 0, "the last holder gone, the key is");
}
