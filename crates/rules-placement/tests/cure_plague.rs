//! Cure & Plague beyond the scripts: turn flow around Force Rush and timeouts, move
//! windows and reserve, that legal moves are exactly the moves `apply` accepts, that
//! refusals change nothing, and the leak and determinism checks of the rules core.

use rules_core::testkit::Observed;
use rules_core::{
    EndReason, Game, Match, MatchRng, Seat, Seed, Step, Viewer, Window, WindowLength,
};
use rules_placement::board::{Cell, DIRS, Tile};
use rules_placement::cure_plague::{ItemsBySeat, MOVE_MS, RESERVE_MS, RUSH_MS};
use rules_placement::{
    CurePlague, CurePlagueIllegal, CurePlagueMove, CurePlagueOptions, Item, OnTimeout, Turn,
};
use serde_json::Value;

const S0: Seat = Seat::ZERO;
const S1: Seat = Seat::ONE;

fn mv(h: [i64; 2], c: [i64; 2], p: [i64; 2], item: Option<Item>) -> CurePlagueMove {
    CurePlagueMove { human: h.into(), cure: c.into(), plague: p.into(), item }
}

/// The straight tile in row `y`, human west.
fn row(y: i64) -> CurePlagueMove {
    mv([-1, y], [0, y], [1, y], None)
}

fn start(
    options: CurePlagueOptions,
) -> (
    Match<CurePlague>,
    Vec<rules_core::Tagged<rules_core::MatchEvent<rules_placement::CurePlagueEvent>>>,
) {
    let mut log = Vec::new();
    let m = Match::new(&options, Seed::ZERO, &mut log).unwrap();
    (m, log)
}

fn json<T: serde::Serialize>(t: &T) -> Value {
    serde_json::to_value(t).unwrap()
}

fn with_items(i0: &[Item], i1: &[Item]) -> CurePlagueOptions {
    CurePlagueOptions {
        items: ItemsBySeat { seat0: i0.to_vec(), seat1: i1.to_vec() },
        ..CurePlagueOptions::default()
    }
}

#[test]
fn force_rush_lapse_lets_the_rusher_place_the_rushed_tile_then_its_own() {
    let (mut m, mut log) = start(with_items(&[Item::ForceRush], &[]));
    assert_eq!(
        m.game().window(S0),
        Window { length: WindowLength::FixedMs(MOVE_MS), reserve: true }
    );
    m.submit(S0, &mv([-1, 1], [0, 1], [1, 1], Some(Item::ForceRush)), &mut log).unwrap();
    // Seat 1 is rushed: 30 seconds, no reserve.
    assert_eq!(m.to_move().iter().collect::<Vec<_>>(), [S1]);
    assert_eq!(
        m.game().window(S1),
        Window { length: WindowLength::FixedMs(RUSH_MS), reserve: false }
    );
    m.deadline(&mut log).unwrap();
    // Seat 0 now owes seat 1's tile, in a normal window, without any item.
    let v = m.game().view(Viewer::Spectator);
    assert_eq!((v.to_move, v.tile_of, v.turn), (Some(S0), Some(S1), Turn::ForOpponent));
    assert_eq!(
        m.game().window(S0),
        Window { length: WindowLength::FixedMs(MOVE_MS), reserve: true }
    );
    assert_eq!(v.reserve_ms.0, [RESERVE_MS, RESERVE_MS], "the rushed seat had no reserve to spend");
    let before = json(&m.summary());
    assert_eq!(
        m.submit(S0, &mv([-1, 2], [0, 2], [1, 2], Some(Item::Permute)), &mut log),
        Err(rules_core::Refusal::Illegal(CurePlagueIllegal::ItemForOpponent(Item::Permute)))
    );
    assert_eq!(json(&m.summary()), before);
    assert!(m.submit(S1, &row(2), &mut log).is_err(), "seat 1 no longer owes the move");
    m.submit(S0, &row(2), &mut log).unwrap();
    let placed = json(&log.last().unwrap().event);
    assert_eq!(placed["type"], "tile_placed");
    assert_eq!((placed["seat"].clone(), placed["by"].clone()), (Value::from(1), Value::from(0)));
    // Then seat 0's own move, as usual.
    let v = m.game().view(Viewer::Seat(S0));
    assert_eq!((v.to_move, v.tile_of, v.turn, v.tiles.len()), (Some(S0), Some(S0), Turn::Own, 3));
    assert!(v.items[S0].iter().next().is_none(), "Force Rush is spent");
}

