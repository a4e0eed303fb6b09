//! One multiplexed reader per gateway: a single task tails every watched match's stream
//! with one blocking read and fans entries out to that match's watchers, so a thousand
//! watchers cost one Redis connection, not a thousand.

use events::{Entry, EventStore, MatchId};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use tokio::sync::{Notify, broadcast};
use tokio_util::sync::CancellationToken;

/// How long one blocking read waits before the set of watched matches is refreshed (a
/// new match interrupts it at once).
const BLOCK_MS: u64 = 1_000;

struct Watched {
    /// The last version delivered from this match's stream.
    position: u64,
    tx: broadcast::Sender<Arc<Entry>>,
}

/// The fan-out hub.
pub struct Hub {
    store: Arc<dyn EventStore>,
    watched: Mutex<BTreeMap<MatchId, Watched>>,
    changed: Notify,
    /// Set when `run` stops: every watcher's channel is closed, new ones start closed, so
    /// watch streams end and the server's graceful shutdown can finish.
    closed: std::sync::atomic::AtomicBool,
}

impl Hub {
    /// A hub over `store`; call `run` to start reading.
    pub fn new(store: Arc<dyn EventStore>) -> Arc<Self> {
        Arc::new(Hub {
            store,
            watched: Mutex::new(BTreeMap::new()),
            changed: Notify::new(),
            closed: Default::default(),
        })
    }

    /// Subscribes to `id`'s entries after `position` (the caller backfills up to it).
    pub fn subscribe(&self, id: MatchId, position: u64) -> broadcast::Receiver<Arc<Entry>> {
        let mut w = self.watched.lock().expect("the hub lock");
        if self.closed.load(std::sync::atomic::Ordering::SeqCst) {
            return broadcast::channel(1).1;
        }
        match w.get(&id) {
            Some(x) => x.tx.subscribe(),
            None => {
                let (tx, rx) = broadcast::channel(1024);
                w.insert(id, Watched { position, tx });
                self.changed.notify_one();
                rx
            }
        }
    }

    /// Matches watched now.
    pub fn watched(&self) -> usize {
        self.watched.lock().expect("the hub lock").len()
    }

    /// Reads until `shutdown`, then closes every watcher's channel.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        self.read(&shutdown).await;
        let mut w = self.watched.lock().expect("the hub lock");
        self.closed.store(true, std::sync::atomic::Ordering::SeqCst);
        w.clear();
    }

    async fn read(&self, shutdown: &CancellationToken) {
        loop {
            let positions: Vec<(MatchId, u64)> = {
                let mut w = self.watched.lock().expect("the hub lock");
                // Matches nobody watches any more drop out.
                w.retain(|_, x| x.tx.receiver_count() > 0);
                // `tail` reads from a version on, inclusive: the one after the last delivered.
                w.iter().map(|(id, x)| (*id, x.position + 1)).collect()
            };
            if positions.is_empty() {
                tokio::select! {
                    _ = shutdown.cancelled() => return,
                    _ = self.changed.notified() => continue,
                }
            }
            let read = tokio::select! {
                _ = shutdown.cancelled() => return,
                // A new match to watch: restart the read with it included, so its first
                // events are not held back until the current read returns. A short pause
                // lets a burst of new watchers share one restart.
                _ = self.changed.notified() => {
                    tokio::time::sleep(std::time::Duration::from_millis(2)).await;
                    continue;
                }
                r = self.store.tail(&positions, BLOCK_MS) => r,
            };
            match read {
                Ok(entries) => {
                    let w = &mut *self.watched.lock().expect("the hub lock");
                    for (id, entry) in entries {
                        if let Some(x) = w.get_mut(&id)
                            && entry.version > x.position
                        {
                            x.position = entry.version;
                            let _ = x.tx.send(Arc::new(entry));
                        }
                    }
                }
                Err(e) => {
                    tracing::warn!(error = %e, "hub read failed; retrying");
                    tokio::time::sleep(std::time::Duration::from_millis(200)).await;
                }
            }
        }
    }
}
