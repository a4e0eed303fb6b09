//! One Play stream (`ColosseumService.Play`): a client's watches, moves and resignations
//! for many matches on one bidirectional stream. Each request runs through the same
//! functions as its unary call (`Gateway::submit_move_as`, `resign_as`, `watch_match_as`);
//! each watch is a `crate::watch::stream`, merged here with the others and the answers.
//!
//! The response stream itself drives everything (no task, no channel): each time the
//! server's connection asks for the next message, one select over the client's requests,
//! the requests in flight, the watches, the gateway's shutdown and the session check
//! runs until one message is ready. A client that stops reading stops that polling, so
//! nothing piles up for it (its watches fall behind the hub, as a WatchMatch stream's
//! would), and everything the stream holds is dropped with it when the client goes away.

use crate::encoded::{PlayMessage, WatchMessage};
use crate::error::Error;
use crate::limits::{MAX_PLAY_IN_FLIGHT, MAX_PLAY_WATCHES};
use crate::matches::{Gateway, Watching, caller};
use api::v1::{self, play_answer, play_request, play_response};
use futures_util::future::BoxFuture;
use futures_util::stream::{AbortHandle, Abortable, FuturesUnordered, SelectAll, StreamExt};
use service_kit::status;
use service_kit::telemetry::TraceContext;
use std::collections::BTreeMap;
use std::pin::Pin;
use std::time::Duration;
use store::{MatchId, PlayerId};
use tokio_stream::Stream;
use tonic::{Code, Request, Status, Streaming};
use tonic_types::StatusExt;

/// A Play stream as the server sends it: a watched match's messages written around the
/// engine's stored bytes (see [`crate::encoded`]).
pub type PlayStream = Pin<Box<dyn Stream<Item = Result<PlayMessage, Status>> + Send>>;

/// How often a stream checks that its session still exists (as long as the
/// authentication layer trusts a session it looked up).
const SESSION_CHECK: Duration = Duration::from_millis(crate::auth::KNOWN_FOR_MS);

/// Opens the Play stream of `req` (authenticated by the layer: its caller is the caller of
/// every request on it).
///
/// # Errors
/// UNAUTHENTICATED: no caller.
pub fn open(gw: Gateway, req: Request<Streaming<v1::PlayRequest>>) -> Result<PlayStream, Status> {
    let me = caller(&req)?;
    let token = req
        .metadata()
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(api_convert::text::bearer)
        .map(crate::auth::token_key);
    let mut recheck =
        tokio::time::interval_at(tokio::time::Instant::now() + SESSION_CHECK, SESSION_CHECK);
    recheck.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let session = Session {
        gw,
        me,
        token,
        inbound: Some(req.into_inner()),
        stopping: false,
        finished: false,
        running: FuturesUnordered::new(),
        feeds: SelectAll::new(),
        watches: BTreeMap::new(),
        generation: 0,
        check: FuturesUnordered::new(),
        recheck,
        _open: service_kit::metrics::Open::new(crate::metrics::PLAY_STREAMS),
    };
    Ok(Box::pin(futures_util::stream::unfold(session, |mut s| async move {
        s.next().await.map(|m| (m, s))
    })))
}

/// A watch of the stream, by match.
enum WatchState {
    /// Its request is in flight (answered when the stream is subscribed).
    Starting { generation: u64 },
    /// Its messages flow; `abort` stops its feed.
    Open { generation: u64, abort: AbortHandle },
}

impl WatchState {
    fn generation(&self) -> u64 {
        match self {
            WatchState::Starting { generation } | WatchState::Open { generation, .. } => {
                *generation
            }
        }
    }
}

/// What a watch's feed brings: its messages (or the error that ends it), then `None`
/// at its end.
type Fed = Option<Result<WatchMessage, Status>>;

/// One watch's feed, tagged with its match and generation (a match unwatched and watched
/// again is a new generation: whatever the old feed still brings is dropped).
type Feed = Pin<Box<dyn Stream<Item = (MatchId, u64, Fed)> + Send>>;

/// A request done: its id, kind (a metric label) and answer.
struct Done {
    request_id: u64,
    kind: &'static str,
    result: Result<Answer, Error>,
}

/// What a request answered.
enum Answer {
    Submit(v1::SubmitMoveResponse),
    Resign(v1::ResignResponse),
    /// A watch subscribed: `generation` is the watch it was started as.
    Watch {
        id: MatchId,
        generation: u64,
        watching: Watching,
    },
    /// A watch whose request failed (its state is dropped, then the error answered).
    WatchFailed {
        id: MatchId,
        generation: u64,
        error: Error,
    },
}

