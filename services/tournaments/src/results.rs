//! Results: the lifecycle stream's finished matches become the tenant's `MatchFinished`
//! (with the published seed) exactly once, through the consumer group `tournaments`
//! (acknowledged only once stored; a once-mark per match makes a replay change nothing);
//! a tournament's match goes to its tournament, which folds it into its standings. And
//! WatchResults: a stream read from any sequence number, then followed live, woken by the
//! store's results feed ([`Wakes`]: one subscription per replica) with a slow poll behind
//! it for a notification lost.

use crate::error::Error;
use crate::records::{Envelope, Event, MatchResult, OwnedMatch, State};
use api::{internal, v1};
use engines::{CallError, Engines};
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;
use store::{Append, Appended, Finished, MatchId, ResultsStream, TenantStore, TournamentId};
use tokio_util::sync::CancellationToken;

/// The consumer group of the tournament service on the lifecycle stream.
pub const GROUP: &str = store::lifecycle::TOURNAMENTS;
/// An entry pending this long was left by a consumer that died: claimed.
pub const CLAIM_IDLE_MS: u64 = 30_000;
/// How long one read waits for a new entry.
const BLOCK_MS: u64 = 1_000;
/// Entries per read.
const BATCH: usize = 100;
/// How often a watch that has caught up reads its stream with no notification: only for
/// one lost (the feed is at most once), so seldom.
pub const WATCH_POLL: Duration = Duration::from_secs(5);
/// How long a lost results-feed subscription waits before subscribing again.
const RESUBSCRIBE: Duration = Duration::from_secs(1);
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
}

impl Results {
    /// Over `store`; seeds from `engines`; tournament matches to `tournaments`.
    pub fn new(
        store: Arc<dyn TenantStore>,
        engines: Engines,
        tournaments: Arc<dyn OnFinished>,
    ) -> Arc<Results> {
        Arc::new(Results { store, engines, tournaments })
    }

    /// Reads and records until `shutdown` (entries a dead replica left are claimed).
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let consumer =
            store::lifecycle::consumer::Consumer::new(GROUP, BATCH, BLOCK_MS, CLAIM_IDLE_MS);
        store::lifecycle::consumer::consume_with(self.store.clone(), consumer, shutdown, self)
            .await;
    }

    /// Records a read's entries and acknowledges those stored: each tournament's results
    /// in one append (one catch-up, one standings computation for the lot), tournaments
    /// and bulk matches side by side. An entry not stored stays pending (claimed later).
    async fn take(&self, deliveries: Vec<store::Delivery>) {
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
        Event::State { state, .. } => E::StateChanged(v1::TournamentStateChanged {
            state: crate::records::state_to_proto(*state) as i32,
        }),
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

/// The results feed of one replica: one subscription to the store's, passed on to every
/// watch (each keeps the appends of its tenant), subscribed again when lost.
#[derive(Clone)]
pub struct Wakes {
    tx: tokio::sync::broadcast::Sender<store::TenantId>,
}

impl Wakes {
    /// Follows `store`'s results feed until `shutdown`.
    pub fn start(store: Arc<dyn TenantStore>, shutdown: CancellationToken) -> Wakes {
        let (tx, _) = tokio::sync::broadcast::channel(1024);
        let wakes = Wakes { tx: tx.clone() };
        tokio::spawn(async move {
            use tokio_stream::StreamExt;
            while !shutdown.is_cancelled() {
                match store.results_feed().await {
                    Ok(mut feed) => loop {
                        tokio::select! {
                            () = shutdown.cancelled() => return,
                            next = feed.next() => match next {
                                // No watch listening is no error.
                                Some(tenant) => drop(tx.send(tenant)),
                                None => break,
                            },
                        }
                    },
                    Err(e) => tracing::warn!(error = %e, "results feed: subscribing again soon"),
                }
                tokio::select! {
                    () = shutdown.cancelled() => return,
                    () = tokio::time::sleep(RESUBSCRIBE) => {}
                }
            }
        });
        wakes
    }

    /// A receiver of every tenant's appends from now on.
    pub fn subscribe(&self) -> tokio::sync::broadcast::Receiver<store::TenantId> {
        self.tx.subscribe()
    }
}

/// Until an append to `tenant`'s streams is announced (or some were missed: a lagged
/// receiver reads anyway); never, if the feed is gone (the poll goes on).
pub(crate) async fn appended(
    wakes: &mut tokio::sync::broadcast::Receiver<store::TenantId>,
    tenant: store::TenantId,
) {
    use tokio::sync::broadcast::error::RecvError;
    loop {
        match wakes.recv().await {
            Ok(t) if t == tenant => return,
            Ok(_) => {}
            Err(RecvError::Lagged(_)) => return,
            Err(RecvError::Closed) => std::future::pending::<()>().await,
        }
    }
}

/// Follows `stream` from after `after` until the client goes or `shutdown`: every event in
/// order, each once, then live: read again on each append of its tenant `wakes` announces,
/// and every `poll` anyway. Sends into `tx`; ends when it closes.
pub async fn follow(
    store: Arc<dyn TenantStore>,
    stream: ResultsStream,
    mut after: u64,
    tx: tokio::sync::mpsc::Sender<Result<v1::WatchResultsResponse, tonic::Status>>,
    mut wakes: tokio::sync::broadcast::Receiver<store::TenantId>,
    poll: Duration,
    shutdown: CancellationToken,
) {
    let tenant = stream.tenant();
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
                () = appended(&mut wakes, tenant) => {}
                _ = tokio::time::sleep(poll) => {}
            }
        }
    }
}

