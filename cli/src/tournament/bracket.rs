//! A knockout's bracket as text: one block of indented lines per round, each match as
//! "A beat B (1-0)" (its replays counted, a match a draw decided by seed said so), each bye
//! as "A bye", and "Winner: NAME" last; every line within [`WIDTH`] columns. Pure: built
//! from what the platform API answers (the export's matches, GetStandings' round reached,
//! the results stream's byes), so it is tested without a cluster.

use std::collections::BTreeMap;

/// The widest line printed, in characters.
pub const WIDTH: usize = 80;

/// The most characters of a name in a match line: two names, the words and the longest
/// score stay within [`WIDTH`].
const NAME: usize = 24;

/// A game's result, as the export writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GameResult {
    /// Seat 0 won (`1-0`).
    Seat0,
    /// Seat 1 won (`0-1`).
    Seat1,
    /// A draw (`1/2-1/2`).
    Draw,
    /// Not finished (`*`).
    Unfinished,
}

impl GameResult {
    /// The export's notation; anything else reads as unfinished.
    pub fn parse(s: &str) -> GameResult {
        match s {
            "1-0" => GameResult::Seat0,
            "0-1" => GameResult::Seat1,
            "1/2-1/2" => GameResult::Draw,
            _ => GameResult::Unfinished,
        }
    }
}

/// One game of the knockout (a replay is another game of the same round and pair).
#[derive(Clone, Debug)]
pub struct Game {
    /// Its round, from 1.
    pub round: u32,
    /// Seat 0's player id.
    pub seat0: String,
    /// Seat 1's player id.
    pub seat1: String,
    /// Its result.
    pub result: GameResult,
}

/// An entrant.
#[derive(Clone, Debug)]
pub struct Entrant {
    /// The name shown.
    pub name: String,
    /// The round reached (GetStandings' `reached_round`): the round lost in, the champion's
    /// one more than the final's.
    pub reached_round: u32,
}

/// Everything the bracket is drawn from.
#[derive(Clone, Debug, Default)]
pub struct Knockout {
    /// The first line (the tournament's name...), cut to [`WIDTH`].
    pub title: String,
    /// Rounds in all (log2 of the bracket).
    pub rounds: u32,
    /// Entrants by player id.
    pub entrants: BTreeMap<String, Entrant>,
    /// Every game in the order started.
    pub games: Vec<Game>,
    /// Each round's byes (player ids), as the results stream's `RoundPaired` lists them.
    pub byes: BTreeMap<u32, Vec<String>>,
}

/// `s` cut to `max` characters (the last one an ellipsis when cut).
fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// A round's heading: its number, and its name near the end.
fn heading(round: u32, rounds: u32) -> String {
    let stage = match rounds.saturating_sub(round) {
        0 => ": final",
        1 => ": semifinals",
        2 => ": quarterfinals",
        _ => "",
    };
    format!("Round {round} of {rounds}{stage}")
}

/// "1 draw", "2 draws".
fn draws(n: usize) -> String {
    if n == 1 { "1 draw".into() } else { format!("{n} draws") }
}

/// One match of a round: its two players (in the first game's seats) and its games' results.
struct Match<'a> {
    players: [&'a str; 2],
    /// Each game's result seen from `players[0]`: `Some(true)` a win, `Some(false)` a loss,
    /// `None` a draw; `Err(())` unfinished.
    games: Vec<Result<Option<bool>, ()>>,
}

