//! Which event store a process opens, from its environment: a Redis Cluster, one Redis,
//! or the in-memory store (for `make run` without Redis). Every service binary and
//! `colosseum run` open it here, so they all read the same variables alike.

use crate::instrumented::Instrumented;
use crate::{EventStore, HostStore, MemoryStore, RedisStore, StoreError};
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The seed node URLs of `REDIS_CLUSTER_URLS`: comma-separated, blanks ignored.
fn cluster_seeds(urls: &str) -> Vec<String> {
    urls.split(',').map(str::trim).filter(|u| !u.is_empty()).map(str::to_string).collect()
}

/// Opens the event store: on a Redis Cluster when `REDIS_CLUSTER_URLS` is set (seed nodes,
/// comma-separated: `redis://10.0.0.1:7000,redis://10.0.0.2:7000`; it wins over
/// `REDIS_URL`), else on the single Redis at `REDIS_URL`, else the in-memory store (for
/// `make run` without Redis; never in production: it dies with the process).
///
/// # Errors
/// `REDIS_CLUSTER_URLS` lists no node, or Redis does not answer.
pub async fn open_from_env() -> Result<Arc<dyn EventStore>, StoreError> {
    Ok(open_host_store_from_env().await?)
}

/// The store [`open_from_env`] opens, with what only the rules engine may use (creating
/// matches, reading their seed): for the rules engine and processes that run it.
///
/// # Errors
/// As [`open_from_env`].
pub async fn open_host_store_from_env() -> Result<Arc<dyn HostStore>, StoreError> {
    // Timed and counted by operation for the dashboards, pinged for `colosseum_store_up`
    // for as long as the process runs.
    Ok(Instrumented::wrap(open_plain().await?, CancellationToken::new()))
}

async fn open_plain() -> Result<Arc<dyn HostStore>, StoreError> {
    if let Some(urls) = var("REDIS_CLUSTER_URLS") {
        let seeds = cluster_seeds(&urls);
        let store = RedisStore::connect_cluster(&seeds).await?;
        tracing::info!(seeds = %seeds.join(","), "event store: Redis Streams on a Redis Cluster");
        return Ok(Arc::new(store));
    }
    match var("REDIS_URL") {
        Some(url) => {
            let store = RedisStore::connect(&url).await?;
            tracing::info!(redis = %url, "event store: Redis Streams");
            Ok(Arc::new(store))
        }
        None => {
            tracing::warn!(
                "REDIS_URL is not set: using the in-memory event store (matches end with the process)"
            );
            Ok(Arc::new(MemoryStore::new()))
        }
    }
}

/// Which event store [`open_from_env`] opens, in words, for a banner.
pub fn description_from_env() -> String {
    if let Some(urls) = var("REDIS_CLUSTER_URLS") {
        return format!("Redis Cluster (seed nodes {})", cluster_seeds(&urls).join(", "));
    }
    match var("REDIS_URL") {
        Some(url) => format!("Redis at {url}"),
        None => "embedded, in memory (set REDIS_URL or REDIS_CLUSTER_URLS for Redis)".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cluster_seeds_are_split_on_commas() {
        assert_eq!(
            cluster_seeds(" redis://127.0.0.1:7000, redis://127.0.0.1:7001,,"),
            ["redis://127.0.0.1:7000", "redis://127.0.0.1:7001"]
        );
        assert!(cluster_seeds(" , ").is_empty());
    }
}
