//! Cure & Plague in the terminal: the grid of the game being played with x across and y
//! up (H a human, h one the plague would kill, C a cure, P a plague, p a neutralized
//! plague; the last tile in brackets), the roles (Cure saves humans, Plague infects
//! them; they swap for game 2), the score the board would have now, items, reserve time,
//! whose tile is owed and the finished games.
//!
//! A tile is typed as its three cells, human, cure and plague, x then y each:
//! `h -1 1 c 0 1 p 1 1` (labels `h`/`human`, `c`/`cure`, `p`/`plague`, in any order and
//! case, commas and brackets welcome: `H(-1,1) C(0,1) P(1,1)`), or six bare numbers in
//! that order (`-1 1 0 1 1 1`). Two labelled cells do when only one tile fits them
//! (`c 0 1 h -1 1`). An item goes last, by any unique start of its name: `permute`,
//! `transform`, `rush` (Force Rush).

use super::{Face, Names, WIDTH, cut, plural, wrap};
use api::v1;
use std::collections::BTreeMap;
use v1::CurePlagueItem as Item;
use v1::cure_plague_event::Kind;

/// Tiles on the board at the end of a game, the start tile included.
const TILES: usize = 21;
/// The width of a row's y label ("  -3 ").
const LABEL: usize = 5;

type Xy = (i64, i64);

/// What covers a cell.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Piece {
    Human,
    Cure,
    Plague,
}

/// A board: what covers each cell.
#[derive(Default, Clone)]
struct Grid {
    cells: BTreeMap<Xy, Piece>,
}

impl Grid {
    fn of(tiles: &[v1::CurePlagueTile]) -> Grid {
        let mut g = Grid::default();
        for t in tiles {
            g.put(t);
        }
        g
    }

    fn put(&mut self, t: &v1::CurePlagueTile) {
        for (cell, piece) in
            [(&t.human, Piece::Human), (&t.cure, Piece::Cure), (&t.plague, Piece::Plague)]
        {
            self.cells.insert(xy(cell.as_ref()), piece);
        }
    }

    fn around((x, y): Xy) -> [Xy; 4] {
        [(x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)]
    }

    /// A plague with two or more cures beside it does nothing.
    fn neutralized(&self, at: Xy) -> bool {
        self.cells.get(&at) == Some(&Piece::Plague)
            && Self::around(at).iter().filter(|n| self.cells.get(n) == Some(&Piece::Cure)).count()
                >= 2
    }

    /// A human beside a live plague dies.
    fn dead(&self, at: Xy) -> bool {
        self.cells.get(&at) == Some(&Piece::Human)
            && Self::around(at)
                .iter()
                .any(|n| self.cells.get(n) == Some(&Piece::Plague) && !self.neutralized(*n))
    }

    /// Humans alive and plague cells neutralized.
    fn score(&self) -> (usize, usize) {
        let alive = self.cells.iter().filter(|(c, p)| **p == Piece::Human && !self.dead(**c));
        let neutral = self.cells.keys().filter(|c| self.neutralized(**c));
        (alive.count(), neutral.count())
    }

    fn glyph(&self, at: Xy) -> char {
        match self.cells.get(&at) {
            Some(Piece::Human) if self.dead(at) => 'h',
            Some(Piece::Human) => 'H',
            Some(Piece::Cure) => 'C',
            Some(Piece::Plague) if self.neutralized(at) => 'p',
            Some(Piece::Plague) => 'P',
            None => '.',
        }
    }

