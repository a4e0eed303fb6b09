//! The pairing pass over one queue's waiting tickets: who plays whom now. A ticket accepts a
//! wider rating gap the longer it has waited ([`SCHEDULE`]); the pass pairs greedily, longest
//! wait first, each with the nearest acceptable rating, and leaves no acceptable pair unpaired.

use std::cmp::Ordering;

/// The widening schedule: `(from_ms, gap)` rows, sorted by `from_ms`, the first at 0. After
/// waiting `from_ms` milliseconds a ticket accepts opponents up to `gap` rating points away,
/// until the next row applies; the last row's infinite gap accepts any opponent. The gaps never
/// shrink, which [`pass`] relies on.
pub const SCHEDULE: &[(u64, f64)] = &[
    (0, 100.0),
    (5_000, 150.0),
    (10_000, 200.0),
    (20_000, 300.0),
    (30_000, 400.0),
    (60_000, 600.0),
    (120_000, 1000.0),
    (300_000, f64::INFINITY),
];

/// The rating gap a ticket accepts after waiting `waited_ms`: the [`SCHEDULE`] row in force.
pub fn gap(waited_ms: u64) -> f64 {
    // The rows that have started are a prefix of the table; the last of them is in force. The
    // first row starts at 0, so the prefix is never empty.
    let started = SCHEDULE.partition_point(|&(from, _)| from <= waited_ms);
    SCHEDULE[started.saturating_sub(1)].1
}

/// One waiting ticket as the pairing pass sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Candidate<T> {
    /// The ticket's id (unique within a pass; it breaks ties).
    pub id: T,
    /// The player's id: a player is never paired with themself.
    pub player: u128,
    /// The player's rating in this queue. A non-finite rating is never acceptable.
    pub rating: f64,
    /// When the ticket started waiting, in the caller's milliseconds (the same clock as the
    /// pass's `now_ms`).
    pub since_ms: u64,
}

impl<T> Candidate<T> {
    /// How long the ticket has waited at `now_ms`; 0 if it claims to start in the future.
    pub fn waited_ms(&self, now_ms: u64) -> u64 {
        now_ms.saturating_sub(self.since_ms)
    }
}

/// Whether `a` and `b` may be paired at `now_ms`: different players, finite ratings, and a
/// rating difference within both tickets' [`gap`]s.
pub fn acceptable<T>(a: &Candidate<T>, b: &Candidate<T>, now_ms: u64) -> bool {
    a.player != b.player
        && a.rating.is_finite()
        && b.rating.is_finite()
        && within(a.rating, b.rating, gap(a.waited_ms(now_ms)).min(gap(b.waited_ms(now_ms))))
}

/// The one rating test, shared by [`acceptable`] and [`pass`] so that they agree to the bit.
fn within(a: f64, b: f64, gap: f64) -> bool {
    (a - b).abs() <= gap
}

