//! A real Redis Sentinel deployment for tests: a master `redis-server`, one replica of it
//! and `sentinels` sentinels (`redis-server <dir>/sentinel.conf --sentinel`, each with its
//! own writable config file in its own temporary directory, as Sentinel rewrites it),
//! all on free loopback ports.
//!
//! [`RedisSentinel::start`] returns once the replica is in sync and every sentinel sees
//! the master and its replica (polled for a bounded number of attempts, about ten
//! seconds each). [`RedisSentinel::failover`] forces a failover (`SENTINEL FAILOVER`) and
//! waits until the sentinels name the replica as the master and it has taken the role.
//! Dropping the value kills every process and removes every directory.
//!
//! The sentinels declare the master down after one second (`down-after-milliseconds`),
//! so killing the master ([`RedisSentinel::servers_mut`], [`RedisServer::stop`]) also
//! leads to a promotion within a few seconds. Commands go through `redis-cli`.

use crate::redis_server::{RedisOptions, RedisServer, check_program, make_dir, ping};
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::thread;
use std::time::Duration;

/// The name the sentinels know the master by.
pub const MASTER_NAME: &str = "colosseum";

/// How many times to poll a condition, 10 ms apart: about ten seconds (each poll runs
/// `redis-cli`, so somewhat more).
const READY_ATTEMPTS: u32 = 1_000;
/// Polls (10 ms apart) for a demoted master to follow the new one.
const DEMOTION_ATTEMPTS: u32 = 4_000;

/// How many times to pick a new port when a sentinel cannot bind the one chosen.
const PORT_ATTEMPTS: u32 = 5;

/// A running master, replica and sentinels on 127.0.0.1, killed when dropped.
#[derive(Debug)]
pub struct RedisSentinel {
    /// The first master, then its replica (their roles swap on a failover).
    servers: Vec<RedisServer>,
    sentinels: Vec<SentinelProcess>,
}

/// One `redis-server --sentinel` child.
#[derive(Debug)]
struct SentinelProcess {
    child: Child,
    port: u16,
    dir: PathBuf,
}

impl Drop for SentinelProcess {
    fn drop(&mut self) {
        // An error here means the process already exited: nothing left to stop.
        let _ = self.child.kill();
        let _ = self.child.wait();
        let _ = fs::remove_dir_all(&self.dir);
    }
}

impl RedisSentinel {
    /// Starts a master, a replica in sync with it and `sentinels` sentinels watching it
    /// (quorum 1), and waits until every sentinel sees the replica.
    ///
    /// # Panics
    ///
    /// If `sentinels` is 0, if `redis-server` or `redis-cli` is missing, or if the
    /// deployment does not become ready; the message then says what was last seen.
    pub fn start(sentinels: usize) -> RedisSentinel {
        assert!(sentinels >= 1, "a Sentinel deployment needs at least one sentinel");
        check_program(Path::new("redis-cli"));
        let master = RedisServer::start();
        let replica = RedisServer::start_with(RedisOptions {
            replica_of: Some(master.port()),
            ..RedisOptions::default()
        });
        wait_for(
            || {
                let info = cli(replica.port(), &["INFO", "replication"]);
                (field(&info, "master_link_status").as_deref() == Some("up"))
                    .then_some(())
                    .ok_or(info)
            },
            "the replica did not sync with the master",
        );
        let sentinels = (0..sentinels).map(|_| start_sentinel(master.port())).collect();
        let deployment = RedisSentinel { servers: vec![master, replica], sentinels };
        for sentinel in &deployment.sentinels {
            wait_for(
                || {
                    let reply = cli(sentinel.port, &["SENTINEL", "MASTER", MASTER_NAME]);
                    (pair(&reply, "num-slaves").as_deref() == Some("1")).then_some(()).ok_or(reply)
                },
                "a sentinel did not discover the replica",
            );
        }
        deployment
    }

