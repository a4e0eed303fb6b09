//! One Swiss round, Dutch-system style: score brackets from the top, each paired S1 against S2
//! by a bounded search over the FIDE order of candidates (transpositions, then exchanges), with
//! an exact matching test that the rest of the round can still be paired.
//!
//! # Rules, in priority order
//! Hard, never broken: no two players meet twice; a bye only to a player who has had none, and
//! only when the active players are odd. Then, strongly preferred: every player's seat balance
//! |seat-0 games - seat-1 games| stays within 1. The round is paired under that rule whenever any
//! legal pairing satisfies it; only when none does is it relaxed, the search then minimising the
//! pairs that break it ([`Tournament::seat_relaxations`](crate::Tournament::seat_relaxations)
//! counts them). Then, bracket by bracket, FIDE C.04.3's quality criteria in its order: the most
//! pairs in the bracket (C.5), the smallest score differences (C.6), the downfloaters that let the
//! next bracket pair best (C.7), the fewest unmet colour preferences (C.10), the fewest repeated
//! floats and then their score differences (C.12 to C.19); among equals, the candidate FIDE
//! generates first (D.1 to D.3). Seats by FIDE's colour rules (E.1 to E.5), which give every
//! player the seat the rule needs. Not modelled: C.8/C.9 (topscorers in the last round: the
//! seat rule is stricter anyway), and FIDE's collapsed last bracket (the completion test
//! takes its place).
//!
//! The seat rule is the one deliberate departure from FIDE, where strong colour preferences
//! rank below the number of pairs: after an odd number of games, FIDE may pair two players who
//! both need the same seat where this pairing floats one of them instead. The other: in fields
//! of up to 64, a pairing after which the next round would have no legal pairing at all, or
//! none keeping the seat rule, is replaced by the closest one that keeps it (FIDE looks no
//! further than the round).
//!
//! # Bounded effort
//! Each bracket has a work budget. The search walks S2 transpositions depth first, cut by
//! counting bounds (colour sides and seat classes) and by a kept-up bipartite matching, so the
//! usual case is a straight descent; brackets too big to list FIDE's exchanges get one directed
//! exchange instead. Once a valid candidate is in hand, improving on it has a smaller budget.
//! If nothing is found in budget, a maximum matching of the bracket and everything below it
//! pairs the bracket (valid, less faithful). So the pairing is always legal and deterministic;
//! only its resemblance to FIDE's choice is best-effort.
//!
//! # Layout
//! This file: the round's players by rank, the rules between two players, the completion test,
//! the bracket loop and the seats. `bounds`: counting bounds over seat classes and colour sides.
//! `order`: FIDE's candidate order (MDP selections, exchanges) and the PSD. `search`: the
//! search for one bracket's best candidate. `lookahead`: for small fields, a pairing that keeps
//! the next round possible. `format`: the format itself ([`Swiss`]): its history of each
//! player, the hard rules of a pairing, scoring and tie-breaks.

mod bounds;
mod format;
mod lookahead;
mod order;
mod search;

use crate::matching::complete_perfect;
use crate::model::{Error, Player, Seat};
use bounds::{Counts, level_feasible};
use order::{psd, selections};
use search::BracketSearch;
use std::cmp::Reverse;

pub use format::Swiss;

/// A player's float in an earlier round: paired against a lower score (or given the bye), a
/// higher score, or neither.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Float {
    /// Met an equal score (or no game to compare: the first round).
    None,
    /// Met a lower score, or had the bye, or sat out.
    Down,
    /// Met a higher score.
    Up,
}

/// One active player as the pairing sees them.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Who.
    pub player: Player,
    /// Position in the seed order (0 = top seed); its pairing number is `seed + 1`.
    pub seed: u32,
    /// Points in half-units.
    pub score: u32,
    /// Seats of the games played, oldest first (byes excluded).
    pub seats: Vec<Seat>,
    /// Everyone met so far.
    pub opponents: Vec<Player>,
    /// Whether the player has had the bye.
    pub had_bye: bool,
    /// Floats in the previous round and the one before.
    pub floats: [Float; 2],
}

