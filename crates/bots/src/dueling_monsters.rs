//! The Dueling Monsters bot `strong`, an opponent that plays to win rather than at random.
//! Each round is a matrix game over both seats' (black, white) pairs, each entry the
//! estimated chance of winning the bout after that round, solved for a mixed strategy
//! that the bot samples (so it has no fixed pattern of its own to read and exploit).

use crate::matrix::{Workspace, solve_in};
use crate::{Bot, BotRng, Seen};
use rules_core::Seat;
use rules_goofspiel::DuelingMonsters;
use rules_goofspiel::dueling_monsters::{DuelingMonstersMove, DuelingMonstersView};
use std::cmp::Ordering;

/// The most (black, white) pairs a seat can choose from: 3 blacks x 9 whites.
const PAIRS: usize = 27;

/// How much of the other seat's play is its free choice (the rest follows the model of
/// a typical player, [`StrongBot::model`]). At 1 the bot plays the plain equilibrium:
/// it beat random in 88% of 1,000 matches but lost 66% to the habit "black by the
/// prize's third, white = the prize" (which beats random 99.8%). At 0.4 it beats random
/// 98%, that habit 90%, and is even with the plain equilibrium (51.6% of 2,000); tuned
/// over such runs against random, fixed patterns and other settings.
const FREE: f64 = 0.4;

/// Of the model of a typical player, the share that plays uniformly at random.
const UNIFORM: f64 = 0.3;

/// The typical player's spread: the weight of a column falls by e^-2 per black away from
/// the black that matches the prize's rank...
const BLACK_SPREAD: f64 = 2.0;
/// ...and by e^-0.7 per white away from the white that does.
const WHITE_SPREAD: f64 = 0.7;

/// Plays the equilibrium of each round's game, looking one round ahead.
///
/// Rows are its legal moves, columns the other seat's possible ones: the blacks it
/// still holds (public) with every white not shown spent (its hidden whites are unknown,
/// so any of them may still be in its hand). An entry is the chance of winning the bout
/// after the round: the prize goes by the rules' own comparison, and the rest of the
/// bout is estimated from both seats' remaining cards, half as if each future round
/// paired a random card of each, half as if both played their blacks in the order of
/// the prizes (highest black on the highest prize); either way a black decides and a
/// white breaks a tie, and the final margin is taken as normal. So spending a black 3 or
/// a high white on a small prize costs what it takes from the later rounds, and a prize
/// that decides the bout is worth all of it.
///
/// The other seat picks its column freely with probability [`FREE`], else as a typical
/// player would ([`StrongBot::model`]): the bot's strategy is the equilibrium of that
/// blend (a restricted Nash response), still mixed, and it punishes the common habit of
/// matching black and white to the prize.
#[derive(Clone, Debug)]
pub struct StrongBot {
    /// The payoff matrix, row by row (its buffers reused: no allocation per move).
    payoff: Vec<f64>,
    /// The other seat's possible (black, white) pairs.
    columns: Vec<(u8, u8)>,
    /// The typical player's chance of each column.
    model: Vec<f64>,
    /// Indexes into `legal` of the rows.
    rows: Vec<usize>,
    solver: Workspace,
}

impl Default for StrongBot {
    fn default() -> Self {
        Self::new()
    }
}

impl StrongBot {
    /// A bot with its buffers sized for the largest round (27 pairs a side).
    pub fn new() -> Self {
        StrongBot {
            payoff: Vec::with_capacity(PAIRS * PAIRS),
            columns: Vec::with_capacity(PAIRS),
            model: Vec::with_capacity(PAIRS),
            rows: Vec::with_capacity(PAIRS),
            solver: Workspace::with_capacity(PAIRS, PAIRS),
        }
    }

