//! One WatchMatch stream: the match's stored entries, then the hub's live ones, each
//! turned into the messages its viewer may receive (its events, then its own view when
//! asked for). The stream is polled by the server's connection directly: no task or
//! channel per watcher.
//!
//! Versions and indexes are the viewer's own: a viewer counts only the entries it can see,
//! and numbers only the messages it receives, so nothing it is sent (numbering, counts,
//! gaps) depends on a step or event it may not know of. That numbering is a function of
//! the whole stream, so every stream reads from the creation on and skips what the
//! client already has. A resumed stream checks that the match still holds the client's
//! last version (with its tag); if the store lost writes, the client gets a `resync` and
//! the match from its start, as a live stream does when the hub finds the stream rewound.
//!
//! A stream of a seated player holds the seat while it lives ([`crate::hub::SeatHold`]);
//! one that asked for presence sends the seats' presence as the hub knows it once caught
//! up, then each change, at the position of the last message the client has (presence is
//! no position in the match).

use crate::encoded::{Head, View, WatchMessage};
use crate::error::Error;
use crate::hub::{Hub, Note, PresenceWanted, SeatHold, SeatPresence};
use api::v1;
use prost::bytes::Bytes;
use rules_core::{Audience, Seat, Viewer};
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use store::{Entry, EventStore, MatchId, Presence, ViewerVersions};
use tokio::sync::broadcast::{self, error::RecvError};
use tokio_stream::Stream;
use tonic::Status;

/// Entries read at once while backfilling.
const BACKFILL_BATCH: usize = 256;

/// A watch stream as the server sends it: each message written around the event or view
/// bytes the engine stored (see [`crate::encoded`]).
pub type WatchStream = Pin<Box<dyn Stream<Item = Result<WatchMessage, Status>> + Send>>;

/// How far a client has gone, in its own numbering: every message up to `version` (up to
/// `index` within it, when set) is delivered.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cursor {
    version: u64,
    index: Option<u32>,
}

impl Cursor {
    /// Where a client resuming after `after_version` (and `after_index` inside it) stands;
    /// `None` from the start (version 0, the match's creation, carries the opening events).
    pub fn resume(after_version: u64, after_index: Option<u32>) -> Option<Cursor> {
        (after_version > 0 || after_index.is_some())
            .then_some(Cursor { version: after_version, index: after_index })
    }

    /// Whether the message `index` of `version` is past this cursor.
    fn before(cursor: Option<Cursor>, version: u64, index: u32) -> bool {
        match cursor {
            None => true,
            Some(c) if version != c.version => version > c.version,
            Some(Cursor { index: None, .. }) => false,
            Some(Cursor { index: Some(i), .. }) => index > i,
        }
    }

    /// What a client cut off now should ask for to resume exactly here.
    fn hint(cursor: Option<Cursor>) -> String {
        match cursor {
            None => "after_version = 0".into(),
            Some(Cursor { version, index: None }) => format!("after_version = {version}"),
            Some(Cursor { version, index: Some(i) }) => {
                format!("after_version = {version}, after_index = {i}")
            }
        }
    }
}

/// What one watch stream sends: to whom, and whether views and presence go with the
/// events.
#[derive(Clone, Copy)]
pub struct Watch {
    /// Who watches.
    pub viewer: Viewer,
    /// Whether the viewer's view follows each version's events.
    pub include_views: bool,
    /// Whether the seats' presence is sent, once caught up and at each change.
    pub include_presence: bool,
}

/// What a stream follows once caught up: the hub's notes of its match (subscribed before
/// the backfill starts), the hub (for the presence it read last), and the seat the watch
/// holds, if its viewer is seated (released when the stream goes).
pub struct Live {
    /// The hub's notes of the match.
    pub notes: broadcast::Receiver<Note>,
    /// The hub.
    pub hub: Arc<Hub>,
    /// The watcher's seat, held.
    pub hold: Option<SeatHold>,
}

