//! The engine's gRPC face (`colosseum.internal.v1.RulesEngineService`): decode, call the
//! engine, encode. Errors become statuses in `crate::error` only.

use crate::engine::{Answer, Engine, StepResult};
use crate::error::EngineError;
use api::internal::{
    self, apply_step_request, apply_step_response, rules_engine_service_server as srv,
};
use api_convert::{holder_from_proto, holder_to_proto, match_id, player_id as player_id_of, seat};
use futures_util::FutureExt;
use games::host::StepIn;
use rules_core::{Seat, Viewer};
use service_kit::telemetry::TraceContext;
use std::pin::Pin;
use std::sync::Arc;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status, Streaming};
use tracing::Instrument;

/// The gRPC service over an engine.
#[derive(Clone)]
pub struct RulesEngineApi {
    engine: Arc<Engine>,
    /// Cancelled when the engine shuts down: Steps streams stop reading, answer what they
    /// read, and end.
    draining: CancellationToken,
}

/// The most calls of one Steps stream read ahead of their answers: the next waits in the
/// stream (the caller bounds its own the same).
pub const MAX_LINK_IN_FLIGHT: usize = 256;

/// The most matches one CreateMatches call creates.
pub const MAX_CREATED_AT_ONCE: usize = 1_024;

impl RulesEngineApi {
    /// Creates one match of a CreateMatch or CreateMatches call: its seed commitment.
    async fn create_one(&self, req: internal::CreateMatchRequest) -> Result<String, Status> {
        let internal::CreateMatchRequest {
            match_id: id,
            game,
            options_json,
            seat0,
            seat1,
            move_time_ms,
            listed,
        } = req;
        let id = match_id(&id)?;
        let span = tracing::info_span!("create_match", match_id = %id, game = %game);
        let commitment = self
            .engine
            .create(
                id,
                &game,
                &options_json,
                [holder_from_proto(seat0)?, holder_from_proto(seat1)?],
                move_time_ms,
                listed,
            )
            .instrument(span)
            .await?;
        Ok(commitment)
    }

    /// Serves `engine`; Steps streams end once `draining` is cancelled (the server's
    /// shutdown: a graceful shutdown waits for every stream to end).
    pub fn new(engine: Arc<Engine>, draining: CancellationToken) -> Self {
        RulesEngineApi { engine, draining }
    }

