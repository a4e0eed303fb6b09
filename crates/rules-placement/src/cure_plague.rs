//! Cure & Plague, rules text 001 and the conformance README: two games of 21 tiles on an
//! unbounded grid, roles swapped, Cure moving first; the items Permute, Transform, Force
//! Rush and Advantage; a minute per move plus a five-minute reserve kept across games.

use crate::board::{Board, Cell, PlaceError, Score, Shape, TILES_PER_GAME, Tile, shape};
use rules_core::{
    Audience, EndReason, Game, MatchRng, MoveTime, OptionsError, Outcome, PerSeat, Seat, SeatSet,
    Sink, Viewer, Window, WindowLength,
};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;

/// The time for one move (rules text: "1 minute for each move").
pub const MOVE_MS: u64 = 60_000;
/// The time for a move after the opponent's Force Rush, with no reserve.
pub const RUSH_MS: u64 = 30_000;
/// The reserve per seat for the whole match ("Reserve time does not reset between the two
/// games"). The clock service spends it; the rules only learn that it is gone when a
/// deadline passes, which spends all of it.
pub const RESERVE_MS: u64 = 300_000;
/// The start tile's coordinates stay within this, so no cell arithmetic can overflow.
pub const START_LIMIT: i64 = 1_000_000_000;

/// An item a seat may use once per match along with a move. (Advantage acts on its own
/// and is the `advantage` option.)
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Item {
    /// The tile's three cells on a straight line in any order.
    Permute,
    /// An L-triomino with the cure at its corner.
    Transform,
    /// The opponent's next move gets 30 seconds and no reserve; if it lapses, the
    /// rushing seat makes it.
    ForceRush,
}

impl Item {
    /// Every item, in a fixed order.
    pub const ALL: [Item; 3] = [Item::Permute, Item::Transform, Item::ForceRush];

    const fn bit(self) -> u8 {
        1 << self as u8
    }
}

impl fmt::Display for Item {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Item::Permute => "Permute",
            Item::Transform => "Transform",
            Item::ForceRush => "Force Rush",
        })
    }
}

/// A set of items, one bit each; written as a list.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ItemSet(u8);

impl ItemSet {
    /// No item.
    pub const EMPTY: ItemSet = ItemSet(0);

    /// Whether `item` is in the set.
    #[inline]
    pub const fn contains(self, item: Item) -> bool {
        self.0 & item.bit() != 0
    }

    /// The set with `item` added.
    #[inline]
    pub const fn with(self, item: Item) -> ItemSet {
        ItemSet(self.0 | item.bit())
    }

    /// The items of `self` not in `other`.
    #[inline]
    pub const fn minus(self, other: ItemSet) -> ItemSet {
        ItemSet(self.0 & !other.0)
    }

    /// The items, in `Item::ALL` order.
    pub fn iter(self) -> impl Iterator<Item = Item> {
        Item::ALL.into_iter().filter(move |i| self.contains(*i))
    }
}

impl Serialize for ItemSet {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

// The list is read back as a set: clients rebuild views from the JSON the API returns,
// and a set holds each item once whatever order or repeats the list has.
impl<'de> Deserialize<'de> for ItemSet {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Vec::<Item>::deserialize(d)?.into_iter().fold(ItemSet::EMPTY, ItemSet::with))
    }
}

/// The `items` option: `{"0": [...], "1": [...]}`.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ItemsBySeat {
    /// Seat 0's items.
    #[serde(rename = "0")]
    pub seat0: Vec<Item>,
    /// Seat 1's items.
    #[serde(rename = "1")]
    pub seat1: Vec<Item>,
}

/// What happens when a seat lets its deadline pass (Force Rush aside).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnTimeout {
    /// A random legal straight tile is placed for the late seat.
    #[default]
    Random,
    /// The late seat loses the match.
    Forfeit,
}

/// Cure & Plague options (conformance names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CurePlagueOptions {
    /// The seat that is Cure in game 1 (the Advantage holder's choice, made before the
    /// match).
    pub first_cure: Seat,
    /// Each seat's items, each usable once per match.
    pub items: ItemsBySeat,
    /// The seat holding Advantage: it wins a match still tied after both tiebreakers.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub advantage: Option<Seat>,
    /// The tile already on the board when each game starts.
    pub start_tile: Tile,
    /// What a missed deadline costs.
    pub on_timeout: OnTimeout,
}

