//! Hexspiel, rules text 004 and the conformance README: sealed Goofspiel bids, in sets of
//! 7 rounds, win AP and the right to a Hex turn on an 8x8 rhombus; stones cost AP per
//! cell, patterns of own stones upgrade bidding cards, and joining one's sides wins.
//!
//! # Layout
//! - this file: cards, options, the state machine, events, views and the summary.
//! - [`board`]: cells, costs, stones and the union-find that detects a connection.
//! - [`patterns`]: row5, ring6 and y7, and every place each fits.
//! - [`moves`]: the move shapes and their strict parsing.

pub mod board;
pub mod moves;
pub mod patterns;
#[cfg(test)]
mod tests;

pub use board::{Board, CELLS, Cell, CellSet, Costs, NEIGHBOURS};
pub use moves::{CellList, CellName, Declaration, HexspielMove, MAX_GIVEN, TooManyCells};
pub use patterns::PatternKind;

use rules_core::{
    Audience, CardSet, EndReason, Game, MatchRng, MoveTime, OptionsError, Outcome, PerSeat, Sealed,
    Seat, SeatSet, Sink, Viewer, is_permutation,
};
use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;

/// Goofspiel rounds in a set.
pub const ROUNDS: u8 = 7;
/// The bidding cards: values 1 to 9, one card each.
pub const CARDS: CardSet = CardSet::range(1, 9);
/// The AP on each prize card, by worth (worth 1 at index 0).
pub const PRIZE_AP: [u8; ROUNDS as usize] = [8, 7, 6, 5, 5, 4, 4];

/// The AP on the prize card of `worth` (1..=7).
#[inline]
pub fn prize_ap(worth: u8) -> u32 {
    u32::from(PRIZE_AP[worth as usize - 1])
}

/// The patterns a seat has claimed, in the order claimed (each at most once).
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
pub struct Claims {
    kinds: [Option<PatternKind>; 3],
}

impl Claims {
    /// Whether `kind` is claimed (its card upgraded).
    #[inline]
    pub fn has(self, kind: PatternKind) -> bool {
        self.kinds.contains(&Some(kind))
    }

    /// The claimed kinds, in the order claimed.
    pub fn iter(self) -> impl Iterator<Item = PatternKind> {
        self.kinds.into_iter().flatten()
    }

    fn claim(&mut self, kind: PatternKind) {
        debug_assert!(!self.has(kind));
        if let Some(slot) = self.kinds.iter_mut().find(|k| k.is_none()) {
            *slot = Some(kind);
        }
    }
}

impl Serialize for Claims {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> Deserialize<'de> for Claims {
    /// The claimed kinds in order, each at most once (three at most, then).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let mut c = Claims::default();
        for kind in Vec::<PatternKind>::deserialize(d)? {
            if c.has(kind) {
                return Err(D::Error::custom(format!("{kind} is claimed twice")));
            }
            c.claim(kind);
        }
        Ok(c)
    }
}

/// The "when you play this" AP of card `card` for a seat with `claims`: card 1 (+1), and
/// card 2 once upgraded by y7 (+1).
#[inline]
pub fn when_played(card: u8, claims: Claims) -> u32 {
    match card {
        1 => 1,
        2 if claims.has(PatternKind::Y7) => 1,
        _ => 0,
    }
}

/// The "if you win this round" AP change of card `card`: 8 (-1), 9 (-2, or -1 once
/// upgraded by ring6), 4 once upgraded by row5 (+4).
#[inline]
pub fn if_won(card: u8, claims: Claims) -> i32 {
    match card {
        4 if claims.has(PatternKind::Row5) => 4,
        8 => -1,
        9 if claims.has(PatternKind::Ring6) => -1,
        9 => -2,
        _ => 0,
    }
}

/// Hexspiel options (conformance names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HexspielOptions {
    /// Eight strings of eight digits, row 1 first: each cell's AP cost. Default: 1 plus
    /// the distance to the nearest edge.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub costs: Option<Vec<String>>,
    /// Prize orders (permutations of worths 1..7), one per set; later sets draw theirs
    /// from the seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prizes: Option<Vec<Vec<u8>>>,
    /// AP in each bank at the start.
    pub start_ap: u32,
    /// The most AP a seat may keep after a Hex turn that places fewer than two stones.
    pub ap_cap: u32,
    /// The AP the higher total worth of a set earns.
    pub set_bonus: u32,
    /// Sets played before the match is a draw.
    pub max_sets: u32,
}

