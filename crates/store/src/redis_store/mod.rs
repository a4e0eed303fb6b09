//! [`RedisStore`]: the store on Redis Streams, for production and every integration test,
//! on a single Redis (or a primary with replicas), on the master of a Redis Sentinel
//! deployment, or on a sharded Redis Cluster.
//!
//! Key layout: see [`crate::redis_store::keys`]; field encodings: see [`crate::redis_store::codec`]. Every operation
//! that reads and then writes is a Lua script in its domain's `lua/` (`src/matches/lua/`...), run with `EVALSHA` (each script
//! is loaded on its first use, and after a restart, by `redis::Script` answering `NOSCRIPT`
//! by loading it on the node that refused). Each script touches the keys of one match only,
//! so each is atomic and one round trip, and on a cluster runs on the match's node:
//!
//! | operation | Redis |
//! | --- | --- |
//! | `create_match` | `create.lua`: `EXISTS`, `HSET` open (the opening entry), `HSET` views, `HSET` meta, `HSET` secret (and idem) |
//! | `meta` | `HMGET meta m seat0 seat1` |
//! | `match_secret` | `HGET secret seed` (for a match created before the secret hash: `HGET meta m`, then `move_secret.lua` moves the seed to `secret`) |
//! | `claim_seat` | `HMGET meta seat<n> over`, `EXISTS record` (one pipeline); `ClaimOutcome::of`; `cas.lua`: `HSET` of the seat if neither it nor `over` changed |
//! | `append` | (`ZADD deadlines LT` for a new deadline, then) `append.lua`: `XREVRANGE` last id (and `EXISTS open` before the first step), `HGET` idem, `XADD <v>-1`, `HSET` idem, `HSET` views, `HSET`/`DEL` deadline, `PUBLISH colosseum:appended` |
//! | `read` | from version 1 on: `XRANGE log <from>-0 + COUNT limit`, `HMGET views v b`, `EXISTS log`, pipelined (a script costs Redis several times the commands it runs); from version 0, or when there is no stream: `read.lua`: `HGETALL open` (from version 0), `XRANGE log <from>-0 + COUNT limit`, `HMGET views` when the last entry read is the latest; a compacted match's `GET record` |
//! | `last_version` | `XREVRANGE log + - COUNT 1`, `EXISTS open`, `GETRANGE record 0 24`, pipelined |
//! | `compact` | `read.lua` to the end, then `compact.lua`: `XREVRANGE`, `SET record`, `DEL` log, open, idem, snap, views, deadline, `PEXPIRE` record, meta, secret |
//! | `put_snapshot` / `snapshot` | `snapshot.lua` / `HMGET snap v b` |
//! | `set_deadline` | `ZADD deadlines LT`, then `HSET deadline due fence` |
//! | `due_deadlines` | `ZRANGEBYSCORE deadlines ... LIMIT`, `HMGET` of each candidate's deadline, `index_fix.lua` for stale index entries |
//! | `deadline` | `HMGET deadline due fence` |
//! | `clear_deadline_if` | `clear_if.lua` on the match's deadline, then `index_fix.lua` |
//! | `repair_deadline_index` | `SCAN MATCH colosseum:{*}:deadline` on each primary, `HMGET` of each (pipelined), `ZADD deadlines LT CH`, then a 5 ms pause |
//! | `append_feed` | `SUBSCRIBE colosseum:appended` on a dedicated connection |
//! | `put_session` / `session` | `HSET` / `HMGET` of `colosseum:session:<sha256>` |
//! | `append_final` | `ZADD announcing <at> <match>`, then `append.lua` as `append`, which also checks the `Finished`'s players against `HMGET meta seat0 seat1` (the holders' fence), `SET`s the match's `finished` and `HSET meta over <version>` |
//! | `announce_finished` | `XADD colosseum:lifecycle MAXLEN ~ 1000000`, then `DEL` the match's `finished`, `ZREM announcing` |
//! | `create_match`, `claim_seat`: the lists | before the script: `ZADD` of each list the seating joins (see `matches/redis/lists.rs`) |
//! | `repair_announcements` | `ZRANGE announcing -inf <before> BYSCORE LIMIT`, `GET` each match's `finished`: announced as above, or (none) `index_fix.lua` drops the entry |
//!
//! The lobby's operations ([`crate::LobbyStore`]) are in `lobby/redis.rs`, with their
//! own table: scripts on the `{lobby}` keys, and the lifecycle stream's consumer groups.
//! The seats' presence ([`crate::PresenceStore`]) is in `presence/redis.rs`. This file holds the connections (one server,
//! Sentinel, Cluster) and what every domain's part shares; the matches' operations are in
//! `matches/redis/`.
//!
//! # The deadline index
//!
//! A match's armed deadline is its `deadline` hash, written by its own scripts: the truth.
//! `colosseum:deadlines` (another slot) only tells the clock where to look, and is kept
//! *at or before* the truth, never after it, so a deadline can fire late only if its
//! entry is lost altogether:
//! - Arming first sends `ZADD LT` (which only adds or lowers) and only then writes the
//!   hash: in one pipeline on a single Redis (one round trip), one command after the other
//!   on a cluster (a pipeline there must stay in one slot). An arming that the script then
//!   refuses leaves an entry at or before the truth, or one with no hash at all: harmless.
//! - `due_deadlines` reads each due candidate's hash. Due: returned with the hash's due
//!   and fence. Due later: the entry is raised to it. No hash (cleared, or the arming was
//!   refused): the entry is removed. Both corrections run in `index_fix.lua`, each only if
//!   the entry still has the score it was read with (an arming that lowered it meanwhile
//!   wins), and then the hashes are read again: an arming whose `ZADD` did not move the
//!   entry and whose hash landed during the correction is put back with `ZADD LT`.
//! - What that leaves is an arming whose hash lands more than two round trips after its
//!   `ZADD` (a writer stalled between the two), and an entry never written (a crash
//!   between the two, a node down). `repair_deadline_index` covers both: it scans every
//!   hash and `ZADD LT`s its due, which restores a lost entry and lowers one left too late.
//!   The clock runs it at start and every minute, one sweep at a time, paced
//!   (`SCAN_PAUSE` between steps).
//!
//! # Connections
//!
//! Commands go over one [`ConnectionManager`] (a multiplexed connection that reconnects
//! after a failure, so a Redis restart costs the calls in flight, not the process), on
//! Sentinel one multiplexed connection to the master that asks the sentinels for the
//! master again after a failure or a demotion and on their `+switch-master` (see
//! `redis_store/sentinel.rs`), or on a cluster one [`ClusterConnection`] (a multiplexed
//! connection per node, following the cluster's slot map). Sentinel runs the same
//! commands as a single Redis: one pipeline, one node. The feed subscribes on a
//! connection of its own, to the server, to the Sentinel master in use when it
//! subscribes, or to the first seed node that answers: a cluster delivers every `PUBLISH`
//! on every node. The ticket feed subscribes the same way, and blocking lifecycle reads
//! have a connection of their own too (see `lobby/redis.rs`).

