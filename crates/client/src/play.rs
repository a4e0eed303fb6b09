//! Play streams (`ColosseumService.Play`): every match a session plays or watches on one
//! bidirectional stream. [`PlayStream`] is the stream as it is, with request ids given in
//! order; [`Play`] runs one in a task and gives each request its answer and each watch its
//! own [`Feed`], as the unary calls and WatchMatch do, reconnecting and resuming every
//! watch where it stood when the stream breaks.

use crate::{Client, Cursor, WatchOptions};
use api::v1::{self, play_answer, play_request, play_response};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{mpsc, oneshot};
use tonic::{Code, Request, Status, Streaming};

/// Requests queued toward the gateway before a sender waits (the gateway reads them as
/// fast as it takes them: at most 256 in flight per stream).
const OUTGOING: usize = 256;

/// How many times in a row [`Play`] reopens a broken stream before it gives up.
const REOPENS: u32 = 10;

/// The gateway's in-band status as a [`Status`] (its code and message; the ErrorInfo
/// reason and metadata stay in `s`).
pub fn status_of(s: &v1::CallStatus) -> Status {
    Status::new(Code::from_i32(s.code), s.message.clone())
}

/// One Play stream as the gateway sends it: requests go up with ids given in order
/// (from 1), messages come down as they are.
pub struct PlayStream {
    tx: mpsc::Sender<v1::PlayRequest>,
    rx: Streaming<v1::PlayResponse>,
    next_id: u64,
}

impl Client {
    /// Opens a Play stream of this session (without the session's call deadline: the
    /// stream lasts as long as its matches).
    ///
    /// # Errors
    /// The gateway's refusal (UNAUTHENTICATED), or it cannot be reached.
    pub async fn play_stream(&self) -> Result<PlayStream, Status> {
        crate::resend_unsent(|| async {
            let (tx, rx) = mpsc::channel(OUTGOING);
            let mut req = Request::new(tokio_stream::wrappers::ReceiverStream::new(rx));
            req.metadata_mut().insert("authorization", self.authorization.clone());
            let rx = self.api().play(req).await?.into_inner();
            Ok(PlayStream { tx, rx, next_id: 1 })
        })
        .await
    }

    /// Opens a [`Play`]: a Play stream run in a task, reopened when it breaks.
    ///
    /// # Errors
    /// As [`Client::play_stream`].
    pub async fn play(&self) -> Result<Play, Status> {
        Play::open(self.clone()).await
    }
}

fn closed() -> Status {
    Status::unavailable("the Play stream is closed")
}

impl PlayStream {
    /// Sends `req` as it is (its request id too).
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn send_raw(&self, req: v1::PlayRequest) -> Result<(), Status> {
        self.tx.send(req).await.map_err(|_| closed())
    }

    /// Sends a request of `kind` under the next request id; that id.
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn send(&mut self, kind: play_request::Kind) -> Result<u64, Status> {
        let request_id = self.next_id;
        self.next_id += 1;
        let req = v1::PlayRequest { request_id, kind: Some(kind), traceparent: String::new() };
        self.send_raw(req).await?;
        Ok(request_id)
    }

    /// Watches `match_id` from `from`, with the caller's views when `include_views`.
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn watch(
        &mut self,
        match_id: &str,
        from: Cursor,
        include_views: bool,
    ) -> Result<u64, Status> {
        self.watch_with(match_id, from, WatchOptions::views(include_views)).await
    }

    /// Watches `match_id` from `from`, asking for what `options` names.
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn watch_with(
        &mut self,
        match_id: &str,
        from: Cursor,
        options: WatchOptions,
    ) -> Result<u64, Status> {
        let req = crate::requests::watch(match_id, from, options);
        self.send(play_request::Kind::Watch(req)).await
    }

    /// Stops watching `match_id`.
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn unwatch(&mut self, match_id: &str) -> Result<u64, Status> {
        let u = v1::UnwatchRequest { match_id: match_id.to_string() };
        self.send(play_request::Kind::Unwatch(u)).await
    }

