//! `colosseum load --archive`: the load's matches moved to an archive as they finish (a
//! real PostgreSQL started here), then measured: Redis's memory before the load, while it
//! runs and after the archive has every match and Redis has let them go; the archive's
//! rows; a sample of the archived records verified as `colosseum verify` verifies them; and
//! every player's history paged through ListPlayerHistory, each page timed.

use client::Client;
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};
use store::ArchiveStore;
use store::archive::postgres::PgArchive;
use test_harness::PostgresServer;

/// The archive of a load run and what it watches.
pub struct Run {
    pub pg: PostgresServer,
    pub archive: Arc<PgArchive>,
    redis: redis::aio::MultiplexedConnection,
    /// Redis's `used_memory` before the load.
    before: u64,
    /// Samples taken while the load ran.
    during: Arc<std::sync::Mutex<Vec<u64>>>,
    /// What Redis held by kind of key, [`MIDWAY`] into the load.
    midway: Arc<std::sync::Mutex<Option<Value>>>,
    stop: Arc<AtomicBool>,
}

/// Redis's `used_memory`, bytes.
async fn used_memory(redis: &mut redis::aio::MultiplexedConnection) -> Result<u64, String> {
    let info: String =
        redis::cmd("INFO").arg("memory").query_async(redis).await.map_err(|e| e.to_string())?;
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .ok_or_else(|| "INFO memory has no used_memory".into())
}

/// The memory sample (one every two seconds) at which the keys are counted by kind.
const MIDWAY: usize = 10;

/// What Redis holds, by the kind of key (a key's name with its ids and tokens made `*`):
/// how many keys and their `MEMORY USAGE`. A finished match left behind shows as
/// `colosseum:{*}:meta` and its kin.
async fn by_kind(redis: &mut redis::aio::MultiplexedConnection) -> Result<Value, String> {
    let mut kinds: std::collections::BTreeMap<String, (u64, u64)> = Default::default();
    let mut cursor = 0u64;
    loop {
        let (next, keys): (u64, Vec<String>) = redis::cmd("SCAN")
            .arg(cursor)
            .arg("COUNT")
            .arg(1000)
            .query_async(redis)
            .await
            .map_err(|e| e.to_string())?;
        for key in keys {
            let bytes: Option<u64> = redis::cmd("MEMORY")
                .arg("USAGE")
                .arg(&key)
                .arg("SAMPLES")
                .arg(0)
                .query_async(redis)
                .await
                .map_err(|e| e.to_string())?;
            let kind = kind_of(&key);
            let slot = kinds.entry(kind).or_default();
            slot.0 += 1;
            slot.1 += bytes.unwrap_or(0);
        }
        if next == 0 {
            break;
        }
        cursor = next;
    }
    Ok(kinds.into_iter().map(|(k, (n, b))| (k, json!({ "keys": n, "bytes": b }))).collect())
}

/// A key's kind: each `:`-separated part that is an id or a token (hex and dashes, 16
/// characters or more, within braces or not) made `*`.
fn kind_of(key: &str) -> String {
    let id = |p: &str| p.len() >= 16 && p.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    key.split(':')
        .map(|part| {
            let inner = part.trim_start_matches('{').trim_end_matches('}');
            if !id(inner) {
                return part.to_string();
            }
            let open = if part.starts_with('{') { "{" } else { "" };
            let close = if part.ends_with('}') { "}" } else { "" };
            format!("{open}*{close}")
        })
        .collect::<Vec<_>>()
        .join(":")
}

/// Starts PostgreSQL and opens the archive in it; reads Redis's memory at `redis_url`.
///
/// # Errors
/// PostgreSQL or Redis cannot be reached.
pub async fn start(redis_url: &str) -> Result<Run, String> {
    let pg = tokio::task::spawn_blocking(PostgresServer::start).await.map_err(|e| e.to_string())?;
    let archive = Arc::new(PgArchive::open(&pg.url()).await.map_err(|e| e.to_string())?);
    archive.ping().await.map_err(|e| e.to_string())?;
    let mut redis = redis::Client::open(redis_url)
        .map_err(|e| e.to_string())?
        .get_multiplexed_async_connection()
        .await
        .map_err(|e| e.to_string())?;
    let before = used_memory(&mut redis).await?;
    Ok(Run {
        pg,
        archive,
        redis,
        before,
        during: Arc::default(),
        midway: Arc::default(),
        stop: Arc::new(AtomicBool::new(false)),
    })
}

