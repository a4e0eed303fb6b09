//! What can go wrong in the tournament service, and the one match that turns each into
//! the status a client receives (through the gateway, which passes it on).

use api_convert::FieldError;
use engines::CallError;
use service_kit::status::{self, Reason};
use std::fmt;
use store::StoreError;
use tonic::{Code, Status};

/// Why a platform request failed.
#[derive(Debug)]
pub enum Error {
    /// A request field is malformed.
    Field(FieldError),
    /// No API key, or not one the platform knows (or revoked).
    BadKey,
    /// The key lacks the call's scope.
    ScopeMissing(&'static str),
    /// CreateMatches refused the whole call: every bad entry, as (field, reason).
    BadEntries(Vec<(String, String)>),
    /// The idempotency key was used for another request.
    KeyReused,
    /// No such thing of the caller's tenant (another tenant's is not found either).
    NotFound(&'static str),
    /// The tournament is not in a state for this; the text says why; the reason.
    NotNow(Reason, String),
    /// Something the caller asked for cannot be (bad format, too many players...).
    Invalid(String),
    /// Another writer moved the tournament on first, too often: retry.
    Busy,
    /// This replica follows as many public watches as it may: retry later.
    TooManyWatches,
    /// The server is shutting down: a watch is to be opened again (another replica).
    ShuttingDown,
    /// The store failed.
    Store(StoreError),
    /// A rules engine did not answer or refused.
    Engine(CallError),
    /// A stored record could not be read (a bug or damage).
    Corrupt(String),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Field(e) => write!(f, "{e}"),
            Error::BadKey => f.write_str(
                "no valid API key: send `authorization: Bearer ck_...` (colosseum tenant key create)",
            ),
            Error::ScopeMissing(scope) => write!(f, "this API key lacks the scope {scope}"),
            Error::BadEntries(bad) => {
                write!(f, "{} bad entries, none created; the first: ", bad.len())?;
                match bad.first() {
                    Some((field, why)) => write!(f, "{field}: {why}"),
                    None => Ok(()),
                }
            }
            Error::KeyReused => f.write_str("the idempotency key was used for another request"),
            Error::NotFound(what) => write!(f, "no such {what}"),
            Error::NotNow(_, why) | Error::Invalid(why) => f.write_str(why),
            Error::Busy => f.write_str("the tournament is busy; retry"),
            Error::TooManyWatches => {
                f.write_str("this server follows too many watches; retry after a backoff")
            }
            Error::ShuttingDown => f.write_str("the server is shutting down; watch again"),
            Error::Store(e) => write!(f, "store: {e}"),
            Error::Engine(e) => write!(f, "{e}"),
            Error::Corrupt(e) => write!(f, "corrupt record: {e}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<FieldError> for Error {
    fn from(e: FieldError) -> Self {
        Error::Field(e)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error::Store(e)
    }
}

impl From<CallError> for Error {
    fn from(e: CallError) -> Self {
        Error::Engine(e)
    }
}

/// The most bytes of field violations a BadRequest carries: it travels in an HTTP/2
/// trailer, and gRPC clients refuse metadata past 8 KiB by default (grpc-core, hyper's
/// 16 KiB). The first violations that fit are listed; the count is in the message and in
/// the ErrorInfo metadata `bad_entries`.
const MAX_VIOLATION_BYTES: usize = 6 * 1024;

/// The one mapping of the service's errors to statuses.
impl From<Error> for Status {
    fn from(e: Error) -> Status {
        let message = e.to_string();
        match e {
            Error::Field(e) => e.into(),
            Error::Engine(e) => e.into(),
            Error::Store(e) => e.into(),
            Error::BadKey => status::refuse(Code::Unauthenticated, message),
            Error::ScopeMissing(scope) => status::refusal_status(
                Code::PermissionDenied,
                message,
                Reason::ScopeMissing,
                &[("scope", scope.to_string())],
                |_| {},
            ),
            Error::BadEntries(bad) => status::refusal_status(
                Code::InvalidArgument,
                message,
                Reason::BadEntries,
                &[("bad_entries", bad.len().to_string())],
                |details| {
                    let mut room = MAX_VIOLATION_BYTES;
                    let violations: Vec<tonic_types::FieldViolation> = bad
                        .into_iter()
                        .map(|(field, why)| (field, service_kit::status::truncate(why, 200)))
                        .take_while(|(field, why)| {
                            let size = field.len() + why.len() + 8;
                            room = room.saturating_sub(size);
                            room > 0
                        })
                        .map(|(field, why)| tonic_types::FieldViolation::new(field, why))
                        .collect();
                    details.set_bad_request(violations);
                },
            ),
            Error::KeyReused => status::refuse(Code::AlreadyExists, message),
            Error::NotFound(_) => status::refuse(Code::NotFound, message),
            Error::NotNow(reason, _) => {
                status::refuse_with(Code::FailedPrecondition, reason, message)
            }
            Error::Invalid(_) => status::refuse(Code::InvalidArgument, message),
            Error::Busy => status::refuse(Code::Aborted, message),
            Error::TooManyWatches => status::refuse(Code::ResourceExhausted, message),
            Error::ShuttingDown => status::refuse(Code::Unavailable, message),
            Error::Corrupt(_) => status::internal(message),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tonic_types::StatusExt;

    fn reason(s: &Status) -> String {
        s.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
    }

    #[test]
    fn errors_map_to_the_codes_and_reasons_the_proto_documents() {
        let s: Status = Error::ScopeMissing("matches:create").into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::PermissionDenied, "SCOPE_MISSING"));
        let bad = vec![
            ("matches[3].game".to_string(), "unknown game".to_string()),
            ("matches[9].seat1_player_id".to_string(), "the same player".to_string()),
        ];
        let s: Status = Error::BadEntries(bad).into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::InvalidArgument, "BAD_ENTRIES"));
        let violations = s.get_error_details().bad_request().cloned().expect("bad request");
        let fields: Vec<&str> =
            violations.field_violations.iter().map(|v| v.field.as_str()).collect();
        assert_eq!(fields, ["matches[3].game", "matches[9].seat1_player_id"]);
        assert!(s.message().starts_with("2 bad entries"), "{}", s.message());
        // Ten thousand bad entries: the first that fit in a trailer, the count in words.
        let many: Vec<(String, String)> = (0..10_000)
            .map(|i| (format!("matches[{i}].game"), format!("unknown game {:?}", "x".repeat(300))))
            .collect();
        let s: Status = Error::BadEntries(many).into();
        let listed = s.get_error_details().bad_request().cloned().expect("bad request");
        assert!((1..100).contains(&listed.field_violations.len()));
        let info = s.get_error_details().error_info().cloned().expect("info");
        assert_eq!(info.metadata.get("bad_entries").map(String::as_str), Some("10000"));
        assert!(s.details().len() < 8 * 1024, "{} bytes of details", s.details().len());
        let s: Status = Error::KeyReused.into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::AlreadyExists, "ALREADY_EXISTS"));
        let s: Status = Error::NotNow(Reason::RoundRunning, "round 2 is running".into()).into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::FailedPrecondition, "ROUND_RUNNING"));
        let s: Status = Error::TooManyWatches.into();
        assert_eq!(
            (s.code(), reason(&s).as_str()),
            (Code::ResourceExhausted, "RESOURCE_EXHAUSTED")
        );
        let s: Status = Error::ShuttingDown.into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::Unavailable, "UNAVAILABLE"));
        let s: Status = Error::Store(StoreError::Redis("10.0.0.7 refused".into())).into();
        assert_eq!(s.code(), Code::Unavailable);
        assert!(!s.message().contains("10.0.0.7"));
    }
}
