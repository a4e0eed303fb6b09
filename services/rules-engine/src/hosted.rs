//! A match in the engine's memory, of any game: the typed `Logged<G>` behind an object-safe
//! trait, speaking protobuf (moves in, events and views out) and step JSON (the stream).

use crate::error::EngineError;
use api::v1;
use events::StoredEvent;
use games::dynamic::{Logged, parse_move, parse_options};
use games::script::parse_step;
use games::{DynMatch, StepError};
use prost::Message;
use rules_core::{ErrorCode, Outcome, Seat, SeatSet, Seed, Step, Viewer, WindowLength};
use wire::{VisitWire, Wire};

/// A step as the engine receives it.
#[derive(Clone, Debug)]
pub enum StepIn {
    /// A seat's move.
    Move {
        /// The seat.
        seat: Seat,
        /// The move.
        mv: v1::Move,
    },
    /// The current deadline passed.
    Deadline,
    /// A seat resigns.
    Resign(Seat),
}

/// What an applied step produced: the step for the stream, and its events.
pub struct Applied {
    /// The step in the conformance shape.
    pub step_json: String,
    /// Its events, encoded, with their audiences.
    pub events: Vec<StoredEvent>,
}

/// What one viewer sees, in the API's shapes.
pub struct ViewOut {
    /// The typed view.
    pub view: v1::View,
    /// The same as the rules' JSON, when asked for.
    pub view_json: Option<String>,
    /// The viewer's legal moves.
    pub legal: Vec<v1::Move>,
}

/// A hosted match of some game.
pub trait Hosted: Send {
    /// Applies a step; on a refusal nothing changes.
    ///
    /// # Errors
    /// The rules' refusal, or a move of the wrong shape.
    fn apply(&mut self, step: StepIn) -> Result<Applied, EngineError>;
    /// The stored form (step JSON) of `seat` playing `mv`, without applying it: what tells
    /// a retry from another move under the same idempotency key. None: not a move of
    /// this game.
    fn move_step_json(&self, seat: Seat, mv: &v1::Move) -> Option<String>;
    /// Applies a stored step while rebuilding from the stream.
    ///
    /// # Errors
    /// A stored step that does not parse or apply: the stream is corrupt.
    fn replay(&mut self, step_json: &str) -> Result<(), EngineError>;
    /// The opening events (version 0).
    fn opening(&self) -> Vec<StoredEvent>;
    /// What `viewer` sees; its JSON form too when `json` (GetView), not for the views
    /// stored with each step (the typed form is what watchers get).
    fn view(&self, viewer: Viewer, json: bool) -> ViewOut;
    /// Seats owing a move.
    fn to_move(&self) -> SeatSet;
    /// How the match ended.
    fn outcome(&self) -> Option<Outcome>;
    /// The move window of each seat owing a move: its length in ms (`standard_ms` for the
    /// host's per-move time) and whether it may run on into the seat's reserve.
    fn windows(&self, standard_ms: u64) -> Vec<(Seat, u64, bool)>;
    /// The reserve each seat has for the whole match, in ms.
    fn reserve_allowance_ms(&self) -> u64;
    /// The record (the seed only once over).
    fn record_json(&self) -> String;
    /// The commitment, hex.
    fn commitment_hex(&self) -> String;
}

struct HostedMatch<G: Wire> {
    logged: Logged<G>,
}

fn encode<G: Wire>(
    log: &[rules_core::Tagged<rules_core::MatchEvent<G::Event>>],
) -> Vec<StoredEvent> {
    log.iter()
        .map(|t| StoredEvent {
            audience: t.audience,
            payload: wire::match_event_to_proto::<G>(&t.event).encode_to_vec(),
        })
        .collect()
}

fn corrupt(what: impl std::fmt::Display) -> EngineError {
    EngineError::Corrupt(format!("the match's stream does not replay: {what}"))
}

