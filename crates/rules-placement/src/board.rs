//! The Cure & Plague board: an unbounded grid, held as a dense window around the start
//! tile (21 tiles cannot reach past it). Placement checks are O(1) lookups, placements are
//! enumerated from the occupied cells only, and scoring follows the text's two steps.

use serde::{Deserialize, Serialize};
use std::fmt;

/// Tiles on the board when a game ends, the start tile included.
pub const TILES_PER_GAME: usize = 21;

/// How far (in x or in y) from the start tile's cure a placed cell can lie: the start tile
/// reaches 1, and every later tile shares an edge with the board, so it reaches at most 3
/// cells further out.
pub const REACH: i64 = 1 + 3 * (TILES_PER_GAME as i64 - 1);
/// Cells with both offsets within `LIMIT` have an index. `LIMIT` is one more than `REACH`
/// so a candidate cell next to the board always has one.
const LIMIT: i64 = REACH + 1;
/// One ring more than `LIMIT`, never written: the four neighbours of any indexed cell
/// exist without bounds checks.
const HALF: i64 = LIMIT + 1;
const SIDE: usize = (2 * HALF + 1) as usize;

/// A grid cell, written `[x, y]` as in moves; y grows to the north.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(from = "[i64; 2]", into = "[i64; 2]")]
pub struct Cell {
    /// Column.
    pub x: i64,
    /// Row.
    pub y: i64,
}

impl Cell {
    /// The cell at `(x, y)`.
    pub const fn new(x: i64, y: i64) -> Cell {
        Cell { x, y }
    }
}

impl From<[i64; 2]> for Cell {
    fn from([x, y]: [i64; 2]) -> Cell {
        Cell { x, y }
    }
}

impl From<Cell> for [i64; 2] {
    fn from(c: Cell) -> [i64; 2] {
        [c.x, c.y]
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}, {}]", self.x, self.y)
    }
}

/// What a cell holds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub enum Kind {
    /// Nothing.
    #[default]
    Empty,
    /// A human.
    Human,
    /// A cure.
    Cure,
    /// A plague.
    Plague,
}

/// A placed or proposed tile: where its three cells go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tile {
    /// The human cell.
    pub human: Cell,
    /// The cure cell.
    pub cure: Cell,
    /// The plague cell.
    pub plague: Cell,
}

impl Tile {
    /// The three cells with what they hold.
    pub fn cells(&self) -> [(Cell, Kind); 3] {
        [(self.human, Kind::Human), (self.cure, Kind::Cure), (self.plague, Kind::Plague)]
    }
}

/// The shape three cells make.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    /// A straight line with the cure in the middle: the plain tile.
    Straight,
    /// A straight line with the cure at an end (only Permute allows it).
    PermutedLine,
    /// An L whose corner is the cure (only Transform allows it).
    CornerL,
    /// Anything else, overlapping cells included.
    Other,
}

/// The shape of `t`. Differences are taken in i128 so no coordinate overflows.
pub fn shape(t: &Tile) -> Shape {
    let d =
        |a: Cell, b: Cell| (i128::from(a.x) - i128::from(b.x), i128::from(a.y) - i128::from(b.y));
    let unit = |(dx, dy): (i128, i128)| dx.abs() + dy.abs() == 1;
    let (h, p) = (d(t.human, t.cure), d(t.plague, t.cure));
    if unit(h) && p == (-h.0, -h.1) {
        return Shape::Straight;
    }
    if unit(h) && unit(p) && h.0 * p.0 + h.1 * p.1 == 0 {
        return Shape::CornerL;
    }
    // Any order on one line: one coordinate shared, the other three consecutive values.
    let contiguous = |a: i64, b: i64, c: i64| {
        let mut v = [i128::from(a), i128::from(b), i128::from(c)];
        v.sort_unstable();
        v[1] == v[0] + 1 && v[2] == v[1] + 1
    };
    let [a, b, c] = [t.human, t.cure, t.plague];
    if (a.x == b.x && b.x == c.x && contiguous(a.y, b.y, c.y))
        || (a.y == b.y && b.y == c.y && contiguous(a.x, b.x, c.x))
    {
        return Shape::PermutedLine;
    }
    Shape::Other
}

