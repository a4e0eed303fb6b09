//! Standings, tie-breaks and the crosstable, each a pure function of the tournament state (so
//! reading them between any two events is consistent), plus plain-text renderings of both.
//!
//! Units: points and Buchholz in half-points (a win is 2), Sonneborn-Berger in quarter-points,
//! so that every figure is an integer.

use crate::model::{GameNo, Player, PlayerResult, Seat};
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};
use std::fmt::Write as _;

/// One line of the standings.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Standing {
    /// 1-based; no ties (the last tie-break is the seed).
    pub rank: u32,
    /// Who.
    pub player: Player,
    /// Seed (1 = top).
    pub seed: u32,
    /// Points in half-points: a win 2, a draw 1, a bye 2 (Swiss and round robin); in an arena
    /// with the streak doubling; a knockout bye scores nothing.
    pub points: u32,
    /// Games with a result.
    pub games: u32,
    /// Games won.
    pub wins: u32,
    /// Games drawn.
    pub draws: u32,
    /// Games lost.
    pub losses: u32,
    /// Byes received.
    pub byes: u32,
    /// Games with a result played in seat 0 and in seat 1.
    pub seats: [u32; 2],
    /// Sum of the final points of the opponents met (half-points); a bye adds nothing.
    pub buchholz: u32,
    /// Sonneborn-Berger in quarter-points: the final points of each opponent beaten, plus half
    /// those of each opponent drawn (a bye adds nothing).
    pub sonneborn_berger: u32,
    /// Knockout only (0 otherwise): the round reached, that is the round lost in, or the
    /// bracket's rounds + 1 for the champion (a player through to a round not yet paired
    /// counts as reaching it).
    pub reached_round: u32,
    /// Whether the player withdrew.
    pub withdrawn: bool,
}

/// The crosstable: every player's games round by round, rows in standings order.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Crosstable {
    /// Rounds begun (0 in an arena).
    pub rounds: u32,
    /// One row per player.
    pub rows: Vec<CrosstableRow>,
}

/// One player's row of the crosstable.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct CrosstableRow {
    /// Their rank in the standings.
    pub rank: u32,
    /// Who.
    pub player: Player,
    /// Their points (half-points).
    pub points: u32,
    /// Their games and byes in order (round, then game number; a bye last in its round).
    pub cells: Vec<Cell>,
}

/// One game (or bye) in a crosstable row.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Cell {
    /// The round (0 in an arena).
    pub round: u32,
    /// The game; `None` for a bye.
    pub game: Option<GameNo>,
    /// The opponent; `None` for a bye.
    pub opponent: Option<Player>,
    /// The player's seat; `None` for a bye.
    pub seat: Option<Seat>,
    /// The result for this player, once recorded (a bye is a win).
    pub result: Option<PlayerResult>,
}

/// Per player, what the standings are made of.
#[derive(Clone, Default)]
struct Tally {
    games: u32,
    wins: u32,
    draws: u32,
    losses: u32,
    byes: u32,
    seats: [u32; 2],
    /// Recorded games in order: opponent and result.
    results: Vec<(Player, PlayerResult)>,
    /// The results alone, in the same order: what a format's points are made of.
    plain: Vec<PlayerResult>,
}

fn tallies(t: &Tournament) -> Vec<Tally> {
    let mut tally = vec![Tally::default(); t.entrants()];
    for g in t.games() {
        let Some(outcome) = g.outcome else { continue };
        for (s, p) in g.players.iter().enumerate() {
            let seat = if s == 0 { Seat::Zero } else { Seat::One };
            let r = outcome.for_seat(seat);
            let e = &mut tally[p.index()];
            e.games += 1;
            e.seats[s] += 1;
            match r {
                PlayerResult::Win => e.wins += 1,
                PlayerResult::Draw => e.draws += 1,
                PlayerResult::Loss => e.losses += 1,
            }
            e.results.push((g.players[1 - s], r));
            e.plain.push(r);
        }
    }
    for r in t.rounds() {
        for b in &r.byes {
            tally[b.index()].byes += 1;
        }
    }
    tally
}

fn points_of(t: &Tournament, tally: &[Tally]) -> Vec<u32> {
    let format = t.format();
    let rules = format.rules();
    tally.iter().map(|e| rules.points(&e.plain, e.byes)).collect()
}

