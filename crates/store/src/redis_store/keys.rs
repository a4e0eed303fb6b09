//! Redis key names and stream ids: the one place they are spelled.
//!
//! Every key of one match carries the match id as a hash tag (`{<match-id>}`), so on Redis
//! Cluster all of them land in one slot and a Lua script may touch them together.
//!
//! | key | type | holds |
//! | --- | --- | --- |
//! | `colosseum:{<match-id>}:open` | hash | the opening entry (version 0), its fields as a stream entry's; gone once the match is compacted |
//! | `colosseum:{<match-id>}:log` | stream | one entry per step (version 1 on), id `<version>-1`; made by the first step, gone once the match is compacted |
//! | `colosseum:{<match-id>}:views` | hash | `v`: the latest version; `b`: each viewer's view after it (the opening's deflated, [`crate::matches::record::encode_views`]) |
//! | `colosseum:{<match-id>}:record` | string | a finished match compacted ([`crate::matches::record`]): `<last version>:<record>` |
//! | `colosseum:{<match-id>}:meta` | hash | `m`: the fixed meta as JSON; `seat0`, `seat1`: the seat holders; `over`: the final step's version, once stored; `bot`: the bot's name, in a bot match |
//! | `colosseum:{<match-id>}:secret` | hash | `seed`: the seed in hex, for the rules engine alone (in matches created before it, `m` of the meta held it) |
//! | `colosseum:{<match-id>}:idem` | hash | idempotency key -> the version it was accepted at |
//! | `colosseum:{<match-id>}:snap` | hash | `v`: the snapshot's version; `b`: its bytes |
//! | `colosseum:{<match-id>}:deadline` | hash | `due`: due time (Unix ms); `fence`: fence version. The armed deadline: the truth |
//! | `colosseum:deadlines` | sorted set | member: match id; score: at or before its due time (Unix ms). An index: a hint |
//! | `colosseum:{<match-id>}:finished` | string | the `Finished` JSON of a match whose final step is stored and whose announcement on the lifecycle stream is owed; written by the final step's `append.lua`, deleted once announced |
//! | `colosseum:announcing` | sorted set | member: match id; score: when its final step was stored (Unix ms). The announcements owed, written before the final step; an index: a hint |
//! | `colosseum:session:<sha256-hex>` | hash | `player`: player id; `name`: display name |
//! | `colosseum:player:<player-id>` | hash | `name`: display name. Written with each session: the players that exist |
//! | `colosseum:appended` | pub/sub channel | `<match-id> <version>` after each append (see [`crate::matches::feed`]) |
//! | `colosseum:{<match-id>}:presence:<seat>` | hash | a presence lease per holder: holder -> its expiry (Unix ms); expires with the longest lease (see [`crate::presence`]) |
//! | `colosseum:presence` | pub/sub channel | `<match-id> <seat> <0\|1>` when a seat's presence changes (see [`crate::presence`]) |
//! | `colosseum:{bots}:matches` | sorted set | member: `<match-id> <game> <bot>`, a live bot match; score: its position (see [`crate::matches::bots`]) |
//! | `colosseum:{bots}:seq` | string | the last position given to a bot match |
//! | `colosseum:{player:<player-id>}:matches` | sorted set | member: match id; score: its creation (Unix ms). The player's matches, written before each seating (creation, claim), the newest 1,000 kept (see [`crate::matches::lists`]). A hint |
//! | `colosseum:live:<game>` | sorted set | member: match id; score: its creation (Unix ms). The game's matches with both seats held, written before the seating that fills them, removed after the final step. A hint |
//!
//! # The lobby
//!
//! Every lobby key carries the one hash tag `{lobby}`, so on Redis Cluster they share a
//! slot and every lobby script (`src/lobby/lua/*.lua`) is atomic on one node. Client text
//! (emails, idempotency keys, options) never appears in a name: a SHA-256 digest does.
//!
//! | key | type | holds |
//! | --- | --- | --- |
//! | `colosseum:{lobby}:account:<player-id>` | hash | `email`, `password_phc`, `display_name`, `leaderboard` and `bot` (`1`/`0`), `created_ms` |
//! | `colosseum:{lobby}:email:<sha256-hex of the email>` | string | the account's player id |
//! | `colosseum:{lobby}:tickets` | hash | ticket id -> its record (JSON of strings only, see `src/lobby/redis.rs`) |
//! | `colosseum:{lobby}:idem` | hash | `<player-id>:<sha256-hex of the idempotency key>` -> ticket id |
//! | `colosseum:{lobby}:live` | hash | `<player-id>:<queue key>` -> the player's live ticket in that queue |
//! | `colosseum:{lobby}:waiting:<queue key>` | set | the queue's waiting tickets (not seeks) |
//! | `colosseum:{lobby}:queues` | hash | queue key -> queue JSON, for the queues with waiting tickets |
//! | `colosseum:{lobby}:seeks` | sorted set | waiting seeks; score: created ms |
//! | `colosseum:{lobby}:player-tickets:<player-id>` | sorted set | the player's tickets; score: created ms; ended ones trimmed past 50 |
//! | `colosseum:{lobby}:pairings` | hash | match id -> pending pairing JSON |
//! | `colosseum:{lobby}:rated-matches` | hash | match id -> `RatedMatch` JSON, for every rated pairing not yet rated (removed by the script that rates it, so a repeat finds nothing to rate) |
//! | `colosseum:{lobby}:unrated` | set | the same matches: rated pairings whose result is not recorded yet |
//! | `colosseum:{lobby}:rating:<game>` | hash | player id -> `Rating` JSON |
//! | `colosseum:{lobby}:board:<game>:<board>` | sorted set | member: player id; score: rating |
//! | `colosseum:{lobby}:history:<game>:<player-id>` | list | `RatingChange` JSON, newest first, 100 kept |
//! | `colosseum:{lobby}:rl:<bucket>` | string | hits in the bucket's window; expires with it |
//! | `colosseum:{lobby}:lease:<name>` | string | the holder; expires with the lease |
//! | `colosseum:lifecycle` | stream | field `f`: a `Finished` JSON per finished match; `MAXLEN ~ 1000000` |
//! | `colosseum:lobby:tickets` | pub/sub channel | a player id whose ticket changed |
//!
//! # The platform
//!
//! The tournament service's keys share the hash tag `{platform}`, one slot, so each of its
//! scripts (`src/platform/lua/*.lua`) is atomic on one node: a tournament's event and its
//! tenant's copy are appended together. Client text (idempotency keys) never appears in a
//! name: a SHA-256 digest does.
//!
//! | key | type | holds |
//! | --- | --- | --- |
//! | `colosseum:{platform}:tenants` | hash | tenant id -> `Tenant` JSON |
//! | `colosseum:{platform}:keys` | hash | API key id -> `ApiKey` JSON (the key's SHA-256, never the key) |
//! | `colosseum:{platform}:audit:<tenant>` | stream | field `f`: an audit entry JSON; `MAXLEN ~ 100000` |
//! | `colosseum:{platform}:req:<kind>:<tenant>:<sha256-hex of the key>` | hash | `digest`, `record` (JSON), `done` (`0`/`1`), `begun` (ms), `tenant`, `key` |
//! | `colosseum:{platform}:unfinished:<kind>` | sorted set | member: the request's key name; score: begun ms |
//! | `colosseum:{platform}:owned` | hash | match id -> the tenant's record of it (JSON) |
//! | `colosseum:{platform}:scheduled` | sorted set | bulk matches to create later; score: their start, Unix ms |
//! | `colosseum:{platform}:results:<tenant>` | stream | the tenant's results, id `<seq>-1`, field `f` |
//! | `colosseum:{platform}:results:<tenant>:<tournament>` | stream | a tournament's results, the same way |
//! | `colosseum:{platform}:tournaments:<tenant>` | sorted set | the tenant's tournaments; score: created ms |
//! | `colosseum:{platform}:live` | set | `<tenant>/<tournament>` of every tournament not closed |
//! | `colosseum:{platform}:once` | set | the `once` marks appended with (a finished match's) |
//! | `colosseum:{platform}:public` | hash | tournament id -> its tenant id, for each tournament with a public page |