    /// The grid in text: x labels above, y labels on both sides, one cell out all round;
    /// the `last` tile's cells in brackets when there is room.
    fn draw(&self, last: &[Xy]) -> Vec<String> {
        if self.cells.is_empty() {
            return vec!["(an empty grid)".into()];
        }
        let xs = self.cells.keys().map(|c| c.0);
        let ys = self.cells.keys().map(|c| c.1);
        let (x0, x1) = (xs.clone().min().unwrap_or(0) - 1, xs.max().unwrap_or(0) + 1);
        let (y0, y1) = (ys.clone().min().unwrap_or(0) - 1, ys.max().unwrap_or(0) + 1);
        let columns = usize::try_from(x1 - x0 + 1).unwrap_or(usize::MAX);
        let room = WIDTH.saturating_sub(2 * LABEL);
        let w = [3, 2, 1].into_iter().find(|w| w * columns <= room).unwrap_or(1);
        let at = |x: i64| LABEL + usize::try_from(x - x0).unwrap_or(0) * w + usize::from(w == 3);
        // x labels: every fifth first, then any other that leaves a space on both sides.
        let mut head = vec![' '; LABEL + w * columns + 1];
        for fifth in [true, false] {
            for x in x0..=x1 {
                if (x % 5 == 0) != fifth {
                    continue;
                }
                let label: Vec<char> = x.to_string().chars().collect();
                let end = at(x);
                let Some(start) = (end + 1).checked_sub(label.len()) else { continue };
                let free = (start.saturating_sub(1)..=(end + 1).min(head.len() - 1))
                    .all(|i| head[i] == ' ');
                if free && start >= 1 {
                    head[start..=end].copy_from_slice(&label);
                }
            }
        }
        let head: String = head.into_iter().collect::<String>().trim_end().to_string();
        let mut out = vec![head.clone()];
        for y in (y0..=y1).rev() {
            let mut row = format!("{y:>4} ");
            for x in x0..=x1 {
                let g = self.glyph((x, y));
                match w {
                    3 if last.contains(&(x, y)) => row.push_str(&format!("[{g}]")),
                    3 => row.push_str(&format!(" {g} ")),
                    2 => row.push_str(&format!("{g} ")),
                    _ => row.push(g),
                }
            }
            out.push(cut(&format!("{} {y}", row.trim_end()), WIDTH));
        }
        if y1 - y0 > 8 {
            out.push(head);
        }
        out.into_iter().map(|l| cut(&l, WIDTH)).collect()
    }
}

fn other(seat: u32) -> u32 {
    u32::from(seat == 0)
}

fn xy(c: Option<&v1::Cell>) -> Xy {
    c.map_or((0, 0), |c| (c.x, c.y))
}

fn show((x, y): Xy) -> String {
    format!("({x},{y})")
}

fn cells_of(t: &v1::CurePlagueTile) -> [Xy; 3] {
    [xy(t.human.as_ref()), xy(t.cure.as_ref()), xy(t.plague.as_ref())]
}

fn tile_text(t: &v1::CurePlagueTile) -> String {
    let [h, c, p] = cells_of(t);
    format!("human {}, cure {}, plague {}", show(h), show(c), show(p))
}

fn view(v: &v1::View) -> Option<&v1::CurePlagueView> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::view::Game::CurePlague(c)) = v.game.as_ref() { Some(c) } else { None }
}

fn placement(mv: &v1::Move) -> Option<&v1::CurePlagueMove> {
    // Only this game's own message is read: a new game touches no other face.
    if let Some(v1::r#move::Game::CurePlague(c)) = mv.game.as_ref() { Some(c) } else { None }
}

fn item_of(i: i32) -> Item {
    Item::try_from(i).unwrap_or(Item::Unspecified)
}

/// An item's name in a sentence.
fn item_name(i: Item) -> &'static str {
    match i {
        Item::Permute => "Permute",
        Item::Transform => "Transform",
        Item::ForceRush => "Force Rush",
        Item::Unspecified => "no item",
    }
}

/// An item as typed after the cells.
fn item_word(i: Item) -> &'static str {
    match i {
        Item::Permute => "permute",
        Item::Transform => "transform",
        Item::ForceRush => "rush",
        Item::Unspecified => "",
    }
}

/// What an item does, in a few words.
fn item_help(i: Item) -> &'static str {
    match i {
        Item::Permute => "the three cells in a line in any order",
        Item::Transform => "an L with the cure at its corner",
        Item::ForceRush => "the opponent's next tile gets 30 seconds and no reserve",
        Item::Unspecified => "",
    }
}

fn items_text(items: &[i32]) -> String {
    if items.is_empty() {
        return "none".into();
    }
    items.iter().map(|i| item_name(item_of(*i))).collect::<Vec<_>>().join(", ")
}

fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!("{}:{:02}", s / 60, s % 60)
}

fn window_text(w: Option<&v1::CurePlagueWindow>) -> String {
    let Some(w) = w else { return String::new() };
    let time = match w.fixed_ms {
        Some(60_000) => "a minute".to_string(),
        Some(ms) => format!("{} seconds", ms / 1000),
        None => "the usual time".to_string(),
    };
    let reserve = if w.reserve { "then the reserve" } else { "no reserve" };
    format!(" ({time}, {reserve})")
}

fn mv(h: Xy, c: Xy, p: Xy, item: Item) -> v1::Move {
    let cell = |(x, y): Xy| Some(v1::Cell { x, y });
    v1::Move {
        game: Some(v1::r#move::Game::CurePlague(v1::CurePlagueMove {
            human: cell(h),
            cure: cell(c),
            plague: cell(p),
            item: item as i32,
        })),
    }
}

