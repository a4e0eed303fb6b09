//! The rules-engine service: the one host of any game (`games::host`, in protobuf terms),
//! deployed once per game family (goofspiel, placement, duel). A match's Redis stream is
//! its source of truth: any replica can serve any match, rebuilding it from the stream;
//! hot matches stay cached and idle ones are evicted.
//!
//! # Layout
//! - [`engine`]: the cache, rebuilds, one step at a time per match, appends, deadlines.
//! - [`server`]: the gRPC service.

pub mod engine;
pub mod server;

use engine::Engine;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The service the engine serves (beside health and reflection): all reflection lists.
const SERVED: &[&str] = &[<api::internal::rules_engine_service_server::RulesEngineServiceServer<
    server::RulesEngineApi,
> as tonic::server::NamedService>::NAME];

/// Serves `engine` on `listener` until `shutdown` is cancelled, with health and
/// reflection, evicting idle matches in the background. Every engine call must carry
/// `token` (see `service_kit::internal`); `None` checks nothing (`INTERNAL_AUTH=off`).
///
/// # Errors
/// The server failed.
pub async fn serve(
    listener: TcpListener,
    engine: Arc<Engine>,
    token: Option<service_kit::internal::InternalToken>,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    let (health, health_service) = service_kit::serve::health();
    health.set_serving::<api::internal::rules_engine_service_server::RulesEngineServiceServer<server::RulesEngineApi>>().await;
    let evictor = {
        let (engine, shutdown) = (engine.clone(), shutdown.clone());
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_secs(10));
            loop {
                tokio::select! {
                    _ = shutdown.cancelled() => break,
                    _ = tick.tick() => {
                        let n = engine.evict_idle().await;
                        if n > 0 {
                            tracing::debug!(evicted = n, hot = engine.hot_matches(), "idle matches evicted");
                        }
                    }
                }
            }
        })
    };
    let incoming = service_kit::serve::incoming(listener);
    let result = service_kit::serve::server()
        // Outermost: no handler runs for a caller without the shared secret.
        .layer(service_kit::internal::InternalAuthLayer::new(token))
        .add_service(health_service)
        .add_service(service_kit::serve::reflection_v1(SERVED))
        .add_service(service_kit::serve::reflection_v1alpha(SERVED))
        .add_service(server::RulesEngineApi::new(engine).into_service())
        .serve_with_incoming_shutdown(incoming, shutdown.cancelled_owned())
        .await;
    evictor.abort();
    result
}
