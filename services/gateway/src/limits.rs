//! The bound of every field of every public request, checked before anything is read or
//! forwarded, so no request can make a backend (or a status header) carry unbounded
//! input. Each limit is documented on its field in proto/colosseum/v1/colosseum.proto.

use api::v1::{self, hexspiel_move, r#move, opponent};
use api_convert::{FieldError, bad, uuid_field};
use prost::Message;

pub use api_convert::text::{
    MAX_DISPLAY_NAME_CHARS, MAX_GAME_LEN, MAX_KEY_BYTES, MAX_OPTIONS_JSON_BYTES, at_most,
    display_name, key,
};
/// The longest idempotency key.
pub const MAX_KEY_LEN: usize = 128;
/// The longest bot name.
pub const MAX_BOT_NAME_LEN: usize = 32;
/// The largest move, encoded.
pub const MAX_MOVE_BYTES: usize = 1024;
/// The most entries of a move's repeated field.
pub const MAX_MOVE_LIST: usize = 16;
/// The longest string inside a move (a cell name such as `c3`).
pub const MAX_MOVE_STRING: usize = 8;

/// The most matches one Play stream watches (or is starting to) at once.
pub const MAX_PLAY_WATCHES: usize = 1_000;
/// The most requests one Play stream has in flight: at the limit it stops reading.
pub const MAX_PLAY_IN_FLIGHT: usize = 256;
/// The longest `traceparent` of a Play request (the W3C form is 55 bytes).
pub const MAX_TRACEPARENT_BYTES: usize = 128;

fn match_id(id: &str) -> Result<(), FieldError> {
    api_convert::match_id(id).map(|_| ())
}

/// CreateMatch.
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn create_match(r: &v1::CreateMatchRequest) -> Result<(), FieldError> {
    at_most("game", r.game.len(), MAX_GAME_LEN, "bytes")?;
    at_most("options_json", r.options_json.len(), MAX_OPTIONS_JSON_BYTES, "bytes")?;
    key("idempotency_key", &r.idempotency_key)?;
    match r.opponent.as_ref().and_then(|o| o.kind.as_ref()) {
        Some(opponent::Kind::PlayerId(p)) => {
            uuid_field::<store::PlayerId>("opponent.player_id", p)?;
        }
        Some(opponent::Kind::Bot(b)) => {
            at_most("opponent.bot", b.len(), MAX_BOT_NAME_LEN, "bytes")?
        }
        Some(opponent::Kind::Open(_)) | None => {}
    }
    Ok(())
}

/// JoinMatch.
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn join_match(r: &v1::JoinMatchRequest) -> Result<(), FieldError> {
    match_id(&r.match_id)?;
    key("idempotency_key", &r.idempotency_key)
}

/// SubmitMove: the key is required here (it is what makes a retry safe).
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn submit_move(r: &v1::SubmitMoveRequest) -> Result<(), FieldError> {
    match_id(&r.match_id)?;
    if r.idempotency_key.is_empty() {
        return Err(bad(
            "idempotency_key",
            format!(
                "idempotency_key is required (1 to {MAX_KEY_BYTES} bytes; a UUID per move is fine)"
            ),
        ));
    }
    key("idempotency_key", &r.idempotency_key)?;
    if let Some(mv) = &r.r#move {
        move_fields(mv)?;
    }
    Ok(())
}

