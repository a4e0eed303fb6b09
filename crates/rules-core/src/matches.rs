//! `Match<G>`: a game plus what every match has whatever the game: the seed and its
//! commitment, resignation, refusal order (game over, not your turn, illegal) and the
//! public start and end events, the end one revealing the seed.

use crate::game::{EndReason, Game, OptionsError, Outcome, Sink, Tagged};
use crate::refusal::Refusal;
use crate::seat::{Audience, Seat, SeatSet, Viewer};
use crate::seed::{Commitment, MatchRng, Seed};
use serde::ser::SerializeMap;
use serde::{Deserialize, Serialize, Serializer};

/// Every event of a match: the match-level ones around the game's own.
#[derive(Clone, Debug, PartialEq)]
pub enum MatchEvent<E> {
    /// The match started; the seed is committed to publicly.
    Started {
        /// The game's name.
        game: &'static str,
        /// SHA-256 of the seed.
        commitment: Commitment,
    },
    /// An event of the game itself.
    Game(E),
    /// A seat resigned.
    Resigned {
        /// Who resigned.
        seat: Seat,
    },
    /// The match ended; the seed is revealed so anyone can replay it.
    Ended {
        /// How it ended.
        outcome: Outcome,
        /// The seed, now public.
        seed: Seed,
    },
}

// Game events are written as they are (each game tags its own with "type"); the match
// events use type names no game uses.
impl<E: Serialize> Serialize for MatchEvent<E> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            MatchEvent::Game(e) => e.serialize(s),
            MatchEvent::Started { game, commitment } => {
                let mut m = s.serialize_map(Some(3))?;
                m.serialize_entry("type", "match_started")?;
                m.serialize_entry("game", game)?;
                m.serialize_entry("commitment", commitment)?;
                m.end()
            }
            MatchEvent::Resigned { seat } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("type", "resigned")?;
                m.serialize_entry("seat", seat)?;
                m.end()
            }
            MatchEvent::Ended { outcome, seed } => {
                let mut m = s.serialize_map(Some(4))?;
                m.serialize_entry("type", "match_ended")?;
                m.serialize_entry("winner", &outcome.winner)?;
                m.serialize_entry("reason", &outcome.reason)?;
                m.serialize_entry("seed", seed)?;
                m.end()
            }
        }
    }
}

/// One step of a match, in the conformance script shape:
/// `{"seat": S, "move": {...}}`, `{"deadline": true}` or `{"resign": S}`.
#[derive(Clone, Debug, PartialEq)]
pub enum Step<M> {
    /// A seat submits a move.
    Move {
        /// Who moves.
        seat: Seat,
        /// The move.
        mv: M,
    },
    /// The current deadline passes.
    Deadline,
    /// A seat resigns.
    Resign(Seat),
}

impl<M: Serialize> Serialize for Step<M> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Step::Move { seat, mv } => {
                let mut m = s.serialize_map(Some(2))?;
                m.serialize_entry("seat", seat)?;
                m.serialize_entry("move", mv)?;
                m.end()
            }
            Step::Deadline => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("deadline", &true)?;
                m.end()
            }
            Step::Resign(seat) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("resign", seat)?;
                m.end()
            }
        }
    }
}

/// What a viewer sees of a match: the game's view plus the match's own facts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct MatchView<V> {
    /// The game's view for this viewer.
    pub game: V,
    /// The seats that owe a move now.
    pub to_move: Vec<Seat>,
    /// How the match ended, once it has.
    pub outcome: Option<Outcome>,
}

/// A match of game `G` from its first event to its last.
#[derive(Clone, Debug)]
pub struct Match<G: Game> {
    game: G,
    rng: MatchRng,
    seed: Seed,
    end: Option<Outcome>,
}

/// Adapts a match-event sink to the game's event type.
struct GameSink<'a, S>(&'a mut S);

impl<E, S: Sink<MatchEvent<E>>> Sink<E> for GameSink<'_, S> {
    const ENABLED: bool = S::ENABLED;
    #[inline(always)]
    fn emit(&mut self, to: Audience, event: E) {
        self.0.emit(to, MatchEvent::Game(event));
    }
}

/// The events of a match, kept in order.
pub type EventLog<E> = Vec<Tagged<MatchEvent<E>>>;

impl<G: Game> Match<G> {
    /// Starts a match: publishes the seed commitment, then the game's setup events.
    ///
    /// # Errors
    /// The options are invalid.
    pub fn new<S: Sink<MatchEvent<G::Event>>>(
        options: &G::Options,
        seed: Seed,
        out: &mut S,
    ) -> Result<Self, OptionsError> {
        let mut rng = seed.rng();
        // The commitment costs a SHA-256; skip it when nobody keeps events.
        if S::ENABLED {
            out.emit(
                Audience::Public,
                MatchEvent::Started { game: G::NAME, commitment: seed.commitment() },
            );
        }
        let game = G::new(options, &mut rng, &mut GameSink(out))?;
        let mut m = Match { game, rng, seed, end: None };
        m.check_end(out);
        Ok(m)
    }

