//! GOPS bots. `PrizeBot` bids the prize's own value. `StrongBot` plays the exact
//! equilibrium of the remaining game once few cards remain (each round a small matrix
//! game over the cards in hand, solved by linear programming, with the future prizes
//! averaged over as the rules draw them: uniformly), and a rank-matching heuristic before.

use crate::matrix::solve;
use crate::{Bot, BotRng, Seen};
use rules_core::{CardSet, Seat};
use rules_goofspiel::Gops;
use rules_goofspiel::gops::{GopsMove, GopsView, Ties};
// The endgame table is only looked up, never iterated: its order cannot decide a move.
#[allow(clippy::disallowed_types)]
use std::collections::HashMap;

/// Bids the card equal to the prize (it always holds it: prizes and cards are both
/// 1..cards and each prize comes once).
#[derive(Clone, Copy, Debug, Default)]
pub struct PrizeBot;

impl Bot<Gops> for PrizeBot {
    fn choose(&mut self, seen: &Seen<'_, Gops>, legal: &[GopsMove], _rng: &mut BotRng) -> GopsMove {
        let prize = seen.view().prize.map(i64::from).unwrap_or(0);
        legal.iter().copied().find(|m| m.card == prize).unwrap_or(legal[0])
    }
}

/// With this many cards or fewer in hand, the strong bot solves the rest of the game.
pub const ENDGAME_CARDS: u32 = 5;

/// A position of the remaining game, from the bot's side.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
struct Position {
    mine: CardSet,
    theirs: CardSet,
    /// Prizes still face down.
    left: CardSet,
    prize: u8,
    pile: u16,
    /// My score minus theirs, in half points.
    diff: i32,
}

/// Equilibrium endgames, a sound heuristic before.
#[derive(Debug)]
pub struct StrongBot {
    // Lookups only, never iterated: the order of a HashMap cannot influence a move.
    #[allow(clippy::disallowed_types)]
    memo: HashMap<(Position, Ties), f64>,
}

impl Default for StrongBot {
    fn default() -> Self {
        Self::new()
    }
}

impl StrongBot {
    /// A bot with an empty endgame table.
    #[allow(clippy::disallowed_types)]
    pub fn new() -> Self {
        StrongBot { memo: HashMap::new() }
    }

    /// The payoff matrix of `p`: rows my cards, columns theirs, entries my expected
    /// match score (win 1, draw 1/2, loss 0) under equilibrium play afterwards.
    fn matrix(&mut self, p: Position, ties: Ties) -> Vec<Vec<f64>> {
        let theirs: Vec<u8> = p.theirs.iter().collect();
        p.mine.iter().map(|i| theirs.iter().map(|&j| self.after(p, i, j, ties)).collect()).collect()
    }

    /// My expected score after bidding `i` against `j` in `p`.
    fn after(&mut self, p: Position, i: u8, j: u8, ties: Ties) -> f64 {
        let stake = i32::from(p.prize) + i32::from(p.pile);
        let (mut diff, mut pile) = (p.diff, 0u16);
        match i.cmp(&j) {
            std::cmp::Ordering::Greater => diff += 2 * stake,
            std::cmp::Ordering::Less => diff -= 2 * stake,
            std::cmp::Ordering::Equal if ties == Ties::Rollover => pile = stake as u16,
            std::cmp::Ordering::Equal => {}
        }
        let mut mine = p.mine;
        mine.remove(i);
        let mut theirs = p.theirs;
        theirs.remove(j);
        if p.left.is_empty() {
            return score(diff);
        }
        let n = p.left.len() as f64;
        p.left
            .iter()
            .map(|q| {
                let mut left = p.left;
                left.remove(q);
                self.value(Position { mine, theirs, left, prize: q, pile, diff }, ties)
            })
            .sum::<f64>()
            / n
    }

    fn value(&mut self, p: Position, ties: Ties) -> f64 {
        // Decided already: no remaining stake can change the sign of the difference.
        let at_stake = 2 * (i32::from(p.prize) + i32::from(p.pile) + p.left.sum() as i32);
        if p.diff > at_stake {
            return 1.0;
        }
        if p.diff < -at_stake {
            return 0.0;
        }
        if let Some(&v) = self.memo.get(&(p, ties)) {
            return v;
        }
        let v = solve(&self.matrix(p, ties)).value;
        self.memo.insert((p, ties), v);
        v
    }

    fn heuristic(view: &GopsView, me: Seat) -> u8 {
        let mine = view.hands[me];
        let prize = view.prize.unwrap_or(1);
        // Rank of the prize among the prizes still to be played, the same rank among my
        // cards; a rolled-over pile raises the stake, so one rank more. Deterministic:
        // mixing in the next rank half the time cost 2 to 3 points of win rate against
        // both benchmark opponents (docs/benchmarks.md); the endgame is where it mixes.
        let mut rank = view.prizes_left.iter().filter(|&q| q < prize).count() as u32;
        if view.pile > 0 {
            rank += 1;
        }
        let rank = rank.min(mine.len() - 1);
        mine.nth(rank).expect("rank is within the hand")
    }
}

fn score(diff: i32) -> f64 {
    match diff.cmp(&0) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    }
}

impl Bot<Gops> for StrongBot {
    fn choose(&mut self, seen: &Seen<'_, Gops>, legal: &[GopsMove], rng: &mut BotRng) -> GopsMove {
        let view = &seen.view();
        let (Some(me), Some(prize)) = (view.viewer, view.prize) else { return legal[0] };
        let mine = view.hands[me];
        let card = if mine.len() <= ENDGAME_CARDS {
            let p = Position {
                mine,
                theirs: view.hands[me.other()],
                left: view.prizes_left,
                prize,
                pile: view.pile,
                diff: i32::from(view.scores[me].halves())
                    - i32::from(view.scores[me.other()].halves()),
            };
            let strategy = solve(&self.matrix(p, view.ties)).row;
            let mut x = rng.unit();
            let cards: Vec<u8> = mine.iter().collect();
            let mut pick = cards[cards.len() - 1];
            for (c, w) in cards.iter().zip(&strategy) {
                if x < *w {
                    pick = *c;
                    break;
                }
                x -= w;
            }
            pick
        } else {
            Self::heuristic(view, me)
        };
        GopsMove { card: i64::from(card) }
    }
}