    /// `redis://127.0.0.1:PORT` of every sentinel, for a Sentinel client.
    pub fn sentinel_urls(&self) -> Vec<String> {
        self.sentinels.iter().map(|s| format!("redis://127.0.0.1:{}", s.port)).collect()
    }

    /// The name the sentinels know the master by.
    pub fn master_name(&self) -> &'static str {
        MASTER_NAME
    }

    /// The master and the replica, in the order they were started (the first one was the
    /// master at start).
    pub fn servers(&self) -> &[RedisServer] {
        &self.servers
    }

    /// As [`RedisSentinel::servers`], to stop or restart one.
    pub fn servers_mut(&mut self) -> &mut [RedisServer] {
        &mut self.servers
    }

    /// The port of the master as the first sentinel names it now.
    ///
    /// # Panics
    ///
    /// If the sentinel does not answer with an address.
    pub fn master_port(&self) -> u16 {
        let reply =
            cli(self.sentinels[0].port, &["SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME]);
        reply
            .lines()
            .nth(1)
            .and_then(|p| p.trim().parse().ok())
            .unwrap_or_else(|| panic!("the sentinel names no master: {reply:?}"))
    }

    /// Forces a failover: waits until the replica has everything the master has, sends
    /// `SENTINEL FAILOVER`, and waits until every sentinel names the replica as the master
    /// and it answers as one. Returns the new master's port.
    ///
    /// # Panics
    ///
    /// If the failover does not complete in time; the message says what was last seen.
    pub fn failover(&self) -> u16 {
        let old = self.master_port();
        let new = self
            .servers
            .iter()
            .map(RedisServer::port)
            .find(|&p| p != old)
            .expect("a replica besides the master");
        // Replication is asynchronous: a planned failover waits for the replica first.
        wait_for(
            || {
                let master = cli(old, &["INFO", "replication"]);
                let replica = cli(new, &["INFO", "replication"]);
                let sent = field(&master, "master_repl_offset");
                (sent.is_some() && sent == field(&replica, "slave_repl_offset"))
                    .then_some(())
                    .ok_or(format!("{master}\n{replica}"))
            },
            "the replica did not catch up with the master",
        );
        wait_for(
            || {
                // INPROG or NOGOODSLAVE while the sentinel's view of the replica settles.
                let reply = cli(self.sentinels[0].port, &["SENTINEL", "FAILOVER", MASTER_NAME]);
                (reply.trim() == "OK").then_some(()).ok_or(reply)
            },
            "SENTINEL FAILOVER was not accepted",
        );
        wait_for(
            || {
                let roles: Vec<String> = self
                    .sentinels
                    .iter()
                    .map(|s| cli(s.port, &["SENTINEL", "GET-MASTER-ADDR-BY-NAME", MASTER_NAME]))
                    .collect();
                let named = roles
                    .iter()
                    .all(|r| r.lines().nth(1).map(str::trim) == Some(&*new.to_string()));
                let info = cli(new, &["INFO", "replication"]);
                (named && field(&info, "role").as_deref() == Some("master"))
                    .then_some(())
                    .ok_or(format!("{roles:?}\n{info}"))
            },
            "the sentinels did not promote the replica",
        );
        new
    }
}

impl RedisSentinel {
    /// Waits until the server on `port` is a replica in sync with the master on `master`
    /// (after a failover the sentinels demote the old master within seconds).
    ///
    /// # Panics
    ///
    /// If it does not happen in time; the message shows the server's last `INFO`.
    pub fn wait_until_replica_of(&self, port: u16, master: u16) {
        // Up to 40 s: the sentinels reconfigure the old master only after their own
        // timeouts, and its first sync with the new one can be slow on a busy machine.
        wait_for_up_to(
            DEMOTION_ATTEMPTS,
            || {
                let info = cli(port, &["INFO", "replication"]);
                let following = field(&info, "role").as_deref() == Some("slave")
                    && field(&info, "master_port").as_deref() == Some(&*master.to_string())
                    && field(&info, "master_link_status").as_deref() == Some("up");
                following.then_some(()).ok_or(info)
            },
            "the old master did not become a replica of the new one",
        );
    }
}

/// Starts one sentinel watching the master on `master`, retrying on a taken port.
fn start_sentinel(master: u16) -> SentinelProcess {
    let mut last_log = String::new();
    for _ in 0..PORT_ATTEMPTS {
        let port = crate::free_port();
        let dir = make_dir();
        let conf = dir.join("sentinel.conf");
        let log = dir.join("sentinel.log");
        let text = format!(
            "port {port}\nbind 127.0.0.1\ndaemonize no\ndir {dir}\nlogfile {log}\n\
             sentinel monitor {MASTER_NAME} 127.0.0.1 {master} 1\n\
             sentinel down-after-milliseconds {MASTER_NAME} 1000\n\
             sentinel failover-timeout {MASTER_NAME} 10000\n\
             sentinel parallel-syncs {MASTER_NAME} 1\n",
            dir = dir.display(),
            log = log.display(),
        );
        fs::write(&conf, text).unwrap_or_else(|e| panic!("cannot write {}: {e}", conf.display()));
        let child = Command::new("redis-server")
            .arg(&conf)
            .arg("--sentinel")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start redis-server --sentinel: {e}"));
        let mut sentinel = SentinelProcess { child, port, dir };
        for _ in 0..READY_ATTEMPTS {
            if !matches!(sentinel.child.try_wait(), Ok(None)) {
                break;
            }
            if ping(port).is_ok() {
                return sentinel;
            }
            thread::sleep(Duration::from_millis(10));
        }
        last_log = fs::read_to_string(&log).unwrap_or_default();
        if matches!(sentinel.child.try_wait(), Ok(None)) {
            panic!("a sentinel on port {port} did not answer PING in time; its log:\n{last_log}");
        }
    }
    panic!(
        "a sentinel exited at startup {PORT_ATTEMPTS} times (ports taken?); its last log:\n{last_log}"
    );
}

/// Polls `check` until it succeeds, or panics with `what` and its last answer.
fn wait_for(check: impl FnMut() -> Result<(), String>, what: &str) {
    wait_for_up_to(READY_ATTEMPTS, check, what)
}

/// As [`wait_for`], for at most `attempts` polls 10 ms apart.
fn wait_for_up_to(attempts: u32, mut check: impl FnMut() -> Result<(), String>, what: &str) {
    let mut last = String::new();
    for _ in 0..attempts {
        match check() {
            Ok(()) => return,
            Err(seen) => last = seen,
        }
        thread::sleep(Duration::from_millis(10));
    }
    panic!("{what} in time; last seen:\n{last}");
}

/// `redis-cli -p <port> <args>`: what it printed (an error reply too), or the reason it
/// could not run.
fn cli(port: u16, args: &[&str]) -> String {
    match Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p"])
        .arg(port.to_string())
        .args(args)
        .stdin(Stdio::null())
        .output()
    {
        Ok(out) => {
            String::from_utf8_lossy(&out.stdout).into_owned()
                + &String::from_utf8_lossy(&out.stderr)
        }
        Err(e) => format!("cannot run redis-cli: {e}"),
    }
}

/// `name:value` of an `INFO` reply.
fn field(info: &str, name: &str) -> Option<String> {
    info.lines()
        .find_map(|l| l.trim_end().strip_prefix(name)?.strip_prefix(':').map(str::to_string))
}

/// The line after the line `name` in a flat `redis-cli` reply (field, value, ...).
fn pair(reply: &str, name: &str) -> Option<String> {
    let mut lines = reply.lines().map(str::trim);
    lines.by_ref().find(|l| *l == name)?;
    lines.next().map(str::to_string)
}
