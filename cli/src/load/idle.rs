//! `colosseum load --idle N` (issue 17): N GOPS matches made by CreateMatches with a week per
//! move and left waiting; what they cost at rest (this process's memory: the whole cluster
//! and the load; Redis's bytes per match, by key) and what a move on one costs (SubmitMove
//! through the gateway, as clients send it, on random matches no engine holds any more).

use super::bulk::{create_in_calls, tenant_and_players};
use super::{LoadArgs, percentile};
use api::v1;
use client::Client;
use futures_util::StreamExt;
use in_process::{Cluster, EngineCache};
use indicatif::ProgressBar;
use rules_core::{Seat, Seed, Viewer};
use serde_json::json;
use service_kit::time::{instant, now_ms};
use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::time::Duration;
use store::MatchId;

/// The most matches one CreateMatches call takes.
/// The players the matches are spread over (each match seats two different ones), whose
/// sessions the load keeps to move as them.
const PLAYERS: u64 = 200;
/// Matches whose keys are measured one by one.
const SAMPLES: usize = 5;
/// Past the idle time, how long the wait for the engines' sweep (every 10 s) goes on.
const SWEEP_GRACE_MS: u64 = 15_000;
/// Keys per SCAN call.
const SCAN_COUNT: u64 = 10_000;
/// The engines' count of matches rebuilt from their stream (all engines of the process).
const REBUILDS: &str = "colosseum_engine_rebuilds_total";

