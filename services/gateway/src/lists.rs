//! ListMyMatches and ListLiveMatches: pages of the store's match lists (hints), each entry
//! checked against the truth and shown only from it: the meta, and the view the rules built
//! for the one viewer asking (the caller's seat, or the spectators). An entry that can no
//! longer hold is dropped from its list on the way.

use crate::error::Error;
use crate::matches::seat_of;
use api::v1::{self, MyMatchState, SeatResult};
use api_convert::{FieldError, bad};
use futures_util::{StreamExt, stream};
use prost::Message;
use rules_core::{Seat, Viewer};
use std::sync::Arc;
use store::{EventStore, Listed, MatchId, MatchMeta, PlayerId, SeatHolder};

/// The most list entries one call looks at: a page of a filtered list may end short of its
/// size (with a token for the rest) rather than read a long list at once.
pub const MAX_SCANNED: usize = 500;

/// Entries checked at once (each a few store reads).
const CONCURRENT: usize = 16;

/// How long a listed match may lack its meta before it is taken for gone (an expired
/// record) rather than still being created: the list entry is written first.
const CREATING_MS: u64 = 10 * 60 * 1000;

/// How many times the latest view is read again when a step lands between reading the
/// latest version and reading its entry.
const VIEW_READS: usize = 3;

/// The page token of the entry a page ended at: opaque to clients (hex of
/// `<created ms>.<match id>`).
fn token(at: Listed) -> String {
    hex::encode(format!("{}.{}", at.created_at_ms, at.id))
}

/// The entry a page token names; none for an empty token.
fn cursor(token: &str) -> Result<Option<Listed>, FieldError> {
    if token.is_empty() {
        return Ok(None);
    }
    let refuse = || bad("page_token", "page_token is not one this list answered".into());
    let text = hex::decode(token).map_err(|_| refuse())?;
    let text = String::from_utf8(text).map_err(|_| refuse())?;
    let (ms, id) = text.split_once('.').ok_or_else(refuse)?;
    let created_at_ms = ms.parse().map_err(|_| refuse())?;
    let id = id.parse().map_err(|_| refuse())?;
    Ok(Some(Listed { created_at_ms, id }))
}

/// One page: entries from `next` (each looked at by `check`: `None` skips it) until `size`
/// are kept or [`MAX_SCANNED`] looked at; the token of where it stopped, if the list may
/// go on.
async fn page<T, B, C>(
    after: Option<Listed>,
    size: usize,
    mut next: impl FnMut(Option<Listed>, usize) -> B,
    check: impl Fn(Listed) -> C,
) -> Result<(Vec<T>, String), Error>
where
    B: Future<Output = Result<Vec<Listed>, Error>>,
    C: Future<Output = Result<Option<T>, Error>>,
{
    let mut kept = Vec::new();
    let mut at = after;
    let mut scanned = 0;
    loop {
        let want = (size - kept.len()).min(MAX_SCANNED - scanned);
        let batch = next(at, want).await?;
        let checked: Vec<_> = stream::iter(batch.clone().into_iter().map(&check))
            .buffered(CONCURRENT)
            .collect()
            .await;
        for (listed, found) in batch.iter().zip(checked) {
            at = Some(*listed);
            scanned += 1;
            if let Some(found) = found? {
                kept.push(found);
                if kept.len() == size {
                    return Ok((kept, at.map(token).unwrap_or_default()));
                }
            }
        }
        if batch.len() < want {
            return Ok((kept, String::new()));
        }
        if scanned >= MAX_SCANNED {
            return Ok((kept, at.map(token).unwrap_or_default()));
        }
    }
}

/// What `viewer` sees of match `id` now, as the rules engine stored it with the latest
/// step; `None` if the match has no stored view for it.
async fn latest_view(
    store: &Arc<dyn EventStore>,
    id: MatchId,
    viewer: Viewer,
) -> Result<Option<v1::GetViewResponse>, Error> {
    for _ in 0..VIEW_READS {
        let Some(last) = store.last_version(id).await? else { return Ok(None) };
        let entries = store.read(id, last, 1).await?;
        // Views go only with the entry that is still the latest as read: a step landed
        // in between, so read again.
        let Some(entry) = entries.last().filter(|e| e.version == last && !e.views.is_empty())
        else {
            continue;
        };
        let Some(bytes) = entry.view_for(viewer) else { return Ok(None) };
        return match v1::GetViewResponse::decode(bytes) {
            Ok(view) => Ok(Some(view)),
            Err(e) => {
                tracing::warn!(match_id = %id, error = %e, "a stored view does not decode");
                Ok(None)
            }
        };
    }
    Ok(None)
}

