//! Results: the lifecycle stream's finished matches become the tenant's `MatchFinished`
//! (with the published seed) exactly once, through the consumer group `tournaments`
//! (acknowledged only once stored; a once-mark per match makes a replay change nothing);
//! a tournament's match goes to its tournament, which folds it into its standings. And
//! WatchResults: a stream read from any sequence number, then followed live.

use crate::error::Error;
use crate::records::{Envelope, Event, MatchResult, OwnedMatch, State};
use api::{internal, v1};
use engines::{CallError, Engines};
use events::{Append, Appended, Finished, MatchId, ResultsStream, TenantStore, TournamentId};
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use tokio_util::sync::CancellationToken;

/// The consumer group of the tournament service on the lifecycle stream.
pub const GROUP: &str = "tournaments";
/// An entry pending this long was left by a consumer that died: claimed.
pub const CLAIM_IDLE_MS: u64 = 30_000;
/// How long one read waits for a new entry.
const BLOCK_MS: u64 = 1_000;
/// Entries per read.
const BATCH: usize = 100;
/// How often a watch looks for new events when it has caught up.
pub const WATCH_POLL: Duration = Duration::from_millis(100);
/// Events per read of a watch.
const WATCH_BATCH: usize = 500;

/// Where a tournament's finished matches go.
pub trait OnFinished: Send + Sync {
    /// Records `ms` (finished, with their results; all of one tournament) in their
    /// tournament, each once.
    fn finished(
        &self,
        ms: Vec<OwnedMatch>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>>;
}

/// Lifecycle entries resolved at once (record lookups, seeds from records).
const RESOLVING_AT_ONCE: usize = 16;

/// The published seed of a finished match, from its record.
///
/// # Errors
/// The engine failed, or the record has no seed.
pub async fn published_seed(engines: &Engines, game: &str, id: MatchId) -> Result<String, Error> {
    let record = engines
        .for_match(game, id)?
        .get_record(internal::GetRecordRequest { match_id: id.to_string() })
        .await
        .map_err(CallError::from)?
        .into_inner()
        .record
        .map(|r| r.record_json)
        .unwrap_or_default();
    let record: serde_json::Value =
        serde_json::from_str(&record).map_err(|e| Error::Corrupt(format!("a record: {e}")))?;
    record
        .get("seed")
        .and_then(|s| s.as_str())
        .map(str::to_string)
        .ok_or_else(|| Error::Corrupt("a record without its seed".into()))
}

/// Reads the lifecycle stream for the tenants' matches.
pub struct Results {
    store: Arc<dyn TenantStore>,
    engines: Engines,
    tournaments: Arc<dyn OnFinished>,
    consumer: String,
}

impl Results {
    /// Over `store`; seeds from `engines`; tournament matches to `tournaments`.
    pub fn new(
        store: Arc<dyn TenantStore>,
        engines: Engines,
        tournaments: Arc<dyn OnFinished>,
    ) -> Arc<Results> {
        Arc::new(Results {
            store,
            engines,
            tournaments,
            consumer: uuid::Uuid::new_v4().to_string(),
        })
    }

    /// Reads and records until `shutdown`; entries a dead replica left are claimed in a
    /// task of its own.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let claimer = self.clone();
        let stop = shutdown.clone();
        let claims = tokio::spawn(async move {
            let mut tick = tokio::time::interval(Duration::from_millis(CLAIM_IDLE_MS / 3));
            loop {
                tokio::select! {
                    _ = stop.cancelled() => return,
                    _ = tick.tick() => {}
                }
                match claimer
                    .store
                    .lifecycle_claim(GROUP, &claimer.consumer, CLAIM_IDLE_MS, BATCH)
                    .await
                {
                    Ok(d) => claimer.handle(d).await,
                    Err(e) => tracing::warn!(error = %e, "lifecycle claim failed"),
                }
            }
        });
        loop {
            if shutdown.is_cancelled() {
                break;
            }
            match self.store.lifecycle_read(GROUP, &self.consumer, BATCH, BLOCK_MS).await {
                Ok(d) => self.handle(d).await,
                Err(e) => {
                    tracing::warn!(error = %e, "lifecycle read failed");
                    tokio::select! {
                        _ = shutdown.cancelled() => break,
                        _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                    }
                }
            }
        }
        claims.abort();
    }

