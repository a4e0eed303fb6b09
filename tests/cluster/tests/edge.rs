//! The API's edges, through the public API on a real cluster: oversized input is refused
//! with a short INVALID_ARGUMENT naming its field and never disturbs other players on the
//! same gateway; an idempotency key names one move; refusals carry google.rpc.ErrorInfo;
//! unknown methods are UNIMPLEMENTED; the bearer scheme is case-insensitive; display
//! names are cleaned; health Watch, reflection and the message-size limit follow gRPC.

use api::v1;
use cluster_tests::{Env, Player, create_request, gops, open};
use std::time::Duration;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// Messages stay far below HTTP/2 header limits whatever the input.
const SHORT: usize = 600;

fn assert_short(s: &Status, code: Code, what: &str) {
    assert_eq!(s.code(), code, "{what}: {s:?}");
    assert!(s.message().len() <= SHORT, "{what}: a {}-byte message", s.message().len());
}

/// The refusal's ErrorInfo reason (domain `colosseum.v1`).
fn reason(s: &Status) -> String {
    let info = s.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.domain, "colosseum.v1");
    info.reason
}

/// The field a BadRequest names.
fn bad_field(s: &Status) -> String {
    let b = s.get_details_bad_request().expect("a BadRequest");
    b.field_violations.first().expect("a violation").field.clone()
}

