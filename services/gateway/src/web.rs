//! The gateway's browser front, outermost on its one port: the web client's files (under a
//! strict Content-Security-Policy), CORS for the origins configured beside the page's own,
//! and the origin check; every gRPC-Web call goes on through tonic-web's translation, and
//! every Connect call through [`crate::connect`]'s, to the same edge, auth layer and
//! handlers as a native gRPC call.

use http_body_util::{BodyExt, Full, Limited};
use std::collections::BTreeMap;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use tonic::codegen::{Bytes, http};

/// The page's Content-Security-Policy: its own script and styles only (no inline script or
/// style), calls to its own origin only, no framing, no plugins.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; script-src 'self'; \
     style-src 'self'; img-src 'self' data: blob:; connect-src 'self'; font-src 'self'; \
     manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// The request headers a browser client may send cross-origin (gRPC-Web's and the
/// Connect protocol's, and the session's `authorization`).
const ALLOW_HEADERS: &str = "authorization, content-type, x-grpc-web, x-user-agent, \
     grpc-timeout, connect-protocol-version, connect-timeout-ms, idempotency-key";
/// The response headers a cross-origin client may read: the status and its details.
const EXPOSE_HEADERS: &str =
    "grpc-status, grpc-message, grpc-status-details-bin, colosseum-error-code";
/// How long a browser may keep a preflight's answer.
const PREFLIGHT_MAX_AGE_S: &str = "600";
/// The most bytes of one origin a configuration may name (an origin is a scheme, a host and
/// a port).
const MAX_ORIGIN_BYTES: usize = 256;

/// Counts what the front answered itself, by kind.
pub const WEB_REQUESTS: &str = "colosseum_gateway_web_requests_total";

/// What the front serves: the web client's files, and which other origins may call.
#[derive(Clone, Debug, Default)]
pub struct Web {
    files: Arc<BTreeMap<String, File>>,
    root: Option<PathBuf>,
    origins: Arc<Vec<String>>,
}

#[derive(Debug)]
struct File {
    bytes: Bytes,
    content_type: &'static str,
}

impl Web {
    /// No files (the API alone; `/` answers 404 saying so), no other origins.
    pub fn none() -> Web {
        Web::default()
    }

    /// The front as the environment says: `WEB_ROOT` (the built web client's directory,
    /// web/dist), or when unset the first `web/dist` holding an index.html in the working
    /// directory or above the running binary (so `make run` finds it in the checkout);
    /// `WEB_ORIGINS`, comma-separated origins (`https://play.example.com`) whose pages may
    /// call the API cross-origin (none by default: the web client is served from the
    /// gateway's own origin and needs none).
    ///
    /// # Errors
    /// `WEB_ROOT` names no readable directory with an index.html, or an origin is malformed.
    pub fn from_env() -> Result<Web, String> {
        let root = match service_kit::config::optional("WEB_ROOT") {
            Some(dir) => Some(PathBuf::from(dir)),
            None => find_web_root(),
        };
        let origins = match service_kit::config::optional("WEB_ORIGINS") {
            Some(list) => parse_origins(&list)?,
            None => Vec::new(),
        };
        let web = match root {
            Some(dir) => Web::serving(&dir)?,
            None => Web::none(),
        };
        Ok(web.allowing(origins))
    }

