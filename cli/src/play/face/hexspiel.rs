//! Hexspiel in the terminal: the 8x8 hex board in text (X the viewer's stones, O the
//! opponent's, a digit an empty cell's AP cost), the AP banks, the phase (a sealed bid for
//! a prize, or the round winner's Hex turn), the hand and its card effects, the set's
//! worth, the patterns claimed and the last round.
//!
//! A bid is typed as its number (`5`). A Hex turn is its cells (`c3 d4`, `C3,D4`,
//! `place c3 d4`), or `pass` for no stone. A pattern is declared after the stones by its
//! short name: `row c3-g3` (five in a row, by its two ends), `ring d4` (the six cells
//! around d4), `y d4 east` (the Y of seven centred on d4, one arm running east and the
//! others south-west and north-west; `west` the mirror). The name alone (`c3 d4 ring`)
//! does when only one such pattern is complete, and the full list of cells does too.

use super::{Face, Names, WIDTH, both, cut, of_seat, plural, values, wrap};
use api::v1;
use v1::HexspielPatternKind as Pk;
use v1::hexspiel_event::Kind;
use v1::hexspiel_move::Kind as MoveKind;

/// Cells per side.
const SIDE: i32 = 8;
/// Goofspiel rounds in a set.
const ROUNDS: u32 = 7;
/// The AP on each prize card by worth (worth 1 first), as the rules text lists them.
const PRIZE_AP: [u32; 7] = [8, 7, 6, 5, 5, 4, 4];
/// The six neighbour steps (column, row) in cyclic order: east, south-east, south-west,
/// west, north-west, north-east as the board is drawn (row 8 on top, shifted right).
const DIRS: [(i32, i32); 6] = [(1, 0), (1, -1), (0, -1), (-1, 0), (-1, 1), (0, 1)];
/// The column where the notes beside the board start.
const NOTES_AT: usize = 31;

/// A legal Hex turn with its stones and its pattern (kind and cells), cells a1 first.
type HexTurn<'a> = (&'a v1::Move, Vec<usize>, Option<(Pk, Vec<usize>)>);

/// The Hexspiel face: remembers the set and the prize up, which a reveal's line needs.
#[derive(Default)]
pub struct Hexspiel {
    set: u32,
    prize: u32,
}

fn view(v: &v1::View) -> Option<&v1::HexspielView> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::view::Game::Hexspiel(h)) = v.game.as_ref() { Some(h) } else { None }
}

fn hex_move(mv: &v1::Move) -> Option<&MoveKind> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::r#move::Game::Hexspiel(h)) = mv.game.as_ref() { h.kind.as_ref() } else { None }
}

fn wrap_move(kind: MoveKind) -> v1::Move {
    v1::Move { game: Some(v1::r#move::Game::Hexspiel(v1::HexspielMove { kind: Some(kind) })) }
}

fn bid(card: i64) -> v1::Move {
    wrap_move(MoveKind::Bid(card))
}

/// A Hex turn placing `place` and declaring `pattern`, cells a1 first as the rules list them.
fn turn(place: &[usize], pattern: Option<(Pk, &[usize])>) -> v1::Move {
    let names = |cells: &[usize]| {
        let mut c = cells.to_vec();
        c.sort_unstable();
        c.into_iter().map(cell_name).collect::<Vec<_>>()
    };
    wrap_move(MoveKind::Hex(v1::HexspielHexTurn {
        place: names(place),
        pattern: pattern
            .map(|(kind, cells)| v1::HexspielPattern { kind: kind as i32, cells: names(cells) }),
    }))
}

// ---- cells and patterns ----

/// 0-based (column, row) of cell index `i` (a1 = 0, b1 = 1, a2 = 8).
fn col_row(i: usize) -> (i32, i32) {
    ((i % 8) as i32, (i / 8) as i32)
}

fn at(col: i32, row: i32) -> Option<usize> {
    ((0..SIDE).contains(&col) && (0..SIDE).contains(&row)).then(|| (row * SIDE + col) as usize)
}

fn cell_name(i: usize) -> String {
    let (c, r) = col_row(i);
    format!("{}{}", char::from(b'a' + c as u8), r + 1)
}

/// What a typed word is as a cell: `Ok(Some(i))` on the board, `Ok(None)` not a cell
/// at all, `Err` a cell off the board.
fn cell_of(word: &str) -> Result<Option<usize>, String> {
    let mut chars = word.chars();
    let Some(letter) = chars.next().filter(char::is_ascii_lowercase) else { return Ok(None) };
    let digits = chars.as_str();
    if digits.is_empty() || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Ok(None);
    }
    let row: i32 = digits.parse().unwrap_or(0);
    at(i32::from(letter as u8 - b'a'), row - 1)
        .map(Some)
        .ok_or_else(|| format!("{word} is off the board (a1 to h8)"))
}

/// A cell parsed from the view or a move (`None` for anything malformed).
fn parse_cell(name: &str) -> Option<usize> {
    cell_of(name).ok().flatten()
}

fn cells_of(names: &[String]) -> Vec<usize> {
    let mut c: Vec<usize> = names.iter().filter_map(|n| parse_cell(n)).collect();
    c.sort_unstable();
    c
}

fn step(i: usize, d: usize, k: i32) -> Option<usize> {
    let (c, r) = col_row(i);
    let (dc, dr) = DIRS[d % 6];
    at(c + dc * k, r + dr * k)
}

/// The six cells around `centre`, if all are on the board.
fn ring_around(centre: usize) -> Option<Vec<usize>> {
    (0..6).map(|d| step(centre, d, 1)).collect()
}

/// The five cells in a straight line from `a` to `b`, if they are four steps apart.
fn row_between(a: usize, b: usize) -> Option<Vec<usize>> {
    let ((ac, ar), (bc, br)) = (col_row(a), col_row(b));
    let d = DIRS.iter().position(|&(dc, dr)| (ac + 4 * dc, ar + 4 * dr) == (bc, br))?;
    (0..5).map(|k| step(a, d, k)).collect()
}

/// The Y of seven centred on `centre`: arms east, south-west and north-west (`east`), or
/// west, south-east and north-east.
fn y_around(centre: usize, east: bool) -> Option<Vec<usize>> {
    let first = if east { 0 } else { 1 };
    let mut cells = vec![centre];
    for arm in [first, first + 2, first + 4] {
        for k in 1..=2 {
            cells.push(step(centre, arm, k)?);
        }
    }
    Some(cells)
}

/// The middle of a ring or a Y: the mean of its cells.
fn centre_of(cells: &[usize]) -> Option<usize> {
    let n = i32::try_from(cells.len()).ok().filter(|n| *n > 0)?;
    let (c, r) = cells.iter().fold((0, 0), |(c, r), i| {
        let (ci, ri) = col_row(*i);
        (c + ci, r + ri)
    });
    at(c / n, r / n)
}

fn same_cells(a: &[usize], b: &[usize]) -> bool {
    let (mut a, mut b) = (a.to_vec(), b.to_vec());
    a.sort_unstable();
    b.sort_unstable();
    a == b
}

/// Whether a Y's arm runs east from its centre.
fn y_east(cells: &[usize]) -> bool {
    centre_of(cells).and_then(|c| step(c, 0, 1)).is_some_and(|e| cells.contains(&e))
}

/// A known pattern kind (not the unset value).
fn pattern_kind(k: i32) -> Option<Pk> {
    match Pk::try_from(k) {
        Ok(k @ (Pk::Row5 | Pk::Ring6 | Pk::Y7)) => Some(k),
        Ok(Pk::Unspecified) | Err(_) => None,
    }
}

/// The word typed for a pattern kind.
fn kind_word(k: Pk) -> &'static str {
    match k {
        Pk::Row5 => "row",
        Pk::Ring6 => "ring",
        Pk::Y7 => "y",
        Pk::Unspecified => "pattern",
    }
}

