//! The rules engines, by family, as gRPC clients for the services that call them (the
//! gateway, the clock, the match-maker, the tournament service): every address a family
//! was given (`ENGINE_URL` may list several), each match on one of them, and on the next
//! in its order while that one is down. One place, so every caller picks alike.
//!
//! # Layout
//! - this file: the clients, by family, with the replica each match goes to.
//! - [`link`]: the long-lived Steps stream per connection that carries the moves.
//! - [`urls`]: the engines' addresses from the environment, and replica choice.
//! - [`error`]: what a call to the engines can come to, as the callers pass it on.

pub mod error;
pub mod link;
pub mod urls;

pub use error::CallError;
use urls::replica_order;
pub use urls::{EngineUrls, engine_urls, replica_for};

use api::internal::rules_engine_service_client::RulesEngineServiceClient;
use games::Family;
use ids::MatchId;
use service_kit::config::BadUrl;
use service_kit::internal::{InternalToken, Stamp};
use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::task::{Context, Poll};
use std::time::Duration;
use tonic::codegen::http;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// How long a replica whose connection failed is passed over before it is tried again.
const DOWN_FOR_MS: u64 = 1_000;

/// A connection to one replica that notes when calls through it fail to reach it, so the
/// gateway sends its matches to the next replica meanwhile, and sends again a call its
/// connection dropped unsent ([`client::dropped_unsent`]: an engine's GOAWAY at its
/// maximum connection age, the call queued on the old connection), which would otherwise
/// reach a player as UNAVAILABLE.
#[derive(Clone)]
pub struct Watched {
    inner: Channel,
    down_until_ms: Arc<AtomicU64>,
}

impl Watched {
    fn note(down_until_ms: &AtomicU64, failed: bool) {
        let until = if failed { service_kit::time::now_ms() + DOWN_FOR_MS } else { 0 };
        down_until_ms.store(until, Ordering::Relaxed);
    }
}

/// How many times a call dropped unsent is sent again (each time on the channel's next
/// connection: the dropped one is closing).
const RESENDS: u32 = 3;

/// A call's error as the generated client takes it (a transport error, or the status of a
/// request body that could not be read).
type CallFailure = Box<dyn std::error::Error + Send + Sync>;

impl tower::Service<http::Request<tonic::body::Body>> for Watched {
    type Response = http::Response<tonic::body::Body>;
    type Error = CallFailure;
    type Future =
        Pin<Box<dyn Future<Output = Result<Self::Response, Self::Error>> + Send + 'static>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        let ready = self.inner.poll_ready(cx);
        if let Poll::Ready(Err(_)) = &ready {
            Self::note(&self.down_until_ms, true);
        }
        ready.map_err(Into::into)
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        // The channel made ready is the one to call; a clone is made ready for a resend.
        let fresh = self.inner.clone();
        let mut ready = std::mem::replace(&mut self.inner, fresh.clone());
        let down_until_ms = self.down_until_ms.clone();
        Box::pin(async move {
            // Every engine call is unary: its body is one small message, kept to be sent
            // again.
            let (head, body) = req.into_parts();
            let body = whole(body).await?;
            let again = || http::Request::from_parts(head.clone(), Once::body(body.clone()));
            let mut answer = ready.call(again()).await;
            let mut resent = 0;
            while let Err(e) = &answer
                && client::dropped_unsent(e)
                && resent < RESENDS
            {
                resent += 1;
                tracing::debug!(resent, "an engine call dropped unsent: sent again");
                let mut channel = fresh.clone();
                answer = match std::future::poll_fn(|cx| channel.poll_ready(cx)).await {
                    Ok(()) => channel.call(again()).await,
                    Err(e) => Err(e),
                };
            }
            // An error here is the transport's (a refused or broken connection): the
            // callee's own refusals arrive as answers.
            Watched::note(&down_until_ms, answer.is_err());
            answer.map_err(Into::into)
        })
    }
}

/// A request body read whole.
async fn whole(mut body: tonic::body::Body) -> Result<tonic::codegen::Bytes, tonic::Status> {
    use http_body::Body as _;
    let mut chunks = Vec::new();
    while let Some(frame) = std::future::poll_fn(|cx| Pin::new(&mut body).poll_frame(cx)).await {
        // A gRPC request sends no trailers; only data frames carry the message.
        if let Ok(data) = frame?.into_data() {
            chunks.extend_from_slice(&data);
        }
    }
    Ok(chunks.into())
}

/// A request body of one chunk, sent again as often as needed.
struct Once(Option<tonic::codegen::Bytes>);

