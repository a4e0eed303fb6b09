//! The envelope and the records around it: what one accepted step of a match stores
//! ([`Entry`]), what a match is ([`MatchMeta`], public) and what it hides ([`MatchSecret`]),
//! and the typed answers of the store.

use ids::{MatchId, PlayerId, SeatHolder};
use rules_core::{Audience, PerSeat};
use std::fmt;

/// One event as stored: who may receive it and its encoded bytes.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct StoredEvent {
    /// Who may receive it: everyone, or one seat alone.
    pub audience: Audience,
    /// The protobuf-encoded public `colosseum.v1.Event`. Opaque to the store.
    pub payload: Vec<u8>,
}

/// One accepted step of a match and what it produced: the envelope of the match log.
///
/// Version 0 is the match's creation (its opening events, written by
/// [`crate::HostStore::create_match`]); version `n >= 1` is the `n`-th accepted step.
/// Versions are dense: the store accepts version `n + 1` only after `n`.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Entry {
    /// The step number: 0 for the creation, then 1, 2, ...
    pub version: u64,
    /// The step in the conformance script shape: `{"seat":0,"move":{"card":3}}`,
    /// `{"deadline":true}`, `{"resign":1}`; `{}` or any JSON the host chooses for version 0.
    pub step_json: String,
    /// The client's idempotency key of the submit that produced this step, if it had one.
    /// A second append with the same key in the same match is a duplicate.
    pub idempotency_key: Option<String>,
    /// The events the step produced, in order, each with its audience.
    pub events: Vec<StoredEvent>,
    /// Each viewer's view after the step, as the rules engine built it: one for each seat
    /// (`Audience::Seat`) and one for spectators (`Audience::Public`). Watchers get their
    /// own with the events, so they need not ask for it. Empty in entries written before
    /// views were stored.
    pub views: Vec<StoredEvent>,
    /// W3C trace context (`traceparent` header value) of the request that made the step.
    pub traceparent: Option<String>,
    /// When the step was accepted, in Unix milliseconds (the caller's clock).
    pub at_ms: u64,
    /// A random number drawn for this entry when it was written (0 in entries written
    /// before tags). Versions are reused if a store loses its last writes (a Redis host
    /// crash under `appendfsync everysec`): a reader that remembers the tag of the last
    /// version it saw tells a reissued version from the one it saw. Random, so it says
    /// nothing about the step (a digest of the step would reveal a sealed move).
    pub tag: u64,
}

impl Entry {
    /// Whether `viewer` receives anything of this entry: the creation, or an event its
    /// audience admits. An entry a viewer may not see is not a version for that viewer
    /// (see [`ViewerVersions`]).
    pub fn visible_to(&self, viewer: rules_core::Viewer) -> bool {
        self.version == 0 || self.events.iter().any(|e| e.audience.admits(viewer))
    }

    /// The stored view of exactly `viewer` (a seat never gets the spectators' view).
    pub fn view_for(&self, viewer: rules_core::Viewer) -> Option<&[u8]> {
        let wanted = match viewer.seat() {
            Some(seat) => Audience::Seat(seat),
            None => Audience::Public,
        };
        self.views.iter().find(|v| v.audience == wanted).map(|v| v.payload.as_slice())
    }
}

/// Each viewer's own numbering of a match's versions: how many of the entries so far
/// that viewer could see (the creation is 0 for everyone). The public API numbers
/// versions this way, per viewer, so a step a viewer may not know of (a seat changing its
/// sealed move) leaves no gap in what that viewer is shown. A pure function of the
/// stream: every replica and gateway counts the same.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub struct ViewerVersions(pub [u64; 3]);

impl ViewerVersions {
    fn slot(viewer: rules_core::Viewer) -> usize {
        match viewer.seat() {
            Some(seat) => seat.index(),
            None => 2,
        }
    }

    /// The version as `viewer` numbers it.
    pub fn of(&self, viewer: rules_core::Viewer) -> u64 {
        self.0[Self::slot(viewer)]
    }

