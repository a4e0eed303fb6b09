//! A real `redis-server` for tests: a child process on a free loopback port.
//!
//! [`RedisServer::start`] runs
//! `redis-server --port <free port> --bind 127.0.0.1 --save '' --appendonly no` in a fresh
//! temporary directory (its log goes to `redis.log` there), waits until `PING` answers
//! `PONG` (for a bounded number of attempts, about ten seconds), and returns. Dropping the
//! value kills the process and removes the directory, so a failing test leaves nothing
//! behind.
//!
//! [`RedisServer::stop`] kills the process with SIGKILL, as a crash would, and
//! [`RedisServer::restart`] starts it again on the same port and in the same directory, so
//! clients that reconnect find it where it was. With [`Persistence::AppendOnly`] the server
//! writes an append-only file (`--appendonly yes --appendfsync always`) in that directory
//! and a restart reloads it: what the server acknowledged survives the kill. With
//! [`RedisOptions::cluster`] it starts as a Redis Cluster node (its `nodes.conf` in that
//! directory, its cluster bus on a second free port) for [`crate::RedisCluster`] to join.
//!
//! Readiness is probed with a raw RESP `PING` over `std::net::TcpStream`, so this module
//! needs no Redis client. Timing is bounded by counting attempts, not by reading a clock
//! (the workspace forbids `Instant::now`).

