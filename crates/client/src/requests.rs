//! The requests that take more than a match id, built in one place: who fills the other
//! seat, a CreateMatch, and a WatchMatch (for WatchMatch itself and a Play stream's watch).

use crate::{Cursor, WatchOptions};
use api::v1;

/// Who fills the other seat of a new match.
pub mod opponent {
    use api::v1::{self, opponent::Kind};

    /// An open seat: anyone may join.
    pub fn open() -> v1::Opponent {
        v1::Opponent { kind: Some(Kind::Open(v1::OpenSeat {})) }
    }

    /// The built-in bot `name`.
    pub fn bot(name: &str) -> v1::Opponent {
        v1::Opponent { kind: Some(Kind::Bot(name.to_string())) }
    }

    /// A challenge: the seat kept for `player_id`.
    pub fn player(player_id: &str) -> v1::Opponent {
        v1::Opponent { kind: Some(Kind::PlayerId(player_id.to_string())) }
    }
}

/// A CreateMatch of `game` with the creator in seat 0, no idempotency key (set
/// `idempotency_key` for a create that may be retried).
pub fn create(
    game: &str,
    options_json: &str,
    opponent: v1::Opponent,
    move_time_ms: u64,
) -> v1::CreateMatchRequest {
    v1::CreateMatchRequest {
        game: game.to_string(),
        options_json: options_json.to_string(),
        opponent: Some(opponent),
        seat: 0,
        move_time_ms,
        idempotency_key: String::new(),
    }
}

/// A WatchMatch of `match_id` resuming after `from`, asking for what `options` names.
pub fn watch(match_id: &str, from: Cursor, options: WatchOptions) -> v1::WatchMatchRequest {
    v1::WatchMatchRequest {
        match_id: match_id.to_string(),
        after_version: from.version,
        include_views: options.views,
        after_index: from.index,
        after_tag: from.tag,
        include_presence: options.presence,
    }
}
