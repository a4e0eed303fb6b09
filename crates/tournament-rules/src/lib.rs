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
//! A new format: its module (its rules, its command-line names, its proto arm each way),
//! a variant and its arms here, then its message in the proto and its docs
//! (ARCHITECTURE.md, "Adding a tournament format").
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
pub use rules::{FormatRules, Timing, Words};
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

    /// Every format's command-line names.
    pub fn names() -> Vec<&'static str> {
        [&RoundRobin::NAMES[..], &Swiss::NAMES, &Knockout::NAMES, &Arena::NAMES].concat()
    }

    /// The format the command line's `words` name, each format reading its own.
    ///
    /// # Errors
    /// A name no format has (the names listed).
    pub fn from_words(words: &Words<'_>) -> Result<Format, String> {
        RoundRobin::from_words(words)
            .map(Format::RoundRobin)
            .or_else(|| Swiss::from_words(words).map(Format::Swiss))
            .or_else(|| Knockout::from_words(words).map(Format::Knockout))
            .or_else(|| Arena::from_words(words).map(Format::Arena))
            .ok_or_else(|| {
                format!("unknown format {:?}: {}", words.name, Format::names().join(", "))
            })
    }
}

/// A format as the API carries it (`colosseum.v1.TournamentFormat`), each format's arm its
/// module's (`to_proto`, `from_proto`, with what one service hosts).
#[cfg(feature = "proto")]
impl Format {
    /// The proto of a format.
    pub fn to_proto(&self) -> api::v1::TournamentFormat {
        let kind = match self {
            Format::RoundRobin(f) => f.to_proto(),
            Format::Swiss(f) => f.to_proto(),
            Format::Knockout(f) => f.to_proto(),
            Format::Arena(f) => f.to_proto(),
        };
        api::v1::TournamentFormat { kind: Some(kind) }
    }

    /// The format of a request's `format` for `entrants`, within what one service hosts.
    ///
    /// # Errors
    /// No format, or one out of bounds, in words (for the `format` field).
    pub fn from_proto(
        format: Option<&api::v1::TournamentFormat>,
        entrants: usize,
    ) -> Result<Format, String> {
        use api::v1::tournament_format::Kind;
        match format.and_then(|f| f.kind.as_ref()) {
            None => Err("format is required: round_robin, swiss, knockout or arena".into()),
            Some(Kind::RoundRobin(arm)) => {
                RoundRobin::from_proto(arm, entrants).map(Format::RoundRobin)
            }
            Some(Kind::Swiss(arm)) => Swiss::from_proto(arm, entrants).map(Format::Swiss),
            Some(Kind::Knockout(arm)) => Knockout::from_proto(arm, entrants).map(Format::Knockout),
            Some(Kind::Arena(arm)) => Arena::from_proto(arm, entrants).map(Format::Arena),
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

    /// Every command-line name reads back as its format, which says itself in words.
    #[test]
    fn each_format_reads_its_names_and_says_its_label() {
        let words = |name| Words { name, rounds: 9, duration_ms: 30 * 60_000, higher_seed: true };
        let expected = [
            ("swiss", Format::Swiss(Swiss { rounds: 9 }), "Swiss, 9 rounds"),
            ("round-robin", Format::RoundRobin(RoundRobin { double: false }), "Round robin"),
            (
                "double-round-robin",
                Format::RoundRobin(RoundRobin { double: true }),
                "Double round robin",
            ),
            ("knockout", Format::Knockout(Knockout { draws: DrawRule::HigherSeed }), "Knockout"),
            ("arena", Format::Arena(Arena { duration_ms: 30 * 60_000 }), "Arena, 30 minutes"),
        ];
        let mut names = Format::names();
        names.sort_unstable();
        let mut listed: Vec<_> = expected.iter().map(|(n, _, _)| *n).collect();
        listed.sort_unstable();
        assert_eq!(names, listed, "every name is tested");
        for (name, format, label) in expected {
            assert_eq!(Format::from_words(&words(name)), Ok(format), "{name}");
            assert_eq!(format.rules().label(), label);
        }
        assert_eq!(
            Format::from_words(&words("ladder")),
            Err("unknown format \"ladder\": round-robin, double-round-robin, swiss, knockout, arena"
                .into())
        );
    }

    /// Each format's proto arm round-trips, and what one service does not host is refused in
    /// words.
    #[cfg(feature = "proto")]
    #[test]
    fn each_format_round_trips_its_proto_arm_within_the_hosted_bounds() {
        let formats = [
            Format::RoundRobin(RoundRobin { double: true }),
            Format::Swiss(Swiss { rounds: 9 }),
            Format::Knockout(Knockout { draws: DrawRule::HigherSeed }),
            Format::Knockout(Knockout { draws: DrawRule::Replay }),
            Format::Arena(Arena { duration_ms: 60_000 }),
        ];
        for format in formats {
            assert_eq!(Format::from_proto(Some(&format.to_proto()), 16), Ok(format));
        }
        let refused = |format: Format, entrants| {
            Format::from_proto(Some(&format.to_proto()), entrants).expect_err("refused")
        };
        assert!(refused(Format::RoundRobin(RoundRobin { double: false }), 1_025).contains("1024"));
        assert!(
            refused(Format::Knockout(Knockout { draws: DrawRule::Replay }), 1_025).contains("1024")
        );
        assert!(refused(Format::Swiss(Swiss { rounds: 51 }), 100).contains("1 to 50"));
        assert!(refused(Format::Swiss(Swiss { rounds: 8 }), 8).contains("fewer than the entrants"));
        assert!(refused(Format::Arena(Arena { duration_ms: 59_999 }), 8).contains("1 minute"));
        assert_eq!(
            Format::from_proto(None, 8),
            Err("format is required: round_robin, swiss, knockout or arena".into())
        );
    }
}
