//! Cure & Plague on the wire: random matches through `rules_core::Match`, and for every
//! event, every view (both seats and a spectator) and every legal move, the protobuf
//! message is decoded back here and must give exactly the rules' value, no more, no less.

use api::v1::{self, cure_plague_event::Kind, event, r#move, view};
use rules_core::{
    Audience, Match, MatchEvent, MatchRng, MatchView, PerSeat, Seat, Seed, Step, Tagged, Viewer,
    Window, WindowLength,
};
use rules_placement::cure_plague::{GameResult, ItemsBySeat, Penalty};
use rules_placement::{
    Cell, CurePlague, CurePlagueEvent, CurePlagueMove, CurePlagueOptions, CurePlagueView, Item,
    ItemSet, OnTimeout, Score, Tile, Turn,
};
use std::collections::BTreeSet;
use wire::{Wire, WireError, match_event_to_proto};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];
const MATCHES: u64 = 300;

type Log = Vec<Tagged<MatchEvent<CurePlagueEvent>>>;

fn driver(seed: u64) -> MatchRng {
    Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes").rng()
}

fn pick<T: Clone>(rng: &mut MatchRng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u32) as usize].clone()
}

// Decoding the messages back, written independently of the crate under test, so a field
// put in the wrong place or with the wrong value shows up as an inequality.

fn seat(n: u32) -> Seat {
    Seat::new(u64::from(n)).expect("a seat is 0 or 1")
}

fn cell(c: Option<&v1::Cell>) -> Cell {
    let c = c.expect("cells are always set");
    Cell::new(c.x, c.y)
}

fn tile(t: Option<&v1::CurePlagueTile>) -> Tile {
    let t = t.expect("tiles are always set");
    Tile {
        human: cell(t.human.as_ref()),
        cure: cell(t.cure.as_ref()),
        plague: cell(t.plague.as_ref()),
    }
}

/// The explicit item table; 0 (unspecified) is no item.
fn item(i: i32) -> Option<Item> {
    match v1::CurePlagueItem::try_from(i).expect("a known item") {
        v1::CurePlagueItem::Unspecified => None,
        v1::CurePlagueItem::Permute => Some(Item::Permute),
        v1::CurePlagueItem::Transform => Some(Item::Transform),
        v1::CurePlagueItem::ForceRush => Some(Item::ForceRush),
    }
}

fn items(list: &[i32]) -> ItemSet {
    let mut set = ItemSet::EMPTY;
    for &i in list {
        let i = item(i).expect("a listed item is never unspecified");
        assert!(!set.contains(i), "an item is listed once");
        set = set.with(i);
    }
    // Listed in one order (the enum's), so clients can compare lists as they are.
    assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?}");
    set
}

fn on_timeout(o: i32) -> OnTimeout {
    match v1::CurePlagueOnTimeout::try_from(o).expect("a known rule") {
        v1::CurePlagueOnTimeout::Random => OnTimeout::Random,
        v1::CurePlagueOnTimeout::Forfeit => OnTimeout::Forfeit,
        v1::CurePlagueOnTimeout::Unspecified => panic!("the timeout rule is always sent"),
    }
}

fn turn(t: i32) -> Turn {
    match v1::CurePlagueTurn::try_from(t).expect("a known turn") {
        v1::CurePlagueTurn::Own => Turn::Own,
        v1::CurePlagueTurn::Rushed => Turn::Rushed,
        v1::CurePlagueTurn::ForOpponent => Turn::ForOpponent,
        v1::CurePlagueTurn::Unspecified => panic!("the turn is always sent"),
    }
}

fn penalty(p: i32) -> Penalty {
    match v1::CurePlaguePenalty::try_from(p).expect("a known penalty") {
        v1::CurePlaguePenalty::RusherMoves => Penalty::RusherMoves,
        v1::CurePlaguePenalty::RandomTile => Penalty::RandomTile,
        v1::CurePlaguePenalty::Forfeit => Penalty::Forfeit,
        v1::CurePlaguePenalty::Unspecified => panic!("the penalty is always sent"),
    }
}

fn window(w: &v1::CurePlagueWindow) -> Window {
    let length = w.fixed_ms.map_or(WindowLength::Standard, WindowLength::FixedMs);
    Window { length, reserve: w.reserve }
}

