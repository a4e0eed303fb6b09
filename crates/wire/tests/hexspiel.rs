//! Hexspiel's wire conversions, checked over random matches: every event and every view
//! (both seats and a spectator) is read back from its protobuf into the rules' JSON shape
//! and compared with the rules' own JSON, so every field, and every hidden one, is pinned.

use api::v1::{self, event, hexspiel_event, hexspiel_move, r#move, view};
use rules_core::{Match, MatchEvent, MatchRng, Seat, Seed, Step, Tagged, Viewer};
use rules_goofspiel::hexspiel::{
    CARDS, CellList, Declaration, Hexspiel, HexspielEvent, HexspielMove, HexspielOptions,
    HexspielView, PatternKind,
};
use serde_json::{Value, json};
use wire::{Wire, WireError, match_event_to_proto};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];

fn driver(seed: u64) -> MatchRng {
    Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes").rng()
}

fn pick<T: Clone>(rng: &mut MatchRng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u32) as usize].clone()
}

fn legal(m: &Match<Hexspiel>, seat: Seat) -> Vec<HexspielMove> {
    let mut v = Vec::new();
    m.legal_moves(seat, &mut v);
    v
}

/// The oneof case each rules event must become: the explicit table the conversion is
/// checked against (a new variant fails to compile here too).
fn expected_kind(e: &HexspielEvent) -> &'static str {
    match e {
        HexspielEvent::Setup { .. } => "setup",
        HexspielEvent::SetStarted { .. } => "set_started",
        HexspielEvent::RoundStarted { .. } => "round_started",
        HexspielEvent::Moved { .. } => "moved",
        HexspielEvent::BidSealed { .. } => "bid_sealed",
        HexspielEvent::Revealed { .. } => "revealed",
        HexspielEvent::SetBonus { .. } => "set_bonus",
        HexspielEvent::HexTurn { .. } => "hex_turn",
        HexspielEvent::Placed { .. } => "placed",
        HexspielEvent::PatternClaimed { .. } => "pattern_claimed",
        HexspielEvent::HexMissed { .. } => "hex_missed",
        HexspielEvent::Connected { .. } => "connected",
    }
}

fn pair_json(p: &Option<v1::SeatPair>) -> Value {
    let p = p.as_ref().expect("a pair is always set");
    json!([p.seat0, p.seat1])
}

fn seat_json(s: Option<u32>) -> Value {
    s.map_or(Value::Null, |s| json!(s))
}

fn kind_name(k: i32) -> &'static str {
    match v1::HexspielPatternKind::try_from(k).expect("a known kind") {
        v1::HexspielPatternKind::Row5 => "row5",
        v1::HexspielPatternKind::Ring6 => "ring6",
        v1::HexspielPatternKind::Y7 => "y7",
        v1::HexspielPatternKind::Unspecified => panic!("a kind is always set"),
    }
}

/// 64 costs, a1 first, back to the option's eight strings.
fn costs_json(c: &[u32]) -> Value {
    assert_eq!(c.len(), 64);
    let rows: Vec<String> = c
        .chunks(8)
        .map(|r| r.iter().map(|d| char::from_digit(*d, 10).unwrap()).collect())
        .collect();
    json!(rows)
}