impl Default for HexspielOptions {
    fn default() -> Self {
        HexspielOptions {
            costs: None,
            prizes: None,
            start_ap: 5,
            ap_cap: 30,
            set_bonus: 10,
            max_sets: 20,
        }
    }
}

/// Why a move is against the rules. Every message names only what the moving seat knows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HexspielIllegal {
    /// Bidding cards are 1 to 9.
    NoSuchCard(i64),
    /// The seat played that card already this set.
    CardSpent(u8),
    /// A Hex turn was given while bids are owed.
    BidOwed,
    /// A bid was given while the seat owes its Hex turn.
    HexOwed,
    /// More than two cells.
    TooManyStones(u32),
    /// A cell of the right form but off the board.
    OffBoard(CellName),
    /// The same cell twice.
    Repeated(Cell),
    /// A stone is already there.
    Taken(Cell),
    /// The cells cost more than the seat's AP.
    TooExpensive {
        /// What the cells cost.
        cost: u32,
        /// What the seat has.
        ap: u32,
    },
    /// Fewer than two stones would leave the seat over the cap.
    Stockpile {
        /// The AP the seat would keep.
        left: u32,
        /// The cap.
        cap: u32,
    },
    /// The seat claimed that pattern before.
    AlreadyClaimed(PatternKind),
    /// The declaration has the wrong number of cells.
    PatternSize {
        /// The pattern.
        kind: PatternKind,
        /// Cells given.
        given: u32,
    },
    /// A declared cell is not the seat's stone (after this turn's stones).
    NotYours(Cell),
    /// The cells do not have the pattern's shape.
    NotAPattern(PatternKind),
}

impl fmt::Display for HexspielIllegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HexspielIllegal::NoSuchCard(v) => {
                write!(f, "card {v} does not exist: bidding cards are 1 to 9")
            }
            HexspielIllegal::CardSpent(v) => write!(f, "your card {v} was already played this set"),
            HexspielIllegal::BidOwed => f.write_str("a bid is owed now, not a Hex turn"),
            HexspielIllegal::HexOwed => f.write_str("your Hex turn is owed now, not a bid"),
            HexspielIllegal::TooManyStones(n) => {
                write!(f, "a Hex turn places 0 to 2 stones, not {n}")
            }
            HexspielIllegal::OffBoard(c) => write!(f, "{c} is off the board (a1 to h8)"),
            HexspielIllegal::Repeated(c) => write!(f, "{c} is named twice"),
            HexspielIllegal::Taken(c) => write!(f, "{c} already holds a stone"),
            HexspielIllegal::TooExpensive { cost, ap } => {
                write!(f, "those cells cost {cost} AP and you have {ap}")
            }
            HexspielIllegal::Stockpile { left, cap } => write!(
                f,
                "placing fewer than 2 stones would leave you {left} AP, over the cap of {cap}"
            ),
            HexspielIllegal::AlreadyClaimed(k) => write!(f, "you have already claimed {k}"),
            HexspielIllegal::PatternSize { kind, given } => {
                write!(f, "a {kind} is {} cells, not {given}", kind.size())
            }
            HexspielIllegal::NotYours(c) => write!(f, "{c} is not your stone"),
            HexspielIllegal::NotAPattern(k) => write!(f, "those cells do not form a {k}"),
        }
    }
}

/// Who owes what: the bids of a round, one seat's Hex turn, or nothing (over).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Turn {
    /// Both seats bid (sealed).
    Bid,
    /// The round's winner places stones.
    Hex(Seat),
    /// The match has ended.
    Over,
}

impl Serialize for Turn {
    /// `"bid"`, `"hex:0"`, `"hex:1"`, or null once over.
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Turn::Bid => s.serialize_str("bid"),
            Turn::Hex(seat) => s.serialize_str(if seat.index() == 0 { "hex:0" } else { "hex:1" }),
            Turn::Over => s.serialize_none(),
        }
    }
}

