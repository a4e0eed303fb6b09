//! `rules-engine`: serves the families in `FAMILIES` (default all) on `ENGINE_ADDR`, over
//! Redis at `REDIS_URL` (or the in-memory store when unset). Callers must send the shared
//! secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

use games::Family;
use rules_engine::engine::Engine;
use std::sync::Arc;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    service_kit::telemetry::init("rules-engine");
    let token = service_kit::internal::from_env()?;
    let addr = service_kit::config::addr("ENGINE_ADDR", "127.0.0.1:50061")?;
    let all = Family::ALL.map(Family::as_str).join(",");
    let families = service_kit::config::string("FAMILIES", &all)
        .split(',')
        .map(|s| {
            Family::parse(s.trim()).ok_or_else(|| {
                format!("FAMILIES: {:?} is not a family (the families are {all})", s.trim())
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let idle_ms = service_kit::config::number("ENGINE_IDLE_MS", 120_000)?;
    let store = events::open_host_store_from_env().await?;
    let shutdown = service_kit::serve::shutdown_on_signal();
    let ready = service_kit::metrics::ready_on(store.clone(), |s| async move { s.ping().await });
    service_kit::metrics::serve_from_env(ready, shutdown.clone()).await;
    let engine = Arc::new(Engine::new(store, families.clone(), idle_ms));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let names = families.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(",");
    tracing::info!(%addr, families = %names, "rules engine listening");
    rules_engine::serve(listener, engine, token, shutdown).await?;
    Ok(())
}