/// A protobuf event in the rules' JSON shape, with its oneof case as the tag.
fn event_json(k: &hexspiel_event::Kind) -> (&'static str, Value) {
    use hexspiel_event::Kind;
    match k {
        Kind::Setup(e) => (
            "setup",
            json!({"costs": costs_json(&e.costs), "start_ap": e.start_ap, "ap_cap": e.ap_cap,
                   "set_bonus": e.set_bonus, "max_sets": e.max_sets}),
        ),
        Kind::SetStarted(e) => ("set_started", json!({"set": e.set})),
        Kind::RoundStarted(e) => (
            "round_started",
            json!({"set": e.set, "round": e.round, "prize": e.prize, "prize_ap": e.prize_ap}),
        ),
        Kind::Moved(e) => ("moved", json!({"seat": e.seat})),
        Kind::BidSealed(e) => ("bid_sealed", json!({"seat": e.seat, "card": e.card})),
        Kind::Revealed(e) => (
            "revealed",
            json!({"round": e.round, "bids": pair_json(&e.bids), "late": e.late,
                   "winner": seat_json(e.winner), "gained": pair_json(&e.gained),
                   "ap": pair_json(&e.ap), "worth": pair_json(&e.worth)}),
        ),
        Kind::SetBonus(e) => (
            "set_bonus",
            json!({"seat": seat_json(e.seat), "bonus": e.bonus, "worth": pair_json(&e.worth)}),
        ),
        Kind::HexTurn(e) => ("hex_turn", json!({"seat": e.seat})),
        Kind::Placed(e) => {
            ("placed", json!({"seat": e.seat, "cells": e.cells, "cost": e.cost, "ap": e.ap}))
        }
        Kind::PatternClaimed(e) => (
            "pattern_claimed",
            json!({"seat": e.seat, "kind": kind_name(e.kind), "cells": e.cells, "card": e.card}),
        ),
        Kind::HexMissed(e) => {
            ("hex_missed", json!({"seat": e.seat, "ap": e.ap, "over_cap": e.over_cap}))
        }
        Kind::Connected(e) => ("connected", json!({"seat": e.seat})),
    }
}

fn cards_json(c: &Option<v1::Cards>) -> Value {
    json!(c.as_ref().expect("a card set is always set").values)
}

/// A protobuf view in the rules' JSON shape.
fn view_json(v: &v1::HexspielView) -> Value {
    let board: Vec<String> = (1..=8)
        .map(|row| {
            ('a'..='h')
                .map(|col| {
                    let name = format!("{col}{row}");
                    match (v.stones0.contains(&name), v.stones1.contains(&name)) {
                        (true, false) => '0',
                        (false, true) => '1',
                        (false, false) => '.',
                        (true, true) => panic!("{name} holds two stones"),
                    }
                })
                .collect()
        })
        .collect();
    let to_move = match v1::HexspielTurn::try_from(v.to_move).expect("a known turn") {
        v1::HexspielTurn::Bid => json!("bid"),
        v1::HexspielTurn::HexSeat0 => json!("hex:0"),
        v1::HexspielTurn::HexSeat1 => json!("hex:1"),
        v1::HexspielTurn::Over => Value::Null,
        v1::HexspielTurn::Unspecified => panic!("a turn is always set"),
    };
    let upgrades = |u: &[i32]| u.iter().map(|k| kind_name(*k)).collect::<Vec<_>>();
    json!({
        "viewer": seat_json(v.viewer),
        "costs": costs_json(&v.costs),
        "board": board,
        "ap": pair_json(&v.ap),
        "ap_cap": v.ap_cap,
        "set_bonus": v.set_bonus,
        "set": v.set,
        "round": v.round,
        "to_move": to_move,
        "prize": v.prize,
        "prizes_left": cards_json(&v.prizes_left),
        "worth": pair_json(&v.worth),
        "played": [cards_json(&v.played0), cards_json(&v.played1)],
        "upgrades": [upgrades(&v.upgrades0), upgrades(&v.upgrades1)],
        "hand": v.hand.as_ref().map(|h| json!(h.values)),
        "moved": [v.moved.contains(&0), v.moved.contains(&1)],
        "my_bid": v.my_bid,
        "last": v.last.as_ref().map(|l| json!({"prize": l.prize, "bids": pair_json(&l.bids),
                                               "late": l.late, "winner": seat_json(l.winner)})),
        "picture": v.picture,
    })
}

fn hex_view(v: &v1::View) -> &v1::HexspielView {
    match &v.game {
        Some(view::Game::Hexspiel(h)) => h,
        other => panic!("not a Hexspiel view: {other:?}"),
    }
}

