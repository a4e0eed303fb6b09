//! A stored step read back: the stream's `step` field (its conformance JSON) parsed as the
//! host parses it, to tell the seat that moved and whose numbering its answer is in (when
//! a slot absorbs an entry, and when it records an idempotency key).

use rules_core::{Seat, Viewer};

/// A stored step (its conformance JSON) read as the host reads it: one parser of steps
/// for the whole workspace (`games::parse::parse_step`). `None` for version 0's
/// placeholder or anything that is not a step.
fn stored_step(step_json: &str) -> Option<rules_core::Step<serde_json::Value>> {
    let v: serde_json::Value = serde_json::from_str(step_json).ok()?;
    games::parse::parse_step(&v).ok()
}

/// The seat of a stored move step, if it is one.
pub(super) fn moving_seat(step_json: &str) -> Option<Seat> {
    match stored_step(step_json)? {
        rules_core::Step::Move { seat, .. } => Some(seat),
        rules_core::Step::Deadline | rules_core::Step::Resign(_) => None,
    }
}

/// Whose numbering a stored step's answer is in: the seat that moved or resigned, else
/// the spectators'.
pub(super) fn actor(step_json: &str) -> Viewer {
    match stored_step(step_json) {
        Some(rules_core::Step::Move { seat, .. } | rules_core::Step::Resign(seat)) => {
            Viewer::Seat(seat)
        }
        Some(rules_core::Step::Deadline) | None => Viewer::Spectator,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stored_steps_name_their_seat() {
        assert_eq!(moving_seat(r#"{"move":{"card":3},"seat":1}"#), Some(Seat::ONE));
        assert_eq!(moving_seat(r#"{"deadline":true}"#), None);
        assert_eq!(moving_seat(r#"{"resign":0}"#), None);
        assert_eq!(actor(r#"{"move":{"card":3},"seat":1}"#), Viewer::Seat(Seat::ONE));
        assert_eq!(actor(r#"{"resign":0}"#), Viewer::Seat(Seat::ZERO));
        assert_eq!(actor(r#"{"deadline":true}"#), Viewer::Spectator);
    }
}