/// Everything one Play stream holds; it lives in the response stream alone.
struct Session {
    gw: Gateway,
    me: PlayerId,
    /// The session token's key, to check the session still exists.
    token: Option<String>,
    /// The client's requests; `None` once it closed its side.
    inbound: Option<Streaming<v1::PlayRequest>>,
    /// The gateway is stopping: no more requests are read.
    stopping: bool,
    /// The stream has sent its last message.
    finished: bool,
    running: FuturesUnordered<BoxFuture<'static, Done>>,
    feeds: SelectAll<Feed>,
    watches: BTreeMap<MatchId, WatchState>,
    /// The last watch generation given.
    generation: u64,
    /// The session check under way (at most one).
    check: FuturesUnordered<BoxFuture<'static, bool>>,
    recheck: tokio::time::Interval,
    _open: service_kit::metrics::Open,
}

/// The next request of `inbound` (never, once it is closed).
async fn read(
    inbound: &mut Option<Streaming<v1::PlayRequest>>,
) -> Result<Option<v1::PlayRequest>, Status> {
    match inbound {
        Some(s) => s.message().await,
        None => std::future::pending().await,
    }
}

impl Session {
    /// The stream's next message; `None` when it ends cleanly.
    async fn next(&mut self) -> Option<Result<PlayMessage, Status>> {
        loop {
            if self.finished {
                return None;
            }
            let accepting = self.inbound.is_some() && !self.stopping;
            if !accepting && self.running.is_empty() && self.feeds.is_empty() {
                self.finished = true;
                return self.stopping.then(|| Err(Error::PlayShuttingDown.into()));
            }
            let reading = accepting && self.running.len() < MAX_PLAY_IN_FLIGHT;
            let checking = self.token.is_some() && self.check.is_empty();
            tokio::select! {
                () = self.gw.shutdown().cancelled(), if !self.stopping => {
                    // Requests in flight are answered, and the hub ends every watch with
                    // where to resume; then the stream ends.
                    self.stopping = true;
                }
                Some(alive) = self.check.next(), if !self.check.is_empty() => {
                    if !alive {
                        self.finished = true;
                        return Some(Err(Error::UnknownSession.into()));
                    }
                }
                _ = self.recheck.tick(), if checking => self.check_session(),
                Some(done) = self.running.next(), if !self.running.is_empty() => {
                    return Some(Ok(PlayMessage::Whole(Box::new(self.finish(done)))));
                }
                Some((id, generation, fed)) = self.feeds.next(), if !self.feeds.is_empty() => {
                    if let Some(m) = self.fed(id, generation, fed) {
                        return Some(Ok(m));
                    }
                }
                r = read(&mut self.inbound), if reading => match r {
                    Ok(Some(req)) => {
                        if let Some(m) = self.start(req) {
                            return Some(Ok(PlayMessage::Whole(Box::new(m))));
                        }
                    }
                    // The client closed its side: what it asked is still answered.
                    Ok(None) => self.inbound = None,
                    Err(s) => {
                        self.finished = true;
                        return Some(Err(inbound_error(s)));
                    }
                },
            }
        }
    }

    /// Starts a session check: the stream ends once the store says the session is gone
    /// (a store that cannot be asked ends nothing: the next check asks again).
    fn check_session(&mut self) {
        let Some(key) = self.token.clone() else { return };
        let store = self.gw.store().clone();
        self.check.push(Box::pin(async move { !matches!(store.session(&key).await, Ok(None)) }));
    }

