//! The one shape of every service binary's `main` ([`Service::run`]): logs, the internal
//! secret and the address from the environment, the store opened, then the shutdown
//! signal, `/metrics`, `/healthz` and `/readyz` (ready while the store answers) and the
//! bound listener, handed to the service's own body. What a service does in it is its own.

use crate::internal::InternalToken;
use std::error::Error;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::process::ExitCode;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// A service binary: its name (logs, traces) and the variable naming its address.
#[derive(Clone, Copy, Debug)]
pub struct Service {
    /// The service's name.
    pub name: &'static str,
    /// The environment variable of its listening address.
    pub addr_var: &'static str,
    /// The address when that variable is unset.
    pub default_addr: &'static str,
}

/// What a service's body starts with: the internal secret, the bound listener and its
/// address, and the token cancelled at SIGINT or SIGTERM.
pub struct Up {
    /// The secret internal calls carry (none when `INTERNAL_AUTH=off`).
    pub token: Option<InternalToken>,
    /// The address bound.
    pub addr: SocketAddr,
    /// The bound listener.
    pub listener: TcpListener,
    /// Cancelled when the process is asked to stop.
    pub shutdown: CancellationToken,
}

/// A failure of a binary, from its configuration to its last served call.
pub type Failure = Box<dyn Error + Send + Sync>;

/// How a store says it answers: the readiness probe's question.
pub trait Probe: Send + Sync + 'static {
    /// Whether the store answers now (a cheap round trip), or why not.
    fn probe(&self) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>>;
}

impl Service {
    /// Runs the binary: starts the logs, reads the internal secret and the address, opens
    /// the store (`open`), listens for shutdown signals, serves the metrics and health
    /// endpoints (ready while the store is), binds the address and runs `body` to its end.
    /// A failure on the way (the configuration, the store, the address, the body's own) is
    /// logged once, and the process exits 1.
    pub async fn run<S, E, B, F>(
        &self,
        open: impl Future<Output = Result<Arc<S>, E>>,
        body: B,
    ) -> ExitCode
    where
        S: Probe + ?Sized,
        E: Error + Send + Sync + 'static,
        B: FnOnce(Up, Arc<S>) -> F,
        F: Future<Output = Result<(), Failure>>,
    {
        crate::telemetry::init(self.name);
        let outcome: Result<(), Failure> = async {
            let token = crate::internal::from_env()?;
            let addr = crate::config::addr(self.addr_var, self.default_addr)?;
            // Boxed, as is the body: a store's opening and a service's serving are deep
            // futures, and nested unboxed in this one their layout is past the compiler's
            // query depth.
            let store = Box::pin(open).await?;
            let shutdown = crate::serve::shutdown_on_signal();
            let probe = |s: Arc<S>| async move { s.probe().await };
            let ready = crate::metrics::ready_on(store.clone(), probe);
            crate::metrics::serve_from_env(ready, shutdown.clone()).await;
            let listener = TcpListener::bind(addr).await?;
            tracing::info!(%addr, service = self.name, "listening");
            Box::pin(body(Up { token, addr, listener, shutdown }, store)).await
        }
        .await;
        match outcome {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                tracing::error!(service = self.name, error = %e, "stopped on a failure");
                ExitCode::FAILURE
            }
        }
    }
}