/// Whether the append took (a conflict or a repeat did nothing).
pub fn took(a: Appended) -> bool {
    matches!(a, Appended::Done { .. })
}

#[tonic::async_trait]
impl store::lifecycle::consumer::Handler for Results {
    async fn handle(&self, deliveries: Vec<store::Delivery>) {
        self.take(deliveries).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::Event;

    fn append(tenant: store::TenantId) -> Append {
        let e = Envelope {
            at_ms: 1,
            tournament: None,
            event: Event::Withdrawn { entrant: 0, player: store::PlayerId::random() },
        };
        Append {
            stream: ResultsStream::Tenant(tenant),
            expect_seq: None,
            once: None,
            events: vec![e.json()],
            owned: Vec::new(),
            at_ms: 1,
            close: false,
        }
    }

    #[tokio::test]
    async fn a_watch_is_woken_by_the_results_feed_not_by_its_poll() {
        let store: Arc<dyn TenantStore> = Arc::new(store::MemoryStore::default());
        let shutdown = CancellationToken::new();
        let wakes = Wakes::start(store.clone(), shutdown.clone());
        let (tenant, other) = (store::TenantId::random(), store::TenantId::random());
        store.append_results(&append(tenant)).await.expect("appended");
        let (tx, mut rx) = tokio::sync::mpsc::channel(16);
        // A poll that never comes in this test: only the feed can wake the watch.
        let never = Duration::from_secs(3600);
        let stream = ResultsStream::Tenant(tenant);
        let watch = tokio::spawn(follow(
            store.clone(),
            stream,
            0,
            tx,
            wakes.subscribe(),
            never,
            shutdown.clone(),
        ));
        let first = rx.recv().await.expect("the backlog").expect("an event");
        assert_eq!(first.sequence, 1);
        // Give the feed's subscription a moment to be made (it is made once per replica).
        tokio::time::sleep(Duration::from_millis(50)).await;
        // Another tenant's append wakes it to nothing; its own is sent at once.
        store.append_results(&append(other)).await.expect("appended");
        store.append_results(&append(tenant)).await.expect("appended");
        let next = tokio::time::timeout(Duration::from_secs(30), rx.recv())
            .await
            .expect("woken by the feed, not the hour's poll")
            .expect("open")
            .expect("an event");
        assert_eq!(next.sequence, 2, "its own stream's next event");
        shutdown.cancel();
        watch.await.expect("the watch ends at shutdown");
    }
}
