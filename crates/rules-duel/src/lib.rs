//! The duel family of rules: Masterminds Duel (rules text 002 and its amendment).
//!
//! # Layout
//! - [`cards`]: the ten cards, strengths, and `clash`, what two cards do to a turn.
//! - [`masterminds`]: the game: bouts and turns, Warp Time's order, effects that reach
//!   into the next turn, views per viewer, deadlines.

pub mod cards;
pub mod masterminds;

pub use cards::{Card, Play, Strength, Strengths, clash};
pub use masterminds::{
    Masterminds, MastermindsEvent, MastermindsIllegal, MastermindsMove, MastermindsOptions,
    MastermindsView,
};
