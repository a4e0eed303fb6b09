//! A finished match's log compacted into one value: its entries (steps, events, keys, tags,
//! times) and its final views, in a compact binary form, deflated. Both stores keep a
//! finished match this way ([`crate::HostStore::compact`]) and read it back as entries.
//!
//! Before deflating: a format byte (`1`), the entry count, then per entry its version,
//! `at_ms`, tag (8 bytes little-endian), step, idempotency key (a presence byte, then the
//! key), traceparent (`0` none; `1` then its 26 bytes when it is the W3C `00-<32 hex>-<16
//! hex>-<2 hex>` form, as ours always are; `2` then the text) and events (as the stream's
//! `ev` field, [`crate::redis_store::codec::encode_events`]); then the final views, encoded the same
//! way. Numbers are LEB128 varints, strings and byte strings a varint length and their
//! bytes. Everything an entry holds is kept: a watch read from the record is the watch
//! read from the stream.

use crate::matches::model::{Entry, StoredEvent};
use crate::redis_store::codec::{decode_events, encode_events};

/// The format byte.
const FORMAT: u8 = 1;
/// The most a record inflates to: far above any real match (a GOPS-13 record is a few KiB),
/// a bound so a damaged value cannot exhaust memory.
const MAX_INFLATED: usize = 64 << 20;

/// Encodes `entries` (in version order) and the match's final `views`.
pub fn encode(entries: &[Entry], views: &[StoredEvent]) -> Vec<u8> {
    let mut out = vec![FORMAT];
    varint(&mut out, entries.len() as u64);
    for e in entries {
        varint(&mut out, e.version);
        varint(&mut out, e.at_ms);
        out.extend_from_slice(&e.tag.to_le_bytes());
        bytes(&mut out, e.step_json.as_bytes());
        match &e.idempotency_key {
            Some(key) => {
                out.push(1);
                bytes(&mut out, key.as_bytes());
            }
            None => out.push(0),
        }
        traceparent(&mut out, e.traceparent.as_deref());
        bytes(&mut out, &encode_events(&e.events));
    }
    bytes(&mut out, &encode_events(views));
    miniz_oxide::deflate::compress_to_vec(&out, 6)
}

/// The first byte of deflated views; plain ones start with the events' own format byte.
const DEFLATED_VIEWS: u8 = 0xdf;

/// Encodes a match's latest views for its `views` key: the stream's event encoding, and
/// deflated when `packed` (three views of one match repeat most of their bytes: 642 B
/// become 191 for GOPS-13). The opening's are packed, since a match may wait there for a
/// week; a step's are not, since deflating costs more CPU on the move's path than it
/// saves in a key the next step overwrites.
pub fn encode_views(views: &[StoredEvent], packed: bool) -> Vec<u8> {
    let plain = encode_events(views);
    if !packed {
        return plain;
    }
    let mut out = vec![DEFLATED_VIEWS];
    out.extend(miniz_oxide::deflate::compress_to_vec(&plain, 1));
    out
}

/// Decodes what [`encode_views`] wrote, packed or not.
///
/// # Errors
///
/// A description of what did not decode.
pub fn decode_views(bytes: &[u8]) -> Result<Vec<StoredEvent>, String> {
    match bytes.split_first() {
        Some((&DEFLATED_VIEWS, deflated)) => {
            let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_INFLATED)
                .map_err(|e| format!("views do not inflate: {:?}", e.status))?;
            decode_events(&raw)
        }
        _ => decode_events(bytes),
    }
}

/// Decodes a record: its entries (without views or traceparents) and the final views.
///
/// # Errors
///
/// A description of what did not decode.
pub fn decode(deflated: &[u8]) -> Result<(Vec<Entry>, Vec<StoredEvent>), String> {
    let raw = miniz_oxide::inflate::decompress_to_vec_with_limit(deflated, MAX_INFLATED)
        .map_err(|e| format!("record does not inflate: {:?}", e.status))?;
    let mut r = Reader(&raw);
    if r.byte()? != FORMAT {
        return Err("unknown record format".into());
    }
    let count = r.varint()?;
    // Each entry takes at least 12 bytes: the count cannot promise more than the bytes hold.
    let mut entries = Vec::with_capacity(usize::try_from(count).unwrap_or(0).min(raw.len() / 12));
    for _ in 0..count {
        let version = r.varint()?;
        let at_ms = r.varint()?;
        let tag = u64::from_le_bytes(r.take(8)?.try_into().expect("8 bytes"));
        let step_json = r.text()?;
        let idempotency_key = match r.byte()? {
            0 => None,
            1 => Some(r.text()?),
            other => return Err(format!("bad key marker {other}")),
        };
        let traceparent = match r.byte()? {
            0 => None,
            1 => Some(w3c_text(r.take(26)?)),
            2 => Some(r.text()?),
            other => return Err(format!("bad traceparent marker {other}")),
        };
        let events = decode_events(r.bytes()?)?;
        entries.push(Entry {
            version,
            step_json,
            idempotency_key,
            events,
            views: Vec::new(),
            traceparent,
            at_ms,
            tag,
        });
    }
    let views = decode_events(r.bytes()?)?;
    if !r.0.is_empty() {
        return Err("trailing bytes after the record".into());
    }
    Ok((entries, views))
}

