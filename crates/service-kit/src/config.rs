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

/// Opens the event store: Redis Streams when `REDIS_URL` is set, else the in-memory store
/// (for `make run` without Redis; never in production: it dies with the process).
///
/// # Errors
/// Redis does not answer at `REDIS_URL`.
pub async fn open_store() -> Result<std::sync::Arc<dyn events::EventStore>, events::StoreError> {
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
