//! VerifyRecord: a posted record replayed under the rules (`games::Record::verify`, what
//! `colosseum verify` runs), off the async threads and a few at a time, its first
//! difference told in bounded words that quote the record only in part.

use crate::error::Error;
use api::v1;
use api_convert::{FieldError, bad};
use games::record::{Mismatch, Record};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::Semaphore;

/// The most steps a record may hold (the longest match of any game is far shorter).
pub const MAX_STEPS: usize = 10_000;
/// The most events a record may hold.
pub const MAX_EVENTS: usize = 100_000;
/// Records replayed at once per gateway: the call needs no session, so it must not take
/// every core.
const AT_ONCE: usize = 2;
/// How long a call waits for its turn before answering UNAVAILABLE (retry).
const WAIT: Duration = Duration::from_secs(5);
/// The longest `difference`, in bytes.
pub const MAX_DIFFERENCE_BYTES: usize = 512;
/// The most characters of one value (a field's, a path, a message) quoted.
const QUOTED_CHARS: usize = 100;

/// The gateway's verifier: a few replays at a time.
#[derive(Clone)]
pub struct Verifier {
    turns: Arc<Semaphore>,
}

impl Default for Verifier {
    fn default() -> Self {
        Verifier { turns: Arc::new(Semaphore::new(AT_ONCE)) }
    }
}

impl Verifier {
    /// Checks `record` (JSON bytes).
    ///
    /// # Errors
    /// Not a record, or over the bounds: INVALID_ARGUMENT naming `record`; too many at
    /// once: [`Error::VerifierBusy`].
    pub async fn verify(&self, record: Vec<u8>) -> Result<v1::VerifyRecordResponse, Error> {
        let turn = tokio::time::timeout(WAIT, self.turns.clone().acquire_owned()).await;
        let Ok(Ok(turn)) = turn else { return Err(Error::VerifierBusy) };
        let answer = tokio::task::spawn_blocking(move || {
            let _turn = turn;
            check(&record)
        })
        .await
        .map_err(|_| Error::BadEngineAnswer("the record's replay stopped"))?;
        Ok(answer?)
    }
}

/// The answer for `bytes`: parsed, bounded, replayed.
fn check(bytes: &[u8]) -> Result<v1::VerifyRecordResponse, FieldError> {
    if bytes.is_empty() {
        return Err(bad("record", "record is required: the JSON GetMatchRecord answers".into()));
    }
    let text =
        std::str::from_utf8(bytes).map_err(|_| bad("record", "record is not UTF-8".into()))?;
    // `difference` of a parse error already says "not a match record: ...".
    let record = Record::parse(text)
        .map_err(|m| bad("record", truncate(format!("record is {}", difference(&m)))))?;
    api_convert::text::at_most("record", record.steps.len(), MAX_STEPS, "steps")?;
    api_convert::text::at_most("record", record.events.len(), MAX_EVENTS, "events")?;
    let total = u32::try_from(record.steps.len()).unwrap_or(u32::MAX);
    Ok(match record.verify() {
        Ok(v) => v1::VerifyRecordResponse {
            valid: true,
            difference: String::new(),
            game: v.game,
            steps: total,
            result: Some(v1::Outcome {
                winner: v.result.winner.map(wire::seat_u32),
                reason: wire::reason(&v.result),
                seed: record.seed.map(|s| s.to_hex()).unwrap_or_default(),
            }),
        },
        Err(m) => v1::VerifyRecordResponse {
            valid: false,
            difference: truncate(difference(&m)),
            game: known_game(&record.game),
            steps: replayed(&m, total),
            result: None,
        },
    })
}

/// The record's game as the registry names it, or empty for a name no game has (so a
/// client can show it as it is, and nothing of the record's own text is echoed).
fn known_game(name: &str) -> String {
    games::GAMES.iter().find(|g| g.name == name).map(|g| g.name.to_string()).unwrap_or_default()
}