/// A move: at most [`MAX_MOVE_BYTES`] encoded, each repeated field at most
/// [`MAX_MOVE_LIST`] entries of at most [`MAX_MOVE_STRING`] bytes.
fn move_fields(mv: &v1::Move) -> Result<(), FieldError> {
    at_most("move", mv.encoded_len(), MAX_MOVE_BYTES, "bytes")?;
    if let Some(r#move::Game::Hexspiel(h)) = &mv.game
        && let Some(hexspiel_move::Kind::Hex(turn)) = &h.kind
    {
        cells("move.hexspiel.hex.place", &turn.place)?;
        if let Some(p) = &turn.pattern {
            cells("move.hexspiel.hex.pattern.cells", &p.cells)?;
        }
    }
    Ok(())
}

fn cells(field: &str, list: &[String]) -> Result<(), FieldError> {
    at_most(field, list.len(), MAX_MOVE_LIST, "entries")?;
    for c in list {
        at_most(field, c.len(), MAX_MOVE_STRING, "bytes per entry")?;
    }
    Ok(())
}

/// Requests that carry only a match id (Resign, GetView, WatchMatch, GetMatchRecord).
///
/// # Errors
/// INVALID_ARGUMENT naming `match_id`.
pub fn match_only(id: &str) -> Result<(), FieldError> {
    match_id(id)
}

/// The page size of ListMyMatches and ListLiveMatches when the request leaves it at 0.
pub const DEFAULT_PAGE: u32 = 20;
/// The largest page of ListMyMatches and ListLiveMatches.
pub const MAX_PAGE: u32 = 100;
/// The longest `page_token` (the lists' own are about 100 bytes).
pub const MAX_PAGE_TOKEN_BYTES: usize = 128;

/// ListMyMatches: its page size.
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn list_my_matches(r: &v1::ListMyMatchesRequest) -> Result<usize, FieldError> {
    at_most("page_token", r.page_token.len(), MAX_PAGE_TOKEN_BYTES, "bytes")?;
    if v1::MyMatchState::try_from(r.state).is_err() {
        return Err(bad("state", format!("state {} is not a MyMatchState", r.state)));
    }
    page(r.page_size)
}

/// ListPlayerHistory: its page size (the player id is checked where it is parsed).
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn list_player_history(r: &v1::ListPlayerHistoryRequest) -> Result<usize, FieldError> {
    at_most("page_token", r.page_token.len(), MAX_PAGE_TOKEN_BYTES, "bytes")?;
    page(r.page_size)
}

/// ListLiveMatches: its page size.
///
/// # Errors
/// INVALID_ARGUMENT naming the field (a game not hosted names `game`).
pub fn list_live_matches(r: &v1::ListLiveMatchesRequest) -> Result<usize, FieldError> {
    at_most("game", r.game.len(), MAX_GAME_LEN, "bytes")?;
    if !r.game.is_empty() && games::registry::info(&r.game).is_none() {
        let game = service_kit::status::clip(&r.game);
        return Err(bad("game", format!("game {game} is not hosted; ListGames lists them")));
    }
    at_most("page_token", r.page_token.len(), MAX_PAGE_TOKEN_BYTES, "bytes")?;
    page(r.page_size)
}

fn page(n: u32) -> Result<usize, FieldError> {
    api_convert::text::page_size("page_size", n, DEFAULT_PAGE, MAX_PAGE).map(|n| n as usize)
}

/// A Play request's own field, its trace context (its kind's fields are checked by the
/// unary call's checks as that call is made, an unwatch's match id by its parse).
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn play(r: &v1::PlayRequest) -> Result<(), FieldError> {
    at_most("traceparent", r.traceparent.len(), MAX_TRACEPARENT_BYTES, "bytes")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_names_are_normalized_and_control_characters_refused() {
        assert_eq!(display_name("  Ada \t\n Lovelace  ").unwrap(), "Ada Lovelace");
        assert_eq!(display_name("").unwrap(), "");
        for evil in ["a\0b", "\u{1b}[31mred", "x\u{7f}", "abc\u{202E}fed"] {
            let e = display_name(evil).unwrap_err();
            assert!(matches!(&e, FieldError::Bad { field, .. } if field == "display_name"));
        }
        assert!(display_name(&"é".repeat(32)).is_ok());
        assert!(display_name(&"é".repeat(33)).is_err());
        assert!(display_name(&"a".repeat(1 << 20)).unwrap_err().to_string().len() < 100);
    }

    #[test]
    fn every_bound_names_its_field() {
        let big = "x".repeat(1 << 20);
        let create = v1::CreateMatchRequest { options_json: big.clone(), ..Default::default() };
        assert!(create_match(&create).unwrap_err().to_string().starts_with("options_json "));
        let submit = v1::SubmitMoveRequest {
            match_id: uuid_like(),
            idempotency_key: String::new(),
            r#move: None,
        };
        assert!(submit_move(&submit).unwrap_err().to_string().contains("required"));
        let place = vec!["c3".to_string(); 100];
        let turn = v1::HexspielHexTurn { place, pattern: None };
        let mv = v1::Move {
            game: Some(r#move::Game::Hexspiel(v1::HexspielMove {
                kind: Some(hexspiel_move::Kind::Hex(turn)),
            })),
        };
        let submit = v1::SubmitMoveRequest {
            match_id: uuid_like(),
            idempotency_key: "k".into(),
            r#move: Some(mv),
        };
        let e = submit_move(&submit).unwrap_err();
        assert!(matches!(&e, FieldError::Bad { field, .. } if field == "move.hexspiel.hex.place"));
    }

    fn uuid_like() -> String {
        "6f1e7a52-0000-4000-8000-000000000001".into()
    }
}