impl<'de> Deserialize<'de> for Turn {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Option::<String>::deserialize(d)?.as_deref() {
            Some("bid") => Ok(Turn::Bid),
            Some("hex:0") => Ok(Turn::Hex(Seat::ZERO)),
            Some("hex:1") => Ok(Turn::Hex(Seat::ONE)),
            None => Ok(Turn::Over),
            Some(other) => Err(D::Error::custom(format!(
                "{other:?} is not a turn (\"bid\", \"hex:0\", \"hex:1\" or null)"
            ))),
        }
    }
}

/// A Hexspiel event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum HexspielEvent {
    /// The public rules of this match (prize orders stay hidden).
    Setup {
        /// Each cell's cost, eight strings, row 1 first.
        costs: Costs,
        /// AP in each bank at the start.
        start_ap: u32,
        /// The stockpile cap.
        ap_cap: u32,
        /// The set bonus.
        set_bonus: u32,
        /// Sets before a draw.
        max_sets: u32,
    },
    /// A set starts: prizes reshuffled, hands replenished.
    SetStarted {
        /// The set, from 1.
        set: u32,
    },
    /// A prize card is revealed.
    RoundStarted {
        /// The set.
        set: u32,
        /// The round in the set, from 1.
        round: u8,
        /// The prize's worth.
        prize: u8,
        /// The AP on it.
        prize_ap: u32,
    },
    /// A seat has sealed its bid (public: nothing more).
    Moved {
        /// Who.
        seat: Seat,
    },
    /// Your own sealed bid (to that seat only).
    BidSealed {
        /// Whose.
        seat: Seat,
        /// The card.
        card: u8,
    },
    /// Both bids revealed and the round resolved.
    Revealed {
        /// The round, from 1.
        round: u8,
        /// The cards played (a late seat's drawn at random).
        bids: PerSeat<u8>,
        /// Seats that missed the deadline.
        late: SeatSet,
        /// Who won the prize and the Hex turn; none on a tie.
        winner: Option<Seat>,
        /// AP each seat gained (card effects and prize).
        gained: PerSeat<u32>,
        /// AP banks after the round.
        ap: PerSeat<u32>,
        /// Worth won this set.
        worth: PerSeat<u8>,
    },
    /// The set's last round resolved: the bonus before its Hex turn.
    SetBonus {
        /// The seat with the strictly higher worth; none when equal.
        seat: Option<Seat>,
        /// AP it got.
        bonus: u32,
        /// Worths of the set.
        worth: PerSeat<u8>,
    },
    /// A seat owes its Hex turn.
    HexTurn {
        /// Who.
        seat: Seat,
    },
    /// A Hex turn was played.
    Placed {
        /// Who.
        seat: Seat,
        /// The stones placed (0 to 2).
        cells: CellSet,
        /// AP paid.
        cost: u32,
        /// AP left.
        ap: u32,
    },
    /// A pattern was declared and rewarded.
    PatternClaimed {
        /// Who.
        seat: Seat,
        /// Which pattern.
        kind: PatternKind,
        /// Its cells.
        cells: CellSet,
        /// The value of the card it upgraded.
        card: u8,
    },
    /// A seat missed its Hex turn: nothing placed.
    HexMissed {
        /// Who.
        seat: Seat,
        /// Its AP.
        ap: u32,
        /// Whether it held more than the cap, and so lost.
        over_cap: bool,
    },
    /// A seat joined its sides.
    Connected {
        /// Who.
        seat: Seat,
    },
}

/// The last resolved round, public once revealed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct LastRound {
    /// The prize's worth.
    pub prize: u8,
    /// The cards played.
    pub bids: PerSeat<u8>,
    /// Seats that missed the deadline.
    pub late: SeatSet,
    /// The winner, none on a tie.
    pub winner: Option<Seat>,
}

/// A checked Hex turn, ready to apply.
#[derive(Clone, Copy, Debug)]
struct Plan {
    stones: CellSet,
    cost: u32,
    pattern: Option<(PatternKind, CellSet)>,
}