/// The four directions: east, north, west, south (so `(k + 1) % 4` turns left).
pub const DIRS: [(i64, i64); 4] = [(1, 0), (0, 1), (-1, 0), (0, -1)];
/// The same directions as index steps in the grid.
const STEPS: [isize; 4] = [1, SIDE as isize, -1, -(SIDE as isize)];

/// Three free cells in a straight line that would touch the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Line {
    /// The middle cell.
    pub mid: Cell,
    /// Along y (else along x).
    pub vertical: bool,
}

impl Line {
    /// The two end cells, the west or south one first.
    pub fn ends(&self) -> [Cell; 2] {
        let Cell { x, y } = self.mid;
        if self.vertical {
            [Cell::new(x, y - 1), Cell::new(x, y + 1)]
        } else {
            [Cell::new(x - 1, y), Cell::new(x + 1, y)]
        }
    }
}

/// Three free cells in an L that would touch the board.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Corner {
    /// The corner cell.
    pub corner: Cell,
    /// The arms point along `DIRS[turn]` and `DIRS[(turn + 1) % 4]`.
    pub turn: u8,
}

impl Corner {
    /// The two arm cells.
    pub fn arms(&self) -> [Cell; 2] {
        let Cell { x, y } = self.corner;
        let (a, b) = (DIRS[self.turn as usize], DIRS[(self.turn as usize + 1) % 4]);
        [Cell::new(x + a.0, y + a.1), Cell::new(x + b.0, y + b.1)]
    }
}

/// Why a tile of a good shape cannot go where it was put.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PlaceError {
    /// A cell is already covered.
    Taken(Cell),
    /// No cell shares an edge with an earlier tile.
    Detached,
}

/// A game's result on a board: humans alive and plague cells neutralized.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    /// Humans alive: the Cure seat's score.
    pub survivors: u32,
    /// Plague cells with two or more cures next to them.
    pub neutralized: u32,
}

/// One game's board.
#[derive(Clone, Debug)]
pub struct Board {
    /// The start tile's cure: the centre of the window.
    origin: Cell,
    grid: Box<[Kind]>,
    /// Indices of covered cells, in placement order (3 per tile).
    occupied: Vec<u16>,
    tiles: Vec<Tile>,
}

impl Board {
    /// A board holding only `start`, which must be a straight tile.
    pub fn new(start: Tile) -> Board {
        let mut b = Board {
            origin: start.cure,
            grid: vec![Kind::Empty; SIDE * SIDE].into_boxed_slice(),
            occupied: Vec::with_capacity(3 * TILES_PER_GAME),
            tiles: Vec::with_capacity(TILES_PER_GAME),
        };
        b.place(start);
        b
    }

    /// Clears the board back to `start` alone, reusing its memory.
    pub fn reset(&mut self, start: Tile) {
        for &i in &self.occupied {
            self.grid[i as usize] = Kind::Empty;
        }
        self.occupied.clear();
        self.tiles.clear();
        self.origin = start.cure;
        self.place(start);
    }

    /// The tiles in placement order, the start tile first.
    pub fn tiles(&self) -> &[Tile] {
        &self.tiles
    }

    /// The index of `c`, if it lies in the window.
    #[inline]
    fn index(&self, c: Cell) -> Option<usize> {
        // Cells come from clients: any i64 may arrive. `checked_sub` and `unsigned_abs`
        // keep i64::MIN and friends from overflowing (`abs` of i64::MIN panics or wraps).
        let dx = c.x.checked_sub(self.origin.x)?;
        let dy = c.y.checked_sub(self.origin.y)?;
        if dx.unsigned_abs() > LIMIT as u64 || dy.unsigned_abs() > LIMIT as u64 {
            return None;
        }
        let (row, col) = (usize::try_from(dy + HALF).ok()?, usize::try_from(dx + HALF).ok()?);
        Some(row * SIDE + col)
    }

    #[inline]
    fn cell_at(&self, i: usize) -> Cell {
        let (row, col) = ((i / SIDE) as i64, (i % SIDE) as i64);
        Cell::new(self.origin.x + col - HALF, self.origin.y + row - HALF)
    }

