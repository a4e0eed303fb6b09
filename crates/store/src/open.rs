//! Which event store a process opens, from its environment: a Redis Cluster, a Redis
//! Sentinel deployment, one Redis, or the in-memory store (for `make run` without Redis).
//! Every service binary and `colosseum run` open it here, so they all read the same
//! variables alike.
//!
//! | variables | store |
//! | --- | --- |
//! | `REDIS_CLUSTER_URLS` (seed nodes, comma-separated) | a Redis Cluster |
//! | `REDIS_SENTINEL_URLS` (sentinels, comma-separated) and `REDIS_SENTINEL_MASTER` (the master's name) | the master of a Redis Sentinel deployment, followed across failovers |
//! | `REDIS_URL` | one Redis (or a primary with replicas, without failover) |
//! | none of them | the in-memory store |
//!
//! The first row that applies wins: Cluster, then Sentinel, then the single URL. A set
//! `REDIS_SENTINEL_URLS` without `REDIS_SENTINEL_MASTER` (or the other way round), or a
//! list with no address, is refused with [`StoreError::InvalidArgument`] rather than
//! falling through to another store.
//!
//! With Sentinel, the store asks the sentinels where the master is at connect, and asks
//! again whenever a command finds the connection broken or the server demoted
//! (`READONLY`, `MASTERDOWN`): after a failover the next calls reach the new master (the
//! calls in flight at the failure fail, as on a single Redis that restarts). The
//! credentials and database in the first sentinel URL (`redis://:pw@host:26379/0`) are
//! used for the master as well. Redis replicates asynchronously: a failover can lose the
//! last writes the old master acknowledged but had not yet sent to the promoted replica
//! (`min-replicas-to-write` on the servers narrows that window).

use crate::instrumented::Instrumented;
use crate::{EventStore, FullStore, GatewayStore, HostStore, MemoryStore, RedisStore, StoreError};
use service_kit::config::list;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;

/// What the in-memory store holds, all of it lost when the process exits (a restart
/// starts empty): said by its warning and `colosseum run`'s banner.
pub const IN_MEMORY_LOSES: &str = "matches and their records, accounts and sessions, ratings \
     and leaderboards, queue tickets, tournaments, tenants, API keys and audit logs";

/// [`description_from_env`] of the in-memory store.
const IN_MEMORY: &str =
    "embedded, in memory (for Redis: REDIS_URL, REDIS_SENTINEL_URLS or REDIS_CLUSTER_URLS)";

fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The sentinels and the master's name, from `REDIS_SENTINEL_URLS` and
/// `REDIS_SENTINEL_MASTER`; `None` if neither is set.
fn sentinel_from(
    urls: Option<String>,
    master: Option<String>,
) -> Result<Option<(Vec<String>, String)>, StoreError> {
    match (urls, master) {
        (None, None) => Ok(None),
        (Some(_), None) => Err(StoreError::InvalidArgument(
            "REDIS_SENTINEL_URLS is set but REDIS_SENTINEL_MASTER (the master's name) is not",
        )),
        (None, Some(_)) => Err(StoreError::InvalidArgument(
            "REDIS_SENTINEL_MASTER is set but REDIS_SENTINEL_URLS (the sentinels) is not",
        )),
        (Some(urls), Some(master)) => {
            let sentinels = list(&urls);
            if sentinels.is_empty() {
                return Err(StoreError::InvalidArgument(
                    "REDIS_SENTINEL_URLS lists no sentinel (comma-separated redis://host:26379)",
                ));
            }
            Ok(Some((sentinels, master.trim().to_string())))
        }
    }
}

fn sentinel_from_env() -> Result<Option<(Vec<String>, String)>, StoreError> {
    sentinel_from(var("REDIS_SENTINEL_URLS"), var("REDIS_SENTINEL_MASTER"))
}

/// Opens the event store: on a Redis Cluster when `REDIS_CLUSTER_URLS` is set (seed nodes,
/// comma-separated: `redis://10.0.0.1:7000,redis://10.0.0.2:7000`; it wins over the
/// rest), else on the master of a Redis Sentinel deployment when `REDIS_SENTINEL_URLS`
/// (sentinels, comma-separated: `redis://10.0.0.1:26379,redis://10.0.0.2:26379`) and
/// `REDIS_SENTINEL_MASTER` (the master's name, `mymaster`) are set, else on the single
/// Redis at `REDIS_URL`, else the in-memory store (for `make run` without Redis; never in
/// production: it dies with the process). See the module docs.
///
/// # Errors
/// `REDIS_CLUSTER_URLS` or `REDIS_SENTINEL_URLS` lists no node, only one of the two
/// Sentinel variables is set, or Redis (or every sentinel) does not answer.
pub async fn open_from_env() -> Result<Arc<dyn EventStore>, StoreError> {
    Ok(open_full_store_from_env().await?)
}

/// The store [`open_from_env`] opens, with what only the rules engine may use (creating
/// matches, reading their seed): for the rules engine and processes that run it.
///
/// # Errors
/// As [`open_from_env`].
pub async fn open_host_store_from_env() -> Result<Arc<dyn HostStore>, StoreError> {
    Ok(open_full_store_from_env().await?)
}

