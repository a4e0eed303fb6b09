//! Dueling Monsters (1,2,3 Goofspiel) in the terminal, worded as the web board words it:
//! each battle both seats play a monster (a black card, level 1-3) and a weapon (a white
//! card, 1-9); blacks are always shown, whites only when the blacks tie. The panel shows
//! the prize, bouts won and bout points, both seats' monsters (public), the viewer's own
//! weapons, how many weapons the other seat has left and which of them were seen spent.
//! A move is typed as a black then a white: `2 9`, `2,9`, `29`, or tagged in any order:
//! `b2 w9`, `w9 b2`, `black 2 white 9`.

use super::{
    Face, Names, WIDTH, both, both_labels, capitalized, cut, fit, mine, of_seat, plural, values,
};
use api::v1;
use v1::dueling_monsters_event::Kind;

/// The Dueling Monsters face: remembers the bout under way and the last battle's result
/// in short, which the panel shows (the view carries scores, not how they came).
#[derive(Default)]
pub struct DuelingMonsters {
    bout: u32,
    last: Option<Last>,
}

/// The last battle resolved, for the panel.
struct Last {
    bout: u32,
    round: u32,
    /// What happened, in short: "monsters you 2, Ada 3: Ada won 7 points; ...".
    text: String,
}

fn view(v: &v1::View) -> Option<&v1::DuelingMonstersView> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::view::Game::DuelingMonsters(g)) = v.game.as_ref() { Some(g) } else { None }
}

/// A move's black and white.
fn pair_of(mv: &v1::Move) -> Option<(i64, i64)> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::r#move::Game::DuelingMonsters(m)) = mv.game.as_ref() {
        Some((m.black, m.white))
    } else {
        None
    }
}

fn play(black: i64, white: i64) -> v1::Move {
    v1::Move {
        game: Some(v1::r#move::Game::DuelingMonsters(v1::DuelingMonstersMove { black, white })),
    }
}

/// A seat's blacks, one number per card: "1 1 2 3".
fn blacks(b: Option<&v1::Blacks>) -> Vec<u32> {
    let Some(b) = b else { return Vec::new() };
    [(1, b.ones), (2, b.twos), (3, b.threes)]
        .into_iter()
        .flat_map(|(level, n)| std::iter::repeat_n(level, n as usize))
        .collect()
}

/// Numbers in a row; "none" for no number.
fn row<T: ToString>(ns: &[T]) -> String {
    if ns.is_empty() {
        return "none".into();
    }
    ns.iter().map(ToString::to_string).collect::<Vec<_>>().join(" ")
}

fn submissions_word(s: i32) -> &'static str {
    match v1::DuelingMonstersSubmissions::try_from(s) {
        Ok(v1::DuelingMonstersSubmissions::Changeable) => {
            "a submission may be changed until the deadline"
        }
        Ok(v1::DuelingMonstersSubmissions::First | v1::DuelingMonstersSubmissions::Unspecified)
        | Err(_) => "the first submission is final",
    }
}

/// Which side of a typed number it names.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Colour {
    Black,
    White,
}

/// A tag word: b/black/m/monster/level for a black, w/white/weapon for a white.
fn colour_of(word: &str) -> Option<Colour> {
    match word {
        "b" | "black" | "m" | "monster" | "l" | "lvl" | "level" => Some(Colour::Black),
        "w" | "white" | "weapon" => Some(Colour::White),
        _ => None,
    }
}

