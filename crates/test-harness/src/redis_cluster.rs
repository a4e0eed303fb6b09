//! A real Redis Cluster for tests: `masters` cluster-mode `redis-server`s on free loopback
//! ports, each in its own temporary directory, joined into one cluster by
//! `redis-cli --cluster create` (no replicas, the slots split evenly).
//!
//! [`RedisCluster::start`] returns once every node reports `cluster_state:ok` (polled for a
//! bounded number of attempts, about ten seconds, as [`crate::RedisServer`] polls `PING`).
//! Dropping the value drops its [`RedisServer`]s: every process is killed and every
//! directory removed.

use crate::redis_server::{RedisOptions, RedisServer, check_program};
use std::fs::{self, File};
use std::io::{self, Read, Write};
use std::net::{Ipv4Addr, SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Command, Stdio};
use std::thread;
use std::time::Duration;

/// How many times to look at `redis-cli --cluster create`, and then at the nodes'
/// `CLUSTER INFO`, 10 ms apart: about 30 and 10 seconds.
const CREATE_ATTEMPTS: u32 = 3_000;
const READY_ATTEMPTS: u32 = 1_000;

/// A running Redis Cluster of primaries on 127.0.0.1, killed when dropped.
#[derive(Debug)]
pub struct RedisCluster {
    nodes: Vec<RedisServer>,
}

impl RedisCluster {
    /// Starts `masters` nodes, forms a cluster of them and waits until every node reports
    /// `cluster_state:ok`.
    ///
    /// # Panics
    ///
    /// If `masters` is below 3 (the least `redis-cli --cluster create` accepts), if
    /// `redis-server` or `redis-cli` is missing, or if the cluster does not form; the
    /// message then includes what `redis-cli` printed or the last `CLUSTER INFO`.
    pub fn start(masters: usize) -> RedisCluster {
        assert!(masters >= 3, "a Redis Cluster needs at least 3 masters, not {masters}");
        let cli = Path::new("redis-cli");
        check_program(cli);
        let options = RedisOptions { cluster: true, ..RedisOptions::default() };
        let nodes: Vec<RedisServer> =
            (0..masters).map(|_| RedisServer::start_with(options.clone())).collect();
        let cluster = RedisCluster { nodes };
        cluster.create(cli);
        cluster.wait_until_ok();
        cluster
    }

    /// `redis://127.0.0.1:PORT/` of every node: seed nodes for a cluster client.
    pub fn urls(&self) -> Vec<String> {
        self.nodes.iter().map(RedisServer::url).collect()
    }

    /// The nodes, to reach one directly (its port, its log).
    pub fn nodes(&self) -> &[RedisServer] {
        &self.nodes
    }

    /// Runs `redis-cli --cluster create` over the nodes, bounded; its output goes to
    /// `cluster-create.log` in the first node's directory.
    fn create(&self, cli: &Path) {
        let log_path = self.nodes[0].dir().join("cluster-create.log");
        let log = File::create(&log_path)
            .unwrap_or_else(|e| panic!("cannot create {}: {e}", log_path.display()));
        let errors = log.try_clone().unwrap_or_else(|e| panic!("cannot share a log file: {e}"));
        let mut child = Command::new(cli)
            .arg("--cluster")
            .arg("create")
            .args(self.nodes.iter().map(|n| format!("127.0.0.1:{}", n.port())))
            .args(["--cluster-replicas", "0", "--cluster-yes"])
            .stdin(Stdio::null())
            .stdout(log)
            .stderr(errors)
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {}: {e}", cli.display()));
        let printed = || fs::read_to_string(&log_path).unwrap_or_default();
        for _ in 0..CREATE_ATTEMPTS {
            match child.try_wait() {
                Ok(Some(status)) if status.success() => return,
                Ok(Some(status)) => {
                    panic!("redis-cli --cluster create failed ({status}):\n{}", printed())
                }
                Ok(None) => thread::sleep(Duration::from_millis(10)),
                Err(e) => panic!("cannot wait for redis-cli: {e}"),
            }
        }
        // An error here means it exited meanwhile: nothing left to stop.
        let _ = child.kill();
        let _ = child.wait();
        panic!("redis-cli --cluster create did not finish in time:\n{}", printed());
    }

    /// Waits until every node says `cluster_state:ok`.
    fn wait_until_ok(&self) {
        let mut last = String::new();
        for _ in 0..READY_ATTEMPTS {
            let mut all_ok = true;
            for node in &self.nodes {
                match cluster_info(node.port()) {
                    Ok(info) if info.lines().any(|l| l.trim_end() == "cluster_state:ok") => {}
                    Ok(info) => {
                        last = info;
                        all_ok = false;
                    }
                    Err(e) => {
                        last = e.to_string();
                        all_ok = false;
                    }
                }
            }
            if all_ok {
                return;
            }
            thread::sleep(Duration::from_millis(10));
        }
        panic!(
            "the Redis Cluster did not reach cluster_state:ok in time; last CLUSTER INFO:\n{last}"
        );
    }
}

/// `CLUSTER INFO` of the node on `port`, over raw RESP (its reply is one bulk string).
fn cluster_info(port: u16) -> io::Result<String> {
    let addr = SocketAddr::from((Ipv4Addr::LOCALHOST, port));
    let mut stream = TcpStream::connect_timeout(&addr, Duration::from_millis(100))?;
    stream.set_read_timeout(Some(Duration::from_millis(500)))?;
    stream.write_all(b"CLUSTER INFO\r\n")?;
    let mut reply = Vec::new();
    let mut byte = [0u8; 1];
    // The header: `$<length>\r\n`.
    while !reply.ends_with(b"\r\n") {
        stream.read_exact(&mut byte)?;
        reply.push(byte[0]);
    }
    let header = String::from_utf8_lossy(&reply).trim_end().to_string();
    let length: usize = header
        .strip_prefix('$')
        .and_then(|n| n.parse().ok())
        .ok_or_else(|| io::Error::other(format!("CLUSTER INFO answered {header:?}")))?;
    let mut body = vec![0u8; length];
    stream.read_exact(&mut body)?;
    Ok(String::from_utf8_lossy(&body).into_owned())
}