/// How many steps were replayed before `m` was found.
fn replayed(m: &Mismatch, total: u32) -> u32 {
    match m {
        Mismatch::BadStep { step, .. } | Mismatch::Refused { step, .. } => {
            u32::try_from(step.saturating_sub(1)).unwrap_or(u32::MAX)
        }
        Mismatch::Event { .. } | Mismatch::Result { .. } => total,
        Mismatch::Format(_) | Mismatch::Unfinished | Mismatch::Commitment { .. } => 0,
        Mismatch::Setup(_) => 0,
    }
}

/// The first difference in plain words; every value that comes from the record (or from
/// a replay of it) quoted in part.
fn difference(m: &Mismatch) -> String {
    match m {
        Mismatch::Format(what) => format!("not a match record: {}", clipped(what)),
        // Fixed words, or hex digests of fixed length.
        Mismatch::Unfinished | Mismatch::Commitment { .. } => m.to_string(),
        Mismatch::Setup(e) => format!("the match does not start: {}", clipped(&e.to_string())),
        Mismatch::BadStep { step, problem } => {
            format!("step {step} is not a step: {}", clipped(problem))
        }
        Mismatch::Refused { step, error } => {
            format!("step {step} is refused by the rules: {}", clipped(&error.to_string()))
        }
        Mismatch::Event { index, recorded, replayed } => match (recorded, replayed) {
            (Some(rec), Some(rep)) => {
                let (path, rec, rep) = first_difference(rec, rep, String::new());
                let at = if path.is_empty() { String::new() } else { format!(" at {path}") };
                format!(
                    "event {index} differs{at}: the record has {}, the replay gives {}",
                    shown(rec),
                    shown(rep)
                )
            }
            (rec, rep) => format!(
                "event {index} differs: the record has {}, the replay gives {}",
                shown(rec.as_ref()),
                shown(rep.as_ref())
            ),
        },
        Mismatch::Result { recorded, replayed } => {
            let json = |o| serde_json::to_value(o).unwrap_or(Value::Null);
            let (recorded, replayed) = (json(recorded), json(replayed));
            let (path, rec, rep) = first_difference(&recorded, &replayed, "result".into());
            format!(
                "the result differs at {path}: the record has {}, the replay gives {}",
                shown(rec),
                shown(rep)
            )
        }
    }
}

/// The first place two JSON values differ: its path (`event.bids[1]`) and each side there
/// (`None`: that side has nothing there).
fn first_difference<'a>(
    a: &'a Value,
    b: &'a Value,
    path: String,
) -> (String, Option<&'a Value>, Option<&'a Value>) {
    match (a, b) {
        (Value::Object(x), Value::Object(y)) => {
            let mut keys: Vec<&String> = x.keys().chain(y.keys()).collect();
            keys.sort();
            keys.dedup();
            for k in keys {
                let here = join(&path, &clipped_key(k));
                match (x.get(k), y.get(k)) {
                    (Some(p), Some(q)) if p == q => {}
                    (Some(p), Some(q)) => return first_difference(p, q, here),
                    (p, q) => return (here, p, q),
                }
            }
            (path, Some(a), Some(b))
        }
        (Value::Array(x), Value::Array(y)) => {
            for i in 0..x.len().max(y.len()) {
                let here = format!("{path}[{i}]");
                match (x.get(i), y.get(i)) {
                    (Some(p), Some(q)) if p == q => {}
                    (Some(p), Some(q)) => return first_difference(p, q, here),
                    (p, q) => return (here, p, q),
                }
            }
            (path, Some(a), Some(b))
        }
        _ => (path, Some(a), Some(b)),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() { key.to_string() } else { format!("{path}.{key}") }
}

/// A key of the record, as a path part: quoted in part.
fn clipped_key(k: &str) -> String {
    if k.chars().count() <= 32 && k.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        k.to_string()
    } else {
        clipped(k)
    }
}

/// A JSON value, quoted in part; `nothing` for none.
fn shown(v: Option<&Value>) -> String {
    v.map_or_else(|| "nothing".to_string(), |v| cut(&v.to_string()))
}

/// Text from the record, quoted in part, as a JSON string.
fn clipped(s: &str) -> String {
    cut(&Value::String(s.to_string()).to_string())
}

