//! The time account behind each deadline: when the current window opened and what each
//! seat has used of its reserve (kept from the stream's timestamps, so a rebuilt replica
//! arrives at the same account), and whether a step keeps the round's window.

use rules_core::{Seat, SeatSet};

/// When the current move window opened, and how much of its reserve each seat has used.
/// Kept from the stream's timestamps, so a rebuilt replica arrives at the same account.
#[derive(Clone, Copy, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct TimeAccount {
    pub(super) window_start_ms: u64,
    pub(super) reserve_used_ms: [u64; 2],
}

impl TimeAccount {
    /// Charges `seat`'s move at `now` against the window it had (`windows` as before the
    /// move): time past the window's length comes out of the reserve, if it could use it.
    pub(super) fn charge(
        &mut self,
        windows: &[(Seat, u64, bool)],
        seat: Seat,
        now: u64,
        allowance: u64,
    ) {
        if let Some(&(_, len, true)) = windows.iter().find(|w| w.0 == seat) {
            let over = now.saturating_sub(self.window_start_ms).saturating_sub(len);
            let used = &mut self.reserve_used_ms[seat.index()];
            *used = (*used + over).min(allowance);
        }
    }

    /// When the windows of the seats owing a move run out, opened at `start`.
    pub(super) fn due(
        &self,
        windows: &[(Seat, u64, bool)],
        start: u64,
        allowance: u64,
        standard_ms: u64,
    ) -> u64 {
        let longest = windows
            .iter()
            .map(|&(seat, len, reserve)| {
                let left = if reserve {
                    allowance.saturating_sub(self.reserve_used_ms[seat.index()])
                } else {
                    0
                };
                len + left
            })
            .max()
            .unwrap_or(standard_ms);
        start + longest
    }
}

/// Whether a step keeps the round's window: a seat sealing its move while others still
/// owe theirs (the same minute runs on). Any other step opens a new window.
pub(super) fn keeps_window(before: SeatSet, after: SeatSet, moving: Option<Seat>) -> bool {
    moving.is_some_and(|seat| after == before.without(seat))
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: u64 = 60_000;
    const RESERVE: u64 = 300_000;

    #[test]
    fn time_past_a_window_comes_out_of_the_reserve() {
        let mut a = TimeAccount { window_start_ms: 1_000, reserve_used_ms: [0; 2] };
        let w = [(Seat::ZERO, MIN, true)];
        assert_eq!(a.due(&w, 1_000, RESERVE, MIN), 1_000 + MIN + RESERVE);
        // Seat 0 moves 90 s into its minute: 30 s of reserve used.
        a.charge(&w, Seat::ZERO, 1_000 + 90_000, RESERVE);
        assert_eq!(a.reserve_used_ms, [30_000, 0]);
        assert_eq!(a.due(&w, 0, RESERVE, MIN), MIN + RESERVE - 30_000);
        // Inside its minute: nothing used.
        a.window_start_ms = 0;
        a.charge(&w, Seat::ZERO, 59_000, RESERVE);
        assert_eq!(a.reserve_used_ms, [30_000, 0]);
        // Never more than the allowance.
        a.charge(&w, Seat::ZERO, 10 * RESERVE, RESERVE);
        assert_eq!(a.reserve_used_ms, [RESERVE, 0]);
        assert_eq!(a.due(&w, 0, RESERVE, MIN), MIN);
    }

    #[test]
    fn windows_without_reserve_neither_use_nor_grant_it() {
        let mut a = TimeAccount::default();
        let rushed = [(Seat::ONE, 30_000, false)];
        a.charge(&rushed, Seat::ONE, 45_000, RESERVE);
        assert_eq!(a.reserve_used_ms, [0, 0]);
        assert_eq!(a.due(&rushed, 100, RESERVE, MIN), 30_100);
        // Simultaneous windows: the longest decides; nobody owing: the standard.
        let both = [(Seat::ZERO, MIN, false), (Seat::ONE, 2 * MIN, false)];
        assert_eq!(a.due(&both, 0, 0, MIN), 2 * MIN);
        assert_eq!(a.due(&[], 5, 0, MIN), 5 + MIN);
    }

    #[test]
    fn sealing_a_move_keeps_the_round_window() {
        assert!(keeps_window(SeatSet::BOTH, SeatSet::only(Seat::ONE), Some(Seat::ZERO)));
        assert!(!keeps_window(SeatSet::only(Seat::ONE), SeatSet::BOTH, Some(Seat::ONE)));
        assert!(!keeps_window(
            SeatSet::only(Seat::ZERO),
            SeatSet::only(Seat::ONE),
            Some(Seat::ZERO)
        ));
        assert!(!keeps_window(SeatSet::BOTH, SeatSet::BOTH, None));
    }
}
