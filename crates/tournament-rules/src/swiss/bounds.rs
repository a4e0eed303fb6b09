//! Counting bounds for the bracket search: per seat class and colour side, what any pairing of
//! some players can at best cost, and whether the seat rule leaves it possible at all. Exact
//! without repeats, so the search usually descends without backtracking.

use super::{CONFLICT, Ctx};

/// Per seat-rule class and per colour side, how many players of a set.
#[derive(Clone, Copy, Default, Debug)]
pub(super) struct Counts {
    pub(super) class: [u32; 3],
    pub(super) pref: [u32; 3],
}

impl Counts {
    pub(super) fn add(&mut self, ctx: &Ctx, v: usize) {
        self.class[ctx.class[v]] += 1;
        self.pref[ctx.pref[v]] += 1;
    }

    pub(super) fn sub(&mut self, ctx: &Ctx, v: usize) {
        self.class[ctx.class[v]] -= 1;
        self.pref[ctx.pref[v]] -= 1;
    }

    pub(super) fn total(&self) -> u32 {
        self.class.iter().sum()
    }
}

/// A lower bound on the cost of giving every player of `x` a partner from `y` (the two halves
/// of an S1/S2 split), ignoring repeats; `None` when the seat rule (strict rounds) makes it
/// impossible. Both figures are min-cut values of a tiny transport problem between the types,
/// so without repeats they are exact.
pub(super) fn bipartite_lb(ctx: &Ctx, x: &Counts, y: &Counts) -> Option<u64> {
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
pub(super) fn stage1_feasible(
    ctx: &Ctx,
    x: &Counts,
    y: &Counts,
    rest_pairs: usize,
    outside: &Counts,
) -> bool {
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
pub(super) fn level_feasible(ctx: &Ctx, b: &Counts, p: usize, outside: &Counts) -> bool {
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
pub(super) fn floaters_feasible(ctx: &Ctx, x: &Counts, y: &Counts, outside: &Counts) -> bool {
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
pub(super) fn general_lb(ctx: &Ctx, c: &Counts, floaters: u32) -> Option<u64> {
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
