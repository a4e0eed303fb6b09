//! The gateway's calls to the engines through connections that go away every few tens of
//! milliseconds (as they do every five minutes in production): a call the gateway's HTTP/2
//! client dropped unsent, queued on a connection closing after its GOAWAY, is sent again
//! by the engines' clients, so no player sees it as UNAVAILABLE.

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
