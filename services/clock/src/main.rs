//! `clock`: fires due deadlines through the rules engines (`ENGINE_URL`, or per family
//! `ENGINE_GOOFSPIEL_URL`...), reading them from Redis at `REDIS_URL`; health on `CLOCK_ADDR`.

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    service_kit::telemetry::init("clock");
    let addr = service_kit::config::addr("CLOCK_ADDR", "127.0.0.1:50071")?;
    let default = service_kit::config::string("ENGINE_URL", "http://127.0.0.1:50061");
    let urls: Vec<(String, String)> = [
        ("goofspiel", "ENGINE_GOOFSPIEL_URL"),
        ("placement", "ENGINE_PLACEMENT_URL"),
        ("duel", "ENGINE_DUEL_URL"),
    ]
    .iter()
    .map(|(f, var)| (f.to_string(), service_kit::config::string(var, &default)))
    .collect();
    let store = service_kit::config::open_store().await?;
    let shutdown = service_kit::serve::shutdown_on_signal();
    let ready_store = store.clone();
    service_kit::metrics::serve_from_env(
        std::sync::Arc::new(move || {
            let s = ready_store.clone();
            Box::pin(async move { s.ping().await.map_err(|e| e.to_string()) })
        }),
        shutdown.clone(),
    )
    .await;
    let clock = clock::Clock::new(store, &urls)?;
    tokio::spawn(clock.run(shutdown.clone()));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    tracing::info!(%addr, "clock running");
    clock::serve_health(listener, shutdown).await?;
    Ok(())
}
