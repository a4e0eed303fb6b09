//! The cluster harness against the real `redis-server` and `redis-cli`: three primaries
//! that share all 16384 slots, keys answered only by the node that owns their slot, and
//! nothing left behind on drop.

use std::io::{Read, Write};
use std::net::TcpStream;
use test_harness::RedisCluster;

/// Sends one inline command and returns the raw reply (enough for these small answers).
fn command(port: u16, line: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.write_all(format!("{line}\r\n").as_bytes()).expect("write");
    let mut buf = [0u8; 4096];
    let n = stream.read(&mut buf).expect("read");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[test]
fn three_primaries_share_every_slot_and_clean_up() {
    let cluster = RedisCluster::start(3);
    let ports: Vec<u16> = cluster.nodes().iter().map(|n| n.port()).collect();
    assert_eq!(
        cluster.urls(),
        ports.iter().map(|p| format!("redis://127.0.0.1:{p}/")).collect::<Vec<_>>()
    );
    for &port in &ports {
        let info = command(port, "CLUSTER INFO");
        for line in ["cluster_state:ok", "cluster_slots_assigned:16384", "cluster_known_nodes:3"] {
            assert!(info.contains(line), "node {port} lacks {line}: {info}");
        }
    }
    // Each key is served by exactly one node; the others redirect with MOVED.
    for key in ["a", "b", "c", "{match}:log"] {
        let answers: Vec<String> =
            ports.iter().map(|&p| command(p, &format!("SET {key} v"))).collect();
        assert_eq!(answers.iter().filter(|a| *a == "+OK\r\n").count(), 1, "{key}: {answers:?}");
        assert_eq!(answers.iter().filter(|a| a.starts_with("-MOVED")).count(), 2, "{answers:?}");
    }
    let dirs: Vec<_> = cluster.nodes().iter().map(|n| n.dir().to_path_buf()).collect();
    assert!(dirs.iter().all(|d| d.join("nodes.conf").exists()));
    drop(cluster);
    for (port, dir) in ports.iter().zip(&dirs) {
        assert!(!dir.exists(), "{} is left behind", dir.display());
        assert!(TcpStream::connect(("127.0.0.1", *port)).is_err(), "port {port} still answers");
    }
}

#[test]
#[should_panic(expected = "at least 3 masters")]
fn fewer_than_three_masters_is_refused() {
    RedisCluster::start(2);
}
