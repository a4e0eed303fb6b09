//! The tournament rules, pure (the tournament service, services/tournaments, folds its stored
//! events through them): formats, pairings, results, standings. Pure: no I/O,
//! no async, no clock (times come in as arguments), no hash maps; the same calls always give
//! the same state and the same pairings, so the service can rebuild an event from its log.
//!
//! # Model
//! Entrants are [`Player`]s numbered in entry order, seeded by an optional rating (highest
//! first, unrated last, ties by entry order). Games are numbered ([`GameNo`]) in the order they
//! start; a game is played in seat order (seat 0 moves first) and its [`Outcome`] is recorded by
//! the organiser (forfeits and adjudications included). Points are integer half-points: a win
//! 2, a draw 1, a loss 0, a bye 2 ([`BYE`]: FIDE's pairing-allocated bye).
//!
//! # Formats ([`Format`], [`FormatRules`])
//! Each format is one module implementing [`FormatRules`]; [`Format`], below, is the one list
//! of them and the one place that picks a format's rules. Nothing else matches on a format.
//! A new format: its module, a variant and an arm here, then its proto arm, CLI name and docs
//! outside this crate (docs/tournaments.md, "Adding a format").
//! - Round robin: Berger tables, single or double (seats swapped in the second cycle).
//! - Swiss: Dutch-system pairing ([`swiss`] module docs): never a repeat, at most
//!   one bye per player (to the lowest-ranked who has not had one), seat balance within 1 for
//!   everyone whenever any legal pairing allows it; deterministic; one round of 10,000 players
//!   in under a second (a few tens of milliseconds typically; `cargo bench -p tournament-rules`).
//! - Knockout: standard seeding in a power-of-two bracket, byes to the top seeds, a draw
//!   replayed or won by the higher seed ([`DrawRule`]).
//! - Arena: idle players paired at once by score, winning streaks doubling the points.
//!
//! # Use
//! [`Tournament::new`], then per round [`Tournament::pair_round`] (pure) and
//! [`Tournament::begin_round`] (records it), [`Tournament::record`] per result,
//! [`Tournament::withdraw`] at any time; an arena uses [`Tournament::pair_arena`] and
//! [`Tournament::begin_games`] instead of rounds. [`Tournament::standings`] and
//! [`Tournament::crosstable`] (and their text tables; [`Tournament::crosstable_rows`] for a
//! page of it) read the state at any point.
//!
//! # Layout
//! - [`model`]: the value types, the points scale and [`Error`].
//! - `tournament`: the state and its operations ([`Tournament`]).
//! - `swiss`: one Swiss round's pairing; `matching`: Edmonds' maximum matching behind it.
//! - [`rules`]: [`FormatRules`], what a format is; [`round_robin`], [`swiss`], [`knockout`],
//!   [`arena`]: the formats, one module each; `bracket`: a knockout's matches as the state
//!   keeps them.
//! - [`lifecycle`]: a hosted event's phases (start, pause, resume, round gaps, an arena's waves
//!   and end), with the time passed in.
//! - `standings`: [`Standing`], tie-breaks, [`Crosstable`], text tables.
//! - [`simulate`](mod@simulate): seeded random events and the [`audit`] of the hard rules.
//! - [`interchange`]: [`pair_from_json`], the JSON in/out of `colosseum tournament pair`.

#![forbid(unsafe_code)]
// A format matched with `_ =>` sends a new format down another's path without a compile error.
#![warn(clippy::wildcard_enum_match_arm)]

pub mod arena;
mod bracket;
pub mod interchange;
pub mod knockout;
pub mod lifecycle;
mod matching;
pub mod model;
pub mod round_robin;
pub mod rules;
pub mod simulate;
mod standings;
pub mod swiss;
mod tournament;

pub use arena::{Arena, arena_points};
pub use interchange::pair_from_json;
pub use knockout::Knockout;
pub use knockout::{MAX_DRAWS, MAX_KNOCKOUT_ENTRANTS, bracket_order, knockout_rounds};
pub use lifecycle::{Due, Lifecycle, Phase, Refusal, Start};
pub use model::{
    BYE, DRAW, DrawRule, Entrant, Error, Game, GameNo, LOSS, Outcome, Player, PlayerResult,
    Recorded, RoundPairing, Seat, WIN,
};
pub use round_robin::RoundRobin;
pub use round_robin::{berger_round, berger_rounds};
pub use rules::{FormatRules, Timing};
pub use simulate::{Report, audit, play_round, random_outcome, simulate};
pub use standings::{Cell, Crosstable, CrosstableRow, Standing};
pub use swiss::Swiss;
pub use tournament::{MAX_ENTRANTS, Tournament};

/// The tournament's format: one variant per format module, each holding that format's
/// parameters. Stored as it serializes (`{"Swiss":{"rounds":9}}`), so a variant's name and
/// fields are part of the log.
#[derive(Clone, Copy, PartialEq, Eq, Debug, serde::Serialize, serde::Deserialize)]
pub enum Format {
    /// Everyone plays everyone ([`round_robin`]).
    RoundRobin(RoundRobin),
    /// A Dutch-system Swiss ([`swiss`]).
    Swiss(Swiss),
    /// Single elimination ([`knockout`]).
    Knockout(Knockout),
    /// Continuous pairing of idle players for a while ([`arena`]).
    Arena(Arena),
}

impl Format {
    /// The format's rules: the one match over the formats; everything else asks these.
    pub fn rules(&self) -> &dyn FormatRules {
        match self {
            Format::RoundRobin(f) => f,
            Format::Swiss(f) => f,
            Format::Knockout(f) => f,
            Format::Arena(f) => f,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The log stores formats as they serialize: the shape of the variants before they held
    /// their modules' types, which must keep reading.
    #[test]
    fn formats_serialize_as_stored() {
        let stored = [
            (Format::RoundRobin(RoundRobin { double: true }), r#"{"RoundRobin":{"double":true}}"#),
            (Format::Swiss(Swiss { rounds: 9 }), r#"{"Swiss":{"rounds":9}}"#),
            (
                Format::Knockout(Knockout { draws: DrawRule::HigherSeed }),
                r#"{"Knockout":{"draws":"HigherSeed"}}"#,
            ),
            (Format::Arena(Arena { duration_ms: 60_000 }), r#"{"Arena":{"duration_ms":60000}}"#),
        ];
        for (format, json) in stored {
            assert_eq!(serde_json::to_string(&format).expect("json"), json);
            assert_eq!(serde_json::from_str::<Format>(json).expect("format"), format);
        }
        assert_eq!(
            serde_json::to_string(&Phase::BetweenRounds).expect("json"),
            r#""between_rounds""#
        );
    }
}
