//! How records become Redis values and back. Only the Redis store uses these, but they
//! are pure functions, tested here without a server.
//!
//! A stream entry (one [`Entry`]) has these fields, in this order; optional ones are
//! omitted when `None`:
//!
//! | field | value |
//! | --- | --- |
//! | `step` | `step_json` |
//! | `at` | `at_ms`, decimal |
//! | `ev` | the events, see below |
//! | `idem` | the idempotency key (optional) |
//! | `tp` | the traceparent (optional) |
//! | `tag` | the entry's random tag, decimal (omitted when 0) |
//!
//! The version is not a field: it is the entry id (`<version>-1`, see [`crate::redis_store::keys`]).
//! The views are not in the stream: the match's `views` hash holds the latest version's
//! alone (entries written before that carry a `vw` field, now skipped).
//!
//! `ev` is binary: a format byte (`1`), then for each event an audience byte (`0` public,
//! `1` seat 0, `2` seat 1), the payload's length as a big-endian `u32`, and the payload.
//! One field for all events keeps an entry's field count fixed and the decoding trivial.
//!
//! A seat holder is a string: `open`, `player:<uuid>`, `reserved:<uuid>` or `bot:<name>`;
//! the claim script compares these strings, so it needs no JSON decoding in Lua.

use crate::error::StoreError;
use crate::matches::model::{Entry, MatchMeta, MatchSecret, StoredEvent};
use crate::redis_store::corrupt;
use ids::PlayerId;
use ids::SeatHolder;
use rules_core::{Audience, PerSeat, Seat};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

/// The format byte of `ev`.
const EVENTS_FORMAT: u8 = 1;

/// Encodes events into the `ev` field.
pub fn encode_events(events: &[StoredEvent]) -> Vec<u8> {
    let size = 1 + events.iter().map(|e| 5 + e.payload.len()).sum::<usize>();
    let mut out = Vec::with_capacity(size);
    out.push(EVENTS_FORMAT);
    for event in events {
        out.push(match event.audience {
            Audience::Public => 0,
            Audience::Seat(seat) => 1 + seat.index() as u8,
        });
        let len = u32::try_from(event.payload.len()).expect("an event payload under 4 GiB");
        out.extend_from_slice(&len.to_be_bytes());
        out.extend_from_slice(&event.payload);
    }
    out
}

/// Decodes the `ev` field.
///
/// # Errors
///
/// A description of the first malformed byte.
pub fn decode_events(mut bytes: &[u8]) -> Result<Vec<StoredEvent>, String> {
    match bytes.split_first() {
        Some((&EVENTS_FORMAT, rest)) => bytes = rest,
        Some((other, _)) => return Err(format!("unknown events format {other}")),
        None => return Err("empty events field".into()),
    }
    let mut events = Vec::new();
    while let Some((&tag, rest)) = bytes.split_first() {
        let audience = match tag {
            0 => Audience::Public,
            1 => Audience::Seat(Seat::ZERO),
            2 => Audience::Seat(Seat::ONE),
            other => return Err(format!("unknown audience tag {other}")),
        };
        let (len, rest) = rest.split_first_chunk::<4>().ok_or("truncated event length")?;
        let len = u32::from_be_bytes(*len) as usize;
        if rest.len() < len {
            return Err("truncated event payload".into());
        }
        let (payload, rest) = rest.split_at(len);
        events.push(StoredEvent { audience, payload: payload.to_vec() });
        bytes = rest;
    }
    Ok(events)
}

/// The stream fields of an entry, in order.
pub fn entry_fields(entry: &Entry) -> Vec<(&'static str, Vec<u8>)> {
    let mut fields = vec![
        ("step", entry.step_json.as_bytes().to_vec()),
        ("at", entry.at_ms.to_string().into_bytes()),
        ("ev", encode_events(&entry.events)),
    ];
    if let Some(key) = &entry.idempotency_key {
        fields.push(("idem", key.as_bytes().to_vec()));
    }
    if let Some(tp) = &entry.traceparent {
        fields.push(("tp", tp.as_bytes().to_vec()));
    }
    if entry.tag != 0 {
        fields.push(("tag", entry.tag.to_string().into_bytes()));
    }
    fields
}