    /// One step of an ApplyStep call or a Steps stream, in the caller's trace `trace`.
    async fn step(
        &self,
        req: internal::ApplyStepRequest,
        trace: TraceContext,
    ) -> Result<internal::ApplyStepResponse, Status> {
        let internal::ApplyStepRequest { match_id: id, step, idempotency_key } = req;
        let id = match_id(&id)?;
        let span = tracing::info_span!("apply_step", match_id = %id, trace_id = %trace.trace_hex());
        let trace = service_kit::telemetry::adopt(&span, &trace);
        let key = Some(idempotency_key).filter(|k| !k.is_empty());
        let (step, fence) = match step {
            Some(apply_step_request::Step::Move(internal::SeatMove { seat: s, r#move })) => {
                let mv = r#move.ok_or(EngineError::NoMove)?;
                (StepIn::Move { seat: seat(s)?, mv }, None)
            }
            Some(apply_step_request::Step::Deadline(internal::Deadline { fence_version })) => {
                (StepIn::Deadline, Some(fence_version))
            }
            Some(apply_step_request::Step::Resign(s)) => (StepIn::Resign(seat(s)?), None),
            None => {
                return Err(EngineError::NoStep.into());
            }
        };
        let result = self
            .engine
            .step(id, step, fence, key, Some(trace.to_string()))
            .instrument(span)
            .await?;
        Ok(answer(result))
    }

    /// Reads a Steps stream's calls until it ends, breaks or the engine drains, each step
    /// on a task of its own that answers on `answers` (so a step runs to its end whatever
    /// the caller does); at most [`MAX_LINK_IN_FLIGHT`] unanswered.
    async fn serve_link(
        self,
        mut calls: Streaming<internal::StepsRequest>,
        answers: tokio::sync::mpsc::Sender<Result<internal::StepsResponse, Status>>,
    ) {
        let room = Arc::new(tokio::sync::Semaphore::new(MAX_LINK_IN_FLIGHT));
        loop {
            let Ok(permit) = room.clone().acquire_owned().await else { return };
            let call = tokio::select! {
                () = self.draining.cancelled() => return,
                call = calls.message() => call,
            };
            let internal::StepsRequest { request_id, step, traceparent } = match call {
                Ok(Some(call)) => call,
                // The caller half-closed: what was read is answered, then the stream
                // ends with OK.
                Ok(None) => return,
                // The request stream broke (or a message was refused): what was read is
                // answered, then the stream ends with that status, never OK, which would
                // tell the caller every call not yet answered was unread.
                Err(status) => {
                    drop(permit);
                    let all = u32::try_from(MAX_LINK_IN_FLIGHT).unwrap_or(u32::MAX);
                    let _answered = room.acquire_many(all).await;
                    let _ = answers.send(Err(status)).await;
                    return;
                }
            };
            let (api, answers) = (self.clone(), answers.clone());
            tokio::spawn(async move {
                let trace = TraceContext::parse(&traceparent).unwrap_or_else(TraceContext::root);
                let step = async {
                    match step {
                        Some(step) => api.step(step, trace).await,
                        None => Err(EngineError::NoStep.into()),
                    }
                };
                // A call read is always answered: a panic would otherwise leave it
                // unanswered at an OK end, which tells the caller to send it again.
                let answer = std::panic::AssertUnwindSafe(step).catch_unwind().await;
                let answer = answer.unwrap_or_else(|_| Err(Status::internal("the step failed")));
                let answer = match answer {
                    Ok(r) => internal::steps_response::Answer::Applied(r),
                    Err(s) => internal::steps_response::Answer::Refused(
                        api_convert::refused_of_status(&s),
                    ),
                };
                let answer = internal::StepsResponse { request_id, answer: Some(answer) };
                // A caller gone has no one to tell: the step is applied all the same.
                let _ = answers.send(Ok(answer)).await;
                drop(permit);
            });
        }
    }

    /// The tonic service.
    pub fn into_service(self) -> srv::RulesEngineServiceServer<Self> {
        srv::RulesEngineServiceServer::new(self)
            .max_decoding_message_size(service_kit::serve::MAX_REQUEST_BYTES)
    }
}

#[tonic::async_trait]
impl srv::RulesEngineService for RulesEngineApi {
    async fn create_match(
        &self,
        req: Request<internal::CreateMatchRequest>,
    ) -> Result<Response<internal::CreateMatchResponse>, Status> {
        let seed_commitment = self.create_one(req.into_inner()).await?;
        Ok(Response::new(internal::CreateMatchResponse { seed_commitment }))
    }

    async fn create_matches(
        &self,
        req: Request<internal::CreateMatchesRequest>,
    ) -> Result<Response<internal::CreateMatchesResponse>, Status> {
        let matches = req.into_inner().matches;
        if matches.len() > MAX_CREATED_AT_ONCE {
            return Err(EngineError::TooManyMatches(MAX_CREATED_AT_ONCE).into());
        }
        // Side by side, as as many CreateMatch calls would run: each match's writes are its
        // own (its own keys, its own Redis Cluster slot).
        let results = futures_util::future::join_all(matches.into_iter().map(|m| async move {
            match self.create_one(m).await {
                Ok(seed_commitment) => {
                    internal::CreatedMatch { seed_commitment, ..Default::default() }
                }
                Err(status) => internal::CreatedMatch {
                    seed_commitment: String::new(),
                    code: status.code() as i32,
                    message: status.message().to_string(),
                },
            }
        }))
        .await;
        Ok(Response::new(internal::CreateMatchesResponse { results }))
    }

    async fn join_match(
        &self,
        req: Request<internal::JoinMatchRequest>,
    ) -> Result<Response<internal::JoinMatchResponse>, Status> {
        let internal::JoinMatchRequest { match_id: id, player_id } = req.into_inner();
        let id = match_id(&id)?;
        let seat = self.engine.join(id, player_id_of(&player_id)?).await?;
        Ok(Response::new(internal::JoinMatchResponse { seat: wire::seat_u32(seat) }))
    }

    async fn apply_step(
        &self,
        req: Request<internal::ApplyStepRequest>,
    ) -> Result<Response<internal::ApplyStepResponse>, Status> {
        // The caller's trace context travels in metadata only (a tool's, or the
        // tournament service's resignation; none: a trace of its own starts here).
        let trace = TraceContext::from_metadata(req.metadata());
        Ok(Response::new(self.step(req.into_inner(), trace).await?))
    }

    type StepsStream =
        Pin<Box<dyn futures_util::Stream<Item = Result<internal::StepsResponse, Status>> + Send>>;

    async fn steps(
        &self,
        req: Request<Streaming<internal::StepsRequest>>,
    ) -> Result<Response<Self::StepsStream>, Status> {
        let (answers, rx) = tokio::sync::mpsc::channel(MAX_LINK_IN_FLIGHT);
        let open = crate::metrics::LinkOpen::count();
        tokio::spawn(self.clone().serve_link(req.into_inner(), answers));
        // The stream ends once the reader and every step it started have let go of their
        // senders: every call read is answered first.
        let answers = futures_util::stream::unfold((rx, open), |(mut rx, open)| async move {
            rx.recv().await.map(|a| (a, (rx, open)))
        });
        Ok(Response::new(Box::pin(answers)))
    }

    async fn get_view(
        &self,
        req: Request<internal::GetViewRequest>,
    ) -> Result<Response<internal::GetViewResponse>, Status> {
        let internal::GetViewRequest { match_id: id, seat: s } = req.into_inner();
        let viewer = match s {
            Some(s) => Viewer::Seat(seat(s)?),
            None => Viewer::Spectator,
        };
        let view = self.engine.view(match_id(&id)?, viewer).await?;
        Ok(Response::new(internal::GetViewResponse { view: Some(view) }))
    }

    async fn get_record(
        &self,
        req: Request<internal::GetRecordRequest>,
    ) -> Result<Response<internal::GetRecordResponse>, Status> {
        let internal::GetRecordRequest { match_id: id } = req.into_inner();
        let record_json = self.engine.record(match_id(&id)?).await?;
        let record = api::v1::GetMatchRecordResponse { record_json };
        Ok(Response::new(internal::GetRecordResponse { record: Some(record) }))
    }

    async fn get_meta(
        &self,
        req: Request<internal::GetMetaRequest>,
    ) -> Result<Response<internal::GetMetaResponse>, Status> {
        let internal::GetMetaRequest { match_id: id } = req.into_inner();
        let meta = self.engine.meta(match_id(&id)?).await?;
        Ok(Response::new(meta_response(&meta)))
    }
}

fn answer(a: Answer) -> internal::ApplyStepResponse {
    let outcome = match a.result {
        StepResult::Applied(v) => apply_step_response::Outcome::Applied(v),
        StepResult::Duplicate(v) => apply_step_response::Outcome::Duplicate(v),
        StepResult::Stale(v) => apply_step_response::Outcome::Stale(v),
    };
    internal::ApplyStepResponse { outcome: Some(outcome), seat_version: a.seat_version }
}

/// The public part of a match's metadata (never the seed).
fn meta_response(meta: &store::MatchMeta) -> internal::GetMetaResponse {
    internal::GetMetaResponse {
        game: meta.game.clone(),
        seat0: holder_to_proto(&meta.seats[Seat::ZERO]),
        seat1: holder_to_proto(&meta.seats[Seat::ONE]),
        move_time_ms: meta.move_time_ms,
        commitment: meta.commitment_hex.clone(),
    }
}
