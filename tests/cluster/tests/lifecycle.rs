//! A match's life at its edges: a seat that moves before its opponent has joined still
//! gets a clock once the opponent is seated, and a watch resumed after a finished match's
//! last message ends at once.

use cluster_tests::{Env, gops, read_to_end, wait_view};
use std::time::Duration;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_before_the_opponent_joins_still_starts_the_opponents_clock() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 1_000).await;
    // Alice bids while the seat across is still open: no clock runs yet.
    assert_eq!(alice.submit(&id, gops(13)).await.expect("alice bids"), 1);
    assert_eq!(alice.view(&id).await.deadline_at_ms, None, "no clock before both are seated");
    bob.join(&id).await.expect("bob joins");
    // Bob owes a bid from now on: his deadline is armed and fires (he loses on time).
    let armed = bob.view(&id).await;
    assert!(armed.deadline_at_ms.is_some(), "the joiner's clock starts: {armed:?}");
    let last = wait_view(&bob, &id, 100, |v| v.outcome.is_some()).await;
    let outcome = last.outcome.expect("the deadline ended the match");
    assert_eq!((outcome.winner, outcome.reason.as_str()), (Some(0), "missed_deadline"));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_resumed_after_a_finished_matchs_last_message_ends() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    let req = api::v1::ResignRequest { match_id: id.clone() };
    alice.client.api().resign(alice.client.request(req)).await.expect("alice resigns");
    let all = read_to_end(bob.watch_with(&id, 0, None, true).await.expect("watch")).await;
    let last = all.last().expect("messages").clone();
    // Resumed after the whole last version, or after its last message: nothing is left,
    // and the stream ends (read_to_end fails on a stream that stays open).
    for (after_version, after_index) in [(last.version, None), (last.version, Some(last.index))] {
        let rest = tokio::time::timeout(
            Duration::from_secs(5),
            read_to_end(
                bob.watch_with(&id, after_version, after_index, true).await.expect("watch"),
            ),
        )
        .await
        .expect("the resumed stream ends");
        assert!(rest.is_empty(), "{rest:?}");
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_time_the_rules_fix_is_kept_and_another_refused() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let week = 7 * 24 * 3600 * 1000;
    // Cure & Plague's text fixes a minute per move and five minutes of reserve: a week is
    // refused, naming the fixed time, and nothing is created.
    let refused = alice
        .create(cluster_tests::create_request("cure-plague", "", cluster_tests::open(), week))
        .await;
    cluster_tests::assert_status(refused, tonic::Code::InvalidArgument, "60000 ms");
    // Unset, the match takes the rules' own time; GOPS takes the host's week.
    let id = alice.create_open("cure-plague", "", 0).await;
    let bob = env.player("bob").await;
    bob.join(&id).await.expect("bob joins");
    let left = alice.view(&id).await.deadline_in_ms.expect("armed");
    assert!((355_000..=360_000).contains(&left), "a minute plus the reserve: {left}");
    let id = alice.create_open("gops", "", week).await;
    bob.join(&id).await.expect("bob joins");
    let left = alice.view(&id).await.deadline_in_ms.expect("armed");
    assert!(left > week - 60_000, "a week per move: {left}");
    env.shutdown().await;
}
