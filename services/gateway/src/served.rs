//! ColosseumService's route as the gateway serves it: WatchMatch and Play answered by
//! handlers whose messages are written around the engine's stored bytes
//! ([`crate::encoded`]), every other method by the generated server.

use crate::encoded::{PlayMessage, WatchMessage};
use crate::matches::Gateway;
use api::v1::{self, colosseum_service_server as srv};
use futures_util::future::BoxFuture;
use std::task::{Context, Poll};
use tonic::Status;
use tonic::codegen::http;
use tonic::server::Grpc;
use tonic_prost::ProstCodec;

/// ColosseumService as the gateway serves it: WatchMatch and Play answered with the
/// messages above (the engine's bytes as stored), every other method by the generated
/// server (whose own WatchMatch and Play, decoding each message, are never reached).
#[derive(Clone)]
pub struct Served {
    generated: srv::ColosseumServiceServer<Gateway>,
    gateway: Gateway,
}

impl Served {
    /// Serves `gateway`.
    pub fn new(gateway: Gateway) -> Self {
        Served { generated: gateway.clone().into_service(), gateway }
    }
}

impl tonic::server::NamedService for Served {
    const NAME: &'static str = srv::SERVICE_NAME;
}

const WATCH_MATCH: &str = "/colosseum.v1.ColosseumService/WatchMatch";
const PLAY: &str = "/colosseum.v1.ColosseumService/Play";

impl tower::Service<http::Request<tonic::body::Body>> for Served {
    type Response = http::Response<tonic::body::Body>;
    type Error = std::convert::Infallible;
    type Future = BoxFuture<'static, Result<Self::Response, Self::Error>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: http::Request<tonic::body::Body>) -> Self::Future {
        // The generated server's own settings: the request limit, no compression.
        let limit = Some(service_kit::serve::MAX_REQUEST_BYTES);
        let gateway = self.gateway.clone();
        match req.uri().path() {
            WATCH_MATCH => Box::pin(async move {
                let codec = ProstCodec::<WatchMessage, v1::WatchMatchRequest>::default();
                let mut grpc = Grpc::new(codec).apply_max_message_size_config(limit, None);
                Ok(grpc.server_streaming(WatchMatch(gateway), req).await)
            }),
            PLAY => Box::pin(async move {
                let codec = ProstCodec::<PlayMessage, v1::PlayRequest>::default();
                let mut grpc = Grpc::new(codec).apply_max_message_size_config(limit, None);
                Ok(grpc.streaming(Play(gateway), req).await)
            }),
            _ => self.generated.call(req),
        }
    }
}

/// WatchMatch's handler.
struct WatchMatch(Gateway);

impl tonic::server::ServerStreamingService<v1::WatchMatchRequest> for WatchMatch {
    type Response = WatchMessage;
    type ResponseStream = crate::watch::WatchStream;
    type Future = BoxFuture<'static, Result<tonic::Response<Self::ResponseStream>, Status>>;

    fn call(&mut self, req: tonic::Request<v1::WatchMatchRequest>) -> Self::Future {
        let gateway = self.0.clone();
        Box::pin(async move { Ok(tonic::Response::new(gateway.watch_stream(req).await?)) })
    }
}

/// Play's handler.
struct Play(Gateway);

impl tonic::server::StreamingService<v1::PlayRequest> for Play {
    type Response = PlayMessage;
    type ResponseStream = crate::play::PlayStream;
    type Future = BoxFuture<'static, Result<tonic::Response<Self::ResponseStream>, Status>>;

    fn call(&mut self, req: tonic::Request<tonic::Streaming<v1::PlayRequest>>) -> Self::Future {
        let gateway = self.0.clone();
        Box::pin(async move { Ok(tonic::Response::new(crate::play::open(gateway, req)?)) })
    }
}
