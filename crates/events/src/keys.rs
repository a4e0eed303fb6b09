//! Redis key names and stream ids: the one place they are spelled.
//!
//! Every key of one match carries the match id as a hash tag (`{<match-id>}`), so on Redis
//! Cluster all of them land in one slot and a Lua script may touch them together.
//!
//! | key | type | holds |
//! | --- | --- | --- |
//! | `colosseum:{<match-id>}:log` | stream | one entry per version, id `<version>-1` |
//! | `colosseum:{<match-id>}:meta` | hash | `m`: the fixed meta as JSON; `seat0`, `seat1`: the seat holders |
//! | `colosseum:{<match-id>}:secret` | hash | `seed`: the seed in hex, for the rules engine alone (in matches created before it, `m` of the meta held it) |
//! | `colosseum:{<match-id>}:idem` | hash | idempotency key -> the version it was accepted at |
//! | `colosseum:{<match-id>}:snap` | hash | `v`: the snapshot's version; `b`: its bytes |
//! | `colosseum:{<match-id>}:deadline` | hash | `due`: due time (Unix ms); `fence`: fence version. The armed deadline: the truth |
//! | `colosseum:deadlines` | sorted set | member: match id; score: at or before its due time (Unix ms). An index: a hint |
//! | `colosseum:session:<sha256-hex>` | hash | `player`: player id; `name`: display name |
//! | `colosseum:player:<player-id>` | hash | `name`: display name. Written with each session: the players that exist |
//! | `colosseum:appended` | pub/sub channel | `<match-id> <version>` after each append (see [`crate::feed`]) |

use crate::ids::{MatchId, PlayerId};

/// The match's stream: its log of entries.
pub fn log(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:log")
}

/// The match's meta hash.
pub fn meta(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:meta")
}

/// The match's secret hash (its seed), apart from the meta so that reading the meta never
/// returns it.
pub fn secret(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:secret")
}

/// The match's idempotency-key hash.
pub fn idem(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:idem")
}

/// The match's latest snapshot.
pub fn snapshot(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:snap")
}

/// The match's armed deadline (`due`, `fence`): absent when none is armed.
pub fn deadline(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:deadline")
}

/// The `SCAN` pattern of every match's [`deadline`] key (`{` and `}` are not special in
/// Redis patterns).
pub const DEADLINE_PATTERN: &str = "colosseum:{*}:deadline";

/// The match whose [`deadline`] key this is; `None` for any other name.
pub fn match_of_deadline(key: &str) -> Option<MatchId> {
    key.strip_prefix("colosseum:{")?.strip_suffix("}:deadline")?.parse().ok()
}

/// The deadline index of all matches: member match id, score at or before its due time.
/// Global (one slot), so it is never written in the same script as a match's keys.
pub const DEADLINES: &str = "colosseum:deadlines";

/// The pub/sub channel of the append feed.
pub const APPENDED: &str = "colosseum:appended";

/// A session, by the SHA-256 of its token in lower-case hex (never the token itself).
pub fn session(token_sha256_hex: &str) -> String {
    format!("colosseum:session:{token_sha256_hex}")
}

/// A player, by id: it exists once a session was made for it. Global, like sessions.
pub fn player(id: PlayerId) -> String {
    format!("colosseum:player:{id}")
}

/// The stream entry id of a version: `<version>-1`, so version 0 is `0-1` (Redis refuses
/// the id `0-0`). Explicit ids make the stream itself refuse a second entry for a version.
pub fn entry_id(version: u64) -> String {
    format!("{version}-1")
}

/// The id just before every entry of `version` and later: `XRANGE` from it starts at
/// `version`.
pub fn before(version: u64) -> String {
    format!("{version}-0")
}

/// The version of a stream entry id written by [`entry_id`]; `None` for any other id.
pub fn version_of(entry_id: &str) -> Option<u64> {
    let (ms, seq) = entry_id.split_once('-')?;
    if seq != "1" {
        return None;
    }
    ms.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entry_ids_round_trip() {
        assert_eq!(entry_id(0), "0-1");
        assert_eq!(version_of("0-1"), Some(0));
        assert_eq!(version_of(&entry_id(u64::MAX)), Some(u64::MAX));
        assert_eq!(version_of("7-0"), None);
        assert_eq!(version_of("7"), None);
        assert_eq!(before(3), "3-0");
    }

    #[test]
    fn deadline_keys_name_their_match() {
        let id = MatchId::random();
        assert_eq!(match_of_deadline(&deadline(id)), Some(id));
        assert_eq!(match_of_deadline(&log(id)), None);
        assert_eq!(match_of_deadline("colosseum:{nope}:deadline"), None);
        assert_eq!(match_of_deadline(DEADLINES), None);
    }
}
