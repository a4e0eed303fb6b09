//! GOPS on the wire: `proto/colosseum/v1/gops.proto`.

use crate::{Wire, WireError, cards, pair, seat_u32, seats_where};
use api::v1::{self, event, gops_event, r#move, view};
use rules_core::{Game, Seat};
use rules_goofspiel::gops::{GopsEvent, GopsView, Ties};
use rules_goofspiel::{Gops, GopsMove};

fn ties(t: Ties) -> i32 {
    (match t {
        Ties::Rollover => v1::GopsTies::Rollover,
        Ties::Discard => v1::GopsTies::Discard,
        Ties::Split => v1::GopsTies::Split,
    }) as i32
}

fn halves(p: rules_core::PerSeat<rules_goofspiel::Points>) -> Option<v1::SeatPair> {
    pair(p.map(|_, x| x.halves()))
}

impl Wire for Gops {
    fn move_from_proto(mv: &v1::Move) -> Result<GopsMove, WireError> {
        match &mv.game {
            Some(r#move::Game::Gops(m)) => Ok(GopsMove { card: m.card }),
            Some(_) => Err(WireError::WrongGame { expected: <Self as Game>::NAME }),
            None => Err(WireError::Missing("game")),
        }
    }

    fn move_to_proto(mv: &GopsMove) -> v1::Move {
        v1::Move { game: Some(r#move::Game::Gops(v1::GopsMove { card: mv.card })) }
    }

    fn event_to_proto(e: &GopsEvent) -> v1::Event {
        use gops_event::Kind;
        let kind = match e {
            GopsEvent::Setup { cards, ties: t } => {
                Kind::Setup(v1::GopsSetup { cards: u32::from(*cards), ties: ties(*t) })
            }
            GopsEvent::RoundStarted { round, prize, pile } => {
                Kind::RoundStarted(v1::GopsRoundStarted {
                    round: u32::from(*round),
                    prize: u32::from(*prize),
                    pile: u32::from(*pile),
                })
            }
            GopsEvent::Moved { seat } => Kind::Moved(v1::GopsMoved { seat: seat_u32(*seat) }),
            GopsEvent::BidSealed { seat, card } => {
                Kind::BidSealed(v1::GopsBidSealed { seat: seat_u32(*seat), card: u32::from(*card) })
            }
            GopsEvent::Revealed { round, bids, winner, gained, scores } => {
                Kind::Revealed(v1::GopsRevealed {
                    round: u32::from(*round),
                    bids: pair(*bids),
                    winner: winner.map(seat_u32),
                    gained_halves: halves(*gained),
                    score_halves: halves(*scores),
                })
            }
            GopsEvent::Late { seats } => {
                Kind::Late(v1::GopsLate { seats: seats.iter().map(seat_u32).collect() })
            }
        };
        v1::Event { kind: Some(event::Kind::Gops(v1::GopsEvent { kind: Some(kind) })) }
    }

    fn view_to_proto(v: &GopsView) -> v1::View {
        let GopsView {
            viewer: _,
            cards: n,
            ties: t,
            round,
            prize,
            pile,
            scores,
            hands,
            prizes_left,
            moved,
            my_bid,
            last: _,
        } = v;
        v1::View {
            game: Some(view::Game::Gops(v1::GopsView {
                cards: u32::from(*n),
                ties: ties(*t),
                round: u32::from(*round),
                prize: prize.map(u32::from),
                pile: u32::from(*pile),
                score_halves: halves(*scores),
                hand0: cards(hands[Seat::ZERO]),
                hand1: cards(hands[Seat::ONE]),
                prizes_left: cards(*prizes_left),
                moved: seats_where(|s| moved[s]),
                my_bid: my_bid.map(u32::from),
            })),
        }
    }
}
