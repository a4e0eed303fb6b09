//! Arena: idle players are paired again at once, neighbours by score then seed, and a winning
//! streak doubles the points ("on fire", as on lichess). No rounds and no clock: its
//! [`Timing`] says when to pair and end, and the caller passes the time. The format ([`Arena`]).

use crate::model::{Error, Player, PlayerResult, RoundPairing, Seat};
use crate::rules::{FormatRules, Timing, Words};
use crate::standings::Standing;
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

/// How many idle players an arena pairs at once without waiting.
pub const BATCH: usize = 4;
/// The longest an arena player waits for others to be free before being paired anyway.
pub const WAIT_MS: u64 = 2_000;

/// Continuous pairing of idle players until its time is up.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Arena {
    /// The arena's length from its start.
    pub duration_ms: u64,
}

impl FormatRules for Arena {
    fn name(&self) -> &'static str {
        "arena"
    }

    fn label(&self) -> String {
        format!("Arena, {} minutes", (self.duration_ms + 30_000) / 60_000)
    }

    fn total_rounds(&self, _entrants: usize) -> u32 {
        0
    }

    fn planned_games(&self, _entrants: usize) -> u64 {
        0
    }

    fn timing(&self) -> Option<Timing> {
        Some(Timing { duration_ms: self.duration_ms, batch: BATCH, wait_ms: WAIT_MS })
    }

    /// An arena has no rounds.
    fn pair_round(&self, _t: &Tournament, _round: u32) -> Result<RoundPairing, Error> {
        Err(Error::WrongFormat)
    }

    /// Neighbours by arena points then seed, avoiding an immediate rematch whenever another
    /// choice exists; the player with fewer seat-0 games takes seat 0.
    fn pair_wave(&self, t: &Tournament, idle: &[Player]) -> Vec<[Player; 2]> {
        let n = t.entrants();
        let points = crate::standings::points_by_player(t);
        let mut last_opponent = vec![None; n];
        let mut last_seat = vec![None; n];
        let mut seats = vec![[0u32; 2]; n];
        for g in t.games() {
            for (s, p) in g.players.iter().enumerate() {
                last_opponent[p.index()] = Some(g.players[1 - s]);
                last_seat[p.index()] = Some(if s == 0 { Seat::Zero } else { Seat::One });
                seats[p.index()][s] += 1;
            }
        }
        let list = idle
            .iter()
            .map(|&p| Idle {
                player: p,
                points: points[p.index()],
                seed: t.seed(p) - 1,
                last_opponent: last_opponent[p.index()],
                seats: seats[p.index()],
                last_seat: last_seat[p.index()],
            })
            .collect();
        pair(list)
    }

    /// Over once closed (and every game has its result).
    fn finished(&self, t: &Tournament) -> bool {
        t.is_closed()
    }

    /// Streaks double: [`arena_points`].
    fn points(&self, results: &[PlayerResult], _byes: u32) -> u32 {
        arena_points(results.iter().copied())
    }

    /// Points (streaks included), wins, seed.
    fn rank(&self, rows: &mut [Standing]) {
        rows.sort_by_key(|s| (Reverse(s.points), Reverse(s.wins), s.seed));
    }
}

/// Arena points of one player's results in the order they were played: a win 2, a draw 1, a
/// loss 0, doubled (4 and 2) while on fire, that is after two wins in a row and until a game
/// is not won.
pub fn arena_points(results: impl IntoIterator<Item = PlayerResult>) -> u32 {
    let mut points = 0;
    let mut wins_in_a_row = 0;
    for r in results {
        let factor = if wins_in_a_row >= 2 { 2 } else { 1 };
        points += r.points() * factor;
        wins_in_a_row = if r == PlayerResult::Win { wins_in_a_row + 1 } else { 0 };
    }
    points
}

/// What the arena pairing knows of one idle player.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Idle {
    pub player: Player,
    pub points: u32,
    /// Seed position (0 = top).
    pub seed: u32,
    pub last_opponent: Option<Player>,
    /// Games played in seat 0 and seat 1.
    pub seats: [u32; 2],
    pub last_seat: Option<Seat>,
}

