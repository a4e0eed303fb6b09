//! The matching loop: one match-maker at a time holds the matcher lease and, every
//! pass, finishes pairings left pending, expires tickets past their time, and pairs each
//! queue's waiting tickets by rating (`ladder::pairing`). A pairing is stored before its
//! match is created, so one that created its match but died before telling anyone is
//! finished by whoever holds the lease next; the match id is derived from the two
//! tickets, so finishing twice creates nothing twice.

use crate::error::Error;
use crate::metrics;
use crate::queues::pairing_of;
use engines::{CallError, Created, Engines};
use futures_util::StreamExt;
use ladder::pairing::Candidate;
use service_kit::time::now_ms;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{MatchId, MatchMakerStore, Pairing, Queue, SeatHolder, Ticket, TicketId};
use tokio::sync::Semaphore;
use tokio_util::sync::CancellationToken;

/// The lease's name: one matcher in the whole cluster at a time.
pub const LEASE: &str = "matcher";
/// How long a lease lasts unless renewed: a dead holder's queues wait this long at most.
pub const LEASE_TTL_MS: u64 = 3_000;
/// How often a pass runs (and the lease is renewed).
pub const PASS_EVERY: Duration = Duration::from_millis(100);
/// A pending pairing this old is finished by the lease holder: its maker died, or its
/// engine call failed (a younger one may still be on its way).
pub const TAKEOVER_AFTER_MS: u64 = 2_000;
/// A pairing still pending this long (its engine refusing or down all along) is undone:
/// both tickets wait again (and expire if their time is up).
pub const GIVE_UP_AFTER_MS: u64 = 10 * 60_000;
/// The most seeks whose expiry one pass looks at (the oldest first: those expire first).
const SEEKS_PER_PASS: usize = 1_000;
/// The most pairings stored by one store call (one Redis script).
const PAIR_CHUNK: usize = 256;
/// How many chunks of a pass's pairings are written at once.
const PAIR_CHUNKS_IN_FLIGHT: usize = 2;
/// How many matches are being created at once.
const CREATING_AT_ONCE: usize = 128;

/// What one pass did.
#[derive(Clone, Copy, Default, Debug, PartialEq, Eq)]
pub struct Pass {
    /// Tickets looked at.
    pub waiting: usize,
    /// Pairings made.
    pub paired: usize,
    /// Tickets expired.
    pub expired: usize,
    /// Pending pairings taken over.
    pub resumed: usize,
}

/// The matcher.
pub struct Matcher {
    store: Arc<dyn MatchMakerStore>,
    engines: Engines,
    /// This process's name in the lease.
    holder: String,
    creating: Arc<Semaphore>,
    /// The pairings being finished by this process now.
    in_flight: Mutex<BTreeSet<MatchId>>,
}

impl Matcher {
    /// A matcher over `store`, creating matches through `engines`; `name` (this
    /// replica's address) starts its name in the lease, so an operator or a test can tell
    /// which replica holds it.
    pub fn new(store: Arc<dyn MatchMakerStore>, engines: Engines, name: &str) -> Arc<Matcher> {
        Arc::new(Matcher {
            store,
            engines,
            holder: format!("{name}/{}", uuid::Uuid::new_v4()),
            creating: Arc::new(Semaphore::new(CREATING_AT_ONCE)),
            in_flight: Mutex::default(),
        })
    }

