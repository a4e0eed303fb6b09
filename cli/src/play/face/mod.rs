//! How each game looks and reads in the terminal: one [`Face`] per game (a file each),
//! built from the typed views and events the API sends, so the local player and the
//! networked one show the same thing. Here: the trait, [`Names`] (who "you" and the
//! opponent are), the match-level events every game shares, and text helpers.

mod cure_plague;
mod dueling_monsters;
mod gops;
mod hexspiel;
mod masterminds;

use api::v1;

/// The widest line the terminal client prints in a status panel or an end screen.
pub const WIDTH: usize = 80;

/// One game in the terminal. A face is made per match and sees every event of the
/// viewer in order ([`Face::narrate`] may remember what it needs, a prize, a pile).
pub trait Face: Send {
    /// How to type a move, in a few words ("type a card: 7, or K for the King").
    fn how_to_move(&self) -> &'static str;

    /// The status panel: a few lines (each at most [`WIDTH`] columns) of what the viewer
    /// sees now: the position, the scores, whose move it is.
    fn status(&self, view: &v1::View, names: &Names) -> Vec<String>;

    /// One of the game's own events in plain words (points, not halves; rounds from 1);
    /// `None` when it is not worth a line. Match-level events are [`common_line`]'s.
    fn narrate(&mut self, event: &v1::Event, names: &Names) -> Option<String>;

    /// A legal move as the person would type it.
    fn spell(&self, mv: &v1::Move) -> String;

    /// The legal moves for `help`, as lines of at most [`WIDTH`] columns.
    fn help(&self, legal: &[v1::Move]) -> Vec<String> {
        let spelled: Vec<String> = legal.iter().map(|m| self.spell(m)).collect();
        wrap("Legal moves: ", &spelled, ", ")
    }

    /// What the person typed (trimmed, not empty, not a command) as a move: friendly
    /// forms (initials, any case, shorthands) matched against `legal` where it helps.
    ///
    /// # Errors
    /// What is wrong with the line, in words, with a hint of what would do.
    fn read(&self, line: &str, legal: &[v1::Move]) -> Result<v1::Move, String>;

    /// The final position for the end screen (lines of at most [`WIDTH`] columns).
    fn final_board(&self, view: &v1::View, names: &Names) -> Vec<String>;

    /// Each seat's final score as it is spoken ("65", "6.5", "2 bouts"), seat 0 first;
    /// `None` when the view has none.
    fn score(&self, view: &v1::View) -> Option<[String; 2]>;
}

/// The face of `game`; `None` for a game this client does not know.
pub fn of(game: &str) -> Option<Box<dyn Face>> {
    // One arm per hosted game (a new game adds its file and its line here).
    Some(match game {
        "gops" => Box::new(gops::Gops::default()),
        "dueling-monsters" => Box::new(dueling_monsters::DuelingMonsters::default()),
        "hexspiel" => Box::new(hexspiel::Hexspiel::default()),
        "cure-plague" => Box::new(cure_plague::CurePlague::default()),
        "masterminds" => Box::new(masterminds::Masterminds::default()),
        _ => return None,
    })
}

/// Who sits where, as the terminal says it: "You" for the viewer's seat, the opponent's
/// name for the other ("Ada", "the strong bot").
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Names {
    /// The viewer's seat; `None` for a spectator.
    pub me: Option<u32>,
    /// The other seat's name, as it starts a sentence ("Ada", "The strong bot").
    pub opponent: String,
}

impl Names {
    /// A viewer in seat `me` against `opponent`.
    pub fn new(me: Option<u32>, opponent: impl Into<String>) -> Names {
        Names { me, opponent: opponent.into() }
    }

    /// Whether `seat` is the viewer's.
    pub fn is_me(&self, seat: u32) -> bool {
        self.me == Some(seat)
    }

    /// At the start of a sentence: "You", "Ada", "Seat 1".
    pub fn subj(&self, seat: u32) -> String {
        match self.me {
            Some(me) if me == seat => "You".into(),
            Some(_) => capitalized(&self.opponent),
            None => format!("Seat {seat}"),
        }
    }