    #[inline]
    fn neighbours(i: usize) -> [usize; 4] {
        STEPS.map(|s| i.wrapping_add_signed(s))
    }

    /// What `c` holds (cells outside the window are empty: no tile can reach them).
    #[inline]
    pub fn kind(&self, c: Cell) -> Kind {
        self.index(c).map_or(Kind::Empty, |i| self.grid[i])
    }

    /// Whether the three cells of `t` are free and one shares an edge with a covered cell.
    /// The shape is the caller's concern.
    ///
    /// # Errors
    /// The first covered cell (human, cure, plague order), else `Detached`.
    pub fn check(&self, t: &Tile) -> Result<(), PlaceError> {
        for (c, _) in t.cells() {
            if self.kind(c) != Kind::Empty {
                return Err(PlaceError::Taken(c));
            }
        }
        // A cell outside the window is at least three cells from anything covered.
        let touches = t.cells().iter().any(|&(c, _)| {
            self.index(c)
                .is_some_and(|i| Self::neighbours(i).iter().any(|&n| self.grid[n] != Kind::Empty))
        });
        if touches { Ok(()) } else { Err(PlaceError::Detached) }
    }

    /// Puts `t` down. The caller has checked it (`check`, or it is the start tile).
    pub fn place(&mut self, t: Tile) {
        for (c, k) in t.cells() {
            let i = self.index(c).expect("a placed cell lies within the window");
            debug_assert_eq!(self.grid[i], Kind::Empty);
            self.grid[i] = k;
            self.occupied.push(i as u16);
        }
        self.tiles.push(t);
    }

    /// Takes the last tile back (bots try moves this way). The start tile stays.
    pub fn undo(&mut self) {
        if self.tiles.len() <= 1 {
            return;
        }
        self.tiles.pop();
        for _ in 0..3 {
            let i = self.occupied.pop().expect("three cells per tile");
            self.grid[i as usize] = Kind::Empty;
        }
    }

    /// Step 1: a plague cell with two or more orthogonally adjacent cures is neutralized.
    #[inline]
    fn neutralized_at(&self, i: usize) -> bool {
        Self::neighbours(i).iter().filter(|&&n| self.grid[n] == Kind::Cure).count() >= 2
    }

    /// Step 2: a human next to a plague cell that is not neutralized dies.
    #[inline]
    fn dead_at(&self, i: usize) -> bool {
        Self::neighbours(i).iter().any(|&n| self.grid[n] == Kind::Plague && !self.neutralized_at(n))
    }

    /// Counts one indexed cell into `s`.
    #[inline]
    fn tally(&self, i: usize, s: &mut Score) {
        match self.grid[i] {
            Kind::Human if !self.dead_at(i) => s.survivors += 1,
            Kind::Plague if self.neutralized_at(i) => s.neutralized += 1,
            _ => {}
        }
    }

    /// The score of the whole board.
    pub fn score(&self) -> Score {
        let mut s = Score::default();
        for &i in &self.occupied {
            self.tally(i as usize, &mut s);
        }
        s
    }

    /// The score counted only within two cells (in x and y) of `t`'s cells: every cell whose
    /// status placing `t` can change lies there, so `score_near` after placing minus before
    /// is the change in `score`.
    pub fn score_near(&self, t: &Tile) -> Score {
        let xs = t.cells().map(|(c, _)| c.x);
        let ys = t.cells().map(|(c, _)| c.y);
        let (x0, x1) = (xs.iter().min().unwrap_or(&0) - 2, xs.iter().max().unwrap_or(&0) + 2);
        let (y0, y1) = (ys.iter().min().unwrap_or(&0) - 2, ys.iter().max().unwrap_or(&0) + 2);
        let mut s = Score::default();
        for y in y0..=y1 {
            for x in x0..=x1 {
                if let Some(i) = self.index(Cell::new(x, y)) {
                    self.tally(i, &mut s);
                }
            }
        }
        s
    }

