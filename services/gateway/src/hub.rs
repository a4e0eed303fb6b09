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
//!
//! Seat presence. The hub counts this gateway's open watches of each seat by its player
//! ([`Hub::hold`]): the first takes a presence lease in the store, renewed every
//! [`PRESENCE_RENEW`] by one task for every seat held; a second after the last one closes
//! (its [`SeatHold`] dropped, however the stream ended) the lease is given up. A gateway
//! that dies leaves leases that lapse after [`PRESENCE_TTL`]. For its watched matches that
//! a watcher wants the presence of ([`Hub::want_presence`]) the hub follows the store's
//! presence feed and reads a match's presence again on a note (and on every sweep, which
//! catches a lapsed lease nobody announced), and hands the watchers [`Note::Presence`]
//! when it changed. Nothing of it is on the path of a move, and a match nobody here wants
//! the presence of costs no read.

use rules_core::Seat;
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use store::{Entry, MatchId, Presence, PresenceStore};
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
/// How long a presence lease lasts unless renewed: a dead gateway's seats are seen to
/// leave this long after its last renewal, and at most [`PRESENCE_RENEW`] and a [`SWEEP`]
/// more (the hub reads the presence of a match that long after its last read).
pub const PRESENCE_TTL: Duration = Duration::from_secs(30);
/// How often every presence lease this gateway holds is renewed.
pub const PRESENCE_RENEW: Duration = Duration::from_secs(10);
/// How long a seat stays held after its last watch here closed: a client that reconnects
/// at once (through any gateway) is not seen to leave.
pub const PRESENCE_LINGER: Duration = Duration::from_secs(1);

/// What the hub hands a match's watchers.
#[derive(Clone, Debug)]
pub enum Note {
    /// The next entry of the match's stream.
    Entry(Arc<Entry>),
    /// The stream no longer holds what was delivered (the store lost writes): what was
    /// delivered is void, and the match's entries follow again from version 0.
    Rewound,
    /// The seats' presence as the hub read it last, when it changed.
    Presence(SeatPresence),
}

/// The seats' presence as this hub knows it, numbered by the hub in the order it learned
/// them (so a watcher that took one from [`Hub::presence`] skips the notes before it).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SeatPresence {
    /// The hub's count of the match's presence changes.
    pub seq: u64,
    /// Each seat's presence.
    pub connected: Presence,
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
    /// The seats' presence as last read (`None` until the first read since a watcher
    /// wanted it).
    presence: Option<Presence>,
    /// The hub's count of the presences it handed this match's watchers.
    presence_seq: u64,
    /// Watchers that want the presence ([`PresenceWanted`]s alive).
    presence_wanted: usize,
    /// A read of the match's presence is under way.
    presence_reading: bool,
    /// A presence note came during that read: read once more when it ends.
    presence_again: bool,
    /// When the match's presence was last read, in Unix ms.
    presence_read_at_ms: u64,
}

/// This gateway's watches of one seat by its player, and its lease on the seat.
#[derive(Default)]
struct Held {
    /// Open watches ([`SeatHold`]s alive).
    count: usize,
    /// The lease may be held (taken, or a take that failed may have been applied).
    marked: bool,
    /// A task is bringing the lease in line with `count` (at most one per seat).
    busy: bool,
    /// The lease is due for renewal.
    renew: bool,
}

/// The fan-out hub.
pub struct Hub {
    store: Arc<dyn PresenceStore>,
    watched: Mutex<BTreeMap<MatchId, Watched>>,
    /// The seats this gateway's watches hold, by (match, seat).
    held: Mutex<BTreeMap<(MatchId, Seat), Held>>,
    /// This hub's name on its presence leases (unique per process).
    holder: String,
    /// Set when `run` stops: every watcher's channel is closed, new ones start closed, so
    /// watch streams end and the server's graceful shutdown can finish.
    closed: std::sync::atomic::AtomicBool,
}

