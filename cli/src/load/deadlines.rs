//! `colosseum load --deadlines N` (issue 17): N GOPS matches made by CreateMatches and left
//! alone, their deadlines due spread over `--over-ms`; from the clocks' record of each firing:
//! lag (applied minus armed due), misses, a restart's catch-up, a second clock's waste.

use super::LoadArgs;
use super::bulk::{create_in_calls, tenant_and_players};
use api::v1;
use clock::Firing;
use futures_util::StreamExt;
use serde_json::json;
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use store::{FullStore, MatchId};

/// The most matches one CreateMatches call takes.
/// The shortest time per move CreateMatches accepts (the registry's hosted policy).
const MIN_MOVE_TIME_MS: u64 = games::time::Policy::Hosted.bounds().min_ms;
/// How long the clock stays down with `--clock-restart-ms`.
const DOWN_MS: u64 = 5_000;
/// How long past the last due time the wait gives up.
const GRACE_MS: u64 = 30_000;
/// Past the last due time, the wait asks the store about the matches no clock recorded a
/// firing for, once this few remain.
const UNRECORDED_CHECKED: usize = 1_000;
/// Store reads in flight when checking every match at the end.
const CHECKING_AT_ONCE: usize = 64;

/// Runs the deadline benchmark.
///
/// # Errors
/// The cluster cannot start, or a call fails.
pub async fn run(args: &LoadArgs) -> Result<serde_json::Value, String> {
    let n = args.deadlines;
    let store = store::open_full_store_from_env().await.map_err(|e| e.to_string())?;
    let mut cluster =
        in_process::Cluster::start(store.clone(), "127.0.0.1:0".parse().expect("an address"))
            .await
            .map_err(|e| e.to_string())?;
    cluster.keep_clock_firings();
    for _ in 1..args.clocks.max(1) {
        cluster.start_extra_clock().map_err(|e| e.to_string())?;
    }
    let (p, a, b) = tenant_and_players(&cluster, "deadline bench", "deadlines").await?;

    // Creation: the i-th deadline is meant to fall due at `intended(i)`, evenly from
    // `lead_ms` after the start over `over_ms`. Each call sets each match's time per move
    // from its own start, so the armed due time runs late by how far into the call the
    // engine created the match (reported as armed minus intended).
    let started_ms = now_ms();
    let first_due = started_ms + args.lead_ms;
    let intended = |i: u64| first_due + if n > 1 { args.over_ms * i / (n - 1) } else { 0 };
    let bar = crate::progress::bar(
        n,
        "{spinner} {bar:40} {pos}/{len} matches created ({per_sec})",
        "matches created",
    );
    let ids = create_in_calls(&p, "deadlines", n, &bar, |i, now| v1::MatchSpec {
        game: Some(v1::GameSpec {
            game: "gops".into(),
            options_json: String::new(),
            move_time_ms: intended(i).saturating_sub(now).max(MIN_MOVE_TIME_MS),
        }),
        seat0_player_id: a.player_id().to_string(),
        seat1_player_id: b.player_id().to_string(),
        start_at_ms: 0,
        label: String::new(),
    })
    .await?;
    let creation_ms = now_ms() - started_ms;
    bar.finish_and_clear();
    eprintln!("{n} matches created in {:.1} s", creation_ms as f64 / 1000.0);

    // Waiting: until the clocks have applied every deadline, or (past the last due time)
    // the store has none of the rest armed (a firing in flight when the clock was stopped
    // may have been applied unrecorded), or the last due time and a grace have passed.
    // The clock is stopped and restarted on the way if asked.
    let index: BTreeMap<MatchId, u64> =
        ids.iter().enumerate().map(|(i, id)| (*id, i as u64)).collect();
    let mut seen = Seen::default();
    let last_due_ms = intended(n.saturating_sub(1));
    let bar = crate::progress::bar(
        n,
        "{spinner} {bar:40} {pos}/{len} deadlines fired ({msg})",
        "deadlines fired",
    );
    let mut restart = args.clock_restart_ms.map(|k| Restart {
        stop_at_ms: first_due + k,
        stopped_ms: None,
        restarted_ms: None,
    });
    let mut next_store_check_ms = last_due_ms + 1_000;
    loop {
        seen.pull(&cluster.clocks(), &index);
        let fired = seen.applied.len() as u64;
        bar.set_position(fired);
        let now = now_ms();
        let due = if now < first_due {
            0
        } else if n > 1 && args.over_ms > 0 {
            ((now - first_due) * (n - 1) / args.over_ms + 1).min(n)
        } else {
            n
        };
        bar.set_message(format!("{due} due by now"));
        if fired >= n || now > last_due_ms + GRACE_MS {
            break;
        }
        if now >= next_store_check_ms {
            next_store_check_ms = now + 1_000;
            let left: Vec<MatchId> =
                ids.iter().filter(|id| !seen.applied.contains_key(id)).copied().collect();
            if left.len() <= UNRECORDED_CHECKED && none_armed(&store, &left).await {
                break;
            }
        }
        if let Some(r) = &mut restart {
            match (r.stopped_ms, r.restarted_ms) {
                (None, _) if now >= r.stop_at_ms => {
                    cluster.stop_clock().await;
                    r.stopped_ms = Some(now_ms());
                    bar.println("the clock stopped");
                }
                (Some(stopped), None) if now >= stopped + DOWN_MS => {
                    cluster.restart_clock().await.map_err(|e| e.to_string())?;
                    r.restarted_ms = Some(now_ms());
                    bar.println("the clock restarted");
                }
                _ => {}
            }
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // The other replica's answers for the last firings (stale, duplicate) land a moment
    // after the first's.
    tokio::time::sleep(Duration::from_millis(1_000)).await;
    let clocks = cluster.clocks();
    seen.pull(&clocks, &index);
    bar.finish_and_clear();
    let waited_ms = now_ms() - started_ms - creation_ms;
    let per_clock: Vec<serde_json::Value> = clocks
        .iter()
        .map(|c| {
            json!({
                "fired": c.stats.fired.load(Ordering::Relaxed),
                "stale": c.stats.stale.load(Ordering::Relaxed),
                "failed": c.stats.failed.load(Ordering::Relaxed),
            })
        })
        .collect();
    let sum = |f: fn(&clock::ClockStats) -> &AtomicU64| {
        clocks.iter().map(|c| f(&c.stats).load(Ordering::Relaxed)).sum::<u64>()
    };
    let (fired_calls, stale, failed) = (sum(|s| &s.fired), sum(|s| &s.stale), sum(|s| &s.failed));
    cluster.shutdown().await;

    let mut lags: Vec<u64> = seen.firings.iter().map(|f| f.lag_ms).collect();
    let mut armed_late: Vec<u64> = seen
        .firings
        .iter()
        .map(|f| f.due_ms.saturating_sub(intended(index[&f.match_id])))
        .collect();
    lags.sort_unstable();
    armed_late.sort_unstable();
    if let Some(path) = &args.deadlines_csv {
        let mut text = String::from("match_id,due_ms,lag_ms\n");
        for f in &seen.firings {
            text.push_str(&format!("{},{},{}\n", f.match_id, f.due_ms, f.lag_ms));
        }
        std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))?;
    }
    let recorded = seen.applied.len() as u64;
    let check = check_store(&store, &ids).await;
    let twice = seen.applied.values().filter(|&&c| c > 1).count() as u64 + check.past_one;
    let mut summary = json!({
        "deadlines": n,
        "over_ms": args.over_ms,
        "clocks": args.clocks.max(1),
        "fired": check.stepped,
        "missed": n - check.stepped,
        "applied_twice": twice,
        "recorded": recorded,
        "unrecorded": check.stepped.saturating_sub(recorded),
        "lag_ms": {
            "p50": pick(&lags, 0.5),
            "p99": pick(&lags, 0.99),
            "p999": pick(&lags, 0.999),
            "max": lags.last().copied().unwrap_or(0),
        },
        "armed_minus_intended_ms": {
            "p50": pick(&armed_late, 0.5),
            "max": armed_late.last().copied().unwrap_or(0),
        },
        "creation_s": creation_ms as f64 / 1000.0,
        "waited_s": waited_ms as f64 / 1000.0,
        "calls": fired_calls + stale + failed,
        "wasted_calls": stale + failed,
        "stale_or_duplicate": stale,
        "failed": failed,
        "per_clock": per_clock,
        "store": check.json,
        "backend": store::description_from_env(),
    });
    if let Some(r) = restart {
        summary["restart"] = restart_summary(&r, &seen.firings);
    }
    Ok(summary)
}

