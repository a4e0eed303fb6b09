//! The command connection of a [`crate::RedisStore`] on a Redis Sentinel deployment: a
//! multiplexed connection to the current master, found by asking the sentinels, that asks
//! them again whenever the master it has stops being one.
//!
//! - At connect the sentinels are asked (`SENTINEL MASTERS`, through
//!   [`SentinelClient`]) where the master named `REDIS_SENTINEL_MASTER` is; the address
//!   they name is checked with `ROLE` and connected to.
//! - A command that fails because the connection failed (dropped, refused, timed out) or
//!   because the server answers `READONLY`/`MASTERDOWN` (a master demoted to a replica)
//!   makes the connection ask the sentinels again and switch to the master they name now.
//!   Only one caller asks at a time; those that failed on the same connection wait for it
//!   and use its answer. A `READONLY` command (nothing was written) is then sent again
//!   once, to the new master; any other failed call fails as it would on a single Redis
//!   (a call in flight when the master died may or may not have been applied), and the
//!   next one goes to the new master.
//! - Until the sentinels have promoted a replica, asking again names the dead master and
//!   connecting to it fails: each call fails fast and asks again, so the store follows the
//!   failover as soon as the sentinels announce it.
//! - A failover whose old master stays up (`SENTINEL FAILOVER`, a partition) leaves it
//!   writable for a few seconds before the sentinels demote it, and what is written there
//!   meanwhile is lost when it becomes a replica. So a task also listens to the sentinels'
//!   `+switch-master` announcements (on one sentinel at a time, the next one when its
//!   connection fails) and switches to the new master as soon as one is announced; each
//!   time it (re)subscribes it also asks where the master is, for an announcement missed
//!   while it was not listening.

use crate::error::StoreError;
use redis::aio::{ConnectionLike, MultiplexedConnection};
use redis::sentinel::{SentinelClient, SentinelNodeConnectionInfo, SentinelServerType};
use redis::{
    AsyncConnectionConfig, Client, Cmd, ConnectionInfo, ErrorKind, IntoConnectionInfo, Pipeline,
    RedisError, RedisFuture, RedisResult, ServerErrorKind, Value,
};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// The connection to the current master, shared by every clone.
#[derive(Clone)]
pub(crate) struct SentinelConn {
    shared: Arc<Shared>,
}

struct Shared {
    /// Ends the `+switch-master` listener when the last clone is dropped.
    _listener: tokio_util::sync::DropGuard,
    /// Asks the sentinels; held by the one caller finding the master.
    sentinels: tokio::sync::Mutex<SentinelClient>,
    /// The master in use: how many times it was found (so callers that failed on the same
    /// one ask only once), its client (for the feed's subscription) and the connection.
    current: Mutex<Master>,
    config: AsyncConnectionConfig,
    /// Bounds one search for the master (sentinels, `ROLE`, connect).
    find_timeout: Duration,
    db: i64,
}

#[derive(Clone)]
struct Master {
    generation: u64,
    client: Client,
    conn: MultiplexedConnection,
}

/// The sentinels' connection infos and the master's Redis settings from `urls`: the
/// credentials, protocol and database of the first URL are the master's too (sentinels
/// have no databases, so they are addressed with database 0).
fn parse(
    urls: &[String],
    tcp: redis::io::tcp::TcpSettings,
) -> Result<(Vec<ConnectionInfo>, SentinelNodeConnectionInfo, i64), StoreError> {
    let infos = urls
        .iter()
        .map(|url| url.as_str().into_connection_info())
        .collect::<RedisResult<Vec<_>>>()?;
    let Some(first) = infos.first() else {
        return Err(StoreError::InvalidArgument("Redis Sentinel needs at least one sentinel"));
    };
    let redis = first.redis_settings().clone();
    let db = redis.db();
    let master = SentinelNodeConnectionInfo::default()
        .set_redis_connection_info(redis)
        .set_tcp_settings(tcp.clone());
    let sentinels = infos
        .into_iter()
        .map(|info| {
            let settings = info.redis_settings().clone().set_db(0);
            info.set_redis_settings(settings).set_tcp_settings(tcp.clone())
        })
        .collect();
    Ok((sentinels, master, db))
}

