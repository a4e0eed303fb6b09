//! The store's one error type. Outcomes that a caller acts on (a conflict, a duplicate, a
//! seat taken) are not errors: they are the `*Outcome` enums of [`crate::model`].

use crate::ids::MatchId;
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
}

impl fmt::Display for StoreError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            StoreError::NotFound(id) => write!(f, "match {id} not found"),
            StoreError::AlreadyExists(id) => write!(f, "match {id} already exists"),
            StoreError::InvalidArgument(what) => write!(f, "invalid argument: {what}"),
            StoreError::Corrupt(what) => write!(f, "corrupt stored data: {what}"),
            StoreError::Redis(what) => write!(f, "redis: {what}"),
        }
    }
}

impl std::error::Error for StoreError {}

impl From<redis::RedisError> for StoreError {
    fn from(e: redis::RedisError) -> Self {
        StoreError::Redis(e.to_string())
    }
}