/// The state of a Hexspiel match.
#[derive(Clone, Debug)]
pub struct Hexspiel {
    costs: Costs,
    ap_cap: u32,
    set_bonus: u32,
    max_sets: u32,
    given_prizes: Vec<[u8; ROUNDS as usize]>,
    board: Board,
    ap: PerSeat<u32>,
    /// The current set, from 1.
    set: u32,
    /// Rounds resolved in the set.
    round: u8,
    /// This set's prize order (worths).
    prizes: [u8; ROUNDS as usize],
    /// Worth won this set.
    worth: PerSeat<u8>,
    /// Cards not yet played this set.
    hands: PerSeat<CardSet>,
    claims: PerSeat<Claims>,
    sealed: Sealed<u8>,
    turn: Turn,
    last: Option<LastRound>,
    end: Option<Outcome>,
}

/// What one viewer sees of a Hexspiel match. Deserialize rebuilds it from the JSON the
/// API returns, for bots that play through the API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HexspielView {
    /// Whose view (none: a spectator).
    pub viewer: Option<Seat>,
    /// Each cell's cost.
    pub costs: Costs,
    /// The stones.
    pub board: Board,
    /// AP banks.
    pub ap: PerSeat<u32>,
    /// The stockpile cap.
    pub ap_cap: u32,
    /// The set bonus.
    pub set_bonus: u32,
    /// The current set.
    pub set: u32,
    /// Rounds resolved in the set.
    pub round: u8,
    /// Who owes what.
    pub to_move: Turn,
    /// The prize being bid for (worth), while bids are owed.
    pub prize: Option<u8>,
    /// Worths not yet revealed this set (their order is hidden).
    pub prizes_left: CardSet,
    /// Worth won this set.
    pub worth: PerSeat<u8>,
    /// Cards each seat has played this set (all were revealed).
    pub played: PerSeat<CardSet>,
    /// Patterns claimed, in order.
    pub upgrades: PerSeat<Claims>,
    /// The viewer's own unplayed cards.
    pub hand: Option<CardSet>,
    /// Which seats have sealed a bid this round.
    pub moved: PerSeat<bool>,
    /// The viewer's own sealed bid this round.
    pub my_bid: Option<u8>,
    /// The last revealed round.
    pub last: Option<LastRound>,
    /// The board as text, one line per string (see `Board::render`), for terminals.
    pub picture: Vec<String>,
}

impl HexspielView {
    /// The view as text for a terminal: the board, then banks, set, round and prize.
    pub fn render(&self) -> String {
        let mut out = self.board.render(&self.costs);
        let upgrades = |s: Seat| self.upgrades[s].iter().map(PatternKind::name).collect::<Vec<_>>();
        for s in Seat::BOTH {
            out.push_str(&format!(
                "seat {}: {} AP, worth {}, upgrades {:?}\n",
                s.index(),
                self.ap[s],
                self.worth[s],
                upgrades(s)
            ));
        }
        out.push_str(&format!("set {}, round {} of {ROUNDS}", self.set, self.round));
        if let Some(p) = self.prize {
            out.push_str(&format!(", prize worth {p} (+{} AP)", prize_ap(p)));
        }
        out.push('\n');
        out
    }
}

/// `{"0": [...], "1": [...]}`: each seat's claimed patterns.
#[derive(Serialize)]
struct UpgradesSummary {
    #[serde(rename = "0")]
    zero: Claims,
    #[serde(rename = "1")]
    one: Claims,
}

/// The Hexspiel summary.
#[derive(Serialize)]
pub struct HexspielSummary {
    ap: PerSeat<u32>,
    set: u32,
    round: u8,
    worth: PerSeat<u8>,
    stones: PerSeat<u32>,
    upgrades: UpgradesSummary,
    to_move: Turn,
}

fn check_order(order: &[u8]) -> Option<[u8; ROUNDS as usize]> {
    if is_permutation(order, ROUNDS) { order.try_into().ok() } else { None }
}

impl Hexspiel {
    /// The board (for tests and tools inside the rules layer; hosts use views).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Who owes what now.
    pub fn turn(&self) -> Turn {
        self.turn
    }

    fn start_set(&mut self, rng: &mut MatchRng, out: &mut impl Sink<HexspielEvent>) {
        self.prizes = match self.given_prizes.get(self.set as usize - 1) {
            Some(p) => *p,
            None => {
                let mut p = [1, 2, 3, 4, 5, 6, 7];
                rng.shuffle(&mut p);
                p
            }
        };
        self.round = 0;
        self.worth = PerSeat::splat(0);
        self.hands = PerSeat::splat(CARDS);
        out.emit(Audience::Public, HexspielEvent::SetStarted { set: self.set });
        self.start_round(out);
    }

