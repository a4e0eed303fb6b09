//! The engine link (`crates/engines/src/link.rs`) against real engines on loopback ports,
//! beside a cluster on one redis-server: a refusal crosses it whole; an engine that drains
//! (a rolling update's SIGTERM) with steps in flight loses none and applies none twice
//! (each is answered, or UNAVAILABLE and then applied once by its retry with the same key,
//! on the next replica); an engine without the Steps method (older than its callers) gets
//! each step by ApplyStep.

use api::internal::{self, apply_step_request, apply_step_response};
use cluster_tests::{Env, gops};
use engines::{CallError, Engines};
use games::Family;
use std::sync::Arc;
use std::time::Duration;
use store::{EventStore, MatchId};
use tokio_util::sync::CancellationToken;
use tonic::codegen::http;

/// A rules engine serving the goofspiel family on a port of its own, over the cluster's
/// Redis, until `shutdown` (a graceful drain) or the test's end.
struct Served {
    url: String,
    shutdown: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

async fn engine(env: &Env, without_steps: bool) -> Served {
    let store = store::RedisStore::connect(&env.redis.url()).await.expect("connect to redis");
    let engine = Arc::new(rules_engine::engine::Engine::new(
        Arc::new(store),
        vec![Family::Goofspiel],
        120_000,
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("its address"));
    let shutdown = CancellationToken::new();
    let token = env.cluster.internal_token().clone();
    let stop = shutdown.clone();
    let task = tokio::spawn(async move {
        let served = if without_steps {
            // An engine from before the Steps method: its path is unknown there.
            let api = rules_engine::server::RulesEngineApi::new(engine, stop.clone());
            let services = service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET)
                .with(api.into_service());
            let guard = tower::layer::layer_fn(NoSteps);
            service_kit::serve::serve(guard, services, listener, stop).await
        } else {
            rules_engine::serve(listener, engine, Some(token), stop).await
        };
        served.expect("the engine serves");
    });
    Served { url, shutdown, task }
}

/// Answers the Steps method UNIMPLEMENTED, as an engine that has none.
#[derive(Clone)]
struct NoSteps<S>(S);

impl<S> tower::Service<http::Request<tonic::body::Body>> for NoSteps<S>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
        > + Send,
    S::Future: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = futures_util::future::BoxFuture<'static, Result<Self::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.0.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        if req.uri().path() == "/colosseum.internal.v1.RulesEngineService/Steps" {
            let answer = tonic::Status::unimplemented("no such method").into_http();
            return Box::pin(async move { Ok(answer) });
        }
        Box::pin(self.0.call(req))
    }
}

fn bid(id: &str, seat: u32, card: i64, key: &str) -> internal::ApplyStepRequest {
    internal::ApplyStepRequest {
        match_id: id.to_string(),
        step: Some(apply_step_request::Step::Move(internal::SeatMove {
            seat,
            r#move: Some(gops(card)),
        })),
        idempotency_key: key.to_string(),
    }
}

