//! The lifecycle stream's model: a finished match as the rules engine announces it
//! ([`Finished`]), and one entry as a consumer group reads it ([`Delivery`]). Written by
//! the engine, read by the ratings, the tournament results and the archiver
//! ([`crate::lifecycle::consumer`], each a group of [`READERS`]).

pub mod consumer;
pub(crate) mod memory;
pub(crate) mod redis;
pub(crate) mod tables;

use crate::error::StoreError;
use async_trait::async_trait;
use ids::{MatchId, PlayerId};
use rules_core::Seat;
use serde::{Deserialize, Serialize};

/// About how many entries the lifecycle stream keeps (`XADD MAXLEN ~`): weeks of finished
/// matches, far more than a consumer group ever falls behind.
pub const LIFECYCLE_KEPT: usize = 1_000_000;

/// The ratings' consumer group (the match-maker).
pub const RATINGS: &str = "ratings";
/// The tournament results' consumer group (the tournament service).
pub const TOURNAMENTS: &str = "tournaments";
/// The archiver's consumer group (the match-maker).
pub const ARCHIVE: &str = "archive";
/// Every consumer group that reads the lifecycle stream: a new reader adds its name here.
/// The trim keeps each entry until all of them have acknowledged it, a reader that has not
/// made its group yet included (it has read nothing).
pub const READERS: &[&str] = &[RATINGS, TOURNAMENTS, ARCHIVE];

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

/// The lifecycle stream: the rules engine announces each finished match once its final
/// step is stored (and whoever holds the repair lease announces what a dead engine owed);
/// the ratings and the tournaments read it through consumer groups ([`consumer`]).
#[async_trait]
pub trait LifecycleStore: Send + Sync {
    /// Announces a finished match on the lifecycle stream (`colosseum:lifecycle`, read by
    /// consumer groups: the ratings, the tournaments), then clears the announcement its
    /// final step left owed ([`HostStore::append_final`]). At least once: the rules engine
    /// announces after the final step is stored, and the match may be announced again (a
    /// retry, [`EventStore::repair_announcements`] racing a slow engine); readers make a
    /// repeat change nothing.
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`].
    async fn announce_finished(&self, finished: &Finished) -> Result<(), StoreError>;

    /// Announces, as [`EventStore::announce_finished`] does, the owed announcements
    /// ([`HostStore::append_final`]) whose final step was stored at or before `before_ms`,
    /// at most `limit` of them, oldest first; an index entry whose final step was never
    /// stored (its append failed or was refused) is dropped. Returns how many it
    /// announced. The repair of announcements an engine died before making: one process
    /// at a time runs it, under a lease (two at once would only announce twice).
    ///
    /// # Errors
    ///
    /// [`StoreError::Redis`], [`StoreError::Corrupt`].
    async fn repair_announcements(&self, before_ms: u64, limit: usize)
    -> Result<usize, StoreError>;

    /// Up to `count` entries never delivered to `group` (created at the stream's start on
    /// first use), delivered to `consumer` and pending until acknowledged; waits up to
    /// `block_ms` for one if there is none.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn lifecycle_read(
        &self,
        group: &str,
        consumer: &str,
        count: usize,
        block_ms: u64,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// Claims for `consumer` up to `count` of `group`'s entries pending for at least
    /// `min_idle_ms` (their consumer died or stalled), and answers them.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn lifecycle_claim(
        &self,
        group: &str,
        consumer: &str,
        min_idle_ms: u64,
        count: usize,
    ) -> Result<Vec<Delivery>, StoreError>;

    /// Acknowledges entries: no longer pending for `group`.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn lifecycle_ack(&self, group: &str, ids: &[String]) -> Result<(), StoreError>;

    /// Drops the entries every consumer group has read and acknowledged: what is left is
    /// what some reader still owes. Nothing while one of `readers` ([`READERS`]) has no
    /// group yet: that reader has read nothing, and an entry dropped before its group is
    /// made would never reach it. Answers how many it dropped. Finished matches then cost
    /// Redis nothing once read: the stream's `MAXLEN` stays the bound for a reader that
    /// falls far behind or never starts.
    ///
    /// # Errors
    /// [`StoreError::Redis`].
    async fn trim_lifecycle(&self, readers: &[&str]) -> Result<usize, StoreError>;
}