    fn start_round(&mut self, out: &mut impl Sink<HexspielEvent>) {
        self.sealed.clear();
        self.turn = Turn::Bid;
        let prize = self.prizes[self.round as usize];
        out.emit(
            Audience::Public,
            HexspielEvent::RoundStarted {
                set: self.set,
                round: self.round + 1,
                prize,
                prize_ap: prize_ap(prize),
            },
        );
    }

    /// Reveals both bids and settles the round. `late` seats played a random card and
    /// the other seat wins regardless; both late is a tie.
    fn resolve(
        &mut self,
        bids: PerSeat<u8>,
        late: SeatSet,
        rng: &mut MatchRng,
        out: &mut impl Sink<HexspielEvent>,
    ) {
        let prize = self.prizes[self.round as usize];
        let stake = prize_ap(prize);
        let winner = match (late.contains(Seat::ZERO), late.contains(Seat::ONE)) {
            (false, false) => match bids[Seat::ZERO].cmp(&bids[Seat::ONE]) {
                Ordering::Greater => Some(Seat::ZERO),
                Ordering::Less => Some(Seat::ONE),
                Ordering::Equal => None,
            },
            (true, false) => Some(Seat::ONE),
            (false, true) => Some(Seat::ZERO),
            (true, true) => None,
        };
        let mut gained = PerSeat::splat(0u32);
        for s in Seat::BOTH {
            gained[s] += when_played(bids[s], self.claims[s]);
            self.hands[s].remove(bids[s]);
        }
        match winner {
            Some(w) => {
                // The smallest prize is 4 AP and the worst effect -2: never negative.
                gained[w] += stake.saturating_add_signed(if_won(bids[w], self.claims[w]));
                self.worth[w] += prize;
            }
            None => {
                for s in Seat::BOTH {
                    gained[s] += stake / 2;
                }
            }
        }
        for s in Seat::BOTH {
            self.ap[s] = self.ap[s].saturating_add(gained[s]);
        }
        self.round += 1;
        self.sealed.clear();
        self.last = Some(LastRound { prize, bids, late, winner });
        out.emit(
            Audience::Public,
            HexspielEvent::Revealed {
                round: self.round,
                bids,
                late,
                winner,
                gained,
                ap: self.ap,
                worth: self.worth,
            },
        );
        if self.round == ROUNDS {
            // The set bonus comes just before the last round's Hex turn.
            let best = match self.worth[Seat::ZERO].cmp(&self.worth[Seat::ONE]) {
                Ordering::Greater => Some(Seat::ZERO),
                Ordering::Less => Some(Seat::ONE),
                Ordering::Equal => None,
            };
            if let Some(b) = best {
                self.ap[b] = self.ap[b].saturating_add(self.set_bonus);
            }
            out.emit(
                Audience::Public,
                HexspielEvent::SetBonus {
                    seat: best,
                    bonus: if best.is_some() { self.set_bonus } else { 0 },
                    worth: self.worth,
                },
            );
        }
        match winner {
            Some(w) => {
                self.turn = Turn::Hex(w);
                out.emit(Audience::Public, HexspielEvent::HexTurn { seat: w });
            }
            None => self.next(rng, out),
        }
    }

    /// After a round and its Hex turn, if any: the next round, set, or the set limit.
    fn next(&mut self, rng: &mut MatchRng, out: &mut impl Sink<HexspielEvent>) {
        if self.round < ROUNDS {
            self.start_round(out);
        } else if self.set >= self.max_sets {
            self.finish(Outcome::draw(EndReason::Abandoned));
        } else {
            self.set += 1;
            self.start_set(rng, out);
        }
    }

    fn finish(&mut self, outcome: Outcome) {
        self.end = Some(outcome);
        self.turn = Turn::Over;
        self.sealed.clear();
    }

