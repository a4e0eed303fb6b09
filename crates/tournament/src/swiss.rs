//! One Swiss round, Dutch-system style: score brackets from the top, each paired S1 against S2
//! by a bounded search over the FIDE order of candidates (transpositions, then exchanges), with
//! an exact matching test that the rest of the round can still be paired.
//!
//! # Rules, in priority order
//! Hard, never broken: no two players meet twice; a bye only to a player who has had none, and
//! only when the active players are odd. Then, strongly preferred: every player's seat balance
//! |seat-0 games - seat-1 games| stays within 1 (the pairing is made under that rule whenever any
//! legal pairing satisfies it; only when none does is it relaxed, minimising the pairs that break
//! it). Then, bracket by bracket, as FIDE C.04.3 ranks its quality criteria: the most pairs in the
//! bracket (C.5), the smallest score differences (C.6), the fewest unmet colour preferences
//! (C.10), the fewest repeated floats (C.12 to C.15), and among equals the candidate FIDE
//! generates first (D.1 to D.3). Not modelled: C.7 (choosing downfloaters for the next bracket's
//! sake), C.8/C.9 (topscorers; the seat rule is stricter anyway), C.16 to C.19, and FIDE's
//! collapsed last bracket (the completion test takes its place).
//!
//! # Bounded effort
//! Each bracket has a work budget. The search is a depth-first walk over S2 transpositions with
//! counting bounds (colour and seat classes) that make the usual case a straight greedy descent;
//! big brackets that need exchanges get one directed exchange instead of FIDE's full list. If the
//! budget runs out before any candidate is found, a maximum matching of the bracket and
//! everything below it pairs the bracket (valid, less faithful). So pairing is always legal and
//! deterministic; only its resemblance to FIDE's choice is best-effort.

use crate::matching::complete_perfect;
use crate::model::{Error, Player, Seat};
use std::cmp::Reverse;

/// A player's float in an earlier round: paired against a lower score (or given the bye), a
/// higher score, or neither.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Float {
    None,
    Down,
    Up,
}

/// One active player as the pairing sees them.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
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
    pub games: Vec<[Player; 2]>,
    pub bye: Option<Player>,
    /// Whether the seat-balance rule had to be relaxed (no pairing satisfied it).
    pub relaxed: bool,
}

/// Pairs one Swiss round of the `entries` (the active players). `round` only labels the error.
///
/// # Errors
/// [`Error::NoLegalPairing`] when no pairing avoids a repeat and a second bye.
pub(crate) fn pair(entries: &[Entry], round: u32) -> Result<Pairing, Error> {
    let mut ctx = Ctx::new(entries);
    let all: Vec<usize> = (0..ctx.n).collect();
    if !ctx.completable(&all) {
        ctx.relaxed = true;
        if !ctx.completable(&all) {
            return Err(Error::NoLegalPairing { round });
        }
    }
    let (pairs, bye) = ctx.pair_brackets();
    Ok(ctx.publish(pairs, bye))
}

const NONE: usize = usize::MAX;
/// The weight of one seat-rule conflict against unmet colour preferences (at most n of them).
const CONFLICT: u64 = 1 << 32;
/// Work units per bracket (a search step is one unit; a completion test costs one per player).
const BUDGET_BASE: i64 = 300_000;
const BUDGET_PER_PLAYER: i64 = 40;
/// How many pair counts below the maximum the search tries before falling back to a matching.
const LEVELS: usize = 3;
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
    fn pair_brackets(&self) -> (Vec<(usize, usize)>, Option<usize>) {
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
        let mut search = BracketSearch {
            ctx: self,
            lower,
            is_last,
            budget: BUDGET_BASE + BUDGET_PER_PLAYER * (m + (self.n - lower)) as i64,
            psd: Vec::new(),
            target: 0,
            next_target: u64::MAX,
            done: false,
            best: None,
            lower_counts: self.counts(&(lower..self.n).collect::<Vec<_>>()),
            outside: Counts::default(),
        };
        // The last bracket must pair everyone but the bye; others may float players down.
        let min_level = if is_last { m / 2 } else { 0 };
        let everyone = self.counts(&[mdps, residents].concat());
        let mut levels = 0;
        if max_pairs >= min_level {
            'levels: for p in (min_level..=max_pairs).rev() {
                // Pair counts the seat classes rule out cost nothing to skip; of the others the
                // search tries a few before the fallback.
                if !level_feasible(self, &everyone, p, &search.lower_counts) {
                    continue;
                }
                levels += 1;
                if levels > LEVELS {
                    break;
                }
                // More paired MDPs always means a smaller score difference (C.6).
                let m1_lo = (2 * p).saturating_sub(r);
                let m1_hi = m1_max.min(p);
                for m1 in (m1_lo..=m1_hi).rev() {
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
                            break 'levels;
                        }
                    }
                    if search.best.is_some() {
                        break 'levels;
                    }
                }
            }
        }
        if std::env::var("SWISS_DEBUG").is_ok() {
            eprintln!(
                "bracket m={} mdps={} r={} lower={} max_pairs={} budget_left={} found={:?}",
                m,
                mdps.len(),
                r,
                self.n - lower,
                max_pairs,
                search.budget,
                search.best.as_ref().map(|b| (b.pairs.len(), b.key.cost, b.key.floats))
            );
        }
        match search.best {
            Some(c) => (c.pairs, c.floaters),
            None => self.fallback(mdps, residents, lower),
        }
    }

    /// Pairs a bracket from a perfect matching of the bracket and everything below it, seeded
    /// with the bracket's players paired among themselves in rank order: always legal when the
    /// rest was completable, which every accepted bracket guarantees.
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
        Pairing { games, bye: bye.map(|v| self.player[v]), relaxed: self.relaxed }
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
        if self.seed[a] % 2 == 0 { Seat::Zero } else { Seat::One }
    }
}