    /// Submits `mv` under `idempotency_key` (`mv` optional so that tests can send none).
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn submit(
        &mut self,
        match_id: &str,
        mv: Option<v1::Move>,
        idempotency_key: &str,
    ) -> Result<u64, Status> {
        self.send(play_request::Kind::SubmitMove(submit_request(match_id, mv, idempotency_key)))
            .await
    }

    /// Resigns in `match_id`.
    ///
    /// # Errors
    /// UNAVAILABLE: the stream is closed.
    pub async fn resign(&mut self, match_id: &str) -> Result<u64, Status> {
        let r = v1::ResignRequest { match_id: match_id.to_string() };
        self.send(play_request::Kind::Resign(r)).await
    }

    /// The next message; `None` once the gateway ended the stream cleanly.
    ///
    /// # Errors
    /// The status the stream ended with.
    pub async fn message(&mut self) -> Result<Option<v1::PlayResponse>, Status> {
        self.rx.message().await
    }

    /// Closes the client's side: the gateway answers what was asked, ends the watches
    /// as their matches end, then ends the stream.
    pub fn close_requests(&mut self) {
        let (tx, _) = mpsc::channel(1);
        self.tx = tx;
    }
}

fn submit_request(match_id: &str, mv: Option<v1::Move>, key: &str) -> v1::SubmitMoveRequest {
    v1::SubmitMoveRequest {
        match_id: match_id.to_string(),
        r#move: mv,
        idempotency_key: key.to_string(),
    }
}

/// Whether a call, a stream or a watch that failed with `s` is tried again (the same
/// idempotency key) or resumed: the retry rules of the API (UNAVAILABLE, ABORTED,
/// DEADLINE_EXCEEDED), and a connection that broke under the client (a status with a
/// transport error as its source).
pub fn resumable(s: &Status) -> bool {
    matches!(s.code(), Code::Unavailable | Code::Aborted | Code::DeadlineExceeded)
        || (matches!(s.code(), Code::Unknown | Code::Internal | Code::Cancelled)
            && std::error::Error::source(s).is_some())
}

/// A Play stream run in a task: [`Play::submit`], [`Play::resign`] and [`Play::watch`]
/// are answered as SubmitMove, Resign and WatchMatch are, each watch on its own [`Feed`].
/// When the stream breaks (UNAVAILABLE, a connection lost) or ends, the task opens a new one and
/// watches every match again from its last message received (the feeds see nothing of
/// it); the requests in flight then fail UNAVAILABLE, and are retried as the API says
/// (the same idempotency key). A watch that falls behind is resumed the same way. Cheap
/// to clone; the stream closes when the last clone and feed are dropped.
#[derive(Clone)]
pub struct Play {
    handle: Arc<Handle>,
}

/// Owned by every [`Play`] and [`Feed`]: the task stops when the last one goes.
struct Handle {
    shared: Arc<Shared>,
    task: tokio::task::AbortHandle,
}

impl Drop for Handle {
    fn drop(&mut self) {
        self.task.abort();
        self.shared.close(Status::cancelled("the Play stream was closed"));
    }
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// How many times the stream was reopened.
    reopens: std::sync::atomic::AtomicU64,
}

#[derive(Default)]
struct State {
    /// The current stream's requests (`None` once closed for good).
    tx: Option<mpsc::Sender<v1::PlayRequest>>,
    next_id: u64,
    /// Requests sent on the current stream and not answered yet.
    pending: BTreeMap<u64, Pending>,
    /// Watches by match id.
    feeds: BTreeMap<String, FeedState>,
    /// Why the stream closed for good.
    closed: Option<Status>,
}

/// Who waits for a request's answer.
enum Pending {
    /// A caller of [`Play`].
    Reply(oneshot::Sender<Result<play_answer::Kind, Status>>),
    /// The task, resuming this match's watch.
    Resume(String),
    /// No one (an unwatch of a dropped feed).
    Nobody,
}

