//! The search for one bracket's best candidate: a depth-first walk over S2 transpositions in
//! FIDE's order, for each MDP choice and exchange, ranking complete candidates by FIDE's
//! quality criteria and keeping the best that lets the rest of the round be paired.

use super::bounds::{
    Counts, bipartite_lb, floaters_feasible, general_lb, level_feasible, stage1_feasible,
};
use super::order::{apply_exchange, directed_exchange, exchanges};
use super::{C7_MAX, Ctx, Float, NONE};
use crate::matching::maximum;
use std::collections::{BTreeMap, BTreeSet};
use std::rc::Rc;

/// A list of exchanges: (S1 positions moving down, S2 positions moving up).
type Exchanges = Vec<(Vec<usize>, Vec<usize>)>;

/// FIDE C.12 to C.19: players floating the same way as one round before (downfloats, then
/// upfloats) and two rounds before, counted (C.12 to C.15), then their score differences sorted
/// descending (C.16 to C.19), all to be minimised. A downfloater's difference is to its partner,
/// or, left unpaired, to one point below the bracket (as in the PSD).
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug, Default)]
struct Floats {
    counts: [u32; 4],
    differences: [Vec<u32>; 4],
}

impl Floats {
    fn of(
        ctx: &Ctx,
        mdp_pairs: &[(usize, usize)],
        floaters: &[usize],
        bracket_score: u32,
    ) -> Floats {
        let mut f = Floats::default();
        let mut note = |k: usize, sd: u32| {
            f.counts[k] += 1;
            f.differences[k].push(sd);
        };
        for &(mdp, res) in mdp_pairs {
            let sd = ctx.score[mdp] - ctx.score[res];
            for back in 0..2 {
                if ctx.floats[mdp][back] == Float::Down {
                    note(2 * back, sd);
                }
                if ctx.floats[res][back] == Float::Up {
                    note(2 * back + 1, sd);
                }
            }
        }
        for &v in floaters {
            for back in 0..2 {
                if ctx.floats[v][back] == Float::Down {
                    note(2 * back, ctx.score[v] + 2 - bracket_score);
                }
            }
        }
        for d in &mut f.differences {
            d.sort_unstable_by(|a, b| b.cmp(a));
        }
        f
    }
}

/// What makes one candidate better than another, most important first.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Debug)]
pub(super) struct Key {
    /// C.6.
    pub(super) psd: Vec<u32>,
    /// C.7: the pairs the next bracket could make with these downfloaters, as the shortfall
    /// from the most any downfloaters allow, then the downfloaters it could not pair.
    next: [u32; 2],
    /// Seat-rule conflicts (relaxed rounds) and unmet colour preferences (C.10).
    cost: u64,
    /// C.12 to C.19: repeated floats.
    floats: Floats,
}

/// A bracket pairing that passed the completion test, with its rank.
pub(super) struct Candidate {
    pub(super) key: Key,
    pub(super) pairs: Vec<(usize, usize)>,
    pub(super) floaters: Vec<usize>,
}

/// What a transposition walk does with each complete assignment: the search, the pairs made,
/// the S2 players left over, and the cost so far.
type Leaf<'a, 'c> = dyn FnMut(&mut BracketSearch<'c>, &[(usize, usize)], &[usize], u64) + 'a;

/// The search for one bracket's best candidate.
pub(super) struct BracketSearch<'c> {
    ctx: &'c Ctx,
    /// Everyone from this rank on is in a lower bracket.
    lower: usize,
    is_last: bool,
    pub(super) budget: i64,
    /// The work allowed for improving on a candidate in hand.
    improve: i64,
    /// The PSD of the MDP selection being searched.
    psd: Vec<u32>,
    /// Iterative deepening on the cost: candidates above `target` are cut off, and the lowest
    /// cost cut off is the next target.
    target: u64,
    next_target: u64,
    /// The best possible candidate has been found.
    done: bool,
    /// Budget set aside by the cap on improving a found candidate, returned after the step.
    forfeited: i64,
    pub(super) best: Option<Candidate>,
    /// Everyone below the bracket.
    pub(super) lower_counts: Counts,
    /// The residents' score.
    bracket_score: u32,
    /// What the MDP pairing being completed already costs in repeated floats: a bound for the
    /// remainder's candidates.
    floats_lb: Floats,
    /// The next score group (ranks), for C.7.
    next_group: std::ops::Range<usize>,
    /// The best C.7 value for the selection being searched, and the most pairs the next
    /// bracket can make with any downfloaters ([`Self::next_best`]).
    next_ideal: [u32; 2],
    next_pairs: u32,
    /// Everyone the bracket's downfloaters will join: the unpaired MDPs and the lower brackets.
    outside: Counts,
    /// The next bracket's pairs and unpaired MDPs for each set of downfloaters already met,
    /// and [`Self::next_best`]'s answer for each set of unpaired MDPs and downfloater count.
    next_cache: BTreeMap<Vec<usize>, (u32, u32)>,
    best_cache: BTreeMap<(Vec<usize>, usize), (u32, [u32; 2])>,
    /// FIDE's exchange lists by (S1 size, S2 size, exchanged), built once per bracket.
    exchange_lists: BTreeMap<(usize, usize, usize), Option<Rc<Exchanges>>>,
}

