//! The chaos trial's cluster as separate processes: redis-server (append-only, fsync
//! always), PostgreSQL for the archive (`archive.rs`), one rules engine per family, the match-maker, the tournament service, the
//! clock and the gateway, each on a loopback port it keeps across kill -9 and restart. Every child is killed when the trial ends,
//! panics or is interrupted.

use std::collections::BTreeMap;
use std::fs::OpenOptions;
use std::net::{Ipv4Addr, SocketAddr, TcpListener};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Every child process alive, by service name. A global so that the panic hook and the
/// signal handler can reach it; [`kill_all`] empties it.
static CHILDREN: Mutex<BTreeMap<String, Child>> = Mutex::new(BTreeMap::new());

/// Kills (SIGKILL) and reaps every child still running. Safe to call from a panic hook
/// (it never blocks on a poisoned lock) and more than once.
pub fn kill_all() {
    let mut children = match CHILDREN.lock() {
        Ok(g) => g,
        Err(poisoned) => poisoned.into_inner(),
    };
    for (_, mut child) in std::mem::take(&mut *children) {
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Installs a panic hook that kills every child before the default hook runs.
pub fn kill_children_on_panic() {
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        kill_all();
        previous(info);
    }));
}

/// A loopback port that was free a moment ago.
fn free_port() -> std::io::Result<u16> {
    Ok(TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?.local_addr()?.port())
}

/// A service of the trial: what to start and where it listens.
#[derive(Clone, Debug)]
pub struct Service {
    /// Its name: `redis`, `engine-goofspiel`, `engine-placement`, `engine-duel`,
    /// `match-maker`, `tournaments`, `clock`, `gateway`.
    pub name: String,
    /// Where it listens.
    pub addr: SocketAddr,
    program: PathBuf,
    args: Vec<String>,
    env: Vec<(String, String)>,
}

impl Service {
    /// The service's URL for gRPC clients (`http://127.0.0.1:PORT`).
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// The grpc.health.v1 service name it marks SERVING (`None` for Redis).
    pub fn health_name(&self) -> Option<&'static str> {
        if self.name == "gateway" {
            Some("colosseum.v1.ColosseumService")
        } else if self.name == "clock" {
            Some("colosseum.clock")
        } else if self.name.starts_with("engine-") {
            Some("colosseum.internal.v1.RulesEngineService")
        } else if self.name == "match-maker" {
            Some("colosseum.v1.LobbyService")
        } else if self.name == "tournaments" {
            Some("colosseum.v1.TournamentService")
        } else {
            None
        }
    }
}

/// The cluster: its services, their logs and data in one temporary directory.
pub struct Cluster {
    /// The services, in start order.
    pub services: Vec<Service>,
    /// The Redis URL.
    pub redis_url: String,
    /// The temporary directory (Redis data, one log per service).
    pub dir: PathBuf,
    /// The internal secret every service is given (the trial calls the tenant
    /// administration API with it).
    pub token: service_kit::internal::InternalToken,
}

/// Where the service binaries are: `bin_dir`, else the directory of this executable.
///
/// # Errors
/// A binary is missing.
pub fn bin_dir(given: Option<PathBuf>) -> Result<PathBuf, String> {
    let dir = match given {
        Some(d) => d,
        None => std::env::current_exe()
            .map_err(|e| format!("cannot find this executable: {e}"))?
            .parent()
            .map(Path::to_path_buf)
            .ok_or("this executable has no directory")?,
    };
    for bin in ["rules-engine", "clock", "gateway", "match-maker", "tournaments"] {
        if !dir.join(bin).is_file() {
            return Err(format!(
                "no {bin} binary in {} (build with `make release-services`, or pass --bin-dir)",
                dir.display()
            ));
        }
    }
    Ok(dir)
}