/// Per seat-rule class and per colour side, how many players of a set.
#[derive(Clone, Copy, Default, Debug)]
struct Counts {
    class: [u32; 3],
    pref: [u32; 3],
}

impl Counts {
    fn add(&mut self, ctx: &Ctx, v: usize) {
        self.class[ctx.class[v]] += 1;
        self.pref[ctx.pref[v]] += 1;
    }

    fn sub(&mut self, ctx: &Ctx, v: usize) {
        self.class[ctx.class[v]] -= 1;
        self.pref[ctx.pref[v]] -= 1;
    }

    fn total(&self) -> u32 {
        self.class.iter().sum()
    }
}

/// A lower bound on the cost of giving every player of `x` a partner from `y` (the two halves
/// of an S1/S2 split), ignoring repeats; `None` when the seat rule (strict rounds) makes it
/// impossible. Both figures are min-cut values of a tiny transport problem between the types,
/// so without repeats they are exact.
fn bipartite_lb(ctx: &Ctx, x: &Counts, y: &Counts) -> Option<u64> {
    let [xm, _, xp] = x.class;
    let [ym, y0, yp] = y.class;
    let conflicts = if ctx.relaxed {
        xp.saturating_sub(y0 + ym) + xm.saturating_sub(y0 + yp)
    } else {
        if xp > y0 + ym || xm > y0 + yp || x.total() > y.total() {
            return None;
        }
        0
    };
    let [a, b, _] = x.pref;
    let [d, e, f] = y.pref;
    let good = (a + b).min(a + d + f).min(b + e + f).min(d + e + f);
    Some(u64::from(conflicts) * CONFLICT + u64::from(a + b - good))
}

/// Whether, by the seat classes alone, the MDPs counted in `x` can each take a resident from
/// those counted in `y` so that the residents left can still make `rest_pairs` pairs leaving
/// downfloaters that `outside` can absorb ([`level_feasible`]). Tries every class make-up of
/// the residents taken (quadratic in the MDPs; skipped, answering yes, beyond 64 of them or in
/// a relaxed round).
fn stage1_feasible(ctx: &Ctx, x: &Counts, y: &Counts, rest_pairs: usize, outside: &Counts) -> bool {
    let k = x.total();
    if ctx.relaxed || k > 64 {
        return true;
    }
    let [x0, _, x2] = x.class;
    let [y0, y1, y2] = y.class;
    for a0 in 0..=k.min(y0) {
        for a2 in 0..=(k - a0).min(y2) {
            let a1 = k - a0 - a2;
            if a1 > y1 || x2 > a0 + a1 || x0 > a1 + a2 {
                continue;
            }
            let left = Counts { class: [y0 - a0, y1 - a1, y2 - a2], pref: [0; 3] };
            if level_feasible(ctx, &left, rest_pairs, outside) {
                return true;
            }
        }
    }
    false
}