/// The Cure & Plague face: keeps the board of the game being narrated, so a tile's line
/// can say how many humans are alive after it.
#[derive(Default)]
pub struct CurePlague {
    grid: Grid,
}

/// A line as typed: the cells named (human, cure, plague) and the item.
#[derive(Debug, Default, PartialEq)]
struct Typed {
    cells: [Option<Xy>; 3],
    item: Option<Item>,
}

#[derive(Debug, PartialEq)]
enum Tok {
    Word(String),
    Num(i64),
}

fn tokens(line: &str) -> Result<Vec<Tok>, String> {
    let chars: Vec<char> = line.to_lowercase().chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let signed =
            matches!(c, '-' | '+' | '−') && chars.get(i + 1).is_some_and(char::is_ascii_digit);
        if c.is_alphabetic() {
            let start = i;
            while i < chars.len() && chars[i].is_alphabetic() {
                i += 1;
            }
            out.push(Tok::Word(chars[start..i].iter().collect()));
        } else if c.is_ascii_digit() || signed {
            let negative = c == '-' || c == '−';
            if signed {
                i += 1;
            }
            let start = i;
            while i < chars.len() && chars[i].is_ascii_digit() {
                i += 1;
            }
            let digits: String = chars[start..i].iter().collect();
            let n: i64 =
                digits.parse().map_err(|_| format!("{} is too far out", cut(&digits, 12)))?;
            out.push(Tok::Num(if negative { -n } else { n }));
        } else {
            i += 1;
        }
    }
    Ok(out)
}

/// The piece a label names (any start of human, cure, plague).
fn label(w: &str) -> Option<usize> {
    ["human", "cure", "plague"].iter().position(|l| l.starts_with(w))
}

/// The item a word names (any unique start of permute, transform, force rush).
fn item_named(w: &str) -> Option<Item> {
    let names = [
        ("permute", Item::Permute),
        ("transform", Item::Transform),
        ("force", Item::ForceRush),
        ("forcerush", Item::ForceRush),
        ("rush", Item::ForceRush),
    ];
    let mut found = names.iter().filter(|(n, _)| n.starts_with(w)).map(|(_, i)| *i);
    let first = found.next()?;
    found.all(|i| i == first).then_some(first)
}

const FORMAT: &str = "human, cure, plague as x y each: h -1 1 c 0 1 p 1 1";

fn parse(line: &str) -> Result<Typed, String> {
    let toks = tokens(line)?;
    let mut typed = Typed::default();
    let mut bare: Vec<i64> = Vec::new();
    let mut labelled = false;
    let mut i = 0;
    while i < toks.len() {
        match &toks[i] {
            Tok::Num(n) => {
                bare.push(*n);
                i += 1;
            }
            Tok::Word(w) if matches!(toks.get(i + 1), Some(Tok::Num(_))) => {
                let Some(slot) = label(w) else {
                    return Err(format!("{} is not human, cure or plague ({FORMAT})", cut(w, 12)));
                };
                let (Some(Tok::Num(x)), Some(Tok::Num(y))) = (toks.get(i + 1), toks.get(i + 2))
                else {
                    return Err(format!("{} needs two numbers, x then y", cut(w, 12)));
                };
                if typed.cells[slot].is_some() {
                    return Err(format!(
                        "the {} is named twice",
                        ["human", "cure", "plague"][slot]
                    ));
                }
                typed.cells[slot] = Some((*x, *y));
                labelled = true;
                i += 3;
            }
            Tok::Word(w) => {
                i += 1;
                if matches!(
                    w.as_str(),
                    "with" | "item" | "use" | "using" | "and" | "place" | "tile" | "at"
                ) {
                    continue;
                }
                let Some(item) = item_named(w) else {
                    return Err(format!(
                        "{} is no item nor label (items: permute, transform, rush)",
                        cut(w, 12)
                    ));
                };
                if typed.item.is_some_and(|i| i != item) {
                    return Err("one item at a time".into());
                }
                typed.item = Some(item);
            }
        }
    }
    match (labelled, bare.as_slice()) {
        (_, []) => {}
        (false, [hx, hy, cx, cy, px, py]) => {
            typed.cells = [Some((*hx, *hy)), Some((*cx, *cy)), Some((*px, *py))];
        }
        (false, _) => return Err(format!("six numbers, or labelled cells ({FORMAT})")),
        (true, _) => return Err(format!("put h, c or p before every cell ({FORMAT})")),
    }
    if typed.cells.iter().all(Option::is_none) {
        return Err(format!("no cell named ({FORMAT})"));
    }
    Ok(typed)
}

