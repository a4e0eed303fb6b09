//! The Connect protocol (connectrpc.com) in front of the gRPC stack: a unary call
//! (`application/proto`) or a server stream (`application/connect+proto`) becomes a gRPC
//! call to the same edge, auth layer and handlers, and its answer becomes Connect's again
//! (a bare message or a JSON error for unary; envelopes and an end-of-stream message for
//! streams). JSON bodies and compression are refused as Connect says (415, unimplemented).

use base64::Engine as _;
use http_body::Frame;
use http_body_util::{BodyExt, Full, Limited};
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use tonic::Code;
use tonic::codegen::{Bytes, http};

type Body = tonic::body::Body;
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// The most a unary Connect request's body may be before the edge sees it: the largest
/// method limit (the edge then applies each method's own to the message's length).
const MAX_UNARY_BODY: usize = service_kit::serve::MAX_LARGER_REQUEST_BYTES + 1;
/// The most bytes a unary answer is read to before it is turned into Connect's form.
const MAX_UNARY_ANSWER: usize = 64 << 20;

/// Which Connect call a request is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `application/proto`: one message each way, not enveloped.
    Unary,
    /// `application/connect+proto`: enveloped messages, then an end-of-stream message.
    Stream,
}

fn base_type(content_type: &str) -> &str {
    content_type.split(';').next().unwrap_or_default().trim()
}

/// The Connect call `content_type` names, if it names one this gateway serves.
pub fn kind(content_type: &str) -> Option<Kind> {
    match base_type(content_type) {
        "application/proto" => Some(Kind::Unary),
        "application/connect+proto" => Some(Kind::Stream),
        _ => None,
    }
}

/// Whether `content_type` is a Connect call with JSON bodies (refused: protobuf only).
pub fn is_json(content_type: &str) -> bool {
    matches!(base_type(content_type), "application/json" | "application/connect+json")
}

/// Whether a request is a Connect call (served or refused here).
pub fn is_connect(req: &http::Request<Body>) -> bool {
    content_type(req).is_some_and(|ct| kind(ct).is_some() || is_json(ct))
}

fn content_type(req: &http::Request<Body>) -> Option<&str> {
    req.headers().get(http::header::CONTENT_TYPE)?.to_str().ok()
}

/// The layer: Connect calls translated, everything else passed on untouched.
#[derive(Clone, Copy, Debug, Default)]
pub struct ConnectLayer;

impl<S> tower::Layer<S> for ConnectLayer {
    type Service = Connect<S>;
    fn layer(&self, inner: S) -> Connect<S> {
        Connect { inner }
    }
}

/// The service [`ConnectLayer`] wraps.
#[derive(Clone, Debug)]
pub struct Connect<S> {
    inner: S,
}

impl<S> tower::Service<http::Request<Body>> for Connect<S>
where
    S: tower::Service<http::Request<Body>, Response = http::Response<Body>>
        + Clone
        + Send
        + 'static,
    S::Future: Send + 'static,
    S::Error: Send + 'static,
{
    type Response = http::Response<Body>;
    type Error = S::Error;
    type Future = BoxFuture<Result<http::Response<Body>, S::Error>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, req: http::Request<Body>) -> Self::Future {
        if req.method() == http::Method::POST && content_type(&req).is_some_and(is_json) {
            return Box::pin(async { Ok(json_refusal()) });
        }
        let kind = content_type(&req).and_then(kind);
        let Some(kind) = kind.filter(|_| req.method() == http::Method::POST) else {
            return Box::pin(self.inner.call(req));
        };
        // The service polled ready is the one called: take it, leave a clone.
        let clone = self.inner.clone();
        let mut inner = std::mem::replace(&mut self.inner, clone);
        Box::pin(async move {
            if let Some(refused) = refusal(&req, kind) {
                return Ok(refused);
            }
            let (mut parts, body) = req.into_parts();
            to_grpc_headers(&mut parts.headers);
            parts.version = http::Version::HTTP_2;
            let body = match kind {
                Kind::Unary => {
                    let bytes = match Limited::new(body, MAX_UNARY_BODY).collect().await {
                        Ok(c) => c.to_bytes(),
                        Err(e) => {
                            return Ok(error_response(&unread(&*e), &http::HeaderMap::new()));
                        }
                    };
                    Body::new(Full::new(envelope(0, &bytes)))
                }
                Kind::Stream => body,
            };
            let resp = inner.call(http::Request::from_parts(parts, body)).await?;
            Ok(match kind {
                Kind::Unary => unary_answer(resp).await,
                Kind::Stream => stream_answer(resp),
            })
        })
    }
}

