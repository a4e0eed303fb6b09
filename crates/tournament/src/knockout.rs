//! Single elimination: the bracket size is the next power of two, seeds are laid out so that
//! seeds 1 and 2 can meet only in the final (1 to 4 only from the semifinals, and so on), and
//! the missing entrants are byes for the top seeds.

use crate::model::{GameNo, Player};

/// Under [`DrawRule::Replay`](crate::DrawRule::Replay), the draws in a row after which the
/// higher seed advances (the first game and two replays).
pub const MAX_DRAWS: usize = 3;

/// The most entrants a knockout takes: a bracket of 2^16.
pub const MAX_KNOCKOUT_ENTRANTS: usize = 1 << 16;

/// The standard seeding of a bracket of `size` (a power of two, at least 2): the seed (1-based)
/// at each position, top to bottom; positions 2i and 2i+1 meet in the first round.
///
/// Built by doubling: each seed s of the half-size layout is followed by its first-round
/// opponent `size + 1 - s`. So 8 gives 1 8 4 5 2 7 3 6: seeds 1 and 2 in opposite halves, 1 to 4
/// in different quarters, and seed s (s <= size - n) facing a seed beyond n when n entrants.
pub fn bracket_order(size: u32) -> Vec<u32> {
    debug_assert!(size >= 2 && size.is_power_of_two());
    let mut order = vec![1u32];
    let mut len = 1u32;
    while len < size {
        len *= 2;
        order = order.iter().flat_map(|&s| [s, len + 1 - s]).collect();
    }
    order
}

/// The number of rounds for `entrants`: log2 of the bracket size.
pub fn knockout_rounds(entrants: usize) -> u32 {
    entrants.max(2).next_power_of_two().trailing_zeros()
}

/// One match of a bracket round.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Match {
    /// The two sides (upper, lower); `None` for a bye position or an empty feeder.
    pub sides: [Option<Player>; 2],
    /// Its games, the first and any replays.
    pub games: Vec<GameNo>,
    /// Who advances, once decided (nobody, if both sides are empty).
    pub winner: Option<Player>,
}

/// How one match of the next round starts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Plan {
    /// A game, in seat order.
    Game([Player; 2]),
    /// One side advances without playing.
    Bye(Player),
    /// Nobody is left on either side.
    Empty,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which half, quarter... (the position divided by `block`) a seed sits in.
    fn block_of(order: &[u32], seed: u32, block: usize) -> usize {
        order.iter().position(|&s| s == seed).unwrap() / block
    }

    #[test]
    fn seeds_meet_late() {
        assert_eq!(bracket_order(2), vec![1, 2]);
        assert_eq!(bracket_order(4), vec![1, 4, 2, 3]);
        assert_eq!(bracket_order(8), vec![1, 8, 4, 5, 2, 7, 3, 6]);
        for size in [8u32, 16] {
            let order = bracket_order(size);
            let half = size as usize / 2;
            let quarter = size as usize / 4;
            // 1 and 2 in opposite halves: they can meet only in the final.
            assert_ne!(block_of(&order, 1, half), block_of(&order, 2, half));
            // 1 to 4 in four different quarters: they meet at the semifinals at the earliest.
            let quarters: std::collections::BTreeSet<usize> =
                (1..=4).map(|s| block_of(&order, s, quarter)).collect();
            assert_eq!(quarters.len(), 4);
            // First-round opponents sum to size + 1.
            for pair in order.chunks(2) {
                assert_eq!(pair[0] + pair[1], size + 1);
            }
        }
        assert_eq!(bracket_order(16), vec![1, 16, 8, 9, 4, 13, 5, 12, 2, 15, 7, 10, 3, 14, 6, 11]);
    }

    #[test]
    fn rounds() {
        assert_eq!(knockout_rounds(2), 1);
        assert_eq!(knockout_rounds(3), 2);
        assert_eq!(knockout_rounds(6), 3);
        assert_eq!(knockout_rounds(8), 3);
        assert_eq!(knockout_rounds(9), 4);
        assert_eq!(knockout_rounds(MAX_KNOCKOUT_ENTRANTS), 16);
    }
}