pub(crate) mod cas;
pub mod codec;
pub mod keys;
pub(crate) mod sentinel;

use sentinel::SentinelConn;

use crate::error::StoreError;
use ids::MatchId;
use redis::aio::{ConnectionLike, ConnectionManager, ConnectionManagerConfig};
use redis::cluster::ClusterClientBuilder;
use redis::cluster_async::ClusterConnection;
use redis::cluster_routing::{Route, RoutingInfo, SingleNodeRoutingInfo, Slot, SlotAddr};
use redis::{Client, Cmd, ErrorKind, Pipeline, RedisFuture, RedisResult, Value};
use std::collections::BTreeMap;
use std::pin::Pin;
use std::time::Duration;
use tokio_stream::Stream;

/// How long an ordinary command may take before it fails. Redis answers in microseconds;
/// this only bounds a hung connection.
pub(crate) const RESPONSE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long opening a connection may take.
pub(crate) const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// The `COUNT` of each `SCAN` step of the index repair: keys looked at per round trip.
pub(crate) const SCAN_COUNT: usize = 1_000;

/// The index repair's pause between two `SCAN` steps. A step (the SCAN and the read of the
/// deadlines it found) holds Redis's one thread for about a millisecond. Back to back, a
/// sweep over a million matches' keys took most of that thread for seconds, and the moves
/// of those seconds queued behind its steps; paced, it takes about one millisecond in six
/// (25 s of pauses, about 35 s in all, for 5,000,000 keys).
pub(crate) const SCAN_PAUSE: Duration = Duration::from_millis(5);

