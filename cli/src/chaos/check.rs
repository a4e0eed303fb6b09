//! The chaos trial's verdict on each match, read directly from Redis through the events
//! crate and cross-checked through the gateway: acknowledged moves lost or duplicated,
//! matches stuck, and matches or records the cluster cannot load or that do not verify;
//! and of a match against a built-in bot, whether it finished and how.

use super::load::{Ack, Tracked, code_name};
use api::v1;
use client::Client;
use prost::Message;
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use store::{Entry, EventStore, MatchId};
use tonic::Code;

/// One thing found wrong with one match.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Finding {
    /// The match.
    pub match_id: String,
    /// Its game.
    pub game: &'static str,
    /// `lost`, `duplicated`, `stuck`, `unloadable` or `bot_unfinished`.
    pub kind: &'static str,
    /// What exactly, in words (bounded: never echoes stored text beyond a short prefix).
    pub detail: String,
}

/// The verdict on one match.
#[derive(Debug, Default)]
pub struct Verdict {
    /// The stream ends with the match's end.
    pub finished: bool,
    /// Both seats were taken (the clock runs only then).
    pub seated: bool,
    /// Distinct (seat, key) acknowledged.
    pub acked: u64,
    /// Acknowledged moves absent from the stream, or present at another version.
    pub lost: u64,
    /// Extra copies: a key stored more than once.
    pub duplicated: u64,
    /// Neither finished nor progressing.
    pub stuck: bool,
    /// The stream does not replay, or the gateway cannot serve the match or its record, or
    /// the record does not verify or differs from the stream.
    pub unloadable: bool,
    /// A match against a built-in bot (its seat) that did not finish.
    pub bot_unfinished: bool,
    /// The built-in bot's seat, in a match against one.
    pub bot_seat: Option<u32>,
    /// The match.
    pub match_id: String,
    /// Its game.
    pub game: &'static str,
    /// How it ended, by the replay of its stream.
    pub outcome: Option<rules_core::Outcome>,
    /// When its last entry (the end, if it ended) was appended, wall ms.
    pub last_at_ms: Option<u64>,
    /// Its per-move time, ms.
    pub move_time_ms: u64,
    /// What was found.
    pub findings: Vec<Finding>,
}

/// At most `n` characters of `s` (a message from a service or the rules).
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        s.chars().take(n).collect::<String>() + "..."
    }
}

impl Verdict {
    fn note(&mut self, id: &str, game: &'static str, kind: &'static str, detail: String) {
        match kind {
            "lost" => self.lost += 1,
            "duplicated" => self.duplicated += 1,
            "stuck" => self.stuck = true,
            "bot_unfinished" => self.bot_unfinished = true,
            _ => self.unloadable = true,
        }
        self.findings.push(Finding { match_id: id.to_string(), game, kind, detail });
    }
}

/// Every entry of the match's stream, from version 0.
async fn read_all(store: &dyn EventStore, id: MatchId) -> Result<Vec<Entry>, store::StoreError> {
    let mut all: Vec<Entry> = Vec::new();
    loop {
        let from = all.last().map_or(0, |e| e.version + 1);
        let batch = store.read(id, from, 512).await?;
        if batch.is_empty() {
            return Ok(all);
        }
        all.extend(batch);
    }
}

/// Whether an entry's events include the match's end.
fn ends_match(e: &Entry) -> bool {
    e.events.iter().any(|ev| {
        matches!(
            v1::Event::decode(ev.payload.as_slice()).map(|d| d.kind),
            Ok(Some(v1::event::Kind::MatchEnded(_)))
        )
    })
}

/// A gateway call retried while the gateway is briefly unavailable.
async fn call<T, F, Fut>(mut f: F) -> Result<T, tonic::Status>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<T, tonic::Status>>,
{
    let mut last = tonic::Status::unavailable("not tried");
    for attempt in 0..10u64 {
        match tokio::time::timeout(Duration::from_secs(10), f()).await {
            Ok(Ok(v)) => return Ok(v),
            Ok(Err(s)) if matches!(s.code(), Code::Unavailable | Code::Unknown | Code::Aborted) => {
                last = s
            }
            Ok(Err(s)) => return Err(s),
            Err(_) => last = tonic::Status::deadline_exceeded("client timeout"),
        }
        tokio::time::sleep(Duration::from_millis(100 * (attempt + 1))).await;
    }
    Err(last)
}

/// The first field where two records differ, in words.
fn record_difference(got: &games::Record, stream: &games::Record) -> Option<String> {
    if got.game != stream.game || got.options != stream.options {
        return Some("game or options".into());
    }
    if got.commitment != stream.commitment || got.seed != stream.seed {
        return Some("seed or commitment".into());
    }
    if got.steps != stream.steps {
        let i = got.steps.iter().zip(&stream.steps).take_while(|(a, b)| a == b).count();
        return Some(format!(
            "steps: the record has {}, the stream {}; first difference at step {}",
            got.steps.len(),
            stream.steps.len(),
            i + 1
        ));
    }
    if got.events != stream.events {
        return Some(format!(
            "events: the record has {}, the stream's replay {}",
            got.events.len(),
            stream.events.len()
        ));
    }
    if got.result != stream.result {
        return Some("result".into());
    }
    None
}

