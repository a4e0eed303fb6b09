//! Masterminds Duel in the terminal, worded as the web board words it: the viewer's ten
//! cards with the strengths only it knows (held and played this bout), the cards the
//! other seat has shown this bout (a Bluff shows as the card it names until it is outed),
//! the last turn, bout points and bouts won, and Warp Time's order and what it told.
//! The history is summarized, never dumped: a late match stays a few lines.
//! Cards are typed by name in any case, by a unique prefix or their initial (each of the
//! ten starts with its own letter: `k` is Kill, `w` or `wt` Warp Time); a Bluff is typed
//! with the card it is shown as: `bluff fireball`, `b f`, `b as warp time`.

use super::{
    Face, Names, WIDTH, both, both_labels, capitalized, cut, fit, mine, of_seat, plural, wrap,
};
use api::v1;
use v1::MastermindsCard as Card;
use v1::masterminds_event::Kind;

/// Bouts in a match, turns in a bout, bout wins that end it (rules text 002).
const BOUTS: u32 = 7;
const TURNS: u32 = 9;
const TO_WIN: i64 = 4;

/// The ten cards in card order (the order of hands and strengths).
const ALL: [Card; 10] = [
    Card::Bluff,
    Card::Counterspell,
    Card::Empower,
    Card::Fireball,
    Card::Kill,
    Card::Mayhem,
    Card::Offering,
    Card::Reveal,
    Card::Swap,
    Card::WarpTime,
];

/// A card's name and what it does, in a few words; `None` for no card.
fn info(c: Card) -> Option<(&'static str, &'static str)> {
    Some(match c {
        Card::Unspecified => return None,
        Card::Bluff => ("Bluff", "shown as another card you name; its strength, no effect"),
        Card::Counterspell => ("Counterspell", "cancels the effect of the other card"),
        Card::Empower => ("Empower", "your next card gets +1 strength for good"),
        Card::Fireball => ("Fireball", "winning with it scores 2 points"),
        Card::Kill => ("Kill", "wins the turn (countered: lose the bout; vs Offering: win it)"),
        Card::Mayhem => ("Mayhem", "the lower strength wins instead; loses to Kill"),
        Card::Offering => ("Offering", "+3 strength for good if it loses (not to Kill)"),
        Card::Reveal => ("Reveal", "after the next turn, both strengths are shown"),
        Card::Swap => ("Swap", "swaps the strengths of your last two cards played"),
        Card::WarpTime => ("Warp Time", "next turn the other commits first; you see its card"),
    })
}

fn card(c: i32) -> Card {
    Card::try_from(c).unwrap_or(Card::Unspecified)
}

/// A card's name: "Warp Time"; "a card" for none.
fn name(c: Card) -> &'static str {
    info(c).map_or("a card", |i| i.0)
}

/// A card's strength for this seat.
fn strength(s: &v1::MastermindsStrengths, c: Card) -> Option<u32> {
    Some(match c {
        Card::Unspecified => return None,
        Card::Bluff => s.bluff,
        Card::Counterspell => s.counterspell,
        Card::Empower => s.empower,
        Card::Fireball => s.fireball,
        Card::Kill => s.kill,
        Card::Mayhem => s.mayhem,
        Card::Offering => s.offering,
        Card::Reveal => s.reveal,
        Card::Swap => s.swap,
        Card::WarpTime => s.warp_time,
    })
}

/// "Kill 6", or "Kill" when the strength is not known.
fn with_strength(c: Card, s: Option<&v1::MastermindsStrengths>) -> String {
    match s.and_then(|s| strength(s, c)) {
        Some(n) => format!("{} {n}", name(c)),
        None => name(c).to_string(),
    }
}

fn view(v: &v1::View) -> Option<&v1::MastermindsView> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::view::Game::Masterminds(g)) = v.game.as_ref() { Some(g) } else { None }
}

fn move_of(mv: &v1::Move) -> Option<&v1::MastermindsMove> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::r#move::Game::Masterminds(m)) = mv.game.as_ref() { Some(m) } else { None }
}

fn play(c: Card, shown_as: Card) -> v1::Move {
    v1::Move {
        game: Some(v1::r#move::Game::Masterminds(v1::MastermindsMove {
            card: c as i32,
            shown_as: shown_as as i32,
        })),
    }
}