impl<G: Wire> Hosted for HostedMatch<G> {
    fn apply(&mut self, step: StepIn) -> Result<Applied, EngineError> {
        let typed = match step {
            StepIn::Move { seat, mv } => {
                // Refusal order: game over, not your turn, then the move's shape.
                self.logged.inner().check_turn(seat).map_err(StepError::from)?;
                let mv = G::move_from_proto(&mv)
                    .map_err(|e| StepError { code: ErrorCode::BadMove, message: e.to_string() })?;
                Step::Move { seat, mv }
            }
            StepIn::Deadline => Step::Deadline,
            StepIn::Resign(seat) => Step::Resign(seat),
        };
        let step_json = serde_json::to_string(&typed)
            .map_err(|e| EngineError::Corrupt(format!("the step does not serialize: {e}")))?;
        let from = self.logged.apply(typed).map_err(StepError::from)?;
        Ok(Applied { step_json, events: encode::<G>(&self.logged.log()[from..]) })
    }

    fn move_step_json(&self, seat: Seat, mv: &v1::Move) -> Option<String> {
        let mv = G::move_from_proto(mv).ok()?;
        serde_json::to_string(&Step::<G::Move>::Move { seat, mv }).ok()
    }

    fn replay(&mut self, step_json: &str) -> Result<(), EngineError> {
        let raw: serde_json::Value = serde_json::from_str(step_json).map_err(corrupt)?;
        let step = parse_step(&raw).map_err(corrupt)?;
        let typed = match step {
            Step::Move { seat, mv } => {
                Step::Move { seat, mv: parse_move::<G>(&mv).map_err(corrupt)? }
            }
            Step::Deadline => Step::Deadline,
            Step::Resign(s) => Step::Resign(s),
        };
        self.logged.apply(typed).map_err(|e| corrupt(StepError::from(e)))?;
        Ok(())
    }

    fn opening(&self) -> Vec<StoredEvent> {
        encode::<G>(self.logged.log())
    }

    fn view(&self, viewer: Viewer, json: bool) -> ViewOut {
        let view = self.logged.inner().game().view(viewer);
        let legal = match viewer.seat() {
            Some(seat) => {
                let mut moves = Vec::new();
                self.logged.inner().legal_moves(seat, &mut moves);
                moves.iter().map(G::move_to_proto).collect()
            }
            None => Vec::new(),
        };
        ViewOut {
            view: G::view_to_proto(&view),
            view_json: json.then(|| serde_json::to_string(&view).unwrap_or_default()),
            legal,
        }
    }

    fn to_move(&self) -> SeatSet {
        self.logged.inner().to_move()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.logged.inner().outcome()
    }

    fn windows(&self, standard_ms: u64) -> Vec<(Seat, u64, bool)> {
        self.to_move()
            .iter()
            .map(|s| {
                let w = self.logged.inner().game().window(s);
                let len = match w.length {
                    WindowLength::Standard => standard_ms,
                    WindowLength::FixedMs(ms) => ms,
                };
                (s, len, w.reserve)
            })
            .collect()
    }

    fn reserve_allowance_ms(&self) -> u64 {
        self.logged.inner().game().reserve_allowance_ms()
    }

    fn record_json(&self) -> String {
        serde_json::to_string(&self.logged.record()).unwrap_or_default()
    }

    fn commitment_hex(&self) -> String {
        self.logged.inner().commitment().to_hex()
    }
}

struct Start<'a> {
    options_json: &'a str,
    seed: Seed,
}

impl VisitWire for Start<'_> {
    type Out = Result<Box<dyn Hosted>, EngineError>;
    fn visit<G: Wire>(self) -> Self::Out {
        let options: serde_json::Value = if self.options_json.trim().is_empty() {
            serde_json::json!({})
        } else {
            serde_json::from_str(self.options_json)
                .map_err(|e| EngineError::BadOptions(format!("options are not JSON: {e}")))?
        };
        let options =
            parse_options::<G>(&options).map_err(|e| EngineError::BadOptions(e.to_string()))?;
        let logged = Logged::<G>::new(options, self.seed)
            .map_err(|e| EngineError::BadOptions(e.to_string()))?;
        Ok(Box::new(HostedMatch { logged }))
    }
}

/// Starts a match of `game` (validating its options).
///
/// # Errors
/// An unknown game or invalid options (INVALID_ARGUMENT).
pub fn start(game: &str, options_json: &str, seed: Seed) -> Result<Box<dyn Hosted>, EngineError> {
    wire::visit(game, Start { options_json, seed })
        .unwrap_or_else(|| Err(EngineError::UnknownGame(game.to_string())))
}