    /// Fills the payoff matrix for seat `me`'s view `v` over `legal`; false when there is
    /// no game to solve (no prize, no possible column, no valid row).
    fn fill(&mut self, me: Seat, v: &DuelingMonstersView, legal: &[DuelingMonstersMove]) -> bool {
        self.payoff.clear();
        self.columns.clear();
        self.rows.clear();
        let Some(prize) = v.prize else { return false };
        let them = me.other();
        // The other seat's whites: any not shown spent may still be in its hand.
        let candidates = ALL_WHITES & !v.shown_whites[them].bits();
        for b in 1..=3u8 {
            if v.blacks[them][usize::from(b - 1)] > 0 {
                for w in 1..=9u8 {
                    if candidates & bit(w) != 0 {
                        self.columns.push((b, w));
                    }
                }
            }
        }
        // My whites are those of my legal moves.
        let mut my_whites = 0u16;
        for (i, mv) in legal.iter().enumerate() {
            if (1..=3).contains(&mv.black) && (1..=9).contains(&mv.white) {
                self.rows.push(i);
                my_whites |= bit(mv.white as u8);
            }
        }
        if self.columns.is_empty() || self.rows.is_empty() || !(1..=9).contains(&prize) {
            return false;
        }
        self.model(v.blacks[them], candidates, v.prizes_left.bits(), prize);
        let rest = Rest::new(v.prizes_left.bits());
        let d = i32::from(v.scores[me]) - i32::from(v.scores[them]);
        let prize = i32::from(prize);
        // After the round each seat holds its cards less the pair it played; how a
        // future round goes factors into a black part (by the two blacks played) and a
        // white part (by the two whites), each tabulated once.
        let blacks = Blacks::new(v.blacks[me], v.blacks[them], v.prizes_left.bits());
        let whites = Whites::new(my_whites, candidates);
        for &i in &self.rows {
            let (b, w) = (legal[i].black as u8, legal[i].white as u8);
            for &(tb, tw) in &self.columns {
                let d = match b.cmp(&tb).then(w.cmp(&tw)) {
                    Ordering::Greater => d + prize,
                    Ordering::Less => d - prize,
                    Ordering::Equal => d,
                };
                let black = blacks.after(b, tb);
                let (wg, wl) = whites.after(w, tw);
                // Random pairing: a future round is won when my black is higher, or
                // equal and my white higher.
                let win = black.higher + black.equal * wg;
                let lose = black.lower + black.equal * wl;
                // Ranked blacks: the prizes their order decides, and those a tie
                // leaves to the whites.
                let ranked = black.ranked + (wg - wl) * black.ranked_ties;
                self.payoff.push(rest.chance(d, win, lose, ranked));
            }
        }
        // The blend: each entry keeps FREE of itself, the rest is its row's payoff
        // against the typical player.
        let n = self.columns.len();
        for row in self.payoff.chunks_exact_mut(n) {
            let typical: f64 = row.iter().zip(&self.model).map(|(x, p)| x * p).sum();
            for x in row {
                *x = FREE * *x + (1.0 - FREE) * typical;
            }
        }
        true
    }

    /// The typical player's chance of each column: mostly the black and white at the
    /// prize's rank among the prizes still to play (the highest prize, its highest black
    /// and white; whites by their rank among the candidates), less the farther a pair
    /// is from that, mixed with uniform play.
    fn model(&mut self, blacks: [u8; 3], candidates: u16, left: u16, prize: u8) {
        self.model.clear();
        let all = left | bit(prize);
        let rank = (all & (bit(prize) - 1)).count_ones();
        let prizes = all.count_ones();
        let held: u32 = blacks.iter().map(|&c| u32::from(c)).sum();
        let mut k = rank * held / prizes;
        let mut black = 3u8;
        for (b, &c) in (1..=3u8).zip(&blacks) {
            if k < u32::from(c) {
                black = b;
                break;
            }
            k -= u32::from(c);
        }
        let k = rank * candidates.count_ones() / prizes;
        let white = (1..=9u8).filter(|&x| candidates & bit(x) != 0).nth(k as usize).unwrap_or(9);
        let mut total = 0.0;
        for &(b, w) in &self.columns {
            let far = BLACK_SPREAD * f64::from(b.abs_diff(black))
                + WHITE_SPREAD * f64::from(w.abs_diff(white));
            let p = (-far).exp();
            self.model.push(p);
            total += p;
        }
        let uniform = UNIFORM / self.columns.len() as f64;
        for p in &mut self.model {
            *p = (1.0 - UNIFORM) * *p / total + uniform;
        }
    }
}

impl Bot<DuelingMonsters> for StrongBot {
    fn choose(
        &mut self,
        seen: &Seen<'_, DuelingMonsters>,
        legal: &[DuelingMonstersMove],
        rng: &mut BotRng,
    ) -> DuelingMonstersMove {
        if !self.fill(seen.seat(), &seen.view(), legal) {
            return legal[0];
        }
        let (m, n) = (self.rows.len(), self.columns.len());
        solve_in(&self.payoff, m, n, &mut self.solver);
        let strategy = self.solver.row();
        let mut x = rng.unit() * strategy.iter().sum::<f64>();
        // Rounding may leave x just past the last weight: the last row weighed plays.
        let mut pick = self.rows[m - 1];
        for (&i, &p) in self.rows.iter().zip(strategy) {
            if p > 0.0 {
                pick = i;
                if x < p {
                    break;
                }
                x -= p;
            }
        }
        legal[pick]
    }
}

