//! The game-agnostic rules layer of Colosseum.
//!
//! Pure: no I/O, no async, no clock, no OS randomness. Every game implements [`Game`];
//! [`Match`] wraps one with what all matches share (seed commitment, resignation,
//! refusal order, the end event that reveals the seed).
//!
//! # Layout
//! - [`seat`]: `Seat`, `PerSeat<T>`, `SeatSet`, `Viewer`, `Audience`.
//! - [`cards`]: `CardSet`, the bitset hand every card game uses.
//! - [`seed`]: `Seed`, its `Commitment`, and `MatchRng`, the only source of chance.
//! - [`game`]: the `Game` trait, event sinks, outcomes, move windows.
//! - [`sealed`]: simultaneous moves, sealed until revealed.
//! - [`refusal`]: why a step is refused, in the conformance order.
//! - [`matches`]: `Match<G>`, its events and steps.
//! - [`strict`]: strict JSON parsing for moves and options, and clipping client text.
//! - [`testkit`]: what each viewer received, for leak and determinism tests.

pub mod cards;
pub mod game;
pub mod matches;
pub mod refusal;
pub mod sealed;
pub mod seat;
pub mod seed;
pub mod strict;
pub mod testkit;

pub use cards::{CardSet, Values, is_permutation};
pub use game::{
    Discard, EndReason, Game, MoveTime, OptionsError, Outcome, Sink, Tagged, Window, WindowLength,
};
pub use matches::{EventLog, Match, MatchEvent, MatchView, Step};
pub use refusal::{ErrorCode, Refusal};
pub use sealed::{Resubmission, Sealed};
pub use seat::{Audience, PerSeat, Seat, SeatSet, Viewer};
pub use seed::{Commitment, MatchRng, Seed, SeedError, uniform_below};
pub use strict::{clip, parse_strict};
