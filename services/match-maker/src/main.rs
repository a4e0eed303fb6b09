//! `match-maker`: accounts, queues, ratings and leaderboards on `MATCHMAKER_ADDR`, over
//! the store the environment names (`REDIS_URL`...), creating matches through the rules
//! engines (`ENGINE_URL` or `ENGINE_<FAMILY>_URL`). Callers (the gateway) send the secret
//! of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).

use service_kit::binary::Service;
use std::process::ExitCode;

const SERVICE: Service =
    Service { name: "match-maker", addr_var: "MATCHMAKER_ADDR", default_addr: "127.0.0.1:50081" };

#[tokio::main]
async fn main() -> ExitCode {
    SERVICE.run(store::open_full_store_from_env(), match_maker::main).await
}
