//! The authentication layer: a tower layer in front of every gateway service that turns
//! `authorization: Bearer <token>` into the caller's player id (request extension
//! `Caller`), or answers UNAUTHENTICATED. Only session creation, the game list, health
//! and reflection pass without a token.

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

const OPEN_PATHS: &[&str] = &[
    "/colosseum.v1.ColosseumService/CreateGuestSession",
    "/colosseum.v1.ColosseumService/ListGames",
];

fn is_open(path: &str) -> bool {
    OPEN_PATHS.contains(&path)
        || path.starts_with("/grpc.health.")
        || path.starts_with("/grpc.reflection.")
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
                .and_then(|v| v.strip_prefix("Bearer "))
                .map(str::trim)
                .filter(|t| !t.is_empty())
                .map(str::to_string);
            let Some(token) = token else {
                return Ok(tonic::Status::unauthenticated(
                    "no session token: send `authorization: Bearer <token>` (CreateGuestSession gives one)",
                )
                .into_http());
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
                Ok(None) => {
                    Ok(tonic::Status::unauthenticated("unknown or expired session token")
                        .into_http())
                }
                Err(e) => {
                    tracing::warn!(error = %e, "session lookup failed");
                    Ok(tonic::Status::unavailable("sessions are unavailable; retry shortly")
                        .into_http())
                }
            }
        })
    }
}