    /// The game state (for bots and tests inside the rules layer; services use views).
    pub fn game(&self) -> &G {
        &self.game
    }

    /// How the match ended, once it has.
    pub fn outcome(&self) -> Option<Outcome> {
        self.end
    }

    /// Whether the match has ended.
    pub fn is_over(&self) -> bool {
        self.end.is_some()
    }

    /// The seats that owe a move now.
    pub fn to_move(&self) -> SeatSet {
        if self.end.is_some() { SeatSet::NONE } else { self.game.to_move() }
    }

    /// Checks that `seat` may submit now (game over first, then turn).
    ///
    /// # Errors
    /// `GameOver` or `NotYourTurn`.
    pub fn check_turn(&self, seat: Seat) -> Result<(), Refusal<G::Illegal>> {
        if self.end.is_some() {
            return Err(Refusal::GameOver);
        }
        if !self.game.can_submit(seat) {
            return Err(Refusal::NotYourTurn { already_moved: self.game.has_moved(seat) });
        }
        Ok(())
    }

    /// Submits `seat`'s move.
    ///
    /// # Errors
    /// The refusal, in the conformance order; the match is unchanged.
    pub fn submit(
        &mut self,
        seat: Seat,
        mv: &G::Move,
        out: &mut impl Sink<MatchEvent<G::Event>>,
    ) -> Result<(), Refusal<G::Illegal>> {
        self.check_turn(seat)?;
        self.game.apply(seat, mv, &mut self.rng, &mut GameSink(out)).map_err(Refusal::Illegal)?;
        self.check_end(out);
        Ok(())
    }

    /// The current deadline passes.
    ///
    /// # Errors
    /// `GameOver` once the match has ended.
    pub fn deadline(
        &mut self,
        out: &mut impl Sink<MatchEvent<G::Event>>,
    ) -> Result<(), Refusal<G::Illegal>> {
        if self.end.is_some() {
            return Err(Refusal::GameOver);
        }
        self.game.deadline(&mut self.rng, &mut GameSink(out));
        self.check_end(out);
        Ok(())
    }

    /// `seat` resigns; the other seat wins.
    ///
    /// # Errors
    /// `GameOver` once the match has ended.
    pub fn resign(
        &mut self,
        seat: Seat,
        out: &mut impl Sink<MatchEvent<G::Event>>,
    ) -> Result<(), Refusal<G::Illegal>> {
        if self.end.is_some() {
            return Err(Refusal::GameOver);
        }
        out.emit(Audience::Public, MatchEvent::Resigned { seat });
        let outcome = Outcome::win(seat.other(), EndReason::Resigned);
        self.game.conclude(outcome);
        self.finish(outcome, out);
        Ok(())
    }

    /// Applies any step.
    ///
    /// # Errors
    /// As `submit`, `deadline` and `resign`.
    pub fn step(
        &mut self,
        step: &Step<G::Move>,
        out: &mut impl Sink<MatchEvent<G::Event>>,
    ) -> Result<(), Refusal<G::Illegal>> {
        match step {
            Step::Move { seat, mv } => self.submit(*seat, mv, out),
            Step::Deadline => self.deadline(out),
            Step::Resign(seat) => self.resign(*seat, out),
        }
    }

    /// The legal moves of `seat` now (none if it may not submit).
    pub fn legal_moves(&self, seat: Seat, out: &mut Vec<G::Move>) {
        if self.check_turn(seat).is_ok() {
            self.game.legal_moves(seat, out);
        }
    }

    /// What `viewer` may see now.
    pub fn view(&self, viewer: Viewer) -> MatchView<G::View> {
        MatchView {
            game: self.game.view(viewer),
            to_move: self.to_move().iter().collect(),
            outcome: self.end,
        }
    }

    /// The conformance summary.
    pub fn summary(&self) -> G::Summary {
        self.game.summary()
    }

    /// The seed, once the match has ended (it is secret before).
    pub fn revealed_seed(&self) -> Option<Seed> {
        self.end.map(|_| self.seed)
    }

    /// The public commitment to the seed.
    pub fn commitment(&self) -> Commitment {
        self.seed.commitment()
    }

    fn check_end(&mut self, out: &mut impl Sink<MatchEvent<G::Event>>) {
        if let Some(outcome) = self.game.outcome() {
            self.finish(outcome, out);
        }
    }

    fn finish(&mut self, outcome: Outcome, out: &mut impl Sink<MatchEvent<G::Event>>) {
        self.end = Some(outcome);
        out.emit(Audience::Public, MatchEvent::Ended { outcome, seed: self.seed });
    }
}