    /// The files of `dir` (its top level: the bundle is a handful of files), read once now.
    ///
    /// # Errors
    /// `dir` cannot be read or has no index.html.
    pub fn serving(dir: &Path) -> Result<Web, String> {
        let mut files = BTreeMap::new();
        let entries = std::fs::read_dir(dir)
            .map_err(|e| format!("WEB_ROOT {}: cannot read: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            let Some(name) = path.file_name().and_then(|n| n.to_str()) else { continue };
            let Some(content_type) = content_type(name) else { continue };
            if !path.is_file() {
                continue;
            }
            let bytes = std::fs::read(&path)
                .map_err(|e| format!("WEB_ROOT {}: cannot read: {e}", path.display()))?;
            files.insert(format!("/{name}"), File { bytes: bytes.into(), content_type });
        }
        if !files.contains_key("/index.html") {
            return Err(format!(
                "WEB_ROOT {}: no index.html (build the web client: make web)",
                dir.display()
            ));
        }
        Ok(Web { files: Arc::new(files), root: Some(dir.to_path_buf()), origins: Arc::default() })
    }

    /// The same front, also answering CORS for `origins`.
    #[must_use]
    pub fn allowing(mut self, origins: Vec<String>) -> Web {
        self.origins = Arc::new(origins);
        self
    }

    /// The directory the page's files came from, if any.
    pub fn root(&self) -> Option<&Path> {
        self.root.as_deref()
    }

    /// Whether the web client is served.
    pub fn serves_page(&self) -> bool {
        self.files.contains_key("/index.html")
    }

    fn file(&self, path: &str) -> Option<&File> {
        let path = if path == "/" { "/index.html" } else { path };
        self.files.get(path)
    }

    fn configured(&self, origin: &str) -> bool {
        self.origins.iter().any(|o| o == origin)
    }
}

/// The web client's directory when WEB_ROOT is unset: `web/dist` in the working directory,
/// or in a directory above the running binary (target/release/colosseum in a checkout).
fn find_web_root() -> Option<PathBuf> {
    let here = std::env::current_dir().ok();
    let exe = std::env::current_exe().ok();
    let candidates = here.iter().chain(exe.iter()).flat_map(|p| p.ancestors().take(5));
    candidates.map(|dir| dir.join("web").join("dist")).find(|d| d.join("index.html").is_file())
}

/// The origins of `WEB_ORIGINS`: each `scheme://host[:port]`, nothing after it.
fn parse_origins(list: &str) -> Result<Vec<String>, String> {
    let mut out = Vec::new();
    for (i, raw) in list.split(',').map(str::trim).filter(|s| !s.is_empty()).enumerate() {
        let ok = raw.len() <= MAX_ORIGIN_BYTES
            && (raw.starts_with("http://") || raw.starts_with("https://"))
            && raw.split_once("://").is_some_and(|(_, rest)| {
                !rest.is_empty()
                    && !rest.contains('/')
                    && rest.chars().all(|c| c.is_ascii_alphanumeric() || ".-:[]".contains(c))
            });
        if !ok {
            return Err(format!(
                "WEB_ORIGINS entry {}: not an origin like https://play.example.com (a scheme, \
                 a host and an optional port, no path)",
                i + 1
            ));
        }
        out.push(raw.to_ascii_lowercase());
    }
    Ok(out)
}

fn content_type(name: &str) -> Option<&'static str> {
    let ext = name.rsplit_once('.')?.1;
    Some(match ext {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "json" => "application/json",
        "txt" => "text/plain; charset=utf-8",
        _ => return None,
    })
}

impl<S> tower::Layer<S> for Web {
    type Service = Front<S>;
    fn layer(&self, inner: S) -> Front<S> {
        Front { inner, web: self.clone() }
    }
}

/// The service [`Web`] wraps around the gRPC stack.
#[derive(Clone, Debug)]
pub struct Front<S> {
    inner: S,
    web: Web,
}

type Body = tonic::body::Body;
type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send>>;

/// How the front treats a request's `Origin`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Origin {
    /// None sent (not a browser, or a same-origin GET), or the page's own.
    Own,
    /// A configured other origin: answered with CORS headers.
    Allowed,
    /// Any other origin: refused.
    Refused,
}

