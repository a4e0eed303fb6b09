//! Knockout (single elimination): the bracket size is the next power of two, seeds are laid
//! out so that seeds 1 and 2 can meet only in the final (1 to 4 only from the semifinals, and
//! so on), and the missing entrants are byes for the top seeds. The format ([`Knockout`]).

use crate::bracket::Match;
use crate::model::{
    DrawRule, Error, Game, GameNo, Outcome, Player, PlayerResult, Recorded, RoundPairing,
};
use crate::rules::{FormatRules, Words};
use crate::standings::Standing;
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

/// Under [`DrawRule::Replay`](crate::DrawRule::Replay), the draws in a row after which the
/// higher seed advances (the first game and two replays).
pub const MAX_DRAWS: usize = 3;

/// The most entrants a knockout takes: a bracket of 2^16.
pub const MAX_KNOCKOUT_ENTRANTS: usize = 1 << 16;

/// The standard seeding of a bracket of `size` (a power of two, at least 2): the seed (1-based)
/// at each position, top to bottom; positions 2i and 2i+1 meet in the first round.
///
/// Built by doubling: each seed s of the half-size layout is followed by its first-round
/// opponent `size + 1 - s`. So 8 gives 1 8 4 5 2 7 3 6: seeds 1 and 2 in opposite halves, 1 to 4
/// in different quarters, and seed s (s <= size - n) facing a seed beyond n when n entrants.
pub fn bracket_order(size: u32) -> Vec<u32> {
    debug_assert!(size >= 2 && size.is_power_of_two());
    let mut order = vec![1u32];
    let mut len = 1u32;
    while len < size {
        len *= 2;
        order = order.iter().flat_map(|&s| [s, len + 1 - s]).collect();
    }
    order
}

/// The number of rounds for `entrants`: log2 of the bracket size.
pub fn knockout_rounds(entrants: usize) -> u32 {
    entrants.max(2).next_power_of_two().trailing_zeros()
}

/// How one match of the next round starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// A game, in seat order.
    Game([Player; 2]),
    /// One side advances without playing.
    Bye(Player),
    /// Nobody is left on either side.
    Empty,
}

/// Single elimination with standard seeding.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Knockout {
    /// What a drawn game leads to.
    pub draws: DrawRule,
}

