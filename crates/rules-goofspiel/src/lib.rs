//! The goofspiel family of rules: games of sealed bids for revealed prizes.
//!
//! # Layout
//! - [`gops`]: Goofspiel (rules text 003).
//! - [`dueling_monsters`]: 1,2,3 Goofspiel / Dueling Monsters (rules text 000).
//! - [`hexspiel`]: Hexspiel, Goofspiel bids for turns on a hex board (rules text 004).
//! - [`points`]: half-point scores for split ties.

pub mod dueling_monsters;
pub mod gops;
pub mod hexspiel;
pub mod points;

pub use dueling_monsters::{DuelingMonsters, DuelingMonstersMove, DuelingMonstersOptions};
pub use gops::{Gops, GopsMove, GopsOptions, Ties};
pub use hexspiel::{Hexspiel, HexspielMove, HexspielOptions};
pub use points::Points;