/// At most [`QUOTED_CHARS`] characters of `s`, marked when cut.
fn cut(s: &str) -> String {
    match s.char_indices().nth(QUOTED_CHARS) {
        None => s.to_string(),
        Some((end, _)) => format!("{}... ({} bytes)", &s[..end], s.len()),
    }
}

/// `s` within [`MAX_DIFFERENCE_BYTES`], cut at a character boundary.
fn truncate(mut s: String) -> String {
    if s.len() > MAX_DIFFERENCE_BYTES {
        let mut end = MAX_DIFFERENCE_BYTES - 3;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A finished 3-card GOPS record, played here by the host.
    fn finished_record() -> Record {
        let seed = rules_core::Seed::from_array([7; 32]);
        let options = serde_json::json!({"cards": 3});
        let mut m = games::host::start("gops", &options, seed).expect("starts");
        let mut steps = 0;
        while m.outcome().is_none() {
            for seat in [0, 1] {
                let step = serde_json::json!({"seat": seat, "move": {"card": (steps / 2) + 1}});
                let step = games::parse::parse_step(&step).expect("a step");
                m.step(&step).expect("legal");
                steps += 1;
            }
        }
        Record::of(&*m)
    }

    fn as_bytes(r: &Record) -> Vec<u8> {
        serde_json::to_vec(r).expect("json")
    }

    #[test]
    fn a_true_record_is_valid_and_a_tampered_one_names_its_first_difference() {
        let record = finished_record();
        let ok = check(&as_bytes(&record)).expect("an answer");
        assert!(ok.valid, "{ok:?}");
        assert_eq!((ok.game.as_str(), ok.steps), ("gops", 6));
        let mut tampered = record.clone();
        let last = tampered.events.len() - 2;
        // Every field of one event made a long string: the first (by name) differs.
        let Value::Object(fields) = &mut tampered.events[last].event else { panic!("an object") };
        for v in fields.values_mut() {
            *v = Value::String("x".repeat(10_000));
        }
        let bad = check(&as_bytes(&tampered)).expect("an answer");
        assert!(!bad.valid);
        assert!(bad.difference.starts_with(&format!("event {} differs", last + 1)), "{bad:?}");
        assert!(bad.difference.len() <= MAX_DIFFERENCE_BYTES, "{}", bad.difference.len());
        assert!(bad.difference.contains("bytes)"), "the long value is cut: {}", bad.difference);
        assert_eq!(bad.game, "gops", "a tampered record's game is named as it is");
        let mut unknown = record.clone();
        unknown.game = "x".repeat(1000);
        let bad = check(&as_bytes(&unknown)).expect("an answer");
        assert!(!bad.valid && bad.game.is_empty(), "an unknown game is not echoed: {bad:?}");
    }

    #[test]
    fn what_is_not_a_record_names_the_field() {
        let long = format!("{{\"format\": \"{}\"}}", "y".repeat(100_000));
        for input in [b"".to_vec(), vec![0xff, 0xfe], b"{}".to_vec(), long.into_bytes()] {
            let e = check(&input).expect_err("refused");
            assert!(matches!(&e, FieldError::Bad { field, .. } if field == "record"), "{e:?}");
            assert!(e.to_string().len() <= MAX_DIFFERENCE_BYTES, "{e}");
        }
        let e = check(b"not json").expect_err("refused").to_string();
        assert_eq!(e.matches("not a match record").count(), 1, "said once: {e}");
        let mut many = finished_record();
        many.steps = vec![Value::Null; MAX_STEPS + 1];
        let e = check(&as_bytes(&many)).expect_err("refused");
        assert!(e.to_string().contains("at most 10000 steps"), "{e}");
    }

    #[test]
    fn paths_point_into_the_values() {
        let a = serde_json::json!({"kind": "revealed", "bids": [1, 2], "z": 0});
        let b = serde_json::json!({"kind": "revealed", "bids": [1, 3], "z": 0});
        let (path, x, y) = first_difference(&a, &b, "event".into());
        assert_eq!((path.as_str(), x, y), ("event.bids[1]", Some(&2.into()), Some(&3.into())));
    }
}