/// The command connection: to one Redis, or to a cluster. Both run the same commands and
/// scripts; they differ in how commands for different slots may be sent together.
#[derive(Clone)]
pub(crate) enum Conn {
    Single(ConnectionManager),
    Cluster(ClusterConnection),
    /// The master of a Redis Sentinel deployment, found again after a failover: to the
    /// commands, one Redis like `Single`.
    Sentinel(SentinelConn),
}

impl ConnectionLike for Conn {
    fn req_packed_command<'a>(&'a mut self, cmd: &'a Cmd) -> RedisFuture<'a, Value> {
        match self {
            Conn::Single(c) => c.req_packed_command(cmd),
            Conn::Cluster(c) => c.req_packed_command(cmd),
            Conn::Sentinel(c) => c.req_packed_command(cmd),
        }
    }

    fn req_packed_commands<'a>(
        &'a mut self,
        pipeline: &'a Pipeline,
        offset: usize,
        count: usize,
    ) -> RedisFuture<'a, Vec<Value>> {
        match self {
            Conn::Single(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Cluster(c) => c.req_packed_commands(pipeline, offset, count),
            Conn::Sentinel(c) => c.req_packed_commands(pipeline, offset, count),
        }
    }

    fn get_db(&self) -> i64 {
        match self {
            Conn::Single(c) => c.get_db(),
            Conn::Cluster(c) => c.get_db(),
            Conn::Sentinel(c) => c.get_db(),
        }
    }
}

impl Conn {
    /// Runs `cmds` in order, each with its own answer: one pipeline (one round trip) on a
    /// single Redis; on a cluster each goes to its slot's node once the one before has
    /// answered.
    pub(crate) async fn in_order(
        &mut self,
        cmds: Vec<Cmd>,
    ) -> RedisResult<Vec<RedisResult<Value>>> {
        match self {
            Conn::Single(c) => pipeline(cmds).query_async(c).await,
            Conn::Sentinel(c) => pipeline(cmds).query_async(c).await,
            Conn::Cluster(c) => {
                let mut answers = Vec::with_capacity(cmds.len());
                for cmd in cmds {
                    answers.push(cmd.query_async(c).await);
                }
                Ok(answers)
            }
        }
    }

    /// Runs `cmds`, whose keys all share one slot (one match's), as one pipeline: one round
    /// trip on a cluster too, since one node serves them all.
    pub(crate) async fn same_slot(
        &mut self,
        cmds: Vec<Cmd>,
    ) -> RedisResult<Vec<RedisResult<Value>>> {
        match self {
            Conn::Single(c) => pipeline(cmds).query_async(c).await,
            Conn::Sentinel(c) => pipeline(cmds).query_async(c).await,
            Conn::Cluster(c) => pipeline(cmds).query_async(c).await,
        }
    }

    /// Runs `cmd` on `node` (a cluster would send a keyless command to a random node).
    pub(crate) async fn on_node(&mut self, cmd: Cmd, node: Node) -> RedisResult<Value> {
        match (self, node) {
            (Conn::Cluster(c), Node::Serving(slot)) => {
                let to = Route::with_slot(slot, SlotAddr::Master);
                c.route_command(
                    cmd,
                    RoutingInfo::SingleNode(SingleNodeRoutingInfo::SpecificNode(to)),
                )
                .await
            }
            (conn, _) => cmd.query_async(conn).await,
        }
    }

