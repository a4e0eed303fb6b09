//! The one mapping from domain errors to gRPC statuses. Handlers return `ServiceError`;
//! this match, with no wildcard arm, decides every code and every `google.rpc.ErrorInfo`
//! reason. Unexpected errors are logged here and answered generically, so no internal
//! detail (or hidden card) reaches a client; every message is bounded, so no input echoed
//! in one can outgrow an HTTP/2 header block.

use games::StepError;
use rules_core::ErrorCode;
use std::fmt;
use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// Why a request failed.
#[derive(Debug)]
pub enum ServiceError {
    /// The rules refused a step (game over, not your turn, bad or illegal move).
    Step(StepError),
    /// The request is malformed: what was wrong.
    InvalidArgument(String),
    /// One field of the request is malformed (too long, not a UUID...): INVALID_ARGUMENT
    /// with a `google.rpc.BadRequest` naming the field.
    BadField {
        /// The field's name as the proto spells it (`match_id`, `move.hexspiel.hex.place`).
        field: String,
        /// What is wrong with it (quoting input only through [`clip`]).
        message: String,
    },
    /// No such match (or session).
    NotFound(String),
    /// The caller may not do this (e.g. move for the other seat).
    PermissionDenied(String),
    /// No valid session token.
    Unauthenticated(String),
    /// The request is valid but the match is not in a state for it.
    FailedPrecondition(String),
    /// Another replica wrote first; retrying is safe.
    Aborted(String),
    /// The thing to create exists already (a match id taken, an idempotency key used for
    /// another request): final, a retry gets the same answer.
    AlreadyExists(String),
    /// The idempotency key was used before for another move, applied at `version`:
    /// ALREADY_EXISTS, with the version in the message and the ErrorInfo metadata.
    KeyReused {
        /// The version the key's first move made.
        version: u64,
    },
    /// A dependency is down (store, rules engine): retrying later is safe.
    Unavailable(String),
    /// A bug or corrupt data: logged, answered generically.
    Internal(String),
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServiceError::Step(e) => write!(f, "{e}"),
            ServiceError::BadField { message, .. } => f.write_str(message),
            ServiceError::KeyReused { version } => write!(
                f,
                "idempotency_key was already used for another move, applied at version {version}"
            ),
            ServiceError::InvalidArgument(m)
            | ServiceError::NotFound(m)
            | ServiceError::PermissionDenied(m)
            | ServiceError::Unauthenticated(m)
            | ServiceError::FailedPrecondition(m)
            | ServiceError::Aborted(m)
            | ServiceError::AlreadyExists(m)
            | ServiceError::Unavailable(m)
            | ServiceError::Internal(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for ServiceError {}

impl From<StepError> for ServiceError {
    fn from(e: StepError) -> Self {
        ServiceError::Step(e)
    }
}

impl From<events::StoreError> for ServiceError {
    fn from(e: events::StoreError) -> Self {
        match e {
            // An answer, not a failure: the caller decides what a taken id means.
            events::StoreError::AlreadyExists(_) => ServiceError::AlreadyExists(e.to_string()),
            _ => ServiceError::Unavailable(format!("event store: {e}")),
        }
    }
}

/// The metadata key carrying a refusal's conformance code (`illegal_move`...).
pub const ERROR_CODE_KEY: &str = "colosseum-error-code";

/// The `google.rpc.ErrorInfo` domain of every Colosseum refusal.
pub const ERROR_DOMAIN: &str = "colosseum.v1";

/// The ErrorInfo reason of a refused idempotency key (see [`ServiceError::KeyReused`]).
pub const REASON_KEY_REUSED: &str = "idempotency_key_reused";

/// The longest status message sent, in bytes: far below HTTP/2 header limits (a peer's
/// default is 16 KiB for the whole block) even once percent-encoded.
pub const MAX_MESSAGE_BYTES: usize = 512;

/// How many characters of a client's input a message may quote.
pub const MAX_QUOTE_CHARS: usize = 40;

/// `s` quoted for an error message, cut to [`MAX_QUOTE_CHARS`] (on a char boundary, with
/// its full length) so a message never echoes unbounded input.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_QUOTE_CHARS) {
        None => format!("{s:?}"),
        Some((end, _)) => format!("{:?}... ({} bytes)", &s[..end], s.len()),
    }
}

