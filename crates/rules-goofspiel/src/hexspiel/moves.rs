//! Hexspiel moves in the conformance JSON shape: `{"bid": n}` or `{"place": [...]}` with
//! an optional `"pattern"`. Parsing is strict about shape (a cell that does not parse is
//! a bad move) but keeps what the rules judge (off-board cells, too many cells), so those
//! are refused as illegal moves. Every type here is `Copy`: a move never allocates.

use super::board::Cell;
use super::patterns::PatternKind;
use serde::de::{self, Deserializer, SeqAccess, Visitor};
use serde::ser::SerializeSeq;
use serde::{Deserialize, Serialize, Serializer};
use std::fmt;

/// A cell as written in a move: a lowercase letter and a row number without leading
/// zeros. It may lie off the board (`i3`, `a9`, `c0`): the rules refuse those.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CellName {
    /// 0 for `a` .. 25 for `z`.
    col: u8,
    /// The row number as written (saturated: any row past u32 is off the board anyway).
    row: u32,
}

impl CellName {
    /// Parses `c3`; `None` for anything not of that form (`zz`, `3c`, `C3`, `c03`, `""`).
    pub fn parse(s: &str) -> Option<CellName> {
        let b = s.as_bytes();
        let (&letter, digits) = b.split_first()?;
        if !letter.is_ascii_lowercase()
            || digits.is_empty()
            || !digits.iter().all(u8::is_ascii_digit)
            || (digits.len() > 1 && digits[0] == b'0')
        {
            return None;
        }
        let row = digits
            .iter()
            .try_fold(0u32, |n, d| n.checked_mul(10)?.checked_add(u32::from(d - b'0')))
            .unwrap_or(u32::MAX);
        Some(CellName { col: letter - b'a', row })
    }

    /// The board cell it names, if on the board.
    pub fn cell(self) -> Option<Cell> {
        if self.row == 0 || self.row > 8 {
            return None;
        }
        Cell::new(i32::from(self.col), self.row as i32 - 1)
    }
}

impl From<Cell> for CellName {
    fn from(c: Cell) -> Self {
        CellName { col: c.col(), row: u32::from(c.row()) + 1 }
    }
}

impl fmt::Display for CellName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col) as char, self.row)
    }
}

impl Serialize for CellName {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for CellName {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl Visitor<'_> for V {
            type Value = CellName;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a cell: a lowercase letter and a row number, like \"c3\"")
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<CellName, E> {
                CellName::parse(s).ok_or_else(|| {
                    E::custom(format!(
                        "{:?} is not a cell (a lowercase letter and a row number, like \"c3\")",
                        rules_core::clip(s)
                    ))
                })
            }
        }
        d.deserialize_str(V)
    }
}

/// The cells of a list in a move: the first `N` kept, and how many were given (up to
/// [`MAX_GIVEN`]), so a list too long for the rules is still judged by them; a list longer
/// than that is refused as the move's shape, never counted as shorter than it is.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct CellList<const N: usize> {
    cells: [CellName; N],
    given: u8,
}

/// The most cells a list in a move may give (the count's range).
pub const MAX_GIVEN: usize = u8::MAX as usize;

/// A list of cells longer than [`MAX_GIVEN`].
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct TooManyCells;

impl fmt::Display for TooManyCells {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "a list of cells holds at most {MAX_GIVEN} cells")
    }
}

impl<const N: usize> CellList<N> {
    /// An empty list.
    pub const EMPTY: Self = CellList { cells: [CellName { col: 0, row: 0 }; N], given: 0 };

    /// A list of board cells (at most `N`).
    pub fn of(cells: impl IntoIterator<Item = Cell>) -> Self {
        let mut l = Self::EMPTY;
        for c in cells {
            l.cells[l.given as usize] = c.into();
            l.given += 1;
        }
        l
    }

    /// A list of cells as written in a move, kept as the JSON parser keeps them: the
    /// first `N`, and how many were given, so the rules judge a list too long.
    ///
    /// # Errors
    /// More than [`MAX_GIVEN`] cells.
    pub fn of_names(names: impl IntoIterator<Item = CellName>) -> Result<Self, TooManyCells> {
        let mut l = Self::EMPTY;
        for c in names {
            l.push(c)?;
        }
        Ok(l)
    }

    fn push(&mut self, c: CellName) -> Result<(), TooManyCells> {
        if (self.given as usize) < N {
            self.cells[self.given as usize] = c;
        }
        self.given = self.given.checked_add(1).ok_or(TooManyCells)?;
        Ok(())
    }

    /// How many cells the move gave.
    pub fn given(&self) -> u32 {
        u32::from(self.given)
    }

    /// The cells kept (all of them when `given() <= N`).
    pub fn cells(&self) -> &[CellName] {
        &self.cells[..(self.given as usize).min(N)]
    }
}

impl<const N: usize> Serialize for CellList<N> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.cells().len()))?;
        for c in self.cells() {
            seq.serialize_element(c)?;
        }
        seq.end()
    }
}

impl<'de, const N: usize> Deserialize<'de> for CellList<N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<const N: usize>;
        impl<'de, const N: usize> Visitor<'de> for V<N> {
            type Value = CellList<N>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a list of cells")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<CellList<N>, A::Error> {
                let mut l = CellList::<N>::EMPTY;
                while let Some(c) = seq.next_element::<CellName>()? {
                    l.push(c).map_err(serde::de::Error::custom)?;
                }
                Ok(l)
            }
        }
        d.deserialize_seq(V::<N>)
    }
}