    fn check_bid(&self, seat: Seat, bid: i64) -> Result<u8, HexspielIllegal> {
        if !(1..=9).contains(&bid) {
            return Err(HexspielIllegal::NoSuchCard(bid));
        }
        let card = bid as u8;
        if !self.hands[seat].contains(card) {
            return Err(HexspielIllegal::CardSpent(card));
        }
        Ok(card)
    }

    /// Whether fewer than two stones leaving `left` AP breaks the stockpile rule (which
    /// does not apply once a single empty cell remains).
    #[inline]
    fn stockpiles(&self, placed: u32, left: u32) -> bool {
        placed < 2 && left > self.ap_cap && self.board.empty().len() >= 2
    }

    /// Checks a whole Hex turn (stones, AP, stockpile, pattern) without changing anything.
    fn check_hex(
        &self,
        seat: Seat,
        place: &CellList<2>,
        pattern: Option<&Declaration>,
    ) -> Result<Plan, HexspielIllegal> {
        if place.given() > 2 {
            return Err(HexspielIllegal::TooManyStones(place.given()));
        }
        let empty = self.board.empty();
        let mut stones = 0u64;
        let mut cost = 0;
        for name in place.cells() {
            let c = name.cell().ok_or(HexspielIllegal::OffBoard(*name))?;
            if stones & c.bit() != 0 {
                return Err(HexspielIllegal::Repeated(c));
            }
            if !empty.contains(c) {
                return Err(HexspielIllegal::Taken(c));
            }
            stones |= c.bit();
            cost += self.costs.of(c);
        }
        let ap = self.ap[seat];
        if cost > ap {
            return Err(HexspielIllegal::TooExpensive { cost, ap });
        }
        if self.stockpiles(place.given(), ap - cost) {
            return Err(HexspielIllegal::Stockpile { left: ap - cost, cap: self.ap_cap });
        }
        let pattern = match pattern {
            None => None,
            Some(d) => {
                let kind = d.kind;
                if self.claims[seat].has(kind) {
                    return Err(HexspielIllegal::AlreadyClaimed(kind));
                }
                if d.cells.given() != kind.size() {
                    return Err(HexspielIllegal::PatternSize { kind, given: d.cells.given() });
                }
                let own = self.board.stones(seat).0 | stones;
                let mut mask = 0u64;
                for name in d.cells.cells() {
                    let c = name.cell().ok_or(HexspielIllegal::OffBoard(*name))?;
                    if mask & c.bit() != 0 {
                        return Err(HexspielIllegal::Repeated(c));
                    }
                    if own & c.bit() == 0 {
                        return Err(HexspielIllegal::NotYours(c));
                    }
                    mask |= c.bit();
                }
                if !kind.fits(mask) {
                    return Err(HexspielIllegal::NotAPattern(kind));
                }
                Some((kind, CellSet(mask)))
            }
        };
        Ok(Plan { stones: CellSet(stones), cost, pattern })
    }

    fn play_hex(
        &mut self,
        seat: Seat,
        plan: Plan,
        rng: &mut MatchRng,
        out: &mut impl Sink<HexspielEvent>,
    ) {
        for c in plan.stones.iter() {
            self.board.place(seat, c);
        }
        self.ap[seat] -= plan.cost;
        out.emit(
            Audience::Public,
            HexspielEvent::Placed { seat, cells: plan.stones, cost: plan.cost, ap: self.ap[seat] },
        );
        if let Some((kind, cells)) = plan.pattern {
            self.claims[seat].claim(kind);
            out.emit(
                Audience::Public,
                HexspielEvent::PatternClaimed { seat, kind, cells, card: kind.card() },
            );
        }
        // The move is applied whole before the connection is checked.
        if self.board.connected(seat) {
            out.emit(Audience::Public, HexspielEvent::Connected { seat });
            self.finish(Outcome::win(seat, EndReason::Connected));
        } else {
            self.next(rng, out);
        }
    }