impl<'c> BracketSearch<'c> {
    /// The search for the bracket whose residents score `bracket_score`, with everyone from
    /// rank `lower` on still to pair, and `budget` work units.
    pub(super) fn new(
        ctx: &'c Ctx,
        bracket_score: u32,
        lower: usize,
        budget: i64,
        improve: i64,
    ) -> Self {
        let n = ctx.n;
        let next_end = (lower..n).find(|&v| ctx.score[v] != ctx.score[lower]).unwrap_or(n);
        BracketSearch {
            ctx,
            lower,
            is_last: lower == n,
            budget,
            improve,
            psd: Vec::new(),
            target: 0,
            next_target: u64::MAX,
            done: false,
            forfeited: 0,
            best: None,
            lower_counts: ctx.counts(&(lower..n).collect::<Vec<_>>()),
            outside: Counts::default(),
            next_group: lower..next_end,
            next_ideal: [0; 2],
            next_pairs: 0,
            bracket_score,
            floats_lb: Floats::default(),
            next_cache: BTreeMap::new(),
            best_cache: BTreeMap::new(),
            exchange_lists: BTreeMap::new(),
        }
    }

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
            Some(b) => {
                (self.next_ideal, bound, &self.floats_lb) < (b.key.next, b.key.cost, &b.key.floats)
            }
        }
    }

    /// Searches the candidates that pair exactly the MDPs `sel` (and leave `limbo` unpaired)
    /// plus `rest_pairs` pairs of residents.
    pub(super) fn run(
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
        let floaters = residents.len() + limbo.len() - sel.len() - 2 * rest_pairs;
        self.next_best(residents, limbo, floaters);
        if !stage1_feasible(ctx, &ctx.counts(sel), &all, rest_pairs, &self.outside) {
            return;
        }
        self.target = lb1 + lb_rest;
        loop {
            self.next_target = u64::MAX;
            // A deepening step may spend half of what is left: a loose bound must not use up
            // the bracket proving that nothing is as cheap as it says.
            let total = self.budget;
            let mut slice = if self.target == u64::MAX { total } else { total / 2 };
            if self.best.as_ref().is_some_and(|b| b.key.psd == self.psd) {
                // Only improving on a candidate in hand: bounded (see `evaluate`).
                slice = slice.min(self.improve);
            }
            self.budget = slice;
            let mut leaf =
                |this: &mut Self, pairs1: &[(usize, usize)], rest: &[usize], cost: u64| {
                    // The MDP pairing fixes part of the float criteria: no remainder undoes it.
                    this.floats_lb = Floats::of(ctx, pairs1, &[], this.bracket_score);
                    this.remainder(pairs1, rest, limbo, rest_pairs, cost);
                    this.floats_lb = Floats::default();
                };
            self.transpose(sel, residents, 0, lb_rest, Some(rest_pairs), &mut leaf);
            let cut = self.budget <= 0;
            self.budget += std::mem::take(&mut self.forfeited);
            self.budget = total - (slice - self.budget);
            if self.done || self.budget <= 0 {
                return;
            }
            if self.best.as_ref().is_some_and(|b| {
                b.key.psd == self.psd && b.key.next == self.next_ideal && b.key.cost <= self.target
            }) {
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
        let (base1, base2) = (ctx.counts(&rest[..p]), ctx.counts(&rest[p..]));
        for k in 1..=p.min(q) {
            if self.stopped() {
                return;
            }
            let list = match self.exchange_lists.get(&(p, q, k)) {
                Some(list) => list.clone(),
                None => {
                    let list = exchanges(p, q, k).map(Rc::new);
                    self.exchange_lists.insert((p, q, k), list.clone());
                    list
                }
            };
            match list {
                Some(list) => {
                    for (out, inn) in list.iter() {
                        if self.stopped() {
                            return;
                        }
                        // The split's counts from the base's, before building it.
                        let (mut c1, mut c2) = (base1, base2);
                        for &i in out {
                            c1.sub(ctx, rest[i]);
                            c2.add(ctx, rest[i]);
                        }
                        for &j in inn {
                            c1.add(ctx, rest[p + j]);
                            c2.sub(ctx, rest[p + j]);
                        }
                        let admitted = bipartite_lb(ctx, &c1, &c2).is_some_and(|lb| {
                            floaters_feasible(ctx, &c1, &c2, &outside) && self.admits(cost + lb)
                        });
                        if admitted {
                            let (s1, s2) = apply_exchange(rest, p, out, inn);
                            try_split(self, &s1, &s2);
                        }
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
        leaf: &mut Leaf<'_, 'c>,
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
        let mut m = Bipartite::new(ctx, s2);
        if !m.start(ctx, s1, s2, &mut self.budget) {
            return;
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
        let floats = Floats::of(ctx, pairs1, &floaters, self.bracket_score);
        let beats = |this: &Self, next: [u32; 2]| match &this.best {
            None => true,
            Some(b) if b.key.psd != this.psd => this.psd < b.key.psd,
            Some(b) => (next, cost, &floats) < (b.key.next, b.key.cost, &b.key.floats),
        };
        if !beats(self, self.next_ideal) {
            return;
        }
        let next = self.next_quality(&floaters);
        if !beats(self, next) {
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
        self.done = next == self.next_ideal && cost == self.target && floats == Floats::default();
        if !self.done {
            // A valid candidate is in hand: looking for a better one is worth a bounded effort
            // (the ideal C.7 value may be out of reach, and proving it costs a full search).
            let capped = self.budget.min(self.improve);
            self.forfeited += self.budget - capped;
            self.budget = capped;
        }
        self.best = Some(Candidate {
            key: Key { psd: self.psd.clone(), next, cost, floats },
            pairs,
            floaters,
        });
    }

    /// FIDE C.7 for these downfloaters: how many pairs the next bracket (them as MDPs, plus the
    /// next score group) can make, short of the best any choice of downfloaters allows
    /// ([`Self::next_best`]), and how many of them it leaves unpaired. A maximum matching that
    /// tries the downfloaters first (in rank order) answers both. Skipped (ideal) for the last
    /// bracket, whose downfloater is the bye, and past [`C7_MAX`] players, where downfloaters
    /// essentially always pair.
    fn next_quality(&mut self, floaters: &[usize]) -> [u32; 2] {
        let ctx = self.ctx;
        let group = self.next_group.clone();
        if self.is_last || floaters.is_empty() || floaters.len() + group.len() > C7_MAX {
            return self.next_ideal;
        }
        if let Some(&pairs) = self.next_cache.get(floaters) {
            return [self.next_pairs.saturating_sub(pairs.0), pairs.1];
        }
        let set: Vec<usize> = floaters.iter().copied().chain(group).collect();
        let f = floaters.len();
        let adj = |a: usize, b: usize| (a >= f || b >= f) && ctx.compatible(set[a], set[b]);
        let mut mate = vec![NONE; set.len()];
        self.budget -= (set.len() * set.len()) as i64 / 2;
        let pairs = maximum(set.len(), adj, &mut mate) as u32;
        let unpaired = mate[..f].iter().filter(|&&m| m == NONE).count() as u32;
        self.next_cache.insert(floaters.to_vec(), (pairs, unpaired));
        [self.next_pairs.saturating_sub(pairs), unpaired]
    }

    /// The best C.7 value any choice of downfloaters allows: `floaters` of the `candidates`
    /// (residents, rank order) float together with the `forced` (unpaired MDPs), joining the
    /// next score group. One maximum matching answers it: dummy vertices, one per resident
    /// that stays, adjacent to every resident and augmented first, take the residents that do
    /// not float; then the downfloaters are tried before the next group, so that among the
    /// largest matchings the most downfloaters are paired (the sets of vertices a matching
    /// covers form a matroid). Sets `next_pairs` and `next_ideal`.
    fn next_best(&mut self, candidates: &[usize], forced: &[usize], floaters: usize) {
        let ctx = self.ctx;
        let group = self.next_group.clone();
        let stay = candidates.len() + forced.len() - floaters;
        let size = stay + candidates.len() + forced.len() + group.len();
        if self.is_last || floaters == 0 || floaters + group.len() > C7_MAX || size > 2 * C7_MAX {
            self.next_pairs = 0;
            self.next_ideal = [0, 0];
            return;
        }
        let key = (forced.to_vec(), floaters);
        if let Some(&(pairs, ideal)) = self.best_cache.get(&key) {
            self.next_pairs = pairs;
            self.next_ideal = ideal;
            return;
        }
        // Vertices: the dummies, then the forced, then the candidates, then the next group.
        let b: Vec<usize> = forced.iter().chain(candidates).copied().collect();
        let nb = b.len();
        let n = stay + nb + group.len();
        let player =
            |v: usize| if v < stay + nb { b[v - stay] } else { group.start + v - stay - nb };
        let adj = |x: usize, y: usize| {
            let (x, y) = (x.min(y), x.max(y));
            if x < stay {
                // A dummy holds a resident that stays in the bracket.
                y >= stay + forced.len() && y < stay + nb
            } else if y < stay + nb {
                false
            } else {
                ctx.compatible(player(x), player(y))
            }
        };
        let mut mate = vec![NONE; n];
        self.budget -= (n * n) as i64 / 2;
        let total = maximum(n, adj, &mut mate);
        let paired_floaters = (stay..stay + nb).filter(|&v| mate[v] >= stay + nb).count();
        self.next_pairs = (total - stay) as u32;
        self.next_ideal = [0, (floaters - paired_floaters) as u32];
        self.best_cache.insert(key, (self.next_pairs, self.next_ideal));
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
    /// Unmatched S2 positions by seat class (one set when the rule is relaxed), so that a
    /// player finds a free compatible partner without scanning the matched ones.
    free: [BTreeSet<usize>; 3],
    /// Visit marks for one augmenting search (a generation count avoids clearing them).
    seen: Vec<u32>,
    generation: u32,
}

impl Bipartite {
    fn new(ctx: &Ctx, s2: &[usize]) -> Bipartite {
        let mut free: [BTreeSet<usize>; 3] = Default::default();
        for (j, &v) in s2.iter().enumerate() {
            free[Self::class(ctx, v)].insert(j);
        }
        let q = s2.len();
        Bipartite {
            of1: Vec::new(),
            of2: vec![NONE; q],
            used: vec![false; q],
            free,
            seen: vec![0; q],
            generation: 0,
        }
    }

    fn class(ctx: &Ctx, v: usize) -> usize {
        if ctx.relaxed { 1 } else { ctx.class[v] }
    }

    /// Matches every S1 player; false if impossible.
    fn start(&mut self, ctx: &Ctx, s1: &[usize], s2: &[usize], budget: &mut i64) -> bool {
        self.of1 = vec![NONE; s1.len()];
        (0..s1.len()).all(|t| self.augment(ctx, s1, s2, t, budget))
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
            self.free[Self::class(ctx, s2[prev])].insert(prev);
        }
        if t == NONE {
            self.free[Self::class(ctx, s2[j])].remove(&j);
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
            self.free[Self::class(ctx, s2[prev])].remove(&prev);
        }
        false
    }

    /// The first free S2 position compatible with S1 player `u`.
    fn free_partner(
        &self,
        ctx: &Ctx,
        s1: &[usize],
        s2: &[usize],
        u: usize,
        budget: &mut i64,
    ) -> Option<usize> {
        let a = s1[u];
        let mut best: Option<usize> = None;
        for (cl, set) in self.free.iter().enumerate() {
            if !ctx.relaxed && ctx.class[a] != 1 && cl == ctx.class[a] {
                continue;
            }
            for &j in set {
                *budget -= 1;
                if best.is_some_and(|b| j > b) {
                    break;
                }
                if ctx.compatible(a, s2[j]) {
                    best = Some(j);
                    break;
                }
            }
        }
        best
    }

    /// Kuhn's augmenting path from the unmatched S1 position `start` through unplaced S2
    /// positions; flips it and answers true if found. Each player first looks for a free
    /// partner directly, so the usual path has length one.
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
            if pos == 0
                && let Some(j) = self.free_partner(ctx, s1, s2, u, budget)
            {
                via.push(j);
                self.free[Self::class(ctx, s2[j])].remove(&j);
                for (d, &(u, _)) in stack.iter().enumerate() {
                    self.of1[u] = via[d];
                    self.of2[via[d]] = u;
                }
                return true;
            }
            let mut next = None;
            for (j, &v) in s2.iter().enumerate().skip(pos) {
                *budget -= 1;
                if !self.used[j]
                    && self.of2[j] != NONE
                    && self.seen[j] != g
                    && ctx.compatible(s1[u], v)
                {
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
            stack.push((self.of2[j], 0));
        }
        false
    }
}
