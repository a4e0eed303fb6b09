//! Ratings: Glicko-2 per game, updated exactly once per finished rated match. Results
//! come from the lifecycle stream, which the rules engines append to, through the
//! consumer group `ratings`: an entry is acknowledged only once its result is stored,
//! entries a dead replica left pending are claimed after [`CLAIM_IDLE_MS`], and the store
//! forgets each rated match in the same script that writes the ratings, so a replayed result
//! changes nothing. No announcement is lost: the final step leaves it owed in the store,
//! and the tournament service's driver makes any an engine died before making
//! (`store::EventStore::repair_announcements`), so nothing here sweeps the live matches.

use crate::error::Error;
use crate::metrics;
use ladder::glicko;
use service_kit::time::now_ms;
use std::sync::Arc;
use store::{
    Board, Finished, MatchId, MatchMakerStore, PlayerId, RatedMatch, Rating, RatingChange,
    RatingUpdate, Recorded,
};
use tokio_util::sync::CancellationToken;

/// The consumer group of the ratings on the lifecycle stream.
pub const GROUP: &str = store::lifecycle::RATINGS;
/// An entry pending this long was left by a consumer that died or stalled: claimed.
pub const CLAIM_IDLE_MS: u64 = 30_000;
/// How long one read waits for a new entry.
const BLOCK_MS: u64 = 1_000;
/// Entries per read.
const BATCH: usize = 100;

/// The rating a player has before their first rated match.
pub fn initial() -> Rating {
    let r = glicko::Rating::NEW;
    Rating {
        rating: r.rating,
        deviation: r.deviation,
        volatility: r.volatility,
        games: 0,
        updated_ms: 0,
    }
}

fn to_glicko(r: &Rating) -> glicko::Rating {
    glicko::Rating { rating: r.rating, deviation: r.deviation, volatility: r.volatility }
}

/// The board a player with `rating` belongs on: none unless opted in (bots always on
/// theirs), provisional while the deviation is high.
pub fn board_for(leaderboard: bool, bot: bool, rating: &Rating) -> Option<Board> {
    if bot {
        Some(Board::Bots)
    } else if !leaderboard {
        None
    } else if to_glicko(rating).is_provisional() {
        Some(Board::Provisional)
    } else {
        Some(Board::Rated)
    }
}

/// Rates finished matches.
pub struct Ratings {
    store: Arc<dyn MatchMakerStore>,
}

impl Ratings {
    /// The ratings over `store`.
    pub fn new(store: Arc<dyn MatchMakerStore>) -> Arc<Ratings> {
        Arc::new(Ratings { store })
    }

    /// Reads and rates until `shutdown` (entries a dead replica left are claimed).
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let consumer =
            store::lifecycle::consumer::Consumer::new(GROUP, BATCH, BLOCK_MS, CLAIM_IDLE_MS);
        store::lifecycle::consumer::consume_with(self.store.clone(), consumer, shutdown, self)
            .await;
    }

    /// Rates what was delivered and acknowledges what is done; the rest stays pending,
    /// to be claimed and tried again.
    async fn take(&self, deliveries: Vec<store::Delivery>) {
        let mut done = Vec::with_capacity(deliveries.len());
        for d in deliveries {
            let rated = match &d.finished {
                // An entry no one can read is acknowledged: it would be claimed for ever.
                None => Ok(()),
                Some(f) => self.rate(f).await,
            };
            match rated {
                Ok(()) => done.push(d.id),
                Err(e) => tracing::warn!(entry = %d.id, error = %e, "result not rated yet"),
            }
        }
        if !done.is_empty()
            && let Err(e) = self.store.lifecycle_ack(GROUP, &done).await
        {
            tracing::warn!(error = %e, "lifecycle entries not acknowledged (rated already; a replay changes nothing)");
        }
    }

    /// Rates one finished match if a rated pairing made it; anything else is not ours.
    ///
    /// # Errors
    /// The store failed.
    pub async fn rate(&self, f: &Finished) -> Result<(), Error> {
        let Some(rated) = self.store.rated_match(f.match_id).await? else { return Ok(()) };
        let score0 = match f.winner.map(|s| s.index()) {
            Some(0) => 1.0,
            Some(_) => 0.0,
            None => 0.5,
        };
        self.record(f.match_id, &rated, score0, f.at_ms).await
    }

    /// Records the result, recomputing if another result for a player landed first.
    async fn record(
        &self,
        match_id: MatchId,
        rated: &RatedMatch,
        score0: f64,
        at_ms: u64,
    ) -> Result<(), Error> {
        for _ in 0..8 {
            let before = [
                self.current(&rated.game, rated.players[0]).await?,
                self.current(&rated.game, rated.players[1]).await?,
            ];
            // Stored ratings are always valid ones; an invalid one is corrupt data.
            let (a, b) = glicko::rate_match(to_glicko(&before[0]), to_glicko(&before[1]), score0)
                .map_err(|e| {
                Error::Store(store::StoreError::Corrupt(format!("rating: {e:?}")))
            })?;
            let now = now_ms();
            let mut updates = Vec::with_capacity(2);
            for (i, after) in [a, b].into_iter().enumerate() {
                let player = rated.players[i];
                let after = Rating {
                    rating: after.rating,
                    deviation: after.deviation,
                    volatility: after.volatility,
                    games: before[i].games + 1,
                    updated_ms: now,
                };
                let account = self.store.account(player).await?;
                let board = account.as_ref().and_then(|a| board_for(a.leaderboard, a.bot, &after));
                updates.push(RatingUpdate {
                    player,
                    expect_games: before[i].games,
                    after,
                    board,
                    change: RatingChange {
                        match_id,
                        rating: after.rating,
                        before: Some(before[i].rating),
                        deviation: after.deviation,
                        score: if i == 0 { score0 } else { 1.0 - score0 },
                        opponent_rating: before[1 - i].rating,
                        at_ms,
                    },
                });
            }
            let updates: [RatingUpdate; 2] = updates.try_into().expect("two updates");
            match self.store.record_result(match_id, &rated.game, &updates).await? {
                Recorded::Applied => {
                    service_kit::metrics::add(metrics::RATED, 1);
                    tracing::info!(%match_id, game = %rated.game, "ratings updated");
                    return Ok(());
                }
                Recorded::AlreadyApplied => {
                    service_kit::metrics::add(metrics::RATED_AGAIN, 1);
                    return Ok(());
                }
                Recorded::Stale => continue,
            }
        }
        Err(Error::Store(store::StoreError::Redis(
            "ratings kept moving under this result; retried later".into(),
        )))
    }

    async fn current(&self, game: &str, player: PlayerId) -> Result<Rating, Error> {
        Ok(self.store.rating(game, player).await?.unwrap_or_else(initial))
    }
}

#[tonic::async_trait]
impl store::lifecycle::consumer::Handler for Ratings {
    async fn handle(&self, deliveries: Vec<store::Delivery>) {
        self.take(deliveries).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boards_follow_opt_in_bots_and_deviation() {
        let mut r = initial();
        assert_eq!(board_for(false, false, &r), None);
        assert_eq!(board_for(true, false, &r), Some(Board::Provisional));
        assert_eq!(board_for(false, true, &r), Some(Board::Bots));
        r.deviation = 80.0;
        assert_eq!(board_for(true, false, &r), Some(Board::Rated));
    }
}