    /// Every legal Hex turn of `seat`: each affordable set of 0 to 2 empty cells that
    /// respects the stockpile rule, alone and with each pattern it would complete.
    fn hex_moves(&self, seat: Seat, out: &mut Vec<HexspielMove>) {
        let ap = self.ap[seat];
        let empty = self.board.empty();
        let own = self.board.stones(seat).0;
        // Patterns within reach: unclaimed, missing at most two cells, all of them empty.
        let mut reach: Vec<(PatternKind, u64, u64)> = Vec::new();
        for kind in PatternKind::ALL {
            if self.claims[seat].has(kind) {
                continue;
            }
            for &m in kind.instances() {
                let missing = m & !own;
                if missing & !empty.0 == 0 && missing.count_ones() <= 2 {
                    reach.push((kind, m, missing));
                }
            }
        }
        let mut push = |stones: u64| {
            let place = CellList::of(CellSet(stones).iter());
            out.push(HexspielMove::Hex { place, pattern: None });
            for &(kind, m, missing) in &reach {
                if missing & !stones == 0 {
                    let cells = CellList::of(CellSet(m).iter());
                    out.push(HexspielMove::Hex {
                        place,
                        pattern: Some(Declaration { kind, cells }),
                    });
                }
            }
        };
        if !self.stockpiles(0, ap) {
            push(0);
        }
        for a in empty.iter() {
            let ca = self.costs.of(a);
            if ca > ap {
                continue;
            }
            if !self.stockpiles(1, ap - ca) {
                push(a.bit());
            }
            // Each pair once: b after a.
            for b in CellSet(empty.0 & !(a.bit() | (a.bit() - 1))).iter() {
                if ca + self.costs.of(b) <= ap {
                    push(a.bit() | b.bit());
                }
            }
        }
    }
}

impl Game for Hexspiel {
    const NAME: &'static str = "hexspiel";
    const SIMULTANEOUS: bool = true;
    const HIDDEN_INFORMATION: bool = true;
    /// "1 minute to submit a bidding card" and "1 minute to make your Hex turn" (text 004).
    const MOVE_TIME: MoveTime = MoveTime::Fixed { move_ms: 60_000, reserve_ms: 0 };
    type Options = HexspielOptions;
    type Move = HexspielMove;
    type Illegal = HexspielIllegal;
    type Event = HexspielEvent;
    type View = HexspielView;
    type Summary = HexspielSummary;