/// The pattern's name in a sentence.
fn pattern_name(k: Pk) -> &'static str {
    match k {
        Pk::Row5 => "5 in a row",
        Pk::Ring6 => "ring of 6",
        Pk::Y7 => "Y of 7",
        Pk::Unspecified => "pattern",
    }
}

/// The card a pattern upgrades and its new effect.
fn upgrade(k: Pk) -> Option<(u32, &'static str)> {
    match k {
        Pk::Row5 => Some((4, "+4 AP if it wins")),
        Pk::Ring6 => Some((9, "-1 AP if it wins")),
        Pk::Y7 => Some((2, "+1 AP when played")),
        Pk::Unspecified => None,
    }
}

/// A bidding card's effect for a seat with `upgrades`, if it has one.
fn effect(card: u32, upgrades: &[i32]) -> Option<&'static str> {
    let upgraded = upgrades.iter().filter_map(|k| upgrade(pattern_kind(*k)?));
    if let Some((_, e)) = upgraded.into_iter().find(|(c, _)| *c == card) {
        return Some(e);
    }
    match card {
        1 => Some("+1 AP when played"),
        8 => Some("-1 AP if it wins"),
        9 => Some("-2 AP if it wins"),
        _ => None,
    }
}

/// A pattern's short name, as typed after the stones: `row c3-g3`, `ring d4`, `y d4 east`
/// (the full list of cells when the cells are not the shape).
fn shorthand(kind: Pk, cells: &[usize]) -> String {
    let mut sorted = cells.to_vec();
    sorted.sort_unstable();
    let short = match kind {
        Pk::Row5 => match (sorted.first(), sorted.last()) {
            (Some(&a), Some(&b)) if row_between(a, b).is_some_and(|r| same_cells(&r, cells)) => {
                Some(format!("row {}-{}", cell_name(a), cell_name(b)))
            }
            _ => None,
        },
        Pk::Ring6 => centre_of(cells)
            .filter(|c| ring_around(*c).is_some_and(|r| same_cells(&r, cells)))
            .map(|c| format!("ring {}", cell_name(c))),
        Pk::Y7 => {
            let east = y_east(cells);
            centre_of(cells)
                .filter(|c| y_around(*c, east).is_some_and(|y| same_cells(&y, cells)))
                .map(|c| format!("y {} {}", cell_name(c), if east { "east" } else { "west" }))
        }
        Pk::Unspecified => None,
    };
    short.unwrap_or_else(|| {
        let names: Vec<String> = sorted.into_iter().map(cell_name).collect();
        format!("{} {}", kind_word(kind), names.join(" "))
    })
}

/// Who owns each cell.
fn owners(v: &v1::HexspielView) -> [Option<u32>; 64] {
    let mut owner = [None; 64];
    for (seat, stones) in [(0, &v.stones0), (1, &v.stones1)] {
        for i in cells_of(stones) {
            owner[i] = Some(seat);
        }
    }
    owner
}

/// Whether `seat`'s stones join its two sides (seat 0 rows 1 and 8, seat 1 columns a and h).
fn joined(owner: &[Option<u32>; 64], seat: u32) -> bool {
    let edge = |i: usize, far: bool| {
        let (c, r) = col_row(i);
        let k = if seat == 0 { r } else { c };
        k == if far { SIDE - 1 } else { 0 }
    };
    let mut seen = [false; 64];
    let mut todo: Vec<usize> =
        (0..64).filter(|&i| owner[i] == Some(seat) && edge(i, false)).collect();
    for &i in &todo {
        seen[i] = true;
    }
    while let Some(i) = todo.pop() {
        if edge(i, true) {
            return true;
        }
        for d in 0..6 {
            if let Some(n) = step(i, d, 1).filter(|n| owner[*n] == Some(seat) && !seen[*n]) {
                seen[n] = true;
                todo.push(n);
            }
        }
    }
    false
}