/// A legal move's cells and item.
fn parts(m: &v1::CurePlagueMove) -> ([Xy; 3], Item) {
    ([xy(m.human.as_ref()), xy(m.cure.as_ref()), xy(m.plague.as_ref())], item_of(m.item))
}

impl CurePlague {
    fn resolve(typed: &Typed, legal: &[v1::Move]) -> Result<v1::Move, String> {
        let item = typed.item.unwrap_or(Item::Unspecified);
        if legal.is_empty() {
            return match typed.cells {
                [Some(h), Some(c), Some(p)] => Ok(mv(h, c, p, item)),
                _ => Err(format!("name all three cells ({FORMAT})")),
            };
        }
        let fits_cells = |cells: &[Xy; 3]| {
            typed.cells.iter().zip(cells).all(|(want, got)| want.is_none_or(|w| w == *got))
        };
        let all: Vec<(&v1::Move, [Xy; 3], Item)> = legal
            .iter()
            .filter_map(|m| placement(m).map(|p| (m, parts(p).0, parts(p).1)))
            .collect();
        let fits: Vec<_> = all.iter().filter(|(_, c, i)| *i == item && fits_cells(c)).collect();
        match fits.as_slice() {
            [(m, _, _)] => Ok((*m).clone()),
            [] => {
                if item != Item::Unspecified && !all.iter().any(|(_, _, i)| *i == item) {
                    return Err(format!("you cannot use {} now", item_name(item)));
                }
                let needs: Vec<&str> = all
                    .iter()
                    .filter(|(_, c, i)| *i != item && fits_cells(c))
                    .map(|(_, _, i)| item_word(*i))
                    .filter(|w| !w.is_empty())
                    .collect();
                if item == Item::Unspecified && !needs.is_empty() {
                    return Err(format!("that tile needs an item: add {}", needs[0]));
                }
                Err("no legal tile has those cells (help lists where each piece may go)".into())
            }
            _ => {
                let missing: Vec<&str> = ["human", "cure", "plague"]
                    .iter()
                    .zip(&typed.cells)
                    .filter(|(_, c)| c.is_none())
                    .map(|(n, _)| *n)
                    .collect();
                Err(format!(
                    "more than one tile fits: name the {} cell too",
                    missing.first().copied().unwrap_or("human")
                ))
            }
        }
    }

    fn roles(v: &v1::CurePlagueView, names: &Names) -> String {
        let plague = other(v.cure);
        format!(
            "Game {} of 2: {} {} Cure (saving humans), {} {} Plague (infecting them).",
            v.game,
            names.obj(v.cure),
            names.verb(v.cure, "play", "plays"),
            names.obj(plague),
            names.verb(plague, "play", "plays")
        )
    }

    fn turn_line(v: &v1::CurePlagueView, names: &Names) -> String {
        let Some(mover) = v.to_move else { return "The match is over.".into() };
        let tile = v.tiles.len() + 1;
        let owner = v.tile_of.unwrap_or(mover);
        let window = window_text(v.window.as_ref());
        let whose = |s: u32| {
            if names.is_me(s) { "yours".to_string() } else { format!("{}'s", names.obj(s)) }
        };
        match v1::CurePlagueTurn::try_from(v.turn) {
            Ok(v1::CurePlagueTurn::Rushed) => {
                format!("Tile {tile} of {TILES} is {} to place, rushed{window}.", whose(mover))
            }
            Ok(v1::CurePlagueTurn::ForOpponent) => format!(
                "Tile {tile} of {TILES} is {} but {} {} it: the Force Rush lapsed{window}.",
                whose(owner),
                names.obj(mover),
                names.verb(mover, "place", "places")
            ),
            Ok(v1::CurePlagueTurn::Own | v1::CurePlagueTurn::Unspecified) | Err(_) => {
                format!("Tile {tile} of {TILES} is {} to place{window}.", whose(mover))
            }
        }
    }

    fn items_lines(v: &v1::CurePlagueView, names: &Names) -> Vec<String> {
        let [a, b] = names.order();
        let of = |s: u32| items_text(if s == 0 { &v.items0 } else { &v.items1 });
        let items = format!("Items: {} {}; {} {}.", names.obj(a), of(a), names.obj(b), of(b));
        let Some(holder) = v.advantage else { return vec![items] };
        let advantage = format!("Advantage (wins a full tie): {}.", names.obj(holder));
        if items.chars().count() + 1 + advantage.chars().count() <= WIDTH {
            vec![format!("{items} {advantage}")]
        } else {
            vec![items, advantage]
        }
    }

