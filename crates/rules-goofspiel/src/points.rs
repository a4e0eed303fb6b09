//! `Points`: a score kept in half points, so GOPS's `split` ties stay exact integers
//! inside and print as `4` or `4.5` outside.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::ops::{Add, AddAssign};

/// A score in half points.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
pub struct Points(u16);

impl Points {
    /// Zero.
    pub const ZERO: Points = Points(0);

    /// `n` whole points.
    pub const fn whole(n: u16) -> Points {
        Points(n * 2)
    }

    /// Half of `n` whole points (a split prize).
    pub const fn half_of(n: u16) -> Points {
        Points(n)
    }

    /// The score in half points.
    pub const fn halves(self) -> u16 {
        self.0
    }
}

impl Add for Points {
    type Output = Points;
    fn add(self, o: Points) -> Points {
        Points(self.0 + o.0)
    }
}

impl AddAssign for Points {
    fn add_assign(&mut self, o: Points) {
        self.0 += o.0;
    }
}

impl fmt::Display for Points {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_multiple_of(2) {
            write!(f, "{}", self.0 / 2)
        } else {
            write!(f, "{}.5", self.0 / 2)
        }
    }
}

impl<'de> Deserialize<'de> for Points {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let x = f64::deserialize(d)?;
        let halves = x * 2.0;
        if halves < 0.0 || halves > f64::from(u16::MAX) || halves.fract() != 0.0 {
            return Err(serde::de::Error::custom(format!("{x} is not a score in half points")));
        }
        Ok(Points(halves as u16))
    }
}

impl Serialize for Points {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.0.is_multiple_of(2) {
            s.serialize_u16(self.0 / 2)
        } else {
            s.serialize_f64(f64::from(self.0) / 2.0)
        }
    }
}