    /// Runs independent commands, each with its own answer in `cmds` order: one pipeline
    /// on a single Redis; side by side on a cluster, each to its slot's node.
    pub(crate) async fn each(&self, cmds: Vec<Cmd>) -> RedisResult<Vec<RedisResult<Value>>> {
        match self {
            Conn::Single(c) => pipeline(cmds).query_async(&mut c.clone()).await,
            Conn::Sentinel(c) => pipeline(cmds).query_async(&mut c.clone()).await,
            Conn::Cluster(c) => {
                let mut tasks = tokio::task::JoinSet::new();
                for (i, cmd) in cmds.into_iter().enumerate() {
                    let mut c = c.clone();
                    tasks.spawn(async move { (i, cmd.query_async(&mut c).await) });
                }
                let mut answers: Vec<Option<RedisResult<Value>>> =
                    (0..tasks.len()).map(|_| None).collect();
                while let Some(joined) = tasks.join_next().await {
                    let (i, answer) = joined.map_err(|e| {
                        redis::RedisError::from((
                            ErrorKind::Io,
                            "a command task failed",
                            e.to_string(),
                        ))
                    })?;
                    answers[i] = Some(answer);
                }
                Ok(answers.into_iter().flatten().collect())
            }
        }
    }
}

/// A node to send a keyless command (`SCAN`) to: on a cluster, the primary serving a slot.
#[derive(Clone, Copy)]
pub(crate) enum Node {
    /// The single Redis (or the Sentinel master).
    Only,
    /// The cluster primary serving this slot.
    Serving(Slot),
}

/// `cmds` as one pipeline that answers each command separately, errors included.
pub(crate) fn pipeline(cmds: Vec<Cmd>) -> Pipeline {
    let mut pipe = redis::pipe();
    for cmd in cmds {
        pipe.add_command(cmd);
    }
    pipe.ignore_errors();
    pipe
}

/// `ZADD colosseum:deadlines LT <due> <match>`: adds the match's index entry, or lowers
/// it, never raises it (see the module docs).
pub(crate) fn index_add(id: MatchId, due_ms: u64) -> Cmd {
    let mut cmd = redis::cmd("ZADD");
    cmd.arg(keys::DEADLINES).arg("LT").arg(due_ms).arg(id.to_string());
    cmd
}

/// A correction of the deadline index for `index_fix.lua`: the match, the score its entry
/// was read with, and its new score (`None`: remove it).
pub(crate) struct IndexFix {
    pub(crate) id: MatchId,
    pub(crate) score: String,
    pub(crate) new_due_ms: Option<u64>,
}

/// TCP_NODELAY on every connection (the redis crate leaves Nagle's algorithm on): without
/// it, a command written while the previous one is unacknowledged waits for Redis's
/// delayed ACK. Measured: SubmitMove calls of 50-200 ms under `colosseum load`.
pub(crate) fn tcp_settings() -> redis::io::tcp::TcpSettings {
    redis::io::tcp::TcpSettings::default().set_nodelay(true)
}

/// A client for `url` with the house TCP settings.
pub(crate) fn client(url: &str) -> Result<Client, StoreError> {
    let info = redis::IntoConnectionInfo::into_connection_info(url)?;
    Ok(Client::open(info.set_tcp_settings(tcp_settings()))?)
}

/// The messages of one pub/sub channel, on a connection of their own.
pub(crate) type Messages = Pin<Box<dyn Stream<Item = redis::Msg> + Send>>;

/// The event store on Redis.
pub struct RedisStore {
    /// Every command but the subscriptions and the blocking reads.
    pub(crate) conn: Conn,
    /// Where the feeds' subscriptions go: the server, or a cluster's seed nodes (the
    /// first that answers). Never empty.
    pub(crate) nodes: Vec<Client>,
    /// The connection for blocking lifecycle reads, opened on the first (see
    /// `lifecycle/redis.rs`); a tokio mutex, since opening it awaits.
    pub(crate) blocking: tokio::sync::Mutex<Option<Conn>>,
    /// The lobby's ticket records read so far, by ticket id: a record is written once, at
    /// the ticket's creation, so a kept one is the stored one for as long as the ticket
    /// has a state field (`lobby/redis.rs`); a later read sends only the short states.
    pub(crate) ticket_records: service_kit::cache::Bounded<String, crate::lobby::kept::Kept>,
}

/// How many ticket records a store keeps, each with its decoded ticket (about 1.5 KB
/// together: some 30 MB at most, in the match-maker, the one process that reads tickets; a
/// queue of 10,000 waiting fits twice).
const TICKET_RECORDS_KEPT: usize = 20_000;

