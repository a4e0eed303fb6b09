//! What can go wrong in the gateway, in its own terms, and the one match that turns each
//! into the status a client receives. The status mechanics (reasons, details, bounded
//! messages, logging what is internal) are `service_kit::status`'s; an engine's answer is
//! passed on as `engines::CallError` reads it.

use api_convert::FieldError;
use engines::CallError;
use service_kit::status::{self, clip};
use std::fmt;
use store::{MatchId, StoreError};
use tonic::{Code, Status};

/// Why a public request failed.
#[derive(Debug)]
pub enum Error {
    /// A request field is malformed (too long, not a UUID, no such seat...).
    Field(FieldError),
    /// The request carries no session token.
    NoToken,
    /// The token names no session (never issued, or expired).
    UnknownSession,
    /// A handler found no caller (a method the authentication layer did not check).
    NoSession,
    /// The session store could not be asked.
    SessionLookup(StoreError),
    /// A trusted proxy's `x-forwarded-for` is too long or not a list of addresses.
    BadForwardedFor(crate::forwarded::BadForwardedFor),
    /// An idempotency key over the limit.
    KeyTooLong,
    /// A time per move the games registry refused (`games::time::accept`): out of the
    /// hosted policy's bounds, or not the time the rules fix.
    MoveTime(games::time::TimeRefused),
    /// A challenge to oneself.
    ChallengeSelf,
    /// A challenge to a player who does not exist.
    NoSuchPlayer,
    /// A game has no bot of this name.
    NoSuchBot {
        /// The game.
        game: String,
        /// The bot asked for.
        bot: String,
    },
    /// SubmitMove without a move.
    NoMove,
    /// No match with this id.
    NoSuchMatch(MatchId),
    /// The caller holds no seat in the match.
    NotSeated,
    /// A CreateMatch idempotency key used before for another request.
    KeyUsedForAnotherRequest,
    /// The match exists but its metadata cannot be read (yet).
    MetaMissing(MatchId),
    /// The event store failed, or found the match id taken.
    Store(StoreError),
    /// A rules engine did not answer, or refused: passed on as it made it.
    Engine(CallError),
    /// A rules engine answered what it never should (no view, a move answered as a stale
    /// deadline): what.
    BadEngineAnswer(&'static str),
    /// A watcher fell too far behind the live stream; `hint` says how to resume.
    FellBehind {
        /// The resume request that continues exactly where the stream stopped.
        hint: String,
    },
    /// The gateway is stopping; `hint` says how to resume elsewhere.
    ShuttingDown {
        /// The resume request that continues exactly where the stream stopped.
        hint: String,
    },
    /// A Play stream ends because the gateway is stopping (its watches were each told
    /// where to resume).
    PlayShuttingDown,
    /// A Play request names no kind (or one this gateway does not know).
    NoRequestKind,
    /// A Play stream's message could not be decoded as a PlayRequest.
    UndecodableRequest,
    /// A Play stream's message is over the decoding limit.
    RequestTooLarge,
    /// A Play watch beyond the stream's limit of watched matches.
    TooManyWatches,
    /// A Play watch of a match the stream already watches.
    AlreadyWatching(MatchId),
    /// A Play watch unwatched before it started.
    UnwatchedBeforeStart(MatchId),
    /// VerifyRecord found every replay slot taken for longer than it waits.
    VerifierBusy,
    /// A call the archive answers, on a cluster that keeps none.
    NoArchive,
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::Field(e) => write!(f, "{e}"),
            Error::NoToken => f.write_str(
                "no session token: send `authorization: Bearer <token>` (CreateGuestSession gives one)",
            ),
            Error::UnknownSession => f.write_str("unknown or expired session token"),
            Error::NoSession => f.write_str("no session"),
            Error::SessionLookup(e) => write!(f, "session lookup: {e}"),
            Error::BadForwardedFor(e) => write!(f, "{e}"),
            Error::KeyTooLong => write!(
                f,
                "idempotency_key is at most {} characters",
                crate::limits::MAX_KEY_LEN
            ),
            Error::MoveTime(e) => write!(f, "{e}"),
            Error::ChallengeSelf => f.write_str("you cannot challenge yourself"),
            Error::NoSuchPlayer => f.write_str("no such player"),
            Error::NoSuchBot { game, bot } => {
                write!(f, "{game} has no bot {}; see ListGames for its bots", clip(bot))
            }
            Error::NoMove => f.write_str("move is required"),
            Error::NoSuchMatch(id) => write!(f, "no match {id}"),
            Error::NotSeated => f.write_str("you hold no seat in this match"),
            Error::KeyUsedForAnotherRequest => {
                f.write_str("the idempotency key was used for another request")
            }
            Error::MetaMissing(id) => write!(f, "match {id} exists but has no metadata"),
            Error::Store(e) => write!(f, "event store: {e}"),
            Error::Engine(e) => write!(f, "{e}"),
            Error::BadEngineAnswer(what) => f.write_str(what),
            Error::FellBehind { hint } => write!(f, "fell behind; reconnect with {hint}"),
            Error::ShuttingDown { hint } => {
                write!(f, "the gateway is shutting down; reconnect with {hint}")
            }
            Error::PlayShuttingDown => f.write_str(
                "the gateway is shutting down; open a new Play stream and watch each match again from its last message",
            ),
            Error::NoRequestKind => f.write_str(
                "a PlayRequest names one of watch, unwatch, submit_move, resign",
            ),
            Error::UndecodableRequest => f.write_str("a message on the stream is not a PlayRequest"),
            Error::RequestTooLarge => write!(
                f,
                "a message on the stream is over the limit of {} bytes",
                service_kit::serve::MAX_REQUEST_BYTES
            ),
            Error::TooManyWatches => write!(
                f,
                "a Play stream watches at most {} matches; unwatch one first",
                crate::limits::MAX_PLAY_WATCHES
            ),
            Error::AlreadyWatching(id) => {
                write!(f, "this stream already watches match {id}; unwatch it first")
            }
            Error::UnwatchedBeforeStart(id) => {
                write!(f, "the watch of match {id} was unwatched before it started")
            }
            Error::VerifierBusy => {
                f.write_str("this gateway is replaying as many records as it may; retry shortly")
            }
            Error::NoArchive => f.write_str(
                "this cluster keeps no archive of finished matches (its operator sets ARCHIVE_URL)",
            ),
        }
    }
}