/// Whether a listed match without a meta is gone for good (not still being created).
fn gone(listed: Listed) -> bool {
    service_kit::time::now_ms().saturating_sub(listed.created_at_ms) > CREATING_MS
}

/// How a seat holder is shown: a display name, or a bot's name (and that it is a bot).
async fn shown(
    store: &Arc<dyn EventStore>,
    id: MatchId,
    holder: &SeatHolder,
) -> Result<(String, bool), Error> {
    let player = match holder {
        SeatHolder::Open => return Ok((String::new(), false)),
        SeatHolder::Bot(name) => return Ok((name.clone(), true)),
        SeatHolder::Player(p) | SeatHolder::Reserved(p) => *p,
    };
    if player == crate::bots::PLAYER_ID {
        let name = store.bot_of(id).await?.unwrap_or_else(|| "bot".to_string());
        return Ok((name, true));
    }
    let name = store.display_names(&[player]).await?.pop().flatten();
    Ok((name.unwrap_or_default(), false))
}

/// A page of `me`'s matches in `state`.
///
/// # Errors
/// A bad page token (INVALID_ARGUMENT naming it); the store.
pub async fn my_matches(
    store: &Arc<dyn EventStore>,
    me: PlayerId,
    state: MyMatchState,
    size: usize,
    page_token: &str,
) -> Result<v1::ListMyMatchesResponse, Error> {
    let after = cursor(page_token)?;
    let next = |at, n| async move { Ok(store.player_matches(me, at, n).await?) };
    let check = |listed: Listed| async move {
        let Some(m) = mine(store, me, listed).await? else { return Ok(None) };
        let wanted = match state {
            MyMatchState::Unspecified => true,
            MyMatchState::InProgress | MyMatchState::Finished => m.state == state as i32,
        };
        Ok(wanted.then_some(m))
    };
    let (matches, next_page_token) = page(after, size, next, check).await?;
    Ok(v1::ListMyMatchesResponse { matches, next_page_token })
}

/// `me`'s entry for a listed match, from the meta and `me`'s own seat's view; `None` if
/// `me` holds no seat in it (the entry is dropped if it never can again).
async fn mine(
    store: &Arc<dyn EventStore>,
    me: PlayerId,
    listed: Listed,
) -> Result<Option<v1::MyMatch>, Error> {
    let id = listed.id;
    let Some(meta) = store.meta(id).await? else {
        if gone(listed) {
            store.unlist_player_match(me, id).await?;
        }
        return Ok(None);
    };
    let Some(seat) = seat_of(&meta, me) else {
        // Seats are final once all are held: a claim that lost will never win.
        if meta.all_seated() {
            store.unlist_player_match(me, id).await?;
        }
        return Ok(None);
    };
    let Some(view) = latest_view(store, id, Viewer::Seat(seat)).await? else { return Ok(None) };
    let (opponent_name, opponent_is_bot) = shown(store, id, &meta.seats[seat.other()]).await?;
    // A view stored before the last seat was taken has no deadline yet: the join armed it
    // without a step. GetView shows the armed one at once; so does the list.
    let deadline_at_ms = match (view.deadline_at_ms, &view.outcome) {
        (Some(due), _) => due,
        (None, Some(_)) => 0,
        (None, None) => store.deadline(id).await?.map_or(0, |d| d.due_ms),
    };
    let (state, result, reason) = match &view.outcome {
        None => (MyMatchState::InProgress, SeatResult::Unspecified, String::new()),
        Some(o) => {
            let result = match o.winner {
                None => SeatResult::Draw,
                Some(w) if w == wire::seat_u32(seat) => SeatResult::Won,
                Some(_) => SeatResult::Lost,
            };
            (MyMatchState::Finished, result, o.reason.clone())
        }
    };
    Ok(Some(v1::MyMatch {
        match_id: id.to_string(),
        game: meta.game.clone(),
        seat: wire::seat_u32(seat),
        opponent_name,
        opponent_is_bot,
        your_move: !view.legal_moves.is_empty(),
        deadline_at_ms,
        version: view.version,
        created_at_ms: meta.created_at_ms,
        state: state as i32,
        result: result as i32,
        reason,
    }))
}