    /// The covered cell and direction that emit a placement of `cells` (free cells): the
    /// smallest (index, direction) among the covered cells next to it. Each placement is
    /// reached from every covered cell beside it; only this one emits it, so the listing
    /// needs no set and no sort.
    fn first_touch(&self, cells: [usize; 3]) -> Option<(usize, usize)> {
        let mut best = None;
        for c in cells {
            for (d, &s) in STEPS.iter().enumerate() {
                let n = c.wrapping_add_signed(s);
                // From `n`, the step back (d + 2) % 4 reaches `c`.
                if self.grid[n] != Kind::Empty && best.is_none_or(|b| (n, (d + 2) % 4) < b) {
                    best = Some((n, (d + 2) % 4));
                }
            }
        }
        best
    }

    /// Calls `f` with each free cell next to the board and the covered cell and direction
    /// it was reached from (a cell reached several ways comes several times). Every legal
    /// tile covers such a cell. Only the covered cells are visited, never the whole window.
    fn frontier(&self, mut f: impl FnMut(usize, (usize, usize))) {
        for &o in &self.occupied {
            for (d, &s) in STEPS.iter().enumerate() {
                let n = (o as usize).wrapping_add_signed(s);
                if self.grid[n] == Kind::Empty {
                    debug_assert!(self.cell_at(n).x.abs_diff(self.origin.x) as i64 <= REACH);
                    debug_assert!(self.cell_at(n).y.abs_diff(self.origin.y) as i64 <= REACH);
                    f(n, (o as usize, d));
                }
            }
        }
    }

    fn all_free(&self, cells: [usize; 3]) -> bool {
        cells.iter().all(|&i| self.grid[i] == Kind::Empty)
    }

    /// Calls `f` once with every straight line of three free cells that touches the
    /// board, in a fixed order. Allocates nothing.
    pub fn for_each_line(&self, mut f: impl FnMut(Line)) {
        self.frontier(|cell, from| {
            for (vertical, step) in [(false, 1isize), (true, SIDE as isize)] {
                for shift in [-step, 0, step] {
                    let mid = cell.wrapping_add_signed(shift);
                    let cells =
                        [mid.wrapping_add_signed(-step), mid, mid.wrapping_add_signed(step)];
                    if self.all_free(cells) && self.first_touch(cells) == Some(from) {
                        f(Line { mid: self.cell_at(mid), vertical });
                    }
                }
            }
        });
    }

    /// Calls `f` once with every L of three free cells that touches the board, in a fixed
    /// order. Allocates nothing.
    pub fn for_each_corner(&self, mut f: impl FnMut(Corner)) {
        let arms = |c: usize, turn: usize| {
            [c, c.wrapping_add_signed(STEPS[turn]), c.wrapping_add_signed(STEPS[(turn + 1) % 4])]
        };
        self.frontier(|cell, from| {
            for (turn, &step) in STEPS.iter().enumerate() {
                // `cell` as the corner, then as the arm along DIRS[turn] (the corner one
                // step back, the L turning either way from that arm).
                let back = cell.wrapping_add_signed(-step);
                for (corner, t) in [(cell, turn), (back, turn), (back, (turn + 3) % 4)] {
                    let cells = arms(corner, t);
                    if self.all_free(cells) && self.first_touch(cells) == Some(from) {
                        f(Corner { corner: self.cell_at(corner), turn: t as u8 });
                    }
                }
            }
        });
    }

    /// `for_each_line` into a vector.
    pub fn lines(&self, out: &mut Vec<Line>) {
        self.for_each_line(|l| out.push(l));
    }

    /// `for_each_corner` into a vector.
    pub fn corners(&self, out: &mut Vec<Corner>) {
        self.for_each_corner(|c| out.push(c));
    }

