//! Serving a gRPC service the house way, through the one harness [`serve`]: grpc.health.v1
//! and server reflection (v1 and v1alpha, which grpcurl needs) beside the service, the
//! edge layer (panics and over-limit messages) outermost, and a graceful stop on a token
//! that drains the requests in flight.

use crate::status::{MAX_QUOTE_CHARS, Reason, refusal_status, truncate};
use futures_util::{FutureExt, StreamExt};
use std::convert::Infallible;
use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tokio_util::sync::CancellationToken;
use tonic::codegen::{Bytes, StdError, http};
use tonic::server::NamedService;
use tonic::service::Routes;
use tonic::{Code, Request, Response, Status};
use tonic_health::pb::health_server::{Health, HealthServer};
use tonic_health::pb::{HealthCheckRequest, HealthCheckResponse, health_check_response};
use tonic_health::server::{HealthReporter, HealthService};
use tower::layer::util::{Identity, Stack};

/// The largest request message a method takes unless [`Services::larger_messages`] says
/// otherwise (proto/colosseum/v1/colosseum.proto's header). Every public field has its own,
/// far smaller, bound: this one only caps what a server buffers before those checks run. A
/// larger message answers RESOURCE_EXHAUSTED (reason `MESSAGE_TOO_LARGE`, metadata
/// `limit_bytes`), checked by the [`EdgeLayer`] on the message's length prefix before any
/// of it is buffered.
pub const MAX_REQUEST_BYTES: usize = 4 << 20;

/// The most a method's own limit may be: each server's tonic decoding limit is at least
/// this for the services that have a larger method, so the edge's check is the one that
/// answers.
pub const MAX_LARGER_REQUEST_BYTES: usize = 8 << 20;