/// The store [`open_from_env`] opens, with the seats' presence and the bot runner's lease: for the gateway.
///
/// # Errors
/// As [`open_from_env`].
pub async fn open_gateway_store_from_env() -> Result<Arc<dyn GatewayStore>, StoreError> {
    Ok(open_full_store_from_env().await?)
}

/// The store [`open_from_env`] opens, whole: every part of it ([`crate::LobbyStore`] for the
/// match-maker too), for processes that run several services and hand each its part by
/// upcasting (`colosseum run`, the in-process cluster).
///
/// # Errors
/// As [`open_from_env`].
pub async fn open_full_store_from_env() -> Result<Arc<dyn FullStore>, StoreError> {
    // Timed and counted by operation for the dashboards, pinged for `colosseum_store_up`
    // for as long as the process runs.
    Ok(Instrumented::wrap(open_plain().await?, CancellationToken::new()))
}

async fn open_plain() -> Result<Arc<dyn FullStore>, StoreError> {
    if let Some(urls) = var("REDIS_CLUSTER_URLS") {
        let seeds = list(&urls);
        let store = RedisStore::connect_cluster(&seeds).await?;
        tracing::info!(seeds = %seeds.join(","), "event store: Redis Streams on a Redis Cluster");
        return Ok(Arc::new(store));
    }
    if let Some((sentinels, master)) = sentinel_from_env()? {
        let store = RedisStore::connect_sentinel(&sentinels, &master).await?;
        tracing::info!(
            sentinels = %sentinels.join(","),
            master = %master,
            "event store: Redis Streams on the master of a Redis Sentinel deployment"
        );
        return Ok(Arc::new(store));
    }
    match var("REDIS_URL") {
        Some(url) => {
            let store = RedisStore::connect(&url).await?;
            tracing::info!(redis = %url, "event store: Redis Streams");
            Ok(Arc::new(store))
        }
        None => {
            tracing::warn!(
                "no Redis is set (REDIS_URL, REDIS_SENTINEL_URLS, REDIS_CLUSTER_URLS): using the \
                 in-memory event store: everything in it is lost when the process exits \
                 ({IN_MEMORY_LOSES})"
            );
            Ok(Arc::new(MemoryStore::new()))
        }
    }
}

/// Which event store [`open_from_env`] opens, in words, for a banner.
pub fn description_from_env() -> String {
    if let Some(urls) = var("REDIS_CLUSTER_URLS") {
        return format!("Redis Cluster (seed nodes {})", list(&urls).join(", "));
    }
    match sentinel_from_env() {
        Ok(Some((sentinels, master))) => {
            return format!(
                "Redis Sentinel master {master:?} (sentinels {})",
                sentinels.join(", ")
            );
        }
        Ok(None) => {}
        Err(e) => return format!("refused: {e}"),
    }
    match var("REDIS_URL") {
        Some(url) => format!("Redis at {url}"),
        None => IN_MEMORY.into(),
    }
}

/// Whether [`open_from_env`] opens the in-memory store: no Redis variable is set. (A
/// refused Sentinel setting opens nothing, so it is not the in-memory store either.)
pub fn in_memory_from_env() -> bool {
    var("REDIS_CLUSTER_URLS").is_none()
        && matches!(sentinel_from_env(), Ok(None))
        && var("REDIS_URL").is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_in_memory_banner_fits_and_names_what_is_lost() {
        // `colosseum run` prints it after "  event store: ".
        assert!(format!("  event store: {IN_MEMORY}").len() <= 100, "{IN_MEMORY}");
        for lost in
            ["matches", "records", "accounts", "sessions", "ratings", "leaderboards", "tickets"]
                .into_iter()
                .chain(["tournaments", "tenants", "API keys"])
        {
            assert!(IN_MEMORY_LOSES.contains(lost), "{lost}");
        }
    }

    #[test]
    fn cluster_seeds_are_split_on_commas() {
        assert_eq!(
            list(" redis://127.0.0.1:7000, redis://127.0.0.1:7001,,"),
            ["redis://127.0.0.1:7000", "redis://127.0.0.1:7001"]
        );
        assert!(list(" , ").is_empty());
    }

    #[test]
    fn sentinel_needs_both_variables_and_a_sentinel() {
        let some = |s: &str| Some(s.to_string());
        assert_eq!(sentinel_from(None, None), Ok(None));
        assert_eq!(
            sentinel_from(some("redis://a:26379, redis://b:26379"), some(" mymaster ")),
            Ok(Some((
                vec!["redis://a:26379".to_string(), "redis://b:26379".to_string()],
                "mymaster".to_string()
            )))
        );
        for (urls, master, says) in [
            (some("redis://a:26379"), None, "REDIS_SENTINEL_MASTER"),
            (None, some("mymaster"), "REDIS_SENTINEL_URLS"),
            (some(" , "), some("mymaster"), "lists no sentinel"),
        ] {
            let refused = sentinel_from(urls, master).expect_err("refused");
            assert!(refused.to_string().contains(says), "{refused}");
        }
    }
}