/// Runs the idle-match benchmark.
///
/// # Errors
/// The cluster cannot start, a setting is bad, or a call fails.
pub async fn run(args: &LoadArgs) -> Result<serde_json::Value, String> {
    let n = args.idle;
    let cache = engine_cache()?;
    // The clock repairs its deadline index (a SCAN of every match's deadline) at its start
    // and every minute: the probe's passes say when they ran, from here.
    let cluster_started = instant();
    let move_time_ms = args.move_time_s.saturating_mul(1000);
    let store = store::open_full_store_from_env().await.map_err(|e| e.to_string())?;
    let cluster = Cluster::start_with(store, "127.0.0.1:0".parse().expect("an address"), cache)
        .await
        .map_err(|e| e.to_string())?;
    let mut redis = Redis::from_env().await?;
    let (p, a, b) = tenant_and_players(&cluster, "idle bench", "idle").await?;
    let players = pool(&cluster, a, b).await?;
    let rss_start = Rss::now();
    let redis_before = match &mut redis {
        Some(r) => Some(r.memory().await?),
        None => None,
    };

    // Creation, in calls of 10,000; only the ids are kept (16 bytes each).
    let started_ms = now_ms();
    let bar = crate::progress::bar(
        n,
        "{spinner} {bar:40} {pos}/{len} matches created ({per_sec}, eta {eta})",
        "matches created",
    );
    let ids = create_in_calls(&p, "idle", n, &bar, |i, _| {
        let [s0, s1] = seated(i);
        v1::MatchSpec {
            game: Some(v1::GameSpec {
                game: "gops".into(),
                options_json: String::new(),
                move_time_ms,
            }),
            seat0_player_id: players[s0].player_id().to_string(),
            seat1_player_id: players[s1].player_id().to_string(),
            start_at_ms: 0,
            label: String::new(),
        }
    })
    .await?;
    let creation_ms = (now_ms() - started_ms).max(1);
    bar.finish_and_clear();
    eprintln!("{n} matches created in {:.1} s", creation_ms as f64 / 1000.0);

    // At rest: once the engines hold nothing (what creation left hot is idle by now), or
    // the idle time and a sweep have passed.
    let hot_after_creation = hot(&cluster);
    let waited_from = now_ms();
    let give_up = waited_from + cache.idle_ms + SWEEP_GRACE_MS;
    let spinner = ProgressBar::new_spinner();
    while hot(&cluster) > 0 && now_ms() < give_up {
        spinner.set_message(format!("{} matches still held by the engines", hot(&cluster)));
        spinner.tick();
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    spinner.finish_and_clear();
    let waited_ms = now_ms() - waited_from;
    let hot_at_rest = hot(&cluster);
    let rss_at_rest = Rss::now();
    let redis_figures = match (&mut redis, redis_before) {
        (Some(r), Some(before)) => Some(r.figures(&ids, before).await?),
        _ => None,
    };

    let probe = probe(args, &ids, &players, cluster_started).await?;
    let hot_after_probe = hot(&cluster);
    let rss_after_probe = Rss::now();
    cluster.shutdown().await;
    Ok(json!({
        "idle_matches": n,
        "game": "gops",
        "move_time_s": args.move_time_s,
        "players": PLAYERS,
        "engine_cache": { "idle_ms": cache.idle_ms, "max_hot": cache.max_hot },
        "creation_s": creation_ms as f64 / 1000.0,
        "created_per_s": (n as f64 * 1000.0 / creation_ms as f64).round(),
        "hot_matches": {
            "after_creation": hot_after_creation,
            "at_rest": hot_at_rest,
            "waited_s": waited_ms as f64 / 1000.0,
            "after_probe": hot_after_probe,
        },
        "process_rss_mb": {
            "note": "the whole in-process cluster and the load client",
            "before_creation": rss_start.json(),
            "at_rest": rss_at_rest.json(),
            "after_probe": rss_after_probe.json(),
        },
        "redis": redis_figures,
        "probe": probe,
        "store": store::description_from_env(),
    }))
}

/// The engines' cache settings: the engine binary's variables (`ENGINE_IDLE_MS`,
/// `ENGINE_MAX_HOT_MATCHES`), with its defaults.
fn engine_cache() -> Result<EngineCache, String> {
    let d = EngineCache::default();
    let idle_ms =
        service_kit::config::number("ENGINE_IDLE_MS", d.idle_ms).map_err(|e| e.to_string())?;
    let max_hot = service_kit::config::number("ENGINE_MAX_HOT_MATCHES", d.max_hot as u64)
        .map_err(|e| e.to_string())?;
    Ok(EngineCache { idle_ms, max_hot: usize::try_from(max_hot).unwrap_or(usize::MAX) })
}

/// The players of match `i`, as indexes into the pool: two different ones, every pair
/// used about as often.
fn seated(i: u64) -> [usize; 2] {
    let a = i % PLAYERS;
    let b = (a + 1 + (i / PLAYERS) % (PLAYERS - 1)) % PLAYERS;
    [a as usize, b as usize]
}

/// [`PLAYERS`] guest sessions (`a` and `b` first), over a few shared connections.
async fn pool(cluster: &Cluster, a: Client, b: Client) -> Result<Vec<Client>, String> {
    let endpoint = tonic::transport::Endpoint::from_shared(cluster.gateway_url())
        .map_err(|e| e.to_string())?;
    let channels: Vec<tonic::transport::Channel> =
        (0..4).map(|_| endpoint.connect_lazy()).collect();
    let mut players = vec![a, b];
    for i in 2..PLAYERS as usize {
        let channel = channels[i % channels.len()].clone();
        let c = Client::guest_on(channel, &format!("idle-{i}")).await.map_err(|e| e.to_string())?;
        players.push(c);
    }
    Ok(players)
}

/// The matches all engines hold now.
fn hot(cluster: &Cluster) -> usize {
    cluster.hot_matches().values().sum()
}

/// SubmitMove on `--probe-moves` different random matches, each a legal first move of a
/// random seat sent as that seat's player, `--probe-rate` a second (0: as fast as
/// `--probe-in-flight` allows): the matches are evicted, so each is rebuilt from its
/// stream. Then, as a control, the other seat's first move on the same matches, the same
/// way: held by the engines now, unless the probe touched more matches than they hold.
async fn probe(
    args: &LoadArgs,
    ids: &[MatchId],
    players: &[Client],
    cluster_started: std::time::Instant,
) -> Result<serde_json::Value, String> {
    let host = games::host::start_text("gops", "", Seed::ZERO).map_err(|e| e.to_string())?;
    let first: [Vec<v1::Move>; 2] =
        Seat::BOTH.map(|s| host.view_proto(Viewer::Seat(s), false).legal);
    let mut rng = bots::BotRng::from_seed(service_kit::time::os_random_32());
    let k = args.probe_moves.min(ids.len() as u64) as usize;
    let mut picked = BTreeSet::new();
    let mut evicted = Vec::with_capacity(k);
    let mut control = Vec::with_capacity(k);
    while evicted.len() < k {
        let i = rng.below(ids.len() as u32) as usize;
        if !picked.insert(i) {
            continue;
        }
        let seat = rng.below(2) as usize;
        let mut bid = |seat: usize| {
            let options = &first[seat];
            options[rng.below(options.len() as u32) as usize].clone()
        };
        let (mv, other) = (bid(seat), bid(1 - seat));
        evicted.push(Move { i, seat, mv });
        control.push(Move { i, seat: 1 - seat, mv: other });
    }
    drop(picked);
    // The control goes newest first: with more probe moves than the engines hold, the ones
    // still held come first, rather than each one evicting the next (LRU under a scan).
    control.reverse();
    let rebuilds = service_kit::metrics::metric(REBUILDS);
    let rebuilds_before = rebuilds.load(Ordering::Relaxed);
    // The first move of a seat is its version 1; the second seat's, after seeing the first
    // seat's, its version 2.
    let on = Pass { args, ids, players, cluster_started };
    let mut summary = on.run("probe moves on evicted matches", evicted, 1).await;
    summary["rebuilt_from_stream"] = json!(rebuilds.load(Ordering::Relaxed) - rebuilds_before);
    let rebuilds_before = rebuilds.load(Ordering::Relaxed);
    let mut hot = on.run("control moves on the same matches", control, 2).await;
    hot["rebuilt_from_stream"] = json!(rebuilds.load(Ordering::Relaxed) - rebuilds_before);
    summary["control_other_seat_same_matches"] = hot;
    Ok(summary)
}

/// One probe move: match `i` of the run, the seat moving, its bid.
struct Move {
    i: usize,
    seat: usize,
    mv: v1::Move,
}

/// What a probe pass sends its moves with.
struct Pass<'a> {
    args: &'a LoadArgs,
    ids: &'a [MatchId],
    players: &'a [Client],
    cluster_started: std::time::Instant,
}