/// Whether a set with the class counts `b` can make `p` pairs under the seat rule so that its
/// unpaired players, joining `outside`, pass the completion count test of
/// [`Ctx::completable`]. Cross-class pairs leave the balance alone and free players are
/// scarce, so it tries every number of each kind of pair that uses a free player (bounded;
/// answering yes past the bound, and always in a relaxed round).
fn level_feasible(ctx: &Ctx, b: &Counts, p: usize, outside: &Counts) -> bool {
    let p = p as u32;
    if 2 * p > b.total() {
        return false;
    }
    if ctx.relaxed {
        return true;
    }
    let [b0, b1, b2] = b.class;
    let [c0, c1, c2] = outside.class;
    let mut steps = 0u32;
    for x01 in 0..=b0.min(b1).min(p) {
        for x21 in 0..=b2.min(b1 - x01).min(p - x01) {
            steps += 1;
            if steps > 20_000 {
                return true;
            }
            // Cross pairs do not move the balance and spare free players: as many as possible.
            let rest = p - x01 - x21;
            let x02 = rest.min(b0 - x01).min(b2 - x21);
            let x11 = rest - x02;
            if 2 * x11 > b1 - x01 - x21 {
                continue;
            }
            let r0 = b0 - x01 - x02 + c0;
            let r2 = b2 - x21 - x02 + c2;
            let r1 = b1 - x01 - x21 - 2 * x11 + c1;
            if r0.abs_diff(r2) <= r1 + (r0 + r1 + r2) % 2 {
                return true;
            }
        }
    }
    false
}

/// Whether the S1 players counted in `x` can take partners among the S2 players counted in
/// `y` so that the S2 players left over, joining `outside`, pass the completion count test.
/// For each number `a1` of free partners the other classes' share is an interval, so this
/// costs one step per possible `a1` (few: one class is nearly always scarce).
fn floaters_feasible(ctx: &Ctx, x: &Counts, y: &Counts, outside: &Counts) -> bool {
    if ctx.relaxed {
        return true;
    }
    let k = i64::from(x.total());
    let [x0, _, x2] = x.class.map(i64::from);
    let [y0, y1, y2] = y.class.map(i64::from);
    let [c0, c1, c2] = outside.class.map(i64::from);
    let d = (y0 + c0) - (y2 + c2);
    let odd = (y0 + y1 + y2 - k + c0 + c1 + c2) % 2;
    for a1 in (k - y0 - y2).max(0)..=k.min(y1) {
        // Partners taken: a0 + a1 + a2 = k, within y, class-0 S1 players needing a1 + a2 >= x0,
        // class-2 needing a0 + a1 >= x2.
        let lo = 0.max(k - a1 - y2).max(x2 - a1);
        let hi = y0.min(k - x0).min(k - a1);
        // Left over: balance |d - a0 + a2| within the free players left, y1 - a1 + c1 (+ odd).
        let w = y1 - a1 + c1 + odd;
        if w < 0 || lo > hi {
            continue;
        }
        // a0 - a2 = 2 a0 - (k - a1) must lie in [d - w, d + w].
        let want_lo = (d - w + k - a1 + 1).div_euclid(2);
        let want_hi = (d + w + k - a1).div_euclid(2);
        if lo.max(want_lo) <= hi.min(want_hi) {
            return true;
        }
    }
    false
}

/// A lower bound on the cost of pairing all but `floaters` players of a set with counts `c`
/// among themselves; `None` when the seat rule makes it impossible.
fn general_lb(ctx: &Ctx, c: &Counts, floaters: u32) -> Option<u64> {
    let [m, z, p] = c.class;
    let total = c.total();
    if floaters > total {
        return None;
    }
    let pairs = (total - floaters) / 2;
    let excess = m.abs_diff(p);
    let conflicts = if ctx.relaxed {
        excess.saturating_sub(floaters).saturating_sub(z).div_ceil(2)
    } else {
        let z_used = z.min(excess);
        if m.min(p) + z_used + (z - z_used) / 2 < pairs {
            return None;
        }
        0
    };
    let [w, b, none] = c.pref;
    let colour = w.abs_diff(b).saturating_sub(floaters).saturating_sub(none).div_ceil(2);
    Some(u64::from(conflicts) * CONFLICT + u64::from(colour))
}

/// The pairing score difference of a candidate (FIDE A.8), sorted descending: each paired MDP's
/// score above the bracket, each unpaired MDP's score above one point below the bracket, 0 per
/// resident pair and one point (2) per resident downfloater.
fn psd(
    ctx: &Ctx,
    sel: &[usize],
    limbo: &[usize],
    bracket_score: u32,
    resident_pairs: usize,
    resident_floaters: usize,
) -> Vec<u32> {
    let mut v: Vec<u32> = sel.iter().map(|&a| ctx.score[a] - bracket_score).collect();
    v.extend(limbo.iter().map(|&a| ctx.score[a] - bracket_score + 2));
    v.extend(std::iter::repeat_n(0, resident_pairs));
    v.extend(std::iter::repeat_n(2, resident_floaters));
    v.sort_unstable_by(|a, b| b.cmp(a));
    v
}

