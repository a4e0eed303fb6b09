//! Request fields the gateway and the rules engine both parse or write: match ids, seats
//! and seat holders, with the one INVALID_ARGUMENT message for each.

use crate::status::{ServiceError, clip};
use api::internal::{self, seat_holder};
use events::{MatchId, PlayerId, SeatHolder};
use rules_core::Seat;

/// Parses a match id.
///
/// # Errors
/// INVALID_ARGUMENT: empty, or not a UUID (naming it).
pub fn match_id(s: &str) -> Result<MatchId, ServiceError> {
    if s.is_empty() {
        return Err(bad("match_id", "match_id is required".into()));
    }
    uuid_field("match_id", s)
}

/// The length of a UUID's text.
pub const UUID_LEN: usize = 36;

/// A `ServiceError::BadField`.
pub fn bad(field: &str, message: String) -> ServiceError {
    ServiceError::BadField { field: field.to_string(), message }
}

/// Parses the UUID in `field`, quoting at most a clipped prefix of it when it is not one.
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn uuid_field<T: std::str::FromStr>(field: &str, s: &str) -> Result<T, ServiceError> {
    if s.len() > UUID_LEN {
        return Err(bad(
            field,
            format!("{field} is a UUID ({UUID_LEN} characters), not {} bytes", s.len()),
        ));
    }
    s.parse().map_err(|_| bad(field, format!("{field} {} is not a UUID", clip(s))))
}

/// Parses a player id.
///
/// # Errors
/// INVALID_ARGUMENT naming the bad id.
pub fn player_id(s: &str) -> Result<PlayerId, ServiceError> {
    uuid_field("player_id", s)
}

/// Parses a seat number.
///
/// # Errors
/// INVALID_ARGUMENT for anything but 0 and 1.
pub fn seat(n: u32) -> Result<Seat, ServiceError> {
    Seat::new(u64::from(n)).ok_or_else(|| {
        ServiceError::InvalidArgument(format!("seat {n} does not exist: seats are 0 and 1"))
    })
}

/// A seat holder as the internal API writes it.
pub fn holder_to_proto(h: &SeatHolder) -> Option<internal::SeatHolder> {
    let kind = match h {
        SeatHolder::Open => seat_holder::Kind::Open(internal::Open {}),
        SeatHolder::Player(p) => seat_holder::Kind::PlayerId(p.to_string()),
        SeatHolder::Reserved(p) => seat_holder::Kind::ReservedFor(p.to_string()),
        SeatHolder::Bot(b) => seat_holder::Kind::Bot(b.clone()),
    };
    Some(internal::SeatHolder { kind: Some(kind) })
}

/// A seat holder as the public API names it in `player_ids`: the player id, empty while
/// the seat is open, `reserved:<id>` for a challenge, `bot:<name>` for a built-in bot.
pub fn holder_name(h: &SeatHolder) -> String {
    match h {
        SeatHolder::Open => String::new(),
        SeatHolder::Player(p) => p.to_string(),
        SeatHolder::Reserved(p) => format!("reserved:{p}"),
        SeatHolder::Bot(b) => format!("bot:{b}"),
    }
}

/// A seat holder from the internal API (absent: open).
///
/// # Errors
/// INVALID_ARGUMENT for a player id that is not a UUID.
pub fn holder_from_proto(h: Option<internal::SeatHolder>) -> Result<SeatHolder, ServiceError> {
    Ok(match h.and_then(|h| h.kind) {
        None | Some(seat_holder::Kind::Open(_)) => SeatHolder::Open,
        Some(seat_holder::Kind::PlayerId(p)) => SeatHolder::Player(player_id(&p)?),
        Some(seat_holder::Kind::ReservedFor(p)) => SeatHolder::Reserved(player_id(&p)?),
        Some(seat_holder::Kind::Bot(b)) => SeatHolder::Bot(b),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holders_round_trip_and_bad_fields_say_what_is_wrong() {
        let p = PlayerId::random();
        for h in [
            SeatHolder::Open,
            SeatHolder::Player(p),
            SeatHolder::Reserved(p),
            SeatHolder::Bot("strong".into()),
        ] {
            assert_eq!(holder_from_proto(holder_to_proto(&h)).unwrap(), h);
        }
        assert_eq!(holder_from_proto(None).unwrap(), SeatHolder::Open);
        assert_eq!(match_id("").unwrap_err().to_string(), "match_id is required");
        assert_eq!(match_id("x").unwrap_err().to_string(), "match_id \"x\" is not a UUID");
        let long = "x".repeat(1 << 20);
        assert_eq!(
            match_id(&long).unwrap_err().to_string(),
            "match_id is a UUID (36 characters), not 1048576 bytes"
        );
        assert_eq!(seat(2).unwrap_err().to_string(), "seat 2 does not exist: seats are 0 and 1");
        assert_eq!(seat(1).unwrap(), Seat::ONE);
    }
}
