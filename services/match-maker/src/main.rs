//! `match-maker`: accounts, queues, ratings and leaderboards on `MATCHMAKER_ADDR`, over
//! the store the environment names (`REDIS_URL`...), creating matches through the rules
//! engines (`ENGINE_URL` or `ENGINE_<FAMILY>_URL`). Callers (the gateway) send the secret
//! of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

/// The match-maker binary.
const SERVICE: service_kit::binary::Service = service_kit::binary::Service {
    name: "match-maker",
    addr_var: "MATCHMAKER_ADDR",
    default_addr: "127.0.0.1:50081",
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (token, addr) = SERVICE.begin()?;
    let urls = engines::engine_urls()?;
    let store = store::open_full_store_from_env().await?;
    let up = SERVICE.up(addr, store.clone(), |s| async move { s.ping().await }).await?;
    let engines = engines::Engines::new(&urls, token.as_ref())?;
    match_maker::serve(up.listener, store, engines, token, up.shutdown).await?;
    Ok(())
}
