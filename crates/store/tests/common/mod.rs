//! The stores every contract suite of this crate runs against (`tests/store.rs`,
//! `tests/lobby.rs`): in memory, on a real `redis-server`, on a real 3-primary Redis
//! Cluster, each Redis one started by `test-harness` on free loopback ports for one test.

#![allow(dead_code)] // Each suite uses the part it needs.

use std::sync::Arc;
use store::{FullStore, MemoryStore, RedisStore};
use test_harness::{RedisCluster, RedisOptions, RedisServer};

/// A store and the servers behind it, which live as long as the fixture.
pub struct Fixture {
    /// The store (every suite takes the part it tests, by upcasting).
    pub store: Arc<dyn FullStore>,
    /// The Redis server, for the single-server stores.
    pub redis: Option<RedisServer>,
    /// The Redis Cluster, for the cluster stores.
    pub cluster: Option<RedisCluster>,
}

/// The in-memory store.
pub async fn memory_fixture() -> Fixture {
    Fixture { store: Arc::new(MemoryStore::new()), redis: None, cluster: None }
}

/// A fresh `redis-server` with `options`.
pub async fn start_redis(options: RedisOptions) -> RedisServer {
    tokio::task::spawn_blocking(move || RedisServer::start_with(options)).await.expect("start")
}

/// The Redis store on a fresh server.
pub async fn redis_fixture() -> Fixture {
    let server = start_redis(RedisOptions::default()).await;
    let store = RedisStore::connect(&server.url()).await.expect("connect");
    Fixture { store: Arc::new(store), redis: Some(server), cluster: None }
}

/// A fresh 3-primary Redis Cluster.
pub async fn start_cluster() -> RedisCluster {
    tokio::task::spawn_blocking(|| RedisCluster::start(3)).await.expect("start")
}

/// The Redis store on a fresh cluster.
pub async fn cluster_fixture() -> Fixture {
    let cluster = start_cluster().await;
    let store = RedisStore::connect_cluster(&cluster.urls()).await.expect("connect");
    Fixture { store: Arc::new(store), redis: None, cluster: Some(cluster) }
}

/// Runs each named test function (`async fn(Store)`) against the three stores.
#[allow(unused_macros)] // `tests/store.rs` runs its own.
macro_rules! suite {
    ($($name:ident),* $(,)?) => {
        suite!(@stores memory_store, memory_fixture, $($name,)*);
        suite!(@stores redis_store, redis_fixture, $($name,)*);
        suite!(@stores redis_cluster, cluster_fixture, $($name,)*);
    };
    (@stores $module:ident, $fixture:ident, $($name:ident,)*) => {
        mod $module {
            $(
                #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
                async fn $name() {
                    let fixture = super::common::$fixture().await;
                    super::$name(fixture.store.clone()).await;
                    // The servers stop only after the test is done with them.
                    drop((fixture.redis, fixture.cluster));
                }
            )*
        }
    };
}
