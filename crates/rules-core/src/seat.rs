//! Seats and the containers keyed by them: a match has exactly two seats, so a seat is a
//! newtype over 0/1 and per-seat data lives in `PerSeat<T>`, never in loose pairs.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::ops::{Index, IndexMut};

/// One of the two seats of a match. Only `Seat::ZERO` and `Seat::ONE` exist.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct Seat(u8);

impl Seat {
    /// The first seat.
    pub const ZERO: Seat = Seat(0);
    /// The second seat.
    pub const ONE: Seat = Seat(1);
    /// Both seats, in order.
    pub const BOTH: [Seat; 2] = [Seat::ZERO, Seat::ONE];

    /// The seat numbered `n`, if it exists.
    pub fn new(n: u64) -> Option<Seat> {
        match n {
            0 => Some(Seat::ZERO),
            1 => Some(Seat::ONE),
            _ => None,
        }
    }

    /// The other seat.
    #[inline]
    pub fn other(self) -> Seat {
        Seat(1 - self.0)
    }

    /// 0 or 1.
    #[inline]
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for Seat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "seat {}", self.0)
    }
}

impl Serialize for Seat {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(self.0)
    }
}

impl<'de> Deserialize<'de> for Seat {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let n = u64::deserialize(d)?;
        Seat::new(n)
            .ok_or_else(|| serde::de::Error::custom(format!("seat {n} does not exist (0 or 1)")))
    }
}

/// One value per seat, indexed by `Seat`. Serialized as a two-element array.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default, Serialize, Deserialize)]
pub struct PerSeat<T>(pub [T; 2]);

impl<T> PerSeat<T> {
    /// Builds both values from a function of the seat.
    pub fn from_fn(mut f: impl FnMut(Seat) -> T) -> Self {
        PerSeat([f(Seat::ZERO), f(Seat::ONE)])
    }

    /// Maps both values.
    pub fn map<U>(self, mut f: impl FnMut(Seat, T) -> U) -> PerSeat<U> {
        let [a, b] = self.0;
        PerSeat([f(Seat::ZERO, a), f(Seat::ONE, b)])
    }
}

impl<T: Copy> PerSeat<T> {
    /// The same value for both seats.
    pub const fn splat(v: T) -> Self {
        PerSeat([v, v])
    }
}

impl<T> Index<Seat> for PerSeat<T> {
    type Output = T;
    #[inline]
    fn index(&self, s: Seat) -> &T {
        &self.0[s.index()]
    }
}

impl<T> IndexMut<Seat> for PerSeat<T> {
    #[inline]
    fn index_mut(&mut self, s: Seat) -> &mut T {
        &mut self.0[s.index()]
    }
}

/// A set of seats (bit 0: seat 0, bit 1: seat 1): which seats owe a move now.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct SeatSet(u8);

impl SeatSet {
    /// No seat.
    pub const NONE: SeatSet = SeatSet(0);
    /// Both seats.
    pub const BOTH: SeatSet = SeatSet(3);

    /// Just `seat`.
    pub fn only(seat: Seat) -> SeatSet {
        SeatSet(1 << seat.0)
    }

    /// Whether `seat` is in the set.
    #[inline]
    pub fn contains(self, seat: Seat) -> bool {
        self.0 & (1 << seat.0) != 0
    }

    /// The set with `seat` added.
    pub fn with(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 | (1 << seat.0))
    }

    /// The set with `seat` removed.
    pub fn without(self, seat: Seat) -> SeatSet {
        SeatSet(self.0 & !(1 << seat.0))
    }

    /// Whether no seat is in the set.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// The seats in the set, in order.
    pub fn iter(self) -> impl Iterator<Item = Seat> {
        Seat::BOTH.into_iter().filter(move |s| self.contains(*s))
    }
}

impl Serialize for SeatSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for SeatSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Seat>::deserialize(d)?.into_iter().fold(SeatSet::NONE, SeatSet::with))
    }
}

/// Who looks at a match: one seat, or a spectator who sees only public information.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Viewer {
    /// A player, who also sees what the rules show to its seat alone.
    Seat(Seat),
    /// Anyone else: public information only.
    Spectator,
}

impl Viewer {
    /// The seat, if the viewer is a player.
    pub fn seat(self) -> Option<Seat> {
        match self {
            Viewer::Seat(s) => Some(s),
            Viewer::Spectator => None,
        }
    }
}

/// Who may receive an event.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Audience {
    /// Both seats and every spectator.
    Public,
    /// That seat alone.
    Seat(Seat),
}

impl Audience {
    /// Whether `viewer` may receive an event with this audience.
    pub fn admits(self, viewer: Viewer) -> bool {
        match (self, viewer) {
            (Audience::Public, _) => true,
            (Audience::Seat(s), Viewer::Seat(v)) => s == v,
            (Audience::Seat(_), Viewer::Spectator) => false,
        }
    }
}

impl Serialize for Audience {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Audience::Public => s.serialize_str("public"),
            Audience::Seat(seat) => {
                s.serialize_str(if seat.index() == 0 { "seat0" } else { "seat1" })
            }
        }
    }
}

impl<'de> Deserialize<'de> for Audience {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "public" => Ok(Audience::Public),
            "seat0" => Ok(Audience::Seat(Seat::ZERO)),
            "seat1" => Ok(Audience::Seat(Seat::ONE)),
            other => Err(serde::de::Error::custom(format!("unknown audience {other:?}"))),
        }
    }
}
