//! One engine link: a long-lived Steps stream over one connection to an engine replica,
//! carrying every step the gateway or the clock sends it and the answers by request id,
//! instead of an HTTP/2 request and response (and their task wakeups) per move.
//!
//! A link is opened on first use and again after it ends. The engine answers every call it
//! read before it ends a stream with OK, so a call unanswered then was never read and is
//! sent again on a new link; at any other end (a broken connection, an engine killed) a
//! call unanswered is answered UNAVAILABLE: it may have been applied, and the caller's
//! retry with the same idempotency key is safe. A link is retired after [`LINK_AGE`] (new
//! calls open a new stream, on a new connection once the engine's connection age has
//! passed), so replicas an autoscaler adds get links too.

use api::internal::{self, steps_response};
use service_kit::internal::InternalToken;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::{Semaphore, mpsc, oneshot};
use tokio::time::Instant;
use tonic::Status;
use tonic::transport::Channel;

/// The most calls one link has unanswered (the engine reads as many ahead); more wait
/// for room.
pub const MAX_IN_FLIGHT: usize = 256;

/// How long a link carries new calls before a new one is opened beside it (the old one
/// ends once its calls are answered).
pub const LINK_AGE: Duration = Duration::from_secs(60);

/// How long a step may wait for its answer (a step takes milliseconds; this bounds a
/// hung connection that keepalive has not yet found, not the work).
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);

/// How many times a call unanswered at an OK end (never read) is sent again, the n-th
/// after n × [`RESEND_PAUSE`] (a connection that went away is replaced meanwhile).
const RESENDS: u32 = 5;
/// See [`RESENDS`].
const RESEND_PAUSE: Duration = Duration::from_millis(5);

/// A step's answer as the link hands it back.
type Answer = Result<internal::ApplyStepResponse, Status>;

/// Why a step over a link has no answer.
#[derive(Debug)]
pub enum Failed {
    /// The status ApplyStep would have answered, or UNAVAILABLE.
    Status(Status),
    /// The engine has no Steps stream (an engine older than this client, during a
    /// rolling upgrade): the step, unsent, for a unary ApplyStep.
    Unsupported(Box<internal::ApplyStepRequest>),
}

fn unavailable(message: impl Into<String>) -> Failed {
    Failed::Status(Status::unavailable(message))
}

/// What a waiting call hears from its link.
enum Heard {
    /// The engine's answer.
    Answer(Answer),
    /// The link ended with OK before the engine read the call: send it again.
    Unread,
}

/// A client of one connection, stamping the stream with the internal secret once.
type Client = crate::DirectEngineClient;

/// The calls of one open stream that await their answers; closed once the stream ended
/// (a call registered after that is sent on a new stream).
#[derive(Default)]
struct Waiting {
    closed: bool,
    by_id: BTreeMap<u64, oneshot::Sender<Heard>>,
}

/// One open Steps stream: where calls are sent, and who awaits what.
struct Open {
    calls: mpsc::Sender<internal::StepsRequest>,
    waiting: Arc<Mutex<Waiting>>,
    opened: Instant,
}

/// A link to one engine replica over one connection (see the module docs).
pub struct Link {
    client: Client,
    open: Mutex<Option<Arc<Open>>>,
    room: Arc<Semaphore>,
    next_id: AtomicU64,
    /// Set (to a time in ms) when the link broke, so the replica is passed over meanwhile.
    down_until_ms: Arc<AtomicU64>,
}

/// The link's metrics: links opened, calls sent again after an OK end, links broken.
pub mod metric {
    /// Links (Steps streams) opened by this process.
    pub const OPENED: &str = "colosseum_engine_link_opened_total";
    /// Calls sent again because a link ended before the engine read them.
    pub const RESENT: &str = "colosseum_engine_link_resent_total";
    /// Links that broke with calls in flight (each answered UNAVAILABLE).
    pub const BROKEN: &str = "colosseum_engine_link_broken_total";
    /// Their descriptions.
    pub const ALL: &[service_kit::metrics::Desc] = &[
        service_kit::metrics::Desc {
            name: OPENED,
            kind: service_kit::metrics::Kind::Counter,
            help: "Links (Steps streams) opened to the rules engines",
        },
        service_kit::metrics::Desc {
            name: RESENT,
            kind: service_kit::metrics::Kind::Counter,
            help: "Steps sent again because their link ended before the engine read them",
        },
        service_kit::metrics::Desc {
            name: BROKEN,
            kind: service_kit::metrics::Kind::Counter,
            help: "Links to the rules engines that broke (their steps answered UNAVAILABLE)",
        },
    ];
}