/// The ways to choose `m1` of the `mdps` to pair, in FIDE D.3 order: the highest scores first,
/// then the lowest bracket sequence numbers.
fn selections(ctx: &Ctx, mdps: &[usize], m1: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut idx: Vec<usize> = (0..m1).collect();
    loop {
        out.push(idx.iter().map(|&i| mdps[i]).collect::<Vec<_>>());
        if out.len() >= MAX_SELECTIONS {
            break;
        }
        // Next combination in lexicographic order.
        let mut i = m1;
        while i > 0 && idx[i - 1] == mdps.len() - m1 + i - 1 {
            i -= 1;
        }
        if i == 0 {
            break;
        }
        idx[i - 1] += 1;
        for j in i..m1 {
            idx[j] = idx[j - 1] + 1;
        }
    }
    // Scores descending compared lexicographically, higher first; then ranks ascending. The
    // sort is stable and the generation order is already rank-lexicographic.
    out.sort_by_key(|sel| Reverse(sel.iter().map(|&v| ctx.score[v]).collect::<Vec<_>>()));
    out
}

/// The exchanges of size `k` between S1 (positions `0..p`) and S2 (`0..q`) in FIDE D.2 order,
/// as (positions leaving S1, positions joining from S2); `None` when there are too many.
fn exchanges(p: usize, q: usize, k: usize) -> Option<Vec<(Vec<usize>, Vec<usize>)>> {
    let count = binomial(p, k).saturating_mul(binomial(q, k));
    if count > MAX_EXCHANGES {
        return None;
    }
    let outs = combinations(p, k);
    let ins = combinations(q, k);
    let mut all: Vec<(Vec<usize>, Vec<usize>)> = Vec::with_capacity(count);
    for o in &outs {
        for i in &ins {
            all.push((o.clone(), i.clone()));
        }
    }
    // a. (fixed k); b. the smallest difference between the sums of the bracket sequence
    // numbers moved up and moved down; c. the highest different number moved down; d. the
    // lowest different number moved up.
    all.sort_by(|(o1, i1), (o2, i2)| {
        let d1 = i1.iter().map(|&j| p + j).sum::<usize>() - o1.iter().sum::<usize>();
        let d2 = i2.iter().map(|&j| p + j).sum::<usize>() - o2.iter().sum::<usize>();
        d1.cmp(&d2).then_with(|| o2.iter().rev().cmp(o1.iter().rev())).then_with(|| i1.cmp(i2))
    });
    Some(all)
}

fn binomial(n: usize, k: usize) -> usize {
    if k > n {
        return 0;
    }
    let mut r: usize = 1;
    for i in 0..k.min(n - k) {
        r = r.saturating_mul(n - i) / (i + 1);
    }
    r
}

fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    if k > n {
        return out;
    }
    let mut idx: Vec<usize> = (0..k).collect();
    loop {
        out.push(idx.clone());
        let mut i = k;
        while i > 0 && idx[i - 1] == n - k + i - 1 {
            i -= 1;
        }
        if i == 0 {
            return out;
        }
        idx[i - 1] += 1;
        for j in i..k {
            idx[j] = idx[j - 1] + 1;
        }
    }
}

/// What makes one candidate better than another, most important first.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
struct Key {
    /// C.6.
    psd: Vec<u32>,
    /// Seat-rule conflicts (relaxed rounds) and unmet colour preferences (C.10).
    cost: u64,
    /// C.12 to C.15: repeated downfloats and upfloats, one round back and two.
    floats: [u32; 4],
}

struct Candidate {
    key: Key,
    pairs: Vec<(usize, usize)>,
    floaters: Vec<usize>,
}

/// The search for one bracket's best candidate.
struct BracketSearch<'c> {
    ctx: &'c Ctx,
    /// Everyone from this rank on is in a lower bracket.
    lower: usize,
    is_last: bool,
    budget: i64,
    /// The PSD of the MDP selection being searched.
    psd: Vec<u32>,
    /// Iterative deepening on the cost: candidates above `target` are cut off, and the lowest
    /// cost cut off is the next target.
    target: u64,
    next_target: u64,
    /// The best possible candidate has been found.
    done: bool,
    best: Option<Candidate>,
    /// Everyone below the bracket.
    lower_counts: Counts,
    /// Everyone the bracket's downfloaters will join: the unpaired MDPs and the lower brackets.
    outside: Counts,
}

