//! What the terminal shows around a game's face, the same for a local match and one
//! through the cluster: the status panel, event lines, the clock line above the prompt
//! (redrawn in place each second on a terminal), time warnings, the end screen.

use super::face::{self, Face, Names, WIDTH, cut};
use api::v1;
use std::io::{IsTerminal, Write};
use std::time::Duration;

/// The prompt a seat that owes a move is shown.
pub const PROMPT: &str = "your move> ";

/// The seconds left at which a seat that owes a move is warned, once each.
pub const WARNINGS: [u64; 3] = [30, 10, 5];

/// The terminal: whether it is one (then the clock line is redrawn in place), and
/// whether the cursor sits on the prompt line (then a new line comes first).
pub struct Screen {
    tty: bool,
    at_prompt: bool,
    /// The line above the prompt is the clock (only then is it redrawn).
    clock_above: bool,
}

impl Default for Screen {
    fn default() -> Self {
        Screen { tty: std::io::stdout().is_terminal(), at_prompt: false, clock_above: false }
    }
}

impl Screen {
    /// Prints `text` on a line of its own (after the prompt line, if the cursor sits
    /// there).
    pub fn say(&mut self, text: &str) {
        let mut out = std::io::stdout().lock();
        if self.at_prompt {
            let _ = writeln!(out);
            self.at_prompt = false;
        }
        let _ = writeln!(out, "{text}");
        let _ = out.flush();
    }

    /// An event's line, marked so the eye finds it, wrapped at [`WIDTH`] columns.
    pub fn event(&mut self, text: &str) {
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        for l in face::wrap("  * ", &words, " ") {
            self.say(&l);
        }
    }

    /// A note for the person, indented, wrapped at [`WIDTH`] columns.
    pub fn note(&mut self, text: &str) {
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        for l in face::wrap("  ", &words, " ") {
            self.say(&l);
        }
    }

    /// `text` wrapped at [`WIDTH`] columns.
    pub fn wrapped(&mut self, text: &str) {
        let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
        for l in face::wrap("", &words, " ") {
            self.say(&l);
        }
    }

    /// The status panel: a rule naming the match, then the face's lines.
    pub fn panel(&mut self, title: &str, lines: &[String]) {
        self.say(&rule(title));
        for l in lines {
            self.say(&cut(l, WIDTH));
        }
    }

    /// The clock line, then the prompt (the cursor stays after it).
    pub fn prompt(&mut self, clock: Option<&str>) {
        if let Some(c) = clock {
            self.say(c);
        }
        self.clock_above = clock.is_some();
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{PROMPT}");
        let _ = out.flush();
        self.at_prompt = true;
    }

    /// Redraws the clock line above the prompt in place, on a terminal only (the
    /// person's typing on the prompt line is left as it is).
    pub fn tick(&mut self, clock: &str) {
        if !(self.tty && self.at_prompt && self.clock_above) {
            return;
        }
        let mut out = std::io::stdout().lock();
        // Save the cursor, go up one line, rewrite it, restore the cursor.
        let _ = write!(out, "\x1b7\x1b[1A\r\x1b[2K{clock}\x1b8");
        let _ = out.flush();
    }

    /// The person pressed Enter on `line` (`None`: the input closed). A terminal echoed
    /// it and its newline; anything else (a pipe, a script) did not, so it is echoed here
    /// and the output reads as a session would.
    pub fn entered(&mut self, line: Option<&str>) {
        if !self.tty && self.at_prompt {
            println!("{}", cut(line.unwrap_or(""), WIDTH));
        }
        self.at_prompt = false;
    }
}

/// A horizontal rule with `title` in it, 80 columns wide.
pub fn rule(title: &str) -> String {
    let title = cut(title, WIDTH - 8);
    let lead = format!("-- {title} ");
    let fill = WIDTH.saturating_sub(lead.chars().count());
    format!("{lead}{}", "-".repeat(fill))
}

/// `d` as m:ss (h:mm:ss past an hour).
pub fn mmss(d: Duration) -> String {
    let s = d.as_secs() + u64::from(d.subsec_millis() > 0);
    if s >= 3600 {
        format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
    } else {
        format!("{}:{:02}", s / 60, s % 60)
    }
}

