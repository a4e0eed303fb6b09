//! Seat presence on a real cluster (real gRPC servers, a real `redis-server`): a seat is
//! connected while its player has a watch of the match open, through any gateway. The
//! other seat and spectators that asked for presence are told when the seat's last watch
//! goes (its client's connection closed, as when the terminal client is killed) and when
//! it comes back (the same session watching again), over WatchMatch and over Play streams
//! (an unwatch too); a gateway that dies without a word leaves a lease that lapses, and
//! the hub finds it; a presence message stands where the message before it did, so a
//! cursor resumed from it loses and repeats nothing; a watch that did not ask gets none.

use api::v1;
use client::{Cursor, WatchOptions, presence};
use cluster_tests::{Env, Player};
use std::time::Duration;
use store::PresenceStore;
use tonic::Streaming;

/// How long a presence change may take to reach a watcher (the gateway gives a seat up a
/// second after its last watch closed; the store's feed and the hub's read follow at once).
const PATIENCE: Duration = Duration::from_secs(10);

/// A watch stream read message by message, every message kept.
struct Watch {
    stream: Streaming<v1::WatchMatchResponse>,
    got: Vec<v1::WatchMatchResponse>,
}

impl Watch {
    /// `p`'s WatchMatch of `id` from `from`, asking for `options`.
    async fn open(p: &Player, id: &str, from: Cursor, options: WatchOptions) -> Watch {
        let stream = p.client.watch_with(id, from, options).await.expect("WatchMatch");
        Watch { stream, got: Vec::new() }
    }

    /// The next message, which must come within `within`.
    async fn next_within(&mut self, within: Duration) -> Option<v1::WatchMatchResponse> {
        match tokio::time::timeout(within, self.stream.message()).await {
            Ok(Ok(Some(m))) => {
                if presence(&m).is_some() {
                    assert_stands_still(self.got.last(), &m);
                }
                self.got.push(m.clone());
                Some(m)
            }
            Ok(Ok(None)) => panic!("the watch ended; got {:?}", self.got),
            Ok(Err(s)) => panic!("the watch failed: {s:?}"),
            Err(_) => None,
        }
    }

    /// Reads until a presence message says `want`; the presences seen on the way.
    async fn until_presence(&mut self, want: [bool; 2]) -> Vec<[bool; 2]> {
        let until = tokio::time::Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            let Some(m) = self.next_within(left).await else {
                panic!("no presence {want:?} in time; presences seen: {seen:?}")
            };
            if let Some(p) = presence(&m) {
                seen.push(p);
                if p == want {
                    return seen;
                }
            }
        }
    }

    /// Reads until `n` messages that are not presence came; those.
    async fn events(&mut self, n: usize) -> Vec<v1::WatchMatchResponse> {
        let mut out = Vec::new();
        while out.len() < n {
            let m = self.next_within(PATIENCE).await.expect("a message in time");
            if presence(&m).is_none() {
                out.push(m);
            }
        }
        out
    }

    /// Whether nothing comes for a moment (longer than a seat is held after its last
    /// watch closed).
    async fn quiet(&mut self) -> bool {
        self.next_within(Duration::from_millis(2_500)).await.is_none()
    }

    /// Reads until nothing comes for a moment; the messages that are not presence.
    async fn drain(&mut self) -> Vec<v1::WatchMatchResponse> {
        let mut out = Vec::new();
        while let Some(m) = self.next_within(Duration::from_millis(1_500)).await {
            if presence(&m).is_none() {
                out.push(m);
            }
        }
        out
    }
}

/// A presence message stands where the message before it on its stream did (before any,
/// it is the first: nothing to compare).
fn assert_stands_still(before: Option<&v1::WatchMatchResponse>, p: &v1::WatchMatchResponse) {
    assert!(p.event.is_none() && p.view.is_none() && p.resync.is_none(), "set alone: {p:?}");
    if let Some(b) = before {
        assert_eq!((p.version, p.index, p.tag), (b.version, b.index, b.tag), "{p:?} after {b:?}");
    }
}