    /// Passes until `shutdown`, whenever this process holds the lease.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        let duty = service_kit::lease::Duty {
            name: "matcher",
            holder: self.holder.clone(),
            every: PASS_EVERY,
            leader_gauge: metrics::LEADER,
        };
        let renew = || self.store.lease(LEASE, &self.holder, LEASE_TTL_MS);
        let pass = || async {
            let timer = service_kit::metrics::Timer::start(metrics::PASS_SECONDS, &[]);
            match self.clone().pass().await {
                Ok(p) => {
                    drop(timer);
                    if p.paired + p.expired + p.resumed > 0 {
                        tracing::debug!(?p, "matching pass");
                    }
                }
                Err(e) => tracing::warn!(error = %e, "matching pass failed"),
            }
        };
        service_kit::lease::run(duty, shutdown, renew, pass).await;
    }

    /// One pass over every queue. Public for the benchmark and tests.
    ///
    /// # Errors
    /// The store failed (the next pass tries again).
    pub async fn pass(self: Arc<Self>) -> Result<Pass, Error> {
        let now = now_ms();
        let mut done = Pass::default();
        for p in self.store.pending_pairings().await? {
            let age = now.saturating_sub(p.paired_ms);
            if age >= GIVE_UP_AFTER_MS {
                // Its engine never took it: both players wait again rather than for ever.
                tracing::error!(match_id = %p.match_id, age_ms = age, "a pairing never finished: unpaired");
                self.store.unpair(p.match_id, now).await?;
                continue;
            }
            if age >= TAKEOVER_AFTER_MS {
                done.resumed += 1;
                tracing::info!(match_id = %p.match_id, "finishing a pairing left pending");
                self.clone().spawn_finish(p, false).await;
            }
        }
        // Seeks are listed, not queued: their expiry is looked at here.
        let seeks = self.store.seeks(None, SEEKS_PER_PASS).await?;
        let due: Vec<TicketId> =
            seeks.iter().filter(|t| t.expires_ms <= now).map(|t| t.id).collect();
        if !due.is_empty() {
            let gone = self.store.expire(&due, now).await?.len();
            done.expired += gone;
            service_kit::metrics::add(metrics::EXPIRED, gone as i64);
        }
        let mut waiting: BTreeMap<(String, bool), i64> = BTreeMap::new();
        for queue in self.store.waiting_queues().await? {
            let (looked, expired, made) = self.pass_queue(&queue, now).await?;
            *waiting.entry((queue.game.clone(), queue.rated)).or_default() +=
                looked.saturating_sub(expired + 2 * made.len()) as i64;
            done.waiting += looked;
            done.expired += expired;
            done.paired += made.len();
            for p in made {
                self.clone().spawn_finish(p, true).await;
            }
        }
        // Every game's figure each pass, 0 for a queue that emptied.
        for g in games::GAMES {
            for rated in [false, true] {
                let n = waiting.get(&(g.name.to_string(), rated)).copied().unwrap_or(0);
                let rated = if rated { "true" } else { "false" };
                service_kit::metrics::set_with(
                    metrics::WAITING,
                    &[("game", g.name), ("rated", rated)],
                    n,
                );
            }
        }
        Ok(done)
    }

    /// One queue's part of a pass: its waiting tickets read, the expired ones expired, the
    /// rest paired; returns how many were looked at, how many expired, and the pairings
    /// made (stored pending: [`Matcher::finish`] creates their matches). Public for the
    /// benchmark (`colosseum load --queue`).
    ///
    /// # Errors
    /// The store failed.
    pub async fn pass_queue(
        &self,
        queue: &Queue,
        now: u64,
    ) -> Result<(usize, usize, Vec<Pairing>), Error> {
        let tickets = self.store.waiting(queue).await?;
        let looked = tickets.len();
        let (expired, live): (Vec<Ticket>, Vec<Ticket>) =
            tickets.into_iter().partition(|t| t.expires_ms <= now);
        let mut gone = 0;
        if !expired.is_empty() {
            let ids: Vec<TicketId> = expired.iter().map(|t| t.id).collect();
            gone = self.store.expire(&ids, now).await?.len();
            service_kit::metrics::add(metrics::EXPIRED, gone as i64);
        }
        let pairings = pairings(&live, now);
        if pairings.is_empty() {
            return Ok((looked, gone, Vec::new()));
        }
        // In chunks: one script over thousands of pairings would hold Redis (and every
        // other caller) for its whole run. Two at a time: the chunks' tickets are apart,
        // and each chunk's round trip then overlaps the other's script. A chunk whose
        // answer is not heard (an error ends the pass) leaves its pairings pending, as a
        // pass cut short always has: a later pass takes them up.
        let mut made = Vec::with_capacity(pairings.len());
        let mut chunks = pairings.chunks(PAIR_CHUNK);
        let mut answers = futures_util::stream::FuturesOrdered::new();
        loop {
            while answers.len() < PAIR_CHUNKS_IN_FLIGHT
                && let Some(chunk) = chunks.next()
            {
                answers.push_back(pair_chunk(self.store.as_ref(), chunk, now));
            }
            let Some((chunk, ok)) = answers.next().await else { break };
            let ok = ok?;
            made.extend(chunk.iter().zip(ok).filter(|(_, ok)| *ok).map(|(p, _)| p.clone()));
        }
        service_kit::metrics::add(metrics::PAIRED, made.len() as i64);
        Ok((looked, gone, made))
    }

    /// Finishes a pairing in a task of its own (a pass does not wait for the engines),
    /// a bounded number at once and each once at a time. A pairing just made waits for a
    /// permit (the pass slows down as the engines do); one taken over is left pending if
    /// none is free, or if it is already on its way: a later pass takes it up.
    pub async fn spawn_finish(self: Arc<Self>, p: Pairing, wait: bool) {
        let permit = if wait {
            self.creating.clone().acquire_owned().await.ok()
        } else {
            self.creating.clone().try_acquire_owned().ok()
        };
        let Some(permit) = permit else { return };
        if !self.in_flight.lock().expect("the in-flight lock").insert(p.match_id) {
            return;
        }
        tokio::spawn(async move {
            let _permit = permit;
            if let Err(e) = self.finish(&p).await {
                tracing::warn!(match_id = %p.match_id, error = %e, "pairing not finished yet");
            }
            self.in_flight.lock().expect("the in-flight lock").remove(&p.match_id);
        });
    }

    /// Creates the pairing's match (both seats held by its players) and assigns both
    /// tickets. A match already there is this pairing's (its id is derived from the
    /// tickets). A queue the engine refuses for good unpairs: both tickets wait again.
    ///
    /// # Errors
    /// The engine or the store failed: the pairing stays pending, to be finished later.
    pub async fn finish(&self, p: &Pairing) -> Result<(), Error> {
        let new = engines::NewMatch {
            id: p.match_id,
            game: p.queue.game.clone(),
            options_json: p.queue.options_json.clone(),
            seats: p.players.map(SeatHolder::Player),
            move_time_ms: p.queue.move_time_ms,
            // A lobby match (a queue's pairing or an accepted seek): live-listed.
            listed: true,
        };
        let created = self.engines.create_match(new, tonic::metadata::MetadataMap::new()).await;
        match created {
            // A match already there is this pairing's (its id is derived from the tickets).
            Ok(Created::New { .. } | Created::Exists) => {}
            Err(
                e @ (CallError::Invalid(_)
                | CallError::BadField { .. }
                | CallError::UnknownGame(_)
                | CallError::NoEngineFor(_)),
            ) => {
                tracing::error!(match_id = %p.match_id, error = %e, "the engine refused a queue's match: tickets wait again");
                self.store.unpair(p.match_id, now_ms()).await?;
                return Err(e.into());
            }
            Err(e) => return Err(e.into()),
        }
        let now = now_ms();
        if self.store.assign(p.match_id, now).await? {
            service_kit::metrics::add(metrics::ASSIGNED, 1);
            let waited = now.saturating_sub(p.paired_ms);
            service_kit::metrics::observe(
                metrics::CREATE_SECONDS,
                &[],
                Duration::from_millis(waited).as_secs_f64(),
            );
        }
        Ok(())
    }
}

