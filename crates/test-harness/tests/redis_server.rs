//! The harness against the real `redis-server`: start, PING, stop, restart on the same
//! port, persistence across a kill, cleanup on drop, and the message when the program is
//! missing.

use std::io::{Read, Write};
use std::net::TcpStream;
use test_harness::{Persistence, RedisOptions, RedisServer};

/// Sends one inline command and returns the raw reply (enough for these small answers).
fn command(port: u16, line: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).expect("connect");
    stream.write_all(format!("{line}\r\n").as_bytes()).expect("write");
    let mut buf = [0u8; 256];
    let n = stream.read(&mut buf).expect("read");
    String::from_utf8_lossy(&buf[..n]).into_owned()
}

#[test]
fn starts_on_a_free_loopback_port_and_answers() {
    let server = RedisServer::start();
    assert_eq!(server.url(), format!("redis://127.0.0.1:{}/", server.port()));
    assert_eq!(command(server.port(), "PING"), "+PONG\r\n");
    assert_eq!(command(server.port(), "SET k v"), "+OK\r\n");
    assert_eq!(command(server.port(), "GET k"), "$1\r\nv\r\n");
}

#[test]
fn two_servers_get_two_ports() {
    let a = RedisServer::start();
    let b = RedisServer::start();
    assert_ne!(a.port(), b.port());
    assert_ne!(a.dir(), b.dir());
}

#[test]
fn stop_kills_and_restart_keeps_the_port_without_data() {
    let mut server = RedisServer::start();
    let port = server.port();
    assert_eq!(command(port, "SET k v"), "+OK\r\n");
    server.stop();
    assert!(!server.is_running());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err(), "nothing listens after stop");
    server.restart();
    assert!(server.is_running());
    assert_eq!(server.port(), port);
    assert_eq!(command(port, "GET k"), "$-1\r\n", "no persistence: the data is gone");
}

#[test]
fn append_only_data_survives_a_kill() {
    let mut server = RedisServer::start_with(RedisOptions {
        persistence: Persistence::AppendOnly,
        ..Default::default()
    });
    assert_eq!(command(server.port(), "SET k durable"), "+OK\r\n");
    server.restart(); // SIGKILL, then start again on the same directory
    assert_eq!(command(server.port(), "GET k"), "$7\r\ndurable\r\n");
}

#[test]
fn drop_kills_the_server_and_removes_its_directory() {
    let server = RedisServer::start();
    let (port, dir) = (server.port(), server.dir().to_path_buf());
    assert!(dir.join("redis.log").exists());
    drop(server);
    assert!(!dir.exists());
    assert!(TcpStream::connect(("127.0.0.1", port)).is_err());
}

#[test]
#[should_panic(expected = "apt-get install -y redis-server")]
fn a_missing_program_says_how_to_install_it() {
    RedisServer::start_with(RedisOptions {
        program: "redis-server-that-does-not-exist".into(),
        ..Default::default()
    });
}
