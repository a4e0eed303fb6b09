//! Redis key names and stream ids: the one place they are spelled.
//!
//! Every key of one match carries the match id as a hash tag (`{<match-id>}`), so on Redis
//! Cluster all of them land in one slot and a Lua script may touch them together.
//!
//! | key | type | holds |
//! | --- | --- | --- |
//! | `colosseum:{<match-id>}:log` | stream | one entry per version, id `<version>-1` |
//! | `colosseum:{<match-id>}:meta` | hash | `m`: the fixed meta as JSON; `seat0`, `seat1`: the seat holders |
//! | `colosseum:{<match-id>}:idem` | hash | idempotency key -> the version it was accepted at |
//! | `colosseum:{<match-id>}:snap` | hash | `v`: the snapshot's version; `b`: its bytes |
//! | `colosseum:deadlines` | sorted set | member: match id; score: due time (Unix ms) |
//! | `colosseum:deadline-fences` | hash | match id -> fence version of its armed deadline |
//! | `colosseum:session:<sha256-hex>` | hash | `player`: player id; `name`: display name |

use crate::ids::MatchId;

/// The match's stream: its log of entries.
pub fn log(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:log")
}

/// The match's meta hash.
pub fn meta(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:meta")
}

/// The match's idempotency-key hash.
pub fn idem(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:idem")
}

/// The match's latest snapshot.
pub fn snapshot(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:snap")
}

/// Armed deadlines of all matches, by due time.
pub const DEADLINES: &str = "colosseum:deadlines";

/// The fence version of each armed deadline.
pub const DEADLINE_FENCES: &str = "colosseum:deadline-fences";

/// A session, by the SHA-256 of its token in lower-case hex (never the token itself).
pub fn session(token_sha256_hex: &str) -> String {
    format!("colosseum:session:{token_sha256_hex}")
}

/// The stream entry id of a version: `<version>-1`, so version 0 is `0-1` (Redis refuses
/// the id `0-0`). Explicit ids make the stream itself refuse a second entry for a version.
pub fn entry_id(version: u64) -> String {
    format!("{version}-1")
}

/// The id just before every entry of `version` and later: `XREAD` after it, or `XRANGE`
/// from it, starts at `version`.
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
}