impl Default for CurePlagueOptions {
    fn default() -> Self {
        CurePlagueOptions {
            first_cure: Seat::ZERO,
            items: ItemsBySeat::default(),
            advantage: None,
            start_tile: Tile {
                human: Cell::new(-1, 0),
                cure: Cell::new(0, 0),
                plague: Cell::new(1, 0),
            },
            on_timeout: OnTimeout::Random,
        }
    }
}

/// A move: `{"human": [x,y], "cure": [x,y], "plague": [x,y]}` with an optional `"item"`.
/// Coordinates are i64 so any integer parses; the rules judge where it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurePlagueMove {
    /// The human cell.
    pub human: Cell,
    /// The cure cell.
    pub cure: Cell,
    /// The plague cell.
    pub plague: Cell,
    /// The item used with this move. Absent means none; `null` is not a move's shape.
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "present_item")]
    pub item: Option<Item>,
}

fn present_item<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Item>, D::Error> {
    Item::deserialize(d).map(Some)
}

impl CurePlagueMove {
    /// The tile this move places.
    pub fn tile(&self) -> Tile {
        Tile { human: self.human, cure: self.cure, plague: self.plague }
    }

    fn of(t: Tile, item: Option<Item>) -> Self {
        CurePlagueMove { human: t.human, cure: t.cure, plague: t.plague, item }
    }
}

/// Whose tile the seat to move is placing, and with what window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Turn {
    /// Its own tile, in a normal window (a minute, then the reserve).
    Own,
    /// Its own tile after the opponent's Force Rush: 30 seconds, no reserve.
    Rushed,
    /// The rushed opponent's tile, because the opponent let the rushed window lapse. The
    /// move carries no item; the seat's own move follows.
    ForOpponent,
}

/// Why a well-formed move is against the rules. Everything in this game is public, so a
/// message may name any cell.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CurePlagueIllegal {
    /// The seat was not given that item.
    ItemNotHeld(Item),
    /// The seat has already used that item this match.
    ItemSpent(Item),
    /// A move made for the rushed opponent carries no item.
    ItemForOpponent(Item),
    /// Without an item (or with Force Rush) a tile is straight with the cure in the middle.
    NotStraight,
    /// With Permute the three cells still form a straight line.
    NotLine,
    /// With Transform the cells form an L with the cure at its corner.
    NotCorner,
    /// A cell is already covered.
    Taken(Cell),
    /// No cell of the tile shares an edge with an earlier tile.
    Detached,
}

impl fmt::Display for CurePlagueIllegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CurePlagueIllegal::ItemNotHeld(i) => write!(f, "you do not hold the {i} item"),
            CurePlagueIllegal::ItemSpent(i) => {
                write!(f, "you have already used your {i} item this match")
            }
            CurePlagueIllegal::ItemForOpponent(i) => {
                write!(f, "a tile placed for your rushed opponent carries no item (you gave {i})")
            }
            CurePlagueIllegal::NotStraight => f.write_str(
                "human, cure and plague must lie in a straight line with the cure in the middle",
            ),
            CurePlagueIllegal::NotLine => {
                f.write_str("with Permute the three cells must still lie in a straight line")
            }
            CurePlagueIllegal::NotCorner => {
                f.write_str("with Transform the cells must form an L with the cure at its corner")
            }
            CurePlagueIllegal::Taken(c) => write!(f, "cell {c} is already covered"),
            CurePlagueIllegal::Detached => f.write_str(
                "the tile must share an edge with a tile already placed (corners do not count)",
            ),
        }
    }
}

/// What a missed deadline led to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Penalty {
    /// The rushed seat was late: the rushing seat now places its tile.
    RusherMoves,
    /// The seat's reserve is spent and a random straight tile is placed for it.
    RandomTile,
    /// The seat's reserve is spent and it loses the match.
    Forfeit,
}

/// One finished game: who was Cure and its score.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GameResult {
    /// The Cure seat of that game.
    pub cure: Seat,
    /// Humans alive: the Cure seat's score.
    pub survivors: u32,
    /// Neutralized plague cells on that board.
    pub neutralized: u32,
}