impl Hub {
    /// A hub over `store`; call `run` to start listening.
    pub fn new(store: Arc<dyn PresenceStore>) -> Arc<Self> {
        let holder = format!("gw-{}", hex::encode(&service_kit::time::os_random_32()[..8]));
        Arc::new(Hub {
            store,
            watched: Mutex::new(BTreeMap::new()),
            held: Mutex::new(BTreeMap::new()),
            holder,
            closed: Default::default(),
        })
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
                    presence: None,
                    presence_seq: 0,
                    presence_wanted: 0,
                    presence_reading: false,
                    presence_again: false,
                    presence_read_at_ms: read_at_ms,
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

    /// Has the hub follow the presence of `id` (subscribed to first) while the answer
    /// lives: read now if nobody wanted it, then again at each change.
    pub fn want_presence(self: &Arc<Self>, id: MatchId) -> PresenceWanted {
        let first = {
            let mut w = self.watched.lock().expect("the hub lock");
            w.get_mut(&id).is_some_and(|x| {
                x.presence_wanted += 1;
                x.presence_wanted == 1
            })
        };
        if first {
            self.poke_presence(id);
        }
        PresenceWanted { hub: self.clone(), id }
    }

    /// The seats' presence of `id` as last read, if the hub follows it and has read it
    /// since a watcher wanted it.
    pub fn presence(&self, id: MatchId) -> Option<SeatPresence> {
        let w = self.watched.lock().expect("the hub lock");
        let x = w.get(&id)?;
        x.presence.map(|connected| SeatPresence { seq: x.presence_seq, connected })
    }

    /// Counts a watch of `seat` of `id` by its player until the answer is dropped: the
    /// seat is held (its presence lease taken) while any such watch is.
    pub fn hold(self: &Arc<Self>, id: MatchId, seat: Seat) -> SeatHold {
        let key = (id, seat);
        let start = {
            let mut held = self.held.lock().expect("the held lock");
            let h = held.entry(key).or_default();
            h.count += 1;
            let start = !std::mem::replace(&mut h.busy, true);
            service_kit::metrics::set(crate::metrics::PRESENCE_SEATS, held.len() as i64);
            start
        };
        if start {
            tokio::spawn(self.clone().settle(key));
        }
        SeatHold { hub: self.clone(), key }
    }

    /// One watch of `key` closed.
    fn release(self: &Arc<Self>, key: (MatchId, Seat)) {
        let start = {
            let mut held = self.held.lock().expect("the held lock");
            let Some(h) = held.get_mut(&key) else { return };
            h.count = h.count.saturating_sub(1);
            h.count == 0 && !std::mem::replace(&mut h.busy, true)
        };
        // Without a runtime (the process is ending) the lease lapses by itself.
        if start && let Ok(rt) = tokio::runtime::Handle::try_current() {
            rt.spawn(self.clone().settle(key));
        } else if start {
            self.held.lock().expect("the held lock").remove(&key);
        }
    }

    /// Brings the lease on `key` in line with its watches (the one task doing so for
    /// `key`, until it is): taken or renewed while one is open, given up
    /// [`PRESENCE_LINGER`] after the last closed. A failure is logged and left: a lease
    /// not taken is taken at the next renewal, one not given up lapses.
    async fn settle(self: Arc<Self>, key: (MatchId, Seat)) {
        /// What the lease needs next.
        enum Step {
            Mark,
            Linger,
            Unmark,
        }
        let (id, seat) = key;
        let mut lingered = false;
        loop {
            let step = {
                let mut held = self.held.lock().expect("the held lock");
                let Some(h) = held.get_mut(&key) else { return };
                // A stopped hub takes no lease: its watches are ending.
                let want = h.count > 0 && !self.closed.load(std::sync::atomic::Ordering::SeqCst);
                if want {
                    lingered = false;
                }
                if want && (!h.marked || h.renew) {
                    h.renew = false;
                    Step::Mark
                } else if !want && h.marked {
                    if lingered { Step::Unmark } else { Step::Linger }
                } else {
                    h.busy = false;
                    if h.count == 0 {
                        held.remove(&key);
                    }
                    service_kit::metrics::set(crate::metrics::PRESENCE_SEATS, held.len() as i64);
                    return;
                }
            };
            let mark = match step {
                Step::Linger => {
                    // A watch opened again meanwhile keeps the lease.
                    lingered = true;
                    tokio::time::sleep(PRESENCE_LINGER).await;
                    continue;
                }
                Step::Mark => true,
                Step::Unmark => false,
            };
            let now = service_kit::time::now_ms();
            let (op, answer) = if mark {
                let ttl = PRESENCE_TTL.as_millis() as u64;
                ("mark", self.store.mark_present(id, seat, &self.holder, now, ttl).await)
            } else {
                ("unmark", self.store.unmark_present(id, seat, &self.holder, now).await)
            };
            if let Some(h) = self.held.lock().expect("the held lock").get_mut(&key) {
                // A take that failed may have been applied: given up all the same.
                h.marked = mark;
            }
            match answer {
                Ok(change) if change.changed => {
                    let to = if change.connected { "connected" } else { "left" };
                    service_kit::metrics::add_with(
                        crate::metrics::PRESENCE_CHANGES,
                        &[("to", to)],
                        1,
                    );
                    self.poke_presence(id);
                }
                Ok(_) => {}
                Err(e) => {
                    service_kit::metrics::add_with(
                        crate::metrics::PRESENCE_FAILURES,
                        &[("op", op)],
                        1,
                    );
                    tracing::warn!(match_id = %id, seat = seat.index(), op, error = %e, "a presence lease call failed; left to the next renewal or to lapse");
                }
            }
        }
    }

    /// Renews every lease held, every [`PRESENCE_RENEW`].
    async fn renew(self: Arc<Self>) {
        let mut tick = tokio::time::interval(PRESENCE_RENEW);
        tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        tick.tick().await;
        loop {
            tick.tick().await;
            let start: Vec<(MatchId, Seat)> = {
                let mut held = self.held.lock().expect("the held lock");
                held.iter_mut()
                    .filter(|(_, h)| h.count > 0)
                    .filter_map(|(key, h)| {
                        h.renew = true;
                        (!std::mem::replace(&mut h.busy, true)).then_some(*key)
                    })
                    .collect()
            };
            for key in start {
                tokio::spawn(self.clone().settle(key));
            }
        }
    }

    /// Listens until `shutdown`, then closes every watcher's channel.
    pub async fn run(self: Arc<Self>, shutdown: CancellationToken) {
        tokio::select! {
            _ = shutdown.cancelled() => {}
            _ = self.clone().listen() => {}
            _ = self.clone().follow_presence() => {}
            _ = self.clone().renew() => {}
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

    /// Follows the presence feed: each note has its match's presence read again (a
    /// subscription made again reads every watched match's: notes were lost meanwhile).
    async fn follow_presence(self: Arc<Self>) {
        loop {
            let mut feed = match self.store.presence_feed().await {
                Ok(f) => f,
                Err(e) => {
                    service_kit::metrics::add("colosseum_gateway_feed_failures_total", 1);
                    tracing::warn!(error = %e, "cannot subscribe to the presence feed; retrying");
                    tokio::time::sleep(RETRY).await;
                    continue;
                }
            };
            let ids: Vec<MatchId> =
                self.watched.lock().expect("the hub lock").keys().copied().collect();
            for id in ids {
                self.poke_presence(id);
            }
            while let Some(note) = feed.next().await {
                self.poke_presence(note.id);
            }
            service_kit::metrics::add("colosseum_gateway_feed_failures_total", 1);
            tracing::warn!("the presence feed ended; subscribing again");
        }
    }

    /// Reads every watched match not read for `quiet_ms` (`u64::MAX`: every one), and the
    /// presence of every one whose presence was not read for as long, and at least
    /// [`PRESENCE_RENEW`] (a lease that lapsed is announced by nobody).
    fn sweep(self: &Arc<Self>, quiet_ms: u64) {
        let now = service_kit::time::now_ms();
        let quiet = |at: u64, ms: u64| ms == u64::MAX || now.saturating_sub(at) >= ms;
        let presence_ms = quiet_ms.max(PRESENCE_RENEW.as_millis() as u64);
        let (ids, presences): (Vec<MatchId>, Vec<MatchId>) = {
            let mut w = self.watched.lock().expect("the hub lock");
            // Matches nobody watches any more drop out.
            w.retain(|_, x| x.tx.receiver_count() > 0);
            service_kit::metrics::set("colosseum_gateway_watched_matches", w.len() as i64);
            let ids = w
                .iter()
                .filter(|(_, x)| quiet(x.read_at_ms, quiet_ms))
                .map(|(id, _)| *id)
                .collect();
            let presences = w
                .iter()
                .filter(|(_, x)| x.presence_wanted > 0)
                .filter(|(_, x)| quiet(x.presence_read_at_ms, presence_ms))
                .map(|(id, _)| *id)
                .collect();
            (ids, presences)
        };
        for id in ids {
            self.poke(id, None);
        }
        for id in presences {
            self.poke_presence(id);
        }
    }

    /// `id`'s presence may have changed: read it (if a watcher wants it), unless a read is
    /// under way, which then reads once more.
    fn poke_presence(self: &Arc<Self>, id: MatchId) {
        {
            let mut w = self.watched.lock().expect("the hub lock");
            let Some(x) = w.get_mut(&id).filter(|x| x.presence_wanted > 0) else { return };
            if x.presence_reading {
                x.presence_again = true;
                return;
            }
            x.presence_reading = true;
        }
        tokio::spawn(self.clone().read_presence(id));
    }

    /// Reads `id`'s presence (again while notes come during a read) and hands the
    /// watchers a change.
    async fn read_presence(self: Arc<Self>, id: MatchId) {
        loop {
            let read = self.store.presence(id, service_kit::time::now_ms()).await;
            let mut w = self.watched.lock().expect("the hub lock");
            let Some(x) = w.get_mut(&id) else { return };
            x.presence_read_at_ms = service_kit::time::now_ms();
            match read {
                Ok(connected) if x.presence_wanted > 0 && x.presence != Some(connected) => {
                    x.presence_seq += 1;
                    x.presence = Some(connected);
                    let p = SeatPresence { seq: x.presence_seq, connected };
                    let _ = x.tx.send(Note::Presence(p));
                }
                Ok(_) => {}
                Err(e) => {
                    // The next note or sweep reads it again.
                    tracing::warn!(match_id = %id, error = %e, "presence read failed");
                }
            }
            if x.tx.receiver_count() == 0 || x.presence_wanted == 0 {
                x.presence_reading = false;
                return;
            }
            if std::mem::take(&mut x.presence_again) {
                continue;
            }
            x.presence_reading = false;
            return;
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

/// A watcher's wish for a match's presence ([`Hub::want_presence`]): the hub follows it
/// while any lives.
pub struct PresenceWanted {
    hub: Arc<Hub>,
    id: MatchId,
}

impl Drop for PresenceWanted {
    fn drop(&mut self) {
        let mut w = self.hub.watched.lock().expect("the hub lock");
        if let Some(x) = w.get_mut(&self.id) {
            x.presence_wanted = x.presence_wanted.saturating_sub(1);
            if x.presence_wanted == 0 {
                // What is read next is fresh: nobody kept it up to date meanwhile.
                x.presence = None;
            }
        }
    }
}

/// One watch of a seat by its player, counted by the hub while it lives ([`Hub::hold`]):
/// dropping it (the watch stream ended or was dropped, however) releases the seat.
pub struct SeatHold {
    hub: Arc<Hub>,
    key: (MatchId, Seat),
}

impl Drop for SeatHold {
    fn drop(&mut self) {
        self.hub.release(self.key);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::{MemoryStore, PresenceFeed};

    /// Waits (at most three seconds) until `store` says `want` of `id`.
    async fn until(store: &MemoryStore, id: MatchId, want: Presence) {
        for _ in 0..300 {
            if store.presence(id, service_kit::time::now_ms()).await == Ok(want) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("the presence never became {want:?}");
    }

    /// Whether `feed` stays quiet for longer than a seat lingers.
    async fn quiet(feed: &mut PresenceFeed) -> bool {
        tokio::time::timeout(PRESENCE_LINGER * 2, feed.next()).await.is_err()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_seat_is_held_while_a_watch_of_it_is_and_given_up_a_moment_after_the_last() {
        let store = Arc::new(MemoryStore::new());
        let hub = Hub::new(store.clone());
        let id = MatchId::random();
        let mut notes = hub.subscribe(id, 0);
        let wanted = hub.want_presence(id);
        let (first, second) = (hub.hold(id, Seat::ONE), hub.hold(id, Seat::ONE));
        until(&store, id, [false, true]).await;
        // The watchers hear of it; the hub keeps it for watchers that come later.
        let heard = loop {
            match tokio::time::timeout(Duration::from_secs(3), notes.recv()).await {
                Ok(Ok(Note::Presence(p))) if p.connected == [false, true] => break p,
                Ok(Ok(_)) => {}
                other => panic!("no presence note: {other:?}"),
            }
        };
        assert_eq!(hub.presence(id), Some(heard));
        // Nobody wants it any more: the hub forgets it.
        drop(wanted);
        assert_eq!(hub.presence(id), None);
        let mut feed = store.presence_feed().await.expect("subscribe");
        // One of two watches closed: still held, nothing announced.
        drop(first);
        assert!(quiet(&mut feed).await);
        // A watch opened again within the linger keeps the seat: nothing announced.
        drop(second);
        let third = hub.hold(id, Seat::ONE);
        assert!(quiet(&mut feed).await);
        // The last closed: given up a moment later.
        drop(third);
        let left = tokio::time::timeout(Duration::from_secs(3), feed.next()).await;
        let note = left.expect("announced in time").expect("the feed goes on");
        assert_eq!((note.id, note.seat, note.connected), (id, Seat::ONE, false));
        until(&store, id, [false, false]).await;
        for _ in 0..100 {
            if hub.held.lock().expect("the held lock").is_empty() {
                return;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        panic!("a seat is left held");
    }
}
