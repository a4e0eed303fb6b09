//! The gateway's match core: the `Gateway` (store, engines, hub), what every way in shares
//! (the caller, a seat, a key's match, the cached metas) and SubmitMove, Resign and
//! WatchMatch for a caller (`*_as`), which the unary handlers ([`crate::public`]) and the
//! Play streams ([`crate::play`]) both call, so the two ways in cannot drift apart.

use crate::auth::Caller;
use crate::error::Error;
use crate::hub::Hub;
use crate::limits::MAX_KEY_LEN;
use api::internal::{self, apply_step_request, apply_step_response};
use api::v1::{self, colosseum_service_server as srv, submit_move_response};
use api_convert::match_id;
use engines::Engines;
use rules_core::{Seat, Viewer};
use service_kit::telemetry::TraceContext;
use std::sync::Arc;
use store::{EventStore, MatchId, MatchMeta, PlayerId, SeatHolder};
use tokio_util::sync::CancellationToken;
use tonic::{Request, Status};
use tracing::Instrument;

/// The gateway's public service.
#[derive(Clone)]
pub struct Gateway {
    pub(crate) store: Arc<dyn EventStore>,
    pub(crate) engines: Engines,
    pub(crate) hub: Arc<Hub>,
    /// Metadata of matches whose seats are all held: it never changes again, so it is
    /// kept instead of read from the store on every request (bounded; cleared when full).
    pub(crate) settled: Arc<service_kit::cache::Bounded<MatchId, Arc<MatchMeta>>>,
    /// Cancelled when the gateway stops: Play streams stop reading and end.
    pub(crate) shutdown: CancellationToken,
    /// VerifyRecord's replays, a few at a time.
    pub(crate) verifier: crate::verify::Verifier,
    /// Finished matches once the store lets them go: their records and each player's
    /// history (none: the cluster keeps no archive).
    pub(crate) archive: Option<Arc<dyn store::ArchiveStore>>,
}

/// How many settled matches' metadata a gateway keeps.
const SETTLED_CAP: usize = 100_000;

impl Gateway {
    /// A gateway over `store` (sessions, streams) and `engines`, stopping with `shutdown`.
    pub fn new(
        store: Arc<dyn EventStore>,
        engines: Engines,
        hub: Arc<Hub>,
        shutdown: CancellationToken,
    ) -> Self {
        Gateway {
            store,
            engines,
            hub,
            settled: Arc::new(service_kit::cache::Bounded::new(SETTLED_CAP, None)),
            shutdown,
            verifier: crate::verify::Verifier::default(),
            archive: None,
        }
    }

    /// The same gateway reading finished matches gone from the store in `archive`.
    #[must_use]
    pub fn with_archive(mut self, archive: Option<Arc<dyn store::ArchiveStore>>) -> Self {
        self.archive = archive;
        self
    }

    /// The event store (sessions, streams).
    pub(crate) fn store(&self) -> &Arc<dyn EventStore> {
        &self.store
    }

    /// Cancelled when the gateway stops.
    pub(crate) fn shutdown(&self) -> &CancellationToken {
        &self.shutdown
    }

    /// The tonic service.
    pub fn into_service(self) -> srv::ColosseumServiceServer<Self> {
        srv::ColosseumServiceServer::new(self)
            .max_decoding_message_size(service_kit::serve::MAX_REQUEST_BYTES)
    }

    pub(crate) async fn meta(&self, id: MatchId) -> Result<Arc<MatchMeta>, Error> {
        let now = service_kit::time::now_ms();
        if let Some(m) = self.settled.get(&id, now) {
            return Ok(m);
        }
        let meta = Arc::new(self.store.meta(id).await?.ok_or(Error::NoSuchMatch(id))?);
        // Only a match with both seats held is kept: its meta no longer changes.
        if meta.all_seated() {
            self.settled.insert(id, meta.clone(), now);
        }
        Ok(meta)
    }
}

/// The caller the authentication layer found for `req`.
pub(crate) fn caller<T>(req: &Request<T>) -> Result<PlayerId, Error> {
    req.extensions().get::<Caller>().map(|c| c.player_id).ok_or(Error::NoSession)
}

