//! The one host: a match of any game behind the object-safe [`Host`], over the typed
//! `Logged<G>`. Every step becomes a typed step first; two codecs sit on top: JSON
//! (scripts, records, the CLI) and protobuf (the rules engine). Everything else is shared.

use crate::parse::{SetupError, StepError, parse_move, parse_options, parse_step};
use crate::registry::{self, Hostable, Visit};
use api::v1;
use prost::Message;
use rules_core::{
    Audience, Commitment, ErrorCode, EventLog, Match, MatchEvent, Outcome, Refusal, Seat, SeatSet,
    Seed, Step, Tagged, Viewer, WindowLength,
};
use serde_json::Value;
use std::fmt;

/// Why the host did not do what it was asked.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum HostError {
    /// The rules refuse the step (or its move has the wrong shape); nothing changed.
    Refused(StepError),
    /// The match cannot start: an unknown game or bad options.
    Setup(SetupError),
    /// A stored step does not parse or apply: the stream is corrupt.
    Corrupt(String),
}

impl fmt::Display for HostError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HostError::Refused(e) => e.fmt(f),
            HostError::Setup(e) => e.fmt(f),
            HostError::Corrupt(m) => write!(f, "the match's stream does not replay: {m}"),
        }
    }
}

impl std::error::Error for HostError {}

impl From<StepError> for HostError {
    fn from(e: StepError) -> Self {
        HostError::Refused(e)
    }
}

impl From<SetupError> for HostError {
    fn from(e: SetupError) -> Self {
        HostError::Setup(e)
    }
}

/// A step as the rules engine receives it (the proto codec).
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

/// An event encoded as a public `colosseum.v1.Event`, with who may receive it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Encoded {
    /// Who may receive it.
    pub audience: Audience,
    /// The protobuf bytes.
    pub payload: Vec<u8>,
}

/// What an applied step produced: the step for the stream, and its events.
#[derive(Clone, Debug)]
pub struct Applied {
    /// The step in the conformance shape.
    pub step_json: String,
    /// Its events, encoded, with their audiences.
    pub events: Vec<Encoded>,
}

/// What one viewer sees, in the API's shapes.
#[derive(Clone, Debug)]
pub struct ViewOut {
    /// The typed view.
    pub view: v1::View,
    /// The same as the rules' JSON, when asked for.
    pub view_json: Option<String>,
    /// The viewer's legal moves.
    pub legal: Vec<v1::Move>,
}

/// A match of some game.
pub trait Host: Send {
    /// The game's name.
    fn game(&self) -> &'static str;
    /// A copy of the match (to try a step without touching this one).
    fn boxed_clone(&self) -> Box<dyn Host>;

    // Shared by both codecs.

    /// The seats that owe a move.
    fn to_move(&self) -> SeatSet;
    /// How the match ended, once it has.
    fn outcome(&self) -> Option<Outcome>;
    /// The move window of each seat owing a move: its length in ms (`standard_ms` for the
    /// host's per-move time) and whether it may run on into the seat's reserve.
    fn windows(&self, standard_ms: u64) -> Vec<(Seat, u64, bool)>;
    /// The reserve each seat has for the whole match, in ms.
    fn reserve_allowance_ms(&self) -> u64;
    /// SHA-256 of the seed, public from the first event.
    fn commitment(&self) -> Commitment;
    /// The seed, once the match has ended.
    fn revealed_seed(&self) -> Option<Seed>;
    /// The options, every one written out.
    fn options_json(&self) -> Value;
    /// Every applied step, in the conformance shape.
    fn steps_json(&self) -> Vec<Value>;
    /// How many events so far.
    fn event_count(&self) -> usize;
    /// Applies a stored step (its conformance JSON text) while rebuilding.
    ///
    /// # Errors
    /// `Corrupt`: the step does not parse or the rules refuse it.
    fn replay(&mut self, step_json: &str) -> Result<(), HostError>;

    // The JSON codec.

    /// Applies a step whose move is JSON; returns the events it produced.
    ///
    /// # Errors
    /// The refusal; the match is unchanged.
    fn step(&mut self, step: &Step<Value>) -> Result<Vec<Tagged<Value>>, StepError>;
    /// The conformance summary.
    fn summary(&self) -> Value;
    /// What `viewer` may see.
    fn view(&self, viewer: Viewer) -> Value;
    /// The legal moves of `seat` now.
    fn legal_moves(&self, seat: Seat) -> Vec<Value>;
    /// Every event so far, in order.
    fn events(&self) -> Vec<Tagged<Value>>;

    // The proto codec.