/// The clock line: whose move it is and the time left on it.
pub fn clock_line(left: Duration, mine: bool, theirs: bool, names: &Names) -> String {
    let other = names.me.map_or(1, |m| 1 - m);
    let time = mmss(left);
    let text = match (mine, theirs) {
        (true, true) => {
            format!("Clock: {time} left for both moves (yours and {})", names.poss(other))
        }
        (true, false) => format!("Clock: {time} left for your move"),
        (false, true) => format!("Clock: {time} left for {} move", names.poss(other)),
        (false, false) => format!("Clock: {time}"),
    };
    cut(&text, WIDTH)
}

/// The warning due with `left` on the viewer's clock, in whole seconds, if one is: the
/// first time the time left falls to a threshold of [`WARNINGS`] or below it. Every
/// threshold at or above the time left is then warned of (a clock that starts at 8 s
/// warns once, of 8 s).
pub fn due_warning(left: Duration, warned: &mut std::collections::BTreeSet<u64>) -> Option<u64> {
    if left.is_zero() {
        return None;
    }
    let secs = left.as_secs() + u64::from(left.subsec_nanos() > 0);
    let due: Vec<u64> =
        WARNINGS.into_iter().filter(|w| secs <= *w && !warned.contains(w)).collect();
    if due.is_empty() {
        return None;
    }
    warned.extend(due);
    Some(secs)
}

/// The warning at `secs` seconds left for the viewer's own move.
pub fn warning(secs: u64) -> String {
    format!("  ! {secs} seconds left to move: type a move now (help lists them)")
}

/// The commands every game takes, for `help`.
pub fn commands() -> Vec<String> {
    vec![
        "Commands: help (or ?), board, resign; ctrl-c leaves (your seat is kept).".into(),
        "Anything else is read as a move (or as the move's JSON, {\"card\": 7}).".into(),
    ]
}

/// What a typed line is, before the game reads it.
#[derive(Debug, PartialEq, Eq)]
pub enum Typed<'a> {
    /// Nothing.
    Empty,
    /// `help` or `?`.
    Help,
    /// `board` (or `status`): the panel again.
    Board,
    /// `resign`.
    Resign,
    /// The move's JSON.
    Json(&'a str),
    /// A move for the face to read.
    Move(&'a str),
}

/// Sorts a typed line into a command or a move (commands in any case).
pub fn typed(line: &str) -> Typed<'_> {
    let line = line.trim();
    match line.to_ascii_lowercase().as_str() {
        "" => Typed::Empty,
        "help" | "?" | "h" => Typed::Help,
        "board" | "status" => Typed::Board,
        "resign" => Typed::Resign,
        _ if line.starts_with('{') => Typed::Json(line),
        _ => Typed::Move(line),
    }
}

