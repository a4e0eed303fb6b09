//! The whole cluster in one process, each service a real gRPC server on its own loopback
//! port: a rules engine per family (goofspiel, placement, duel), the clock and the
//! gateway. `colosseum run` starts it on the embedded store or Redis; the whole-cluster
//! tests start it on a real Redis and stop and restart single services mid-match.

use events::EventStore;
use rules_engine::engine::Engine;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The game families, each served by its own rules engine.
pub const FAMILIES: [&str; 3] = ["goofspiel", "placement", "duel"];

struct Running {
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

/// A rules engine on a runtime of its own, as a separate process would be: stopping it
/// drops the runtime, and with it every task it spawned (connections, steps in flight),
/// as a crash would.
struct EngineRuntime {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
}

impl EngineRuntime {
    fn kill(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
    }
}

impl Drop for EngineRuntime {
    fn drop(&mut self) {
        self.kill();
    }
}

/// A running cluster.
pub struct Cluster {
    store: Arc<dyn EventStore>,
    engines: BTreeMap<&'static str, EngineRuntime>,
    clock: Option<Running>,
    gateway: Running,
    /// How long an engine keeps an idle match in memory.
    idle_ms: u64,
}

async fn bind(addr: SocketAddr) -> std::io::Result<(TcpListener, SocketAddr)> {
    let l = TcpListener::bind(addr).await?;
    let a = l.local_addr()?;
    Ok((l, a))
}

impl Cluster {
    /// Starts every service over `store`, the gateway on `gateway_addr` (port 0: any).
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start(
        store: Arc<dyn EventStore>,
        gateway_addr: SocketAddr,
    ) -> std::io::Result<Cluster> {
        let idle_ms = 120_000;
        let mut engines = BTreeMap::new();
        for family in FAMILIES {
            let r = start_engine(
                store.clone(),
                family,
                "127.0.0.1:0".parse().expect("an address"),
                idle_ms,
            )
            .await?;
            engines.insert(family, r);
        }
        let urls = urls(&engines);
        let clock = Some(start_clock(store.clone(), &urls).await?);
        let (listener, addr) = bind(gateway_addr).await?;
        let stop = CancellationToken::new();
        let engines_client =
            gateway::engines::Engines::new(&urls).map_err(std::io::Error::other)?;
        let task = {
            let (store, stop) = (store.clone(), stop.clone());
            tokio::spawn(async move {
                if let Err(e) =
                    gateway::serve(listener, store, engines_client, format!("http://{addr}"), stop)
                        .await
                {
                    tracing::error!(error = %e, "gateway stopped");
                }
            })
        };
        Ok(Cluster { store, engines, clock, gateway: Running { addr, stop, task }, idle_ms })
    }

    /// The gateway's URL (`http://127.0.0.1:PORT`).
    pub fn gateway_url(&self) -> String {
        format!("http://{}", self.gateway.addr)
    }

    /// The URL of the engine of `family`.
    pub fn engine_url(&self, family: &str) -> Option<String> {
        self.engines.get(family).map(|r| format!("http://{}", r.addr))
    }

    /// Stops the engine of `family`, as a crash would: its connections drop, its steps in
    /// flight stop wherever they are, its memory is gone.
    pub async fn stop_engine(&mut self, family: &str) {
        if let Some(r) = self.engines.get_mut(family) {
            r.kill();
        }
    }

    /// Starts the engine of `family` again on its old port, with an empty cache.
    ///
    /// # Errors
    /// The port cannot be bound again.
    pub async fn restart_engine(&mut self, family: &'static str) -> std::io::Result<()> {
        let addr = self
            .engines
            .get(family)
            .map(|r| r.addr)
            .ok_or_else(|| std::io::Error::other("no such family"))?;
        let r = start_engine(self.store.clone(), family, addr, self.idle_ms).await?;
        self.engines.insert(family, r);
        Ok(())
    }

    /// Stops the clock.
    pub async fn stop_clock(&mut self) {
        if let Some(r) = self.clock.take() {
            r.stop.cancel();
            let _ = r.task.await;
        }
    }

    /// Starts the clock again.
    ///
    /// # Errors
    /// A bad engine URL.
    pub async fn restart_clock(&mut self) -> std::io::Result<()> {
        self.clock = Some(start_clock(self.store.clone(), &urls(&self.engines)).await?);
        Ok(())
    }

    /// Stops everything.
    pub async fn shutdown(mut self) {
        self.gateway.stop.cancel();
        let _ = (&mut self.gateway.task).await;
        self.stop_clock().await;
        for family in FAMILIES {
            self.stop_engine(family).await;
        }
    }
}

fn urls(engines: &BTreeMap<&'static str, EngineRuntime>) -> Vec<(String, String)> {
    engines.iter().map(|(f, r)| (f.to_string(), format!("http://{}", r.addr))).collect()
}

async fn start_engine(
    store: Arc<dyn EventStore>,
    family: &'static str,
    addr: SocketAddr,
    idle_ms: u64,
) -> std::io::Result<EngineRuntime> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .thread_name(format!("engine-{family}"))
        .enable_all()
        .build()?;
    // A restarted engine may find its old port in TIME_WAIT for a moment: retry briefly.
    let mut tries = 0;
    let (listener, addr) = loop {
        match runtime.spawn(bind(addr)).await.map_err(std::io::Error::other)? {
            Ok(x) => break x,
            Err(e) if tries < 50 => {
                tries += 1;
                tracing::debug!(error = %e, "port busy, retrying");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    };
    let engine = Arc::new(Engine::new(store, vec![family.to_string()], idle_ms));
    runtime.spawn(async move {
        if let Err(e) = rules_engine::serve(listener, engine, CancellationToken::new()).await {
            tracing::error!(error = %e, family, "rules engine stopped");
        }
    });
    tracing::info!(family, %addr, "rules engine up");
    Ok(EngineRuntime { addr, runtime: Some(runtime) })
}

async fn start_clock(
    store: Arc<dyn EventStore>,
    urls: &[(String, String)],
) -> std::io::Result<Running> {
    let clock = clock::Clock::new(store, urls).map_err(std::io::Error::other)?;
    let stop = CancellationToken::new();
    let task = tokio::spawn(clock.run(stop.clone()));
    Ok(Running { addr: "127.0.0.1:0".parse().expect("an address"), stop, task })
}