/// The viewer's seat as the board draws it (X); a spectator sees seat 0 as X.
fn x_seat(names: &Names) -> u32 {
    names.me.unwrap_or(0)
}

fn sides(seat: u32) -> &'static str {
    if seat == 0 { "rows 1 and 8" } else { "columns a and h" }
}

fn row_of(cards: &[u32]) -> String {
    if cards.is_empty() {
        return "none".into();
    }
    cards.iter().map(u32::to_string).collect::<Vec<_>>().join(" ")
}

/// The board: column letters above and below, row 8 on top and each row shifted half a
/// cell from the next so neighbours touch; `notes` beside the rows (top line first).
fn board(v: &v1::HexspielView, names: &Names, costs: bool, notes: &[String]) -> Vec<String> {
    let owner = owners(v);
    let x = x_seat(names);
    let letters = "a b c d e f g h";
    let mut lines = vec![format!("{:w$}{letters}", "", w = 3 + SIDE as usize - 1)];
    for row in (0..SIDE).rev() {
        let cells: Vec<String> = (0..SIDE)
            .map(|col| {
                let i = at(col, row).unwrap_or(0);
                match owner[i] {
                    Some(s) if s == x => "X".to_string(),
                    Some(_) => "O".to_string(),
                    None if costs => v
                        .costs
                        .get(i)
                        .and_then(|c| char::from_digit(*c, 10))
                        .map_or_else(|| ".".into(), String::from),
                    None => ".".to_string(),
                }
            })
            .collect();
        lines.push(format!(
            "{:>2} {:w$}{}  {}",
            row + 1,
            "",
            cells.join(" "),
            row + 1,
            w = row as usize
        ));
    }
    lines.push(format!("   {letters}"));
    lines
        .into_iter()
        .enumerate()
        .map(|(k, l)| match notes.get(k).filter(|n| !n.is_empty()) {
            Some(n) => cut(&format!("{l:<NOTES_AT$}{n}"), WIDTH),
            None => l.trim_end().to_string(),
        })
        .collect()
}

fn legend(names: &Names, costs: bool) -> Vec<String> {
    let x = x_seat(names);
    let mut notes = vec![
        String::new(),
        format!("X {}, joining {}", names.label(x), sides(x)),
        format!("O {}, joining {}", names.label(1 - x), sides(1 - x)),
    ];
    if costs {
        notes.push("a digit: an empty cell's AP cost".into());
    }
    notes
}

fn turn_of(v: &v1::HexspielView) -> Result<v1::HexspielTurn, i32> {
    v1::HexspielTurn::try_from(v.to_move).map_err(|_| v.to_move)
}

impl Hexspiel {
    fn phase_line(v: &v1::HexspielView, names: &Names) -> String {
        let set = format!("Set {}", v.set);
        match turn_of(v) {
            Ok(v1::HexspielTurn::Bid) => {
                let prize = v.prize.map_or_else(String::new, |p| {
                    let ap = PRIZE_AP
                        .get(p as usize - 1)
                        .map_or(String::new(), |a| format!(" (+{a} AP)"));
                    format!(" for the prize worth {p}{ap}")
                });
                format!("{set}, round {} of {ROUNDS}: both bid{prize}.", v.round + 1)
            }
            Ok(t @ (v1::HexspielTurn::HexSeat0 | v1::HexspielTurn::HexSeat1)) => {
                let s = u32::from(t == v1::HexspielTurn::HexSeat1);
                let what = if names.is_me(s) {
                    "you won the round; your Hex turn: place 0 to 2 stones".to_string()
                } else {
                    format!("{} won the round and places stones", names.obj(s))
                };
                format!("{set}, round {} of {ROUNDS}: {what}.", v.round)
            }
            Ok(v1::HexspielTurn::Over) => {
                format!(
                    "The match is over ({}, round {} of {ROUNDS}).",
                    set.to_lowercase(),
                    v.round
                )
            }
            Ok(v1::HexspielTurn::Unspecified) | Err(_) => {
                format!("{set}, round {} of {ROUNDS}.", v.round)
            }
        }
    }

    fn bids_line(v: &v1::HexspielView, names: &Names) -> Option<String> {
        if turn_of(v) != Ok(v1::HexspielTurn::Bid) {
            return None;
        }
        let parts: Vec<String> = names
            .order()
            .iter()
            .map(|&s| match (v.moved.contains(&s), names.is_me(s)) {
                (true, true) => match v.my_bid {
                    Some(b) => format!("You sealed your {b}."),
                    None => "You have bid.".into(),
                },
                (true, false) => format!("{} has bid.", names.subj(s)),
                (false, me) => {
                    format!("{} {} not bid yet.", names.subj(s), if me { "have" } else { "has" })
                }
            })
            .collect();
        Some(parts.join(" "))
    }

    fn last_line(v: &v1::HexspielView, names: &Names) -> Option<String> {
        let l = v.last.as_ref()?;
        let [a, b] = names.order();
        let bids = |s| of_seat(l.bids.as_ref(), s);
        let late = if l.late.is_empty() {
            String::new()
        } else {
            let who: Vec<String> = l.late.iter().map(|s| names.obj(*s)).collect();
            format!(" ({} missed the deadline)", who.join(" and "))
        };
        let result = match l.winner {
            Some(w) => format!("{} won the worth-{} prize", names.obj(w), l.prize),
            None => format!("a tie for the worth-{} prize", l.prize),
        };
        Some(format!(
            "Last round: {} bid {}, {} bid {}{late}: {result}.",
            names.obj(a),
            bids(a),
            names.obj(b),
            bids(b)
        ))
    }