impl Pass<'_> {
    /// Sends `moves` (paced and bounded as `--probe-rate` and `--probe-in-flight` say):
    /// SubmitMove's latency, over the pass and second by second, and whether each was
    /// accepted at `version` of its seat.
    async fn run(&self, what: &'static str, moves: Vec<Move>, version: u64) -> serde_json::Value {
        let k = moves.len();
        let template = format!("{{spinner}} {{bar:40}} {{pos}}/{{len}} {what} ({{per_sec}})");
        let bar = crate::progress::bar(k as u64, &template, what);
        let rate = self.args.probe_rate;
        let in_flight = self.args.probe_in_flight.max(1);
        let started = instant();
        // Per move: when it was sent (ms into the pass), its latency (µs), its answer.
        let answers: Vec<(u64, u64, Result<v1::SubmitMoveResponse, tonic::Status>)> =
            futures_util::stream::iter(moves.into_iter().enumerate())
                .map(|(n, Move { i, seat, mv })| {
                    let player = &self.players[seated(i as u64)[seat]];
                    let id = self.ids[i].to_string();
                    let bar = &bar;
                    async move {
                        if rate > 0 {
                            let at = started + Duration::from_secs_f64(n as f64 / rate as f64);
                            tokio::time::sleep_until(at.into()).await;
                        }
                        let t0 = instant();
                        let key = format!("idle-probe-{i}-{seat}");
                        let r = player.submit(&id, Some(mv), &key).await;
                        bar.inc(1);
                        let sent_ms = t0.duration_since(started).as_millis() as u64;
                        (sent_ms, t0.elapsed().as_micros() as u64, r)
                    }
                })
                .buffer_unordered(in_flight as usize)
                .collect()
                .await;
        let seconds = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let mut latencies = Vec::with_capacity(answers.len());
        let mut by_second: BTreeMap<u64, Vec<u64>> = BTreeMap::new();
        let (mut accepted, mut unexpected) = (0u64, 0u64);
        let mut errors: BTreeMap<String, u64> = BTreeMap::new();
        for (sent_ms, micros, r) in answers {
            match r.map(|r| r.outcome) {
                Ok(Some(v1::submit_move_response::Outcome::Accepted(a)))
                    if a.version == version =>
                {
                    accepted += 1;
                    latencies.push(micros);
                    by_second.entry(sent_ms / 1000).or_default().push(micros);
                }
                Ok(_) => unexpected += 1,
                Err(s) => {
                    let what =
                        format!("{:?}: {}", s.code(), service_kit::status::clip(s.message()));
                    *errors.entry(what).or_default() += 1;
                }
            }
        }
        latencies.sort_unstable();
        let by_second: Vec<serde_json::Value> = by_second
            .into_iter()
            .map(|(second, mut l)| {
                l.sort_unstable();
                json!([second, l.len(), percentile(&l, 0.5), percentile(&l, 0.99)])
            })
            .collect();
        let since_start = started.duration_since(self.cluster_started).as_secs_f64();
        json!({
            "moves": k,
            "in_flight": in_flight,
            "rate_per_s": rate,
            "started_s_after_cluster_start": (since_start * 10.0).round() / 10.0,
            "accepted_at_expected_version": accepted,
            "expected_version": version,
            "other_answers": unexpected,
            "errors": errors.values().sum::<u64>(),
            "error_kinds": errors,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "p50_ms": percentile(&latencies, 0.50),
            "p99_ms": percentile(&latencies, 0.99),
            "max_ms": latencies.last().map_or(0.0, |&m| m as f64 / 1000.0),
            "by_second": { "columns": ["second", "moves", "p50_ms", "p99_ms"], "rows": by_second },
        })
    }
}

