//! The goofspiel family of rules: games of sealed bids for revealed prizes.
//!
//! # Layout
//! - [`gops`]: Goofspiel (rules text 003).
//! - [`dueling`]: 1,2,3 Goofspiel / Dueling Monsters (rules text 000).
//! - [`points`]: half-point scores for split ties.

pub mod dueling;
pub mod gops;
pub mod hexspiel;
pub mod points;

pub use dueling::{DuelingMonsters, DuelingMove, DuelingOptions};
pub use gops::{Gops, GopsMove, GopsOptions, Ties};
pub use hexspiel::{Hexspiel, HexspielMove, HexspielOptions};
pub use points::Points;