impl Cluster {
    /// Plans the cluster: free ports, the temporary directory, each service's command.
    /// The engines hold each finished match's announcement `announce_delay_ms` after its
    /// final step (the fault hook `COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS`), so kills land in
    /// that window.
    ///
    /// # Errors
    /// No free port, or the directory cannot be made.
    pub fn plan(
        bin: &Path,
        announce_delay_ms: u64,
        archive_url: Option<&str>,
    ) -> Result<Cluster, String> {
        let dir = std::env::temp_dir().join(format!("colosseum-chaos-{}", uuid::Uuid::new_v4()));
        std::fs::create_dir_all(dir.join("redis"))
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        let port = || free_port().map_err(|e| format!("no free loopback port: {e}"));
        let at = |p: u16| SocketAddr::from((Ipv4Addr::LOCALHOST, p));
        let redis_port = port()?;
        let redis_url = format!("redis://127.0.0.1:{redis_port}/");
        // One internal secret per trial, handed to every service as the binaries require.
        let token = service_kit::internal::InternalToken::random();
        let internal = ("INTERNAL_TOKEN".to_string(), token.expose().to_string());
        let mut services = vec![Service {
            name: "redis".into(),
            addr: at(redis_port),
            program: "redis-server".into(),
            args: [
                "--port",
                &redis_port.to_string(),
                "--bind",
                "127.0.0.1",
                "--dir",
                &dir.join("redis").display().to_string(),
                "--appendonly",
                "yes",
                "--appendfsync",
                "always",
                "--save",
                "",
                "--daemonize",
                "no",
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            env: vec![],
        }];
        let mut engine_urls = Vec::new();
        // Each family's engine is its own process.
        for family in games::Family::ALL {
            let addr = at(port()?);
            engine_urls.push((family.env_var().to_string(), format!("http://{addr}")));
            services.push(Service {
                name: format!("engine-{family}"),
                addr,
                program: bin.join("rules-engine"),
                args: vec![],
                env: vec![
                    ("ENGINE_ADDR".into(), addr.to_string()),
                    ("FAMILIES".into(), family.as_str().into()),
                    ("REDIS_URL".into(), redis_url.clone()),
                    internal.clone(),
                    ("COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS".into(), announce_delay_ms.to_string()),
                ],
            });
            if let Some(url) = archive_url {
                let engine = services.last_mut().expect("the engine just planned");
                engine.env.push(("ARCHIVE_URL".into(), url.to_string()));
            }
        }
        // The gateway last: it is given the backends' URLs.
        let mut backends = Vec::new();
        for (name, var, program) in [
            ("match-maker", "MATCHMAKER_ADDR", "match-maker"),
            ("tournaments", "TOURNAMENTS_ADDR", "tournaments"),
            ("clock", "CLOCK_ADDR", "clock"),
            ("gateway", "GATEWAY_ADDR", "gateway"),
        ] {
            let addr = at(port()?);
            let mut env =
                vec![(var.to_string(), addr.to_string()), ("REDIS_URL".into(), redis_url.clone())];
            env.extend(engine_urls.iter().cloned());
            env.push(internal.clone());
            match name {
                "match-maker" => backends.push(("MATCHMAKER_URL".into(), format!("http://{addr}"))),
                "tournaments" => {
                    backends.push(("TOURNAMENTS_URL".into(), format!("http://{addr}")))
                }
                _ => {}
            }
            if name == "gateway" {
                env.extend(backends.iter().cloned());
            }
            // The archiver runs in the match-maker; the gateway reads records from it.
            if let Some(url) = archive_url.filter(|_| matches!(name, "match-maker" | "gateway")) {
                env.push(("ARCHIVE_URL".into(), url.to_string()));
            }
            services.push(Service {
                name: name.into(),
                addr,
                program: bin.join(program),
                args: vec![],
                env,
            });
        }
        Ok(Cluster { services, redis_url, dir, token })
    }

    /// The service called `name`.
    ///
    /// # Panics
    /// No such service (a bug of the caller).
    pub fn service(&self, name: &str) -> &Service {
        self.services.iter().find(|s| s.name == name).expect("a planned service")
    }

    /// Starts `name` (its log appended to `<dir>/<name>.log`).
    ///
    /// # Errors
    /// The program cannot be started.
    pub fn start(&self, name: &str) -> Result<(), String> {
        let s = self.service(name);
        let log = OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join(format!("{name}.log")))
            .map_err(|e| format!("cannot open the log of {name}: {e}"))?;
        let err = log.try_clone().map_err(|e| e.to_string())?;
        let mut cmd = Command::new(&s.program);
        cmd.args(&s.args)
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(err)
            // The operator's settings must not point a service at another store or port.
            .env_remove("REDIS_CLUSTER_URLS")
            .env_remove("REDIS_SENTINEL_URLS")
            .env_remove("REDIS_SENTINEL_MASTER")
            .env_remove("ENGINE_URL")
            .env_remove("MATCHMAKER_URL")
            .env_remove("TOURNAMENTS_URL")
            .env_remove("COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS")
            .env_remove("METRICS_ADDR")
            .env_remove("GATEWAY_PUBLIC_URL")
            .env_remove("INTERNAL_TOKEN_FILE")
            .env_remove("INTERNAL_AUTH")
            .env_remove("ARCHIVE_URL")
            .env_remove("ARCHIVE_URL_FILE")
            .env_remove("ARCHIVE_RELEASE_AFTER_S")
            .env_remove("ARCHIVE_RETENTION_DAYS")
            .env("RUST_LOG", std::env::var("CHAOS_SERVICE_LOG").unwrap_or_else(|_| "info".into()));
        for (k, v) in &s.env {
            cmd.env(k, v);
        }
        let child = cmd
            .spawn()
            .map_err(|e| format!("cannot start {name} ({}): {e}", s.program.display()))?;
        tracing::info!(service = name, pid = child.id(), addr = %s.addr, "started");
        let mut children = CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(mut old) = children.insert(name.to_string(), child) {
            let _ = old.kill();
            let _ = old.wait();
        }
        Ok(())
    }

