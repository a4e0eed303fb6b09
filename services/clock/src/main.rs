//! `clock`: fires due deadlines through the rules engines (`ENGINE_URL`, or per family
//! `ENGINE_GOOFSPIEL_URL`...), reading them from Redis at `REDIS_URL`; health on `CLOCK_ADDR`.
//! Engine calls carry the secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    service_kit::telemetry::init("clock");
    let token = service_kit::internal::from_env()?;
    let addr = service_kit::config::addr("CLOCK_ADDR", "127.0.0.1:50071")?;
    let urls = engines::engine_urls()?;
    let store = events::open_from_env().await?;
    let shutdown = service_kit::serve::shutdown_on_signal();
    let ready = service_kit::metrics::ready_on(store.clone(), |s| async move { s.ping().await });
    service_kit::metrics::serve_from_env(ready, shutdown.clone()).await;
    let clock = clock::Clock::new(store, &urls, token.as_ref())?;
    tokio::spawn(clock.run(shutdown.clone()));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, "clock running");
    clock::serve_health(listener, shutdown).await?;
    Ok(())
}
