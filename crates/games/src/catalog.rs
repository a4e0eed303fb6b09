//! The catalog: every game Colosseum hosts, by name. `visit` is the one place a game's
//! name becomes its type; everything that works "for any game" goes through it.

use rules_core::{Game, MoveTime};
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

struct Time;

impl Visit for Time {
    type Out = MoveTime;
    fn visit<G: Game>(self) -> MoveTime {
        G::MOVE_TIME
    }
}

/// The time per move the rules of `game` set (`None`: no such game). Today no game's
/// time depends on its options.
pub fn move_time(game: &str) -> Option<MoveTime> {
    visit(game, Time)
}

/// The time per move fixed by the rules of `game`, if they fix it: `Some(Fixed {
/// move_ms, reserve_ms })` for Dueling Monsters, Cure & Plague and Hexspiel; `None` for
/// GOPS and Masterminds (the host's `move_time_ms` applies) and for an unknown game.
/// `options` are the match's options (no game's time depends on them yet).
pub fn fixed_move_time(game: &str, _options: &serde_json::Value) -> Option<MoveTime> {
    move_time(game).filter(|t| *t != MoveTime::Standard)
}

/// Whether a host may create a match of `game` with `move_time_ms`: any value when the
/// host's standard applies; 0 (unset) or exactly the fixed time when the rules fix it.
///
/// # Errors
/// The fixed time, in words, for a host to answer with (INVALID_ARGUMENT).
pub fn check_move_time(
    game: &str,
    options: &serde_json::Value,
    move_time_ms: u64,
) -> Result<(), String> {
    match fixed_move_time(game, options) {
        Some(MoveTime::Fixed { move_ms, reserve_ms })
            if move_time_ms != 0 && move_time_ms != move_ms =>
        {
            let reserve = if reserve_ms > 0 {
                format!(" plus a reserve of {reserve_ms} ms per seat")
            } else {
                String::new()
            };
            Err(format!(
                "the rules of {game} fix the time per move at {move_ms} ms{reserve}; \
                 move_time_ms {move_time_ms} cannot apply (give 0 or {move_ms})"
            ))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn move_times_follow_the_rules_texts() {
        let none = json!({});
        assert_eq!(fixed_move_time("gops", &none), None);
        assert_eq!(fixed_move_time("masterminds", &none), None);
        let minute = MoveTime::Fixed { move_ms: 60_000, reserve_ms: 0 };
        assert_eq!(fixed_move_time("dueling-monsters", &none), Some(minute));
        assert_eq!(fixed_move_time("hexspiel", &none), Some(minute));
        assert_eq!(
            fixed_move_time("cure-plague", &none),
            Some(MoveTime::Fixed { move_ms: 60_000, reserve_ms: 300_000 })
        );
        assert_eq!(fixed_move_time("chess", &none), None);
        assert_eq!(move_time("chess"), None);
        // A week per move: fine for GOPS, refused for Cure & Plague with the reason.
        let week = 7 * 24 * 3_600_000;
        assert_eq!(check_move_time("gops", &none, week), Ok(()));
        let e = check_move_time("cure-plague", &none, week).unwrap_err();
        assert!(e.contains("60000 ms plus a reserve of 300000 ms"), "{e}");
        assert_eq!(check_move_time("cure-plague", &none, 0), Ok(()));
        assert_eq!(check_move_time("cure-plague", &none, 60_000), Ok(()));
        assert!(check_move_time("hexspiel", &none, 1_000).is_err());
    }
}
