//! The time control of a match, in one place: a game's time per move from its rules text
//! and the host's named policies. Every caller (gateway, queues, bulk, CLI) asks [`accept`];
//! the engine, taking what they accepted, asks [`check_rules`].

use crate::registry;
use rules_core::MoveTime;
use std::fmt;

/// The longest time per move any host gives: a week (003: "from one minute to a week").
pub const WEEK_MS: u64 = 7 * 24 * 3_600_000;

/// The times per move a request may ask for, and what it gets when it asks for none (0).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bounds {
    /// The shortest time per move, ms.
    pub min_ms: u64,
    /// The longest, ms.
    pub max_ms: u64,
    /// The time an unset request (0) gets, ms.
    pub default_ms: u64,
}

impl Bounds {
    /// Whether `ms` is within the bounds.
    pub const fn contains(&self, ms: u64) -> bool {
        self.min_ms <= ms && ms <= self.max_ms
    }
}

/// How a match is made, which sets the times per move a host offers where the rules fix
/// none. A time the rules fix applies under every policy.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// A match made on request: the public CreateMatch, a platform's CreateMatches and a
    /// tournament's games, the CLI's `play`. One second to a week, a minute unset: a
    /// host or a platform chooses its own pace, down to fast bot and blitz matches (and
    /// the load and deadline tests), as colosseum.proto and tournaments.proto document.
    Hosted,
    /// A match the lobby pairs (a queue or a seek, rated or casual; the CLI's
    /// `play --queue`). A minute to a week, a minute unset: people paired with strangers
    /// play at the pace the GOPS text promises them ("Every move has a deadline you both
    /// see, from one minute to a week", 003), in every game's queues.
    Queued,
}

impl Policy {
    /// The policy's bounds where the rules fix no time.
    pub const fn bounds(self) -> Bounds {
        match self {
            Policy::Hosted => Bounds { min_ms: 1_000, max_ms: WEEK_MS, default_ms: 60_000 },
            Policy::Queued => Bounds { min_ms: 60_000, max_ms: WEEK_MS, default_ms: 60_000 },
        }
    }

    /// The bounds in words, for messages.
    const fn words(self) -> &'static str {
        match self {
            Policy::Hosted => "one second to one week",
            Policy::Queued => "a minute to a week",
        }
    }
}

/// Why a time per move was refused, with the bounds that would be accepted. Callers
/// answer it INVALID_ARGUMENT, in [`TimeRefused::message`]'s words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TimeRefused {
    /// Outside the policy's bounds.
    OutOfRange {
        /// The time asked for (after an unset one took the default), ms.
        asked_ms: u64,
        /// The policy that was asked.
        policy: Policy,
    },
    /// The rules of the game fix the time per move, and another was asked for.
    Fixed {
        /// The game.
        game: &'static str,
        /// The time asked for, ms.
        asked_ms: u64,
        /// The time the rules fix for one move, ms.
        move_ms: u64,
        /// The reserve the rules give each seat for the match, ms (0: none).
        reserve_ms: u64,
    },
}

impl TimeRefused {
    /// The times that would have been accepted: the policy's, or only the fixed time.
    pub const fn bounds(&self) -> Bounds {
        match *self {
            TimeRefused::OutOfRange { policy, .. } => policy.bounds(),
            TimeRefused::Fixed { move_ms, .. } => {
                Bounds { min_ms: move_ms, max_ms: move_ms, default_ms: move_ms }
            }
        }
    }

    /// The refusal in words, naming the request's `field` (`move_time_ms`,
    /// `queue.move_time_ms`).
    pub fn message(&self, field: &str) -> String {
        match *self {
            TimeRefused::OutOfRange { asked_ms, policy } => {
                let b = policy.bounds();
                format!(
                    "{field} {asked_ms} is outside {} ({}..={})",
                    policy.words(),
                    b.min_ms,
                    b.max_ms
                )
            }
            TimeRefused::Fixed { game, asked_ms, move_ms, reserve_ms } => {
                let reserve = if reserve_ms > 0 {
                    format!(" plus a reserve of {reserve_ms} ms per seat")
                } else {
                    String::new()
                };
                format!(
                    "the rules of {game} fix the time per move at {move_ms} ms{reserve}; \
                     {field} {asked_ms} cannot apply (give 0 or {move_ms})"
                )
            }
        }
    }
}

impl fmt::Display for TimeRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message("move_time_ms"))
    }
}

impl std::error::Error for TimeRefused {}

/// The time per move fixed by the rules of `game`, if they fix it: `Some(Fixed {
/// move_ms, reserve_ms })` for Dueling Monsters, Cure & Plague and Hexspiel; `None` for
/// GOPS and Masterminds (the host's policy applies) and for an unknown game. `options`
/// are the match's options (no game's time depends on them yet).
pub fn fixed_move_time(game: &str, _options: &serde_json::Value) -> Option<MoveTime> {
    registry::move_time(game).filter(|t| *t != MoveTime::Standard)
}

/// The bounds a match of `game` offers under `policy`: only the fixed time where the
/// rules fix one, else the policy's.
pub fn bounds(game: &str, options: &serde_json::Value, policy: Policy) -> Bounds {
    match fixed_move_time(game, options) {
        Some(MoveTime::Fixed { move_ms, .. }) => {
            Bounds { min_ms: move_ms, max_ms: move_ms, default_ms: move_ms }
        }
        _ => policy.bounds(),
    }
}

