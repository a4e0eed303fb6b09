//! `clock`: fires due deadlines through the rules engines (`ENGINE_URL`, or per family
//! `ENGINE_GOOFSPIEL_URL`...), reading them from Redis at `REDIS_URL`; health on `CLOCK_ADDR`.
//! Engine calls carry the secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

/// The clock binary.
const SERVICE: service_kit::binary::Service = service_kit::binary::Service {
    name: "clock",
    addr_var: "CLOCK_ADDR",
    default_addr: "127.0.0.1:50071",
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (token, addr) = SERVICE.begin()?;
    let urls = engines::engine_urls()?;
    let store = store::open_from_env().await?;
    let up = SERVICE.up(addr, store.clone(), |s| async move { s.ping().await }).await?;
    let clock = clock::Clock::new(store, &urls, token.as_ref())?;
    tokio::spawn(clock.run(up.shutdown.clone()));
    clock::serve_health(up.listener, up.shutdown).await?;
    Ok(())
}
