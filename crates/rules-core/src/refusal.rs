//! Why a step was refused: the four codes of the conformance format, in the order they
//! are checked, with a typed reason for rule violations.

use serde::{Deserialize, Serialize};
use std::fmt;

/// The refusal codes, in the order they are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    /// The match has ended.
    GameOver,
    /// The seat owes no move now, or has already made its final move this round.
    NotYourTurn,
    /// The move is not of the game's shape.
    BadMove,
    /// The move is well formed but against the rules.
    IllegalMove,
}

impl ErrorCode {
    /// The code as written in scripts and results.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::GameOver => "game_over",
            ErrorCode::NotYourTurn => "not_your_turn",
            ErrorCode::BadMove => "bad_move",
            ErrorCode::IllegalMove => "illegal_move",
        }
    }
}

/// A refused step. `R` is the game's typed reason for an illegal move.
#[derive(Clone, Debug, PartialEq)]
pub enum Refusal<R> {
    /// The match has ended.
    GameOver,
    /// The seat owes no move now.
    NotYourTurn {
        /// Whether the seat already made its final move this round (else: not its turn).
        already_moved: bool,
    },
    /// The move does not parse as the game's move shape (what was wrong).
    BadMove(String),
    /// The move is against the rules.
    Illegal(R),
}

impl<R> Refusal<R> {
    /// The conformance code.
    pub fn code(&self) -> ErrorCode {
        match self {
            Refusal::GameOver => ErrorCode::GameOver,
            Refusal::NotYourTurn { .. } => ErrorCode::NotYourTurn,
            Refusal::BadMove(_) => ErrorCode::BadMove,
            Refusal::Illegal(_) => ErrorCode::IllegalMove,
        }
    }

    /// The same refusal with the reason mapped (e.g. to a string for a dynamic layer).
    pub fn map<S>(self, f: impl FnOnce(R) -> S) -> Refusal<S> {
        match self {
            Refusal::GameOver => Refusal::GameOver,
            Refusal::NotYourTurn { already_moved } => Refusal::NotYourTurn { already_moved },
            Refusal::BadMove(m) => Refusal::BadMove(m),
            Refusal::Illegal(r) => Refusal::Illegal(f(r)),
        }
    }
}

impl<R: fmt::Display> fmt::Display for Refusal<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::GameOver => f.write_str("the match is over"),
            Refusal::NotYourTurn { already_moved: true } => {
                f.write_str("you have already made your move this round")
            }
            Refusal::NotYourTurn { already_moved: false } => f.write_str("you owe no move now"),
            Refusal::BadMove(m) => write!(f, "not a move of this game: {m}"),
            Refusal::Illegal(r) => r.fmt(f),
        }
    }
}