impl Run {
    /// Samples Redis's memory every two seconds until [`Run::measure`].
    pub fn sample(&self) {
        let (mut redis, during, stop, midway) =
            (self.redis.clone(), self.during.clone(), self.stop.clone(), self.midway.clone());
        tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                tokio::time::sleep(Duration::from_secs(2)).await;
                if let Ok(m) = used_memory(&mut redis).await {
                    let n = {
                        let mut d = during.lock().expect("the samples' lock");
                        d.push(m);
                        d.len()
                    };
                    // Once, in the steady state: live matches, finished ones in their
                    // window, the players' lists, each by its keys.
                    if n == MIDWAY
                        && let Ok(kinds) = by_kind(&mut redis).await
                    {
                        *midway.lock().expect("the midway lock") = Some(kinds);
                    }
                }
            }
        });
    }

    fn rows(&self) -> u64 {
        self.pg.query("SELECT count(*) FROM archived_matches").trim().parse().unwrap_or(0)
    }

    /// After the load: waits for the archive to hold `matches` and for Redis to let them go
    /// (`release_ms` and a little), then measures.
    pub async fn measure(
        &mut self,
        gateway: &str,
        matches: u64,
        live: u64,
        release_ms: u64,
        verify_sample: u64,
    ) -> Result<Value, String> {
        self.stop.store(true, Ordering::Relaxed);
        #[allow(clippy::disallowed_methods)] // The load measures wall time.
        let load_end = Instant::now();
        let mut rows = self.rows();
        while rows < matches {
            eprintln!("archive: {rows} of {matches} matches archived");
            tokio::time::sleep(Duration::from_secs(2)).await;
            let now = self.rows();
            if now == rows && load_end.elapsed() > Duration::from_secs(600) {
                return Err(format!("the archive stopped at {rows} of {matches} matches"));
            }
            rows = now;
        }
        let catch_up_s = load_end.elapsed().as_secs_f64();
        eprintln!("archive: all {rows} archived; waiting for Redis to let them go");
        tokio::time::sleep(Duration::from_millis(release_ms) + Duration::from_secs(12)).await;
        let after = used_memory(&mut self.redis).await?;
        let keys: u64 =
            redis::cmd("DBSIZE").query_async(&mut self.redis).await.map_err(|e| e.to_string())?;
        let by_kind = by_kind(&mut self.redis).await?;
        let mut during = self.during.lock().expect("the samples' lock").clone();
        during.sort_unstable();
        let during_median = during.get(during.len() / 2).copied().unwrap_or(0);
        let verified = self.verify(verify_sample).await?;
        let history = history(gateway, &self.archive, &self.pg).await?;
        Ok(json!({
            "archived": rows,
            "catch_up_after_load_s": (catch_up_s * 10.0).round() / 10.0,
            "redis_bytes": {
                "before": self.before,
                "during_median": during_median,
                "during_max": during.last().copied().unwrap_or(0),
                "after": after,
                "after_minus_before": after as i64 - self.before as i64,
                "per_finished_match_after": (after as f64 - self.before as f64) / matches.max(1) as f64,
                "per_live_match_during": (during_median as f64 - self.before as f64) / live.max(1) as f64,
                "midway_by_kind": self.midway.lock().expect("the midway lock").clone(),
                "keys_after": keys,
                "after_by_kind": by_kind,
            },
            "archive_bytes": self.pg.query("SELECT pg_database_size(current_database())").trim().parse::<u64>().unwrap_or(0),
            "verified": verified,
            "history": history,
        }))
    }

    /// Verifies `n` archived records chosen at random, as `colosseum verify` does.
    async fn verify(&self, n: u64) -> Result<Value, String> {
        let ids = self
            .pg
            .query(&format!("SELECT match_id FROM archived_matches ORDER BY random() LIMIT {n}"));
        let (mut ok, mut bad) = (0u64, Vec::new());
        for id in ids.lines().filter(|l| !l.is_empty()) {
            let mid: store::MatchId = id.parse().map_err(|e| format!("{id}: {e}"))?;
            let record =
                self.archive.record(mid).await.map_err(|e| e.to_string())?.unwrap_or_default();
            match games::Record::parse(&record).and_then(|r| r.verify()) {
                Ok(_) => ok += 1,
                Err(e) => bad.push(format!("{id}: {e}")),
            }
        }
        Ok(
            json!({ "verified": ok, "failed": bad.len(), "failures": bad.iter().take(5).collect::<Vec<_>>() }),
        )
    }
}

/// Every player's history, paged through ListPlayerHistory (20 a page), each page timed.
async fn history(gateway: &str, archive: &PgArchive, pg: &PostgresServer) -> Result<Value, String> {
    let _ = archive;
    let players = pg.query("SELECT DISTINCT player_id FROM archived_players");
    let players: Vec<&str> = players.lines().filter(|l| !l.is_empty()).collect();
    let reader = Client::guest(gateway, "history reader").await.map_err(|e| e.to_string())?;
    let mut ms: Vec<f64> = Vec::new();
    let mut entries = 0u64;
    for (i, p) in players.iter().enumerate() {
        let mut token = String::new();
        loop {
            #[allow(clippy::disallowed_methods)] // The load measures wall time.
            let t = Instant::now();
            let page = reader.history(p, 20, &token).await.map_err(|s| format!("history: {s}"))?;
            ms.push(t.elapsed().as_secs_f64() * 1000.0);
            entries += page.entries.len() as u64;
            if page.next_page_token.is_empty() {
                break;
            }
            token = page.next_page_token;
        }
        if i % 10 == 9 {
            eprintln!("history: {} of {} players paged ({} pages)", i + 1, players.len(), ms.len());
        }
    }
    ms.sort_by(f64::total_cmp);
    let at = |q: f64| {
        ms.get(((ms.len().max(1) - 1) as f64 * q).round() as usize).copied().unwrap_or(0.0)
    };
    let round = |v: f64| (v * 100.0).round() / 100.0;
    Ok(json!({
        "players": players.len(),
        "pages": ms.len(),
        "entries": entries,
        "page_ms": { "p50": round(at(0.5)), "p99": round(at(0.99)), "max": round(at(1.0)) },
    }))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_key_kind_hides_ids_and_tokens() {
        let kind = super::kind_of;
        assert_eq!(
            kind("colosseum:{8672fe5c-2439-4c7b-8066-309c048d4993}:meta"),
            "colosseum:{*}:meta"
        );
        assert_eq!(
            kind("colosseum:{player:6f848fdc-61bb-480a-b59f-817c29337f05}:matches"),
            "colosseum:{player:*}:matches"
        );
        assert_eq!(
            kind("colosseum:session:ffb23b6dbdb1637f25c2c1164a9f0011"),
            "colosseum:session:*"
        );
        assert_eq!(kind("colosseum:{lobby}:lease:bots"), "colosseum:{lobby}:lease:bots");
        assert_eq!(kind("colosseum:deadlines"), "colosseum:deadlines");
    }
}