/// One pairing pass over a queue's waiting tickets at `now_ms`: pairs as many as it can and
/// returns the pairs, each with the longer-waiting ticket first, in the order they were made.
///
/// The rule: tickets take their turn in order of longest wait first (ties: smaller id); a ticket
/// still free at its turn takes the free [`acceptable`] ticket nearest in rating (ties: the
/// longer-waiting, then the smaller id). Because the gaps never shrink with waiting, a ticket's
/// gap is at least that of every ticket after it, so every acceptable pair would have been taken
/// by the earlier of the two: no two tickets left unpaired are acceptable to each other.
///
/// The output depends on the set of candidates, not on their order in `cands`. Tickets with a
/// non-finite rating are never paired. Time O(n log n) for n tickets (plus, per ticket, the
/// rare candidates that pass the tree's slightly widened test and fail the exact one).
pub fn pass<T: Ord + Copy>(cands: &[Candidate<T>], now_ms: u64) -> Vec<(T, T)> {
    let order = turn_order(cands, now_ms);
    let n = order.len();

    // Two views of the free tickets sorted by rating, each a tree that finds in O(log n) the
    // nearest ticket whose own gap reaches the seeker. Upward: ascending rating, then turn, so
    // the first hit is the nearest above and, among equal ratings, the earliest turn. Downward:
    // descending rating, then turn, for the same two properties below the seeker.
    let mut up: Vec<usize> = (0..n).collect();
    up.sort_by(|&a, &b| order[a].rating.total_cmp(&order[b].rating).then(a.cmp(&b)));
    let mut down: Vec<usize> = (0..n).collect();
    down.sort_by(|&a, &b| order[b].rating.total_cmp(&order[a].rating).then(a.cmp(&b)));
    let mut at_up = vec![0; n];
    let mut at_down = vec![0; n];
    for (pos, &t) in up.iter().enumerate() {
        at_up[t] = pos;
    }
    for (pos, &t) in down.iter().enumerate() {
        at_down[t] = pos;
    }
    // Ticket t above the seeker's rating r reaches it iff rating_t - gap_t <= r; below, iff
    // -(rating_t + gap_t) <= -r. The keys are widened by a few ulps so that rounding can only
    // let in extra tickets, which the exact test below then rejects, never shut one out.
    let mut tree_up = Tree::new(up.iter().map(|&t| {
        let e = &order[t];
        Node::leaf(e.rating - e.gap - slack(e), e.player)
    }));
    let mut tree_down = Tree::new(down.iter().map(|&t| {
        let e = &order[t];
        Node::leaf(-(e.rating + e.gap + slack(e)), e.player)
    }));

    let mut taken = vec![false; n];
    let mut pairs = Vec::new();
    for s in 0..n {
        if taken[s] {
            continue;
        }
        // Whether or not the seeker finds a partner, it leaves the trees: every ticket still
        // free comes later in turn, so none of them can find it acceptable either (acceptable
        // is symmetric). Hence everything still in the trees is later in turn than `s`.
        tree_up.remove(at_up[s]);
        tree_down.remove(at_down[s]);
        let seeker = &order[s];
        let r = seeker.rating;
        // Every free ticket waited no longer than the seeker, so its gap is no wider: the
        // partner's gap is the binding one, and that is what the trees test.
        let exact = |t: usize| {
            let e = &order[t];
            e.player != seeker.player && within(r, e.rating, seeker.gap.min(e.gap))
        };
        // Nearest at or above r. Upward the seeker is preceded only by lower ratings and by
        // equal ratings of earlier turns, all gone: the search starts just after it.
        let mut best: Option<(f64, usize)> = None;
        let mut from = at_up[s] + 1;
        while let Some(pos) = tree_up.first(from, r, seeker.player) {
            if exact(up[pos]) {
                best = Some((order[up[pos]].rating - r, up[pos]));
                break;
            }
            from = pos + 1;
        }
        // Nearest at or below r, likewise. (An equal rating found here is the one the upward
        // search found first: the same ticket, at distance 0.)
        let mut from = at_down[s] + 1;
        while let Some(pos) = tree_down.first(from, -r, seeker.player) {
            let t = down[pos];
            if exact(t) {
                let d = r - order[t].rating;
                // Ties in distance go to the earlier turn: the longer wait, then the smaller id.
                let nearer = match best {
                    None => true,
                    Some((bd, bt)) => d.total_cmp(&bd).then(t.cmp(&bt)) == Ordering::Less,
                };
                if nearer {
                    best = Some((d, t));
                }
                break;
            }
            from = pos + 1;
        }
        if let Some((_, t)) = best {
            taken[t] = true;
            tree_up.remove(at_up[t]);
            tree_down.remove(at_down[t]);
            pairs.push((seeker.id, order[t].id));
        }
    }
    pairs
}

/// A candidate with a finite rating, its gap computed once.
struct Entry<T> {
    id: T,
    player: u128,
    rating: f64,
    gap: f64,
    waited: u64,
}

/// The finite-rated candidates in turn order: longest wait first, then smaller id. Player and
/// rating complete the key so that even duplicate ids sort the same from any input order.
fn turn_order<T: Ord + Copy>(cands: &[Candidate<T>], now_ms: u64) -> Vec<Entry<T>> {
    let mut order: Vec<Entry<T>> = cands
        .iter()
        .filter(|c| c.rating.is_finite())
        .map(|c| {
            let waited = c.waited_ms(now_ms);
            // + 0.0 turns -0.0 into 0.0: the two are the same rating, and total_cmp (used
            // for sorting) would otherwise tell them apart.
            Entry { id: c.id, player: c.player, rating: c.rating + 0.0, gap: gap(waited), waited }
        })
        .collect();
    order.sort_by(|a, b| {
        b.waited
            .cmp(&a.waited)
            .then(a.id.cmp(&b.id))
            .then(a.player.cmp(&b.player))
            .then(a.rating.total_cmp(&b.rating))
    });
    order
}