/// The messages of `entry` (the viewer's `version`) that `watch` may receive, numbered
/// among themselves, past `sent`; whether the match ended with it; and how many events
/// the viewer has of it (the index its view takes, when the entry carries one).
fn deliver(
    entry: &Entry,
    version: u64,
    watch: Watch,
    sent: Option<Cursor>,
) -> (Vec<WatchMessage>, bool, u32) {
    let traceparent = entry.traceparent.clone().unwrap_or_default();
    let tag = entry.tag;
    let mut ended = false;
    let mut out = Vec::new();
    let mut index = 0u32;
    for e in &entry.events {
        if !e.audience.admits(watch.viewer) {
            continue;
        }
        // Sent as stored: only its top level is read, for the match's end.
        let Some(ends) = crate::encoded::event_ends_match(&e.payload) else { continue };
        ended |= ends;
        if Cursor::before(sent, version, index) {
            let private = matches!(e.audience, Audience::Seat(_));
            out.push(WatchMessage::Event {
                head: Head { version, index, private, traceparent: traceparent.clone(), tag },
                event: Bytes::copy_from_slice(&e.payload),
            });
        }
        index += 1;
    }
    let at = Seen { version, events: index, tag, traceparent };
    out.extend(view_message(entry, &at, watch, sent));
    (out, ended, index)
}

/// What a viewer holds of its own latest version: where its view goes, and what the view
/// carries with it.
#[derive(Clone, Default)]
struct Seen {
    /// The version, in the viewer's numbering.
    version: u64,
    /// The events the viewer got of it: the view's index.
    events: u32,
    tag: u64,
    traceparent: String,
}

/// The view `entry` carries for `watch`, as the message at `at` (after its events), if the
/// client has not had it (the store hands views only with the latest version).
fn view_message(
    entry: &Entry,
    at: &Seen,
    watch: Watch,
    sent: Option<Cursor>,
) -> Option<WatchMessage> {
    if !watch.include_views || !Cursor::before(sent, at.version, at.events) {
        return None;
    }
    let view = View::of(entry.view_for(watch.viewer)?, at.version)?;
    let head = Head {
        version: at.version,
        index: at.events,
        private: watch.viewer.seat().is_some(),
        traceparent: at.traceparent.clone(),
        tag: at.tag,
    };
    Some(WatchMessage::View { head, view })
}

/// The position of a message: its version, index and tag.
#[derive(Clone, Copy, Default)]
struct At {
    version: u64,
    index: u32,
    tag: u64,
}

/// What a stream that asked for presence keeps of it.
struct Presences {
    hub: Arc<Hub>,
    /// Has the hub follow the match's presence while the stream lives.
    _wanted: PresenceWanted,
    /// The hub's number of the last presence taken (older notes are skipped).
    seq: u64,
    /// The presence last sent.
    sent: Option<Presence>,
    /// The watcher's own seat: connected, by this very watch.
    own: Option<Seat>,
}

/// Where a stream is.
enum Phase {
    /// Reading the store from this (stream) version on.
    Backfill(u64),
    /// Following the hub.
    Live,
    /// Nothing more to send once `pending` is empty.
    Done,
}

struct State {
    store: Arc<dyn EventStore>,
    id: MatchId,
    watch: Watch,
    /// What the client has, in its numbering.
    sent: Option<Cursor>,
    /// The tag the client gave for `sent`'s version, until that version is reached.
    verify: Option<Option<u64>>,
    /// The next stream version to take, and the numbering up to it.
    next: u64,
    seen: ViewerVersions,
    /// The viewer's own latest version as sent: where a view that comes with a later step
    /// it may not know of goes.
    last_seen: Seen,
    live: broadcast::Receiver<Note>,
    phase: Phase,
    /// How many times this stream has resynchronized (a batch read before one is void).
    resyncs: u32,
    /// The last message the client has: the last sent, or before any the last its resumed
    /// cursor covers (where a presence message stands).
    at: Option<At>,
    /// The presence, when asked for.
    presence: Option<Presences>,
    /// Holds the watcher's seat while the stream lives.
    _hold: Option<SeatHold>,
    /// Counts this stream among the open ones while it lives.
    _open: service_kit::metrics::Open,
    pending: VecDeque<Result<WatchMessage, Status>>,
}