/// A round's pairing: games in board order and seat order, and the bye.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pairing {
    /// In board order, each in seat order.
    pub games: Vec<[Player; 2]>,
    /// The bye, when the players are odd.
    pub bye: Option<Player>,
}

/// Pairs one Swiss round of the `entries` (the active players). `round` only labels the error;
/// `more_rounds` says whether another round follows (for the lookahead).
///
/// # Errors
/// [`Error::NoLegalPairing`] when no pairing avoids a repeat and a second bye.
pub(crate) fn pair(entries: &[Entry], round: u32, more_rounds: bool) -> Result<Pairing, Error> {
    let mut ctx = Ctx::new(entries);
    let all: Vec<usize> = (0..ctx.n).collect();
    // The seat rule binds only if some legal pairing keeps it, which the whole round's
    // completion test answers; if none does, the round is paired with the rule relaxed.
    if !ctx.completable(&all) {
        ctx.relaxed = true;
        if !ctx.completable(&all) {
            return Err(Error::NoLegalPairing { round });
        }
    }
    let (mut pairs, mut bye) = ctx.pair_brackets();
    // Every bracket keeps the rest completable, so everyone is paired; should that ever fail, an
    // error is better than a pairing that leaves someone out.
    if 2 * pairs.len() + usize::from(bye.is_some()) != ctx.n {
        debug_assert!(false, "a bracket broke the completion invariant");
        return Err(Error::NoLegalPairing { round });
    }
    // In a small field the Dutch pairing may leave the next round no legal pairing, or none
    // keeping the seat rule: then the closest pairing that keeps one is taken instead, if the
    // search finds it (first keeping the seat rule too, then legality alone).
    if more_rounds && ctx.n <= LOOKAHEAD_MAX && !ctx.next_round_possible(&pairs, bye, true) {
        let legal = ctx.next_round_possible(&pairs, bye, false);
        let mut better = ctx.lookahead(&pairs, bye, true);
        if better.is_none() && !legal {
            better = ctx.lookahead(&pairs, bye, false);
        }
        if let Some((p, b)) = better {
            (pairs, bye) = (p, b);
        }
    }
    Ok(ctx.publish(pairs, bye))
}

/// A round's pairs (ranks) and its bye.
type RoundPairs = (Vec<(usize, usize)>, Option<usize>);

const NONE: usize = usize::MAX;
/// The weight of one seat-rule conflict against unmet colour preferences (at most n of them).
const CONFLICT: u64 = 1 << 32;
/// Work units per bracket (a search step is one unit; a completion test costs one per player).
const BUDGET_BASE: i64 = 300_000;
const BUDGET_PER_PLAYER: i64 = 40;
/// The work a bracket may spend improving on a valid candidate it has found: generous for
/// brackets of up to [`SMALL_BRACKET`] players, where it buys FIDE's choice and costs little,
/// tight beyond (the ideal may be out of reach, and proving that costs a full search).
const IMPROVE_SMALL: i64 = 200_000;
const IMPROVE_LARGE: i64 = 20_000;
const SMALL_BRACKET: usize = 64;
/// The lookahead (`lookahead`) runs for fields of at most this many players (larger ones
/// essentially never run out of opponents within a sensible number of rounds), and searches at
/// most this many steps.
const LOOKAHEAD_MAX: usize = 64;
const LOOKAHEAD_NODES: i64 = 20_000;
/// How many pair counts below the maximum the search tries before falling back to a matching.
const LEVELS: usize = 3;
/// C.7 is evaluated for next brackets of at most this many players (beyond, downfloaters
/// essentially always pair, and the matchings would cost more than they tell).
const C7_MAX: usize = 200;
/// The most MDP selections (D.3) tried for one number of paired MDPs.
const MAX_SELECTIONS: usize = 200;
/// The most exchanges of one size enumerated in FIDE's order; beyond, one directed exchange.
const MAX_EXCHANGES: usize = 5_000;

