//! The authentication layer: a tower layer in front of every gateway service that turns
//! `authorization: Bearer <token>` into the caller's player id (request extension
//! `Caller`), or answers UNAUTHENTICATED. Only the gateway's own methods that need a
//! session are checked: session creation, the game list, tournaments' public pages,
//! health, reflection and any path the router does not know (it answers UNIMPLEMENTED)
//! pass without a token; a handler that finds no `Caller` still refuses, so a method
//! missing from the list fails closed.
//! Every request, open or not, also gets its client's address (`ClientAddress`: the TCP
//! peer, or what a trusted proxy forwards; see [`crate::forwarded`]).

use crate::error::Error;
use crate::forwarded::{ClientAddress, TrustedProxies};
use api_convert::text::bearer;
use service_kit::cache::Bounded;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use store::{EventStore, PlayerId};
use tonic::body::Body;
use tonic::codegen::http;
use tonic::transport::server::TcpConnectInfo;
use tower::{Layer, Service};

/// Who is calling: set by the layer, read by handlers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The session's player.
    pub player_id: PlayerId,
}

/// The token's key in the session store (`store::token_digest`).
pub fn token_key(token: &str) -> String {
    store::token_digest(token)
}

/// The methods that need a session. Every other ColosseumService method is open:
/// CreateGuestSession, ListGames and VerifyRecord (a posted record is checked for anyone:
/// bounded by the edge's 4 MiB and the verifier's own limits, `crate::verify`).
const SESSION_METHODS: &[&str] = &[
    "CreateMatch",
    "JoinMatch",
    "SubmitMove",
    "Resign",
    "GetView",
    "WatchMatch",
    "GetMatchRecord",
    "Play",
    "ListMyMatches",
    "ListLiveMatches",
    "ListPlayerHistory",
];

/// The LobbyService methods that need a session (Register, Login and the public reads
/// are open).
const LOBBY_SESSION_METHODS: &[&str] = &[
    "Logout",
    "ChangePassword",
    "UpdateProfile",
    "GetProfile",
    "CreateTicket",
    "CancelTicket",
    "WatchTickets",
    "CreateSeek",
    "AcceptSeek",
];

/// The service of tournaments' public pages: every method open, a session or none, since
/// a page is read-only and names no secret (tournament_view.proto).
const PUBLIC_PAGES: &str = "/colosseum.v1.TournamentViewService/";

fn is_open(path: &str) -> bool {
    if path.starts_with(PUBLIC_PAGES) {
        return true;
    }
    if let Some(method) = path.strip_prefix("/colosseum.v1.ColosseumService/") {
        return !SESSION_METHODS.contains(&method);
    }
    if let Some(method) = path.strip_prefix("/colosseum.v1.LobbyService/") {
        return !LOBBY_SESSION_METHODS.contains(&method);
    }
    true
}

fn refuse(e: Error) -> http::Response<Body> {
    tonic::Status::from(e).into_http()
}

/// Sessions already looked up, with when: a token's player never changes, but a session
/// can end (Logout), so each gateway trusts what it looked up for [`KNOWN_FOR_MS`] only
/// (bounded; cleared when full).
type Known = Arc<Bounded<String, PlayerId>>;

/// How many sessions a gateway remembers.
const KNOWN_CAP: usize = 100_000;

/// How long a looked-up session is trusted without asking the store again: a session
/// ended through another gateway is refused here at most this much later (one ended
/// through this gateway, at once).
pub const KNOWN_FOR_MS: u64 = 5_000;

/// The method that ends a session: never answered from the cache, and forgotten by it.
const LOGOUT: &str = "/colosseum.v1.LobbyService/Logout";

/// The layer.
#[derive(Clone)]
pub struct AuthLayer {
    store: Arc<dyn EventStore>,
    known: Known,
    proxies: Arc<TrustedProxies>,
}

impl AuthLayer {
    /// Sessions are looked up in `store`; no proxy is trusted.
    pub fn new(store: Arc<dyn EventStore>) -> Self {
        AuthLayer {
            store,
            known: Arc::new(Bounded::new(KNOWN_CAP, Some(KNOWN_FOR_MS))),
            proxies: Arc::default(),
        }
    }

    /// The same layer taking the client's address from `x-forwarded-for` on calls from
    /// `proxies`.
    #[must_use]
    pub fn trusting(mut self, proxies: TrustedProxies) -> Self {
        self.proxies = Arc::new(proxies);
        self
    }
}

impl<S> Layer<S> for AuthLayer {
    type Service = Auth<S>;
    fn layer(&self, inner: S) -> Auth<S> {
        Auth {
            inner,
            store: self.store.clone(),
            known: self.known.clone(),
            proxies: self.proxies.clone(),
        }
    }
}

/// The service the layer wraps around the gateway.
#[derive(Clone)]
pub struct Auth<S> {
    inner: S,
    store: Arc<dyn EventStore>,
    known: Known,
    proxies: Arc<TrustedProxies>,
}

/// The client of `req`: its TCP peer, or the address a trusted peer forwards.
fn client_address<B>(
    req: &http::Request<B>,
    proxies: &TrustedProxies,
) -> Result<Option<ClientAddress>, Error> {
    let Some(peer) = req.extensions().get::<TcpConnectInfo>().and_then(|i| i.remote_addr()) else {
        return Ok(None);
    };
    let forwarded: Vec<&[u8]> = req
        .headers()
        .get_all(crate::forwarded::HEADER)
        .iter()
        .map(http::HeaderValue::as_bytes)
        .collect();
    let ip = proxies.client(peer.ip(), &forwarded).map_err(Error::BadForwardedFor)?;
    Ok(Some(ClientAddress(ip)))
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
        let client = client_address(&req, &self.proxies);
        Box::pin(async move {
            service_kit::metrics::add("colosseum_gateway_requests_total", 1);
            match client {
                Ok(Some(address)) => {
                    req.extensions_mut().insert(address);
                }
                Ok(None) => {}
                Err(e) => return Ok(refuse(e)),
            }
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
            let now = service_kit::time::now_ms();
            let cached = if req.uri().path() == LOGOUT {
                known.remove(&key);
                None
            } else {
                known.get(&key, now)
            };
            if let Some(player_id) = cached {
                req.extensions_mut().insert(Caller { player_id });
                return inner.call(req).await;
            }
            match store.session(&key).await {
                Ok(Some(session)) => {
                    if req.uri().path() != LOGOUT {
                        known.insert(key, session.player_id, now);
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
        assert!(!is_open("/colosseum.v1.ColosseumService/Play"));
        assert!(is_open("/colosseum.v1.ColosseumService/ListGames"));
        assert!(is_open("/colosseum.v1.ColosseumService/VerifyRecord"));
        assert!(!is_open("/colosseum.v1.ColosseumService/ListMyMatches"));
        assert!(!is_open("/colosseum.v1.ColosseumService/ListLiveMatches"));
        assert!(is_open("/colosseum.v1.ColosseumService/NoSuchMethod"));
        assert!(is_open("/colosseum.v2.ColosseumService/SubmitMove"));
        assert!(is_open("/grpc.health.v1.Health/Check"));
        assert!(!is_open("/colosseum.v1.LobbyService/CreateTicket"));
        assert!(!is_open("/colosseum.v1.LobbyService/Logout"));
        assert!(is_open("/colosseum.v1.LobbyService/Login"));
        assert!(is_open("/colosseum.v1.LobbyService/GetLeaderboard"));
        assert!(is_open("/colosseum.v1.TournamentViewService/GetPublicTournament"));
        assert!(is_open("/colosseum.v1.TournamentViewService/WatchPublicTournament"));
    }
}