/// The rules' variant name and the message's oneof name: the explicit table the two
/// must agree on.
fn kind_names(e: &CurePlagueEvent, k: &Kind) -> (&'static str, &'static str) {
    let rules = match e {
        CurePlagueEvent::Setup { .. } => "setup",
        CurePlagueEvent::GameStarted { .. } => "game_started",
        CurePlagueEvent::TilePlaced { .. } => "tile_placed",
        CurePlagueEvent::Rushed { .. } => "rushed",
        CurePlagueEvent::RushLapsed { .. } => "rush_lapsed",
        CurePlagueEvent::Late { .. } => "late",
        CurePlagueEvent::GameScored { .. } => "game_scored",
    };
    let wire = match k {
        Kind::Setup(_) => "setup",
        Kind::GameStarted(_) => "game_started",
        Kind::TilePlaced(_) => "tile_placed",
        Kind::Rushed(_) => "rushed",
        Kind::RushLapsed(_) => "rush_lapsed",
        Kind::Late(_) => "late",
        Kind::GameScored(_) => "game_scored",
    };
    (rules, wire)
}

/// The rules' event back from its message.
fn decode_event(k: &Kind) -> CurePlagueEvent {
    match k {
        Kind::Setup(s) => CurePlagueEvent::Setup {
            first_cure: seat(s.first_cure),
            items: PerSeat([items(&s.items0), items(&s.items1)]),
            advantage: s.advantage.map(seat),
            on_timeout: on_timeout(s.on_timeout),
        },
        Kind::GameStarted(g) => CurePlagueEvent::GameStarted {
            game: u8::try_from(g.game).unwrap(),
            cure: seat(g.cure),
            start_tile: tile(g.start_tile.as_ref()),
        },
        Kind::TilePlaced(t) => CurePlagueEvent::TilePlaced {
            game: u8::try_from(t.game).unwrap(),
            tiles: u8::try_from(t.tiles).unwrap(),
            seat: seat(t.seat),
            by: t.by.map(seat),
            tile: tile(t.tile.as_ref()),
            item: item(t.item),
        },
        Kind::Rushed(r) => CurePlagueEvent::Rushed { seat: seat(r.seat) },
        Kind::RushLapsed(r) => CurePlagueEvent::RushLapsed { by: seat(r.by) },
        Kind::Late(l) => CurePlagueEvent::Late { seat: seat(l.seat), penalty: penalty(l.penalty) },
        Kind::GameScored(g) => CurePlagueEvent::GameScored {
            game: u8::try_from(g.game).unwrap(),
            cure: seat(g.cure),
            survivors: g.survivors,
            neutralized: g.neutralized,
            picture: g.picture.clone(),
        },
    }
}

/// The rules' view back from its message; the viewer is not on the wire, so it is given.
fn decode_view(p: &v1::CurePlagueView, viewer: Option<Seat>) -> CurePlagueView {
    let v1::CurePlagueView {
        game,
        cure,
        tiles,
        to_move,
        tile_of,
        turn: t,
        window: w,
        items0,
        items1,
        advantage,
        reserve_ms0,
        reserve_ms1,
        score,
        games,
        picture,
    } = p;
    let score = score.expect("the score is always set");
    CurePlagueView {
        viewer,
        game: u8::try_from(*game).unwrap(),
        cure: seat(*cure),
        tiles: tiles.iter().map(|t| tile(Some(t))).collect(),
        to_move: to_move.map(seat),
        tile_of: tile_of.map(seat),
        turn: turn(*t),
        window: w.as_ref().map(window),
        items: PerSeat([items(items0), items(items1)]),
        advantage: advantage.map(seat),
        reserve_ms: PerSeat([*reserve_ms0, *reserve_ms1]),
        score: Score { survivors: score.survivors, neutralized: score.neutralized },
        games: games
            .iter()
            .map(|g| GameResult {
                cure: seat(g.cure),
                survivors: g.survivors,
                neutralized: g.neutralized,
            })
            .collect(),
        picture: picture.clone(),
    }
}

