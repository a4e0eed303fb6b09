//! The in-process composition: the whole cluster in one process, each service a real gRPC
//! server on its own loopback port: a rules engine per family (goofspiel, placement, duel), the
//! match-maker, the clock and the gateway. `colosseum run` starts it on the embedded store or
//! Redis; the whole-cluster tests start it on a real Redis and stop and restart single services
//! mid-match. Each run makes its own internal secret and hands it to every piece.

use games::Family;
use gateway::forwarded::TrustedProxies;
use rules_engine::engine::Engine;
use service_kit::internal::InternalToken;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use store::{EventStore, FullStore, GatewayStore, HostStore, TenantStore};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// A service (a rules engine, a match-maker) on a runtime of its own, so stopping it can
/// drop everything it runs at once (its open connections and requests in flight too), as
/// a crash (kill -9) would.
struct EngineRunning {
    addr: SocketAddr,
    runtime: Option<tokio::runtime::Runtime>,
    /// The rules engine it serves (none for the other services), for its cache's size.
    engine: Option<Arc<Engine>>,
}

/// How the cluster's rules engines hold matches in memory (the engine binary's
/// `ENGINE_IDLE_MS` and `ENGINE_MAX_HOT_MATCHES`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineCache {
    /// A match unused this long is evicted.
    pub idle_ms: u64,
    /// The most matches an engine holds; past it the least recently used are evicted.
    pub max_hot: usize,
}

impl Default for EngineCache {
    /// As the engine binary's defaults.
    fn default() -> Self {
        EngineCache { idle_ms: 120_000, max_hot: rules_engine::engine::DEFAULT_MAX_HOT_MATCHES }
    }
}

impl EngineRunning {
    fn crash(&mut self) {
        if let Some(rt) = self.runtime.take() {
            rt.shutdown_background();
        }
        // Its memory goes with it.
        self.engine = None;
    }
}

impl Drop for EngineRunning {
    fn drop(&mut self) {
        // A runtime may not be dropped from async code; shutting it down may.
        self.crash();
    }
}

struct Running {
    addr: SocketAddr,
    stop: CancellationToken,
    task: JoinHandle<()>,
}

impl Running {
    /// Cancels the service and waits for its task to end.
    async fn halt(&mut self) {
        self.stop.cancel();
        let _ = (&mut self.task).await;
    }
}

/// A running cluster.
pub struct Cluster {
    store: Arc<dyn FullStore>,
    engines: BTreeMap<Family, EngineRunning>,
    /// More engines per family, beside the first (see [`Cluster::start_replica`]).
    replicas: BTreeMap<Family, Vec<EngineRunning>>,
    clock: Option<Running>,
    /// Clock replicas beside the first (see [`Cluster::start_extra_clock`]).
    more_clocks: Vec<Running>,
    /// Every clock started in this run, running or stopped, first to last: their
    /// statistics outlive them.
    clocks: Vec<Arc<clock::Clock>>,
    /// Whether the clocks keep each applied firing (see [`Cluster::keep_clock_firings`]).
    keep_firings: bool,
    /// The match-maker's replicas (the first started with the cluster).
    match_makers: Vec<EngineRunning>,
    /// The tournament service's replicas (the first started with the cluster).
    tournaments: Vec<EngineRunning>,
    gateway: Running,
    /// Gateways beside the first (see [`Cluster::start_second_gateway`]).
    more_gateways: Vec<Running>,
    /// How the engines hold matches in memory.
    cache: EngineCache,
    /// The internal secret of this run: the engines check it, the gateways and the clock
    /// send it.
    token: InternalToken,
    /// Fault injection: how long every engine holds a finished match's announcement after
    /// its final step (see [`Cluster::hold_announcements`]).
    announce_delay_ms: u64,
    /// What every gateway serves browsers (WEB_ROOT, WEB_ORIGINS; see gateway::web).
    web: gateway::web::Web,
    /// Where finished matches go, if anywhere (see [`Cluster::start_archived`]).
    archive: Option<Archive>,
}