/// Whites 1 to 9 as bits.
const ALL_WHITES: u16 = 0b11_1111_1110;

fn bit(v: u8) -> u16 {
    1 << v
}

/// The prizes still face down after this round.
struct Rest {
    /// Their sum: the most either seat can still gain.
    sum: i32,
    /// The sum of their squares (the spread of the final margin).
    squares: f64,
}

impl Rest {
    fn new(bits: u16) -> Self {
        let (mut sum, mut squares) = (0, 0.0);
        for q in 1..=9u8 {
            if bits & bit(q) != 0 {
                sum += i32::from(q);
                squares += f64::from(q) * f64::from(q);
            }
        }
        Rest { sum, squares }
    }

    /// The chance of winning the bout (a tie, which is replayed, counts half) from the
    /// score margin `d`, if each remaining prize is won with chance `win` and lost with
    /// `lose` (random pairing), and the blacks played in prize order would bring a margin
    /// of `ranked`; the two estimates count half each.
    fn chance(&self, d: i32, win: f64, lose: f64, ranked: f64) -> f64 {
        // The rules end the bout once a lead cannot be caught, and after the last round.
        if d > self.sum {
            return 1.0;
        }
        if d < -self.sum {
            return 0.0;
        }
        let e = win - lose;
        let mean = f64::from(d) + 0.5 * (e * f64::from(self.sum) + ranked);
        let var = self.squares * (win + lose - e * e).max(0.0);
        if var < 1e-9 {
            return match mean.partial_cmp(&0.0) {
                Some(Ordering::Greater) => 1.0,
                Some(Ordering::Less) => 0.0,
                _ => 0.5,
            };
        }
        // The normal distribution's CDF, by its logistic approximation.
        1.0 / (1.0 + (-1.702 * mean / var.sqrt()).exp())
    }
}

/// How the blacks left after a round fare in the rounds to come.
#[derive(Clone, Copy, Default)]
struct BlackPart {
    /// Random pairing: the chance mine is higher, equal, lower.
    higher: f64,
    equal: f64,
    lower: f64,
    /// Ranked (highest black on the highest prize): the margin the blacks decide, and
    /// the prizes they tie on.
    ranked: f64,
    ranked_ties: f64,
}

/// The black part of the rounds to come, by the blacks played this round.
struct Blacks {
    /// Indexed by my black and theirs (1..=3).
    table: [[BlackPart; 3]; 3],
}

impl Blacks {
    /// `mine`, `theirs`: how many of each black each seat holds; `prizes`: those left
    /// after this round.
    fn new(mine: [u8; 3], theirs: [u8; 3], prizes: u16) -> Self {
        let mut table = [[BlackPart::default(); 3]; 3];
        for (b, row) in table.iter_mut().enumerate() {
            for (tb, cell) in row.iter_mut().enumerate() {
                let (mut m, mut t) = (mine, theirs);
                m[b] = m[b].saturating_sub(1);
                t[tb] = t[tb].saturating_sub(1);
                let count = |h: [u8; 3]| h.iter().map(|&c| u32::from(c)).sum::<u32>();
                let all = count(m) * count(t);
                if all == 0 {
                    continue;
                }
                let (mut g, mut e, mut l) = (0u32, 0u32, 0u32);
                for (i, &a) in m.iter().enumerate() {
                    for (j, &c) in t.iter().enumerate() {
                        let k = u32::from(a) * u32::from(c);
                        match i.cmp(&j) {
                            Ordering::Greater => g += k,
                            Ordering::Equal => e += k,
                            Ordering::Less => l += k,
                        }
                    }
                }
                let all = f64::from(all);
                cell.higher = f64::from(g) / all;
                cell.equal = f64::from(e) / all;
                cell.lower = f64::from(l) / all;
                // Ranked: both seats' blacks from the highest down against the prizes
                // from the highest down.
                let (mut mi, mut ti) = (Ranked::new(m), Ranked::new(t));
                for q in (1..=9u8).rev().filter(|&q| prizes & bit(q) != 0) {
                    let (Some(x), Some(y)) = (mi.next(), ti.next()) else { break };
                    let q = f64::from(q);
                    match x.cmp(&y) {
                        Ordering::Greater => cell.ranked += q,
                        Ordering::Less => cell.ranked -= q,
                        Ordering::Equal => cell.ranked_ties += q,
                    }
                }
            }
        }
        Blacks { table }
    }

