//! The append feed: at-most-once notifications that a match gained an entry, for readers
//! that then read the log itself ([`crate::EventStore::append_feed`]). Here: the stream
//! type and the one wire format of a notification, `<match-id> <version>` in ASCII.

use ids::MatchId;
use std::pin::Pin;
use tokio_stream::Stream;

/// Appends as they happen: `(match, version)`. Ends when the subscription is lost (the
/// connection dropped, or the reader fell too far behind); the caller then subscribes
/// again and re-reads what it may have missed, since nothing is replayed.
pub type AppendFeed = Pin<Box<dyn Stream<Item = (MatchId, u64)> + Send>>;

/// The notification of `version` appended to `id`: `<match-id> <version>`.
pub fn payload(id: MatchId, version: u64) -> String {
    format!("{id} {version}")
}

/// Reads a notification written by [`payload`]; `None` if it is anything else.
pub fn parse_payload(payload: &[u8]) -> Option<(MatchId, u64)> {
    let text = std::str::from_utf8(payload).ok()?;
    let (id, version) = text.split_once(' ')?;
    // `u64::from_str` would also take a leading `+`: only the digits `payload` writes pass.
    if version.is_empty() || !version.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some((id.parse().ok()?, version.parse().ok()?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use uuid::Uuid;

    #[test]
    fn payloads_round_trip_and_anything_else_is_refused() {
        let id: MatchId = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().expect("id");
        assert_eq!(payload(id, 7), "67e55044-10b1-426f-9247-bb680e5fe0c8 7");
        assert_eq!(parse_payload(payload(id, 7).as_bytes()), Some((id, 7)));
        assert_eq!(parse_payload(payload(id, u64::MAX).as_bytes()), Some((id, u64::MAX)));
        for bad in [
            "",
            "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 ",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 +7",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 -1",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 7 8",
            "67e55044-10b1-426f-9247-bb680e5fe0c8  7",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 18446744073709551616",
            "67e5504410b1426f9247bb680e5fe0c8 7",
            "not-a-match 7",
        ] {
            assert_eq!(parse_payload(bad.as_bytes()), None, "{bad:?}");
        }
        assert_eq!(parse_payload(b"\xff\xfe 7"), None);
    }

    /// What [`parse_payload`] accepts is `<match-id> <digits>`, naming that match (in any
    /// hex case) and that version (leading zeros allowed).
    fn accepted_means_what_it_says(bytes: &[u8]) -> Result<(), TestCaseError> {
        if let Some((id, version)) = parse_payload(bytes) {
            let text = std::str::from_utf8(bytes).expect("accepted text is UTF-8");
            let (id_text, version_text) = text.split_at(36);
            prop_assert_eq!(id_text.to_ascii_lowercase(), id.to_string());
            prop_assert_eq!(version_text.strip_prefix(' ').map(str::parse), Some(Ok(version)));
        }
        Ok(())
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn every_payload_parses_back(id in any::<u128>(), version in any::<u64>()) {
            let id = MatchId(Uuid::from_u128(id));
            prop_assert_eq!(parse_payload(payload(id, version).as_bytes()), Some((id, version)));
        }

        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            accepted_means_what_it_says(&bytes)?;
        }

        #[test]
        fn near_misses_are_refused_or_read_exactly(
            id in any::<u128>(),
            upper in any::<bool>(),
            rest in "[ 0-9+-]{0,24}",
        ) {
            let id = Uuid::from_u128(id).hyphenated().to_string();
            let id = if upper { id.to_ascii_uppercase() } else { id };
            accepted_means_what_it_says(format!("{id}{rest}").as_bytes())?;
        }
    }
}
