//! The one test harness of Colosseum: real servers for integration tests, started on free
//! loopback ports and torn down when the test ends.
//!
//! Integration tests run against the real thing, not mocks: `store` runs its whole store
//! suite against a `redis-server` started here, and the whole-cluster tests (tests/cluster)
//! start their Redis here and every service on it. Nothing in this crate belongs in a
//! production binary, so it is only ever a `[dev-dependencies]` entry (or a dependency of
//! a test-only crate, as tests/cluster is).
//!
//! # Layout
//!
//! - [`redis_server`]: [`RedisServer`], a `redis-server` child process on a free port of
//!   127.0.0.1, with its own temporary directory, stop/restart on the same port (for
//!   crash and restart tests) and optional append-only persistence (for durability tests).
//! - [`redis_cluster`]: [`RedisCluster`], a Redis Cluster of N primaries built from such
//!   servers (each in cluster mode) and formed with `redis-cli --cluster create`.
//! - [`redis_sentinel`]: [`RedisSentinel`], a master, one replica and N sentinels
//!   (`redis-server <conf> --sentinel`) watching it, with a forced failover on demand.
//! - [`postgres_server`]: [`PostgresServer`], a PostgreSQL cluster made by `initdb` in a
//!   temporary directory and its `postgres` on a free loopback port (the archive's tests).
//! - [`free_port`]: a free TCP port on the loopback interface.
//!
//! # Example
//!
//! ```no_run
//! let redis = test_harness::RedisServer::start();
//! let url = redis.url(); // "redis://127.0.0.1:PORT/"
//! # drop(url);
//! // the server is killed and its directory removed when `redis` is dropped
//! ```
//!
//! The harness is std-only (processes, TCP, files): no async runtime and no Redis client,
//! so any test can use it and it builds in a second.

pub mod postgres_server;
pub mod redis_cluster;
pub mod redis_sentinel;
pub mod redis_server;

pub use postgres_server::PostgresServer;
pub use redis_cluster::RedisCluster;
pub use redis_sentinel::RedisSentinel;
pub use redis_server::{Persistence, RedisOptions, RedisServer};

use std::net::{Ipv4Addr, TcpListener};

/// A TCP port on 127.0.0.1 that was free a moment ago: binds port 0, reads the port the
/// kernel chose and releases it.
///
/// Another process can take the port between this call and its use; servers started by
/// this harness retry with a new port when that happens.
///
/// # Panics
///
/// If the loopback interface refuses to bind, which means the machine cannot run
/// these tests at all.
pub fn free_port() -> u16 {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .unwrap_or_else(|e| panic!("cannot bind a TCP port on 127.0.0.1: {e}"));
    listener
        .local_addr()
        .unwrap_or_else(|e| panic!("cannot read the bound port on 127.0.0.1: {e}"))
        .port()
}
