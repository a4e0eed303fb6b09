//! Shared helpers of the whole-cluster tests (`tests/*.rs`): start a real `redis-server`
//! and the whole cluster on it ([`Env`]), guest players that speak the public API
//! and accounts ([`Player`]), a seeded random picker of legal moves ([`Picker`]), a driver that plays a
//! match between two players to its end ([`play_out`]), and the checks every finished
//! match gets ([`check_record`]).
//!
//! Every test starts its own Redis and cluster, so tests are independent and run in
//! parallel. Waits are bounded loops of short sleeps, never one long sleep.

use api::v1;
use client::{Client, Cursor};
use in_process::Cluster;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use test_harness::{RedisCluster, RedisOptions, RedisServer};
use tonic::{Code, Status, Streaming};

/// A running Redis (a single server, or a sharded Redis Cluster) with the whole cluster on
/// it.
pub struct Env<R = RedisServer> {
    /// The cluster (gateway, engines, clock), stoppable piece by piece.
    pub cluster: Cluster,
    /// The Redis it stores into; kept alive until the cluster is shut down.
    pub redis: R,
}

impl Env<RedisCluster> {
    /// Starts a fresh 3-primary Redis Cluster and the whole cluster on it, so every
    /// match's keys live on whichever node serves their slot.
    ///
    /// # Panics
    /// If Redis or a service cannot start.
    pub async fn start_sharded() -> Env<RedisCluster> {
        let redis = tokio::task::spawn_blocking(|| RedisCluster::start(3))
            .await
            .expect("the Redis Cluster starts");
        let store = store::RedisStore::connect_cluster(&redis.urls())
            .await
            .expect("connect to the cluster");
        let cluster = Cluster::start(Arc::new(store), "127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("the cluster starts");
        Env { cluster, redis }
    }
}

impl Env {
    /// Starts a fresh `redis-server` and the whole cluster on it.
    ///
    /// # Panics
    /// If Redis or a service cannot start.
    pub async fn start() -> Env {
        Env::start_with(RedisOptions::default()).await
    }

    /// Starts a fresh `redis-server` with `options` (e.g. an append-only file, so a
    /// restart keeps what it acknowledged) and the whole cluster on it.
    ///
    /// # Panics
    /// If Redis or a service cannot start.
    pub async fn start_with(options: RedisOptions) -> Env {
        let redis = tokio::task::spawn_blocking(move || RedisServer::start_with(options))
            .await
            .expect("redis-server starts");
        let store = store::RedisStore::connect(&redis.url()).await.expect("connect to redis");
        let cluster = Cluster::start(Arc::new(store), "127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("the cluster starts");
        Env { cluster, redis }
    }
}

/// The tournament service's operator API, as the tests reach it.
pub type Admin = api::internal::tenant_admin_service_client::TenantAdminServiceClient<
    tonic::service::interceptor::InterceptedService<
        tonic::transport::Channel,
        service_kit::internal::Stamp,
    >,
>;

impl<R> Env<R> {
    /// The tournament service's operator API (TenantAdminService), with the internal
    /// secret.
    pub fn admin(&self) -> Admin {
        let url = self.cluster.tournaments_urls()[0].clone();
        let channel = tonic::transport::Endpoint::from_shared(url).expect("url").connect_lazy();
        api::internal::tenant_admin_service_client::TenantAdminServiceClient::with_interceptor(
            channel,
            service_kit::internal::Stamp::new(Some(self.cluster.internal_token())),
        )
    }

    /// A new tenant and a key of it with `scopes`: (tenant id, key id, its platform
    /// client through the gateway).
    ///
    /// # Panics
    /// If the tournament service refuses.
    pub async fn tenant(
        &self,
        name: &str,
        scopes: &[&str],
    ) -> (String, String, client::platform::Platform) {
        let mut admin = self.admin();
        let t = admin
            .create_tenant(api::internal::CreateTenantRequest { name: name.into() })
            .await
            .expect("tenant")
            .into_inner()
            .tenant
            .expect("tenant");
        let k = admin
            .create_api_key(api::internal::CreateApiKeyRequest {
                tenant_id: t.tenant_id.clone(),
                scopes: scopes.iter().map(|s| (*s).to_string()).collect(),
                label: "test".into(),
            })
            .await
            .expect("key")
            .into_inner();
        let info = k.info.expect("info");
        let platform = client::platform::Platform::connect(&self.cluster.gateway_url(), &k.key)
            .expect("platform");
        (t.tenant_id, info.key_id, platform)
    }