    /// Inside a sentence: "you", "Ada", "the strong bot".
    pub fn obj(&self, seat: u32) -> String {
        match self.me {
            Some(me) if me == seat => "you".into(),
            Some(_) => uncapitalized(&self.opponent),
            None => format!("seat {seat}"),
        }
    }

    /// "your", "Ada's".
    pub fn poss(&self, seat: u32) -> String {
        match self.me {
            Some(me) if me == seat => "your".into(),
            _ => format!("{}'s", self.obj(seat)),
        }
    }

    /// The verb for `seat` as subject: `you_form` for the viewer ("have"), else `other`.
    pub fn verb<'a>(&self, seat: u32, you_form: &'a str, other: &'a str) -> &'a str {
        if self.is_me(seat) { you_form } else { other }
    }

    /// The seats with the viewer's first.
    pub fn order(&self) -> [u32; 2] {
        match self.me {
            Some(1) => [1, 0],
            _ => [0, 1],
        }
    }

    /// A short label for a panel's column: "You", "Ada" (cut to fit 20 columns).
    pub fn label(&self, seat: u32) -> String {
        cut(&self.subj(seat), 20)
    }
}

/// `s` with its first letter in upper case.
pub fn capitalized(s: &str) -> String {
    let mut c = s.chars();
    c.next().map(|f| f.to_uppercase().chain(c).collect()).unwrap_or_default()
}

/// `s` inside a sentence: "The strong bot" reads "the strong bot"; a name stays.
pub fn uncapitalized(s: &str) -> String {
    // "The strong bot" reads "the strong bot" inside a sentence; a name stays as it is.
    match s.strip_prefix("The ") {
        Some(rest) => format!("the {rest}"),
        None => s.to_string(),
    }
}

/// `s` cut to at most `max` characters (an ellipsis marks the cut).
pub fn cut(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max.saturating_sub(1)).collect();
    out.push('…');
    out
}

/// `items` after `lead`, joined by `sep` and wrapped into lines of at most [`WIDTH`]
/// columns (continuation lines indented under the first item).
pub fn wrap(lead: &str, items: &[String], sep: &str) -> Vec<String> {
    let indent = " ".repeat(lead.chars().count().min(20));
    let mut lines = Vec::new();
    let mut line = lead.to_string();
    let mut first = true;
    for item in items {
        let piece = if first { item.clone() } else { format!("{sep}{item}") };
        // The line must still take the separator kept at its end if the next item breaks.
        let width = line.chars().count() + piece.chars().count() + sep.trim_end().len();
        if !first && width > WIDTH {
            lines.push(format!("{}{}", line, sep.trim_end()));
            line = format!("{indent}{item}");
        } else {
            line.push_str(&piece);
        }
        first = false;
    }
    lines.push(line);
    lines.into_iter().map(|l| cut(&l, WIDTH)).collect()
}

/// `n` with its noun: "1 point", "3 points".
pub fn plural(n: impl Into<i64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 { format!("1 {noun}") } else { format!("{n} {noun}s") }
}

/// Half points as points: 13 -> "6.5", 12 -> "6".
pub fn points(halves: i64) -> String {
    if halves % 2 == 0 { format!("{}", halves / 2) } else { format!("{:.1}", halves as f64 / 2.0) }
}

/// A seat pair's value for `seat`.
pub fn of_seat(p: Option<&v1::SeatPair>, seat: u32) -> i64 {
    p.map_or(0, |p| if seat == 0 { p.seat0 } else { p.seat1 })
}

/// The values of a card set.
pub fn values(c: Option<&v1::Cards>) -> &[u32] {
    c.map_or(&[], |c| c.values.as_slice())
}