    /// Records a read's entries and acknowledges those stored: each tournament's results
    /// in one append (one catch-up, one standings computation for the lot), tournaments
    /// and bulk matches side by side. An entry not stored stays pending (claimed later).
    async fn handle(&self, deliveries: Vec<events::Delivery>) {
        use futures_util::StreamExt;
        let resolved: Vec<(String, Result<Option<OwnedMatch>, Error>)> =
            futures_util::stream::iter(deliveries)
                .map(|d| async move {
                    let m = match &d.finished {
                        None => Ok(None),
                        Some(f) => self.resolve(f).await,
                    };
                    (d.id, m)
                })
                .buffered(RESOLVING_AT_ONCE)
                .collect()
                .await;
        let mut done = Vec::new();
        let mut tournaments: BTreeMap<TournamentId, (Vec<String>, Vec<OwnedMatch>)> =
            BTreeMap::new();
        let mut bulk = Vec::new();
        for (id, m) in resolved {
            match m {
                Ok(None) => done.push(id),
                Ok(Some(m)) => match m.tournament {
                    Some((t, _)) => {
                        let group = tournaments.entry(t).or_default();
                        group.0.push(id);
                        group.1.push(m);
                    }
                    None => bulk.push((id, m)),
                },
                // Damaged data never heals: acknowledged (and said loudly) rather than left
                // pending at the head of the group for ever.
                Err(e @ Error::Corrupt(_)) => {
                    tracing::error!(entry = %id, error = %e, "a result that cannot be recorded: dropped");
                    done.push(id);
                }
                Err(e) => tracing::warn!(entry = %id, error = %e, "a result not recorded yet"),
            }
        }
        let groups = tournaments.into_values().map(|(ids, ms)| async move {
            let n = ms.len();
            match self.tournaments.finished(ms).await {
                Ok(()) => {
                    crate::metrics::finished(n);
                    ids
                }
                Err(e) => {
                    tracing::warn!(error = %e, "tournament results not recorded yet");
                    Vec::new()
                }
            }
        });
        let singles = bulk.into_iter().map(|(id, m)| async move {
            match self.record_bulk(m).await {
                Ok(()) => vec![id],
                Err(e) => {
                    tracing::warn!(error = %e, "a bulk match's result not recorded yet");
                    Vec::new()
                }
            }
        });
        for ids in futures_util::future::join_all(groups).await {
            done.extend(ids);
        }
        for ids in futures_util::future::join_all(singles).await {
            done.extend(ids);
        }
        if !done.is_empty()
            && let Err(e) = self.store.lifecycle_ack(GROUP, &done).await
        {
            tracing::warn!(error = %e, "lifecycle ack failed");
        }
    }

    /// The tenant's record of a finished match with its result, if a tenant made it and
    /// it is not recorded finished yet.
    ///
    /// # Errors
    /// The store or the engine failed.
    async fn resolve(&self, f: &Finished) -> Result<Option<OwnedMatch>, Error> {
        let Some(json) = self.store.owned(f.match_id).await? else { return Ok(None) };
        let mut m = OwnedMatch::parse(&json)?;
        if m.state == State::Finished {
            return Ok(None);
        }
        let seed_hex = match &f.seed_hex {
            Some(s) => s.clone(),
            None => published_seed(&self.engines, &m.game.game, m.match_id).await?,
        };
        if m.commitment.is_empty() {
            // Its record was written before the match existed: the commitment, which the
            // published seed is checked against, comes from the engine.
            m.commitment = crate::bulk::commitment_of(&self.engines, &m).await?;
        }
        m.state = State::Finished;
        m.result = Some(MatchResult {
            winner: f.winner.map(|s| s.index() as u8),
            reason: f.reason.clone(),
            seed_hex,
            at_ms: f.at_ms,
        });
        Ok(Some(m))
    }