/// The process-wide link age, when not [`LINK_AGE`] (0: that); for tests that put links
/// through many retirements.
static AGE_MS: AtomicU64 = AtomicU64::new(0);

/// Links retire after `age` instead of [`LINK_AGE`] from now on, in this process (tests).
pub fn set_link_age(age: Duration) {
    AGE_MS.store(u64::try_from(age.as_millis()).unwrap_or(u64::MAX).max(1), Ordering::Relaxed);
}

fn link_age() -> Duration {
    match AGE_MS.load(Ordering::Relaxed) {
        0 => LINK_AGE,
        ms => Duration::from_millis(ms),
    }
}

impl Link {
    /// A link over `channel` (connected lazily), its stream stamped with `token`; a break
    /// sets `down_until_ms` as a failed call would.
    pub fn new(
        channel: Channel,
        token: Option<&InternalToken>,
        down_until_ms: Arc<AtomicU64>,
    ) -> Self {
        Link {
            client: crate::engine_client(channel, token),
            open: Mutex::new(None),
            room: Arc::new(Semaphore::new(MAX_IN_FLIGHT)),
            next_id: AtomicU64::new(1),
            down_until_ms,
        }
    }

    /// Applies `step` over the link, in trace `traceparent` (empty: none): the engine's
    /// answer, or UNAVAILABLE when the link broke with the step in flight or the engine
    /// did not answer in time (the replica is then passed over for a second).
    ///
    /// # Errors
    /// The status ApplyStep would have answered, or UNAVAILABLE; [`Failed::Unsupported`]
    /// (the step given back) from an engine that has no Steps stream.
    pub async fn step(
        &self,
        step: internal::ApplyStepRequest,
        traceparent: String,
    ) -> Result<internal::ApplyStepResponse, Failed> {
        // Room first: a caller dropped while waiting for room has sent nothing.
        let _room = self.room.acquire().await.map_err(|_| unavailable("the link closed"))?;
        let deadline = Instant::now() + ANSWER_TIMEOUT;
        let mut call = internal::StepsRequest { request_id: 0, step: Some(step), traceparent };
        for attempt in 0..=RESENDS {
            if attempt > 0 {
                tokio::time::sleep(RESEND_PAUSE * attempt).await;
            }
            let (open, id, heard) = self.register()?;
            call.request_id = id;
            // Sending and the answer share one deadline: a stream that no longer takes
            // calls (HTTP/2 flow control stalled) times out as one that does not answer.
            let exchange = async {
                open.calls.send(call.clone()).await.ok()?;
                Some(heard.await)
            };
            match tokio::time::timeout_at(deadline, exchange).await {
                // The stream's sender is gone: nothing of this call was sent.
                Ok(None) => {
                    open.forget(id);
                    self.retire(&open);
                }
                Ok(Some(Ok(Heard::Answer(Err(s))))) if s.code() == tonic::Code::Unimplemented => {
                    // An engine from before the Steps stream (a rolling upgrade).
                    let step = call.step.take().unwrap_or_default();
                    return Err(Failed::Unsupported(Box::new(step)));
                }
                Ok(Some(Ok(Heard::Answer(answer)))) => return answer.map_err(Failed::Status),
                Ok(Some(Ok(Heard::Unread))) => {
                    service_kit::metrics::add(metric::RESENT, 1);
                }
                // The link's reader went away without a word: the call's fate is unknown.
                Ok(Some(Err(_))) => return Err(unavailable("the engine link closed")),
                Err(_) => {
                    open.forget(id);
                    self.stalled(&open);
                    return Err(unavailable(format!(
                        "the engine did not answer the step within {} s",
                        ANSWER_TIMEOUT.as_secs()
                    )));
                }
            }
        }
        Err(unavailable("the engine link kept closing before the step was read"))
    }

