//! `CardSet`: a set of small card values (0..16) as a bitset, the hand representation of
//! every card game here. Copy, allocation-free, and ordered iteration for determinism.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A set of values in 0..16, one bit each.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct CardSet(u16);

impl CardSet {
    /// The empty set.
    pub const EMPTY: CardSet = CardSet(0);

    /// The values `lo..=hi`.
    pub const fn range(lo: u8, hi: u8) -> CardSet {
        if hi < lo {
            return CardSet(0);
        }
        let top = if hi >= 15 { u16::MAX } else { (1u16 << (hi + 1)) - 1 };
        CardSet(top & !((1u16 << lo) - 1))
    }

    /// The raw bits.
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// Whether `v` is in the set.
    #[inline]
    pub const fn contains(self, v: u8) -> bool {
        v < 16 && self.0 & (1 << v) != 0
    }

    /// Adds `v`.
    #[inline]
    pub fn insert(&mut self, v: u8) {
        self.0 |= 1 << v;
    }

    /// Removes `v`.
    #[inline]
    pub fn remove(&mut self, v: u8) {
        self.0 &= !(1 << v);
    }

    /// How many values.
    #[inline]
    pub const fn len(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    #[inline]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The `n`-th smallest value (0-based), if there are more than `n`.
    #[inline]
    pub fn nth(self, n: u32) -> Option<u8> {
        let mut bits = self.0;
        for _ in 0..n {
            bits &= bits.wrapping_sub(1);
        }
        (bits != 0).then(|| bits.trailing_zeros() as u8)
    }

    /// The values, smallest first.
    #[inline]
    pub fn iter(self) -> Values {
        Values(self.0)
    }

    /// The sum of the values.
    pub fn sum(self) -> u32 {
        self.iter().map(u32::from).sum()
    }

    /// The largest value.
    pub fn max(self) -> Option<u8> {
        (self.0 != 0).then(|| 15 - self.0.leading_zeros() as u8)
    }

    /// The smallest value.
    pub fn min(self) -> Option<u8> {
        (self.0 != 0).then(|| self.0.trailing_zeros() as u8)
    }
}

/// Whether `order` holds each of 1..=n exactly once (a prize order, say).
pub fn is_permutation(order: &[u8], n: u8) -> bool {
    let set: CardSet = order.iter().copied().filter(|&v| v < 16).collect();
    order.len() == usize::from(n) && set == CardSet::range(1, n)
}

/// The values of a `CardSet`, smallest first: one step per set bit, not per value.
#[derive(Clone, Copy, Debug)]
pub struct Values(u16);

impl Iterator for Values {
    type Item = u8;
    #[inline]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let v = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(v)
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl DoubleEndedIterator for Values {
    #[inline]
    fn next_back(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let v = 15 - self.0.leading_zeros() as u8;
        self.0 &= !(1 << v);
        Some(v)
    }
}

impl ExactSizeIterator for Values {}

impl FromIterator<u8> for CardSet {
    fn from_iter<I: IntoIterator<Item = u8>>(it: I) -> Self {
        let mut s = CardSet::EMPTY;
        for v in it {
            s.insert(v);
        }
        s
    }
}

impl Serialize for CardSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for CardSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let values = Vec::<u8>::deserialize(d)?;
        if let Some(v) = values.iter().find(|&&v| v >= 16) {
            return Err(serde::de::Error::custom(format!("card {v} is out of 0..16")));
        }
        Ok(values.into_iter().collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn permutations_of_one_to_n() {
        assert!(is_permutation(&[3, 1, 2], 3));
        assert!(!is_permutation(&[1, 1, 2], 3));
        assert!(!is_permutation(&[1, 2], 3));
        assert!(!is_permutation(&[1, 2, 3, 3], 3));
        assert!(!is_permutation(&[0, 1, 2], 3));
        assert!(!is_permutation(&[1, 2, 200], 3));
    }

    #[test]
    fn range_nth_and_extremes() {
        let s = CardSet::range(1, 13);
        assert_eq!(s.len(), 13);
        assert_eq!(s.nth(0), Some(1));
        assert_eq!(s.nth(12), Some(13));
        assert_eq!(s.nth(13), None);
        assert_eq!(s.sum(), 91);
        assert_eq!(s.max(), Some(13));
        assert_eq!(CardSet::range(0, 15).len(), 16);
        let mut t = s;
        t.remove(1);
        t.remove(13);
        assert_eq!((t.min(), t.max()), (Some(2), Some(12)));
        assert_eq!(t.iter().collect::<Vec<_>>(), (2..=12).collect::<Vec<_>>());
        assert_eq!(t.iter().rev().collect::<Vec<_>>(), (2..=12).rev().collect::<Vec<_>>());
        assert_eq!(t.iter().len(), 11);
        let json = serde_json::to_string(&t).unwrap();
        assert_eq!(serde_json::from_str::<CardSet>(&json).unwrap(), t);
        assert!(serde_json::from_str::<CardSet>("[16]").is_err());
    }
}