impl State {
    /// Takes the stream's next entry (others are skipped: the backfill and the hub may
    /// both bring one): queues its messages; the stream ends after the match's last.
    fn take(&mut self, entry: &Entry) {
        if entry.version != self.next {
            if entry.version > self.next {
                // A gap (the hub ran ahead of a backfill): read it from the store.
                self.phase = Phase::Backfill(self.next);
            }
            return;
        }
        self.next += 1;
        self.seen = self.seen.after(entry);
        if !entry.visible_to(self.watch.viewer) {
            // A step this viewer may not know of, carrying the latest views: the viewer's
            // view is that of its own last version (nothing it may see changed), sent
            // there with that version's tag and trace if it has not been.
            if let Some(m) = view_message(entry, &self.last_seen, self.watch, self.sent) {
                let (version, index, tag) = m.at();
                self.sent = Some(Cursor { version, index: Some(index) });
                self.at = Some(At { version, index, tag });
                self.pending.push_back(Ok(m));
            }
            return;
        }
        let version = self.seen.of(self.watch.viewer);
        // The client's own last version: still the one it saw?
        if let (Some(tag), Some(cursor)) = (self.verify, self.sent)
            && version == cursor.version
        {
            self.verify = None;
            if tag.is_some_and(|t| t != entry.tag) {
                return self.resync();
            }
        }
        let (out, ended, events) = deliver(entry, version, self.watch, self.sent);
        self.last_seen = Seen {
            version,
            events,
            tag: entry.tag,
            traceparent: entry.traceparent.clone().unwrap_or_default(),
        };
        if let Some(last) = out.last() {
            let (_, index, _) = last.at();
            self.sent = Some(Cursor { version, index: Some(index) });
            self.at = Some(At { version, index, tag: entry.tag });
        } else {
            // Nothing new: the client had this version, up to its cursor.
            let view = self.watch.include_views && entry.view_for(self.watch.viewer).is_some();
            let last = if view { Some(events) } else { events.checked_sub(1) };
            let upto = match self.sent {
                Some(Cursor { version: v, index: Some(i) }) if v == version => Some(i),
                _ => None,
            };
            if let Some(last) = last {
                let index = upto.map_or(last, |i| i.min(last));
                self.at = Some(At { version, index, tag: entry.tag });
            }
        }
        self.pending.extend(out.into_iter().map(Ok));
        if ended {
            self.phase = Phase::Done;
        }
    }

    /// The backfill reached the stream's end: a client cursor still ahead of it names
    /// versions the store no longer holds.
    fn caught_up(&mut self) {
        if self.verify.is_some()
            && self.sent.is_some_and(|c| c.version > self.seen.of(self.watch.viewer))
        {
            return self.resync();
        }
        self.verify = None;
        self.phase = Phase::Live;
        // The presence as the hub read it last (none yet: its first read's note follows).
        if let Some(p) = self.presence.as_ref().and_then(|w| w.hub.presence(self.id)) {
            self.offer_presence(p);
        }
    }

    /// Sends `p` if it is newer than what the stream took and differs from what it sent.
    fn offer_presence(&mut self, p: SeatPresence) {
        let Some(w) = self.presence.as_mut() else { return };
        if p.seq <= w.seq {
            return;
        }
        w.seq = p.seq;
        let mut connected = p.connected;
        if let Some(own) = w.own {
            connected[own.index()] = true;
        }
        if w.sent == Some(connected) {
            return;
        }
        w.sent = Some(connected);
        let at = self.at.unwrap_or_default();
        self.pending.push_back(Ok(WatchMessage::Whole(Box::new(v1::WatchMatchResponse {
            version: at.version,
            index: at.index,
            tag: at.tag,
            presence: Some(v1::SeatPresence { connected: connected.to_vec() }),
            ..Default::default()
        }))));
    }

    /// Voids what was sent: the client is told, and the match follows from its start.
    fn resync(&mut self) {
        service_kit::metrics::add("colosseum_gateway_resyncs_total", 1);
        self.pending.push_back(Ok(WatchMessage::Whole(Box::new(v1::WatchMatchResponse {
            resync: Some(v1::Resync { after_version: 0 }),
            ..Default::default()
        }))));
        self.resyncs += 1;
        self.sent = None;
        self.at = None;
        self.verify = None;
        self.next = 0;
        self.seen = ViewerVersions::default();
        self.last_seen = Seen::default();
        self.phase = Phase::Backfill(0);
    }