    /// After I play `b` and they play `tb` (1..=3).
    fn after(&self, b: u8, tb: u8) -> BlackPart {
        self.table[usize::from(b - 1)][usize::from(tb - 1)]
    }
}

/// A seat's blacks from the highest down.
struct Ranked {
    counts: [u8; 3],
}

impl Ranked {
    fn new(counts: [u8; 3]) -> Self {
        Ranked { counts }
    }
}

impl Iterator for Ranked {
    type Item = usize;
    fn next(&mut self) -> Option<usize> {
        let i = (0..3).rev().find(|&i| self.counts[i] > 0)?;
        self.counts[i] -= 1;
        Some(i)
    }
}

/// The white part of the rounds to come (a tie-break), by the whites played this round.
struct Whites {
    /// (mine higher, theirs higher) for a random white of each, indexed by my white and
    /// theirs (1..=9).
    table: [[(f64, f64); 10]; 10],
}

impl Whites {
    /// `mine`: my whites; `theirs`: the whites the other seat may hold, each taken as
    /// equally likely.
    fn new(mine: u16, theirs: u16) -> Self {
        let mut table = [[(0.0, 0.0); 10]; 10];
        for w in (1..=9u8).filter(|&w| mine & bit(w) != 0) {
            let m = mine & !bit(w);
            for tw in (1..=9u8).filter(|&tw| theirs & bit(tw) != 0) {
                let t = theirs & !bit(tw);
                let all = m.count_ones() * t.count_ones();
                if all == 0 {
                    continue;
                }
                let (mut g, mut l) = (0u32, 0u32);
                for x in (1..=9u8).filter(|&x| m & bit(x) != 0) {
                    let below = bit(x) - 1;
                    g += (t & below).count_ones();
                    l += (t & !below & !bit(x)).count_ones();
                }
                let all = f64::from(all);
                table[usize::from(w)][usize::from(tw)] = (f64::from(g) / all, f64::from(l) / all);
            }
        }
        Whites { table }
    }