/// The applied firings of this run's matches, read from every clock as they come.
#[derive(Default)]
struct Seen {
    /// How many of each clock's kept firings have been read.
    read: Vec<usize>,
    /// Applied firings per match.
    applied: BTreeMap<MatchId, u64>,
    /// Every applied firing of this run's matches.
    firings: Vec<Firing>,
}

impl Seen {
    /// Reads what the clocks applied since the last call (`clocks` only ever grows).
    fn pull(&mut self, clocks: &[Arc<clock::Clock>], index: &BTreeMap<MatchId, u64>) {
        self.read.resize(clocks.len(), 0);
        for (c, read) in clocks.iter().zip(&mut self.read) {
            let new = c.stats.firings_from(*read);
            *read += new.len();
            for f in new.into_iter().filter(|f| index.contains_key(&f.match_id)) {
                *self.applied.entry(f.match_id).or_default() += 1;
                self.firings.push(f);
            }
        }
    }
}

/// When the clock is to stop, and when it did stop and start again.
struct Restart {
    stop_at_ms: u64,
    stopped_ms: Option<u64>,
    restarted_ms: Option<u64>,
}

/// The restart's catch-up: the deadlines overdue at the restart (due before it, applied
/// after it) and how long after the restart the last of them was applied.
fn restart_summary(r: &Restart, firings: &[Firing]) -> serde_json::Value {
    let (Some(stopped), Some(restarted)) = (r.stopped_ms, r.restarted_ms) else {
        return json!({ "done": false });
    };
    let overdue: Vec<u64> = firings
        .iter()
        .map(|f| (f.due_ms, f.due_ms + f.lag_ms))
        .filter(|&(due, at)| due < restarted && at >= restarted)
        .map(|(_, at)| at - restarted)
        .collect();
    json!({
        "down_ms": restarted - stopped,
        "overdue_at_restart": overdue.len(),
        "last_overdue_fired_after_restart_ms": overdue.iter().max().copied().unwrap_or(0),
    })
}

