//! The one trait every game implements, and the small types it speaks in: event sinks,
//! outcomes, move windows and option errors. A game is a pure state machine; the
//! `Match` wrapper adds resignation, the seed commitment and the end-of-match event.

use crate::seat::{Audience, Seat, SeatSet, Viewer};
use crate::seed::MatchRng;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::fmt::{self, Debug, Display};

/// An event with the audience allowed to receive it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Tagged<E> {
    /// Who may receive it.
    pub audience: Audience,
    /// What happened.
    pub event: E,
}

/// Where a transition's events go. Games call `emit`; hot loops that need no events pass
/// `Discard`, whose `ENABLED = false` lets a game skip building costly events.
pub trait Sink<E> {
    /// Whether events are kept at all.
    const ENABLED: bool = true;
    /// Receives one event.
    fn emit(&mut self, to: Audience, event: E);
}

/// A sink that drops everything (selfplay, benchmarks).
#[derive(Clone, Copy, Debug, Default)]
pub struct Discard;

impl<E> Sink<E> for Discard {
    const ENABLED: bool = false;
    #[inline(always)]
    fn emit(&mut self, _: Audience, _: E) {}
}

impl<E> Sink<E> for Vec<Tagged<E>> {
    fn emit(&mut self, audience: Audience, event: E) {
        self.push(Tagged { audience, event });
    }
}

/// Why a match ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EndReason {
    /// The rules ran their course (last round, last bout, last tile...).
    Completed,
    /// A seat connected its sides (Hexspiel).
    Connected,
    /// A seat resigned.
    Resigned,
    /// A seat missed a deadline whose penalty is the match.
    MissedDeadline,
    /// A seat broke a rule whose penalty is the match (e.g. stockpiling AP).
    RuleViolation,
    /// The match could not go on and ends without a winner (repeated double timeouts,
    /// a set limit).
    Abandoned,
}

/// How a match ended: the winner (none for a draw or no result) and why.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Outcome {
    /// The winning seat; `None` is a draw or no result.
    pub winner: Option<Seat>,
    /// Why it ended.
    pub reason: EndReason,
}

impl Outcome {
    /// `seat` won for `reason`.
    pub fn win(seat: Seat, reason: EndReason) -> Outcome {
        Outcome { winner: Some(seat), reason }
    }
    /// No winner.
    pub fn draw(reason: EndReason) -> Outcome {
        Outcome { winner: None, reason }
    }
}

/// How long a seat has for the move it owes, in terms the clock service enforces. The
/// rules never read a clock: they say which kind of window applies, the host's time
/// control gives it a length.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// The per-move time: the host's standard, or a fixed length the rules impose.
    pub length: WindowLength,
    /// Whether the seat may draw on a reserve once the per-move time is spent.
    pub reserve: bool,
}

/// The length of a move window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WindowLength {
    /// The match's configured per-move time (e.g. one minute to a week for GOPS).
    Standard,
    /// A fixed number of milliseconds set by the rules (e.g. a Force Rush: 30 s).
    FixedMs(u64),
}

impl Window {
    /// The host's per-move time, no reserve.
    pub const STANDARD: Window = Window { length: WindowLength::Standard, reserve: false };
}

/// What a game's rules say about the time per move: the host's standard applies (its
/// `move_time_ms`), or the rules fix it. A host creating a match of a game whose time is
/// fixed refuses a `move_time_ms` other than unset (0) or the fixed one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MoveTime {
    /// The host's per-move time applies (e.g. GOPS: one minute to a week).
    Standard,
    /// The rules fix the time of an ordinary move, and the reserve each seat has for the
    /// whole match (0: none). Special windows (a Force Rush) are the game's `window`.
    Fixed {
        /// The time for one move, in ms.
        move_ms: u64,
        /// The reserve per seat for the match, in ms.
        reserve_ms: u64,
    },
}

impl MoveTime {
    /// The ordinary window this time gives (the reserve usable when there is one).
    pub const fn window(self) -> Window {
        match self {
            MoveTime::Standard => Window::STANDARD,
            MoveTime::Fixed { move_ms, reserve_ms } => {
                Window { length: WindowLength::FixedMs(move_ms), reserve: reserve_ms > 0 }
            }
        }
    }
}

/// A problem with a game's options: which option, and what is wrong with it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OptionsError {
    /// The option's name as in the conformance format.
    pub option: &'static str,
    /// What is wrong, in plain words.
    pub problem: String,
}

impl OptionsError {
    /// An error about `option`.
    pub fn new(option: &'static str, problem: impl Into<String>) -> Self {
        OptionsError { option, problem: problem.into() }
    }
}