/// The numbers typed, each with its colour if tagged (`b2`, `black 2`, `b2w9`, `2`).
fn numbers(line: &str) -> Result<Vec<(Option<Colour>, i64)>, String> {
    // Runs of letters and runs of digits; anything else only separates them.
    let mut runs: Vec<String> = Vec::new();
    let mut run = String::new();
    for c in line.to_ascii_lowercase().chars() {
        let joins = run.chars().last().is_some_and(|l| l.is_ascii_digit() == c.is_ascii_digit());
        if (!c.is_ascii_alphanumeric() || !joins) && !run.is_empty() {
            runs.push(std::mem::take(&mut run));
        }
        if c.is_ascii_alphanumeric() {
            run.push(c);
        }
    }
    if !run.is_empty() {
        runs.push(run);
    }
    let mut out = Vec::new();
    let mut pending: Option<Colour> = None;
    for r in &runs {
        if r.starts_with(|c: char| c.is_ascii_digit()) {
            let n: i64 = r.parse().map_err(|_| format!("{} is no card", cut(r, 12)))?;
            out.push((pending.take(), n));
        } else {
            pending = Some(colour_of(r).ok_or_else(|| format!("{} is no card", cut(r, 12)))?);
        }
    }
    // "29" untagged and alone: a black and a white run together.
    if let [(None, n)] = out.as_slice()
        && (10..100).contains(n)
    {
        out = vec![(None, n / 10), (None, n % 10)];
    }
    Ok(out)
}

impl DuelingMonsters {
    /// The blacks and whites `legal` allows, each once, in order.
    fn offered(legal: &[v1::Move]) -> (Vec<i64>, Vec<i64>) {
        let mut bs: Vec<i64> = legal.iter().filter_map(pair_of).map(|p| p.0).collect();
        let mut ws: Vec<i64> = legal.iter().filter_map(pair_of).map(|p| p.1).collect();
        bs.sort_unstable();
        bs.dedup();
        ws.sort_unstable();
        ws.dedup();
        (bs, ws)
    }

    /// The black and the white in `line`.
    fn parse(&self, line: &str) -> Result<(i64, i64), String> {
        let hint = self.how_to_move();
        let ns = numbers(line).map_err(|e| format!("{e} ({hint})"))?;
        let [x, y] = ns.as_slice() else {
            return Err(format!("a black and a white, two numbers ({hint})"));
        };
        let (black, white) = match (x.0, y.0) {
            (Some(Colour::Black), Some(Colour::White))
            | (Some(Colour::Black) | None, None)
            | (None, Some(Colour::White)) => {
                // Untagged, a first number over 3 can only be the white: typed the other way.
                if x.0.is_none() && y.0.is_none() && x.1 > 3 && y.1 <= 3 {
                    (y.1, x.1)
                } else {
                    (x.1, y.1)
                }
            }
            (Some(Colour::White), Some(Colour::Black) | None) | (None, Some(Colour::Black)) => {
                (y.1, x.1)
            }
            (Some(Colour::Black), Some(Colour::Black)) => {
                return Err(format!("two blacks: one black and one white ({hint})"));
            }
            (Some(Colour::White), Some(Colour::White)) => {
                return Err(format!("two whites: one black and one white ({hint})"));
            }
        };
        if !(1..=3).contains(&black) {
            return Err(format!("a black (monster) is 1, 2 or 3, not {black} ({hint})"));
        }
        if !(1..=9).contains(&white) {
            return Err(format!("a white (weapon) is 1 to 9, not {white} ({hint})"));
        }
        Ok((black, white))
    }
}