    /// Takes one request: answered now (an unwatch, a refusal), or started.
    fn start(&mut self, req: v1::PlayRequest) -> Option<v1::PlayResponse> {
        let request_id = req.request_id;
        let kind = kind_name(req.kind.as_ref());
        if let Err(e) = crate::limits::play(&req) {
            return Some(refusal(request_id, kind, None, e.into()));
        }
        let trace = TraceContext::parse(&req.traceparent).unwrap_or_else(TraceContext::root);
        let (gw, me) = (self.gw.clone(), self.me);
        match req.kind {
            None => Some(refusal(request_id, kind, None, Error::NoRequestKind)),
            Some(play_request::Kind::Unwatch(u)) => {
                let id = match api_convert::match_id(&u.match_id) {
                    Ok(id) => id,
                    Err(e) => return Some(refusal(request_id, kind, Some(kind), e.into())),
                };
                // A watch still starting is answered CANCELLED when its start completes.
                let watching = match self.watches.remove(&id) {
                    Some(WatchState::Open { abort, .. }) => {
                        abort.abort();
                        true
                    }
                    Some(WatchState::Starting { .. }) => true,
                    None => false,
                };
                let answer = v1::Unwatched { match_id: id.to_string(), watching };
                Some(answered(request_id, kind, play_answer::Kind::Unwatch(answer)))
            }
            Some(play_request::Kind::Watch(w)) => {
                let id = match api_convert::match_id(&w.match_id) {
                    Ok(id) => id,
                    Err(e) => return Some(refusal(request_id, kind, Some(kind), e.into())),
                };
                if self.watches.contains_key(&id) {
                    return Some(refusal(request_id, kind, None, Error::AlreadyWatching(id)));
                }
                if self.watches.len() >= MAX_PLAY_WATCHES {
                    return Some(refusal(request_id, kind, None, Error::TooManyWatches));
                }
                self.generation += 1;
                let generation = self.generation;
                self.watches.insert(id, WatchState::Starting { generation });
                self.running.push(Box::pin(async move {
                    let answer = match gw.watch_match_as(me, trace, w).await {
                        Ok(watching) => Answer::Watch { id, generation, watching },
                        Err(error) => Answer::WatchFailed { id, generation, error },
                    };
                    Done { request_id, kind, result: Ok(answer) }
                }));
                None
            }
            Some(play_request::Kind::SubmitMove(r)) => {
                self.running.push(Box::pin(async move {
                    let result = gw.submit_move_as(me, trace, r).await.map(Answer::Submit);
                    Done { request_id, kind, result }
                }));
                None
            }
            Some(play_request::Kind::Resign(r)) => {
                self.running.push(Box::pin(async move {
                    let result = gw.resign_as(me, trace, r).await.map(Answer::Resign);
                    Done { request_id, kind, result }
                }));
                None
            }
        }
    }

    /// The answer of a request done; a watch that started begins to feed.
    fn finish(&mut self, done: Done) -> v1::PlayResponse {
        let Done { request_id, kind, result } = done;
        let answer = match result {
            Ok(a) => a,
            Err(e) => return refusal(request_id, kind, Some(kind), e),
        };
        let answer = match answer {
            Answer::Submit(r) => play_answer::Kind::SubmitMove(r),
            Answer::Resign(r) => play_answer::Kind::Resign(r),
            Answer::WatchFailed { id, generation, error } => {
                let error = if self.is_current(id, generation) {
                    self.watches.remove(&id);
                    error
                } else {
                    Error::UnwatchedBeforeStart(id)
                };
                return refusal(request_id, kind, Some(kind), error);
            }
            Answer::Watch { id, generation, watching } => {
                if !self.is_current(id, generation) {
                    // Unwatched while it started: the subscription is dropped unused.
                    return refusal(request_id, kind, None, Error::UnwatchedBeforeStart(id));
                }
                let Watching { stream, seat } = watching;
                let (abort, registration) = AbortHandle::new_pair();
                let fed = stream
                    .map(Some)
                    .chain(futures_util::stream::once(async { None }))
                    .map(move |f| (id, generation, f));
                self.feeds.push(Box::pin(Abortable::new(fed, registration)));
                self.watches.insert(id, WatchState::Open { generation, abort });
                play_answer::Kind::Watch(v1::WatchStarted {
                    match_id: id.to_string(),
                    seat: seat.map(wire::seat_u32),
                })
            }
        };
        answered(request_id, kind, answer)
    }

    /// Whether watch `generation` of `id` is the stream's current watch of it.
    fn is_current(&self, id: MatchId, generation: u64) -> bool {
        self.watches.get(&id).is_some_and(|w| w.generation() == generation)
    }

    /// What a watch's feed brought, for the client (nothing from a watch since stopped).
    fn fed(&mut self, id: MatchId, generation: u64, fed: Fed) -> Option<PlayMessage> {
        if !self.is_current(id, generation) {
            return None;
        }
        let kind = match fed {
            Some(Ok(message)) => {
                return Some(PlayMessage::Match { match_id: id.to_string(), message });
            }
            Some(Err(status)) => {
                // The feed ends after its error: its end is dropped as stale.
                self.watches.remove(&id);
                play_response::Kind::WatchEnded(v1::WatchEnded {
                    match_id: id.to_string(),
                    status: Some(call_status(&status, None)),
                })
            }
            None => {
                self.watches.remove(&id);
                play_response::Kind::WatchEnded(v1::WatchEnded {
                    match_id: id.to_string(),
                    status: Some(v1::CallStatus {
                        code: Code::Ok as i32,
                        message: "the match ended".into(),
                        ..Default::default()
                    }),
                })
            }
        };
        Some(PlayMessage::Whole(Box::new(v1::PlayResponse { kind: Some(kind) })))
    }
}

