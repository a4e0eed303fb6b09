//! Seat presence: whether each seat's player is connected to a match, kept as leases that
//! each holder (a gateway) takes while it has a watch of that seat open and renews until
//! it has none, so a holder that dies lets its presence lapse by itself after the lease's
//! time. [`PresenceStore`] is the gateway's store; a change is announced on a feed.

pub(crate) mod memory;
pub(crate) mod redis;
pub(crate) mod tables;

use crate::error::StoreError;
use crate::matches::traits::EventStore;
use async_trait::async_trait;
use ids::MatchId;
use rules_core::Seat;
use std::pin::Pin;
use tokio_stream::Stream;

/// Whether each seat's player is connected, by seat index.
pub type Presence = [bool; 2];

/// The longest holder name a lease takes.
pub const MAX_HOLDER_LEN: usize = 128;

/// What [`PresenceStore::mark_present`] or [`PresenceStore::unmark_present`] left: whether
/// the seat is connected now (by any holder's live lease), and whether that changed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct SeatChange {
    /// Some holder's lease on the seat is live.
    pub connected: bool,
    /// `connected` is not what it was before the call (the change was announced).
    pub changed: bool,
}

/// A change announced on the presence feed: `seat` of `id` became `connected`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct PresenceNote {
    /// The match.
    pub id: MatchId,
    /// The seat whose presence changed.
    pub seat: Seat,
    /// What it changed to.
    pub connected: bool,
}

/// Presence changes as they happen. At most once, and a lease that lapses (its holder
/// died) is announced by nobody: a reader reads [`PresenceStore::presence`] again now and
/// then. Ends when the subscription is lost; the caller subscribes again and reads the
/// presence of what it follows, since nothing is replayed.
pub type PresenceFeed = Pin<Box<dyn Stream<Item = PresenceNote> + Send>>;

/// The gateway's store: the [`EventStore`] and the seats' presence.
///
/// A seat is connected while at least one holder's lease on it is live: its expiry (Unix
/// ms, the holder's clock) after the reader's `now_ms`. A lease is taken or renewed by
/// [`PresenceStore::mark_present`] and given up by [`PresenceStore::unmark_present`]; a
/// call that changes whether the seat is connected announces it on the presence feed
/// (`PUBLISH` on Redis), in the same atomic step. All three stores pass the same suite
/// (`tests/presence.rs`).
#[async_trait]
pub trait PresenceStore: EventStore {
    /// Takes or renews `holder`'s lease on `seat` of `id` until `now_ms + ttl_ms`.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`]: an empty holder, or one over [`MAX_HOLDER_LEN`]
    /// bytes; [`StoreError::Redis`].
    async fn mark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
        ttl_ms: u64,
    ) -> Result<SeatChange, StoreError>;

    /// Gives up `holder`'s lease on `seat` of `id` (none held: nothing to give up); the
    /// seat stays connected while another holder's lease is live at `now_ms`.
    ///
    /// # Errors
    /// As [`PresenceStore::mark_present`].
    async fn unmark_present(
        &self,
        id: MatchId,
        seat: Seat,
        holder: &str,
        now_ms: u64,
    ) -> Result<SeatChange, StoreError>;

    /// Each seat's presence at `now_ms` (leases expired by then do not count).
    ///
    /// # Errors
    /// [`StoreError::Corrupt`], [`StoreError::Redis`].
    async fn presence(&self, id: MatchId, now_ms: u64) -> Result<Presence, StoreError>;

    /// Subscribes to the presence feed: every change announced from now on.
    ///
    /// # Errors
    /// [`StoreError::Redis`] if no subscription could be made.
    async fn presence_feed(&self) -> Result<PresenceFeed, StoreError>;
}

/// Refuses a holder name no lease takes.
pub(crate) fn check_holder(holder: &str) -> Result<(), StoreError> {
    if holder.is_empty() || holder.len() > MAX_HOLDER_LEN {
        return Err(StoreError::InvalidArgument("a presence holder is 1 to 128 bytes"));
    }
    Ok(())
}