impl SentinelConn {
    /// Asks the sentinels `urls` for the master `master_name` and connects to it.
    pub(crate) async fn connect(
        urls: &[String],
        master_name: &str,
        tcp: redis::io::tcp::TcpSettings,
        connect_timeout: Duration,
        response_timeout: Duration,
    ) -> Result<SentinelConn, StoreError> {
        if master_name.trim().is_empty() {
            return Err(StoreError::InvalidArgument("Redis Sentinel needs the master's name"));
        }
        let (sentinels, master, db) = parse(urls, tcp)?;
        let listen_on = sentinels.clone();
        let client = SentinelClient::build(
            sentinels,
            master_name.to_string(),
            Some(master),
            SentinelServerType::Master,
        )?;
        let config = AsyncConnectionConfig::new()
            .set_connection_timeout(Some(connect_timeout))
            .set_response_timeout(Some(response_timeout));
        // Each sentinel asked, then the master's ROLE, then its connection.
        let find_timeout = (connect_timeout + response_timeout) * 2;
        let mut sentinels = client;
        let (client, conn) = find(&mut sentinels, &config, find_timeout).await?;
        let stop = tokio_util::sync::CancellationToken::new();
        let shared = Arc::new(Shared {
            _listener: stop.clone().drop_guard(),
            sentinels: tokio::sync::Mutex::new(sentinels),
            current: Mutex::new(Master { generation: 0, client, conn }),
            config,
            find_timeout,
            db,
        });
        let weak = Arc::downgrade(&shared);
        let name = master_name.to_string();
        tokio::spawn(async move {
            tokio::select! {
                () = stop.cancelled() => {}
                () = listen(weak, listen_on, name, connect_timeout) => {}
            }
        });
        Ok(SentinelConn { shared })
    }

    fn current(&self) -> Master {
        self.shared.current()
    }

    /// A client for the master in use, for the feed's subscription.
    pub(crate) fn master_client(&self) -> Client {
        self.current().client
    }

    /// Asks the sentinels for the master again, unless another caller already replaced
    /// the one of `generation`. Returns whether a master is now in use that is newer than
    /// `generation`.
    async fn refind(&self, generation: u64) -> bool {
        self.shared.refind(Some(generation)).await
    }
}

impl Shared {
    fn current(&self) -> Master {
        self.current.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
    }

    /// Asks the sentinels for the master and switches to it: if `generation` is given,
    /// only if the master in use is still that one; if not (an announcement), only if the
    /// sentinels name another address. Returns whether a newer master is in use.
    async fn refind(&self, generation: Option<u64>) -> bool {
        let mut sentinels = self.sentinels.lock().await;
        let now = self.current();
        if generation.is_some_and(|g| g != now.generation) {
            return true;
        }
        match find(&mut sentinels, &self.config, self.find_timeout).await {
            Ok((client, conn)) => {
                let addr = client.get_connection_info().addr().to_string();
                if generation.is_none()
                    && addr == now.client.get_connection_info().addr().to_string()
                {
                    return false;
                }
                let mut current =
                    self.current.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                *current = Master { generation: now.generation + 1, client, conn };
                drop(current);
                tracing::info!(master = %addr, "event store: switched to the Redis Sentinel master");
                true
            }
            Err(e) => {
                tracing::warn!(error = %e, "event store: no Redis Sentinel master reachable yet");
                false
            }
        }
    }
}