    /// Applies a step whose move is the public message; on a refusal nothing changes.
    ///
    /// # Errors
    /// `Refused`: the rules' refusal, or a move of the wrong shape.
    fn step_proto(&mut self, step: StepIn) -> Result<Applied, HostError>;
    /// The stored form (step JSON) of `seat` playing `mv`, without applying it: what tells
    /// a retry from another move under the same idempotency key. None: not a move of
    /// this game.
    fn move_step_json(&self, seat: Seat, mv: &v1::Move) -> Option<String>;
    /// The opening events (version 0), encoded.
    fn opening(&self) -> Vec<Encoded>;
    /// Every event so far, encoded.
    fn encoded_events(&self) -> Vec<Encoded>;
    /// What `viewer` sees; its JSON form too when `json`.
    fn view_proto(&self, viewer: Viewer, json: bool) -> ViewOut;
}

/// A typed match with its log.
#[derive(Clone, Debug)]
pub struct Logged<G: Hostable> {
    options: G::Options,
    inner: Match<G>,
    steps: Vec<Step<G::Move>>,
    log: EventLog<G::Event>,
    /// How many events the match opened with (version 0).
    opening: usize,
}

fn to_json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).expect("rules types serialize to JSON")
}

fn tagged_json<E: serde::Serialize>(t: &Tagged<MatchEvent<E>>) -> Tagged<Value> {
    Tagged { audience: t.audience, event: to_json(&t.event) }
}

fn encode<G: Hostable>(log: &[Tagged<MatchEvent<G::Event>>]) -> Vec<Encoded> {
    log.iter()
        .map(|t| Encoded {
            audience: t.audience,
            payload: wire::match_event_to_proto::<G>(&t.event).encode_to_vec(),
        })
        .collect()
}

impl<G: Hostable> Logged<G> {
    /// Starts a match from typed options.
    ///
    /// # Errors
    /// The options are invalid.
    pub fn new(options: G::Options, seed: Seed) -> Result<Self, SetupError> {
        let mut log = Vec::new();
        let inner =
            Match::new(&options, seed, &mut log).map_err(|e| SetupError::Options(e.to_string()))?;
        let opening = log.len();
        Ok(Logged { options, inner, steps: Vec::new(), log, opening })
    }

    /// The typed match.
    pub fn inner(&self) -> &Match<G> {
        &self.inner
    }

    /// Applies a typed step: what both codecs come down to.
    ///
    /// # Errors
    /// The refusal; nothing changes.
    pub fn apply(&mut self, step: Step<G::Move>) -> Result<usize, Refusal<G::Illegal>> {
        let before = self.log.len();
        self.inner.step(&step, &mut self.log)?;
        self.steps.push(step);
        Ok(before)
    }

    /// A step whose move is JSON, typed. Refusal order: game over, not your turn, then
    /// the move's shape.
    fn typed_json(&self, step: &Step<Value>) -> Result<Step<G::Move>, StepError> {
        Ok(match step {
            Step::Move { seat, mv } => {
                self.inner.check_turn(*seat)?;
                Step::Move { seat: *seat, mv: parse_move::<G>(mv)? }
            }
            Step::Deadline => Step::Deadline,
            Step::Resign(s) => Step::Resign(*s),
        })
    }
}

