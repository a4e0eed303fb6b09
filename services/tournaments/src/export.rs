//! ExportTournament's pages: a tournament's standings (with crosstable) and its matches,
//! as JSON and as a text table, cut into pages that each fit a gRPC message whatever the
//! tournament's size. Every page of one export shows the tournament at one sequence number.

use crate::error::Error;
use crate::fold::Loaded;
use crate::records::Row;
use std::collections::BTreeMap;
use tournament_rules::Outcome;

/// Lines and matches per page when the caller does not say.
pub const DEFAULT_PAGE_SIZE: usize = 1_000;
/// The most lines and matches a caller may ask for per page.
pub const MAX_PAGE_SIZE: usize = 10_000;
/// A page stops before this many bytes of JSON and text (the message limit is 4 MiB; a
/// page always carries at least one item, so an export always moves on).
pub const PAGE_BYTES: usize = 1 << 20;
/// A page token is at most this long (it is ours: three numbers).
const TOKEN_MAX: usize = 64;

/// The refusal of a page token no export answered (forged, or from another tournament
/// or a later state than the stream holds).
#[must_use]
pub fn bad_token() -> Error {
    Error::Invalid("page_token is not one this export answered".into())
}

/// Where a page starts: the tournament's sequence number every page shows, the first
/// standings line and the first match.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Cursor {
    /// The sequence number of the tournament the export shows (0: not yet fixed).
    pub seq: u64,
    /// The first standings line of the page.
    pub line: usize,
    /// The first match of the page.
    pub game: usize,
}

impl Cursor {
    /// Reads a page token (empty: the first page).
    ///
    /// # Errors
    /// INVALID_ARGUMENT for a token this service did not make.
    pub fn parse(token: &str) -> Result<Cursor, Error> {
        if token.is_empty() {
            return Ok(Cursor::default());
        }
        let bad = bad_token;
        if token.len() > TOKEN_MAX {
            return Err(bad());
        }
        let mut parts = token.strip_prefix("e1.").ok_or_else(bad)?.split('.');
        let mut next = || parts.next().and_then(|p| p.parse::<u64>().ok()).ok_or_else(bad);
        let (seq, line, game) = (next()?, next()?, next()?);
        if parts.next().is_some() || seq == 0 {
            return Err(bad());
        }
        let size = |n: u64| usize::try_from(n).map_err(|_| bad());
        Ok(Cursor { seq, line: size(line)?, game: size(game)? })
    }

    /// The token that asks for the page starting here.
    #[must_use]
    pub fn token(&self) -> String {
        format!("e1.{}.{}.{}", self.seq, self.line, self.game)
    }
}

/// One page of an export.
#[derive(Debug)]
pub struct Page {
    /// `{"tournament": .., "standings": [..], "matches": [..]}`: this page's lines and
    /// matches; the pages' arrays concatenated are the whole export.
    pub json: String,
    /// The table's lines of this page's standings (the first page adds the title and
    /// the column heads); the pages' texts concatenated are the whole table.
    pub text: String,
    /// Where the next page starts; `None` on the last.
    pub next: Option<Cursor>,
}

/// The page of `l`'s export starting at `from` (whose `seq` must be `l`'s), with at most
/// `size` standings lines and matches together and about [`PAGE_BYTES`] of JSON and text.
///
/// # Errors
/// INVALID_ARGUMENT for a cursor past the export's end.
pub fn page(l: &Loaded, from: Cursor, size: usize) -> Result<Page, Error> {
    page_within(l, from, size, PAGE_BYTES)
}