    fn new(
        options: &HexspielOptions,
        rng: &mut MatchRng,
        out: &mut impl Sink<HexspielEvent>,
    ) -> Result<Self, OptionsError> {
        let costs = match &options.costs {
            Some(rows) => Costs::parse(rows).map_err(|p| OptionsError::new("costs", p))?,
            None => Costs::default(),
        };
        let given_prizes = options
            .prizes
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, p)| {
                check_order(p).ok_or_else(|| {
                    OptionsError::new(
                        "prizes",
                        format!("order {} is not a permutation of the worths 1..7", i + 1),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        if options.max_sets == 0 {
            return Err(OptionsError::new("max_sets", "at least one set is played"));
        }
        let mut g = Hexspiel {
            costs,
            ap_cap: options.ap_cap,
            set_bonus: options.set_bonus,
            max_sets: options.max_sets,
            given_prizes,
            board: Board::default(),
            ap: PerSeat::splat(options.start_ap),
            set: 1,
            round: 0,
            prizes: [0; ROUNDS as usize],
            worth: PerSeat::splat(0),
            hands: PerSeat::splat(CARDS),
            claims: PerSeat::default(),
            sealed: Sealed::default(),
            turn: Turn::Bid,
            last: None,
            end: None,
        };
        out.emit(
            Audience::Public,
            HexspielEvent::Setup {
                costs,
                start_ap: options.start_ap,
                ap_cap: g.ap_cap,
                set_bonus: g.set_bonus,
                max_sets: g.max_sets,
            },
        );
        g.start_set(rng, out);
        Ok(g)
    }

    #[inline]
    fn to_move(&self) -> SeatSet {
        match self.turn {
            Turn::Bid => self.sealed.waiting(),
            Turn::Hex(s) => SeatSet::only(s),
            Turn::Over => SeatSet::NONE,
        }
    }

    fn has_moved(&self, seat: Seat) -> bool {
        self.turn == Turn::Bid && self.sealed.get(seat).is_some()
    }

    fn conclude(&mut self, _outcome: Outcome) {
        // A resignation: nobody is to move any more, as the summary's `to_move` says.
        self.turn = Turn::Over;
    }

    fn legal_moves(&self, seat: Seat, out: &mut Vec<HexspielMove>) {
        if !self.can_submit(seat) {
            return;
        }
        match self.turn {
            Turn::Bid => out.extend(self.hands[seat].iter().map(|c| HexspielMove::Bid(c.into()))),
            Turn::Hex(_) => self.hex_moves(seat, out),
            Turn::Over => {}
        }
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: &HexspielMove,
        rng: &mut MatchRng,
        out: &mut impl Sink<HexspielEvent>,
    ) -> Result<(), HexspielIllegal> {
        match (self.turn, mv) {
            (Turn::Bid, HexspielMove::Bid(bid)) => {
                let card = self.check_bid(seat, *bid)?;
                self.sealed.seal(seat, card);
                out.emit(Audience::Seat(seat), HexspielEvent::BidSealed { seat, card });
                out.emit(Audience::Public, HexspielEvent::Moved { seat });
                if let Some(bids) = self.sealed.both() {
                    self.resolve(bids, SeatSet::NONE, rng, out);
                }
                Ok(())
            }
            (Turn::Bid, HexspielMove::Hex { .. }) => Err(HexspielIllegal::BidOwed),
            (Turn::Hex(_), HexspielMove::Bid(_)) => Err(HexspielIllegal::HexOwed),
            (Turn::Hex(_), HexspielMove::Hex { place, pattern }) => {
                let plan = self.check_hex(seat, place, pattern.as_ref())?;
                self.play_hex(seat, plan, rng, out);
                Ok(())
            }
            // `Match` refuses moves once over; nothing to do if called anyway.
            (Turn::Over, _) => Ok(()),
        }
    }

    fn deadline(&mut self, rng: &mut MatchRng, out: &mut impl Sink<HexspielEvent>) {
        match self.turn {
            Turn::Bid => {
                let late = self.sealed.waiting();
                // A late seat plays a random unplayed card; seat 0's is drawn first.
                let bids = PerSeat::from_fn(|s| {
                    self.sealed.get(s).unwrap_or_else(|| {
                        let hand = self.hands[s];
                        hand.nth(rng.below(hand.len())).expect("a set leaves cards in hand")
                    })
                });
                self.resolve(bids, late, rng, out);
            }
            Turn::Hex(seat) => {
                let ap = self.ap[seat];
                let over_cap = self.stockpiles(0, ap);
                out.emit(Audience::Public, HexspielEvent::HexMissed { seat, ap, over_cap });
                if over_cap {
                    self.finish(Outcome::win(seat.other(), EndReason::RuleViolation));
                } else {
                    self.next(rng, out);
                }
            }
            Turn::Over => {}
        }
    }

    fn view(&self, viewer: Viewer) -> HexspielView {
        let me = viewer.seat();
        let bidding = self.turn == Turn::Bid;
        // While bids are owed the current prize is face up; during a Hex turn the next
        // one is still face down.
        let from = (self.round as usize + usize::from(bidding)).min(ROUNDS as usize);
        let prizes_left: CardSet = self.prizes[from..].iter().copied().collect();
        HexspielView {
            viewer: me,
            costs: self.costs,
            board: self.board,
            ap: self.ap,
            ap_cap: self.ap_cap,
            set_bonus: self.set_bonus,
            set: self.set,
            round: self.round,
            to_move: self.turn,
            prize: bidding.then(|| self.prizes[self.round as usize]),
            prizes_left,
            worth: self.worth,
            played: self
                .hands
                .map(|_, h| CardSet::from_iter(CARDS.iter().filter(|c| !h.contains(*c)))),
            upgrades: self.claims,
            hand: me.map(|s| self.hands[s]),
            moved: PerSeat::from_fn(|s| self.sealed.get(s).is_some()),
            my_bid: me.and_then(|s| self.sealed.get(s)),
            last: self.last,
            picture: self.board.render(&self.costs).lines().map(str::to_string).collect(),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end
    }

    fn summary(&self) -> HexspielSummary {
        HexspielSummary {
            ap: self.ap,
            set: self.set,
            round: self.round,
            worth: self.worth,
            stones: PerSeat::from_fn(|s| self.board.stones(s).len()),
            upgrades: UpgradesSummary {
                zero: self.claims[Seat::ZERO],
                one: self.claims[Seat::ONE],
            },
            to_move: self.turn,
        }
    }
}