/// One event: its oneof case by the table, every field by the rules' JSON.
fn check_event(e: &HexspielEvent) -> v1::Event {
    let p = Hexspiel::event_to_proto(e);
    let Some(event::Kind::Hexspiel(v1::HexspielEvent { kind: Some(k) })) = &p.kind else {
        panic!("not a Hexspiel event: {p:?}");
    };
    let (tag, mut fields) = event_json(k);
    assert_eq!(tag, expected_kind(e), "{e:?}");
    fields["type"] = json!(tag);
    assert_eq!(fields, serde_json::to_value(e).unwrap(), "{e:?} became {k:?}");
    p
}

/// What the tests saw, to show every case was reached.
#[derive(Default)]
struct Seen {
    kinds: std::collections::BTreeSet<&'static str>,
    match_kinds: std::collections::BTreeSet<&'static str>,
    moves: usize,
    views: usize,
    hex_moves_with_patterns: usize,
}

/// Every view of the current position: the protobuf says exactly what the rules' view
/// says; a seat sees its own hand and sealed bid, a spectator neither; the JSON of the
/// view (as the API returns it) rebuilds the same view.
fn check_views(m: &Match<Hexspiel>, sealed: &[Option<u8>; 2], seen: &mut Seen) {
    for viewer in VIEWERS {
        let view = m.view(viewer).game;
        let p = Hexspiel::view_to_proto(&view);
        let h = hex_view(&p).clone();
        assert_eq!(view_json(&h), serde_json::to_value(&view).unwrap(), "{viewer:?}");
        match viewer {
            Viewer::Seat(s) => {
                assert_eq!(h.viewer, Some(s.index() as u32));
                let hand = h.hand.as_ref().expect("a seat sees its hand");
                let played = &[&h.played0, &h.played1][s.index()].as_ref().unwrap().values;
                let all: Vec<u32> = CARDS.iter().map(u32::from).collect();
                let mut back = hand.values.clone();
                back.extend(played);
                back.sort_unstable();
                assert_eq!(back, all, "hand and played cards make the nine");
                assert_eq!(h.my_bid, sealed[s.index()].map(u32::from), "{viewer:?}'s bid");
            }
            Viewer::Spectator => {
                assert_eq!((h.viewer, &h.hand, h.my_bid), (None, &None, None), "spectator");
            }
        }
        let text = serde_json::to_string(&view).unwrap();
        let back: HexspielView = serde_json::from_str(&text).unwrap();
        assert_eq!(back, view, "{text}");
        assert_eq!(serde_json::to_string(&back).unwrap(), text);
        let whole = serde_json::to_string(&m.view(viewer)).unwrap();
        let back: rules_core::MatchView<HexspielView> = serde_json::from_str(&whole).unwrap();
        assert_eq!(serde_json::to_string(&back).unwrap(), whole);
        seen.views += 1;
    }
}

fn random_options(rng: &mut MatchRng) -> HexspielOptions {
    match rng.below(4) {
        0 => HexspielOptions::default(),
        // Short matches that reach the set limit, and big banks against a low cap, so
        // missed Hex turns go over the cap.
        1 => HexspielOptions { max_sets: 1 + rng.below(2), ..Default::default() },
        2 => HexspielOptions {
            start_ap: 20 + rng.below(20),
            ap_cap: rng.below(10),
            max_sets: 1 + rng.below(3),
            ..Default::default()
        },
        _ => HexspielOptions {
            start_ap: 40,
            set_bonus: rng.below(30),
            max_sets: 2 + rng.below(3),
            ..Default::default()
        },
    }
}