struct FeedState {
    tx: mpsc::UnboundedSender<Result<v1::WatchMatchResponse, Status>>,
    /// Where the watch resumes.
    cursor: Cursor,
    options: WatchOptions,
    /// The gateway answered the watch (a watch not yet answered is not resumed: its
    /// caller hears the failure).
    started: bool,
    /// How the watch ended, once it has (its feed's last word).
    end: Arc<Mutex<Option<Result<(), Status>>>>,
}

impl FeedState {
    /// Ends the feed with `how`.
    fn end(self, how: Result<(), Status>) {
        *self.end.lock().expect("the feed's end lock") = Some(how);
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().expect("the Play state lock")
    }

    /// Closes for good: every waiting caller and every feed hears `status`.
    fn close(&self, status: Status) {
        let mut st = self.lock();
        if st.closed.is_some() {
            return;
        }
        st.closed = Some(status.clone());
        st.tx = None;
        for (_, p) in std::mem::take(&mut st.pending) {
            if let Pending::Reply(r) = p {
                let _ = r.send(Err(status.clone()));
            }
        }
        for (_, f) in std::mem::take(&mut st.feeds) {
            f.end(Err(status.clone()));
        }
    }

    /// Registers a request of `kind` for `waiter`: the request to send, and where.
    fn register(
        &self,
        kind: play_request::Kind,
        waiter: Pending,
    ) -> Result<(mpsc::Sender<v1::PlayRequest>, v1::PlayRequest), Status> {
        let mut st = self.lock();
        if let Some(s) = &st.closed {
            return Err(s.clone());
        }
        let tx = st.tx.clone().ok_or_else(closed)?;
        st.next_id += 1;
        let request_id = st.next_id;
        st.pending.insert(request_id, waiter);
        Ok((tx, v1::PlayRequest { request_id, kind: Some(kind), traceparent: String::new() }))
    }

    /// Hands one message of the stream to whoever waits for it; the watches to resume.
    fn dispatch(&self, m: v1::PlayResponse) -> Vec<(String, Cursor, WatchOptions)> {
        let mut st = self.lock();
        let mut resume = Vec::new();
        match m.kind {
            Some(play_response::Kind::MatchMessage(v1::MatchMessage { match_id, message })) => {
                if let (Some(f), Some(message)) = (st.feeds.get_mut(&match_id), message) {
                    f.cursor = f.cursor.next(&message);
                    let _ = f.tx.send(Ok(message));
                }
            }
            Some(play_response::Kind::Answer(v1::PlayAnswer { request_id, kind })) => {
                if let Some(play_answer::Kind::Watch(w)) = &kind
                    && let Some(f) = st.feeds.get_mut(&w.match_id)
                {
                    f.started = true;
                }
                if let Some(Pending::Reply(r)) = st.pending.remove(&request_id) {
                    let _ = r.send(kind.ok_or_else(|| Status::internal("an empty answer")));
                }
            }
            Some(play_response::Kind::Error(v1::PlayError { request_id, status })) => {
                let status = status.as_ref().map_or_else(|| Status::unknown(""), status_of);
                match st.pending.remove(&request_id) {
                    Some(Pending::Reply(r)) => {
                        let _ = r.send(Err(status));
                    }
                    Some(Pending::Resume(match_id)) => {
                        if let Some(f) = st.feeds.remove(&match_id) {
                            f.end(Err(status));
                        }
                    }
                    Some(Pending::Nobody) | None => {}
                }
            }
            Some(play_response::Kind::WatchEnded(v1::WatchEnded { match_id, status })) => {
                let status = status.as_ref().map_or_else(|| Status::unknown(""), status_of);
                if status.code() == Code::Ok {
                    if let Some(f) = st.feeds.remove(&match_id) {
                        f.end(Ok(()));
                    }
                } else if resumable(&status) || status.code() == Code::ResourceExhausted {
                    if let Some(f) = st.feeds.get(&match_id) {
                        resume.push((match_id, f.cursor, f.options));
                    }
                } else if let Some(f) = st.feeds.remove(&match_id) {
                    f.end(Err(status));
                }
            }
            None => {}
        }
        resume
    }