    fn patterns_line(v: &v1::HexspielView, names: &Names) -> String {
        let of = |s: u32| {
            let ups = if s == 0 { &v.upgrades0 } else { &v.upgrades1 };
            let named: Vec<&str> =
                ups.iter().filter_map(|k| pattern_kind(*k)).map(pattern_name).collect();
            let list = if named.is_empty() { "none".to_string() } else { named.join(", ") };
            format!("{} {list}", names.obj(s))
        };
        let [a, b] = names.order();
        format!("Patterns claimed: {}; {}.", of(a), of(b))
    }

    /// The legal Hex turns among `legal`, as (place, pattern) cell lists.
    fn turns(legal: &[v1::Move]) -> Vec<HexTurn<'_>> {
        legal
            .iter()
            .filter_map(|m| match hex_move(m)? {
                MoveKind::Hex(t) => {
                    let pattern = t
                        .pattern
                        .as_ref()
                        .and_then(|p| Some((pattern_kind(p.kind)?, cells_of(&p.cells))));
                    Some((m, cells_of(&t.place), pattern))
                }
                MoveKind::Bid(_) => None,
            })
            .collect()
    }

    fn bids(legal: &[v1::Move]) -> Vec<i64> {
        legal
            .iter()
            .filter_map(|m| match hex_move(m)? {
                MoveKind::Bid(b) => Some(*b),
                MoveKind::Hex(_) => None,
            })
            .collect()
    }

    fn resolve(&self, typed: Typed, legal: &[v1::Move]) -> Result<v1::Move, String> {
        let bids = Self::bids(legal);
        let turns = Self::turns(legal);
        let cards =
            || row_of(&bids.iter().filter_map(|b| u32::try_from(*b).ok()).collect::<Vec<_>>());
        match typed {
            Typed::Bid(c) => {
                if legal.is_empty() || bids.contains(&c) {
                    Ok(bid(c))
                } else if bids.is_empty() {
                    Err("it is your Hex turn, not a bid: type cells (c3 d4), or pass".into())
                } else {
                    Err(format!("{c} is not in your hand: you hold {}", cards()))
                }
            }
            Typed::Hex { place, pattern } => {
                if legal.is_empty() {
                    let pattern = match pattern {
                        None => None,
                        Some(p) => Some((p.kind, p.instance()?)),
                    };
                    return Ok(turn(&place, pattern.as_ref().map(|(k, c)| (*k, c.as_slice()))));
                }
                if turns.is_empty() {
                    return Err(format!(
                        "a bid is owed now, not stones: type a card ({})",
                        cards()
                    ));
                }
                let same: Vec<_> = turns.iter().filter(|(_, p, _)| same_cells(p, &place)).collect();
                if same.is_empty() {
                    return Err(Self::why_not(&place, &turns));
                }
                let Some(spec) = pattern else {
                    return same
                        .iter()
                        .find(|(_, _, p)| p.is_none())
                        .map(|(m, _, _)| (*m).clone())
                        .ok_or_else(|| "those stones need a pattern with them".into());
                };
                let fits: Vec<_> = same
                    .iter()
                    .filter(|(_, _, p)| p.as_ref().is_some_and(|(k, c)| spec.matches(*k, c)))
                    .collect();
                match fits.as_slice() {
                    [(m, _, _)] => Ok((*m).clone()),
                    [] => {
                        let open: Vec<String> = same
                            .iter()
                            .filter_map(|(_, _, p)| p.as_ref().map(|(k, c)| shorthand(*k, c)))
                            .collect();
                        if open.is_empty() {
                            Err("no pattern you may claim is complete with those stones".into())
                        } else {
                            Err(format!(
                                "not a pattern you may claim now; you may: {}",
                                open.join(", ")
                            ))
                        }
                    }
                    many => {
                        let names: Vec<String> = many
                            .iter()
                            .filter_map(|(_, _, p)| p.as_ref().map(|(k, c)| shorthand(*k, c)))
                            .collect();
                        Err(format!("which one? {}", names.join(" or ")))
                    }
                }
            }
        }
    }

    /// Why no legal Hex turn places exactly `place`.
    fn why_not(place: &[usize], turns: &[HexTurn<'_>]) -> String {
        let open = |i: &usize| turns.iter().any(|(_, p, _)| p.contains(i));
        if let Some(c) = place.iter().find(|c| !open(c)) {
            return format!("{} is taken or costs more AP than you have", cell_name(*c));
        }
        if place.len() < 2 && !turns.iter().any(|(_, p, _)| p.len() == place.len()) {
            return "you must place 2 stones: fewer would leave you over the AP cap".into();
        }
        let named: Vec<String> = place.iter().map(|c| cell_name(*c)).collect();
        format!("{} together cost more AP than you have", named.join(" and "))
    }
}

/// A pattern as typed: its kind, the cells named after it, and east or west for a Y.
#[derive(Debug, PartialEq)]
struct PatternSpec {
    kind: Pk,
    cells: Vec<usize>,
    east: Option<bool>,
}

impl PatternSpec {
    /// Whether the pattern `kind` on `cells` is the one typed.
    fn matches(&self, kind: Pk, cells: &[usize]) -> bool {
        if kind != self.kind {
            return false;
        }
        let east_ok = self.east.is_none_or(|e| kind == Pk::Y7 && e == y_east(cells));
        let given = self.cells.as_slice();
        let ends = [cells.first(), cells.last()];
        let named = given.is_empty()
            || same_cells(given, cells)
            || ((kind == Pk::Ring6 || kind == Pk::Y7)
                && given.len() == 1
                && centre_of(cells) == Some(given[0]))
            || (kind == Pk::Row5
                && given.len() == 2
                && ends.iter().all(|e| e.is_some_and(|e| given.contains(e))));
        east_ok && named
    }