/// A random match checked at every step; returns after it ends or 250 steps.
fn play(seed: u64, seen: &mut Seen) {
    let mut rng = driver(seed);
    let opts = random_options(&mut rng);
    let mut log: Vec<Tagged<MatchEvent<HexspielEvent>>> = Vec::new();
    let mut m = Match::<Hexspiel>::new(&opts, Seed::from_array(rng.bytes32()), &mut log).unwrap();
    // Each seat's bid sealed this round, from its own events only.
    let mut sealed = [None, None];
    let mut done = 0;
    let mut steps = 0;
    loop {
        for t in &log[done..] {
            let p = match_event_to_proto::<Hexspiel>(&t.event);
            let name = match (&t.event, &p.kind) {
                (MatchEvent::Started { .. }, Some(event::Kind::MatchStarted(_))) => "match_started",
                (MatchEvent::Resigned { .. }, Some(event::Kind::Resigned(_))) => "resigned",
                (MatchEvent::Ended { .. }, Some(event::Kind::MatchEnded(_))) => "match_ended",
                (MatchEvent::Game(e), _) => {
                    assert_eq!(check_event(e), p);
                    match e {
                        // A sealed bid goes to its seat alone, and is that seat's secret.
                        HexspielEvent::BidSealed { seat, card } => {
                            assert_eq!(t.audience, rules_core::Audience::Seat(*seat));
                            sealed[seat.index()] = Some(*card);
                        }
                        HexspielEvent::Revealed { .. } => sealed = [None, None],
                        _ => assert_eq!(t.audience, rules_core::Audience::Public, "{e:?}"),
                    }
                    seen.kinds.insert(expected_kind(e));
                    continue;
                }
                (e, k) => panic!("{e:?} became {k:?}"),
            };
            seen.match_kinds.insert(name);
        }
        done = log.len();
        check_views(&m, &sealed, seen);
        if m.is_over() || steps == 250 {
            break;
        }
        steps += 1;
        for seat in Seat::BOTH {
            for mv in legal(&m, seat) {
                assert_eq!(Hexspiel::move_from_proto(&Hexspiel::move_to_proto(&mv)), Ok(mv));
                seen.moves += 1;
                if matches!(mv, HexspielMove::Hex { pattern: Some(_), .. }) {
                    seen.hex_moves_with_patterns += 1;
                }
            }
        }
        let owing: Vec<Seat> = m.to_move().iter().collect();
        let step = if owing.is_empty() || rng.below(15) == 0 {
            Step::Deadline
        } else if rng.below(400) == 0 {
            Step::Resign(pick(&mut rng, &Seat::BOTH))
        } else {
            let seat = pick(&mut rng, &owing);
            let moves = legal(&m, seat);
            // Prefer declaring a pattern when one is on offer, so claims happen.
            let patterned: Vec<_> = moves
                .iter()
                .filter(|m| matches!(m, HexspielMove::Hex { pattern: Some(_), .. }))
                .copied()
                .collect();
            let mv = if !patterned.is_empty() && rng.below(2) == 0 {
                pick(&mut rng, &patterned)
            } else {
                pick(&mut rng, &moves)
            };
            Step::Move { seat, mv }
        };
        // A twin in which the first bidder seals another card: the other seat and the
        // spectator receive the same protobuf views and events in both worlds.
        if let Step::Move { seat, mv: HexspielMove::Bid(b) } = step
            && owing.len() == 2
        {
            twin_check(&m, seat, b);
        }
        m.step(&step, &mut log).unwrap();
    }
}

/// The other seat and the spectator cannot tell `bid` from another card of `seat`.
fn twin_check(m: &Match<Hexspiel>, seat: Seat, bid: i64) {
    let others: Vec<HexspielMove> =
        legal(m, seat).into_iter().filter(|x| *x != HexspielMove::Bid(bid)).collect();
    let Some(alt) = others.first() else { return };
    let received = |mv: HexspielMove| {
        let mut twin = m.clone();
        let mut log = Vec::new();
        twin.step(&Step::Move { seat, mv }, &mut log).unwrap();
        [Viewer::Seat(seat.other()), Viewer::Spectator].map(|v| {
            let events: Vec<v1::Event> = log
                .iter()
                .filter(|t| t.audience.admits(v))
                .map(|t| match_event_to_proto::<Hexspiel>(&t.event))
                .collect();
            (events, Hexspiel::view_to_proto(&twin.view(v).game))
        })
    };
    assert_eq!(received(HexspielMove::Bid(bid)), received(*alt), "{seat:?} bid {bid}");
}