/// Checks one game event's message; returns its kind.
fn check_event(e: &CurePlagueEvent) -> &'static str {
    let msg = CurePlague::event_to_proto(e);
    let Some(event::Kind::CurePlague(v1::CurePlagueEvent { kind: Some(k) })) = &msg.kind else {
        panic!("a Cure & Plague event is a cure_plague event with a kind: {msg:?}");
    };
    let (rules, wire) = kind_names(e, k);
    assert_eq!(rules, wire, "{e:?}");
    assert_eq!(&decode_event(k), e);
    // Spot checks of fields clients rely on, in the message's own terms.
    match (e, k) {
        (CurePlagueEvent::TilePlaced { by: None, item, .. }, Kind::TilePlaced(t)) => {
            assert_eq!(t.by, None, "a random tile has no chooser");
            assert!(item.is_none());
            assert_eq!(t.item, v1::CurePlagueItem::Unspecified as i32);
        }
        (CurePlagueEvent::Late { penalty: Penalty::RusherMoves, .. }, Kind::Late(l)) => {
            assert_eq!(l.penalty, v1::CurePlaguePenalty::RusherMoves as i32);
        }
        (CurePlagueEvent::GameScored { picture, .. }, Kind::GameScored(g)) => {
            assert!(!picture.is_empty(), "events kept in a log have the board picture");
            assert_eq!(&g.picture, picture);
        }
        _ => {}
    }
    rules
}

/// Checks the three viewers' views now; returns them for the leak checks.
fn check_views(m: &Match<CurePlague>) -> Vec<v1::View> {
    let spectator = rules_core::Game::view(m.game(), Viewer::Spectator);
    VIEWERS
        .iter()
        .map(|&viewer| {
            let v = m.view(viewer).game;
            assert_eq!(v.viewer, viewer.seat());
            // Nothing is hidden: a seat's view is the spectator's but for who asked.
            assert_eq!(CurePlagueView { viewer: None, ..v.clone() }, spectator);
            let msg = CurePlague::view_to_proto(&v);
            let Some(view::Game::CurePlague(p)) = &msg.game else {
                panic!("a Cure & Plague view is a cure_plague view: {msg:?}");
            };
            assert_eq!(decode_view(p, viewer.seat()), v);
            if m.is_over() {
                assert!(p.to_move.is_none() && p.tile_of.is_none() && p.window.is_none());
            } else {
                assert_eq!(p.to_move.map(seat), m.to_move().iter().next());
                assert!(p.window.is_some(), "the seat to move has a window");
            }
            // Bots rebuild their view from the API's JSON: it must come back exactly.
            let json = serde_json::to_string(&v).unwrap();
            assert_eq!(serde_json::from_str::<CurePlagueView>(&json).unwrap(), v, "{json}");
            let mv = m.view(viewer);
            let json = serde_json::to_string(&mv).unwrap();
            let back: MatchView<CurePlagueView> = serde_json::from_str(&json).unwrap();
            assert_eq!(back.game, v);
            assert_eq!(serde_json::to_string(&back).unwrap(), json);
            msg
        })
        .collect()
}

/// Every legal move survives the trip through its message.
fn check_moves(moves: &[CurePlagueMove]) {
    for mv in moves {
        let msg = CurePlague::move_to_proto(mv);
        assert_eq!(CurePlague::move_from_proto(&msg).as_ref(), Ok(mv));
    }
}

fn random_options(rng: &mut MatchRng) -> CurePlagueOptions {
    let held = |rng: &mut MatchRng| -> Vec<Item> {
        Item::ALL.into_iter().filter(|_| rng.below(3) != 0).collect()
    };
    let items = ItemsBySeat { seat0: held(rng), seat1: held(rng) };
    // Start tiles anywhere the rules allow, so large coordinates cross the wire too.
    let limit = rules_placement::cure_plague::START_LIMIT;
    let (x, y) = match rng.below(3) {
        0 => (0, 0),
        1 => (i64::from(rng.below(21)) - 10, i64::from(rng.below(21)) - 10),
        _ => (if rng.below(2) == 0 { limit - 1 } else { 1 - limit }, -(limit - 1)),
    };
    let (dx, dy) = [(1, 0), (0, 1), (-1, 0), (0, -1)][rng.below(4) as usize];
    CurePlagueOptions {
        first_cure: pick(rng, &Seat::BOTH),
        items,
        advantage: pick(rng, &[None, Some(Seat::ZERO), Some(Seat::ONE)]),
        start_tile: Tile {
            human: Cell::new(x - dx, y - dy),
            cure: Cell::new(x, y),
            plague: Cell::new(x + dx, y + dy),
        },
        on_timeout: pick(rng, &[OnTimeout::Random, OnTimeout::Random, OnTimeout::Forfeit]),
    }
}

