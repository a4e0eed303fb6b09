//! Conversions between the API and the domain: the request fields the gateway and the rules
//! engine both parse or write (match ids, player ids, seats and seat holders, with the one
//! INVALID_ARGUMENT message for each), and the rules' refusals as a status carries them from
//! the engine through the gateway. Protobuf and statuses on one side, the domain's types (ids,
//! rules-core) on the other.

pub mod text;

use api::internal::{self, seat_holder};
use games::StepError;
use ids::{MatchId, PlayerId, SeatHolder};
use rules_core::{ErrorCode, Seat};
use service_kit::status::{self, clip};
use std::fmt;
use tonic::{Code, Status};

/// A request field that does not parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FieldError {
    /// One field is malformed (missing, too long, not a UUID...): INVALID_ARGUMENT with a
    /// `google.rpc.BadRequest` naming it.
    Bad {
        /// The field's name as the proto spells it (`match_id`, `move.hexspiel.hex.place`).
        field: String,
        /// What is wrong with it (quoting input only through [`clip`]).
        message: String,
    },
    /// A seat number that is no seat.
    NoSuchSeat(u32),
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldError::Bad { message, .. } => f.write_str(message),
            FieldError::NoSuchSeat(n) => write!(f, "seat {n} does not exist: seats are 0 and 1"),
        }
    }
}

impl std::error::Error for FieldError {}

impl From<FieldError> for Status {
    fn from(e: FieldError) -> Status {
        match e {
            FieldError::Bad { field, message } => status::bad_field(field, message),
            e @ FieldError::NoSuchSeat(_) => status::refuse(Code::InvalidArgument, e.to_string()),
        }
    }
}

/// A [`FieldError::Bad`].
pub fn bad(field: &str, message: String) -> FieldError {
    FieldError::Bad { field: field.to_string(), message }
}

/// Parses a match id.
///
/// # Errors
/// Empty, or not a UUID (naming it).
pub fn match_id(s: &str) -> Result<MatchId, FieldError> {
    if s.is_empty() {
        return Err(bad("match_id", "match_id is required".into()));
    }
    uuid_field("match_id", s)
}

/// The length of a UUID's text.
const UUID_LEN: usize = 36;

