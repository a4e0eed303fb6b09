//! `rules-engine`: serves the families in `FAMILIES` (default all) on `ENGINE_ADDR`, over
//! Redis at `REDIS_URL` (or the in-memory store when unset). Callers must send the shared
//! secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

use rules_engine::engine::Engine;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    service_kit::telemetry::init("rules-engine");
    let token = service_kit::internal::from_env()?;
    let addr = service_kit::config::addr("ENGINE_ADDR", "127.0.0.1:50061")?;
    let families: Vec<String> = service_kit::config::string("FAMILIES", "goofspiel,placement,duel")
        .split(',')
        .map(|s| s.trim().to_string())
        .collect();
    let idle_ms = service_kit::config::number("ENGINE_IDLE_MS", 120_000)?;
    let store = events::open_from_env().await?;
    let shutdown = service_kit::serve::shutdown_on_signal();
    let ready = service_kit::metrics::ready_on(store.clone(), |s| async move { s.ping().await });
    service_kit::metrics::serve_from_env(ready, shutdown.clone()).await;
    let engine = Arc::new(Engine::new(store, families.clone(), idle_ms));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, families = %families.join(","), "rules engine listening");
    rules_engine::serve(listener, engine, token, shutdown).await?;
    Ok(())
}
