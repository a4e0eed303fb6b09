//! FIDE's order of candidates within a bracket: which MDPs to pair (D.3), the exchanges between
//! S1 and S2 (D.2) and, for brackets too big to list them, one directed exchange; and the
//! pairing score difference (A.8) that ranks the MDP choices.

use super::bounds::{Counts, bipartite_lb, floaters_feasible};
use super::{Ctx, MAX_EXCHANGES, MAX_SELECTIONS};
use std::cmp::Reverse;

/// The pairing score difference of a candidate (FIDE A.8), sorted descending: each paired MDP's
/// score above the bracket, each unpaired MDP's score above one point below the bracket, 0 per
/// resident pair and one point (2) per resident downfloater.
pub(super) fn psd(
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
pub(super) fn selections(ctx: &Ctx, mdps: &[usize], m1: usize) -> Vec<Vec<usize>> {
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
pub(super) fn exchanges(p: usize, q: usize, k: usize) -> Option<Vec<(Vec<usize>, Vec<usize>)>> {
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

/// S1 and S2 of `rest` (S1 = the first `p`) after moving the S1 positions `out` to S2 and the
/// S2 positions `inn` to S1, each kept in rank order.
pub(super) fn apply_exchange(
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
pub(super) fn directed_exchange(
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
