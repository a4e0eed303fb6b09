//! A knockout bracket as the tournament state keeps it: one [`Match`] per pairing of a round
//! begun (its sides, its games, who advances). The state holds them ([`crate::Tournament`]);
//! the knockout format ([`crate::knockout`]) fills and reads them.

use crate::model::{GameNo, Player};

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
