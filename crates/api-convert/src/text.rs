//! Bounds and normal forms of the text fields every public service reads (game names,
//! options, idempotency keys, display names), so the gateway and the match-maker refuse
//! alike, before any work, with the one INVALID_ARGUMENT message for each.

use crate::{FieldError, bad};

/// The longest game name.
pub const MAX_GAME_LEN: usize = 32;
/// The longest `options_json`, in bytes.
pub const MAX_OPTIONS_JSON_BYTES: usize = 4096;
/// The longest idempotency key, in bytes.
pub const MAX_KEY_BYTES: usize = 128;
/// The longest display name, in characters.
pub const MAX_DISPLAY_NAME_CHARS: usize = 32;

/// The largest CreateMatches request message (tournaments.proto: "up to 8 MiB").
pub const MAX_CREATE_MATCHES_BYTES: usize = 8 << 20;

/// The public methods whose request messages may be over the 4 MiB every other takes
/// (colosseum.proto's header), by path: what the gateway's and the tournament service's
/// edges enforce (`service_kit::serve::Services::larger_messages`).
pub const LARGER_MESSAGES: &[(&str, usize)] =
    &[("/colosseum.v1.TournamentService/CreateMatches", MAX_CREATE_MATCHES_BYTES)];

/// `len` is at most `max` `unit`s.
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn at_most(field: &str, len: usize, max: usize, unit: &str) -> Result<(), FieldError> {
    if len > max {
        return Err(bad(field, format!("{field} is at most {max} {unit}, not {len}")));
    }
    Ok(())
}

/// A page size: `n` if 1 to `max`, `default` for 0.
///
/// # Errors
/// INVALID_ARGUMENT naming the field, as [`at_most`] words it.
pub fn page_size(field: &str, n: u32, default: u32, max: u32) -> Result<u32, FieldError> {
    match n {
        0 => Ok(default),
        n => at_most(field, n as usize, max as usize, "entries").map(|()| n),
    }
}

/// An idempotency key: at most [`MAX_KEY_BYTES`].
///
/// # Errors
/// INVALID_ARGUMENT naming the field.
pub fn key(field: &str, k: &str) -> Result<(), FieldError> {
    at_most(field, k.len(), MAX_KEY_BYTES, "bytes")
}

/// A display name, normalized (runs of whitespace become one space, the ends trimmed),
/// with no control or bidirectional-override characters, at most
/// [`MAX_DISPLAY_NAME_CHARS`].
///
/// # Errors
/// INVALID_ARGUMENT naming `display_name`.
pub fn display_name(raw: &str) -> Result<String, FieldError> {
    const FIELD: &str = "display_name";
    // Bounded before any work, so a huge name costs nothing.
    at_most(FIELD, raw.len(), 4 * MAX_DISPLAY_NAME_CHARS, "bytes")?;
    let name = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if let Some(c) = name.chars().find(|&c| c.is_control() || is_bidi_control(c)) {
        return Err(bad(
            FIELD,
            format!("display_name may not hold control characters (found U+{:04X})", u32::from(c)),
        ));
    }
    at_most(FIELD, name.chars().count(), MAX_DISPLAY_NAME_CHARS, "characters")?;
    Ok(name)
}

/// Characters that reorder the text around them (Trojan Source): a name must not turn
/// another player's text around in a client's list.
fn is_bidi_control(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}')
}

/// The token of an `authorization` value: the scheme is case-insensitive (RFC 7235
/// section 2.1), so `bearer T` and `BEARER T` are `Bearer T`; an empty token is none.
pub fn bearer(value: &str) -> Option<&str> {
    let (scheme, token) = value.trim().split_once(' ')?;
    let token = token.trim();
    (scheme.eq_ignore_ascii_case("bearer") && !token.is_empty()).then_some(token)
}

/// The name a guest gets when it gives none: `guest-` and the start of its player id.
pub fn guest_name(player: &str) -> String {
    format!("guest-{}", player.get(..8).unwrap_or(player))
}