impl Display for OptionsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "option `{}`: {}", self.option, self.problem)
    }
}

impl std::error::Error for OptionsError {}

/// A two-seat game as a pure state machine.
///
/// Determinism contract: the same options, the same `MatchRng` and the same calls give
/// the same events and the same state. Implementations use no clock, no OS randomness
/// and no hash-map iteration. A refused move leaves the state untouched.
pub trait Game: Clone + Debug + Send + Sync + 'static {
    /// The name used in scripts, records and the API (`gops`, `dueling-monsters`...).
    const NAME: &'static str;
    /// Whether both seats may owe a move at once (sealed, revealed together).
    const SIMULTANEOUS: bool;
    /// Whether the rules hide anything from a seat.
    const HIDDEN_INFORMATION: bool;

    /// The time per move as the rules text sets it (default: the host's standard).
    /// `window` and `reserve_allowance_ms` follow it unless a game overrides them.
    const MOVE_TIME: MoveTime = MoveTime::Standard;

    /// The game's options, as in the conformance format (every field has a default).
    type Options: Clone + Debug + Default + Serialize + DeserializeOwned + Send + Sync;
    /// A move, as in the conformance format.
    type Move: Clone + Debug + PartialEq + Serialize + DeserializeOwned + Send + Sync;
    /// Why a well-formed move is against the rules. Its `Display` is shown to the seat
    /// that made the move, so it may name only what that seat already knows.
    type Illegal: Clone + Debug + Display + PartialEq + Send + Sync;
    /// What happened, for the audience each event is tagged with.
    type Event: Clone + Debug + PartialEq + Serialize + Send + Sync;
    /// What one viewer may see of the state.
    type View: Clone + Debug + Serialize + Send + Sync;
    /// The conformance summary of the state.
    type Summary: Serialize;

    /// Validates the options and sets up the match, drawing any hidden setup (a prize
    /// order, default strengths) from `rng`.
    ///
    /// # Errors
    /// An option out of range or inconsistent with the others.
    fn new(
        options: &Self::Options,
        rng: &mut MatchRng,
        out: &mut impl Sink<Self::Event>,
    ) -> Result<Self, OptionsError>;

    /// The seats that owe a move now (those the clock runs for; empty once over).
    fn to_move(&self) -> SeatSet;

    /// Whether `seat` may submit now. Usually the seats that owe a move; a game that
    /// lets a seat replace its sealed move says so here.
    fn can_submit(&self, seat: Seat) -> bool {
        self.to_move().contains(seat)
    }

    /// Whether `seat` has already made its final move of this round: a refusal then says
    /// so rather than "not your turn". Default: never (turn-based games).
    fn has_moved(&self, _seat: Seat) -> bool {
        false
    }

    /// The match ended outside the rules (a resignation). A game whose summary or view
    /// shows whose turn it is clears that here. Default: nothing to do.
    fn conclude(&mut self, _outcome: Outcome) {}

    /// Appends every legal move of `seat` to `out` (a function of what `seat` knows).
    fn legal_moves(&self, seat: Seat, out: &mut Vec<Self::Move>);

    /// Applies `seat`'s move. Called only when `can_submit(seat)`.
    ///
    /// # Errors
    /// The move is against the rules; the state is unchanged and nothing was emitted.
    fn apply(
        &mut self,
        seat: Seat,
        mv: &Self::Move,
        rng: &mut MatchRng,
        out: &mut impl Sink<Self::Event>,
    ) -> Result<(), Self::Illegal>;

    /// The current deadline passed: every seat in `to_move()` is late and the game's own
    /// penalty applies.
    fn deadline(&mut self, rng: &mut MatchRng, out: &mut impl Sink<Self::Event>);

    /// The move window of `seat` (meaningful while it owes a move).
    fn window(&self, _seat: Seat) -> Window {
        Self::MOVE_TIME.window()
    }

    /// The reserve each seat has for the whole match, in ms (0: none). A window with
    /// `reserve: true` may run past its length by what the seat has left of it; the clock
    /// keeps the account, the rules say whether the reserve may be used.
    fn reserve_allowance_ms(&self) -> u64 {
        match Self::MOVE_TIME {
            MoveTime::Standard => 0,
            MoveTime::Fixed { reserve_ms, .. } => reserve_ms,
        }
    }

    /// What `viewer` may see now. Built from scratch for that viewer: hidden values are
    /// never put in and filtered out later.
    fn view(&self, viewer: Viewer) -> Self::View;

    /// How the rules ended the match, once they have.
    fn outcome(&self) -> Option<Outcome>;

    /// The state in the conformance summary shape.
    fn summary(&self) -> Self::Summary;
}