/// A move that spends items sparingly, and readily on a game's last tile, so that every
/// event (a Force Rush that lapses on the last tile included) turns up in a few hundred
/// matches.
fn choose(rng: &mut MatchRng, moves: &[CurePlagueMove], last_tile: bool) -> CurePlagueMove {
    let (with, without): (Vec<CurePlagueMove>, Vec<CurePlagueMove>) =
        moves.iter().partition(|m| m.item.is_some());
    let spend = if last_tile { rng.below(2) == 0 } else { rng.below(10) == 0 };
    if with.is_empty() || (!spend && !without.is_empty()) {
        pick(rng, &without)
    } else {
        pick(rng, &with)
    }
}

/// Plays one random match, checking every event, view and legal move on the way.
fn play(seed: u64, kinds: &mut BTreeSet<&'static str>) {
    let mut rng = driver(seed);
    let options = random_options(&mut rng);
    let match_seed = Seed::from_array(rng.bytes32());
    let hex = match_seed.to_hex();
    let mut log = Log::new();
    let mut m = Match::<CurePlague>::new(&options, match_seed, &mut log).unwrap();
    let mut checked = 0;
    let mut steps = 0;
    // A tenth of the matches end in a resignation, so that the rest run to the end.
    let resign_at = (rng.below(10) == 0).then(|| rng.below(45));
    loop {
        // The new events: all public (nothing is hidden), each checked.
        for Tagged { audience, event } in &log[checked..] {
            assert_eq!(*audience, Audience::Public, "{event:?}");
            let msg = match_event_to_proto::<CurePlague>(event);
            match event {
                MatchEvent::Game(e) => {
                    kinds.insert(check_event(e));
                    assert_eq!(msg, CurePlague::event_to_proto(e));
                }
                MatchEvent::Started { .. } => {
                    assert!(matches!(msg.kind, Some(event::Kind::MatchStarted(_))));
                }
                MatchEvent::Resigned { .. } => {
                    assert!(matches!(msg.kind, Some(event::Kind::Resigned(_))));
                }
                MatchEvent::Ended { .. } => {
                    let Some(event::Kind::MatchEnded(e)) = &msg.kind else { panic!("{msg:?}") };
                    assert_eq!(e.seed, hex, "the end reveals the seed");
                }
            }
            if !matches!(event, MatchEvent::Ended { .. }) {
                assert!(!format!("{msg:?}").contains(&hex), "the seed leaked in {msg:?}");
            }
        }
        checked = log.len();
        let views = check_views(&m);
        // The three viewers receive the very same message: no seat gets more than another.
        assert_eq!(views[0], views[2]);
        assert_eq!(views[1], views[2]);
        if !m.is_over() {
            assert!(!format!("{:?}", views[2]).contains(&hex), "the seed leaked in a view");
        }
        if m.is_over() {
            break;
        }
        steps += 1;
        assert!(steps < 500, "a match ends");
        let owing: Vec<Seat> = m.to_move().iter().collect();
        assert_eq!(owing.len(), 1, "one seat moves at a time");
        let seat = owing[0];
        let mut moves = Vec::new();
        m.legal_moves(seat, &mut moves);
        check_moves(&moves);
        let step = match rng.below(40) {
            _ if resign_at == Some(steps) => Step::Resign(seat),
            0 | 1 => Step::Deadline,
            _ => {
                let last = m.game().board().tiles().len() + 1 == rules_placement::TILES_PER_GAME;
                Step::Move { seat, mv: choose(&mut rng, &moves, last) }
            }
        };
        m.step(&step, &mut log).unwrap();
    }
}

#[test]
fn random_matches_convert_exactly() {
    let mut kinds = BTreeSet::new();
    for seed in 0..MATCHES {
        play(seed, &mut kinds);
    }
    let all = BTreeSet::from([
        "setup",
        "game_started",
        "tile_placed",
        "rushed",
        "rush_lapsed",
        "late",
        "game_scored",
    ]);
    assert_eq!(kinds, all, "every event kind was seen");
}