/// How far a tree key is widened past `rating ± gap`: 8 ulps of the operands' magnitude, well
/// above the rounding of the two subtractions being compared (a few half-ulps). Infinite for
/// an infinite gap, which only widens a key that already admits everything.
fn slack<T>(e: &Entry<T>) -> f64 {
    8.0 * f64::EPSILON * (e.rating.abs() + e.gap)
}

/// A segment-tree node over free tickets: the smallest key and its player, and the smallest key
/// among the other players' tickets. That is enough to answer "is there a ticket of a player
/// other than p with key <= x below this node" in O(1), so a player's own tickets never slow a
/// search down.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Node {
    best: f64,
    best_player: u128,
    other: f64,
}

impl Node {
    /// No ticket. Real keys are never +inf (a key is `rating - gap - slack` or its downward
    /// mirror, with a finite rating), so `best == +inf` means empty whatever `best_player` is.
    const EMPTY: Node = Node { best: f64::INFINITY, best_player: 0, other: f64::INFINITY };

    fn leaf(key: f64, player: u128) -> Node {
        Node { best: key, best_player: player, other: f64::INFINITY }
    }

    fn merge(a: Node, b: Node) -> Node {
        let (best, rest) = if b.best < a.best { (b, a) } else { (a, b) };
        let rest_other = if rest.best_player != best.best_player { rest.best } else { rest.other };
        Node { best: best.best, best_player: best.best_player, other: best.other.min(rest_other) }
    }

    fn admits(&self, x: f64, player: u128) -> bool {
        if self.best_player != player { self.best <= x } else { self.other <= x }
    }
}

/// A segment tree over positions 0..n with removal and "first position >= from whose ticket
/// belongs to another player and has key <= x".
struct Tree {
    size: usize,
    nodes: Vec<Node>,
}

impl Tree {
    fn new(leaves: impl ExactSizeIterator<Item = Node>) -> Tree {
        let size = leaves.len().next_power_of_two();
        let mut nodes = vec![Node::EMPTY; 2 * size];
        for (i, leaf) in leaves.enumerate() {
            nodes[size + i] = leaf;
        }
        for i in (1..size).rev() {
            nodes[i] = Node::merge(nodes[2 * i], nodes[2 * i + 1]);
        }
        Tree { size, nodes }
    }

    fn remove(&mut self, pos: usize) {
        let mut i = self.size + pos;
        self.nodes[i] = Node::EMPTY;
        while i > 1 {
            i /= 2;
            let merged = Node::merge(self.nodes[2 * i], self.nodes[2 * i + 1]);
            if merged == self.nodes[i] {
                // Ancestors are merged from this node's value alone: unchanged too.
                break;
            }
            self.nodes[i] = merged;
        }
    }

    fn first(&self, from: usize, x: f64, player: u128) -> Option<usize> {
        self.descend(1, 0, self.size, from, x, player)
    }

