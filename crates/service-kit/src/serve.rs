//! Serving a gRPC service the house way: grpc.health.v1 and server reflection (v1 and
//! v1alpha, which grpcurl needs) beside the service, and a graceful stop on a token.

use tokio_util::sync::CancellationToken;
use tonic_health::server::HealthReporter;

/// The health reporter and service; the caller marks its services serving once ready.
pub fn health() -> (
    HealthReporter,
    tonic_health::pb::health_server::HealthServer<impl tonic_health::pb::health_server::Health>,
) {
    tonic_health::server::health_reporter()
}

/// Reflection v1 over every Colosseum proto.
///
/// # Panics
/// If the compiled descriptor set is corrupt (a build bug).
pub fn reflection_v1() -> tonic_reflection::server::v1::ServerReflectionServer<
    impl tonic_reflection::server::v1::ServerReflection,
> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(api::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1()
        .expect("the compiled descriptor set is valid")
}

/// Reflection v1alpha (grpcurl still asks for it).
///
/// # Panics
/// If the compiled descriptor set is corrupt (a build bug).
pub fn reflection_v1alpha() -> tonic_reflection::server::v1alpha::ServerReflectionServer<
    impl tonic_reflection::server::v1alpha::ServerReflection,
> {
    tonic_reflection::server::Builder::configure()
        .register_encoded_file_descriptor_set(api::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .build_v1alpha()
        .expect("the compiled descriptor set is valid")
}

/// A token cancelled by ctrl-c or SIGTERM: the binaries pass it, tests pass their own.
pub fn shutdown_on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(_) => {
                        let _ = ctrl_c.await;
                        t.cancel();
                        return;
                    }
                };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutting down");
        t.cancel();
    });
    token
}

/// How many requests one HTTP/2 connection may have open at once. hyper's default is 200,
/// but a watch stream stays open for a whole match: a platform running a few hundred
/// matches over one connection would see its next calls queue behind them (measured:
/// stalls of 50-100 ms under `colosseum load` at 1,000 matches over 8 connections).
pub const MAX_STREAMS_PER_CONNECTION: u32 = 10_000;

/// A server builder with the house settings (see [`MAX_STREAMS_PER_CONNECTION`]); add the
/// services and serve [`incoming`].
pub fn server() -> tonic::transport::Server {
    tonic::transport::Server::builder().max_concurrent_streams(Some(MAX_STREAMS_PER_CONNECTION))
}

/// The connections of `listener` as tonic takes them, with TCP_NODELAY set: without it
/// Nagle's algorithm and delayed ACKs hold small gRPC frames back for tens of ms.
pub fn incoming(listener: tokio::net::TcpListener) -> tonic::transport::server::TcpIncoming {
    tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true))
}
