//! The placement family of rules: Cure & Plague (rules text 001), a pure state machine
//! over rules-core.
//!
//! # Layout
//! - [`board`]: the unbounded grid, tile shapes, placement checks and enumeration, scoring,
//!   and the board as text.
//! - [`cure_plague`]: the match: two games with roles swapped, items, time windows,
//!   timeouts, views, events and the conformance summary.

pub mod board;
pub mod cure_plague;

pub use board::{Board, Cell, Kind, Score, Shape, TILES_PER_GAME, Tile};
pub use cure_plague::{
    CurePlague, CurePlagueEvent, CurePlagueIllegal, CurePlagueMove, CurePlagueOptions,
    CurePlagueView, Item, ItemSet, OnTimeout, Turn,
};
