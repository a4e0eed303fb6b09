//! `colosseum history`: a player's finished matches as a table, newest first, a page at a
//! time (ListPlayerHistory, served from the archive). The saved session's own by default;
//! any player's with `--player ID`. Without a saved session it asks as a guest.

use crate::refused_at;
use crate::session;
use api::v1::{self, SeatResult};
use clap::Args;
use std::process::ExitCode;

/// Options of `colosseum history`.
#[derive(Args)]
pub struct HistoryArgs {
    /// Whose history: a player id [default: the saved session's].
    #[arg(long)]
    pub player: Option<String>,
    /// At most this many matches a page (1 to 100).
    #[arg(long, default_value_t = 20)]
    pub limit: u32,
    /// The page after this token (printed at the end of the page before).
    #[arg(long, default_value = "")]
    pub page: String,
    /// The gateway [default: the saved session's, else http://127.0.0.1:50051].
    #[arg(long)]
    pub gateway: Option<String>,
}

/// Runs `colosseum history`.
///
/// # Errors
/// No player named and no saved session, or the gateway's refusal.
pub fn run(args: HistoryArgs) -> Result<ExitCode, String> {
    let saved = match session::config_dir() {
        Some(dir) => session::load(&dir)?,
        None => None,
    };
    let player = match (&args.player, &saved) {
        (Some(p), _) => p.clone(),
        (None, Some(s)) => s.player_id.clone(),
        (None, None) => {
            return Err("whose history? --player ID, or a saved session (colosseum login)".into());
        }
    };
    let gateway = session::gateway(args.gateway.as_deref(), saved.as_ref());
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let page = runtime.block_on(async {
        let channel = client::channel(&gateway).map_err(|e| e.to_string())?;
        let client = match saved.as_ref().filter(|s| s.gateway == gateway) {
            Some(s) => client::Client::with_token(channel, &s.token, &s.player_id),
            None => client::Client::guest_on(channel, "history reader").await,
        }
        .map_err(|e| e.to_string())?;
        client.history(&player, args.limit, &args.page).await.map_err(|s| refused_at(s, &gateway))
    })?;
    print!("{}", table(&page));
    Ok(ExitCode::SUCCESS)
}

/// The widest opponent name shown whole.
const NAME_WIDTH: usize = 20;

/// The page as a table within 80 columns, then the command for the next page.
fn table(page: &v1::ListPlayerHistoryResponse) -> String {
    if page.entries.is_empty() {
        return "No finished matches.\n".into();
    }
    let mut out = format!(
        "{:<16}  {:<12}  {:<NAME_WIDTH$}  {:<6}  {:>13}\n",
        "ended (UTC)", "game", "opponent", "result", "rating"
    );
    for e in &page.entries {
        let mut name: String = e.opponent_name.chars().take(NAME_WIDTH - 4).collect();
        if e.opponent_is_bot {
            name.push_str(" bot");
        }
        let result = match SeatResult::try_from(e.result) {
            Ok(SeatResult::Won) => "won",
            Ok(SeatResult::Lost) => "lost",
            Ok(SeatResult::Draw) => "draw",
            Ok(SeatResult::Unspecified) | Err(_) => "?",
        };
        let rating = match (e.rating_before, e.rating_after) {
            (Some(b), Some(a)) => format!("{a:.0} ({:+.0})", a - b),
            _ => String::new(),
        };
        let game: String = e.game.chars().take(12).collect();
        out.push_str(&format!(
            "{:<16}  {game:<12}  {name:<NAME_WIDTH$}  {result:<6}  {rating:>13}\n",
            utc(e.finished_at_ms)
        ));
        out.push_str(&format!("  {}  {}\n", e.match_id, e.reason));
    }
    if !page.next_page_token.is_empty() {
        out.push_str(&format!("More: colosseum history --page {}\n", page.next_page_token));
    }
    out
}

/// Unix ms as `YYYY-MM-DD HH:MM` (UTC).
fn utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rest) = (secs / 86_400, secs % 86_400);
    // Civil from days (Howard Hinnant's algorithm), for dates after 1970.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02} {:02}:{:02}", rest / 3600, rest % 3600 / 60)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_page_is_a_table_within_80_columns() {
        let entry = |bot: bool, result: SeatResult, rating: Option<(f64, f64)>| v1::HistoryEntry {
            match_id: "0b6a3f5e-8d1c-4a57-9f0e-2c3d4e5f6a7b".into(),
            game: "dueling-monsters".into(),
            seat: 0,
            opponent_name: "A very long display name indeed".into(),
            opponent_is_bot: bot,
            opponent_player_id: String::new(),
            result: result.into(),
            reason: "completed".into(),
            finished_at_ms: 1_796_470_245_000,
            rating_before: rating.map(|r| r.0),
            rating_after: rating.map(|r| r.1),
        };
        let page = v1::ListPlayerHistoryResponse {
            entries: vec![
                entry(false, SeatResult::Won, Some((1500.0, 1662.3))),
                entry(true, SeatResult::Draw, None),
            ],
            next_page_token: "abc".into(),
        };
        let text = table(&page);
        for line in text.lines() {
            assert!(line.chars().count() <= 80, "{line}");
        }
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("2026-12-05 11:30  dueling-mons  A very long disp"), "{text}");
        assert!(lines[1].contains(" won ") && lines[1].ends_with("1662 (+162)"), "{text}");
        assert!(lines[3].contains(" bot ") && lines[3].contains("draw"), "{text}");
        assert_eq!(lines.last(), Some(&"More: colosseum history --page abc"));
        let none =
            v1::ListPlayerHistoryResponse { entries: vec![], next_page_token: String::new() };
        assert_eq!(table(&none), "No finished matches.\n");
    }

    #[test]
    fn times_are_utc_dates() {
        assert_eq!(utc(0), "1970-01-01 00:00");
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00");
        assert_eq!(utc(1_796_470_245_000), "2026-12-05 11:30");
    }
}