    /// The numbering after `entry` (the next entry of the stream).
    #[must_use]
    pub fn after(self, entry: &Entry) -> ViewerVersions {
        let mut next = self;
        if entry.version > 0 {
            for viewer in VIEWERS {
                if entry.visible_to(viewer) {
                    next.0[Self::slot(viewer)] += 1;
                }
            }
        }
        next
    }
}

/// Every kind of viewer: each seat, then the spectators.
pub const VIEWERS: [rules_core::Viewer; 3] = [
    rules_core::Viewer::Seat(rules_core::Seat::ZERO),
    rules_core::Viewer::Seat(rules_core::Seat::ONE),
    rules_core::Viewer::Spectator,
];

/// What a match is, fixed at creation except for its seats: everything the services share
/// about it, and nothing secret. The seed is not here but in a [`MatchSecret`], stored
/// beside it and read only by the rules engine ([`crate::HostStore::match_secret`]), so
/// the gateway and the clock, which read this, never hold it.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct MatchMeta {
    /// The game's name in the registry (`games::GAMES`), e.g. `gops`.
    pub game: String,
    /// The validated options, as JSON.
    pub options_json: String,
    /// SHA-256 of the seed, in hex: public from the first event.
    pub commitment_hex: String,
    /// Who holds each seat.
    pub seats: PerSeat<SeatHolder>,
    /// The standard move window, in milliseconds.
    pub move_time_ms: u64,
    /// When the match was created, in Unix milliseconds.
    pub created_at_ms: u64,
    /// Whether the match goes on its game's live list (ListLiveMatches) once both seats
    /// are held: set by whoever created it (a public casual match, a lobby pairing, a
    /// public tournament's game); false for a tenant's bulk matches and a private
    /// tournament's, and for any match stored before the flag (read as unlisted).
    pub listed: bool,
}

impl MatchMeta {
    /// Whether both seats are held (by players or bots): the match can start its clock,
    /// and its seats will not change again.
    pub fn all_seated(&self) -> bool {
        self.seats.0.iter().all(|h| matches!(h, SeatHolder::Player(_) | SeatHolder::Bot(_)))
    }
}

/// What only the rules engine may read of a match until it ends: its seed. A type of its
/// own, written with the match's [`MatchMeta`] in one atomic create and read through
/// [`crate::HostStore::match_secret`] alone, so what reads the meta cannot reach it (a
/// test checks that the gateway and the clock never name it).
///
/// `Debug` prints `seed_hex` as `<redacted>`: the seed decides every hidden draw until the
/// match ends, so it must never reach a log.
#[derive(Clone, PartialEq, Eq)]
pub struct MatchSecret {
    /// SECRET until the match ends: the seed, in hex.
    pub seed_hex: String,
}

impl fmt::Debug for MatchSecret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let MatchSecret { seed_hex: _ } = self;
        f.debug_struct("MatchSecret").field("seed_hex", &"<redacted>").finish()
    }
}

/// The answer to [`crate::EventStore::claim_seat`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum ClaimOutcome {
    /// The seat was open, or reserved for this player, and is now theirs.
    Claimed,
    /// The player already holds this seat: nothing changed (a retried join succeeds).
    AlreadyYours,
    /// Another player or a bot holds the seat.
    Taken,
    /// The seat is reserved for another player.
    ReservedForOther,
    /// The match is over (its final step is stored): no one new is seated.
    MatchOver,
}