/// A request's kind as a metric label and field prefix.
fn kind_name(kind: Option<&play_request::Kind>) -> &'static str {
    match kind {
        None => "none",
        Some(play_request::Kind::Watch(_)) => "watch",
        Some(play_request::Kind::Unwatch(_)) => "unwatch",
        Some(play_request::Kind::SubmitMove(_)) => "submit_move",
        Some(play_request::Kind::Resign(_)) => "resign",
    }
}

fn count(kind: &'static str, code: Code) {
    let code = service_kit::status::code_name(code);
    service_kit::metrics::add_with(
        crate::metrics::PLAY_REQUESTS,
        &[("kind", kind), ("code", code)],
        1,
    );
}

fn answered(request_id: u64, kind: &'static str, answer: play_answer::Kind) -> v1::PlayResponse {
    count(kind, Code::Ok);
    let answer = v1::PlayAnswer { request_id, kind: Some(answer) };
    v1::PlayResponse { kind: Some(play_response::Kind::Answer(answer)) }
}

/// The in-band error of request `request_id`: the status the unary call would answer, a
/// malformed field named under `prefix` (the request's kind: `submit_move.match_id`).
fn refusal(
    request_id: u64,
    kind: &'static str,
    prefix: Option<&str>,
    error: Error,
) -> v1::PlayResponse {
    let status = Status::from(error);
    count(kind, status.code());
    let error = v1::PlayError { request_id, status: Some(call_status(&status, prefix)) };
    v1::PlayResponse { kind: Some(play_response::Kind::Error(error)) }
}

/// `status` as a message: its code, message, and ErrorInfo reason and metadata (the field
/// of an `INVALID_FIELD` under `prefix`, when given).
fn call_status(status: &Status, prefix: Option<&str>) -> v1::CallStatus {
    let (reason, mut metadata) = match status.get_details_error_info() {
        Some(info) => (info.reason, info.metadata),
        None => (String::new(), Default::default()),
    };
    if reason == status::Reason::InvalidField.as_str()
        && let Some(prefix) = prefix
    {
        let field: &mut String = metadata.entry("field".to_string()).or_default();
        *field = format!("{prefix}.{field}");
    }
    v1::CallStatus {
        code: status.code() as i32,
        message: status.message().to_string(),
        reason,
        metadata,
    }
}

/// How a broken request stream ends the Play stream: what the client sent is no
/// PlayRequest, or is too large; a broken connection is passed on as it is (no one hears
/// it).
fn inbound_error(s: Status) -> Status {
    if service_kit::status::is_transport_failure(&s)
        || status::reason_of_status(&s) == Some(status::Reason::MessageTooLarge)
    {
        // A broken connection, or the edge's refusal of a message over the limit as made.
        return s;
    }
    match s.code() {
        Code::OutOfRange | Code::ResourceExhausted => Error::RequestTooLarge.into(),
        _ => Error::UndecodableRequest.into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_in_band_error_carries_the_unary_status_and_names_the_field_under_its_kind() {
        let bad = api_convert::match_id("not-a-uuid").unwrap_err();
        let m = refusal(7, "submit_move", Some("submit_move"), bad.into());
        let Some(play_response::Kind::Error(v1::PlayError { request_id, status: Some(s) })) =
            m.kind
        else {
            panic!("an error: {m:?}")
        };
        assert_eq!((request_id, s.code), (7, Code::InvalidArgument as i32));
        assert_eq!(s.reason, "INVALID_FIELD");
        assert_eq!(s.metadata.get("field").map(String::as_str), Some("submit_move.match_id"));
        assert!(s.message.len() < 200, "{}", s.message);
        let reused = call_status(&service_kit::status::key_reused(4), Some("submit_move"));
        assert_eq!(
            (reused.code, reused.reason.as_str()),
            (Code::AlreadyExists as i32, "IDEMPOTENCY_KEY_REUSED")
        );
        assert_eq!(reused.metadata.get("version").map(String::as_str), Some("4"));
        let full = call_status(&Error::TooManyWatches.into(), None);
        assert_eq!(
            (full.code, full.reason.as_str()),
            (Code::ResourceExhausted as i32, "RESOURCE_EXHAUSTED")
        );
    }

    #[test]
    fn a_garbled_stream_is_invalid_and_an_oversized_one_exhausted() {
        assert_eq!(
            inbound_error(Status::internal("failed to decode")).code(),
            Code::InvalidArgument
        );
        let big = inbound_error(Status::out_of_range("decoded message length too large"));
        assert_eq!(big.code(), Code::ResourceExhausted);
        assert_eq!(
            big.get_details_error_info().map(|i| i.reason),
            Some("MESSAGE_TOO_LARGE".into())
        );
    }
}