/// [`page`] with a page's bytes bounded by `budget` (more than one item's only when the
/// page holds just that one).
pub(crate) fn page_within(
    l: &Loaded,
    from: Cursor,
    size: usize,
    budget: usize,
) -> Result<Page, Error> {
    let rows = l.rows();
    let games = l.t.games();
    if from.line > rows.len()
        || from.game > games.len()
        || (from.line < rows.len() && from.game > 0)
    {
        return Err(bad_token());
    }
    let size = size.clamp(1, MAX_PAGE_SIZE);
    let cross = crosstable(l, &rows);
    let mut bytes = 0;
    let mut at = from;
    let mut lines = Vec::new();
    let mut text = String::new();
    if from.line == 0 && from.game == 0 {
        text = heading(l);
        bytes += text.len();
    }
    // Whether an item that brings the page to `bytes` fits after `taken` others.
    let room = |bytes: usize, taken: usize| taken == 0 || (taken < size && bytes <= budget);
    while at.line < rows.len() {
        let r = &rows[at.line];
        let c = cross.get(&r.entrant).map_or(&[][..], Vec::as_slice);
        let (json, line) = (line_json(r, c), line_text(r, c));
        let more = json.to_string().len() + line.len();
        if !room(bytes + more, lines.len()) {
            break;
        }
        bytes += more;
        lines.push(json);
        text.push_str(&line);
        at.line += 1;
    }
    let mut matches = Vec::new();
    while at.line == rows.len() && at.game < games.len() {
        let json = match_json(l, &games[at.game]);
        let more = json.to_string().len();
        if !room(bytes + more, lines.len() + matches.len()) {
            break;
        }
        bytes += more;
        matches.push(json);
        at.game += 1;
    }
    let json = serde_json::json!({
        "tournament": {
            "id": l.spec.id, "name": l.spec.name, "game": l.spec.game.game,
            "format": format!("{:?}", l.spec.format), "round": l.t.round(), "rounds": l.rounds(),
            "state": format!("{:?}", l.state()), "sequence": l.seq,
            "players": rows.len(), "matches": games.len(),
        },
        "standings": lines,
        "matches": matches,
    });
    let done = at.line == rows.len() && at.game == games.len();
    Ok(Page { json: json.to_string(), text, next: (!done).then_some(at) })
}

/// Per entrant, per game in order: the opponent's rank, the seat (`w` first, `b` second)
/// and the result (`+` `=` `-`, `*` unfinished).
fn crosstable(l: &Loaded, rows: &[Row]) -> BTreeMap<u32, Vec<String>> {
    let rank_of: BTreeMap<u32, u32> = rows.iter().map(|r| (r.entrant, r.rank)).collect();
    let mut cross: BTreeMap<u32, Vec<String>> = BTreeMap::new();
    for g in l.t.games() {
        for seat in 0..2 {
            let me = g.players[seat].0;
            let them = g.players[1 - seat].0;
            let mark = match (g.outcome, seat) {
                (None, _) => "*",
                (Some(Outcome::Draw), _) => "=",
                (Some(Outcome::Seat0), 0) | (Some(Outcome::Seat1), 1) => "+",
                _ => "-",
            };
            let colour = if seat == 0 { "w" } else { "b" };
            cross
                .entry(me)
                .or_default()
                .push(format!("{}{colour}{mark}", rank_of.get(&them).copied().unwrap_or(0)));
        }
    }
    cross
}

fn match_json(l: &Loaded, g: &tournament_rules::Game) -> serde_json::Value {
    serde_json::json!({
        "match_id": l.match_of(g.no.0),
        "round": g.round,
        "seat0": l.player(g.players[0]),
        "seat1": l.player(g.players[1]),
        "result": match g.outcome {
            Some(Outcome::Seat0) => "1-0",
            Some(Outcome::Seat1) => "0-1",
            Some(Outcome::Draw) => "1/2-1/2",
            None => "*",
        },
    })
}

fn line_json(r: &Row, cross: &[String]) -> serde_json::Value {
    serde_json::json!({
        "rank": r.rank, "player_id": r.player, "name": r.name,
        "points": f64::from(r.points2) / 2.0, "played": r.played, "wins": r.wins,
        "draws": r.draws, "losses": r.losses, "byes": r.byes,
        "buchholz": f64::from(r.buchholz2) / 2.0,
        "sonneborn_berger": f64::from(r.sonneborn_berger4) / 4.0,
        "withdrawn": r.withdrawn, "crosstable": cross,
    })
}

fn heading(l: &Loaded) -> String {
    let rules = l.spec.format.rules();
    // A continuous format has no rounds to count: its games are counted instead.
    let progress = if rules.timing().is_some() {
        format!("{}, {} games", rules.name(), l.t.games().len())
    } else {
        format!("round {} of {}", l.t.round(), l.rounds())
    };
    let mut text = format!("{} ({}), {progress}\n", l.spec.name, l.spec.game.game);
    text.push_str(&format!(
        "{:>4}  {:<24} {:>6} {:>4} {:>4} {:>4} {:>4} {:>8} {:>8}  crosstable\n",
        "rank", "name", "points", "W", "D", "L", "bye", "buchholz", "s-b"
    ));
    text
}