/// A page of the live matches of `game` (empty: every game's).
///
/// # Errors
/// A bad page token (INVALID_ARGUMENT naming it); the store.
pub async fn live_matches(
    store: &Arc<dyn EventStore>,
    game: &str,
    size: usize,
    page_token: &str,
) -> Result<v1::ListLiveMatchesResponse, Error> {
    let after = cursor(page_token)?;
    let games: Vec<&str> =
        if game.is_empty() { games::GAMES.iter().map(|g| g.name).collect() } else { vec![game] };
    let games = &games;
    // Every game's list from the same place, merged newest first.
    let next = |at, n| async move {
        let mut merged = Vec::new();
        for g in games {
            merged.extend(store.live_matches(g, at, n).await?);
        }
        merged.sort_unstable_by(|a, b| b.cmp(a));
        merged.truncate(n);
        Ok(merged)
    };
    let check = |listed: Listed| live(store, listed);
    let (matches, next_page_token) = page(after, size, next, check).await?;
    Ok(v1::ListLiveMatchesResponse { matches, next_page_token })
}

/// A listed live match as a spectator sees it; `None` if it is not live (dropped from its
/// list once over) or not a listed match (a tenant's bulk match, a private tournament's:
/// dropped from its list, where only a store that wrote it before the flag put it).
async fn live(store: &Arc<dyn EventStore>, listed: Listed) -> Result<Option<v1::LiveMatch>, Error> {
    let id = listed.id;
    let Some(meta) = store.meta(id).await? else {
        if gone(listed) {
            unlist_everywhere(store, id).await?;
        }
        return Ok(None);
    };
    if !meta.listed {
        store.unlist_live_match(&meta.game, id).await?;
        return Ok(None);
    }
    if !meta.all_seated() {
        return Ok(None);
    }
    let Some(view) = latest_view(store, id, Viewer::Spectator).await? else { return Ok(None) };
    if view.outcome.is_some() {
        store.unlist_live_match(&meta.game, id).await?;
        return Ok(None);
    }
    Ok(Some(v1::LiveMatch {
        match_id: id.to_string(),
        game: meta.game.clone(),
        player_names: names(store, id, &meta).await?,
        version: view.version,
        created_at_ms: meta.created_at_ms,
    }))
}

/// The two seats' names, seat 0 first.
async fn names(
    store: &Arc<dyn EventStore>,
    id: MatchId,
    meta: &MatchMeta,
) -> Result<Vec<String>, Error> {
    let mut out = Vec::with_capacity(2);
    for seat in Seat::BOTH {
        out.push(shown(store, id, &meta.seats[seat]).await?.0);
    }
    Ok(out)
}

/// A match gone from the store, off every game's live list (its game is not known
/// without its meta).
async fn unlist_everywhere(store: &Arc<dyn EventStore>, id: MatchId) -> Result<(), Error> {
    for g in games::GAMES {
        store.unlist_live_match(g.name, id).await?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_names_its_entry_and_nothing_else_is_one() {
        let at = Listed { created_at_ms: 1_700_000_000_123, id: MatchId::random() };
        let t = token(at);
        assert!(t.len() <= crate::limits::MAX_PAGE_TOKEN_BYTES, "{t}");
        assert_eq!(cursor(&t), Ok(Some(at)));
        assert_eq!(cursor(""), Ok(None));
        for bad in ["zz", "00", &hex::encode("12.not-a-uuid"), &hex::encode("x.y")] {
            let e = cursor(bad).expect_err(bad);
            assert!(matches!(&e, FieldError::Bad { field, .. } if field == "page_token"));
        }
    }
}