/// A Cure & Plague event. Everything is public.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum CurePlagueEvent {
    /// The match's public setup.
    Setup {
        /// Cure in game 1.
        first_cure: Seat,
        /// Each seat's items.
        items: PerSeat<ItemSet>,
        /// Who holds Advantage.
        advantage: Option<Seat>,
        /// The timeout rule.
        on_timeout: OnTimeout,
    },
    /// A game starts with its start tile on the board.
    GameStarted {
        /// 1 or 2.
        game: u8,
        /// The Cure seat, which moves first.
        cure: Seat,
        /// The start tile.
        start_tile: Tile,
    },
    /// A tile was placed.
    TilePlaced {
        /// The game.
        game: u8,
        /// Tiles on the board now, the start tile included.
        tiles: u8,
        /// Whose turn the tile filled.
        seat: Seat,
        /// Who chose it: `seat`, the rushing opponent, or none for a random tile.
        by: Option<Seat>,
        /// Where it went.
        tile: Tile,
        /// The item used with it.
        item: Option<Item>,
    },
    /// A Force Rush takes effect: `seat`'s next move has 30 seconds and no reserve.
    Rushed {
        /// The rushed seat.
        seat: Seat,
    },
    /// A Force Rush used on a game's last tile does nothing (the item is still spent).
    RushLapsed {
        /// The seat that used it.
        by: Seat,
    },
    /// A deadline passed with `seat` owing a move.
    Late {
        /// The late seat.
        seat: Seat,
        /// What follows.
        penalty: Penalty,
    },
    /// A game ended and was scored.
    GameScored {
        /// The game.
        game: u8,
        /// Its Cure seat.
        cure: Seat,
        /// Humans alive.
        survivors: u32,
        /// Neutralized plague cells.
        neutralized: u32,
        /// The final board as text (see `Board::picture`).
        picture: Vec<String>,
    },
}

/// The state of a Cure & Plague match.
#[derive(Clone, Debug)]
pub struct CurePlague {
    first_cure: Seat,
    start: Tile,
    on_timeout: OnTimeout,
    advantage: Option<Seat>,
    held: PerSeat<ItemSet>,
    used: PerSeat<ItemSet>,
    /// 1 or 2.
    game: u8,
    board: Board,
    turn: Turn,
    /// Whether each seat still has reserve time (a missed deadline spends all of it).
    reserve: PerSeat<bool>,
    results: Vec<GameResult>,
    end: Option<Outcome>,
}

/// What a viewer sees: everything (the game has no hidden information), with each seat's
/// remaining items and reserve so clients can show them.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct CurePlagueView {
    /// Whose view (none: a spectator).
    pub viewer: Option<Seat>,
    /// The game, 1 or 2.
    pub game: u8,
    /// Its Cure seat.
    pub cure: Seat,
    /// The tiles of this game in placement order, the start tile first.
    pub tiles: Vec<Tile>,
    /// The seat that owes a move (none once over).
    pub to_move: Option<Seat>,
    /// Whose tile that move places (differs from `to_move` after a lapsed Force Rush).
    pub tile_of: Option<Seat>,
    /// The kind of turn.
    pub turn: Turn,
    /// The move window of the seat to move.
    pub window: Option<Window>,
    /// Each seat's items not yet used.
    pub items: PerSeat<ItemSet>,
    /// Who holds Advantage.
    pub advantage: Option<Seat>,
    /// Reserve left as far as the rules know: all of it until a deadline spends it.
    pub reserve_ms: PerSeat<u64>,
    /// The score this board would have if the game ended now.
    pub score: Score,
    /// Finished games.
    pub games: Vec<GameResult>,
    /// The board as text.
    pub picture: Vec<String>,
}

/// The conformance summary: `{"game": g, "tiles": t, "games": [...]}`.
#[derive(Serialize)]
pub struct CurePlagueSummary {
    game: u8,
    tiles: usize,
    games: Vec<GameResult>,
}

fn item_set(list: &[Item], seat: &'static str) -> Result<ItemSet, OptionsError> {
    let mut set = ItemSet::EMPTY;
    for &i in list {
        if set.contains(i) {
            return Err(OptionsError::new(
                "items",
                format!("seat {seat} lists {i} twice; each item is held once"),
            ));
        }
        set = set.with(i);
    }
    Ok(set)
}

