//! The store traits: `EventStore`, what every service holds (`Arc<dyn EventStore>`), and
//! `HostStore`, the rules engine's, which adds creating matches and reading their seed.
//! Which implementation is behind them is decided once, at startup.

use crate::error::StoreError;
use crate::lifecycle::Finished;
use crate::matches::bots::BotMatch;
use crate::matches::feed::AppendFeed;
use crate::matches::lists::Listed;
use crate::matches::model::{
    AppendOutcome, ClaimOutcome, Deadline, DeadlineChange, Entry, MatchMeta, MatchSecret, Session,
};
use async_trait::async_trait;
use ids::{MatchId, PlayerId};
use rules_core::Seat;

/// The match log and everything the services keep beside it: match meta and seats,
/// snapshots, deadlines and sessions.
///
/// Every operation is atomic. Versions are dense and start at 0: [`EventStore::append`]
/// accepts version `n + 1` only when `n` is the latest, which is what lets any number of
/// rules-engine replicas serve a match without a lock.
///
/// Both implementations, [`crate::RedisStore`] and [`crate::MemoryStore`], pass the same
/// test suite (`tests/store.rs`).
#[async_trait]
pub trait EventStore: Send + Sync {
    /// The match's meta, with the current seat holders; `None` if there is no such match.
    /// Never the seed: that is [`HostStore::match_secret`].
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn meta(&self, id: MatchId) -> Result<Option<MatchMeta>, StoreError>;

    /// Claims `seat` for `player`, atomically: an open seat, or one reserved for `player`,
    /// becomes theirs; a seat they already hold answers [`ClaimOutcome::AlreadyYours`];
    /// anything else is refused and nothing changes. Of two racing claims, one wins. Once
    /// the match's final step is stored ([`HostStore::append_final`]) no one new is
    /// seated ([`ClaimOutcome::MatchOver`]), whichever replica stored it: with the holders'
    /// fence of `append_final`, a join and a final step racing through two rules-engine
    /// replicas agree in either order.
    ///
    /// A claim that can seat `player` lists the match in the player's list first, and in
    /// its game's live list if it fills the last seat ([`EventStore::player_matches`]); a
    /// retried claim (answered `AlreadyYours`) lists it again, so a claim cut short between
    /// the two is mended by its retry.
    ///
    /// # Errors
    ///
    /// [`StoreError::NotFound`] if there is no such match.
    async fn claim_seat(
        &self,
        id: MatchId,
        seat: Seat,
        player: PlayerId,
    ) -> Result<ClaimOutcome, StoreError>;

    /// Appends `entry` and applies `deadline`, atomically (one Redis round trip):
    /// - its idempotency key was used before in this match: `Duplicate` with that step's
    ///   version, nothing changes;
    /// - `entry.version` is not the latest version + 1: `Conflict`, nothing changes;
    /// - otherwise the entry is stored, its key recorded, the deadline changed: `Appended`.
    ///
    /// # Errors
    ///
    /// [`StoreError::NotFound`] if there is no such match.
    async fn append(
        &self,
        id: MatchId,
        entry: &Entry,
        deadline: DeadlineChange,
    ) -> Result<AppendOutcome, StoreError>;