fn line_text(r: &Row, cross: &[String]) -> String {
    let name: String = r.name.chars().take(24).collect();
    format!(
        "{:>4}  {:<24} {:>6.1} {:>4} {:>4} {:>4} {:>4} {:>8.1} {:>8.2}  {}{}\n",
        r.rank,
        name,
        f64::from(r.points2) / 2.0,
        r.wins,
        r.draws,
        r.losses,
        r.byes,
        f64::from(r.buchholz2) / 2.0,
        f64::from(r.sonneborn_berger4) / 4.0,
        cross.join(" "),
        if r.withdrawn { "  (withdrawn)" } else { "" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::played::played_round_robin;
    use std::collections::BTreeSet;

    /// Every page of an export from the first, concatenated: standings lines, matches,
    /// text, and the pages' sizes.
    fn all_pages(
        l: &Loaded,
        size: usize,
        budget: usize,
    ) -> (Vec<serde_json::Value>, Vec<serde_json::Value>, String, Vec<usize>) {
        let (mut lines, mut matches, mut text, mut sizes) = (vec![], vec![], String::new(), vec![]);
        let mut from = Cursor { seq: l.seq, ..Default::default() };
        loop {
            let page = page_within(l, from, size, budget).expect("a page");
            let json: serde_json::Value = serde_json::from_str(&page.json).expect("json");
            assert_eq!(json["tournament"]["matches"], l.t.games().len());
            lines.extend(json["standings"].as_array().expect("lines").iter().cloned());
            matches.extend(json["matches"].as_array().expect("matches").iter().cloned());
            sizes.push(page.json.len() + page.text.len());
            text.push_str(&page.text);
            match page.next {
                Some(next) => {
                    assert_eq!(Cursor::parse(&next.token()).expect("ours"), next);
                    from = next;
                }
                None => return (lines, matches, text, sizes),
            }
        }
    }

    #[test]
    fn an_export_in_pages_is_the_whole_export() {
        let l = played_round_robin(10);
        let (lines, matches, text, sizes) = all_pages(&l, 10_000, PAGE_BYTES);
        assert_eq!((lines.len(), matches.len(), sizes.len()), (10, 45, 1));
        let ranks: Vec<u64> = lines.iter().map(|r| r["rank"].as_u64().expect("rank")).collect();
        assert_eq!(ranks, (1..=10).collect::<Vec<_>>());
        assert_eq!(text.lines().count(), 12, "title, heads, ten lines");
        let ids: BTreeSet<&str> =
            matches.iter().map(|m| m["match_id"].as_str().expect("id")).collect();
        assert_eq!(ids.len(), 45);
        assert_eq!(matches.iter().filter(|m| m["result"] == "1/2-1/2").count(), 23);
        // Three at a time, and a few hundred bytes at a time: the same export.
        let by_three = all_pages(&l, 3, PAGE_BYTES);
        assert_eq!(by_three.3.len(), 19, "55 items, 3 a page");
        assert_eq!((&by_three.0, &by_three.1, &by_three.2), (&lines, &matches, &text));
        let small = all_pages(&l, 10_000, 600);
        assert!(small.3.len() > 10, "{} pages", small.3.len());
        assert!(small.3.iter().all(|&b| b <= 600 + 300), "{:?}", small.3);
        assert_eq!((&small.0, &small.1, &small.2), (&lines, &matches, &text));
    }

    #[test]
    fn a_page_token_not_ours_is_refused() {
        for bad in ["x", "e1.1.2", "e1.0.0.0", "e1.1.2.3.4", "e1.a.2.3", &"9".repeat(70)] {
            assert!(matches!(Cursor::parse(bad), Err(Error::Invalid(_))), "{bad}");
        }
        let l = played_round_robin(4);
        for (line, game) in [(5, 0), (4, 7), (1, 1)] {
            let c = Cursor { seq: l.seq, line, game };
            assert!(matches!(page(&l, c, 10), Err(Error::Invalid(_))), "{c:?}");
        }
    }
}
