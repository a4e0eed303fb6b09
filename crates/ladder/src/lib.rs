//! The match-maker's domain logic: ratings and pairing, with no I/O, no async and no clock
//! (the caller passes the time in). The match-maker service keeps the queues and the stored
//! ratings; this crate decides who plays whom and how a result moves the ratings.
//!
//! # Layout
//! - [`glicko`]: Glicko-2 ratings ([`Rating`]): a rating period ([`rate`]) and a single match
//!   rated as its own period for both players ([`rate_match`]).
//! - [`pairing`]: the widening rating-gap [`SCHEDULE`] and the greedy, maximal pairing [`pass`]
//!   over one queue's waiting [`Candidate`]s.

pub mod glicko;
pub mod pairing;

pub use glicko::{
    CONVERGENCE_TOLERANCE, PROVISIONAL_DEVIATION, Rating, RatingError, TAU, rate, rate_match,
};
pub use pairing::{Candidate, SCHEDULE, acceptable, gap, pass};