/// The request message limit of each method: [`MAX_REQUEST_BYTES`], or the larger limit
/// listed for its path (`/package.Service/Method`).
#[derive(Clone, Debug, Default)]
pub struct MessageLimits {
    larger: Arc<Vec<(&'static str, usize)>>,
}

impl MessageLimits {
    /// The limit of a request to `path`.
    pub fn for_path(&self, path: &str) -> usize {
        self.larger.iter().find(|(p, _)| *p == path).map_or(MAX_REQUEST_BYTES, |&(_, n)| n)
    }
}

/// The refusal of a request message over `limit` bytes.
pub fn message_too_large(limit: usize) -> Status {
    refusal_status(
        Code::ResourceExhausted,
        format!("the request message is over the limit of {limit} bytes"),
        Reason::MessageTooLarge,
        &[("limit_bytes", limit.to_string())],
        |_| {},
    )
}

/// The health reporter and service; the caller marks its services serving once ready.
/// Watch follows grpc.health.v1: an unknown service gets SERVICE_UNKNOWN and the call
/// stays open, sending the status once the service is registered.
pub fn health() -> (HealthReporter, HealthServer<impl Health>) {
    let reporter = HealthReporter::new();
    let inner = Arc::new(HealthService::from_health_reporter(reporter.clone()));
    let server =
        HealthServer::new(HouseHealth { inner }).max_decoding_message_size(MAX_REQUEST_BYTES);
    (reporter, server)
}

/// How often a Watch on an unknown service looks for it again.
const UNKNOWN_SERVICE_POLL: std::time::Duration = std::time::Duration::from_secs(1);

struct HouseHealth {
    inner: Arc<HealthService>,
}

type HealthStream =
    Pin<Box<dyn futures_util::Stream<Item = Result<HealthCheckResponse, Status>> + Send>>;

fn watch_request(service: &str) -> Request<HealthCheckRequest> {
    Request::new(HealthCheckRequest { service: service.to_string() })
}

#[tonic::async_trait]
impl Health for HouseHealth {
    async fn check(
        &self,
        req: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthCheckResponse>, Status> {
        self.inner.check(req).await
    }

    type WatchStream = HealthStream;

    async fn watch(
        &self,
        req: Request<HealthCheckRequest>,
    ) -> Result<Response<HealthStream>, Status> {
        let service = req.into_inner().service;
        match self.inner.watch(watch_request(&service)).await {
            Ok(known) => Ok(Response::new(Box::pin(known.into_inner()))),
            Err(s) if s.code() == Code::NotFound => {
                let unknown = HealthCheckResponse {
                    status: health_check_response::ServingStatus::ServiceUnknown.into(),
                };
                let inner = self.inner.clone();
                let later = futures_util::stream::once(async move {
                    loop {
                        tokio::time::sleep(UNKNOWN_SERVICE_POLL).await;
                        if let Ok(known) = inner.watch(watch_request(&service)).await {
                            return known.into_inner();
                        }
                    }
                })
                .flatten();
                Ok(Response::new(Box::pin(futures_util::stream::iter([Ok(unknown)]).chain(later))))
            }
            Err(s) => Err(s),
        }
    }
}

/// Reflection v1 over the protos of `descriptors` (an encoded file descriptor set, as
/// `tonic-prost-build` writes it), advertising only `services` (the ones this server
/// serves: a gateway never lists the internal API), health and reflection.
///
/// # Panics
/// If the compiled descriptor set is corrupt (a build bug).
pub fn reflection_v1(
    descriptors: &'static [u8],
    services: &[&str],
) -> tonic_reflection::server::v1::ServerReflectionServer<
    impl tonic_reflection::server::v1::ServerReflection,
> {
    reflection_builder(descriptors, services)
        .build_v1()
        .expect("the compiled descriptor set is valid")
        .max_decoding_message_size(MAX_REQUEST_BYTES)
}

/// Reflection v1alpha (grpcurl still asks for it), advertising as [`reflection_v1`].
///
/// # Panics
/// If the compiled descriptor set is corrupt (a build bug).
pub fn reflection_v1alpha(
    descriptors: &'static [u8],
    services: &[&str],
) -> tonic_reflection::server::v1alpha::ServerReflectionServer<
    impl tonic_reflection::server::v1alpha::ServerReflection,
> {
    reflection_builder(descriptors, services)
        .build_v1alpha()
        .expect("the compiled descriptor set is valid")
        .max_decoding_message_size(MAX_REQUEST_BYTES)
}

fn reflection_builder(
    descriptors: &'static [u8],
    services: &[&str],
) -> tonic_reflection::server::Builder<'static> {
    // Both reflection protos in both versions' servers: each lists the other, and a client
    // (grpcurl) asks either one for every listed service's file (tonic-reflection alone
    // adds only its own version's).
    let mut b = tonic_reflection::server::Builder::configure()
        .include_reflection_service(false)
        .register_encoded_file_descriptor_set(descriptors)
        .register_encoded_file_descriptor_set(tonic_health::pb::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1::FILE_DESCRIPTOR_SET)
        .register_encoded_file_descriptor_set(tonic_reflection::pb::v1alpha::FILE_DESCRIPTOR_SET);
    for name in services.iter().copied().chain([
        "grpc.health.v1.Health",
        "grpc.reflection.v1.ServerReflection",
        "grpc.reflection.v1alpha.ServerReflection",
    ]) {
        b = b.with_service_name(name);
    }
    b
}

/// A token cancelled by ctrl-c or SIGTERM: the binaries pass it, tests pass their own.
pub fn shutdown_on_signal() -> CancellationToken {
    let token = CancellationToken::new();
    let t = token.clone();
    tokio::spawn(async move {
        let ctrl_c = tokio::signal::ctrl_c();
        #[cfg(unix)]
        {
            let mut term =
                match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                    Ok(s) => s,
                    Err(_) => {
                        let _ = ctrl_c.await;
                        t.cancel();
                        return;
                    }
                };
            tokio::select! {
                _ = ctrl_c => {}
                _ = term.recv() => {}
            }
        }
        #[cfg(not(unix))]
        let _ = ctrl_c.await;
        tracing::info!("shutting down");
        t.cancel();
    });
    token
}

/// How many requests one HTTP/2 connection may have open at once. hyper's default is 200,
/// but a watch stream stays open for a whole match: a platform running a few hundred
/// matches over one connection would see its next calls queue behind them (measured:
/// stalls of 50-100 ms under `colosseum load` at 1,000 matches over 8 connections).
pub const MAX_STREAMS_PER_CONNECTION: u32 = 10_000;

/// After this long a connection is asked to go away (HTTP/2 GOAWAY): its streams run on to
/// their end (no grace limit: a WatchMatch is never cut), new calls open a new connection.
/// Without it a client keeps its connections forever and replicas added by an autoscaler
/// get no calls from it.
pub const MAX_CONNECTION_AGE: std::time::Duration = std::time::Duration::from_secs(300);