/// Colour preference sides, as indices into the count arrays.
const PREF_SEAT0: usize = 0;
const PREF_SEAT1: usize = 1;
const PREF_NONE: usize = 2;

/// The round's players by rank (score descending, then seed), with what the rules need.
struct Ctx {
    n: usize,
    player: Vec<Player>,
    seed: Vec<u32>,
    score: Vec<u32>,
    /// Seat-0 games minus seat-1 games.
    diff: Vec<i32>,
    /// The seat-rule class: 0 must take seat 0 next (diff < 0), 2 must take seat 1 (diff > 0),
    /// 1 free. Two players of the same non-free class cannot meet without breaking the rule.
    class: Vec<usize>,
    /// Colour preference side (`PREF_*`) and strength (0 none, 1 mild, 2 strong, 3 absolute).
    pref: Vec<usize>,
    strength: Vec<u8>,
    seats: Vec<Vec<Seat>>,
    /// Ranks of the opponents met (sorted).
    opponents: Vec<Vec<u32>>,
    eligible: Vec<bool>,
    floats: Vec<[Float; 2]>,
    /// Whether the seat rule is relaxed for this round.
    relaxed: bool,
}

impl Ctx {
    fn new(entries: &[Entry]) -> Ctx {
        let mut order: Vec<usize> = (0..entries.len()).collect();
        order.sort_by_key(|&i| (Reverse(entries[i].score), entries[i].seed, entries[i].player));
        let max_id = entries.iter().map(|e| e.player.index()).max().unwrap_or(0);
        let mut rank_of = vec![NONE; max_id + 1];
        for (r, &i) in order.iter().enumerate() {
            rank_of[entries[i].player.index()] = r;
        }
        let n = entries.len();
        let mut ctx = Ctx {
            n,
            player: Vec::with_capacity(n),
            seed: Vec::with_capacity(n),
            score: Vec::with_capacity(n),
            diff: Vec::with_capacity(n),
            class: Vec::with_capacity(n),
            pref: Vec::with_capacity(n),
            strength: Vec::with_capacity(n),
            seats: Vec::with_capacity(n),
            opponents: Vec::with_capacity(n),
            eligible: Vec::with_capacity(n),
            floats: Vec::with_capacity(n),
            relaxed: false,
        };
        for &i in &order {
            let e = &entries[i];
            let diff: i32 = e.seats.iter().map(|s| if *s == Seat::Zero { 1 } else { -1 }).sum();
            let last = e.seats.last().copied();
            let double =
                e.seats.len() >= 2 && e.seats[e.seats.len() - 1] == e.seats[e.seats.len() - 2];
            // FIDE A.6: the side balances the difference, or alternates when it is 0.
            let pref = match (diff.signum(), last) {
                (1, _) => PREF_SEAT1,
                (-1, _) => PREF_SEAT0,
                (_, Some(Seat::Zero)) => PREF_SEAT1,
                (_, Some(Seat::One)) => PREF_SEAT0,
                (_, None) => PREF_NONE,
            };
            let strength = if diff.abs() > 1 || double {
                3
            } else if diff.abs() == 1 {
                2
            } else if last.is_some() {
                1
            } else {
                0
            };
            let mut opps: Vec<u32> = e
                .opponents
                .iter()
                .filter_map(|p| rank_of.get(p.index()).copied())
                .filter(|&r| r != NONE)
                .map(|r| r as u32)
                .collect();
            opps.sort_unstable();
            opps.dedup();
            ctx.player.push(e.player);
            ctx.seed.push(e.seed);
            ctx.score.push(e.score);
            ctx.diff.push(diff);
            ctx.class.push((diff.signum() + 1) as usize);
            ctx.pref.push(pref);
            ctx.strength.push(strength);
            ctx.seats.push(e.seats.clone());
            ctx.opponents.push(opps);
            ctx.eligible.push(!e.had_bye);
            ctx.floats.push(e.floats);
        }
        ctx
    }

    fn met(&self, a: usize, b: usize) -> bool {
        self.opponents[a].contains(&(b as u32))
    }

