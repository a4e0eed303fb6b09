//! The formats as the API shows them: a format's proto arm each way, and the bounds the service
//! puts on each (what one replica can host), on top of the `tournament-rules` crate's own. The one
//! place in the service that names the formats; everything else asks the format's rules.

use crate::error::Error;
use api::v1;
use tournament_rules::{Arena, DrawRule, Format, Knockout, RoundRobin, Swiss};

/// The most entrants of a round robin or a knockout (their games grow as the square, or
/// their brackets are kept whole).
pub const MAX_SMALL_ENTRANTS: usize = 1_024;
/// The most swiss rounds.
pub const MAX_ROUNDS: u32 = 50;
/// The shortest and longest arena.
pub const ARENA_MS: std::ops::RangeInclusive<u64> = 60_000..=24 * 3600 * 1000;

/// The proto of a format.
pub fn to_proto(f: &Format) -> v1::TournamentFormat {
    use v1::tournament_format::Kind;
    let kind = match *f {
        Format::RoundRobin(RoundRobin { double }) => Kind::RoundRobin(v1::RoundRobin { double }),
        Format::Swiss(Swiss { rounds }) => Kind::Swiss(v1::Swiss { rounds }),
        Format::Knockout(Knockout { draws }) => Kind::Knockout(v1::Knockout {
            draw: match draws {
                DrawRule::Replay => v1::KnockoutDraw::Replay,
                DrawRule::HigherSeed => v1::KnockoutDraw::HigherSeed,
            } as i32,
        }),
        Format::Arena(Arena { duration_ms }) => Kind::Arena(v1::Arena { duration_ms }),
    };
    v1::TournamentFormat { kind: Some(kind) }
}

/// The format of a CreateTournament for `players` entrants, within the service's bounds.
///
/// # Errors
/// No format, or one out of bounds (the `format` field).
pub fn from_proto(f: Option<&v1::TournamentFormat>, players: usize) -> Result<Format, Error> {
    use v1::tournament_format::Kind;
    let bad = |why: String| Error::from(api_convert::bad("format", why));
    let small = |n: usize| {
        if n > MAX_SMALL_ENTRANTS {
            Err(bad(format!(
                "a round robin or knockout takes at most {MAX_SMALL_ENTRANTS} entrants"
            )))
        } else {
            Ok(())
        }
    };
    match f.and_then(|f| f.kind.as_ref()) {
        None => Err(bad("format is required: round_robin, swiss, knockout or arena".into())),
        Some(Kind::RoundRobin(r)) => {
            small(players)?;
            Ok(Format::RoundRobin(RoundRobin { double: r.double }))
        }
        Some(Kind::Swiss(s)) => {
            if s.rounds == 0 || s.rounds > MAX_ROUNDS || s.rounds as usize >= players {
                return Err(bad(format!(
                    "swiss rounds are 1 to {MAX_ROUNDS} and fewer than the entrants ({players})"
                )));
            }
            Ok(Format::Swiss(Swiss { rounds: s.rounds }))
        }
        Some(Kind::Knockout(k)) => {
            small(players)?;
            let draws = if k.draw == v1::KnockoutDraw::HigherSeed as i32 {
                DrawRule::HigherSeed
            } else {
                DrawRule::Replay
            };
            Ok(Format::Knockout(Knockout { draws }))
        }
        Some(Kind::Arena(a)) => {
            if !ARENA_MS.contains(&a.duration_ms) {
                return Err(bad("an arena lasts 1 minute to 24 hours (duration_ms)".into()));
            }
            Ok(Format::Arena(Arena { duration_ms: a.duration_ms }))
        }
    }
}
