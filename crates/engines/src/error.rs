//! What a call to the rules engines can come to, when it is not an answer: no engine to
//! ask, a broken connection, or the engine's own refusal, read back from its status into
//! what it means. The gateway passes these on to its callers as the engine made them (a
//! rules refusal keeps its code, message and conformance code), through the one match in
//! `From<CallError> for Status` below; the clock logs them.

use games::{Family, StepError};
use service_kit::status::{self, MAX_MESSAGE_BYTES, clip, truncate};
use std::fmt;
use tonic::{Code, Status};

/// Why a call to a rules engine did not answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallError {
    /// No game of this name: no family, so no engine, hosts it.
    UnknownGame(String),
    /// No engine was configured for this family.
    NoEngineFor(Family),
    /// The call failed in transport (refused or broken connection, reset stream): the
    /// request may or may not have reached the engine; a retry with the same
    /// idempotency key is safe.
    Unreachable(String),
    /// The rules refused the step (game over, not your turn, bad or illegal move).
    Refused(StepError),
    /// The idempotency key was used before for another move, applied at `version`.
    KeyReused {
        /// The version the key's first move made.
        version: u64,
    },
    /// One field of the request was malformed.
    BadField {
        /// The field, as the proto spells it.
        field: String,
        /// What was wrong with it.
        message: String,
    },
    /// The engine found the request malformed (INVALID_ARGUMENT, OUT_OF_RANGE).
    Invalid(String),
    /// No such match.
    NotFound(String),
    /// The engine refused the caller (PERMISSION_DENIED).
    Denied(String),
    /// The engine did not accept the internal secret.
    Unauthenticated(String),
    /// The match is not in a state for this (FAILED_PRECONDITION: the match is over, the
    /// seat is taken...).
    NotNow(String),
    /// Another replica wrote first (ABORTED): retrying is safe.
    Conflict(String),
    /// What the request would create exists (a match id taken): final.
    Exists(String),
    /// The engine, or what it depends on, is down or busy: retrying later is safe.
    Down(String),
    /// The engine failed (a bug or corrupt data).
    Broken(String),
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CallError::UnknownGame(game) => {
                write!(f, "unknown game {}; the games are {}", clip(game), games::registry::names())
            }
            CallError::NoEngineFor(family) => write!(f, "no rules engine for the {family} family"),
            CallError::Refused(e) => write!(f, "{e}"),
            CallError::KeyReused { version } => {
                write!(f, "the idempotency key was used for another move (version {version})")
            }
            CallError::BadField { message, .. } => f.write_str(message),
            CallError::Unreachable(m)
            | CallError::Invalid(m)
            | CallError::NotFound(m)
            | CallError::Denied(m)
            | CallError::Unauthenticated(m)
            | CallError::NotNow(m)
            | CallError::Conflict(m)
            | CallError::Exists(m)
            | CallError::Down(m)
            | CallError::Broken(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for CallError {}

/// A status received from an engine, read back as what it means: the engine chose its
/// code and message, so passing it on keeps them (and a refusal's conformance code).
///
/// A status that carries a source error was made by our own client, not sent by the
/// engine: the call failed in transport, so it is [`CallError::Unreachable`] whatever
/// code tonic gave it.
impl From<Status> for CallError {
    fn from(s: Status) -> CallError {
        if status::is_transport_failure(&s) {
            return CallError::Unreachable(truncate(
                format!("transport: {}", s.message()),
                MAX_MESSAGE_BYTES,
            ));
        }
        if let Some(step) = api_convert::refusal_of(&s) {
            return CallError::Refused(step);
        }
        if let Some(version) = status::key_reused_of(&s) {
            return CallError::KeyReused { version };
        }
        if let Some((field, message)) = status::bad_field_of(&s) {
            return CallError::BadField { field, message };
        }
        let m = truncate(s.message().to_string(), MAX_MESSAGE_BYTES);
        match s.code() {
            Code::InvalidArgument | Code::OutOfRange => CallError::Invalid(m),
            Code::NotFound => CallError::NotFound(m),
            Code::PermissionDenied => CallError::Denied(m),
            Code::Unauthenticated => CallError::Unauthenticated(m),
            Code::FailedPrecondition => CallError::NotNow(m),
            Code::Aborted => CallError::Conflict(m),
            Code::AlreadyExists => CallError::Exists(m),
            Code::Unavailable
            | Code::DeadlineExceeded
            | Code::ResourceExhausted
            | Code::Cancelled => CallError::Down(m),
            Code::Ok | Code::Unknown | Code::Internal | Code::Unimplemented | Code::DataLoss => {
                CallError::Broken(m)
            }
        }
    }
}

/// The one mapping of a call's failure to the status its caller answers.
impl From<CallError> for Status {
    fn from(e: CallError) -> Status {
        match e {
            CallError::UnknownGame(_) => status::refuse(Code::InvalidArgument, e.to_string()),
            CallError::NoEngineFor(_) | CallError::Unreachable(_) | CallError::Down(_) => {
                status::unavailable(e)
            }
            CallError::Refused(step) => api_convert::refusal_status(&step),
            CallError::KeyReused { version } => status::key_reused(version),
            CallError::BadField { field, message } => status::bad_field(field, message),
            CallError::Invalid(m) => status::refuse(Code::InvalidArgument, m),
            CallError::NotFound(m) => status::refuse(Code::NotFound, m),
            CallError::Denied(m) => status::refuse(Code::PermissionDenied, m),
            CallError::Unauthenticated(m) => status::refuse(Code::Unauthenticated, m),
            CallError::NotNow(m) => status::refuse(Code::FailedPrecondition, m),
            CallError::Conflict(m) => status::refuse(Code::Aborted, m),
            CallError::Exists(m) => status::refuse(Code::AlreadyExists, m),
            CallError::Broken(m) => status::internal(m),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules_core::ErrorCode;
    use service_kit::status::ERROR_CODE_KEY;

    fn passed_on(s: Status) -> Status {
        CallError::from(s).into()
    }

    #[test]
    fn a_relayed_refusal_keeps_its_conformance_code() {
        let sent = api_convert::refusal_status(&StepError {
            code: ErrorCode::IllegalMove,
            message: "card 5 was already played".into(),
        });
        let s = passed_on(sent);
        assert_eq!(s.code(), Code::FailedPrecondition);
        assert_eq!(s.message(), "illegal_move: card 5 was already played");
        assert_eq!(s.metadata().get(ERROR_CODE_KEY).unwrap(), "illegal_move");
        let bad = passed_on(api_convert::refusal_status(&StepError {
            code: ErrorCode::BadMove,
            message: "x".into(),
        }));
        assert_eq!((bad.code(), bad.message()), (Code::InvalidArgument, "bad_move: x"));
        assert_eq!(bad.metadata().get(ERROR_CODE_KEY).unwrap(), "bad_move");
        // Without the key a status passes on as it came.
        let plain = passed_on(Status::failed_precondition("the match is full"));
        assert_eq!(plain.message(), "the match is full");
        assert!(plain.metadata().get(ERROR_CODE_KEY).is_none());
    }

    #[test]
    fn details_survive_a_relay() {
        assert_eq!(CallError::from(status::key_reused(7)), CallError::KeyReused { version: 7 });
        let again = passed_on(status::bad_field("match_id".into(), "m".into()));
        assert_eq!(status::bad_field_of(&again), Some(("match_id".into(), "m".into())));
        let taken = passed_on(status::refuse(Code::AlreadyExists, "match x already exists"));
        assert!(matches!(CallError::from(taken), CallError::Exists(_)));
    }

    #[test]
    fn transport_failures_answer_unavailable() {
        let broken = Status::from_error(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "connection reset",
        )));
        assert!(matches!(CallError::from(broken), CallError::Unreachable(_)));
        // Sent by the callee (no source): its code stands.
        assert!(matches!(CallError::from(Status::unknown("a bug")), CallError::Broken(_)));
        assert!(matches!(CallError::from(Status::internal("a bug")), CallError::Broken(_)));
        // Still retryable.
        for code in [Code::Unavailable, Code::DeadlineExceeded, Code::Cancelled] {
            assert_eq!(passed_on(Status::new(code, "x")).code(), Code::Unavailable, "{code:?}");
        }
        assert_eq!(passed_on(Status::aborted("another replica")).code(), Code::Aborted);
    }
}