/// The end screen: the result and score, the final board, the seed.
pub fn end_screen(
    face: &dyn Face,
    view: &v1::View,
    outcome: &v1::Outcome,
    names: &Names,
) -> Vec<String> {
    let result = face::result_text(outcome.winner, &outcome.reason, names);
    let [a, b] = names.order();
    let score = face.score(view).map(|s| (s[a as usize].clone(), s[b as usize].clone()));
    let other = names.me.map_or(1, |m| 1 - m);
    let against =
        if names.me.is_some() { format!(" against {}", names.obj(other)) } else { String::new() };
    let why = face::reason_text(&outcome.reason, outcome.winner, names);
    // Numbers read as a score line, "You won 65-26"; other scores get a line naming whose.
    let (inline, apart) = match score {
        Some((x, y)) if x.parse::<f64>().is_ok() && y.parse::<f64>().is_ok() => {
            (format!(" {x}-{y}"), None)
        }
        Some((x, y)) => (
            String::new(),
            Some(format!("Final score: {} {x}; {} {y}", names.obj(a), names.obj(b))),
        ),
        None => (String::new(), None),
    };
    let words: Vec<String> = format!("{result}{inline}{against} ({why})")
        .split_whitespace()
        .map(str::to_string)
        .collect();
    let mut out = vec!["=".repeat(WIDTH)];
    out.extend(face::wrap("  ", &words, " "));
    out.push("=".repeat(WIDTH));
    if let Some(line) = apart {
        let words: Vec<String> = line.split_whitespace().map(str::to_string).collect();
        out.extend(face::wrap("", &words, " "));
    }
    out.extend(face.final_board(view, names).into_iter().map(|l| cut(&l, WIDTH)));
    // Whole, on a line of its own (64 hex digits): anyone checks the commitment with it.
    out.push("  Seed (now public):".into());
    out.push(format!("  {}", outcome.seed));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_are_words_in_any_case_and_the_rest_is_a_move() {
        assert_eq!(typed("  HELP "), Typed::Help);
        assert_eq!(typed("?"), Typed::Help);
        assert_eq!(typed("Resign"), Typed::Resign);
        assert_eq!(typed("board"), Typed::Board);
        assert_eq!(typed(""), Typed::Empty);
        assert_eq!(typed("{\"card\":3}"), Typed::Json("{\"card\":3}"));
        assert_eq!(typed("k"), Typed::Move("k"));
    }

    #[test]
    fn a_warning_says_the_time_left_once_per_threshold() {
        let mut warned = std::collections::BTreeSet::new();
        assert_eq!(due_warning(Duration::from_secs(45), &mut warned), None);
        assert_eq!(due_warning(Duration::from_millis(29_400), &mut warned), Some(30));
        assert_eq!(due_warning(Duration::from_secs(20), &mut warned), None);
        // Below two thresholds at once (a slow tick): one warning, the real time left.
        assert_eq!(due_warning(Duration::from_secs(4), &mut warned), Some(4));
        assert_eq!(due_warning(Duration::from_secs(3), &mut warned), None);
        // A clock that starts below every threshold warns once, of what is left.
        let mut fresh = std::collections::BTreeSet::new();
        assert_eq!(due_warning(Duration::from_secs(8), &mut fresh), Some(8));
        assert_eq!(due_warning(Duration::ZERO, &mut fresh), None);
    }

    #[test]
    fn the_clock_reads_minutes_and_seconds_and_names_whose_move() {
        assert_eq!(mmss(Duration::from_millis(42_300)), "0:43");
        assert_eq!(mmss(Duration::from_secs(3725)), "1:02:05");
        let names = Names::new(Some(0), "Ada");
        assert_eq!(
            clock_line(Duration::from_secs(9), true, false, &names),
            "Clock: 0:09 left for your move"
        );
        assert_eq!(
            clock_line(Duration::from_secs(61), false, true, &names),
            "Clock: 1:01 left for Ada's move"
        );
        assert_eq!(rule("GOPS: you against Ada").chars().count(), WIDTH);
    }

    #[test]
    fn the_end_screen_says_the_result_and_score_from_the_viewers_side() {
        let face = face::of("gops").expect("a face");
        let view = v1::View {
            game: Some(v1::view::Game::Gops(v1::GopsView {
                cards: 13,
                round: 13,
                score_halves: Some(v1::SeatPair { seat0: 52, seat1: 130 }),
                ..Default::default()
            })),
        };
        let outcome =
            v1::Outcome { winner: Some(1), reason: "completed".into(), seed: "ab".repeat(32) };
        let lines = end_screen(face.as_ref(), &view, &outcome, &Names::new(Some(1), "Ada"));
        assert_eq!(lines[1], "  You won 65-26 against Ada (played to its end)");
        assert!(lines.contains(&format!("  {}", "ab".repeat(32))), "the seed whole: {lines:?}");
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH));
        let lines = end_screen(face.as_ref(), &view, &outcome, &Names::new(Some(0), "Ada"));
        assert_eq!(lines[1], "  You lost 26-65 against Ada (played to its end)");
        // A score that is not a number gets its own line.
        let face = face::of("dueling-monsters").expect("a face");
        let view = v1::View {
            game: Some(v1::view::Game::DuelingMonsters(v1::DuelingMonstersView {
                bouts_to_win: 2,
                bout_wins: Some(v1::SeatPair { seat0: 2, seat1: 1 }),
                ..Default::default()
            })),
        };
        let outcome =
            v1::Outcome { winner: Some(0), reason: "completed".into(), seed: "cd".repeat(32) };
        let lines = end_screen(face.as_ref(), &view, &outcome, &Names::new(Some(0), "Ada"));
        assert_eq!(lines[1], "  You won against Ada (played to its end)");
        assert!(lines[3].starts_with("Final score: you 2"), "{lines:?}");
    }
}