    /// A new stream replaces the broken one: the requests in flight fail UNAVAILABLE (to
    /// be retried), the started watches are resumed where they stood (returned).
    fn reopened(&self, tx: mpsc::Sender<v1::PlayRequest>) -> Vec<(String, Cursor, WatchOptions)> {
        self.reopens.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let mut st = self.lock();
        st.tx = Some(tx);
        for (_, p) in std::mem::take(&mut st.pending) {
            if let Pending::Reply(r) = p {
                let _ = r.send(Err(Status::unavailable(
                    "the Play stream broke before the answer; retry (the same idempotency key)",
                )));
            }
        }
        st.feeds
            .iter()
            .filter(|(_, f)| f.started)
            .map(|(id, f)| (id.clone(), f.cursor, f.options))
            .collect()
    }

    /// Watches again each of `watches` from its cursor.
    async fn resume(&self, watches: Vec<(String, Cursor, WatchOptions)>) {
        for (match_id, cursor, options) in watches {
            let kind =
                play_request::Kind::Watch(crate::requests::watch(&match_id, cursor, options));
            if let Ok((tx, req)) = self.register(kind, Pending::Resume(match_id)) {
                // A stream that broke meanwhile is reopened, and these resumed again.
                let _ = tx.send(req).await;
            }
        }
    }
}

/// Runs the stream: reads every message, hands it on; reopens a broken stream.
async fn run(shared: Arc<Shared>, client: Client, mut stream: PlayStream) {
    loop {
        let status = loop {
            match stream.message().await {
                Ok(Some(m)) => {
                    let resume = shared.dispatch(m);
                    if !resume.is_empty() {
                        resume_apart(&shared, resume);
                    }
                }
                // The gateway ends a stream cleanly only once the client closed its side,
                // which a running Play never does: whatever ended it, its watches and
                // requests go on on a new one.
                Ok(None) => break Status::unavailable("the gateway ended the Play stream"),
                Err(s) => break s,
            }
        };
        if !resumable(&status) {
            shared.close(status);
            return;
        }
        let mut attempt = 0;
        stream = loop {
            attempt += 1;
            tokio::time::sleep(Duration::from_millis(50 << attempt.min(6))).await;
            match client.play_stream().await {
                Ok(s) => break s,
                Err(s) if resumable(&s) && attempt < REOPENS => {}
                Err(s) => {
                    shared.close(s);
                    return;
                }
            }
        };
        let resume = shared.reopened(stream.tx.clone());
        resume_apart(&shared, resume);
    }
}

/// Resumes `watches` in a task of their own: their requests may wait for the gateway to
/// read them, which waits for this stream's messages to be read.
fn resume_apart(shared: &Arc<Shared>, watches: Vec<(String, Cursor, WatchOptions)>) {
    let shared = shared.clone();
    tokio::spawn(async move { shared.resume(watches).await });
}

impl Play {
    /// Opens the Play stream of `client`'s session and starts its task.
    ///
    /// # Errors
    /// As [`Client::play_stream`].
    pub async fn open(client: Client) -> Result<Play, Status> {
        let stream = client.play_stream().await?;
        let shared = Arc::new(Shared::default());
        shared.lock().tx = Some(stream.tx.clone());
        let task = tokio::spawn(run(shared.clone(), client, stream)).abort_handle();
        Ok(Play { handle: Arc::new(Handle { shared, task }) })
    }

    fn shared(&self) -> &Shared {
        &self.handle.shared
    }

    /// Whether the stream closed for good (a refusal that is not retried, or reopening
    /// failed): every request and watch on it now fails at once.
    pub fn is_closed(&self) -> bool {
        self.shared().lock().closed.is_some()
    }