/// Why a match ended, in words: "by points", "the strong bot resigned"...
pub fn reason_text(reason: &str, winner: Option<u32>, names: &Names) -> String {
    let loser = winner.map(|w| 1 - w);
    match (reason, loser) {
        ("completed", None) => "played out level".into(),
        ("completed", Some(_)) => "played to its end".into(),
        ("connected", Some(l)) => format!("{} joined both sides", names.obj(1 - l)),
        ("resigned", Some(l)) => format!("{} resigned", names.obj(l)),
        ("missed_deadline", Some(l)) => format!("{} missed a move deadline", names.obj(l)),
        ("missed_deadline", None) => "both players missed a deadline".into(),
        ("rule_violation", Some(l)) => format!("{} broke a rule", names.obj(l)),
        ("abandoned", _) => "both kept missing their deadlines: abandoned".into(),
        (other, _) => cut(other, 40),
    }
}

/// Who won, from the viewer's side: "You won", "You lost", "Draw", "Seat 1 won".
pub fn result_text(winner: Option<u32>, reason: &str, names: &Names) -> String {
    match (winner, names.me) {
        (None, _) if reason == "abandoned" => "No result".into(),
        (None, _) => "Draw".into(),
        (Some(w), Some(me)) if w == me => "You won".into(),
        (Some(_), Some(_)) => "You lost".into(),
        (Some(w), None) => format!("Seat {w} won"),
    }
}

/// A seat's as a pronoun standing alone: "yours", "Ada's".
pub fn mine(names: &Names, seat: u32) -> String {
    if names.is_me(seat) { "yours".into() } else { names.poss(seat) }
}

/// "you 5, Ada 8": a seat pair inside a sentence, the viewer first.
pub fn both(p: Option<&v1::SeatPair>, names: &Names) -> String {
    let [a, b] = names.order();
    format!("{} {}, {} {}", names.obj(a), of_seat(p, a), names.obj(b), of_seat(p, b))
}

/// The same in a panel: "You 5, Ada 8".
pub fn both_labels(p: Option<&v1::SeatPair>, names: &Names) -> String {
    // A spectator's labels end in a digit: "Seat 0: 1" keeps the two numbers apart.
    let one = |seat: u32| {
        let label = names.label(seat);
        let colon = if label.ends_with(|c: char| c.is_ascii_digit()) { ":" } else { "" };
        format!("{label}{colon} {}", of_seat(p, seat))
    };
    let [a, b] = names.order();
    format!("{}, {}", one(a), one(b))
}

/// `lines` fitted to [`WIDTH`]: a longer line is wrapped at spaces, its continuation
/// lines indented by two (a long name must not cut a sentence short).
pub fn fit(lines: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    for line in lines {
        if line.chars().count() <= WIDTH {
            out.push(line);
            continue;
        }
        let mut cur = String::new();
        for word in line.split(' ') {
            let len = cur.chars().count();
            if !cur.trim().is_empty() && len + 1 + word.chars().count() > WIDTH {
                out.push(cut(&std::mem::take(&mut cur), WIDTH));
                cur.push_str("  ");
            }
            if !cur.trim().is_empty() {
                cur.push(' ');
            }
            cur.push_str(word);
        }
        out.push(cut(&cur, WIDTH));
    }
    out
}

/// A match-level event in plain words; `None` for a game's own event (its face's).
pub fn common_line(event: &v1::Event, names: &Names) -> Option<String> {
    use v1::event::Kind;
    match event.kind.as_ref()? {
        Kind::MatchStarted(_) => {
            Some("The match started: both seats are taken, the seed is committed.".into())
        }
        Kind::Resigned(r) => Some(format!("{} resigned.", names.subj(r.seat))),
        Kind::MatchEnded(e) => Some(format!(
            "The match is over: {} ({}). The seed is now public.",
            result_text(e.winner, &e.reason, names).to_lowercase(),
            reason_text(&e.reason, e.winner, names)
        )),
        Kind::Gops(_)
        | Kind::DuelingMonsters(_)
        | Kind::CurePlague(_)
        | Kind::Masterminds(_)
        | Kind::Hexspiel(_) => None,
    }
}

/// Any event in plain words: a match-level one's, or the face's for its game's.
pub fn line(face: &mut dyn Face, event: &v1::Event, names: &Names) -> Option<String> {
    common_line(event, names).or_else(|| face.narrate(event, names))
}

#[cfg(test)]
mod tests;