use std::fs;
use std::io::{self, ErrorKind, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread;
use std::time::Duration;

/// How the server keeps its data.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default)]
pub enum Persistence {
    /// Nothing on disk (`--save '' --appendonly no`): the usual choice for tests.
    #[default]
    None,
    /// An append-only file fsynced on every write (`--appendonly yes --appendfsync always`)
    /// in the server's temporary directory; [`RedisServer::restart`] reloads it.
    AppendOnly,
}

/// Options for [`RedisServer::start_with`]. `RedisOptions::default()` is what
/// [`RedisServer::start`] uses.
#[derive(Clone, Debug)]
pub struct RedisOptions {
    /// How the server keeps its data.
    pub persistence: Persistence,
    /// The program to run, looked up on `PATH` unless it is a path. `redis-server` by
    /// default; tests of the harness itself point it elsewhere.
    pub program: PathBuf,
    /// How many times to probe for `PONG`, 10 ms apart (each probe may also wait up to
    /// 100 ms to connect). 1,000 by default: about ten seconds.
    pub ready_attempts: u32,
    /// Start as a cluster node (`--cluster-enabled yes`), alone until
    /// [`crate::RedisCluster`] joins it to others. Off by default.
    pub cluster: bool,
    /// Start as a replica of the server on this loopback port (`--replicaof 127.0.0.1
    /// <port>`), for [`crate::RedisSentinel`]. `None` (a primary) by default.
    pub replica_of: Option<u16>,
}

impl Default for RedisOptions {
    fn default() -> Self {
        RedisOptions {
            persistence: Persistence::None,
            program: PathBuf::from("redis-server"),
            ready_attempts: 1_000,
            cluster: false,
            replica_of: None,
        }
    }
}

/// A running `redis-server` on 127.0.0.1, killed when dropped.
#[derive(Debug)]
pub struct RedisServer {
    /// The process while it runs; `None` after [`RedisServer::stop`].
    child: Option<Child>,
    /// The loopback port; kept across restarts.
    port: u16,
    /// The cluster bus port of a cluster node (Redis's default, port + 10000, may be out of
    /// range or taken); kept across restarts.
    bus_port: Option<u16>,
    /// The server's working directory: its log and, with append-only persistence, its data.
    dir: PathBuf,
    /// What it was started with, reused by [`RedisServer::restart`].
    options: RedisOptions,
}

/// How many times to pick a new port when the server cannot bind the one chosen (another
/// process took it between [`crate::free_port`] and the server's bind).
const PORT_ATTEMPTS: u32 = 5;

/// Makes temporary directory names unique within this process.
static NEXT_DIR: AtomicU64 = AtomicU64::new(0);

impl RedisServer {
    /// Starts `redis-server` without persistence on a free loopback port and waits until
    /// it answers `PING`.
    ///
    /// # Panics
    ///
    /// If `redis-server` is not on `PATH` (the message says that
    /// `apt-get install -y redis-server` provides it), or if it does not become ready; the
    /// message then includes the end of its log.
    pub fn start() -> RedisServer {
        RedisServer::start_with(RedisOptions::default())
    }

    /// Starts `redis-server` with `options` on a free loopback port and waits until it
    /// answers `PING`.
    ///
    /// # Panics
    ///
    /// As [`RedisServer::start`].
    pub fn start_with(options: RedisOptions) -> RedisServer {
        check_program(&options.program);
        let mut last_log = String::new();
        for _ in 0..PORT_ATTEMPTS {
            let mut server = RedisServer {
                child: None,
                port: crate::free_port(),
                bus_port: options.cluster.then(crate::free_port),
                // Each attempt has its own directory: a failed attempt's Drop removes it.
                dir: make_dir(),
                options: options.clone(),
            };
            match server.spawn_and_wait() {
                Ok(()) => return server,
                Err(Failure::Exited) => {
                    // Most likely the port was taken meanwhile: try another one.
                    last_log = server.log_tail();
                }
                Err(Failure::NotReady) => {
                    let log = server.log_tail();
                    panic!(
                        "redis-server on port {} did not answer PING in time; end of its log:\n{log}",
                        server.port
                    );
                }
            }
        }
        panic!(
            "redis-server exited at startup {PORT_ATTEMPTS} times (ports taken?); end of its last log:\n{last_log}"
        );
    }

    /// `redis://127.0.0.1:PORT/`, for a Redis client.
    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/", self.port)
    }

    /// The port on 127.0.0.1 the server listens on; the same across restarts.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The server's working directory (its log `redis.log`, and its append-only file with
    /// [`Persistence::AppendOnly`]). Removed when the server is dropped.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether the process is running (it may have died on its own).
    pub fn is_running(&mut self) -> bool {
        match self.child.as_mut() {
            Some(child) => matches!(child.try_wait(), Ok(None)),
            None => false,
        }
    }

    /// Kills the server with SIGKILL, as a crash would, and waits for it to exit. The port
    /// and directory are kept for [`RedisServer::restart`]. Does nothing if it is stopped.
    pub fn stop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // An error here means the process already exited: nothing left to stop.
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Stops the server if it runs, starts it again on the same port and in the same
    /// directory, and waits until it answers `PING`. With [`Persistence::AppendOnly`] it
    /// reloads its data.
    ///
    /// # Panics
    ///
    /// If it does not become ready; the message includes the end of its log.
    pub fn restart(&mut self) {
        self.stop();
        // The old socket may linger briefly; redis-server sets SO_REUSEADDR, but retry a
        // few times in case the kernel still refuses the bind.
        for _ in 0..PORT_ATTEMPTS {
            match self.spawn_and_wait() {
                Ok(()) => return,
                Err(Failure::Exited) => thread::sleep(Duration::from_millis(100)),
                Err(Failure::NotReady) => break,
            }
        }
        panic!(
            "redis-server did not restart on port {}; end of its log:\n{}",
            self.port,
            self.log_tail()
        );
    }

    /// The server's log so far (empty if it wrote none).
    pub fn log(&self) -> String {
        fs::read_to_string(self.dir.join("redis.log")).unwrap_or_default()
    }

    fn log_tail(&self) -> String {
        let log = self.log();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    fn spawn_and_wait(&mut self) -> Result<(), Failure> {
        let mut command = Command::new(&self.options.program);
        command
            .arg("--port")
            .arg(self.port.to_string())
            .args(["--bind", "127.0.0.1", "--daemonize", "no", "--save", ""])
            .arg("--dir")
            .arg(&self.dir)
            .arg("--logfile")
            .arg(self.dir.join("redis.log"));
        match self.options.persistence {
            Persistence::None => command.args(["--appendonly", "no"]),
            Persistence::AppendOnly => {
                command.args(["--appendonly", "yes", "--appendfsync", "always"])
            }
        };
        if let Some(bus_port) = self.bus_port {
            // A relative config file lives in `--dir`, so each node has its own.
            command
                .args(["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf"])
                .arg("--cluster-port")
                .arg(bus_port.to_string());
        }
        if let Some(primary) = self.options.replica_of {
            command.args(["--replicaof", "127.0.0.1"]).arg(primary.to_string());
        }
        command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
        let child = command
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", self.options.program.display()));
        self.child = Some(child);
        for _ in 0..self.options.ready_attempts {
            if !self.is_running() {
                self.stop();
                return Err(Failure::Exited);
            }
            if ping(self.port).is_ok() {
                return Ok(());
            }
            thread::sleep(Duration::from_millis(10));
        }
        self.stop();
        Err(Failure::NotReady)
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Why a start attempt failed.
enum Failure {
    /// The process exited before answering (usually: port taken).
    Exited,
    /// It kept running but never answered `PONG`.
    NotReady,
}

/// Panics with the install hint when the program cannot be run at all.
pub(crate) fn check_program(program: &Path) {
    match Command::new(program)
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(_) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => panic!(
            "`{}` was not found on PATH: the integration tests need a real Redis. \
             `apt-get install -y redis-server` provides it (Redis 7).",
            program.display()
        ),
        Err(e) => panic!("cannot run `{} --version`: {e}", program.display()),
    }
}

/// A fresh, empty directory under the system's temporary directory.
pub(crate) fn make_dir() -> PathBuf {
    let n = NEXT_DIR.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("colosseum-redis-{}-{n}", std::process::id()));
    // A directory of that name can only be left over from an earlier process with the
    // same id; its contents are stale.
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir)
        .unwrap_or_else(|e| panic!("cannot create the directory {}: {e}", dir.display()));
    dir
}

/// One RESP `PING` on a new connection; `Ok` if the answer is `+PONG`.
pub(crate) fn ping(port: u16) -> io::Result<()> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(100))?;
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    stream.write_all(b"PING\r\n")?;
    let mut reply = [0u8; 7];
    stream.read_exact(&mut reply)?;
    if &reply == b"+PONG\r\n" {
        Ok(())
    } else {
        // e.g. "-LOADING" while an append-only file is replayed: not ready yet.
        Err(io::Error::other("not ready"))
    }
}