/// The process's resident memory now (Linux: `/proc/self/status`), kB; zero elsewhere.
struct Rss {
    vm_rss_kb: u64,
    vm_hwm_kb: u64,
}

impl Rss {
    fn now() -> Rss {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let field = |name: &str| {
            status
                .lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
                .unwrap_or(0)
        };
        Rss { vm_rss_kb: field("VmRSS:"), vm_hwm_kb: field("VmHWM:") }
    }

    fn json(&self) -> serde_json::Value {
        let mb = |kb: u64| (kb as f64 / 1024.0 * 10.0).round() / 10.0;
        json!({ "vm_rss": mb(self.vm_rss_kb), "vm_hwm": mb(self.vm_hwm_kb) })
    }
}

/// Redis's memory as `INFO memory` and `DBSIZE` give it.
#[derive(Clone, Copy)]
struct Memory {
    used: u64,
    dataset: u64,
    rss: u64,
    keys: u64,
}

/// The Redis at `REDIS_URL`, asked about its memory the way `redis-cli` would.
struct Redis {
    conn: redis::aio::MultiplexedConnection,
}

impl Redis {
    /// A connection to `REDIS_URL`; none when it is unset (the in-memory store, or a
    /// Redis Cluster or Sentinel deployment, whose memory is not measured here).
    async fn from_env() -> Result<Option<Redis>, String> {
        let Some(url) = service_kit::config::optional("REDIS_URL") else { return Ok(None) };
        if service_kit::config::optional("REDIS_CLUSTER_URLS").is_some()
            || service_kit::config::optional("REDIS_SENTINEL_URLS").is_some()
        {
            return Ok(None);
        }
        let client = redis::Client::open(url.as_str()).map_err(|e| e.to_string())?;
        // `MEMORY USAGE .. SAMPLES 0` of the shared keys (a million entries each) reads them
        // whole, beside the clock's index repair: seconds, not the client's default.
        let config = redis::AsyncConnectionConfig::new()
            .set_response_timeout(Some(Duration::from_secs(120)));
        let conn = client
            .get_multiplexed_async_connection_with_config(&config)
            .await
            .map_err(|e| e.to_string())?;
        Ok(Some(Redis { conn }))
    }

    async fn query<T: redis::FromRedisValue>(&mut self, cmd: &redis::Cmd) -> Result<T, String> {
        cmd.query_async(&mut self.conn).await.map_err(|e| e.to_string())
    }

    async fn memory(&mut self) -> Result<Memory, String> {
        let info: String = self.query(redis::cmd("INFO").arg("memory")).await?;
        let field = |name: &str| {
            info.lines()
                .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
                .and_then(|v| v.trim().parse().ok())
                .unwrap_or(0)
        };
        let keys: u64 = self.query(&redis::cmd("DBSIZE")).await?;
        Ok(Memory {
            used: field("used_memory"),
            dataset: field("used_memory_dataset"),
            rss: field("used_memory_rss"),
            keys,
        })
    }

    /// `MEMORY USAGE` of `key`, every element counted (`SAMPLES 0`); 0 if it is absent.
    async fn usage(&mut self, key: &str) -> Result<u64, String> {
        let bytes: Option<u64> =
            self.query(redis::cmd("MEMORY").arg("USAGE").arg(key).arg("SAMPLES").arg(0)).await?;
        Ok(bytes.unwrap_or(0))
    }

