//! A real PostgreSQL for tests: `initdb` in a temporary directory, then `postgres` as a
//! child process on a free loopback port (Debian's package: its binaries under
//! `/usr/lib/postgresql/<version>/bin`, or `PG_BIN`, or on `PATH`).
//!
//! PostgreSQL refuses to run as root, so as root the directory is given to the `postgres`
//! user the package creates and both programs run as that user (`setpriv`, which execs: the
//! child is the postmaster itself, so a kill reaches it). [`PostgresServer::crash`] stops
//! it as a crash would (SIGQUIT: no checkpoint, recovery at the next start) and
//! [`PostgresServer::restart`] starts it on the same port and data. Fsync is off: a test
//! database, not a durable one (a crash of the server process, not of the machine, loses
//! nothing acknowledged either way).

use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Duration;

/// The database user and database the tests connect as.
pub const USER: &str = "colosseum";

/// A running PostgreSQL on 127.0.0.1, stopped and its directory removed when dropped.
#[derive(Debug)]
pub struct PostgresServer {
    child: Option<Child>,
    port: u16,
    dir: PathBuf,
    bin: PathBuf,
    /// The user the server runs as when this process is root.
    run_as: Option<(u32, u32)>,
}

/// How many times to pick a new port when the server cannot bind the one chosen.
const PORT_ATTEMPTS: u32 = 5;

impl PostgresServer {
    /// Makes a database cluster and starts it on a free loopback port; answers once it
    /// accepts connections, with the database [`USER`] made (owned by that user).
    ///
    /// # Panics
    ///
    /// If PostgreSQL is not installed (the message says `apt-get install -y postgresql`
    /// provides it), or does not start; the message then includes the end of its log.
    pub fn start() -> PostgresServer {
        let bin = bin_dir();
        let run_as = if is_root() { Some(postgres_ids()) } else { None };
        let dir = crate::redis_server::make_dir();
        if let Some((uid, gid)) = run_as {
            std::os::unix::fs::chown(&dir, Some(uid), Some(gid))
                .unwrap_or_else(|e| panic!("cannot give {} to postgres: {e}", dir.display()));
        }
        let mut server = PostgresServer { child: None, port: 0, dir, bin, run_as };
        let out = server
            .command("initdb")
            .args(["-A", "trust", "-U", USER, "-E", "UTF8", "--no-sync", "-D"])
            .arg(server.data())
            .output()
            .unwrap_or_else(|e| panic!("cannot run initdb: {e}"));
        assert!(
            out.status.success(),
            "initdb failed: {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        for _ in 0..PORT_ATTEMPTS {
            server.port = crate::free_port();
            if server.spawn_and_wait() {
                server.psql(&format!("CREATE DATABASE {USER}"));
                return server;
            }
        }
        panic!("postgres did not start; end of its log:\n{}", server.log_tail());
    }