/// The connection age of servers started from now on in this process, when not
/// [`MAX_CONNECTION_AGE`] (0: that). Process-wide, for tests: a shorter age puts clients
/// through a GOAWAY every few hundred milliseconds instead of every five minutes.
static CONNECTION_AGE_MS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// Servers started from now on in this process ask their connections to go away after
/// `age` instead of [`MAX_CONNECTION_AGE`] (for tests that put clients through GOAWAYs).
pub fn set_max_connection_age(age: std::time::Duration) {
    let ms = u64::try_from(age.as_millis()).unwrap_or(u64::MAX).max(1);
    CONNECTION_AGE_MS.store(ms, std::sync::atomic::Ordering::Relaxed);
}

fn max_connection_age() -> std::time::Duration {
    match CONNECTION_AGE_MS.load(std::sync::atomic::Ordering::Relaxed) {
        0 => MAX_CONNECTION_AGE,
        ms => std::time::Duration::from_millis(ms),
    }
}

/// A server builder with the house settings (see [`MAX_STREAMS_PER_CONNECTION`],
/// [`MAX_CONNECTION_AGE`]), `front` outermost, then the [`EdgeLayer`]: what [`serve`] and
/// [`serve_behind`] build on. A server with a front also takes HTTP/1.1 (browsers' gRPC-Web
/// and pages); one without speaks HTTP/2 only.
fn server<F>(
    front: F,
    http1: bool,
    limits: MessageLimits,
) -> tonic::transport::Server<Stack<EdgeLayer, Stack<F, Identity>>> {
    tonic::transport::Server::builder()
        .max_concurrent_streams(Some(MAX_STREAMS_PER_CONNECTION))
        .max_connection_age(max_connection_age())
        .http2_keepalive_interval(Some(std::time::Duration::from_secs(30)))
        .accept_http1(http1)
        .layer(front)
        .layer(EdgeLayer { limits })
}

/// The outermost layer of every server: a panic in any layer or handler inside it is
/// answered INTERNAL, logged once and counted (`colosseum_panics_total`) instead of
/// resetting the stream; every request message over its method's limit ([`MessageLimits`])
/// is refused RESOURCE_EXHAUSTED (`MESSAGE_TOO_LARGE`, the limit in `limit_bytes`) from its
/// length prefix, before it is buffered, on every method of every server alike (tonic's
/// own OUT_OF_RANGE past its decoding limit, a backstop, is re-coded the same way).
#[derive(Clone, Debug, Default)]
pub struct EdgeLayer {
    limits: MessageLimits,
}

impl<S> tower::Layer<S> for EdgeLayer {
    type Service = Edge<S>;
    fn layer(&self, inner: S) -> Edge<S> {
        Edge { inner, limits: self.limits.clone() }
    }
}

/// The service [`EdgeLayer`] wraps.
#[derive(Clone, Debug)]
pub struct Edge<S> {
    inner: S,
    limits: MessageLimits,
}

type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

impl<S> tower::Service<http::Request<tonic::body::Body>> for Edge<S>
where
    S: tower::Service<
            http::Request<tonic::body::Body>,
            Response = http::Response<tonic::body::Body>,
        >,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<tonic::body::Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<Self::Response, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        let started = crate::time::instant();
        let limit = self.limits.for_path(req.uri().path());
        let req = req.map(|body| tonic::body::Body::new(Bounded::new(body, limit)));
        let path = truncate(req.uri().path().to_string(), 4 * MAX_QUOTE_CHARS);
        let called = std::panic::catch_unwind(AssertUnwindSafe(|| self.inner.call(req)));
        Box::pin(async move {
            let outcome = match called {
                Ok(fut) => AssertUnwindSafe(fut).catch_unwind().await,
                Err(panic) => Err(panic),
            };
            let answer = match outcome {
                Ok(Ok(resp)) => Ok(over_limit(resp, limit)),
                Ok(Err(e)) => Err(e),
                Err(panic) => Ok(panicked(&path, &*panic)),
            };
            if let Ok(resp) = &answer {
                count(&path, resp, started.elapsed().as_secs_f64());
            }
            answer
        })
    }
}