impl CurePlague {
    /// The Cure seat of the current game.
    pub fn cure(&self) -> Seat {
        if self.game == 1 { self.first_cure } else { self.first_cure.other() }
    }

    /// Whose tile is owed: Cure places the even-numbered moves of a game, from its first.
    fn owner(&self) -> Seat {
        let moves = self.board.tiles().len() - 1;
        if moves.is_multiple_of(2) { self.cure() } else { self.cure().other() }
    }

    /// The seat that owes the move.
    fn actor(&self) -> Seat {
        match self.turn {
            Turn::ForOpponent => self.owner().other(),
            Turn::Own | Turn::Rushed => self.owner(),
        }
    }

    /// The current board (for tests and tools inside the rules layer).
    pub fn board(&self) -> &Board {
        &self.board
    }

    fn check(&self, seat: Seat, mv: &CurePlagueMove) -> Result<Tile, CurePlagueIllegal> {
        if let Some(item) = mv.item {
            if self.turn == Turn::ForOpponent {
                return Err(CurePlagueIllegal::ItemForOpponent(item));
            }
            if !self.held[seat].contains(item) {
                return Err(CurePlagueIllegal::ItemNotHeld(item));
            }
            if self.used[seat].contains(item) {
                return Err(CurePlagueIllegal::ItemSpent(item));
            }
        }
        let tile = mv.tile();
        match (mv.item, shape(&tile)) {
            (None | Some(Item::ForceRush), Shape::Straight)
            | (Some(Item::Permute), Shape::Straight | Shape::PermutedLine)
            | (Some(Item::Transform), Shape::CornerL) => {}
            (None | Some(Item::ForceRush), _) => return Err(CurePlagueIllegal::NotStraight),
            (Some(Item::Permute), _) => return Err(CurePlagueIllegal::NotLine),
            (Some(Item::Transform), _) => return Err(CurePlagueIllegal::NotCorner),
        }
        self.board.check(&tile).map_err(|e| match e {
            PlaceError::Taken(c) => CurePlagueIllegal::Taken(c),
            PlaceError::Detached => CurePlagueIllegal::Detached,
        })?;
        Ok(tile)
    }

    /// Puts a checked tile down for the owed turn and moves the match on.
    fn place<S: Sink<CurePlagueEvent>>(
        &mut self,
        tile: Tile,
        by: Option<Seat>,
        item: Option<Item>,
        out: &mut S,
    ) {
        let seat = self.owner();
        self.board.place(tile);
        let tiles = self.board.tiles().len();
        out.emit(
            Audience::Public,
            CurePlagueEvent::TilePlaced {
                game: self.game,
                tiles: tiles as u8,
                seat,
                by,
                tile,
                item,
            },
        );
        if tiles == TILES_PER_GAME {
            if item == Some(Item::ForceRush) {
                out.emit(Audience::Public, CurePlagueEvent::RushLapsed { by: seat });
            }
            self.finish_game(out);
        } else if item == Some(Item::ForceRush) {
            self.turn = Turn::Rushed;
            out.emit(Audience::Public, CurePlagueEvent::Rushed { seat: seat.other() });
        } else {
            self.turn = Turn::Own;
        }
    }

    fn start_game(&mut self, out: &mut impl Sink<CurePlagueEvent>) {
        self.turn = Turn::Own;
        out.emit(
            Audience::Public,
            CurePlagueEvent::GameStarted {
                game: self.game,
                cure: self.cure(),
                start_tile: self.start,
            },
        );
    }

    fn finish_game<S: Sink<CurePlagueEvent>>(&mut self, out: &mut S) {
        let Score { survivors, neutralized } = self.board.score();
        let cure = self.cure();
        self.results.push(GameResult { cure, survivors, neutralized });
        out.emit(
            Audience::Public,
            CurePlagueEvent::GameScored {
                game: self.game,
                cure,
                survivors,
                neutralized,
                // Pictures are for records and clients; hot loops keep no events.
                picture: if S::ENABLED { self.board.picture() } else { Vec::new() },
            },
        );
        if self.game == 1 {
            self.game = 2;
            self.board.reset(self.start);
            self.start_game(out);
        } else {
            self.end = Some(self.verdict());
        }
    }

