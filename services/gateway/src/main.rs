//! `gateway`: the public API on `GATEWAY_ADDR`, forwarding to the rules engines at
//! `ENGINE_URL` (or per family `ENGINE_GOOFSPIEL_URL`, `ENGINE_PLACEMENT_URL`,
//! `ENGINE_DUEL_URL`), over Redis at `REDIS_URL` (in-memory when unset).

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    service_kit::telemetry::init("gateway");
    let addr = service_kit::config::addr("GATEWAY_ADDR", "127.0.0.1:50051")?;
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
    let engines = gateway::engines::Engines::new(&urls)?;
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let public = service_kit::config::string("GATEWAY_PUBLIC_URL", &format!("http://{addr}"));
    tracing::info!(%addr, "gateway listening");
    gateway::serve(listener, store, engines, public, service_kit::serve::shutdown_on_signal())
        .await?;
    Ok(())
}
