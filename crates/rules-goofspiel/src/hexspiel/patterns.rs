//! The three Hexspiel patterns and every place each fits on the board, as bitboards
//! built at compile time: checking a declaration is one lookup among at most 80 masks.

use super::board::{CELLS, Cell, NEIGHBOURS};
use serde::{Deserialize, Serialize};
use std::fmt;

/// A pattern a seat may declare after its Hex turn.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum PatternKind {
    /// Five own cells in a straight line.
    Row5,
    /// The six neighbours of one cell (the centre may hold anything).
    Ring6,
    /// A cell and two cells outward in each of three directions 120 degrees apart.
    Y7,
}

impl PatternKind {
    /// The three patterns.
    pub const ALL: [PatternKind; 3] = [PatternKind::Row5, PatternKind::Ring6, PatternKind::Y7];

    /// How many cells make it up.
    pub const fn size(self) -> u32 {
        match self {
            PatternKind::Row5 => 5,
            PatternKind::Ring6 => 6,
            PatternKind::Y7 => 7,
        }
    }

    /// The value of the bidding card it upgrades (the upgrade replaces that card).
    pub const fn card(self) -> u8 {
        match self {
            PatternKind::Row5 => 4,
            PatternKind::Ring6 => 9,
            PatternKind::Y7 => 2,
        }
    }

    /// Every placement of the pattern on the board, rotations included.
    pub fn instances(self) -> &'static [u64] {
        match self {
            PatternKind::Row5 => &ROW5,
            PatternKind::Ring6 => &RING6,
            PatternKind::Y7 => &Y7,
        }
    }

    /// Whether the cells `mask` are one placement of the pattern.
    pub fn fits(self, mask: u64) -> bool {
        self.instances().contains(&mask)
    }

    /// The name used in moves.
    pub const fn name(self) -> &'static str {
        match self {
            PatternKind::Row5 => "row5",
            PatternKind::Ring6 => "ring6",
            PatternKind::Y7 => "y7",
        }
    }
}

impl fmt::Display for PatternKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// `len` cells from `from` in direction `d`, or 0 if any is off the board.
const fn line(from: Cell, d: usize, len: i32) -> u64 {
    let mut mask = 0;
    let mut k = 0;
    while k < len {
        match from.step(d, k) {
            Some(c) => mask |= c.bit(),
            None => return 0,
        }
        k += 1;
    }
    mask
}

// Lines of five along the three axes: 32 + 32 along rows and columns, 16 along the
// (c+1, r-1) diagonal.
const ROW5_COUNT: usize = 80;
const fn build_row5() -> [u64; ROW5_COUNT] {
    let mut out = [0u64; ROW5_COUNT];
    let mut n = 0;
    let mut i = 0;
    while i < CELLS {
        let mut d = 0;
        // Directions 0, 1, 2 are the three axes; 3, 4, 5 walk the same lines backwards.
        while d < 3 {
            let m = line(Cell::from_index(i), d, 5);
            if m != 0 {
                out[n] = m;
                n += 1;
            }
            d += 1;
        }
        i += 1;
    }
    assert!(n == ROW5_COUNT);
    out
}

// A ring around each of the 6x6 inner cells.
const RING6_COUNT: usize = 36;
const fn build_ring6() -> [u64; RING6_COUNT] {
    let mut out = [0u64; RING6_COUNT];
    let mut n = 0;
    let mut i = 0;
    while i < CELLS {
        if NEIGHBOURS[i].count_ones() == 6 {
            out[n] = NEIGHBOURS[i];
            n += 1;
        }
        i += 1;
    }
    assert!(n == RING6_COUNT);
    out
}

// Two orientations (directions 0, 2, 4 or 1, 3, 5), 16 centres each.
const Y7_COUNT: usize = 32;
const fn build_y7() -> [u64; Y7_COUNT] {
    let mut out = [0u64; Y7_COUNT];
    let mut n = 0;
    let mut i = 0;
    while i < CELLS {
        let mut first = 0;
        while first < 2 {
            let c = Cell::from_index(i);
            let arms = [line(c, first, 3), line(c, first + 2, 3), line(c, (first + 4) % 6, 3)];
            if arms[0] != 0 && arms[1] != 0 && arms[2] != 0 {
                out[n] = arms[0] | arms[1] | arms[2];
                n += 1;
            }
            first += 1;
        }
        i += 1;
    }
    assert!(n == Y7_COUNT);
    out
}

static ROW5: [u64; ROW5_COUNT] = build_row5();
static RING6: [u64; RING6_COUNT] = build_ring6();
static Y7: [u64; Y7_COUNT] = build_y7();

#[cfg(test)]
mod tests {
    use super::*;

    fn mask(names: &[&str]) -> u64 {
        names
            .iter()
            .map(|n| {
                let b = n.as_bytes();
                Cell::new(i32::from(b[0] - b'a'), i32::from(b[1] - b'1')).unwrap().bit()
            })
            .fold(0, |a, b| a | b)
    }

    #[test]
    fn every_instance_has_the_pattern_size() {
        for k in PatternKind::ALL {
            assert!(k.instances().iter().all(|m| m.count_ones() == k.size()), "{k}");
            let mut v = k.instances().to_vec();
            v.sort_unstable();
            v.dedup();
            assert_eq!(v.len(), k.instances().len(), "{k} instances are distinct");
        }
    }

    #[test]
    fn shapes_match_the_readme() {
        assert!(PatternKind::Row5.fits(mask(&["a1", "b1", "c1", "d1", "e1"])));
        assert!(PatternKind::Row5.fits(mask(&["c2", "c3", "c4", "c5", "c6"])));
        assert!(PatternKind::Row5.fits(mask(&["a5", "b4", "c3", "d2", "e1"])));
        // (c+1, r+1) is not a neighbour direction: no line that way.
        assert!(!PatternKind::Row5.fits(mask(&["a1", "b2", "c3", "d4", "e5"])));
        assert!(!PatternKind::Row5.fits(mask(&["a1", "b1", "c1", "d1", "f1"])));
        // The ring around c3.
        assert!(PatternKind::Ring6.fits(mask(&["c2", "d2", "b3", "d3", "b4", "c4"])));
        assert!(!PatternKind::Ring6.fits(mask(&["c2", "d2", "b3", "d3", "b4", "c3"])));
        // Centre d4, arms east (e4 f4), south (d3 d2), north-west (c5 b6).
        assert!(PatternKind::Y7.fits(mask(&["d4", "e4", "f4", "d3", "d2", "c5", "b6"])));
        // The other orientation: south-east (e3 f2), west (c4 b4), north (d5 d6).
        assert!(PatternKind::Y7.fits(mask(&["d4", "e3", "f2", "c4", "b4", "d5", "d6"])));
        // Three arms 60 degrees apart are not a Y.
        assert!(!PatternKind::Y7.fits(mask(&["d4", "e4", "f4", "e3", "f2", "d3", "d2"])));
    }
}
