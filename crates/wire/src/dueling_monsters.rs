//! Dueling Monsters on the wire: `proto/colosseum/v1/dueling_monsters.proto`.

use crate::{Wire, WireError, cards, pair, seat_u32, seats_where};
use api::v1::{self, dueling_monsters_event, event, r#move, view};
use rules_core::{Game, Seat};
use rules_goofspiel::dueling_monsters::{
    DuelingMonstersEvent, DuelingMonstersView, Submissions, WhiteComparison,
};
use rules_goofspiel::{DuelingMonsters, DuelingMonstersMove};

fn submissions(s: Submissions) -> i32 {
    (match s {
        Submissions::First => v1::DuelingMonstersSubmissions::First,
        Submissions::Changeable => v1::DuelingMonstersSubmissions::Changeable,
    }) as i32
}

fn blacks(b: [u8; 3]) -> Option<v1::Blacks> {
    Some(v1::Blacks { ones: u32::from(b[0]), twos: u32::from(b[1]), threes: u32::from(b[2]) })
}

impl Wire for DuelingMonsters {
    fn move_from_proto(mv: &v1::Move) -> Result<DuelingMonstersMove, WireError> {
        match &mv.game {
            Some(r#move::Game::DuelingMonsters(m)) => {
                Ok(DuelingMonstersMove { black: m.black, white: m.white })
            }
            Some(_) => Err(WireError::WrongGame { expected: <Self as Game>::NAME }),
            None => Err(WireError::Missing("game")),
        }
    }

    fn move_to_proto(mv: &DuelingMonstersMove) -> v1::Move {
        v1::Move {
            game: Some(r#move::Game::DuelingMonsters(v1::DuelingMonstersMove {
                black: mv.black,
                white: mv.white,
            })),
        }
    }

    fn event_to_proto(e: &DuelingMonstersEvent) -> v1::Event {
        use dueling_monsters_event::Kind;
        let kind = match e {
            DuelingMonstersEvent::Setup { bouts_to_win, submissions: s } => {
                Kind::Setup(v1::DuelingMonstersSetup {
                    bouts_to_win: u32::from(*bouts_to_win),
                    submissions: submissions(*s),
                })
            }
            DuelingMonstersEvent::BoutStarted { bout } => {
                Kind::BoutStarted(v1::DuelingMonstersBoutStarted { bout: u32::from(*bout) })
            }
            DuelingMonstersEvent::RoundStarted { bout, round, prize } => {
                Kind::RoundStarted(v1::DuelingMonstersRoundStarted {
                    bout: u32::from(*bout),
                    round: u32::from(*round),
                    prize: u32::from(*prize),
                })
            }
            DuelingMonstersEvent::Moved { seat } => {
                Kind::Moved(v1::DuelingMonstersMoved { seat: seat_u32(*seat) })
            }
            DuelingMonstersEvent::MoveSealed { seat, black, white } => {
                Kind::MoveSealed(v1::DuelingMonstersMoveSealed {
                    seat: seat_u32(*seat),
                    black: u32::from(*black),
                    white: u32::from(*white),
                })
            }
            DuelingMonstersEvent::Resolved {
                round,
                blacks: b,
                whites,
                higher_white,
                winner,
                prize,
                scores,
            } => {
                let higher = match higher_white {
                    None => v1::HigherWhite::Unspecified,
                    Some(WhiteComparison::Seat0) => v1::HigherWhite::Seat0,
                    Some(WhiteComparison::Seat1) => v1::HigherWhite::Seat1,
                    Some(WhiteComparison::Tie) => v1::HigherWhite::Tie,
                };
                Kind::Resolved(v1::DuelingMonstersResolved {
                    round: u32::from(*round),
                    blacks: pair(*b),
                    whites: whites.and_then(pair),
                    higher_white: higher as i32,
                    winner: winner.map(seat_u32),
                    prize: u32::from(*prize),
                    scores: pair(*scores),
                })
            }
            DuelingMonstersEvent::Forfeited {
                round,
                late,
                on_time_black,
                discarded_black,
                discarded_white,
                prize,
                scores,
            } => Kind::Forfeited(v1::DuelingMonstersForfeited {
                round: u32::from(*round),
                late: seat_u32(*late),
                on_time_black: u32::from(*on_time_black),
                discarded_black: u32::from(*discarded_black),
                discarded_white: u32::from(*discarded_white),
                prize: u32::from(*prize),
                scores: pair(*scores),
            }),
            DuelingMonstersEvent::Restarted { restarts } => {
                Kind::Restarted(v1::DuelingMonstersRestarted { restarts: u32::from(*restarts) })
            }
            DuelingMonstersEvent::BoutEnded { bout, winner, scores, bout_wins } => {
                Kind::BoutEnded(v1::DuelingMonstersBoutEnded {
                    bout: u32::from(*bout),
                    winner: winner.map(seat_u32),
                    scores: pair(*scores),
                    bout_wins: pair(*bout_wins),
                })
            }
        };
        v1::Event {
            kind: Some(event::Kind::DuelingMonsters(v1::DuelingMonstersEvent { kind: Some(kind) })),
        }
    }

    fn view_to_proto(v: &DuelingMonstersView) -> v1::View {
        let DuelingMonstersView {
            viewer: _,
            bouts_to_win,
            submissions: s,
            bout,
            bout_wins,
            round,
            prize,
            prizes_left,
            scores,
            blacks: b,
            whites_left,
            shown_whites,
            my_whites,
            moved,
            my_move,
            restarts,
        } = v;
        v1::View {
            game: Some(view::Game::DuelingMonsters(v1::DuelingMonstersView {
                bouts_to_win: u32::from(*bouts_to_win),
                submissions: submissions(*s),
                bout: u32::from(*bout),
                bout_wins: pair(*bout_wins),
                round: u32::from(*round),
                prize: prize.map(u32::from),
                prizes_left: cards(*prizes_left),
                scores: pair(*scores),
                blacks0: blacks(b[Seat::ZERO]),
                blacks1: blacks(b[Seat::ONE]),
                whites_left: pair(*whites_left),
                shown_whites0: cards(shown_whites[Seat::ZERO]),
                shown_whites1: cards(shown_whites[Seat::ONE]),
                my_whites: my_whites.and_then(cards),
                moved: seats_where(|s| moved[s]),
                my_move: my_move.map(|(black, white)| v1::DuelingMonstersMove {
                    black: i64::from(black),
                    white: i64::from(white),
                }),
                restarts: u32::from(*restarts),
            })),
        }
    }
}
