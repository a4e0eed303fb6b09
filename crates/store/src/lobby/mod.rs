//! The lobby's store: accounts, match-making tickets and their pairings, ratings,
//! leaderboards, login rate limits and the consumer side of the lifecycle stream, for the
//! match-maker. [`LobbyStore`] extends [`EventStore`] (sessions live there), so the
//! match-maker holds one `Arc<dyn LobbyStore>`; both stores implement it.
//!
//! The rules (what state a ticket goes to, whether a pairing, an acceptance or a result
//! applies) are decided once, in [`rules`]; the stores only read, call them and write (on
//! Redis, through a compare-and-set: [`cas`]).
//!
//! On Redis every lobby key carries the hash tag `{lobby}` (see [`crate::redis_store::keys`]), so every
//! lobby script is atomic on one node of a cluster: the lobby's traffic (a few calls per
//! match) is small beside the moves', which stay spread over the matches' own slots.

pub(crate) mod cas;
pub(crate) mod kept;
pub(crate) mod memory;
pub(crate) mod record;
pub(crate) mod redis;
pub(crate) mod rules;
pub(crate) mod tables;

use crate::error::StoreError;
use crate::matches::traits::EventStore;
use async_trait::async_trait;
use ids::{MatchId, PlayerId, TicketId};
use rules_core::Seat;
use serde::{Deserialize, Serialize};
use std::fmt;
use std::pin::Pin;

/// An account: an email and a password, bound to one player id for life.
#[derive(Clone, PartialEq, Serialize, Deserialize)]
pub struct Account {
    /// The account's player.
    pub player: PlayerId,
    /// The email, normalized (trimmed, lower-cased) by the caller.
    pub email: String,
    /// The Argon2id hash of the password as a PHC string.
    pub password_phc: String,
    /// The name shown to others.
    pub display_name: String,
    /// Whether the player asked to appear on leaderboards.
    pub leaderboard: bool,
    /// Whether the account is a bot's (its leaderboard is [`Board::Bots`]).
    pub bot: bool,
    /// When it was made, Unix ms.
    pub created_ms: u64,
}

impl fmt::Debug for Account {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Neither the email nor the hash belongs in a log line.
        f.debug_struct("Account")
            .field("player", &self.player)
            .field("display_name", &self.display_name)
            .field("leaderboard", &self.leaderboard)
            .field("bot", &self.bot)
            .finish_non_exhaustive()
    }
}

/// A change to an account ([`LobbyStore::update_account`]): one part at a time.
#[derive(Clone, PartialEq, Eq)]
pub enum AccountChange {
    /// A new password hash (PHC string).
    Password(String),
    /// A new display name and leaderboard opt-in.
    Profile {
        /// The display name.
        display_name: String,
        /// Whether the player appears on leaderboards.
        leaderboard: bool,
    },
}

impl AccountChange {
    /// The stored fields it writes, as `(field, value)`.
    pub fn fields(&self) -> Vec<(&'static str, String)> {
        match self {
            AccountChange::Password(phc) => vec![("password_phc", phc.clone())],
            AccountChange::Profile { display_name, leaderboard } => vec![
                ("display_name", display_name.clone()),
                ("leaderboard", if *leaderboard { "1" } else { "0" }.to_string()),
            ],
        }
    }
}

impl fmt::Debug for AccountChange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            // A hash belongs in no log line.
            AccountChange::Password(_) => f.write_str("Password(<hash>)"),
            AccountChange::Profile { display_name, leaderboard } => f
                .debug_struct("Profile")
                .field("display_name", display_name)
                .field("leaderboard", leaderboard)
                .finish(),
        }
    }
}

/// What [`LobbyStore::register`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Registered {
    /// The account is stored.
    Created,
    /// The email already has an account; nothing changed.
    EmailTaken,
}

/// A queue: a game, its options (canonical JSON), a time control, rated or casual.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Serialize, Deserialize)]
pub struct Queue {
    /// The game's registry name.
    pub game: String,
    /// The options as canonical JSON (the same options always the same bytes).
    pub options_json: String,
    /// Per-move time, ms.
    pub move_time_ms: u64,
    /// Rated or casual.
    pub rated: bool,
}

