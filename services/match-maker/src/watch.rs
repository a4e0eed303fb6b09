//! WatchTickets: each player's tickets pushed as they change. One subscription to the
//! store's ticket feed per process wakes the watchers of the players it names (a map
//! from player to watchers, so a change wakes only its own); a watcher then re-reads its
//! player's tickets and sends those that changed. The feed is at most once, so a lost
//! subscription wakes every watcher, and each re-reads every [`RESYNC_EVERY`] anyway.

use crate::queues::ticket_proto;
use api::v1;
use service_kit::time::now_ms;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{LobbyStore, PlayerId, TicketId, TicketState};
use tokio::sync::{Notify, mpsc};
use tokio_stream::StreamExt;
use tokio_util::sync::CancellationToken;

/// A watcher re-reads this often even without a note.
pub const RESYNC_EVERY: Duration = Duration::from_secs(15);
/// Ended tickets younger than this are sent when a watch starts.
pub const RECENT_MS: u64 = 10 * 60_000;

type Watchers = BTreeMap<PlayerId, Vec<(u64, Arc<Notify>)>>;

/// The fan-out of the ticket feed to the watchers in this process.
#[derive(Clone)]
pub struct TicketHub {
    store: Arc<dyn LobbyStore>,
    watchers: Arc<Mutex<Watchers>>,
    next: Arc<std::sync::atomic::AtomicU64>,
}

/// A watcher's registration: removed when dropped (the stream ended or was dropped).
struct Registration {
    hub: TicketHub,
    player: PlayerId,
    id: u64,
}

impl Drop for Registration {
    fn drop(&mut self) {
        let mut w = self.hub.watchers.lock().expect("the watchers lock");
        if let Some(list) = w.get_mut(&self.player) {
            list.retain(|(id, _)| *id != self.id);
            if list.is_empty() {
                w.remove(&self.player);
            }
        }
    }
}

impl TicketHub {
    /// A hub over `store`; [`TicketHub::run`] follows the feed.
    pub fn new(store: Arc<dyn LobbyStore>) -> TicketHub {
        TicketHub { store, watchers: Arc::default(), next: Arc::default() }
    }

    fn wake_all(&self) {
        for list in self.watchers.lock().expect("the watchers lock").values() {
            for (_, n) in list {
                n.notify_one();
            }
        }
    }

    /// Follows the ticket feed until `shutdown`, subscribing again whenever it is lost.
    pub async fn run(self, shutdown: CancellationToken) {
        loop {
            let feed = tokio::select! {
                _ = shutdown.cancelled() => return,
                f = self.store.ticket_feed() => f,
            };
            let mut feed = match feed {
                Ok(f) => f,
                Err(e) => {
                    tracing::warn!(error = %e, "ticket feed: no subscription; retrying");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    continue;
                }
            };
            // Whatever changed while there was no subscription: everyone looks again.
            self.wake_all();
            loop {
                let player = tokio::select! {
                    _ = shutdown.cancelled() => return,
                    p = feed.next() => p,
                };
                let Some(player) = player else { break };
                if let Some(list) = self.watchers.lock().expect("the watchers lock").get(&player) {
                    for (_, n) in list {
                        n.notify_one();
                    }
                }
            }
            tracing::warn!("ticket feed lost; subscribing again");
        }
    }

    /// The stream of `player`'s tickets: the live ones and those ended lately, then each
    /// change. Ends with an error status if the store cannot be read.
    pub fn watch(
        &self,
        player: PlayerId,
    ) -> mpsc::Receiver<Result<v1::WatchTicketsResponse, tonic::Status>> {
        let (tx, rx) = mpsc::channel(16);
        let notify = Arc::new(Notify::new());
        let id = self.next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        self.watchers
            .lock()
            .expect("the watchers lock")
            .entry(player)
            .or_default()
            .push((id, notify.clone()));
        let registration = Registration { hub: self.clone(), player, id };
        let store = self.store.clone();
        tokio::spawn(async move {
            let _registration = registration;
            let _open = service_kit::metrics::Open::new(crate::metrics::WATCHES);
            let mut sent: BTreeMap<TicketId, (TicketState, u64)> = BTreeMap::new();
            let mut first = true;
            loop {
                let tickets = match store.tickets_of(player).await {
                    Ok(t) => t,
                    Err(e) => {
                        let _ = tx.send(Err(crate::error::Error::from(e).into())).await;
                        return;
                    }
                };
                let now = now_ms();
                // Oldest first, so a client sees tickets in the order they were made.
                for t in tickets.iter().rev() {
                    let seen = (t.state, t.changed_ms);
                    if sent.get(&t.id) == Some(&seen) {
                        continue;
                    }
                    if first && !t.state.is_live() && now.saturating_sub(t.changed_ms) > RECENT_MS {
                        continue;
                    }
                    sent.insert(t.id, seen);
                    let msg = v1::WatchTicketsResponse { ticket: Some(ticket_proto(t, now)) };
                    if tx.send(Ok(msg)).await.is_err() {
                        return;
                    }
                }
                first = false;
                tokio::select! {
                    _ = tx.closed() => return,
                    _ = notify.notified() => {}
                    _ = tokio::time::sleep(RESYNC_EVERY) => {}
                }
            }
        });
        rx
    }
}
