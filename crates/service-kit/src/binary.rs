//! The one shape of every service binary's `main`: logs, the internal secret and the
//! address from the environment ([`Service::begin`]), then, once its store is open, the
//! shutdown signal, `/metrics`, `/healthz` and `/readyz` (ready while the store answers)
//! and the bound listener ([`Service::up`]). What a service does between and after is its own.

use crate::config::ConfigError;
use crate::internal::InternalToken;
use std::future::Future;
use std::net::SocketAddr;
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

/// What a service listens with: the socket, and the token cancelled at SIGINT or SIGTERM.
pub struct Up {
    /// The bound listener.
    pub listener: TcpListener,
    /// Cancelled when the process is asked to stop.
    pub shutdown: CancellationToken,
}

impl Service {
    /// Starts the logs, then reads the internal secret and the address.
    ///
    /// # Errors
    /// The secret or the address is set wrong.
    pub fn begin(&self) -> Result<(Option<InternalToken>, SocketAddr), ConfigError> {
        crate::telemetry::init(self.name);
        let token = crate::internal::from_env()?;
        let addr = crate::config::addr(self.addr_var, self.default_addr)?;
        Ok((token, addr))
    }

    /// Listens for shutdown signals, serves the metrics and health endpoints (ready while
    /// `check` of `store` passes), and binds `addr`.
    ///
    /// # Errors
    /// The address cannot be bound.
    pub async fn up<T, F, Fut, E>(
        &self,
        addr: SocketAddr,
        store: Arc<T>,
        check: F,
    ) -> std::io::Result<Up>
    where
        T: ?Sized + Send + Sync + 'static,
        F: Fn(Arc<T>) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: std::fmt::Display,
    {
        let shutdown = crate::serve::shutdown_on_signal();
        let ready = crate::metrics::ready_on(store, check);
        crate::metrics::serve_from_env(ready, shutdown.clone()).await;
        let listener = TcpListener::bind(addr).await?;
        tracing::info!(%addr, service = self.name, "listening");
        Ok(Up { listener, shutdown })
    }
}