/// The pairings a pass makes of a queue's live tickets.
pub fn pairings(live: &[Ticket], now_ms: u64) -> Vec<Pairing> {
    let by_id: BTreeMap<TicketId, &Ticket> = live.iter().map(|t| (t.id, t)).collect();
    let candidates: Vec<Candidate<TicketId>> = live
        .iter()
        .map(|t| Candidate {
            id: t.id,
            player: t.player.as_uuid().as_u128(),
            rating: t.rating,
            since_ms: t.created_ms,
        })
        .collect();
    ladder::pairing::pass(&candidates, now_ms)
        .into_iter()
        .map(|(a, b)| pairing_of(by_id[&a], by_id[&b], now_ms))
        .collect()
}

/// Stores one chunk of a pass's pairings: the chunk, and which of them were made.
async fn pair_chunk<'a>(
    store: &'a dyn MatchMakerStore,
    chunk: &'a [Pairing],
    now: u64,
) -> (&'a [Pairing], Result<Vec<bool>, store::StoreError>) {
    (chunk, store.pair(chunk, now).await)
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::{LobbyStore, PlayerId, TicketState};

    /// A pass over more pairings than one chunk (several written at once) makes each, and
    /// pairs every ticket once.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_pass_of_many_chunks_pairs_every_ticket_once() {
        let store = Arc::new(store::MemoryStore::new());
        let engines = Engines::new(&[], None).expect("no engines");
        let matcher = Matcher::new(store.clone(), engines, "test");
        let now = now_ms();
        let queue = Queue {
            game: "gops".into(),
            options_json: "{}".into(),
            move_time_ms: 60_000,
            rated: false,
        };
        // Five chunks' worth and a half, ratings close: all pair in the one pass.
        let n = PAIR_CHUNK * 2 * 5 + PAIR_CHUNK;
        for i in 0..n {
            let ticket = Ticket {
                id: TicketId::random(),
                player: PlayerId::random(),
                queue: queue.clone(),
                seek: false,
                rating: 1500.0 + (i % 7) as f64,
                idempotency_key: format!("k{i}"),
                created_ms: now,
                expires_ms: now + 600_000,
                state: TicketState::Waiting,
                changed_ms: now,
                display_name: format!("p{i}"),
            };
            store.create_ticket(&ticket).await.expect("a ticket");
        }
        let (looked, _, made) = matcher.pass_queue(&queue, now + 1).await.expect("a pass");
        assert_eq!(looked, n);
        assert_eq!(made.len(), n / 2, "every ticket paired");
        let mut seen = BTreeSet::new();
        for p in &made {
            for t in p.tickets {
                assert!(seen.insert(t), "ticket {t} in two pairings");
                let state = store.ticket(t).await.expect("read").expect("the ticket").state;
                assert!(matches!(state, TicketState::Pairing { .. }), "{state:?}");
            }
        }
        assert!(store.waiting(&queue).await.expect("read").is_empty());
    }
}