    /// Higher Cure score, then more neutralized plague cells on one's Cure board, then the
    /// Advantage holder, else a draw.
    fn verdict(&self) -> Outcome {
        let as_cure = |s: Seat| {
            let r = self.results.iter().find(|r| r.cure == s).expect("each seat was Cure once");
            (r.survivors, r.neutralized)
        };
        let winner = match as_cure(Seat::ZERO).cmp(&as_cure(Seat::ONE)) {
            Ordering::Greater => Some(Seat::ZERO),
            Ordering::Less => Some(Seat::ONE),
            Ordering::Equal => self.advantage,
        };
        Outcome { winner, reason: EndReason::Completed }
    }

    /// The legal straight tiles, in a fixed order (both ways round per line).
    fn straight_tiles(&self, out: &mut Vec<Tile>) {
        let mut lines = Vec::new();
        self.board.lines(&mut lines);
        for l in lines {
            let [a, b] = l.ends();
            out.push(Tile { human: a, cure: l.mid, plague: b });
            out.push(Tile { human: b, cure: l.mid, plague: a });
        }
    }
}

impl Game for CurePlague {
    const NAME: &'static str = "cure-plague";
    const SIMULTANEOUS: bool = false;
    const HIDDEN_INFORMATION: bool = false;
    /// "You have 1 minute for each move, and 5 minutes of reserve time."
    const MOVE_TIME: MoveTime = MoveTime::Fixed { move_ms: MOVE_MS, reserve_ms: RESERVE_MS };
    type Options = CurePlagueOptions;
    type Move = CurePlagueMove;
    type Illegal = CurePlagueIllegal;
    type Event = CurePlagueEvent;
    type View = CurePlagueView;
    type Summary = CurePlagueSummary;

    fn new(
        options: &CurePlagueOptions,
        _rng: &mut MatchRng,
        out: &mut impl Sink<CurePlagueEvent>,
    ) -> Result<Self, OptionsError> {
        let start = options.start_tile;
        if start.cells().iter().any(|(c, _)| c.x.abs() > START_LIMIT || c.y.abs() > START_LIMIT) {
            return Err(OptionsError::new(
                "start_tile",
                format!("coordinates must lie within -{START_LIMIT}..{START_LIMIT}"),
            ));
        }
        if shape(&start) != Shape::Straight {
            return Err(OptionsError::new(
                "start_tile",
                "must be a straight tile with the cure in the middle",
            ));
        }
        let held =
            PerSeat([item_set(&options.items.seat0, "0")?, item_set(&options.items.seat1, "1")?]);
        let mut g = CurePlague {
            first_cure: options.first_cure,
            start,
            on_timeout: options.on_timeout,
            advantage: options.advantage,
            held,
            used: PerSeat::splat(ItemSet::EMPTY),
            game: 1,
            board: Board::new(start),
            turn: Turn::Own,
            reserve: PerSeat::splat(true),
            results: Vec::with_capacity(2),
            end: None,
        };
        out.emit(
            Audience::Public,
            CurePlagueEvent::Setup {
                first_cure: g.first_cure,
                items: g.held,
                advantage: g.advantage,
                on_timeout: g.on_timeout,
            },
        );
        g.start_game(out);
        Ok(g)
    }

    fn to_move(&self) -> SeatSet {
        if self.end.is_some() { SeatSet::NONE } else { SeatSet::only(self.actor()) }
    }

    fn conclude(&mut self, outcome: Outcome) {
        // A resignation ends the match outside the rules: the view must stop naming a
        // seat to move and its window, as it does when the rules end it.
        self.end = Some(outcome);
    }