/// `m` cut to at most `max` bytes on a char boundary, marked `...` when cut.
pub fn truncate(mut m: String, max: usize) -> String {
    if m.len() <= max {
        return m;
    }
    let mut end = max.saturating_sub(3);
    while !m.is_char_boundary(end) {
        end -= 1;
    }
    m.truncate(end);
    m.push_str("...");
    m
}

/// A status with `code`, the message bounded, and an ErrorInfo of `reason` (domain
/// [`ERROR_DOMAIN`]) carrying `metadata`; `extra` adds more details.
// tonic-types' ErrorInfo takes a HashMap; its order is never read.
#[allow(clippy::disallowed_types)]
pub fn refusal_status(
    code: Code,
    message: impl Into<String>,
    reason: &str,
    metadata: &[(&str, String)],
    extra: impl FnOnce(&mut ErrorDetails),
) -> Status {
    let metadata: std::collections::HashMap<String, String> =
        metadata.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect();
    let mut details = ErrorDetails::new();
    details.set_error_info(reason, ERROR_DOMAIN, metadata);
    extra(&mut details);
    Status::with_error_details(code, truncate(message.into(), MAX_MESSAGE_BYTES), details)
}

fn plain(code: Code, m: String, reason: &str) -> Status {
    refusal_status(code, m, reason, &[], |_| {})
}

impl From<ServiceError> for Status {
    fn from(e: ServiceError) -> Status {
        match e {
            ServiceError::Step(StepError { code, message }) => {
                let grpc = match code {
                    ErrorCode::GameOver | ErrorCode::NotYourTurn | ErrorCode::IllegalMove => {
                        Code::FailedPrecondition
                    }
                    ErrorCode::BadMove => Code::InvalidArgument,
                };
                let reason = code.as_str();
                let mut s = plain(grpc, format!("{reason}: {message}"), reason);
                if let Ok(v) = reason.parse() {
                    s.metadata_mut().insert(ERROR_CODE_KEY, v);
                }
                s
            }
            ServiceError::InvalidArgument(m) => plain(Code::InvalidArgument, m, "invalid_argument"),
            ServiceError::BadField { field, message } => {
                let description = truncate(message.clone(), MAX_MESSAGE_BYTES);
                let meta = [("field", field.clone())];
                refusal_status(Code::InvalidArgument, message, "invalid_field", &meta, |d| {
                    d.add_bad_request_violation(field, description);
                })
            }
            ServiceError::NotFound(m) => plain(Code::NotFound, m, "not_found"),
            ServiceError::PermissionDenied(m) => {
                plain(Code::PermissionDenied, m, "permission_denied")
            }
            ServiceError::Unauthenticated(m) => plain(Code::Unauthenticated, m, "unauthenticated"),
            ServiceError::FailedPrecondition(m) => {
                plain(Code::FailedPrecondition, m, "failed_precondition")
            }
            ServiceError::Aborted(m) => plain(Code::Aborted, m, "aborted"),
            ServiceError::AlreadyExists(m) => plain(Code::AlreadyExists, m, "already_exists"),
            e @ ServiceError::KeyReused { version } => {
                let meta = [("version", version.to_string())];
                refusal_status(Code::AlreadyExists, e.to_string(), REASON_KEY_REUSED, &meta, |_| {})
            }
            ServiceError::Unavailable(m) => {
                tracing::warn!(error = %truncate(m, 4096), "dependency unavailable");
                plain(
                    Code::Unavailable,
                    "a backing service is unavailable; retry shortly".into(),
                    "unavailable",
                )
            }
            ServiceError::Internal(m) => {
                tracing::error!(error = %truncate(m, 4096), "internal error");
                plain(Code::Internal, "internal error".into(), "internal")
            }
        }
    }
}