/// What the store says of every match at the end.
struct StoreCheck {
    /// Matches past version 0: their deadline was applied (nothing else steps them).
    stepped: u64,
    /// Matches past version 1: a second step (none expected: the deadline ends GOPS).
    past_one: u64,
    /// The figures as reported: matches per version, deadlines still armed, read errors.
    json: serde_json::Value,
}

/// Whether none of `ids` has a deadline armed (false if the store cannot say).
async fn none_armed(store: &Arc<dyn FullStore>, ids: &[MatchId]) -> bool {
    let armed: Vec<bool> = futures_util::stream::iter(ids.iter().copied())
        .map(|id| async move { !matches!(store.deadline(id).await, Ok(None)) })
        .buffer_unordered(CHECKING_AT_ONCE)
        .collect()
        .await;
    !armed.contains(&true)
}

/// One match as the store has it at the end.
struct Read {
    version: Option<u64>,
    armed: bool,
    error: bool,
}

/// Reads every match's version and armed deadline from the store.
async fn check_store(store: &Arc<dyn FullStore>, ids: &[MatchId]) -> StoreCheck {
    let read: Vec<Read> = futures_util::stream::iter(ids.iter().copied())
        .map(|id| async move {
            let version = store.last_version(id).await;
            let armed = store.deadline(id).await;
            let error = version.is_err() || armed.is_err();
            Read { version: version.ok().flatten(), armed: armed.ok().flatten().is_some(), error }
        })
        .buffer_unordered(CHECKING_AT_ONCE)
        .collect()
        .await;
    let mut versions: BTreeMap<String, u64> = BTreeMap::new();
    for r in &read {
        let key = r.version.map_or("none".to_string(), |v| v.to_string());
        *versions.entry(key).or_default() += 1;
    }
    let count = |f: fn(&Read) -> bool| read.iter().filter(|r| f(r)).count() as u64;
    StoreCheck {
        stepped: count(|r| r.version.is_some_and(|v| v >= 1)),
        past_one: count(|r| r.version.is_some_and(|v| v > 1)),
        json: json!({
            "versions": versions,
            "still_armed": count(|r| r.armed),
            "read_errors": count(|r| r.error),
        }),
    }
}

/// The `p` quantile of sorted `xs` (nearest rank), 0 when empty.
fn pick(sorted: &[u64], p: f64) -> u64 {
    if sorted.is_empty() {
        return 0;
    }
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}
