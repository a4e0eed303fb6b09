//! The authentication layer: a tower layer in front of every gateway service that turns
//! `authorization: Bearer <token>` into the caller's player id (request extension
//! `Caller`), or answers UNAUTHENTICATED. Only the gateway's own methods that need a
//! session are checked: session creation, the game list, health, reflection and any path
//! the router does not know (it answers UNIMPLEMENTED) pass without a token; a handler
//! that finds no `Caller` still refuses, so a method missing from the list fails closed.

use crate::error::Error;
use events::{EventStore, PlayerId};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tonic::body::Body;
use tonic::codegen::http;
use tower::{Layer, Service};

/// Who is calling: set by the layer, read by handlers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The session's player.
    pub player_id: PlayerId,
}

/// The token's key in the session store: SHA-256, so a store dump holds no usable token.
pub fn token_key(token: &str) -> String {
    hex::encode(Sha256::digest(token.as_bytes()))
}

/// The methods that need a session (every other ColosseumService method is open).
const SESSION_METHODS: &[&str] = &[
    "CreateMatch",
    "JoinMatch",
    "SubmitMove",
    "Resign",
    "GetView",
    "WatchMatch",
    "GetMatchRecord",
];

fn is_open(path: &str) -> bool {
    let Some(method) = path.strip_prefix("/colosseum.v1.ColosseumService/") else {
        return true;
    };
    !SESSION_METHODS.contains(&method)
}

/// The token of an `authorization` value: the scheme is case-insensitive (RFC 7235
/// section 2.1), so `bearer T` and `BEARER T` are `Bearer T`.
fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

fn refuse(e: Error) -> http::Response<Body> {
    tonic::Status::from(e).into_http()
}

/// Sessions already looked up: a token's player never changes, so each gateway asks the
/// store once per token (bounded; cleared when full).
type Known = Arc<Mutex<BTreeMap<String, PlayerId>>>;

/// How many sessions a gateway remembers.
const KNOWN_CAP: usize = 100_000;

/// The layer.
#[derive(Clone)]
pub struct AuthLayer {
    store: Arc<dyn EventStore>,
    known: Known,
}

impl AuthLayer {
    /// Sessions are looked up in `store`.
    pub fn new(store: Arc<dyn EventStore>) -> Self {
        AuthLayer { store, known: Known::default() }
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;
    fn layer(&self, inner: S) -> Auth<S> {
        Auth { inner, store: self.store.clone(), known: self.known.clone() }
    }
}

/// The service the layer wraps around the gateway.
#[derive(Clone)]
pub struct Auth<S> {
    inner: S,
    store: Arc<dyn EventStore>,
    known: Known,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> Service<http::Request<Body>> for Auth<S>
where
    S: Service<http::Request<Body>, Response = http::Response<Body>> + Clone + Send + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = BoxFuture<Result<S::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut req: http::Request<Body>) -> Self::Future {
        // The clone that was polled ready serves this call (tower's rule for cloned services).
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        let store = self.store.clone();
        let known = self.known.clone();
        Box::pin(async move {
            service_kit::metrics::add("colosseum_gateway_requests_total", 1);
            if is_open(req.uri().path()) {
                return inner.call(req).await;
            }
            let token = req
                .headers()
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(bearer)
                .map(str::to_string);
            let Some(token) = token else {
                return Ok(refuse(Error::NoToken));
            };
            let key = token_key(&token);
            let cached = known.lock().expect("the session cache lock").get(&key).copied();
            if let Some(player_id) = cached {
                req.extensions_mut().insert(Caller { player_id });
                return inner.call(req).await;
            }
            match store.session(&key).await {
                Ok(Some(session)) => {
                    {
                        let mut k = known.lock().expect("the session cache lock");
                        if k.len() >= KNOWN_CAP {
                            k.clear();
                        }
                        k.insert(key, session.player_id);
                    }
                    req.extensions_mut().insert(Caller { player_id: session.player_id });
                    inner.call(req).await
                }
                Ok(None) => Ok(refuse(Error::UnknownSession)),
                Err(e) => Ok(refuse(Error::SessionLookup(e))),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scheme_is_case_insensitive_and_the_token_required() {
        for v in ["Bearer t1", "bearer t1", "BEARER  t1 ", " bEaReR t1"] {
            assert_eq!(bearer(v), Some("t1"), "{v:?}");
        }
        for v in ["Bearer", "Bearer ", "Basic t1", "t1", "Bearert1"] {
            assert_eq!(bearer(v), None, "{v:?}");
        }
    }

    #[test]
    fn only_session_methods_need_a_token() {
        assert!(!is_open("/colosseum.v1.ColosseumService/SubmitMove"));
        assert!(is_open("/colosseum.v1.ColosseumService/ListGames"));
        assert!(is_open("/colosseum.v1.ColosseumService/NoSuchMethod"));
        assert!(is_open("/colosseum.v2.ColosseumService/SubmitMove"));
        assert!(is_open("/grpc.health.v1.Health/Check"));
    }
}