/// Every player's points, indexed by player.
pub(crate) fn points_by_player(t: &Tournament) -> Vec<u32> {
    points_of(t, &tallies(t))
}

impl Tournament {
    /// The standings, best first, in the format's order ([`FormatRules::rank`](crate::FormatRules::rank)):
    /// - Swiss: points, Buchholz, Sonneborn-Berger, wins, seed.
    /// - Round robin: points, Sonneborn-Berger, wins, seed (Buchholz says nothing when
    ///   everyone meets everyone).
    /// - Knockout: the round reached, then seed.
    /// - Arena: points (streaks included), wins, seed.
    pub fn standings(&self) -> Vec<Standing> {
        let tally = tallies(self);
        let points = points_of(self, &tally);
        let format = self.format();
        let rules = format.rules();
        let reached = rules.reached_rounds(self);
        let mut rows: Vec<Standing> = tally
            .iter()
            .enumerate()
            .map(|(i, e)| {
                let player = Player(i as u32);
                let buchholz = e.results.iter().map(|&(o, _)| points[o.index()]).sum();
                let sonneborn_berger = e
                    .results
                    .iter()
                    .map(|&(o, r)| match r {
                        PlayerResult::Win => 2 * points[o.index()],
                        PlayerResult::Draw => points[o.index()],
                        PlayerResult::Loss => 0,
                    })
                    .sum();
                Standing {
                    rank: 0,
                    player,
                    seed: self.seed(player),
                    points: points[i],
                    games: e.games,
                    wins: e.wins,
                    draws: e.draws,
                    losses: e.losses,
                    byes: e.byes,
                    seats: e.seats,
                    buchholz,
                    sonneborn_berger,
                    reached_round: reached.as_ref().map_or(0, |r| r[i]),
                    withdrawn: self.is_withdrawn(player),
                }
            })
            .collect();
        rules.rank(&mut rows);
        for (i, s) in rows.iter_mut().enumerate() {
            s.rank = i as u32 + 1;
        }
        rows
    }

    /// The crosstable, rows in standings order.
    pub fn crosstable(&self) -> Crosstable {
        Crosstable { rounds: self.round(), rows: self.crosstable_rows(&self.standings()) }
    }

    /// The crosstable rows of `lines` (lines of [`Tournament::standings`]: all of them, or a
    /// page), in their order: a page of the crosstable costs one pass over the games, and
    /// only its own players' cells are built. A line naming no entrant gets no cells.
    pub fn crosstable_rows(&self, lines: &[Standing]) -> Vec<CrosstableRow> {
        // Each entrant's row on the page, if it has one.
        let mut row_of: Vec<Option<usize>> = vec![None; self.entrants()];
        for (i, s) in lines.iter().enumerate() {
            if let Some(r) = row_of.get_mut(s.player.index()) {
                *r = Some(i);
            }
        }
        let mut cells: Vec<Vec<Cell>> = vec![Vec::new(); lines.len()];
        for g in self.games() {
            for (s, p) in g.players.iter().enumerate() {
                let Some(row) = row_of[p.index()] else { continue };
                let seat = if s == 0 { Seat::Zero } else { Seat::One };
                cells[row].push(Cell {
                    round: g.round,
                    game: Some(g.no),
                    opponent: Some(g.players[1 - s]),
                    seat: Some(seat),
                    result: g.outcome.map(|o| o.for_seat(seat)),
                });
            }
        }
        for r in self.rounds() {
            for b in &r.byes {
                let Some(row) = row_of[b.index()] else { continue };
                cells[row].push(Cell {
                    round: r.round,
                    game: None,
                    opponent: None,
                    seat: None,
                    result: Some(PlayerResult::Win),
                });
            }
        }
        lines
            .iter()
            .zip(cells)
            .map(|(s, mut c)| {
                c.sort_by_key(|c| (c.round, c.game.map_or(u32::MAX, |g| g.0)));
                CrosstableRow { rank: s.rank, player: s.player, points: s.points, cells: c }
            })
            .collect()
    }