impl ClaimOutcome {
    /// The rule of a claim, the same in every store: of the seat's `holder` in a match
    /// `over` or not, `player` takes an open seat or one reserved for them; a seat already
    /// theirs is theirs (finished or not: a retried join keeps it); in a match over no one
    /// new is seated; anything else is someone else's.
    pub(crate) fn of(holder: &SeatHolder, over: bool, player: PlayerId) -> Self {
        match holder {
            SeatHolder::Player(p) if *p == player => ClaimOutcome::AlreadyYours,
            SeatHolder::Open
            | SeatHolder::Reserved(_)
            | SeatHolder::Player(_)
            | SeatHolder::Bot(_)
                if over =>
            {
                ClaimOutcome::MatchOver
            }
            SeatHolder::Open => ClaimOutcome::Claimed,
            SeatHolder::Reserved(p) if *p == player => ClaimOutcome::Claimed,
            SeatHolder::Reserved(_) => ClaimOutcome::ReservedForOther,
            SeatHolder::Player(_) | SeatHolder::Bot(_) => ClaimOutcome::Taken,
        }
    }
}

/// The answer to [`crate::EventStore::append`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum AppendOutcome {
    /// The entry is now the match's latest, and the deadline change was applied.
    Appended {
        /// The entry's version.
        version: u64,
    },
    /// The idempotency key was already used in this match, by the step at `version`.
    /// Nothing changed.
    Duplicate {
        /// The version the key was first accepted at.
        version: u64,
    },
    /// The entry's version is not the next one (another replica appended it first, or the
    /// caller's state is stale). Nothing changed.
    Conflict {
        /// The match's latest version.
        current_version: u64,
    },
}

/// What [`crate::EventStore::append`] does to the match's deadline, atomically with the
/// append (and only if the entry is appended).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum DeadlineChange {
    /// Leave the deadline as it is.
    Keep,
    /// Remove the deadline (nobody owes a move, or the match ended).
    Clear,
    /// Arm (or re-arm) the deadline.
    Set {
        /// When it falls due, in Unix milliseconds.
        due_ms: u64,
        /// The version it belongs to: firing it applies the deadline step only if the match
        /// is still at this version, and [`crate::EventStore::clear_deadline_if`] removes it
        /// only if it was not re-armed since.
        fence_version: u64,
    },
}

/// A match's armed deadline, as [`crate::EventStore::due_deadlines`] returns it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Deadline {
    /// The match.
    pub match_id: MatchId,
    /// When it falls due, in Unix milliseconds.
    pub due_ms: u64,
    /// The version it was armed at.
    pub fence_version: u64,
}

/// A guest session: the player a token stands for.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Session {
    /// The player.
    pub player_id: PlayerId,
    /// The name shown to opponents and spectators.
    pub display_name: String,
}

/// SHA-256 of `token` in lower-case hex: a session token's key in the store (so a store
/// dump holds no usable token; whoever issues or reads sessions derives it here), and the
/// digest the lobby's keys use for client text they must not spell.
pub fn token_digest(token: &str) -> String {
    use sha2::{Digest, Sha256};
    Sha256::digest(token.as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// Whether `s` is a SHA-256 in lower-case hex (64 characters), the only form of session
/// key accepted: anything else could carry `{`/`}` into a key name.
pub fn is_sha256_hex(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// A match's meta for unit tests.
#[cfg(test)]
pub(crate) fn sample_meta() -> MatchMeta {
    MatchMeta {
        game: "gops".into(),
        options_json: "{}".into(),
        commitment_hex: "c0ffee".into(),
        seats: PerSeat([SeatHolder::Open, SeatHolder::Bot("strong".into())]),
        move_time_ms: 30_000,
        created_at_ms: 1,
        listed: true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_prints_the_seed() {
        let secret = MatchSecret { seed_hex: "00112233445566778899aabbccddeeff".into() };
        let printed = format!("{secret:?} {secret:#?}");
        assert!(!printed.contains("00112233445566778899aabbccddeeff"), "{printed}");
        assert!(printed.contains("<redacted>"));
        assert!(format!("{:?}", sample_meta()).contains("c0ffee"));
    }

    #[test]
    fn session_keys_are_lower_hex_sha256() {
        assert!(is_sha256_hex(&"a".repeat(64)));
        assert!(!is_sha256_hex(&"A".repeat(64)));
        assert!(!is_sha256_hex(&"a".repeat(63)));
        assert!(!is_sha256_hex(&format!("{{{}}}", "a".repeat(62))));
    }
}