/// The archive a cluster moves its finished matches to: the match-makers archive them and
/// let the store drop each `release_after_ms` later; the engines and gateways read it.
#[derive(Clone)]
pub struct Archive {
    /// The archive.
    pub archive: Arc<dyn store::ArchiveStore>,
    /// How long a finished match stays in the store once archived, ms.
    pub release_after_ms: u64,
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
        store: Arc<dyn FullStore>,
        gateway_addr: SocketAddr,
    ) -> std::io::Result<Cluster> {
        Cluster::start_with(store, gateway_addr, EngineCache::default()).await
    }

    /// As [`Cluster::start`], its engines (and any started later) holding matches in
    /// memory as `cache` says.
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_with(
        store: Arc<dyn FullStore>,
        gateway_addr: SocketAddr,
        cache: EngineCache,
    ) -> std::io::Result<Cluster> {
        Cluster::start_archived(store, gateway_addr, cache, None).await
    }

    /// As [`Cluster::start_with`], moving finished matches to `archive` (none: they stay
    /// in the store for its retention).
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_archived(
        store: Arc<dyn FullStore>,
        gateway_addr: SocketAddr,
        cache: EngineCache,
        archive: Option<Archive>,
    ) -> std::io::Result<Cluster> {
        let token = InternalToken::random();
        // The gateway's address first: the other services take any free port, and one of
        // those must never be the port the caller chose for the gateway.
        let gateway_listener = bind_again(gateway_addr).await?;
        let mut engines = BTreeMap::new();
        for family in Family::ALL {
            let r = start_engine(
                store.clone(),
                family,
                "127.0.0.1:0".parse().expect("an address"),
                cache,
                archive.as_ref(),
                &token,
            )
            .await?;
            engines.insert(family, r);
        }
        let replicas = BTreeMap::new();
        let urls = urls(&engines, &replicas);
        let (clock, first_clock) = start_clock(store.clone(), &urls, &token)?;
        let any = "127.0.0.1:0".parse().expect("an address");
        let match_makers =
            vec![start_match_maker(store.clone(), any, &urls, archive.as_ref(), &token).await?];
        let tournaments = vec![start_tournaments(store.clone(), any, &urls, &token).await?];
        let web = gateway::web::Web::from_env().map_err(std::io::Error::other)?;
        let backends = Backends::of(&match_makers, &tournaments, &web, archive.as_ref());
        let gateway = serve_gateway(
            store.clone(),
            gateway_listener,
            &urls,
            &backends,
            &token,
            TrustedProxies::none(),
        )?;
        let more_gateways = Vec::new();
        Ok(Cluster {
            store,
            engines,
            replicas,
            clock: Some(clock),
            more_clocks: Vec::new(),
            clocks: vec![first_clock],
            keep_firings: false,
            match_makers,
            tournaments,
            gateway,
            more_gateways,
            cache,
            token,
            announce_delay_ms: 0,
            web,
            archive,
        })
    }

    /// Fault injection, for tests: every engine, running or started from now on, holds
    /// each finished match's announcement `ms` after storing its final step
    /// (`COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS` of the engine binary), so a test can kill the
    /// engine in between. 0: none.
    pub fn hold_announcements(&mut self, ms: u64) {
        self.announce_delay_ms = ms;
        let running = self.engines.values().chain(self.replicas.values().flatten());
        for engine in running.filter_map(|r| r.engine.as_ref()) {
            engine.hold_announcements(ms);
        }
    }

    /// Starts another match-maker replica on the same store, then restarts the gateway
    /// (on its port) with every replica's URL; returns the replica's index.
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_match_maker_replica(&mut self) -> std::io::Result<usize> {
        let any = "127.0.0.1:0".parse().expect("an address");
        let urls = urls(&self.engines, &self.replicas);
        let r =
            start_match_maker(self.store.clone(), any, &urls, self.archive.as_ref(), &self.token)
                .await?;
        self.match_makers.push(r);
        self.restart_gateway().await?;
        Ok(self.match_makers.len() - 1)
    }

    /// Crashes match-maker replica `i` (as kill -9: its tasks, connections and calls in
    /// flight are dropped at once). Crashing it again does nothing.
    pub fn crash_match_maker(&mut self, i: usize) {
        if let Some(r) = self.match_makers.get_mut(i) {
            r.crash();
        }
    }

    /// The match-makers' URLs.
    pub fn match_maker_urls(&self) -> Vec<String> {
        running_urls(&self.match_makers)
    }

    /// Starts another tournament service replica on the same store, then restarts the
    /// gateway (on its port) with every replica's URL; returns the replica's index.
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_tournaments_replica(&mut self) -> std::io::Result<usize> {
        let any = "127.0.0.1:0".parse().expect("an address");
        let urls = urls(&self.engines, &self.replicas);
        let r = start_tournaments(self.store.clone(), any, &urls, &self.token).await?;
        self.tournaments.push(r);
        self.restart_gateway().await?;
        Ok(self.tournaments.len() - 1)
    }

    /// Crashes tournament service replica `i` (as kill -9). Crashing it again does nothing.
    pub fn crash_tournaments(&mut self, i: usize) {
        if let Some(r) = self.tournaments.get_mut(i) {
            r.crash();
        }
    }

    /// The tournament services' URLs (for `colosseum tenant`, with the internal secret).
    pub fn tournaments_urls(&self) -> Vec<String> {
        running_urls(&self.tournaments)
    }

    /// Stops the gateway (its Play and watch streams end, its bot runner stops playing
    /// with its lease left to run out) and starts a new one on its port.
    ///
    /// # Errors
    /// The port cannot be bound again.
    pub async fn restart_gateway(&mut self) -> std::io::Result<()> {
        let urls = urls(&self.engines, &self.replicas);
        self.gateway.halt().await;
        let backends =
            Backends::of(&self.match_makers, &self.tournaments, &self.web, self.archive.as_ref());
        self.gateway =
            start_gateway(self.store.clone(), self.gateway.addr, &urls, &backends, &self.token)
                .await?;
        Ok(())
    }

    /// The directory of the web client the gateway serves at its own address, if any.
    pub fn web_root(&self) -> Option<&std::path::Path> {
        self.web.root()
    }

    /// The internal secret the engines of this run check.
    pub fn internal_token(&self) -> &InternalToken {
        &self.token
    }

    /// Starts another gateway beside the first (the same engines and backends, on any
    /// port) that takes the client's address from `x-forwarded-for` on calls from
    /// `proxies`, as one behind a load balancer; returns its URL. It lives until shutdown.
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_gateway_trusting(
        &mut self,
        proxies: TrustedProxies,
    ) -> std::io::Result<String> {
        let any: SocketAddr = "127.0.0.1:0".parse().expect("an address");
        let urls = urls(&self.engines, &self.replicas);
        let backends =
            Backends::of(&self.match_makers, &self.tournaments, &self.web, self.archive.as_ref());
        let listener = bind_again(any).await?;
        let gateway =
            serve_gateway(self.store.clone(), listener, &urls, &backends, &self.token, proxies)?;
        let url = format!("http://{}", gateway.addr);
        self.more_gateways.push(gateway);
        Ok(url)
    }

    /// Starts another rules engine for `family` on the same store and a second gateway that
    /// sends that family's matches to it alone, as during a rollout when two gateways see
    /// different replicas; returns the second gateway's URL. Both live until shutdown.
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_second_gateway(&mut self, family: Family) -> std::io::Result<String> {
        let any: SocketAddr = "127.0.0.1:0".parse().expect("an address");
        let r = self.engine_on(family, any).await?;
        let mut urls = urls(&self.engines, &BTreeMap::new());
        for (f, list) in &mut urls {
            if *f == family {
                *list = vec![format!("http://{}", r.addr)];
            }
        }
        self.replicas.entry(family).or_default().push(r);
        let backends =
            Backends::of(&self.match_makers, &self.tournaments, &self.web, self.archive.as_ref());
        let gateway = start_gateway(self.store.clone(), any, &urls, &backends, &self.token).await?;
        let url = format!("http://{}", gateway.addr);
        self.more_gateways.push(gateway);
        Ok(url)
    }

    /// A rules engine for `family` on `addr`, as this cluster runs its engines: its store,
    /// cache, archive and secret, and announcements held as [`Cluster::hold_announcements`]
    /// set.
    async fn engine_on(&self, family: Family, addr: SocketAddr) -> std::io::Result<EngineRunning> {
        let r = start_engine(
            self.store.clone(),
            family,
            addr,
            self.cache,
            self.archive.as_ref(),
            &self.token,
        )
        .await?;
        r.engine.iter().for_each(|e| e.hold_announcements(self.announce_delay_ms));
        Ok(r)
    }

    /// Starts another rules engine for `family` on the same store, then restarts the
    /// gateway (on its port) and the clock with every engine's URL, as a deployment
    /// listing each replica would; returns the new engine's URL.
    ///
    /// # Errors
    /// A port cannot be bound.
    pub async fn start_replica(&mut self, family: Family) -> std::io::Result<String> {
        let any = "127.0.0.1:0".parse().expect("an address");
        let r = self.engine_on(family, any).await?;
        let url = format!("http://{}", r.addr);
        self.replicas.entry(family).or_default().push(r);
        let urls = urls(&self.engines, &self.replicas);
        self.restart_gateway().await?;
        self.stop_clock().await;
        self.clock = Some(self.new_clock(&urls)?);
        Ok(url)
    }

    /// How many matches each family's engines hold in memory now (its replicas' summed).
    pub fn hot_matches(&self) -> BTreeMap<Family, usize> {
        let mut hot: BTreeMap<Family, usize> = BTreeMap::new();
        let replicas = self.replicas.iter().flat_map(|(f, list)| list.iter().map(move |r| (f, r)));
        for (family, r) in self.engines.iter().chain(replicas) {
            if let Some(e) = &r.engine {
                *hot.entry(*family).or_default() += e.hot_matches();
            }
        }
        hot
    }

    /// The gateway's URL (`http://127.0.0.1:PORT`).
    pub fn gateway_url(&self) -> String {
        format!("http://{}", self.gateway.addr)
    }

    /// The URL of the engine of `family`.
    pub fn engine_url(&self, family: Family) -> Option<String> {
        self.engines.get(&family).map(|r| format!("http://{}", r.addr))
    }

    /// Stops the engine of `family`, as a crash would: its memory is gone, its
    /// connections are cut, requests in flight get no answer. Stopping it again (or at
    /// shutdown) does nothing.
    pub async fn stop_engine(&mut self, family: Family) {
        if let Some(r) = self.engines.get_mut(&family) {
            r.crash();
        }
    }

    /// Starts the engine of `family` again on its old port, with an empty cache.
    ///
    /// # Errors
    /// The port cannot be bound again.
    pub async fn restart_engine(&mut self, family: Family) -> std::io::Result<()> {
        let addr = self
            .engines
            .get(&family)
            .map(|r| r.addr)
            .ok_or_else(|| std::io::Error::other("no such family"))?;
        let r = self.engine_on(family, addr).await?;
        self.engines.insert(family, r);
        Ok(())
    }

    /// Stops the clock.
    pub async fn stop_clock(&mut self) {
        if let Some(mut r) = self.clock.take() {
            r.halt().await;
        }
    }

    /// Starts the clock again.
    ///
    /// # Errors
    /// A bad engine URL.
    pub async fn restart_clock(&mut self) -> std::io::Result<()> {
        // Never two main clocks: one still running would be left without its stop.
        self.stop_clock().await;
        let urls = urls(&self.engines, &self.replicas);
        self.clock = Some(self.new_clock(&urls)?);
        Ok(())
    }

    /// Starts another clock replica on the same store and engines, beside the first (as
    /// two clock pods would run): both poll the same deadlines, and the version fence
    /// makes the second firing of each a stale or duplicate answer. It keeps the engine
    /// URLs it started with, and runs until shutdown; returns how many replicas run
    /// beside the first.
    ///
    /// # Errors
    /// A bad engine URL.
    pub fn start_extra_clock(&mut self) -> std::io::Result<usize> {
        let urls = urls(&self.engines, &self.replicas);
        let r = self.new_clock(&urls)?;
        self.more_clocks.push(r);
        Ok(self.more_clocks.len())
    }

    /// Has every clock, running and started later, keep each applied firing (its match,
    /// due time and lag; see [`clock::ClockStats::firings`]), for measurements.
    pub fn keep_clock_firings(&mut self) {
        self.keep_firings = true;
        for c in &self.clocks {
            c.stats.keep_firings();
        }
    }

    /// Every clock started in this run (the first, its restarts, the extra replicas),
    /// running or stopped, first to last: their statistics.
    pub fn clocks(&self) -> Vec<Arc<clock::Clock>> {
        self.clocks.clone()
    }

    fn new_clock(&mut self, urls: &[engines::EngineUrls]) -> std::io::Result<Running> {
        let (r, c) = start_clock(self.store.clone(), urls, &self.token)?;
        if self.keep_firings {
            c.stats.keep_firings();
        }
        self.clocks.push(c);
        Ok(r)
    }

    /// Stops everything.
    pub async fn shutdown(mut self) {
        self.gateway.halt().await;
        for g in &mut self.more_gateways {
            g.halt().await;
        }
        self.stop_clock().await;
        for c in &mut self.more_clocks {
            c.halt().await;
        }
        for family in Family::ALL {
            self.stop_engine(family).await;
        }
        for mut r in self.replicas.into_values().flatten() {
            r.crash();
        }
        for mut r in self.match_makers.into_iter().chain(self.tournaments) {
            r.crash();
        }
    }
}

