//! What hosts parse before a match runs, and what it answers when something is wrong:
//! options, moves and steps from JSON (strictly), the refusal of a step and why a match
//! cannot start.

use crate::registry;
use rules_core::{ErrorCode, Game, Refusal, Seat, Step};
use serde_json::Value;
use std::fmt;

/// A refused step, ready to show to the seat that made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StepError {
    /// The conformance code.
    pub code: ErrorCode,
    /// What was wrong, in plain words.
    pub message: String,
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code.as_str(), self.message)
    }
}

impl std::error::Error for StepError {}

impl<R: fmt::Display> From<Refusal<R>> for StepError {
    fn from(r: Refusal<R>) -> Self {
        StepError { code: r.code(), message: r.to_string() }
    }
}

/// Why a match could not start.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SetupError {
    /// No game of that name.
    UnknownGame(String),
    /// The options are not an object of the game's options.
    Options(String),
    /// The options text is not JSON (a host receives options as text).
    NotJson(String),
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::UnknownGame(g) => {
                write!(f, "unknown game {g:?}; the games are {}", registry::names())
            }
            SetupError::Options(m) => write!(f, "bad options: {m}"),
            SetupError::NotJson(m) => write!(f, "options are not JSON: {m}"),
        }
    }
}

impl std::error::Error for SetupError {}

/// Parses a game's options from JSON, strictly (`rules_core::parse_strict`: objects
/// where the options have objects, no key left unread). A null option is refused: an
/// option is either given a value or left out.
///
/// # Errors
/// Not an object, a null, an unknown option or a value of the wrong type.
pub fn parse_options<G: Game>(options: &Value) -> Result<G::Options, SetupError> {
    let obj = options
        .as_object()
        .ok_or_else(|| SetupError::Options("options are a JSON object".into()))?;
    if let Some((k, _)) = obj.iter().find(|(_, v)| v.is_null()) {
        return Err(SetupError::Options(format!(
            "option `{}` is null; leave it out for its default",
            rules_core::clip(k)
        )));
    }
    rules_core::parse_strict(options).map_err(SetupError::Options)
}

/// Parses a move of game `G` strictly (an object of the move's shape, never the list
/// form serde's derives also read), naming what is wrong with its shape.
///
/// # Errors
/// `BadMove` with the parser's words.
pub fn parse_move<G: Game>(mv: &Value) -> Result<G::Move, StepError> {
    rules_core::parse_strict(mv).map_err(|e| StepError {
        code: ErrorCode::BadMove,
        message: format!("not a move of this game: {e}"),
    })
}

fn seat_of(v: &Value) -> Result<Seat, String> {
    v.as_u64()
        .and_then(Seat::new)
        .ok_or_else(|| format!("a seat is 0 or 1, not {}", rules_core::clip(&v.to_string())))
}

/// Parses one step: `{"seat": S, "move": {...}}`, `{"deadline": true}` or `{"resign": S}`.
///
/// # Errors
/// What makes it none of the three forms.
pub fn parse_step(v: &Value) -> Result<Step<Value>, String> {
    let obj = v
        .as_object()
        .ok_or_else(|| format!("a step is an object, not {}", rules_core::clip(&v.to_string())))?;
    let mut keys: Vec<&str> = obj.keys().map(String::as_str).collect();
    keys.sort_unstable();
    match keys.as_slice() {
        ["move", "seat"] => {
            Ok(Step::Move { seat: seat_of(&obj["seat"])?, mv: obj["move"].clone() })
        }
        ["deadline"] if obj["deadline"] == Value::Bool(true) => Ok(Step::Deadline),
        ["deadline"] => Err("a deadline step is {\"deadline\": true}".into()),
        ["resign"] => Ok(Step::Resign(seat_of(&obj["resign"])?)),
        _ => Err(format!(
            "a step is {{\"seat\", \"move\"}}, {{\"deadline\": true}} or {{\"resign\"}}; this one has keys {}",
            rules_core::clip(&format!("{keys:?}"))
        )),
    }
}
