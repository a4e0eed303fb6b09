//! The value types every format shares: players, seats, games, outcomes, the points
//! scale (integer half-points) and the one error type. Serde derives are here because these are
//! what the service logs and sends; the tournament state itself is rebuilt from that log.

use serde::{Deserialize, Serialize};
use std::fmt;

/// An entrant: the index in entry order (0-based) of the entrants given to
/// [`Tournament::new`](crate::Tournament::new).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Player(pub u32);

impl Player {
    /// The index as a `usize`, for indexing per-player vectors.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}", self.0)
    }
}

/// One entrant as registered: the seed rating is optional (unrated entrants are seeded last).
#[derive(Clone, Copy, PartialEq, Debug, Default, Serialize, Deserialize)]
pub struct Entrant {
    /// The seed rating; must be finite.
    pub rating: Option<f64>,
}

/// A game's number: games are numbered 0, 1, 2, ... in the order they were started, across the
/// whole tournament (replays and arena games included).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(transparent)]
pub struct GameNo(pub u32);

impl GameNo {
    /// The number as a `usize`, for indexing the game list.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One of a game's two seats. Seat 0 moves first (think of it as white).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum Seat {
    /// The first mover.
    Zero,
    /// The second mover.
    One,
}

impl Seat {
    /// 0 or 1.
    pub fn index(self) -> usize {
        match self {
            Seat::Zero => 0,
            Seat::One => 1,
        }
    }

    /// The other seat.
    pub fn other(self) -> Seat {
        match self {
            Seat::Zero => Seat::One,
            Seat::One => Seat::Zero,
        }
    }
}

/// Who won a game, as the organiser records it: a forfeit or an adjudication is recorded as the
/// outcome it awards.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum Outcome {
    /// The player in seat 0 won.
    Seat0,
    /// The player in seat 1 won.
    Seat1,
    /// Drawn.
    Draw,
}

impl Outcome {
    /// The outcome seen from `seat`.
    pub fn for_seat(self, seat: Seat) -> PlayerResult {
        match (self, seat) {
            (Outcome::Draw, _) => PlayerResult::Draw,
            (Outcome::Seat0, Seat::Zero) | (Outcome::Seat1, Seat::One) => PlayerResult::Win,
            _ => PlayerResult::Loss,
        }
    }

    /// The outcome in which `seat` wins.
    pub fn win_for(seat: Seat) -> Outcome {
        match seat {
            Seat::Zero => Outcome::Seat0,
            Seat::One => Outcome::Seat1,
        }
    }
}

/// A game's result from one player's side.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub enum PlayerResult {
    /// Won.
    Win,
    /// Drawn.
    Draw,
    /// Lost.
    Loss,
}

impl PlayerResult {
    /// Points for this result on the standard scale ([`WIN`], [`DRAW`], [`LOSS`]).
    pub fn points(self) -> u32 {
        match self {
            PlayerResult::Win => WIN,
            PlayerResult::Draw => DRAW,
            PlayerResult::Loss => LOSS,
        }
    }
}

/// Points are integer half-points, so no score is ever a float: a win is 2.
pub const WIN: u32 = 2;
/// A draw: half a point.
pub const DRAW: u32 = 1;
/// A loss.
pub const LOSS: u32 = 0;
/// A bye in Swiss or round robin scores as a win: FIDE's usual "pairing-allocated bye", one
/// point. (A knockout bye only advances the player and scores nothing.)
pub const BYE: u32 = 2;

/// What happens to a drawn knockout game.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
pub enum DrawRule {
    /// The same two replay with seats swapped, as a new game in the same round, which the
    /// tournament starts itself ([`Recorded::Replay`]); after
    /// [`MAX_DRAWS`](crate::knockout::MAX_DRAWS) draws in a row the higher seed advances.
    Replay,
    /// A draw sends the higher seed through.
    HigherSeed,
}