/// Pairs idle players: sorted by points then seed, each takes the next one down who is not their
/// last opponent (nor has them as last opponent); when only an immediate rematch is left, a
/// swap with an earlier pair is tried, and failing that the rematch is played (better than
/// waiting). An odd player out waits for the next call. Seats: the player with fewer seat-0
/// games takes seat 0; equal, the one who last had seat 1; still equal, the higher-ranked.
pub(crate) fn pair(mut idle: Vec<Idle>) -> Vec<[Player; 2]> {
    idle.sort_by_key(|i| (std::cmp::Reverse(i.points), i.seed, i.player));
    let rematch =
        |a: &Idle, b: &Idle| a.last_opponent == Some(b.player) || b.last_opponent == Some(a.player);
    let mut taken = vec![false; idle.len()];
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for i in 0..idle.len() {
        if taken[i] {
            continue;
        }
        let free = || (i + 1..idle.len()).filter(|&j| !taken[j]);
        let Some(j) = free().find(|&j| !rematch(&idle[i], &idle[j])).or_else(|| free().next())
        else {
            break;
        };
        taken[i] = true;
        taken[j] = true;
        pairs.push((i, j));
    }
    // Repair rematches by swapping partners with another pair when both new pairs are fresh.
    for k in 0..pairs.len() {
        let (a, b) = pairs[k];
        if !rematch(&idle[a], &idle[b]) {
            continue;
        }
        for l in (0..pairs.len()).rev() {
            let (c, d) = pairs[l];
            if l == k {
                continue;
            }
            if !rematch(&idle[a], &idle[d]) && !rematch(&idle[c], &idle[b]) {
                pairs[k] = (a.min(d), a.max(d));
                pairs[l] = (c.min(b), c.max(b));
                break;
            }
            if !rematch(&idle[a], &idle[c]) && !rematch(&idle[b], &idle[d]) {
                pairs[k] = (a.min(c), a.max(c));
                pairs[l] = (b.min(d), b.max(d));
                break;
            }
        }
    }
    pairs.sort_unstable();
    pairs
        .into_iter()
        .map(|(a, b)| {
            let (x, y) = (&idle[a], &idle[b]);
            let a_first = match x.seats[0].cmp(&y.seats[0]) {
                std::cmp::Ordering::Less => true,
                std::cmp::Ordering::Greater => false,
                std::cmp::Ordering::Equal => match (x.last_seat, y.last_seat) {
                    (Some(Seat::One), Some(Seat::Zero)) | (Some(Seat::One), None) => true,
                    (Some(Seat::Zero), Some(Seat::One)) | (None, Some(Seat::One)) => false,
                    _ => true,
                },
            };
            if a_first { [x.player, y.player] } else { [y.player, x.player] }
        })
        .collect()
}

impl Arena {
    /// Its command-line name.
    pub const NAMES: [&'static str; 1] = ["arena"];

    /// The arena `words` name, if they name it.
    pub fn from_words(words: &Words<'_>) -> Option<Self> {
        Self::NAMES.contains(&words.name).then_some(Arena { duration_ms: words.duration_ms })
    }
}

/// Its arm of the API's `TournamentFormat`, each way, with what one service hosts.
#[cfg(feature = "proto")]
mod proto {
    use super::Arena;
    use api::v1::{self, tournament_format::Kind};

    /// The shortest and longest hosted arena.
    pub const HOSTED_MS: std::ops::RangeInclusive<u64> = 60_000..=24 * 3600 * 1000;

    impl Arena {
        /// Its proto arm.
        pub fn to_proto(&self) -> Kind {
            Kind::Arena(v1::Arena { duration_ms: self.duration_ms })
        }

        /// The arena of `arm` (any number of entrants).
        ///
        /// # Errors
        /// A length out of bounds, in words.
        pub fn from_proto(arm: &v1::Arena, _entrants: usize) -> Result<Self, String> {
            if !HOSTED_MS.contains(&arm.duration_ms) {
                return Err("an arena lasts 1 minute to 24 hours (duration_ms)".into());
            }
            Ok(Arena { duration_ms: arm.duration_ms })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use PlayerResult::{Draw, Loss, Win};

    #[test]
    fn streaks_double() {
        assert_eq!(arena_points([]), 0);
        assert_eq!(arena_points([Win, Win]), 4);
        // Third win on fire: 2 + 2 + 4.
        assert_eq!(arena_points([Win, Win, Win]), 8);
        // On fire until a non-win: W W W W D = 2 + 2 + 4 + 4 + 2; then cold again.
        assert_eq!(arena_points([Win, Win, Win, Win, Draw]), 14);
        assert_eq!(arena_points([Win, Win, Win, Win, Draw, Win]), 16);
        // A loss ends it: W W L W W W = 2 + 2 + 0 + 2 + 2 + 4.
        assert_eq!(arena_points([Win, Win, Loss, Win, Win, Win]), 12);
        // A draw is not a win: W D W W = 2 + 1 + 2 + 2; no streak yet.
        assert_eq!(arena_points([Win, Draw, Win, Win]), 7);
        assert_eq!(arena_points([Draw, Draw, Loss]), 2);
    }

    fn idle(p: u32, points: u32, last: Option<u32>) -> Idle {
        Idle {
            player: Player(p),
            points,
            seed: p,
            last_opponent: last.map(Player),
            seats: [0, 0],
            last_seat: None,
        }
    }

    #[test]
    fn neighbours_without_immediate_rematches() {
        // 0 and 1 just played each other; 2 and 3 too.
        let got = pair(vec![
            idle(0, 10, Some(1)),
            idle(1, 9, Some(0)),
            idle(2, 8, Some(3)),
            idle(3, 7, Some(2)),
        ]);
        assert_eq!(got, vec![[Player(0), Player(2)], [Player(1), Player(3)]]);
        // Only two idle players who just met: they play again rather than wait.
        let got = pair(vec![idle(0, 10, Some(1)), idle(1, 9, Some(0))]);
        assert_eq!(got, vec![[Player(0), Player(1)]]);
        // Odd: the last one waits.
        let got = pair(vec![idle(5, 0, None), idle(6, 4, None), idle(7, 2, None)]);
        assert_eq!(got, vec![[Player(6), Player(7)]]);
    }

    #[test]
    fn fewer_first_seats_takes_seat_zero() {
        let mut a = idle(0, 10, None);
        let mut b = idle(1, 10, None);
        a.seats = [3, 1];
        b.seats = [1, 3];
        assert_eq!(pair(vec![a, b]), vec![[Player(1), Player(0)]]);
        a.seats = [2, 2];
        b.seats = [2, 2];
        a.last_seat = Some(Seat::Zero);
        b.last_seat = Some(Seat::One);
        assert_eq!(pair(vec![a, b]), vec![[Player(1), Player(0)]]);
    }
}
