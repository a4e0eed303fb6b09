//! Round robin: everyone plays everyone by Berger tables (FIDE C.05, Annex 1), the published
//! rotation, so a schedule can be checked against the printed tables; numbers are given by
//! seed (number 1 is the top seed). The format ([`RoundRobin`]) and its rules live here.

use crate::model::{BYE, Error, PlayerResult, RoundPairing};
use crate::rules::{FormatRules, Words};
use crate::standings::Standing;
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

/// Everyone plays everyone, by Berger tables; `double` plays a second cycle with the seats
/// swapped.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RoundRobin {
    /// Two cycles instead of one.
    pub double: bool,
}

impl FormatRules for RoundRobin {
    fn name(&self) -> &'static str {
        if self.double { "double round robin" } else { "round robin" }
    }

    fn label(&self) -> String {
        if self.double { "Double round robin" } else { "Round robin" }.to_string()
    }

    /// One Berger cycle (two if double).
    fn total_rounds(&self, entrants: usize) -> u32 {
        berger_rounds(entrants as u32) * if self.double { 2 } else { 1 }
    }

    /// The Berger table's round (players numbered by seed; the second cycle swaps the
    /// seats); a player whose opponent is the odd-number dummy or has withdrawn gets a bye.
    fn pair_round(&self, t: &Tournament, round: u32) -> Result<RoundPairing, Error> {
        let n = t.entrants() as u32;
        let cycle = berger_rounds(n);
        let (r, swapped) = if round > cycle { (round - cycle, true) } else { (round, false) };
        let mut games = Vec::new();
        let mut byes = Vec::new();
        for (a, b) in berger_round(n, r) {
            let (a, b) = if swapped { (b, a) } else { (a, b) };
            let side = |num: u32| {
                (num <= n).then(|| t.seed_order()[num as usize - 1]).filter(|p| !t.is_withdrawn(*p))
            };
            match (side(a), side(b)) {
                (Some(x), Some(y)) => games.push([x, y]),
                (Some(x), None) | (None, Some(x)) => byes.push(x),
                (None, None) => {}
            }
        }
        Ok(RoundPairing { round, games, byes })
    }

    /// A bye scores as a win.
    fn points(&self, results: &[PlayerResult], byes: u32) -> u32 {
        results.iter().map(|r| r.points()).sum::<u32>() + byes * BYE
    }

    /// Points, Sonneborn-Berger, wins, seed: Buchholz says nothing when everyone meets
    /// everyone.
    fn rank(&self, rows: &mut [Standing]) {
        rows.sort_by_key(|s| {
            (Reverse(s.points), Reverse(s.sonneborn_berger), Reverse(s.wins), s.seed)
        });
    }

    /// Once per cycle: a pair meets once a cycle, a player sits out at most once a cycle.
    fn meetings(&self) -> Option<usize> {
        Some(if self.double { 2 } else { 1 })
    }
}

/// The games of round `round` (1-based, at most `berger_rounds(n)`) of one cycle for `n` players
/// numbered 1..=n, in board order, each as (seat 0, seat 1). With `n` odd a dummy numbered `n + 1`
/// completes the table; its opponent has the bye.
///
/// The rotation: with `m` = n rounded up to even, the last number m stays put and in round r meets
/// number ((r - 1)·m/2 mod (m - 1)) + 1, on board 1, taking seat 1 in odd rounds and seat 0 in
/// even ones; the other boards pair the numbers either side of that one, walking outwards
/// around the circle of 1..m-1, the higher (clockwise) side in seat 0. This reproduces the
/// published tables (for 4: 1-4 2-3 / 4-3 1-2 / 2-4 3-1).
pub fn berger_round(n: u32, round: u32) -> Vec<(u32, u32)> {
    let m = n + n % 2;
    if m < 2 || round == 0 || round > m - 1 {
        return Vec::new();
    }
    let ring = u64::from(m - 1);
    let a = (u64::from(round - 1) * u64::from(m / 2)) % ring;
    let mut games = Vec::with_capacity((m / 2) as usize);
    let first = a as u32 + 1;
    games.push(if round % 2 == 1 { (first, m) } else { (m, first) });
    for k in 1..u64::from(m / 2) {
        let up = ((a + k) % ring) as u32 + 1;
        let down = ((a + ring - k) % ring) as u32 + 1;
        games.push((up, down));
    }
    games
}