/// Builds an entry from its version and stream fields.
///
/// # Errors
///
/// A description of the missing or malformed field.
pub fn entry_from_fields(version: u64, fields: Vec<(Vec<u8>, Vec<u8>)>) -> Result<Entry, String> {
    let mut entry = Entry {
        version,
        step_json: String::new(),
        idempotency_key: None,
        events: Vec::new(),
        views: Vec::new(),
        traceparent: None,
        at_ms: 0,
        tag: 0,
    };
    let (mut has_step, mut has_at, mut has_ev) = (false, false, false);
    for (name, value) in fields {
        match name.as_slice() {
            b"step" => {
                entry.step_json = utf8(value, "step")?;
                has_step = true;
            }
            b"at" => {
                entry.at_ms = utf8(value, "at")?.parse().map_err(|_| "bad `at` field")?;
                has_at = true;
            }
            b"ev" => {
                entry.events = decode_events(&value)?;
                has_ev = true;
            }
            b"idem" => entry.idempotency_key = Some(utf8(value, "idem")?),
            b"tp" => entry.traceparent = Some(utf8(value, "tp")?),
            b"tag" => entry.tag = utf8(value, "tag")?.parse().map_err(|_| "bad `tag` field")?,
            // Fields added by a later version are skipped, so old readers keep working.
            _ => {}
        }
    }
    if !(has_step && has_at && has_ev) {
        return Err(format!("entry {version} lacks a step, at or ev field"));
    }
    Ok(entry)
}

fn utf8(bytes: Vec<u8>, field: &str) -> Result<String, String> {
    String::from_utf8(bytes).map_err(|_| format!("field `{field}` is not UTF-8"))
}

/// The string form of a seat holder.
pub fn encode_holder(holder: &SeatHolder) -> String {
    match holder {
        SeatHolder::Open => "open".into(),
        SeatHolder::Player(p) => format!("player:{p}"),
        SeatHolder::Reserved(p) => format!("reserved:{p}"),
        SeatHolder::Bot(name) => format!("bot:{name}"),
    }
}

/// Parses the string form of a seat holder.
///
/// # Errors
///
/// If it is not one of the four forms.
pub fn decode_holder(s: &str) -> Result<SeatHolder, String> {
    let player = |p: &str| p.parse::<PlayerId>().map_err(|e| format!("seat holder {s:?}: {e}"));
    if s == "open" {
        Ok(SeatHolder::Open)
    } else if let Some(p) = s.strip_prefix("player:") {
        Ok(SeatHolder::Player(player(p)?))
    } else if let Some(p) = s.strip_prefix("reserved:") {
        Ok(SeatHolder::Reserved(player(p)?))
    } else if let Some(name) = s.strip_prefix("bot:") {
        Ok(SeatHolder::Bot(name.into()))
    } else {
        Err(format!("unknown seat holder {s:?}"))
    }
}

/// The fixed part of [`MatchMeta`] (all but the seats), stored as JSON in the `m` field.
/// Matches created before the seed had a key of its own also hold `seed` here; decoding
/// skips it.
#[derive(Serialize, Deserialize)]
struct FixedMeta {
    game: String,
    options: String,
    commitment: String,
    move_time_ms: u64,
    created_at_ms: u64,
    /// Absent in a match stored before the flag: unlisted.
    #[serde(default)]
    listed: bool,
}

/// Where matches created before the secret hash kept their seed: `seed` in `m`.
#[derive(Deserialize)]
struct LegacySeed {
    seed: Option<String>,
}