impl BracketSearch<'_> {
    fn stopped(&self) -> bool {
        self.done || self.budget <= 0
    }

    /// Whether a partial candidate whose cost is at least `bound` may still beat the best.
    fn admits(&mut self, bound: u64) -> bool {
        if bound > self.target {
            self.next_target = self.next_target.min(bound);
            return false;
        }
        match &self.best {
            None => true,
            Some(b) if b.key.psd != self.psd => self.psd < b.key.psd,
            Some(b) => (bound, [0; 4]) < (b.key.cost, b.key.floats),
        }
    }

    /// Searches the candidates that pair exactly the MDPs `sel` (and leave `limbo` unpaired)
    /// plus `rest_pairs` pairs of residents.
    fn run(
        &mut self,
        sel: &[usize],
        residents: &[usize],
        limbo: &[usize],
        rest_pairs: usize,
        psd: Vec<u32>,
    ) {
        let ctx = self.ctx;
        self.psd = psd;
        self.done = false;
        let all = ctx.counts(residents);
        let Some(lb1) = bipartite_lb(ctx, &ctx.counts(sel), &all) else { return };
        // Whichever residents the MDPs take, the rest pairs at no less than this.
        let free = residents.len() as u32 - 2 * rest_pairs as u32;
        let Some(lb_rest) = general_lb(ctx, &all, free) else { return };
        self.outside = self.lower_counts;
        for &v in limbo {
            self.outside.add(ctx, v);
        }
        if !stage1_feasible(ctx, &ctx.counts(sel), &all, rest_pairs, &self.outside) {
            return;
        }
        self.target = lb1 + lb_rest;
        loop {
            self.next_target = u64::MAX;
            // A deepening step may spend half of what is left: a loose bound must not use up
            // the bracket proving that nothing is as cheap as it says.
            let total = self.budget;
            let slice = if self.target == u64::MAX { total } else { total / 2 };
            self.budget = slice;
            let mut leaf =
                |this: &mut Self, pairs1: &[(usize, usize)], rest: &[usize], cost: u64| {
                    this.remainder(pairs1, rest, limbo, rest_pairs, cost);
                };
            self.transpose(sel, residents, 0, lb_rest, Some(rest_pairs), &mut leaf);
            let cut = self.budget <= 0;
            if std::env::var("SWISS_DEBUG2").is_ok() {
                eprintln!(
                    "  run sel={} res={} rest_pairs={} target={} cut={} spent={} best={:?} next={}",
                    sel.len(),
                    residents.len(),
                    rest_pairs,
                    self.target,
                    cut,
                    slice - self.budget,
                    self.best.as_ref().map(|b| (b.key.cost, b.key.floats)),
                    self.next_target
                );
            }
            self.budget = total - (slice - self.budget);
            if self.done || self.budget <= 0 {
                return;
            }
            if self
                .best
                .as_ref()
                .is_some_and(|b| b.key.psd == self.psd && b.key.cost <= self.target)
            {
                // Every candidate costing up to the target was searched (or the step ran out
                // of work and this one will do): none beyond it can beat the best.
                return;
            }
            self.target = if cut && self.target != u64::MAX {
                u64::MAX
            } else if !cut && self.next_target != u64::MAX {
                self.next_target
            } else {
                return;
            };
        }
    }

    /// Pairs the residents the MDPs left (`rest`, in rank order) into `rest_pairs` pairs, S1
    /// against S2, trying FIDE's exchanges in order.
    fn remainder(
        &mut self,
        pairs1: &[(usize, usize)],
        rest: &[usize],
        limbo: &[usize],
        rest_pairs: usize,
        cost: u64,
    ) {
        let ctx = self.ctx;
        if rest.len() < 2 * rest_pairs {
            return;
        }
        let counts = ctx.counts(rest);
        let Some(lb) = general_lb(ctx, &counts, (rest.len() - 2 * rest_pairs) as u32) else {
            return;
        };
        if !level_feasible(ctx, &counts, rest_pairs, &self.outside) {
            return;
        }
        if !self.admits(cost + lb) {
            return;
        }
        let p = rest_pairs;
        let q = rest.len() - p;
        let mut leaf = |this: &mut Self, pairs2: &[(usize, usize)], unused: &[usize], cost: u64| {
            this.evaluate(pairs1, pairs2, unused, limbo, cost);
        };
        let outside = self.outside;
        let mut try_split = |this: &mut Self, s1: &[usize], s2: &[usize]| {
            let (c1, c2) = (ctx.counts(s1), ctx.counts(s2));
            if let Some(lb) = bipartite_lb(ctx, &c1, &c2)
                && floaters_feasible(ctx, &c1, &c2, &outside)
                && this.admits(cost + lb)
            {
                this.transpose(s1, s2, cost, 0, None, &mut leaf);
            }
        };
        try_split(self, &rest[..p], &rest[p..]);
        if p == 0 {
            return;
        }
        for k in 1..=p.min(q) {
            if self.stopped() {
                return;
            }
            match exchanges(p, q, k) {
                Some(list) => {
                    for (out, inn) in list {
                        if self.stopped() {
                            return;
                        }
                        let (s1, s2) = apply_exchange(rest, p, &out, &inn);
                        try_split(self, &s1, &s2);
                    }
                }
                None => {
                    if let Some((s1, s2)) = directed_exchange(ctx, rest, p, lb, &outside) {
                        try_split(self, &s1, &s2);
                    }
                    return;
                }
            }
        }
    }

    /// Depth-first over the transpositions of `s2` against `s1` (FIDE D.1 order), cut by the
    /// counting bound plus `extra_lb` (a bound for what the leaf still has to pair), and by an
    /// exact test that the S1 players still to place can all be matched to free S2 players (a
    /// bipartite matching kept up to date, one augmenting path per step): repeats otherwise
    /// make the walk thrash at the tail. For the MDP stage, `rest_pairs` is the number of pairs
    /// the residents left over must still make, which the seat classes may rule out.
    fn transpose(
        &mut self,
        s1: &[usize],
        s2: &[usize],
        base: u64,
        extra_lb: u64,
        rest_pairs: Option<usize>,
        leaf: &mut dyn FnMut(&mut Self, &[(usize, usize)], &[usize], u64),
    ) {
        let ctx = self.ctx;
        let k = s1.len();
        // suffix[i]: counts of s1[i..].
        let mut suffix = vec![Counts::default(); k + 1];
        for i in (0..k).rev() {
            suffix[i] = suffix[i + 1];
            suffix[i].add(ctx, s1[i]);
        }
        let mut unused = ctx.counts(s2);
        let mut m = Bipartite::new(k, s2.len());
        for t in 0..k {
            if !m.augment(ctx, s1, s2, t, &mut self.budget) {
                return;
            }
        }
        let mut choice = vec![0usize; k];
        let mut cost = vec![base; k + 1];
        let mut first_free = 0;
        let mut i = 0;
        let mut from = 0;
        loop {
            if self.stopped() {
                return;
            }
            if i == k {
                let pairs: Vec<(usize, usize)> = (0..k).map(|t| (s1[t], s2[choice[t]])).collect();
                let rest: Vec<usize> =
                    (0..s2.len()).filter(|&j| !m.used[j]).map(|j| s2[j]).collect();
                leaf(self, &pairs, &rest, cost[k]);
                if k == 0 {
                    return;
                }
                i -= 1;
                let j = choice[i];
                m.used[j] = false;
                unused.add(ctx, s2[j]);
                first_free = first_free.min(j);
                from = j + 1;
                continue;
            }
            let a = s1[i];
            let mut found = None;
            for j in from.max(first_free)..s2.len() {
                self.budget -= 1;
                if m.used[j] || !ctx.compatible(a, s2[j]) {
                    continue;
                }
                let c = cost[i] + ctx.pair_cost(a, s2[j]);
                unused.sub(ctx, s2[j]);
                if let Some(lb) = bipartite_lb(ctx, &suffix[i + 1], &unused)
                    && match rest_pairs {
                        Some(rp) => {
                            stage1_feasible(ctx, &suffix[i + 1], &unused, rp, &self.outside)
                        }
                        None => floaters_feasible(ctx, &suffix[i + 1], &unused, &self.outside),
                    }
                    && self.admits(c + lb + extra_lb)
                    && m.take(ctx, s1, s2, i, j, &mut self.budget)
                {
                    found = Some((j, c));
                    break;
                }
                unused.add(ctx, s2[j]);
            }
            match found {
                Some((j, c)) => {
                    choice[i] = j;
                    cost[i + 1] = c;
                    while first_free < s2.len() && m.used[first_free] {
                        first_free += 1;
                    }
                    i += 1;
                    from = 0;
                }
                None => {
                    if i == 0 {
                        return;
                    }
                    i -= 1;
                    let j = choice[i];
                    m.used[j] = false;
                    unused.add(ctx, s2[j]);
                    first_free = first_free.min(j);
                    from = j + 1;
                }
            }
        }
    }

    /// A complete candidate: scores it, and keeps it if it beats the best and the rest of the
    /// round can still be paired.
    fn evaluate(
        &mut self,
        pairs1: &[(usize, usize)],
        pairs2: &[(usize, usize)],
        unused: &[usize],
        limbo: &[usize],
        cost: u64,
    ) {
        let ctx = self.ctx;
        let mut floaters: Vec<usize> = unused.iter().chain(limbo).copied().collect();
        floaters.sort_unstable();
        if self.is_last && floaters.len() > 1 {
            return;
        }
        let mut floats = [0u32; 4];
        for &f in &floaters {
            floats[0] += u32::from(ctx.floats[f][0] == Float::Down);
            floats[2] += u32::from(ctx.floats[f][1] == Float::Down);
        }
        // The residents paired with MDPs float up.
        for &(_, res) in pairs1 {
            floats[1] += u32::from(ctx.floats[res][0] == Float::Up);
            floats[3] += u32::from(ctx.floats[res][1] == Float::Up);
        }
        let better = match &self.best {
            None => true,
            Some(b) if b.key.psd != self.psd => self.psd < b.key.psd,
            Some(b) => (cost, floats) < (b.key.cost, b.key.floats),
        };
        if !better {
            return;
        }
        let mut set = floaters.clone();
        set.extend(self.lower..ctx.n);
        self.budget -= set.len() as i64 + 1;
        if !ctx.completable(&set) {
            return;
        }
        let pairs = pairs1.iter().chain(pairs2).copied().collect();
        // Lower targets were searched to the end before this one: nothing can beat this.
        self.done = cost == self.target && floats == [0; 4];
        self.best =
            Some(Candidate { key: Key { psd: self.psd.clone(), cost, floats }, pairs, floaters });
    }
}