/// Counts an answered request by method and code, and times it. A refusal comes as a
/// trailers-only response (its code in the headers); anything else counts as OK (a stream
/// that fails later says so in its trailers, after this). A path no service routes
/// (UNIMPLEMENTED), or one refused before routing (UNAUTHENTICATED: the auth layers answer
/// any path), is counted as `unknown`, so no client can grow the label set.
fn count(path: &str, resp: &http::Response<tonic::body::Body>, seconds: f64) {
    let code = resp
        .headers()
        .get("grpc-status")
        .and_then(|v| v.to_str().ok()?.parse::<i32>().ok())
        .map_or(Code::Ok, Code::from_i32);
    let method = method_label(path, code);
    let code = crate::status::code_name(code);
    crate::metrics::add_with(
        "colosseum_grpc_requests_total",
        &[("method", method), ("code", code)],
        1,
    );
    crate::metrics::observe(
        "colosseum_grpc_request_duration_seconds",
        &[("method", method)],
        seconds,
    );
}

/// The `method` label of a call to `path` answered `code`: the path only once a service
/// has routed it.
fn method_label(path: &str, code: Code) -> &str {
    match code {
        Code::Unimplemented | Code::Unauthenticated => "unknown",
        _ => path,
    }
}

fn panicked(path: &str, panic: &(dyn std::any::Any + Send)) -> http::Response<tonic::body::Body> {
    let what = panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    crate::metrics::add("colosseum_panics_total", 1);
    tracing::error!(path, panic = %truncate(what, 4096), "a request panicked");
    crate::status::refuse(Code::Internal, "internal error").into_http()
}

/// tonic's own refusal of a request message over its decoding limit (a backstop: the edge
/// refuses first), re-coded as the edge's.
fn over_limit(
    resp: http::Response<tonic::body::Body>,
    limit: usize,
) -> http::Response<tonic::body::Body> {
    let too_large = resp.headers().get("grpc-status").is_some_and(|v| v == "11")
        && Status::from_header_map(resp.headers())
            .is_some_and(|s| s.message().contains("decoded message length too large"));
    if !too_large {
        return resp;
    }
    message_too_large(limit).into_http()
}

/// A request body that fails with [`message_too_large`] as soon as a gRPC message's length
/// prefix (a flag byte, then four bytes big-endian) says it is over `limit`: the handler's
/// decoder gets that status (a unary call answers it, a stream's next read fails with it),
/// and nothing of the message is buffered.
struct Bounded {
    inner: tonic::body::Body,
    limit: usize,
    /// The prefix bytes of the next message read so far.
    prefix: [u8; 5],
    filled: usize,
    /// The bytes of the current message still to pass.
    rest: usize,
}

impl Bounded {
    fn new(inner: tonic::body::Body, limit: usize) -> Bounded {
        Bounded { inner, limit, prefix: [0; 5], filled: 0, rest: 0 }
    }

    /// Follows the message framing through `data`: the first message over the limit, if
    /// one starts here.
    fn scan(&mut self, mut data: &[u8]) -> Result<(), Status> {
        while !data.is_empty() {
            if self.rest > 0 {
                let n = self.rest.min(data.len());
                self.rest -= n;
                data = &data[n..];
                continue;
            }
            let n = (5 - self.filled).min(data.len());
            self.prefix[self.filled..self.filled + n].copy_from_slice(&data[..n]);
            self.filled += n;
            data = &data[n..];
            if self.filled == 5 {
                self.filled = 0;
                let [_, a, b, c, d] = self.prefix;
                let len = u32::from_be_bytes([a, b, c, d]) as usize;
                if len > self.limit {
                    return Err(message_too_large(self.limit));
                }
                self.rest = len;
            }
        }
        Ok(())
    }
}

impl http_body::Body for Bounded {
    type Data = Bytes;
    type Error = Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, Status>>> {
        let frame = std::task::ready!(Pin::new(&mut self.inner).poll_frame(cx));
        if let Some(Ok(frame)) = &frame
            && let Some(data) = frame.data_ref()
            && let Err(refused) = self.scan(data)
        {
            return Poll::Ready(Some(Err(refused)));
        }
        Poll::Ready(frame)
    }

    fn is_end_stream(&self) -> bool {
        self.inner.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.inner.size_hint()
    }
}

/// What one server serves beside health and reflection: its gRPC services (listed by
/// reflection and reported SERVING by health) and any name health alone reports (the
/// clock serves no API, but probes ask whether it runs).
pub struct Services {
    descriptors: &'static [u8],
    routes: Routes,
    names: Vec<&'static str>,
    health_only: Vec<&'static str>,
    larger: Vec<(&'static str, usize)>,
}

impl Services {
    /// Nothing yet; reflection will describe the services from `descriptors` (the
    /// encoded file descriptor set of their protos: `api::FILE_DESCRIPTOR_SET`).
    pub fn new(descriptors: &'static [u8]) -> Self {
        Services {
            descriptors,
            routes: Routes::default(),
            names: Vec::new(),
            health_only: Vec::new(),
            larger: Vec::new(),
        }
    }