impl Queue {
    /// The queue's name in keys: game, time, rated and a digest of the options (options
    /// are client text, never spelled in a key).
    pub fn key(&self) -> String {
        let digest = crate::matches::model::token_digest(&self.options_json);
        let kind = if self.rated { "rated" } else { "casual" };
        format!("{}:{}:{kind}:{}", self.game, self.move_time_ms, &digest[..16])
    }
}

/// Where a ticket is. Transitions: `Waiting -> Pairing -> Assigned`, `Waiting ->
/// Cancelled`, `Waiting -> Expired`, and back `Pairing -> Waiting` only by
/// [`LobbyStore::unpair`]. `Assigned`, `Cancelled` and `Expired` are final.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(tag = "s", rename_all = "snake_case")]
pub enum TicketState {
    /// In its queue (or, for a seek, listed).
    Waiting,
    /// Paired; its match is being created.
    Pairing {
        /// The match.
        match_id: MatchId,
        /// The ticket's seat in it.
        seat: Seat,
    },
    /// Paired; its match exists.
    Assigned {
        /// The match.
        match_id: MatchId,
        /// The ticket's seat in it.
        seat: Seat,
    },
    /// Cancelled by its player.
    Cancelled,
    /// Its time ran out unpaired.
    Expired,
}

impl TicketState {
    /// Waiting or pairing: the player's one live ticket of its queue.
    pub fn is_live(&self) -> bool {
        matches!(self, TicketState::Waiting | TicketState::Pairing { .. })
    }
}

/// A match-making ticket: a player waiting in a queue (a seek is a ticket listed for
/// anyone to accept instead of paired by the match-maker).
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Ticket {
    /// Its id.
    pub id: TicketId,
    /// Whose.
    pub player: PlayerId,
    /// Its queue.
    pub queue: Queue,
    /// A seek: listed by [`LobbyStore::seeks`], paired only by [`LobbyStore::accept_seek`].
    pub seek: bool,
    /// The player's rating in the game when queued: what pairing compares.
    pub rating: f64,
    /// The client's idempotency key.
    pub idempotency_key: String,
    /// When it was made, Unix ms.
    pub created_ms: u64,
    /// When it expires if still waiting, Unix ms.
    pub expires_ms: u64,
    /// Where it is.
    pub state: TicketState,
    /// When the state last changed, Unix ms.
    pub changed_ms: u64,
    /// The player's display name when it queued, as chosen (a guest's is kept nowhere
    /// else a list of seeks can read it); empty for a ticket stored before it was kept.
    #[serde(default)]
    pub display_name: String,
}

/// What [`LobbyStore::create_ticket`] did.
#[derive(Clone, PartialEq, Debug)]
pub enum TicketCreated {
    /// The ticket is stored, waiting.
    Created(Ticket),
    /// The player used this idempotency key before, for the same queue and kind: that
    /// ticket, as it is now. Nothing changed.
    Duplicate(Ticket),
    /// The player used this key before for another queue or kind: that ticket. Nothing
    /// changed.
    KeyReused(Ticket),
    /// The player has a live ticket in this queue under another key: that ticket.
    /// Nothing changed.
    LiveInQueue(Ticket),
}

/// Two tickets paired into one match: the match-maker stores it before creating the
/// match, so whoever finds it pending can finish it.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Pairing {
    /// The match to create (derived from the tickets, so a retry names the same one).
    pub match_id: MatchId,
    /// The queue.
    pub queue: Queue,
    /// Seat 0's ticket, then seat 1's.
    pub tickets: [TicketId; 2],
    /// Seat 0's player, then seat 1's.
    pub players: [PlayerId; 2],
    /// When it was paired, Unix ms.
    pub paired_ms: u64,
}

/// A rated match, as the pairing that made it recorded: what the ratings consumer needs
/// to know of a finished match to rate it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct RatedMatch {
    /// The game.
    pub game: String,
    /// Seat 0's player, then seat 1's.
    pub players: [PlayerId; 2],
}

/// What [`LobbyStore::accept_seek`] did.
#[derive(Clone, PartialEq, Debug)]
pub enum SeekAccepted {
    /// The seek and the accepter's new ticket are paired (both `Pairing`), the pairing
    /// stored: finish it as any other.
    Paired(Pairing),
    /// The accepter used this idempotency key before: that ticket, as it is now.
    Duplicate(Ticket),
    /// The seek is no longer waiting (taken, cancelled, expired) or is no seek: it, as it
    /// is now; `None` if there is no such ticket. Nothing changed.
    Gone(Option<Ticket>),
    /// The accepter has a live ticket in the seek's queue already (one per player per
    /// queue): that ticket. Nothing changed.
    LiveInQueue(Ticket),
}

