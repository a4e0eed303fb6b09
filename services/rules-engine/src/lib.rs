//! The rules-engine service: the one host of any game (`games::host`, in protobuf terms),
//! deployed once per game family (goofspiel, placement, duel). A match's Redis stream is
//! its source of truth: any replica can serve any match, rebuilding it from the stream;
//! hot matches stay cached, and idle ones (and the least recently used past a cap) are
//! evicted.
//!
//! # Layout
//! - [`engine`]: the cache, rebuilds, one step at a time per match, appends, deadlines.
//! - [`server`]: the gRPC service.
//! - [`error`]: what can go wrong, and the one match from it to a status.
//! - [`metrics`]: what the engine counts.

pub mod engine;
pub mod error;
pub mod metrics;
pub mod server;

use engine::Engine;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// Serves `engine` on `listener` until `shutdown` is cancelled, through the house harness
/// (`service_kit::serve::serve`: health, reflection, the edge layer), evicting idle
/// matches in the background (the cap on matches held is kept as they come in). Every
/// engine call must carry `token` (see `service_kit::internal`); `None` checks nothing
/// (`INTERNAL_AUTH=off`).
///
/// # Errors
/// The server failed.
pub async fn serve(
    listener: TcpListener,
    engine: Arc<Engine>,
    token: Option<service_kit::internal::InternalToken>,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    service_kit::metrics::describe(metrics::ALL);
    let evictor = {
        let (engine, shutdown) = (engine.clone(), shutdown.clone());
        tokio::spawn(async move {
            // Every 10 s, or twice per idle time when that is shorter (tests, benchmarks).
            let every_ms = (engine.idle_ms() / 2).clamp(100, 10_000);
            let mut tick = tokio::time::interval(Duration::from_millis(every_ms));
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
    let services = service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET)
        .with(server::RulesEngineApi::new(engine, shutdown.clone()).into_service());
    // Inside the edge: no handler runs for a caller without the shared secret.
    let auth = service_kit::internal::InternalAuthLayer::new(token);
    let result = service_kit::serve::serve(auth, services, listener, shutdown).await;
    evictor.abort();
    result
}