/// A matching of the S1 players (by position) to S2 positions during a transposition walk:
/// the players already placed hold their S2 positions (`used`); every other S1 player is
/// matched to a free one, which proves the walk can still complete.
struct Bipartite {
    /// Each S1 position's matched S2 position.
    of1: Vec<usize>,
    /// Each S2 position's matched S1 position.
    of2: Vec<usize>,
    /// S2 positions taken by placed S1 players.
    used: Vec<bool>,
    /// Visit marks for one augmenting search (a generation count avoids clearing them).
    seen: Vec<u32>,
    generation: u32,
}

impl Bipartite {
    fn new(k: usize, q: usize) -> Bipartite {
        Bipartite {
            of1: vec![NONE; k],
            of2: vec![NONE; q],
            used: vec![false; q],
            seen: vec![0; q],
            generation: 0,
        }
    }

    /// Places S1 position `i` on S2 position `j` if the S1 players after it can still all be
    /// matched; otherwise changes nothing and answers false.
    fn take(
        &mut self,
        ctx: &Ctx,
        s1: &[usize],
        s2: &[usize],
        i: usize,
        j: usize,
        budget: &mut i64,
    ) -> bool {
        let prev = self.of1[i];
        if prev == j {
            self.used[j] = true;
            return true;
        }
        let t = self.of2[j];
        if prev != NONE {
            self.of2[prev] = NONE;
        }
        self.used[j] = true;
        self.of2[j] = i;
        self.of1[i] = j;
        if t == NONE {
            return true;
        }
        self.of1[t] = NONE;
        if self.augment(ctx, s1, s2, t, budget) {
            return true;
        }
        self.used[j] = false;
        self.of2[j] = t;
        self.of1[t] = j;
        self.of1[i] = prev;
        if prev != NONE {
            self.of2[prev] = i;
        }
        false
    }

