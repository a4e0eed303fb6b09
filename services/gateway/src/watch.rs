//! One WatchMatch stream: the match's stored entries from where the client resumes, then
//! the hub's live ones, each turned into the messages its viewer may receive (its events,
//! then its own view when asked for). The stream is polled by the server's connection
//! directly: no task or channel per watcher.
//!
//! A resumed stream first checks that the match still holds the client's last version
//! (with its tag); if the store lost writes, the client gets a `resync` and the match
//! from its start, as a live stream does when the hub finds the stream rewound.

use crate::hub::Note;
use api::v1;
use events::{Entry, EventStore, MatchId};
use prost::Message;
use rules_core::{Audience, Viewer};
use service_kit::status::ServiceError;
use std::collections::VecDeque;
use std::pin::Pin;
use std::sync::Arc;
use tokio::sync::broadcast::{self, error::RecvError};
use tokio_stream::Stream;
use tonic::Status;

/// Entries read at once while backfilling.
const BACKFILL_BATCH: usize = 256;

/// A watch stream as the server sends it.
pub type WatchStream = Pin<Box<dyn Stream<Item = Result<v1::WatchMatchResponse, Status>> + Send>>;

/// How far a watch stream has gone: every message up to `version` (up to `index` within
/// it, when set) is delivered.
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

    /// The first version to read from the store to continue after this cursor.
    fn next_version(cursor: Option<Cursor>) -> u64 {
        match cursor {
            None => 0,
            Some(Cursor { version, index: None }) => version + 1,
            Some(Cursor { version, index: Some(_) }) => version,
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

/// What one watch stream sends: to whom, and whether views go with the events.
#[derive(Clone, Copy)]
pub struct Watch {
    /// Who watches.
    pub viewer: Viewer,
    /// Whether the viewer's view follows each version's events.
    pub include_views: bool,
}

/// The messages of `entry` that the watch may receive and has not received yet (its
/// events, then its view when asked for); and whether the match ended with it.
fn deliver(
    entry: &Entry,
    watch: Watch,
    sent: &mut Option<Cursor>,
) -> (Vec<v1::WatchMatchResponse>, bool) {
    let after_index = match *sent {
        Some(c) if entry.version < c.version => return (Vec::new(), false),
        Some(Cursor { version, index: None }) if entry.version == version => {
            return (Vec::new(), false);
        }
        Some(Cursor { version, index: Some(i) }) if entry.version == version => Some(i),
        _ => None,
    };
    *sent = Some(Cursor { version: entry.version, index: None });
    let fresh = |index: usize| after_index.is_none_or(|i| index as u32 > i);
    let traceparent = entry.traceparent.clone().unwrap_or_default();
    let tag = entry.tag;
    let mut ended = false;
    let mut out = Vec::new();
    for (index, e) in entry.events.iter().enumerate() {
        if !e.audience.admits(watch.viewer) {
            continue;
        }
        let Ok(event) = v1::Event::decode(e.payload.as_slice()) else { continue };
        ended |= matches!(event.kind, Some(v1::event::Kind::MatchEnded(_)));
        if !fresh(index) {
            continue;
        }
        out.push(v1::WatchMatchResponse {
            version: entry.version,
            index: index as u32,
            private: matches!(e.audience, Audience::Seat(_)),
            event: Some(event),
            traceparent: traceparent.clone(),
            view: None,
            tag,
            resync: None,
        });
    }
    let index = entry.events.len();
    if watch.include_views
        && fresh(index)
        && let Some(bytes) = entry.view_for(watch.viewer)
        && let Ok(mut view) = v1::GetViewResponse::decode(bytes)
    {
        view.deadline_in_ms = view.deadline_at_ms.map(service_kit::time::ms_until);
        out.push(v1::WatchMatchResponse {
            version: entry.version,
            index: index as u32,
            private: watch.viewer.seat().is_some(),
            event: None,
            traceparent,
            view: Some(view),
            tag,
            resync: None,
        });
    }
    (out, ended)
}

/// Whether `entry` ends its match.
fn ends_match(entry: &Entry) -> bool {
    entry.events.iter().any(|e| {
        e.audience == Audience::Public
            && v1::Event::decode(e.payload.as_slice())
                .is_ok_and(|ev| matches!(ev.kind, Some(v1::event::Kind::MatchEnded(_))))
    })
}

/// Where a stream is.
enum Phase {
    /// Resuming: checking that the match still holds the client's last version (with
    /// this tag, when the client gave it).
    Verify(Option<u64>),
    /// Reading the store from this version on.
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
    sent: Option<Cursor>,
    live: broadcast::Receiver<Note>,
    phase: Phase,
    pending: VecDeque<Result<v1::WatchMatchResponse, Status>>,
}

impl State {
    /// Queues `entry`'s messages; the stream ends after the match's last.
    fn take(&mut self, entry: &Entry) {
        let (out, ended) = deliver(entry, self.watch, &mut self.sent);
        self.pending.extend(out.into_iter().map(Ok));
        if ended {
            self.phase = Phase::Done;
        }
    }

    /// Queues an error and ends the stream.
    fn fail(&mut self, status: Status) {
        self.pending.push_back(Err(status));
        self.phase = Phase::Done;
    }

    /// Voids what was sent: the client is told, and the match follows from its start.
    fn resync(&mut self) {
        service_kit::metrics::add("colosseum_gateway_resyncs_total", 1);
        self.pending.push_back(Ok(v1::WatchMatchResponse {
            resync: Some(v1::Resync { after_version: 0 }),
            ..Default::default()
        }));
        self.sent = None;
        self.phase = Phase::Backfill(0);
    }

    /// Fills `pending` by one step of the current phase.
    async fn advance(&mut self) {
        match self.phase {
            Phase::Verify(tag) => {
                let Some(cursor) = self.sent else {
                    self.phase = Phase::Backfill(0);
                    return;
                };
                match self.store.read(self.id, cursor.version, 1).await {
                    Err(e) => self.fail(ServiceError::from(e).into()),
                    Ok(found) => match found.first() {
                        Some(e)
                            if e.version == cursor.version && tag.is_none_or(|t| t == e.tag) =>
                        {
                            // A client resuming after the match's last message is done.
                            self.phase = if cursor.index.is_none() && ends_match(e) {
                                Phase::Done
                            } else {
                                Phase::Backfill(Cursor::next_version(self.sent))
                            };
                        }
                        _ => self.resync(),
                    },
                }
            }
            Phase::Backfill(from) => match self.store.read(self.id, from, BACKFILL_BATCH).await {
                Err(e) => self.fail(ServiceError::from(e).into()),
                Ok(batch) => {
                    self.phase = match batch.last() {
                        Some(last) => Phase::Backfill(last.version + 1),
                        None => Phase::Live,
                    };
                    for entry in &batch {
                        self.take(entry);
                    }
                }
            },
            Phase::Live => match self.live.recv().await {
                Ok(Note::Entry(entry)) => self.take(&entry),
                Ok(Note::Rewound) => self.resync(),
                Err(RecvError::Lagged(_)) => {
                    let hint = Cursor::hint(self.sent);
                    self.fail(Status::resource_exhausted(format!(
                        "fell behind; reconnect with {hint}"
                    )));
                }
                // The gateway is stopping: tell the client to reconnect, since a clean end
                // of the stream means the match ended.
                Err(RecvError::Closed) => {
                    let hint = Cursor::hint(self.sent);
                    self.fail(Status::unavailable(format!(
                        "the gateway is shutting down; reconnect with {hint}"
                    )));
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
    live: broadcast::Receiver<Note>,
) -> WatchStream {
    let state = State {
        store,
        id,
        watch,
        sent: from,
        live,
        phase: if from.is_some() { Phase::Verify(tag) } else { Phase::Backfill(0) },
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
        assert_eq!(Cursor::next_version(Cursor::resume(0, None)), 0);
        assert_eq!(Cursor::next_version(Cursor::resume(5, None)), 6);
        // Inside a version: that version is read again, from after the index.
        assert_eq!(Cursor::next_version(Cursor::resume(5, Some(2))), 5);
        assert_eq!(Cursor::next_version(Cursor::resume(0, Some(0))), 0);
        assert_eq!(Cursor::hint(Cursor::resume(5, Some(2))), "after_version = 5, after_index = 2");
        assert_eq!(Cursor::hint(Cursor::resume(7, None)), "after_version = 7");
    }
}