/// Rounds in one cycle for `n` players: n - 1 if even, n if odd (everyone sits out once).
pub fn berger_rounds(n: u32) -> u32 {
    (n + n % 2).saturating_sub(1)
}

impl RoundRobin {
    /// Its command-line names.
    pub const NAMES: [&'static str; 2] = ["round-robin", "double-round-robin"];

    /// The round robin `words` name, if they name one.
    pub fn from_words(words: &Words<'_>) -> Option<Self> {
        let double = Self::NAMES.iter().position(|n| *n == words.name)? == 1;
        Some(RoundRobin { double })
    }
}

/// Its arm of the API's `TournamentFormat`, each way, with what one service hosts.
#[cfg(feature = "proto")]
mod proto {
    use super::RoundRobin;
    use api::v1::{self, tournament_format::Kind};

    /// The most entrants a hosted round robin takes (its games grow as the square).
    pub const MAX_HOSTED_ENTRANTS: usize = 1_024;

    impl RoundRobin {
        /// Its proto arm.
        pub fn to_proto(&self) -> Kind {
            Kind::RoundRobin(v1::RoundRobin { double: self.double })
        }

        /// The round robin of `arm` for `entrants`.
        ///
        /// # Errors
        /// Too many entrants, in words.
        pub fn from_proto(arm: &v1::RoundRobin, entrants: usize) -> Result<Self, String> {
            if entrants > MAX_HOSTED_ENTRANTS {
                return Err(format!("a round robin takes at most {MAX_HOSTED_ENTRANTS} entrants"));
            }
            Ok(RoundRobin { double: arm.double })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn four_players_match_the_published_table() {
        assert_eq!(berger_rounds(4), 3);
        assert_eq!(berger_round(4, 1), vec![(1, 4), (2, 3)]);
        assert_eq!(berger_round(4, 2), vec![(4, 3), (1, 2)]);
        assert_eq!(berger_round(4, 3), vec![(2, 4), (3, 1)]);
    }

    #[test]
    fn five_and_six_players_match_the_published_table() {
        // FIDE C.05 Annex 1, 5 or 6 players (with 5, number 6 is the bye).
        let table = [
            vec![(1, 6), (2, 5), (3, 4)],
            vec![(6, 4), (5, 3), (1, 2)],
            vec![(2, 6), (3, 1), (4, 5)],
            vec![(6, 5), (1, 4), (2, 3)],
            vec![(3, 6), (4, 2), (5, 1)],
        ];
        for n in [5, 6] {
            assert_eq!(berger_rounds(n), 5);
            for (r, games) in table.iter().enumerate() {
                assert_eq!(&berger_round(n, r as u32 + 1), games, "n = {n}, round {}", r + 1);
            }
        }
    }

    #[test]
    fn every_pair_meets_once_and_seats_stay_balanced() {
        for n in 2..=24 {
            let m = n + n % 2;
            let mut met = BTreeSet::new();
            let mut seat0 = vec![0i32; m as usize + 1];
            for r in 1..=berger_rounds(n) {
                let games = berger_round(n, r);
                assert_eq!(games.len() as u32, m / 2);
                let mut seen = BTreeSet::new();
                for &(a, b) in &games {
                    assert!(seen.insert(a) && seen.insert(b));
                    assert!(met.insert((a.min(b), a.max(b))), "n = {n}: {a}-{b} twice");
                    seat0[a as usize] += 1;
                    seat0[b as usize] -= 1;
                }
            }
            assert_eq!(met.len() as u32, m * (m - 1) / 2);
            // Berger tables give every player (bar the fixed number) a difference of at most 1.
            for p in 1..m {
                assert!(seat0[p as usize].abs() <= 1, "n = {n}, player {p}");
            }
        }
        assert!(berger_round(4, 4).is_empty());
        assert!(berger_round(4, 0).is_empty());
    }
}
