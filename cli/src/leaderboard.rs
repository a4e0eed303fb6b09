//! `colosseum leaderboard`: a page of a game's leaderboard as a table, from the top or
//! around a player (`--around me`: the saved session's). GetLeaderboard needs no session,
//! so it asks without one.

use crate::refused_at;
use crate::session::{self, Session};
use api::v1::{self, lobby_service_client::LobbyServiceClient};
use clap::{Args, ValueEnum};
use std::process::ExitCode;

/// Options of `colosseum leaderboard`.
#[derive(Args)]
pub struct LeaderboardArgs {
    /// The game (see `colosseum games`).
    #[arg(long, default_value = "gops")]
    pub game: String,
    /// Which board: established ratings, provisional ones, or bots.
    #[arg(long, value_enum, default_value_t = BoardArg::Rated)]
    pub board: BoardArg,
    /// At most this many players (1 to 100).
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// The page around this player (a player id, or `me`: the saved session's).
    #[arg(long)]
    pub around: Option<String>,
    /// The gateway [default: the saved session's, else http://127.0.0.1:50051].
    #[arg(long)]
    pub gateway: Option<String>,
}

/// A board, as typed.
#[derive(Clone, Copy, ValueEnum)]
pub enum BoardArg {
    /// Established ratings (deviation at most 110) of players who opted in.
    Rated,
    /// Provisional ratings (deviation above 110) of players who opted in.
    Provisional,
    /// Bot accounts.
    Bots,
}

impl BoardArg {
    fn proto(self) -> v1::Board {
        match self {
            BoardArg::Rated => v1::Board::Rated,
            BoardArg::Provisional => v1::Board::Provisional,
            BoardArg::Bots => v1::Board::Bots,
        }
    }

    fn name(self) -> &'static str {
        match self {
            BoardArg::Rated => "rated",
            BoardArg::Provisional => "provisional",
            BoardArg::Bots => "bots",
        }
    }
}

/// Runs `colosseum leaderboard`.
///
/// # Errors
/// `--around me` without a saved session, or the gateway's refusal.
pub fn run(args: LeaderboardArgs) -> Result<ExitCode, String> {
    let saved = match session::config_dir() {
        Some(dir) => session::load(&dir)?,
        None => None,
    };
    let around =
        match args.around.as_deref() {
            Some("me") => match &saved {
                Some(s) => s.player_id.clone(),
                None => return Err(
                    "--around me: no saved session (colosseum register or colosseum login first)"
                        .into(),
                ),
            },
            Some(id) => id.to_string(),
            None => String::new(),
        };
    let gateway = session::gateway(args.gateway.as_deref(), saved.as_ref());
    let req = v1::GetLeaderboardRequest {
        game: args.game.clone(),
        board: args.board.proto().into(),
        limit: args.limit,
        from_rank: 0,
        around_player_id: around,
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let page = runtime.block_on(async {
        let mut lobby =
            LobbyServiceClient::new(client::channel(&gateway).map_err(|e| e.to_string())?);
        let answer = lobby.get_leaderboard(req).await.map_err(|s| refused_at(s, &gateway))?;
        Ok::<_, String>(answer.into_inner())
    })?;
    print!("{}", table(&args.game, args.board, &page, saved.as_ref()));
    if page.total == 0 && matches!(args.board, BoardArg::Rated) {
        // New players stay provisional for their first matches: say where they are.
        println!(
            "New players are on the provisional board until their rating settles: --board provisional"
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The widest display name shown whole; longer ones are cut (a table stays a table).
const NAME_WIDTH: usize = 24;

/// The page as a table: a title, a header, one line per player (the saved session's
/// marked `>`).
fn table(
    game: &str,
    board: BoardArg,
    page: &v1::GetLeaderboardResponse,
    me: Option<&Session>,
) -> String {
    let mut out = format!("{game}, {} board: {} players\n", board.name(), page.total);
    if page.entries.is_empty() {
        out.push_str("  (nobody on this page)\n");
        return out;
    }
    out.push_str(&format!(
        "  {:>5}  {:<NAME_WIDTH$}  {:>6}  {:>4}  {:>5}\n",
        "rank", "name", "rating", "RD", "games"
    ));
    for e in &page.entries {
        let mark = if me.is_some_and(|m| m.player_id == e.player_id) { '>' } else { ' ' };
        let name: String = e.display_name.chars().take(NAME_WIDTH).collect();
        out.push_str(&format!(
            "{mark} {:>5}  {name:<NAME_WIDTH$}  {:>6.0}  {:>4.0}  {:>5}\n",
            e.rank, e.rating, e.deviation, e.games
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rank: u64, id: &str, name: &str, rating: f64) -> v1::LeaderboardEntry {
        v1::LeaderboardEntry {
            rank,
            player_id: id.into(),
            display_name: name.into(),
            rating,
            deviation: 289.6,
            games: 3,
        }
    }

    #[test]
    fn a_page_is_a_table_with_the_saved_player_marked() {
        let page = v1::GetLeaderboardResponse {
            entries: vec![entry(1, "a", "Ada", 1662.4), entry(2, "b", "Grace", 1337.6)],
            total: 2,
        };
        let me = Session {
            gateway: String::new(),
            token: String::new(),
            player_id: "b".into(),
            display_name: "Grace".into(),
        };
        let text = table("gops", BoardArg::Provisional, &page, Some(&me));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "gops, provisional board: 2 players");
        assert!(lines[1].contains("rank") && lines[1].contains("games"), "{text}");
        assert!(lines[2].starts_with("      1  Ada "), "{text}");
        assert!(lines[2].ends_with("  1662   290      3"), "{text}");
        assert!(lines[3].starts_with(">     2  Grace "), "{text}");
        assert!(lines[3].contains(" 1338 "), "{text}");
    }

    #[test]
    fn an_empty_page_says_so_and_long_names_are_cut() {
        let empty = v1::GetLeaderboardResponse { entries: vec![], total: 0 };
        assert!(table("gops", BoardArg::Rated, &empty, None).contains("nobody"));
        let long = "x".repeat(40);
        let page =
            v1::GetLeaderboardResponse { entries: vec![entry(1, "a", &long, 1500.0)], total: 1 };
        let text = table("gops", BoardArg::Rated, &page, None);
        assert!(
            text.contains(&"x".repeat(NAME_WIDTH)) && !text.contains(&"x".repeat(NAME_WIDTH + 1))
        );
    }
}
