//! The archiver: moves each finished match from Redis to the archive. It reads the
//! lifecycle stream through the consumer group `archive`; for each match it writes the
//! record (as the rules engine answers GetRecord), who sat where, the result, the owner
//! (a tenant's, a tournament's) and each seat's rating change, once by match id; only then
//! does it let Redis drop the match after a window, and acknowledge. A repeat (a
//! redelivery, a claim after a crash) writes nothing twice: the archive keeps the first.

use crate::metrics;
use engines::Engines;
use service_kit::time::now_ms;
use std::collections::{BTreeMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::archive::{ArchiveStore, Archived, Put, RatingDelta, Summary};
use store::{ArchiverStore, Finished, MatchId, PlayerId, SeatHolder, TenantId, TournamentId};
use tokio_util::sync::CancellationToken;

/// The consumer group of the archiver on the lifecycle stream.
pub const GROUP: &str = store::lifecycle::ARCHIVE;
/// An entry pending this long was left by a replica that died or stalled: claimed.
pub const CLAIM_IDLE_MS: u64 = 30_000;
/// How long a finished match stays in Redis once archived, unless told otherwise
/// (`ARCHIVE_RELEASE_AFTER_S`): an hour, for late watchers and record reads.
pub const DEFAULT_RELEASE_AFTER_MS: u64 = 3_600_000;
/// Entries per read, and matches archived at once.
const BATCH: usize = 64;
const AT_ONCE: usize = 16;
/// How long a read waits for a new entry.
const BLOCK_MS: u64 = 1_000;
/// A rated match is archived with its rating changes: while its ratings are not recorded
/// yet (the ratings read the same stream beside us), it is asked again this often, this
/// many times, then left pending for a later claim.
const RATED_WAIT: Duration = Duration::from_millis(100);
const RATED_TRIES: u32 = 30;
/// How often the lifecycle stream drops what every reader has acknowledged.
const TRIM_EVERY: Duration = Duration::from_secs(10);
/// How often released matches whose window is over leave their players' lists, and how
/// many may wait at most (beyond, the oldest stay listed, as hints).
const UNLIST_EVERY: Duration = Duration::from_secs(1);
const UNLISTING_KEPT: usize = 2_000_000;
/// How often the retention deletes, and how many at most each time.
const PRUNE_EVERY: Duration = Duration::from_secs(60);
const PRUNE_AT_ONCE: usize = 1_000;

/// How the archiver is set up.
#[derive(Clone)]
pub struct Archiving {
    /// What it reads and releases.
    pub store: Arc<dyn ArchiverStore>,
    /// Where it writes.
    pub archive: Arc<dyn ArchiveStore>,
    /// How long a match stays in Redis once archived, ms.
    pub release_after_ms: u64,
    /// Archived matches older than this are deleted, ms (0: kept for ever).
    pub retention_ms: u64,
}

impl Archiving {
    /// From the environment: `ARCHIVE_RELEASE_AFTER_S` (default an hour) and
    /// `ARCHIVE_RETENTION_DAYS` (default 0: for ever).
    ///
    /// # Errors
    /// A variable that is not a number.
    pub fn from_env(
        store: Arc<dyn ArchiverStore>,
        archive: Arc<dyn ArchiveStore>,
    ) -> Result<Archiving, service_kit::config::ConfigError> {
        use service_kit::config::number;
        let release_after_ms = number("ARCHIVE_RELEASE_AFTER_S", DEFAULT_RELEASE_AFTER_MS / 1000)?
            .saturating_mul(1000);
        let retention_ms = number("ARCHIVE_RETENTION_DAYS", 0)?.saturating_mul(86_400_000);
        Ok(Archiving { store, archive, release_after_ms, retention_ms })
    }
}

/// Why a match is not archived yet (it stays pending and comes again).
#[derive(Debug)]
enum NotYet {
    Store(store::StoreError),
    Engine(String),
    /// Its ratings are still being recorded.
    Unrated,
}

impl std::fmt::Display for NotYet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotYet::Store(e) => write!(f, "{e}"),
            NotYet::Engine(e) => write!(f, "the rules engine: {e}"),
            NotYet::Unrated => write!(f, "its ratings are not recorded yet"),
        }
    }
}