impl FormatRules for Knockout {
    fn name(&self) -> &'static str {
        "knockout"
    }

    fn label(&self) -> String {
        "Knockout".to_string()
    }

    /// A bracket of 2^16: its matches are kept per round, and the rounds are log2 of it.
    fn max_entrants(&self) -> usize {
        MAX_KNOCKOUT_ENTRANTS
    }

    fn total_rounds(&self, entrants: usize) -> u32 {
        knockout_rounds(entrants)
    }

    /// Every game but the champion's knocks one player out.
    fn planned_games(&self, entrants: usize) -> u64 {
        entrants.saturating_sub(1) as u64
    }

    /// The bracket's next matches; a side with nobody (a bracket bye, a withdrawn player)
    /// sends the other through with a bye.
    fn pair_round(&self, t: &Tournament, round: u32) -> Result<RoundPairing, Error> {
        let mut games = Vec::new();
        let mut byes = Vec::new();
        for plan in plan(t) {
            match plan {
                Plan::Game(g) => games.push(g),
                Plan::Bye(p) => byes.push(p),
                Plan::Empty => {}
            }
        }
        Ok(RoundPairing { round, games, byes })
    }

    /// The round's matches, from the same sides the pairing came from: each game its match,
    /// each bye a match decided.
    fn round_begun(&self, t: &mut Tournament, games: &[GameNo]) {
        let mut next = games.iter();
        let matches = sides(t)
            .into_iter()
            .map(|sides| {
                let active = |s: Option<Player>| s.filter(|p| !t.is_withdrawn(*p));
                match (active(sides[0]), active(sides[1])) {
                    (Some(_), Some(_)) => {
                        let g = *next.next().expect("one game per match of two");
                        Match { sides, games: vec![g], winner: None }
                    }
                    (Some(p), None) | (None, Some(p)) => {
                        Match { sides, games: Vec::new(), winner: Some(p) }
                    }
                    (None, None) => Match { sides, games: Vec::new(), winner: None },
                }
            })
            .collect::<Vec<_>>();
        for (i, m) in matches.iter().enumerate() {
            for g in &m.games {
                t.game_match[g.index()] = i as u32;
            }
        }
        t.matches.push(matches);
    }

    /// The winner advances; a draw under [`DrawRule::Replay`] starts the replay (seats
    /// swapped, same round) until [`MAX_DRAWS`] draws in a row, after which, as under
    /// [`DrawRule::HigherSeed`], the higher seed advances.
    fn result(&self, t: &mut Tournament, g: Game, outcome: Outcome) -> Recorded {
        let round = g.round as usize - 1;
        let mi = t.game_match[g.no.index()] as usize;
        let higher = |t: &Tournament, [a, b]: [Player; 2]| {
            if t.seed(a) < t.seed(b) { a } else { b }
        };
        let winner = match outcome {
            Outcome::Seat0 => g.players[0],
            Outcome::Seat1 => g.players[1],
            Outcome::Draw => match self.draws {
                DrawRule::HigherSeed => higher(t, g.players),
                DrawRule::Replay if t.matches[round][mi].games.len() >= MAX_DRAWS => {
                    higher(t, g.players)
                }
                DrawRule::Replay => {
                    let players = [g.players[1], g.players[0]];
                    let no = t.start_game(g.round, players);
                    t.game_match[no.index()] = mi as u32;
                    t.matches[round][mi].games.push(no);
                    t.rounds[round].games.push(players);
                    return Recorded::Replay { game: no, players };
                }
            },
        };
        t.matches[round][mi].winner = Some(winner);
        Recorded::Stored
    }

    /// The final's winner (`None` too if every finalist withdrew).
    fn champion(&self, t: &Tournament) -> Option<Player> {
        t.matches.last().and_then(|m| m.first()).and_then(|m| m.winner)
    }

    /// Games only: a knockout bye advances the player and scores nothing.
    fn points(&self, results: &[PlayerResult], _byes: u32) -> u32 {
        results.iter().map(|r| r.points()).sum()
    }

    /// The round reached, then seed.
    fn rank(&self, rows: &mut [Standing]) {
        rows.sort_by_key(|s| (Reverse(s.reached_round), s.seed));
    }

    /// The round lost in, or the bracket's rounds + 1 for the champion (a player through to
    /// a round not yet paired counts as reaching it).
    fn reached_rounds(&self, t: &Tournament) -> Option<Vec<u32>> {
        let mut reached = vec![0; t.entrants()];
        for (r, matches) in t.matches.iter().enumerate() {
            for m in matches {
                for p in m.sides.iter().flatten() {
                    reached[p.index()] = reached[p.index()].max(r as u32 + 1);
                }
                if let Some(w) = m.winner {
                    reached[w.index()] = reached[w.index()].max(r as u32 + 2);
                }
            }
        }
        Some(reached)
    }
}

/// The sides of each match of the next round: the bracket layout for round 1, then the
/// previous round's winners two by two.
fn sides(t: &Tournament) -> Vec<[Option<Player>; 2]> {
    match t.matches.last() {
        None => {
            let size = t.entrants().next_power_of_two() as u32;
            bracket_order(size)
                .chunks(2)
                .map(|c| {
                    let side = |s: u32| t.seed_order().get(s as usize - 1).copied();
                    [side(c[0]), side(c[1])]
                })
                .collect()
        }
        Some(prev) => prev.chunks(2).map(|c| [c[0].winner, c[1].winner]).collect(),
    }
}