/// A pattern declaration: `{"kind": "row5", "cells": [...]}`.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Declaration {
    /// Which pattern.
    pub kind: PatternKind,
    /// The cells claimed to make it up.
    pub cells: CellList<7>,
}

/// A Hexspiel move.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub enum HexspielMove {
    /// `{"bid": v}`: play the card of value v (an integer, judged by the rules).
    Bid(i64),
    /// `{"place": [...], "pattern": {...}}`: a Hex turn.
    Hex {
        /// 0 to 2 cells to put stones on.
        place: CellList<2>,
        /// A pattern declared after placing, if any.
        pattern: Option<Declaration>,
    },
}

impl HexspielMove {
    /// A Hex turn placing `cells`, declaring nothing.
    pub fn place(cells: impl IntoIterator<Item = Cell>) -> Self {
        HexspielMove::Hex { place: CellList::of(cells), pattern: None }
    }
}

/// The JSON shape as parsed, before checking which of the two forms it is.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMove {
    #[serde(default, deserialize_with = "present")]
    bid: Option<i64>,
    #[serde(default, deserialize_with = "present")]
    place: Option<CellList<2>>,
    #[serde(default, deserialize_with = "present")]
    pattern: Option<Declaration>,
}

/// A key that is there must hold a value (`null` is not one).
fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    T::deserialize(d).map(Some)
}

impl<'de> Deserialize<'de> for HexspielMove {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match RawMove::deserialize(d)? {
            RawMove { bid: Some(b), place: None, pattern: None } => Ok(HexspielMove::Bid(b)),
            RawMove { bid: None, place: Some(place), pattern } => {
                Ok(HexspielMove::Hex { place, pattern })
            }
            RawMove { bid: Some(_), .. } => {
                Err(de::Error::custom("a move is a bid or a Hex turn, not both"))
            }
            RawMove { bid: None, place: None, .. } => Err(de::Error::custom(
                "a move is {\"bid\": n} or {\"place\": [cells]} with an optional \"pattern\"",
            )),
        }
    }
}

impl Serialize for HexspielMove {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match self {
            HexspielMove::Bid(b) => {
                let mut m = s.serialize_map(Some(1))?;
                m.serialize_entry("bid", b)?;
                m.end()
            }
            HexspielMove::Hex { place, pattern } => {
                let mut m = s.serialize_map(Some(1 + usize::from(pattern.is_some())))?;
                m.serialize_entry("place", place)?;
                if let Some(p) = pattern {
                    m.serialize_entry("pattern", p)?;
                }
                m.end()
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(v: serde_json::Value) -> Result<HexspielMove, String> {
        serde_json::from_value(v).map_err(|e| e.to_string())
    }

    #[test]
    fn cell_names_parse_strictly() {
        for ok in ["c3", "h8", "a1", "i3", "a9", "c0", "z12", "a99999999999999"] {
            assert!(CellName::parse(ok).is_some(), "{ok}");
        }
        for bad in ["zz", "3c", "C3", "c03", "", "c", "c-1", "c3 ", "é3"] {
            assert!(CellName::parse(bad).is_none(), "{bad}");
        }
        assert_eq!(CellName::parse("h8").unwrap().cell().unwrap().index(), 63);
        for off in ["i3", "a9", "c0", "a99999999999999"] {
            assert!(CellName::parse(off).unwrap().cell().is_none(), "{off}");
        }
    }

    #[test]
    fn move_shapes() {
        assert_eq!(parse(json!({"bid": 3})), Ok(HexspielMove::Bid(3)));
        assert_eq!(parse(json!({"bid": -40})), Ok(HexspielMove::Bid(-40)));
        let m = parse(json!({"place": ["a1", "i9", "b2"]})).unwrap();
        let HexspielMove::Hex { place, pattern: None } = m else { panic!("{m:?}") };
        assert_eq!(place.given(), 3);
        assert_eq!(place.cells().len(), 2);
        let m = parse(json!({"place": [], "pattern": {"kind": "y7", "cells": ["d4"]}})).unwrap();
        assert!(matches!(m, HexspielMove::Hex { pattern: Some(_), .. }));
        for bad in [
            json!({}),
            json!({"bid": 3, "place": []}),
            json!({"bid": null}),
            json!({"bid": "3"}),
            json!({"bid": 3.5}),
            json!({"place": ["C3"]}),
            json!({"place": "c3"}),
            json!({"place": [], "extra": 1}),
            json!({"pattern": {"kind": "row5", "cells": []}}),
            json!({"place": [], "pattern": {"kind": "row6", "cells": []}}),
            json!({"place": [], "pattern": {"kind": "row5"}}),
            json!({"place": [], "pattern": null}),
            json!({"place": [], "pattern": {"kind": "row5", "cells": ["a01"]}}),
        ] {
            assert!(parse(bad.clone()).is_err(), "{bad}");
        }
    }

    #[test]
    fn moves_round_trip() {
        for v in [
            json!({"bid": 9}),
            json!({"place": ["c3", "d4"]}),
            json!({"place": ["a1"], "pattern": {"kind": "ring6", "cells": ["c2", "d2"]}}),
        ] {
            let m = parse(v.clone()).unwrap();
            assert_eq!(serde_json::to_value(m).unwrap(), v);
        }
    }
}