    /// Whether `a` and `b` may be paired this round.
    fn compatible(&self, a: usize, b: usize) -> bool {
        a != b
            && !self.met(a, b)
            && (self.relaxed || self.class[a] == 1 || self.class[a] != self.class[b])
    }

    /// What pairing `a` with `b` costs: a seat-rule conflict (relaxed rounds only) and an
    /// unmet colour preference when both want the same seat.
    fn pair_cost(&self, a: usize, b: usize) -> u64 {
        let conflict = self.class[a] != 1 && self.class[a] == self.class[b];
        let colour = self.pref[a] != PREF_NONE && self.pref[a] == self.pref[b];
        u64::from(conflict) * CONFLICT + u64::from(colour)
    }

    fn counts(&self, set: &[usize]) -> Counts {
        let mut c = Counts::default();
        for &v in set {
            c.add(self, v);
        }
        c
    }

    /// Whether the players of `set` (ranks, ascending) can all be paired legally, with one of
    /// them taking the bye if they are odd: the completion test (FIDE C.4).
    fn completable(&self, set: &[usize]) -> bool {
        let k = set.len();
        if k == 0 {
            return true;
        }
        let odd = k % 2 == 1;
        if odd && !set.iter().any(|&v| self.eligible[v]) {
            return false;
        }
        if !self.relaxed {
            // Each player of a non-free class needs the other class or a free player (or the
            // bye): a counting condition that settles most impossible cases at once.
            let c = self.counts(set);
            if c.class[0].abs_diff(c.class[2]) > c.class[1] + u32::from(odd) {
                return false;
            }
        }
        let n = k + usize::from(odd);
        let bye = k;
        let mut mate = vec![NONE; n];
        if odd {
            // The lowest-ranked eligible player takes the bye to begin with; augmenting paths
            // move it if they must.
            if let Some(v) = (0..k).rev().find(|&i| self.eligible[set[i]]) {
                mate[v] = bye;
                mate[bye] = v;
            }
        }
        self.greedy(set, &mut mate, k);
        let adj = |a: usize, b: usize| {
            if a == bye || b == bye {
                odd && self.eligible[set[a.min(b)]]
            } else {
                self.compatible(set[a], set[b])
            }
        };
        complete_perfect(n, adj, &mut mate)
    }

    /// A greedy matching of the still unmatched players among the first `limit` of `set` (local
    /// indices into `mate`): the two non-free classes against each other first, then with free
    /// players, then free players together, so that the class counts rarely strand anyone.
    fn greedy(&self, set: &[usize], mate: &mut [usize], limit: usize) {
        let mut lists: [Vec<usize>; 3] = Default::default();
        for (i, &v) in set.iter().enumerate().take(limit) {
            if mate[i] == NONE {
                lists[if self.relaxed { 1 } else { self.class[v] }].push(i);
            }
        }
        self.fill(set, mate, &lists[2], &lists[0]);
        self.fill(set, mate, &lists[2], &lists[1]);
        self.fill(set, mate, &lists[0], &lists[1]);
        self.fill(set, mate, &lists[1], &lists[1]);
    }

    /// Gives each unmatched player of `a` the first unmatched compatible player of `b`.
    fn fill(&self, set: &[usize], mate: &mut [usize], a: &[usize], b: &[usize]) {
        let mut front = 0;
        for &v in a {
            if mate[v] != NONE {
                continue;
            }
            while front < b.len() && mate[b[front]] != NONE {
                front += 1;
            }
            for &u in &b[front..] {
                if u != v && mate[u] == NONE && self.compatible(set[v], set[u]) {
                    mate[v] = u;
                    mate[u] = v;
                    break;
                }
            }
        }
    }