    /// The first admitted position in `[max(lo, from), hi)` under `node`. Only the nodes on the
    /// path of `from` are partly in range; a node wholly in range that admits has a hit, so the
    /// search visits O(log n) nodes.
    fn descend(
        &self,
        node: usize,
        lo: usize,
        hi: usize,
        from: usize,
        x: f64,
        player: u128,
    ) -> Option<usize> {
        if hi <= from || !self.nodes[node].admits(x, player) {
            return None;
        }
        if hi - lo == 1 {
            return Some(lo);
        }
        let mid = lo + (hi - lo) / 2;
        self.descend(2 * node, lo, mid, from, x, player)
            .or_else(|| self.descend(2 * node + 1, mid, hi, from, x, player))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(id: u32, player: u128, rating: f64, since_ms: u64) -> Candidate<u32> {
        Candidate { id, player, rating, since_ms }
    }

    #[test]
    fn schedule_rows() {
        assert_eq!(gap(0), 100.0);
        assert_eq!(gap(4_999), 100.0);
        assert_eq!(gap(5_000), 150.0);
        assert_eq!(gap(10_000), 200.0);
        assert_eq!(gap(20_000), 300.0);
        assert_eq!(gap(30_000), 400.0);
        assert_eq!(gap(59_999), 400.0);
        assert_eq!(gap(60_000), 600.0);
        assert_eq!(gap(120_000), 1000.0);
        assert_eq!(gap(299_999), 1000.0);
        assert_eq!(gap(300_000), f64::INFINITY);
        assert_eq!(gap(u64::MAX), f64::INFINITY);
        for &(from, g) in SCHEDULE {
            assert_eq!(gap(from), g);
        }
    }

    /// Worked by hand at now = 100 s:
    /// - 1: player 10, 1500, waited 70 s (gap 600)
    /// - 2: player 20, 1520, waited 70 s (gap 600)
    /// - 3: player 30, 1490, waited 12 s (gap 200)
    /// - 4: player 10, 1495, waited 1 s (gap 100)  (same player as 1)
    /// - 5: player 50, 1900, waited 25 s (gap 300)
    /// - 6: player 60, 2150, waited 0 s (gap 100)
    /// - 7: player 70, f64::NAN, waited 90 s
    ///
    /// Turns: 7 (never acceptable), 1, 2 (wait 70 s, id order), 5, 3, 4, 6.
    /// 1 (1500) may take 2 (20 away), 3 (10 away) or 5 (400 away, beyond 5's 300), not 4 (same
    /// player): it takes 3, the nearest. 2 (1520) may take 4 (25 away, within 4's 100); 5 is
    /// 380 away, beyond its 300, and 6 630 away, beyond its 100. It takes 4. 5 and 6 are 250
    /// apart, beyond 6's 100: both stay unpaired.
    #[test]
    fn hand_computed_example() {
        let now = 100_000;
        let cands = [
            c(1, 10, 1500.0, 30_000),
            c(2, 20, 1520.0, 30_000),
            c(3, 30, 1490.0, 88_000),
            c(4, 10, 1495.0, 99_000),
            c(5, 50, 1900.0, 75_000),
            c(6, 60, 2150.0, 100_000),
            c(7, 70, f64::NAN, 10_000),
        ];
        assert_eq!(pass(&cands, now), vec![(1, 3), (2, 4)]);
        // 50 s later 6 has waited 50 s (gap 400) and 5 75 s (gap 600): 250 is within both.
        // 1 and 2 (120 s, gap 1000) still take 3 and 4, the nearest.
        assert_eq!(pass(&cands, now + 50_000), vec![(1, 3), (2, 4), (5, 6)]);
    }

    #[test]
    fn ties_go_to_the_longer_wait_then_the_smaller_id() {
        let now = 10_000;
        // Seeker 1 at 1500: 2 and 3 both 50 away (above and below); 3 waited longer.
        let cands = [c(1, 1, 1500.0, 0), c(2, 2, 1550.0, 9_000), c(3, 3, 1450.0, 8_000)];
        assert_eq!(pass(&cands, now), vec![(1, 3)]);
        // Same wait: the smaller id, whichever side it is on.
        let cands = [c(1, 1, 1500.0, 0), c(9, 2, 1450.0, 9_000), c(4, 3, 1550.0, 9_000)];
        assert_eq!(pass(&cands, now), vec![(1, 4)]);
        let cands = [c(1, 1, 1500.0, 0), c(9, 2, 1550.0, 9_000), c(4, 3, 1550.0, 9_000)];
        assert_eq!(pass(&cands, now), vec![(1, 4)]);
    }

    #[test]
    fn degenerate_inputs() {
        assert!(pass::<u32>(&[], 0).is_empty());
        assert!(pass(&[c(1, 1, 1500.0, 0)], 0).is_empty());
        assert!(pass(&[c(1, 1, 1500.0, 0), c(2, 1, 1500.0, 0)], 0).is_empty());
        let inf = [c(1, 1, f64::INFINITY, 0), c(2, 2, f64::INFINITY, 0)];
        assert!(pass(&inf, 1_000_000).is_empty());
        // A ticket from the future has waited 0.
        assert_eq!(pass(&[c(1, 1, 1500.0, 50), c(2, 2, 1600.0, 0)], 10), vec![(2, 1)]);
        // Extreme finite ratings with infinite gaps: any opponent.
        let far = [c(1, 1, f64::MAX, 0), c(2, 2, -f64::MAX, 0)];
        assert_eq!(pass(&far, 300_000), vec![(1, 2)]);
    }
}