    /// At most `limit` entries from version `from_version` on (inclusive), in order:
    /// `from_version = 0` reads from the creation, `last_seen + 1` resumes after a
    /// reconnect. Empty if there is no such match. The views are not history: only an
    /// entry that is the match's latest version when read carries them (`Entry::views`);
    /// the others carry none. A compacted match reads as its record's entries, the
    /// same, the last with the final views.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn read(
        &self,
        id: MatchId,
        from_version: u64,
        limit: usize,
    ) -> Result<Vec<Entry>, StoreError>;

    /// The match's latest version; `None` if there is no such match.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn last_version(&self, id: MatchId) -> Result<Option<u64>, StoreError>;

    /// Stores a snapshot of the match's state at `version` (opaque bytes), unless one at the
    /// same or a later version is stored already. Returns whether it was stored.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`].
    async fn put_snapshot(
        &self,
        id: MatchId,
        version: u64,
        bytes: &[u8],
    ) -> Result<bool, StoreError>;

    /// The latest snapshot: its version and bytes.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn snapshot(&self, id: MatchId) -> Result<Option<(u64, Vec<u8>)>, StoreError>;

    /// Arms (or re-arms) the match's deadline, as [`DeadlineChange::Set`] does in
    /// [`EventStore::append`]; for the first deadline, armed at creation.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`].
    async fn set_deadline(
        &self,
        id: MatchId,
        due_ms: u64,
        fence_version: u64,
    ) -> Result<(), StoreError>;

    /// At most `limit` armed deadlines due at or before `now_ms`, earliest first (ties by
    /// match id). They stay armed until cleared. Redis reads them through an index that
    /// may hold stale entries; those are corrected on the way and not returned, so fewer
    /// than `limit` may come back while more are due (the next call finds them).
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn due_deadlines(&self, now_ms: u64, limit: usize) -> Result<Vec<Deadline>, StoreError>;

    /// The deadline armed for `id`, if any (a replica that rebuilds a match learns when
    /// the current round's time runs out).
    async fn deadline(&self, id: MatchId) -> Result<Option<Deadline>, StoreError>;

    /// Removes the match's deadline only if it is still armed with `fence_version`
    /// (atomically); returns whether it did. A deadline re-armed since stays.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`].
    async fn clear_deadline_if(&self, id: MatchId, fence_version: u64) -> Result<bool, StoreError>;

    /// Makes every armed deadline findable by [`EventStore::due_deadlines`] again: on
    /// Redis, restores the index entries lost between an arming's two writes (a crash, a
    /// cluster node failing) and lowers any left later than the deadline. Returns how many
    /// entries it restored or lowered. The memory store has no index: always 0. A
    /// background job: on Redis it scans the key space paced (a pause between steps), so
    /// it takes tens of seconds on a large store and never holds Redis long.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn repair_deadline_index(&self) -> Result<usize, StoreError>;

    /// Subscribes to the append feed: every entry appended from now on, as `(match,
    /// version)`, at most once (versions are not replayed, and `create_match` is not
    /// announced). The stream ends when the subscription is lost; the caller subscribes
    /// again and reads the logs it follows from where it was, for what it missed.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`] if no subscription could be made.
    async fn append_feed(&self) -> Result<AppendFeed, StoreError>;

    /// Binds a session token (by its SHA-256, lower-case hex) to a player, replacing any
    /// earlier binding; the player exists from then on ([`EventStore::player_exists`]).
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidArgument`] if `token_sha256_hex` is not 64 lower-case hex digits.
    async fn put_session(
        &self,
        token_sha256_hex: &str,
        player: PlayerId,
        display_name: &str,
    ) -> Result<(), StoreError>;

    /// The session of a token (by its SHA-256, lower-case hex).
    ///
    /// # Errors
    ///
    /// [`StoreError::InvalidArgument`] as for [`EventStore::put_session`].
    async fn session(&self, token_sha256_hex: &str) -> Result<Option<Session>, StoreError>;

    /// Whether `player` exists: a session was ever made for it (a challenge to anyone
    /// else could never be answered).
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`] if the store does not answer.
    async fn player_exists(&self, player: PlayerId) -> Result<bool, StoreError>;

    /// Whether the store answers: for readiness probes.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`] if it does not.
    async fn ping(&self) -> Result<(), StoreError>;

    /// Records a live bot match after every one recorded before it (one recorded again
    /// moves last): the gateway's, before it answers the CreateMatch, so the bot runner,
    /// whichever process runs it, plays the match. The bot's name is kept with the match
    /// too ([`EventStore::bot_of`]), first.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`]: a game or bot name with spaces, empty or over 64
    /// bytes; [`StoreError::Redis`].
    async fn add_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError>;

    /// At most `limit` live bot matches recorded after position `after` (0: from the
    /// first), in the order recorded, each with its position: a reader that passes the
    /// last position it read gets only what was recorded since.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`], [`StoreError::Redis`].
    async fn bot_matches(
        &self,
        after: u64,
        limit: usize,
    ) -> Result<Vec<(u64, BotMatch)>, StoreError>;

    /// Forgets a bot match (it ended); one not recorded changes nothing.
    ///
    /// # Errors
    /// As [`EventStore::add_bot_match`].
    async fn remove_bot_match(&self, bot_match: &BotMatch) -> Result<(), StoreError>;

    /// The bot playing a match recorded by [`EventStore::add_bot_match`] (kept with the
    /// match, so it is known after the match ends, as long as the match is); `None` for
    /// any other match.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn bot_of(&self, id: MatchId) -> Result<Option<String>, StoreError>;

    /// At most `limit` of `player`'s matches, newest first, each older than `before`
    /// (`None`: from the newest): a player's list, written when a match seats the player
    /// ([`HostStore::create_match`], [`EventStore::claim_seat`]) and keeping the newest
    /// [`crate::matches::lists::PLAYER_MATCHES_KEPT`]. A hint: on Redis the entry is written before
    /// the seat is (another slot), so it may name a match the player was never seated in
    /// (a claim refused, or never made) or one that no longer exists; a reader checks the
    /// meta and may [`EventStore::unlist_player_match`] what can no longer hold.
    ///
    /// # Errors
    /// [`StoreError::Corrupt`], [`StoreError::Redis`].
    async fn player_matches(
        &self,
        player: PlayerId,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError>;

    /// Removes a match from `player`'s list; one not listed changes nothing.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn unlist_player_match(&self, player: PlayerId, id: MatchId) -> Result<(), StoreError>;

    /// At most `limit` live matches of `game`, newest first, each older than `before`: a
    /// game's live list, written when a match has both seats held (at its creation, or by
    /// the claim of its last seat) and removed by its final step
    /// ([`HostStore::append_final`]), so it holds the matches in progress. A hint like
    /// [`EventStore::player_matches`]: an entry may name a match whose last claim was
    /// refused or whose final step's removal was lost (a crash between the two); a reader
    /// checks it and may [`EventStore::unlist_live_match`] one that is over.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] for a game that cannot name a list (empty, over 64
    /// bytes, spaces or braces); [`StoreError::Corrupt`], [`StoreError::Redis`].
    async fn live_matches(
        &self,
        game: &str,
        before: Option<Listed>,
        limit: usize,
    ) -> Result<Vec<Listed>, StoreError>;

    /// Removes a match from `game`'s live list; one not listed changes nothing.
    ///
    /// # Errors
    /// As [`EventStore::live_matches`].
    async fn unlist_live_match(&self, game: &str, id: MatchId) -> Result<(), StoreError>;

    /// Each player's display name, in order: an account's as it is now, else the name of
    /// its latest session; `None` for a player unknown.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn display_names(&self, players: &[PlayerId]) -> Result<Vec<Option<String>>, StoreError>;

    /// Lets a finished match go from the store `after_ms` from now, once the archive holds
    /// it ([`crate::archive`]): every key the match still has expires then (or sooner, if
    /// it was to), and a compaction after this keeps the sooner expiry. Until then reads
    /// answer as before, so a late watcher or record read still finds it here. Answers
    /// `false` for a match unknown or not over (nothing changes: a live match is never let
    /// go). The in-memory store keeps no expiry: it only answers.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn release_finished(&self, id: MatchId, after_ms: u64) -> Result<bool, StoreError>;
}

