//! Leaderboards and ratings as clients read them: pages of a board (from a rank, or
//! around a player), a player's rating with rank and history. The boards are Redis
//! sorted sets, so every replica answers the same rank.

use crate::error::Error;
use crate::ratings::initial;
use api::v1;
use store::{Board, LobbyStore, PlayerId};

/// The most entries of a page.
pub const MAX_PAGE: u32 = 100;
/// Entries of a page when none is asked.
pub const DEFAULT_PAGE: u32 = 20;
/// The most history lines of GetRating.
pub const MAX_HISTORY: u32 = 100;

/// The store's board of an API board.
pub fn board_of(b: i32) -> Result<Board, Error> {
    match v1::Board::try_from(b) {
        Ok(v1::Board::Unspecified | v1::Board::Rated) => Ok(Board::Rated),
        Ok(v1::Board::Provisional) => Ok(Board::Provisional),
        Ok(v1::Board::Bots) => Ok(Board::Bots),
        Err(_) => Err(api_convert::bad("board", format!("board {b} is no board")).into()),
    }
}

/// The API board of a store board.
pub fn board_proto(b: Board) -> v1::Board {
    match b {
        Board::Rated => v1::Board::Rated,
        Board::Provisional => v1::Board::Provisional,
        Board::Bots => v1::Board::Bots,
    }
}

fn known_game(game: &str) -> Result<(), Error> {
    api_convert::text::at_most("game", game.len(), api_convert::text::MAX_GAME_LEN, "bytes")?;
    if games::registry::info(game).is_none() {
        return Err(Error::BadQueue(format!(
            "no game {}; the games are {}",
            service_kit::status::clip(game),
            games::registry::names()
        )));
    }
    Ok(())
}

/// A page of a board.
///
/// # Errors
/// INVALID_ARGUMENT for a bad field, NOT_FOUND for a player not on the board, or the
/// store's failure.
pub async fn leaderboard(
    store: &dyn LobbyStore,
    r: v1::GetLeaderboardRequest,
) -> Result<v1::GetLeaderboardResponse, Error> {
    known_game(&r.game)?;
    let board = board_of(r.board)?;
    let limit = api_convert::text::page_size("limit", r.limit, DEFAULT_PAGE, MAX_PAGE)? as usize;
    let start = if r.around_player_id.is_empty() {
        r.from_rank.saturating_sub(1)
    } else {
        let player: PlayerId = api_convert::uuid_field("around_player_id", &r.around_player_id)?;
        let rank = store.rank(&r.game, board, player).await?.ok_or(Error::NotOnBoard)?;
        // The player in the middle, or as near as the top allows.
        rank.saturating_sub((limit as u64 - 1) / 2)
    };
    let (page, total) = store.leaderboard(&r.game, board, start, limit).await?;
    let mut entries = Vec::with_capacity(page.len());
    for (i, (player, score)) in page.into_iter().enumerate() {
        let rating = store.rating(&r.game, player).await?.unwrap_or_else(initial);
        let name = store.account(player).await?.map(|a| a.display_name).unwrap_or_default();
        entries.push(v1::LeaderboardEntry {
            rank: start + i as u64 + 1,
            player_id: player.to_string(),
            display_name: name,
            rating: score,
            deviation: rating.deviation,
            games: rating.games,
        });
    }
    Ok(v1::GetLeaderboardResponse { entries, total })
}

/// A player's rating, rank and history.
///
/// # Errors
/// INVALID_ARGUMENT for a bad field, or the store's failure.
pub async fn rating(
    store: &dyn LobbyStore,
    r: v1::GetRatingRequest,
) -> Result<v1::GetRatingResponse, Error> {
    known_game(&r.game)?;
    let player: PlayerId = api_convert::uuid_field("player_id", &r.player_id)?;
    api_convert::text::at_most(
        "history_limit",
        r.history_limit as usize,
        MAX_HISTORY as usize,
        "entries",
    )?;
    let rating = store.rating(&r.game, player).await?.unwrap_or_else(initial);
    let mut rank = None;
    let mut board = v1::Board::Unspecified;
    for b in Board::ALL {
        if let Some(n) = store.rank(&r.game, b, player).await? {
            rank = Some(n + 1);
            board = board_proto(b);
            break;
        }
    }
    let history = if r.history_limit == 0 {
        Vec::new()
    } else {
        store.history(&r.game, player, r.history_limit as usize).await?
    };
    Ok(v1::GetRatingResponse {
        rating: rating.rating,
        deviation: rating.deviation,
        volatility: rating.volatility,
        games: rating.games,
        provisional: rating.deviation > ladder::glicko::PROVISIONAL_DEVIATION,
        rank,
        board: board as i32,
        history: history
            .into_iter()
            .map(|h| v1::RatingChange {
                match_id: h.match_id.to_string(),
                rating: h.rating,
                deviation: h.deviation,
                score: h.score,
                opponent_rating: h.opponent_rating,
                at_ms: h.at_ms,
            })
            .collect(),
    })
}