    /// Queues an error and ends the stream.
    fn fail(&mut self, status: Status) {
        self.pending.push_back(Err(status));
        self.phase = Phase::Done;
    }

    /// Fills `pending` by one step of the current phase.
    async fn advance(&mut self) {
        match self.phase {
            Phase::Backfill(from) => match self.store.read(self.id, from, BACKFILL_BATCH).await {
                Err(e) => self.fail(Error::from(e).into()),
                Ok(batch) => {
                    let full = batch.len() == BACKFILL_BATCH;
                    self.phase = match batch.last() {
                        Some(last) => Phase::Backfill(last.version + 1),
                        None => Phase::Live,
                    };
                    let resyncs = self.resyncs;
                    for entry in &batch {
                        if matches!(self.phase, Phase::Done) || self.resyncs != resyncs {
                            break;
                        }
                        self.take(entry);
                    }
                    if !full && self.resyncs == resyncs && !matches!(self.phase, Phase::Done) {
                        self.caught_up();
                    }
                }
            },
            Phase::Live => match self.live.recv().await {
                Ok(Note::Entry(entry)) => self.take(&entry),
                Ok(Note::Rewound) => self.resync(),
                Ok(Note::Presence(p)) => self.offer_presence(p),
                Err(RecvError::Lagged(_)) => {
                    let hint = Cursor::hint(self.sent);
                    self.fail(Error::FellBehind { hint }.into());
                }
                // The gateway is stopping: tell the client to reconnect, since a clean end
                // of the stream means the match ended.
                Err(RecvError::Closed) => {
                    let hint = Cursor::hint(self.sent);
                    self.fail(Error::ShuttingDown { hint }.into());
                }
            },
            Phase::Done => {}
        }
    }
}

/// The stream of `id` for `watch`, after `from` (see [`Cursor::resume`]; `tag`, the
/// client's tag of that version), backfilled from `store` and then following `live`
/// (subscribed before the backfill starts, so nothing falls between the two; what both
/// bring is sent once).
pub fn stream(
    store: Arc<dyn EventStore>,
    id: MatchId,
    watch: Watch,
    from: Option<Cursor>,
    tag: Option<u64>,
    live: Live,
) -> WatchStream {
    let Live { notes: live, hub, hold } = live;
    let presence = watch.include_presence.then(|| Presences {
        _wanted: hub.want_presence(id),
        hub,
        seq: 0,
        sent: None,
        own: hold.as_ref().and(watch.viewer.seat()),
    });
    let state = State {
        store,
        id,
        watch,
        sent: from,
        verify: from.map(|_| tag),
        next: 0,
        seen: ViewerVersions::default(),
        last_seen: Seen::default(),
        live,
        phase: Phase::Backfill(0),
        resyncs: 0,
        at: None,
        presence,
        _hold: hold,
        _open: service_kit::metrics::Open::new(crate::metrics::WATCH_STREAMS),
        pending: VecDeque::new(),
    };
    Box::pin(futures_util::stream::unfold(state, |mut s| async move {
        loop {
            if let Some(message) = s.pending.pop_front() {
                return Some((message, s));
            }
            if matches!(s.phase, Phase::Done) {
                return None;
            }
            s.advance().await;
        }
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cursor_resumes_where_the_client_stands() {
        assert_eq!(Cursor::resume(0, None), None);
        let c = Cursor::resume(5, Some(2));
        assert!(!Cursor::before(c, 5, 2) && Cursor::before(c, 5, 3) && Cursor::before(c, 6, 0));
        assert!(!Cursor::before(c, 4, 9));
        let whole = Cursor::resume(5, None);
        assert!(!Cursor::before(whole, 5, 7) && Cursor::before(whole, 6, 0));
        assert!(Cursor::before(None, 0, 0));
        assert_eq!(Cursor::hint(c), "after_version = 5, after_index = 2");
        assert_eq!(Cursor::hint(Cursor::resume(7, None)), "after_version = 7");
    }
}