/// Why a request body read whole (bounded by `Limited`) could not be: over the largest
/// method limit (the edge's own refusal), or ended by the client before its end.
pub(crate) fn unread(e: &(dyn std::error::Error + Send + Sync + 'static)) -> tonic::Status {
    if e.is::<http_body_util::LengthLimitError>() {
        service_kit::serve::message_too_large(service_kit::serve::MAX_LARGER_REQUEST_BYTES)
    } else {
        tonic::Status::cancelled("the request body ended unfinished")
    }
}

/// A JSON Connect call's answer: 415, as Connect says for a codec a server lacks.
fn json_refusal() -> http::Response<Body> {
    let mut resp = plain_error(
        http::StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unimplemented",
        "this gateway speaks Connect with protobuf bodies only (application/proto, \
         application/connect+proto)",
    );
    resp.headers_mut().insert(
        "accept-post",
        http::HeaderValue::from_static("application/proto, application/connect+proto"),
    );
    resp
}

/// A compressed Connect call's answer (unimplemented): bodies are served uncompressed.
fn refusal(req: &http::Request<Body>, kind: Kind) -> Option<http::Response<Body>> {
    let encoding = match kind {
        Kind::Unary => "content-encoding",
        Kind::Stream => "connect-content-encoding",
    };
    let compressed = req.headers().get(encoding).is_some_and(|v| v != "identity");
    compressed.then(|| {
        plain_error(
            http::StatusCode::NOT_IMPLEMENTED,
            "unimplemented",
            "compressed Connect bodies are not served: send them uncompressed",
        )
    })
}

/// A Connect request's headers as gRPC's: its content type, trailers, and its timeout.
fn to_grpc_headers(h: &mut http::HeaderMap) {
    h.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/grpc+proto"));
    h.insert(http::header::TE, http::HeaderValue::from_static("trailers"));
    h.remove(http::header::CONTENT_LENGTH);
    h.remove("connect-protocol-version");
    if let Some(ms) = h.remove("connect-timeout-ms") {
        // Connect allows up to 10 digits of milliseconds; gRPC's timeout at most 8.
        let ms = ms.to_str().ok().and_then(|v| v.parse::<u64>().ok());
        if let Some(ms) = ms.filter(|ms| *ms <= 99_999_999)
            && let Ok(v) = http::HeaderValue::from_str(&format!("{ms}m"))
        {
            h.insert("grpc-timeout", v);
        }
    }
}

fn envelope(flags: u8, msg: &[u8]) -> Bytes {
    let len = u32::try_from(msg.len()).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(5 + msg.len());
    out.push(flags);
    out.extend_from_slice(&len.to_be_bytes());
    out.extend_from_slice(msg);
    out.into()
}

/// The gRPC status an answer ended with: from its trailers, or its headers when it was
/// trailers-only (an early refusal).
fn status_of(headers: &http::HeaderMap, trailers: Option<&http::HeaderMap>) -> tonic::Status {
    trailers
        .and_then(tonic::Status::from_header_map)
        .or_else(|| tonic::Status::from_header_map(headers))
        .unwrap_or_else(|| tonic::Status::internal("the answer ended without a status"))
}

/// Connect's name of a gRPC code.
fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "ok",
        Code::Cancelled => "canceled",
        Code::Unknown => "unknown",
        Code::InvalidArgument => "invalid_argument",
        Code::DeadlineExceeded => "deadline_exceeded",
        Code::NotFound => "not_found",
        Code::AlreadyExists => "already_exists",
        Code::PermissionDenied => "permission_denied",
        Code::ResourceExhausted => "resource_exhausted",
        Code::FailedPrecondition => "failed_precondition",
        Code::Aborted => "aborted",
        Code::OutOfRange => "out_of_range",
        Code::Unimplemented => "unimplemented",
        Code::Internal => "internal",
        Code::Unavailable => "unavailable",
        Code::DataLoss => "data_loss",
        Code::Unauthenticated => "unauthenticated",
    }
}

