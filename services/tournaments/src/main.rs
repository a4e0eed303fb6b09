//! `tournaments`: the platform API and tenant administration on `TOURNAMENTS_ADDR`, over
//! the store the environment names (`REDIS_URL`...), creating matches through the rules
//! engines (`ENGINE_URL` or `ENGINE_<FAMILY>_URL`). Callers (the gateway, operators) send
//! the secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

use service_kit::binary::Service;
use std::process::ExitCode;

const SERVICE: Service =
    Service { name: "tournaments", addr_var: "TOURNAMENTS_ADDR", default_addr: "127.0.0.1:50082" };

#[tokio::main]
async fn main() -> ExitCode {
    SERVICE.run(store::open_full_store_from_env(), tournaments::main).await
}