use crate::lobby::Board;
use ids::{MatchId, PlayerId};

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

/// The match's opening entry (version 0): a hash, so that a match nobody has moved in
/// has no stream (a new stream node preallocates up to 4 KiB in Redis).
pub fn opening(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:open")
}

/// Each viewer's view after the match's latest version (overwritten by every append).
pub fn views(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:views")
}

/// A finished match's compacted record, which replaces its stream.
pub fn record(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:record")
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

/// A finished match's owed announcement: its `Finished` JSON, written by the final step's
/// append script (so it exists exactly when the final step does), deleted once the
/// announcement is on the lifecycle stream.
pub fn finished(id: MatchId) -> String {
    format!("colosseum:{{{id}}}:finished")
}

/// The index of owed announcements: member match id, score when its final step was stored.
/// Global (one slot), so written before the final step's script, never in it; an entry
/// without its [`finished`] key is dropped by the repair.
pub const ANNOUNCING: &str = "colosseum:announcing";

/// The pub/sub channel of the append feed.
pub const APPENDED: &str = "colosseum:appended";

/// The presence leases on one seat of a match: holder -> expiry (Unix ms).
pub fn presence(id: MatchId, seat: rules_core::Seat) -> String {
    format!("colosseum:{{{id}}}:presence:{}", seat.index())
}

/// The pub/sub channel of the presence feed.
pub const PRESENCE_CHANGES: &str = "colosseum:presence";

/// A session, by the SHA-256 of its token in lower-case hex (never the token itself).
pub fn session(token_sha256_hex: &str) -> String {
    format!("colosseum:session:{token_sha256_hex}")
}

/// A player, by id: it exists once a session was made for it. Global, like sessions.
pub fn player(id: PlayerId) -> String {
    format!("colosseum:player:{id}")
}

/// An account, by player.
pub fn account(player: PlayerId) -> String {
    format!("colosseum:{{lobby}}:account:{player}")
}

/// The player of a normalized email, by the email's digest.
pub fn email(normalized_email: &str) -> String {
    format!("colosseum:{{lobby}}:email:{}", sha256_hex(normalized_email))
}

/// Every ticket's record, by ticket id: the ticket as created, never written again.
pub const TICKETS: &str = "colosseum:{lobby}:tickets";

/// Every ticket's state now, by ticket id: a short text of its own (`lobby::record`), so a
/// change compares and writes it alone.
pub const TICKET_STATES: &str = "colosseum:{lobby}:ticket-state";

/// The tickets by player and idempotency key (fields: [`idem_field`]).
pub const TICKET_IDEM: &str = "colosseum:{lobby}:idem";

/// The field of [`TICKET_IDEM`] for a player's idempotency key.
pub fn idem_field(player: PlayerId, idempotency_key: &str) -> String {
    format!("{player}:{}", sha256_hex(idempotency_key))
}

/// The live ticket of each player in each queue (fields: [`live_field`]).
pub const LIVE: &str = "colosseum:{lobby}:live";

/// The field of [`LIVE`] for a player's ticket in a queue.
pub fn live_field(player: PlayerId, queue_key: &str) -> String {
    format!("{player}:{queue_key}")
}

/// What [`waiting`] names start with: the scripts, which find a ticket's queue only in
/// its record, add the queue key.
pub const WAITING_PREFIX: &str = "colosseum:{lobby}:waiting:";

/// The waiting tickets of a queue (by [`crate::Queue::key`]).
pub fn waiting(queue_key: &str) -> String {
    format!("{WAITING_PREFIX}{queue_key}")
}

/// The queues that have waiting tickets.
pub const QUEUES: &str = "colosseum:{lobby}:queues";

/// The waiting seeks, by creation time.
pub const SEEKS: &str = "colosseum:{lobby}:seeks";

/// A player's tickets, by creation time.
pub fn player_tickets(player: PlayerId) -> String {
    format!("colosseum:{{lobby}}:player-tickets:{player}")
}

/// The pending pairings, by match.
pub const PAIRINGS: &str = "colosseum:{lobby}:pairings";

/// The matches rated pairings made and not yet rated, by match: the entry goes when the
/// match is rated (or unpaired), so its absence is what makes a repeated result change
/// nothing.
pub const RATED_MATCHES: &str = "colosseum:{lobby}:rated-matches";

/// The rated matches not rated yet.
pub const UNRATED: &str = "colosseum:{lobby}:unrated";

/// The ratings of a game, by player.
pub fn rating(game: &str) -> String {
    format!("colosseum:{{lobby}}:rating:{game}")
}

/// A leaderboard of a game.
pub fn board(game: &str, board: Board) -> String {
    format!("colosseum:{{lobby}}:board:{game}:{}", board.name())
}

/// A player's rating history in a game.
pub fn history(game: &str, player: PlayerId) -> String {
    format!("colosseum:{{lobby}}:history:{game}:{player}")
}

/// A rate limit's counter.
pub fn rate_limit(bucket: &str) -> String {
    format!("colosseum:{{lobby}}:rl:{bucket}")
}

/// A player's match list (its own slot: the player's hash tag), written apart from the
/// matches' keys.
pub fn player_matches(player: PlayerId) -> String {
    format!("colosseum:{{player:{player}}}:matches")
}

/// A game's live list: one key per game (each its own slot).
pub fn live(game: &str) -> String {
    format!("colosseum:live:{game}")
}

/// The live bot matches, by position.
pub const BOT_MATCHES: &str = "colosseum:{bots}:matches";

/// The last position given to a bot match (same slot as [`BOT_MATCHES`]).
pub const BOT_SEQ: &str = "colosseum:{bots}:seq";

/// A lease.
pub fn lease(name: &str) -> String {
    format!("colosseum:{{lobby}}:lease:{name}")
}

/// The lifecycle stream: one entry per finished match, read by consumer groups. Global
/// (its own slot): only the rules engine writes it, one `XADD` per match.
pub const LIFECYCLE: &str = "colosseum:lifecycle";

/// The pub/sub channel of the ticket feed.
pub const TICKET_CHANGES: &str = "colosseum:lobby:tickets";

/// The pub/sub channel of the results feed (platform_append.lua publishes
/// `<tenant>/<tournament>` on it).
pub const RESULTS_CHANGES: &str = "colosseum:platform:results";

/// Every key of the lobby starts with this (the `{lobby}` hash tag).
pub const LOBBY_PREFIX: &str = "colosseum:{lobby}:";

/// Every key of the platform starts with this (the `{platform}` hash tag).
pub const PLATFORM_PREFIX: &str = "colosseum:{platform}:";

/// The tenants.
pub const TENANTS: &str = "colosseum:{platform}:tenants";

/// The API keys.
pub const API_KEYS: &str = "colosseum:{platform}:keys";

/// A tenant's audit log.
pub fn audit(tenant: ids::TenantId) -> String {
    format!("colosseum:{{platform}}:audit:{tenant}")
}

/// An idempotent request's record.
pub fn request(kind: &str, tenant: ids::TenantId, key: &str) -> String {
    format!("colosseum:{{platform}}:req:{kind}:{tenant}:{}", sha256_hex(key))
}

/// The requests of a kind begun and not done.
pub fn unfinished(kind: &str) -> String {
    format!("colosseum:{{platform}}:unfinished:{kind}")
}

/// Each tenant match's record.
pub const OWNED: &str = "colosseum:{platform}:owned";

/// The bulk matches to create later, by start time.
pub const SCHEDULED: &str = "colosseum:{platform}:scheduled";

/// A results stream.
pub fn results(stream: crate::platform::Stream) -> String {
    match stream {
        crate::platform::Stream::Tenant(t) => format!("colosseum:{{platform}}:results:{t}"),
        crate::platform::Stream::Tournament(t, id) => {
            format!("colosseum:{{platform}}:results:{t}:{id}")
        }
    }
}

/// A tenant's tournaments.
pub fn tournaments(tenant: ids::TenantId) -> String {
    format!("colosseum:{{platform}}:tournaments:{tenant}")
}

/// The tournaments not closed.
pub const LIVE_TOURNAMENTS: &str = "colosseum:{platform}:live";

/// The marks appended with once.
pub const ONCE: &str = "colosseum:{platform}:once";

/// The tournaments with a public page, each with its tenant.
pub const PUBLIC_TOURNAMENTS: &str = "colosseum:{platform}:public";

fn sha256_hex(text: &str) -> String {
    crate::matches::model::token_digest(text)
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
    fn lobby_keys_share_one_hash_tag_and_spell_no_client_text() {
        let p: PlayerId = "0b7e2a51-4c1d-4f0e-9a3b-5d6c7e8f9a0b".parse().expect("player id");
        assert_eq!(account(p), "colosseum:{lobby}:account:0b7e2a51-4c1d-4f0e-9a3b-5d6c7e8f9a0b");
        assert_eq!(
            email("a@b.c"),
            "colosseum:{lobby}:email:d648b243a3e817eaa3309e00e183483f2867baadf522099f0c2121770536b25a"
        );
        assert!(!email("a@b.c").contains("a@b.c"));
        assert!(!idem_field(p, "my key").contains("my key"));
        assert_eq!(
            waiting("gops:1000:rated:00ff"),
            "colosseum:{lobby}:waiting:gops:1000:rated:00ff"
        );
        for key in [
            account(p),
            email("x"),
            TICKETS.to_string(),
            TICKET_IDEM.to_string(),
            LIVE.to_string(),
            waiting("q"),
            QUEUES.to_string(),
            SEEKS.to_string(),
            player_tickets(p),
            PAIRINGS.to_string(),
            RATED_MATCHES.to_string(),
            UNRATED.to_string(),
            rating("gops"),
            board("gops", Board::Provisional),
            history("gops", p),
            rate_limit("b"),
            lease("l"),
        ] {
            assert!(key.starts_with(LOBBY_PREFIX), "{key}");
        }
        assert_eq!(board("gops", Board::Bots), "colosseum:{lobby}:board:gops:bots");
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
