//! Hexspiel on the wire: `proto/colosseum/v1/hexspiel.proto`. Cells travel as their
//! names (`c3`), as in the conformance moves; cell costs as 64 numbers, a1 first.
//! Views and events are destructured whole, so a new field or variant breaks the build.

use crate::{Wire, WireError, cards, pair, seat_u32, seats_where};
use api::v1::{self, event, hexspiel_event, hexspiel_move, r#move, view};
use rules_core::{Game, Seat, SeatSet};
use rules_goofspiel::hexspiel::{
    Cell, CellList, CellName, CellSet, Claims, Costs, Declaration, HexspielEvent, HexspielView,
    LastRound, MAX_GIVEN, PatternKind, Turn,
};
use rules_goofspiel::{Hexspiel, HexspielMove};

/// The protobuf value of a pattern kind.
pub fn pattern_kind(k: PatternKind) -> v1::HexspielPatternKind {
    match k {
        PatternKind::Row5 => v1::HexspielPatternKind::Row5,
        PatternKind::Ring6 => v1::HexspielPatternKind::Ring6,
        PatternKind::Y7 => v1::HexspielPatternKind::Y7,
    }
}

fn pattern_kind_from(k: i32) -> Result<PatternKind, WireError> {
    match v1::HexspielPatternKind::try_from(k) {
        Ok(v1::HexspielPatternKind::Row5) => Ok(PatternKind::Row5),
        Ok(v1::HexspielPatternKind::Ring6) => Ok(PatternKind::Ring6),
        Ok(v1::HexspielPatternKind::Y7) => Ok(PatternKind::Y7),
        Ok(v1::HexspielPatternKind::Unspecified) => Err(WireError::Missing("pattern kind")),
        Err(_) => Err(WireError::Unknown { field: "pattern kind", value: i64::from(k) }),
    }
}

/// The protobuf value of whose turn it is.
pub fn turn(t: Turn) -> v1::HexspielTurn {
    match t {
        Turn::Bid => v1::HexspielTurn::Bid,
        Turn::Hex(s) if s == Seat::ZERO => v1::HexspielTurn::HexSeat0,
        Turn::Hex(_) => v1::HexspielTurn::HexSeat1,
        Turn::Over => v1::HexspielTurn::Over,
    }
}

/// Cell names, a1 first.
fn cell_names(c: CellSet) -> Vec<String> {
    c.iter().map(|c| c.to_string()).collect()
}

/// Each cell's cost, a1 first, row by row.
fn costs(c: &Costs) -> Vec<u32> {
    Cell::all().map(|cell| c.of(cell)).collect()
}

fn seat_list(s: SeatSet) -> Vec<u32> {
    s.iter().map(seat_u32).collect()
}

fn claims(c: Claims) -> Vec<i32> {
    c.iter().map(|k| pattern_kind(k) as i32).collect()
}

/// A list of cells of a move. A name that is not of the form `c3` is a malformed move
/// (as in the JSON parser); a well-formed name off the board, or too many cells, is kept
/// for the rules to refuse as an illegal move with their own message.
fn cell_list<const N: usize>(
    field: &'static str,
    names: &[String],
) -> Result<CellList<N>, WireError> {
    let parsed = names
        .iter()
        .map(|n| CellName::parse(n).ok_or(WireError::Missing("well-formed cell (like c3)")))
        .collect::<Result<Vec<_>, _>>()?;
    CellList::of_names(parsed).map_err(|_| WireError::TooMany { field, max: MAX_GIVEN })
}

fn names<const N: usize>(l: &CellList<N>) -> Vec<String> {
    l.cells().iter().map(|c| c.to_string()).collect()
}

impl Wire for Hexspiel {
    fn move_from_proto(mv: &v1::Move) -> Result<HexspielMove, WireError> {
        let m = match &mv.game {
            Some(r#move::Game::Hexspiel(m)) => m,
            Some(_) => return Err(WireError::WrongGame { expected: <Self as Game>::NAME }),
            None => return Err(WireError::Missing("game")),
        };
        match &m.kind {
            Some(hexspiel_move::Kind::Bid(b)) => Ok(HexspielMove::Bid(*b)),
            Some(hexspiel_move::Kind::Hex(t)) => {
                let pattern = match &t.pattern {
                    None => None,
                    Some(p) => Some(Declaration {
                        kind: pattern_kind_from(p.kind)?,
                        cells: cell_list("pattern.cells", &p.cells)?,
                    }),
                };
                Ok(HexspielMove::Hex { place: cell_list("place", &t.place)?, pattern })
            }
            None => Err(WireError::Missing("bid or Hex turn")),
        }
    }

    fn move_to_proto(mv: &HexspielMove) -> v1::Move {
        let kind = match mv {
            HexspielMove::Bid(b) => hexspiel_move::Kind::Bid(*b),
            HexspielMove::Hex { place, pattern } => hexspiel_move::Kind::Hex(v1::HexspielHexTurn {
                place: names(place),
                pattern: pattern.map(|Declaration { kind, cells }| v1::HexspielPattern {
                    kind: pattern_kind(kind) as i32,
                    cells: names(&cells),
                }),
            }),
        };
        v1::Move { game: Some(r#move::Game::Hexspiel(v1::HexspielMove { kind: Some(kind) })) }
    }

    fn event_to_proto(e: &HexspielEvent) -> v1::Event {
        use hexspiel_event::Kind;
        let kind = match e {
            HexspielEvent::Setup { costs: c, start_ap, ap_cap, set_bonus, max_sets } => {
                Kind::Setup(v1::HexspielSetup {
                    costs: costs(c),
                    start_ap: *start_ap,
                    ap_cap: *ap_cap,
                    set_bonus: *set_bonus,
                    max_sets: *max_sets,
                })
            }
            HexspielEvent::SetStarted { set } => {
                Kind::SetStarted(v1::HexspielSetStarted { set: *set })
            }
            HexspielEvent::RoundStarted { set, round, prize, prize_ap } => {
                Kind::RoundStarted(v1::HexspielRoundStarted {
                    set: *set,
                    round: u32::from(*round),
                    prize: u32::from(*prize),
                    prize_ap: *prize_ap,
                })
            }
            HexspielEvent::Moved { seat } => {
                Kind::Moved(v1::HexspielMoved { seat: seat_u32(*seat) })
            }
            HexspielEvent::BidSealed { seat, card } => Kind::BidSealed(v1::HexspielBidSealed {
                seat: seat_u32(*seat),
                card: u32::from(*card),
            }),
            HexspielEvent::Revealed { round, bids, late, winner, gained, ap, worth } => {
                Kind::Revealed(v1::HexspielRevealed {
                    round: u32::from(*round),
                    bids: pair(*bids),
                    late: seat_list(*late),
                    winner: winner.map(seat_u32),
                    gained: pair(*gained),
                    ap: pair(*ap),
                    worth: pair(*worth),
                })
            }
            HexspielEvent::SetBonus { seat, bonus, worth } => {
                Kind::SetBonus(v1::HexspielSetBonus {
                    seat: seat.map(seat_u32),
                    bonus: *bonus,
                    worth: pair(*worth),
                })
            }
            HexspielEvent::HexTurn { seat } => {
                Kind::HexTurn(v1::HexspielHexTurnOwed { seat: seat_u32(*seat) })
            }
            HexspielEvent::Placed { seat, cells, cost, ap } => Kind::Placed(v1::HexspielPlaced {
                seat: seat_u32(*seat),
                cells: cell_names(*cells),
                cost: *cost,
                ap: *ap,
            }),
            HexspielEvent::PatternClaimed { seat, kind, cells, card } => {
                Kind::PatternClaimed(v1::HexspielPatternClaimed {
                    seat: seat_u32(*seat),
                    kind: pattern_kind(*kind) as i32,
                    cells: cell_names(*cells),
                    card: u32::from(*card),
                })
            }
            HexspielEvent::HexMissed { seat, ap, over_cap } => {
                Kind::HexMissed(v1::HexspielHexMissed {
                    seat: seat_u32(*seat),
                    ap: *ap,
                    over_cap: *over_cap,
                })
            }
            HexspielEvent::Connected { seat } => {
                Kind::Connected(v1::HexspielConnected { seat: seat_u32(*seat) })
            }
        };
        v1::Event { kind: Some(event::Kind::Hexspiel(v1::HexspielEvent { kind: Some(kind) })) }
    }

    fn view_to_proto(v: &HexspielView) -> v1::View {
        let HexspielView {
            viewer,
            costs: c,
            board,
            ap,
            ap_cap,
            set_bonus,
            set,
            round,
            to_move,
            prize,
            prizes_left,
            worth,
            played,
            upgrades,
            hand,
            moved,
            my_bid,
            last,
            picture,
        } = v;
        v1::View {
            game: Some(view::Game::Hexspiel(v1::HexspielView {
                viewer: viewer.map(seat_u32),
                costs: costs(c),
                stones0: cell_names(board.stones(Seat::ZERO)),
                stones1: cell_names(board.stones(Seat::ONE)),
                ap: pair(*ap),
                ap_cap: *ap_cap,
                set_bonus: *set_bonus,
                set: *set,
                round: u32::from(*round),
                to_move: turn(*to_move) as i32,
                prize: prize.map(u32::from),
                prizes_left: cards(*prizes_left),
                worth: pair(*worth),
                played0: cards(played[Seat::ZERO]),
                played1: cards(played[Seat::ONE]),
                upgrades0: claims(upgrades[Seat::ZERO]),
                upgrades1: claims(upgrades[Seat::ONE]),
                hand: hand.and_then(cards),
                moved: seats_where(|s| moved[s]),
                my_bid: my_bid.map(u32::from),
                last: last.map(|LastRound { prize, bids, late, winner }| v1::HexspielLastRound {
                    prize: u32::from(prize),
                    bids: pair(bids),
                    late: seat_list(late),
                    winner: winner.map(seat_u32),
                }),
                picture: picture.clone(),
            })),
        }
    }
}