#[test]
fn a_rushed_seat_that_moves_in_time_just_moves() {
    let (mut m, mut log) = start(with_items(&[Item::ForceRush], &[]));
    m.submit(S0, &mv([-1, 1], [0, 1], [1, 1], Some(Item::ForceRush)), &mut log).unwrap();
    m.submit(S1, &row(2), &mut log).unwrap();
    let v = m.game().view(Viewer::Spectator);
    assert_eq!((v.to_move, v.turn), (Some(S0), Turn::Own));
    assert_eq!(
        m.submit(S0, &mv([-1, 3], [0, 3], [1, 3], Some(Item::ForceRush)), &mut log),
        Err(rules_core::Refusal::Illegal(CurePlagueIllegal::ItemSpent(Item::ForceRush)))
    );
}

#[test]
fn a_rusher_late_for_the_rushed_tile_gets_on_timeout() {
    let (mut m, mut log) = start(with_items(&[Item::ForceRush], &[]));
    m.submit(S0, &mv([-1, 1], [0, 1], [1, 1], Some(Item::ForceRush)), &mut log).unwrap();
    m.deadline(&mut log).unwrap();
    m.deadline(&mut log).unwrap();
    // A random straight tile filled seat 1's turn; seat 0's reserve is spent.
    let placed = json(&log.last().unwrap().event);
    assert_eq!((placed["seat"].clone(), placed["by"].clone()), (Value::from(1), Value::Null));
    let v = m.game().view(Viewer::Spectator);
    assert_eq!(v.reserve_ms.0, [0, RESERVE_MS]);
    assert_eq!((v.to_move, v.turn, v.tiles.len()), (Some(S0), Turn::Own, 3));
    assert!(!m.game().window(S0).reserve);

    let mut o = with_items(&[Item::ForceRush], &[]);
    o.on_timeout = OnTimeout::Forfeit;
    let (mut m, mut log) = start(o);
    m.submit(S0, &mv([-1, 1], [0, 1], [1, 1], Some(Item::ForceRush)), &mut log).unwrap();
    m.deadline(&mut log).unwrap();
    assert!(!m.is_over(), "the rushed seat's lapse is not a forfeit");
    m.deadline(&mut log).unwrap();
    assert_eq!(
        m.outcome().map(|o| (o.winner, o.reason)),
        Some((Some(S1), EndReason::MissedDeadline))
    );
}

#[test]
fn reserve_spent_in_game_one_stays_spent_in_game_two() {
    let (mut m, mut log) = start(CurePlagueOptions::default());
    m.deadline(&mut log).unwrap(); // seat 0 late: a random tile
    let mut legal = Vec::new();
    while m.game().view(Viewer::Spectator).game == 1 {
        let seat = m.to_move().iter().next().unwrap();
        legal.clear();
        m.legal_moves(seat, &mut legal);
        m.submit(seat, &legal[0], &mut log).unwrap();
    }
    let v = m.game().view(Viewer::Spectator);
    assert_eq!((v.to_move, v.reserve_ms.0), (Some(S1), [0, RESERVE_MS]));
    assert!(!m.game().window(S0).reserve && m.game().window(S1).reserve);
}

#[test]
fn a_force_rush_on_the_last_tile_lapses_and_is_spent() {
    let (mut m, mut log) = start(with_items(&[], &[Item::ForceRush]));
    for y in 1..20 {
        let seat = if y % 2 == 1 { S0 } else { S1 };
        m.submit(seat, &row(y), &mut log).unwrap();
    }
    m.submit(S1, &mv([-1, 20], [0, 20], [1, 20], Some(Item::ForceRush)), &mut log).unwrap();
    let types: Vec<Value> =
        log.iter().rev().take(4).map(|t| json(&t.event)["type"].clone()).collect();
    assert_eq!(types, ["game_started", "game_scored", "rush_lapsed", "tile_placed"]);
    let v = m.game().view(Viewer::Spectator);
    assert_eq!((v.game, v.to_move, v.turn), (2, Some(S1), Turn::Own));
    assert_eq!(m.game().window(S1).length, WindowLength::FixedMs(MOVE_MS));
    assert!(v.items[S1].iter().next().is_none());
}

