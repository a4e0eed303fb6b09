//! Maximum-cardinality matching in a general graph (Edmonds' blossom algorithm), the exact test
//! behind every "can the rest of the round still be paired?" question of the Swiss pairing.
//! The graph is given by an adjacency predicate, never built: a Swiss compatibility graph is
//! nearly complete, and listing its edges for 10,000 players would cost more than pairing them.

use std::collections::VecDeque;

const NONE: usize = usize::MAX;

/// Completes `mate` (a matching on vertices `0..n`: `mate[v]` is v's partner or `usize::MAX`,
/// symmetric, every pair adjacent) to a perfect matching of the graph `adj`, if one exists.
///
/// The matching given is typically a greedy one that already covers almost everything, so the
/// work is a few augmenting-path searches. A vertex from which no augmenting path exists stays
/// exposed in every maximum matching (Berge), so the first such vertex proves that no perfect
/// matching exists and the search stops there. Deterministic: vertices are scanned in index
/// order. Time O(n) adjacency tests per vertex the searches visit, O(n³) at worst.
pub(crate) fn complete_perfect(
    n: usize,
    adj: impl Fn(usize, usize) -> bool,
    mate: &mut [usize],
) -> bool {
    debug_assert_eq!(mate.len(), n);
    if !n.is_multiple_of(2) {
        return false;
    }
    let mut search = Search {
        n,
        adj,
        parent: vec![NONE; n],
        base: (0..n).collect(),
        used: vec![false; n],
        in_blossom: vec![false; n],
        queue: VecDeque::new(),
    };
    for root in 0..n {
        if mate[root] == NONE && !search.augment(root, mate) {
            return false;
        }
    }
    true
}

/// Grows `mate` (a matching on vertices `0..n`, as for [`complete_perfect`]) to a maximum
/// matching by augmenting from each exposed vertex in index order, and returns its size.
/// Augmenting never exposes a matched vertex, and the sets of vertices a matching can cover
/// form a matroid, so the vertices covered are the best possible in index order: the lower
/// indices get priority.
pub(crate) fn maximum(n: usize, adj: impl Fn(usize, usize) -> bool, mate: &mut [usize]) -> usize {
    let mut search = Search {
        n,
        adj,
        parent: vec![NONE; n],
        base: (0..n).collect(),
        used: vec![false; n],
        in_blossom: vec![false; n],
        queue: VecDeque::new(),
    };
    for root in 0..n {
        if mate[root] == NONE {
            search.augment(root, mate);
        }
    }
    mate.iter().filter(|&&m| m != NONE).count() / 2
}

/// The state of one augmenting-path search (reused between searches to save allocations).
struct Search<F> {
    n: usize,
    adj: F,
    /// The alternating tree: the vertex that reached each outer vertex's mate.
    parent: Vec<usize>,
    /// The base of the blossom each vertex has been contracted into (itself if none).
    base: Vec<usize>,
    /// Outer vertices already queued.
    used: Vec<bool>,
    /// Scratch: the bases inside the blossom being contracted.
    in_blossom: Vec<bool>,
    queue: VecDeque<usize>,
}

impl<F: Fn(usize, usize) -> bool> Search<F> {
    /// Looks for an augmenting path from the exposed vertex `root` and flips it if found.
    fn augment(&mut self, root: usize, mate: &mut [usize]) -> bool {
        let Some(end) = self.find_path(root, mate) else {
            return false;
        };
        let mut v = end;
        while v != NONE {
            let pv = self.parent[v];
            let ppv = mate[pv];
            mate[v] = pv;
            mate[pv] = v;
            v = ppv;
        }
        true
    }