/// The HTTP status Connect gives a unary error of `code`.
fn http_status(code: Code) -> http::StatusCode {
    use http::StatusCode as H;
    match code {
        Code::Ok => H::OK,
        Code::Cancelled => H::from_u16(499).unwrap_or(H::BAD_REQUEST),
        Code::InvalidArgument | Code::FailedPrecondition | Code::OutOfRange => H::BAD_REQUEST,
        Code::DeadlineExceeded => H::GATEWAY_TIMEOUT,
        Code::NotFound => H::NOT_FOUND,
        Code::AlreadyExists | Code::Aborted => H::CONFLICT,
        Code::PermissionDenied => H::FORBIDDEN,
        Code::ResourceExhausted => H::TOO_MANY_REQUESTS,
        Code::Unimplemented => H::NOT_IMPLEMENTED,
        Code::Unknown | Code::Internal | Code::DataLoss => H::INTERNAL_SERVER_ERROR,
        Code::Unavailable => H::SERVICE_UNAVAILABLE,
        Code::Unauthenticated => H::UNAUTHORIZED,
    }
}

/// Connect's JSON error: the code, the message, and the status details (ErrorInfo,
/// BadRequest) each as its type and base64 bytes.
fn error_json(status: &tonic::Status) -> serde_json::Value {
    let b64 = base64::engine::general_purpose::STANDARD_NO_PAD;
    let details: Vec<serde_json::Value> = if status.details().is_empty() {
        Vec::new()
    } else {
        <tonic_types::Status as prost::Message>::decode(status.details())
            .map(|s| s.details)
            .unwrap_or_default()
            .into_iter()
            .map(|any| {
                let ty = any.type_url.rsplit('/').next().unwrap_or_default().to_string();
                serde_json::json!({ "type": ty, "value": b64.encode(&any.value) })
            })
            .collect()
    };
    let mut e =
        serde_json::json!({ "code": code_name(status.code()), "message": status.message() });
    if !details.is_empty() {
        e["details"] = serde_json::Value::Array(details);
    }
    e
}

/// The metadata a Connect client reads: everything but the gRPC framing's own headers.
fn metadata(h: &http::HeaderMap) -> impl Iterator<Item = (&http::HeaderName, &http::HeaderValue)> {
    h.iter().filter(|(k, _)| {
        let k = k.as_str();
        !(k.starts_with("grpc-") || k == "content-type" || k == "content-length" || k == "te")
    })
}

fn plain_error(status: http::StatusCode, code: &str, message: &str) -> http::Response<Body> {
    let body = serde_json::json!({ "code": code, "message": message }).to_string();
    let mut resp = http::Response::new(Body::new(Full::new(Bytes::from(body))));
    *resp.status_mut() = status;
    resp.headers_mut()
        .insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    resp
}

fn error_response(status: &tonic::Status, headers: &http::HeaderMap) -> http::Response<Body> {
    let mut resp =
        http::Response::new(Body::new(Full::new(Bytes::from(error_json(status).to_string()))));
    *resp.status_mut() = http_status(status.code());
    let h = resp.headers_mut();
    for (k, v) in metadata(headers) {
        h.append(k.clone(), v.clone());
    }
    h.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/json"));
    resp
}

/// A unary gRPC answer as Connect's: the bare message (200) or a JSON error.
async fn unary_answer(resp: http::Response<Body>) -> http::Response<Body> {
    let (parts, body) = resp.into_parts();
    let collected = match Limited::new(body, MAX_UNARY_ANSWER).collect().await {
        Ok(c) => c,
        Err(_) => {
            return error_response(
                &tonic::Status::internal("the answer could not be read"),
                &parts.headers,
            );
        }
    };
    let trailers = collected.trailers().cloned();
    let status = status_of(&parts.headers, trailers.as_ref());
    if status.code() != Code::Ok {
        return error_response(&status, &parts.headers);
    }
    let bytes = collected.to_bytes();
    let msg = if bytes.len() >= 5 { bytes.slice(5..) } else { Bytes::new() };
    let mut out = http::Response::new(Body::new(Full::new(msg)));
    let h = out.headers_mut();
    for (k, v) in metadata(&parts.headers) {
        h.append(k.clone(), v.clone());
    }
    if let Some(t) = &trailers {
        for (k, v) in metadata(t) {
            if let Ok(name) = http::HeaderName::from_bytes(format!("trailer-{k}").as_bytes()) {
                h.append(name, v.clone());
            }
        }
    }
    h.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static("application/proto"));
    out
}

