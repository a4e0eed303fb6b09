//! What can go wrong in the rules engine, in its own terms, and the one match that turns
//! each into the status its callers (the gateway, the clock) receive. The status
//! mechanics (reasons, details, bounded messages, logging what is internal) are
//! `service_kit::status`'s; a rules refusal travels as `api_convert::refusal_status` makes it.

use api_convert::FieldError;
use games::host::HostError;
use games::{Family, SetupError, StepError};
use service_kit::status;
use std::fmt;
use store::{MatchId, StoreError};
use tonic::{Code, Status};

/// Why an engine request failed.
#[derive(Debug)]
pub enum EngineError {
    /// A request field does not parse (a match id, a seat, a seat holder).
    Field(FieldError),
    /// ApplyStep carried no step.
    NoStep,
    /// CreateMatches asked for more matches than one call creates (the most).
    TooManyMatches(usize),
    /// A move step carried no move.
    NoMove,
    /// No game of this name.
    UnknownGame(String),
    /// The game belongs to a family this engine does not host.
    OtherFamily {
        /// The game asked for.
        game: String,
        /// Its family.
        family: Family,
        /// The families this engine hosts.
        hosted: Vec<Family>,
    },
    /// The match's options (or time per move) are not valid for its game: what is wrong.
    BadOptions(String),
    /// The rules refused the step; the match is unchanged.
    Refused(StepError),
    /// No match with this id.
    NoSuchMatch(MatchId),
    /// The match is over: it seats no one new.
    MatchOver,
    /// The seat reserved for this player is held by another.
    SeatTaken,
    /// No seat is open for this player.
    NoOpenSeat,
    /// The record is asked for while the match runs (it would reveal hidden cards).
    StillRunning,
    /// The idempotency key was used before for another move, applied at `version` (as
    /// the stepping seat numbers it).
    KeyReused {
        /// The version the key's first move made.
        version: u64,
    },
    /// The match kept moving on under the step (other replicas, the clock): retry.
    KeptMoving,
    /// The event store failed, or found the match id taken.
    Store(StoreError),
    /// Stored data does not hold together (a stream that does not replay, a bad seed or
    /// snapshot): what and where.
    Corrupt(String),
    /// A step's task panicked or was cancelled.
    StepTaskFailed(String),
    /// The rules refused a deadline that was due (a bug: a deadline always applies).
    DeadlineRefused(String),
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Field(e) => write!(f, "{e}"),
            EngineError::NoStep => f.write_str("the request has no step"),
            EngineError::TooManyMatches(most) => {
                write!(f, "one CreateMatches call creates at most {most} matches")
            }
            EngineError::NoMove => f.write_str("the step has no move"),
            EngineError::UnknownGame(game) => {
                write!(f, "unknown game {game:?}; the games are {}", games::registry::names())
            }
            EngineError::OtherFamily { game, family, hosted } => {
                let hosted = hosted.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(", ");
                write!(f, "{game} is a {family} game; this engine hosts {hosted}")
            }
            EngineError::BadOptions(m) => f.write_str(m),
            EngineError::Refused(e) => write!(f, "{e}"),
            EngineError::NoSuchMatch(id) => write!(f, "no match {id}"),
            EngineError::MatchOver => f.write_str("the match is over"),
            EngineError::SeatTaken => f.write_str("that seat is taken"),
            EngineError::NoOpenSeat => f.write_str("the match has no open seat for you"),
            EngineError::StillRunning => {
                f.write_str("the match is still running: its record is published when it ends")
            }
            EngineError::KeyReused { version } => {
                write!(f, "the idempotency key was used for another move (version {version})")
            }
            EngineError::KeptMoving => {
                f.write_str("the match kept moving on under this step; retry")
            }
            EngineError::Store(e) => write!(f, "event store: {e}"),
            EngineError::Corrupt(m) => f.write_str(m),
            EngineError::StepTaskFailed(m) => write!(f, "a step task failed: {m}"),
            EngineError::DeadlineRefused(m) => write!(f, "a due deadline: {m}"),
        }
    }
}

impl std::error::Error for EngineError {}

impl From<FieldError> for EngineError {
    fn from(e: FieldError) -> Self {
        EngineError::Field(e)
    }
}

impl From<StepError> for EngineError {
    fn from(e: StepError) -> Self {
        EngineError::Refused(e)
    }
}

impl From<HostError> for EngineError {
    fn from(e: HostError) -> Self {
        match e {
            HostError::Refused(e) => EngineError::Refused(e),
            HostError::Setup(SetupError::UnknownGame(game)) => EngineError::UnknownGame(game),
            HostError::Setup(e @ (SetupError::Options(_) | SetupError::NotJson(_))) => {
                EngineError::BadOptions(e.to_string())
            }
            e @ HostError::Corrupt(_) => EngineError::Corrupt(e.to_string()),
        }
    }
}

impl From<StoreError> for EngineError {
    fn from(e: StoreError) -> Self {
        EngineError::Store(e)
    }
}

/// The one mapping of the engine's errors to statuses.
impl From<EngineError> for Status {
    fn from(e: EngineError) -> Status {
        match e {
            EngineError::Field(e) => e.into(),
            EngineError::Refused(e) => api_convert::refusal_status(&e),
            EngineError::KeyReused { version } => status::key_reused(version),
            EngineError::NoStep
            | EngineError::TooManyMatches(_)
            | EngineError::NoMove
            | EngineError::UnknownGame(_)
            | EngineError::BadOptions(_) => status::refuse(Code::InvalidArgument, e.to_string()),
            EngineError::OtherFamily { .. }
            | EngineError::MatchOver
            | EngineError::SeatTaken
            | EngineError::NoOpenSeat
            | EngineError::StillRunning => status::refuse(Code::FailedPrecondition, e.to_string()),
            EngineError::NoSuchMatch(_) => status::refuse(Code::NotFound, e.to_string()),
            EngineError::KeptMoving => status::refuse(Code::Aborted, e.to_string()),
            EngineError::Store(e) => e.into(),
            EngineError::Corrupt(_)
            | EngineError::StepTaskFailed(_)
            | EngineError::DeadlineRefused(_) => status::internal(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules_core::ErrorCode;

    #[test]
    fn errors_map_to_the_codes_callers_rely_on() {
        let id: MatchId = "6f1e7a52-0000-4000-8000-000000000001".parse().unwrap();
        let taken: Status = EngineError::from(StoreError::AlreadyExists(id)).into();
        assert_eq!(taken.code(), Code::AlreadyExists);
        assert_eq!(taken.message(), format!("match {id} already exists"));
        let down: Status = EngineError::from(StoreError::Redis("x".into())).into();
        assert_eq!(down.code(), Code::Unavailable);
        let refused: Status =
            EngineError::Refused(StepError { code: ErrorCode::BadMove, message: "x".into() })
                .into();
        assert_eq!((refused.code(), refused.message()), (Code::InvalidArgument, "bad_move: x"));
        let corrupt: Status = EngineError::Corrupt("seed 1234".into()).into();
        assert_eq!(corrupt.code(), Code::Internal);
        assert!(!corrupt.message().contains("1234"));
        let moving: Status = EngineError::KeptMoving.into();
        assert_eq!(moving.code(), Code::Aborted);
    }
}