    /// Alice and bob, new guests, in a GOPS match with `move_time_ms` per move: alice
    /// created it in seat 0, bob joined seat 1. Returns (alice, bob, match id).
    ///
    /// # Panics
    /// If the gateway refuses.
    pub async fn gops_between(&self, move_time_ms: u64) -> (Player, Player, String) {
        let alice = self.player("alice").await;
        let bob = self.player("bob").await;
        let id = alice.create_open("gops", "", move_time_ms).await;
        assert_eq!(bob.join(&id).await.expect("bob joins"), 1);
        (alice, bob, id)
    }

    /// A new guest player on the gateway.
    pub async fn player(&self, name: &str) -> Player {
        Player::guest(&self.cluster.gateway_url(), name).await
    }

    /// Stops the cluster, then Redis.
    pub async fn shutdown(self) {
        let Env { cluster, redis } = self;
        cluster.shutdown().await;
        drop(redis);
    }
}

/// A guest player: a session on the gateway (the public-API client) and the tests' ways
/// of calling it (fresh keys, panics that name the player).
#[derive(Clone)]
pub struct Player {
    /// The authenticated client.
    pub client: Client,
    /// The player's id.
    pub id: String,
    /// The name it was created with (used in idempotency keys).
    pub name: String,
    keys: Arc<AtomicU64>,
}

impl Player {
    /// A new guest session on the gateway at `url`.
    ///
    /// # Panics
    /// If the gateway refuses a session.
    pub async fn guest(url: &str, name: &str) -> Player {
        let client = Client::guest(url, name).await.expect("a guest session");
        let id = client.player_id().to_string();
        Player { client, id, name: name.to_string(), keys: Arc::default() }
    }

    /// The player a session's client is, named `name`.
    pub fn of(client: Client, name: &str) -> Player {
        let id = client.player_id().to_string();
        Player { client, id, name: name.to_string(), keys: Arc::default() }
    }

    /// A new account (a random email, on the leaderboards) on the gateway at `url`,
    /// logged in.
    ///
    /// # Panics
    /// If the gateway refuses.
    pub async fn account(url: &str, name: &str) -> Player {
        let email = format!("{name}-{}@example.org", uuid_like());
        let client = Client::register(url, &email, "correct horse battery", name, true)
            .await
            .unwrap_or_else(|e| panic!("{name} registers: {e}"));
        Player::of(client, name)
    }

    /// A ticket in `queue` under `key`, retried while the answer is UNAVAILABLE or
    /// ABORTED (a match-maker down: the retry contract says the same key is safe).
    ///
    /// # Panics
    /// On any other refusal, or if no match-maker answers within about ten seconds.
    pub async fn ticket_retrying(&self, queue: &v1::QueueSpec, key: &str) -> v1::Ticket {
        for _ in 0..200 {
            match self.client.create_ticket(queue.clone(), key, 0).await {
                Ok(r) => return r.ticket.expect("a ticket"),
                Err(s) if matches!(s.code(), Code::Unavailable | Code::Aborted) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(s) => panic!("{}'s ticket: {s:?}", self.name),
            }
        }
        panic!("{}'s ticket was never answered", self.name)
    }

    /// Waits (at most `within`) until this player's ticket is assigned, watching its
    /// tickets again whenever the stream breaks (a match-maker crashed): the match id and
    /// seat.
    ///
    /// # Panics
    /// If the ticket ends otherwise, or is not assigned in time.
    pub async fn assignment(&self, ticket_id: &str, within: Duration) -> (String, u32) {
        let until = tokio::time::Instant::now() + within;
        loop {
            let left = until.saturating_duration_since(tokio::time::Instant::now());
            assert!(!left.is_zero(), "{}'s ticket {ticket_id} was never assigned", self.name);
            let mut stream = match self.client.watch_tickets().await {
                Ok(s) => s,
                Err(s) if matches!(s.code(), Code::Unavailable | Code::Aborted) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
                Err(s) => panic!("{} watches: {s:?}", self.name),
            };
            match tokio::time::timeout(left, Client::assignment(&mut stream, ticket_id)).await {
                Ok(Ok(a)) => return a,
                Ok(Err(s)) if s.code() == Code::FailedPrecondition => {
                    panic!("{}'s ticket ended unassigned: {s:?}", self.name)
                }
                // The stream broke: watch again.
                Ok(Err(_)) => tokio::time::sleep(Duration::from_millis(50)).await,
                Err(_) => panic!("{}'s ticket {ticket_id} was never assigned", self.name),
            }
        }
    }

