//! The tournament service's domain logic: formats, pairings, results, standings. Pure: no I/O,
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
//! # Formats ([`Format`])
//! - Round robin: Berger tables, single or double (seats swapped in the second cycle).
//! - Swiss: Dutch-system pairing ([`swiss`] module docs): never a repeat, at most
//!   one bye per player (to the lowest-ranked who has not had one), seat balance within 1 for
//!   everyone whenever any legal pairing allows it; deterministic; one round of 10,000 players
//!   in under a second (a few tens of milliseconds typically; `cargo bench -p tournament`).
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
//! - [`round_robin`], [`knockout`], [`arena`]: the other formats' rules.
//! - `standings`: [`Standing`], tie-breaks, [`Crosstable`], text tables.
//! - [`simulate`](mod@simulate): seeded random events and the [`audit`] of the hard rules.
//! - [`interchange`]: [`pair_from_json`], the JSON in/out of `colosseum tournament pair`.

#![forbid(unsafe_code)]

pub mod arena;
pub mod interchange;
pub mod knockout;
mod matching;
pub mod model;
pub mod round_robin;
pub mod simulate;
mod standings;
pub mod swiss;
mod tournament;

pub use arena::arena_points;
pub use interchange::pair_from_json;
pub use knockout::{MAX_DRAWS, MAX_KNOCKOUT_ENTRANTS, bracket_order, knockout_rounds};
pub use model::{
    BYE, DRAW, DrawRule, Entrant, Error, Format, Game, GameNo, LOSS, Outcome, Player, PlayerResult,
    Recorded, RoundPairing, Seat, WIN,
};
pub use round_robin::{berger_round, berger_rounds};
pub use simulate::{Report, audit, play_round, random_outcome, simulate};
pub use standings::{Cell, Crosstable, CrosstableRow, Standing};
pub use tournament::{MAX_ENTRANTS, Tournament};