    /// kill -9 of `name`, reaped. Returns whether it was running.
    pub fn kill(&self, name: &str) -> bool {
        let child = CHILDREN.lock().unwrap_or_else(|p| p.into_inner()).remove(name);
        match child {
            Some(mut c) => {
                let was_running = matches!(c.try_wait(), Ok(None));
                let _ = c.kill();
                let _ = c.wait();
                tracing::info!(service = name, pid = c.id(), "killed (SIGKILL)");
                was_running
            }
            None => false,
        }
    }

    /// SIGTERM to `name`, as Kubernetes stops a pod, then waits for it to drain and exit
    /// (kill -9 after `grace`). Returns whether it exited within the grace.
    pub async fn terminate(&self, name: &str, grace: Duration) -> bool {
        let child = CHILDREN.lock().unwrap_or_else(|p| p.into_inner()).remove(name);
        let Some(mut c) = child else { return false };
        // No signal API without `unsafe`: the system's kill(1) sends it.
        let sent = std::process::Command::new("kill")
            .args(["-TERM", &c.id().to_string()])
            .status()
            .is_ok_and(|s| s.success());
        #[allow(clippy::disallowed_methods)] // The trial measures wall time.
        let start = Instant::now();
        while sent && start.elapsed() < grace {
            if matches!(c.try_wait(), Ok(Some(_))) {
                tracing::info!(
                    service = name,
                    pid = c.id(),
                    drained_ms = start.elapsed().as_millis() as u64,
                    "stopped (SIGTERM)"
                );
                return true;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let _ = c.kill();
        let _ = c.wait();
        tracing::warn!(service = name, pid = c.id(), "did not stop on SIGTERM: killed");
        false
    }

    /// The services that exited on their own (not killed by the trial), with their status.
    pub fn exited(&self) -> Vec<(String, String)> {
        let mut children = CHILDREN.lock().unwrap_or_else(|p| p.into_inner());
        children
            .iter_mut()
            .filter_map(|(name, c)| match c.try_wait() {
                Ok(Some(status)) => Some((name.clone(), status.to_string())),
                _ => None,
            })
            .collect()
    }

    /// Waits until `name` answers: grpc.health.v1 Check SERVING for its service, or PING
    /// for Redis. Returns how long that took, or `None` after `limit`.
    pub async fn wait_ready(&self, name: &str, limit: Duration) -> Option<Duration> {
        #[allow(clippy::disallowed_methods)] // The trial measures wall time.
        let start = Instant::now();
        let s = self.service(name);
        while start.elapsed() < limit {
            let ok = match s.health_name() {
                Some(health) => serving(&s.url(), health).await,
                None => redis_answers(&self.redis_url).await,
            };
            if ok {
                return Some(start.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        None
    }
}

/// Whether the gRPC server at `url` answers Check(`service`) with SERVING.
async fn serving(url: &str, service: &str) -> bool {
    let serving = tonic_health::pb::health_check_response::ServingStatus::Serving as i32;
    crate::health::status(url, service, Duration::from_millis(500)).await == Ok(serving)
}

/// Whether Redis at `url` answers PING.
async fn redis_answers(url: &str) -> bool {
    use store::EventStore;
    let ping = async { store::RedisStore::connect(url).await.ok()?.ping().await.ok() };
    matches!(tokio::time::timeout(Duration::from_millis(500), ping).await, Ok(Some(())))
}

impl Drop for Cluster {
    fn drop(&mut self) {
        kill_all();
    }
}
