//! `colosseum run`: the whole cluster in one process: a rules engine per family, the
//! match-maker, the clock and the gateway on `--addr` (default 127.0.0.1:50051), over Redis when
//! `REDIS_URL` (or `REDIS_SENTINEL_URLS`/`REDIS_SENTINEL_MASTER`, or
//! `REDIS_CLUSTER_URLS`) is set and the embedded in-memory store otherwise.

use clap::Args;
use std::process::ExitCode;

/// Options of `colosseum run`.
#[derive(Args)]
pub struct RunArgs {
    /// Where the gateway listens.
    #[arg(long, default_value = "127.0.0.1:50051")]
    addr: std::net::SocketAddr,
}

/// Runs the cluster until ctrl-c.
pub fn run(args: RunArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        service_kit::telemetry::init("colosseum");
        let store = store::open_full_store_from_env().await.map_err(|e| format!("event store: {e}"))?;
        let shutdown = service_kit::serve::shutdown_on_signal();
        // METRICS_ADDR (e.g. 127.0.0.1:9090) serves /metrics, /healthz and /readyz.
        let ready = service_kit::metrics::ready_on(store.clone(), |s| async move { s.ping().await });
        service_kit::metrics::serve_from_env(ready, shutdown.clone()).await;
        // Finished matches go to the archive: PostgreSQL at ARCHIVE_URL, else (the embedded
        // store) one in memory beside it; a Redis without a database keeps them in Redis.
        let archive: Option<std::sync::Arc<dyn store::ArchiveStore>> =
            match store::archive::open_from_env().await.map_err(|e| format!("archive: {e}"))? {
                Some(a) => Some(a),
                None if store::open::in_memory_from_env() => {
                    Some(std::sync::Arc::new(store::archive::memory::MemoryArchive::new()))
                }
                None => None,
            };
        let default_s = match_maker::archiver::DEFAULT_RELEASE_AFTER_MS / 1000;
        let release_after_ms = service_kit::config::number("ARCHIVE_RELEASE_AFTER_S", default_s)
            .map_err(|e| e.to_string())?
            .saturating_mul(1000);
        let archive = archive.map(|archive| in_process::Archive { archive, release_after_ms });
        let cache = in_process::EngineCache::default();
        let cluster = in_process::Cluster::start_archived(store, args.addr, cache, archive)
            .await
            .map_err(|e| format!("cannot start: {e}"))?;
        let url = cluster.gateway_url();
        println!("Colosseum is running.");
        match cluster.web_root() {
            Some(_) => println!("  Play in a browser: {url}/"),
            None => println!("  (no web client here: build it with `make web`, or set WEB_ROOT to web/dist)"),
        }
        println!("  gateway (gRPC and gRPC-Web, public API colosseum.v1): {url}");
        for f in games::Family::ALL {
            println!("  rules engine {f:<9}: {}", cluster.engine_url(f).unwrap_or_default());
        }
        println!("  match-maker           : {}", cluster.match_maker_urls().join(", "));
        let tournaments = cluster.tournaments_urls().join(", ");
        println!("  tournaments           : {tournaments}");
        // The tenant admin's address and secret, in a file named after this gateway's
        // address so that clusters on other addresses keep theirs; removed at a clean stop.
        let admin = crate::tenant::Admin {
            url: cluster.tournaments_urls().first().cloned().unwrap_or_default(),
            token: cluster.internal_token().expose().to_string(),
        };
        let mut admin_file = None;
        if let Some(dir) = crate::session::config_dir() {
            match crate::tenant::save_admin(&dir, &url, &admin) {
                Ok(path) => {
                    println!("  tenant admin          : colosseum tenant create --name NAME{}", tenant_gateway_flag(&url));
                    println!("                          (secret in {}, removed at exit)", path.display());
                    admin_file = Some(dir);
                }
                Err(e) => eprintln!("  (tenant admin file not written: {e})"),
            }
        }
        println!("  event store: {}", store::description_from_env());
        if store::open::in_memory_from_env() {
            for line in lost_at_exit() {
                println!("{line}");
            }
        }
        println!();
        println!("Play in another terminal:  colosseum play --game gops --vs bot");
        println!("Two players:                colosseum play --game gops --vs open   (then --join MATCH_ID)");
        println!("Rated play:                 colosseum register, then colosseum play --game gops --queue");
        println!("Stop with ctrl-c.");
        shutdown.cancelled().await;
        cluster.shutdown().await;
        if let Some(dir) = admin_file {
            crate::tenant::remove_admin(&dir, &url, &admin);
        }
        Ok(ExitCode::SUCCESS)
    })
}

/// What `colosseum tenant` needs to be told to find the admin file of the gateway at `url`:
/// nothing for the default address, `--gateway` for another.
fn tenant_gateway_flag(url: &str) -> String {
    let key = crate::tenant::gateway_key;
    if key(url) == key(crate::session::DEFAULT_GATEWAY) {
        String::new()
    } else {
        format!(" --gateway {}", url.trim_start_matches("http://"))
    }
}

/// The banner's lines under an in-memory store: everything it loses at exit
/// ([`store::open::IN_MEMORY_LOSES`]), wrapped within 100 columns.
fn lost_at_exit() -> Vec<String> {
    const LEAD: &str = "  all lost at exit:";
    let mut lines = vec![LEAD.to_string()];
    for word in store::open::IN_MEMORY_LOSES.split_whitespace() {
        let last = lines.last_mut().expect("a line");
        if last.len() + 1 + word.len() > 100 {
            lines.push(format!("{:width$}{word}", "", width = LEAD.len() + 1));
        } else {
            last.push(' ');
            last.push_str(word);
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_in_memory_banner_says_all_that_is_lost_within_100_columns() {
        let lines = super::lost_at_exit();
        assert!(lines[0].starts_with("  all lost at exit: matches and their records"));
        for l in &lines {
            assert!(l.chars().count() <= 100, "{l:?}");
        }
        let said = lines.iter().map(|l| l.trim()).collect::<Vec<_>>().join(" ");
        assert!(said.ends_with(store::open::IN_MEMORY_LOSES), "{said}");
        for lost in ["accounts and sessions", "leaderboards", "tournaments", "API keys"] {
            assert!(said.contains(lost), "{said}");
        }
    }

    #[test]
    fn tenant_is_told_the_gateway_unless_it_is_the_default() {
        assert_eq!(super::tenant_gateway_flag("http://127.0.0.1:50051"), "");
        assert_eq!(
            super::tenant_gateway_flag("http://127.0.0.1:50061"),
            " --gateway 127.0.0.1:50061"
        );
    }
}