    /// Records one finished match, if a tenant made it (tests and tools; the reader
    /// batches).
    ///
    /// # Errors
    /// The store or the engine failed.
    pub async fn record(&self, f: &Finished) -> Result<(), Error> {
        match self.resolve(f).await? {
            None => Ok(()),
            Some(m) if m.tournament.is_some() => self.tournaments.finished(vec![m]).await,
            Some(m) => self.record_bulk(m).await,
        }
    }

    /// A bulk match's finish on its tenant's stream, once.
    async fn record_bulk(&self, m: OwnedMatch) -> Result<(), Error> {
        let at_ms = now_ms();
        let event =
            Envelope { at_ms, tournament: None, event: Event::MatchFinished { m: m.clone() } };
        let appended = self
            .store
            .append_results(&Append {
                stream: ResultsStream::Tenant(m.tenant),
                expect_seq: None,
                once: Some(format!("finished:{}", m.match_id)),
                events: vec![event.json()],
                owned: vec![(m.match_id, m.json())],
                at_ms,
                close: false,
            })
            .await?;
        if took(appended) {
            crate::metrics::finished(1);
        }
        Ok(())
    }
}

/// One stored event as WatchResults sends it.
pub fn to_proto(seq: u64, e: &Envelope) -> v1::WatchResultsResponse {
    use v1::watch_results_response::Event as E;
    let event = match &e.event {
        Event::MatchStarted { m } => {
            E::MatchStarted(v1::TenantMatchStarted { r#match: Some(m.to_proto()) })
        }
        Event::MatchFinished { m } => {
            E::MatchFinished(v1::TenantMatchFinished { r#match: Some(m.to_proto()) })
        }
        Event::Created { .. } => E::StateChanged(v1::TournamentStateChanged {
            state: v1::TournamentState::Created as i32,
        }),
        Event::State { state, .. } => {
            E::StateChanged(v1::TournamentStateChanged { state: state.to_proto() as i32 })
        }
        Event::Paired { round, games, byes } => E::RoundPaired(v1::RoundPaired {
            round: *round,
            pairings: games
                .iter()
                .map(|g| v1::Pairing {
                    match_id: g.match_id.to_string(),
                    seat0_player_id: g.players[0].to_string(),
                    seat1_player_id: g.players[1].to_string(),
                })
                .collect(),
            bye_player_ids: byes.iter().map(|(_, p)| p.to_string()).collect(),
        }),
        Event::Standings { rows } => E::StandingsChanged(v1::StandingsChanged {
            standings: rows.iter().map(crate::records::Row::to_proto).collect(),
        }),
        Event::Withdrawn { player, .. } => {
            E::PlayerWithdrawn(v1::PlayerWithdrawn { player_id: player.to_string() })
        }
    };
    v1::WatchResultsResponse {
        sequence: seq,
        at_ms: e.at_ms,
        tournament_id: e.tournament.map(|t| t.to_string()).unwrap_or_default(),
        event: Some(event),
    }
}

/// Follows `stream` from after `after` until the client goes or `shutdown`: every event in
/// order, each once, then live. Sends into `tx`; ends when it closes.
pub async fn follow(
    store: Arc<dyn TenantStore>,
    stream: ResultsStream,
    mut after: u64,
    tx: tokio::sync::mpsc::Sender<Result<v1::WatchResultsResponse, tonic::Status>>,
    shutdown: CancellationToken,
) {
    loop {
        let page = match store.read_results(stream, after, WATCH_BATCH).await {
            Ok(p) => p,
            Err(e) => {
                let _ = tx.send(Err(Error::Store(e).into())).await;
                return;
            }
        };
        let full = page.len() == WATCH_BATCH;
        for entry in page {
            let sent = match Envelope::parse(&entry.json) {
                Ok(e) => tx.send(Ok(to_proto(entry.seq, &e))).await,
                Err(e) => tx.send(Err(e.into())).await,
            };
            if sent.is_err() {
                return;
            }
            after = entry.seq;
        }
        if !full {
            tokio::select! {
                _ = shutdown.cancelled() => return,
                _ = tx.closed() => return,
                _ = tokio::time::sleep(WATCH_POLL) => {}
            }
        }
    }
}

/// Whether the append took (a conflict or a repeat did nothing).
pub fn took(a: Appended) -> bool {
    matches!(a, Appended::Done { .. })
}