    /// The standings as a text table, one line per player. Points and Buchholz are printed in
    /// points (4.5), Sonneborn-Berger too (12.25); a knockout adds the round reached; a
    /// withdrawn player is marked `(withdrawn)`.
    pub fn standings_table(&self) -> String {
        // A format that counts the round reached (a knockout) shows it.
        let knockout = self.format().rules().reached_rounds(self).is_some();
        let mut out = String::new();
        let _ = write!(
            out,
            "{:>5} {:<8} {:>5} {:>7} {:>5} {:>4} {:>4} {:>4} {:>4} {:>7} {:>8} {:>8}",
            "Rank",
            "Player",
            "Seed",
            "Points",
            "Games",
            "W",
            "D",
            "L",
            "Byes",
            "Seats",
            "Buchholz",
            "SB"
        );
        if knockout {
            let _ = write!(out, " {:>7}", "Reached");
        }
        out.push('\n');
        for s in self.standings() {
            let _ = write!(
                out,
                "{:>5} {:<8} {:>5} {:>7} {:>5} {:>4} {:>4} {:>4} {:>4} {:>7} {:>8} {:>8}",
                s.rank,
                s.player.to_string(),
                s.seed,
                half_points(s.points),
                s.games,
                s.wins,
                s.draws,
                s.losses,
                s.byes,
                format!("{}/{}", s.seats[0], s.seats[1]),
                half_points(s.buchholz),
                quarter_points(s.sonneborn_berger),
            );
            if knockout {
                let _ = write!(out, " {:>7}", s.reached_round);
            }
            if s.withdrawn {
                out.push_str(" (withdrawn)");
            }
            out.push('\n');
        }
        out
    }

    /// The crosstable as text: one line per player in standings order, then per round the
    /// games as `<result><opponent's rank>/<seat>`: `+3/0` a win against rank 3 in seat 0,
    /// `=` a draw, `-` a loss, `?` no result yet; `bye` for a bye; several games of a round
    /// (knockout replays) joined by commas. An arena lists the games in order instead.
    pub fn crosstable_table(&self) -> String {
        let table = self.crosstable();
        let mut rank_of = vec![0; self.entrants()];
        for row in &table.rows {
            rank_of[row.player.index()] = row.rank;
        }
        let cell = |c: &Cell| match (c.opponent, c.seat) {
            (Some(o), Some(s)) => {
                let r = match c.result {
                    Some(PlayerResult::Win) => '+',
                    Some(PlayerResult::Draw) => '=',
                    Some(PlayerResult::Loss) => '-',
                    None => '?',
                };
                format!("{r}{}/{}", rank_of[o.index()], s.index())
            }
            _ => "bye".to_string(),
        };
        let columns: Vec<Vec<String>> = table
            .rows
            .iter()
            .map(|row| {
                if table.rounds == 0 {
                    row.cells.iter().map(cell).collect()
                } else {
                    (1..=table.rounds)
                        .map(|r| {
                            let s: Vec<String> =
                                row.cells.iter().filter(|c| c.round == r).map(cell).collect();
                            s.join(",")
                        })
                        .collect()
                }
            })
            .collect();
        let width = columns.iter().flatten().map(String::len).max().unwrap_or(0).max(4);
        let mut out = String::new();
        let _ = write!(out, "{:>5} {:<8} {:>7} |", "Rank", "Player", "Points");
        if table.rounds == 0 {
            let _ = write!(out, " Games");
        } else {
            for r in 1..=table.rounds {
                let _ = write!(out, " {:>width$}", format!("R{r}"));
            }
        }
        out.push('\n');
        for (row, cols) in table.rows.iter().zip(&columns) {
            let _ = write!(
                out,
                "{:>5} {:<8} {:>7} |",
                row.rank,
                row.player.to_string(),
                half_points(row.points)
            );
            for c in cols {
                let _ = write!(out, " {c:>width$}");
            }
            out.push('\n');
        }
        out
    }
}

/// Half-points as points: 9 -> "4.5".
fn half_points(h: u32) -> String {
    if h.is_multiple_of(2) { format!("{}", h / 2) } else { format!("{}.5", h / 2) }
}

/// Quarter-points as points: 49 -> "12.25".
fn quarter_points(q: u32) -> String {
    match q % 4 {
        0 => format!("{}", q / 4),
        1 => format!("{}.25", q / 4),
        2 => format!("{}.5", q / 4),
        _ => format!("{}.75", q / 4),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions() {
        assert_eq!(half_points(0), "0");
        assert_eq!(half_points(9), "4.5");
        assert_eq!(quarter_points(49), "12.25");
        assert_eq!(quarter_points(50), "12.5");
        assert_eq!(quarter_points(51), "12.75");
        assert_eq!(quarter_points(52), "13");
    }
}
