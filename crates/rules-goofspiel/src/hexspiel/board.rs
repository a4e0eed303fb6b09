//! The Hexspiel board: an 8x8 rhombus of cells (a1..h8) with per-cell AP costs, stones
//! as one bitboard per seat, and per seat a union-find with two virtual edge nodes, so a
//! connection is found in near-constant time per stone instead of a flood fill per move.

use rules_core::{PerSeat, Seat};
use serde::de::Error as _;
use serde::ser::SerializeSeq;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt::{self, Write as _};

/// Cells per side.
pub const SIDE: u8 = 8;
/// Cells on the board.
pub const CELLS: usize = 64;

/// The six neighbour offsets (column, row), in cyclic order around a cell, so that
/// directions `i` and `i + 2` are 120 degrees apart and `i + 3` is the opposite one.
pub const DIRECTIONS: [(i8, i8); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];

/// A cell of the board, `row * 8 + column` (both 0-based: a1 is 0, h8 is 63).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Cell(u8);

impl Cell {
    /// The cell at 0-based `col` (a = 0) and `row` (1 = 0), if on the board.
    pub const fn new(col: i32, row: i32) -> Option<Cell> {
        if col >= 0 && col < SIDE as i32 && row >= 0 && row < SIDE as i32 {
            Some(Cell((row * SIDE as i32 + col) as u8))
        } else {
            None
        }
    }

    /// The cell with index `i` (< 64).
    pub const fn from_index(i: usize) -> Cell {
        debug_assert!(i < CELLS);
        Cell(i as u8)
    }

    /// 0..64.
    #[inline]
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// 0-based column (a = 0).
    #[inline]
    pub const fn col(self) -> u8 {
        self.0 % SIDE
    }

    /// 0-based row (row 1 = 0).
    #[inline]
    pub const fn row(self) -> u8 {
        self.0 / SIDE
    }

    /// The cell's bit in a bitboard.
    #[inline]
    pub const fn bit(self) -> u64 {
        1 << self.0
    }

    /// The cell `k` steps away in direction `d` (an index into `DIRECTIONS`).
    pub const fn step(self, d: usize, k: i32) -> Option<Cell> {
        let (dc, dr) = DIRECTIONS[d];
        Cell::new(self.col() as i32 + dc as i32 * k, self.row() as i32 + dr as i32 * k)
    }

    /// Every cell, a1 first, row by row.
    pub fn all() -> impl Iterator<Item = Cell> {
        (0..CELLS as u8).map(Cell)
    }
}

impl fmt::Display for Cell {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row() + 1)
    }
}

impl Serialize for Cell {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// A set of cells as a bitboard; serialized as the list of its cells, a1 first.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CellSet(pub u64);

impl CellSet {
    /// The cells, lowest index first.
    pub fn iter(self) -> impl Iterator<Item = Cell> {
        let mut bits = self.0;
        std::iter::from_fn(move || {
            (bits != 0).then(|| {
                let i = bits.trailing_zeros() as usize;
                bits &= bits - 1;
                Cell::from_index(i)
            })
        })
    }

    /// How many cells.
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether there are none.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether `c` is in the set.
    pub const fn contains(self, c: Cell) -> bool {
        self.0 & c.bit() != 0
    }
}

impl Serialize for CellSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.len() as usize))?;
        for c in self.iter() {
            seq.serialize_element(&c)?;
        }
        seq.end()
    }
}

const fn build_neighbours() -> [u64; CELLS] {
    let mut out = [0u64; CELLS];
    let mut i = 0;
    while i < CELLS {
        let mut d = 0;
        while d < 6 {
            if let Some(n) = Cell::from_index(i).step(d, 1) {
                out[i] |= n.bit();
            }
            d += 1;
        }
        i += 1;
    }
    out
}

/// Each cell's neighbours as a bitboard.
pub const NEIGHBOURS: [u64; CELLS] = build_neighbours();

/// Row 1, row 8, column a and column h as bitboards.
const ROW_1: u64 = 0xff;
const ROW_8: u64 = 0xff << 56;
const COL_A: u64 = 0x0101_0101_0101_0101;
const COL_H: u64 = COL_A << 7;

/// The two sides a seat joins: seat 0 rows 1 and 8, seat 1 columns a and h.
#[inline]
pub fn sides(seat: Seat) -> (u64, u64) {
    if seat.index() == 0 { (ROW_1, ROW_8) } else { (COL_A, COL_H) }
}

