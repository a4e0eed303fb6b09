//! Unit tests of the Hexspiel rules: the Hex theorem on random full boards (checked
//! against a flood fill), determinism, refusals that change nothing, hidden bids, and
//! random playthroughs in which every listed legal move is accepted.

use super::*;
use rules_core::{Discard, EventLog, Match, Seed, Tagged};
use serde_json::{Value, json};

fn seed(n: u8) -> Seed {
    Seed::from_array([n; 32])
}

fn cell(name: &str) -> Cell {
    CellName::parse(name).and_then(CellName::cell).expect("a board cell")
}

/// A flood fill from one side, the slow way, to check the union-find against.
fn flood_connected(b: &Board, seat: Seat) -> bool {
    let own = b.stones(seat).0;
    let (first, second) = board::sides(seat);
    let mut seen = own & first;
    loop {
        let mut grown = seen;
        for c in CellSet(seen).iter() {
            grown |= NEIGHBOURS[c.index()] & own;
        }
        if grown == seen {
            return seen & second != 0;
        }
        seen = grown;
    }
}

#[test]
fn random_full_boards_have_exactly_one_connected_seat() {
    let mut rng = seed(7).rng();
    for _ in 0..500 {
        let mut order: Vec<usize> = (0..CELLS).collect();
        rng.shuffle(&mut order);
        let mut b = Board::default();
        for &i in &order {
            // Any split of the cells, not only alternating turns.
            let seat = if rng.below(2) == 0 { Seat::ZERO } else { Seat::ONE };
            b.place(seat, Cell::from_index(i));
            for s in Seat::BOTH {
                assert_eq!(b.connected(s), flood_connected(&b, s));
            }
        }
        assert!(b.empty().is_empty());
        assert!(
            b.connected(Seat::ZERO) ^ b.connected(Seat::ONE),
            "{}",
            b.render(&Costs::default())
        );
    }
}

fn play(m: &mut Match<Hexspiel>, log: &mut EventLog<HexspielEvent>, steps: &[(u8, Value)]) {
    for (s, mv) in steps {
        let mv: HexspielMove = serde_json::from_value(mv.clone()).unwrap();
        m.submit(Seat::new(u64::from(*s)).unwrap(), &mv, log).unwrap();
    }
}

fn prizes(order: [u8; 7]) -> HexspielOptions {
    HexspielOptions { prizes: Some(vec![order.to_vec()]), ..HexspielOptions::default() }
}

#[test]
fn a_refused_move_changes_nothing_and_emits_nothing() {
    let mut log = Vec::new();
    let mut m = Match::<Hexspiel>::new(&prizes([5, 1, 2, 3, 4, 6, 7]), seed(1), &mut log).unwrap();
    play(&mut m, &mut log, &[(0, json!({"bid": 7})), (1, json!({"bid": 3}))]);
    let before = (serde_json::to_value(m.summary()).unwrap(), format!("{:?}", m.game()), log.len());
    for bad in [
        json!({"place": ["a1", "a2", "a3"]}),
        json!({"place": ["a1", "a1"]}),
        json!({"place": ["i1"]}),
        json!({"place": ["d4", "e4", "d5"]}),
        json!({"place": ["d4", "e5", "c1"]}),
        json!({"place": ["a1"], "pattern": {"kind": "row5", "cells": ["a1", "b1", "c1", "d1", "e1"]}}),
        json!({"bid": 2}),
    ] {
        let mv: HexspielMove = serde_json::from_value(bad.clone()).unwrap();
        assert!(m.submit(Seat::ZERO, &mv, &mut log).is_err(), "{bad}");
        let after =
            (serde_json::to_value(m.summary()).unwrap(), format!("{:?}", m.game()), log.len());
        assert_eq!(before, after, "{bad}");
    }
}

#[test]
fn same_seed_and_steps_give_the_same_events() {
    let run = || {
        let mut log = Vec::new();
        let mut m = Match::<Hexspiel>::new(&HexspielOptions::default(), seed(3), &mut log).unwrap();
        for _ in 0..40 {
            if m.is_over() {
                break;
            }
            m.deadline(&mut log).unwrap();
        }
        serde_json::to_string(&log).unwrap()
    };
    assert_eq!(run(), run());
}