/// Where a gateway sends what it fronts: the match-makers and the tournament services; and
/// what it serves browsers.
struct Backends {
    lobby: Vec<String>,
    tournaments: Vec<String>,
    web: gateway::web::Web,
    archive: Option<Arc<dyn store::ArchiveStore>>,
}

impl Backends {
    fn of(
        match_makers: &[EngineRunning],
        tournaments: &[EngineRunning],
        web: &gateway::web::Web,
        archive: Option<&Archive>,
    ) -> Backends {
        Backends {
            lobby: running_urls(match_makers),
            tournaments: running_urls(tournaments),
            web: web.clone(),
            archive: archive.map(|a| a.archive.clone()),
        }
    }
}

/// The URLs of the running replicas of a service.
fn running_urls(replicas: &[EngineRunning]) -> Vec<String> {
    replicas.iter().filter(|r| r.runtime.is_some()).map(|r| format!("http://{}", r.addr)).collect()
}

/// Each family's engine URLs: the first engine's, then its replicas'.
fn urls(
    engines: &BTreeMap<Family, EngineRunning>,
    replicas: &BTreeMap<Family, Vec<EngineRunning>>,
) -> Vec<engines::EngineUrls> {
    engines
        .iter()
        .map(|(f, r)| {
            let more = replicas.get(f).into_iter().flatten();
            let urls = std::iter::once(r).chain(more).map(|r| format!("http://{}", r.addr));
            (*f, urls.collect())
        })
        .collect()
}