/// The steps of match `id` stored so far (the creation not counted).
async fn steps_stored(env: &Env, id: &str) -> Vec<String> {
    let store = store::RedisStore::connect(&env.redis.url()).await.expect("connect to redis");
    let id: MatchId = id.parse().expect("a match id");
    let entries = store.read(id, 1, 1_000).await.expect("the match's stream");
    entries.into_iter().map(|e| e.step_json).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refusal_crosses_the_link_whole() {
    let env = Env::start().await;
    let (_alice, _bob, id) = env.gops_between(60_000).await;
    let a = engine(&env, false).await;
    let engines = Engines::new(
        &[(Family::Goofspiel, vec![a.url.clone()])],
        Some(env.cluster.internal_token()),
    )
    .expect("engines");
    let m: MatchId = id.parse().expect("a match id");
    let first = engines.apply_step("gops", m, bid(&id, 0, 5, "k1"), None).await.expect("a bid");
    assert!(matches!(first.outcome, Some(apply_step_response::Outcome::Applied(1))), "{first:?}");
    // The same key again: the same step's duplicate; another move under it: refused.
    let again = engines.apply_step("gops", m, bid(&id, 0, 5, "k1"), None).await.expect("again");
    assert!(matches!(again.outcome, Some(apply_step_response::Outcome::Duplicate(1))));
    let reused = engines.apply_step("gops", m, bid(&id, 0, 6, "k1"), None).await;
    assert_eq!(
        reused.expect_err("another move, the same key"),
        CallError::KeyReused { version: 1 }
    );
    // A second bid in the round: the rules' refusal, with its conformance code.
    let twice = engines.apply_step("gops", m, bid(&id, 0, 6, "k2"), None).await;
    let CallError::Refused(refusal) = twice.expect_err("a second bid") else {
        panic!("a rules refusal")
    };
    assert_eq!(refusal.code.as_str(), "not_your_turn");
    // Each refusal as the unary ApplyStep answers it.
    for (seat, card, key) in [(2, 6, "k3"), (0, 6, "k2"), (0, 6, "k1"), (0, 99, "k4")] {
        let linked = engines.apply_step("gops", m, bid(&id, seat, card, key), None).await;
        let mut unary = engines.for_match("gops", m).expect("the engine");
        let direct = unary.apply_step(bid(&id, seat, card, key)).await;
        let direct = direct.map(tonic::Response::into_inner).map_err(CallError::from);
        assert_eq!(linked, direct, "seat {seat}, card {card}, key {key}");
        assert!(linked.is_err());
    }
    assert_eq!(steps_stored(&env, &id).await.len(), 1);
    a.shutdown.cancel();
    a.task.await.expect("the engine stops");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_engine_draining_with_steps_in_flight_loses_none_and_applies_none_twice() {
    let env = Env::start().await;
    let mut ids = Vec::new();
    for _ in 0..40 {
        ids.push(env.gops_between(60_000).await.2);
    }
    let (a, b) = (engine(&env, false).await, engine(&env, false).await);
    let urls = vec![a.url.clone(), b.url.clone()];
    let on_a = ids.iter().filter(|id| engines::replica_for(&urls, id) == 0).count();
    assert!(on_a > 0, "some matches are served by the engine that drains");
    let engines = Engines::new(&[(Family::Goofspiel, urls)], Some(env.cluster.internal_token()))
        .expect("engines");
    let mut bids = tokio::task::JoinSet::new();
    for id in &ids {
        let (engines, id) = (engines.clone(), id.clone());
        bids.spawn(async move {
            let m: MatchId = id.parse().expect("a match id");
            // Retried with the same key while the answer is UNAVAILABLE, as the API says.
            for _ in 0..100 {
                match engines.apply_step("gops", m, bid(&id, 0, 7, "drain"), None).await {
                    Ok(r) => return (id, r),
                    Err(CallError::Down(_) | CallError::Unreachable(_)) => {
                        tokio::time::sleep(Duration::from_millis(20)).await;
                    }
                    Err(e) => panic!("{id}: {e:?}"),
                }
            }
            panic!("{id}: never answered")
        });
    }
    // The drain starts while the bids are in flight.
    tokio::time::sleep(Duration::from_millis(2)).await;
    a.shutdown.cancel();
    while let Some(done) = bids.join_next().await {
        let (id, answer) = done.expect("a bid");
        assert!(
            matches!(
                answer.outcome,
                Some(
                    apply_step_response::Outcome::Applied(1)
                        | apply_step_response::Outcome::Duplicate(1)
                )
            ),
            "{id}: {answer:?}"
        );
        // Exactly one step stored: none lost, none applied twice.
        assert_eq!(steps_stored(&env, &id).await.len(), 1, "{id}");
    }
    a.task.await.expect("the drained engine stops");
    let count =
        |name| service_kit::metrics::metric(name).load(std::sync::atomic::Ordering::Relaxed);
    eprintln!(
        "links opened {}, steps resent {}, links broken {}",
        count(engines::link::metric::OPENED),
        count(engines::link::metric::RESENT),
        count(engines::link::metric::BROKEN)
    );
    b.shutdown.cancel();
    b.task.await.expect("the other engine stops");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_engine_without_steps_gets_each_step_by_apply_step() {
    let env = Env::start().await;
    let (_alice, _bob, id) = env.gops_between(60_000).await;
    let old = engine(&env, true).await;
    // That engine checks no secret (its guard is the cut alone): none is sent.
    let engines =
        Engines::new(&[(Family::Goofspiel, vec![old.url.clone()])], None).expect("engines");
    let m: MatchId = id.parse().expect("a match id");
    for (seat, key) in [(0, "a"), (1, "b")] {
        let r = engines.apply_step("gops", m, bid(&id, seat, 9, key), None).await;
        let r = r.unwrap_or_else(|e| panic!("seat {seat}: {e:?}"));
        assert!(matches!(r.outcome, Some(apply_step_response::Outcome::Applied(_))), "{r:?}");
    }
    assert_eq!(steps_stored(&env, &id).await.len(), 2);
    old.shutdown.cancel();
    old.task.await.expect("the engine stops");
    env.shutdown().await;
}