impl Once {
    fn body(bytes: tonic::codegen::Bytes) -> tonic::body::Body {
        tonic::body::Body::new(Once(Some(bytes)))
    }
}

impl http_body::Body for Once {
    type Data = tonic::codegen::Bytes;
    type Error = std::convert::Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Self::Data>, Self::Error>>> {
        Poll::Ready(self.0.take().map(|b| Ok(http_body::Frame::data(b))))
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_none()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        http_body::SizeHint::with_exact(self.0.as_ref().map_or(0, |b| b.len() as u64))
    }
}

/// A client of one replica, stamping every call with the internal secret.
pub type EngineClient = RulesEngineServiceClient<InterceptedService<Watched, Stamp>>;

/// HTTP/2 connections the gateway keeps to each engine address, used in turn: behind a
/// Kubernetes Service (a layer-4 balancer) one connection would pin every move of the
/// family to one engine replica. (On the 2-core benchmark machine, with one replica, 4
/// connections measured the same as 1.)
const CONNECTIONS_PER_ENGINE: usize = 4;

/// One family's engines: each address and the connections to it, in the same order.
struct FamilyEngines {
    urls: Vec<String>,
    replicas: Vec<Replica>,
}

/// One replica: its connections (a unary client and a Steps link over each), and until
/// when it is passed over (0: it is not).
struct Replica {
    clients: Vec<EngineClient>,
    links: Vec<Arc<link::Link>>,
    down_until_ms: Arc<AtomicU64>,
}

/// Clients per game family: every address of the family, each with its connections.
#[derive(Clone)]
pub struct Engines {
    by_family: Arc<BTreeMap<Family, FamilyEngines>>,
    next: Arc<AtomicUsize>,
}

/// How long a connect to an engine may take before the replica is passed over.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
/// How long one engine call may take (a step, with a rebuild from the stream, takes
/// milliseconds; this bounds a hung connection, not the work).
const CALL_TIMEOUT: Duration = Duration::from_secs(10);
/// TCP and HTTP/2 keepalive of engine connections.
const KEEPALIVE: Duration = Duration::from_secs(10);

impl Engines {
    /// Clients for `(family, urls)` pairs, each call carrying `token`; connections are made
    /// lazily.
    ///
    /// # Errors
    /// A URL that does not parse (named, truncated).
    pub fn new(urls: &[EngineUrls], token: Option<&InternalToken>) -> Result<Self, BadUrl> {
        service_kit::metrics::describe(link::metric::ALL);
        let mut by_family = BTreeMap::new();
        for (family, urls) in urls {
            let mut replicas = Vec::new();
            for url in urls {
                // A dead node or a silently dropped packet must fail over, not hang: connects
                // give up after a second, calls after ten, and an idle connection is pinged.
                let endpoint = service_kit::config::endpoint(url)?
                    .connect_timeout(CONNECT_TIMEOUT)
                    .timeout(CALL_TIMEOUT)
                    .tcp_keepalive(Some(KEEPALIVE))
                    .http2_keep_alive_interval(KEEPALIVE)
                    .keep_alive_timeout(KEEPALIVE)
                    .keep_alive_while_idle(true);
                let down_until_ms = Arc::new(AtomicU64::new(0));
                let (mut clients, mut links) = (Vec::new(), Vec::new());
                for _ in 0..CONNECTIONS_PER_ENGINE {
                    let inner = endpoint.connect_lazy();
                    let link = link::Link::new(inner.clone(), token, down_until_ms.clone());
                    links.push(Arc::new(link));
                    let watched = Watched { inner, down_until_ms: down_until_ms.clone() };
                    clients.push(RulesEngineServiceClient::with_interceptor(
                        watched,
                        Stamp::new(token),
                    ));
                }
                replicas.push(Replica { clients, links, down_until_ms });
            }
            by_family.insert(*family, FamilyEngines { urls: urls.clone(), replicas });
        }
        Ok(Engines { by_family: Arc::new(by_family), next: Arc::default() })
    }

    /// Clients for the engines the environment names ([`engine_urls`]), each call carrying
    /// `token`: what every service binary that calls the engines starts with.
    ///
    /// # Errors
    /// A variable that lists no URL, or a URL that does not parse.
    pub fn from_env(
        token: Option<&InternalToken>,
    ) -> Result<Self, Box<dyn std::error::Error + Send + Sync>> {
        Ok(Engines::new(&engine_urls()?, token)?)
    }

    /// Which replica of `family` serves match `id`: the first in the match's order that is
    /// not passed over, or the first if all are.
    fn replica(&self, family: &FamilyEngines, id: MatchId) -> Option<usize> {
        let order = replica_order(&family.urls, &id.to_string());
        let now = service_kit::time::now_ms();
        order
            .iter()
            .find(|&&i| family.replicas[i].down_until_ms.load(Ordering::Relaxed) <= now)
            .or(order.first())
            .copied()
    }