impl From<store::StoreError> for NotYet {
    fn from(e: store::StoreError) -> Self {
        NotYet::Store(e)
    }
}

/// The archiver.
pub struct Archiver {
    setup: Archiving,
    engines: Engines,
    /// The matches read and not archived yet, with when they finished: the lag.
    waiting: Mutex<BTreeMap<MatchId, u64>>,
    /// Released matches waiting for their window to end before they leave their players'
    /// lists, in the order they are due (the window is the same for all): 70 bytes or so
    /// each, where a task each would cost several hundred (an hour of 230 matches a second
    /// is 830,000 of them).
    unlisting: Mutex<VecDeque<Unlisting>>,
}

/// A released match to take off its players' lists at `due_ms`.
struct Unlisting {
    due_ms: u64,
    id: MatchId,
    players: [Option<PlayerId>; 2],
}

impl Archiver {
    /// An archiver; records come from `engines`.
    pub fn new(setup: Archiving, engines: Engines) -> Arc<Archiver> {
        Arc::new(Archiver {
            setup,
            engines,
            waiting: Mutex::new(BTreeMap::new()),
            unlisting: Mutex::new(VecDeque::new()),
        })
    }

    /// Reads and archives until `shutdown`, pruning past the retention beside it.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let consumer =
            store::lifecycle::consumer::Consumer::new(GROUP, BATCH, BLOCK_MS, CLAIM_IDLE_MS);
        let prune = tokio::spawn(self.clone().prune_until(shutdown.clone()));
        let lag = tokio::spawn(self.clone().lag_until(shutdown.clone()));
        let trim = tokio::spawn(self.clone().trim_until(shutdown.clone()));
        let unlist = tokio::spawn(self.clone().unlist_until(shutdown.clone()));
        store::lifecycle::consumer::consume_with(
            self.setup.store.clone(),
            consumer,
            shutdown,
            self.clone(),
        )
        .await;
        prune.abort();
        lag.abort();
        trim.abort();
        unlist.abort();
    }

    /// Archives what was delivered and acknowledges what is archived.
    async fn take(&self, deliveries: Vec<store::Delivery>) {
        use futures_util::StreamExt;
        {
            let mut waiting = self.waiting.lock().expect("the lag's lock");
            for f in deliveries.iter().filter_map(|d| d.finished.as_ref()) {
                waiting.entry(f.match_id).or_insert(f.at_ms);
            }
        }
        let done: Vec<String> = futures_util::stream::iter(deliveries)
            .map(|d| async move {
                let archived = match &d.finished {
                    // An entry no one can read is acknowledged: it would be claimed for ever.
                    None => Ok(()),
                    Some(f) => self.archive(f).await,
                };
                match archived {
                    Ok(()) => {
                        if let Some(f) = &d.finished {
                            self.waiting.lock().expect("the lag's lock").remove(&f.match_id);
                        }
                        Some(d.id)
                    }
                    Err(e) => {
                        service_kit::metrics::add(metrics::ARCHIVE_FAILURES, 1);
                        tracing::warn!(entry = %d.id, error = %e, "match not archived yet");
                        None
                    }
                }
            })
            .buffer_unordered(AT_ONCE)
            .filter_map(|id| async move { id })
            .collect()
            .await;
        self.publish_lag();
        if !done.is_empty()
            && let Err(e) = self.setup.store.lifecycle_ack(GROUP, &done).await
        {
            tracing::warn!(error = %e, "lifecycle entries not acknowledged (archived already; a replay changes nothing)");
        }
    }

    fn publish_lag(&self) {
        let oldest = self.waiting.lock().expect("the lag's lock").values().min().copied();
        let lag_s = oldest.map_or(0, |at| now_ms().saturating_sub(at) / 1000);
        service_kit::metrics::set(metrics::ARCHIVE_LAG, i64::try_from(lag_s).unwrap_or(i64::MAX));
    }

    async fn lag_until(self: Arc<Self>, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            self.publish_lag();
            tokio::time::sleep(Duration::from_secs(5)).await;
        }
    }

    /// Archives one finished match, then lets Redis drop it after the window.
    async fn archive(&self, f: &Finished) -> Result<(), NotYet> {
        let store = &self.setup.store;
        let Some(meta) = store.meta(f.match_id).await? else {
            // Gone from Redis: archived and released before (a repeat after the window),
            // or never archivable (a match older than the archive). Nothing to write.
            if self.setup.archive.summary(f.match_id).await?.is_none() {
                tracing::error!(match_id = %f.match_id, "a finished match left Redis unarchived");
            }
            return Ok(());
        };
        let put = match self.setup.archive.summary(f.match_id).await? {
            Some(_) => Put::AlreadyArchived,
            None => {
                let archived = self.gather(f, meta.seats.0.clone()).await?;
                self.setup.archive.put(&archived).await?
            }
        };
        match put {
            Put::Written => service_kit::metrics::add(metrics::ARCHIVE_WRITTEN, 1),
            Put::AlreadyArchived => service_kit::metrics::add(metrics::ARCHIVE_DUPLICATES, 1),
        }
        // Only now, with the archive holding it: a crash before this line leaves the match
        // in Redis, and its redelivery finds it archived and releases it.
        let released = store.release_finished(f.match_id, self.setup.release_after_ms).await?;
        tracing::debug!(match_id = %f.match_id, ?put, released, "archived");
        if released {
            self.unlist_after_window(f.match_id, &meta.seats.0);
        } else {
            tracing::warn!(match_id = %f.match_id, "archived match not released: Redis holds it unfinished");
        }
        Ok(())
    }

    /// Once the window is over, takes the released match off its players' lists (a
    /// player's list keeps its newest thousand; each entry of a released match would
    /// stay there until a reader of that list found its meta gone). Kept in this process
    /// only: an entry left by a crash is such a hint still, dropped by its next reader.
    fn unlist_after_window(&self, id: MatchId, seats: &[SeatHolder; 2]) {
        let player = |holder: &SeatHolder| match holder {
            SeatHolder::Player(p) | SeatHolder::Reserved(p) => Some(*p),
            SeatHolder::Open | SeatHolder::Bot(_) => None,
        };
        let due_ms = now_ms() + self.setup.release_after_ms;
        let players = [player(&seats[0]), player(&seats[1])];
        let mut queue = self.unlisting.lock().expect("the unlisting lock");
        if queue.len() >= UNLISTING_KEPT {
            // Past the bound, the oldest stays listed: a hint its next reader drops.
            queue.pop_front();
        }
        queue.push_back(Unlisting { due_ms, id, players });
    }

    /// Takes the released matches whose window is over off their players' lists, each
    /// second, until `shutdown`.
    async fn unlist_until(self: Arc<Self>, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            let due: Vec<Unlisting> = {
                let now = now_ms();
                let mut queue = self.unlisting.lock().expect("the unlisting lock");
                let n = queue.iter().take_while(|u| u.due_ms <= now).count();
                queue.drain(..n).collect()
            };
            for u in due {
                for player in u.players.into_iter().flatten() {
                    if let Err(e) = self.setup.store.unlist_player_match(player, u.id).await {
                        tracing::debug!(match_id = %u.id, error = %e, "a released match left on a player's list");
                    }
                }
            }
            tokio::time::sleep(UNLIST_EVERY).await;
        }
    }

    /// Everything the archive keeps of `f`.
    async fn gather(&self, f: &Finished, seats: [SeatHolder; 2]) -> Result<Archived, NotYet> {
        let store = &self.setup.store;
        let mut tries = 0;
        while store.rated_match(f.match_id).await?.is_some() {
            tries += 1;
            if tries >= RATED_TRIES {
                return Err(NotYet::Unrated);
            }
            tokio::time::sleep(RATED_WAIT).await;
        }
        let record_json = self
            .engines
            .for_match(&f.game, f.match_id)
            .map_err(|e| NotYet::Engine(e.to_string()))?
            .get_record(api::internal::GetRecordRequest { match_id: f.match_id.to_string() })
            .await
            .map_err(|s| NotYet::Engine(s.message().to_string()))?
            .into_inner()
            .record
            .map(|r| r.record_json)
            .ok_or_else(|| NotYet::Engine("no record in the answer".into()))?;
        // A built-in bot's seat is held by the bots' one player: kept as the bot it was.
        let mut seats = seats;
        for holder in &mut seats {
            if let SeatHolder::Player(p) | SeatHolder::Reserved(p) = holder
                && *p == store::BOT_PLAYER
            {
                let bot = store.bot_of(f.match_id).await?.unwrap_or_else(|| "bot".into());
                *holder = SeatHolder::Bot(bot);
            }
        }
        let (tenant, tournament) = owner(store.owned(f.match_id).await?.as_deref());
        let mut ratings = [None, None];
        for (seat, holder) in seats.iter().enumerate() {
            if let SeatHolder::Player(p) = holder {
                ratings[seat] = self.rating_delta(&f.game, *p, f.match_id).await?;
            }
        }
        Ok(Archived {
            summary: Summary {
                match_id: f.match_id,
                game: f.game.clone(),
                seats,
                winner: f.winner,
                reason: f.reason.clone(),
                finished_at_ms: f.at_ms,
                tenant,
                tournament,
                ratings,
            },
            record_json,
        })
    }

    /// A player's rating change in a match, if the match was rated: from the rating line
    /// the ratings wrote (the line before it gives the rating before, for lines written
    /// before they kept it).
    async fn rating_delta(
        &self,
        game: &str,
        player: PlayerId,
        id: MatchId,
    ) -> Result<Option<RatingDelta>, NotYet> {
        let lines = self.setup.store.history(game, player, 100).await?;
        let Some(i) = lines.iter().position(|l| l.match_id == id) else { return Ok(None) };
        let before = lines[i]
            .before
            .or_else(|| lines.get(i + 1).map(|l| l.rating))
            .unwrap_or(crate::ratings::initial().rating);
        Ok(Some(RatingDelta { before, after: lines[i].rating }))
    }

    /// Drops the lifecycle entries every reader has acknowledged, every [`TRIM_EVERY`]:
    /// once matches leave Redis for the archive, their announcements go too.
    async fn trim_until(self: Arc<Self>, shutdown: CancellationToken) {
        while !shutdown.is_cancelled() {
            match self.setup.store.trim_lifecycle(store::lifecycle::READERS).await {
                Ok(n) if n > 0 => tracing::debug!(dropped = n, "lifecycle entries read by all"),
                Ok(_) => {}
                Err(e) => tracing::warn!(error = %e, "lifecycle not trimmed"),
            }
            tokio::time::sleep(TRIM_EVERY).await;
        }
    }

    async fn prune_until(self: Arc<Self>, shutdown: CancellationToken) {
        if self.setup.retention_ms == 0 {
            return;
        }
        while !shutdown.is_cancelled() {
            let before = now_ms().saturating_sub(self.setup.retention_ms);
            match self.setup.archive.prune(before, PRUNE_AT_ONCE).await {
                Ok(0) => tokio::time::sleep(PRUNE_EVERY).await,
                Ok(n) => service_kit::metrics::add(metrics::ARCHIVE_PRUNED, n as i64),
                Err(e) => {
                    tracing::warn!(error = %e, "archive retention not applied yet");
                    tokio::time::sleep(PRUNE_EVERY).await;
                }
            }
        }
    }
}

/// The tenant and tournament of an owned match, from the platform's record of it.
fn owner(owned: Option<&str>) -> (Option<TenantId>, Option<TournamentId>) {
    #[derive(serde::Deserialize)]
    struct Owned {
        tenant: TenantId,
        tournament: Option<(TournamentId, u32)>,
    }
    match owned.map(serde_json::from_str::<Owned>) {
        Some(Ok(o)) => (Some(o.tenant), o.tournament.map(|(t, _)| t)),
        Some(Err(e)) => {
            tracing::warn!(error = %e, "a platform match record did not decode: archived without its owner");
            (None, None)
        }
        None => (None, None),
    }
}

#[tonic::async_trait]
impl store::lifecycle::consumer::Handler for Archiver {
    async fn handle(&self, deliveries: Vec<store::Delivery>) {
        self.take(deliveries).await;
    }
}