    /// How many times the stream broke and was reopened (every watch resumed).
    pub fn reopens(&self) -> u64 {
        self.shared().reopens.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Sends a request of `kind`; its answer.
    async fn ask(&self, kind: play_request::Kind) -> Result<play_answer::Kind, Status> {
        let (reply, answer) = oneshot::channel();
        let (tx, req) = self.shared().register(kind, Pending::Reply(reply))?;
        // A send that fails is answered by the reopening (or the closing) of the stream.
        let _ = tx.send(req).await;
        answer.await.unwrap_or_else(|_| Err(closed()))
    }

    /// SubmitMove on the stream.
    ///
    /// # Errors
    /// The refusal SubmitMove would answer; UNAVAILABLE when the stream broke first.
    pub async fn submit(
        &self,
        match_id: &str,
        mv: Option<v1::Move>,
        idempotency_key: &str,
    ) -> Result<v1::SubmitMoveResponse, Status> {
        let kind = play_request::Kind::SubmitMove(submit_request(match_id, mv, idempotency_key));
        match self.ask(kind).await? {
            play_answer::Kind::SubmitMove(r) => Ok(r),
            _ => Err(Status::internal("a submit answered as another request")),
        }
    }

    /// Resign on the stream; the match's version after it.
    ///
    /// # Errors
    /// The refusal Resign would answer; UNAVAILABLE when the stream broke first.
    pub async fn resign(&self, match_id: &str) -> Result<u64, Status> {
        let kind = play_request::Kind::Resign(v1::ResignRequest { match_id: match_id.to_string() });
        match self.ask(kind).await? {
            play_answer::Kind::Resign(r) => Ok(r.version),
            _ => Err(Status::internal("a resign answered as another request")),
        }
    }

    /// Watches `match_id` from `from` on the stream: its messages come on the feed, as
    /// WatchMatch's would. Dropping the feed unwatches the match.
    ///
    /// # Errors
    /// The refusal WatchMatch would answer (ALREADY_EXISTS: this stream already watches
    /// the match); UNAVAILABLE when the stream broke first.
    pub async fn watch(
        &self,
        match_id: &str,
        from: Cursor,
        include_views: bool,
    ) -> Result<Feed, Status> {
        self.watch_with(match_id, from, WatchOptions::views(include_views)).await
    }

    /// Watches `match_id` from `from` on the stream, asking for what `options` names (the
    /// seats' presence too: read it with [`crate::presence`]); otherwise as [`Play::watch`].
    /// A watch resumed after a break asks for the same.
    ///
    /// # Errors
    /// As [`Play::watch`].
    pub async fn watch_with(
        &self,
        match_id: &str,
        from: Cursor,
        options: WatchOptions,
    ) -> Result<Feed, Status> {
        let (tx, rx) = mpsc::unbounded_channel();
        let end = Arc::new(Mutex::new(None));
        {
            let mut st = self.shared().lock();
            if st.feeds.contains_key(match_id) {
                return Err(Status::already_exists("this Play already watches the match"));
            }
            let feed = FeedState { tx, cursor: from, options, started: false, end: end.clone() };
            st.feeds.insert(match_id.to_string(), feed);
        }
        let kind = play_request::Kind::Watch(crate::requests::watch(match_id, from, options));
        match self.ask(kind).await {
            Ok(play_answer::Kind::Watch(_)) => {
                Ok(Feed { rx, end, match_id: match_id.to_string(), play: self.clone() })
            }
            other => {
                let mut st = self.shared().lock();
                if st.feeds.get(match_id).is_some_and(|f| Arc::ptr_eq(&f.end, &end)) {
                    st.feeds.remove(match_id);
                }
                Err(other.err().unwrap_or_else(|| Status::internal("a watch answered as another")))
            }
        }
    }
}

/// One watch of a [`Play`]: the match's messages, as WatchMatch's stream would bring them
/// (a resumed stream included). Keeps its Play open; dropping it unwatches the match.
pub struct Feed {
    rx: mpsc::UnboundedReceiver<Result<v1::WatchMatchResponse, Status>>,
    end: Arc<Mutex<Option<Result<(), Status>>>>,
    match_id: String,
    play: Play,
}

impl Feed {
    /// The next message; `None` after the match's last.
    ///
    /// # Errors
    /// How the watch ended otherwise (a final refusal, or the stream closed for good).
    pub async fn message(&mut self) -> Result<Option<v1::WatchMatchResponse>, Status> {
        match self.rx.recv().await {
            Some(m) => m.map(Some),
            None => match self.end.lock().expect("the feed's end lock").take() {
                Some(Ok(())) => Ok(None),
                Some(Err(s)) => Err(s),
                None => Err(closed()),
            },
        }
    }
}

impl Drop for Feed {
    fn drop(&mut self) {
        let shared = self.play.shared();
        let mut st = shared.lock();
        let ours = st.feeds.get(&self.match_id).is_some_and(|f| Arc::ptr_eq(&f.end, &self.end));
        if !ours {
            return;
        }
        st.feeds.remove(&self.match_id);
        drop(st);
        let u = v1::UnwatchRequest { match_id: self.match_id.clone() };
        if let Ok((tx, req)) = shared.register(play_request::Kind::Unwatch(u), Pending::Nobody) {
            // A full queue skips it: the task drops what comes of an unknown match.
            let _ = tx.try_send(req);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn broken_streams_and_retryable_codes_resume_and_refusals_do_not() {
        assert!(resumable(&Status::unavailable("gateway stopping")));
        assert!(resumable(&Status::aborted("another replica")));
        assert!(!resumable(&Status::unauthenticated("logged out")));
        assert!(!resumable(&Status::invalid_argument("garbled")));
        // A connection reset under the client: a status with a source.
        let reset = Status::from_error(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "reset",
        )));
        assert!(resumable(&reset));
        assert!(!resumable(&Status::unknown("a bug the gateway sent")));
    }