/// The meta hash's fields: `m` (JSON), `seat0`, `seat1`.
pub fn meta_fields(meta: &MatchMeta) -> [(&'static str, String); 3] {
    let MatchMeta {
        game,
        options_json,
        commitment_hex,
        seats,
        move_time_ms,
        created_at_ms,
        listed,
    } = meta;
    let fixed = FixedMeta {
        game: game.clone(),
        options: options_json.clone(),
        commitment: commitment_hex.clone(),
        move_time_ms: *move_time_ms,
        created_at_ms: *created_at_ms,
        listed: *listed,
    };
    let json = serde_json::to_string(&fixed).expect("strings and integers serialize");
    [
        ("m", json),
        ("seat0", encode_holder(&seats[Seat::ZERO])),
        ("seat1", encode_holder(&seats[Seat::ONE])),
    ]
}

/// Builds the meta from the hash's `m`, `seat0` and `seat1` fields.
///
/// # Errors
///
/// A description of what did not decode (never the seed).
pub fn meta_from_fields(m: &str, seat0: &str, seat1: &str) -> Result<MatchMeta, String> {
    let fixed: FixedMeta =
        serde_json::from_str(m).map_err(|e| format!("meta JSON: line {}", e.line()))?;
    Ok(MatchMeta {
        game: fixed.game,
        options_json: fixed.options,
        commitment_hex: fixed.commitment,
        seats: PerSeat([decode_holder(seat0)?, decode_holder(seat1)?]),
        move_time_ms: fixed.move_time_ms,
        created_at_ms: fixed.created_at_ms,
        listed: fixed.listed,
    })
}

/// The secret hash's one field: `seed`.
pub fn secret_fields(secret: &MatchSecret) -> [(&'static str, String); 1] {
    let MatchSecret { seed_hex } = secret;
    [("seed", seed_hex.clone())]
}

/// The secret of a match created before the secret hash, from its meta's `m` field;
/// `None` if `m` holds no seed.
///
/// # Errors
///
/// A description of what did not decode (never the seed).
pub fn legacy_secret(m: &str) -> Result<Option<MatchSecret>, String> {
    let legacy: LegacySeed =
        serde_json::from_str(m).map_err(|e| format!("meta JSON: line {}", e.line()))?;
    Ok(legacy.seed.map(|seed_hex| MatchSecret { seed_hex }))
}

/// The `m` field of a match stored before the secret hash, rewritten without its seed
/// (every other field kept as it was).
///
/// # Errors
///
/// A description of what did not decode (never the seed).
pub fn meta_without_seed(m: &str) -> Result<String, String> {
    let mut fields: serde_json::Map<String, serde_json::Value> =
        serde_json::from_str(m).map_err(|e| format!("meta JSON: line {}", e.line()))?;
    fields.remove("seed");
    Ok(serde_json::Value::Object(fields).to_string())
}

/// A record as JSON (the lobby's and the platform's records are JSON of plain fields).
pub(crate) fn json(value: &impl Serialize) -> Result<String, StoreError> {
    serde_json::to_string(value).map_err(|e| StoreError::Corrupt(format!("not encodable: {e}")))
}

/// A JSON record read from `key`.
pub(crate) fn decode<T: DeserializeOwned>(key: &str, text: &str) -> Result<T, StoreError> {
    serde_json::from_str(text).map_err(|e| corrupt(key, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry() -> Entry {
        Entry {
            version: 3,
            step_json: r#"{"seat":0,"move":{"card":3}}"#.into(),
            idempotency_key: Some("k-1".into()),
            events: vec![
                StoredEvent { audience: Audience::Public, payload: vec![1, 2, 3] },
                StoredEvent { audience: Audience::Seat(Seat::ONE), payload: vec![] },
                StoredEvent { audience: Audience::Seat(Seat::ZERO), payload: vec![0; 300] },
            ],
            views: vec![
                StoredEvent { audience: Audience::Seat(Seat::ZERO), payload: vec![7; 40] },
                StoredEvent { audience: Audience::Seat(Seat::ONE), payload: vec![9] },
                StoredEvent { audience: Audience::Public, payload: vec![] },
            ],
            traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into()),
            at_ms: 1_700_000_000_123,
            tag: 0x0123_4567_89ab_cdef,
        }
    }

    #[test]
    fn entries_round_trip() {
        let e = entry();
        let fields =
            entry_fields(&e).into_iter().map(|(k, v)| (k.as_bytes().to_vec(), v)).collect();
        // The views are kept beside the stream, never in an entry.
        assert_eq!(entry_from_fields(3, fields), Ok(Entry { views: vec![], ..e }));
        let bare = Entry {
            idempotency_key: None,
            traceparent: None,
            events: vec![],
            views: vec![],
            tag: 0,
            ..entry()
        };
        let fields =
            entry_fields(&bare).into_iter().map(|(k, v)| (k.as_bytes().to_vec(), v)).collect();
        assert_eq!(entry_from_fields(3, fields), Ok(bare));
    }

    #[test]
    fn malformed_events_are_refused() {
        assert!(decode_events(&[]).is_err());
        assert!(decode_events(&[2]).is_err());
        assert!(decode_events(&[1, 3, 0, 0, 0, 0]).is_err());
        assert!(decode_events(&[1, 0, 0, 0, 0, 2, 9]).is_err());
        assert_eq!(decode_events(&[1]), Ok(vec![]));
    }

    #[test]
    fn each_viewer_gets_exactly_its_own_view() {
        let e = entry();
        assert_eq!(e.view_for(rules_core::Viewer::Seat(Seat::ZERO)), Some(&[7u8; 40][..]));
        assert_eq!(e.view_for(rules_core::Viewer::Seat(Seat::ONE)), Some(&[9u8][..]));
        assert_eq!(e.view_for(rules_core::Viewer::Spectator), Some(&[][..]));
        let old = Entry { views: vec![], ..entry() };
        assert_eq!(old.view_for(rules_core::Viewer::Seat(Seat::ONE)), None);
    }

    #[test]
    fn metas_round_trip_without_the_seed() {
        let meta = crate::matches::model::sample_meta();
        let [(_, m), (_, s0), (_, s1)] = meta_fields(&meta);
        assert!(!m.contains("seed"), "{m}");
        assert_eq!(meta_from_fields(&m, &s0, &s1), Ok(meta.clone()));
        assert_eq!(legacy_secret(&m), Ok(None));
        // A match stored before the secret hash: its meta still decodes, and its seed is
        // found where it was.
        let old = m.replacen('{', r#"{"seed":"00ff","#, 1);
        assert_eq!(meta_from_fields(&old, &s0, &s1), Ok(meta));
        assert_eq!(legacy_secret(&old), Ok(Some(MatchSecret { seed_hex: "00ff".into() })));
        let moved = meta_without_seed(&old).unwrap();
        assert!(!moved.contains("seed") && !moved.contains("00ff"), "{moved}");
        assert_eq!(meta_from_fields(&moved, &s0, &s1), meta_from_fields(&m, &s0, &s1));
    }

    #[test]
    fn a_meta_stored_before_the_listed_flag_reads_as_unlisted() {
        let meta = crate::matches::model::sample_meta();
        assert!(meta.listed);
        let [(_, m), (_, s0), (_, s1)] = meta_fields(&meta);
        assert!(m.contains(r#""listed":true"#), "{m}");
        let old = m.replace(r#","listed":true"#, "");
        assert!(!old.contains("listed"), "{old}");
        assert_eq!(meta_from_fields(&old, &s0, &s1), Ok(MatchMeta { listed: false, ..meta }));
    }

    #[test]
    fn holders_round_trip() {
        let p = PlayerId::random();
        for h in [
            SeatHolder::Open,
            SeatHolder::Player(p),
            SeatHolder::Reserved(p),
            SeatHolder::Bot("strong".into()),
        ] {
            assert_eq!(decode_holder(&encode_holder(&h)), Ok(h));
        }
        assert!(decode_holder("player:nope").is_err());
        assert!(decode_holder("someone").is_err());
    }
}