    /// After I play `w` and they play `tw` (1..=9).
    fn after(&self, w: u8, tw: u8) -> (f64, f64) {
        self.table[usize::from(w)][usize::from(tw)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RandomBot, Roster, selfplay};
    use rules_core::{Discard, Match, Seed};
    use rules_goofspiel::DuelingMonstersOptions;
    use rules_goofspiel::dueling_monsters::Submissions;

    /// Plays `matches` matches of the strong bot (bot A) against `other`, seats
    /// alternating, through the rules: selfplay submits every move to the match, which
    /// refuses an illegal one, and selfplay panics on a refusal.
    fn against(
        options: &DuelingMonstersOptions,
        other: &mut dyn Bot<DuelingMonsters>,
        matches: u64,
        seed: u8,
    ) -> selfplay::Tally {
        let t = selfplay::run::<DuelingMonsters, _, _>(
            options,
            matches,
            [seed; 32],
            &mut StrongBot::new(),
            other,
            0,
            &mut |_| {},
        )
        .expect("valid options");
        assert_eq!(t.matches, matches);
        t
    }

    /// The habit of matching both cards to the prize: the black of its third (1-3: 1,
    /// 4-6: 2, 7-9: 3), the white equal to it (the nearest held when spent).
    struct Matching;

    impl Bot<DuelingMonsters> for Matching {
        fn choose(
            &mut self,
            seen: &Seen<'_, DuelingMonsters>,
            legal: &[DuelingMonstersMove],
            _rng: &mut BotRng,
        ) -> DuelingMonstersMove {
            let p = seen.view().prize.map_or(5, i64::from);
            let far =
                |m: &&DuelingMonstersMove| (m.black - (p + 2) / 3).abs() * 10 + (m.white - p).abs();
            *legal.iter().min_by_key(far).expect("a legal move")
        }
    }

    #[test]
    fn strong_is_in_the_roster_and_the_default() {
        assert_eq!(DuelingMonsters::BOTS, &["random", "strong"]);
        assert_eq!(DuelingMonsters::BOTS.last(), Some(&"strong"), "the last bot is the default");
        for name in DuelingMonsters::BOTS {
            assert!(DuelingMonsters::bot(name).is_some(), "{name}");
        }
        assert!(crate::json_bot::<DuelingMonsters>("strong", [0; 32]).is_some());
    }

    #[test]
    fn it_beats_random() {
        // Measured: 195 of 200; a random bot wins about half.
        let t = against(&DuelingMonstersOptions::default(), &mut RandomBot, 200, 1);
        let decided = t.wins[0] + t.wins[1];
        assert!(t.wins[0] * 100 >= 85 * decided, "strong won {} of {decided}: {t:?}", t.wins[0]);
    }

    #[test]
    fn it_beats_random_best_of_five_with_changeable_moves() {
        let options = DuelingMonstersOptions {
            bouts_to_win: 3,
            submissions: Submissions::Changeable,
            ..DuelingMonstersOptions::default()
        };
        let t = against(&options, &mut RandomBot, 40, 2);
        assert!(t.wins[0] >= 34, "strong won {} of 40: {t:?}", t.wins[0]);
    }

    #[test]
    fn it_beats_the_habit_of_matching_cards_to_the_prize() {
        // Measured: 82 of 100. The plain equilibrium of each round (FREE = 1) lost 66%
        // of its matches to this habit, which itself beats random 99.8% of the time.
        let t = against(&DuelingMonstersOptions::default(), &mut Matching, 100, 3);
        assert!(t.wins[0] >= 65, "strong won {} of 100: {t:?}", t.wins[0]);
    }

    #[test]
    fn every_pick_is_legal_and_the_same_from_the_same_rng() {
        // Strong against itself, under both submission rules: each pick is made twice
        // from clones of one generator and checked against the legal moves.
        let mut rng = BotRng::from_seed([9; 32]);
        let mut legal = Vec::new();
        let mut bots = [StrongBot::new(), StrongBot::new()];
        for game in 0..20u8 {
            let options = DuelingMonstersOptions {
                submissions: if game % 2 == 0 {
                    Submissions::First
                } else {
                    Submissions::Changeable
                },
                ..DuelingMonstersOptions::default()
            };
            let mut m =
                Match::<DuelingMonsters>::new(&options, Seed::from_array([game; 32]), &mut Discard)
                    .expect("valid options");
            while !m.is_over() {
                let to_move = m.to_move();
                if to_move.is_empty() {
                    m.deadline(&mut Discard).expect("the match is not over");
                    continue;
                }
                for seat in to_move.iter() {
                    legal.clear();
                    m.legal_moves(seat, &mut legal);
                    let seen = Seen::new(m.game(), seat);
                    let bot = &mut bots[seat.index()];
                    let again = bot.choose(&seen, &legal, &mut rng.clone());
                    let pick = bot.choose(&seen, &legal, &mut rng);
                    assert_eq!(pick, again);
                    assert!(legal.contains(&pick), "{pick:?} is not among {legal:?}");
                    m.submit(seat, &pick, &mut Discard).expect("legal");
                    if m.is_over() {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn its_opening_is_mixed() {
        // Round one: no single pair answers every reply, so the strategy mixes.
        let m = Match::<DuelingMonsters>::new(
            &DuelingMonstersOptions::default(),
            Seed::from_array([4; 32]),
            &mut Discard,
        )
        .expect("valid");
        let mut legal = Vec::new();
        m.legal_moves(Seat::ZERO, &mut legal);
        let seen = Seen::new(m.game(), Seat::ZERO);
        let mut bot = StrongBot::new();
        let mut rng = BotRng::from_seed([1; 32]);
        let mut picks: Vec<DuelingMonstersMove> =
            (0..200).map(|_| bot.choose(&seen, &legal, &mut rng)).collect();
        picks.sort_by_key(|p| (p.black, p.white));
        picks.dedup();
        assert!(picks.len() >= 2, "one pair only: {picks:?}");
    }

    #[test]
    fn a_view_without_a_prize_gets_a_legal_move() {
        let m = Match::<DuelingMonsters>::new(
            &DuelingMonstersOptions::default(),
            Seed::ZERO,
            &mut Discard,
        )
        .expect("valid");
        let mut legal = Vec::new();
        m.legal_moves(Seat::ONE, &mut legal);
        let mut view = Seen::new(m.game(), Seat::ONE).view();
        view.prize = None;
        let seen = Seen::from_view(view, Seat::ONE);
        let pick = StrongBot::new().choose(&seen, &legal, &mut BotRng::from_seed([0; 32]));
        assert!(legal.contains(&pick));
    }
}