/// A streaming gRPC answer as Connect's: its envelopes as they come, then the
/// end-of-stream message (flag 2) with the status, always HTTP 200.
fn stream_answer(resp: http::Response<Body>) -> http::Response<Body> {
    let (mut parts, body) = resp.into_parts();
    let head = std::mem::take(&mut parts.headers);
    for (k, v) in metadata(&head) {
        parts.headers.append(k.clone(), v.clone());
    }
    parts.headers.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/connect+proto"),
    );
    parts.status = http::StatusCode::OK;
    http::Response::from_parts(parts, Body::new(EndStream { inner: body, head, ended: false }))
}

/// A gRPC response body with its trailers turned into Connect's end-of-stream message.
struct EndStream {
    inner: Body,
    /// The response's headers: a trailers-only answer's status is here.
    head: http::HeaderMap,
    ended: bool,
}

impl EndStream {
    fn end_message(&mut self, trailers: Option<&http::HeaderMap>) -> Frame<Bytes> {
        self.ended = true;
        let status = status_of(&self.head, trailers);
        let mut meta = serde_json::Map::new();
        if let Some(t) = trailers {
            for (k, v) in metadata(t) {
                if let Ok(v) = v.to_str() {
                    let entry = meta
                        .entry(k.as_str().to_string())
                        .or_insert_with(|| serde_json::Value::Array(Vec::new()));
                    if let serde_json::Value::Array(a) = entry {
                        a.push(serde_json::Value::String(v.to_string()));
                    }
                }
            }
        }
        let mut end = serde_json::json!({ "metadata": meta });
        if status.code() != Code::Ok {
            end["error"] = error_json(&status);
        }
        Frame::data(envelope(2, end.to_string().as_bytes()))
    }
}

impl http_body::Body for EndStream {
    type Data = Bytes;
    type Error = tonic::Status;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, tonic::Status>>> {
        if self.ended {
            return Poll::Ready(None);
        }
        match std::task::ready!(Pin::new(&mut self.inner).poll_frame(cx)) {
            Some(Ok(frame)) => match frame.into_trailers() {
                Ok(trailers) => Poll::Ready(Some(Ok(self.end_message(Some(&trailers))))),
                Err(frame) => Poll::Ready(Some(Ok(frame))),
            },
            Some(Err(e)) => {
                let status = tonic::Status::from_error(e.into());
                let mut t = http::HeaderMap::new();
                if status.add_header(&mut t).is_ok() {
                    Poll::Ready(Some(Ok(self.end_message(Some(&t)))))
                } else {
                    Poll::Ready(Some(Ok(self.end_message(None))))
                }
            }
            None => Poll::Ready(Some(Ok(self.end_message(None)))),
        }
    }

    fn is_end_stream(&self) -> bool {
        self.ended
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn content_types_name_the_call() {
        assert_eq!(kind("application/proto"), Some(Kind::Unary));
        assert_eq!(kind("application/connect+proto; charset=utf-8"), Some(Kind::Stream));
        assert_eq!(kind("application/json"), None);
        assert!(is_json("application/json") && is_json("application/connect+json"));
        assert_eq!(kind("application/grpc-web+proto"), None);
        assert_eq!(kind("application/grpc"), None);
    }

    #[test]
    fn errors_carry_connect_codes_and_details() {
        let refused = service_kit::serve::message_too_large(4 << 20);
        let json = error_json(&refused);
        assert_eq!(json["code"], "resource_exhausted");
        assert_eq!(json["details"][0]["type"], "google.rpc.ErrorInfo");
        assert_eq!(http_status(refused.code()), http::StatusCode::TOO_MANY_REQUESTS);
        assert_eq!(http_status(Code::Unauthenticated), http::StatusCode::UNAUTHORIZED);
    }

    #[test]
    fn timeouts_become_grpc_timeouts() {
        let mut h = http::HeaderMap::new();
        h.insert("connect-timeout-ms", http::HeaderValue::from_static("1500"));
        h.insert(http::header::CONTENT_LENGTH, http::HeaderValue::from_static("3"));
        to_grpc_headers(&mut h);
        assert_eq!(h.get("grpc-timeout").unwrap(), "1500m");
        assert!(h.get(http::header::CONTENT_LENGTH).is_none());
        assert_eq!(h.get(http::header::CONTENT_TYPE).unwrap(), "application/grpc+proto");
    }
}