/// A Glicko-2 rating as stored, on the Glicko scale.
#[derive(Clone, Copy, PartialEq, Debug, Serialize, Deserialize)]
pub struct Rating {
    /// The rating (1500 to start).
    pub rating: f64,
    /// The rating deviation (350 to start).
    pub deviation: f64,
    /// The volatility (0.06 to start).
    pub volatility: f64,
    /// Rated matches played.
    pub games: u64,
    /// When it last changed, Unix ms.
    pub updated_ms: u64,
}

/// A leaderboard of a game. A player is on at most one (or none: not opted in).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Serialize, Deserialize)]
pub enum Board {
    /// Established ratings of players who opted in.
    Rated,
    /// Provisional ratings of players who opted in.
    Provisional,
    /// Bot accounts.
    Bots,
}

impl Board {
    /// Every board.
    pub const ALL: [Board; 3] = [Board::Rated, Board::Provisional, Board::Bots];

    /// Its name in keys.
    pub fn name(self) -> &'static str {
        match self {
            Board::Rated => "rated",
            Board::Provisional => "provisional",
            Board::Bots => "bots",
        }
    }
}

/// One rated match's effect on one player's rating.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct RatingChange {
    /// The match.
    pub match_id: MatchId,
    /// The rating after it.
    pub rating: f64,
    /// The rating before it (absent in lines recorded before it was kept).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub before: Option<f64>,
    /// The deviation after it.
    pub deviation: f64,
    /// 1 won, 0.5 drawn, 0 lost.
    pub score: f64,
    /// The opponent's rating before it.
    pub opponent_rating: f64,
    /// When it was recorded, Unix ms.
    pub at_ms: u64,
}

/// One player's part of a rated result.
#[derive(Clone, PartialEq, Debug)]
pub struct RatingUpdate {
    /// The player.
    pub player: PlayerId,
    /// The games count the update was computed from (0 for a player never rated): the
    /// store refuses the whole result ([`Recorded::Stale`]) if it changed meanwhile.
    pub expect_games: u64,
    /// The rating after the match.
    pub after: Rating,
    /// The board to place the player on, by `after.rating`; `None`: on none.
    pub board: Option<Board>,
    /// The history line.
    pub change: RatingChange,
}

/// What [`LobbyStore::record_result`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Recorded {
    /// Both ratings, boards and histories changed, and the match is marked rated.
    Applied,
    /// The match was rated before (or is no rated match waiting for a result): nothing
    /// changed.
    AlreadyApplied,
    /// A player's games count is not `expect_games` (another result was recorded
    /// first): nothing changed; read the ratings again and recompute.
    Stale,
}

/// A fixed-window rate limit's answer.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum RateDecision {
    /// Under the limit (this hit counted).
    Allowed,
    /// Over it: try again after this long.
    Limited {
        /// Milliseconds until the window ends.
        retry_after_ms: u64,
    },
}

/// The ticket feed: player ids whose tickets changed, at most once; it ends when the
/// subscription is lost (subscribe again and re-read the players you follow).
pub type TicketFeed = Pin<Box<dyn tokio_stream::Stream<Item = PlayerId> + Send>>;

/// The match-maker's store. Every operation is atomic; every ticket change (create,
/// pair, assign, cancel, expire, unpair) announces its players on the ticket feed after it
/// is stored. Both [`crate::RedisStore`] and [`crate::MemoryStore`] implement it and pass
/// `tests/lobby.rs`.
#[async_trait]
pub trait LobbyStore: EventStore {
    // --- Accounts and sessions ---

    /// Stores `account` unless its email has one (emails are unique).
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn register(&self, account: &Account) -> Result<Registered, StoreError>;

    /// The account of a normalized email.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn account_by_email(&self, email: &str) -> Result<Option<Account>, StoreError>;

    /// The account of a player; `None` for a guest (or no such player).
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn account(&self, player: PlayerId) -> Result<Option<Account>, StoreError>;