/// Parses the UUID in `field`, quoting at most a clipped prefix of it when it is not one.
///
/// # Errors
/// Naming the field.
pub fn uuid_field<T: std::str::FromStr>(field: &str, s: &str) -> Result<T, FieldError> {
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
/// Naming the bad id.
pub fn player_id(s: &str) -> Result<PlayerId, FieldError> {
    uuid_field("player_id", s)
}

/// Parses a seat number.
///
/// # Errors
/// Anything but 0 and 1.
pub fn seat(n: u32) -> Result<Seat, FieldError> {
    Seat::new(u64::from(n)).ok_or(FieldError::NoSuchSeat(n))
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
/// A player id that is not a UUID.
pub fn holder_from_proto(h: Option<internal::SeatHolder>) -> Result<SeatHolder, FieldError> {
    Ok(match h.and_then(|h| h.kind) {
        None | Some(seat_holder::Kind::Open(_)) => SeatHolder::Open,
        Some(seat_holder::Kind::PlayerId(p)) => SeatHolder::Player(player_id(&p)?),
        Some(seat_holder::Kind::ReservedFor(p)) => SeatHolder::Reserved(player_id(&p)?),
        Some(seat_holder::Kind::Bot(b)) => SeatHolder::Bot(b),
    })
}

/// The status of a rules refusal: FAILED_PRECONDITION for a move at the wrong time or
/// against the rules, INVALID_ARGUMENT for one that is not a move of the game; the
/// conformance code as reason and in [`status::ERROR_CODE_KEY`].
pub fn refusal_status(e: &StepError) -> Status {
    let code = match e.code {
        ErrorCode::GameOver | ErrorCode::NotYourTurn | ErrorCode::IllegalMove => {
            Code::FailedPrecondition
        }
        ErrorCode::BadMove => Code::InvalidArgument,
    };
    status::rules_refusal(code, reason(e.code), e.code.as_str(), &e.message)
}

/// The ErrorInfo reason of a rules refusal: its conformance code, upper-cased.
pub fn reason(code: ErrorCode) -> status::Reason {
    match code {
        ErrorCode::GameOver => status::Reason::GameOver,
        ErrorCode::NotYourTurn => status::Reason::NotYourTurn,
        ErrorCode::BadMove => status::Reason::BadMove,
        ErrorCode::IllegalMove => status::Reason::IllegalMove,
    }
}

/// The rules' refusal a status carries, rebuilt as it was made (so passing it on keeps
/// its code, message and metadata); `None` for any other status.
pub fn refusal_of(s: &Status) -> Option<StepError> {
    let (reason, message) = status::rules_refusal_of(s)?;
    let code = match reason {
        "game_over" => ErrorCode::GameOver,
        "not_your_turn" => ErrorCode::NotYourTurn,
        "bad_move" => ErrorCode::BadMove,
        "illegal_move" => ErrorCode::IllegalMove,
        _ => return None,
    };
    Some(StepError { code, message: message.to_string() })
}

/// A status as a Steps stream carries a refused step: code, message, details and ASCII
/// metadata (what every refusal the engine makes is written in), so the caller rebuilds
/// the status ApplyStep would have answered ([`status_of_refused`]).
pub fn refused_of_status(s: &Status) -> internal::StepRefused {
    let metadata = s
        .metadata()
        .iter()
        .filter_map(|kv| match kv {
            tonic::metadata::KeyAndValueRef::Ascii(k, v) => {
                Some((k.as_str().to_string(), v.to_str().ok()?.to_string()))
            }
            tonic::metadata::KeyAndValueRef::Binary(..) => None,
        })
        .collect();
    internal::StepRefused {
        code: s.code() as i32,
        message: s.message().to_string(),
        details: s.details().to_vec(),
        metadata,
    }
}

/// The status a Steps stream's refusal stands for (see [`refused_of_status`]); metadata
/// that is no valid header is dropped.
pub fn status_of_refused(r: internal::StepRefused) -> Status {
    let mut metadata = tonic::metadata::MetadataMap::new();
    for (k, v) in r.metadata {
        if let (Ok(k), Ok(v)) = (
            k.parse::<tonic::metadata::MetadataKey<tonic::metadata::Ascii>>(),
            v.parse::<tonic::metadata::MetadataValue<tonic::metadata::Ascii>>(),
        ) {
            metadata.insert(k, v);
        }
    }
    Status::with_details_and_metadata(Code::from(r.code), r.message, r.details.into(), metadata)
}

#[cfg(test)]
mod tests {
    use super::*;
    use service_kit::status::ERROR_CODE_KEY;

    #[test]
    fn a_refused_step_crosses_a_steps_stream_whole() {
        let rules = refusal_status(&StepError {
            code: ErrorCode::IllegalMove,
            message: "card 5 was already played".into(),
        });
        let again = status_of_refused(refused_of_status(&rules));
        assert_eq!(again.code(), Code::FailedPrecondition);
        assert_eq!(again.message(), rules.message());
        assert_eq!(refusal_of(&again), refusal_of(&rules));
        assert_eq!(again.metadata().get(ERROR_CODE_KEY).unwrap(), "illegal_move");
        let field = status::bad_field("match_id".into(), "match_id is required".into());
        let again = status_of_refused(refused_of_status(&field));
        assert_eq!(status::bad_field_of(&again), status::bad_field_of(&field));
        let reused = status_of_refused(refused_of_status(&status::key_reused(7)));
        assert_eq!(status::key_reused_of(&reused), Some(7));
    }

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
        let s = Status::from(seat(2).unwrap_err());
        assert_eq!(s.code(), Code::InvalidArgument);
        let s = Status::from(match_id("x").unwrap_err());
        assert_eq!(status::bad_field_of(&s).unwrap().0, "match_id");
    }

    #[test]
    fn refusals_map_to_their_codes_and_read_back_as_made() {
        let e =
            StepError { code: ErrorCode::IllegalMove, message: "card 5 was already played".into() };
        let s = refusal_status(&e);
        assert_eq!(s.code(), Code::FailedPrecondition);
        assert_eq!(s.message(), "illegal_move: card 5 was already played");
        assert_eq!(s.metadata().get(ERROR_CODE_KEY).unwrap(), "illegal_move");
        assert_eq!(refusal_of(&s), Some(e));
        let bad = StepError { code: ErrorCode::BadMove, message: "x".into() };
        assert_eq!(refusal_status(&bad).code(), Code::InvalidArgument);
        assert_eq!(refusal_of(&Status::failed_precondition("the match is full")), None);
    }
}
