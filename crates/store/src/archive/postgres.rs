//! The archive on PostgreSQL (tokio-postgres): a few connections used in turn, each made
//! again when it breaks, every call bounded by [`CALL_TIMEOUT`]. The schema is the SQL in
//! `migrations/`, applied at start under an advisory lock, so replicas may start together:
//! one applies what is missing, the others wait and find it applied.

use crate::archive::{After, ArchiveStore, Archived, MAX_PAGE, Owner, Put, RatingDelta, Summary};
use crate::error::StoreError;
use crate::redis_store::codec::{decode_holder, encode_holder};
use async_trait::async_trait;
use ids::{MatchId, SeatHolder, TenantId, TournamentId};
use rules_core::Seat;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;
use tokio_postgres::{Client, NoTls, Row, Statement};
use uuid::Uuid;

/// The migrations, in order: (version, SQL). A deployed one never changes; a change is a
/// new one after it.
const MIGRATIONS: &[(i32, &str)] = &[(1, include_str!("migrations/0001_archive.sql"))];

/// The advisory lock the migrations run under (any fixed number: "colosseum archive").
const MIGRATION_LOCK: i64 = 0x636f_6c6f_7373_6172;

/// The most any call waits for the database, connecting included: a database that is down
/// answers an error soon, and the caller retries later.
pub const CALL_TIMEOUT: Duration = Duration::from_secs(5);

/// Connections kept (each pipelines the calls made on it at once).
const CONNECTIONS: usize = 4;

/// The columns of a summary, in the order [`summary_of`] reads them.
const SUMMARY: &str = "m.match_id, m.game, m.seat0, m.seat1, m.winner, m.reason, \
    m.finished_at_ms, m.tenant_id, m.tournament_id, m.rating0_before, m.rating0_after, \
    m.rating1_before, m.rating1_after";

/// One connection and the statements prepared on it (each prepared once, by its text).
struct Conn {
    client: Client,
    prepared: std::sync::Mutex<std::collections::BTreeMap<String, Statement>>,
}

impl Conn {
    async fn prepare_cached(&self, sql: &str) -> Result<Statement, StoreError> {
        if let Some(st) = self.prepared.lock().expect("the statements' lock").get(sql) {
            return Ok(st.clone());
        }
        let st = self.client.prepare(sql).await?;
        self.prepared.lock().expect("the statements' lock").insert(sql.to_string(), st.clone());
        Ok(st)
    }
}

impl std::ops::Deref for Conn {
    type Target = Client;
    fn deref(&self) -> &Client {
        &self.client
    }
}

/// The archive on PostgreSQL.
pub struct PgArchive {
    url: String,
    /// Set once the migrations are applied: every call waits for it first, so a service
    /// starts while the database is down and the archive works once it is back.
    migrated: tokio::sync::OnceCell<()>,
    connections: Vec<tokio::sync::Mutex<Option<Arc<Conn>>>>,
    next: AtomicUsize,
}

impl PgArchive {
    /// The archive in the database at `url` (`postgres://user:pass@host:port/db`). The
    /// migrations it lacks are applied now if the database answers, else by the first
    /// call that reaches it: a service that needs the archive for finished matches alone
    /// starts and plays while the database is down.
    ///
    /// # Errors
    /// [`StoreError::Archive`]: the URL is not one.
    pub async fn open(url: &str) -> Result<PgArchive, StoreError> {
        url.parse::<tokio_postgres::Config>()
            .map_err(|e| StoreError::Archive(format!("the archive's URL: {e}")))?;
        let archive = PgArchive {
            url: url.to_string(),
            migrated: tokio::sync::OnceCell::new(),
            connections: (0..CONNECTIONS).map(|_| tokio::sync::Mutex::new(None)).collect(),
            next: AtomicUsize::new(0),
        };
        if let Err(e) = bounded(archive.ready()).await {
            tracing::warn!(error = %e, "the archive's database does not answer yet: migrations wait for it");
        }
        Ok(archive)
    }

    /// Applies the migrations once (the first call that reaches the database does).
    async fn ready(&self) -> Result<(), StoreError> {
        self.migrated.get_or_try_init(|| self.migrate()).await.map(|_| ())
    }

