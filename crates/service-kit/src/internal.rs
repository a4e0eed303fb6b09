//! Authentication of internal calls (gateway and clock -> rules engine): one shared
//! secret, sent by every internal client as `x-colosseum-internal` metadata and checked by
//! a tower layer on the engine's server in constant time. Health and reflection stay open
//! for probes; reflection only describes services, every call on them is still checked.

use crate::config::ConfigError;
use sha2::{Digest, Sha256};
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tonic::body::Body;
use tonic::codegen::http;
use tonic::metadata::{AsciiMetadataValue, MetadataValue};
use tonic::service::Interceptor;
use tower::{Layer, Service};

/// The metadata key that carries the secret.
pub const HEADER: &str = "x-colosseum-internal";

/// The metadata key with which the gateway names the caller it authenticated (a player
/// id) on the calls it fronts. A callee trusts it only on a call that carries the secret:
/// the gateway sets it itself, never passing a client's own on.
pub const PLAYER_HEADER: &str = "x-colosseum-player";

/// The metadata key with the client's address as the gateway saw it (for per-address
/// limits such as the match-maker's login rate limit).
pub const CLIENT_HEADER: &str = "x-colosseum-client";

/// The shortest secret accepted from the environment: a guessable one protects nothing.
pub const MIN_SECRET_LEN: usize = 16;

/// The shared secret of internal calls. Its `Debug` never shows it.
#[derive(Clone, PartialEq, Eq)]
pub struct InternalToken(Arc<str>);

impl fmt::Debug for InternalToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("InternalToken(<secret>)")
    }
}

impl InternalToken {
    /// A fresh random secret (256 bits, hex): `colosseum run` and the in-process cluster
    /// make one per run.
    pub fn random() -> InternalToken {
        InternalToken(hex::encode(crate::time::os_random_32()).into())
    }

    /// `secret` as a token.
    ///
    /// # Errors
    /// Shorter than [`MIN_SECRET_LEN`], or not printable ASCII (it travels as metadata).
    pub fn new(secret: &str) -> Result<InternalToken, String> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(format!("the secret is shorter than {MIN_SECRET_LEN} characters"));
        }
        if !secret.bytes().all(|b| b.is_ascii_graphic()) {
            return Err("the secret must be printable ASCII without spaces".into());
        }
        Ok(InternalToken(secret.into()))
    }

    /// The secret, to hand to a child process (`INTERNAL_TOKEN`).
    pub fn expose(&self) -> &str {
        &self.0
    }

    /// Whether `sent` is the secret, in time independent of where they differ: both sides
    /// are hashed first, so neither the length nor a matching prefix shows in the timing.
    pub fn matches(&self, sent: &[u8]) -> bool {
        let (a, b) = (Sha256::digest(self.0.as_bytes()), Sha256::digest(sent));
        a.iter().zip(b.iter()).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
    }
}

/// Internal authentication as configured: `None` only when `INTERNAL_AUTH=off`.
///
/// Reads `INTERNAL_TOKEN`, or `INTERNAL_TOKEN_FILE` (a mounted Kubernetes secret; trailing
/// whitespace dropped). A standalone service refuses to start without one, unless
/// `INTERNAL_AUTH=off` says so explicitly (local experiments).
///
/// # Errors
/// No secret and no `INTERNAL_AUTH=off`, both variables set, an unreadable file, a weak
/// secret.
pub fn from_env() -> Result<Option<InternalToken>, ConfigError> {
    let auth = from_vars(|v| std::env::var(v).ok().filter(|s| !s.is_empty()))?;
    if auth.is_none() {
        tracing::warn!("INTERNAL_AUTH=off: internal calls are not authenticated");
    }
    Ok(auth)
}

/// [`from_env`] over any source of variables (`get` returns a set, non-empty value).
///
/// # Errors
/// As [`from_env`].
pub fn from_vars(
    get: impl Fn(&str) -> Option<String>,
) -> Result<Option<InternalToken>, ConfigError> {
    match get("INTERNAL_AUTH").as_deref() {
        None | Some("on") => {}
        Some("off") => return Ok(None),
        Some(other) => {
            return Err(ConfigError {
                var: "INTERNAL_AUTH",
                problem: format!("{:?} is neither on nor off", crate::config::truncate(other, 64)),
            });
        }
    }
    let secret = match (get("INTERNAL_TOKEN"), get("INTERNAL_TOKEN_FILE")) {
        (Some(_), Some(_)) => {
            return Err(ConfigError {
                var: "INTERNAL_TOKEN",
                problem: "INTERNAL_TOKEN and INTERNAL_TOKEN_FILE are both set; set one".into(),
            });
        }
        (Some(s), None) => (s, "INTERNAL_TOKEN"),
        (None, Some(path)) => match std::fs::read_to_string(&path) {
            Ok(s) => (s.trim_end().to_string(), "INTERNAL_TOKEN_FILE"),
            Err(e) => {
                return Err(ConfigError {
                    var: "INTERNAL_TOKEN_FILE",
                    problem: format!("cannot read {:?}: {e}", crate::config::truncate(&path, 64)),
                });
            }
        },
        (None, None) => {
            return Err(ConfigError {
                var: "INTERNAL_TOKEN",
                problem: "not set: internal calls (gateway and clock -> rules engine) need a \
                          shared secret; set INTERNAL_TOKEN or INTERNAL_TOKEN_FILE (the same in \
                          every service), or INTERNAL_AUTH=off for local experiments"
                    .into(),
            });
        }
    };
    let (secret, var) = secret;
    InternalToken::new(&secret).map(Some).map_err(|problem| ConfigError { var, problem })
}