/// Listens to the sentinels' `+switch-master` announcements for `name` and switches the
/// connection of `shared` to the announced master; runs until `shared` is dropped (or the
/// task is cancelled).
async fn listen(
    shared: std::sync::Weak<Shared>,
    sentinels: Vec<ConnectionInfo>,
    name: String,
    connect_timeout: Duration,
) {
    use tokio_stream::StreamExt;
    for sentinel in sentinels.iter().cycle() {
        let subscribed = async {
            let client = Client::open(sentinel.clone())?;
            let mut pubsub = client.get_async_pubsub().await?;
            pubsub.subscribe("+switch-master").await?;
            Ok::<_, RedisError>(pubsub)
        };
        let pubsub = match tokio::time::timeout(connect_timeout, subscribed).await {
            Ok(Ok(pubsub)) => pubsub,
            Ok(Err(e)) => {
                tracing::debug!(sentinel = %sentinel.addr(), error = %e, "cannot listen to the sentinel");
                tokio::time::sleep(connect_timeout / 4).await;
                continue;
            }
            Err(_) => continue,
        };
        // An announcement may have been missed while no sentinel was listened to.
        match shared.upgrade() {
            Some(shared) => {
                shared.refind(None).await;
            }
            None => return,
        }
        let mut messages = pubsub.into_on_message();
        while let Some(msg) = messages.next().await {
            // `<name> <old ip> <old port> <new ip> <new port>`
            let payload = String::from_utf8_lossy(msg.get_payload_bytes()).into_owned();
            if payload.split(' ').next() != Some(name.as_str()) {
                continue;
            }
            let Some(shared) = shared.upgrade() else { return };
            tracing::info!(announced = %payload, "event store: the sentinels announce a new master");
            shared.refind(None).await;
        }
    }
}

/// Asks the sentinels for the master and connects to it, bounded by `limit`.
async fn find(
    sentinels: &mut SentinelClient,
    config: &AsyncConnectionConfig,
    limit: Duration,
) -> Result<(Client, MultiplexedConnection), StoreError> {
    let search = async {
        let client = sentinels.async_get_client().await?;
        let conn = client.get_multiplexed_async_connection_with_config(config).await?;
        Ok::<_, RedisError>((client, conn))
    };
    match tokio::time::timeout(limit, search).await {
        Ok(found) => Ok(found?),
        Err(_) => Err(StoreError::Redis(format!(
            "finding the Redis Sentinel master took longer than {limit:?}"
        ))),
    }
}

/// Whether `e` means the connection is not to a working master any more.
fn lost_master(e: &RedisError) -> bool {
    e.is_io_error()
        || e.is_connection_dropped()
        || e.is_connection_refusal()
        || e.is_timeout()
        || demoted(e.kind())
}

/// `READONLY` (a replica now) or `MASTERDOWN`: the command was not applied.
fn demoted(kind: ErrorKind) -> bool {
    matches!(kind, ErrorKind::Server(ServerErrorKind::ReadOnly | ServerErrorKind::MasterDown))
}

/// Whether a pipeline's answers include a `READONLY`/`MASTERDOWN` (with `ignore_errors`,
/// each command's error is one of the answers).
fn any_demoted(answers: &[Value]) -> bool {
    answers.iter().any(|v| {
        matches!(v, Value::ServerError(e)
            if matches!(e.kind(), Some(ServerErrorKind::ReadOnly | ServerErrorKind::MasterDown)))
    })
}

impl ConnectionLike for SentinelConn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        Box::pin(async move {
            let Master { generation, mut conn, .. } = self.current();
            match conn.req_packed_command(cmd).await {
                Err(e) if lost_master(&e) => {
                    let found = self.refind(generation).await;
                    if found && demoted(e.kind()) {
                        return self.current().conn.req_packed_command(cmd).await;
                    }
                    Err(e)
                }
                answer => answer,
            }
        })
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        Box::pin(async move {
            let Master { generation, mut conn, .. } = self.current();
            match conn.req_packed_commands(pipeline, offset, count).await {
                Err(e) if lost_master(&e) => {
                    let found = self.refind(generation).await;
                    if found && demoted(e.kind()) {
                        return self
                            .current()
                            .conn
                            .req_packed_commands(pipeline, offset, count)
                            .await;
                    }
                    Err(e)
                }
                Ok(answers) if any_demoted(&answers) => {
                    // A replica applies no write, so the whole pipeline may go again.
                    if self.refind(generation).await {
                        return self
                            .current()
                            .conn
                            .req_packed_commands(pipeline, offset, count)
                            .await;
                    }
                    Ok(answers)
                }
                answer => answer,
            }
        })
    }

    fn get_db(&self) -> i64 {
        self.shared.db
    }
}
