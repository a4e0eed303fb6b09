//! ListPlayerHistory: a player's finished matches from the archive, newest first, each from
//! the player's side (their seat, the opponent, their result and rating change). A finished
//! match's record is published, so any session may read any player's history, but for a
//! platform's matches, which only the player sees.

use crate::error::Error;
use crate::matches::Gateway;
use api::v1::{self, SeatResult};
use api_convert::{FieldError, bad};
use rules_core::Seat;
use store::archive::After;
use store::{Owner, PlayerId, SeatHolder, Summary};

/// The page token of the entry a page ended at: opaque to clients (hex of
/// `<finished ms>.<match id>`).
fn token(at: After) -> String {
    hex::encode(format!("{}.{}", at.finished_at_ms, at.match_id))
}

/// The entry a page token names; none for an empty token.
fn cursor(token: &str) -> Result<Option<After>, FieldError> {
    if token.is_empty() {
        return Ok(None);
    }
    let refuse = || bad("page_token", "page_token is not one this history answered".into());
    let text =
        String::from_utf8(hex::decode(token).map_err(|_| refuse())?).map_err(|_| refuse())?;
    let (ms, id) = text.split_once('.').ok_or_else(refuse)?;
    Ok(Some(After {
        finished_at_ms: ms.parse().map_err(|_| refuse())?,
        match_id: id.parse().map_err(|_| refuse())?,
    }))
}

/// One page of `player_id`'s history (empty: the caller's own) as `me` may see it.
///
/// # Errors
/// A bad player id or token (INVALID_ARGUMENT), no archive (FAILED_PRECONDITION), the
/// archive or the store failing (UNAVAILABLE).
pub async fn page(
    gateway: &Gateway,
    me: PlayerId,
    player_id: &str,
    size: usize,
    page_token: &str,
) -> Result<v1::ListPlayerHistoryResponse, Error> {
    let player = match player_id {
        "" => me,
        id => api_convert::player_id(id)?,
    };
    let after = cursor(page_token)?;
    let archive = gateway.archive.as_ref().ok_or(Error::NoArchive)?;
    let found = archive.list(Owner::Player(player), after, size).await.map_err(Error::Store)?;
    // A full page may have more after it; a short one is the end.
    let next_page_token = match found.last() {
        Some(last) if found.len() == size => token(After::of(last)),
        _ => String::new(),
    };
    // A platform's matches are the player's own business.
    let shown: Vec<&Summary> =
        found.iter().filter(|s| s.tenant.is_none() || player == me).collect();
    let opponents: Vec<PlayerId> = shown
        .iter()
        .filter_map(|s| match &s.seats[opponent_seat(s, player).index()] {
            SeatHolder::Player(p) => Some(*p),
            SeatHolder::Open | SeatHolder::Reserved(_) | SeatHolder::Bot(_) => None,
        })
        .collect();
    let mut names =
        gateway.store.display_names(&opponents).await.map_err(Error::Store)?.into_iter();
    let entries = shown
        .into_iter()
        .map(|s| {
            let seat = own_seat(s, player);
            let (opponent_name, opponent_is_bot, opponent_player_id) = match &s.seats
                [opponent_seat(s, player).index()]
            {
                SeatHolder::Player(p) => {
                    (names.next().flatten().unwrap_or_default(), false, p.to_string())
                }
                SeatHolder::Bot(name) => (name.clone(), true, String::new()),
                SeatHolder::Open | SeatHolder::Reserved(_) => (String::new(), false, String::new()),
            };
            let result = match s.winner {
                None => SeatResult::Draw,
                Some(w) if w == seat => SeatResult::Won,
                Some(_) => SeatResult::Lost,
            };
            let rating = s.ratings[seat.index()];
            v1::HistoryEntry {
                match_id: s.match_id.to_string(),
                game: s.game.clone(),
                seat: wire::seat_u32(seat),
                opponent_name,
                opponent_is_bot,
                opponent_player_id,
                result: result.into(),
                reason: s.reason.clone(),
                finished_at_ms: s.finished_at_ms,
                rating_before: rating.map(|r| r.before),
                rating_after: rating.map(|r| r.after),
            }
        })
        .collect();
    Ok(v1::ListPlayerHistoryResponse { entries, next_page_token })
}

/// The player's seat: the first they held.
fn own_seat(s: &Summary, player: PlayerId) -> Seat {
    if s.seats[1] == SeatHolder::Player(player) && s.seats[0] != SeatHolder::Player(player) {
        Seat::ONE
    } else {
        Seat::ZERO
    }
}

fn opponent_seat(s: &Summary, player: PlayerId) -> Seat {
    own_seat(s, player).other()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_where_its_page_ended() {
        let at = After { finished_at_ms: 1_700_000_000_123, match_id: store::MatchId::random() };
        assert_eq!(cursor(&token(at)).unwrap(), Some(at));
        assert_eq!(cursor("").unwrap(), None);
        for bad in ["zz", &hex::encode("12.not-a-uuid"), &hex::encode("x.y"), &hex::encode("12")] {
            assert!(cursor(bad).is_err(), "{bad}");
        }
    }
}
