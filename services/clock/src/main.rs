//! `clock`: fires due deadlines through the rules engines (`ENGINE_URL`, or per family
//! `ENGINE_GOOFSPIEL_URL`...), reading them from Redis at `REDIS_URL`; health on `CLOCK_ADDR`.
//! Engine calls carry the secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

use service_kit::binary::Service;
use std::process::ExitCode;

const SERVICE: Service =
    Service { name: "clock", addr_var: "CLOCK_ADDR", default_addr: "127.0.0.1:50071" };

#[tokio::main]
async fn main() -> ExitCode {
    SERVICE
        .run(store::open_from_env(), |up, store| async move {
            let clock = clock::Clock::new(store, engines::Engines::from_env(up.token.as_ref())?);
            tokio::spawn(clock.run(up.shutdown.clone()));
            Ok(clock::serve_health(up.listener, up.shutdown).await?)
        })
        .await
}