#[test]
fn a_sealed_bid_reaches_only_its_seat() {
    // Seat 0 bids 9 or 2; whatever it bid, seat 1 and spectators see the same.
    let seen = |card: i64| {
        let mut log: EventLog<HexspielEvent> = Vec::new();
        let mut m = Match::<Hexspiel>::new(&HexspielOptions::default(), seed(4), &mut log).unwrap();
        m.submit(Seat::ZERO, &HexspielMove::Bid(card), &mut log).unwrap();
        let public: Vec<&Tagged<_>> =
            log.iter().filter(|t| t.audience.admits(Viewer::Seat(Seat::ONE))).collect();
        (
            serde_json::to_string(&public).unwrap(),
            serde_json::to_string(&m.view(Viewer::Seat(Seat::ONE))).unwrap(),
            serde_json::to_string(&m.view(Viewer::Spectator)).unwrap(),
        )
    };
    assert_eq!(seen(9), seen(2));
    // And the prize order of the set stays hidden: only the face-up prize is named.
    let m = Match::<Hexspiel>::new(&HexspielOptions::default(), seed(4), &mut Discard).unwrap();
    let v = m.view(Viewer::Seat(Seat::ONE)).game;
    assert_eq!(v.prizes_left.len(), 6);
    assert!(!v.prizes_left.contains(v.prize.unwrap()));
    assert_eq!(v.hand, Some(CARDS));
}

#[test]
fn every_listed_legal_move_is_accepted() {
    let mut rng = seed(9).rng();
    let mut legal = Vec::new();
    for game in 0..20u8 {
        let mut m =
            Match::<Hexspiel>::new(&HexspielOptions::default(), seed(game), &mut Discard).unwrap();
        while !m.is_over() {
            let seat = m.to_move().iter().next().unwrap();
            legal.clear();
            m.legal_moves(seat, &mut legal);
            assert!(!legal.is_empty());
            // Every move on the list is accepted (checked on copies for a sample).
            for mv in legal.iter().step_by(97) {
                m.clone().submit(seat, mv, &mut Discard).unwrap();
            }
            let mv = legal[rng.below(legal.len() as u32) as usize];
            m.submit(seat, &mv, &mut Discard).unwrap();
        }
        assert_eq!(m.outcome().unwrap().reason, EndReason::Connected);
    }
}

#[test]
fn a_completable_pattern_is_listed_and_claimed() {
    // Seat 1 wins five rounds and lays a1..e1, then declares row5 with its last stone.
    let mut log = Vec::new();
    let mut m = Match::<Hexspiel>::new(&prizes([1, 2, 3, 4, 5, 6, 7]), seed(0), &mut log).unwrap();
    let mut steps = Vec::new();
    for (k, cells) in [["a1", "b1"], ["c1", "d1"]].iter().enumerate() {
        steps.push((0, json!({"bid": k + 1})));
        steps.push((1, json!({"bid": k + 5})));
        steps.push((1, json!({"place": cells})));
    }
    steps.push((0, json!({"bid": 5})));
    steps.push((1, json!({"bid": 7})));
    play(&mut m, &mut log, &steps);
    let mut legal = Vec::new();
    m.legal_moves(Seat::ONE, &mut legal);
    let row5: Vec<_> = legal
        .iter()
        .filter(|mv| matches!(mv, HexspielMove::Hex { pattern: Some(_), .. }))
        .collect();
    // e1 alone or with any other affordable empty cell completes a1..e1.
    assert!(!row5.is_empty());
    assert!(row5.iter().all(|mv| {
        serde_json::to_value(mv).unwrap()["place"].as_array().unwrap().contains(&json!("e1"))
    }));
    play(
        &mut m,
        &mut log,
        &[(
            1,
            json!({"place": ["e1"], "pattern": {"kind": "row5", "cells": ["e1", "d1", "c1", "b1", "a1"]}}),
        )],
    );
    assert!(m.game().claims[Seat::ONE].has(PatternKind::Row5));
    // The upgraded 4 is unplayed this set: winning with it now gives +4 AP.
    let ap = m.game().ap[Seat::ONE];
    play(&mut m, &mut log, &[(0, json!({"bid": 3})), (1, json!({"bid": 4}))]);
    let worth = m.game().last.unwrap().prize;
    assert_eq!(m.game().ap[Seat::ONE], ap + prize_ap(worth) + 4);
}

#[test]
fn the_set_limit_ends_in_a_draw_and_hands_refill_each_set() {
    let o = HexspielOptions { max_sets: 2, ..HexspielOptions::default() };
    let mut m = Match::<Hexspiel>::new(&o, seed(5), &mut Discard).unwrap();
    // Everyone always late: every round a tie, no stones, two sets of seven rounds.
    let mut deadlines = 0;
    while !m.is_over() {
        if deadlines == 7 {
            let v = m.view(Viewer::Seat(Seat::ZERO)).game;
            assert_eq!((v.set, v.round, v.hand), (2, 0, Some(CARDS)));
        }
        m.deadline(&mut Discard).unwrap();
        deadlines += 1;
    }
    assert_eq!(deadlines, 14);
    assert_eq!(m.outcome(), Some(Outcome::draw(EndReason::Abandoned)));
    let s = serde_json::to_value(m.summary()).unwrap();
    assert_eq!(
        (s["set"].clone(), s["round"].clone(), s["to_move"].clone()),
        (json!(2), json!(7), Value::Null)
    );
}

