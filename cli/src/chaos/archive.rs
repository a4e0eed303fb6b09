//! The chaos trial's archive: a real PostgreSQL the trial kills and restarts like any
//! service, and the check that follows the load: every finished match ends in the archive
//! exactly once, with the record GetMatchRecord answers, and none was let go from Redis
//! before the archive had it.

use serde::Serialize;
use std::collections::BTreeSet;
use std::time::Duration;
use store::ArchiveStore;
use store::archive::postgres::PgArchive;
use test_harness::PostgresServer;

/// How long the check waits for the archiver to catch up (it may have been killed last,
/// with entries pending until a claim).
const CATCH_UP: Duration = Duration::from_secs(90);

/// What the check found.
#[derive(Serialize, Default)]
pub struct Archived {
    /// Finished matches the trial tracked.
    pub finished: u64,
    /// Of which in the archive.
    pub archived: u64,
    /// Not in the archive after the wait (at most 10 shown in `missing_ids`).
    pub missing: u64,
    pub missing_ids: Vec<String>,
    /// Let go from Redis (an expiry within the release window) while not archived.
    pub released_unarchived: u64,
    /// Archived with other bytes than GetMatchRecord answers.
    pub record_mismatch: u64,
    /// Rows beyond one per match (matches, or a player's rows of a match).
    pub written_twice: u64,
    /// Rows in the archive in all (the consumers' and bots' matches too).
    pub rows: u64,
}

impl Archived {
    /// Whether anything was lost, released early, changed or written twice.
    pub fn bad(&self) -> bool {
        self.missing + self.released_unarchived + self.record_mismatch + self.written_twice > 0
    }
}

/// Starts the trial's PostgreSQL.
///
/// # Errors
/// PostgreSQL is not installed or does not start (the harness's message).
pub async fn start() -> Result<PostgresServer, String> {
    tokio::task::spawn_blocking(|| std::panic::catch_unwind(PostgresServer::start))
        .await
        .map_err(|e| e.to_string())?
        .map_err(|p| {
            p.downcast_ref::<String>().cloned().unwrap_or_else(|| "PostgreSQL did not start".into())
        })
}

/// Kills PostgreSQL as a crash would, waits `pause`, starts it again; answers it and
/// whether it came back.
pub async fn crash_and_restart(pg: PostgresServer, pause: Duration) -> (PostgresServer, bool) {
    tokio::task::spawn_blocking(move || {
        let mut pg = pg;
        pg.crash();
        std::thread::sleep(pause);
        let back = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| pg.restart())).is_ok();
        (pg, back)
    })
    .await
    .expect("the restart task")
}

/// The time to live of a match's meta in Redis, ms (-1: none, -2: gone).
async fn meta_ttl(redis: &mut redis::aio::MultiplexedConnection, id: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(format!("colosseum:{{{id}}}:meta"))
        .query_async(redis)
        .await
        .unwrap_or(-2)
}

/// The check: `finished` are the finished matches' ids; `release_ms` the window.
pub async fn check(
    pg: &PostgresServer,
    redis_url: &str,
    checker: &client::Client,
    finished: &[String],
    release_ms: u64,
) -> Result<Archived, String> {
    let archive = PgArchive::open(&pg.url()).await.map_err(|e| e.to_string())?;
    let mut redis = redis::Client::open(redis_url)
        .map_err(|e| e.to_string())?
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| e.to_string())?;
    let mut out = Archived { finished: finished.len() as u64, ..Archived::default() };
    let is_archived = |id: &str| {
        let id = id.parse::<store::MatchId>().ok();
        let archive = &archive;
        async move {
            match id {
                Some(id) => archive.summary(id).await.ok().flatten().is_some(),
                None => false,
            }
        }
    };
    // Released (the release sets an expiry within the window) yet not archived: lost from
    // Redis before the archive had it.
    for id in finished {
        let ttl = meta_ttl(&mut redis, id).await;
        if (0..=release_ms as i64).contains(&ttl) && !is_archived(id).await {
            out.released_unarchived += 1;
        }
    }
    let mut waiting: BTreeSet<&String> = finished.iter().collect();
    #[allow(clippy::disallowed_methods)] // The trial measures wall time.
    let start = std::time::Instant::now();
    loop {
        let mut still = BTreeSet::new();
        for id in waiting {
            if !is_archived(id).await {
                still.insert(id);
            }
        }
        waiting = still;
        if waiting.is_empty() || start.elapsed() > CATCH_UP {
            break;
        }
        tracing::info!(waiting = waiting.len(), "waiting for the archiver");
        tokio::time::sleep(Duration::from_secs(1)).await;
    }
    out.missing = waiting.len() as u64;
    out.missing_ids = waiting.iter().take(10).map(|s| (*s).clone()).collect();
    out.archived = out.finished - out.missing;
    for id in finished.iter().filter(|id| !waiting.contains(id)) {
        let Ok(mid) = id.parse::<store::MatchId>() else { continue };
        let stored = archive.record(mid).await.map_err(|e| e.to_string())?;
        // The gateway answers from Redis while the window lasts: the bytes the match left.
        match checker.record(id).await {
            Ok(live) if Some(&live) == stored.as_ref() => {}
            Ok(_) => out.record_mismatch += 1,
            Err(s) => tracing::warn!(match_id = %id, code = ?s.code(), "record not read"),
        }
    }
    let count = |sql: &str| pg.query(sql).trim().parse::<u64>().unwrap_or(u64::MAX);
    out.rows = count("SELECT count(*) FROM archived_matches");
    out.written_twice = count(
        "SELECT (SELECT count(*) - count(DISTINCT match_id) FROM archived_matches)
              + (SELECT count(*) FROM (SELECT player_id, match_id FROM archived_players
                 GROUP BY 1, 2 HAVING count(*) > 1) twice)",
    );
    Ok(out)
}