/// The seat `player` holds in `meta`, if any.
pub fn seat_of(meta: &MatchMeta, player: PlayerId) -> Option<Seat> {
    Seat::BOTH
        .into_iter()
        .find(|&s| matches!(&meta.seats[s], SeatHolder::Player(p) if *p == player))
}

pub(crate) fn check_key(key: &str) -> Result<(), Error> {
    if key.len() > MAX_KEY_LEN {
        return Err(Error::KeyTooLong);
    }
    Ok(())
}

/// The match a CreateMatch with idempotency key `key` from `player` creates: SHA-256 of
/// the two as a UUID (version 8, RFC 9562's custom form), so every retry names the same
/// match and two players' keys never meet.
pub fn match_for_key(player: PlayerId, key: &str) -> MatchId {
    use sha2::Digest;
    let mut h = sha2::Sha256::new();
    // The player id is 16 bytes: the key that follows cannot shift into it.
    h.update(player.as_uuid().as_bytes());
    h.update(key.as_bytes());
    let digest = h.finalize();
    let mut bytes = [0; 16];
    bytes.copy_from_slice(&digest[..16]);
    MatchId::from(uuid::Builder::from_custom_bytes(bytes).into_uuid())
}

/// A watch begun for a caller: the stream WatchMatch sends, and the caller's seat (none: a
/// spectator).
pub struct Watching {
    /// The match's messages for the caller.
    pub stream: crate::watch::WatchStream,
    /// The caller's seat in the match.
    pub seat: Option<Seat>,
}