    /// Every key matching `pattern` (a SCAN through the whole key space).
    async fn scan(&mut self, pattern: &str) -> Result<Vec<String>, String> {
        let mut cursor = 0u64;
        let mut found = Vec::new();
        loop {
            let mut cmd = redis::cmd("SCAN");
            cmd.arg(cursor).arg("MATCH").arg(pattern).arg("COUNT").arg(SCAN_COUNT);
            let (next, keys): (u64, Vec<String>) = self.query(&cmd).await?;
            found.extend(keys);
            if next == 0 {
                return Ok(found);
            }
            cursor = next;
        }
    }

    /// What the matches cost Redis: the growth of its memory since `before`, per match;
    /// each kind of key of a few sample matches (found by a SCAN for the first one's keys);
    /// and the keys the matches share (the platform's records, the deadline index).
    async fn figures(
        &mut self,
        ids: &[MatchId],
        before: Memory,
    ) -> Result<serde_json::Value, String> {
        let after = self.memory().await?;
        let n = ids.len().max(1) as f64;
        let per = |a: u64, b: u64| (a.saturating_sub(b) as f64 / n).round();
        let step = (ids.len() / SAMPLES).max(1);
        let samples: Vec<MatchId> = ids.iter().step_by(step).take(SAMPLES).copied().collect();
        let mut kinds: BTreeMap<String, (String, Vec<u64>)> = BTreeMap::new();
        if let Some(first) = samples.first() {
            let prefix = format!("colosseum:{{{first}}}:");
            let mut suffixes: Vec<String> = self
                .scan(&format!("{prefix}*"))
                .await?
                .iter()
                .filter_map(|k| k.strip_prefix(&prefix).map(str::to_string))
                .collect();
            suffixes.sort();
            for suffix in suffixes {
                let kind: String =
                    self.query(redis::cmd("TYPE").arg(format!("{prefix}{suffix}"))).await?;
                let mut sizes = Vec::new();
                for id in &samples {
                    sizes.push(self.usage(&format!("colosseum:{{{id}}}:{suffix}")).await?);
                }
                kinds.insert(suffix, (kind, sizes));
            }
        }
        let per_match_keys: BTreeMap<&String, serde_json::Value> = kinds
            .iter()
            .map(|(suffix, (kind, sizes))| {
                let mean = sizes.iter().sum::<u64>() as f64 / sizes.len().max(1) as f64;
                let min = sizes.iter().min().copied().unwrap_or(0);
                let max = sizes.iter().max().copied().unwrap_or(0);
                (
                    suffix,
                    json!({ "type": kind, "bytes_mean": mean.round(), "min": min, "max": max }),
                )
            })
            .collect();
        let per_match_total: f64 =
            kinds.values().map(|(_, s)| s.iter().sum::<u64>() as f64 / s.len().max(1) as f64).sum();
        // The shared keys, by kind (the name's part after the platform prefix).
        let mut shared: BTreeMap<String, (u64, u64)> = BTreeMap::new();
        let mut names =
            self.scan(&format!("{}*", store::redis_store::keys::PLATFORM_PREFIX)).await?;
        names.push(store::redis_store::keys::DEADLINES.to_string());
        for key in names {
            let kind = match key.strip_prefix(store::redis_store::keys::PLATFORM_PREFIX) {
                Some(rest) => format!("platform:{}", rest.split(':').next().unwrap_or(rest)),
                None => key.strip_prefix("colosseum:").unwrap_or(&key).to_string(),
            };
            let bytes = self.usage(&key).await?;
            let e = shared.entry(kind).or_default();
            e.0 += 1;
            e.1 += bytes;
        }
        let shared: BTreeMap<String, serde_json::Value> = shared
            .into_iter()
            .map(|(kind, (keys, bytes))| {
                let per_match = (bytes as f64 / n).round();
                (kind, json!({ "keys": keys, "bytes": bytes, "bytes_per_match": per_match }))
            })
            .collect();
        Ok(json!({
            "used_memory_before": before.used,
            "used_memory_after": after.used,
            "used_memory_rss_after": after.rss,
            "bytes_per_match": per(after.used, before.used),
            "dataset_bytes_per_match": per(after.dataset, before.dataset),
            "keys_per_match": (after.keys.saturating_sub(before.keys) as f64 / n * 100.0).round() / 100.0,
            "per_match_keys": per_match_keys,
            "per_match_keys_bytes": per_match_total.round(),
            "sample_matches": samples.len(),
            "shared_keys": shared,
        }))
    }
}