/// The bracket's lines: the title, each round's heading and its matches and byes, then
/// "Winner: NAME" (or why there is none yet). Every line is at most [`WIDTH`] characters.
pub fn bracket_lines(k: &Knockout) -> Vec<String> {
    let name = |id: &str| k.entrants.get(id).map_or_else(|| cut(id, 8), |e| e.name.clone());
    let reached = |id: &str| k.entrants.get(id).map_or(0, |e| e.reached_round);
    let mut lines = vec![cut(&k.title, WIDTH)];
    let last_round = k.games.iter().map(|g| g.round).chain(k.byes.keys().copied()).max();
    for round in 1..=last_round.unwrap_or(0) {
        let mut matches: Vec<Match> = Vec::new();
        for g in k.games.iter().filter(|g| g.round == round) {
            let (a, b) = (g.seat0.as_str(), g.seat1.as_str());
            let i = match matches.iter().position(|m| m.players == [a, b] || m.players == [b, a]) {
                Some(i) => i,
                None => {
                    matches.push(Match { players: [a, b], games: Vec::new() });
                    matches.len() - 1
                }
            };
            let first_is_seat0 = matches[i].players[0] == a;
            let seen = match g.result {
                GameResult::Seat0 => Ok(Some(first_is_seat0)),
                GameResult::Seat1 => Ok(Some(!first_is_seat0)),
                GameResult::Draw => Ok(None),
                GameResult::Unfinished => Err(()),
            };
            matches[i].games.push(seen);
        }
        let byes = k.byes.get(&round).map_or(&[][..], Vec::as_slice);
        let rows: Vec<(String, String, String)> = matches
            .iter()
            .map(|m| {
                let [a, b] = m.players.map(|p| cut(&name(p), NAME));
                let drawn = m.games.iter().filter(|r| matches!(r, Ok(None))).count();
                match m.games.last() {
                    Some(Ok(Some(true))) if drawn == 0 => (a, "beat".into(), b + " (1-0)"),
                    Some(Ok(Some(false))) if drawn == 0 => (b, "beat".into(), a + " (1-0)"),
                    Some(Ok(Some(true))) => {
                        (a, "beat".into(), format!("{b} (1-0 after {})", draws(drawn)))
                    }
                    Some(Ok(Some(false))) => {
                        (b, "beat".into(), format!("{a} (1-0 after {})", draws(drawn)))
                    }
                    // Drawn to the end: the one who went on went through on seed.
                    Some(Ok(None)) => {
                        let how = format!("{}: higher seed", draws(drawn));
                        let [ra, rb] = m.players.map(reached);
                        if ra > round {
                            (a, "beat".into(), format!("{b} ({how})"))
                        } else if rb > round {
                            (b, "beat".into(), format!("{a} ({how})"))
                        } else {
                            (a, "drew".into(), format!("{b} ({})", draws(drawn)))
                        }
                    }
                    _ if drawn == 0 => (a, "vs".into(), b + " (playing)"),
                    _ => (a, "vs".into(), format!("{b} (playing, after {})", draws(drawn))),
                }
            })
            .chain(byes.iter().map(|p| (cut(&name(p), NAME), "bye".into(), String::new())))
            .collect();
        let width = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0);
        let mut block = vec![heading(round, k.rounds)];
        for (first, word, rest) in rows {
            let pad = width - first.chars().count();
            let line = format!("  {first}{:pad$} {word} {rest}", "");
            block.push(cut(line.trim_end(), WIDTH));
        }
        lines.extend(block);
    }
    let champion = k.entrants.values().find(|e| k.rounds > 0 && e.reached_round > k.rounds);
    lines.push(match champion {
        Some(e) => cut(&format!("Winner: {}", e.name), WIDTH),
        None => "Winner: not decided yet".into(),
    });
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entrants(names: &[(&str, u32)]) -> BTreeMap<String, Entrant> {
        names
            .iter()
            .map(|&(n, reached)| {
                (n.to_string(), Entrant { name: n.to_string(), reached_round: reached })
            })
            .collect()
    }

    fn game(round: u32, seat0: &str, seat1: &str, result: &str) -> Game {
        Game { round, seat0: seat0.into(), seat1: seat1.into(), result: GameResult::parse(result) }
    }

    fn check_widths(lines: &[String]) {
        for l in lines {
            assert!(l.chars().count() <= WIDTH, "{} columns: {l:?}", l.chars().count());
        }
    }

    /// Eight players, seeds 1 to 8 (bracket 1-8 4-5 2-7 3-6); a replayed draw in the
    /// quarterfinals, a semifinal drawn three times and sent on by seed.
    #[test]
    fn eight_players_print_every_round_and_the_winner() {
        let k = Knockout {
            title: "Spring cup (gops): knockout, 8 players".into(),
            rounds: 3,
            entrants: entrants(&[
                ("ann", 4),
                ("bob", 1),
                ("cid", 2),
                ("dee", 1),
                ("eve", 3),
                ("fay", 1),
                ("gus", 2),
                ("hal", 1),
            ]),
            games: vec![
                game(1, "ann", "hal", "1-0"),
                game(1, "dee", "cid", "0-1"),
                game(1, "eve", "bob", "1/2-1/2"),
                game(1, "gus", "fay", "1-0"),
                game(1, "bob", "eve", "0-1"),
                game(2, "cid", "ann", "0-1"),
                game(2, "gus", "eve", "1/2-1/2"),
                game(2, "eve", "gus", "1/2-1/2"),
                game(2, "gus", "eve", "1/2-1/2"),
                game(3, "eve", "ann", "0-1"),
            ],
            byes: BTreeMap::new(),
        };
        let lines = bracket_lines(&k);
        check_widths(&lines);
        assert_eq!(
            lines,
            [
                "Spring cup (gops): knockout, 8 players",
                "Round 1 of 3: quarterfinals",
                "  ann beat hal (1-0)",
                "  cid beat dee (1-0)",
                "  eve beat bob (1-0 after 1 draw)",
                "  gus beat fay (1-0)",
                "Round 2 of 3: semifinals",
                "  ann beat cid (1-0)",
                "  eve beat gus (3 draws: higher seed)",
                "Round 3 of 3: final",
                "  ann beat eve (1-0)",
                "Winner: ann",
            ]
        );
    }

    /// Five players from the tournament crate's own knockout (bracket of 8: three byes in
    /// the first round), long names cut so every line fits.
    #[test]
    fn five_players_show_their_byes_and_fit_80_columns() {
        let entrants_in: Vec<tournament_rules::Entrant> = (0..5)
            .map(|i| tournament_rules::Entrant { rating: Some(2000.0 - f64::from(i)) })
            .collect();
        let format = tournament_rules::Format::Knockout(tournament_rules::Knockout {
            draws: tournament_rules::DrawRule::Replay,
        });
        let (t, _) =
            tournament_rules::simulate(format, entrants_in, 7, |t| t.pair_round()).unwrap();
        let id = |p: tournament_rules::Player| format!("player-{}", p.0);
        let long = |p: tournament_rules::Player| {
            format!("A very long display name of entrant number {} (seed)", p.0)
        };
        let k = Knockout {
            title: format!("{} (gops): knockout, 5 players", "Autumn open ".repeat(10)),
            rounds: t.total_rounds(),
            entrants: t
                .standings()
                .iter()
                .map(|s| {
                    (id(s.player), Entrant { name: long(s.player), reached_round: s.reached_round })
                })
                .collect(),
            games: t
                .games()
                .iter()
                .map(|g| Game {
                    round: g.round,
                    seat0: id(g.players[0]),
                    seat1: id(g.players[1]),
                    result: match g.outcome {
                        Some(tournament_rules::Outcome::Seat0) => GameResult::Seat0,
                        Some(tournament_rules::Outcome::Seat1) => GameResult::Seat1,
                        Some(tournament_rules::Outcome::Draw) => GameResult::Draw,
                        None => GameResult::Unfinished,
                    },
                })
                .collect(),
            byes: (1..=t.round())
                .map(|r| (r, t.byes_of(r).iter().map(|&p| id(p)).collect()))
                .collect(),
        };
        let lines = bracket_lines(&k);
        check_widths(&lines);
        let text = lines.join("\n");
        assert_eq!(lines[1], "Round 1 of 3: quarterfinals", "{text}");
        // Seeds 1 to 3 wait for round 2; 4 and 5 play.
        assert_eq!(text.matches(" bye").count(), 3, "{text}");
        let round2 = lines.iter().position(|l| l == "Round 2 of 3: semifinals").unwrap();
        assert_eq!(lines[2..round2].iter().filter(|l| l.contains(" beat ")).count(), 1, "{text}");
        assert_eq!(lines.iter().filter(|l| l.contains(" beat ")).count(), 4, "{text}");
        assert!(lines.contains(&"Round 3 of 3: final".to_string()), "{text}");
        let champion = t.champion().expect("a champion");
        let last = lines.last().unwrap();
        assert_eq!(*last, cut(&format!("Winner: {}", long(champion)), WIDTH), "{text}");
        assert!(last.starts_with("Winner: A very long display name"), "{text}");
        // The final's line names the champion first.
        let final_line = &lines[lines.len() - 2];
        assert!(final_line.starts_with(&format!("  {}", cut(&long(champion), NAME))), "{text}");
    }

    #[test]
    fn an_unfinished_knockout_says_so() {
        let k = Knockout {
            title: "t".into(),
            rounds: 1,
            entrants: entrants(&[("ann", 1), ("bob", 1)]),
            games: vec![game(1, "ann", "bob", "1/2-1/2"), game(1, "bob", "ann", "*")],
            byes: BTreeMap::new(),
        };
        assert_eq!(
            bracket_lines(&k),
            [
                "t",
                "Round 1 of 1: final",
                "  ann vs bob (playing, after 1 draw)",
                "Winner: not decided yet"
            ]
        );
    }
}