    /// Changes one part of a stored account, leaving the rest as stored (so a password
    /// change and a profile change that overlap never undo each other). Returns false if
    /// the player has no account.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn update_account(
        &self,
        player: PlayerId,
        change: &AccountChange,
    ) -> Result<bool, StoreError>;

    /// Removes a session (by the SHA-256 of its token, lower-case hex): the token is
    /// unknown from then on. Removing one that is not there is not an error.
    ///
    /// # Errors
    /// [`StoreError::InvalidArgument`] if the key is not 64 lower-case hex digits.
    async fn delete_session(&self, token_sha256_hex: &str) -> Result<(), StoreError>;

    /// Counts one hit in `bucket`'s current fixed window of `window_ms` (the window starts
    /// at the bucket's first hit) and answers whether it is within `limit` hits. `bucket`
    /// is the caller's name for what is limited (a digest, never raw client text).
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn rate_limit(
        &self,
        bucket: &str,
        window_ms: u64,
        limit: u32,
    ) -> Result<RateDecision, StoreError>;

    // --- Tickets ---

    /// Stores a new ticket (state `Waiting`), unless the player's key or queue says
    /// otherwise (see [`TicketCreated`]); a seek is also listed.
    ///
    /// # Errors
    /// [`StoreError::Redis`]; [`StoreError::InvalidArgument`] if another ticket has its id.
    async fn create_ticket(&self, ticket: &Ticket) -> Result<TicketCreated, StoreError>;

    /// A ticket by id.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn ticket(&self, id: TicketId) -> Result<Option<Ticket>, StoreError>;

    /// The player's tickets, newest first: every live one and the last ones that ended
    /// (at most 50 in all).
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn tickets_of(&self, player: PlayerId) -> Result<Vec<Ticket>, StoreError>;

    /// Cancels the player's ticket if it is waiting; answers it as it is after the call
    /// (not waiting: unchanged). `None`: no such ticket of this player's.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn cancel_ticket(
        &self,
        id: TicketId,
        player: PlayerId,
        now_ms: u64,
    ) -> Result<Option<Ticket>, StoreError>;

    /// The queues that hold waiting (not seek) tickets.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn waiting_queues(&self) -> Result<Vec<Queue>, StoreError>;

    /// The waiting (not seek) tickets of a queue, in no particular order.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn waiting(&self, queue: &Queue) -> Result<Vec<Ticket>, StoreError>;

    /// The waiting seeks, oldest first, at most `limit`; only `game`'s if given.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn seeks(&self, game: Option<&str>, limit: usize) -> Result<Vec<Ticket>, StoreError>;

    /// Makes each pairing whose two tickets are both still waiting and unexpired at
    /// `now_ms` (and not seeks): both become `Pairing`, the pairing is stored pending,
    /// and for a rated queue the match is recorded as rated ([`LobbyStore::rated_match`]).
    /// Each pairing is all or nothing; the answer says, per pairing, whether it was made.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn pair(&self, pairings: &[Pairing], now_ms: u64) -> Result<Vec<bool>, StoreError>;

    /// Accepts a waiting seek: `accepter` (a new ticket of the accepting player, same
    /// queue, `seek: false`, state `Waiting`) is stored and both are paired into
    /// `pairing` (whose tickets and players name the seek and `accepter`), as
    /// [`LobbyStore::pair`] does. The accepter's idempotency key answers a retry. A seek
    /// whose `expires_ms` is at or before `pairing.paired_ms` is gone, as `pair` would not
    /// pair it either.
    ///
    /// # Errors
    /// [`StoreError::Redis`]; [`StoreError::InvalidArgument`] if `pairing` does not seat the
    /// seek (its player, its queue) and `accepter` (its player, a non-seek of that queue),
    /// or another ticket has the accepter's id.
    async fn accept_seek(
        &self,
        seek: TicketId,
        accepter: &Ticket,
        pairing: &Pairing,
    ) -> Result<SeekAccepted, StoreError>;

    /// The pairings stored but not yet assigned (or unpaired): what a match-maker that
    /// took over finishes.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn pending_pairings(&self) -> Result<Vec<Pairing>, StoreError>;

    /// The pairing's match exists: both tickets become `Assigned`, the pairing is no longer
    /// pending. Idempotent. Returns false if no such pairing is pending.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn assign(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError>;

    /// The pairing's match cannot be created: both tickets wait again (a seek is listed
    /// again), the pairing is dropped, and so is its rated match (nothing will finish to
    /// rate). Returns false if no such pairing is pending.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn unpair(&self, match_id: MatchId, now_ms: u64) -> Result<bool, StoreError>;

    /// Of `ids`, the tickets still waiting with `expires_ms <= now_ms` become `Expired`
    /// (a seek is unlisted); returns those.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn expire(&self, ids: &[TicketId], now_ms: u64) -> Result<Vec<Ticket>, StoreError>;

    /// Subscribes to the ticket feed.
    ///
    /// # Errors
    /// [`StoreError::Redis`] if no subscription could be made.
    async fn ticket_feed(&self) -> Result<TicketFeed, StoreError>;

    // --- Ratings and leaderboards ---

    /// The match, if a rated pairing made it and it is not rated yet.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn rated_match(&self, match_id: MatchId) -> Result<Option<RatedMatch>, StoreError>;

    /// The rated matches made by pairings and not yet rated (the ones in play, and any
    /// whose result is on its way).
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn unrated_matches(&self) -> Result<Vec<(MatchId, RatedMatch)>, StoreError>;

    /// A player's rating in a game; `None` if never rated.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn rating(&self, game: &str, player: PlayerId) -> Result<Option<Rating>, StoreError>;

    /// Records a rated match's result: unless the match is not waiting for one (rated
    /// before, unpaired, or never a rated pairing's: [`Recorded::AlreadyApplied`]) or a
    /// player's games count moved ([`Recorded::Stale`]), both ratings are stored, each
    /// player placed on its board (and taken off the others), each history gets its line
    /// (the newest 100 kept), and the match is forgotten as a rated match, all at once:
    /// neither [`LobbyStore::rated_match`] nor [`LobbyStore::unrated_matches`] answers it
    /// afterwards, so what the store keeps per rated match lasts only while it is played.
    ///
    /// # Errors
    /// [`StoreError::Redis`]; [`StoreError::InvalidArgument`] if a rating is not a finite
    /// number.
    async fn record_result(
        &self,
        match_id: MatchId,
        game: &str,
        updates: &[RatingUpdate; 2],
    ) -> Result<Recorded, StoreError>;

    /// Places a player on `board` (taken off the others) with `score`, or on none.
    ///
    /// # Errors
    /// [`StoreError::Redis`]; [`StoreError::InvalidArgument`] if `score` is not a finite
    /// number.
    async fn place(
        &self,
        game: &str,
        player: PlayerId,
        board: Option<Board>,
        score: f64,
    ) -> Result<(), StoreError>;

    /// A page of a board, best first: from 0-based rank `start`, at most `limit`, with
    /// the board's size. Equal ratings are ordered by player id, descending, as Redis
    /// orders equal scores.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn leaderboard(
        &self,
        game: &str,
        board: Board,
        start: u64,
        limit: usize,
    ) -> Result<(Vec<(PlayerId, f64)>, u64), StoreError>;

    /// The player's 0-based rank on `board`, if on it.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn rank(
        &self,
        game: &str,
        board: Board,
        player: PlayerId,
    ) -> Result<Option<u64>, StoreError>;

    /// The player's newest history lines in a game, at most `limit`, newest first.
    ///
    /// # Errors
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn history(
        &self,
        game: &str,
        player: PlayerId,
        limit: usize,
    ) -> Result<Vec<RatingChange>, StoreError>;

    // --- The lifecycle stream, read by a consumer group ---
}

/// How many tickets a player's list keeps ([`LobbyStore::tickets_of`]): ended tickets
/// past it are forgotten (record and idempotency key) when a newer one is made.
pub const TICKETS_KEPT: usize = 50;

/// How many history lines a player keeps per game ([`LobbyStore::history`]).
pub const HISTORY_KEPT: usize = 100;

/// The checks both stores make before `record_result` and `place`: Redis refuses a score
/// that is not a number, so the memory store refuses it too.
pub(crate) fn check_score(score: f64) -> Result<(), StoreError> {
    if score.is_finite() {
        Ok(())
    } else {
        Err(StoreError::InvalidArgument("a leaderboard score must be a finite number"))
    }
}
