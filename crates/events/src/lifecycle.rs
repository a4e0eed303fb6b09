//! The lifecycle stream's model: a finished match as the rules engine announces it
//! ([`Finished`]), and one entry as a consumer group reads it ([`Delivery`]). Written by
//! the engine, read by the ratings and the tournament results ([`crate::consumer`]).

use ids::{MatchId, PlayerId};
use rules_core::Seat;
use serde::{Deserialize, Serialize};

/// A match that ended, as the rules engine announces it on the lifecycle stream.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Finished {
    /// The match.
    pub match_id: MatchId,
    /// Its game.
    pub game: String,
    /// The players in the seats (`None`: a bot's seat or one never taken).
    pub players: [Option<PlayerId>; 2],
    /// The winning seat; `None` for a draw or no result.
    pub winner: Option<Seat>,
    /// Why it ended (the outcome's reason: completed, resigned, missed_deadline...).
    pub reason: String,
    /// When, Unix ms.
    pub at_ms: u64,
    /// The seed, published now that the match is over (hex); absent in announcements made
    /// before it was carried (a reader then takes it from the match's record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed_hex: Option<String>,
}

/// One entry of the lifecycle stream read by a consumer group: its stream id (to
/// acknowledge) and the match.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Delivery {
    /// The stream entry id.
    pub id: String,
    /// What it says; `None` if the entry could not be decoded (acknowledge it anyway).
    pub finished: Option<Finished>,
}