/// The AP cost of every cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct Costs([u8; CELLS]);

impl Default for Costs {
    /// 1 + the distance to the nearest edge: 1 on the rim, 4 in the middle.
    fn default() -> Self {
        let mut c = [0u8; CELLS];
        for cell in Cell::all() {
            let (x, y) = (cell.col(), cell.row());
            c[cell.index()] = 1 + x.min(SIDE - 1 - x).min(y).min(SIDE - 1 - y);
        }
        Costs(c)
    }
}

impl Costs {
    /// Parses eight strings of eight digits, row 1 first, column a first in each.
    ///
    /// # Errors
    /// What is wrong, in plain words.
    pub fn parse(rows: &[String]) -> Result<Costs, String> {
        if rows.len() != SIDE as usize {
            return Err(format!("eight rows of costs, not {}", rows.len()));
        }
        let mut c = [0u8; CELLS];
        for (r, row) in rows.iter().enumerate() {
            let digits = row.as_bytes();
            if digits.len() != SIDE as usize || !digits.iter().all(u8::is_ascii_digit) {
                return Err(format!(
                    "row {} is {:?}, not eight digits",
                    r + 1,
                    rules_core::clip(row)
                ));
            }
            for (col, d) in digits.iter().enumerate() {
                c[r * SIDE as usize + col] = d - b'0';
            }
        }
        Ok(Costs(c))
    }

    /// The cost of `cell`.
    #[inline]
    pub fn of(&self, cell: Cell) -> u32 {
        u32::from(self.0[cell.index()])
    }

    /// The highest cost of any cell.
    pub fn max(&self) -> u32 {
        self.0.iter().copied().max().map_or(0, u32::from)
    }
}

