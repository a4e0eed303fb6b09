//! The registry: every game Colosseum hosts, by name, with its family and title. `visit`
//! is the one place in the workspace where a game's name becomes its type; everything
//! that works "for any game" (the host, records, bots by name, moves as JSON) goes
//! through it.

use api::v1;
use bots::{JsonBot, Roster};
use rules_core::{Game, MoveTime};
use rules_duel::Masterminds;
use rules_goofspiel::{DuelingMonsters, Gops, Hexspiel};
use rules_placement::CurePlague;
use std::fmt;
use wire::{Wire, WireError};
// A game adds its import, its GAMES entry and its `visit` arm below, one line each.

/// What every hosted game provides: the rules, their protobuf shapes and their bots.
pub trait Hostable: Game + Wire + Roster {}

impl<G: Game + Wire + Roster> Hostable for G {}

/// A rules-engine family: the engine deployment that hosts a group of games.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    /// GOPS, Dueling Monsters, Hexspiel.
    Goofspiel,
    /// Cure & Plague.
    Placement,
    /// Masterminds Duel.
    Duel,
}

impl Family {
    /// Every family, in deployment order.
    pub const ALL: [Family; 3] = [Family::Goofspiel, Family::Placement, Family::Duel];

    /// The family's name (in `FAMILIES`, logs and messages).
    pub const fn as_str(self) -> &'static str {
        match self {
            Family::Goofspiel => "goofspiel",
            Family::Placement => "placement",
            Family::Duel => "duel",
        }
    }

    /// The family called `name` (exactly as `as_str` writes it).
    pub fn parse(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// The environment variable that lists the family's engine URLs.
    pub const fn env_var(self) -> &'static str {
        match self {
            Family::Goofspiel => "ENGINE_GOOFSPIEL_URL",
            Family::Placement => "ENGINE_PLACEMENT_URL",
            Family::Duel => "ENGINE_DUEL_URL",
        }
    }
}

impl fmt::Display for Family {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so that widths (`{:<10}`) apply as to a string.
        f.pad(self.as_str())
    }
}

/// Static facts about a hosted game.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// The name used in scripts, records and the API.
    pub name: &'static str,
    /// The rules-engine family that hosts it.
    pub family: Family,
    /// One line for humans.
    pub title: &'static str,
}

/// Every hosted game, in the order the README lists them.
pub const GAMES: &[GameInfo] = &[
    GameInfo { name: Gops::NAME, family: Family::Goofspiel, title: "Goofspiel (GOPS)" },
    GameInfo {
        name: DuelingMonsters::NAME,
        family: Family::Goofspiel,
        title: "1,2,3 Goofspiel / Dueling Monsters",
    },
    GameInfo { name: CurePlague::NAME, family: Family::Placement, title: "Cure & Plague" },
    GameInfo { name: Masterminds::NAME, family: Family::Duel, title: "Masterminds Duel" },
    GameInfo { name: Hexspiel::NAME, family: Family::Goofspiel, title: "Hexspiel" },
];

/// Code to run for one game type, chosen by name at run time.
pub trait Visit {
    /// What the code returns.
    type Out;
    /// Runs the code for game `G`.
    fn visit<G: Hostable>(self) -> Self::Out;
}

/// Runs `v` for the game called `name`; `None` for an unknown name.
pub fn visit<V: Visit>(name: &str, v: V) -> Option<V::Out> {
    match name {
        Gops::NAME => Some(v.visit::<Gops>()),
        DuelingMonsters::NAME => Some(v.visit::<DuelingMonsters>()),
        CurePlague::NAME => Some(v.visit::<CurePlague>()),
        Masterminds::NAME => Some(v.visit::<Masterminds>()),
        Hexspiel::NAME => Some(v.visit::<Hexspiel>()),
        _ => None,
    }
}

/// The registry entry of `game`.
pub fn info(game: &str) -> Option<&'static GameInfo> {
    GAMES.iter().find(|g| g.name == game)
}

/// The family that hosts `game`.
pub fn family_of(game: &str) -> Option<Family> {
    info(game).map(|g| g.family)
}

/// The names of all games, for messages.
pub fn names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}

struct Time;

impl Visit for Time {
    type Out = MoveTime;
    fn visit<G: Hostable>(self) -> MoveTime {
        G::MOVE_TIME
    }
}

/// The time per move the rules of `game` set (`None`: no such game). Today no game's
/// time depends on its options. What a match may be given is [`crate::time`]'s.
pub fn move_time(game: &str) -> Option<MoveTime> {
    visit(game, Time)
}

struct Bots;

impl Visit for Bots {
    type Out = &'static [&'static str];
    fn visit<G: Hostable>(self) -> Self::Out {
        G::BOTS
    }
}

/// The bot names of `game`, the default (its strongest) last (empty for an unknown game).
pub fn bot_names(game: &str) -> &'static [&'static str] {
    visit(game, Bots).unwrap_or(&[])
}

struct MakeBot<'a> {
    bot: &'a str,
    seed: [u8; 32],
}

impl Visit for MakeBot<'_> {
    type Out = Option<Box<dyn JsonBot>>;
    fn visit<G: Hostable>(self) -> Self::Out {
        bots::json_bot::<G>(self.bot, self.seed)
    }
}

/// A JSON-speaking bot `bot` of `game`, its choices drawn from `seed`.
pub fn json_bot(game: &str, bot: &str, seed: [u8; 32]) -> Option<Box<dyn JsonBot>> {
    visit(game, MakeBot { bot, seed }).flatten()
}

struct MoveToJson<'a>(&'a v1::Move);

impl Visit for MoveToJson<'_> {
    type Out = Result<serde_json::Value, WireError>;
    fn visit<G: Hostable>(self) -> Self::Out {
        wire::move_to_json::<G>(self.0)
    }
}

/// A public move as the conformance JSON of `game` (for clients that think in JSON).
///
/// # Errors
/// A move of another game or of the wrong shape.
pub fn move_to_json(game: &str, mv: &v1::Move) -> Result<serde_json::Value, WireError> {
    visit(game, MoveToJson(mv)).unwrap_or(Err(WireError::Missing("known game")))
}

struct MoveFromJson<'a>(&'a serde_json::Value);

impl Visit for MoveFromJson<'_> {
    type Out = Result<v1::Move, String>;
    fn visit<G: Hostable>(self) -> Self::Out {
        wire::move_from_json::<G>(self.0)
    }
}

/// The public message of a move written as the conformance JSON of `game` (see
/// [`wire::move_from_json`]).
///
/// # Errors
/// Not a move of that game, in words.
pub fn move_from_json(game: &str, mv: &serde_json::Value) -> Result<v1::Move, String> {
    visit(game, MoveFromJson(mv))
        .unwrap_or_else(|| Err(format!("unknown game {:?}", rules_core::clip(game))))
}