/// Adds the secret to every request of a client.
#[derive(Clone, Debug)]
pub struct Stamp(Option<AsciiMetadataValue>);

impl Stamp {
    /// Stamps requests with `token` (nothing when `None`: auth off).
    ///
    /// # Panics
    /// Never: a token is printable ASCII by construction.
    pub fn new(token: Option<&InternalToken>) -> Stamp {
        Stamp(token.map(|t| {
            let mut v = MetadataValue::try_from(t.expose()).expect("a token is printable ASCII");
            // Kept out of HPACK tables and logs that honour the flag.
            v.set_sensitive(true);
            v
        }))
    }
}

impl Interceptor for Stamp {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        if let Some(v) = &self.0 {
            req.metadata_mut().insert(HEADER, v.clone());
        }
        Ok(req)
    }
}

/// The layer on the engine's server: every call but health and reflection must carry the
/// secret (nothing is checked when `None`: auth off).
#[derive(Clone, Debug)]
pub struct InternalAuthLayer {
    token: Option<InternalToken>,
}

impl InternalAuthLayer {
    /// Checks calls against `token`.
    pub fn new(token: Option<InternalToken>) -> Self {
        InternalAuthLayer { token }
    }
}

impl<S> Layer<S> for InternalAuthLayer {
    type Service = InternalAuth<S>;
    fn layer(&self, inner: S) -> InternalAuth<S> {
        InternalAuth { inner, token: self.token.clone() }
    }
}

/// The service the layer wraps.
#[derive(Clone, Debug)]
pub struct InternalAuth<S> {
    inner: S,
    token: Option<InternalToken>,
}

fn is_open(path: &str) -> bool {
    path.starts_with("/grpc.health.v1.") || path.starts_with("/grpc.reflection.")
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> Service<http::Request<Body>> for InternalAuth<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        let allowed = match &self.token {
            None => true,
            Some(t) => {
                is_open(req.uri().path())
                    || req.headers().get(HEADER).is_some_and(|v| t.matches(v.as_bytes()))
            }
        };
        if !allowed {
            crate::metrics::add("colosseum_engine_unauthenticated_total", 1);
            // One answer for a missing and a wrong secret: nothing to learn from it.
            let refused = tonic::Status::unauthenticated("unauthenticated").into_http();
            return Box::pin(async move { Ok(refused) });
        }
        // The clone that was polled ready serves this call (tower's rule for cloned services).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move { inner.call(req).await })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn vars(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
        let m: BTreeMap<String, String> =
            pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        move |k| m.get(k).cloned()
    }

    #[test]
    fn a_missing_secret_is_a_clear_startup_error() {
        let e = from_vars(vars(&[])).unwrap_err().to_string();
        assert!(e.starts_with("INTERNAL_TOKEN: not set"), "{e}");
        assert!(e.contains("INTERNAL_TOKEN_FILE") && e.contains("INTERNAL_AUTH=off"), "{e}");
        assert_eq!(from_vars(vars(&[("INTERNAL_AUTH", "off")])).unwrap(), None);
        let e = from_vars(vars(&[("INTERNAL_AUTH", "maybe")])).unwrap_err().to_string();
        assert!(e.starts_with("INTERNAL_AUTH: "), "{e}");
    }

    #[test]
    fn the_secret_comes_from_the_variable_or_a_file() {
        let t = from_vars(vars(&[("INTERNAL_TOKEN", "0123456789abcdef")])).unwrap().unwrap();
        assert!(t.matches(b"0123456789abcdef") && !t.matches(b"0123456789abcdeF"));
        assert!(!t.matches(b"") && !t.matches(b"0123456789abcdef0"));
        let path = std::env::temp_dir().join(format!("internal-token-{}", std::process::id()));
        std::fs::write(&path, "fedcba9876543210fedcba\n").unwrap();
        let file = path.to_str().unwrap();
        let t = from_vars(vars(&[("INTERNAL_TOKEN_FILE", file)])).unwrap().unwrap();
        assert!(t.matches(b"fedcba9876543210fedcba"), "the trailing newline is dropped");
        let both = from_vars(vars(&[("INTERNAL_TOKEN_FILE", file), ("INTERNAL_TOKEN", "x")]));
        assert!(both.unwrap_err().to_string().contains("both set"));
        std::fs::remove_file(&path).unwrap();
        let e = from_vars(vars(&[("INTERNAL_TOKEN_FILE", file)])).unwrap_err().to_string();
        assert!(e.starts_with("INTERNAL_TOKEN_FILE: cannot read"), "{e}");
        let e = from_vars(vars(&[("INTERNAL_TOKEN", "short")])).unwrap_err().to_string();
        assert!(e.contains("shorter than 16"), "{e}");
        assert_eq!(format!("{:?}", InternalToken::random()), "InternalToken(<secret>)");
    }
}