/// Binds `addr`; a restarted service may find its old port in TIME_WAIT for a moment, so
/// this retries briefly.
async fn bind_again(addr: SocketAddr) -> std::io::Result<(TcpListener, SocketAddr)> {
    let mut tries = 0;
    loop {
        match bind(addr).await {
            Ok(x) => return Ok(x),
            Err(e) if tries < 50 => {
                tries += 1;
                tracing::debug!(error = %e, "port busy, retrying");
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
            Err(e) => return Err(e),
        }
    }
}

async fn start_gateway(
    store: Arc<dyn GatewayStore>,
    addr: SocketAddr,
    urls: &[engines::EngineUrls],
    backends: &Backends,
    token: &InternalToken,
) -> std::io::Result<Running> {
    serve_gateway(store, bind_again(addr).await?, urls, backends, token, TrustedProxies::none())
}

/// Serves a gateway on a bound listener, believing `x-forwarded-for` from `proxies`.
fn serve_gateway(
    store: Arc<dyn GatewayStore>,
    (listener, addr): (tokio::net::TcpListener, SocketAddr),
    urls: &[engines::EngineUrls],
    backends: &Backends,
    token: &InternalToken,
    proxies: TrustedProxies,
) -> std::io::Result<Running> {
    let stop = CancellationToken::new();
    let engines = engines::Engines::new(urls, Some(token)).map_err(std::io::Error::other)?;
    let lobby = if backends.lobby.is_empty() {
        None
    } else {
        Some(gateway::lobby::client(&backends.lobby, Some(token)).map_err(std::io::Error::other)?)
    };
    let tournaments = if backends.tournaments.is_empty() {
        None
    } else {
        Some(
            gateway::platform::client(&backends.tournaments, Some(token))
                .map_err(std::io::Error::other)?,
        )
    };
    let web = backends.web.clone();
    let archive = backends.archive.clone();
    let task = {
        let stop = stop.clone();
        tokio::spawn(async move {
            let public = format!("http://{addr}");
            let backends = gateway::Backends { lobby, tournaments, web, archive };
            if let Err(e) =
                gateway::serve(listener, store, engines, backends, proxies, public, stop).await
            {
                tracing::error!(error = %e, "gateway stopped");
            }
        })
    };
    Ok(Running { addr, stop, task })
}

async fn start_engine(
    store: Arc<dyn HostStore>,
    family: Family,
    addr: SocketAddr,
    cache: EngineCache,
    archive: Option<&Archive>,
    token: &InternalToken,
) -> std::io::Result<EngineRunning> {
    let engine = Arc::new(
        Engine::new(store, vec![family], cache.idle_ms)
            .with_max_hot_matches(cache.max_hot)
            .with_archive(archive.map(|a| a.archive.clone())),
    );
    let served = engine.clone();
    let token = token.clone();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .thread_name(format!("engine-{family}"))
        .enable_all()
        .build()?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    // Bound inside its runtime: the listener belongs to the runtime that polls it.
    runtime.spawn(async move {
        let (listener, addr) = match bind_again(addr).await {
            Ok(x) => x,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        let _ = tx.send(Ok(addr));
        // Never cancelled: the engine stops only when its runtime is dropped.
        if let Err(e) =
            rules_engine::serve(listener, served, Some(token), CancellationToken::new()).await
        {
            tracing::error!(error = %e, family = %family, "rules engine stopped");
        }
    });
    let addr = rx.await.map_err(std::io::Error::other)??;
    tracing::info!(family = %family, %addr, "rules engine up");
    Ok(EngineRunning { addr, runtime: Some(runtime), engine: Some(engine) })
}

async fn start_match_maker(
    store: Arc<dyn FullStore>,
    addr: SocketAddr,
    urls: &[engines::EngineUrls],
    archive: Option<&Archive>,
    token: &InternalToken,
) -> std::io::Result<EngineRunning> {
    let engines = engines::Engines::new(urls, Some(token)).map_err(std::io::Error::other)?;
    let token = token.clone();
    let part: Arc<dyn store::ArchiverStore> = store.clone();
    let archiving = archive.map(|a| match_maker::archiver::Archiving {
        store: part,
        archive: a.archive.clone(),
        release_after_ms: a.release_after_ms,
        retention_ms: 0,
    });
    start_service("match-maker", addr, move |listener, stop| {
        match_maker::serve(listener, store, archiving, engines, Some(token), stop)
    })
    .await
}

async fn start_tournaments(
    store: Arc<dyn TenantStore>,
    addr: SocketAddr,
    urls: &[engines::EngineUrls],
    token: &InternalToken,
) -> std::io::Result<EngineRunning> {
    let engines = engines::Engines::new(urls, Some(token)).map_err(std::io::Error::other)?;
    let token = token.clone();
    start_service("tournaments", addr, move |listener, stop| {
        tournaments::serve(listener, store, engines, Some(token), stop)
    })
    .await
}

/// Serves `serve` on `addr` in a runtime of its own, which [`EngineRunning::crash`] drops
/// (as kill -9).
async fn start_service<F, Fut, E>(
    name: &'static str,
    addr: SocketAddr,
    serve: F,
) -> std::io::Result<EngineRunning>
where
    F: FnOnce(TcpListener, CancellationToken) -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Result<(), E>> + Send + 'static,
    E: std::fmt::Display,
{
    let runtime =
        tokio::runtime::Builder::new_multi_thread().thread_name(name).enable_all().build()?;
    let (tx, rx) = tokio::sync::oneshot::channel();
    runtime.spawn(async move {
        let (listener, addr) = match bind_again(addr).await {
            Ok(x) => x,
            Err(e) => {
                let _ = tx.send(Err(e));
                return;
            }
        };
        let _ = tx.send(Ok(addr));
        // Never cancelled: the service stops only when its runtime is dropped.
        if let Err(e) = serve(listener, CancellationToken::new()).await {
            tracing::error!(error = %e, service = name, "service stopped");
        }
    });
    let addr = rx.await.map_err(std::io::Error::other)??;
    tracing::info!(%addr, service = name, "up");
    Ok(EngineRunning { addr, runtime: Some(runtime), engine: None })
}

fn start_clock(
    store: Arc<dyn EventStore>,
    urls: &[engines::EngineUrls],
    token: &InternalToken,
) -> std::io::Result<(Running, Arc<clock::Clock>)> {
    let engines = engines::Engines::new(urls, Some(token)).map_err(std::io::Error::other)?;
    let clock = clock::Clock::new(store, engines);
    let stop = CancellationToken::new();
    let task = tokio::spawn(clock.clone().run(stop.clone()));
    Ok((Running { addr: "127.0.0.1:0".parse().expect("an address"), stop, task }, clock))
}