    /// The cells it names on its own (no legal moves to match against).
    fn instance(&self) -> Result<Vec<usize>, String> {
        let cells = match (self.kind, self.cells.as_slice()) {
            (Pk::Ring6, [c]) => ring_around(*c),
            (Pk::Row5, [a, b]) => row_between(*a.min(b), *a.max(b)),
            (Pk::Y7, [c]) => self.east.and_then(|e| y_around(*c, e)),
            (Pk::Row5 | Pk::Ring6 | Pk::Y7 | Pk::Unspecified, given) => {
                (given.len() > 2).then(|| given.to_vec())
            }
        };
        cells.ok_or_else(|| {
            "name the pattern in full: row c3-g3, ring d4 or y d4 east (or west)".into()
        })
    }
}

/// What a line says, before it is matched against the legal moves.
#[derive(Debug, PartialEq)]
enum Typed {
    Bid(i64),
    Hex { place: Vec<usize>, pattern: Option<PatternSpec> },
}

/// A word that starts a pattern.
fn keyword(w: &str) -> Option<Pk> {
    match w {
        "row" | "row5" | "line" | "five" => Some(Pk::Row5),
        "ring" | "ring6" | "six" => Some(Pk::Ring6),
        "y" | "y7" | "seven" => Some(Pk::Y7),
        _ => None,
    }
}

/// Cells written together (`c3d4`) or alone, as their names.
fn glued_cells(word: &str) -> Option<Vec<&str>> {
    let mut out = Vec::new();
    let mut rest = word;
    while !rest.is_empty() {
        let b = rest.as_bytes();
        if !b[0].is_ascii_lowercase() {
            return None;
        }
        let end = 1 + b[1..].iter().take_while(|c| c.is_ascii_digit()).count();
        if end == 1 {
            return None;
        }
        out.push(&rest[..end]);
        rest = &rest[end..];
    }
    (!out.is_empty()).then_some(out)
}

const HOW: &str = "bid: 5; stones: c3 d4, or pass; pattern after them: ring d4 (see help)";

/// Reads a line into a bid or a Hex turn (not yet checked against the legal moves).
fn parse(line: &str) -> Result<Typed, String> {
    let lower = line.to_lowercase();
    let spaced: String =
        lower.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { ' ' }).collect();
    let mut place: Vec<usize> = Vec::new();
    let mut pattern: Option<PatternSpec> = None;
    let mut number: Option<i64> = None;
    let mut pass = false;
    for word in spaced.split_whitespace() {
        if let Some(kind) = keyword(word) {
            if pattern.is_some() {
                return Err("one pattern at a time".into());
            }
            pattern = Some(PatternSpec { kind, cells: Vec::new(), east: None });
            continue;
        }
        match word {
            "place" | "play" | "put" | "stone" | "stones" | "and" | "then" | "with" | "at"
            | "declare" | "claim" | "pattern" | "bid" | "card" => continue,
            "pass" | "none" | "nothing" | "skip" | "no" => {
                pass = true;
                continue;
            }
            "east" | "e" | "right" | "west" | "w" | "left" => {
                let east = matches!(word, "east" | "e" | "right");
                match pattern.as_mut() {
                    Some(p) if p.kind == Pk::Y7 => p.east = Some(east),
                    _ => return Err(format!("{word} only turns a Y: y d4 east, y d4 west")),
                }
                continue;
            }
            _ => {}
        }
        if word.chars().all(|c| c.is_ascii_digit()) {
            if number.is_some() {
                return Err("one card at a time".into());
            }
            number = Some(word.parse().map_err(|_| format!("{} is no card", cut(word, 12)))?);
            continue;
        }
        let Some(parts) = glued_cells(word) else {
            return Err(format!("{} is neither a card nor a cell ({HOW})", cut(word, 12)));
        };
        for part in parts {
            let Some(c) = cell_of(part)? else {
                return Err(format!("{} is no cell ({HOW})", cut(part, 12)));
            };
            let list = match pattern.as_mut() {
                Some(p) => &mut p.cells,
                None => &mut place,
            };
            if list.contains(&c) {
                return Err(format!("{part} is named twice"));
            }
            list.push(c);
        }
    }
    if let Some(n) = number {
        if !place.is_empty() || pattern.is_some() || pass {
            return Err("a bid is a card alone; stones are cells alone".into());
        }
        return Ok(Typed::Bid(n));
    }
    if place.len() > 2 {
        return Err(format!("a Hex turn places at most 2 stones, not {}", place.len()));
    }
    if pass && !place.is_empty() {
        return Err("pass places no stone: type cells, or pass".into());
    }
    if place.is_empty() && pattern.is_none() && !pass {
        return Err(format!("nothing to play ({HOW})"));
    }
    place.sort_unstable();
    Ok(Typed::Hex { place, pattern })
}