    /// Methods (by path, `/package.Service/Method`) whose request messages may be larger
    /// than [`MAX_REQUEST_BYTES`], with their limits (each at most
    /// [`MAX_LARGER_REQUEST_BYTES`]; the service's tonic decoding limit must be at least as
    /// large).
    ///
    /// # Panics
    /// A limit over [`MAX_LARGER_REQUEST_BYTES`] (a build bug).
    #[must_use]
    pub fn larger_messages(mut self, limits: &[(&'static str, usize)]) -> Self {
        for &(path, bytes) in limits {
            assert!(bytes <= MAX_LARGER_REQUEST_BYTES, "{path}: {bytes} bytes is over the most");
            self.larger.push((path, bytes));
        }
        self
    }

    /// Adds a generated service server.
    #[must_use]
    pub fn with<S>(mut self, service: S) -> Self
    where
        S: tower::Service<
                http::Request<tonic::body::Body>,
                Response = http::Response<tonic::body::Body>,
                Error = Infallible,
            > + NamedService
            + Clone
            + Send
            + Sync
            + 'static,
        S::Future: Send + 'static,
    {
        self.names.push(S::NAME);
        self.routes = self.routes.add_service(service);
        self
    }

    /// Adds a name health reports SERVING while the server runs, with no service behind it.
    #[must_use]
    pub fn health_name(mut self, name: &'static str) -> Self {
        self.health_only.push(name);
        self
    }
}

/// The layers of every server: a `front` outermost ([`Identity`] but for the gateway's
/// browser front), the edge, then the service's own `guard` (its authentication;
/// [`Identity`] for none).
pub type Layers<G, F = Identity> = Stack<G, Stack<EdgeLayer, Stack<F, Identity>>>;

/// The one serve harness: serves `services` on `listener` behind [`EdgeLayer`] and
/// `guard`, with health (every service SERVING) and reflection, until `shutdown`; then
/// stops taking connections and drains the requests in flight.
///
/// # Errors
/// The server failed.
pub async fn serve<G, S, B>(
    guard: G,
    services: Services,
    listener: tokio::net::TcpListener,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error>
where
    Layers<G>: tower::Layer<Routes, Service = S> + Clone,
    S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<StdError> + Send,
    B: tonic::codegen::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError>,
{
    serve_with(Identity::new(), false, guard, services, listener, shutdown).await
}

/// As [`serve`], with `front` outside the edge, and HTTP/1.1 taken beside HTTP/2: the
/// gateway's browser front (its page, CORS and gRPC-Web's translation), so every gRPC-Web
/// call meets the same edge, guard and handlers as a native one.
///
/// # Errors
/// The server failed.
pub async fn serve_behind<F, G, S, B>(
    front: F,
    guard: G,
    services: Services,
    listener: tokio::net::TcpListener,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error>
where
    Layers<G, F>: tower::Layer<Routes, Service = S> + Clone,
    S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<StdError> + Send,
    B: tonic::codegen::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError>,
{
    serve_with(front, true, guard, services, listener, shutdown).await
}

async fn serve_with<F, G, S, B>(
    front: F,
    http1: bool,
    guard: G,
    services: Services,
    listener: tokio::net::TcpListener,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error>
where
    Layers<G, F>: tower::Layer<Routes, Service = S> + Clone,
    S: tower::Service<http::Request<tonic::body::Body>, Response = http::Response<B>>
        + Clone
        + Send
        + 'static,
    S::Future: Send,
    S::Error: Into<StdError> + Send,
    B: tonic::codegen::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<StdError>,
{
    let Services { descriptors, routes, names, health_only, larger } = services;
    crate::metrics::describe(crate::metrics::SERVER);
    let (reporter, health_service) = health();
    for name in names.iter().chain(&health_only) {
        reporter.set_service_status(*name, tonic_health::ServingStatus::Serving).await;
    }
    let routes = routes
        .add_service(health_service)
        .add_service(reflection_v1(descriptors, &names))
        .add_service(reflection_v1alpha(descriptors, &names));
    let serving = server(front, http1, MessageLimits { larger: Arc::new(larger) })
        .layer(guard)
        .add_routes(routes)
        .serve_with_incoming_shutdown(incoming(listener), shutdown.clone().cancelled_owned());
    tokio::pin!(serving);
    tokio::select! {
        done = &mut serving => done,
        () = shutdown.cancelled() => {
            // Draining: calls in flight run on, for at most MAX_DRAIN (the chart's
            // termination grace is longer), so a stuck call cannot hold a stop forever.
            match tokio::time::timeout(MAX_DRAIN, &mut serving).await {
                Ok(done) => done,
                Err(_) => {
                    tracing::warn!(drain_s = MAX_DRAIN.as_secs(), "calls still in flight after the drain: stopping anyway");
                    Ok(())
                }
            }
        }
    }
}

/// The longest a stopping server waits for its calls in flight (the chart's
/// `terminationGracePeriodSeconds` must exceed its preStop sleep plus this).
pub const MAX_DRAIN: std::time::Duration = std::time::Duration::from_secs(30);

/// The connections of `listener` as tonic takes them, with TCP_NODELAY set: without it
/// Nagle's algorithm and delayed ACKs hold small gRPC frames back for tens of ms.
pub fn incoming(listener: tokio::net::TcpListener) -> tonic::transport::server::TcpIncoming {
    tonic::transport::server::TcpIncoming::from(listener).with_nodelay(Some(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_health::pb::health_client::HealthClient;
    use tonic_types::StatusExt;

    /// A health service whose Check panics for the service named `panic`.
    struct Panicky;

    #[tonic::async_trait]
    impl Health for Panicky {
        async fn check(
            &self,
            req: Request<HealthCheckRequest>,
        ) -> Result<Response<HealthCheckResponse>, Status> {
            assert!(req.get_ref().service != "panic", "a handler bug");
            Ok(Response::new(HealthCheckResponse {
                status: health_check_response::ServingStatus::Serving.into(),
            }))
        }

        type WatchStream = HealthStream;

        async fn watch(
            &self,
            _req: Request<HealthCheckRequest>,
        ) -> Result<Response<HealthStream>, Status> {
            Err(Status::unimplemented("not here"))
        }
    }

    #[test]
    fn only_routed_paths_become_labels() {
        let path = "/colosseum.v1.ColosseumService/SubmitMove";
        assert_eq!(method_label(path, Code::Ok), path);
        assert_eq!(method_label(path, Code::FailedPrecondition), path);
        // Refused before any routing, or routed nowhere: any path a client makes up.
        assert_eq!(method_label("/x.Y/made-up-1", Code::Unauthenticated), "unknown");
        assert_eq!(method_label("/x.Y/made-up-2", Code::Unimplemented), "unknown");
        assert_eq!(crate::status::code_name(Code::NotFound), "NOT_FOUND");
    }

    #[tokio::test]
    async fn a_panicking_handler_answers_internal_and_the_connection_lives_on() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let server = tokio::spawn(
            server(Identity::new(), false, MessageLimits::default())
                .add_service(HealthServer::new(Panicky))
                .serve_with_incoming_shutdown(incoming(listener), stop.clone().cancelled_owned()),
        );
        let channel =
            tonic::transport::Endpoint::from_shared(url).unwrap().connect().await.unwrap();
        let mut client = HealthClient::new(channel);
        let ask = |s: &str| HealthCheckRequest { service: s.to_string() };
        let before = crate::metrics::metric("colosseum_panics_total")
            .load(std::sync::atomic::Ordering::Relaxed);
        for _ in 0..3 {
            let s = client.check(ask("panic")).await.unwrap_err();
            assert_eq!(s.code(), Code::Internal);
            assert_eq!(s.message(), "internal error");
            // The same connection still serves.
            client.check(ask("ok")).await.expect("the next call on the connection");
        }
        let after = crate::metrics::metric("colosseum_panics_total")
            .load(std::sync::atomic::Ordering::Relaxed);
        assert!(after - before >= 3, "every panic is counted");
        // Each answered call is counted by method and code, and timed.
        let m = crate::metrics::render();
        let check = "method=\"/grpc.health.v1.Health/Check\"";
        assert!(
            m.contains(&format!("colosseum_grpc_requests_total{{{check},code=\"INTERNAL\"}} ")),
            "{m}"
        );
        assert!(
            m.contains(&format!("colosseum_grpc_requests_total{{{check},code=\"OK\"}} ")),
            "{m}"
        );
        assert!(
            m.contains(&format!("colosseum_grpc_request_duration_seconds_count{{{check}}} ")),
            "{m}"
        );
        stop.cancel();
        server.await.unwrap().unwrap();
    }

    #[tokio::test]
    async fn a_request_over_the_limit_is_resource_exhausted() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let (_reporter, service) = health();
        let server = tokio::spawn(
            server(Identity::new(), false, MessageLimits::default())
                .add_service(service)
                .serve_with_incoming_shutdown(incoming(listener), stop.clone().cancelled_owned()),
        );
        let channel =
            tonic::transport::Endpoint::from_shared(url).unwrap().connect().await.unwrap();
        let mut client = HealthClient::new(channel);
        let big = HealthCheckRequest { service: "x".repeat(MAX_REQUEST_BYTES + 1) };
        let s = client.check(big).await.unwrap_err();
        assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
        assert_eq!(crate::status::reason_of_status(&s), Some(Reason::MessageTooLarge));
        let info = s.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.metadata.get("limit_bytes").map(String::as_str), Some("4194304"));
        // Under the limit the service answers (an unknown service: NOT_FOUND).
        let s = client.check(HealthCheckRequest { service: "x".repeat(1000) }).await.unwrap_err();
        assert_eq!(s.code(), Code::NotFound);
        stop.cancel();
        server.await.unwrap().unwrap();
    }

    #[test]
    fn the_framing_is_followed_across_any_split() {
        // Two messages (3 bytes, then 10), then one over the limit of 16, cut everywhere.
        let mut wire = Vec::new();
        for len in [3u32, 10, 17] {
            wire.push(0);
            wire.extend_from_slice(&len.to_be_bytes());
            wire.extend(std::iter::repeat_n(7u8, len.min(10) as usize));
        }
        for cut in 1..wire.len() {
            let mut b = Bounded::new(tonic::body::Body::empty(), 16);
            let first = b.scan(&wire[..cut]);
            let refused = first.and_then(|()| b.scan(&wire[cut..]));
            let s = refused.expect_err("the third message is over the limit");
            assert_eq!(s.code(), Code::ResourceExhausted, "cut at {cut}");
        }
        let mut b = Bounded::new(tonic::body::Body::empty(), 16);
        assert!(b.scan(&wire[..wire.len() - 15]).is_ok(), "the first two pass");
        assert_eq!(MessageLimits::default().for_path("/a.B/C"), MAX_REQUEST_BYTES);
    }

    #[tokio::test]
    async fn a_method_with_a_larger_limit_takes_up_to_it_and_no_more() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let stop = CancellationToken::new();
        let (_reporter, service) = health();
        let service = service.max_decoding_message_size(MAX_LARGER_REQUEST_BYTES);
        let larger = 6 << 20;
        let limits =
            MessageLimits { larger: Arc::new(vec![("/grpc.health.v1.Health/Check", larger)]) };
        let server = tokio::spawn(
            server(Identity::new(), false, limits)
                .add_service(service)
                .serve_with_incoming_shutdown(incoming(listener), stop.clone().cancelled_owned()),
        );
        let channel =
            tonic::transport::Endpoint::from_shared(url).unwrap().connect().await.unwrap();
        let mut client = HealthClient::new(channel).max_encoding_message_size(usize::MAX);
        // Over the default, under its own limit: the service answers (unknown: NOT_FOUND).
        let ok = HealthCheckRequest { service: "x".repeat(5 << 20) };
        assert_eq!(client.check(ok).await.unwrap_err().code(), Code::NotFound);
        let big = HealthCheckRequest { service: "x".repeat(larger) };
        let s = client.check(big).await.unwrap_err();
        assert_eq!(s.code(), Code::ResourceExhausted, "{s:?}");
        let info = s.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.reason, "MESSAGE_TOO_LARGE");
        assert_eq!(info.metadata.get("limit_bytes"), Some(&larger.to_string()));
        // Watch keeps the default limit.
        let s =
            client.watch(HealthCheckRequest { service: "x".repeat(5 << 20) }).await.unwrap_err();
        let info = s.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.metadata.get("limit_bytes"), Some(&MAX_REQUEST_BYTES.to_string()));
        stop.cancel();
        server.await.unwrap().unwrap();
    }
}