#[test]
fn deadlines_after_a_force_rush_convert() {
    // A rushed seat that misses its window hands its tile to the rusher: turn, window and
    // penalty must all say so on the wire.
    let options = CurePlagueOptions {
        items: ItemsBySeat { seat0: vec![Item::ForceRush], seat1: vec![] },
        ..CurePlagueOptions::default()
    };
    let mut log = Log::new();
    let mut m = Match::<CurePlague>::new(&options, Seed::from_array([7; 32]), &mut log).unwrap();
    let mut moves = Vec::new();
    m.legal_moves(Seat::ZERO, &mut moves);
    let rush = *moves.iter().find(|mv| mv.item == Some(Item::ForceRush)).unwrap();
    m.step(&Step::Move { seat: Seat::ZERO, mv: rush }, &mut log).unwrap();
    let p = |m: &Match<CurePlague>| match CurePlague::view_to_proto(&m.view(Viewer::Spectator).game)
        .game
    {
        Some(view::Game::CurePlague(p)) => p,
        other => panic!("{other:?}"),
    };
    let rushed = p(&m);
    assert_eq!(rushed.turn, v1::CurePlagueTurn::Rushed as i32);
    assert_eq!(
        rushed.window,
        Some(v1::CurePlagueWindow { fixed_ms: Some(30_000), reserve: false })
    );
    assert_eq!(rushed.to_move, Some(1));
    assert!(rushed.items0.is_empty(), "the Force Rush is spent");
    m.step(&Step::Deadline, &mut log).unwrap();
    let late = log.iter().rev().find_map(|t| match &t.event {
        MatchEvent::Game(e @ CurePlagueEvent::Late { .. }) => Some(CurePlague::event_to_proto(e)),
        _ => None,
    });
    let Some(v1::Event {
        kind: Some(event::Kind::CurePlague(v1::CurePlagueEvent { kind: Some(Kind::Late(l)) })),
    }) = late
    else {
        panic!("a late event");
    };
    assert_eq!((l.seat, l.penalty), (1, v1::CurePlaguePenalty::RusherMoves as i32));
    let handed = p(&m);
    assert_eq!(handed.turn, v1::CurePlagueTurn::ForOpponent as i32);
    assert_eq!((handed.to_move, handed.tile_of), (Some(0), Some(1)));
    assert_eq!(handed.window, Some(v1::CurePlagueWindow { fixed_ms: Some(60_000), reserve: true }));
}

#[test]
fn bad_moves_are_refused_by_name() {
    let gops = v1::Move { game: Some(r#move::Game::Gops(v1::GopsMove { card: 3 })) };
    assert_eq!(
        CurePlague::move_from_proto(&gops),
        Err(WireError::WrongGame { expected: "cure-plague" })
    );
    assert_eq!(CurePlague::move_from_proto(&v1::Move::default()), Err(WireError::Missing("game")));
    let full = v1::CurePlagueMove {
        human: Some(v1::Cell { x: -1, y: 1 }),
        cure: Some(v1::Cell { x: 0, y: 1 }),
        plague: Some(v1::Cell { x: 1, y: 1 }),
        item: v1::CurePlagueItem::Permute as i32,
    };
    let wrap = |m: v1::CurePlagueMove| v1::Move { game: Some(r#move::Game::CurePlague(m)) };
    assert_eq!(
        CurePlague::move_from_proto(&wrap(full)),
        Ok(CurePlagueMove {
            human: Cell::new(-1, 1),
            cure: Cell::new(0, 1),
            plague: Cell::new(1, 1),
            item: Some(Item::Permute),
        })
    );
    let without = |f: fn(&mut v1::CurePlagueMove)| {
        let mut m = full;
        f(&mut m);
        CurePlague::move_from_proto(&wrap(m))
    };
    assert_eq!(without(|m| m.human = None), Err(WireError::Missing("human")));
    assert_eq!(without(|m| m.cure = None), Err(WireError::Missing("cure")));
    assert_eq!(without(|m| m.plague = None), Err(WireError::Missing("plague")));
    assert_eq!(without(|m| m.item = 9), Err(WireError::Unknown { field: "item", value: 9 }));
    assert_eq!(
        CurePlague::move_from_proto(&wrap(v1::CurePlagueMove::default())),
        Err(WireError::Missing("human"))
    );
    // Extreme coordinates parse as they are; the rules judge them.
    let far =
        v1::CurePlagueMove { human: Some(v1::Cell { x: i64::MIN, y: i64::MAX }), item: 0, ..full };
    assert_eq!(
        CurePlague::move_from_proto(&wrap(far)).unwrap().human,
        Cell::new(i64::MIN, i64::MAX)
    );
}

#[test]
fn the_wire_visits_cure_plague_by_name() {
    struct Name;
    impl games::Visit for Name {
        type Out = &'static str;
        fn visit<G: games::Hostable>(self) -> &'static str {
            G::NAME
        }
    }
    assert_eq!(games::visit("cure-plague", Name), Some("cure-plague"));
}