/// SubmitMove, Resign and WatchMatch for a caller, each in one place: the unary handlers
/// and Play's requests both call these, so the two ways in cannot drift apart.
impl Gateway {
    /// SubmitMove by `me`, in the trace `trace` (the caller's context: the span joins it).
    ///
    /// # Errors
    /// The refusal SubmitMove answers.
    pub async fn submit_move_as(
        &self,
        me: PlayerId,
        trace: TraceContext,
        req: v1::SubmitMoveRequest,
    ) -> Result<v1::SubmitMoveResponse, Error> {
        crate::limits::submit_move(&req)?;
        let v1::SubmitMoveRequest { match_id: id, r#move, idempotency_key } = req;
        let id = match_id(&id)?;
        let mv = r#move.ok_or(Error::NoMove)?;
        let meta = self.meta(id).await?;
        // Timed by game from here (the edge times the whole call by method): earlier
        // refusals (bad fields, no such match) are no game's latency.
        let _timer = service_kit::metrics::Timer::start(
            crate::metrics::SUBMIT_SECONDS,
            &[("game", &meta.game)],
        );
        let seat = seat_of(&meta, me).ok_or(Error::NotSeated)?;
        let span = tracing::info_span!("submit_move", match_id = %id, seat = seat.index(), trace_id = %trace.trace_hex());
        // The span joins the caller's trace; the engine's span will hang under it.
        let trace = service_kit::telemetry::adopt(&span, &trace);
        let step = internal::ApplyStepRequest {
            match_id: id.to_string(),
            step: Some(apply_step_request::Step::Move(internal::SeatMove {
                seat: wire::seat_u32(seat),
                r#move: Some(mv),
            })),
            // Scoped to the seat: a key can never match the other seat's moves or the
            // clock's `deadline:N` keys (which would drop a deadline).
            idempotency_key: format!("seat{}:{idempotency_key}", seat.index()),
        };
        let resp =
            self.engines.apply_step(&meta.game, id, step, Some(&trace)).instrument(span).await?;
        // The caller's own numbering of versions (it counts only those it can see).
        let version = resp.seat_version;
        let outcome = match resp.outcome {
            Some(apply_step_response::Outcome::Applied(_)) => {
                submit_move_response::Outcome::Accepted(v1::Accepted { version })
            }
            Some(apply_step_response::Outcome::Duplicate(_)) => {
                submit_move_response::Outcome::Duplicate(v1::Accepted { version })
            }
            Some(apply_step_response::Outcome::Stale(_)) | None => {
                return Err(Error::BadEngineAnswer(
                    "the engine answered a move as a stale deadline",
                ));
            }
        };
        Ok(v1::SubmitMoveResponse { outcome: Some(outcome) })
    }

    /// Resign by `me`, in the trace `trace`.
    ///
    /// # Errors
    /// The refusal Resign answers.
    pub async fn resign_as(
        &self,
        me: PlayerId,
        trace: TraceContext,
        req: v1::ResignRequest,
    ) -> Result<v1::ResignResponse, Error> {
        crate::limits::match_only(&req.match_id)?;
        let id = match_id(&req.match_id)?;
        // A span per request, with the match id, for logs and traces.
        let span = tracing::info_span!("resign", match_id = %id, trace_id = %trace.trace_hex());
        let trace = service_kit::telemetry::adopt(&span, &trace);
        let meta = self.meta(id).instrument(span.clone()).await?;
        let seat = seat_of(&meta, me).ok_or(Error::NotSeated)?;
        let step = internal::ApplyStepRequest {
            match_id: id.to_string(),
            step: Some(apply_step_request::Step::Resign(wire::seat_u32(seat))),
            idempotency_key: String::new(),
        };
        let resp =
            self.engines.apply_step(&meta.game, id, step, Some(&trace)).instrument(span).await?;
        let version = match resp.outcome {
            Some(
                apply_step_response::Outcome::Applied(_)
                | apply_step_response::Outcome::Duplicate(_),
            ) => resp.seat_version,
            Some(apply_step_response::Outcome::Stale(_)) | None => 0,
        };
        Ok(v1::ResignResponse { version })
    }

    /// WatchMatch's stream for the caller of `req` (in the trace of its metadata).
    ///
    /// # Errors
    /// The refusal WatchMatch answers.
    pub async fn watch_stream(
        &self,
        req: Request<v1::WatchMatchRequest>,
    ) -> Result<crate::watch::WatchStream, Status> {
        let me = caller(&req)?;
        let trace = TraceContext::from_metadata(req.metadata());
        Ok(self.watch_match_as(me, trace, req.into_inner()).await?.stream)
    }

    /// WatchMatch by `me`, in the trace `trace`: the stream (subscribed to the hub before
    /// its backfill starts, so nothing falls between the two) and `me`'s seat.
    ///
    /// # Errors
    /// The refusal WatchMatch answers.
    pub async fn watch_match_as(
        &self,
        me: PlayerId,
        trace: TraceContext,
        req: v1::WatchMatchRequest,
    ) -> Result<Watching, Error> {
        crate::limits::match_only(&req.match_id)?;
        let v1::WatchMatchRequest {
            match_id: id,
            after_version,
            include_views,
            after_index,
            after_tag,
            include_presence,
        } = req;
        let id = match_id(&id)?;
        // A span per request, with the match id, for logs and traces.
        let span =
            tracing::info_span!("watch_match", match_id = %id, trace_id = %trace.trace_hex());
        let meta = self.meta(id).instrument(span).await?;
        let seat = seat_of(&meta, me);
        let viewer = match seat {
            Some(s) => Viewer::Seat(s),
            None => Viewer::Spectator,
        };
        let last = self.store.last_version(id).await?.unwrap_or(0);
        // Subscribe before backfilling, so nothing falls between the two.
        let notes = self.hub.subscribe(id, last);
        // A seated player's watch holds the seat (its presence) while it lives.
        let hold = seat.map(|s| self.hub.hold(id, s));
        let live = crate::watch::Live { notes, hub: self.hub.clone(), hold };
        let from = crate::watch::Cursor::resume(after_version, after_index);
        let watch = crate::watch::Watch { viewer, include_views, include_presence };
        let stream = crate::watch::stream(self.store.clone(), id, watch, from, after_tag, live);
        Ok(Watching { stream, seat })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_names_one_match_per_player() {
        let (alice, bob) = (PlayerId::random(), PlayerId::random());
        let id = match_for_key(alice, "k1");
        assert_eq!(id, match_for_key(alice, "k1"), "a retry names the same match");
        assert_ne!(id, match_for_key(alice, "k2"));
        assert_ne!(id, match_for_key(bob, "k1"), "keys are the player's own");
        assert_eq!(id.as_uuid().get_version_num(), 8);
        assert_eq!(id.as_uuid().get_variant(), uuid::Variant::RFC4122);
        // The id round-trips through its text, as the API carries it.
        assert_eq!(id.to_string().parse::<MatchId>(), Ok(id));
    }
}