/// What the rules engine, which hosts matches, needs beyond [`EventStore`]: creating a
/// match with its seed, and reading the seed back to replay it. The gateway and the clock
/// hold an `Arc<dyn EventStore>`, which has neither, so the seed cannot reach them before
/// it is published (`tests/secret_readers.rs` checks that their sources never name this
/// trait or the secret).
#[async_trait]
pub trait HostStore: EventStore + crate::lifecycle::LifecycleStore {
    /// Creates a match with its meta, its secret and its opening entry (version 0), all
    /// together or not at all: a match never exists without its seed. Before it, the match
    /// is listed for each player it seats, and in its game's live list if both seats are
    /// held ([`EventStore::player_matches`], [`EventStore::live_matches`]).
    /// `first_deadline`, when both seats are held at creation, is armed in the same write
    /// (due at that time, fenced at version 0), as [`EventStore::set_deadline`] would.
    ///
    /// # Errors
    ///
    /// [`StoreError::AlreadyExists`] if the id is taken (nothing changes);
    /// [`StoreError::InvalidArgument`] if `opening.version` is not 0.
    async fn create_match(
        &self,
        id: MatchId,
        meta: &MatchMeta,
        secret: &MatchSecret,
        opening: &Entry,
        first_deadline: Option<u64>,
    ) -> Result<(), StoreError>;

    /// Appends the step that ends the match, as [`EventStore::append`] with
    /// [`DeadlineChange::Clear`] does, and in the same atomic write leaves `finished`
    /// owed: until [`EventStore::announce_finished`] puts it on the lifecycle stream,
    /// [`EventStore::repair_announcements`] finds it (through an index entry written
    /// before the append), so a finished match is announced whatever dies when. Only an
    /// `Appended` answer leaves it owed.
    ///
    /// Fenced by the seat holders: if a seat was taken since the step read them (a
    /// join through another replica), so that `finished.players` lacks a player the meta
    /// seats, the answer is [`AppendOutcome::Conflict`] and nothing is written (read the
    /// match again and decide the step anew). An append marks the match over, after which
    /// [`EventStore::claim_seat`] seats no one new. An append also takes the match off its
    /// game's live list (after the step is stored: a removal lost to a crash is left for
    /// readers, who drop an entry whose match is over).
    ///
    /// # Errors
    ///
    /// As [`EventStore::append`]; [`StoreError::Redis`] if the index entry cannot be
    /// written (nothing is appended then).
    async fn append_final(
        &self,
        id: MatchId,
        entry: &Entry,
        finished: &Finished,
    ) -> Result<AppendOutcome, StoreError>;

    /// The match's secret (its seed); `None` if there is no such match. For the rules
    /// engine alone, which replays the match from it.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn match_secret(&self, id: MatchId) -> Result<Option<MatchSecret>, StoreError>;

    /// Compacts a finished match whose last version is `last_version`: its entries and
    /// final views become one record ([`crate::matches::record`]), and the stream, the idempotency
    /// keys, the snapshot, the views and any deadline go; reads answer the same entries
    /// from the record. With `retention_ms > 0` the record, the meta and the secret
    /// expire after that long (the match is then unknown); 0 keeps them. Returns whether
    /// this call compacted it: `false` if it is compacted already, unknown, or has moved
    /// past `last_version` or its last entry is another than the one read (a failover
    /// reissued it; nothing changes). An append to a compacted match answers
    /// [`AppendOutcome::Conflict`] at its last version. The in-memory store keeps no expiry.
    ///
    /// # Errors
    ///
    /// [`StoreError::Corrupt`] or [`StoreError::Redis`].
    async fn compact(
        &self,
        id: MatchId,
        last_version: u64,
        retention_ms: u64,
    ) -> Result<bool, StoreError>;
}