    /// Waits (at most ten seconds) until this player's rating in `game` counts `games`
    /// rated matches (ratings follow the lifecycle stream, so they land a moment after
    /// the match ends).
    ///
    /// # Panics
    /// If it does not.
    pub async fn rating_after(&self, game: &str, games: u64) -> v1::GetRatingResponse {
        self.rating_after_within(game, games, Duration::from_secs(10)).await
    }

    /// [`Player::rating_after`], waiting at most `within`.
    ///
    /// # Panics
    /// If the rating does not count `games` in time.
    pub async fn rating_after_within(
        &self,
        game: &str,
        games: u64,
        within: Duration,
    ) -> v1::GetRatingResponse {
        let mut last = None;
        for _ in 0..within.as_millis() / 50 {
            let r = self.client.rating(game, &self.id, 100).await.expect("GetRating");
            if r.games >= games {
                return r;
            }
            last = Some(r);
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        panic!("{}'s rating never counted {games} games: {last:?}", self.name)
    }

    /// The same player (session, name, keys) calling through the gateway at `url`.
    ///
    /// # Panics
    /// If `url` does not parse.
    pub fn via(&self, url: &str) -> Player {
        Player { client: self.client.on(url).expect("a gateway URL"), ..self.clone() }
    }

    /// A fresh idempotency key.
    pub fn key(&self) -> String {
        format!("{}-{}-{}", self.name, self.id, self.keys.fetch_add(1, Ordering::Relaxed))
    }

    /// CreateMatch as given.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn create(
        &self,
        req: v1::CreateMatchRequest,
    ) -> Result<v1::CreateMatchResponse, Status> {
        self.client.create(req).await
    }

    /// Creates a match of `game` in seat 0 with the other seat open; returns its id.
    ///
    /// # Panics
    /// If the gateway refuses.
    pub async fn create_open(&self, game: &str, options_json: &str, move_time_ms: u64) -> String {
        self.create(create_request(game, options_json, open(), move_time_ms))
            .await
            .unwrap_or_else(|s| panic!("create {game}: {s:?}"))
            .match_id
    }

    /// JoinMatch; the seat taken.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn join(&self, id: &str) -> Result<u32, Status> {
        self.join_with(id, "").await
    }

    /// JoinMatch with an idempotency key; the seat taken.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn join_with(&self, id: &str, key: &str) -> Result<u32, Status> {
        self.client.join(id, key).await
    }

    /// GetView.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn try_view(&self, id: &str) -> Result<v1::GetViewResponse, Status> {
        self.client.view(id).await
    }

    /// GetView, which must succeed.
    ///
    /// # Panics
    /// If the gateway refuses.
    pub async fn view(&self, id: &str) -> v1::GetViewResponse {
        self.try_view(id).await.unwrap_or_else(|s| panic!("{} view: {s:?}", self.name))
    }

    /// GetView, retried (as the retry contract allows) while the answer is UNAVAILABLE.
    ///
    /// # Panics
    /// On any other refusal, or UNAVAILABLE for about a second.
    pub async fn view_retrying(&self, id: &str) -> v1::GetViewResponse {
        for _ in 0..20 {
            match self.try_view(id).await {
                Ok(v) => return v,
                Err(s) if s.code() == Code::Unavailable => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(s) => panic!("{} view: {s:?}", self.name),
            }
        }
        self.view(id).await
    }

    /// SubmitMove with `key`.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn submit_with(
        &self,
        id: &str,
        mv: Option<v1::Move>,
        key: &str,
    ) -> Result<v1::SubmitMoveResponse, Status> {
        self.client.submit(id, mv, key).await
    }

    /// SubmitMove with `key`, retried (as the retry contract allows) while the answer is
    /// UNAVAILABLE or ABORTED: a service coming back. At most about five seconds.
    ///
    /// # Panics
    /// On any other refusal, or if the service never answers.
    pub async fn submit_retrying(
        &self,
        id: &str,
        mv: &v1::Move,
        key: &str,
    ) -> v1::SubmitMoveResponse {
        for _ in 0..100 {
            match self.submit_with(id, Some(mv.clone()), key).await {
                Ok(r) => return r,
                Err(s) if matches!(s.code(), Code::Unavailable | Code::Aborted) => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                Err(s) => panic!("the retried move: {s:?}"),
            }
        }
        panic!("the move was never answered")
    }

    /// SubmitMove with a fresh key; the version of an accepted move.
    ///
    /// # Errors
    /// The gateway's refusal, or an answer other than `accepted`.
    pub async fn submit(&self, id: &str, mv: v1::Move) -> Result<u64, Status> {
        accepted(self.submit_with(id, Some(mv), &self.key()).await?)
    }

    /// WatchMatch after `after_version`.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn watch(
        &self,
        id: &str,
        after_version: u64,
    ) -> Result<Streaming<v1::WatchMatchResponse>, Status> {
        self.watch_with(id, after_version, None, false).await
    }

    /// WatchMatch with every option: resume inside `after_version` after `after_index`,
    /// and the caller's current view (with its latest version as read) when `include_views`.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn watch_with(
        &self,
        id: &str,
        after_version: u64,
        after_index: Option<u32>,
        include_views: bool,
    ) -> Result<Streaming<v1::WatchMatchResponse>, Status> {
        let from = Cursor { index: after_index, ..Cursor::after_version(after_version) };
        self.client.watch(id, from, include_views).await
    }

    /// GetMatchRecord's JSON.
    ///
    /// # Errors
    /// The gateway's refusal.
    pub async fn record(&self, id: &str) -> Result<String, Status> {
        self.client.record(id).await
    }
}