impl<S> Front<S> {
    fn origin(&self, req: &http::Request<Body>) -> Origin {
        let Some(origin) = req.headers().get(http::header::ORIGIN) else { return Origin::Own };
        let Ok(origin) = origin.to_str() else { return Origin::Refused };
        let origin = origin.to_ascii_lowercase();
        let host = req
            .headers()
            .get(http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .or_else(|| req.uri().authority().map(http::uri::Authority::as_str));
        let own = host.is_some_and(|host| {
            let host = host.to_ascii_lowercase();
            origin == format!("http://{host}") || origin == format!("https://{host}")
        });
        if own {
            Origin::Own
        } else if self.web.configured(&origin) {
            Origin::Allowed
        } else {
            Origin::Refused
        }
    }
}

/// The most bytes of a gRPC-Web request over HTTP/1.1 read before it goes on: one message
/// at the largest method limit, base64 as gRPC-Web's text form sends it.
const MAX_HTTP1_BODY: usize = (service_kit::serve::MAX_LARGER_REQUEST_BYTES + 5) * 4 / 3 + 8;

/// Whether a call's body is read whole before it goes on: gRPC-Web over HTTP/1.1. A browser
/// cannot stream a request body there anyway, and an answer sent while the upload is still
/// coming (the edge's refusal of a message over its limit, from its length prefix) races the
/// client's write: the browser then sees a reset, not the refusal.
fn whole_body_first(req: &http::Request<Body>) -> bool {
    req.version() < http::Version::HTTP_2
        && req
            .headers()
            .get(http::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|ct| ct.starts_with("application/grpc-web"))
}

/// The gRPC-Web answer to a body that could not be read whole: over the largest limit
/// (RESOURCE_EXHAUSTED, as the edge says), or ended by the client.
fn unread(e: &(dyn std::error::Error + Send + Sync + 'static)) -> http::Response<Body> {
    let mut resp = crate::connect::unread(e).into_http::<Body>();
    resp.headers_mut().insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("application/grpc-web+proto"),
    );
    resp
}

/// A call for the API: gRPC, gRPC-Web or Connect (anything else is the page's).
fn is_rpc(req: &http::Request<Body>) -> bool {
    let grpc = req
        .headers()
        .get(http::header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|ct| ct.starts_with("application/grpc"));
    grpc || crate::connect::is_connect(req)
}

fn count(kind: &'static str) {
    service_kit::metrics::add_with(WEB_REQUESTS, &[("kind", kind)], 1);
}

fn plain(status: http::StatusCode, text: &'static str) -> http::Response<Body> {
    let mut resp = http::Response::new(Body::new(Full::new(Bytes::from_static(text.as_bytes()))));
    *resp.status_mut() = status;
    let h = resp.headers_mut();
    h.insert(
        http::header::CONTENT_TYPE,
        http::HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    h.insert("x-content-type-options", http::HeaderValue::from_static("nosniff"));
    resp
}

fn cors_headers(resp: &mut http::Response<Body>, origin: &http::HeaderValue) {
    let h = resp.headers_mut();
    h.insert(http::header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
    h.insert(http::header::VARY, http::HeaderValue::from_static("origin"));
    h.insert(
        http::header::ACCESS_CONTROL_EXPOSE_HEADERS,
        http::HeaderValue::from_static(EXPOSE_HEADERS),
    );
}

impl<S> Front<S> {
    fn file(&self, req: &http::Request<Body>) -> http::Response<Body> {
        let Some(file) = self.web.file(req.uri().path()) else {
            count("not_found");
            return if self.web.serves_page() {
                plain(http::StatusCode::NOT_FOUND, "not found\n")
            } else {
                plain(
                    http::StatusCode::NOT_FOUND,
                    "this gateway serves the gRPC API only: WEB_ROOT names no web client\n",
                )
            };
        };
        count("file");
        let body =
            if req.method() == http::Method::HEAD { Bytes::new() } else { file.bytes.clone() };
        let mut resp = http::Response::new(Body::new(Full::new(body)));
        let h = resp.headers_mut();
        h.insert(http::header::CONTENT_TYPE, http::HeaderValue::from_static(file.content_type));
        h.insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(file.bytes.len()));
        // The bundle's names carry no hash: a browser asks again each time (cheap: the
        // gateway holds the files in memory).
        h.insert(http::header::CACHE_CONTROL, http::HeaderValue::from_static("no-cache"));
        h.insert(
            http::header::CONTENT_SECURITY_POLICY,
            http::HeaderValue::from_static(CONTENT_SECURITY_POLICY),
        );
        h.insert("x-content-type-options", http::HeaderValue::from_static("nosniff"));
        h.insert(http::header::REFERRER_POLICY, http::HeaderValue::from_static("no-referrer"));
        h.insert("x-frame-options", http::HeaderValue::from_static("DENY"));
        h.insert("cross-origin-opener-policy", http::HeaderValue::from_static("same-origin"));
        resp
    }

    fn preflight(&self, req: &http::Request<Body>, origin: Origin) -> http::Response<Body> {
        let value = req.headers().get(http::header::ORIGIN).cloned();
        match (origin, value) {
            (Origin::Allowed, Some(value)) => {
                count("preflight");
                let mut resp = plain(http::StatusCode::NO_CONTENT, "");
                cors_headers(&mut resp, &value);
                let h = resp.headers_mut();
                h.insert(
                    http::header::ACCESS_CONTROL_ALLOW_METHODS,
                    http::HeaderValue::from_static("POST, OPTIONS"),
                );
                h.insert(
                    http::header::ACCESS_CONTROL_ALLOW_HEADERS,
                    http::HeaderValue::from_static(ALLOW_HEADERS),
                );
                h.insert(
                    http::header::ACCESS_CONTROL_MAX_AGE,
                    http::HeaderValue::from_static(PREFLIGHT_MAX_AGE_S),
                );
                resp
            }
            (Origin::Own | Origin::Allowed | Origin::Refused, _) => {
                count("origin_refused");
                plain(http::StatusCode::FORBIDDEN, "this origin may not call the API\n")
            }
        }
    }
}

impl<S> tower::Service<http::Request<Body>> for Front<S>
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
        let origin = self.origin(&req);
        if is_rpc(&req) {
            // Native gRPC and gRPC-Web alike: the same stack; a browser on another origin
            // only where configured (its preflight would have failed, but a server does
            // not rely on the browser alone).
            if origin == Origin::Refused {
                count("origin_refused");
                let refused =
                    plain(http::StatusCode::FORBIDDEN, "this origin may not call the API\n");
                return Box::pin(async move { Ok(refused) });
            }
            let allowed = (origin == Origin::Allowed)
                .then(|| req.headers().get(http::header::ORIGIN).cloned())
                .flatten();
            let with_cors = move |mut resp: http::Response<Body>| {
                if let Some(value) = &allowed {
                    cors_headers(&mut resp, value);
                }
                resp
            };
            if !whole_body_first(&req) {
                let fut = self.inner.call(req);
                return Box::pin(async move { Ok(with_cors(fut.await?)) });
            }
            // The service polled ready is the one called: take it, leave a clone.
            let clone = self.inner.clone();
            let mut inner = std::mem::replace(&mut self.inner, clone);
            return Box::pin(async move {
                let (parts, body) = req.into_parts();
                let body = match Limited::new(body, MAX_HTTP1_BODY).collect().await {
                    Ok(c) => Body::new(Full::new(c.to_bytes())),
                    Err(e) => return Ok(with_cors(unread(&*e))),
                };
                let resp = inner.call(http::Request::from_parts(parts, body)).await?;
                Ok(with_cors(resp))
            });
        }
        let resp = match *req.method() {
            http::Method::OPTIONS => self.preflight(&req, origin),
            http::Method::GET | http::Method::HEAD => self.file(&req),
            _ => {
                count("bad_method");
                plain(http::StatusCode::METHOD_NOT_ALLOWED, "not a gRPC or gRPC-Web call\n")
            }
        };
        Box::pin(async move { Ok(resp) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins_are_checked_when_configured() {
        assert_eq!(
            parse_origins(" https://play.example.com, http://127.0.0.1:8080 ").unwrap(),
            vec!["https://play.example.com".to_string(), "http://127.0.0.1:8080".to_string()]
        );
        assert!(parse_origins("").unwrap().is_empty());
        for bad in
            ["play.example.com", "https://x.com/path", "ftp://x.com", "https://", "https://a b"]
        {
            let e = parse_origins(bad).unwrap_err();
            assert!(e.contains("entry 1"), "{bad}: {e}");
        }
        let long = format!("https://{}", "a".repeat(300));
        let e = parse_origins(&format!("https://ok.example, {long}")).unwrap_err();
        assert!(e.contains("entry 2") && !e.contains(&long), "named, not echoed: {e}");
    }

    #[test]
    fn every_served_file_has_a_type() {
        assert_eq!(content_type("app.js"), Some("text/javascript; charset=utf-8"));
        assert_eq!(content_type("index.html"), Some("text/html; charset=utf-8"));
        assert_eq!(content_type("notes.md"), None);
        assert_eq!(content_type("Makefile"), None);
    }
}