async fn gops_match(env: &Env) -> (Player, Player, String) {
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let id = alice.create_open("gops", "", 0).await;
    assert_eq!(bob.join(&id).await.expect("bob joins"), 1);
    (alice, bob, id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn oversized_input_is_refused_briefly_and_other_players_carry_on() {
    let env = Env::start().await;
    let (alice, bob, id) = gops_match(&env).await;
    // Carol shares the gateway (and so its connections to the engines) with the match.
    let carol = env.player("carol").await;
    let stop = tokio_util_stop();
    let watcher = {
        let (bob, id, stop) = (bob.clone(), id.clone(), stop.clone());
        tokio::spawn(async move {
            let mut calls = 0;
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                bob.try_view(&id).await.expect("bob's calls keep working");
                calls += 1;
                tokio::time::sleep(Duration::from_millis(5)).await;
            }
            calls
        })
    };
    let huge_key = |n: usize| format!("{{\"{}\": 1}}", "k".repeat(n));
    // Over the options limit: refused at the gateway, naming the field.
    for n in [20_000, 1_000_000] {
        let mut req = create_request("gops", "", open(), 0);
        req.options_json = huge_key(n);
        let s = carol.create(req).await.expect_err("refused");
        assert_short(&s, Code::InvalidArgument, "a huge unknown option");
        assert_eq!(bad_field(&s), "options_json");
        assert_eq!(reason(&s), "INVALID_FIELD");
    }
    // Under it, the engine's refusal quoting the option is cut short.
    let mut req = create_request("gops", "", open(), 0);
    req.options_json = huge_key(4000);
    let s = carol.create(req).await.expect_err("refused");
    assert_short(&s, Code::InvalidArgument, "a long unknown option");
    // A 1 MiB match id, in every call that takes one.
    let big = "x".repeat(1 << 20);
    let api = carol.client.api();
    let c = &carol.client;
    let calls: Vec<(&str, Result<(), Status>)> =
        vec![
            (
                "JoinMatch",
                api.clone()
                    .join_match(c.request(v1::JoinMatchRequest {
                        match_id: big.clone(),
                        idempotency_key: String::new(),
                    }))
                    .await
                    .map(drop),
            ),
            (
                "SubmitMove",
                api.clone()
                    .submit_move(c.request(v1::SubmitMoveRequest {
                        match_id: big.clone(),
                        r#move: Some(gops(1)),
                        idempotency_key: "k".into(),
                    }))
                    .await
                    .map(drop),
            ),
            (
                "Resign",
                api.clone()
                    .resign(c.request(v1::ResignRequest { match_id: big.clone() }))
                    .await
                    .map(drop),
            ),
            ("GetView", carol.try_view(&big).await.map(drop)),
            ("GetMatchRecord", carol.record(&big).await.map(drop)),
            (
                "WatchMatch",
                api.clone()
                    .watch_match(c.request(v1::WatchMatchRequest {
                        match_id: big.clone(),
                        ..Default::default()
                    }))
                    .await
                    .map(drop),
            ),
        ];
    for (call, r) in calls {
        let s = r.expect_err(call);
        assert_short(&s, Code::InvalidArgument, call);
        assert_eq!(bad_field(&s), "match_id", "{call}");
    }
    // A too-long key, bot name and display name, and too many cells.
    let mut req = create_request("gops", "", cluster_tests::bot("x".repeat(100_000).as_str()), 0);
    req.idempotency_key = "k".repeat(129);
    let s = carol.create(req).await.expect_err("refused");
    assert_short(&s, Code::InvalidArgument, "a long key");
    assert_eq!(bad_field(&s), "idempotency_key");
    let req = create_request("gops", "", cluster_tests::bot("x".repeat(100_000).as_str()), 0);
    let s = carol.create(req).await.expect_err("refused");
    assert_eq!(bad_field(&s), "opponent.bot");
    let place = vec!["c3".to_string(); 200];
    let hex = v1::HexspielMove {
        kind: Some(v1::hexspiel_move::Kind::Hex(v1::HexspielHexTurn { place, pattern: None })),
    };
    let mv = v1::Move { game: Some(v1::r#move::Game::Hexspiel(hex)) };
    let s = alice.submit_with(&id, Some(mv), "k-cells").await.expect_err("refused");
    assert_eq!(bad_field(&s), "move.hexspiel.hex.place");

    // Bob was served all along, and the match goes on.
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert!(watcher.await.expect("bob's task") > 0);
    assert_eq!(alice.submit(&id, gops(3)).await.expect("alice moves"), 1);
    assert_eq!(bob.submit(&id, gops(4)).await.expect("bob moves"), 2);
    env.shutdown().await;
}

fn tokio_util_stop() -> std::sync::Arc<std::sync::atomic::AtomicBool> {
    std::sync::Arc::default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idempotency_key_names_one_move() {
    let env = Env::start().await;
    let (alice, _bob, id) = gops_match(&env).await;
    let key = alice.key();
    let first = alice.submit_with(&id, Some(gops(5)), &key).await.expect("first");
    assert_eq!(cluster_tests::accepted(first).expect("accepted"), 1);
    let again = alice.submit_with(&id, Some(gops(5)), &key).await.expect("the retry");
    assert_eq!(
        again.outcome,
        Some(v1::submit_move_response::Outcome::Duplicate(v1::Accepted { version: 1 }))
    );
    // Another move under the same key is refused, naming the first move's version.
    let s = alice.submit_with(&id, Some(gops(6)), &key).await.expect_err("another move");
    assert_short(&s, Code::AlreadyExists, "a reused key");
    assert!(s.message().contains("version 1"), "{}", s.message());
    let info = s.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.reason, "IDEMPOTENCY_KEY_REUSED");
    assert_eq!(info.metadata.get("version").map(String::as_str), Some("1"));
    // The empty key is refused, not taken as "no deduplication".
    let s = alice.submit_with(&id, Some(gops(6)), "").await.expect_err("an empty key");
    assert_eq!(s.code(), Code::InvalidArgument);
    assert_eq!(bad_field(&s), "idempotency_key");
    let view = alice.view(&id).await;
    assert_eq!(view.version, 1, "nothing changed");
    assert_eq!(cluster_tests::gops_view(&view).my_bid, Some(5));
    env.shutdown().await;
}

/// A unary call to any path on the gateway.
async fn raw_call(url: &str, path: &'static str) -> Result<v1::ListGamesResponse, Status> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_string())
        .expect("a URL")
        .connect()
        .await
        .expect("connects");
    let mut grpc = tonic::client::Grpc::new(channel);
    grpc.ready().await.expect("ready");
    let codec = tonic_prost::ProstCodec::<v1::ListGamesRequest, v1::ListGamesResponse>::default();
    let path = tonic::codegen::http::uri::PathAndQuery::from_static(path);
    grpc.unary(tonic::Request::new(v1::ListGamesRequest {}), path, codec)
        .await
        .map(|r| r.into_inner())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_follows_grpc_conventions() {
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    // Unknown methods and versions are UNIMPLEMENTED, not UNAUTHENTICATED.
    for path in [
        "/colosseum.v1.ColosseumService/NoSuchMethod",
        "/colosseum.v2.ColosseumService/ListGames",
        "/nothing.Here/At",
    ] {
        let s = raw_call(&url, path).await.expect_err(path);
        assert_eq!(s.code(), Code::Unimplemented, "{path}: {s:?}");
    }
    assert!(raw_call(&url, "/colosseum.v1.ColosseumService/ListGames").await.is_ok());

    // The bearer scheme is case-insensitive.
    let (alice, _bob, id) = gops_match(&env).await;
    let auth = alice.client.request(()).metadata().get("authorization").cloned().expect("a token");
    let token = auth.to_str().expect("ASCII").strip_prefix("Bearer ").expect("Bearer").to_string();
    for scheme in ["bearer", "BEARER"] {
        let mut req = tonic::Request::new(v1::GetViewRequest { match_id: id.clone() });
        req.metadata_mut()
            .insert("authorization", format!("{scheme} {token}").parse().expect("ASCII"));
        let view = alice.client.api().get_view(req).await.expect(scheme).into_inner();
        assert_eq!(view.seat, Some(0), "{scheme}: the same session");
    }

    // Display names: whitespace normalized, control characters refused.
    let mut api = alice.client.api();
    let made = api
        .create_guest_session(v1::CreateGuestSessionRequest {
            display_name: "  Ada \t\n Lovelace ".into(),
        })
        .await
        .expect("a session")
        .into_inner();
    assert_eq!(made.display_name, "Ada Lovelace");
    for evil in ["nul\0name", "\u{1b}[2Jwipe", "bell\u{7}", "abc\u{202e}cba"] {
        let s = api
            .create_guest_session(v1::CreateGuestSessionRequest { display_name: evil.into() })
            .await
            .expect_err(evil);
        assert_eq!(s.code(), Code::InvalidArgument, "{evil:?}");
        assert_eq!(bad_field(&s), "display_name");
    }

    // A message over the limit is RESOURCE_EXHAUSTED, with its reason.
    let s = api
        .create_guest_session(v1::CreateGuestSessionRequest { display_name: "x".repeat(10 << 20) })
        .await
        .expect_err("10 MB");
    assert_short(&s, Code::ResourceExhausted, "a 10 MB request");
    assert_eq!(reason(&s), "MESSAGE_TOO_LARGE");

    // A rules refusal carries its reason as ErrorInfo and in the metadata clients read.
    let bad = v1::Move {
        game: Some(v1::r#move::Game::DuelingMonsters(v1::DuelingMonstersMove {
            black: 1,
            white: 1,
        })),
    };
    let s = alice.submit_with(&id, Some(bad), "k-bad").await.expect_err("not a GOPS move");
    assert_eq!(reason(&s), "BAD_MOVE");
    assert_eq!(s.metadata().get("colosseum-error-code").unwrap(), "bad_move");

    // Health Watch on an unknown service says SERVICE_UNKNOWN and stays open.
    let channel = tonic::transport::Endpoint::from_shared(url.clone()).expect("URL").connect_lazy();
    let mut health = tonic_health::pb::health_client::HealthClient::new(channel.clone());
    let mut watch = health
        .watch(tonic_health::pb::HealthCheckRequest { service: "no.such.Service".into() })
        .await
        .expect("the watch opens")
        .into_inner();
    let first = watch.message().await.expect("a status").expect("a message");
    assert_eq!(
        first.status,
        i32::from(tonic_health::pb::health_check_response::ServingStatus::ServiceUnknown)
    );
    let next = tokio::time::timeout(Duration::from_millis(1500), watch.message()).await;
    assert!(next.is_err(), "the watch stays open: {next:?}");

    // Reflection lists the public services only.
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_client::ServerReflectionClient,
        server_reflection_request::MessageRequest, server_reflection_response::MessageResponse,
    };
    let mut reflection = ServerReflectionClient::new(channel);
    let ask = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(MessageRequest::ListServices(String::new())),
    };
    let mut answers = reflection
        .server_reflection_info(tokio_stream::iter([ask]))
        .await
        .expect("reflection")
        .into_inner();
    let Some(MessageResponse::ListServicesResponse(list)) =
        answers.message().await.expect("an answer").expect("a message").message_response
    else {
        panic!("a service list")
    };
    let mut names: Vec<_> = list.service.into_iter().map(|s| s.name).collect();
    names.sort();
    assert_eq!(
        names,
        [
            "colosseum.v1.ColosseumService",
            "colosseum.v1.LobbyService",
            "colosseum.v1.TournamentService",
            "colosseum.v1.TournamentViewService",
            "grpc.health.v1.Health",
            "grpc.reflection.v1.ServerReflection",
            "grpc.reflection.v1alpha.ServerReflection",
        ]
    );
    // Open streams would hold the graceful shutdown.
    drop((watch, answers));
    env.shutdown().await;
}
