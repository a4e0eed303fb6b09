//! The archive: finished matches after they leave Redis. Each is written once, by match id,
//! with its record (the exact JSON GetMatchRecord answers) and its result; read back by id,
//! by player (a history, newest first, by the page), by tenant and by tournament.
//! PostgreSQL in production ([`postgres`]), memory for `make run` and unit tests
//! ([`memory`]); both pass one contract suite (`tests/archive.rs`).

pub mod memory;
pub mod postgres;

use crate::error::StoreError;
use async_trait::async_trait;
use ids::{MatchId, PlayerId, SeatHolder, TenantId, TournamentId};
use rules_core::Seat;

/// The most entries one page of a list holds.
pub const MAX_PAGE: usize = 100;

/// One player's rating change in a rated match.
#[derive(Clone, Copy, PartialEq, Debug)]
pub struct RatingDelta {
    /// The rating before the match.
    pub before: f64,
    /// The rating after it.
    pub after: f64,
}

/// A finished match as the archive keeps it, without its record.
#[derive(Clone, PartialEq, Debug)]
pub struct Summary {
    /// The match.
    pub match_id: MatchId,
    /// Its game.
    pub game: String,
    /// Who held each seat at the end (a player, a bot; open if never taken).
    pub seats: [SeatHolder; 2],
    /// The winning seat; `None` for a draw or no result.
    pub winner: Option<Seat>,
    /// Why it ended (completed, resigned, missed_deadline...).
    pub reason: String,
    /// When its final step was stored, Unix ms: the order of every list.
    pub finished_at_ms: u64,
    /// The platform tenant that owns it, if any.
    pub tenant: Option<TenantId>,
    /// The tournament it was played in, if any.
    pub tournament: Option<TournamentId>,
    /// Each seat's rating change, for a rated match (seat 0's, then seat 1's).
    pub ratings: [Option<RatingDelta>; 2],
}

/// A finished match to archive: its summary and its record.
#[derive(Clone, PartialEq, Debug)]
pub struct Archived {
    /// What lists show.
    pub summary: Summary,
    /// The record's JSON, byte for byte as GetMatchRecord answers it.
    pub record_json: String,
}

/// Where a page starts: after this entry (lists run newest first, by finish time then id).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct After {
    /// The finish time of the last entry of the page before.
    pub finished_at_ms: u64,
    /// Its match id.
    pub match_id: MatchId,
}

impl After {
    /// Where a page that ended with `s` leaves off.
    pub fn of(s: &Summary) -> After {
        After { finished_at_ms: s.finished_at_ms, match_id: s.match_id }
    }

    /// Whether `s` comes after this point in a newest-first list.
    pub fn precedes(&self, s: &Summary) -> bool {
        (s.finished_at_ms, s.match_id) < (self.finished_at_ms, self.match_id)
    }
}

/// Which matches a list holds.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Owner {
    /// A player's: the matches where they held a seat.
    Player(PlayerId),
    /// A tenant's.
    Tenant(TenantId),
    /// A tournament's.
    Tournament(TournamentId),
}

impl Summary {
    /// Whether `owner`'s list holds this match.
    pub fn belongs_to(&self, owner: Owner) -> bool {
        match owner {
            Owner::Player(p) => {
                self.seats.iter().any(|s| matches!(s, SeatHolder::Player(q) if *q == p))
            }
            Owner::Tenant(t) => self.tenant == Some(t),
            Owner::Tournament(t) => self.tournament == Some(t),
        }
    }
}

/// What [`ArchiveStore::put`] did.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Put {
    /// Written now.
    Written,
    /// Archived before (a repeat): nothing changed.
    AlreadyArchived,
}

/// The archive of finished matches.
#[async_trait]
pub trait ArchiveStore: Send + Sync {
    /// Archives a match, once: a match archived before is left as it was
    /// ([`Put::AlreadyArchived`]), so a repeat (a redelivery, a retry after a lost answer)
    /// changes nothing. All of it is written or none.
    ///
    /// # Errors
    /// [`StoreError::Archive`]: the database failed (nothing written, or all of it).
    async fn put(&self, archived: &Archived) -> Result<Put, StoreError>;

    /// A match's record JSON; `None` if it is not archived.
    ///
    /// # Errors
    /// [`StoreError::Archive`].
    async fn record(&self, id: MatchId) -> Result<Option<String>, StoreError>;

    /// A match's summary; `None` if it is not archived.
    ///
    /// # Errors
    /// [`StoreError::Archive`].
    async fn summary(&self, id: MatchId) -> Result<Option<Summary>, StoreError>;

    /// At most `limit` (capped at [`MAX_PAGE`]) of `owner`'s matches, newest first (by
    /// finish time, then match id), each after `after` (`None`: from the newest).
    ///
    /// # Errors
    /// [`StoreError::Archive`].
    async fn list(
        &self,
        owner: Owner,
        after: Option<After>,
        limit: usize,
    ) -> Result<Vec<Summary>, StoreError>;

    /// Deletes at most `limit` matches finished before `before_ms` (the retention), oldest
    /// first; answers how many.
    ///
    /// # Errors
    /// [`StoreError::Archive`].
    async fn prune(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError>;

    /// Whether the archive answers: for readiness probes.
    ///
    /// # Errors
    /// [`StoreError::Archive`].
    async fn ping(&self) -> Result<(), StoreError>;
}

/// Opens the archive the environment names: PostgreSQL at `ARCHIVE_URL` (or the URL in the
/// file `ARCHIVE_URL_FILE`, a mounted Secret), its migrations applied now or once the
/// database answers ([`postgres::PgArchive::open`]); `None` when neither is set (finished
/// matches then stay in Redis for their retention).
///
/// # Errors
/// [`StoreError::Archive`]: the file cannot be read, or the URL is not one.
pub async fn open_from_env() -> Result<Option<std::sync::Arc<dyn ArchiveStore>>, StoreError> {
    let url = match (std::env::var("ARCHIVE_URL").ok(), std::env::var("ARCHIVE_URL_FILE").ok()) {
        (Some(url), _) if !url.is_empty() => url,
        (_, Some(file)) if !file.is_empty() => std::fs::read_to_string(&file)
            .map_err(|e| StoreError::Archive(format!("ARCHIVE_URL_FILE {file}: {e}")))?
            .trim()
            .to_string(),
        _ => return Ok(None),
    };
    let archive = postgres::PgArchive::open(&url).await?;
    tracing::info!("archive: PostgreSQL");
    Ok(Some(std::sync::Arc::new(archive)))
}