/// A legal move of `p`'s in `id`, submitted (GOPS: a bid).
async fn move_once(p: &Player, id: &str) {
    let view = p.view(id).await;
    let mv = view.legal_moves.first().cloned().expect("a legal move");
    p.submit(id, mv).await.expect("accepted");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_seat_that_leaves_and_comes_back_is_told_to_the_other_seat_and_spectators() {
    let mut env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    let url = env.cluster.gateway_url();
    // Bob follows through the first gateway; alice plays through a second one; a spectator.
    let second = env
        .cluster
        .start_gateway_trusting(gateway::forwarded::TrustedProxies::none())
        .await
        .expect("a second gateway");
    let carol = env.player("carol").await;
    let mut bobs = Watch::open(&bob, &id, Cursor::START, WatchOptions::ALL).await;
    let mut carols = Watch::open(&carol, &id, Cursor::START, WatchOptions::ALL).await;
    // Bob's own watch holds his seat; alice has none yet.
    bobs.until_presence([false, true]).await;
    carols.until_presence([false, true]).await;

    // Alice's terminal client: a connection of its own, to the other gateway.
    let terminal = alice.via(&second);
    let mut alices = Watch::open(&terminal, &id, Cursor::START, WatchOptions::ALL).await;
    alices.until_presence([true, true]).await;
    bobs.until_presence([true, true]).await;
    carols.until_presence([true, true]).await;

    // Killed: the stream and the connection go at once, without a word.
    drop((alices, terminal));
    let seen = bobs.until_presence([false, true]).await;
    assert_eq!(seen, [[false, true]], "alice left, and only that");
    carols.until_presence([false, true]).await;

    // She comes back with `play --join`: the same session watches again.
    let terminal = alice.via(&url);
    let mut again = Watch::open(&terminal, &id, Cursor::START, WatchOptions::ALL).await;
    again.until_presence([true, true]).await;
    assert_eq!(bobs.until_presence([true, true]).await, [[true, true]]);
    carols.until_presence([true, true]).await;

    // A second watch of hers, then one of the two closed: she is still there.
    let other = alice.via(&second);
    let mut twice = Watch::open(&other, &id, Cursor::START, WatchOptions::views(true)).await;
    twice.events(1).await;
    drop((twice, other));
    assert!(bobs.quiet().await, "one of her two watches closed: no change");
    // The match goes on; presence rides beside the moves and changes nothing in them.
    move_once(&alice, &id).await;
    move_once(&bob, &id).await;
    bobs.events(2).await;
    drop((again, terminal));
    bobs.until_presence([false, true]).await;
    carols.until_presence([false, true]).await;

    // A watch that did not ask for presence gets none, and still holds its seat.
    let mut plain = Watch::open(&alice, &id, Cursor::START, WatchOptions::views(true)).await;
    bobs.until_presence([true, true]).await;
    assert!(!plain.drain().await.is_empty(), "the match's messages");
    assert!(plain.got.iter().all(|m| presence(m).is_none()), "no presence unasked");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_play_streams_watches_hold_the_seat_and_hear_of_the_other() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    let url = env.cluster.gateway_url();
    // Bob plays on a Play stream, asking for presence.
    let bobs_play = bob.client.play().await.expect("a Play");
    let mut bobs =
        bobs_play.watch_with(&id, Cursor::START, WatchOptions::ALL).await.expect("watch");
    let mut bob_seen = Vec::new();
    let mut next_presence = async |feed: &mut client::Feed, want: [bool; 2]| {
        let until = tokio::time::Instant::now() + PATIENCE;
        loop {
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            let m = tokio::time::timeout(left, feed.message())
                .await
                .unwrap_or_else(|_| panic!("no presence {want:?} in time: {bob_seen:?}"))
                .expect("the feed goes on")
                .expect("a message");
            if let Some(p) = presence(&m) {
                bob_seen.push(p);
                if p == want {
                    return;
                }
            }
        }
    };
    next_presence(&mut bobs, [false, true]).await;

    // Alice's client: a Play stream on a connection of its own.
    let terminal = alice.via(&url);
    let alices_play = terminal.client.play().await.expect("a Play");
    let alices =
        alices_play.watch_with(&id, Cursor::START, WatchOptions::ALL).await.expect("watch");
    next_presence(&mut bobs, [true, true]).await;
    // Killed: the stream, its watch and its connection go.
    drop((alices, alices_play, terminal));
    next_presence(&mut bobs, [false, true]).await;
    // Back, on a new stream: the same session.
    let terminal = alice.via(&url);
    let alices_play = terminal.client.play().await.expect("a Play");
    let alices =
        alices_play.watch_with(&id, Cursor::START, WatchOptions::ALL).await.expect("watch");
    next_presence(&mut bobs, [true, true]).await;
    // An unwatch on a stream that stays open gives the seat up too.
    drop(alices);
    next_presence(&mut bobs, [false, true]).await;
    // And a raw Play stream's watch, without presence, holds it again.
    let mut raw = terminal.client.play_stream().await.expect("a Play stream");
    raw.watch(&id, Cursor::START, false).await.expect("sent");
    next_presence(&mut bobs, [true, true]).await;
    let quiet = tokio::time::timeout(Duration::from_secs(1), async {
        loop {
            match raw.message().await {
                Ok(Some(v1::PlayResponse {
                    kind: Some(v1::play_response::Kind::MatchMessage(m)),
                })) => {
                    let m = m.message.expect("a message");
                    assert!(presence(&m).is_none(), "no presence unasked: {m:?}");
                }
                Ok(Some(_)) => {}
                other => panic!("the raw stream ended: {other:?}"),
            }
        }
    })
    .await;
    assert!(quiet.is_err(), "the raw stream is still open");
    drop((raw, alices_play, bobs, bobs_play));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lease_left_by_a_dead_gateway_lapses_and_the_other_seat_is_told() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    let mut bobs = Watch::open(&bob, &id, Cursor::START, WatchOptions::ALL).await;
    bobs.until_presence([false, true]).await;
    // A gateway that held alice's seat and died: its lease is never renewed nor given up,
    // and its lapse is announced by nobody.
    let store = store::RedisStore::connect(&env.redis.url()).await.expect("connect");
    let match_id: store::MatchId = id.parse().expect("a match id");
    let now = service_kit::time::now_ms();
    let taken = store
        .mark_present(match_id, rules_core::Seat::ZERO, "gw-dead", now, 2_000)
        .await
        .expect("a lease");
    assert!(taken.changed);
    bobs.until_presence([true, true]).await;
    // The hub reads the presence of its watched matches again at least every 15 s.
    let started = tokio::time::Instant::now();
    let until = started + Duration::from_secs(25);
    loop {
        let left = until.saturating_duration_since(tokio::time::Instant::now());
        let m = bobs.next_within(left).await.expect("the lapse found in time");
        if presence(&m) == Some([false, true]) {
            break;
        }
    }
    assert!(started.elapsed() >= Duration::from_millis(1_500), "not before the lease ran out");
    drop(alice);
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_cursor_taken_from_a_presence_message_resumes_exactly() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    let presence_only = WatchOptions { views: false, presence: true };
    // The reference: bob's unbroken watch, events only.
    let mut whole = Watch::open(&bob, &id, Cursor::START, WatchOptions::views(false)).await;
    let mut bobs = Watch::open(&bob, &id, Cursor::START, presence_only).await;
    let first = bobs.until_presence([false, true]).await;
    assert_eq!(first, [[false, true]]);
    let opening = bobs.got.len() - 1;
    assert!(opening > 0, "the opening's events come first");

    // Moves and presence interleave; at a presence message, bob's client is cut off.
    move_once(&alice, &id).await;
    let terminal = alice.via(&env.cluster.gateway_url());
    let alices = Watch::open(&terminal, &id, Cursor::START, presence_only).await;
    bobs.until_presence([true, true]).await;
    let p = bobs.got.last().cloned().expect("the presence");
    let naive = Cursor { version: p.version, index: Some(p.index), tag: Some(p.tag) };
    assert_eq!(Cursor::START.next(&bobs.got[bobs.got.len() - 2]), naive, "where it stands");
    let had: Vec<_> = bobs.got.iter().filter(|m| presence(m).is_none()).cloned().collect();
    drop(bobs);
    move_once(&bob, &id).await;
    move_once(&alice, &id).await;

    // Resumed from the presence message as if it were any message: exactly the rest.
    let mut resumed = Watch::open(&bob, &id, naive, presence_only).await;
    let all = whole.drain().await;
    let rest = resumed.drain().await;
    assert!(!rest.is_empty(), "the moves since");
    assert_eq!([had.clone(), rest].concat(), all, "nothing lost, nothing twice");

    // Resumed with a whole version (no index): nothing new, so presence comes first and
    // stands where the version ends; a cursor taken from it resumes exactly too.
    let last = all.last().expect("a message").clone();
    let mut idle = Watch::open(&bob, &id, Cursor::after_version(last.version), presence_only).await;
    idle.until_presence([true, true]).await;
    assert_eq!(idle.got.len(), 1, "nothing but presence: {:?}", idle.got);
    let p = idle.got[0].clone();
    assert_eq!((p.version, p.index, p.tag), (last.version, last.index, last.tag));
    drop(idle);
    drop(alices);
    move_once(&bob, &id).await;
    let from = Cursor { version: p.version, index: Some(p.index), tag: Some(p.tag) };
    let mut after = Watch::open(&bob, &id, from, presence_only).await;
    let more = whole.drain().await;
    assert!(!more.is_empty(), "bob's move");
    assert_eq!(after.drain().await, more, "nothing lost, nothing twice");
    drop(resumed);
    env.shutdown().await;
}
