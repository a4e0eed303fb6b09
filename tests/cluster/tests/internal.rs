//! The rules engines' port takes only authenticated internal calls: a call without the
//! run's secret, or with a wrong one, is refused UNAUTHENTICATED before any handler runs
//! (so it can neither read a seat's sealed bid nor apply a step), while health and
//! reflection stay open for probes and the cluster itself still plays.

use api::internal::rules_engine_service_client::RulesEngineServiceClient;
use api::internal::{self, apply_step_request};
use cluster_tests::{Env, gops, gops_view};
use engines::engine_client;
use service_kit::internal::{HEADER, InternalToken};
use tonic::Code;
use tonic::transport::Channel;

async fn channel(url: String) -> Channel {
    tonic::transport::Endpoint::from_shared(url).expect("a URL").connect().await.expect("connect")
}

fn view_of_seat0(id: &str) -> internal::GetViewRequest {
    internal::GetViewRequest { match_id: id.to_string(), seat: Some(0) }
}

fn resign_seat1(id: &str) -> internal::ApplyStepRequest {
    internal::ApplyStepRequest {
        match_id: id.to_string(),
        step: Some(apply_step_request::Step::Resign(1)),
        idempotency_key: String::new(),
    }
}

fn assert_refused<T: std::fmt::Debug>(r: Result<T, tonic::Status>, what: &str) {
    let s = r.expect_err(what);
    assert_eq!(s.code(), Code::Unauthenticated, "{what}: {s:?}");
    // One answer for every refusal: nothing tells a missing secret from a wrong one.
    assert_eq!(s.message(), "unauthenticated", "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn engine_calls_need_the_internal_secret() {
    let env = Env::start().await;
    let (alice, bob) = (env.player("alice").await, env.player("bob").await);
    let id = alice.create_open("gops", "", 60_000).await;
    bob.join(&id).await.expect("join");
    // Alice's bid is sealed: only her own view shows it.
    let v = alice.submit(&id, gops(13)).await.expect("bid");
    let url = env.cluster.engine_url(games::Family::Goofspiel).expect("the goofspiel engine");
    let ch = channel(url).await;

    let mut bare = RulesEngineServiceClient::new(ch.clone());
    assert_refused(bare.get_view(view_of_seat0(&id)).await, "GetView without a secret");
    assert_refused(bare.apply_step(resign_seat1(&id)).await, "ApplyStep without a secret");
    let meta = internal::GetMetaRequest { match_id: id.clone() };
    assert_refused(bare.get_meta(meta.clone()).await, "GetMeta without a secret");
    let join = internal::JoinMatchRequest { match_id: id.clone(), player_id: alice.id.clone() };
    assert_refused(bare.join_match(join).await, "JoinMatch without a secret");

    let wrong = InternalToken::random();
    let mut wrong = engine_client(ch.clone(), Some(&wrong));
    assert_refused(wrong.get_view(view_of_seat0(&id)).await, "GetView with a wrong secret");
    assert_refused(wrong.apply_step(resign_seat1(&id)).await, "ApplyStep with a wrong secret");
    // A prefix of the right secret, or the secret as a bearer token, is just as wrong.
    let secret = env.cluster.internal_token().expose().to_string();
    for (key, value) in [(HEADER, &secret[..secret.len() - 1]), ("authorization", &secret[..])] {
        let mut req = tonic::Request::new(view_of_seat0(&id));
        req.metadata_mut().insert(key, value.parse().expect("ascii"));
        assert_refused(bare.get_view(req).await, &format!("GetView with {key}"));
    }

    // Nothing was applied: both seats still play, the match is where it was.
    let seen = bob.view(&id).await;
    assert_eq!((seen.version, seen.outcome.is_none()), (v, true));

    let mut right = engine_client(ch.clone(), Some(env.cluster.internal_token()));
    let view = right.get_view(view_of_seat0(&id)).await.expect("GetView with the secret");
    let view = view.into_inner().view.expect("a view");
    assert_eq!(view.version, v);
    assert_eq!(gops_view(&view).my_bid, Some(13), "the engine answers the right secret");
    let step = right.apply_step(resign_seat1(&id)).await.expect("ApplyStep with the secret");
    assert!(step.into_inner().outcome.is_some());
    let over = alice.view(&id).await;
    assert_eq!(over.outcome.expect("bob resigned").winner, Some(0));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn health_and_reflection_stay_open_on_the_engine_port() {
    use tonic_reflection::pb::v1::server_reflection_client::ServerReflectionClient;
    use tonic_reflection::pb::v1::{
        ServerReflectionRequest, server_reflection_request, server_reflection_response,
    };
    let env = Env::start().await;
    let ch = channel(env.cluster.engine_url(games::Family::Goofspiel).expect("engine")).await;
    let mut health = tonic_health::pb::health_client::HealthClient::new(ch.clone());
    let req = tonic_health::pb::HealthCheckRequest {
        service: "colosseum.internal.v1.RulesEngineService".into(),
    };
    let status = health.check(req).await.expect("health needs no secret").into_inner().status;
    assert_eq!(status, tonic_health::pb::health_check_response::ServingStatus::Serving as i32);

    let mut reflection = ServerReflectionClient::new(ch.clone());
    let ask = ServerReflectionRequest {
        host: String::new(),
        message_request: Some(server_reflection_request::MessageRequest::ListServices(
            String::new(),
        )),
    };
    let mut answers = reflection
        .server_reflection_info(tokio_stream::once(ask))
        .await
        .expect("reflection needs no secret")
        .into_inner();
    let answer = answers.message().await.expect("an answer").expect("one message");
    let Some(server_reflection_response::MessageResponse::ListServicesResponse(list)) =
        answer.message_response
    else {
        panic!("not a service list: {answer:?}");
    };
    let names: Vec<_> = list.service.iter().map(|s| s.name.as_str()).collect();
    assert!(names.contains(&"colosseum.internal.v1.RulesEngineService"), "{names:?}");
    // Knowing the service is not calling it.
    let mut bare = RulesEngineServiceClient::new(ch);
    let meta = internal::GetMetaRequest { match_id: "00000000-0000-4000-8000-000000000000".into() };
    assert_refused(bare.get_meta(meta).await, "GetMeta without a secret");
    env.shutdown().await;
}

/// CreateMatches answers each match as CreateMatch would, in the order asked, whichever
/// engine hosts it: created, refused for its options, already there (a retried batch),
/// and a game no engine has; the call itself needs the secret and has a most.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_matches_answers_each_match_in_order() {
    use engines::{Created, Engines, NewMatch};
    use games::Family;
    use store::{MatchId, SeatHolder};
    let env = Env::start().await;
    let urls: Vec<_> = [Family::Goofspiel, Family::Placement]
        .into_iter()
        .map(|f| (f, vec![env.cluster.engine_url(f).expect("an engine")]))
        .collect();
    let engines = Engines::new(&urls, Some(env.cluster.internal_token())).expect("engines");
    let new = |game: &str, options: &str, id: MatchId| NewMatch {
        id,
        game: game.to_string(),
        options_json: options.to_string(),
        seats: [SeatHolder::Open, SeatHolder::Open],
        move_time_ms: 60_000,
        listed: false,
    };
    let (a, c) = (MatchId::random(), MatchId::random());
    let batch = vec![
        new("gops", "", a),
        new("gops", "not json", MatchId::random()),
        new("gops", "", a),
        new("cure-plague", "", c),
        new("chess", "", MatchId::random()),
    ];
    let answers = engines.create_matches(batch, tonic::metadata::MetadataMap::new()).await;
    assert_eq!(answers.len(), 5);
    // The same id twice in one batch: the two run side by side, and one of them makes it.
    let (made, again) = match (&answers[0], &answers[2]) {
        (Ok(Created::New { seed_commitment }), other)
        | (other, Ok(Created::New { seed_commitment })) => (seed_commitment, other),
        other => panic!("neither made the match: {other:?}"),
    };
    assert_eq!(made.len(), 64, "a SHA-256 in hex");
    assert_eq!(again, &Ok(Created::Exists), "the same id again");
    let refused = answers[1].clone().expect_err("bad options");
    assert_eq!(tonic::Status::from(refused).code(), Code::InvalidArgument);
    assert!(matches!(&answers[3], Ok(Created::New { .. })), "{:?}", answers[3]);
    assert!(matches!(answers[4], Err(engines::CallError::UnknownGame(_))), "{:?}", answers[4]);
    // Both created matches are there, each in its own engine.
    for (id, family) in [(a, Family::Goofspiel), (c, Family::Placement)] {
        let ch = channel(env.cluster.engine_url(family).expect("an engine")).await;
        let mut right = engine_client(ch, Some(env.cluster.internal_token()));
        let meta = internal::GetMetaRequest { match_id: id.to_string() };
        right.get_meta(meta).await.expect("the match is there");
    }

    let url = env.cluster.engine_url(Family::Goofspiel).expect("the goofspiel engine");
    let ch = channel(url).await;
    let one = internal::CreateMatchesRequest { matches: vec![] };
    assert_refused(
        RulesEngineServiceClient::new(ch.clone()).create_matches(one).await,
        "no secret",
    );
    let too_many = internal::CreateMatchesRequest {
        matches: (0..1_025)
            .map(|_| internal::CreateMatchRequest {
                match_id: MatchId::random().to_string(),
                game: "gops".into(),
                ..Default::default()
            })
            .collect(),
    };
    let mut right = engine_client(ch, Some(env.cluster.internal_token()));
    let refused = right.create_matches(too_many).await.expect_err("too many");
    assert_eq!(refused.code(), Code::InvalidArgument);
    assert_eq!(refused.message(), "one CreateMatches call creates at most 1024 matches");
}