#[test]
fn options_are_checked() {
    let bad = [
        HexspielOptions { max_sets: 0, ..Default::default() },
        HexspielOptions { prizes: Some(vec![vec![1, 2, 3, 4, 5, 6]]), ..Default::default() },
        HexspielOptions { prizes: Some(vec![vec![1, 2, 3, 4, 5, 6, 6]]), ..Default::default() },
        HexspielOptions { costs: Some(vec!["11111111".into(); 7]), ..Default::default() },
        HexspielOptions { costs: Some(vec!["1111111x".into(); 8]), ..Default::default() },
    ];
    for o in bad {
        assert!(Match::<Hexspiel>::new(&o, seed(0), &mut Discard).is_err(), "{o:?}");
    }
    let o: HexspielOptions = serde_json::from_value(json!({"costs": vec!["99999999"; 8]})).unwrap();
    let m = Match::<Hexspiel>::new(&o, seed(0), &mut Discard).unwrap();
    assert_eq!(m.game().costs.of(cell("d4")), 9);
    assert!(serde_json::from_value::<HexspielOptions>(json!({"cap": 3})).is_err());
}

#[test]
fn a_view_renders_as_text() {
    let m = Match::<Hexspiel>::new(&HexspielOptions::default(), seed(0), &mut Discard).unwrap();
    let text = m.view(Viewer::Spectator).game.render();
    assert!(text.contains("seat 0: 5 AP"), "{text}");
    assert!(text.contains("set 1, round 0 of 7, prize worth"), "{text}");
}

/// A game whose board holds stones everywhere but `empty`, with seat 0 owing its Hex
/// turn and holding `ap`.
fn nearly_full(empty: &[&str], ap: u32) -> Hexspiel {
    let mut m = Match::<Hexspiel>::new(&HexspielOptions::default(), seed(0), &mut Discard)
        .unwrap()
        .game()
        .clone();
    let keep: u64 = empty.iter().map(|n| cell(n).bit()).fold(0, |a, b| a | b);
    for c in Cell::all().filter(|c| keep & c.bit() == 0) {
        // Rows alternate owners: no seat-1 row is whole and no column is seat 0's.
        let owner = if c.row() % 2 == 0 { Seat::ONE } else { Seat::ZERO };
        m.board.place(owner, c);
    }
    m.ap[Seat::ZERO] = ap;
    m.turn = Turn::Hex(Seat::ZERO);
    m
}

#[test]
fn the_stockpile_rule_lapses_when_one_empty_cell_remains() {
    let mut rng = seed(0).rng();
    // Two empty cells: one stone leaving 39 > 30 is refused, two are fine.
    let g = nearly_full(&["d4", "e5"], 40);
    let one = HexspielMove::place([cell("d4")]);
    assert_eq!(
        g.clone().apply(Seat::ZERO, &one, &mut rng, &mut Discard),
        Err(HexspielIllegal::Stockpile { left: 36, cap: 30 })
    );
    let two = HexspielMove::place([cell("d4"), cell("e5")]);
    assert_eq!(g.clone().apply(Seat::ZERO, &two, &mut rng, &mut Discard), Ok(()));
    // One empty cell: placing it, or nothing, may leave any amount.
    let g = nearly_full(&["d4"], 40);
    assert_eq!(g.clone().apply(Seat::ZERO, &one, &mut rng, &mut Discard), Ok(()));
    let none = HexspielMove::place([]);
    assert_eq!(g.clone().apply(Seat::ZERO, &none, &mut rng, &mut Discard), Ok(()));
    let mut legal = Vec::new();
    g.legal_moves(Seat::ZERO, &mut legal);
    // (Seat 0's full rows also offer row5 declarations; the placements are these two.)
    legal.retain(|mv| matches!(mv, HexspielMove::Hex { pattern: None, .. }));
    assert_eq!(legal, [none, one]);
    // A missed Hex turn then breaks no rule either, while with two empty cells it loses.
    let mut late = g.clone();
    late.deadline(&mut rng, &mut Discard);
    assert_eq!(late.outcome(), None);
    let mut late = nearly_full(&["d4", "e5"], 40);
    late.deadline(&mut rng, &mut Discard);
    assert_eq!(late.outcome(), Some(Outcome::win(Seat::ONE, EndReason::RuleViolation)));
}