#[test]
fn random_matches_convert_exactly_and_leak_nothing() {
    let mut seen = Seen::default();
    for seed in 0..300 {
        play(seed, &mut seen);
    }
    let all_kinds = [
        "setup",
        "set_started",
        "round_started",
        "moved",
        "bid_sealed",
        "revealed",
        "set_bonus",
        "hex_turn",
        "placed",
        "pattern_claimed",
        "hex_missed",
        "connected",
    ];
    for k in all_kinds {
        assert!(seen.kinds.contains(k), "no {k} event in 300 matches: {:?}", seen.kinds);
    }
    for k in ["match_started", "resigned", "match_ended"] {
        assert!(seen.match_kinds.contains(k), "no {k} event: {:?}", seen.match_kinds);
    }
    assert!(seen.hex_moves_with_patterns > 0, "no pattern declaration was ever legal");
    eprintln!(
        "{} legal moves round-tripped, {} views checked, events seen: {:?}",
        seen.moves, seen.views, seen.kinds
    );
}

#[test]
fn a_connection_converts() {
    // Random play rarely joins two sides; the event is checked by hand.
    let e = HexspielEvent::Connected { seat: Seat::ONE };
    let p = check_event(&e);
    assert_eq!(
        p.kind,
        Some(event::Kind::Hexspiel(v1::HexspielEvent {
            kind: Some(hexspiel_event::Kind::Connected(v1::HexspielConnected { seat: 1 })),
        }))
    );
}

fn hex_proto(place: &[&str], pattern: Option<(i32, &[&str])>) -> v1::Move {
    let strings = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect();
    v1::Move {
        game: Some(r#move::Game::Hexspiel(v1::HexspielMove {
            kind: Some(hexspiel_move::Kind::Hex(v1::HexspielHexTurn {
                place: strings(place),
                pattern: pattern
                    .map(|(kind, cells)| v1::HexspielPattern { kind, cells: strings(cells) }),
            })),
        })),
    }
}

#[test]
fn moves_parse_as_the_json_moves_do() {
    let json_move = |v: Value| serde_json::from_value::<HexspielMove>(v).unwrap();
    let row5 = v1::HexspielPatternKind::Row5 as i32;
    let cases = [
        (hex_proto(&[], None), json!({"place": []})),
        (hex_proto(&["c3", "d4"], None), json!({"place": ["c3", "d4"]})),
        // Off the board and too many cells are kept for the rules to refuse.
        (hex_proto(&["i3", "a9", "c0"], None), json!({"place": ["i3", "a9", "c0"]})),
        (
            hex_proto(&["a1"], Some((row5, &["a1", "b1", "c1", "d1", "e1"]))),
            json!({"place": ["a1"], "pattern": {"kind": "row5", "cells": ["a1", "b1", "c1", "d1", "e1"]}}),
        ),
        (
            hex_proto(&[], Some((v1::HexspielPatternKind::Y7 as i32, &["d4"]))),
            json!({"place": [], "pattern": {"kind": "y7", "cells": ["d4"]}}),
        ),
    ];
    for (p, j) in cases {
        assert_eq!(Hexspiel::move_from_proto(&p), Ok(json_move(j.clone())), "{j}");
    }
    let bid = |b| v1::Move {
        game: Some(r#move::Game::Hexspiel(v1::HexspielMove {
            kind: Some(hexspiel_move::Kind::Bid(b)),
        })),
    };
    for b in [0, 5, -40, 1 << 40] {
        assert_eq!(Hexspiel::move_from_proto(&bid(b)), Ok(HexspielMove::Bid(b)));
    }
    let three = Hexspiel::move_from_proto(&hex_proto(&["a1", "b1", "c1"], None)).unwrap();
    let HexspielMove::Hex { place, .. } = three else { panic!("{three:?}") };
    assert_eq!(place.given(), 3, "the rules see three cells and refuse them");
    let m = HexspielMove::Hex {
        place: CellList::EMPTY,
        pattern: Some(Declaration { kind: PatternKind::Ring6, cells: CellList::EMPTY }),
    };
    assert_eq!(Hexspiel::move_from_proto(&Hexspiel::move_to_proto(&m)), Ok(m));
}