    /// The open stream (opened now if there is none, or the one there is has aged or
    /// ended), a new request id, and where its answer will be heard.
    fn register(&self) -> Result<(Arc<Open>, u64, oneshot::Receiver<Heard>), Failed> {
        let poisoned = || Failed::Status(Status::internal("the engine link's lock"));
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = oneshot::channel();
        let mut slot = self.open.lock().map_err(|_| poisoned())?;
        // A stream that ends between its start and the insertion below (an engine that
        // refuses at once) is replaced, a few times at most.
        for _ in 0..3 {
            let current = slot.as_ref().filter(|o| o.opened.elapsed() < link_age()).cloned();
            // Replacing an aged stream drops its sender once its calls are sent: the
            // engine reads to its end, answers and ends it with OK.
            let open = current.unwrap_or_else(|| {
                let open = self.start();
                *slot = Some(open.clone());
                open
            });
            let mut waiting = open.waiting.lock().map_err(|_| poisoned())?;
            if !waiting.closed {
                waiting.by_id.insert(id, tx);
                drop(waiting);
                return Ok((open, id, rx));
            }
            drop(waiting);
            *slot = None;
        }
        Err(unavailable("the engine link closed as it opened"))
    }

    /// The engine did not answer in time: its replica is passed over for a second and new
    /// calls open a new stream.
    fn stalled(&self, open: &Arc<Open>) {
        crate::Watched::note(&self.down_until_ms, true);
        self.retire(open);
    }

    /// Stops sending new calls on `open` (a later call opens a new stream).
    fn retire(&self, open: &Arc<Open>) {
        if let Ok(mut slot) = self.open.lock()
            && slot.as_ref().is_some_and(|o| Arc::ptr_eq(o, open))
        {
            *slot = None;
        }
    }

    /// Opens a stream: a task sends it calls as they come and hands each answer to its
    /// waiting call.
    fn start(&self) -> Arc<Open> {
        service_kit::metrics::add(metric::OPENED, 1);
        let (calls, rx) = mpsc::channel(MAX_IN_FLIGHT);
        let waiting = Arc::new(Mutex::new(Waiting::default()));
        let open = Arc::new(Open { calls, waiting: waiting.clone(), opened: Instant::now() });
        let mut client = self.client.clone();
        let down_until_ms = self.down_until_ms.clone();
        tokio::spawn(async move {
            let outgoing = tokio_stream::wrappers::ReceiverStream::new(rx);
            let ended = match client.steps(outgoing).await {
                Ok(answers) => read(answers.into_inner(), &waiting).await,
                // Refused unsent (a GOAWAY at the engine's connection age): nothing of it
                // was read, as at an OK end.
                Err(s) if client::unsent(&s) => Ok(()),
                Err(s) => Err(s),
            };
            if let Err(s) = &ended {
                service_kit::metrics::add(metric::BROKEN, 1);
                if service_kit::status::is_transport_failure(s) {
                    crate::Watched::note(&down_until_ms, true);
                }
            }
            close(&waiting, ended);
        });
        open
    }
}

impl Open {
    /// Drops the waiting entry of call `id` (it was never sent, or its caller gave up).
    fn forget(&self, id: u64) {
        if let Ok(mut w) = self.waiting.lock() {
            w.by_id.remove(&id);
        }
    }
}

/// Hands each answer on `answers` to its call until the stream ends: `Ok` for an OK end.
async fn read(
    mut answers: tonic::Streaming<internal::StepsResponse>,
    waiting: &Mutex<Waiting>,
) -> Result<(), Status> {
    while let Some(internal::StepsResponse { request_id, answer }) = answers.message().await? {
        let answer = match answer {
            Some(steps_response::Answer::Applied(r)) => Ok(r),
            Some(steps_response::Answer::Refused(r)) => Err(api_convert::status_of_refused(r)),
            None => Err(Status::internal("the engine answered a step with nothing")),
        };
        let to = waiting.lock().ok().and_then(|mut w| w.by_id.remove(&request_id));
        // Its caller may have gone: the step was applied all the same.
        if let Some(to) = to {
            let _ = to.send(Heard::Answer(answer));
        }
    }
    Ok(())
}

/// Tells every call still waiting how the stream ended: never read (an OK end), or, at
/// a break, UNAVAILABLE (it may have been applied); a refusal of the whole stream (the
/// engine did not take the internal secret) is each call's.
fn close(waiting: &Mutex<Waiting>, ended: Result<(), Status>) {
    let Ok(mut w) = waiting.lock() else { return };
    w.closed = true;
    for (_, to) in std::mem::take(&mut w.by_id) {
        let heard = match &ended {
            Ok(()) => Heard::Unread,
            Err(s) if service_kit::status::is_transport_failure(s) => {
                Heard::Answer(Err(Status::unavailable(format!(
                    "the engine link broke with the step in flight (retry it with the same \
                     idempotency key): {}",
                    service_kit::status::clip(s.message())
                ))))
            }
            Err(s) => Heard::Answer(Err(Status::new(s.code(), s.message()))),
        };
        let _ = to.send(heard);
    }
}
