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

/// One family's rules engines: the family and the URL of each replica (or Service).
pub type EngineUrls = (String, Vec<String>);

/// The rules engines of each family: `ENGINE_<FAMILY>_URL`, else `ENGINE_URL`, else the
/// local default. Each is a comma-separated list (the addresses of a family's replicas,
/// as a set of Kubernetes Services or a headless Service's pods give them). The gateway
/// and the clock both call the engines.
///
/// # Errors
/// A variable that lists no URL, or a URL that does not parse (named, truncated).
pub fn engine_urls() -> Result<Vec<EngineUrls>, ConfigError> {
    let default = string("ENGINE_URL", "http://127.0.0.1:50061");
    games::Family::ALL
        .iter()
        .map(|&family| {
            let var = family.env_var();
            // A family's own variable, when set, is the one a bad value came from.
            let (var, value) = match optional(var) {
                Some(v) => (var, v),
                None => ("ENGINE_URL", default.clone()),
            };
            Ok((family.as_str().to_string(), url_list(var, &value)?))
        })
        .collect()
}

/// The URLs of a comma-separated list: blanks ignored, each checked with [`endpoint`].
///
/// # Errors
/// The list is empty, or a URL does not parse.
pub fn url_list(var: &'static str, value: &str) -> Result<Vec<String>, ConfigError> {
    let urls: Vec<String> = cluster_seeds(value);
    if urls.is_empty() {
        return Err(ConfigError { var, problem: "lists no URL".into() });
    }
    for url in &urls {
        endpoint(url).map_err(|e| ConfigError { var, problem: e.to_string() })?;
    }
    Ok(urls)
}

/// A URL that is not an `http://` or `https://` endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadUrl(String);

impl fmt::Display for BadUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for BadUrl {}

/// The gRPC endpoint at `url` (`http://host:port` or `https://...`); nothing connects yet.
///
/// # Errors
/// Not such a URL; the message quotes at most its first 64 characters.
pub fn endpoint(url: &str) -> Result<tonic::transport::Endpoint, BadUrl> {
    let bad = |why: &str| BadUrl(format!("{:?} is not an engine URL: {why}", truncate(url, 64)));
    let uri: tonic::transport::Uri = url.parse().map_err(|e| bad(&format!("{e}")))?;
    if !matches!(uri.scheme_str(), Some("http" | "https")) || uri.authority().is_none() {
        return Err(bad("expected http://host:port or https://host:port"));
    }
    tonic::transport::Endpoint::from_shared(url.to_string()).map_err(|e| bad(&format!("{e}")))
}

/// At most the first `max` characters of `s` (for messages that quote input).
pub fn truncate(s: &str, max: usize) -> &str {
    s.char_indices().nth(max).map_or(s, |(i, _)| &s[..i])
}

/// Which of a family's engine `urls` serves match `match_id`: rendezvous hashing over the
/// URLs, so the gateway and the clock agree whatever order they were given them in. A
/// match stays on one replica so that replica's cached copy stays hot (any replica may
/// serve any match correctly: one behind the stream catches up before it answers).
pub fn replica_for(urls: &[String], match_id: &str) -> usize {
    replica_order(urls, match_id).first().copied().unwrap_or(0)
}

/// Every replica of `urls` for match `match_id`, in order of preference: the first is
/// [`replica_for`]'s, the next is where the match goes while that one is down.
pub fn replica_order(urls: &[String], match_id: &str) -> Vec<usize> {
    let score = |url: &str| {
        // FNV-1a, then splitmix64's finalizer to spread it: balance, not security.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        for b in url.bytes().chain([0xff]).chain(match_id.bytes()) {
            h = (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        h = (h ^ (h >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        h = (h ^ (h >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        h ^ (h >> 31)
    };
    let mut order: Vec<usize> = (0..urls.len()).collect();
    order.sort_by_key(|&i| (std::cmp::Reverse(score(&urls[i])), i));
    order
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

    #[test]
    fn engine_urls_are_lists() {
        assert_eq!(
            url_list("ENGINE_URL", "http://10.0.0.1:50061, https://engine-1.engines:50061,")
                .unwrap(),
            ["http://10.0.0.1:50061", "https://engine-1.engines:50061"]
        );
        assert_eq!(url_list("ENGINE_URL", "http://127.0.0.1:50061").unwrap().len(), 1);
        let e = url_list("ENGINE_DUEL_URL", " , ").unwrap_err();
        assert_eq!(e.to_string(), "ENGINE_DUEL_URL: lists no URL");
    }

    #[test]
    fn a_bad_engine_url_is_named_and_truncated() {
        let e = url_list("ENGINE_URL", "http://127.0.0.1:50061,127.0.0.1:50062").unwrap_err();
        assert!(
            e.to_string().starts_with("ENGINE_URL: \"127.0.0.1:50062\" is not an engine URL"),
            "{e}"
        );
        let long = format!("http://{}", "x y".repeat(500));
        let e = url_list("ENGINE_URL", &long).unwrap_err().to_string();
        assert!(e.contains(&long[..64]) && !e.contains(&long[..65]), "{e}");
        assert!(e.len() < 200, "{e}");
    }

    #[test]
    fn replicas_are_chosen_per_match_whatever_the_order() {
        let urls: Vec<String> = ["http://a:1", "http://b:1", "http://c:1"].map(String::from).into();
        let mut reversed = urls.clone();
        reversed.reverse();
        let mut used = [0; 3];
        for n in 0..3000 {
            let id = format!("00000000-0000-4000-8000-{n:012}");
            let i = replica_for(&urls, &id);
            assert_eq!(urls[i], reversed[replica_for(&reversed, &id)], "same replica for {id}");
            used[i] += 1;
        }
        // Each replica gets about a third of the matches.
        assert!(used.iter().all(|&n| (800..1200).contains(&n)), "{used:?}");
        assert_eq!(replica_for(&urls[..1], "any"), 0);
    }
}
