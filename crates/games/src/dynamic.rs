//! A match of any game that speaks JSON: options, moves, events, views and summaries as
//! `serde_json::Value`. Hosts and tools use it; it keeps the full step and event log so a
//! finished match becomes a `Record`.

use crate::catalog::{self, Visit};
use crate::record::{RECORD_FORMAT, Record};
use rules_core::{
    ErrorCode, EventLog, Game, Match, MatchEvent, Outcome, Refusal, Seat, SeatSet, Seed, Step,
    Tagged, Viewer,
};
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
}

impl fmt::Display for SetupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SetupError::UnknownGame(g) => {
                write!(f, "unknown game {g:?}; the games are {}", catalog::names())
            }
            SetupError::Options(m) => write!(f, "bad options: {m}"),
        }
    }
}

impl std::error::Error for SetupError {}

/// A match of some game, driven with JSON.
pub trait DynMatch: Send {
    /// The game's name.
    fn game(&self) -> &'static str;
    /// Applies a step whose move is JSON; returns the events it produced.
    ///
    /// # Errors
    /// The refusal; the match is unchanged.
    fn step(&mut self, step: &Step<Value>) -> Result<Vec<Tagged<Value>>, StepError>;
    /// The seats that owe a move.
    fn to_move(&self) -> SeatSet;
    /// How the match ended, once it has.
    fn outcome(&self) -> Option<Outcome>;
    /// The conformance summary.
    fn summary(&self) -> Value;
    /// What `viewer` may see.
    fn view(&self, viewer: Viewer) -> Value;
    /// The legal moves of `seat` now.
    fn legal_moves(&self, seat: Seat) -> Vec<Value>;
    /// Every event so far, in order.
    fn events(&self) -> Vec<Tagged<Value>>;
    /// The match record (the seed only once the match has ended).
    fn record(&self) -> Record;
}

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

/// A typed match with its log.
pub struct Logged<G: Game> {
    options: G::Options,
    inner: Match<G>,
    steps: Vec<Step<G::Move>>,
    log: EventLog<G::Event>,
}

fn to_json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("rules types serialize to JSON")
}

fn tagged_json<E: serde::Serialize>(t: &Tagged<MatchEvent<E>>) -> Tagged<Value> {
    Tagged { audience: t.audience, event: to_json(&t.event) }
}

impl<G: Game> Logged<G> {
    /// Starts a match from typed options.
    ///
    /// # Errors
    /// The options are invalid.
    pub fn new(options: G::Options, seed: Seed) -> Result<Self, SetupError> {
        let mut log = Vec::new();
        let inner =
            Match::new(&options, seed, &mut log).map_err(|e| SetupError::Options(e.to_string()))?;
        Ok(Logged { options, inner, steps: Vec::new(), log })
    }

    /// The typed match.
    pub fn inner(&self) -> &Match<G> {
        &self.inner
    }

    /// Every event so far, typed.
    pub fn log(&self) -> &EventLog<G::Event> {
        &self.log
    }

    /// How many steps were applied.
    pub fn steps(&self) -> usize {
        self.steps.len()
    }

    /// Applies a typed step.
    ///
    /// # Errors
    /// The refusal; nothing changes.
    pub fn apply(&mut self, step: Step<G::Move>) -> Result<usize, Refusal<G::Illegal>> {
        let before = self.log.len();
        self.inner.step(&step, &mut self.log)?;
        self.steps.push(step);
        Ok(before)
    }
}

impl<G: Game> DynMatch for Logged<G> {
    fn game(&self) -> &'static str {
        G::NAME
    }

    fn step(&mut self, step: &Step<Value>) -> Result<Vec<Tagged<Value>>, StepError> {
        let typed = match step {
            Step::Move { seat, mv } => {
                // Refusal order: game over, not your turn, then the move's shape.
                self.inner.check_turn(*seat)?;
                Step::Move { seat: *seat, mv: parse_move::<G>(mv)? }
            }
            Step::Deadline => Step::Deadline,
            Step::Resign(s) => Step::Resign(*s),
        };
        let from = self.apply(typed)?;
        Ok(self.log[from..].iter().map(tagged_json).collect())
    }

    fn to_move(&self) -> SeatSet {
        self.inner.to_move()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.inner.outcome()
    }

    fn summary(&self) -> Value {
        to_json(&self.inner.summary())
    }

    fn view(&self, viewer: Viewer) -> Value {
        to_json(&self.inner.view(viewer))
    }

    fn legal_moves(&self, seat: Seat) -> Vec<Value> {
        let mut moves = Vec::new();
        self.inner.legal_moves(seat, &mut moves);
        moves.iter().map(to_json).collect()
    }

    fn events(&self) -> Vec<Tagged<Value>> {
        self.log.iter().map(tagged_json).collect()
    }

    fn record(&self) -> Record {
        Record {
            format: RECORD_FORMAT.to_string(),
            game: G::NAME.to_string(),
            options: to_json(&self.options),
            commitment: self.inner.commitment(),
            seed: self.inner.revealed_seed(),
            steps: self.steps.iter().map(to_json).collect(),
            events: self.events(),
            result: self.inner.outcome(),
        }
    }
}

struct Start<'a> {
    options: &'a Value,
    seed: Seed,
}

impl Visit for Start<'_> {
    type Out = Result<Box<dyn DynMatch>, SetupError>;
    fn visit<G: Game>(self) -> Self::Out {
        let options = parse_options::<G>(self.options)?;
        Ok(Box::new(Logged::<G>::new(options, self.seed)?))
    }
}

/// Starts a match of the game called `game`.
///
/// # Errors
/// An unknown game or invalid options.
pub fn start(game: &str, options: &Value, seed: Seed) -> Result<Box<dyn DynMatch>, SetupError> {
    catalog::visit(game, Start { options, seed })
        .unwrap_or_else(|| Err(SetupError::UnknownGame(game.to_string())))
}
