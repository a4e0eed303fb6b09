//! The one mapping from domain errors to gRPC statuses. Handlers return `ServiceError`;
//! this match, with no wildcard arm, decides every code. Unexpected errors are logged here
//! and answered generically, so no internal detail (or hidden card) reaches a client.

use games::StepError;
use rules_core::ErrorCode;
use std::fmt;
use tonic::{Code, Status};

/// Why a request failed.
#[derive(Debug)]
pub enum ServiceError {
    /// The rules refused a step (game over, not your turn, bad or illegal move).
    Step(StepError),
    /// The request is malformed: what was wrong.
    InvalidArgument(String),
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
    /// A dependency is down (store, rules engine): retrying later is safe.
    Unavailable(String),
    /// A bug or corrupt data: logged, answered generically.
    Internal(String),
}

impl fmt::Display for ServiceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ServiceError::Step(e) => write!(f, "{e}"),
            ServiceError::InvalidArgument(m)
            | ServiceError::NotFound(m)
            | ServiceError::PermissionDenied(m)
            | ServiceError::Unauthenticated(m)
            | ServiceError::FailedPrecondition(m)
            | ServiceError::Aborted(m)
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
        ServiceError::Unavailable(format!("event store: {e}"))
    }
}

/// The metadata key carrying a refusal's conformance code (`illegal_move`...).
pub const ERROR_CODE_KEY: &str = "colosseum-error-code";

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
                let mut s = Status::new(grpc, format!("{}: {message}", code.as_str()));
                if let Ok(v) = code.as_str().parse() {
                    s.metadata_mut().insert(ERROR_CODE_KEY, v);
                }
                s
            }
            ServiceError::InvalidArgument(m) => Status::invalid_argument(m),
            ServiceError::NotFound(m) => Status::not_found(m),
            ServiceError::PermissionDenied(m) => Status::permission_denied(m),
            ServiceError::Unauthenticated(m) => Status::unauthenticated(m),
            ServiceError::FailedPrecondition(m) => Status::failed_precondition(m),
            ServiceError::Aborted(m) => Status::aborted(m),
            ServiceError::Unavailable(m) => {
                tracing::warn!(error = %m, "dependency unavailable");
                Status::unavailable("a backing service is unavailable; retry shortly")
            }
            ServiceError::Internal(m) => {
                tracing::error!(error = %m, "internal error");
                Status::internal("internal error")
            }
        }
    }
}

/// A status received from another service, passed on as a `ServiceError` keeping its code
/// and message (the callee already chose them).
pub fn relay(s: Status) -> ServiceError {
    let m = s.message().to_string();
    match s.code() {
        Code::InvalidArgument | Code::OutOfRange => ServiceError::InvalidArgument(m),
        Code::NotFound => ServiceError::NotFound(m),
        Code::PermissionDenied => ServiceError::PermissionDenied(m),
        Code::Unauthenticated => ServiceError::Unauthenticated(m),
        Code::FailedPrecondition => ServiceError::FailedPrecondition(m),
        Code::Aborted | Code::AlreadyExists => ServiceError::Aborted(m),
        Code::Unavailable | Code::DeadlineExceeded | Code::ResourceExhausted | Code::Cancelled => {
            ServiceError::Unavailable(m)
        }
        Code::Ok | Code::Unknown | Code::Internal | Code::Unimplemented | Code::DataLoss => {
            ServiceError::Internal(m)
        }
    }
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
    fn internal_errors_say_nothing_inside() {
        let s: Status = ServiceError::Internal("seed 1234 in state".into()).into();
        assert_eq!(s.code(), Code::Internal);
        assert!(!s.message().contains("1234"));
    }
}