#[test]
fn forfeit_on_timeout_loses_the_match() {
    let o = CurePlagueOptions { on_timeout: OnTimeout::Forfeit, ..CurePlagueOptions::default() };
    let (mut m, mut log) = start(o);
    m.submit(S0, &row(1), &mut log).unwrap();
    m.deadline(&mut log).unwrap();
    assert_eq!(
        m.outcome().map(|o| (o.winner, o.reason)),
        Some((Some(S0), EndReason::MissedDeadline))
    );
}

#[test]
fn options_are_checked() {
    let mut rng = Seed::ZERO.rng();
    let bad_start = CurePlagueOptions {
        start_tile: Tile { human: Cell::new(0, 1), cure: Cell::new(0, 0), plague: Cell::new(1, 0) },
        ..CurePlagueOptions::default()
    };
    assert_eq!(
        CurePlague::new(&bad_start, &mut rng, &mut Vec::new()).unwrap_err().option,
        "start_tile"
    );
    let twice = with_items(&[Item::Permute, Item::Permute], &[]);
    assert_eq!(CurePlague::new(&twice, &mut rng, &mut Vec::new()).unwrap_err().option, "items");
    let far = CurePlagueOptions {
        start_tile: Tile {
            human: Cell::new(i64::MAX - 2, 0),
            cure: Cell::new(i64::MAX - 1, 0),
            plague: Cell::new(i64::MAX, 0),
        },
        ..CurePlagueOptions::default()
    };
    assert_eq!(CurePlague::new(&far, &mut rng, &mut Vec::new()).unwrap_err().option, "start_tile");
    let bad: Result<CurePlagueOptions, _> =
        serde_json::from_str(r#"{"items": {"0": ["advantage"]}}"#);
    assert!(bad.is_err());
    let bad: Result<CurePlagueOptions, _> = serde_json::from_str(r#"{"items": {"2": []}}"#);
    assert!(bad.is_err());
}

#[test]
fn move_shapes() {
    let ok: CurePlagueMove =
        serde_json::from_str(r#"{"human":[0,1],"cure":[0,2],"plague":[0,3],"item":"force_rush"}"#)
            .unwrap();
    assert_eq!(ok.item, Some(Item::ForceRush));
    for bad in [
        r#"{"human":[0,1],"cure":[0,2],"plague":[0,3],"item":null}"#,
        r#"{"human":[0,1],"cure":[0,2],"plague":[0,3],"item":"advantage"}"#,
        r#"{"human":[0,1],"cure":[0,2]}"#,
        r#"{"human":[0,1,2],"cure":[0,2],"plague":[0,3]}"#,
        r#"{"human":[0.5,1],"cure":[0,2],"plague":[0,3]}"#,
        r#"{"human":[0,1],"cure":[0,2],"plague":[0,3],"extra":1}"#,
    ] {
        assert!(serde_json::from_str::<CurePlagueMove>(bad).is_err(), "{bad}");
    }
}

/// Every move of every shape and item whose cure lies near the board.
fn candidates(g: &CurePlague) -> Vec<CurePlagueMove> {
    let tiles = g.board().tiles();
    let xs = tiles.iter().flat_map(|t| [t.human.x, t.cure.x, t.plague.x]);
    let ys = tiles.iter().flat_map(|t| [t.human.y, t.cure.y, t.plague.y]);
    let (x0, x1) = (xs.clone().min().unwrap() - 3, xs.max().unwrap() + 3);
    let (y0, y1) = (ys.clone().min().unwrap() - 3, ys.max().unwrap() + 3);
    let mut out = Vec::new();
    for y in y0..=y1 {
        for x in x0..=x1 {
            let c = [x, y];
            let at = |d: (i64, i64), k: i64| [x + k * d.0, y + k * d.1];
            let mut shapes = Vec::new();
            for (i, &a) in DIRS.iter().enumerate() {
                for (j, &b) in DIRS.iter().enumerate() {
                    if i != j {
                        shapes.push((at(a, 1), at(b, 1))); // straight or L
                    }
                }
                shapes.push((at(a, 1), at(a, 2))); // cure at an end
                shapes.push((at(a, 2), at(a, 1)));
            }
            for (h, p) in shapes {
                for item in
                    [None, Some(Item::Permute), Some(Item::Transform), Some(Item::ForceRush)]
                {
                    out.push(mv(h, c, p, item));
                }
            }
        }
    }
    out
}

#[test]
fn legal_moves_are_exactly_the_accepted_moves_and_refusals_change_nothing() {
    let items = [Item::Permute, Item::Transform, Item::ForceRush];
    let mut m =
        Match::<CurePlague>::new(&with_items(&items, &items), Seed::ZERO, &mut Vec::new()).unwrap();
    let mut pick = Seed::parse("0123456789abcdef").unwrap().rng();
    let mut legal = Vec::new();
    for turn in 0..12 {
        let seat = m.to_move().iter().next().unwrap();
        legal.clear();
        m.legal_moves(seat, &mut legal);
        let mut sorted: Vec<String> =
            legal.iter().map(|l| serde_json::to_string(l).unwrap()).collect();
        sorted.sort();
        let before = m.game().view(Viewer::Spectator);
        let before = (json(&before), json(&m.summary()));
        let mut accepted = 0;
        for (i, c) in candidates(m.game()).iter().enumerate() {
            let key = serde_json::to_string(c).unwrap();
            let listed = sorted.binary_search(&key).is_ok();
            let mut g = m.game().clone();
            let mut rng: MatchRng = Seed::ZERO.rng();
            let ok = g.apply(seat, c, &mut rng, &mut Vec::new()).is_ok();
            assert_eq!(ok, listed, "turn {turn}: {key} accepted {ok}, listed {listed}");
            accepted += usize::from(ok);
            if !ok && i % 97 == 0 {
                assert_eq!((json(&g.view(Viewer::Spectator)), json(&g.summary())), before);
            }
        }
        assert_eq!(accepted, legal.len(), "turn {turn}: every listed move is a candidate");
        // A refused step through the match changes nothing either.
        let wrong = mv([100, 100], [100, 101], [100, 102], None);
        assert!(m.submit(seat, &wrong, &mut Vec::new()).is_err());
        assert_eq!((json(&m.game().view(Viewer::Spectator)), json(&m.summary())), before);
        let next = legal[pick.below(legal.len() as u32) as usize];
        m.submit(seat, &next, &mut Vec::new()).unwrap();
    }
}

/// Plays a whole match from `seed`: random legal moves, and (when `deadlines`) now and
/// then a deadline.
fn random_steps(
    options: &CurePlagueOptions,
    seed: Seed,
    steps_seed: &str,
    deadlines: bool,
) -> Vec<Step<CurePlagueMove>> {
    let mut m = Match::<CurePlague>::new(options, seed, &mut Vec::new()).unwrap();
    let mut pick = Seed::parse(steps_seed).unwrap().rng();
    let mut steps = Vec::new();
    let mut legal = Vec::new();
    while !m.is_over() {
        let seat = m.to_move().iter().next().unwrap();
        legal.clear();
        m.legal_moves(seat, &mut legal);
        let step = if deadlines && pick.below(8) == 0 {
            Step::Deadline
        } else {
            Step::Move { seat, mv: legal[pick.below(legal.len() as u32) as usize] }
        };
        m.step(&step, &mut Vec::new()).unwrap();
        steps.push(step);
    }
    steps
}

#[test]
fn same_seed_and_steps_give_the_same_events_byte_for_byte() {
    let items = [Item::Permute, Item::Transform, Item::ForceRush];
    let o = with_items(&items, &items);
    for (seed, steps_seed) in [
        ("00000000000000000000000000000001", "1111111111111111"),
        ("ffffffffffffffff", "2222222222222222"),
    ] {
        let seed = Seed::parse(seed).unwrap();
        let steps = random_steps(&o, seed, steps_seed, true);
        let run = || {
            let mut obs = Observed::<CurePlague>::new(&o, seed).unwrap();
            for s in &steps {
                obs.step(s).unwrap();
            }
            obs.event_bytes()
        };
        assert_eq!(run(), run());
    }
}

#[test]
fn random_timeout_tiles_come_from_the_seed() {
    let o = CurePlagueOptions::default();
    let tile_after_deadline = |seed: &str| {
        let mut log = Vec::new();
        let mut m = Match::<CurePlague>::new(&o, Seed::parse(seed).unwrap(), &mut log).unwrap();
        m.deadline(&mut log).unwrap();
        json(&log.last().unwrap().event)["tile"].clone()
    };
    let tiles: Vec<Value> =
        ["0000000000000001", "0000000000000002", "0000000000000003", "0000000000000004"]
            .iter()
            .map(|s| tile_after_deadline(s))
            .collect();
    assert_eq!(tile_after_deadline("0000000000000001"), tiles[0]);
    assert!(tiles.iter().any(|t| *t != tiles[0]), "different seeds draw different tiles");
}

/// Removes the viewer's own seat number from a serialized view, the one thing in which the
/// seats' views may differ.
fn anonymous(s: &str) -> String {
    s.replacen("{\"viewer\":0,", "{\"viewer\":null,", 1).replacen(
        "{\"viewer\":1,",
        "{\"viewer\":null,",
        1,
    )
}

#[test]
fn every_viewer_sees_the_same_and_the_seed_shows_only_at_the_end() {
    let items = [Item::Permute, Item::ForceRush];
    let o = with_items(&items, &[Item::Transform]);
    let a_seed = Seed::parse("00000000000000000000000000000007").unwrap();
    let b_seed = Seed::parse("1234567890abcdef1234567890abcdef").unwrap();
    // No deadlines: then nothing depends on the seed, and two seeds must look alike.
    let steps = random_steps(&o, a_seed, "3333333333333333", false);
    let play = |seed: Seed| {
        let mut obs = Observed::<CurePlague>::new(&o, seed).unwrap();
        for s in &steps {
            obs.step(s).unwrap();
        }
        obs
    };
    let (a, b) = (play(a_seed), play(b_seed));
    for obs in [&a, &b] {
        let spectator: Vec<String> =
            obs.seen(Viewer::Spectator).iter().map(|s| anonymous(s)).collect();
        for seat in [S0, S1] {
            let seen: Vec<String> =
                obs.seen(Viewer::Seat(seat)).iter().map(|s| anonymous(s)).collect();
            if let Some(i) =
                (0..seen.len().max(spectator.len())).find(|&i| seen.get(i) != spectator.get(i))
            {
                panic!(
                    "all information is public, yet {seat} saw item {i} as\n{:?}\nand a spectator as\n{:?}",
                    seen.get(i),
                    spectator.get(i)
                );
            }
        }
    }
    // Apart from the commitment (first) and the revealed seed, a viewer cannot tell the seeds apart.
    let strip = |obs: &Observed<CurePlague>| -> Vec<String> {
        obs.seen(Viewer::Seat(S0))[1..]
            .iter()
            .filter(|s| !s.contains("match_ended"))
            .cloned()
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
}

/// Issue 12: coordinates at the ends of i64 (and just inside them) are refused as
/// illegal moves, never a panic. `Board::index` took `abs()` of `i64::MIN - 0`, which
/// overflows, and then indexed the grid with the wrapped value.
#[test]
fn extreme_coordinates_are_illegal_never_a_panic() {
    let vals = [i64::MIN, i64::MIN + 1, i64::MIN + 2, -1 << 62, 1 << 62, i64::MAX - 1, i64::MAX];
    for items in [&[][..], &Item::ALL[..]] {
        let (mut m, mut log) = start(with_items(items, items));
        let before = (json(&m.summary()), json(&m.view(Viewer::Spectator)), log.len());
        for &a in &vals {
            for &b in &vals {
                for item in [None, Some(Item::Permute), Some(Item::Transform)] {
                    for t in [
                        mv([a, b], [a, b], [a, b], item),
                        mv([a, 0], [b, 0], [0, 0], item),
                        mv([a, b], [a.wrapping_add(1), b], [a.wrapping_add(2), b], item),
                        mv([0, a], [0, b], [1, 0], item),
                    ] {
                        let r = m.submit(S0, &t, &mut log);
                        let Err(e) = r else { panic!("{t:?} was accepted") };
                        assert_eq!(e.code().as_str(), "illegal_move", "{t:?}");
                    }
                }
            }
        }
        assert_eq!(before, (json(&m.summary()), json(&m.view(Viewer::Spectator)), log.len()));
    }
}