    /// The next of `each` (a replica's clients or links, one per connection), in turn.
    fn next_of<'a, T>(&self, each: &'a [T]) -> Option<&'a T> {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        each.get(n % each.len().max(1))
    }

    /// The next of replica `at`'s connections.
    fn connection(&self, family: &FamilyEngines, at: usize) -> Option<EngineClient> {
        self.next_of(&family.replicas.get(at)?.clients).cloned()
    }

    /// The engine hosting match `id` of `game`: one replica of the family per match (see
    /// [`replica_for`]), its connections in turn.
    ///
    /// # Errors
    /// An unknown game, or no engine hosting its family.
    pub fn for_match(&self, game: &str, id: MatchId) -> Result<EngineClient, CallError> {
        let (family, replica) = self.place(game, id)?;
        self.by_family
            .get(&family)
            .and_then(|f| self.connection(f, replica))
            .ok_or(CallError::NoEngineFor(family))
    }
}

impl Engines {
    /// Applies `step` to match `id` of `game` over a link to the replica that hosts it, in
    /// trace `trace` (the engine's span hangs under it): the gateway's moves and
    /// resignations and the clock's deadlines.
    ///
    /// # Errors
    /// An unknown game or no engine; the engine's refusal; UNAVAILABLE when the link broke
    /// with the step in flight (the replica is then passed over for a second).
    pub async fn apply_step(
        &self,
        game: &str,
        id: MatchId,
        step: api::internal::ApplyStepRequest,
        trace: Option<&service_kit::telemetry::TraceContext>,
    ) -> Result<api::internal::ApplyStepResponse, CallError> {
        let (family, at) = self.place(game, id)?;
        let link = self
            .by_family
            .get(&family)
            .and_then(|f| f.replicas.get(at))
            .and_then(|r| self.next_of(&r.links))
            .cloned()
            .ok_or(CallError::NoEngineFor(family))?;
        let traceparent = trace.map(ToString::to_string).unwrap_or_default();
        match link.step(step, traceparent).await {
            Ok(answer) => Ok(answer),
            Err(link::Failed::Status(s)) => Err(CallError::from(s)),
            // An engine without the Steps stream (older than this caller, during a rolling
            // upgrade): the step goes as a unary call, as it did before.
            Err(link::Failed::Unsupported(step)) => {
                let mut request = tonic::Request::new(*step);
                if let Some(trace) = trace {
                    trace.inject(request.metadata_mut());
                }
                let mut engine = self.for_match(game, id)?;
                engine
                    .apply_step(request)
                    .await
                    .map(tonic::Response::into_inner)
                    .map_err(Into::into)
            }
        }
    }
}

/// A match for [`Engines::create_match`]: its id (derived by the caller, so a retry names
/// the same match), game, options, who holds each seat, time per move, and whether it goes
/// on its game's public live list.
#[derive(Clone, Debug)]
pub struct NewMatch {
    /// The match id.
    pub id: MatchId,
    /// The game's name.
    pub game: String,
    /// The options as JSON text (empty: the defaults).
    pub options_json: String,
    /// Who holds each seat (or is awaited in it).
    pub seats: [ids::SeatHolder; 2],
    /// The host's time per move, in ms (0: the rules' own).
    pub move_time_ms: u64,
    /// Whether the match is on its game's live list (ListLiveMatches).
    pub listed: bool,
}

/// What creating a match came to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Created {
    /// Created now: its seed commitment (hex).
    New {
        /// SHA-256 of the seed, hex.
        seed_commitment: String,
    },
    /// A match with that id was there already (a retry's, or another request's: the
    /// caller tells which from what it knows of its ids).
    Exists,
}

impl Engines {
    /// Creates `m` in the engine that hosts it, `metadata` sent with the call (a trace
    /// context): every caller's one way to make a match.
    ///
    /// # Errors
    /// The engine refused the match (options, a game it does not host) or did not answer.
    pub async fn create_match(
        &self,
        m: NewMatch,
        metadata: tonic::metadata::MetadataMap,
    ) -> Result<Created, CallError> {
        let engine = self.for_match(&m.game, m.id)?;
        let mut request = tonic::Request::new(m.into_request());
        *request.metadata_mut() = metadata;
        match engine.clone().create_match(request).await.map_err(CallError::from) {
            Ok(r) => Ok(Created::New { seed_commitment: r.into_inner().seed_commitment }),
            Err(CallError::Exists(_)) => Ok(Created::Exists),
            Err(e) => Err(e),
        }
    }
}