/// A status received from another service, passed on as a `ServiceError` keeping its code
/// and message (the callee already chose them), and a refusal's conformance code.
///
/// A status that carries a source error was made by our own client, not sent by the
/// callee: the call failed in transport (refused or broken connection, reset stream), so
/// it answers UNAVAILABLE whatever code tonic gave it; the request may or may not have
/// reached the callee, and a retry with the same idempotency key is safe.
pub fn relay(s: Status) -> ServiceError {
    if std::error::Error::source(&s).is_some()
        && matches!(s.code(), Code::Unknown | Code::Internal | Code::Unavailable)
    {
        return ServiceError::Unavailable(truncate(
            format!("transport: {}", s.message()),
            MAX_MESSAGE_BYTES,
        ));
    }
    if let Some(step) = refusal(&s) {
        return ServiceError::Step(step);
    }
    let m = truncate(s.message().to_string(), MAX_MESSAGE_BYTES);
    let details = s.get_error_details();
    if s.code() == Code::AlreadyExists
        && let Some(info) = details.error_info()
        && info.reason == REASON_KEY_REUSED
        && let Some(Ok(version)) = info.metadata.get("version").map(|v| v.parse())
    {
        return ServiceError::KeyReused { version };
    }
    if s.code() == Code::InvalidArgument
        && let Some(v) = details.bad_request().and_then(|b| b.field_violations.first())
    {
        return ServiceError::BadField { field: v.field.clone(), message: m };
    }
    match s.code() {
        Code::InvalidArgument | Code::OutOfRange => ServiceError::InvalidArgument(m),
        Code::NotFound => ServiceError::NotFound(m),
        Code::PermissionDenied => ServiceError::PermissionDenied(m),
        Code::Unauthenticated => ServiceError::Unauthenticated(m),
        Code::FailedPrecondition => ServiceError::FailedPrecondition(m),
        Code::Aborted => ServiceError::Aborted(m),
        Code::AlreadyExists => ServiceError::AlreadyExists(m),
        Code::Unavailable | Code::DeadlineExceeded | Code::ResourceExhausted | Code::Cancelled => {
            ServiceError::Unavailable(m)
        }
        Code::Ok | Code::Unknown | Code::Internal | Code::Unimplemented | Code::DataLoss => {
            ServiceError::Internal(m)
        }
    }
}