impl RedisStore {
    /// Connects to Redis at `url` (`redis://host:port/`).
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`] if the URL is invalid or the server does not answer.
    pub async fn connect(url: &str) -> Result<Self, StoreError> {
        let client = client(url)?;
        let config = ConnectionManagerConfig::new()
            .set_response_timeout(Some(RESPONSE_TIMEOUT))
            .set_connection_timeout(Some(CONNECT_TIMEOUT));
        let conn = ConnectionManager::new_with_config(client.clone(), config).await?;
        RedisStore::with(Conn::Single(conn), vec![client]).await
    }

    /// Connects to the Redis Cluster that the seed nodes `urls` (`redis://host:port/`, any
    /// of its nodes) belong to.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidArgument`] if `urls` is empty; [`StoreError::Redis`] if a URL is
    /// invalid or no seed node answers.
    pub async fn connect_cluster(urls: &[String]) -> Result<Self, StoreError> {
        if urls.is_empty() {
            return Err(StoreError::InvalidArgument(
                "a Redis Cluster needs at least one seed node",
            ));
        }
        let nodes = urls.iter().map(|url| client(url)).collect::<Result<Vec<_>, _>>()?;
        let conn = ClusterClientBuilder::new(urls.to_vec())
            .tcp_settings(tcp_settings())
            .connection_timeout(CONNECT_TIMEOUT)
            .response_timeout(RESPONSE_TIMEOUT)
            .build()?
            .get_async_connection()
            .await?;
        RedisStore::with(Conn::Cluster(conn), nodes).await
    }