impl std::error::Error for Error {}

impl From<FieldError> for Error {
    fn from(e: FieldError) -> Self {
        Error::Field(e)
    }
}

impl From<CallError> for Error {
    fn from(e: CallError) -> Self {
        Error::Engine(e)
    }
}

impl From<StoreError> for Error {
    fn from(e: StoreError) -> Self {
        Error::Store(e)
    }
}

/// An engine's status, passed on (see [`CallError`]).
pub fn relay(s: Status) -> Error {
    Error::Engine(s.into())
}

/// The one mapping of the gateway's errors to statuses.
impl From<Error> for Status {
    fn from(e: Error) -> Status {
        match e {
            Error::Field(e) => e.into(),
            Error::Engine(e) => e.into(),
            Error::NoToken | Error::UnknownSession | Error::NoSession => {
                status::refuse(Code::Unauthenticated, e.to_string())
            }
            // Out of range: the field's bound, as every bound. A time the rules fix keeps
            // the answer the engine gave it before the gateway asked the registry itself.
            Error::MoveTime(games::time::TimeRefused::OutOfRange { .. }) => {
                status::bad_field("move_time_ms".into(), e.to_string())
            }
            Error::MoveTime(games::time::TimeRefused::Fixed { .. }) => {
                status::refuse(Code::InvalidArgument, e.to_string())
            }
            Error::KeyTooLong
            | Error::ChallengeSelf
            | Error::NoSuchBot { .. }
            | Error::NoMove
            | Error::NoRequestKind
            | Error::UndecodableRequest
            | Error::BadForwardedFor(_) => status::refuse(Code::InvalidArgument, e.to_string()),
            Error::NoSuchPlayer | Error::NoSuchMatch(_) => {
                status::refuse(Code::NotFound, e.to_string())
            }
            Error::NotSeated => status::refuse(Code::PermissionDenied, e.to_string()),
            Error::NoArchive => status::refuse(Code::FailedPrecondition, e.to_string()),
            Error::KeyUsedForAnotherRequest | Error::AlreadyWatching(_) => {
                status::refuse(Code::AlreadyExists, e.to_string())
            }
            Error::Store(e) => e.into(),
            Error::SessionLookup(_) | Error::MetaMissing(_) => status::unavailable(e),
            Error::BadEngineAnswer(_) => status::internal(e),
            Error::FellBehind { .. } | Error::TooManyWatches => {
                status::refuse(Code::ResourceExhausted, e.to_string())
            }
            // As the edge answers a unary request over the limit.
            Error::RequestTooLarge => {
                let limit = service_kit::serve::MAX_REQUEST_BYTES.to_string();
                status::refusal_status(
                    Code::ResourceExhausted,
                    e.to_string(),
                    status::Reason::MessageTooLarge,
                    &[("limit_bytes", limit)],
                    |_| {},
                )
            }
            // Not the generic UNAVAILABLE: the client needs the hint to resume.
            Error::ShuttingDown { .. } | Error::PlayShuttingDown | Error::VerifierBusy => {
                status::refuse(Code::Unavailable, e.to_string())
            }
            Error::UnwatchedBeforeStart(_) => status::refuse(Code::Cancelled, e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_map_to_the_codes_clients_rely_on() {
        let s: Status = Error::NotSeated.into();
        assert_eq!(
            (s.code(), s.message()),
            (Code::PermissionDenied, "you hold no seat in this match")
        );
        let s: Status = Error::Store(StoreError::Redis("10.0.0.7 refused".into())).into();
        assert_eq!(s.code(), Code::Unavailable);
        assert!(!s.message().contains("10.0.0.7"));
        let s: Status = Error::ShuttingDown { hint: "after_version=3".into() }.into();
        assert_eq!(s.code(), Code::Unavailable);
        assert!(s.message().ends_with("reconnect with after_version=3"), "{}", s.message());
        let s: Status = Error::BadEngineAnswer("the rules engine returned no view").into();
        assert_eq!((s.code(), s.message()), (Code::Internal, "internal error"));
    }
}