/// The rules' refusal a status carries in [`ERROR_CODE_KEY`], rebuilt as it was made (so
/// passing it on keeps its code, message and metadata).
fn refusal(s: &Status) -> Option<StepError> {
    let code = match s.metadata().get(ERROR_CODE_KEY)?.to_str().ok()? {
        "game_over" => ErrorCode::GameOver,
        "not_your_turn" => ErrorCode::NotYourTurn,
        "bad_move" => ErrorCode::BadMove,
        "illegal_move" => ErrorCode::IllegalMove,
        _ => return None,
    };
    let prefix = format!("{}: ", code.as_str());
    let message = s.message().strip_prefix(&prefix).unwrap_or(s.message()).to_string();
    Some(StepError { code, message })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_map_to_their_codes_with_the_conformance_code() {
        let s: Status = ServiceError::Step(StepError {
            code: ErrorCode::IllegalMove,
            message: "card 5 was already played".into(),
        })
        .into();
        assert_eq!(s.code(), Code::FailedPrecondition);
        assert_eq!(s.message(), "illegal_move: card 5 was already played");
        assert_eq!(s.metadata().get(ERROR_CODE_KEY).unwrap(), "illegal_move");
        let s: Status =
            ServiceError::Step(StepError { code: ErrorCode::BadMove, message: "x".into() }).into();
        assert_eq!(s.code(), Code::InvalidArgument);
    }

    #[test]
    fn messages_are_bounded_and_details_survive_a_relay() {
        let huge = "é".repeat(1 << 19);
        let s: Status = ServiceError::InvalidArgument(format!("unknown option {huge}")).into();
        assert!(s.message().len() <= MAX_MESSAGE_BYTES && s.message().ends_with("..."));
        let quoted = clip(&huge);
        assert!(quoted.len() < 120 && quoted.ends_with("(1048576 bytes)"), "{quoted}");
        assert_eq!(clip("ab"), "\"ab\"");
        let reused: Status = ServiceError::KeyReused { version: 7 }.into();
        assert_eq!(reused.code(), Code::AlreadyExists);
        assert!(reused.message().contains("version 7"));
        let info = reused.get_details_error_info().unwrap();
        assert_eq!((info.reason.as_str(), info.domain.as_str()), (REASON_KEY_REUSED, ERROR_DOMAIN));
        assert!(matches!(relay(reused), ServiceError::KeyReused { version: 7 }));
        let bad: Status =
            ServiceError::BadField { field: "match_id".into(), message: "m".into() }.into();
        let again: Status = relay(bad).into();
        let v = &again.get_details_bad_request().unwrap().field_violations[0];
        assert_eq!((v.field.as_str(), again.code()), ("match_id", Code::InvalidArgument));
        let refused: Status =
            ServiceError::Step(StepError { code: ErrorCode::NotYourTurn, message: "x".into() })
                .into();
        assert_eq!(refused.get_details_error_info().unwrap().reason, "not_your_turn");
    }

    #[test]
    fn internal_errors_say_nothing_inside() {
        let s: Status = ServiceError::Internal("seed 1234 in state".into()).into();
        assert_eq!(s.code(), Code::Internal);
        assert!(!s.message().contains("1234"));
    }

    #[test]
    fn a_relayed_refusal_keeps_its_conformance_code() {
        let sent: Status = ServiceError::Step(StepError {
            code: ErrorCode::IllegalMove,
            message: "card 5 was already played".into(),
        })
        .into();
        let passed_on: Status = relay(sent).into();
        assert_eq!(passed_on.code(), Code::FailedPrecondition);
        assert_eq!(passed_on.message(), "illegal_move: card 5 was already played");
        assert_eq!(passed_on.metadata().get(ERROR_CODE_KEY).unwrap(), "illegal_move");
        let bad: Status = relay(
            ServiceError::Step(StepError { code: ErrorCode::BadMove, message: "x".into() }).into(),
        )
        .into();
        assert_eq!((bad.code(), bad.message()), (Code::InvalidArgument, "bad_move: x"));
        assert_eq!(bad.metadata().get(ERROR_CODE_KEY).unwrap(), "bad_move");
        // Without the key a status passes on as it came.
        let plain: Status = relay(Status::failed_precondition("the match is full")).into();
        assert_eq!(plain.message(), "the match is full");
        assert!(plain.metadata().get(ERROR_CODE_KEY).is_none());
    }

    #[test]
    fn transport_failures_answer_unavailable() {
        // As tonic makes them: a status from a local error (a broken connection).
        let broken = Status::from_error(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "connection reset",
        )));
        assert_eq!(broken.code(), Code::Unknown);
        assert!(matches!(relay(broken), ServiceError::Unavailable(_)));
        // Sent by the callee (no source): its code stands.
        assert!(matches!(relay(Status::unknown("a bug")), ServiceError::Internal(_)));
        assert!(matches!(relay(Status::internal("a bug")), ServiceError::Internal(_)));
        // Still retryable.
        for code in [Code::Unavailable, Code::DeadlineExceeded, Code::Cancelled] {
            let s: Status = relay(Status::new(code, "x")).into();
            assert_eq!(s.code(), Code::Unavailable, "{code:?}");
        }
        let s: Status = relay(Status::aborted("another replica")).into();
        assert_eq!(s.code(), Code::Aborted);
    }

    #[test]
    fn a_taken_match_id_is_already_exists() {
        let id: events::MatchId = "6f1e7a52-0000-4000-8000-000000000001".parse().unwrap();
        let e: ServiceError = events::StoreError::AlreadyExists(id).into();
        let s: Status = e.into();
        assert_eq!(s.code(), Code::AlreadyExists);
        assert!(matches!(relay(s), ServiceError::AlreadyExists(_)));
        let down: Status = ServiceError::from(events::StoreError::Redis("x".into())).into();
        assert_eq!(down.code(), Code::Unavailable);
    }
}
