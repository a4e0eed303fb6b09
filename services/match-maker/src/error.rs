//! What can go wrong in the match-maker, in its own terms, and the one match that turns
//! each into the status a client receives (through the gateway, which passes it on). The
//! status mechanics are `service_kit::status`'s.

use api_convert::FieldError;
use engines::CallError;
use service_kit::status::{self, Reason};
use std::fmt;
use store::{StoreError, TicketId};
use tonic::{Code, Status};

/// Why a lobby request failed.
#[derive(Debug)]
pub enum Error {
    /// A request field is malformed.
    Field(FieldError),
    /// The call carries no caller (the gateway authenticates and names the player).
    NoCaller,
    /// Login's email and password name no account (either may be wrong: one answer).
    BadCredentials,
    /// Too many login attempts for the account or from the address.
    RateLimited {
        /// Milliseconds until another attempt is counted.
        retry_after_ms: u64,
    },
    /// Register's email has an account.
    EmailTaken,
    /// A guest session asked for what needs an account (`what`).
    AccountRequired(&'static str),
    /// ChangePassword's old password is wrong.
    WrongPassword,
    /// The caller has a live ticket in the queue under another key.
    TicketLive(TicketId),
    /// The idempotency key was used for another queue or kind of ticket.
    KeyReused,
    /// The player holds as many live tickets as one may.
    TooManyTickets {
        /// How many a player may hold.
        limit: usize,
    },
    /// No such ticket of the caller's.
    NoSuchTicket,
    /// The seek was taken, cancelled or expired first, or is no seek.
    SeekGone,
    /// A player tried to accept their own seek.
    OwnSeek,
    /// The player is not on the board asked about.
    NotOnBoard,
    /// The queue asked for is no queue (unknown game, bad options or time): what.
    BadQueue(String),
    /// Hashing a password failed (never with valid parameters).
    Hashing(String),
    /// The ratings refused a result (a bug, or a corrupt stored rating).
    Rating(String),
    /// The store failed.
    Store(StoreError),
    /// A rules engine did not answer or refused.
    Engine(CallError),
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Field(e) => write!(f, "{e}"),
            Error::NoCaller => f.write_str("no session: log in, or start a guest session"),
            Error::BadCredentials => f.write_str("wrong email or password"),
            Error::RateLimited { retry_after_ms } => {
                write!(f, "too many login attempts; retry after {retry_after_ms} ms")
            }
            Error::EmailTaken => f.write_str("this email already has an account; log in"),
            Error::AccountRequired(what) => {
                write!(f, "{what} needs an account: register or log in (guests play casual)")
            }
            Error::WrongPassword => f.write_str("old_password is wrong"),
            Error::TicketLive(id) => {
                write!(f, "you already have ticket {id} waiting in this queue")
            }
            Error::KeyReused => {
                f.write_str("the idempotency key was used for another queue or kind of ticket")
            }
            Error::NoSuchTicket => f.write_str("no such ticket of yours"),
            Error::TooManyTickets { limit } => {
                write!(f, "you hold {limit} live tickets already; cancel one first")
            }
            Error::SeekGone => f.write_str("the seek is no longer open"),
            Error::OwnSeek => f.write_str("you cannot accept your own seek"),
            Error::NotOnBoard => f.write_str("the player is not on this board"),
            Error::BadQueue(what) => f.write_str(what),
            Error::Hashing(e) => write!(f, "password hashing: {e}"),
            Error::Rating(e) => write!(f, "rating: {e}"),
            Error::Store(e) => write!(f, "store: {e}"),
            Error::Engine(e) => write!(f, "{e}"),
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

/// The one mapping of the match-maker's errors to statuses.
impl From<Error> for Status {
    fn from(e: Error) -> Status {
        let message = e.to_string();
        match e {
            Error::Field(e) => e.into(),
            Error::Engine(e) => e.into(),
            Error::Store(e) => e.into(),
            Error::NoCaller => status::refuse(Code::Unauthenticated, message),
            // A wrong old password is a bad credential too, told apart from an expired
            // session (reason UNAUTHENTICATED) by its reason.
            Error::BadCredentials | Error::WrongPassword => {
                status::refuse_with(Code::Unauthenticated, Reason::BadCredentials, message)
            }
            Error::RateLimited { retry_after_ms } => status::refusal_status(
                Code::ResourceExhausted,
                message,
                Reason::RateLimited,
                &[("retry_after_ms", retry_after_ms.to_string())],
                |_| {},
            ),
            Error::EmailTaken => {
                status::refuse_with(Code::AlreadyExists, Reason::EmailTaken, message)
            }
            Error::AccountRequired(_) => {
                status::refuse_with(Code::PermissionDenied, Reason::AccountRequired, message)
            }
            Error::TicketLive(id) => status::refusal_status(
                Code::AlreadyExists,
                message,
                Reason::TicketLive,
                &[("ticket_id", id.to_string())],
                |_| {},
            ),
            Error::KeyReused => status::refuse(Code::AlreadyExists, message),
            Error::TooManyTickets { .. } => status::refuse(Code::ResourceExhausted, message),
            Error::SeekGone => status::refuse(Code::FailedPrecondition, message),
            Error::OwnSeek | Error::BadQueue(_) => status::refuse(Code::InvalidArgument, message),
            Error::NoSuchTicket | Error::NotOnBoard => status::refuse(Code::NotFound, message),
            Error::Hashing(_) | Error::Rating(_) => status::internal(message),
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
        let s: Status = Error::BadCredentials.into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::Unauthenticated, "BAD_CREDENTIALS"));
        let s: Status = Error::RateLimited { retry_after_ms: 1200 }.into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::ResourceExhausted, "RATE_LIMITED"));
        let info = s.get_error_details().error_info().cloned().expect("error info");
        assert_eq!(info.metadata.get("retry_after_ms").map(String::as_str), Some("1200"));
        let s: Status = Error::AccountRequired("rated play").into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::PermissionDenied, "ACCOUNT_REQUIRED"));
        let s: Status = Error::EmailTaken.into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::AlreadyExists, "EMAIL_TAKEN"));
        let id = TicketId::random();
        let s: Status = Error::TicketLive(id).into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::AlreadyExists, "TICKET_LIVE"));
        let s: Status = Error::WrongPassword.into();
        assert_eq!((s.code(), reason(&s).as_str()), (Code::Unauthenticated, "BAD_CREDENTIALS"));
        let s: Status = Error::Store(StoreError::Redis("10.0.0.7 refused".into())).into();
        assert_eq!(s.code(), Code::Unavailable);
        assert!(!s.message().contains("10.0.0.7"));
        let s: Status = Error::Hashing("params".into()).into();
        assert_eq!((s.code(), s.message()), (Code::Internal, "internal error"));
    }
}