    async fn connect(url: &str) -> Result<Client, StoreError> {
        let (client, connection) = tokio_postgres::connect(url, NoTls).await?;
        tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!(error = %e, "the archive's connection ended");
            }
        });
        Ok(client)
    }

    /// A connection, made again if the one in its place broke; the schema migrated first.
    async fn client(&self) -> Result<Arc<Conn>, StoreError> {
        self.ready().await?;
        let i = self.next.fetch_add(1, Ordering::Relaxed) % self.connections.len();
        let mut slot = self.connections[i].lock().await;
        if let Some(c) = slot.as_ref().filter(|c| !c.is_closed()) {
            return Ok(c.clone());
        }
        let client = Self::connect(&self.url).await?;
        let c = Arc::new(Conn { client, prepared: Default::default() });
        *slot = Some(c.clone());
        Ok(c)
    }

    async fn migrate(&self) -> Result<(), StoreError> {
        // A connection of its own: the advisory lock is the session's, released with it.
        let mut c = Self::connect(&self.url).await?;
        c.execute("SELECT pg_advisory_lock($1)", &[&MIGRATION_LOCK]).await?;
        c.batch_execute(
            "CREATE TABLE IF NOT EXISTS archive_migrations (
                 version integer PRIMARY KEY,
                 applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .await?;
        for (version, sql) in MIGRATIONS {
            let t = c.transaction().await?;
            let done = t
                .query_opt("SELECT 1 FROM archive_migrations WHERE version = $1", &[version])
                .await?;
            if done.is_none() {
                t.batch_execute(sql).await?;
                t.execute("INSERT INTO archive_migrations (version) VALUES ($1)", &[version])
                    .await?;
                tracing::info!(version, "archive migration applied");
            }
            t.commit().await?;
        }
        c.execute("SELECT pg_advisory_unlock($1)", &[&MIGRATION_LOCK]).await?;
        Ok(())
    }

    async fn put_now(&self, a: &Archived) -> Result<Put, StoreError> {
        let s = &a.summary;
        let seat = |i: usize| encode_holder(&s.seats[i]);
        let rating = |i: usize, f: fn(&RatingDelta) -> f64| s.ratings[i].as_ref().map(f);
        let mut players: Vec<Uuid> = s
            .seats
            .iter()
            .filter_map(|h| match h {
                SeatHolder::Player(p) => Some(p.0),
                SeatHolder::Open | SeatHolder::Reserved(_) | SeatHolder::Bot(_) => None,
            })
            .collect();
        // One row a player, though they held both seats.
        players.dedup();
        let c = self.client().await?;
        // One statement, so all of it is written or none (a shared connection holds no
        // transaction open across calls); the player rows only with a match row new now.
        let st = c
            .prepare_cached(
                "WITH m AS (
                     INSERT INTO archived_matches (match_id, game, seat0, seat1, winner, reason,
                         finished_at_ms, tenant_id, tournament_id, rating0_before,
                         rating0_after, rating1_before, rating1_after, record, archived_at_ms)
                     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14,
                         (extract(epoch from clock_timestamp()) * 1000)::bigint)
                     ON CONFLICT (match_id) DO NOTHING
                     RETURNING match_id, finished_at_ms),
                 p AS (
                     INSERT INTO archived_players (player_id, finished_at_ms, match_id)
                     SELECT player, m.finished_at_ms, m.match_id
                     FROM m, unnest($15::uuid[]) AS player)
                 SELECT count(*) FROM m",
            )
            .await?;
        let row = c
            .query_one(
                &st,
                &[
                    &s.match_id.0,
                    &s.game,
                    &seat(0),
                    &seat(1),
                    &s.winner.map(|w| w.index() as i16),
                    &s.reason,
                    &ms(s.finished_at_ms),
                    &s.tenant.map(|t| t.0),
                    &s.tournament.map(|t| t.0),
                    &rating(0, |r| r.before),
                    &rating(0, |r| r.after),
                    &rating(1, |r| r.before),
                    &rating(1, |r| r.after),
                    &a.record_json,
                    &players,
                ],
            )
            .await?;
        Ok(if row.get::<_, i64>(0) == 1 { Put::Written } else { Put::AlreadyArchived })
    }

    async fn list_now(
        &self,
        owner: Owner,
        after: Option<After>,
        limit: usize,
    ) -> Result<Vec<Summary>, StoreError> {
        let (at, id) = match after {
            Some(a) => (ms(a.finished_at_ms), a.match_id.0),
            None => (i64::MAX, Uuid::max()),
        };
        let limit = limit.min(MAX_PAGE) as i64;
        let c = self.client().await?;
        let rows = match owner {
            Owner::Player(p) => {
                let sql = format!(
                    "SELECT {SUMMARY} FROM archived_players p
                     JOIN archived_matches m ON m.match_id = p.match_id
                     WHERE p.player_id = $1 AND (p.finished_at_ms, p.match_id) < ($2, $3)
                     ORDER BY p.finished_at_ms DESC, p.match_id DESC LIMIT $4"
                );
                c.query(&c.prepare_cached(&sql).await?, &[&p.0, &at, &id, &limit]).await?
            }
            Owner::Tenant(t) => {
                let sql = list_by("tenant_id");
                c.query(&c.prepare_cached(&sql).await?, &[&t.0, &at, &id, &limit]).await?
            }
            Owner::Tournament(t) => {
                let sql = list_by("tournament_id");
                c.query(&c.prepare_cached(&sql).await?, &[&t.0, &at, &id, &limit]).await?
            }
        };
        rows.iter().map(summary_of).collect()
    }
}