/// A queue spec: `game` with default options, a minute per move.
pub fn queue(game: &str, rated: bool) -> v1::QueueSpec {
    v1::QueueSpec { game: game.into(), options_json: String::new(), move_time_ms: 0, rated }
}

/// 3-card GOPS with no clock: the shortest match a platform test plays.
pub fn gops3() -> v1::GameSpec {
    v1::GameSpec { game: "gops".into(), options_json: "{\"cards\":3}".into(), move_time_ms: 0 }
}

/// A random hex string, for emails and keys that must not repeat across tests.
pub fn uuid_like() -> String {
    service_kit::time::os_random_32()[..16].iter().map(|b| format!("{b:02x}")).collect()
}

/// The version of an `accepted` answer.
///
/// # Errors
/// A `duplicate` or empty answer, as an internal status naming it.
pub fn accepted(r: v1::SubmitMoveResponse) -> Result<u64, Status> {
    match r.outcome {
        Some(v1::submit_move_response::Outcome::Accepted(a)) => Ok(a.version),
        other => Err(Status::internal(format!("expected accepted, got {other:?}"))),
    }
}

pub use client::requests::create as create_request;
pub use client::requests::opponent::{bot, open, player as opponent_player};

/// A GOPS bid.
pub fn gops(card: i64) -> v1::Move {
    v1::Move { game: Some(v1::r#move::Game::Gops(v1::GopsMove { card })) }
}

/// The GOPS part of a view.
///
/// # Panics
/// If the view is not a GOPS view.
pub fn gops_view(v: &v1::GetViewResponse) -> &v1::GopsView {
    match v.view.as_ref().and_then(|v| v.game.as_ref()) {
        Some(v1::view::Game::Gops(g)) => g,
        other => panic!("not a GOPS view: {other:?}"),
    }
}

/// A seeded random picker (splitmix64): tests are reproducible for a given seed, while
/// the matches' own seeds still come from the engines.
pub struct Picker(u64);

impl Picker {
    /// A picker from `seed`.
    pub fn new(seed: u64) -> Picker {
        Picker(seed)
    }

    /// The next random number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A random legal move from a view, if the viewer has any.
    pub fn pick(&mut self, view: &v1::GetViewResponse) -> Option<v1::Move> {
        let n = view.legal_moves.len() as u64;
        (n > 0).then(|| view.legal_moves[(self.next_u64() % n) as usize].clone())
    }
}

/// What [`play_out`] did.
#[derive(Debug)]
pub struct Played {
    /// Seat 0's final view (it has the outcome).
    pub last: v1::GetViewResponse,
    /// The accepted moves, in order: (seat, move, version).
    pub moves: Vec<(u32, v1::Move, u64)>,
}

/// Plays random legal moves for both `seats` (seat 0's player first) until the match has
/// an outcome; at most `max_moves` moves.
///
/// # Panics
/// If a move is refused, the match stalls, or it runs past `max_moves`.
pub async fn play_out(
    seats: [&Player; 2],
    id: &str,
    picker: &mut Picker,
    max_moves: usize,
) -> Played {
    let mut moves = Vec::new();
    let mut idle = 0;
    loop {
        let mut moved = false;
        for (seat, p) in seats.iter().enumerate() {
            let view = p.view_retrying(id).await;
            if view.outcome.is_some() {
                return Played { last: seats[0].view_retrying(id).await, moves };
            }
            if let Some(mv) = picker.pick(&view) {
                // UNAVAILABLE is retried with the same key, as the API says (a dead engine
                // replica is tried again after a second, and fails that call over).
                let mut tries = 0;
                let key = p.key();
                let version = loop {
                    match p.submit_with(id, Some(mv.clone()), &key).await {
                        // A retry of a move the first call applied is its duplicate.
                        Ok(v1::SubmitMoveResponse {
                            outcome:
                                Some(
                                    v1::submit_move_response::Outcome::Accepted(a)
                                    | v1::submit_move_response::Outcome::Duplicate(a),
                                ),
                        }) => break a.version,
                        Ok(other) => panic!("{} ({}): {other:?}", p.name, view.game),
                        Err(s) if s.code() == Code::Unavailable && tries < 20 => {
                            tries += 1;
                            tokio::time::sleep(Duration::from_millis(50)).await;
                        }
                        Err(s) => panic!(
                            "{} ({}) refused at version {}: {s:?}",
                            p.name, view.game, view.version
                        ),
                    }
                };
                moves.push((seat as u32, mv, version));
                moved = true;
                assert!(moves.len() <= max_moves, "{} ran past {max_moves} moves", view.game);
            }
        }
        if moved {
            idle = 0;
        } else {
            idle += 1;
            assert!(idle < 200, "match {id} stalled: no seat has a legal move and no outcome");
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

/// Polls `p`'s view of `id` (every 50 ms, at most `tries` times) until `done` holds.
///
/// # Panics
/// If it never holds.
pub async fn wait_view(
    p: &Player,
    id: &str,
    tries: usize,
    done: impl Fn(&v1::GetViewResponse) -> bool,
) -> v1::GetViewResponse {
    let mut last = None;
    for _ in 0..tries {
        let v = p.view(id).await;
        if done(&v) {
            return v;
        }
        last = Some(v);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the view never reached the expected state; last: {last:?}")
}

/// Reads `stream` to its end (the gateway ends it after MatchEnded), within 20 s.
///
/// # Panics
/// On an error status or a timeout.
pub async fn read_to_end(
    mut stream: Streaming<v1::WatchMatchResponse>,
) -> Vec<v1::WatchMatchResponse> {
    let mut out = Vec::new();
    loop {
        match tokio::time::timeout(Duration::from_secs(20), stream.message()).await {
            Ok(Ok(Some(e))) => out.push(e),
            Ok(Ok(None)) => return out,
            Ok(Err(s)) => panic!("the watch stream failed: {s:?}"),
            Err(_) => panic!("the watch stream did not end; {} events so far", out.len()),
        }
    }
}

/// Reads the next `n` events of `stream`.
///
/// # Panics
/// On an error, the end of the stream or a timeout before `n` events.
pub async fn read_n(
    stream: &mut Streaming<v1::WatchMatchResponse>,
    n: usize,
) -> Vec<v1::WatchMatchResponse> {
    let mut out = Vec::new();
    while out.len() < n {
        match tokio::time::timeout(Duration::from_secs(10), stream.message()).await {
            Ok(Ok(Some(e))) => out.push(e),
            other => panic!("expected {n} events, got {} then {other:?}", out.len()),
        }
    }
    out
}

/// Fetches the record of the finished match `id`, verifies it by replay and checks its
/// result against the view's `outcome`; returns it.
///
/// # Panics
/// If the record is refused, does not verify, or disagrees with the view.
pub async fn check_record(p: &Player, id: &str, outcome: &v1::Outcome) -> games::Record {
    // UNAVAILABLE is retried, as the API says (an engine connection going away under the
    // gateway is answered so).
    let mut tries = 0;
    let json = loop {
        match p.record(id).await {
            Ok(json) => break json,
            Err(s) if s.code() == Code::Unavailable && tries < 20 => {
                tries += 1;
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            Err(s) => panic!("record of {id}: {s:?}"),
        }
    };
    let record = games::Record::parse(&json).unwrap_or_else(|e| panic!("record parses: {e}"));
    let verified = record.verify().unwrap_or_else(|e| panic!("record of {id} verifies: {e}"));
    let result = record.result.expect("a finished record has a result");
    assert_eq!(verified.result, result);
    assert_eq!(result.winner.map(|s| s.index() as u32), outcome.winner, "winner");
    assert_eq!(wire::reason(&result), outcome.reason, "reason");
    assert_eq!(record.seed.map(|s| s.to_hex()), Some(outcome.seed.clone()), "seed");
    record
}

/// Asserts `r` failed with `code` and a message containing `needle`.
///
/// # Panics
/// If it did not.
pub fn assert_status<T: std::fmt::Debug>(r: Result<T, Status>, code: Code, needle: &str) {
    match r {
        Ok(v) => panic!("expected {code:?} ({needle}), got Ok({v:?})"),
        Err(s) => {
            assert_eq!(s.code(), code, "code of {s:?}");
            assert!(s.message().contains(needle), "{:?} does not say {needle:?}", s.message());
        }
    }
}