/// A card played as the viewer knows it: "Kill", "Bluff as Fireball", "Bluff".
fn played(c: Card, shown_as: Card) -> String {
    match (c, shown_as) {
        (Card::Bluff, Card::Unspecified) => "Bluff".into(),
        (Card::Bluff, s) => format!("Bluff as {}", name(s)),
        (c, _) => name(c).into(),
    }
}

fn seen(c: Option<&v1::MastermindsSeenCard>) -> String {
    c.map_or_else(|| "a card".into(), |c| played(card(c.card), card(c.shown_as)))
}

/// `items` after `lead`, comma-separated and wrapped to [`WIDTH`] (each comma stays with
/// its item, so no line grows past the width by its separator).
fn listed(lead: &str, items: &[String]) -> Vec<String> {
    let n = items.len();
    let items: Vec<String> = items
        .iter()
        .enumerate()
        .map(|(i, s)| if i + 1 < n { format!("{s},") } else { s.clone() })
        .collect();
    wrap(lead, &items, " ")
}

/// Letters and digits only, lower case: "Warp-Time" -> "warptime".
fn norm(s: &str) -> String {
    s.chars().filter(char::is_ascii_alphanumeric).map(|c| c.to_ascii_lowercase()).collect()
}

/// The entry of `table` that `word` names: its whole name (any case, spaces or not), the
/// initials of its words ("wt"), or else a prefix only one name has.
///
/// # Errors
/// The candidates when `word` begins several names; an empty list when it begins none.
fn find<T: Copy>(word: &str, table: &[(&'static str, T)]) -> Result<T, Vec<&'static str>> {
    let w = norm(word);
    if w.is_empty() {
        return Err(Vec::new());
    }
    let initials = |n: &str| -> String {
        n.split_whitespace().filter_map(|p| p.chars().next()).collect::<String>().to_lowercase()
    };
    if let Some((_, t)) = table.iter().find(|(n, _)| norm(n) == w) {
        return Ok(*t);
    }
    if let Some((_, t)) = table.iter().find(|(n, _)| n.contains(' ') && initials(n) == w) {
        return Ok(*t);
    }
    let begun: Vec<&(&'static str, T)> =
        table.iter().filter(|(n, _)| norm(n).starts_with(&w)).collect();
    match begun.as_slice() {
        [(_, t)] => Ok(*t),
        many => Err(many.iter().map(|(n, _)| *n).collect()),
    }
}

/// The card `word` names.
fn lookup(word: &str) -> Result<Card, String> {
    let table: Vec<(&'static str, Card)> = ALL.iter().map(|&c| (name(c), c)).collect();
    find(word, &table).map_err(|candidates| match candidates.as_slice() {
        [] => format!(
            "{} is no card: {} (a unique start will do: k for Kill)",
            cut(word.trim(), 16),
            ALL.map(name).join(", ")
        ),
        many => format!("{} could be {}: type more letters", cut(word, 16), many.join(" or ")),
    })
}

/// Whether the match is over as far as the view tells (a bout may end early on a Kill;
/// the face's own count of bouts ended covers that).
fn is_over(v: &v1::MastermindsView, ended: bool) -> bool {
    let w = |s| of_seat(v.bout_wins.as_ref(), s);
    ended || w(0) >= TO_WIN || w(1) >= TO_WIN || (v.bout >= BOUTS && v.turn >= TURNS)
}

/// The Masterminds face: remembers the viewer's strengths (for `help`, and to say what
/// changed) and whether the last bout has ended.
#[derive(Default)]
pub struct Masterminds {
    strengths: Option<v1::MastermindsStrengths>,
    over: bool,
}

impl Masterminds {
    /// "Bouts won: You 1, Ada 0 (first to 4; Ada wins a tie)".
    fn bouts_line(v: &v1::MastermindsView, names: &Names) -> String {
        format!(
            "Bouts won: {} (first to {TO_WIN}; {} {} a tie)",
            both_labels(v.bout_wins.as_ref(), names),
            names.obj(v.priority),
            names.verb(v.priority, "win", "wins")
        )
    }

    /// The last resolved turn in a line: "Last turn (3): You Kill, Ada Fireball: you won".
    fn last_turn(v: &v1::MastermindsView, names: &Names) -> Option<String> {
        let t = v.history.last()?;
        let [a, b] = names.order();
        let cards = [seen(t.card0.as_ref()), seen(t.card1.as_ref())];
        let late = |s: u32| if t.late.contains(&s) { " (late)" } else { "" };
        let when = if t.bout == v.bout {
            format!("{}", t.turn)
        } else {
            format!("bout {}, turn {}", t.bout, t.turn)
        };
        let result = t.winner.map_or_else(|| "a tie".into(), |w| format!("{} won", names.obj(w)));
        let revealed = t.revealed.as_ref().map_or_else(String::new, |r| {
            format!("; strengths {} and {}", of_seat(Some(r), a), of_seat(Some(r), b))
        });
        Some(format!(
            "Last turn ({when}): {} {}{}, {} {}{}: {result}{revealed}",
            names.label(a),
            cards[a as usize],
            late(a),
            names.label(b),
            cards[b as usize],
            late(b)
        ))
    }

    /// The viewer's cards with strengths, held then played this bout, wrapped.
    fn cards_lines(v: &v1::MastermindsView) -> Vec<String> {
        let Some(hand) = v.my_hand.as_ref() else { return Vec::new() };
        let s = v.my_strengths.as_ref();
        let held: Vec<Card> = hand.cards.iter().map(|&c| card(c)).collect();
        let spent: Vec<Card> = ALL.into_iter().filter(|c| !held.contains(c)).collect();
        let mut items: Vec<String> = held.iter().map(|&c| with_strength(c, s)).collect();
        let n = items.len();
        for (i, item) in items.iter_mut().enumerate() {
            item.push_str(if i + 1 < n {
                ","
            } else if spent.is_empty() {
                ""
            } else {
                ";"
            });
        }
        let m = spent.len();
        for (i, &c) in spent.iter().enumerate() {
            let lead = if i == 0 { "played: " } else { "" };
            let comma = if i + 1 < m { "," } else { "" };
            items.push(format!("{lead}{}{comma}", with_strength(c, s)));
        }
        if held.is_empty() {
            items.insert(0, "none in hand;".into());
        }
        wrap("Your cards: ", &items, " ")
    }

    /// Whose card is awaited, and what Warp Time told.
    fn commits(v: &v1::MastermindsView, names: &Names) -> Vec<String> {
        let mut out = Vec::new();
        if let (Some(f), None) = (v.first, names.me) {
            out.push(format!("Warp Time: {} commits first.", names.subj(f)));
        } else if let Some(f) = v.first {
            let other = 1 - f.min(1);
            out.push(match (names.is_me(f), v.moved.contains(&f), card(v.told)) {
                (true, false, _) => format!(
                    "Warp Time: you must commit first, and {} will see your card.",
                    names.obj(other)
                ),
                (true, true, _) => {
                    format!("Warp Time: you committed first; {} sees your card.", names.obj(other))
                }
                (false, _, Card::Unspecified) => format!(
                    "Warp Time: {} must commit first; you will see the card.",
                    names.subj(f)
                ),
                (false, _, told) => format!(
                    "Warp Time: {} committed first and shows {}.",
                    names.subj(f),
                    name(told)
                ),
            });
        }
        let said: Vec<String> = names
            .order()
            .into_iter()
            .map(|s| match (v.moved.contains(&s), names.is_me(s), v.my_move.as_ref()) {
                (true, true, Some(m)) => {
                    format!("You played {}.", played(card(m.card), card(m.shown_as)))
                }
                (true, true, None) => "You have committed.".into(),
                (true, false, _) => format!("{} has committed.", names.subj(s)),
                (false, me, _) => format!(
                    "{} {} not committed yet.",
                    names.subj(s),
                    if me { "have" } else { "has" }
                ),
            })
            .collect();
        out.push(said.join(" "));
        out
    }
}

impl Face for Masterminds {
    fn how_to_move(&self) -> &'static str {
        "type a card by name or initial (k for Kill); a bluff as b and its card: b fireball"
    }

    fn status(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Masterminds view)".into()] };
        let over = is_over(v, self.over);
        let mut out = vec![if over {
            format!(
                "Bout {} of {BOUTS}: {} played. Points: {}",
                v.bout,
                plural(v.turn, "turn"),
                both_labels(v.points.as_ref(), names)
            )
        } else {
            format!(
                "Bout {} of {BOUTS}, turn {} of {TURNS}. Points this bout: {}",
                v.bout,
                v.turn + 1,
                both_labels(v.points.as_ref(), names)
            )
        }];
        out.push(Self::bouts_line(v, names));
        out.extend(Self::cards_lines(v));
        for seat in names.order() {
            if names.is_me(seat) {
                continue;
            }
            let shown: Vec<String> = v
                .history
                .iter()
                .filter(|t| t.bout == v.bout)
                .map(|t| if seat == 0 { t.card0.as_ref() } else { t.card1.as_ref() })
                .map(|c| name(c.map_or(Card::Unspecified, |c| card(c.card))).to_string())
                .collect();
            let lead = format!(
                "{} {} shown this bout: ",
                names.subj(seat),
                names.verb(seat, "have", "has")
            );
            if shown.is_empty() {
                out.push(format!("{lead}nothing yet"));
            } else {
                out.extend(listed(&lead, &shown));
            }
        }
        out.extend(Self::last_turn(v, names));
        if !over {
            out.extend(Self::commits(v, names));
        }
        fit(out)
    }

    fn narrate(&mut self, event: &v1::Event, names: &Names) -> Option<String> {
        let v1::event::Kind::Masterminds(m) = event.kind.as_ref()? else { return None };
        let [a, b] = names.order();
        match m.kind.as_ref()? {
            Kind::Setup(s) => Some(format!(
                "Masterminds Duel: up to {BOUTS} bouts of {TURNS} turns, first to {TO_WIN} \
                 bouts wins; {} {} a match tied in bouts.",
                names.obj(s.priority),
                names.verb(s.priority, "win", "wins")
            )),
            Kind::Strengths(s) => {
                if !names.is_me(s.seat) {
                    return None;
                }
                let new = s.strengths?;
                let old = self.strengths.replace(new);
                let Some(old) = old else {
                    let all: Vec<String> =
                        ALL.iter().map(|&c| with_strength(c, Some(&new))).collect();
                    return Some(format!("Your strengths: {}.", all.join(", ")));
                };
                let changed: Vec<String> = ALL
                    .iter()
                    .filter_map(|&c| {
                        let (was, now) = (strength(&old, c)?, strength(&new, c)?);
                        (was != now).then(|| format!("{} {now} (was {was})", name(c)))
                    })
                    .collect();
                (!changed.is_empty())
                    .then(|| format!("Your strengths changed: {}.", changed.join(", ")))
            }
            Kind::BoutStarted(s) => {
                Some(format!("Bout {} begins: all ten cards are back in hand.", s.bout))
            }
            Kind::TurnStarted(t) => t.first.map(|f| {
                if names.is_me(f) {
                    format!(
                        "Warp Time: in turn {} you must commit first, and {} will see your card.",
                        t.turn,
                        names.obj(1 - f.min(1))
                    )
                } else {
                    format!(
                        "Warp Time: in turn {} {} must commit first, and {} will see the card.",
                        t.turn,
                        names.obj(f),
                        names.obj(1 - f.min(1))
                    )
                }
            }),
            Kind::Moved(m) => {
                (!names.is_me(m.seat)).then(|| format!("{} committed a card.", names.subj(m.seat)))
            }
            Kind::MoveSealed(m) => {
                Some(format!("You played {}.", played(card(m.card), card(m.shown_as))))
            }
            Kind::Told(t) => Some(format!(
                "Warp Time: {} shows {}.",
                names.obj(1 - t.seat.min(1)),
                name(card(t.card))
            )),
            Kind::Late(l) => match l.seats.as_slice() {
                [] => None,
                [s] => Some(format!(
                    "{} missed the deadline: a random card was played for {}.",
                    names.subj(*s),
                    names.obj(*s)
                )),
                _ => Some(
                    "Both players missed the deadline: a random card was played for each.".into(),
                ),
            },
            Kind::TurnResolved(r) => {
                let shown = [name(card(r.shown0)), name(card(r.shown1))];
                let result = r
                    .winner
                    .map_or_else(|| "a tie".into(), |w| format!("{} won the turn", names.obj(w)));
                Some(format!(
                    "Turn {}: {} showed {}, {} showed {}: {result}. Points: {}.",
                    r.turn,
                    names.obj(a),
                    shown[a as usize],
                    names.obj(b),
                    shown[b as usize],
                    both(r.points.as_ref(), names)
                ))
            }
            Kind::Revealed(r) => {
                let s = |seat| of_seat(r.strengths.as_ref(), seat);
                Some(format!(
                    "Reveal: in turn {}, {} card had strength {}, {} {}.",
                    r.turn,
                    names.poss(a),
                    s(a),
                    mine(names, b),
                    s(b)
                ))
            }
            Kind::BluffOuted(o) => {
                let claim = match card(o.claimed) {
                    Card::Unspecified => String::new(),
                    c => format!(" (it claimed {})", name(c)),
                };
                Some(format!(
                    "{} card in turn {} is outed as a Bluff{claim}.",
                    capitalized(&names.poss(o.seat)),
                    o.turn
                ))
            }
            Kind::BoutEnded(e) => {
                let wins = |s| of_seat(e.bout_wins.as_ref(), s);
                if e.bout >= BOUTS || wins(0) >= TO_WIN || wins(1) >= TO_WIN {
                    self.over = true;
                }
                let p = |s| of_seat(e.points.as_ref(), s);
                let head = match e.winner {
                    None => format!("Bout {} is a tie, {} to {}", e.bout, p(0), p(1)),
                    Some(w) => {
                        let l = 1 - w.min(1);
                        let (w_pts, l_pts) = (p(w), p(l));
                        let how = match v1::MastermindsBoutEnd::try_from(e.end) {
                            Ok(v1::MastermindsBoutEnd::KillCountered) => format!(
                                ": {} Kill was countered (points {w_pts} to {l_pts})",
                                names.poss(l)
                            ),
                            Ok(v1::MastermindsBoutEnd::KillAgainstOffering) => format!(
                                ": {} Kill met an Offering (points {w_pts} to {l_pts})",
                                names.poss(w)
                            ),
                            Ok(
                                v1::MastermindsBoutEnd::Points
                                | v1::MastermindsBoutEnd::Unspecified,
                            )
                            | Err(_) => format!(" on points, {w_pts} to {l_pts}"),
                        };
                        format!("Bout {} goes to {}{how}", e.bout, names.obj(w))
                    }
                };
                Some(format!("{head}. Bouts won: {}.", both(e.bout_wins.as_ref(), names)))
            }
        }
    }

    fn spell(&self, mv: &v1::Move) -> String {
        let Some(m) = move_of(mv) else { return "?".into() };
        match card(m.card) {
            Card::Bluff => format!("bluff {}", name(card(m.shown_as)).to_lowercase()),
            c => name(c).to_lowercase(),
        }
    }

    fn help(&self, legal: &[v1::Move]) -> Vec<String> {
        let mut held: Vec<Card> = legal.iter().filter_map(move_of).map(|m| card(m.card)).collect();
        held.dedup();
        let mut out =
            vec!["Your cards (type a name, its start or initial; strength, effect):".into()];
        for c in held {
            let Some((n, effect)) = info(c) else { continue };
            let s = self
                .strengths
                .as_ref()
                .and_then(|s| strength(s, c))
                .map_or_else(String::new, |s| s.to_string());
            out.push(cut(&format!("  {n:<12}{s:>3}  {effect}"), WIDTH));
            if c == Card::Bluff {
                out.push(
                    "                   type it with the card it shows: bluff kill, b k".into(),
                );
            }
        }
        out
    }

    fn read(&self, line: &str, legal: &[v1::Move]) -> Result<v1::Move, String> {
        let words: Vec<&str> = line
            .split(|c: char| c.is_whitespace() || matches!(c, ',' | ':' | '-' | '/' | '=' | '>'))
            .filter(|w| !w.is_empty())
            .collect();
        let bluff_hint = "a Bluff is typed with the card it shows: bluff fireball, or b f";
        let mv = match lookup(line) {
            Ok(Card::Bluff) => return Err(bluff_hint.into()),
            Ok(c) => play(c, Card::Unspecified),
            Err(e) if words.len() < 2 => return Err(e),
            Err(_) => match lookup(words[0])? {
                Card::Bluff => {
                    let rest = match words[1..] {
                        ["as", ref rest @ ..] | ref rest => rest,
                    };
                    if rest.is_empty() {
                        return Err(bluff_hint.into());
                    }
                    match lookup(&rest.join(" "))? {
                        Card::Bluff => {
                            return Err("a Bluff is shown as another card, not as Bluff".into());
                        }
                        shown => play(Card::Bluff, shown),
                    }
                }
                c => {
                    return Err(format!(
                        "one card at a time: {} alone, or a bluff as b and its card",
                        name(c)
                    ));
                }
            },
        };
        if legal.is_empty() || legal.contains(&mv) {
            return Ok(mv);
        }
        let mut held: Vec<Card> = legal.iter().filter_map(move_of).map(|m| card(m.card)).collect();
        held.dedup();
        let c = move_of(&mv).map_or(Card::Unspecified, |m| card(m.card));
        let yours = held.iter().map(|&c| name(c)).collect::<Vec<_>>().join(", ");
        Err(format!("{} is played already this bout: you hold {yours}", name(c)))
    }

    fn final_board(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Masterminds view)".into()] };
        let mut out = vec![
            Self::bouts_line(v, names),
            format!(
                "Last bout ({}): points {} after {}.",
                v.bout,
                both_labels(v.points.as_ref(), names),
                plural(v.turn, "turn")
            ),
        ];
        if let Some(s) = v.my_strengths.as_ref() {
            let all: Vec<String> = ALL.iter().map(|&c| with_strength(c, Some(s))).collect();
            out.extend(listed("Your final strengths: ", &all));
        }
        out.extend(Self::last_turn(v, names));
        fit(out)
    }

    fn score(&self, v: &v1::View) -> Option<[String; 2]> {
        let v = view(v)?;
        let w = |s| of_seat(v.bout_wins.as_ref(), s);
        let tied = w(0) == w(1);
        let s = |seat: u32| {
            let bouts = plural(w(seat), "bout");
            if tied && v.priority == seat { format!("{bouts} and priority") } else { bouts }
        };
        Some([s(0), s(1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal_all() -> Vec<v1::Move> {
        let mut out: Vec<v1::Move> = ALL[1..].iter().map(|&c| play(Card::Bluff, c)).collect();
        out.extend(ALL[1..].iter().map(|&c| play(c, Card::Unspecified)));
        out
    }

    #[test]
    fn cards_read_by_name_prefix_or_initial_in_any_case() {
        let f = Masterminds::default();
        let legal = legal_all();
        let kill = play(Card::Kill, Card::Unspecified);
        for typed in ["k", "K", "Kill", "KILL", "kil", " kill "] {
            assert_eq!(f.read(typed, &legal), Ok(kill.clone()), "{typed}");
        }
        let warp = play(Card::WarpTime, Card::Unspecified);
        for typed in ["w", "wt", "warp", "Warp Time", "warp-time", "WARPTIME", "warp_time"] {
            assert_eq!(f.read(typed, &legal), Ok(warp.clone()), "{typed}");
        }
        assert_eq!(f.read("counter", &legal), Ok(play(Card::Counterspell, Card::Unspecified)));
        let bluff_fireball = play(Card::Bluff, Card::Fireball);
        for typed in ["bluff fireball", "b fireball", "b f", "B F", "bluff as fireball", "b:f"] {
            assert_eq!(f.read(typed, &legal), Ok(bluff_fireball.clone()), "{typed}");
        }
        assert_eq!(f.read("b warp time", &legal), Ok(play(Card::Bluff, Card::WarpTime)));
        assert_eq!(f.read("bluff as wt", &legal), Ok(play(Card::Bluff, Card::WarpTime)));
        assert!(f.read("b", &legal).unwrap_err().contains("bluff fireball"));
        assert!(f.read("bluff", &legal).unwrap_err().contains("the card it shows"));
        assert!(f.read("b b", &legal).unwrap_err().contains("not as Bluff"));
        assert!(f.read("x", &legal).unwrap_err().starts_with("x is no card: Bluff, Counterspell"));
        assert!(f.read("kill swap", &legal).unwrap_err().contains("one card at a time"));
        let few = [play(Card::Swap, Card::Unspecified), play(Card::Mayhem, Card::Unspecified)];
        assert_eq!(
            f.read("k", &few).unwrap_err(),
            "Kill is played already this bout: you hold Swap, Mayhem"
        );
        for mv in &legal {
            assert_eq!(f.read(&f.spell(mv), &legal).as_ref(), Ok(mv), "{}", f.spell(mv));
        }
    }

    #[test]
    fn an_ambiguous_start_names_its_candidates() {
        let table = [("Swap", 1), ("Swipe", 2), ("Sweep", 3), ("Kill", 4)];
        assert_eq!(find("sw", &table), Err(vec!["Swap", "Swipe", "Sweep"]));
        assert_eq!(find("swi", &table), Ok(2));
        assert_eq!(find("KILL", &table), Ok(4));
        assert_eq!(find("q", &table), Err(vec![]));
    }

    fn ev(k: Kind) -> v1::Event {
        v1::Event {
            kind: Some(v1::event::Kind::Masterminds(v1::MastermindsEvent { kind: Some(k) })),
        }
    }

    fn pair(a: i64, b: i64) -> Option<v1::SeatPair> {
        Some(v1::SeatPair { seat0: a, seat1: b })
    }

    #[test]
    fn turns_and_bouts_read_from_the_viewers_side() {
        let mut f = Masterminds::default();
        let names = Names::new(Some(1), "Ada");
        let turn = f.narrate(
            &ev(Kind::TurnResolved(v1::MastermindsTurnResolved {
                bout: 2,
                turn: 3,
                shown0: Card::Fireball as i32,
                shown1: Card::Kill as i32,
                winner: Some(1),
                points: pair(1, 2),
            })),
            &names,
        );
        assert_eq!(
            turn.as_deref(),
            Some(
                "Turn 3: you showed Kill, Ada showed Fireball: you won the turn. Points: you 2, Ada 1."
            )
        );
        let ended = f.narrate(
            &ev(Kind::BoutEnded(v1::MastermindsBoutEnded {
                bout: 2,
                winner: Some(0),
                end: v1::MastermindsBoutEnd::KillCountered as i32,
                points: pair(3, 2),
                bout_wins: pair(1, 1),
            })),
            &names,
        );
        assert_eq!(
            ended.as_deref(),
            Some(
                "Bout 2 goes to Ada: your Kill was countered (points 3 to 2). Bouts won: you 1, Ada 1."
            )
        );
        let outed = f.narrate(
            &ev(Kind::BluffOuted(v1::MastermindsBluffOuted {
                seat: 0,
                bout: 2,
                turn: 4,
                claimed: Card::Kill as i32,
            })),
            &names,
        );
        assert_eq!(
            outed.as_deref(),
            Some("Ada's card in turn 4 is outed as a Bluff (it claimed Kill).")
        );
    }

    #[test]
    fn strengths_are_told_whole_then_as_changes() {
        let mut f = Masterminds::default();
        let names = Names::new(Some(0), std::env::var("OPP").unwrap_or("Ada".into()));
        let s = |kill| v1::MastermindsStrengths {
            bluff: 6,
            counterspell: 4,
            empower: 6,
            fireball: 4,
            kill,
            mayhem: 4,
            offering: 4,
            reveal: 6,
            swap: 4,
            warp_time: 6,
        };
        let told = |k| {
            ev(Kind::Strengths(v1::MastermindsSeatStrengths { seat: 0, strengths: Some(s(k)) }))
        };
        assert_eq!(
            f.narrate(&told(6), &names).as_deref(),
            Some(
                "Your strengths: Bluff 6, Counterspell 4, Empower 6, Fireball 4, Kill 6, \
                 Mayhem 4, Offering 4, Reveal 6, Swap 4, Warp Time 6."
            )
        );
        assert_eq!(
            f.narrate(&told(7), &names).as_deref(),
            Some("Your strengths changed: Kill 7 (was 6).")
        );
        let help = f.help(&legal_all());
        assert!(help.iter().any(|l| l.starts_with("  Kill          7  wins the turn")), "{help:?}");
    }
}