    /// Kuhn's augmenting path from the unmatched S1 position `start`, through free S2
    /// positions only; flips it and answers true if found.
    fn augment(
        &mut self,
        ctx: &Ctx,
        s1: &[usize],
        s2: &[usize],
        start: usize,
        budget: &mut i64,
    ) -> bool {
        self.generation += 1;
        let g = self.generation;
        // (S1 position, next S2 position to scan); `via[d]` links stack[d] to stack[d + 1].
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        let mut via: Vec<usize> = Vec::new();
        while let Some(&(u, pos)) = stack.last() {
            let mut next = None;
            for j in pos..s2.len() {
                *budget -= 1;
                if !self.used[j] && self.seen[j] != g && ctx.compatible(s1[u], s2[j]) {
                    next = Some(j);
                    break;
                }
            }
            let Some(j) = next else {
                stack.pop();
                via.pop();
                continue;
            };
            self.seen[j] = g;
            if let Some(top) = stack.last_mut() {
                top.1 = j + 1;
            }
            via.push(j);
            if self.of2[j] == NONE {
                for (d, &(u, _)) in stack.iter().enumerate() {
                    self.of1[u] = via[d];
                    self.of2[via[d]] = u;
                }
                return true;
            }
            stack.push((self.of2[j], 0));
        }
        false
    }
}