    /// The board as text, north row first: `H` a living human, `h` a dead one, `C` a
    /// cure, `P` a live plague, `p` a neutralized one, `.` empty. Each row starts with its
    /// y; the first line gives the x of the first column.
    pub fn picture(&self) -> Vec<String> {
        let cells = self.occupied.iter().map(|&i| self.cell_at(i as usize));
        let (mut x0, mut x1, mut y0, mut y1) = (i64::MAX, i64::MIN, i64::MAX, i64::MIN);
        for c in cells {
            (x0, x1, y0, y1) = (x0.min(c.x), x1.max(c.x), y0.min(c.y), y1.max(c.y));
        }
        let mut rows = Vec::with_capacity((y1 - y0 + 2) as usize);
        rows.push(format!("x from {x0} to {x1}"));
        for y in (y0..=y1).rev() {
            let mut row = format!("{y:>4} ");
            for x in x0..=x1 {
                let i = self.index(Cell::new(x, y)).expect("covered cells are indexed");
                row.push(match self.grid[i] {
                    Kind::Empty => '.',
                    Kind::Human if self.dead_at(i) => 'h',
                    Kind::Human => 'H',
                    Kind::Cure => 'C',
                    Kind::Plague if self.neutralized_at(i) => 'p',
                    Kind::Plague => 'P',
                });
            }
            rows.push(row);
        }
        rows
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A board drawn as text, north row first, the lower-left character at (0, 0): `H`,
    /// `C`, `P` cells, anything else empty. Scoring looks at cells only, so the drawing
    /// need not be made of legal tiles (and has no start tile).
    pub(crate) fn drawn(rows: &[&str]) -> Board {
        let mut b = Board {
            origin: Cell::new(0, 0),
            grid: vec![Kind::Empty; SIDE * SIDE].into_boxed_slice(),
            occupied: Vec::new(),
            tiles: Vec::new(),
        };
        let h = rows.len() as i64;
        for (r, row) in rows.iter().enumerate() {
            for (x, ch) in row.chars().enumerate() {
                let kind = match ch {
                    'H' => Kind::Human,
                    'C' => Kind::Cure,
                    'P' => Kind::Plague,
                    _ => continue,
                };
                let i = b.index(Cell::new(x as i64, h - 1 - r as i64)).unwrap();
                b.grid[i] = kind;
                b.occupied.push(i as u16);
            }
        }
        b
    }

    fn score_of(rows: &[&str]) -> (u32, u32) {
        let s = drawn(rows).score();
        (s.survivors, s.neutralized)
    }

    #[test]
    fn plague_with_one_cure_is_live_and_kills_its_neighbours() {
        // H C P H : the plague has one cure (its own), so it kills the human east of it;
        // the west human touches only the cure.
        assert_eq!(score_of(&["HCPH"]), (1, 0));
    }

    #[test]
    fn two_cures_neutralize_and_the_own_tiles_cure_counts() {
        // The plague at (2,1) touches its own cure (1,1) and the cure (2,0) below it:
        // neutralized, so the human at (3,1) lives.
        assert_eq!(score_of(&["HCPH", "..C."]), (2, 1));
    }

    #[test]
    fn diagonal_cures_do_not_count() {
        // Cure at (3,0) is diagonal to the plague at (2,1): one cure only.
        assert_eq!(score_of(&["HCPH", "...C"]), (1, 0));
    }

    #[test]
    fn diagonal_plague_does_not_kill() {
        // The plague (2,1) is diagonal to the human (3,0) and (1,0): both live; the human
        // (0,1) touches only its cure.
        assert_eq!(score_of(&["HCP.", ".H.H"]), (3, 0));
    }

    #[test]
    fn one_live_plague_among_several_kills() {
        // Human (1,1) touches plague (1,2), neutralized by cures (0,2),(2,2), and plague
        // (1,0) with one cure (0,0): it dies. Neutralized: one.
        assert_eq!(score_of(&["CPC", ".H.", "CP."]), (0, 1));
    }

    #[test]
    fn a_human_between_two_neutralized_plagues_lives() {
        assert_eq!(score_of(&["CPC", ".H.", "CPC"]), (1, 2));
    }

    #[test]
    fn shapes() {
        let t = |h: [i64; 2], c: [i64; 2], p: [i64; 2]| Tile {
            human: h.into(),
            cure: c.into(),
            plague: p.into(),
        };
        assert_eq!(shape(&t([0, 0], [1, 0], [2, 0])), Shape::Straight);
        assert_eq!(shape(&t([0, 2], [0, 1], [0, 0])), Shape::Straight);
        assert_eq!(shape(&t([1, 0], [0, 0], [2, 0])), Shape::PermutedLine);
        assert_eq!(shape(&t([0, 2], [0, 1], [1, 1])), Shape::CornerL);
        assert_eq!(shape(&t([0, 2], [0, 0], [1, 1])), Shape::Other);
        assert_eq!(shape(&t([0, 0], [0, 0], [0, 1])), Shape::Other);
        assert_eq!(shape(&t([i64::MAX, 0], [i64::MIN, 0], [0, 0])), Shape::Other);
        assert_eq!(shape(&t([0, 0], [1, 1], [2, 2])), Shape::Other);
    }

    #[test]
    fn placement_needs_an_edge_not_a_corner() {
        let start =
            Tile { human: Cell::new(-1, 0), cure: Cell::new(0, 0), plague: Cell::new(1, 0) };
        let b = Board::new(start);
        let diag = Tile { human: Cell::new(2, 1), cure: Cell::new(3, 1), plague: Cell::new(4, 1) };
        assert_eq!(b.check(&diag), Err(PlaceError::Detached));
        let edge = Tile { human: Cell::new(1, 1), cure: Cell::new(2, 1), plague: Cell::new(3, 1) };
        assert_eq!(b.check(&edge), Ok(()));
        let over = Tile { human: Cell::new(1, 0), cure: Cell::new(2, 0), plague: Cell::new(3, 0) };
        assert_eq!(b.check(&over), Err(PlaceError::Taken(Cell::new(1, 0))));
        let far = Tile {
            human: Cell::new(i64::MAX - 2, 0),
            cure: Cell::new(i64::MAX - 1, 0),
            plague: Cell::new(i64::MAX, 0),
        };
        assert_eq!(b.check(&far), Err(PlaceError::Detached));
    }

    #[test]
    fn enumeration_matches_brute_force() {
        let start =
            Tile { human: Cell::new(-1, 0), cure: Cell::new(0, 0), plague: Cell::new(1, 0) };
        let mut b = Board::new(start);
        b.place(Tile { human: Cell::new(0, 1), cure: Cell::new(0, 2), plague: Cell::new(0, 3) });
        let mut lines = Vec::new();
        b.lines(&mut lines);
        let mut corners = Vec::new();
        b.corners(&mut corners);
        let (mut nl, mut nc) = (0, 0);
        for y in -5..=8 {
            for x in -5..=5 {
                let mid = Cell::new(x, y);
                for vertical in [false, true] {
                    let l = Line { mid, vertical };
                    let [a, c] = l.ends();
                    if b.check(&Tile { human: a, cure: mid, plague: c }).is_ok() {
                        nl += 1;
                        assert!(lines.contains(&l), "{l:?}");
                    }
                }
                for turn in 0..4 {
                    let k = Corner { corner: mid, turn };
                    let [a, c] = k.arms();
                    if b.check(&Tile { human: a, cure: mid, plague: c }).is_ok() {
                        nc += 1;
                        assert!(corners.contains(&k), "{k:?}");
                    }
                }
            }
        }
        assert_eq!((lines.len(), corners.len()), (nl, nc));
    }

    #[test]
    fn picture_marks_dead_humans_and_neutralized_plagues() {
        let start =
            Tile { human: Cell::new(-1, 0), cure: Cell::new(0, 0), plague: Cell::new(1, 0) };
        let mut b = Board::new(start);
        b.place(Tile { human: Cell::new(2, 0), cure: Cell::new(2, 1), plague: Cell::new(2, 2) });
        assert_eq!(b.picture(), ["x from -1 to 2", "   2 ...P", "   1 ...C", "   0 HCPh"]);
        b.place(Tile { human: Cell::new(-1, 1), cure: Cell::new(0, 1), plague: Cell::new(1, 1) });
        // (1,1) now touches cures (0,1) and (2,1): neutralized; (2,0) still touches the
        // live plague (1,0), which has one cure.
        assert_eq!(b.picture(), ["x from -1 to 2", "   2 ...P", "   1 HCpC", "   0 HCPh"]);
        assert_eq!(b.score(), Score { survivors: 2, neutralized: 1 });
    }
}
