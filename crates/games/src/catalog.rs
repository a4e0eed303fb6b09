//! The catalog: every game Colosseum hosts, by name. `visit` is the one place a game's
//! name becomes its type; everything that works "for any game" goes through it.

use rules_core::Game;
use rules_duel::Masterminds;
use rules_goofspiel::Hexspiel;
use rules_goofspiel::{DuelingMonsters, Gops};
use rules_placement::CurePlague;
// Each game adds its import, its GAMES entry and its `visit` arm below, one line each.

/// Static facts about a hosted game.
#[derive(Clone, Copy, Debug)]
pub struct GameInfo {
    /// The name used in scripts, records and the API.
    pub name: &'static str,
    /// The rules-engine family that hosts it.
    pub family: &'static str,
    /// One line for humans.
    pub title: &'static str,
}

/// Every hosted game, in the order the README lists them.
pub const GAMES: &[GameInfo] = &[
    GameInfo { name: Gops::NAME, family: "goofspiel", title: "Goofspiel (GOPS)" },
    GameInfo {
        name: DuelingMonsters::NAME,
        family: "goofspiel",
        title: "1,2,3 Goofspiel / Dueling Monsters",
    },
    GameInfo { name: CurePlague::NAME, family: "placement", title: "Cure & Plague" },
    GameInfo { name: Masterminds::NAME, family: "duel", title: "Masterminds Duel" },
    GameInfo { name: Hexspiel::NAME, family: "goofspiel", title: "Hexspiel" },
];

/// Code to run for one game type, chosen by name at run time.
pub trait Visit {
    /// What the code returns.
    type Out;
    /// Runs the code for game `G`.
    fn visit<G: Game>(self) -> Self::Out;
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

/// The names of all games, for messages.
pub fn names() -> String {
    GAMES.iter().map(|g| g.name).collect::<Vec<_>>().join(", ")
}