impl Face for DuelingMonsters {
    fn how_to_move(&self) -> &'static str {
        "type a black (monster 1-3) then a white (weapon 1-9): 2 9, or b2 w9"
    }

    fn status(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Dueling Monsters view)".into()] };
        let mut out = Vec::new();
        let to_win = format!("first to {} wins", plural(v.bouts_to_win, "bout"));
        out.push(match v.prize {
            Some(p) => format!(
                "Bout {}, battle {} of 9: the prize is {} ({to_win})",
                v.bout,
                v.round + 1,
                plural(p, "point")
            ),
            None => format!("Bout {}: {} of 9 battles played ({to_win})", v.bout, v.round),
        });
        out.push(format!(
            "{:<16}{:>6}{:>8}  {:<20}{}",
            "", "Bouts", "Points", "Monsters (black)", "Weapons (white)"
        ));
        let bl = [blacks(v.blacks0.as_ref()), blacks(v.blacks1.as_ref())];
        let shown = [values(v.shown_whites0.as_ref()), values(v.shown_whites1.as_ref())];
        for seat in names.order() {
            let whites = if names.is_me(seat) {
                row(values(v.my_whites.as_ref()))
            } else {
                format!("{} left", of_seat(v.whites_left.as_ref(), seat))
            };
            out.push(format!(
                "{:<16}{:>6}{:>8}  {:<20}{whites}",
                names.label(seat),
                of_seat(v.bout_wins.as_ref(), seat),
                of_seat(v.scores.as_ref(), seat),
                row(&bl[seat as usize]),
            ));
        }
        for seat in names.order() {
            if !names.is_me(seat) && !shown[seat as usize].is_empty() {
                out.push(format!(
                    "{} weapons seen spent this bout: {} (the rest stayed hidden)",
                    capitalized(&names.poss(seat)),
                    row(shown[seat as usize])
                ));
            }
        }
        let left = values(v.prizes_left.as_ref());
        if !left.is_empty() {
            out.push(format!("Prizes to come this bout (order hidden): {}", row(left)));
        }
        if let Some(l) = &self.last {
            let when = if l.bout == v.bout {
                format!("Last battle ({}): ", l.round)
            } else {
                format!("Last battle of bout {}: ", l.bout)
            };
            let words: Vec<String> = l.text.split(' ').map(String::from).collect();
            out.extend(super::wrap(&when, &words, " "));
        }
        if v.restarts > 0 {
            out.push(format!(
                "Both missed the deadline: the battle restarted ({} in a row).",
                plural(v.restarts, "restart")
            ));
        }
        if v.prize.is_some() {
            let changeable = v.submissions == v1::DuelingMonstersSubmissions::Changeable as i32;
            let said: Vec<String> = names
                .order()
                .into_iter()
                .map(|s| match (v.moved.contains(&s), names.is_me(s), v.my_move.as_ref()) {
                    (true, true, Some(m)) => format!(
                        "You played monster {} with weapon {}{}.",
                        m.black,
                        m.white,
                        if changeable { " (you may change it)" } else { "" }
                    ),
                    (true, true, None) => "You have submitted.".into(),
                    (true, false, _) => format!("{} has submitted.", names.subj(s)),
                    (false, me, _) => format!(
                        "{} {} not submitted yet.",
                        names.subj(s),
                        if me { "have" } else { "has" }
                    ),
                })
                .collect();
            out.push(said.join(" "));
        }
        fit(out)
    }

    fn narrate(&mut self, event: &v1::Event, names: &Names) -> Option<String> {
        let v1::event::Kind::DuelingMonsters(d) = event.kind.as_ref()? else { return None };
        let [a, b] = names.order();
        match d.kind.as_ref()? {
            Kind::Setup(s) => Some(format!(
                "Dueling Monsters, best of {} bouts; {}.",
                2 * s.bouts_to_win.max(1) - 1,
                submissions_word(s.submissions)
            )),
            Kind::BoutStarted(s) => {
                self.bout = s.bout;
                Some(format!(
                    "Bout {} begins: 9 battles for prizes 1 to 9, in a hidden order.",
                    s.bout
                ))
            }
            Kind::RoundStarted(r) => {
                self.bout = r.bout;
                Some(format!(
                    "Bout {}, battle {}: the prize is worth {}.",
                    r.bout,
                    r.round,
                    plural(r.prize, "point")
                ))
            }
            Kind::Moved(m) => {
                (!names.is_me(m.seat)).then(|| format!("{} submitted.", names.subj(m.seat)))
            }
            Kind::MoveSealed(m) => {
                Some(format!("You played a level {} monster with weapon {}.", m.black, m.white))
            }
            Kind::Resolved(r) => {
                let bl = |s| of_seat(r.blacks.as_ref(), s);
                let wh = |s| of_seat(r.whites.as_ref(), s);
                let prize = plural(r.prize, "point");
                let won = |w: u32| format!("{} won {prize}", names.obj(w));
                let weapons = |s| format!("higher weapon: {}", names.obj(s));
                let short = match (bl(0) != bl(1), v1::HigherWhite::try_from(r.higher_white)) {
                    (true, Ok(v1::HigherWhite::Seat0)) => format!("; {}", weapons(0)),
                    (true, Ok(v1::HigherWhite::Seat1)) => format!("; {}", weapons(1)),
                    (true, Ok(v1::HigherWhite::Tie)) => "; equal weapons".into(),
                    (true, Ok(v1::HigherWhite::Unspecified) | Err(_)) => String::new(),
                    (false, _) => String::new(),
                };
                let short = match r.winner {
                    _ if bl(0) != bl(1) => format!(
                        "monsters {} {}, {} {}: {}{short}",
                        names.obj(a),
                        bl(a),
                        names.obj(b),
                        bl(b),
                        r.winner.map_or_else(|| "nobody won".into(), won)
                    ),
                    Some(w) => format!(
                        "monsters both {}, weapons {} {}, {} {}: {}",
                        bl(a),
                        names.obj(a),
                        wh(a),
                        names.obj(b),
                        wh(b),
                        won(w)
                    ),
                    None => format!(
                        "monsters both {}, weapons both {}: the prize is discarded",
                        bl(0),
                        wh(0)
                    ),
                };
                self.last = Some(Last { bout: self.bout, round: r.round, text: short });
                let t = if bl(0) != bl(1) {
                    let stronger = |s| format!("{} was stronger", mine(names, s));
                    let higher = match v1::HigherWhite::try_from(r.higher_white) {
                        Ok(v1::HigherWhite::Seat0) => stronger(0),
                        Ok(v1::HigherWhite::Seat1) => stronger(1),
                        Ok(v1::HigherWhite::Tie) => "they were equal".into(),
                        Ok(v1::HigherWhite::Unspecified) | Err(_) => String::new(),
                    };
                    let result = r.winner.map_or_else(|| "nobody won the prize".into(), won);
                    let hidden = if higher.is_empty() {
                        "the weapons stay hidden".to_string()
                    } else {
                        format!("the weapons stay hidden, {higher}")
                    };
                    format!(
                        "{} played a level {} monster, {} a level {}: {result}; {hidden}.",
                        names.subj(a),
                        bl(a),
                        names.obj(b),
                        bl(b)
                    )
                } else if let Some(w) = r.winner {
                    format!(
                        "both played level {} monsters; weapons shown: {} {}, {} {}: {}.",
                        bl(0),
                        names.obj(a),
                        wh(a),
                        names.obj(b),
                        wh(b),
                        won(w)
                    )
                } else {
                    format!(
                        "both played a level {} monster and weapon {}: the prize of {prize} \
                         is discarded.",
                        bl(0),
                        wh(0)
                    )
                };
                Some(format!(
                    "Battle {}: {t} Bout points: {}.",
                    r.round,
                    both(r.scores.as_ref(), names)
                ))
            }
            Kind::Forfeited(f) => {
                let on = 1 - f.late.min(1);
                let text = format!(
                    "{} missed the deadline: {} won {}",
                    names.obj(f.late),
                    names.obj(on),
                    plural(f.prize, "point")
                );
                self.last = Some(Last { bout: self.bout, round: f.round, text });
                Some(format!(
                    "Battle {}: {} missed the deadline: {} won {} with a level {} monster; {} \
                     lost a level {} monster and weapon {} at random. Bout points: {}.",
                    f.round,
                    names.subj(f.late),
                    names.obj(on),
                    plural(f.prize, "point"),
                    f.on_time_black,
                    names.obj(f.late),
                    f.discarded_black,
                    f.discarded_white,
                    both(f.scores.as_ref(), names)
                ))
            }
            Kind::Restarted(r) => Some(format!(
                "Both players missed the deadline: the battle restarts ({} in a row).",
                plural(r.restarts, "restart")
            )),
            Kind::BoutEnded(e) => {
                let s = |seat| of_seat(e.scores.as_ref(), seat);
                Some(match e.winner {
                    Some(w) => format!(
                        "Bout {} goes to {}, {} to {}. Bouts won: {}.",
                        e.bout,
                        names.obj(w),
                        s(w),
                        s(1 - w.min(1)),
                        both(e.bout_wins.as_ref(), names)
                    ),
                    None => {
                        format!("Bout {} is tied {} to {}: it is replayed.", e.bout, s(0), s(1))
                    }
                })
            }
        }
    }

    fn spell(&self, mv: &v1::Move) -> String {
        pair_of(mv).map_or_else(|| "?".into(), |(b, w)| format!("{b} {w}"))
    }

    fn help(&self, legal: &[v1::Move]) -> Vec<String> {
        let (bs, ws) = Self::offered(legal);
        vec![
            cut(&format!("Monsters (black) you can play: {}", row(&bs)), WIDTH),
            cut(&format!("Weapons (white) you can play:  {}", row(&ws)), WIDTH),
            "Type the black then the white: 2 9 (or 2,9 or b2 w9).".into(),
        ]
    }

    fn read(&self, line: &str, legal: &[v1::Move]) -> Result<v1::Move, String> {
        let (black, white) = self.parse(line)?;
        let mv = play(black, white);
        if legal.is_empty() || legal.contains(&mv) {
            return Ok(mv);
        }
        let (bs, ws) = Self::offered(legal);
        if !bs.contains(&black) {
            return Err(format!(
                "you have no level {black} monster (black) left: you hold {}",
                row(&bs)
            ));
        }
        if !ws.contains(&white) {
            return Err(format!("weapon (white) {white} is spent: you hold {}", row(&ws)));
        }
        Err(format!("not a legal move now: blacks {}, whites {}", row(&bs), row(&ws)))
    }

    fn final_board(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Dueling Monsters view)".into()] };
        let mut out = vec![
            format!(
                "Bouts won: {} ({} needed).",
                both_labels(v.bout_wins.as_ref(), names),
                v.bouts_to_win
            ),
            format!(
                "Last bout ({}): points {} after {} of 9 battles.",
                v.bout,
                both_labels(v.scores.as_ref(), names),
                v.round
            ),
        ];
        let bl = [blacks(v.blacks0.as_ref()), blacks(v.blacks1.as_ref())];
        for seat in names.order() {
            let monsters = &bl[seat as usize];
            let whites = if names.is_me(seat) {
                format!("weapons {}", row(values(v.my_whites.as_ref())))
            } else {
                format!("{} hidden", plural(of_seat(v.whites_left.as_ref(), seat), "weapon"))
            };
            if !monsters.is_empty() {
                out.push(format!(
                    "{} unplayed cards: monsters {}; {whites}",
                    capitalized(&names.poss(seat)),
                    row(monsters)
                ));
            }
        }
        fit(out)
    }

    fn score(&self, v: &v1::View) -> Option<[String; 2]> {
        let v = view(v)?;
        let s = |seat| plural(of_seat(v.bout_wins.as_ref(), seat), "bout");
        Some([s(0), s(1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all() -> Vec<v1::Move> {
        (1..=3).flat_map(|b| (1..=9).map(move |w| play(b, w))).collect()
    }

    #[test]
    fn a_black_and_a_white_read_in_any_friendly_form() {
        let f = DuelingMonsters::default();
        let legal = all();
        for typed in
            ["2 9", "2,9", "29", "b2 w9", "B2W9", "w9 b2", "black 2 white 9", "9 2", "2/9", "m2 w9"]
        {
            assert_eq!(f.read(typed, &legal), Ok(play(2, 9)), "{typed}");
        }
        assert_eq!(f.read("w3 b1", &legal), Ok(play(1, 3)));
        assert_eq!(f.read("2 3", &legal), Ok(play(2, 3)));
        assert!(f.read("2", &legal).unwrap_err().contains("two numbers"));
        assert!(f.read("4 5", &legal).unwrap_err().contains("1, 2 or 3"));
        assert!(f.read("b2 b3", &legal).unwrap_err().contains("two blacks"));
        assert!(f.read("x2 y3", &legal).unwrap_err().contains("no card"));
        let some = [play(1, 4), play(1, 7), play(3, 4), play(3, 7)];
        assert_eq!(
            f.read("2 4", &some).unwrap_err(),
            "you have no level 2 monster (black) left: you hold 1 3"
        );
        assert_eq!(f.read("1 9", &some).unwrap_err(), "weapon (white) 9 is spent: you hold 4 7");
        for mv in &some {
            assert_eq!(f.read(&f.spell(mv), &some).as_ref(), Ok(mv));
        }
    }

    #[test]
    fn help_lists_blacks_and_whites_not_pairs() {
        let f = DuelingMonsters::default();
        let legal: Vec<v1::Move> =
            [1, 2, 3].iter().flat_map(|&b| [1, 4, 7, 9].map(|w| play(b, w))).collect();
        assert_eq!(
            f.help(&legal)[..2],
            [
                "Monsters (black) you can play: 1 2 3".to_string(),
                "Weapons (white) you can play:  1 4 7 9".to_string()
            ]
        );
    }

    fn ev(k: Kind) -> v1::Event {
        v1::Event {
            kind: Some(v1::event::Kind::DuelingMonsters(v1::DuelingMonstersEvent {
                kind: Some(k),
            })),
        }
    }

    fn pair(a: i64, b: i64) -> Option<v1::SeatPair> {
        Some(v1::SeatPair { seat0: a, seat1: b })
    }

    #[test]
    fn a_battle_reads_from_the_viewers_side() {
        let mut f = DuelingMonsters::default();
        let names = Names::new(Some(1), "The strong bot");
        let line = f.narrate(
            &ev(Kind::Resolved(v1::DuelingMonstersResolved {
                round: 3,
                blacks: pair(3, 2),
                whites: None,
                higher_white: v1::HigherWhite::Seat1 as i32,
                winner: Some(0),
                prize: 7,
                scores: pair(15, 5),
            })),
            &names,
        );
        assert_eq!(
            line.as_deref(),
            Some(
                "Battle 3: You played a level 2 monster, the strong bot a level 3: the strong \
                 bot won 7 points; the weapons stay hidden, yours was stronger. Bout points: \
                 you 5, the strong bot 15."
            )
        );
        let tie = f.narrate(
            &ev(Kind::Resolved(v1::DuelingMonstersResolved {
                round: 4,
                blacks: pair(1, 1),
                whites: pair(6, 8),
                higher_white: 0,
                winner: Some(1),
                prize: 1,
                scores: pair(15, 6),
            })),
            &names,
        );
        assert_eq!(
            tie.as_deref(),
            Some(
                "Battle 4: both played level 1 monsters; weapons shown: you 8, the strong bot 6: \
                 you won 1 point. Bout points: you 6, the strong bot 15."
            )
        );
        let ended = f.narrate(
            &ev(Kind::BoutEnded(v1::DuelingMonstersBoutEnded {
                bout: 1,
                winner: Some(1),
                scores: pair(20, 25),
                bout_wins: pair(0, 1),
            })),
            &names,
        );
        assert_eq!(
            ended.as_deref(),
            Some("Bout 1 goes to you, 25 to 20. Bouts won: you 1, the strong bot 0.")
        );
    }
}