/// S1 and S2 of `rest` (S1 = the first `p`) after moving the S1 positions `out` to S2 and the
/// S2 positions `inn` to S1, each kept in rank order.
fn apply_exchange(
    rest: &[usize],
    p: usize,
    out: &[usize],
    inn: &[usize],
) -> (Vec<usize>, Vec<usize>) {
    let mut s1: Vec<usize> = (0..p).filter(|i| !out.contains(i)).map(|i| rest[i]).collect();
    s1.extend(inn.iter().map(|&j| rest[p + j]));
    s1.sort_unstable();
    let mut s2: Vec<usize> =
        (0..rest.len() - p).filter(|j| !inn.contains(j)).map(|j| rest[p + j]).collect();
    s2.extend(out.iter().map(|&i| rest[i]));
    s2.sort_unstable();
    (s1, s2)
}

/// For brackets too big to list exchanges: swap, one pair at a time, the S1 and S2 players
/// whose exchange most lowers the split's bound (ties: the closest bracket sequence numbers,
/// FIDE's D.2 b), until the split reaches the bracket's own bound `goal` or nothing helps.
fn directed_exchange(
    ctx: &Ctx,
    rest: &[usize],
    p: usize,
    goal: u64,
    outside: &Counts,
) -> Option<(Vec<usize>, Vec<usize>)> {
    let bound = |c1: &Counts, c2: &Counts| {
        bipartite_lb(ctx, c1, c2)
            .filter(|_| floaters_feasible(ctx, c1, c2, outside))
            .unwrap_or(u64::MAX)
    };
    let mut in_s1: Vec<bool> = (0..rest.len()).map(|i| i < p).collect();
    let mut c1 = ctx.counts(&rest[..p]);
    let mut c2 = ctx.counts(&rest[p..]);
    let mut current = bound(&c1, &c2);
    let mut moved = false;
    let type_of = |v: usize| ctx.class[v] * 3 + ctx.pref[v];
    for _ in 0..p {
        if current <= goal {
            break;
        }
        // Per (class, side) type: the lowest-ranked S1 player and the highest-ranked S2 player.
        let mut out_of = [None; 9];
        let mut in_of = [None; 9];
        for (i, &v) in rest.iter().enumerate() {
            if in_s1[i] {
                out_of[type_of(v)] = Some(i);
            } else if in_of[type_of(v)].is_none() {
                in_of[type_of(v)] = Some(i);
            }
        }
        let mut best: Option<(u64, usize, usize)> = None;
        for &o in out_of.iter().flatten() {
            for &i in in_of.iter().flatten() {
                let (mut t1, mut t2) = (c1, c2);
                t1.sub(ctx, rest[o]);
                t1.add(ctx, rest[i]);
                t2.sub(ctx, rest[i]);
                t2.add(ctx, rest[o]);
                let b = bound(&t1, &t2);
                let key = (b, i.abs_diff(o), Reverse(o), i);
                if b < current
                    && best.is_none_or(|(bb, bo, bi)| key < (bb, bi.abs_diff(bo), Reverse(bo), bi))
                {
                    best = Some((b, o, i));
                }
            }
        }
        let Some((b, o, i)) = best else { break };
        in_s1[o] = false;
        in_s1[i] = true;
        c1.sub(ctx, rest[o]);
        c1.add(ctx, rest[i]);
        c2.sub(ctx, rest[i]);
        c2.add(ctx, rest[o]);
        current = b;
        moved = true;
    }
    if !moved {
        return None;
    }
    let s1 = (0..rest.len()).filter(|&i| in_s1[i]).map(|i| rest[i]).collect();
    let s2 = (0..rest.len()).filter(|&i| !in_s1[i]).map(|i| rest[i]).collect();
    Some((s1, s2))
}