    /// Pairs the brackets from the top down; returns the pairs (ranks) and the bye.
    fn pair_brackets(&self) -> RoundPairs {
        let mut pairs = Vec::with_capacity(self.n / 2);
        let mut mdps: Vec<usize> = Vec::new();
        let mut start = 0;
        while start < self.n {
            let mut end = start + 1;
            while end < self.n && self.score[end] == self.score[start] {
                end += 1;
            }
            let residents: Vec<usize> = (start..end).collect();
            let (bracket_pairs, floaters) = self.pair_bracket(&mdps, &residents, end);
            pairs.extend(bracket_pairs);
            mdps = floaters;
            start = end;
        }
        debug_assert!(mdps.len() <= 1, "the last bracket leaves at most the bye");
        (pairs, mdps.first().copied())
    }

    /// Pairs one bracket: `mdps` moved down from above, `residents` of this score; everyone
    /// from rank `lower` on is still to come. Returns the pairs and the downfloaters.
    fn pair_bracket(
        &self,
        mdps: &[usize],
        residents: &[usize],
        lower: usize,
    ) -> (Vec<(usize, usize)>, Vec<usize>) {
        let m = mdps.len() + residents.len();
        let r = residents.len();
        let is_last = lower == self.n;
        let m1_max = mdps.len().min(r);
        let max_pairs = m1_max + (r - m1_max) / 2;
        let budget = BUDGET_BASE + BUDGET_PER_PLAYER * (m + (self.n - lower)) as i64;
        let improve = if m <= SMALL_BRACKET { IMPROVE_SMALL } else { IMPROVE_LARGE };
        let mut search = BracketSearch::new(self, self.score[residents[0]], lower, budget, improve);
        // The last bracket must pair everyone but the bye; others may float players down.
        let min_level = if is_last { m / 2 } else { 0 };
        let everyone = self.counts(&[mdps, residents].concat());
        // Pairing the whole bracket leaves the lower brackets to themselves: possible only if
        // they can be completed alone (a quick exact test that saves a hopeless search).
        let lower_alone = self.completable(&(lower..self.n).collect::<Vec<_>>());
        let mut levels = 0;
        if max_pairs >= min_level {
            'levels: for p in (min_level..=max_pairs).rev() {
                // Pair counts the seat classes rule out cost nothing to skip; of the others the
                // search tries a few before the fallback.
                if !level_feasible(self, &everyone, p, &search.lower_counts)
                    || (m == 2 * p && !lower_alone)
                {
                    continue;
                }
                levels += 1;
                if levels > LEVELS || search.budget <= 0 {
                    break;
                }
                // Each level may spend half of what is left (the last all of it), so that a
                // level with no candidate does not starve the next.
                let total = search.budget;
                let share = if levels == LEVELS { total } else { total / 2 };
                search.budget = share;
                // More paired MDPs always means a smaller score difference (C.6).
                let m1_lo = (2 * p).saturating_sub(r);
                let m1_hi = m1_max.min(p);
                'm1: for m1 in (m1_lo..=m1_hi).rev() {
                    for sel in selections(self, mdps, m1) {
                        let limbo: Vec<usize> =
                            mdps.iter().copied().filter(|v| !sel.contains(v)).collect();
                        let psd = psd(
                            self,
                            &sel,
                            &limbo,
                            self.score[residents[0]],
                            p - m1,
                            r + m1 - 2 * p,
                        );
                        if let Some(b) = &search.best
                            && b.key.psd < psd
                        {
                            // Selections come in C.6 order: the rest cannot be better.
                            break;
                        }
                        search.run(&sel, residents, &limbo, p - m1, psd);
                        if search.budget <= 0 {
                            break 'm1;
                        }
                    }
                    if search.best.is_some() {
                        break;
                    }
                }
                search.budget = total - (share - search.budget);
                if search.best.is_some() {
                    break 'levels;
                }
            }
        }
        match search.best {
            Some(c) => (c.pairs, c.floaters),
            None => self.fallback(mdps, residents, lower),
        }
    }

    /// Pairs a bracket from a perfect matching of the bracket and everything below it, seeded
    /// with the bracket's players paired among themselves first: always legal when the rest was
    /// completable, which every accepted bracket guarantees.
    fn fallback(
        &self,
        mdps: &[usize],
        residents: &[usize],
        lower: usize,
    ) -> (Vec<(usize, usize)>, Vec<usize>) {
        let mut set: Vec<usize> = mdps.iter().chain(residents).copied().collect();
        let m = set.len();
        set.extend(lower..self.n);
        let k = set.len();
        let odd = k % 2 == 1;
        let n = k + usize::from(odd);
        let bye = k;
        let mut mate = vec![NONE; n];
        if odd && let Some(v) = (0..k).rev().find(|&i| self.eligible[set[i]]) {
            mate[v] = bye;
            mate[bye] = v;
        }
        // The bracket's players among themselves first, then with everyone else.
        self.greedy(&set, &mut mate, m);
        self.greedy(&set, &mut mate, k);
        let adj = |a: usize, b: usize| {
            if a == bye || b == bye {
                odd && self.eligible[set[a.min(b)]]
            } else {
                self.compatible(set[a], set[b])
            }
        };
        let ok = complete_perfect(n, adj, &mut mate);
        debug_assert!(ok, "the remainder was completable before this bracket");
        let mut pairs = Vec::new();
        let mut floaters = Vec::new();
        for i in 0..m {
            if mate[i] < m {
                if i < mate[i] {
                    pairs.push((set[i], set[mate[i]]));
                }
            } else {
                floaters.push(set[i]);
            }
        }
        (pairs, floaters)
    }

    /// Seats (FIDE E.1 to E.5) and board order (FIDE D.9-like: the pair's higher score, then
    /// its total, then the higher-ranked player's rank).
    fn publish(&self, pairs: Vec<(usize, usize)>, bye: Option<usize>) -> Pairing {
        let mut pairs: Vec<(usize, usize)> =
            pairs.into_iter().map(|(a, b)| (a.min(b), a.max(b))).collect();
        pairs.sort_by_key(|&(a, b)| {
            (Reverse(self.score[a].max(self.score[b])), Reverse(self.score[a] + self.score[b]), a)
        });
        let games = pairs
            .into_iter()
            .map(|(a, b)| {
                let [s0, s1] =
                    if self.seat_of_higher(a, b) == Seat::Zero { [a, b] } else { [b, a] };
                [self.player[s0], self.player[s1]]
            })
            .collect();
        Pairing { games, bye: bye.map(|v| self.player[v]) }
    }

    /// The seat of `a`, the higher-ranked of the pair, by FIDE's colour allocation rules. Under
    /// the seat rule every pair is of different classes or has a free player, and E.1/E.2 then
    /// give each constrained player the seat it needs.
    fn seat_of_higher(&self, a: usize, b: usize) -> Seat {
        let side = |v: usize| match self.pref[v] {
            PREF_SEAT0 => Some(Seat::Zero),
            PREF_SEAT1 => Some(Seat::One),
            _ => None,
        };
        let (pa, pb) = (side(a), side(b));
        // E.1: both preferences can be granted.
        if let (Some(x), Some(y)) = (pa, pb)
            && x != y
        {
            return x;
        }
        // E.2: the stronger preference; between two absolute ones, the wider imbalance.
        let (sa, sb) = (self.strength[a], self.strength[b]);
        if sa != sb {
            return if sa > sb {
                pa.unwrap_or(Seat::Zero)
            } else {
                pb.map_or(Seat::Zero, Seat::other)
            };
        }
        if sa == 3 && self.diff[a].abs() != self.diff[b].abs() {
            return if self.diff[a].abs() > self.diff[b].abs() {
                pa.unwrap_or(Seat::Zero)
            } else {
                pb.map_or(Seat::Zero, Seat::other)
            };
        }
        // E.3: alternate from the latest round in which they had different seats.
        for (x, y) in self.seats[a].iter().rev().zip(self.seats[b].iter().rev()) {
            if x != y {
                return x.other();
            }
        }
        // E.4: the higher-ranked player's preference.
        if let Some(x) = pa {
            return x;
        }
        // E.5: the higher-ranked player's pairing number: odd takes seat 0.
        if self.seed[a].is_multiple_of(2) { Seat::Zero } else { Seat::One }
    }
}
