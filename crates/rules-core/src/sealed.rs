//! Simultaneous moves: each seat's move is sealed until the rules reveal both. While
//! sealed, the other seat and spectators learn only that the seat has moved.

use crate::seat::{PerSeat, Seat, SeatSet};

/// Whether a seat may replace its sealed move before the round resolves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Resubmission {
    /// The first submission is final.
    Final,
    /// A later submission replaces the earlier one.
    Replaces,
}

/// The sealed moves of one round.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sealed<M: Copy> {
    moves: PerSeat<Option<M>>,
}

impl<M: Copy> Default for Sealed<M> {
    fn default() -> Self {
        Sealed { moves: PerSeat([None, None]) }
    }
}

impl<M: Copy> Sealed<M> {
    /// Seals `mv` for `seat`, replacing an earlier one. Whether replacing is allowed is
    /// checked by the game before (`can_submit`).
    #[inline]
    pub fn seal(&mut self, seat: Seat, mv: M) {
        self.moves[seat] = Some(mv);
    }

    /// The seat's sealed move, if any. Only the rules and that seat's own view read it.
    #[inline]
    pub fn get(&self, seat: Seat) -> Option<M> {
        self.moves[seat]
    }

    /// The seats that have sealed a move.
    pub fn moved(&self) -> SeatSet {
        let mut s = SeatSet::NONE;
        for seat in Seat::BOTH {
            if self.moves[seat].is_some() {
                s = s.with(seat);
            }
        }
        s
    }

    /// The seats that have not.
    pub fn waiting(&self) -> SeatSet {
        let mut s = SeatSet::NONE;
        for seat in Seat::BOTH {
            if self.moves[seat].is_none() {
                s = s.with(seat);
            }
        }
        s
    }

    /// Both moves, if both seats have moved.
    #[inline]
    pub fn both(&self) -> Option<PerSeat<M>> {
        match self.moves.0 {
            [Some(a), Some(b)] => Some(PerSeat([a, b])),
            _ => None,
        }
    }

    /// Opens the seals for a new round.
    #[inline]
    pub fn clear(&mut self) {
        self.moves = PerSeat([None, None]);
    }
}