/// Everything that can go wrong. Requests that would break an invariant are refused and leave
/// the tournament unchanged.
#[derive(Clone, PartialEq, Debug)]
pub enum Error {
    /// Fewer than 2 entrants.
    TooFewEntrants {
        /// How many were given.
        entrants: usize,
    },
    /// More entrants than the format supports.
    TooManyEntrants {
        /// How many were given.
        entrants: usize,
        /// The format's limit.
        max: usize,
    },
    /// A seed rating that is NaN or infinite.
    InvalidRating {
        /// Whose.
        player: Player,
    },
    /// A Swiss of zero rounds.
    ZeroRounds,
    /// The operation does not exist in this format (rounds in an arena, or arena games in a
    /// round-based format).
    WrongFormat,
    /// The current round still has games without a result.
    RoundIncomplete {
        /// The round in progress.
        round: u32,
    },
    /// Every round has been played (or the arena is closed).
    Finished,
    /// A pairing for another round than the next one.
    WrongRound {
        /// The next round's number.
        expected: u32,
        /// The number given.
        got: u32,
    },
    /// A player index out of range.
    UnknownPlayer(Player),
    /// A player appears twice in a pairing.
    DuplicatePlayer(Player),
    /// A withdrawn player in a pairing.
    WithdrawnPlayer(Player),
    /// An arena player who is still in a game without a result.
    Busy(Player),
    /// A Swiss pairing that leaves out an active player.
    Unpaired(Player),
    /// A Swiss pairing of two players who have already met.
    Repeat([Player; 2]),
    /// A second bye for a player in a Swiss.
    SecondBye(Player),
    /// A Swiss pairing with a wrong number of byes (one when the active players are odd, none
    /// otherwise).
    ByeCount {
        /// The number required.
        expected: usize,
        /// The number given.
        got: usize,
    },
    /// A round robin or knockout pairing that is not the scheduled one.
    NotScheduled,
    /// Fewer than two active players are left to pair.
    NotEnoughPlayers,
    /// No pairing of the next round satisfies the hard constraints (no repeat, one bye at most):
    /// too many rounds for the players.
    NoLegalPairing {
        /// The round that cannot be paired.
        round: u32,
    },
    /// A game number that was never started.
    UnknownGame(GameNo),
    /// A game already has a different result.
    Conflict {
        /// The game.
        game: GameNo,
        /// The result it has.
        recorded: Outcome,
    },
    /// The interchange input is not the JSON expected.
    InvalidJson {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// The parser's description.
        message: String,
    },
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::TooFewEntrants { entrants } => {
                write!(f, "a tournament needs at least 2 entrants, got {entrants}")
            }
            Error::TooManyEntrants { entrants, max } => {
                write!(f, "{entrants} entrants, this format takes at most {max}")
            }
            Error::InvalidRating { player } => write!(f, "player {player}: rating is not finite"),
            Error::ZeroRounds => write!(f, "a swiss needs at least one round"),
            Error::WrongFormat => write!(f, "not an operation of this tournament's format"),
            Error::RoundIncomplete { round } => write!(f, "round {round} is not complete"),
            Error::Finished => write!(f, "the tournament is finished"),
            Error::WrongRound { expected, got } => {
                write!(f, "the next round is {expected}, not {got}")
            }
            Error::UnknownPlayer(p) => write!(f, "no player {p}"),
            Error::DuplicatePlayer(p) => write!(f, "player {p} appears twice in the pairing"),
            Error::WithdrawnPlayer(p) => write!(f, "player {p} has withdrawn"),
            Error::Busy(p) => write!(f, "player {p} is still playing"),
            Error::Unpaired(p) => write!(f, "player {p} is missing from the pairing"),
            Error::Repeat([a, b]) => write!(f, "players {a} and {b} have already met"),
            Error::SecondBye(p) => write!(f, "player {p} already had a bye"),
            Error::ByeCount { expected, got } => {
                write!(f, "the pairing needs {expected} bye(s), has {got}")
            }
            Error::NotScheduled => write!(f, "the pairing is not the scheduled one"),
            Error::NotEnoughPlayers => write!(f, "fewer than two active players"),
            Error::NoLegalPairing { round } => {
                write!(f, "round {round} cannot be paired without a repeat or a second bye")
            }
            Error::UnknownGame(g) => write!(f, "no game {}", g.0),
            Error::Conflict { game, recorded } => {
                write!(f, "game {} already has the result {recorded:?}", game.0)
            }
            Error::InvalidJson { line, column, message } => {
                write!(f, "invalid input at line {line}, column {column}: {message}")
            }
        }
    }
}

impl std::error::Error for Error {}

/// One game of the tournament.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Game {
    /// Its number.
    pub no: GameNo,
    /// The round it belongs to (1-based); 0 in an arena, which has no rounds.
    pub round: u32,
    /// The players in seat order: `players[0]` has seat 0.
    pub players: [Player; 2],
    /// The result, once recorded.
    pub outcome: Option<Outcome>,
}

impl Game {
    /// The seat of `p`, if they play in this game.
    pub fn seat_of(&self, p: Player) -> Option<Seat> {
        if self.players[0] == p {
            Some(Seat::Zero)
        } else if self.players[1] == p {
            Some(Seat::One)
        } else {
            None
        }
    }
}

/// The pairing of one round: what [`Tournament::pair_round`](crate::Tournament::pair_round)
/// proposes and [`Tournament::begin_round`](crate::Tournament::begin_round) records.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RoundPairing {
    /// The round's number (1-based).
    pub round: u32,
    /// The games in board order, each in seat order.
    pub games: Vec<[Player; 2]>,
    /// Players who sit the round out with a bye (a win in Swiss and round robin; advancing
    /// without a game in a knockout).
    pub byes: Vec<Player>,
}

/// What [`Tournament::record`](crate::Tournament::record) did.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub enum Recorded {
    /// The result is stored.
    Stored,
    /// The game already had this very result: nothing changed.
    Already,
    /// A knockout draw under [`DrawRule::Replay`]: the result is stored and the replay game
    /// has been started, seats swapped. The caller must have it played and record it like any
    /// other game.
    Replay {
        /// The replay's number.
        game: GameNo,
        /// Its players in seat order.
        players: [Player; 2],
    },
}