    fn result_line(n: usize, g: &v1::CurePlagueGameResult, names: &Names) -> String {
        format!(
            "Game {n}: {} as Cure kept {} alive ({} neutralized).",
            names.obj(g.cure),
            plural(g.survivors, "human"),
            plural(g.neutralized, "plague cell")
        )
    }

    /// Who wins on the finished games: more humans as Cure, then more neutralized plague
    /// cells on one's Cure board, then Advantage.
    fn verdict(v: &v1::CurePlagueView, names: &Names) -> Option<String> {
        use std::cmp::Ordering;
        let as_cure = |s: u32| v.games.iter().find(|g| g.cure == s);
        let (a, b) = (as_cure(0)?, as_cure(1)?);
        let better = |o: Ordering| match o {
            Ordering::Greater => Some(0),
            Ordering::Less => Some(1),
            Ordering::Equal => None,
        };
        let wins = |w: u32| format!("{} {}", names.obj(w), names.verb(w, "win", "wins"));
        let n = |g: &v1::CurePlagueGameResult| (g.survivors, g.neutralized);
        Some(
            match (better(a.survivors.cmp(&b.survivors)), better(a.neutralized.cmp(&b.neutralized)))
            {
                (Some(w), _) => {
                    let (mine, theirs) = if w == 0 { (n(a).0, n(b).0) } else { (n(b).0, n(a).0) };
                    let line =
                        format!("{} on humans kept alive as Cure, {mine} to {theirs}.", wins(w));
                    super::capitalized(&line)
                }
                (None, Some(w)) => {
                    let (mine, theirs) = if w == 0 { (n(a).1, n(b).1) } else { (n(b).1, n(a).1) };
                    format!(
                        "Humans level: {} on neutralized plague cells, {mine} to {theirs}.",
                        wins(w)
                    )
                }
                (None, None) => match v.advantage {
                    Some(w) => format!("All level: {} on Advantage.", wins(w)),
                    None => "All level: a draw.".into(),
                },
            },
        )
    }

    fn grid_lines(v: &v1::CurePlagueView) -> Vec<String> {
        let grid = Grid::of(&v.tiles);
        let last: Vec<Xy> = if v.tiles.len() > 1 {
            v.tiles.last().map(|t| cells_of(t).to_vec()).unwrap_or_default()
        } else {
            Vec::new()
        };
        grid.draw(&last)
    }
}

const LEGEND: &str = "H human, h human the plague kills, C cure, P plague, p neutralized; [ ] last";