impl<G: Hostable> Host for Logged<G> {
    fn game(&self) -> &'static str {
        G::NAME
    }

    fn boxed_clone(&self) -> Box<dyn Host> {
        Box::new(self.clone())
    }

    fn to_move(&self) -> SeatSet {
        self.inner.to_move()
    }

    fn outcome(&self) -> Option<Outcome> {
        self.inner.outcome()
    }

    fn windows(&self, standard_ms: u64) -> Vec<(Seat, u64, bool)> {
        self.to_move()
            .iter()
            .map(|s| {
                let w = self.inner.game().window(s);
                let len = match w.length {
                    WindowLength::Standard => standard_ms,
                    WindowLength::FixedMs(ms) => ms,
                };
                (s, len, w.reserve)
            })
            .collect()
    }

    fn reserve_allowance_ms(&self) -> u64 {
        self.inner.game().reserve_allowance_ms()
    }

    fn commitment(&self) -> Commitment {
        self.inner.commitment()
    }

    fn revealed_seed(&self) -> Option<Seed> {
        self.inner.revealed_seed()
    }

    fn options_json(&self) -> Value {
        to_json(&self.options)
    }

    fn steps_json(&self) -> Vec<Value> {
        self.steps.iter().map(to_json).collect()
    }

    fn event_count(&self) -> usize {
        self.log.len()
    }

    fn replay(&mut self, step_json: &str) -> Result<(), HostError> {
        let corrupt = |e: &dyn fmt::Display| HostError::Corrupt(e.to_string());
        let raw: Value = serde_json::from_str(step_json).map_err(|e| corrupt(&e))?;
        let step = parse_step(&raw).map_err(|e| corrupt(&e))?;
        let typed = self.typed_json(&step).map_err(|e| corrupt(&e))?;
        self.apply(typed).map_err(|e| corrupt(&StepError::from(e)))?;
        Ok(())
    }

    fn step(&mut self, step: &Step<Value>) -> Result<Vec<Tagged<Value>>, StepError> {
        let typed = self.typed_json(step)?;
        let from = self.apply(typed)?;
        Ok(self.log[from..].iter().map(tagged_json).collect())
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

    fn step_proto(&mut self, step: StepIn) -> Result<Applied, HostError> {
        let typed = match step {
            StepIn::Move { seat, mv } => {
                // Refusal order: game over, not your turn, then the move's shape.
                self.inner.check_turn(seat).map_err(StepError::from)?;
                let mv = G::move_from_proto(&mv)
                    .map_err(|e| StepError { code: ErrorCode::BadMove, message: e.to_string() })?;
                Step::Move { seat, mv }
            }
            StepIn::Deadline => Step::Deadline,
            StepIn::Resign(seat) => Step::Resign(seat),
        };
        // As serde writes it (field order kept): the stream stores these bytes.
        let step_json = serde_json::to_string(&typed).expect("rules types serialize to JSON");
        let from = self.apply(typed).map_err(StepError::from)?;
        Ok(Applied { step_json, events: encode::<G>(&self.log[from..]) })
    }

    fn move_step_json(&self, seat: Seat, mv: &v1::Move) -> Option<String> {
        let mv = G::move_from_proto(mv).ok()?;
        serde_json::to_string(&Step::<G::Move>::Move { seat, mv }).ok()
    }

    fn opening(&self) -> Vec<Encoded> {
        encode::<G>(&self.log[..self.opening])
    }

    fn encoded_events(&self) -> Vec<Encoded> {
        encode::<G>(&self.log)
    }

    fn view_proto(&self, viewer: Viewer, json: bool) -> ViewOut {
        // The game's own view: the API carries the match's state (to move, outcome) beside it.
        let view = self.inner.game().view(viewer);
        let legal = match viewer.seat() {
            Some(seat) => {
                let mut moves = Vec::new();
                self.inner.legal_moves(seat, &mut moves);
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
}

struct Start<'a> {
    options: &'a Value,
    seed: Seed,
}

impl Visit for Start<'_> {
    type Out = Result<Box<dyn Host>, SetupError>;
    fn visit<G: Hostable>(self) -> Self::Out {
        let options = parse_options::<G>(self.options)?;
        Ok(Box::new(Logged::<G>::new(options, self.seed)?))
    }
}

/// Starts a match of the game called `game`.
///
/// # Errors
/// An unknown game or invalid options.
pub fn start(game: &str, options: &Value, seed: Seed) -> Result<Box<dyn Host>, SetupError> {
    registry::visit(game, Start { options, seed })
        .unwrap_or_else(|| Err(SetupError::UnknownGame(game.to_string())))
}

/// Starts a match from options as a host receives them: JSON text, empty for defaults.
///
/// # Errors
/// `Setup`: an unknown game, options that are not JSON or not valid.
pub fn start_text(game: &str, options_json: &str, seed: Seed) -> Result<Box<dyn Host>, HostError> {
    if registry::info(game).is_none() {
        return Err(SetupError::UnknownGame(game.to_string()).into());
    }
    let options: Value = if options_json.trim().is_empty() {
        Value::Object(serde_json::Map::new())
    } else {
        serde_json::from_str(options_json).map_err(|e| SetupError::NotJson(e.to_string()))?
    };
    Ok(start(game, &options, seed)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_say_which_kind_they_are() {
        let unknown = start_text("chess", "{}", Seed::ZERO).err().unwrap();
        assert_eq!(unknown, HostError::Setup(SetupError::UnknownGame("chess".into())));
        let text = start_text("gops", "{", Seed::ZERO).err().unwrap();
        assert!(matches!(&text, HostError::Setup(SetupError::NotJson(_))), "{text}");
        assert!(text.to_string().starts_with("options are not JSON: "), "{text}");
        let bad = start_text("gops", r#"{"cards": 99}"#, Seed::ZERO).err().unwrap();
        assert!(matches!(bad, HostError::Setup(SetupError::Options(_))), "{bad}");

        let mut m = start_text("gops", "", Seed::ZERO).unwrap();
        let before = m.event_count();
        let late = m.step_proto(StepIn::Move { seat: Seat::ZERO, mv: v1::Move { game: None } });
        assert!(
            matches!(&late, Err(HostError::Refused(e)) if e.code == ErrorCode::BadMove),
            "{late:?}"
        );
        assert_eq!(m.event_count(), before, "a refusal changes nothing");
        for corrupt in ["not json", r#"{"seat": 0}"#, r#"{"seat": 0, "move": {"card": 99}}"#] {
            let e = m.replay(corrupt).unwrap_err();
            assert!(matches!(e, HostError::Corrupt(_)), "{corrupt}: {e}");
            assert!(e.to_string().starts_with("the match's stream does not replay: "), "{e}");
        }
        m.replay(r#"{"seat": 0, "move": {"card": 1}}"#).unwrap();
        assert_eq!(m.steps_json(), vec![serde_json::json!({"seat": 0, "move": {"card": 1}})]);
    }
}
