//! Server reflection as grpcurl uses it, on every kind of server the cluster runs (the
//! gateway, a rules engine, the match-maker, the tournament service, the clock's health
//! port): list the services, then ask for the file of each one listed
//! (`file_containing_symbol`), over v1 and v1alpha alike. Every listed service must be
//! described, the reflection services themselves included (they were listed and answered
//! NOT_FOUND, so `grpcurl describe` of the listing failed).

use cluster_tests::Env;
use tonic_reflection::pb::{v1, v1alpha};

async fn channel(url: &str) -> tonic::transport::Channel {
    tonic::transport::Endpoint::from_shared(url.to_string())
        .expect("a URL")
        .connect()
        .await
        .expect("connects")
}

/// The services `url` lists over reflection v1, each checked to be described over v1 and
/// v1alpha by a file that names it.
async fn every_listed_service_is_described(url: &str) -> Vec<String> {
    use v1::server_reflection_request::MessageRequest;
    use v1::server_reflection_response::MessageResponse;
    let ch = channel(url).await;
    let client = v1::server_reflection_client::ServerReflectionClient::new(ch.clone());
    let ask = |m: MessageRequest| v1::ServerReflectionRequest {
        host: String::new(),
        message_request: Some(m),
    };
    let answer = |asked: v1::ServerReflectionRequest| {
        let mut client = client.clone();
        async move {
            let mut answers = client
                .server_reflection_info(tokio_stream::iter([asked]))
                .await
                .expect("reflection")
                .into_inner();
            answers.message().await.expect("an answer").expect("a message").message_response
        }
    };
    let Some(MessageResponse::ListServicesResponse(list)) =
        answer(ask(MessageRequest::ListServices(String::new()))).await
    else {
        panic!("{url}: a service list")
    };
    let names: Vec<String> = list.service.into_iter().map(|s| s.name).collect();
    assert!(names.len() >= 3, "{url}: {names:?}");
    let mut alpha = v1alpha::server_reflection_client::ServerReflectionClient::new(ch);
    for name in &names {
        let short = name.rsplit('.').next().expect("a name");
        match answer(ask(MessageRequest::FileContainingSymbol(name.clone()))).await {
            Some(MessageResponse::FileDescriptorResponse(files)) => {
                let named = files
                    .file_descriptor_proto
                    .iter()
                    .any(|f| f.windows(short.len()).any(|w| w == short.as_bytes()));
                assert!(named, "{url}: v1's files for {name} name it");
            }
            other => panic!("{url}: v1 describes {name}: {other:?}"),
        }
        let asked = v1alpha::ServerReflectionRequest {
            host: String::new(),
            message_request: Some(
                v1alpha::server_reflection_request::MessageRequest::FileContainingSymbol(
                    name.clone(),
                ),
            ),
        };
        let mut answers = alpha
            .server_reflection_info(tokio_stream::iter([asked]))
            .await
            .expect("reflection v1alpha")
            .into_inner();
        let got = answers.message().await.expect("an answer").expect("a message");
        assert!(
            matches!(
                got.message_response,
                Some(v1alpha::server_reflection_response::MessageResponse::FileDescriptorResponse(
                    _
                ))
            ),
            "{url}: v1alpha describes {name}: {:?}",
            got.message_response
        );
    }
    names
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_server_describes_every_service_it_lists() {
    let env = Env::start().await;
    let gateway = every_listed_service_is_described(&env.cluster.gateway_url()).await;
    assert!(gateway.iter().any(|n| n == "colosseum.v1.TournamentService"), "{gateway:?}");
    assert!(gateway.iter().any(|n| n == "colosseum.v1.TournamentViewService"), "{gateway:?}");
    assert!(gateway.iter().any(|n| n == "grpc.reflection.v1.ServerReflection"), "{gateway:?}");
    assert!(gateway.iter().any(|n| n == "grpc.reflection.v1alpha.ServerReflection"));
    let engine = env.cluster.engine_url(games::Family::Goofspiel).expect("an engine");
    let listed = every_listed_service_is_described(&engine).await;
    assert!(listed.iter().any(|n| n.ends_with("RulesEngineService")), "{listed:?}");
    for url in env.cluster.match_maker_urls() {
        every_listed_service_is_described(&url).await;
    }
    for url in env.cluster.tournaments_urls() {
        let listed = every_listed_service_is_described(&url).await;
        assert!(listed.iter().any(|n| n == "colosseum.v1.TournamentViewService"), "{listed:?}");
    }
    // The clock serves health and reflection only, through the same harness.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}", listener.local_addr().expect("an address"));
    let stop = tokio_util::sync::CancellationToken::new();
    let clock = tokio::spawn(clock::serve_health(listener, stop.clone()));
    let listed = every_listed_service_is_described(&url).await;
    assert!(listed.iter().any(|n| n == "grpc.health.v1.Health"), "{listed:?}");
    stop.cancel();
    clock.await.expect("the clock's task").expect("served");
    env.shutdown().await;
}