/// A traceparent: its 26 bytes when it is the canonical W3C form (lower-case hex, so that
/// it decodes to the very same text), else its text.
fn traceparent(out: &mut Vec<u8>, tp: Option<&str>) {
    let Some(tp) = tp else {
        out.push(0);
        return;
    };
    let parts: Vec<&str> = tp.split('-').collect();
    let canonical = matches!(parts.as_slice(), [v, t, s, f]
        if v.len() == 2 && t.len() == 32 && s.len() == 16 && f.len() == 2)
        && tp.bytes().all(|b| b == b'-' || b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
    if canonical {
        out.push(1);
        let hex = tp.replace('-', "");
        for pair in hex.as_bytes().chunks(2) {
            let digit = |b: u8| if b.is_ascii_digit() { b - b'0' } else { b - b'a' + 10 };
            out.push(digit(pair[0]) << 4 | digit(pair[1]));
        }
    } else {
        out.push(2);
        bytes(out, tp.as_bytes());
    }
}

/// The text of a traceparent stored as its 26 bytes.
fn w3c_text(b: &[u8]) -> String {
    let hex = |bytes: &[u8]| bytes.iter().map(|b| format!("{b:02x}")).collect::<String>();
    format!("{}-{}-{}-{}", hex(&b[..1]), hex(&b[1..17]), hex(&b[17..25]), hex(&b[25..]))
}

fn varint(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

fn bytes(out: &mut Vec<u8>, b: &[u8]) {
    varint(out, b.len() as u64);
    out.extend_from_slice(b);
}

struct Reader<'a>(&'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err("truncated record".into());
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(head)
    }

    fn byte(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn varint(&mut self) -> Result<u64, String> {
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.byte()?;
            n |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Ok(n);
            }
        }
        Err("varint too long".into())
    }

    fn bytes(&mut self) -> Result<&'a [u8], String> {
        let len = usize::try_from(self.varint()?).map_err(|_| "length too large")?;
        self.take(len)
    }

    fn text(&mut self) -> Result<String, String> {
        String::from_utf8(self.bytes()?.to_vec()).map_err(|_| "a string is not UTF-8".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use rules_core::{Audience, Seat};

    fn audience() -> impl Strategy<Value = Audience> {
        prop_oneof![
            Just(Audience::Public),
            Just(Audience::Seat(Seat::ZERO)),
            Just(Audience::Seat(Seat::ONE))
        ]
    }

    fn event() -> impl Strategy<Value = StoredEvent> {
        (audience(), proptest::collection::vec(any::<u8>(), 0..40))
            .prop_map(|(audience, payload)| StoredEvent { audience, payload })
    }

    fn entry() -> impl Strategy<Value = Entry> {
        (
            any::<u64>(),
            ".{0,30}",
            proptest::option::of("[a-z0-9:-]{0,20}"),
            proptest::collection::vec(event(), 0..4),
            any::<u64>(),
            any::<u64>(),
            proptest::option::of(prop_oneof![
                "00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]",
                "[0-9A-Fa-f-]{0,60}",
            ]),
        )
            .prop_map(
                |(version, step_json, idempotency_key, events, at_ms, tag, traceparent)| Entry {
                    version,
                    step_json,
                    idempotency_key,
                    events,
                    views: Vec::new(),
                    traceparent,
                    at_ms,
                    tag,
                },
            )
    }

    proptest! {
        #[test]
        fn records_round_trip(
            entries in proptest::collection::vec(entry(), 0..30),
            views in proptest::collection::vec(event(), 0..3),
        ) {
            prop_assert_eq!(decode_views(&encode_views(&views, true)), Ok(views.clone()));
            prop_assert_eq!(decode_views(&encode_views(&views, false)), Ok(views.clone()));
            prop_assert_eq!(decode(&encode(&entries, &views)), Ok((entries, views)));
        }

        #[test]
        fn damaged_records_are_refused_not_panics(
            entries in proptest::collection::vec(entry(), 1..5),
            cut in any::<prop::sample::Index>(),
            flip in any::<prop::sample::Index>(),
        ) {
            let good = encode(&entries, &[]);
            let _ = decode(&good[..cut.index(good.len())]);
            let mut bad = good.clone();
            let i = flip.index(bad.len());
            bad[i] ^= 0x5a;
            let _ = decode(&bad);
        }
    }

    #[test]
    fn views_are_not_kept_per_entry_and_traces_pack_to_their_bytes() {
        let e = Entry {
            version: 1,
            step_json: "{}".into(),
            idempotency_key: None,
            events: vec![],
            views: vec![StoredEvent { audience: Audience::Public, payload: vec![1] }],
            traceparent: Some("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01".into()),
            at_ms: 5,
            tag: 9,
        };
        let packed = encode(std::slice::from_ref(&e), &[]);
        let (back, views) = decode(&packed).expect("decodes");
        assert_eq!(back[0], Entry { views: vec![], ..e.clone() });
        assert!(views.is_empty());
        let text = Entry {
            traceparent: Some("00-0AF7651916CD43DD8448EB211C80319C-b7ad6b7169203331-01".into()),
            ..e
        };
        let (back, _) = decode(&encode(std::slice::from_ref(&text), &[])).expect("decodes");
        assert_eq!(back[0].traceparent, text.traceparent, "any other text is kept as it is");
        assert!(decode(b"not deflate").is_err());
    }
}
