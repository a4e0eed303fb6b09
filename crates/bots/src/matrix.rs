//! Two-player zero-sum matrix games, solved exactly by the simplex method. Small and
//! dense: the GOPS endgames it serves have at most a handful of moves per side, a
//! Dueling Monsters round at most 27 (black, white) pairs a side.

/// The solution of a matrix game for the row player (who maximises).
#[derive(Clone, Debug, PartialEq)]
pub struct Solution {
    /// The game's value.
    pub value: f64,
    /// The row player's optimal mixed strategy.
    pub row: Vec<f64>,
}

/// Reusable buffers for [`solve_in`]: a bot that solves a game every move keeps one, and
/// once it has grown to its largest game no solve allocates.
#[derive(Clone, Debug, Default)]
pub struct Workspace {
    t: Vec<f64>,
    basis: Vec<usize>,
    row: Vec<f64>,
}

impl Workspace {
    /// A workspace already sized for games of up to `m` rows and `n` columns.
    pub fn with_capacity(m: usize, n: usize) -> Self {
        Workspace {
            t: Vec::with_capacity((m + 1) * (n + m + 1)),
            basis: Vec::with_capacity(m),
            row: Vec::with_capacity(m),
        }
    }

    /// The row player's optimal mixed strategy found by the last [`solve_in`].
    pub fn row(&self) -> &[f64] {
        &self.row
    }
}

/// Solves the game `a` (rows: the maximiser's moves; `a[i][j]` its payoff).
pub fn solve(a: &[Vec<f64>]) -> Solution {
    let (m, n) = (a.len(), a[0].len());
    let flat: Vec<f64> = a.iter().flatten().copied().collect();
    let mut ws = Workspace::default();
    let value = solve_in(&flat, m, n, &mut ws);
    Solution { value, row: ws.row }
}

/// Solves the `m` x `n` game `a`, stored row by row (`a[i * n + j]`: the maximiser's
/// payoff for its row `i` against column `j`; m, n > 0), in `ws`'s buffers: returns the
/// value, and `ws.row()` holds the row strategy.
///
/// Shifts the payoffs to be positive, then solves max Σy s.t. A'y ≤ 1, y ≥ 0 by simplex
/// with Bland's rule (no cycling); the row strategy is read off the slack columns of
/// the objective row (the dual solution).
pub fn solve_in(a: &[f64], m: usize, n: usize, ws: &mut Workspace) -> f64 {
    debug_assert_eq!(a.len(), m * n);
    let min = a.iter().copied().fold(f64::INFINITY, f64::min);
    let shift = 1.0 - min.min(0.0);
    let w = n + m + 1;
    let t = &mut ws.t;
    t.clear();
    t.resize((m + 1) * w, 0.0);
    for i in 0..m {
        for j in 0..n {
            t[i * w + j] = a[i * n + j] + shift;
        }
        t[i * w + n + i] = 1.0;
        t[i * w + w - 1] = 1.0;
    }
    for j in 0..n {
        t[m * w + j] = -1.0;
    }
    let basis = &mut ws.basis;
    basis.clear();
    basis.extend(n..n + m);
    const EPS: f64 = 1e-12;
    // Bland's rule: the first improving column enters.
    while let Some(col) = (0..w - 1).find(|&j| t[m * w + j] < -EPS) {
        let mut best: Option<(f64, usize)> = None;
        for i in 0..m {
            let p = t[i * w + col];
            if p > EPS {
                let ratio = t[i * w + w - 1] / p;
                let better = match best {
                    None => true,
                    Some((r, bi)) => ratio < r - EPS || (ratio <= r + EPS && basis[i] < basis[bi]),
                };
                if better {
                    best = Some((ratio, i));
                }
            }
        }
        let Some((_, row)) = best else { break };
        let p = t[row * w + col];
        for j in 0..w {
            t[row * w + j] /= p;
        }
        for i in 0..=m {
            if i != row {
                let f = t[i * w + col];
                if f != 0.0 {
                    for j in 0..w {
                        t[i * w + j] -= f * t[row * w + j];
                    }
                }
            }
        }
        basis[row] = col;
    }
    let total = t[m * w + w - 1];
    let v = 1.0 / total;
    ws.row.clear();
    ws.row.extend((0..m).map(|i| (t[m * w + n + i] * v).max(0.0)));
    v - shift
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matching_pennies_is_half_half() {
        let s = solve(&[vec![1.0, 0.0], vec![0.0, 1.0]]);
        assert!((s.value - 0.5).abs() < 1e-9);
        assert!((s.row[0] - 0.5).abs() < 1e-9 && (s.row[1] - 0.5).abs() < 1e-9);
    }

    #[test]
    fn rock_paper_scissors_is_uniform_with_value_zero() {
        let s = solve(&[vec![0.0, -1.0, 1.0], vec![1.0, 0.0, -1.0], vec![-1.0, 1.0, 0.0]]);
        assert!(s.value.abs() < 1e-9);
        for p in s.row {
            assert!((p - 1.0 / 3.0).abs() < 1e-9);
        }
    }

    #[test]
    fn dominated_row_gets_no_weight_and_saddle_points_are_pure() {
        let s = solve(&[vec![3.0, 2.0], vec![1.0, 0.0]]);
        assert!((s.value - 2.0).abs() < 1e-9);
        assert!((s.row[0] - 1.0).abs() < 1e-9 && s.row[1].abs() < 1e-9);
    }

    #[test]
    fn one_workspace_solves_games_of_any_size_as_solve_does() {
        let games = [
            vec![vec![0.2, 0.9, 0.4], vec![0.7, 0.1, 0.5], vec![0.3, 0.6, 0.8]],
            vec![vec![1.0, 0.0], vec![0.0, 1.0]],
            vec![vec![0.0, -1.0, 1.0, 0.5], vec![1.0, 0.0, -1.0, 0.2]],
            vec![vec![3.0], vec![1.0], vec![2.0]],
        ];
        let mut ws = Workspace::with_capacity(3, 4);
        for a in &games {
            let flat: Vec<f64> = a.iter().flatten().copied().collect();
            let value = solve_in(&flat, a.len(), a[0].len(), &mut ws);
            let s = solve(a);
            assert_eq!((value, ws.row()), (s.value, s.row.as_slice()));
        }
    }

    #[test]
    fn value_guarantee_holds_against_every_column() {
        let a = vec![vec![0.2, 0.9, 0.4], vec![0.7, 0.1, 0.5], vec![0.3, 0.6, 0.8]];
        let s = solve(&a);
        for j in 0..3 {
            let pay: f64 = a.iter().zip(&s.row).map(|(row, p)| p * row[j]).sum();
            assert!(pay >= s.value - 1e-9, "column {j}: {pay} < {}", s.value);
        }
        assert!((s.row.iter().sum::<f64>() - 1.0).abs() < 1e-9);
    }
}