/// The notification of `note`: `<match-id> <seat> <0|1>`.
pub fn payload(note: PresenceNote) -> String {
    format!("{} {} {}", note.id, note.seat.index(), u8::from(note.connected))
}

/// Reads a notification written by [`payload`]; `None` if it is anything else.
pub fn parse_payload(payload: &[u8]) -> Option<PresenceNote> {
    let text = std::str::from_utf8(payload).ok()?;
    let mut parts = text.split(' ');
    let (id, seat, connected) = (parts.next()?, parts.next()?, parts.next()?);
    if parts.next().is_some() {
        return None;
    }
    let seat = match seat {
        "0" => Seat::ZERO,
        "1" => Seat::ONE,
        _ => return None,
    };
    let connected = match connected {
        "0" => false,
        "1" => true,
        _ => return None,
    };
    Some(PresenceNote { id: id.parse().ok()?, seat, connected })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use uuid::Uuid;

    #[test]
    fn payloads_round_trip_and_anything_else_is_refused() {
        let id: MatchId = "67e55044-10b1-426f-9247-bb680e5fe0c8".parse().expect("id");
        let note = PresenceNote { id, seat: Seat::ONE, connected: true };
        assert_eq!(payload(note), "67e55044-10b1-426f-9247-bb680e5fe0c8 1 1");
        assert_eq!(parse_payload(payload(note).as_bytes()), Some(note));
        let left = PresenceNote { seat: Seat::ZERO, connected: false, ..note };
        assert_eq!(parse_payload(payload(left).as_bytes()), Some(left));
        for bad in [
            "",
            "67e55044-10b1-426f-9247-bb680e5fe0c8",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 1",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 1 ",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 2 1",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 1 2",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 01 1",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 +1 1",
            "67e55044-10b1-426f-9247-bb680e5fe0c8 1 1 1",
            "67e55044-10b1-426f-9247-bb680e5fe0c8  1 1",
            "67e5504410b1426f9247bb680e5fe0c8 1 1",
            "not-a-match 1 1",
        ] {
            assert_eq!(parse_payload(bad.as_bytes()), None, "{bad:?}");
        }
        assert_eq!(parse_payload(b"\xff\xfe 1 1"), None);
    }

    #[test]
    fn a_holder_is_named() {
        assert!(check_holder("gw-1").is_ok());
        assert!(check_holder(&"h".repeat(MAX_HOLDER_LEN)).is_ok());
        assert!(check_holder("").is_err());
        assert!(check_holder(&"h".repeat(MAX_HOLDER_LEN + 1)).is_err());
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

        #[test]
        fn every_payload_parses_back(id in any::<u128>(), seat in 0u64..2, connected in any::<bool>()) {
            let note = PresenceNote {
                id: MatchId(Uuid::from_u128(id)),
                seat: Seat::new(seat).expect("a seat"),
                connected,
            };
            prop_assert_eq!(parse_payload(payload(note).as_bytes()), Some(note));
        }

        #[test]
        fn arbitrary_bytes_never_panic_and_what_parses_prints_back(
            bytes in proptest::collection::vec(any::<u8>(), 0..80),
        ) {
            if let Some(note) = parse_payload(&bytes) {
                let text = std::str::from_utf8(&bytes).expect("accepted text is UTF-8");
                prop_assert_eq!(text.to_ascii_lowercase(), payload(note));
            }
        }

        #[test]
        fn near_misses_are_refused_or_read_exactly(
            id in any::<u128>(),
            upper in any::<bool>(),
            rest in "[ 0-9+-]{0,8}",
        ) {
            let id = Uuid::from_u128(id).hyphenated().to_string();
            let id = if upper { id.to_ascii_uppercase() } else { id };
            let text = format!("{id}{rest}");
            if let Some(note) = parse_payload(text.as_bytes()) {
                prop_assert_eq!(text.to_ascii_lowercase(), payload(note));
            }
        }
    }
}