    /// `postgres://colosseum@127.0.0.1:PORT/colosseum`, for a client.
    pub fn url(&self) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/{USER}", self.port)
    }

    /// The port on 127.0.0.1; the same across restarts.
    pub fn port(&self) -> u16 {
        self.port
    }

    /// Runs `sql` through `psql` in the maintenance database `postgres` and answers its
    /// output (unaligned, tuples only).
    ///
    /// # Panics
    /// If `psql` fails.
    pub fn psql(&self, sql: &str) -> String {
        self.psql_in("postgres", sql)
    }

    /// Runs `sql` in the tests' database ([`USER`]) and answers its output.
    ///
    /// # Panics
    /// If `psql` fails.
    pub fn query(&self, sql: &str) -> String {
        self.psql_in(USER, sql)
    }

    fn psql_in(&self, database: &str, sql: &str) -> String {
        let out = Command::new(self.bin.join("psql"))
            .args(["-h", "127.0.0.1", "-U", USER, "-At", "-v", "ON_ERROR_STOP=1", "-d", database])
            .arg("-p")
            .arg(self.port.to_string())
            .arg("-c")
            .arg(sql)
            .output()
            .unwrap_or_else(|e| panic!("cannot run psql: {e}"));
        assert!(out.status.success(), "psql {sql:?}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Stops the server as a crash would (SIGQUIT: an immediate shutdown, no checkpoint;
    /// the next start recovers from the log). Nothing happens if it is stopped.
    pub fn crash(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGQUIT, through kill(1): the harness has no libc binding.
            let _ = Command::new("kill").arg("-QUIT").arg(child.id().to_string()).status();
            let _ = child.wait();
        }
    }

    /// Starts it again on the same port and data (after [`PostgresServer::crash`]).
    ///
    /// # Panics
    /// If it does not become ready.
    pub fn restart(&mut self) {
        self.crash();
        for _ in 0..PORT_ATTEMPTS {
            if self.spawn_and_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(200));
        }
        panic!(
            "postgres did not restart on port {}; end of its log:\n{}",
            self.port,
            self.log_tail()
        );
    }

    fn data(&self) -> PathBuf {
        self.dir.join("data")
    }

    fn command(&self, program: &str) -> Command {
        let path = self.bin.join(program);
        let mut command = match self.run_as {
            Some((uid, gid)) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={uid}"))
                    .arg(format!("--regid={gid}"))
                    .arg("--clear-groups")
                    .arg(path);
                c
            }
            None => Command::new(path),
        };
        command.stdin(Stdio::null());
        command
    }

    fn log_tail(&self) -> String {
        let log = fs::read_to_string(self.dir.join("postgres.log")).unwrap_or_default();
        let lines: Vec<&str> = log.lines().collect();
        lines[lines.len().saturating_sub(20)..].join("\n")
    }

    /// Starts the postmaster and waits until it accepts connections; `false` if it exited
    /// (the port was likely taken) or never became ready.
    fn spawn_and_wait(&mut self) -> bool {
        let log = fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.join("postgres.log"))
            .unwrap_or_else(|e| panic!("cannot open the postgres log: {e}"));
        if let Some((uid, gid)) = self.run_as {
            let _ = std::os::unix::fs::chown(self.dir.join("postgres.log"), Some(uid), Some(gid));
        }
        let child = self
            .command("postgres")
            .arg("-D")
            .arg(self.data())
            .arg("-p")
            .arg(self.port.to_string())
            .arg("-k")
            .arg(&self.dir)
            .args(["-c", "listen_addresses=127.0.0.1", "-c", "fsync=off"])
            // Not `synchronous_commit=off`: that acknowledges commits a crash of the server
            // process loses, and the chaos trial kills it.
            .args(["-c", "full_page_writes=off"])
            .args(["-c", "max_connections=200", "-c", "shared_buffers=128MB"])
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start postgres: {e}"));
        self.child = Some(child);
        for _ in 0..1_000 {
            if let Some(child) = self.child.as_mut()
                && !matches!(child.try_wait(), Ok(None))
            {
                self.child = None;
                return false;
            }
            let ready = Command::new(self.bin.join("pg_isready"))
                .args(["-q", "-h", "127.0.0.1", "-p"])
                .arg(self.port.to_string())
                .status()
                .is_ok_and(|s| s.success());
            if ready {
                return true;
            }
            thread::sleep(Duration::from_millis(20));
        }
        self.crash();
        false
    }
}

impl Drop for PostgresServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGINT: a fast shutdown (the directory goes next anyway).
            let _ = Command::new("kill").arg("-INT").arg(child.id().to_string()).status();
            let _ = child.wait();
        }
        let _ = fs::remove_dir_all(&self.dir);
    }
}

/// Where the PostgreSQL programs are: `PG_BIN`, else Debian's newest
/// `/usr/lib/postgresql/<version>/bin`, else the directory of `initdb` on `PATH`.
fn bin_dir() -> PathBuf {
    if let Ok(dir) = std::env::var("PG_BIN") {
        return PathBuf::from(dir);
    }
    let mut debian: Vec<PathBuf> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path().join("bin"))
        .filter(|p| p.join("initdb").exists())
        .collect();
    debian.sort_by_key(|p| {
        p.parent()
            .and_then(Path::file_name)
            .and_then(|v| v.to_str())
            .and_then(|v| v.parse::<u32>().ok())
            .unwrap_or(0)
    });
    if let Some(dir) = debian.pop() {
        return dir;
    }
    std::env::var_os("PATH")
        .into_iter()
        .flat_map(|p| std::env::split_paths(&p).collect::<Vec<_>>())
        .find(|d| d.join("initdb").exists() && d.join("postgres").exists())
        .unwrap_or_else(|| {
            panic!(
                "PostgreSQL was not found (no /usr/lib/postgresql/*/bin, PG_BIN or initdb on \
                 PATH): the archive's tests need a real one. `apt-get install -y postgresql` \
                 provides it."
            )
        })
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// The `postgres` user's uid and gid, from /etc/passwd.
fn postgres_ids() -> (u32, u32) {
    let passwd = fs::read_to_string("/etc/passwd").unwrap_or_default();
    passwd
        .lines()
        .find_map(|l| {
            let f: Vec<&str> = l.split(':').collect();
            (f.first() == Some(&"postgres") && f.len() > 3)
                .then(|| Some((f[2].parse().ok()?, f[3].parse().ok()?)))
                .flatten()
        })
        .unwrap_or_else(|| {
            panic!(
                "running as root, and there is no `postgres` user to run PostgreSQL as: \
                 `apt-get install -y postgresql` makes one"
            )
        })
}