impl Face for CurePlague {
    fn how_to_move(&self) -> &'static str {
        "type human, cure, plague cells as x y: h -1 1 c 0 1 p 1 1 (item last: permute)"
    }

    fn status(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Cure & Plague view)".into()] };
        let mut out = vec![Self::roles(v, names), Self::turn_line(v, names)];
        out.extend(Self::grid_lines(v));
        out.push(LEGEND.into());
        let score = v.score.unwrap_or_default();
        let cure_is = if names.is_me(v.cure) { "your score as Cure" } else { "the Cure's score" };
        let when = if v.to_move.is_some() { "If it ended now" } else { "On this board" };
        out.push(format!(
            "{when}: {} alive ({cure_is}), {} neutralized.",
            plural(score.survivors, "human"),
            plural(score.neutralized, "plague cell")
        ));
        if v.tiles.len() > 1
            && let Some(t) = v.tiles.last()
        {
            // Cure's tiles are the even-numbered ones, the start tile being the first.
            let by = if v.tiles.len().is_multiple_of(2) { v.cure } else { other(v.cure) };
            out.push(format!("Last tile, {}: {}.", names.poss(by), tile_text(t)));
        }
        out.extend(Self::items_lines(v, names));
        let [a, b] = names.order();
        let reserve = |s: u32| clock(if s == 0 { v.reserve_ms0 } else { v.reserve_ms1 });
        out.push(format!(
            "Reserve: {} {}, {} {}.",
            names.obj(a),
            reserve(a),
            names.obj(b),
            reserve(b)
        ));
        for (n, g) in v.games.iter().enumerate() {
            out.push(Self::result_line(n + 1, g, names));
        }
        out.into_iter().map(|l| cut(&l, WIDTH)).collect()
    }

    fn narrate(&mut self, event: &v1::Event, names: &Names) -> Option<String> {
        let v1::event::Kind::CurePlague(c) = event.kind.as_ref()? else { return None };
        match c.kind.as_ref()? {
            Kind::Setup(s) => {
                let [a, b] = names.order();
                let items = |seat: u32| items_text(if seat == 0 { &s.items0 } else { &s.items1 });
                let advantage = s.advantage.map_or_else(String::new, |h| {
                    format!(" {} {} Advantage.", names.subj(h), names.verb(h, "hold", "holds"))
                });
                let timeout = match v1::CurePlagueOnTimeout::try_from(s.on_timeout) {
                    Ok(v1::CurePlagueOnTimeout::Forfeit) => "loses the match",
                    Ok(v1::CurePlagueOnTimeout::Random | v1::CurePlagueOnTimeout::Unspecified)
                    | Err(_) => "places a random tile",
                };
                Some(format!(
                    "Cure & Plague: two games, roles swapped; {} {} Cure first. Items: {} {}; \
                     {} {}.{advantage} A missed deadline {timeout}.",
                    names.obj(s.first_cure),
                    names.verb(s.first_cure, "are", "is"),
                    names.obj(a),
                    items(a),
                    names.obj(b),
                    items(b)
                ))
            }
            Kind::GameStarted(g) => {
                self.grid = Grid::default();
                if let Some(t) = &g.start_tile {
                    self.grid.put(t);
                }
                let plague = other(g.cure);
                Some(format!(
                    "Game {}: {} {} Cure and {} first; {} {} Plague.",
                    g.game,
                    names.obj(g.cure),
                    names.verb(g.cure, "are", "is"),
                    names.verb(g.cure, "move", "moves"),
                    names.obj(plague),
                    names.verb(plague, "are", "is")
                ))
            }
            Kind::TilePlaced(p) => {
                let before = self.grid.score().0;
                let tile = p.tile.unwrap_or_default();
                self.grid.put(&tile);
                let after = self.grid.score().0;
                let item = match item_of(p.item) {
                    Item::Unspecified => String::new(),
                    i @ (Item::Permute | Item::Transform | Item::ForceRush) => {
                        format!(" with {}", item_name(i))
                    }
                };
                let who = match p.by {
                    None => format!("a random tile went down for {}: ", names.obj(p.seat)),
                    Some(by) if by != p.seat => format!(
                        "{} placed {} tile (the Force Rush lapsed): ",
                        names.obj(by),
                        names.poss(p.seat)
                    ),
                    Some(_) => format!("{} placed ", names.obj(p.seat)),
                };
                let alive = if after == before {
                    format!("{} alive", plural(after as i64, "human"))
                } else {
                    format!("{} alive, was {before}", plural(after as i64, "human"))
                };
                Some(format!(
                    "Tile {} of {TILES}: {who}{}{item} ({alive}).",
                    p.tiles,
                    tile_text(&tile)
                ))
            }
            Kind::Rushed(r) => Some(format!(
                "{} {} rushed: 30 seconds for the next tile, no reserve.",
                names.subj(r.seat),
                names.verb(r.seat, "are", "is")
            )),
            Kind::RushLapsed(r) => Some(super::capitalized(&format!(
                "{} Force Rush on the last tile did nothing.",
                names.poss(r.by)
            ))),
            Kind::Late(l) => {
                let other = other(l.seat);
                let what = match v1::CurePlaguePenalty::try_from(l.penalty) {
                    Ok(v1::CurePlaguePenalty::RusherMoves) => format!(
                        "{} {} the tile instead",
                        names.obj(other),
                        names.verb(other, "place", "places")
                    ),
                    Ok(v1::CurePlaguePenalty::Forfeit) => format!(
                        "the reserve is spent and {} {} the match",
                        names.obj(l.seat),
                        names.verb(l.seat, "lose", "loses")
                    ),
                    Ok(v1::CurePlaguePenalty::RandomTile | v1::CurePlaguePenalty::Unspecified)
                    | Err(_) => "the reserve is spent and a random tile is placed".into(),
                };
                Some(format!("{} missed the deadline: {what}.", names.subj(l.seat)))
            }
            Kind::GameScored(g) => Some(format!(
                "Game {} is over: with {} as Cure, {} survived and {} {} neutralized.",
                g.game,
                names.obj(g.cure),
                plural(g.survivors, "human"),
                plural(g.neutralized, "plague cell"),
                if g.neutralized == 1 { "was" } else { "were" }
            )),
        }
    }

    fn spell(&self, m: &v1::Move) -> String {
        let Some(p) = placement(m) else { return "?".into() };
        let ([(hx, hy), (cx, cy), (px, py)], item) = parts(p);
        let mut s = format!("h {hx} {hy} c {cx} {cy} p {px} {py}");
        if item != Item::Unspecified {
            s.push(' ');
            s.push_str(item_word(item));
        }
        s
    }

    fn help(&self, legal: &[v1::Move]) -> Vec<String> {
        let all: Vec<([Xy; 3], Item)> = legal.iter().filter_map(placement).map(parts).collect();
        let mut out = vec![format!("Type {FORMAT}.")];
        // Each cure cell with the lines a plain tile may take through it.
        let mut lines: Vec<(Xy, bool, bool)> = Vec::new();
        for ([h, c, _], item) in &all {
            if *item != Item::Unspecified {
                continue;
            }
            let across = h.1 == c.1;
            match lines.iter_mut().find(|(at, _, _)| at == c) {
                Some(entry) if across => entry.1 = true,
                Some(entry) => entry.2 = true,
                None => lines.push((*c, across, !across)),
            }
        }
        if !lines.is_empty() {
            lines.sort_by_key(|&((x, y), _, _)| (-y, x));
            let cells: Vec<String> = lines
                .iter()
                .map(|&(c, across, up)| {
                    let mark = match (across, up) {
                        (true, true) => '+',
                        (true, false) => '-',
                        (false, _) => '|',
                    };
                    format!("{}{mark}", show(c))
                })
                .collect();
            out.push("A tile is straight, the cure between the human and the plague.".into());
            out.extend(wrap("Cure cells (- across, | up and down, + either): ", &cells, " "));
            out.push(
                "Human and plague take the cells on either side of it, either way round.".into(),
            );
        }
        for item in [Item::Permute, Item::Transform, Item::ForceRush] {
            if !all.iter().any(|(_, i)| *i == item) {
                continue;
            }
            out.push(format!(
                "With {} (add {}): {}.",
                item_name(item),
                item_word(item),
                item_help(item)
            ));
            if item == Item::Transform {
                let mut corners: Vec<Xy> =
                    all.iter().filter(|(_, i)| *i == item).map(|(c, _)| c[1]).collect();
                corners.sort_by_key(|&(x, y)| (-y, x));
                corners.dedup();
                let named: Vec<String> = corners.into_iter().map(show).collect();
                out.extend(wrap("  its cure (the corner) can go to: ", &named, " "));
            }
        }
        if let Some(first) = legal.first() {
            out.push(format!("For example: {}", self.spell(first)));
        }
        out
    }

    fn read(&self, line: &str, legal: &[v1::Move]) -> Result<v1::Move, String> {
        Self::resolve(&parse(line)?, legal)
    }

    fn final_board(&self, v: &v1::View, names: &Names) -> Vec<String> {
        let Some(v) = view(v) else { return vec!["(not a Cure & Plague view)".into()] };
        let mut out = vec![format!("The board of game {}:", v.game)];
        out.extend(Self::grid_lines(v));
        out.push(LEGEND.into());
        for (n, g) in v.games.iter().enumerate() {
            out.push(Self::result_line(n + 1, g, names));
        }
        out.extend(Self::verdict(v, names));
        out.into_iter().map(|l| cut(&l, WIDTH)).collect()
    }

    fn score(&self, v: &v1::View) -> Option<[String; 2]> {
        let v = view(v)?;
        let as_cure = |s: u32| v.games.iter().find(|g| g.cure == s);
        let tied =
            matches!((as_cure(0), as_cure(1)), (Some(a), Some(b)) if a.survivors == b.survivors);
        let of = |s: u32| match as_cure(s) {
            Some(g) if tied => {
                format!("{} ({} neutralized)", plural(g.survivors, "human"), g.neutralized)
            }
            Some(g) => plural(g.survivors, "human"),
            None => "not Cure yet".into(),
        };
        Some([of(0), of(1)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn legal() -> Vec<v1::Move> {
        vec![
            mv((-1, 1), (0, 1), (1, 1), Item::Unspecified),
            mv((1, 1), (0, 1), (-1, 1), Item::Unspecified),
            mv((-1, 1), (0, 1), (1, 1), Item::ForceRush),
            mv((0, 1), (-1, 1), (1, 1), Item::Permute),
            mv((0, 2), (0, 1), (1, 1), Item::Transform),
            mv((2, 0), (3, 0), (4, 0), Item::Unspecified),
        ]
    }

    #[test]
    fn tiles_read_in_any_friendly_form() {
        let f = CurePlague::default();
        let legal = legal();
        for typed in [
            "h -1 1 c 0 1 p 1 1",
            "-1 1 0 1 1 1",
            "human -1 1, cure 0 1, plague 1 1",
            "H(-1,1) C(0,1) P(1,1)",
            "c 0 1 p 1 1 h -1 1",
            "c 0 1 h -1 1",
            "CURE 0 1 HUMAN -1 1",
        ] {
            assert_eq!(f.read(typed, &legal), Ok(legal[0].clone()), "{typed}");
        }
        assert_eq!(f.read("-1 1 0 1 1 1 rush", &legal), Ok(legal[2].clone()));
        assert_eq!(f.read("h -1 1 c 0 1 p 1 1 Force Rush", &legal), Ok(legal[2].clone()));
        assert_eq!(f.read("0 1 -1 1 1 1 perm", &legal), Ok(legal[3].clone()));
        assert_eq!(f.read("h 0 1 c -1 1 p 1 1 p", &legal), Ok(legal[3].clone()));
        assert_eq!(f.read("h 0 2 c 0 1 p 1 1 t", &legal), Ok(legal[4].clone()));
        assert_eq!(f.read("c 3 0 h 2 0", &legal), Ok(legal[5].clone()));
        assert_eq!(
            f.read("c 0 1", &legal).unwrap_err(),
            "more than one tile fits: name the human cell too"
        );
        assert_eq!(
            f.read("h 0 1 c -1 1 p 1 1", &legal).unwrap_err(),
            "that tile needs an item: add permute"
        );
        assert!(f.read("1 2 3", &legal).is_err());
        assert!(f.read("x 1 2", &legal).unwrap_err().contains("not human, cure or plague"));
        for m in &legal {
            assert_eq!(f.read(&f.spell(m), &legal).as_ref(), Ok(m), "{}", f.spell(m));
        }
        assert_eq!(f.spell(&legal[3]), "h 0 1 c -1 1 p 1 1 permute");
    }

    #[test]
    fn a_long_row_of_tiles_still_fits_with_its_coordinates() {
        let tiles: Vec<v1::CurePlagueTile> = (0..21)
            .map(|i| v1::CurePlagueTile {
                human: Some(v1::Cell { x: 3 * i, y: 0 }),
                cure: Some(v1::Cell { x: 3 * i + 1, y: 0 }),
                plague: Some(v1::Cell { x: 3 * i + 2, y: 0 }),
            })
            .collect();
        let lines = Grid::of(&tiles).draw(&[]);
        assert!(lines.iter().all(|l| l.chars().count() <= WIDTH), "{lines:#?}");
        assert_eq!(lines[2], format!("   0 .HCP{}. 0", "hCP".repeat(20)));
        assert!(lines[0].contains(" 0 ") && lines[0].contains(" 60"), "{}", lines[0]);
    }

    #[test]
    fn a_tile_reads_from_the_viewers_side_with_the_humans_alive() {
        let mut f = CurePlague::default();
        let names = Names::new(Some(0), "Ada");
        let ev = |k| v1::Event {
            kind: Some(v1::event::Kind::CurePlague(v1::CurePlagueEvent { kind: Some(k) })),
        };
        let tile = |h: Xy, c: Xy, p: Xy| v1::CurePlagueTile {
            human: Some(v1::Cell { x: h.0, y: h.1 }),
            cure: Some(v1::Cell { x: c.0, y: c.1 }),
            plague: Some(v1::Cell { x: p.0, y: p.1 }),
        };
        let started = f.narrate(
            &ev(Kind::GameStarted(v1::CurePlagueGameStarted {
                game: 1,
                cure: 1,
                start_tile: Some(tile((-1, 0), (0, 0), (1, 0))),
            })),
            &names,
        );
        assert_eq!(
            started.as_deref(),
            Some("Game 1: Ada is Cure and moves first; you are Plague.")
        );
        let line = f.narrate(
            &ev(Kind::TilePlaced(v1::CurePlagueTilePlaced {
                game: 1,
                tiles: 2,
                seat: 1,
                by: Some(1),
                tile: Some(tile((0, 1), (1, 1), (2, 1))),
                item: Item::Unspecified as i32,
            })),
            &names,
        );
        assert_eq!(
            line.as_deref(),
            Some(
                "Tile 2 of 21: Ada placed human (0,1), cure (1,1), plague (2,1) (2 humans alive, \
                 was 1)."
            )
        );
    }
}
