//! The store's one error type. Outcomes that a caller acts on (a conflict, a duplicate, a
//! seat taken) are not errors: they are the `*Outcome` enums of [`crate::matches::model`].

use ids::MatchId;
use service_kit::status;
use std::fmt;

/// Why a store operation failed.
#[derive(Clone, PartialEq, Eq, Debug)]
pub enum StoreError {
    /// No match with this id.
    NotFound(MatchId),
    /// A match with this id already exists.
    AlreadyExists(MatchId),
    /// The caller passed something the store cannot accept; the text says what.
    InvalidArgument(&'static str),
    /// Stored data could not be decoded; the text says which key and how.
    Corrupt(String),
    /// Redis failed or could not be reached; the text is the client's error.
    Redis(String),
    /// The archive's database failed or could not be reached; the client's error.
    Archive(String),
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NotFound(id) => write!(f, "match {id} not found"),
            StoreError::AlreadyExists(id) => write!(f, "match {id} already exists"),
            StoreError::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            StoreError::Corrupt(what) => write!(f, "corrupt stored data: {what}"),
            StoreError::Redis(what) => write!(f, "redis: {what}"),
            StoreError::Archive(what) => write!(f, "archive: {what}"),
        }
    }
}

impl std::error::Error for StoreError {}

/// The status of a store failure, the one map every service uses: a taken match id is an
/// answer (ALREADY_EXISTS: the caller decides what it means), anything else a store that
/// is down (UNAVAILABLE, logged, retrying later is safe).
impl From<StoreError> for tonic::Status {
    fn from(e: StoreError) -> Self {
        match e {
            StoreError::AlreadyExists(_) => {
                status::refuse(tonic::Code::AlreadyExists, e.to_string())
            }
            StoreError::NotFound(_)
            | StoreError::InvalidArgument(_)
            | StoreError::Corrupt(_)
            | StoreError::Redis(_)
            | StoreError::Archive(_) => status::unavailable(format!("event store: {e}")),
        }
    }
}

impl From<redis::RedisError> for StoreError {
    fn from(e: redis::RedisError) -> Self {
        StoreError::Redis(e.to_string())
    }
}

impl From<tokio_postgres::Error> for StoreError {
    fn from(e: tokio_postgres::Error) -> Self {
        // A database's refusal says what in its own fields; the error's text is "db error".
        match e.as_db_error() {
            Some(db) => StoreError::Archive(format!("{} ({})", db.message(), db.code().code())),
            None => StoreError::Archive(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_taken_match_id_is_already_exists() {
        let id: MatchId = "6f1e7a52-0000-4000-8000-000000000001".parse().unwrap();
        let s = tonic::Status::from(StoreError::AlreadyExists(id));
        assert_eq!(
            (s.code(), s.message()),
            (tonic::Code::AlreadyExists, &*format!("match {id} already exists"))
        );
        let down = tonic::Status::from(StoreError::Redis("x".into()));
        assert_eq!(down.code(), tonic::Code::Unavailable);
    }
}