/// The newest-first page of matches whose `column` is `$1`.
fn list_by(column: &str) -> String {
    format!(
        "SELECT {SUMMARY} FROM archived_matches m
         WHERE m.{column} = $1 AND (m.finished_at_ms, m.match_id) < ($2, $3)
         ORDER BY m.finished_at_ms DESC, m.match_id DESC LIMIT $4"
    )
}

/// Unix ms as PostgreSQL's bigint (times past 2^63 ms do not occur).
fn ms(at: u64) -> i64 {
    i64::try_from(at).unwrap_or(i64::MAX)
}

fn summary_of(r: &Row) -> Result<Summary, StoreError> {
    let corrupt = |what: String| StoreError::Corrupt(format!("the archive: {what}"));
    let holder = |i: usize| -> Result<SeatHolder, StoreError> {
        decode_holder(&r.try_get::<_, String>(i)?).map_err(corrupt)
    };
    let delta = |b: usize| -> Result<Option<RatingDelta>, StoreError> {
        let before: Option<f64> = r.try_get(b)?;
        let after: Option<f64> = r.try_get(b + 1)?;
        Ok(before.zip(after).map(|(before, after)| RatingDelta { before, after }))
    };
    let winner = match r.try_get::<_, Option<i16>>(4)? {
        None => None,
        Some(0) => Some(Seat::ZERO),
        Some(1) => Some(Seat::ONE),
        Some(w) => return Err(corrupt(format!("winner {w}"))),
    };
    Ok(Summary {
        match_id: MatchId(r.try_get(0)?),
        game: r.try_get(1)?,
        seats: [holder(2)?, holder(3)?],
        winner,
        reason: r.try_get(5)?,
        finished_at_ms: u64::try_from(r.try_get::<_, i64>(6)?).unwrap_or(0),
        tenant: r.try_get::<_, Option<Uuid>>(7)?.map(TenantId),
        tournament: r.try_get::<_, Option<Uuid>>(8)?.map(TournamentId),
        ratings: [delta(9)?, delta(11)?],
    })
}

/// `work`, or an error once [`CALL_TIMEOUT`] has passed.
async fn bounded<T>(
    work: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    tokio::time::timeout(CALL_TIMEOUT, work)
        .await
        .unwrap_or_else(|_| Err(StoreError::Archive("the database did not answer in time".into())))
}

#[async_trait]
impl ArchiveStore for PgArchive {
    async fn put(&self, archived: &Archived) -> Result<Put, StoreError> {
        bounded(self.put_now(archived)).await
    }

    async fn record(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        bounded(async {
            let c = self.client().await?;
            let st =
                c.prepare_cached("SELECT record FROM archived_matches WHERE match_id = $1").await?;
            Ok(c.query_opt(&st, &[&id.0]).await?.map(|r| r.get(0)))
        })
        .await
    }

    async fn summary(&self, id: MatchId) -> Result<Option<Summary>, StoreError> {
        bounded(async {
            let c = self.client().await?;
            let sql = format!("SELECT {SUMMARY} FROM archived_matches m WHERE m.match_id = $1");
            let row = c.query_opt(&c.prepare_cached(&sql).await?, &[&id.0]).await?;
            row.as_ref().map(summary_of).transpose()
        })
        .await
    }

    async fn list(
        &self,
        owner: Owner,
        after: Option<After>,
        limit: usize,
    ) -> Result<Vec<Summary>, StoreError> {
        bounded(self.list_now(owner, after, limit)).await
    }

    async fn prune(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError> {
        bounded(async {
            let c = self.client().await?;
            let n = c
                .execute(
                    "DELETE FROM archived_matches WHERE match_id IN (
                         SELECT match_id FROM archived_matches WHERE finished_at_ms < $1
                         ORDER BY finished_at_ms LIMIT $2)",
                    &[&ms(before_ms), &(limit as i64)],
                )
                .await?;
            Ok(usize::try_from(n).unwrap_or(usize::MAX))
        })
        .await
    }

    async fn ping(&self) -> Result<(), StoreError> {
        bounded(async {
            self.client().await?.simple_query("SELECT 1").await?;
            Ok(())
        })
        .await
    }
}
