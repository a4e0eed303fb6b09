//! The gateway's calls to the engines through connections that go away every few tens of
//! milliseconds (as they do every five minutes in production): a call the gateway's HTTP/2
//! client dropped unsent, queued on a connection closing after its GOAWAY, is sent again
//! by the engines' clients, so no player sees it as UNAVAILABLE; moves cross the
//! engine links' renewals and GOAWAYs the same way, each applied once.

use cluster_tests::Env;
use std::time::Duration;
use tonic::Code;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_engine_goaway_reaches_a_player() {
    // Every server's connections, the engines' included, go away 40 ms after they open.
    let _ = tracing_subscriber::fmt().with_test_writer().with_env_filter("warn").try_init();
    service_kit::serve::set_max_connection_age(Duration::from_millis(40));
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(60_000).await;
    // GetView is a call to the match's engine per request; many at once keep each of the
    // gateway's engine connections busy when its GOAWAY comes.
    let mut readers = tokio::task::JoinSet::new();
    for r in 0..16 {
        let (p, id) = (if r % 2 == 0 { alice.clone() } else { bob.clone() }, id.clone());
        readers.spawn(async move {
            let mut failed = Vec::new();
            for _ in 0..150 {
                if let Err(s) = p.try_view(&id).await {
                    failed.push(s);
                }
            }
            failed
        });
    }
    let mut failures = Vec::new();
    while let Some(r) = readers.join_next().await {
        failures.extend(r.expect("a reader"));
    }
    let unavailable = failures.iter().filter(|s| s.code() == Code::Unavailable).count();
    assert!(
        failures.is_empty(),
        "{unavailable} UNAVAILABLE of {} failures, the first: {:?}",
        failures.len(),
        &failures[..failures.len().min(3)]
    );
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn moves_cross_link_renewals_and_goaways_each_applied_once() {
    // Every connection goes away 40 ms after it opens and every engine link is renewed
    // after 25 ms: moves keep crossing streams that end, each answered once, none lost.
    let _ = tracing_subscriber::fmt().with_test_writer().with_env_filter("warn").try_init();
    service_kit::serve::set_max_connection_age(Duration::from_millis(40));
    engines::link::set_link_age(Duration::from_millis(25));
    let opened_before = service_kit::metrics::metric(engines::link::metric::OPENED)
        .load(std::sync::atomic::Ordering::Relaxed);
    let env = Env::start().await;
    let mut matches = tokio::task::JoinSet::new();
    for _ in 0..6 {
        let (alice, bob, id) = env.gops_between(60_000).await;
        matches.spawn(async move {
            for card in 1..=13 {
                // Both bids of a round at once, on the same links.
                let (a, b) = tokio::join!(
                    alice.submit(&id, cluster_tests::gops(card)),
                    bob.submit(&id, cluster_tests::gops(card))
                );
                // `submit` takes only `accepted`: a step sent twice would answer duplicate.
                a.unwrap_or_else(|s| panic!("alice's bid {card}: {s:?}"));
                b.unwrap_or_else(|s| panic!("bob's bid {card}: {s:?}"));
            }
            alice.view(&id).await
        });
    }
    while let Some(view) = matches.join_next().await {
        let view = view.expect("a match");
        assert!(view.outcome.is_some(), "every round was played: {view:?}");
        // 13 rounds of two bids: nothing applied twice, nothing lost.
        assert_eq!(cluster_tests::gops_view(&view).round, 13, "{view:?}");
    }
    let opened = service_kit::metrics::metric(engines::link::metric::OPENED)
        .load(std::sync::atomic::Ordering::Relaxed)
        - opened_before;
    assert!(opened > 4, "links were renewed as they aged: {opened} opened");
    env.shutdown().await;
}