/// Checks one match: `acks` are the acknowledgements its clients received, `client` a
/// session of the checker (a spectator), `now_ms` the wall clock at the check.
pub async fn check(
    store: &dyn store::HostStore,
    client: &Client,
    id_text: &str,
    tracked: &Tracked,
    acks: &[Ack],
    now_ms: u64,
) -> Verdict {
    let game = tracked.game;
    let mut v = Verdict {
        game,
        bot_seat: tracked.bot_seat,
        match_id: id_text.to_string(),
        ..Verdict::default()
    };
    let mut pairs: BTreeMap<(u32, &str), BTreeSet<u64>> = BTreeMap::new();
    for a in acks {
        pairs.entry((a.seat, a.key.as_str())).or_default().insert(a.version);
    }
    v.acked = pairs.len() as u64;
    let Ok(id) = id_text.parse::<MatchId>() else {
        v.note(id_text, game, "unloadable", "not a match id".into());
        return v;
    };
    let meta = match store.meta(id).await {
        Ok(Some(m)) => m,
        Ok(None) => {
            for ((seat, key), versions) in &pairs {
                for ver in versions {
                    v.note(id_text, game, "lost", format!("seat {seat} key {key} acked at version {ver}: the match is not in Redis"));
                }
            }
            return v;
        }
        Err(e) => {
            v.note(id_text, game, "unloadable", format!("meta: {}", short(&e.to_string(), 160)));
            return v;
        }
    };
    v.seated = meta.all_seated();
    v.move_time_ms = meta.move_time_ms;
    let entries = match read_all(store, id).await {
        Ok(e) => e,
        Err(e) => {
            v.note(id_text, game, "unloadable", format!("stream: {}", short(&e.to_string(), 160)));
            return v;
        }
    };
    // Keys: each stored once. Versions as the public API numbers them for the key's seat
    // (each viewer counts only the entries it can see), which is what was acknowledged.
    let mut stored: BTreeMap<&str, Vec<u64>> = BTreeMap::new();
    let mut seen = store::ViewerVersions::default();
    for e in &entries {
        seen = seen.after(e);
        if let Some(k) = &e.idempotency_key {
            let seat =
                k.strip_prefix("seat1:").map_or(rules_core::Seat::ZERO, |_| rules_core::Seat::ONE);
            stored.entry(k.as_str()).or_default().push(seen.of(rules_core::Viewer::Seat(seat)));
        }
    }
    // The spectators' numbering of the last entry (what GetView shows an outsider).
    let spectators_last = seen.of(rules_core::Viewer::Spectator);
    for (k, versions) in &stored {
        for extra in versions.iter().skip(1) {
            v.note(
                id_text,
                game,
                "duplicated",
                format!("key {} stored at versions {} and {extra}", short(k, 80), versions[0]),
            );
        }
    }
    // Acks: each in the stream, once, at the version acknowledged.
    for ((seat, key), versions) in &pairs {
        let full = format!("seat{seat}:{key}");
        for &ver in versions {
            match stored.get(full.as_str()) {
                None => v.note(
                    id_text,
                    game,
                    "lost",
                    format!("{full} acked at version {ver}: not in the stream"),
                ),
                Some(at) if !at.contains(&ver) => v.note(
                    id_text,
                    game,
                    "lost",
                    format!(
                        "{full} acked at version {ver}: the stream has it at version {}",
                        at[0]
                    ),
                ),
                Some(_) => {}
            }
        }
    }
    // Versions dense from 0.
    if let Some((i, e)) = entries.iter().enumerate().find(|(i, e)| e.version != *i as u64) {
        v.note(id_text, game, "unloadable", format!("entry {i} has version {}", e.version));
    }
    let last = entries.last();
    v.finished = last.is_some_and(ends_match);
    v.last_at_ms = last.map(|e| e.at_ms);
    // The stream replays through the rules, from the seed (the checker, like the rules
    // engine, reads the match's secret).
    let replayed = match store.match_secret(id).await {
        Ok(Some(secret)) => replay(&meta, &secret, &entries),
        Ok(None) => Err("the match has no stored seed".to_string()),
        Err(e) => Err(format!("the stored seed: {}", short(&e.to_string(), 160))),
    };
    let replayed = match replayed {
        Ok(m) => {
            v.outcome = m.outcome();
            if m.outcome().is_some() != v.finished {
                v.note(
                    id_text,
                    game,
                    "unloadable",
                    format!(
                        "the stream {} the match but its replay {}",
                        if v.finished { "ends" } else { "does not end" },
                        if v.finished { "does not" } else { "does" },
                    ),
                );
            }
            Some(m)
        }
        Err(e) => {
            v.note(
                id_text,
                game,
                "unloadable",
                format!("the stream does not replay: {}", short(&e, 200)),
            );
            None
        }
    };
    // The gateway serves the match.
    let view = call(|| client.view(id_text)).await;
    let last_version = spectators_last;
    match &view {
        Ok(r) => {
            if v.finished && (r.version != last_version || r.outcome.is_none()) {
                v.note(id_text, game, "unloadable", format!(
                    "GetView shows version {} {}, the stream ends the match at version {last_version}",
                    r.version,
                    if r.outcome.is_some() { "over" } else { "still running" }
                ));
            } else if !v.finished && r.version < last_version {
                v.note(
                    id_text,
                    game,
                    "unloadable",
                    format!(
                        "GetView shows version {}, behind the stream's {last_version}",
                        r.version
                    ),
                );
            }
        }
        Err(s) if s.code() == Code::Internal => v.note(
            id_text,
            game,
            "unloadable",
            format!("GetView: INTERNAL: {}", short(s.message(), 160)),
        ),
        Err(s) => v.note(
            id_text,
            game,
            "unloadable",
            format!("GetView: {}: {}", code_name(s.code()), short(s.message(), 160)),
        ),
    }
    // A finished match's record verifies and is the stream's.
    if v.finished {
        let rec = call(|| client.record(id_text)).await;
        match rec {
            Err(s) => v.note(
                id_text,
                game,
                "unloadable",
                format!("GetMatchRecord: {}: {}", code_name(s.code()), short(s.message(), 160)),
            ),
            Ok(json) => match games::Record::parse(&json) {
                Err(e) => v.note(
                    id_text,
                    game,
                    "unloadable",
                    format!("the record does not parse: {}", short(&e.to_string(), 160)),
                ),
                Ok(record) => {
                    if let Err(e) = record.verify() {
                        v.note(
                            id_text,
                            game,
                            "unloadable",
                            format!("the record does not verify: {}", short(&e.to_string(), 200)),
                        );
                    }
                    if let Some(m) = &replayed
                        && let Some(d) = record_difference(&record, &games::Record::of(m.as_ref()))
                    {
                        v.note(
                            id_text,
                            game,
                            "unloadable",
                            format!("the record differs from the stream: {d}"),
                        );
                    }
                }
            },
        }
    }
    // Not finished: progressing, or waiting on an armed deadline that is not overdue.
    if !v.finished && v.seated {
        let age = now_ms.saturating_sub(last.map_or(meta.created_at_ms, |e| e.at_ms));
        if age > 3 * meta.move_time_ms {
            match store.deadline(id).await {
                Ok(None) => v.note(id_text, game, "stuck", format!(
                    "not finished, last entry (version {last_version}) {age} ms ago, no deadline armed"
                )),
                Ok(Some(d)) if d.due_ms + meta.move_time_ms < now_ms => v.note(id_text, game, "stuck", format!(
                    "not finished, last entry (version {last_version}) {age} ms ago, deadline (fence {}) overdue by {} ms",
                    d.fence_version,
                    now_ms - d.due_ms
                )),
                Ok(Some(_)) => {}
                Err(e) => v.note(id_text, game, "unloadable", format!("deadline: {}", short(&e.to_string(), 160))),
            }
        }
    }
    // A match against a bot is played to its end by both sides: it must have finished.
    if let Some(bot_seat) = v.bot_seat
        && !v.finished
    {
        let age = now_ms.saturating_sub(last.map_or(meta.created_at_ms, |e| e.at_ms));
        v.note(
            id_text,
            game,
            "bot_unfinished",
            format!(
                "against the bot (seat {bot_seat}): not finished, {} seated, last entry (version {last_version}) {age} ms ago",
                if v.seated { "both" } else { "not both" }
            ),
        );
    }
    v
}

/// The match replayed from the stream's steps, from its meta and seed.
fn replay(
    meta: &store::MatchMeta,
    secret: &store::MatchSecret,
    entries: &[Entry],
) -> Result<Box<dyn games::Host>, String> {
    let seed =
        rules_core::Seed::parse(&secret.seed_hex).map_err(|e| format!("the stored seed: {e}"))?;
    let options: serde_json::Value =
        serde_json::from_str(&meta.options_json).map_err(|e| format!("the stored options: {e}"))?;
    let mut m = games::start(&meta.game, &options, seed).map_err(|e| e.to_string())?;
    for e in entries.iter().filter(|e| e.version > 0) {
        let raw: serde_json::Value = serde_json::from_str(&e.step_json)
            .map_err(|err| format!("version {}: not JSON: {err}", e.version))?;
        let step = games::parse::parse_step(&raw)
            .map_err(|err| format!("version {}: {err}", e.version))?;
        m.step(&step).map_err(|err| format!("version {} refused: {err}", e.version))?;
    }
    Ok(m)
}
