//! `gateway`: the public API on `GATEWAY_ADDR`, forwarding to the rules engines at
//! `ENGINE_URL` (or per family `ENGINE_GOOFSPIEL_URL`, `ENGINE_PLACEMENT_URL`,
//! `ENGINE_DUEL_URL`; each a comma-separated list of a family's replicas), over Redis at
//! `REDIS_URL` (in-memory when unset), and TournamentService to the tournament service at `TOURNAMENTS_URL`, and LobbyService to the match-maker at
//! `MATCHMAKER_URL` (its replicas, comma-separated); internal calls carry the shared
//! secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`). Behind a
//! load balancer, `TRUSTED_PROXIES` (CIDRs, comma-separated) lists the proxies whose
//! `x-forwarded-for` names the client. Browsers: the web client's files from `WEB_ROOT`
//! (web/dist) and gRPC-Web at the same address; `WEB_ORIGINS` lists other origins whose
//! pages may call cross-origin.

/// The gateway binary.
const SERVICE: service_kit::binary::Service = service_kit::binary::Service {
    name: "gateway",
    addr_var: "GATEWAY_ADDR",
    default_addr: "127.0.0.1:50051",
};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (token, addr) = SERVICE.begin()?;
    let proxies = gateway::forwarded::TrustedProxies::from_env()?;
    let urls = engines::engine_urls()?;
    let store = store::open_gateway_store_from_env().await?;
    let up = SERVICE.up(addr, store.clone(), |s| async move { s.ping().await }).await?;
    let engines = engines::Engines::new(&urls, token.as_ref())?;
    let lobby = match service_kit::config::optional("MATCHMAKER_URL") {
        Some(v) => {
            let urls = service_kit::config::url_list("MATCHMAKER_URL", &v)?;
            Some(gateway::lobby::client(&urls, token.as_ref())?)
        }
        None => {
            tracing::warn!("MATCHMAKER_URL is not set: LobbyService answers UNAVAILABLE");
            None
        }
    };
    let tournaments = match service_kit::config::optional("TOURNAMENTS_URL") {
        Some(v) => {
            let urls = service_kit::config::url_list("TOURNAMENTS_URL", &v)?;
            Some(gateway::platform::client(&urls, token.as_ref())?)
        }
        None => {
            tracing::warn!("TOURNAMENTS_URL is not set: TournamentService answers UNAVAILABLE");
            None
        }
    };
    let public = service_kit::config::string("GATEWAY_PUBLIC_URL", &format!("http://{addr}"));
    let web = gateway::web::Web::from_env()?;
    match web.root() {
        Some(dir) => tracing::info!(dir = %dir.display(), "serving the web client"),
        None => tracing::info!("WEB_ROOT is not set and no web/dist was found: the API alone"),
    }
    let backends = gateway::Backends { lobby, tournaments, web };
    gateway::serve(up.listener, store, engines, backends, proxies, public, up.shutdown).await?;
    Ok(())
}