/// The time per move a match of `game` gets when its maker asks for `asked_ms` (0:
/// unset) under `policy`: unset, the rules' fixed time or the policy's default; else the
/// time asked, if within the policy's bounds and, where the rules fix the time, that time.
///
/// # Errors
/// The refusal, with the bounds, for the caller to answer INVALID_ARGUMENT.
pub fn accept(
    game: &str,
    options: &serde_json::Value,
    asked_ms: u64,
    policy: Policy,
) -> Result<u64, TimeRefused> {
    let fixed = fixed_move_time(game, options);
    let ms = match (asked_ms, fixed) {
        (0, Some(MoveTime::Fixed { move_ms, .. })) => move_ms,
        (0, _) => policy.bounds().default_ms,
        (ms, _) => ms,
    };
    // The policy's range first, for every game, so an absurd time is named as such.
    if !policy.bounds().contains(ms) {
        return Err(TimeRefused::OutOfRange { asked_ms: ms, policy });
    }
    check_rules(game, options, ms)?;
    Ok(ms)
}

/// Whether the rules of `game` let a match have `move_time_ms`: any time where the host's
/// policy applies; 0 (unset) or exactly the fixed time where the rules fix it. The
/// engine's check of what its callers accepted through [`accept`].
///
/// # Errors
/// [`TimeRefused::Fixed`].
pub fn check_rules(
    game: &str,
    options: &serde_json::Value,
    move_time_ms: u64,
) -> Result<(), TimeRefused> {
    match fixed_move_time(game, options) {
        Some(MoveTime::Fixed { move_ms, reserve_ms })
            if move_time_ms != 0 && move_time_ms != move_ms =>
        {
            // The registry's own name: 'static, and the very game the rules are of.
            let game = registry::info(game).map_or("this game", |g| g.name);
            Err(TimeRefused::Fixed { game, asked_ms: move_time_ms, move_ms, reserve_ms })
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fixed_times_follow_the_rules_texts() {
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
        assert_eq!(registry::move_time("chess"), None);
        // A week per move: fine for GOPS, refused for Cure & Plague with the reason.
        assert_eq!(check_rules("gops", &none, WEEK_MS), Ok(()));
        let e = check_rules("cure-plague", &none, WEEK_MS).unwrap_err().to_string();
        assert!(e.contains("60000 ms plus a reserve of 300000 ms"), "{e}");
        assert_eq!(check_rules("cure-plague", &none, 0), Ok(()));
        assert_eq!(check_rules("cure-plague", &none, 60_000), Ok(()));
        assert!(check_rules("hexspiel", &none, 1_000).is_err());
    }

    #[test]
    fn a_request_gets_the_default_or_its_time_within_the_policy() {
        let none = json!({});
        // Made on request: a second to a week, a minute unset.
        assert_eq!(accept("gops", &none, 0, Policy::Hosted), Ok(60_000));
        assert_eq!(accept("gops", &none, 1_000, Policy::Hosted), Ok(1_000));
        assert_eq!(accept("masterminds", &none, WEEK_MS, Policy::Hosted), Ok(WEEK_MS));
        let short = accept("gops", &none, 999, Policy::Hosted).unwrap_err();
        assert_eq!(short, TimeRefused::OutOfRange { asked_ms: 999, policy: Policy::Hosted });
        assert_eq!(short.bounds().min_ms, 1_000);
        assert_eq!(
            short.to_string(),
            "move_time_ms 999 is outside one second to one week (1000..=604800000)"
        );
        assert!(accept("gops", &none, WEEK_MS + 1, Policy::Hosted).is_err());
        // Paired by the lobby: a minute to a week, a minute unset.
        assert_eq!(accept("gops", &none, 0, Policy::Queued), Ok(60_000));
        let e = accept("gops", &none, 59_999, Policy::Queued).unwrap_err();
        assert_eq!(
            e.message("queue.move_time_ms"),
            "queue.move_time_ms 59999 is outside a minute to a week (60000..=604800000)"
        );
        assert_eq!(accept("gops", &none, WEEK_MS, Policy::Queued), Ok(WEEK_MS));
    }

    #[test]
    fn a_time_the_rules_fix_is_the_only_one_under_every_policy() {
        let none = json!({});
        for policy in [Policy::Hosted, Policy::Queued] {
            assert_eq!(accept("cure-plague", &none, 0, policy), Ok(60_000));
            assert_eq!(accept("hexspiel", &none, 60_000, policy), Ok(60_000));
            let e = accept("dueling-monsters", &none, 120_000, policy).unwrap_err();
            assert!(matches!(e, TimeRefused::Fixed { move_ms: 60_000, .. }), "{e:?}");
            assert_eq!(e.bounds(), Bounds { min_ms: 60_000, max_ms: 60_000, default_ms: 60_000 });
            assert!(e.to_string().contains("give 0 or 60000"), "{e}");
            assert_eq!(bounds("hexspiel", &none, policy), e.bounds());
            assert_eq!(bounds("gops", &none, policy), policy.bounds());
        }
        // Out of every range: named as such first, as the callers always have.
        let e = accept("hexspiel", &none, 10, Policy::Hosted).unwrap_err();
        assert!(matches!(e, TimeRefused::OutOfRange { .. }), "{e:?}");
    }
}
