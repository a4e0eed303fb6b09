//! Cure & Plague on the wire: `proto/colosseum/v1/cure_plague.proto`. The game hides
//! nothing, so views carry every field for every viewer; the viewer itself is left out
//! (the caller knows who asked), which keeps the three viewers' messages identical.

use crate::{Wire, WireError, seat_u32};
use api::v1::{self, cure_plague_event, event, r#move, view};
use rules_core::{Game, Seat, Window, WindowLength};
use rules_placement::cure_plague::{GameResult, Penalty};
use rules_placement::{
    Cell, CurePlague, CurePlagueEvent, CurePlagueMove, CurePlagueView, Item, ItemSet, OnTimeout,
    Score, Tile, Turn,
};

fn item(i: Item) -> v1::CurePlagueItem {
    match i {
        Item::Permute => v1::CurePlagueItem::Permute,
        Item::Transform => v1::CurePlagueItem::Transform,
        Item::ForceRush => v1::CurePlagueItem::ForceRush,
    }
}

/// No item is `UNSPECIFIED`, as in the move.
fn item_opt(i: Option<Item>) -> i32 {
    i.map_or(v1::CurePlagueItem::Unspecified, item) as i32
}

fn items(s: ItemSet) -> Vec<i32> {
    s.iter().map(|i| item(i) as i32).collect()
}

fn cell(c: Cell) -> Option<v1::Cell> {
    Some(v1::Cell { x: c.x, y: c.y })
}

fn tile_msg(t: &Tile) -> v1::CurePlagueTile {
    let Tile { human, cure, plague } = *t;
    v1::CurePlagueTile { human: cell(human), cure: cell(cure), plague: cell(plague) }
}

fn tile(t: &Tile) -> Option<v1::CurePlagueTile> {
    Some(tile_msg(t))
}

fn on_timeout(o: OnTimeout) -> i32 {
    (match o {
        OnTimeout::Random => v1::CurePlagueOnTimeout::Random,
        OnTimeout::Forfeit => v1::CurePlagueOnTimeout::Forfeit,
    }) as i32
}

fn turn(t: Turn) -> i32 {
    (match t {
        Turn::Own => v1::CurePlagueTurn::Own,
        Turn::Rushed => v1::CurePlagueTurn::Rushed,
        Turn::ForOpponent => v1::CurePlagueTurn::ForOpponent,
    }) as i32
}

fn penalty(p: Penalty) -> i32 {
    (match p {
        Penalty::RusherMoves => v1::CurePlaguePenalty::RusherMoves,
        Penalty::RandomTile => v1::CurePlaguePenalty::RandomTile,
        Penalty::Forfeit => v1::CurePlaguePenalty::Forfeit,
    }) as i32
}

fn window(w: Window) -> v1::CurePlagueWindow {
    let Window { length, reserve } = w;
    let fixed_ms = match length {
        WindowLength::Standard => None,
        WindowLength::FixedMs(ms) => Some(ms),
    };
    v1::CurePlagueWindow { fixed_ms, reserve }
}

fn game_result(r: &GameResult) -> v1::CurePlagueGameResult {
    let GameResult { cure, survivors, neutralized } = *r;
    v1::CurePlagueGameResult { cure: seat_u32(cure), survivors, neutralized }
}

/// A required cell of the move.
fn cell_from(c: Option<&v1::Cell>, field: &'static str) -> Result<Cell, WireError> {
    c.map(|c| Cell::new(c.x, c.y)).ok_or(WireError::Missing(field))
}

impl Wire for CurePlague {
    fn move_from_proto(mv: &v1::Move) -> Result<CurePlagueMove, WireError> {
        let m = match &mv.game {
            Some(r#move::Game::CurePlague(m)) => m,
            Some(_) => return Err(WireError::WrongGame { expected: <Self as Game>::NAME }),
            None => return Err(WireError::Missing("game")),
        };
        let item = match v1::CurePlagueItem::try_from(m.item) {
            Ok(v1::CurePlagueItem::Unspecified) => None,
            Ok(v1::CurePlagueItem::Permute) => Some(Item::Permute),
            Ok(v1::CurePlagueItem::Transform) => Some(Item::Transform),
            Ok(v1::CurePlagueItem::ForceRush) => Some(Item::ForceRush),
            Err(_) => return Err(WireError::Unknown { field: "item", value: i64::from(m.item) }),
        };
        Ok(CurePlagueMove {
            human: cell_from(m.human.as_ref(), "human")?,
            cure: cell_from(m.cure.as_ref(), "cure")?,
            plague: cell_from(m.plague.as_ref(), "plague")?,
            item,
        })
    }

    fn move_to_proto(mv: &CurePlagueMove) -> v1::Move {
        let CurePlagueMove { human, cure, plague, item } = *mv;
        v1::Move {
            game: Some(r#move::Game::CurePlague(v1::CurePlagueMove {
                human: cell(human),
                cure: cell(cure),
                plague: cell(plague),
                item: item_opt(item),
            })),
        }
    }

    fn event_to_proto(e: &CurePlagueEvent) -> v1::Event {
        use cure_plague_event::Kind;
        let kind = match e {
            CurePlagueEvent::Setup { first_cure, items: held, advantage, on_timeout: o } => {
                Kind::Setup(v1::CurePlagueSetup {
                    first_cure: seat_u32(*first_cure),
                    items0: items(held[Seat::ZERO]),
                    items1: items(held[Seat::ONE]),
                    advantage: advantage.map(seat_u32),
                    on_timeout: on_timeout(*o),
                })
            }
            CurePlagueEvent::GameStarted { game, cure, start_tile } => {
                Kind::GameStarted(v1::CurePlagueGameStarted {
                    game: u32::from(*game),
                    cure: seat_u32(*cure),
                    start_tile: tile(start_tile),
                })
            }
            CurePlagueEvent::TilePlaced { game, tiles, seat, by, tile: t, item: i } => {
                Kind::TilePlaced(v1::CurePlagueTilePlaced {
                    game: u32::from(*game),
                    tiles: u32::from(*tiles),
                    seat: seat_u32(*seat),
                    by: by.map(seat_u32),
                    tile: tile(t),
                    item: item_opt(*i),
                })
            }
            CurePlagueEvent::Rushed { seat } => {
                Kind::Rushed(v1::CurePlagueRushed { seat: seat_u32(*seat) })
            }
            CurePlagueEvent::RushLapsed { by } => {
                Kind::RushLapsed(v1::CurePlagueRushLapsed { by: seat_u32(*by) })
            }
            CurePlagueEvent::Late { seat, penalty: p } => {
                Kind::Late(v1::CurePlagueLate { seat: seat_u32(*seat), penalty: penalty(*p) })
            }
            CurePlagueEvent::GameScored { game, cure, survivors, neutralized, picture } => {
                Kind::GameScored(v1::CurePlagueGameScored {
                    game: u32::from(*game),
                    cure: seat_u32(*cure),
                    survivors: *survivors,
                    neutralized: *neutralized,
                    picture: picture.clone(),
                })
            }
        };
        v1::Event { kind: Some(event::Kind::CurePlague(v1::CurePlagueEvent { kind: Some(kind) })) }
    }

    fn view_to_proto(v: &CurePlagueView) -> v1::View {
        let CurePlagueView {
            // Not sent: nothing in the view depends on it (everything is public).
            viewer: _,
            game,
            cure,
            tiles,
            to_move,
            tile_of,
            turn: t,
            window: w,
            items: left,
            advantage,
            reserve_ms,
            score,
            games,
            picture,
        } = v;
        let Score { survivors, neutralized } = *score;
        v1::View {
            game: Some(view::Game::CurePlague(v1::CurePlagueView {
                game: u32::from(*game),
                cure: seat_u32(*cure),
                tiles: tiles.iter().map(tile_msg).collect(),
                to_move: to_move.map(seat_u32),
                tile_of: tile_of.map(seat_u32),
                turn: turn(*t),
                window: w.map(window),
                items0: items(left[Seat::ZERO]),
                items1: items(left[Seat::ONE]),
                advantage: advantage.map(seat_u32),
                reserve_ms0: reserve_ms[Seat::ZERO],
                reserve_ms1: reserve_ms[Seat::ONE],
                score: Some(v1::CurePlagueScore { survivors, neutralized }),
                games: games.iter().map(game_result).collect(),
                picture: picture.clone(),
            })),
        }
    }
}
