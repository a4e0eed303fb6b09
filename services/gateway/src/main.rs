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

use service_kit::binary::Service;
use service_kit::config::{optional, url_list};
use std::process::ExitCode;

const SERVICE: Service =
    Service { name: "gateway", addr_var: "GATEWAY_ADDR", default_addr: "127.0.0.1:50051" };

#[tokio::main]
async fn main() -> ExitCode {
    SERVICE
        .run(store::open_gateway_store_from_env(), |up, store| async move {
            let token = up.token.as_ref();
            let proxies = gateway::forwarded::TrustedProxies::from_env()?;
            let engines = engines::Engines::from_env(token)?;
            let lobby = match optional("MATCHMAKER_URL") {
                Some(v) => Some(gateway::lobby::client(&url_list("MATCHMAKER_URL", &v)?, token)?),
                None => {
                    tracing::warn!("MATCHMAKER_URL is not set: LobbyService answers UNAVAILABLE");
                    None
                }
            };
            let tournaments = match optional("TOURNAMENTS_URL") {
                Some(v) => {
                    Some(gateway::platform::client(&url_list("TOURNAMENTS_URL", &v)?, token)?)
                }
                None => {
                    tracing::warn!(
                        "TOURNAMENTS_URL is not set: TournamentService answers UNAVAILABLE"
                    );
                    None
                }
            };
            let own = format!("http://{}", up.addr);
            let public = service_kit::config::string("GATEWAY_PUBLIC_URL", &own);
            let web = gateway::web::Web::from_env()?;
            match web.root() {
                Some(dir) => tracing::info!(dir = %dir.display(), "serving the web client"),
                None => {
                    tracing::info!("WEB_ROOT is not set and no web/dist was found: the API alone")
                }
            }
            let archive = store::archive::open_from_env().await?;
            let backends = gateway::Backends { lobby, tournaments, web, archive };
            let (listener, shutdown) = (up.listener, up.shutdown);
            Ok(gateway::serve(listener, store, engines, backends, proxies, public, shutdown)
                .await?)
        })
        .await
}
