//! `/metrics`, `/healthz` and `/readyz` over plain HTTP, for scrapers and orchestrators:
//! the registry rendered as Prometheus text, whether the process is up, and whether its
//! dependencies answer.

use super::render;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A readiness check: resolves to an error message when a dependency does not answer.
pub type Ready =
    Arc<dyn Fn() -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>> + Send + Sync>;

/// Serves `/metrics`, `/healthz` and `/readyz` on `listener` until `shutdown`.
pub async fn serve(listener: TcpListener, ready: Ready, shutdown: CancellationToken) {
    loop {
        let (mut sock, _) = tokio::select! {
            _ = shutdown.cancelled() => return,
            a = listener.accept() => match a { Ok(a) => a, Err(_) => continue },
        };
        let ready = ready.clone();
        tokio::spawn(async move {
            let mut buf = [0u8; 1024];
            let n = sock.read(&mut buf).await.unwrap_or(0);
            let line = String::from_utf8_lossy(&buf[..n]);
            let path = line.split_whitespace().nth(1).unwrap_or("/");
            let (status, body) = match path {
                "/metrics" => ("200 OK", render()),
                "/healthz" => ("200 OK", "ok\n".to_string()),
                "/readyz" => match ready().await {
                    Ok(()) => ("200 OK", "ready\n".to_string()),
                    Err(e) => ("503 Service Unavailable", format!("not ready: {e}\n")),
                },
                _ => ("404 Not Found", "try /metrics, /healthz or /readyz\n".to_string()),
            };
            let resp = format!(
                "HTTP/1.1 {status}\r\ncontent-type: text/plain; version=0.0.4\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = sock.write_all(resp.as_bytes()).await;
        });
    }
}

/// Starts the metrics server on `METRICS_ADDR` when that variable is set (each service
/// binary calls this; in-process clusters leave it off).
pub async fn serve_from_env(ready: Ready, shutdown: CancellationToken) {
    let Some(addr) = crate::config::optional("METRICS_ADDR") else { return };
    match TcpListener::bind(&addr).await {
        Ok(l) => {
            tracing::info!(%addr, "metrics, health and readiness over HTTP");
            tokio::spawn(serve(l, ready, shutdown));
        }
        Err(e) => tracing::error!(%addr, error = %e, "cannot serve metrics"),
    }
}

/// A readiness check that asks `dependency` through `check` (an event store's ping).
pub fn ready_on<T, F, Fut, E>(dependency: Arc<T>, check: F) -> Ready
where
    T: ?Sized + Send + Sync + 'static,
    F: Fn(Arc<T>) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: std::fmt::Display,
{
    Arc::new(move || {
        let answer = check(dependency.clone());
        Box::pin(async move { answer.await.map_err(|e| e.to_string()) })
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::{add, set};

    #[tokio::test]
    async fn metrics_health_and_readiness_answer_over_http() {
        add("colosseum_test_things_total", 3);
        add("colosseum_test_things_total", 2);
        set("colosseum_test_level", 7);
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        let stop = CancellationToken::new();
        let ready: Ready = Arc::new(|| Box::pin(async { Err("redis down".to_string()) }));
        tokio::spawn(serve(l, ready, stop.clone()));
        let get = |path: &'static str| async move {
            let mut s = tokio::net::TcpStream::connect(addr).await.unwrap();
            s.write_all(format!("GET {path} HTTP/1.1\r\n\r\n").as_bytes()).await.unwrap();
            let mut out = String::new();
            s.read_to_string(&mut out).await.unwrap();
            out
        };
        let m = get("/metrics").await;
        assert!(m.contains("colosseum_test_things_total 5\n"), "{m}");
        assert!(m.contains("colosseum_test_level 7\n"), "{m}");
        assert!(get("/healthz").await.starts_with("HTTP/1.1 200"));
        let r = get("/readyz").await;
        assert!(r.starts_with("HTTP/1.1 503") && r.contains("redis down"), "{r}");
        stop.cancel();
    }
}