/// How each match of the next round starts.
fn plan(t: &Tournament) -> Vec<Plan> {
    let mut seats0 = vec![0u32; t.entrants()];
    for g in t.games() {
        seats0[g.players[0].index()] += 1;
    }
    sides(t)
        .into_iter()
        .map(|sides| {
            let active = |s: Option<Player>| s.filter(|p| !t.is_withdrawn(*p));
            match (active(sides[0]), active(sides[1])) {
                (Some(a), Some(b)) => {
                    // Fewer seat-0 games takes seat 0; equal, the higher seed.
                    let key = |p: Player| (seats0[p.index()], t.seed(p));
                    Plan::Game(if key(a) <= key(b) { [a, b] } else { [b, a] })
                }
                (Some(a), None) | (None, Some(a)) => Plan::Bye(a),
                (None, None) => Plan::Empty,
            }
        })
        .collect()
}

impl Knockout {
    /// Its command-line name.
    pub const NAMES: [&'static str; 1] = ["knockout"];

    /// The knockout `words` name, if they name it.
    pub fn from_words(words: &Words<'_>) -> Option<Self> {
        let draws = if words.higher_seed { DrawRule::HigherSeed } else { DrawRule::Replay };
        Self::NAMES.contains(&words.name).then_some(Knockout { draws })
    }
}

/// Its arm of the API's `TournamentFormat`, each way, with what one service hosts.
#[cfg(feature = "proto")]
mod proto {
    use super::Knockout;
    use crate::model::DrawRule;
    use api::v1::{self, tournament_format::Kind};

    /// The most entrants a hosted knockout takes (its bracket is kept whole).
    pub const MAX_HOSTED_ENTRANTS: usize = 1_024;

    impl Knockout {
        /// Its proto arm.
        pub fn to_proto(&self) -> Kind {
            let draw = match self.draws {
                DrawRule::Replay => v1::KnockoutDraw::Replay,
                DrawRule::HigherSeed => v1::KnockoutDraw::HigherSeed,
            };
            Kind::Knockout(v1::Knockout { draw: draw as i32 })
        }

        /// The knockout of `arm` for `entrants` (an unknown draw rule: replays).
        ///
        /// # Errors
        /// Too many entrants, in words.
        pub fn from_proto(arm: &v1::Knockout, entrants: usize) -> Result<Self, String> {
            if entrants > MAX_HOSTED_ENTRANTS {
                return Err(format!("a knockout takes at most {MAX_HOSTED_ENTRANTS} entrants"));
            }
            let draws = if arm.draw == v1::KnockoutDraw::HigherSeed as i32 {
                DrawRule::HigherSeed
            } else {
                DrawRule::Replay
            };
            Ok(Knockout { draws })
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which half, quarter... (the position divided by `block`) a seed sits in.
    fn block_of(order: &[u32], seed: u32, block: usize) -> usize {
        order.iter().position(|&s| s == seed).unwrap() / block
    }

    #[test]
    fn seeds_meet_late() {
        assert_eq!(bracket_order(2), vec![1, 2]);
        assert_eq!(bracket_order(4), vec![1, 4, 2, 3]);
        assert_eq!(bracket_order(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
        for size in [8u32, 16] {
            let order = bracket_order(size);
            let half = size as usize / 2;
            let quarter = size as usize / 4;
            // 1 and 2 in opposite halves: they can meet only in the final.
            assert_ne!(block_of(&order, 1, half), block_of(&order, 2, half));
            // 1 to 4 in four different quarters: they meet at the semifinals at the earliest.
            let quarters: std::collections::BTreeSet<usize> =
                (1..=4).map(|s| block_of(&order, s, quarter)).collect();
            assert_eq!(quarters.len(), 4);
            // First-round opponents sum to size + 1.
            for pair in order.chunks(2) {
                assert_eq!(pair[0] + pair[1], size + 1);
            }
        }
        assert_eq!(bracket_order(16), vec![1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]);
    }

    #[test]
    fn rounds() {
        assert_eq!(knockout_rounds(2), 1);
        assert_eq!(knockout_rounds(3), 2);
        assert_eq!(knockout_rounds(6), 3);
        assert_eq!(knockout_rounds(8), 3);
        assert_eq!(knockout_rounds(9), 4);
        assert_eq!(knockout_rounds(MAX_KNOCKOUT_ENTRANTS), 16);
    }
}
