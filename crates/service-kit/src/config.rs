//! The one config loader: every setting comes from an environment variable with a
//! default, parsed once at startup; a bad value stops the service with a clear message.

use std::fmt;
use std::net::SocketAddr;

/// A setting that could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The variable.
    pub var: &'static str,
    /// What was wrong.
    pub problem: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.var, self.problem)
    }
}

impl std::error::Error for ConfigError {}

/// Reads `var`, or `default` when unset or empty.
pub fn string(var: &'static str, default: &str) -> String {
    std::env::var(var).ok().filter(|v| !v.is_empty()).unwrap_or_else(|| default.to_string())
}

/// Reads an optional `var`.
pub fn optional(var: &'static str) -> Option<String> {
    std::env::var(var).ok().filter(|v| !v.is_empty())
}

/// Reads a socket address.
///
/// # Errors
/// Not an address.
pub fn addr(var: &'static str, default: &str) -> Result<SocketAddr, ConfigError> {
    let v = string(var, default);
    v.parse().map_err(|e| ConfigError { var, problem: format!("{v:?} is not an address: {e}") })
}

/// Reads a number.
///
/// # Errors
/// Not a number.
pub fn number(var: &'static str, default: u64) -> Result<u64, ConfigError> {
    match optional(var) {
        None => Ok(default),
        Some(v) => v
            .parse()
            .map_err(|e| ConfigError { var, problem: format!("{v:?} is not a number: {e}") }),
    }
}

/// Opens the event store: on a Redis Cluster when `REDIS_CLUSTER_URLS` is set (seed nodes,
/// comma-separated: `redis://10.0.0.1:7000,redis://10.0.0.2:7000`; it wins over
/// `REDIS_URL`), else on the single Redis at `REDIS_URL`, else the in-memory store (for
/// `make run` without Redis; never in production: it dies with the process).
///
/// # Errors
/// `REDIS_CLUSTER_URLS` lists no node, or Redis does not answer.
pub async fn open_store() -> Result<std::sync::Arc<dyn events::EventStore>, events::StoreError> {
    if let Some(urls) = optional("REDIS_CLUSTER_URLS") {
        let seeds = cluster_seeds(&urls);
        let store = events::RedisStore::connect_cluster(&seeds).await?;
        tracing::info!(seeds = %seeds.join(","), "event store: Redis Streams on a Redis Cluster");
        return Ok(std::sync::Arc::new(store));
    }
    match optional("REDIS_URL") {
        Some(url) => {
            let store = events::RedisStore::connect(&url).await?;
            tracing::info!(redis = %url, "event store: Redis Streams");
            Ok(std::sync::Arc::new(store))
        }
        None => {
            tracing::warn!(
                "REDIS_URL is not set: using the in-memory event store (matches end with the process)"
            );
            Ok(std::sync::Arc::new(events::MemoryStore::new()))
        }
    }
}

/// Which event store [`open_store`] opens, in words, for a banner.
pub fn store_description() -> String {
    if let Some(urls) = optional("REDIS_CLUSTER_URLS") {
        return format!("Redis Cluster (seed nodes {})", cluster_seeds(&urls).join(", "));
    }
    match optional("REDIS_URL") {
        Some(url) => format!("Redis at {url}"),
        None => "embedded, in memory (set REDIS_URL or REDIS_CLUSTER_URLS for Redis)".into(),
    }
}

/// The seed node URLs of `REDIS_CLUSTER_URLS`: comma-separated, blanks ignored.
fn cluster_seeds(urls: &str) -> Vec<String> {
    urls.split(',').map(str::trim).filter(|u| !u.is_empty()).map(str::to_string).collect()
}

/// The rules engine of each family: `ENGINE_<FAMILY>_URL`, else `ENGINE_URL`, else the
/// local default. The gateway and the clock both call the engines.
pub fn engine_urls() -> Vec<(String, String)> {
    let default = string("ENGINE_URL", "http://127.0.0.1:50061");
    [
        ("goofspiel", "ENGINE_GOOFSPIEL_URL"),
        ("placement", "ENGINE_PLACEMENT_URL"),
        ("duel", "ENGINE_DUEL_URL"),
    ]
    .iter()
    .map(|(family, var)| (family.to_string(), string(var, &default)))
    .collect()
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