    fn find_path(&mut self, root: usize, mate: &[usize]) -> Option<usize> {
        self.used.fill(false);
        self.parent.fill(NONE);
        for (i, b) in self.base.iter_mut().enumerate() {
            *b = i;
        }
        self.queue.clear();
        self.used[root] = true;
        self.queue.push_back(root);
        while let Some(v) = self.queue.pop_front() {
            for to in 0..self.n {
                if to == v || self.base[v] == self.base[to] || mate[v] == to || !(self.adj)(v, to) {
                    continue;
                }
                if to == root || (mate[to] != NONE && self.parent[mate[to]] != NONE) {
                    // An odd cycle: contract it into a blossom based at the two paths' meeting
                    // point; its vertices all become outer.
                    let cur = self.lca(v, to, mate);
                    self.in_blossom.fill(false);
                    self.mark_path(v, cur, to, mate);
                    self.mark_path(to, cur, v, mate);
                    for i in 0..self.n {
                        if self.in_blossom[self.base[i]] {
                            self.base[i] = cur;
                            if !self.used[i] {
                                self.used[i] = true;
                                self.queue.push_back(i);
                            }
                        }
                    }
                } else if self.parent[to] == NONE {
                    self.parent[to] = v;
                    if mate[to] == NONE {
                        return Some(to);
                    }
                    let next = mate[to];
                    self.used[next] = true;
                    self.queue.push_back(next);
                }
            }
        }
        None
    }

    /// The lowest common ancestor (as blossom bases) of `a` and `b` in the alternating tree.
    fn lca(&self, mut a: usize, mut b: usize, mate: &[usize]) -> usize {
        let mut seen = vec![false; self.n];
        loop {
            a = self.base[a];
            seen[a] = true;
            if mate[a] == NONE {
                break;
            }
            a = self.parent[mate[a]];
        }
        loop {
            b = self.base[b];
            if seen[b] {
                return b;
            }
            b = self.parent[mate[b]];
        }
    }

    fn mark_path(&mut self, mut v: usize, b: usize, mut child: usize, mate: &[usize]) {
        while self.base[v] != b {
            self.in_blossom[self.base[v]] = true;
            self.in_blossom[self.base[mate[v]]] = true;
            self.parent[v] = child;
            child = mate[v];
            v = self.parent[mate[v]];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perfect(n: usize, edges: &[(usize, usize)]) -> Option<Vec<usize>> {
        let adj =
            |a: usize, b: usize| edges.iter().any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b));
        let mut mate = vec![NONE; n];
        complete_perfect(n, adj, &mut mate).then_some(mate)
    }

    fn check(n: usize, edges: &[(usize, usize)], mate: &[usize]) {
        for v in 0..n {
            let w = mate[v];
            assert_eq!(mate[w], v);
            assert!(edges.iter().any(|&(x, y)| (x, y) == (v, w) || (y, x) == (v, w)));
        }
    }

    #[test]
    fn paths_cycles_and_blossoms() {
        // A path of 4 and of 3.
        let e = [(0, 1), (1, 2), (2, 3)];
        check(4, &e, &perfect(4, &e).unwrap());
        assert!(perfect(3, &[(0, 1), (1, 2)]).is_none());
        // A triangle with a tail: 0-1-2 triangle, 2-3, 3-4, 4-5. Needs the blossom.
        let e = [(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 5)];
        check(6, &e, &perfect(6, &e).unwrap());
        // Two triangles joined by one edge: perfect only through that edge.
        let e = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (2, 3)];
        check(6, &e, &perfect(6, &e).unwrap());
        // A star K1,3 plus an isolated edge: no perfect matching.
        assert!(perfect(6, &[(0, 1), (0, 2), (0, 3), (4, 5)]).is_none());
    }

    #[test]
    fn completes_a_greedy_start() {
        // The greedy pair (1, 2) blocks 0 and 3 on a path 0-1-2-3; augmenting fixes it.
        let e = [(0, 1), (1, 2), (2, 3)];
        let adj = |a: usize, b: usize| e.iter().any(|&(x, y)| (x, y) == (a, b) || (y, x) == (a, b));
        let mut mate = vec![NONE, 2, 1, NONE];
        assert!(complete_perfect(4, adj, &mut mate));
        assert_eq!(mate, vec![1, 0, 3, 2]);
    }
}
