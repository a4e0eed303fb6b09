//! `tournaments`: the platform API and tenant administration on `TOURNAMENTS_ADDR`, over
//! the store the environment names (`REDIS_URL`...), creating matches through the rules
//! engines (`ENGINE_URL` or `ENGINE_<FAMILY>_URL`). Callers (the gateway, operators) send
//! the secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    service_kit::telemetry::init("tournaments");
    let token = service_kit::internal::from_env()?;
    let addr = service_kit::config::addr("TOURNAMENTS_ADDR", "127.0.0.1:50082")?;
    let urls = engines::engine_urls()?;
    let store = events::open_full_store_from_env().await?;
    let shutdown = service_kit::serve::shutdown_on_signal();
    let ready = service_kit::metrics::ready_on(store.clone(), |s| async move { s.ping().await });
    service_kit::metrics::serve_from_env(ready, shutdown.clone()).await;
    let engines = engines::Engines::new(&urls, token.as_ref())?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, "tournaments listening");
    tournaments::serve(listener, store, engines, token, shutdown).await?;
    Ok(())
}
