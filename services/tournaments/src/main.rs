//! `tournaments`: the platform API and tenant administration on `TOURNAMENTS_ADDR`, over
//! the store the environment names (`REDIS_URL`...), creating matches through the rules
//! engines (`ENGINE_URL` or `ENGINE_<FAMILY>_URL`). Callers (the gateway, operators) send
//! the secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

/// The tournaments binary.
const SERVICE: service_kit::binary::Service = service_kit::binary::Service {
    name: "tournaments",
    addr_var: "TOURNAMENTS_ADDR",
    default_addr: "127.0.0.1:50082",
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (token, addr) = SERVICE.begin()?;
    let urls = engines::engine_urls()?;
    let store = store::open_full_store_from_env().await?;
    let up = SERVICE.up(addr, store.clone(), |s| async move { s.ping().await }).await?;
    let engines = engines::Engines::new(&urls, token.as_ref())?;
    tournaments::serve(up.listener, store, engines, token, up.shutdown).await?;
    Ok(())
}