impl Engines {
    /// Creates `matches` in the engines that host them, each as [`Engines::create_match`]
    /// would: one CreateMatches call per engine replica with that replica's matches, all
    /// replicas at once; the answers in the order of `matches`. A call that fails fails
    /// each of its matches alike (the caller retries them: a match already made answers
    /// [`Created::Exists`]).
    pub async fn create_matches(
        &self,
        matches: Vec<NewMatch>,
        metadata: tonic::metadata::MetadataMap,
    ) -> Vec<Result<Created, CallError>> {
        let mut answers: Vec<Option<Result<Created, CallError>>> =
            (0..matches.len()).map(|_| None).collect();
        let mut batches: BTreeMap<(Family, usize), Vec<(usize, NewMatch)>> = BTreeMap::new();
        for (at, m) in matches.into_iter().enumerate() {
            match self.place(&m.game, m.id) {
                Ok(place) => batches.entry(place).or_default().push((at, m)),
                Err(e) => answers[at] = Some(Err(e)),
            }
        }
        let calls = batches.into_iter().map(|((family, replica), batch)| {
            let metadata = metadata.clone();
            async move {
                let (places, matches): (Vec<usize>, Vec<NewMatch>) = batch.into_iter().unzip();
                let engines = self.by_family.get(&family);
                let Some(client) = engines.and_then(|f| self.connection(f, replica)) else {
                    return (places, Err(CallError::NoEngineFor(family)));
                };
                let req = api::internal::CreateMatchesRequest {
                    matches: matches.into_iter().map(NewMatch::into_request).collect(),
                };
                let mut request = tonic::Request::new(req);
                *request.metadata_mut() = metadata;
                let answer = client.clone().create_matches(request).await;
                (places, answer.map(|r| r.into_inner().results).map_err(CallError::from))
            }
        });
        for (places, answer) in futures_util::future::join_all(calls).await {
            match answer {
                Ok(results) if results.len() == places.len() => {
                    for (at, r) in places.into_iter().zip(results) {
                        answers[at] = Some(created(r));
                    }
                }
                Ok(results) => {
                    let e = CallError::from(tonic::Status::internal(format!(
                        "CreateMatches answered {} results for {} matches",
                        results.len(),
                        places.len()
                    )));
                    for at in places {
                        answers[at] = Some(Err(e.clone()));
                    }
                }
                Err(e) => {
                    for at in places {
                        answers[at] = Some(Err(e.clone()));
                    }
                }
            }
        }
        answers
            .into_iter()
            .map(|a| a.unwrap_or_else(|| Err(tonic::Status::internal("no answer").into())))
            .collect()
    }

    /// Where match `id` of `game` is created: its family and the replica that serves it.
    fn place(&self, game: &str, id: MatchId) -> Result<(Family, usize), CallError> {
        let family = games::registry::family_of(game)
            .ok_or_else(|| CallError::UnknownGame(game.to_string()))?;
        self.by_family
            .get(&family)
            .and_then(|f| self.replica(f, id))
            .map(|replica| (family, replica))
            .ok_or(CallError::NoEngineFor(family))
    }
}

/// One match's result of a CreateMatches call, as [`Engines::create_match`] answers it.
fn created(r: api::internal::CreatedMatch) -> Result<Created, CallError> {
    let code = tonic::Code::from(r.code);
    match code {
        tonic::Code::Ok => Ok(Created::New { seed_commitment: r.seed_commitment }),
        tonic::Code::AlreadyExists => Ok(Created::Exists),
        _ => Err(tonic::Status::new(code, r.message).into()),
    }
}

impl NewMatch {
    /// The engine's request for it.
    fn into_request(self) -> api::internal::CreateMatchRequest {
        let [s0, s1] = &self.seats;
        api::internal::CreateMatchRequest {
            match_id: self.id.to_string(),
            seat0: api_convert::holder_to_proto(s0),
            seat1: api_convert::holder_to_proto(s1),
            game: self.game,
            options_json: self.options_json,
            move_time_ms: self.move_time_ms,
            listed: self.listed,
        }
    }
}

/// A rules-engine client over one channel that authenticates its calls (the services use
/// [`Engines`], which also picks the replica; this is for a direct call).
pub type DirectEngineClient = RulesEngineServiceClient<InterceptedService<Channel, Stamp>>;

/// A client of the engine on `channel`, sending `token`.
pub fn engine_client(channel: Channel, token: Option<&InternalToken>) -> DirectEngineClient {
    RulesEngineServiceClient::with_interceptor(channel, Stamp::new(token))
}