impl Face for Hexspiel {
    fn how_to_move(&self) -> &'static str {
        HOW
    }

    fn status(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Hexspiel view)".into()] };
        let mut out = vec![Self::phase_line(v, names)];
        out.extend(Self::bids_line(v, names));
        let mut notes = legend(names, true);
        notes.push(String::new());
        notes.push(format!("AP: {}", both(v.ap.as_ref(), names)));
        notes.push(format!("(keep at most {} unless placing 2)", v.ap_cap));
        notes.push(format!("Worth this set: {}", both(v.worth.as_ref(), names)));
        notes.push(format!("(the higher wins {} AP at its end)", v.set_bonus));
        out.extend(board(v, names, true, &notes));
        let played = |s: u32| values(if s == 0 { v.played0.as_ref() } else { v.played1.as_ref() });
        for s in names.order() {
            if names.is_me(s) {
                let hand = values(v.hand.as_ref());
                let sealed =
                    v.my_bid.map_or_else(String::new, |b| format!(" (your {b} is sealed)"));
                out.push(format!("Your cards: {}{sealed}", row_of(hand)));
                let ups = if s == 0 { &v.upgrades0 } else { &v.upgrades1 };
                let effects: Vec<String> = hand
                    .iter()
                    .chain(v.my_bid.iter())
                    .filter_map(|c| effect(*c, ups).map(|e| format!("{c} {e}")))
                    .collect();
                if !effects.is_empty() {
                    out.extend(wrap("Card effects: ", &effects, "; "));
                }
            } else {
                let left: Vec<u32> = (1..=9).filter(|c| !played(s).contains(c)).collect();
                out.push(format!(
                    "{} played {} this set, so {} {}.",
                    names.subj(s),
                    row_of(played(s)),
                    names.verb(s, "hold", "holds"),
                    row_of(&left)
                ));
            }
        }
        let left = values(v.prizes_left.as_ref());
        if !left.is_empty() {
            out.push(format!("Prizes to come this set (order hidden): {}", row_of(left)));
        }
        out.push(Self::patterns_line(v, names));
        out.extend(Self::last_line(v, names));
        out.into_iter().map(|l| cut(&l, WIDTH)).collect()
    }

    fn narrate(&mut self, event: &v1::Event, names: &Names) -> Option<String> {
        let v1::event::Kind::Hexspiel(h) = event.kind.as_ref()? else { return None };
        let [a, b] = names.order();
        match h.kind.as_ref()? {
            Kind::Setup(s) => {
                let x = x_seat(names);
                Some(format!(
                    "Hexspiel: {} (X) {} {}; {} (O) {} {}. Each starts with {} AP, may keep at \
                     most {} unless placing 2 stones; set bonus {} AP.",
                    names.subj(x),
                    names.verb(x, "join", "joins"),
                    sides(x),
                    names.obj(1 - x),
                    names.verb(1 - x, "join", "joins"),
                    sides(1 - x),
                    s.start_ap,
                    s.ap_cap,
                    s.set_bonus
                ))
            }
            Kind::SetStarted(s) => {
                self.set = s.set;
                Some(format!(
                    "Set {} begins: the prizes are reshuffled and the bidding cards return to hand.",
                    s.set
                ))
            }
            Kind::RoundStarted(r) => {
                self.set = r.set;
                self.prize = r.prize;
                Some(format!(
                    "Set {}, round {}: the prize is worth {} and carries {} AP.",
                    r.set, r.round, r.prize, r.prize_ap
                ))
            }
            Kind::Moved(m) => {
                (!names.is_me(m.seat)).then(|| format!("{} sealed a bid.", names.subj(m.seat)))
            }
            Kind::BidSealed(b) => Some(format!("You bid your {}.", b.card)),
            Kind::Revealed(r) => {
                let bids = |s| of_seat(r.bids.as_ref(), s);
                let gained = |s| of_seat(r.gained.as_ref(), s);
                let result = match r.winner {
                    Some(w) => format!(
                        "{} won the worth-{} prize (+{} AP) and the Hex turn",
                        names.obj(w),
                        self.prize,
                        gained(w)
                    ),
                    None if gained(0) == gained(1) => format!(
                        "a tie: the prize's AP is shared (+{} each) and nobody places stones",
                        gained(0)
                    ),
                    None => format!(
                        "a tie: the prize's AP is shared ({} +{}, {} +{}) and nobody places stones",
                        names.obj(a),
                        gained(a),
                        names.obj(b),
                        gained(b)
                    ),
                };
                let late: String = r
                    .late
                    .iter()
                    .map(|s| {
                        format!(
                            " {} missed the deadline: a random card was played.",
                            names.subj(*s)
                        )
                    })
                    .collect();
                Some(format!(
                    "Round {}: {} bid {}, {} bid {}: {result}.{late} AP: {}.",
                    r.round,
                    names.obj(a),
                    bids(a),
                    names.obj(b),
                    bids(b),
                    both(r.ap.as_ref(), names)
                ))
            }
            Kind::SetBonus(s) => {
                let w = |seat| of_seat(s.worth.as_ref(), seat);
                Some(match s.seat {
                    Some(best) => format!(
                        "End of set {}: {} won more worth ({} to {}) and {} the {} AP bonus.",
                        self.set,
                        names.obj(best),
                        w(best),
                        w(1 - best),
                        names.verb(best, "get", "gets"),
                        s.bonus
                    ),
                    None => {
                        format!("End of set {}: equal worth ({} each), no bonus.", self.set, w(0))
                    }
                })
            }
            Kind::HexTurn(t) => {
                Some(format!("{} may now place up to 2 stones.", names.subj(t.seat)))
            }
            Kind::Placed(p) => {
                let cells: Vec<String> = cells_of(&p.cells).into_iter().map(cell_name).collect();
                Some(if cells.is_empty() {
                    format!("{} placed no stone ({} AP kept).", names.subj(p.seat), p.ap)
                } else {
                    format!(
                        "{} placed {} for {} AP ({} left).",
                        names.subj(p.seat),
                        cells.join(" and "),
                        p.cost,
                        p.ap
                    )
                })
            }
            Kind::PatternClaimed(c) => {
                let kind = pattern_kind(c.kind).unwrap_or(Pk::Unspecified);
                let effect = upgrade(kind).map_or_else(String::new, |(_, e)| format!(": {e}"));
                Some(format!(
                    "{} declared a {} ({}) and upgraded {} {} card{effect}.",
                    names.subj(c.seat),
                    pattern_name(kind),
                    shorthand(kind, &cells_of(&c.cells)),
                    names.verb(c.seat, "your", "their"),
                    c.card
                ))
            }
            Kind::HexMissed(m) => Some(if m.over_cap {
                format!(
                    "{} missed the Hex turn holding {} AP, over the cap, and {}.",
                    names.subj(m.seat),
                    m.ap,
                    names.verb(m.seat, "lose", "loses")
                )
            } else {
                format!("{} missed the Hex turn: no stone placed.", names.subj(m.seat))
            }),
            Kind::Connected(c) => Some(format!("{} joined {}.", names.subj(c.seat), sides(c.seat))),
        }
    }

    fn spell(&self, mv: &v1::Move) -> String {
        match hex_move(mv) {
            Some(MoveKind::Bid(b)) => b.to_string(),
            Some(MoveKind::Hex(t)) => {
                let mut words: Vec<String> = t.place.clone();
                if let Some(p) = &t.pattern {
                    let kind = pattern_kind(p.kind).unwrap_or(Pk::Unspecified);
                    words.push(shorthand(kind, &cells_of(&p.cells)));
                }
                if words.is_empty() { "pass".into() } else { words.join(" ") }
            }
            None => "?".into(),
        }
    }

    fn help(&self, legal: &[v1::Move]) -> Vec<String> {
        let bids = Self::bids(legal);
        let mut out = Vec::new();
        if !bids.is_empty() {
            let cards: Vec<String> = bids.iter().map(i64::to_string).collect();
            out.extend(wrap("Your cards (type one to bid): ", &cards, " "));
        }
        let turns = Self::turns(legal);
        if turns.is_empty() {
            return out;
        }
        out.push("Your Hex turn: type up to 2 cells (c3 d4), or pass.".into());
        let plain: Vec<&Vec<usize>> =
            turns.iter().filter(|(_, _, p)| p.is_none()).map(|(_, place, _)| place).collect();
        let mut open: Vec<usize> = plain.iter().flat_map(|p| p.iter().copied()).collect();
        open.sort_unstable();
        open.dedup();
        let names = |cells: &[usize]| cells.iter().map(|c| cell_name(*c)).collect::<Vec<_>>();
        if open.len() > 32 {
            let shut: Vec<usize> = (0..64).filter(|c| !open.contains(c)).collect();
            out.extend(wrap("Open cells: all but ", &names(&shut), " "));
            out.push("  (those are taken, or cost more AP than you have)".into());
        } else if !open.is_empty() {
            out.extend(wrap("Open cells: ", &names(&open), " "));
        }
        let singles: Vec<usize> = plain.iter().filter(|p| p.len() == 1).map(|p| p[0]).collect();
        let pairs = plain.iter().filter(|p| p.len() == 2).count();
        if singles.len() == open.len() && !open.is_empty() {
            out.push("One stone: any open cell.".into());
        } else if singles.is_empty() && pairs > 0 {
            out.push("Place 2 stones: fewer would leave you over the AP cap.".into());
        } else if !singles.is_empty() {
            out.extend(wrap("One stone: ", &names(&singles), " "));
        }
        if pairs > 0 && pairs == open.len() * (open.len() - 1) / 2 {
            out.push("Two stones: any 2 open cells.".into());
        } else if pairs > 0 {
            out.push(format!("Two stones: {} pairs of open cells fit your AP.", pairs));
        }
        if plain.iter().any(|p| p.is_empty()) {
            out.push("pass: place no stone.".into());
        }
        // Each pattern once, with the stones it still needs (in every turn declaring it).
        let mut patterns: Vec<(String, Vec<usize>, &v1::Move)> = Vec::new();
        for (mv, place, p) in &turns {
            if let Some((k, c)) = p {
                let short = shorthand(*k, c);
                match patterns.iter_mut().find(|(s, _, _)| *s == short) {
                    Some((_, needs, _)) => needs.retain(|n| place.contains(n)),
                    None => patterns.push((short, place.clone(), mv)),
                }
            }
        }
        if let Some((_, _, example)) = patterns.first() {
            let listed: Vec<String> = patterns
                .iter()
                .map(|(s, needs, _)| {
                    if needs.is_empty() {
                        format!("{s} (complete)")
                    } else {
                        format!("{s} (needs {})", names(needs).join(" "))
                    }
                })
                .collect();
            out.extend(wrap("Patterns you may declare: ", &listed, ", "));
            let typed = format!("  Type the stones, then the pattern: {}", self.spell(example));
            out.push(cut(&typed, WIDTH));
            out.push(
                "  (a row by its two ends, a ring by its centre, a y by its centre and".into(),
            );
            out.push("  the way its flat arm runs: east or west)".into());
        }
        out
    }

    fn read(&self, line: &str, legal: &[v1::Move]) -> Result<v1::Move, String> {
        self.resolve(parse(line)?, legal)
    }

    fn final_board(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Hexspiel view)".into()] };
        let owner = owners(v);
        let mut notes = legend(names, false);
        notes.push(String::new());
        let [a, b] = names.order();
        let stones = |s: u32| owner.iter().filter(|o| **o == Some(s)).count();
        notes.push(format!(
            "Stones: {} {}, {} {}",
            names.obj(a),
            stones(a),
            names.obj(b),
            stones(b)
        ));
        notes.push(format!("AP left: {}", both(v.ap.as_ref(), names)));
        notes.push(format!("Set {}, round {} of {ROUNDS}", v.set, v.round));
        let mut out = board(v, names, false, &notes);
        for s in names.order() {
            if joined(&owner, s) {
                out.push(format!("{} joined {}.", names.subj(s), sides(s)));
            }
        }
        out.push(Self::patterns_line(v, names));
        out.into_iter().map(|l| cut(&l, WIDTH)).collect()
    }

    fn score(&self, v: &v1::View) -> Option<[String; 2]> {
        let v = view(v)?;
        let owner = owners(v);
        let of = |s: u32| {
            let n = owner.iter().filter(|o| **o == Some(s)).count() as i64;
            let stones = plural(n, "stone");
            if joined(&owner, s) { format!("joined, {stones}") } else { stones }
        };
        Some([of(0), of(1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(name: &str) -> usize {
        parse_cell(name).expect("a cell")
    }

    fn place(cells: &[&str]) -> v1::Move {
        turn(&cells.iter().map(|n| c(n)).collect::<Vec<_>>(), None)
    }

    fn with(cells: &[&str], kind: Pk, pattern: &[usize]) -> v1::Move {
        turn(&cells.iter().map(|n| c(n)).collect::<Vec<_>>(), Some((kind, pattern)))
    }

    #[test]
    fn bids_and_stones_read_in_any_friendly_form() {
        let f = Hexspiel::default();
        let bids: Vec<v1::Move> = [1, 2, 5, 9].into_iter().map(bid).collect();
        assert_eq!(f.read("5", &bids), Ok(bid(5)));
        assert_eq!(f.read("bid 9", &bids), Ok(bid(9)));
        assert_eq!(f.read("4", &bids).unwrap_err(), "4 is not in your hand: you hold 1 2 5 9");
        assert!(f.read("c3", &bids).unwrap_err().contains("a bid is owed"));

        let legal = vec![place(&[]), place(&["c3"]), place(&["d4"]), place(&["c3", "d4"])];
        for typed in ["c3 d4", "d4 c3", "place c3 d4", "C3,D4", "c3d4", "Place C3 and D4"] {
            assert_eq!(f.read(typed, &legal), Ok(place(&["c3", "d4"])), "{typed}");
        }
        assert_eq!(f.read("pass", &legal), Ok(place(&[])));
        assert_eq!(f.read("d4", &legal), Ok(place(&["d4"])));
        assert!(f.read("e5", &legal).unwrap_err().contains("e5 is taken"));
        assert!(f.read("i3", &legal).unwrap_err().contains("off the board"));
        assert!(f.read("c3 d4 e5", &legal).unwrap_err().contains("at most 2"));
        assert!(f.read("5", &legal).unwrap_err().contains("Hex turn"));
    }

    #[test]
    fn patterns_read_by_their_short_names() {
        let f = Hexspiel::default();
        let ring = ring_around(c("d4")).expect("a ring");
        let ring2 = ring_around(c("e4")).expect("a ring");
        let row = row_between(c("c3"), c("g3")).expect("a row");
        let y = y_around(c("d4"), true).expect("a Y");
        assert_eq!(y.len(), 7);
        let legal = vec![
            place(&["c4", "d3"]),
            with(&["c4", "d3"], Pk::Ring6, &ring),
            with(&["c4", "d3"], Pk::Ring6, &ring2),
            with(&["c4", "d3"], Pk::Y7, &y),
            place(&["c3"]),
            with(&["c3"], Pk::Row5, &row),
        ];
        assert_eq!(f.read("c4 d3", &legal), Ok(legal[0].clone()));
        assert_eq!(f.read("c4 d3 ring d4", &legal), Ok(legal[1].clone()));
        assert_eq!(f.read("D3 C4 + RING E4", &legal), Ok(legal[2].clone()));
        assert_eq!(f.read("c4 d3 y", &legal), Ok(legal[3].clone()));
        assert_eq!(f.read("c4 d3 y d4 east", &legal), Ok(legal[3].clone()));
        assert!(f.read("c4 d3 y d4 west", &legal).is_err());
        assert_eq!(f.read("c4 d3 ring", &legal).unwrap_err(), "which one? ring d4 or ring e4");
        assert_eq!(f.read("c3 row", &legal), Ok(legal[5].clone()));
        assert_eq!(f.read("c3 row c3-g3", &legal), Ok(legal[5].clone()));
        assert_eq!(f.read("c3 row5 g3 c3", &legal), Ok(legal[5].clone()));
        assert_eq!(f.read("c3 row c3 d3 e3 f3 g3", &legal), Ok(legal[5].clone()));
        for mv in &legal {
            assert_eq!(f.read(&f.spell(mv), &legal).as_ref(), Ok(mv), "{}", f.spell(mv));
        }
        assert_eq!(f.spell(&legal[3]), "d3 c4 y d4 east");
        assert_eq!(f.spell(&legal[5]), "c3 row c3-g3");
        // Without legal moves to match, the short names still name whole patterns.
        assert_eq!(f.read("c4 d3 ring d4", &[]), Ok(legal[1].clone()));
        assert_eq!(f.read("c3 row g3-c3", &[]), Ok(legal[5].clone()));
    }

    #[test]
    fn a_reveal_reads_from_the_viewers_side() {
        let mut f = Hexspiel::default();
        let names = Names::new(Some(1), "The strong bot");
        let ev = |k| v1::Event {
            kind: Some(v1::event::Kind::Hexspiel(v1::HexspielEvent { kind: Some(k) })),
        };
        let pair = |a, b| Some(v1::SeatPair { seat0: a, seat1: b });
        f.narrate(
            &ev(Kind::RoundStarted(v1::HexspielRoundStarted {
                set: 2,
                round: 3,
                prize: 5,
                prize_ap: 5,
            })),
            &names,
        );
        let line = f.narrate(
            &ev(Kind::Revealed(v1::HexspielRevealed {
                round: 3,
                bids: pair(4, 7),
                late: vec![],
                winner: Some(1),
                gained: pair(0, 5),
                ap: pair(6, 17),
                worth: pair(0, 5),
            })),
            &names,
        );
        assert_eq!(
            line.as_deref(),
            Some(
                "Round 3: you bid 7, the strong bot bid 4: you won the worth-5 prize (+5 AP) \
                 and the Hex turn. AP: you 17, the strong bot 6."
            )
        );
        let claimed = f.narrate(
            &ev(Kind::PatternClaimed(v1::HexspielPatternClaimed {
                seat: 0,
                kind: Pk::Ring6 as i32,
                cells: ring_around(c("d4")).unwrap().into_iter().map(cell_name).collect(),
                card: 9,
            })),
            &names,
        );
        assert_eq!(
            claimed.as_deref(),
            Some(
                "The strong bot declared a ring of 6 (ring d4) and upgraded their 9 card: -1 AP \
                 if it wins."
            )
        );
    }
}