#[test]
fn malformed_moves_are_refused_with_the_reason() {
    let gops = v1::Move { game: Some(r#move::Game::Gops(v1::GopsMove { card: 3 })) };
    assert_eq!(
        Hexspiel::move_from_proto(&gops),
        Err(WireError::WrongGame { expected: "hexspiel" })
    );
    let dm = v1::Move {
        game: Some(r#move::Game::DuelingMonsters(v1::DuelingMonstersMove { black: 1, white: 1 })),
    };
    assert_eq!(Hexspiel::move_from_proto(&dm), Err(WireError::WrongGame { expected: "hexspiel" }));
    assert_eq!(Hexspiel::move_from_proto(&v1::Move::default()), Err(WireError::Missing("game")));
    let empty = v1::Move { game: Some(r#move::Game::Hexspiel(v1::HexspielMove { kind: None })) };
    assert!(matches!(Hexspiel::move_from_proto(&empty), Err(WireError::Missing(_))));
    for bad in ["zz", "3c", "C3", "c03", "", "c3 "] {
        assert!(
            matches!(
                Hexspiel::move_from_proto(&hex_proto(&[bad], None)),
                Err(WireError::Missing(_))
            ),
            "{bad:?}"
        );
        assert!(
            matches!(
                Hexspiel::move_from_proto(&hex_proto(&[], Some((1, &[bad])))),
                Err(WireError::Missing(_))
            ),
            "{bad:?}"
        );
    }
    assert_eq!(
        Hexspiel::move_from_proto(&hex_proto(&[], Some((0, &["a1"])))),
        Err(WireError::Missing("pattern kind"))
    );
    assert_eq!(
        Hexspiel::move_from_proto(&hex_proto(&[], Some((9, &["a1"])))),
        Err(WireError::Unknown { field: "pattern kind", value: 9 })
    );
}

#[test]
fn a_list_past_the_count_is_refused_never_counted_short() {
    // 255 cells: kept for the rules to judge (too many for a turn: illegal, theirs to say).
    let at = vec!["c3"; 255];
    let m = Hexspiel::move_from_proto(&hex_proto(&at, None)).expect("255 is in range");
    let HexspielMove::Hex { place, .. } = m else { panic!("a hex turn") };
    assert_eq!(place.given(), 255);
    // One more: refused as the move's shape, in the proto and in the JSON alike (it
    // used to be counted as 255).
    let past = vec!["c3"; 256];
    assert_eq!(
        Hexspiel::move_from_proto(&hex_proto(&past, None)),
        Err(WireError::TooMany { field: "place", max: 255 })
    );
    let json = serde_json::json!({"place": past});
    let e = serde_json::from_value::<HexspielMove>(json).expect_err("refused");
    assert!(e.to_string().contains("at most 255 cells"), "{e}");
    let pattern = vec!["c3"; 300];
    assert_eq!(
        Hexspiel::move_from_proto(&hex_proto(&["c3"], Some((1, &pattern)))),
        Err(WireError::TooMany { field: "pattern.cells", max: 255 })
    );
}
