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

/// The entries of a comma-separated list: each trimmed, blanks ignored.
pub fn list(value: &str) -> Vec<String> {
    value.split(',').map(str::trim).filter(|u| !u.is_empty()).map(str::to_string).collect()
}

/// The URLs of a comma-separated list: blanks ignored, each checked with [`endpoint`].
///
/// # Errors
/// The list is empty, or a URL does not parse.
pub fn url_list(var: &'static str, value: &str) -> Result<Vec<String>, ConfigError> {
    let urls = list(value);
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lists_are_split_on_commas() {
        assert_eq!(
            list(" redis://127.0.0.1:7000, redis://127.0.0.1:7001,,"),
            ["redis://127.0.0.1:7000", "redis://127.0.0.1:7001"]
        );
        assert!(list(" , ").is_empty());
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
}
