//! Masterminds Duel on the wire: `proto/colosseum/v1/masterminds.proto`. Absent options
//! become unset fields (`optional`, unset messages, or `MASTERMINDS_CARD_UNSPECIFIED`), so
//! a converted view carries exactly what the rules' view holds for its viewer.

use crate::{Wire, WireError, pair, seat_u32, seats_where};
use api::v1::{self, event, masterminds_event, r#move, view};
use rules_core::{Game, Seat};
use rules_duel::masterminds::{BoutEnd, SeenCard, TurnView};
use rules_duel::{
    Card, Masterminds, MastermindsEvent, MastermindsMove, MastermindsView, Strengths,
};

/// The public enum of a card.
pub fn card(c: Card) -> v1::MastermindsCard {
    match c {
        Card::Bluff => v1::MastermindsCard::Bluff,
        Card::Counterspell => v1::MastermindsCard::Counterspell,
        Card::Empower => v1::MastermindsCard::Empower,
        Card::Fireball => v1::MastermindsCard::Fireball,
        Card::Kill => v1::MastermindsCard::Kill,
        Card::Mayhem => v1::MastermindsCard::Mayhem,
        Card::Offering => v1::MastermindsCard::Offering,
        Card::Reveal => v1::MastermindsCard::Reveal,
        Card::Swap => v1::MastermindsCard::Swap,
        Card::WarpTime => v1::MastermindsCard::WarpTime,
    }
}

fn card_i32(c: Card) -> i32 {
    card(c) as i32
}

/// A card that may be absent: unset is `UNSPECIFIED` (0).
fn maybe_card(c: Option<Card>) -> i32 {
    c.map_or(v1::MastermindsCard::Unspecified as i32, card_i32)
}

/// The rules' card of a public value: `None` for unset, an error for a value no card has.
fn card_from(field: &'static str, value: i32) -> Result<Option<Card>, WireError> {
    Ok(Some(match v1::MastermindsCard::try_from(value) {
        Ok(v1::MastermindsCard::Unspecified) => return Ok(None),
        Ok(v1::MastermindsCard::Bluff) => Card::Bluff,
        Ok(v1::MastermindsCard::Counterspell) => Card::Counterspell,
        Ok(v1::MastermindsCard::Empower) => Card::Empower,
        Ok(v1::MastermindsCard::Fireball) => Card::Fireball,
        Ok(v1::MastermindsCard::Kill) => Card::Kill,
        Ok(v1::MastermindsCard::Mayhem) => Card::Mayhem,
        Ok(v1::MastermindsCard::Offering) => Card::Offering,
        Ok(v1::MastermindsCard::Reveal) => Card::Reveal,
        Ok(v1::MastermindsCard::Swap) => Card::Swap,
        Ok(v1::MastermindsCard::WarpTime) => Card::WarpTime,
        Err(_) => return Err(WireError::Unknown { field, value: i64::from(value) }),
    }))
}

fn strengths(s: &Strengths) -> v1::MastermindsStrengths {
    let at = |c: Card| u32::from(s[c]);
    v1::MastermindsStrengths {
        bluff: at(Card::Bluff),
        counterspell: at(Card::Counterspell),
        empower: at(Card::Empower),
        fireball: at(Card::Fireball),
        kill: at(Card::Kill),
        mayhem: at(Card::Mayhem),
        offering: at(Card::Offering),
        reveal: at(Card::Reveal),
        swap: at(Card::Swap),
        warp_time: at(Card::WarpTime),
    }
}

fn move_message(mv: &MastermindsMove) -> v1::MastermindsMove {
    let MastermindsMove { card: c, shown } = mv;
    v1::MastermindsMove { card: card_i32(*c), shown_as: maybe_card(*shown) }
}

fn seen(c: &SeenCard) -> v1::MastermindsSeenCard {
    let SeenCard { card: c, shown } = c;
    v1::MastermindsSeenCard { card: card_i32(*c), shown_as: maybe_card(*shown) }
}

fn turn(t: &TurnView) -> v1::MastermindsTurn {
    let TurnView { bout, turn, first, late, cards, winner, points, revealed } = t;
    v1::MastermindsTurn {
        bout: u32::from(*bout),
        turn: u32::from(*turn),
        first: first.map(seat_u32),
        late: late.iter().map(seat_u32).collect(),
        card0: Some(seen(&cards[Seat::ZERO])),
        card1: Some(seen(&cards[Seat::ONE])),
        winner: winner.map(seat_u32),
        points: pair(*points),
        revealed: revealed.and_then(pair),
    }
}

fn bout_end(e: BoutEnd) -> i32 {
    (match e {
        BoutEnd::Points => v1::MastermindsBoutEnd::Points,
        BoutEnd::KillCountered => v1::MastermindsBoutEnd::KillCountered,
        BoutEnd::KillAgainstOffering => v1::MastermindsBoutEnd::KillAgainstOffering,
    }) as i32
}

impl Wire for Masterminds {
    /// The shape rules of the JSON move hold here too: a Bluff needs `shown_as`
    /// (`Missing`), and any other card must leave it unset (`OnlyFor`: it is a Bluff's
    /// alone), else a Kill could be shown as a Fireball without being a Bluff. A Bluff
    /// shown as Bluff passes: that one is for the rules to refuse (`illegal_move`).
    fn move_from_proto(mv: &v1::Move) -> Result<MastermindsMove, WireError> {
        let m = match &mv.game {
            Some(r#move::Game::Masterminds(m)) => m,
            Some(_) => return Err(WireError::WrongGame { expected: <Self as Game>::NAME }),
            None => return Err(WireError::Missing("game")),
        };
        let c = card_from("card", m.card)?.ok_or(WireError::Missing("card"))?;
        let shown = card_from("shown_as", m.shown_as)?;
        match (c, shown) {
            (Card::Bluff, None) => Err(WireError::Missing("shown_as")),
            (Card::Bluff, Some(s)) => Ok(MastermindsMove::bluff(s)),
            (c, None) => Ok(MastermindsMove::play(c)),
            (_, Some(_)) => Err(WireError::OnlyFor { field: "shown_as", only_for: "a Bluff" }),
        }
    }

    fn move_to_proto(mv: &MastermindsMove) -> v1::Move {
        v1::Move { game: Some(r#move::Game::Masterminds(move_message(mv))) }
    }

    fn event_to_proto(e: &MastermindsEvent) -> v1::Event {
        use masterminds_event::Kind;
        let kind = match e {
            MastermindsEvent::Setup { priority } => {
                Kind::Setup(v1::MastermindsSetup { priority: seat_u32(*priority) })
            }
            MastermindsEvent::Strengths { seat, strengths: s } => {
                Kind::Strengths(v1::MastermindsSeatStrengths {
                    seat: seat_u32(*seat),
                    strengths: Some(strengths(s)),
                })
            }
            MastermindsEvent::BoutStarted { bout } => {
                Kind::BoutStarted(v1::MastermindsBoutStarted { bout: u32::from(*bout) })
            }
            MastermindsEvent::TurnStarted { bout, turn, first } => {
                Kind::TurnStarted(v1::MastermindsTurnStarted {
                    bout: u32::from(*bout),
                    turn: u32::from(*turn),
                    first: first.map(seat_u32),
                })
            }
            MastermindsEvent::Moved { seat } => {
                Kind::Moved(v1::MastermindsMoved { seat: seat_u32(*seat) })
            }
            MastermindsEvent::MoveSealed { seat, card: c, shown } => {
                Kind::MoveSealed(v1::MastermindsMoveSealed {
                    seat: seat_u32(*seat),
                    card: card_i32(*c),
                    shown_as: maybe_card(*shown),
                })
            }
            MastermindsEvent::Told { seat, card: c } => {
                Kind::Told(v1::MastermindsTold { seat: seat_u32(*seat), card: card_i32(*c) })
            }
            MastermindsEvent::Late { seats } => {
                Kind::Late(v1::MastermindsLate { seats: seats.iter().map(seat_u32).collect() })
            }
            MastermindsEvent::TurnResolved { bout, turn, shown, winner, points } => {
                Kind::TurnResolved(v1::MastermindsTurnResolved {
                    bout: u32::from(*bout),
                    turn: u32::from(*turn),
                    shown0: card_i32(shown[Seat::ZERO]),
                    shown1: card_i32(shown[Seat::ONE]),
                    winner: winner.map(seat_u32),
                    points: pair(*points),
                })
            }
            MastermindsEvent::Revealed { bout, turn, strengths: s } => {
                Kind::Revealed(v1::MastermindsRevealed {
                    bout: u32::from(*bout),
                    turn: u32::from(*turn),
                    strengths: pair(*s),
                })
            }
            MastermindsEvent::BluffOuted { seat, bout, turn, claimed } => {
                Kind::BluffOuted(v1::MastermindsBluffOuted {
                    seat: seat_u32(*seat),
                    bout: u32::from(*bout),
                    turn: u32::from(*turn),
                    claimed: maybe_card(*claimed),
                })
            }
            MastermindsEvent::BoutEnded { bout, winner, end, points, bout_wins } => {
                Kind::BoutEnded(v1::MastermindsBoutEnded {
                    bout: u32::from(*bout),
                    winner: winner.map(seat_u32),
                    end: bout_end(*end),
                    points: pair(*points),
                    bout_wins: pair(*bout_wins),
                })
            }
        };
        v1::Event {
            kind: Some(event::Kind::Masterminds(v1::MastermindsEvent { kind: Some(kind) })),
        }
    }

    fn view_to_proto(v: &MastermindsView) -> v1::View {
        let MastermindsView {
            viewer,
            priority,
            bout,
            turn: t,
            bout_wins,
            points,
            first,
            moved,
            my_strengths,
            my_hand,
            my_move,
            told,
            history,
        } = v;
        v1::View {
            game: Some(view::Game::Masterminds(v1::MastermindsView {
                viewer: viewer.map(seat_u32),
                priority: seat_u32(*priority),
                bout: u32::from(*bout),
                turn: u32::from(*t),
                bout_wins: pair(*bout_wins),
                points: pair(*points),
                first: first.map(seat_u32),
                moved: seats_where(|s| moved[s]),
                my_strengths: my_strengths.as_ref().map(strengths),
                my_hand: my_hand.as_ref().map(|h| v1::MastermindsHand {
                    cards: h.iter().map(|c| card_i32(*c)).collect(),
                }),
                my_move: my_move.as_ref().map(move_message),
                told: maybe_card(*told),
                history: history.iter().map(turn).collect(),
            })),
        }
    }
}