    /// Connects to the master named `master` of a Redis Sentinel deployment, found by
    /// asking the sentinels `urls` (`redis://host:26379`, any number of them), and loads the
    /// scripts. The connection asks the sentinels again when the master fails or is demoted
    /// (see [`crate::open`]), so the store follows a failover. The credentials and database
    /// of the first URL are used for the master too.
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidArgument`] if `urls` is empty or `master` blank;
    /// [`StoreError::Redis`] if a URL is invalid or no sentinel names a reachable master.
    pub async fn connect_sentinel(urls: &[String], master: &str) -> Result<Self, StoreError> {
        let conn =
            SentinelConn::connect(urls, master, tcp_settings(), CONNECT_TIMEOUT, RESPONSE_TIMEOUT)
                .await?;
        let node = conn.master_client();
        RedisStore::with(Conn::Sentinel(conn), vec![node]).await
    }

    pub(crate) async fn with(conn: Conn, nodes: Vec<Client>) -> Result<Self, StoreError> {
        Ok(RedisStore {
            conn,
            nodes,
            blocking: tokio::sync::Mutex::new(None),
            ticket_records: service_kit::cache::Bounded::new(TICKET_RECORDS_KEPT, None),
        })
    }

    pub(crate) fn conn(&self) -> Conn {
        // A clone shares the one multiplexed connection (or the cluster's node connections).
        self.conn.clone()
    }

    /// Each primary of the cluster, as a slot it serves.
    pub(crate) async fn primaries(conn: &mut ClusterConnection) -> Result<Vec<Node>, StoreError> {
        let bad = |what: &str| StoreError::Corrupt(format!("CLUSTER SLOTS: {what}"));
        let reply = conn
            .route_command(
                redis::cmd("CLUSTER").arg("SLOTS").clone(),
                RoutingInfo::SingleNode(SingleNodeRoutingInfo::Random),
            )
            .await?;
        let Value::Array(ranges) = reply else { return Err(bad("not an array")) };
        // Primary address -> the first slot of one of its ranges.
        let mut primaries: BTreeMap<(Vec<u8>, i64), Slot> = BTreeMap::new();
        for range in ranges {
            let Value::Array(range) = range else { return Err(bad("a range is not an array")) };
            let (Some(Value::Int(start)), Some(Value::Array(primary))) =
                (range.first(), range.get(2))
            else {
                return Err(bad("a range has no start or no primary"));
            };
            let (Some(host), Some(Value::Int(port))) =
                (primary.first().cloned().and_then(bytes), primary.get(1))
            else {
                return Err(bad("a primary has no host or no port"));
            };
            let start = u16::try_from(*start)
                .ok()
                .and_then(Slot::new)
                .ok_or_else(|| bad("a slot out of range"))?;
            primaries.entry((host, *port)).or_insert(start);
        }
        Ok(primaries.into_values().map(Node::Serving).collect())
    }

    /// Subscribes to `channel` on a connection of its own: to the Sentinel master in use,
    /// or to the first of the nodes that answers.
    pub(crate) async fn listen(&self, channel: &'static str) -> Result<Messages, StoreError> {
        if let Conn::Sentinel(c) = &self.conn {
            // The master in use now: after a failover the old one may be gone.
            return RedisStore::listen_on(&c.master_client(), channel).await;
        }
        let mut failure = StoreError::Redis("no node to subscribe on".into());
        for node in &self.nodes {
            match RedisStore::listen_on(node, channel).await {
                Ok(messages) => return Ok(messages),
                Err(e) => failure = e,
            }
        }
        Err(failure)
    }

    /// Subscribes to `channel` on `node`.
    pub(crate) async fn listen_on(
        node: &Client,
        channel: &'static str,
    ) -> Result<Messages, StoreError> {
        let late = |what: &str| StoreError::Redis(format!("{what} took longer than the limit"));
        let mut pubsub = tokio::time::timeout(CONNECT_TIMEOUT, node.get_async_pubsub())
            .await
            .map_err(|_| late("connecting for a feed"))??;
        tokio::time::timeout(RESPONSE_TIMEOUT, pubsub.subscribe(channel))
            .await
            .map_err(|_| late("SUBSCRIBE"))??;
        Ok(Box::pin(pubsub.into_on_message()))
    }
}

/// The longest a lifecycle read blocks: a longer `block_ms` answers empty after it, and
/// the caller reads again.
pub(crate) const MAX_BLOCK: Duration = Duration::from_secs(10);

pub(crate) fn is_code(e: &redis::RedisError, code: &str) -> bool {
    e.code() == Some(code)
}

pub(crate) fn corrupt(key: &str, what: impl std::fmt::Display) -> StoreError {
    StoreError::Corrupt(format!("{key}: {what}"))
}

pub(crate) fn bytes(value: Value) -> Option<Vec<u8>> {
    match value {
        Value::BulkString(b) => Some(b),
        Value::SimpleString(s) => Some(s.into_bytes()),
        Value::VerbatimString { text, .. } => Some(text.into_bytes()),
        _ => None,
    }
}

pub(crate) fn text(value: Value) -> Option<String> {
    bytes(value).and_then(|b| String::from_utf8(b).ok())
}

impl RedisStore {
    /// The connection for blocking reads (see the module docs), opened on first use.
    pub(crate) async fn blocking_conn(&self) -> Result<Conn, StoreError> {
        let mut held = self.blocking.lock().await;
        if let Some(conn) = held.as_ref() {
            return Ok(conn.clone());
        }
        let timeout = MAX_BLOCK + RESPONSE_TIMEOUT;
        let manager = |client: Client| async move {
            let config = ConnectionManagerConfig::new()
                .set_response_timeout(Some(timeout))
                .set_connection_timeout(Some(CONNECT_TIMEOUT));
            ConnectionManager::new_with_config(client, config).await
        };
        let conn = match &self.conn {
            Conn::Single(_) => Conn::Single(manager(self.nodes[0].clone()).await?),
            // The master in use now; after a failover the failed read drops this one and
            // the next read opens one to the new master.
            Conn::Sentinel(c) => Conn::Single(manager(c.master_client()).await?),
            Conn::Cluster(_) => Conn::Cluster(
                ClusterClientBuilder::new(
                    self.nodes.iter().map(|n| n.get_connection_info().clone()),
                )
                .tcp_settings(tcp_settings())
                .connection_timeout(CONNECT_TIMEOUT)
                .response_timeout(timeout)
                .build()?
                .get_async_connection()
                .await?,
            ),
        };
        *held = Some(conn.clone());
        Ok(conn)
    }
}