    fn legal_moves(&self, seat: Seat, out: &mut Vec<CurePlagueMove>) {
        if self.end.is_some() || seat != self.actor() {
            return;
        }
        let items = if self.turn == Turn::ForOpponent {
            ItemSet::EMPTY
        } else {
            self.held[seat].minus(self.used[seat])
        };
        // Straight tiles (and their Force Rush and Permute variants) come from free lines,
        // L tiles from free corners; both are listed without scratch buffers.
        self.board.for_each_line(|l| {
            let [a, b] = l.ends();
            for (h, p) in [(a, b), (b, a)] {
                let t = Tile { human: h, cure: l.mid, plague: p };
                out.push(CurePlagueMove::of(t, None));
                if items.contains(Item::ForceRush) {
                    out.push(CurePlagueMove::of(t, Some(Item::ForceRush)));
                }
            }
            if items.contains(Item::Permute) {
                let c = [a, l.mid, b];
                for (h, m, p) in [(0, 1, 2), (2, 1, 0), (1, 0, 2), (2, 0, 1), (0, 2, 1), (1, 2, 0)]
                {
                    let t = Tile { human: c[h], cure: c[m], plague: c[p] };
                    out.push(CurePlagueMove::of(t, Some(Item::Permute)));
                }
            }
        });
        if items.contains(Item::Transform) {
            self.board.for_each_corner(|k| {
                let [a, b] = k.arms();
                for (h, p) in [(a, b), (b, a)] {
                    let t = Tile { human: h, cure: k.corner, plague: p };
                    out.push(CurePlagueMove::of(t, Some(Item::Transform)));
                }
            });
        }
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: &CurePlagueMove,
        _rng: &mut MatchRng,
        out: &mut impl Sink<CurePlagueEvent>,
    ) -> Result<(), CurePlagueIllegal> {
        let tile = self.check(seat, mv)?;
        if let Some(item) = mv.item {
            self.used[seat] = self.used[seat].with(item);
        }
        self.place(tile, Some(seat), mv.item, out);
        Ok(())
    }

    fn deadline(&mut self, rng: &mut MatchRng, out: &mut impl Sink<CurePlagueEvent>) {
        if self.end.is_some() {
            return;
        }
        let late = self.actor();
        if self.turn == Turn::Rushed {
            // The rushed window had no reserve, so none is spent: the rusher moves instead.
            out.emit(
                Audience::Public,
                CurePlagueEvent::Late { seat: late, penalty: Penalty::RusherMoves },
            );
            self.turn = Turn::ForOpponent;
            return;
        }
        // A normal window ends only once the reserve is gone too.
        self.reserve[late] = false;
        match self.on_timeout {
            OnTimeout::Forfeit => {
                out.emit(
                    Audience::Public,
                    CurePlagueEvent::Late { seat: late, penalty: Penalty::Forfeit },
                );
                self.end = Some(Outcome::win(late.other(), EndReason::MissedDeadline));
            }
            OnTimeout::Random => {
                out.emit(
                    Audience::Public,
                    CurePlagueEvent::Late { seat: late, penalty: Penalty::RandomTile },
                );
                let mut tiles = Vec::new();
                self.straight_tiles(&mut tiles);
                // The board is unbounded, so some straight tile always fits.
                let tile = tiles[rng.below(tiles.len() as u32) as usize];
                self.place(tile, None, None, out);
            }
        }
    }

    fn window(&self, seat: Seat) -> Window {
        match self.turn {
            Turn::Rushed => Window { length: WindowLength::FixedMs(RUSH_MS), reserve: false },
            Turn::Own | Turn::ForOpponent => {
                Window { length: WindowLength::FixedMs(MOVE_MS), reserve: self.reserve[seat] }
            }
        }
    }

    fn view(&self, viewer: Viewer) -> CurePlagueView {
        let open = self.end.is_none();
        CurePlagueView {
            viewer: viewer.seat(),
            game: self.game,
            cure: self.cure(),
            tiles: self.board.tiles().to_vec(),
            to_move: open.then(|| self.actor()),
            tile_of: open.then(|| self.owner()),
            turn: self.turn,
            window: open.then(|| self.window(self.actor())),
            items: PerSeat::from_fn(|s| self.held[s].minus(self.used[s])),
            advantage: self.advantage,
            reserve_ms: self.reserve.map(|_, r| if r { RESERVE_MS } else { 0 }),
            score: self.board.score(),
            games: self.results.clone(),
            picture: self.board.picture(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end
    }

    fn summary(&self) -> CurePlagueSummary {
        CurePlagueSummary {
            game: self.game,
            tiles: self.board.tiles().len(),
            games: self.results.clone(),
        }
    }
}
