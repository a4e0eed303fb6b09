//! Rules types to protobuf and back. Each game implements [`Wire`]: its move from and to
//! the public `Move`, and its events and views to the public `Event` and `View`. Match
//! events (start, resignation, end) are converted here once for every game.
//!
//! # Layout
//! - this file: the trait, the error, match events, and moves as JSON for one game
//!   (by name: `games::registry`).
//! - one module per game.

pub mod cure_plague;
pub mod dueling_monsters;
pub mod gops;
pub mod hexspiel;
pub mod masterminds;

use api::v1;
use rules_core::{Game, MatchEvent, Outcome, Seat};
use std::fmt;

/// A public message that does not carry what it should.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WireError {
    /// The move is for another game than the match's.
    WrongGame {
        /// The match's game.
        expected: &'static str,
    },
    /// A required field is missing or unset.
    Missing(&'static str),
    /// A field may be set only with another value (`shown_as` only for a Bluff).
    OnlyFor {
        /// The field.
        field: &'static str,
        /// What it is for.
        only_for: &'static str,
    },
    /// A repeated field holds more entries than the move can carry.
    TooMany {
        /// The field.
        field: &'static str,
        /// The most it may hold.
        max: usize,
    },
    /// A field holds a value the game has no name for.
    Unknown {
        /// The field.
        field: &'static str,
        /// The value received.
        value: i64,
    },
}

impl fmt::Display for WireError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WireError::WrongGame { expected } => {
                write!(f, "this match plays {expected}: the move must be a {expected} move")
            }
            WireError::Missing(field) => write!(f, "the move has no {field}"),
            WireError::OnlyFor { field, only_for } => {
                write!(f, "{field} is only for {only_for}: leave it unset for any other card")
            }
            WireError::TooMany { field, max } => write!(f, "{field} holds at most {max} entries"),
            WireError::Unknown { field, value } => {
                write!(f, "{field} {value} is not a known value")
            }
        }
    }
}

impl std::error::Error for WireError {}

/// A game's protobuf shapes.
pub trait Wire: Game {
    /// The rules' move from the public message.
    ///
    /// # Errors
    /// A move of another game, or one missing what the game's move shape requires.
    fn move_from_proto(mv: &v1::Move) -> Result<Self::Move, WireError>;
    /// The public message of a move (for listing legal moves).
    fn move_to_proto(mv: &Self::Move) -> v1::Move;
    /// The public message of one of the game's events.
    fn event_to_proto(e: &Self::Event) -> v1::Event;
    /// The public message of a view.
    fn view_to_proto(v: &Self::View) -> v1::View;
}

/// The public message of any match event of game `G`.
pub fn match_event_to_proto<G: Wire>(e: &MatchEvent<G::Event>) -> v1::Event {
    use v1::event::Kind;
    let kind = match e {
        MatchEvent::Started { game, commitment } => Kind::MatchStarted(v1::MatchStarted {
            game: game.to_string(),
            commitment: commitment.to_hex(),
        }),
        MatchEvent::Game(e) => return G::event_to_proto(e),
        MatchEvent::Resigned { seat } => Kind::Resigned(v1::Resigned { seat: seat_u32(*seat) }),
        MatchEvent::Ended { outcome, seed } => Kind::MatchEnded(v1::MatchEnded {
            winner: outcome.winner.map(seat_u32),
            reason: reason(outcome),
            seed: seed.to_hex(),
        }),
    };
    v1::Event { kind: Some(kind) }
}

/// Why a match ended, as the API writes it.
pub fn reason(o: &Outcome) -> String {
    serde_json::to_value(o.reason)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_default()
}

/// A seat as the API numbers it.
pub fn seat_u32(s: Seat) -> u32 {
    s.index() as u32
}

/// A pair of per-seat values.
pub fn pair<T: Copy + Into<i64>>(p: rules_core::PerSeat<T>) -> Option<v1::SeatPair> {
    Some(v1::SeatPair { seat0: p[Seat::ZERO].into(), seat1: p[Seat::ONE].into() })
}

/// A card set.
pub fn cards(c: rules_core::CardSet) -> Option<v1::Cards> {
    Some(v1::Cards { values: c.iter().map(u32::from).collect() })
}

/// The seats for which `f` holds.
pub fn seats_where(f: impl Fn(Seat) -> bool) -> Vec<u32> {
    Seat::BOTH.into_iter().filter(|s| f(*s)).map(seat_u32).collect()
}

/// A public move as the conformance JSON of game `G` (for clients that think in JSON).
///
/// # Errors
/// A move of another game or of the wrong shape.
pub fn move_to_json<G: Wire>(mv: &v1::Move) -> Result<serde_json::Value, WireError> {
    let mv = G::move_from_proto(mv)?;
    Ok(serde_json::to_value(mv).unwrap_or(serde_json::Value::Null))
}

/// The public message of a move written as the conformance JSON of game `G`: parsed
/// strictly (objects only, no key left unread) and refused rather than narrowed when the
/// message cannot carry all of it.
///
/// # Errors
/// Not a move of that game, in words.
pub fn move_from_json<G: Wire>(mv: &serde_json::Value) -> Result<v1::Move, String> {
    let mv: G::Move =
        rules_core::parse_strict(mv).map_err(|e| format!("not a {} move: {e}", G::NAME))?;
    let proto = G::move_to_proto(&mv);
    // The message must carry the whole move: a Hexspiel turn of three cells parses
    // (the rules refuse it by its count) but its message would hold two.
    if G::move_from_proto(&proto).as_ref() != Ok(&mv) {
        return Err(format!(
            "not a {} move the API can carry whole (more cells or values than a move holds)",
            G::NAME
        ));
    }
    Ok(proto)
}