impl Serialize for Costs {
    /// Eight strings of eight digits, row 1 first: the option's own shape.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(SIDE as usize))?;
        for row in self.0.chunks(SIDE as usize) {
            let text: String = row.iter().map(|d| (b'0' + d) as char).collect();
            seq.serialize_element(&text)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Costs {
    /// The serialized shape back, checked as the `costs` option is.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Costs::parse(&Vec::<String>::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// Virtual node joined to every stone on a seat's first side.
const START: u8 = CELLS as u8;
/// Virtual node joined to every stone on a seat's second side.
const END: u8 = CELLS as u8 + 1;

/// A disjoint-set forest over the 64 cells and the two virtual side nodes of one seat.
/// Stones are never removed, so unions only grow; union by rank with path halving keeps
/// each operation near-constant.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
struct UnionFind {
    parent: [u8; CELLS + 2],
    rank: [u8; CELLS + 2],
}

impl UnionFind {
    const NEW: UnionFind = {
        let mut parent = [0u8; CELLS + 2];
        let mut i = 0;
        while i < CELLS + 2 {
            parent[i] = i as u8;
            i += 1;
        }
        UnionFind { parent, rank: [0; CELLS + 2] }
    };

    #[inline]
    fn find(&mut self, mut x: u8) -> u8 {
        while self.parent[x as usize] != x {
            let grand = self.parent[self.parent[x as usize] as usize];
            self.parent[x as usize] = grand;
            x = grand;
        }
        x
    }

    /// The root without compressing (for queries through `&self`).
    #[inline]
    fn root(&self, mut x: u8) -> u8 {
        while self.parent[x as usize] != x {
            x = self.parent[x as usize];
        }
        x
    }

    #[inline]
    fn union(&mut self, a: u8, b: u8) {
        let (a, b) = (self.find(a), self.find(b));
        if a == b {
            return;
        }
        let (ra, rb) = (self.rank[a as usize], self.rank[b as usize]);
        if ra < rb {
            self.parent[a as usize] = b;
        } else {
            self.parent[b as usize] = a;
            if ra == rb {
                self.rank[a as usize] += 1;
            }
        }
    }
}

/// The stones on the board and, per seat, which of them are joined.
#[derive(Clone, Copy, Debug)]
pub struct Board {
    stones: PerSeat<u64>,
    links: PerSeat<UnionFind>,
}

/// Boards are equal when they hold the same stones: the union-find only caches what the
/// stones determine, and its shape depends on the order they were placed in (a board
/// rebuilt from its JSON places them in cell order).
impl PartialEq for Board {
    fn eq(&self, other: &Self) -> bool {
        self.stones == other.stones
    }
}

impl Eq for Board {}

impl Default for Board {
    fn default() -> Self {
        Board { stones: PerSeat::splat(0), links: PerSeat::splat(UnionFind::NEW) }
    }
}

impl Board {
    /// The seat whose stone is on `cell`, if any.
    #[inline]
    pub fn owner(&self, cell: Cell) -> Option<Seat> {
        Seat::BOTH.into_iter().find(|&s| self.stones[s] & cell.bit() != 0)
    }

    /// A seat's stones.
    #[inline]
    pub fn stones(&self, seat: Seat) -> CellSet {
        CellSet(self.stones[seat])
    }

    /// The empty cells.
    #[inline]
    pub fn empty(&self) -> CellSet {
        CellSet(!(self.stones[Seat::ZERO] | self.stones[Seat::ONE]))
    }

    /// Puts a stone of `seat` on the empty `cell` and joins it to its own neighbours and
    /// to the virtual node of any side it lies on: a few unions, whatever the board.
    pub fn place(&mut self, seat: Seat, cell: Cell) {
        debug_assert!(self.owner(cell).is_none(), "{cell} is taken");
        self.stones[seat] |= cell.bit();
        let uf = &mut self.links[seat];
        let me = cell.index() as u8;
        let (first, second) = sides(seat);
        if first & cell.bit() != 0 {
            uf.union(me, START);
        }
        if second & cell.bit() != 0 {
            uf.union(me, END);
        }
        for n in CellSet(NEIGHBOURS[cell.index()] & self.stones[seat]).iter() {
            uf.union(me, n.index() as u8);
        }
    }

    /// Whether `seat`'s stones join its two sides.
    #[inline]
    pub fn connected(&self, seat: Seat) -> bool {
        let uf = &self.links[seat];
        uf.root(START) == uf.root(END)
    }

    /// The board as text, row 8 on top and each row shifted half a cell from the next so
    /// neighbours touch: `X` seat 0 (joins rows 1 and 8), `O` seat 1 (joins columns a
    /// and h), a digit the AP cost of an empty cell. For the terminal client and records.
    pub fn render(&self, costs: &Costs) -> String {
        let mut out = String::with_capacity(400);
        let letters = "a b c d e f g h";
        let _ = writeln!(out, "{:w$}{letters}", "", w = 3 + SIDE as usize - 1);
        for row in (0..SIDE).rev() {
            let _ = write!(out, "{:>2} {:w$}", row + 1, "", w = row as usize);
            for col in 0..SIDE {
                let cell = Cell::new(i32::from(col), i32::from(row)).expect("on the board");
                let ch = match self.owner(cell) {
                    Some(s) if s == Seat::ZERO => 'X',
                    Some(_) => 'O',
                    None => char::from_digit(costs.of(cell), 10).unwrap_or('?'),
                };
                out.push(ch);
                out.push(' ');
            }
            let _ = writeln!(out, "{}", row + 1);
        }
        let _ = writeln!(out, "   {letters}");
        out.push_str(
            "X: seat 0 joins rows 1 and 8; O: seat 1 joins columns a and h; digits: AP cost\n",
        );
        out
    }
}

impl Serialize for Board {
    /// Eight strings of eight characters, row 1 first: `0` or `1` a seat's stone, `.` empty.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(SIDE as usize))?;
        for row in 0..SIDE {
            let text: String = (0..SIDE)
                .map(|col| {
                    let cell = Cell::new(i32::from(col), i32::from(row)).expect("on the board");
                    match self.owner(cell) {
                        Some(s) if s == Seat::ZERO => '0',
                        Some(_) => '1',
                        None => '.',
                    }
                })
                .collect();
            seq.serialize_element(&text)?;
        }
        seq.end()
    }
}

impl<'de> Deserialize<'de> for Board {
    /// The serialized shape back; the stones are placed in cell order, which rebuilds the
    /// same connections (they depend on the stones only).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let rows = Vec::<String>::deserialize(d)?;
        if rows.len() != SIDE as usize {
            return Err(D::Error::custom(format!("eight rows of stones, not {}", rows.len())));
        }
        let mut b = Board::default();
        for (r, row) in rows.iter().enumerate() {
            let marks = row.as_bytes();
            if marks.len() != SIDE as usize {
                return Err(D::Error::custom(format!(
                    "row {} is {:?}, not eight cells",
                    r + 1,
                    rules_core::clip(row)
                )));
            }
            for (col, m) in marks.iter().enumerate() {
                let cell = Cell::from_index(r * SIDE as usize + col);
                match m {
                    b'0' => b.place(Seat::ZERO, cell),
                    b'1' => b.place(Seat::ONE, cell),
                    b'.' => {}
                    _ => {
                        return Err(D::Error::custom(format!(
                            "row {} is {row:?}: cells are 0, 1 or .",
                            r + 1
                        )));
                    }
                }
            }
        }
        Ok(b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(name: &str) -> Cell {
        let b = name.as_bytes();
        Cell::new(i32::from(b[0] - b'a'), i32::from(b[1] - b'1')).unwrap()
    }

    #[test]
    fn neighbours_follow_the_readme() {
        // (c, r) touches (c±1, r), (c, r±1), (c+1, r-1) and (c-1, r+1).
        let n: Vec<String> =
            CellSet(NEIGHBOURS[cell("c3").index()]).iter().map(|c| c.to_string()).collect();
        assert_eq!(n, ["c2", "d2", "b3", "d3", "b4", "c4"]);
        assert_eq!(CellSet(NEIGHBOURS[cell("a1").index()]).len(), 2);
        assert_eq!(CellSet(NEIGHBOURS[cell("h1").index()]).len(), 3);
        assert_eq!(CellSet(NEIGHBOURS[cell("a8").index()]).len(), 3);
        assert_eq!(CellSet(NEIGHBOURS[cell("h8").index()]).len(), 2);
    }

    #[test]
    fn default_costs_are_one_on_the_rim_and_four_in_the_middle() {
        let c = Costs::default();
        assert_eq!(c.of(cell("a1")), 1);
        assert_eq!(c.of(cell("b2")), 2);
        assert_eq!(c.of(cell("c6")), 3);
        assert_eq!(c.of(cell("d4")), 4);
        assert_eq!(c.of(cell("e5")), 4);
        assert_eq!(c.max(), 4);
        let json = serde_json::to_value(c).unwrap();
        assert_eq!(json[0], "11111111");
        assert_eq!(json[3], "12344321");
        assert_eq!(Costs::parse(&serde_json::from_value::<Vec<String>>(json).unwrap()), Ok(c));
    }

    #[test]
    fn a_diagonal_chain_connects_and_the_side_nodes_decide() {
        let mut b = Board::default();
        // Seat 1 along row 1: a1..h1 joins column a to column h.
        for col in 0..8 {
            b.place(Seat::ONE, Cell::new(col, 0).unwrap());
            assert_eq!(b.connected(Seat::ONE), col == 7);
        }
        assert!(!b.connected(Seat::ZERO));
        // Seat 0 zigzags h2, g3.. using the (c-1, r+1) links: h2 g3 f4 e5 d6 c7 b8 does
        // not reach row 1, which seat 1 holds.
        for (i, r) in (1..8).enumerate() {
            b.place(Seat::ZERO, Cell::new(7 - i as i32, r).unwrap());
        }
        assert!(!b.connected(Seat::ZERO));
        assert_eq!(b.stones(Seat::ZERO).len(), 7);
    }

    #[test]
    fn render_shows_stones_and_costs() {
        let mut b = Board::default();
        b.place(Seat::ZERO, cell("d4"));
        b.place(Seat::ONE, cell("a1"));
        let text = b.render(&Costs::default());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 11);
        assert!(lines[8].starts_with(" 1 O 1 1 1 1 1 1 1 1"), "{text}");
        assert!(lines[5].contains("1 2 3 X 4 3 2 1"), "{text}");
        let json = serde_json::to_value(b).unwrap();
        assert_eq!(json[0], "1.......");
        assert_eq!(json[3], "...0....");
        assert_eq!(serde_json::from_value::<Board>(json).unwrap(), b);
    }

    #[test]
    fn a_board_rebuilt_from_json_keeps_its_connections() {
        // Seat 0 joins rows 1 and 8 up column c, placed top down so the union-find grows
        // differently from the cell-order rebuild.
        let mut b = Board::default();
        for row in (0..8).rev() {
            b.place(Seat::ZERO, Cell::new(2, row).unwrap());
        }
        b.place(Seat::ONE, cell("a1"));
        let back: Board = serde_json::from_value(serde_json::to_value(b).unwrap()).unwrap();
        assert_eq!(back, b);
        assert!(back.connected(Seat::ZERO) && !back.connected(Seat::ONE));
        for bad in [vec!["........"], vec!["......x."; 8], vec!["......."; 8]] {
            assert!(serde_json::from_value::<Board>(serde_json::json!(bad)).is_err(), "{bad:?}");
        }
    }
}
