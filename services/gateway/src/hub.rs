//! One fan-out hub per gateway: it listens to the store's append feed (one subscription
//! for every match) and, when a watched match moves, reads that match's new entries once
//! and hands them to all its watchers. A thousand watchers cost one subscription and one
//! read per step, and every read names one match, so it works on Redis Cluster.
//!
//! The feed is at most once; the stream is the truth. A note only says "read me": a lost
//! one is made good by the catch-up after every resubscription and by a slow sweep.
//!
//! A note for a version already delivered, and every sweep, reads from the last version
//! delivered and checks its tag: if the store lost its last writes (and reissues those
//! versions), the watchers are told ([`Note::Rewound`]) and the match is delivered again
//! from its start. (A reissued version always announces itself before any later one, so
//! ordinary notes need not check.)

use events::{Entry, EventStore, MatchId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::broadcast;
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;

/// A watched match that has had no note for this long is read anyway, in case one was
/// lost. Only quiet matches are swept, so the sweep costs nothing while matches move.
const SWEEP: Duration = Duration::from_secs(5);
/// Entries read at once when catching up.
const READ_BATCH: usize = 256;
/// The pause before retrying a failed read or subscription.
const RETRY: Duration = Duration::from_millis(200);

/// What the hub hands a match's watchers.
#[derive(Clone, Debug)]
pub enum Note {
    /// The next entry of the match's stream.
    Entry(Arc<Entry>),
    /// The stream no longer holds what was delivered (the store lost writes): what was
    /// delivered is void, and the match's entries follow again from version 0.
    Rewound,
}

struct Watched {
    /// The last version delivered from this match's stream.
    position: u64,
    /// The tag of the entry at `position`, once read (`None`: whatever is stored there).
    tag: Option<u64>,
    tx: broadcast::Sender<Note>,
    /// A read of this match is under way.
    reading: bool,
    /// A note came during that read: read once more when it ends.
    again: bool,
    /// The next read starts at `position` to check it is still the version delivered.
    verify: bool,
    /// When this match was last read, in Unix ms.
    read_at_ms: u64,
}

/// The fan-out hub.
pub struct Hub {
    store: Arc<dyn EventStore>,
    watched: Mutex<BTreeMap<MatchId, Watched>>,
    /// Set when `run` stops: every watcher's channel is closed, new ones start closed, so
    /// watch streams end and the server's graceful shutdown can finish.
    closed: std::sync::atomic::AtomicBool,
}

impl Hub {
    /// A hub over `store`; call `run` to start listening.
    pub fn new(store: Arc<dyn EventStore>) -> Arc<Self> {
        Arc::new(Hub { store, watched: Mutex::new(BTreeMap::new()), closed: Default::default() })
    }

    /// Subscribes to `id`'s entries after `position` (the caller backfills up to it).
    pub fn subscribe(self: &Arc<Self>, id: MatchId, position: u64) -> broadcast::Receiver<Note> {
        let rx = {
            let mut w = self.watched.lock().expect("the hub lock");
            if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
                return broadcast::channel(1).1;
            }
            if let Some(x) = w.get(&id) {
                return x.tx.subscribe();
            }
            let (tx, rx) = broadcast::channel(256);
            let read_at_ms = service_kit::time::now_ms();
            w.insert(
                id,
                Watched {
                    position,
                    tag: None,
                    tx,
                    reading: false,
                    again: false,
                    verify: true,
                    read_at_ms,
                },
            );
            service_kit::metrics::set("colosseum_gateway_watched_matches", w.len() as i64);
            rx
        };
        // Entries appended between the caller's backfill and now sent their notes to
        // nobody: read once to pick them up.
        self.poke(id, None);
        rx
    }

    /// Listens until `shutdown`, then closes every watcher's channel.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = self.clone().listen() => {}
        }
        let mut w = self.watched.lock().expect("the hub lock");
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        w.clear();
    }

    async fn listen(self: Arc<Self>) {
        let mut sweep = tokio::time::interval(SWEEP);
        sweep.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            let mut feed = match self.store.append_feed().await {
                Ok(f) => f,
                Err(e) => {
                    service_kit::metrics::add("colosseum_gateway_feed_failures_total", 1);
                    tracing::warn!(error = %e, "cannot subscribe to the append feed; retrying");
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
            };
            // Whatever was appended while unsubscribed is read now.
            self.sweep(u64::MAX);
            loop {
                tokio::select! {
                    note = feed.next() => match note {
                        Some((id, version)) => self.poke(id, Some(version)),
                        None => {
                            service_kit::metrics::add("colosseum_gateway_feed_failures_total", 1);
                            tracing::warn!("the append feed ended; subscribing again");
                            break;
                        }
                    },
                    _ = sweep.tick() => self.sweep(SWEEP.as_millis() as u64),
                }
            }
        }
    }

    /// Reads every watched match not read for `quiet_ms` (`u64::MAX`: every one).
    fn sweep(self: &Arc<Self>, quiet_ms: u64) {
        let now = service_kit::time::now_ms();
        let ids: Vec<MatchId> = {
            let mut w = self.watched.lock().expect("the hub lock");
            // Matches nobody watches any more drop out.
            w.retain(|_, x| x.tx.receiver_count() > 0);
            service_kit::metrics::set("colosseum_gateway_watched_matches", w.len() as i64);
            w.iter()
                .filter(|(_, x)| {
                    quiet_ms == u64::MAX || now.saturating_sub(x.read_at_ms) >= quiet_ms
                })
                .map(|(id, _)| *id)
                .collect()
        };
        for id in ids {
            self.poke(id, None);
        }
    }

    /// `id` reached `version` (or may have moved, when `None`): read what is new, unless a
    /// read is under way, which then reads once more. A note for a version already
    /// delivered, or none, has the read check the last version delivered: after a loss of
    /// writes, the note is for a reissued version.
    fn poke(self: &Arc<Self>, id: MatchId, version: Option<u64>) {
        {
            let mut w = self.watched.lock().expect("the hub lock");
            let Some(x) = w.get_mut(&id) else { return };
            x.verify |= version.is_none_or(|v| v <= x.position);
            if x.reading {
                x.again = true;
                return;
            }
            x.reading = true;
        }
        tokio::spawn(self.clone().read(id));
    }

    async fn read(self: Arc<Self>, id: MatchId) {
        loop {
            let (from, verify) = match self.watched.lock().expect("the hub lock").get_mut(&id) {
                Some(x) => {
                    let verify = std::mem::take(&mut x.verify) || x.tag.is_none();
                    // Checking: from the last version delivered, to see it is unchanged.
                    (if verify { x.position } else { x.position + 1 }, verify)
                }
                None => return,
            };
            service_kit::metrics::add("colosseum_gateway_hub_reads_total", 1);
            let entries = match self.store.read(id, from, READ_BATCH).await {
                Ok(e) => e,
                Err(e) => {
                    tracing::warn!(match_id = %id, error = %e, "hub read failed; retrying");
                    tokio::time::sleep(RETRY).await;
                    // Nobody left to read for: stop retrying.
                    let mut w = self.watched.lock().expect("the hub lock");
                    if w.get(&id).is_some_and(|x| x.tx.receiver_count() == 0) {
                        w.remove(&id);
                        return;
                    }
                    continue;
                }
            };
            let full = entries.len() == READ_BATCH;
            let mut w = self.watched.lock().expect("the hub lock");
            let Some(x) = w.get_mut(&id) else { return };
            x.read_at_ms = service_kit::time::now_ms();
            let held = !verify
                || entries.first().is_some_and(|e| {
                    e.version == x.position && x.tag.is_none_or(|tag| tag == e.tag)
                });
            if !verify && entries.first().is_some_and(|e| e.version != x.position + 1) {
                // Not the next version: something is off; check on the next round.
                x.verify = true;
                continue;
            }
            if !held && x.position > 0 {
                service_kit::metrics::add("colosseum_gateway_rewound_total", 1);
                tracing::warn!(match_id = %id, version = x.position, "the stream no longer holds the version delivered; watchers resynchronize");
                let _ = x.tx.send(Note::Rewound);
                x.position = 0;
                x.tag = None;
                continue;
            }
            for entry in entries {
                if entry.version == x.position && x.tag.is_none() {
                    x.tag = Some(entry.tag);
                } else if entry.version == x.position + 1 {
                    x.position = entry.version;
                    x.tag = Some(entry.tag);
                    let _ = x.tx.send(Note::Entry(Arc::new(entry)));
                }
            }
            if x.tx.receiver_count() == 0 {
                w.remove(&id);
                return;
            }
            if full || x.again {
                x.again = false;
                continue;
            }
            x.reading = false;
            return;
        }
    }
}
