//! The vocabulary every crate shares, with no I/O: the identifiers (a match, a player, a
//! ticket, a tenant, a tournament: each a UUID, wrapped so they cannot be mixed up) and who
//! holds a seat. What parses a request (`api-convert`) or routes to an engine needs these and
//! nothing of the store.

use std::fmt;
use std::str::FromStr;
use uuid::Uuid;

/// The text was not a UUID.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct BadId {
    /// What was being parsed: "match id" or "player id".
    pub kind: &'static str,
}

impl fmt::Display for BadId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "not a valid {} (expected a hyphenated UUID)", self.kind)
    }
}

impl std::error::Error for BadId {}

macro_rules! uuid_id {
    ($(#[$doc:meta])* $name:ident, $kind:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
        pub struct $name(pub Uuid);

        impl $name {
            /// A new random (version 4) id.
            pub fn random() -> Self {
                $name(Uuid::new_v4())
            }

            /// The UUID inside.
            pub fn as_uuid(&self) -> &Uuid {
                &self.0
            }
        }

        impl From<Uuid> for $name {
            fn from(u: Uuid) -> Self {
                $name(u)
            }
        }

        /// Hyphenated lower-case, e.g. `67e55044-10b1-426f-9247-bb680e5fe0c8`.
        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }

        /// Accepts only the hyphenated form, the one `Display` writes and keys carry.
        impl FromStr for $name {
            type Err = BadId;

            fn from_str(s: &str) -> Result<Self, BadId> {
                if s.len() != 36 {
                    return Err(BadId { kind: $kind });
                }
                Uuid::try_parse(s).map($name).map_err(|_| BadId { kind: $kind })
            }
        }

        /// As its `Display` text, so JSON holds the same form as keys.
        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.collect_str(self)
            }
        }

        /// From the hyphenated text only, as `FromStr`.
        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let text = String::deserialize(d)?;
                text.parse().map_err(serde::de::Error::custom)
            }
        }
    };
}

uuid_id!(
    /// A match: the name of its stream and of every Redis key it owns.
    MatchId,
    "match id"
);

uuid_id!(
    /// A player, bound to a session token by the gateway.
    PlayerId,
    "player id"
);

uuid_id!(
    /// A match-making ticket (a seek is a ticket too).
    TicketId,
    "ticket id"
);

uuid_id!(
    /// A tenant: an organiser on the platform API.
    TenantId,
    "tenant id"
);

uuid_id!(
    /// A tournament.
    TournamentId,
    "tournament id"
);

/// Who holds a seat.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum SeatHolder {
    /// Anyone may claim it.
    Open,
    /// Claimed by this player.
    Player(PlayerId),
    /// Kept for this player (a challenge); only they may claim it.
    Reserved(PlayerId),
    /// Played by the built-in bot of that name.
    Bot(String),
}

/// The player every built-in bot's seat is reserved for and taken by (the gateway's bot
/// runner): one identity for every runner, so whichever gateway holds the lease plays the
/// seats the others reserved. Which bot plays a match is kept with the match.
pub const BOT_PLAYER: PlayerId =
    PlayerId(Uuid::from_u128(0x0000_0000_0000_4000_8000_0000_0000_b075));

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_and_parse_round_trip_hyphenated_only() {
        let id = MatchId::random();
        let text = id.to_string();
        assert_eq!(text.len(), 36);
        assert_eq!(text.parse::<MatchId>(), Ok(id));
        assert!(id.0.simple().to_string().parse::<MatchId>().is_err());
        assert!(format!("{{{text}}}").parse::<MatchId>().is_err());
        assert_eq!("nope".parse::<PlayerId>(), Err(BadId { kind: "player id" }));
    }

    #[test]
    fn byte_order_is_text_order() {
        // Redis orders equal scores by member text; the memory store orders by MatchId.
        let mut ids: Vec<MatchId> = (0..64).map(|_| MatchId::random()).collect();
        ids.sort();
        let texts: Vec<String> = ids.iter().map(|i| i.to_string()).collect();
        let mut sorted = texts.clone();
        sorted.sort();
        assert_eq!(texts, sorted);
    }
}