    #[test]
    fn a_watch_ended_ok_ends_the_feed_and_a_behind_one_is_resumed_from_its_cursor() {
        let shared = Shared::default();
        let (tx, mut rx) = mpsc::unbounded_channel();
        let end = Arc::new(Mutex::new(None));
        let feed = FeedState {
            tx,
            cursor: Cursor::START,
            options: WatchOptions::ALL,
            started: true,
            end: end.clone(),
        };
        shared.lock().feeds.insert("m".into(), feed);
        let message = v1::WatchMatchResponse { version: 3, index: 1, tag: 9, ..Default::default() };
        let m = play_response::Kind::MatchMessage(v1::MatchMessage {
            match_id: "m".into(),
            message: Some(message.clone()),
        });
        assert!(shared.dispatch(v1::PlayResponse { kind: Some(m) }).is_empty());
        assert_eq!(rx.try_recv().unwrap().unwrap(), message);
        // A presence message reaches the feed and leaves the cursor where it was.
        let presence = v1::WatchMatchResponse {
            presence: Some(v1::SeatPresence { connected: vec![false, true] }),
            ..message.clone()
        };
        let p = play_response::Kind::MatchMessage(v1::MatchMessage {
            match_id: "m".into(),
            message: Some(presence.clone()),
        });
        assert!(shared.dispatch(v1::PlayResponse { kind: Some(p) }).is_empty());
        assert_eq!(rx.try_recv().unwrap().unwrap(), presence);
        let ended = |code: Code| v1::PlayResponse {
            kind: Some(play_response::Kind::WatchEnded(v1::WatchEnded {
                match_id: "m".into(),
                status: Some(v1::CallStatus { code: code as i32, ..Default::default() }),
            })),
        };
        let resume = shared.dispatch(ended(Code::ResourceExhausted));
        let at = Cursor { version: 3, index: Some(1), tag: Some(9) };
        assert_eq!(resume, vec![("m".to_string(), at, WatchOptions::ALL)]);
        assert!(shared.dispatch(ended(Code::Ok)).is_empty());
        assert!(shared.lock().feeds.is_empty());
        assert!(matches!(*end.lock().unwrap(), Some(Ok(()))));
    }
}
