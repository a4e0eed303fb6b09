//! Properties of GOPS and Dueling Monsters over random play: legal moves are accepted,
//! refused moves change nothing, points are conserved; and the missed-deadline penalty
//! of Dueling Monsters worked through on a known position.

use proptest::prelude::*;
use rules_core::testkit::Observed;
use rules_core::{Game, MatchEvent, Refusal, Seat, Seed, Step, Viewer};
use rules_goofspiel::dueling_monsters::{DuelingMonstersEvent, Submissions};
use rules_goofspiel::{
    DuelingMonsters, DuelingMonstersMove, DuelingMonstersOptions, Gops, GopsMove, GopsOptions, Ties,
};

/// Plays a random match; at every step checks that each legal move is accepted (on a
/// copy) and that a batch of other candidate moves is refused without changing anything.
fn legal_and_illegal<G: Game>(options: &G::Options, seed: u64, candidates: &[G::Move]) {
    let mut rng = Seed::from_bytes(&seed.to_le_bytes()).unwrap().rng();
    let mut o = Observed::<G>::new(options, Seed::from_array(rng.bytes32())).unwrap();
    let mut n = 0;
    while !o.m.is_over() && n < 400 {
        n += 1;
        let owing: Vec<Seat> = o.m.to_move().iter().collect();
        if owing.is_empty() {
            o.step(&Step::Deadline).unwrap();
            continue;
        }
        let seat = owing[rng.below(owing.len() as u32) as usize];
        let mut legal = Vec::new();
        o.m.legal_moves(seat, &mut legal);
        assert!(!legal.is_empty(), "a seat that owes a move has one");
        for mv in &legal {
            let mut copy = o.m.clone();
            copy.submit(seat, mv, &mut Vec::new()).expect("a legal move is accepted");
        }
        for mv in candidates.iter().filter(|m| !legal.contains(m)) {
            let before = format!("{:?}", o.m);
            let mut events = Vec::new();
            let mut copy = o.m.clone();
            let err = copy
                .submit(seat, mv, &mut events)
                .expect_err("a move not in legal_moves is refused");
            assert!(matches!(err, Refusal::Illegal(_)), "{err:?}");
            assert!(events.is_empty(), "a refused move emits nothing");
            assert_eq!(format!("{copy:?}"), before, "a refused move changes nothing");
        }
        let mv = legal[rng.below(legal.len() as u32) as usize].clone();
        o.step(&Step::Move { seat, mv }).unwrap();
    }
}

fn gops_candidates() -> Vec<GopsMove> {
    (-1..=15).map(|card| GopsMove { card }).collect()
}

fn dm_candidates() -> Vec<DuelingMonstersMove> {
    let mut v = Vec::new();
    for black in 0..=4 {
        for white in 0..=10 {
            v.push(DuelingMonstersMove { black, white });
        }
    }
    v
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn gops_legal_moves_are_exactly_the_accepted_ones(seed in any::<u64>(), cards in 3u8..=13, t in 0usize..3) {
        let ties = [Ties::Rollover, Ties::Discard, Ties::Split][t];
        legal_and_illegal::<Gops>(&GopsOptions { cards, ties, prizes: None }, seed, &gops_candidates());
    }

    #[test]
    fn dueling_legal_moves_are_exactly_the_accepted_ones(seed in any::<u64>(), changeable in any::<bool>()) {
        let submissions = if changeable { Submissions::Changeable } else { Submissions::First };
        let opts = DuelingMonstersOptions { submissions, ..DuelingMonstersOptions::default() };
        legal_and_illegal::<DuelingMonsters>(&opts, seed, &dm_candidates());
    }

    #[test]
    fn gops_points_are_conserved(seed in any::<u64>(), cards in 3u8..=13) {
        // Rollover: every prize point is scored once, except a pile tied at the very end.
        let opts = GopsOptions { cards, ties: Ties::Rollover, prizes: None };
        let mut rng = Seed::from_bytes(&seed.to_le_bytes()).unwrap().rng();
        let mut o = Observed::<Gops>::new(&opts, Seed::from_array(rng.bytes32())).unwrap();
        let mut lost = 0u16;
        while !o.m.is_over() {
            let v = o.m.view(Viewer::Spectator).game;
            let stake = u16::from(v.prize.unwrap()) + v.pile;
            let mut bids = [0i64; 2];
            for seat in Seat::BOTH {
                let hand: Vec<u8> = v.hands[seat].iter().collect();
                bids[seat.index()] = i64::from(hand[rng.below(hand.len() as u32) as usize]);
                o.step(&Step::Move { seat, mv: GopsMove { card: bids[seat.index()] } }).unwrap();
            }
            if o.m.is_over() && bids[0] == bids[1] {
                lost = stake;
            }
        }
        let v = o.m.view(Viewer::Spectator).game;
        let total: u16 = v.scores.0.iter().map(|p| p.halves()).sum();
        let all = u16::from(cards) * (u16::from(cards) + 1) / 2;
        prop_assert_eq!(total + 2 * lost, 2 * all);
    }
}

#[test]
fn dueling_one_late_seat_forfeits_with_random_discards_shown() {
    let opts = DuelingMonstersOptions {
        prizes: Some(vec![vec![5, 1, 2, 3, 4, 6, 7, 8, 9]]),
        ..DuelingMonstersOptions::default()
    };
    let mut o = Observed::<DuelingMonsters>::new(&opts, Seed::ZERO).unwrap();
    o.step(&Step::Move { seat: Seat::ONE, mv: DuelingMonstersMove { black: 2, white: 7 } })
        .unwrap();
    let before = o.log.len();
    o.step(&Step::Deadline).unwrap();
    let forfeit = o.log[before..]
        .iter()
        .find_map(|t| match &t.event {
            MatchEvent::Game(e @ DuelingMonstersEvent::Forfeited { .. }) => Some(e.clone()),
            _ => None,
        })
        .expect("a forfeit event");
    let DuelingMonstersEvent::Forfeited {
        late,
        on_time_black,
        discarded_black,
        discarded_white,
        prize,
        scores,
        ..
    } = forfeit
    else {
        unreachable!()
    };
    assert_eq!((late, on_time_black, prize, scores.0), (Seat::ZERO, 2, 5, [0, 5]));
    // The on-time seat's white 7 is spent but never shown.
    let late_view = o.m.view(Viewer::Seat(Seat::ZERO)).game;
    assert!(late_view.shown_whites[Seat::ONE].is_empty());
    assert_eq!(late_view.whites_left.0, [8, 8]);
    // The late seat's discards are public and spent.
    assert!(late_view.shown_whites[Seat::ZERO].contains(discarded_white));
    assert!(!late_view.my_whites.unwrap().contains(discarded_white));
    let mut blacks = [3u8, 3, 3];
    blacks[discarded_black as usize - 1] -= 1;
    assert_eq!(late_view.blacks[Seat::ZERO], blacks);
    let on_time_view = o.m.view(Viewer::Seat(Seat::ONE)).game;
    assert!(!on_time_view.my_whites.unwrap().contains(7));
}

#[test]
fn dueling_first_and_changeable_submissions() {
    let mv = |black, white| DuelingMonstersMove { black, white };
    let mut first =
        Observed::<DuelingMonsters>::new(&DuelingMonstersOptions::default(), Seed::ZERO).unwrap();
    first.step(&Step::Move { seat: Seat::ZERO, mv: mv(1, 1) }).unwrap();
    let err = first.step(&Step::Move { seat: Seat::ZERO, mv: mv(2, 2) }).unwrap_err();
    assert_eq!(err, Refusal::NotYourTurn { already_moved: true });
    assert_eq!(err.to_string(), "you have already made your move this round");

    let opts = DuelingMonstersOptions {
        submissions: Submissions::Changeable,
        ..DuelingMonstersOptions::default()
    };
    let mut ch = Observed::<DuelingMonsters>::new(&opts, Seed::ZERO).unwrap();
    ch.step(&Step::Move { seat: Seat::ZERO, mv: mv(1, 1) }).unwrap();
    ch.step(&Step::Move { seat: Seat::ZERO, mv: mv(3, 9) }).unwrap();
    assert_eq!(ch.m.view(Viewer::Seat(Seat::ZERO)).game.my_move, Some((3, 9)));
    // The opponent learns once that seat 0 moved, not that it changed its mind.
    let moved =
        ch.seen(Viewer::Seat(Seat::ONE)).iter().filter(|s| s.contains("\"moved\",")).count();
    assert_eq!(moved, 1);
}

#[test]
fn gops_view_shows_public_hands_and_hides_the_order() {
    let opts = GopsOptions { cards: 5, ties: Ties::Rollover, prizes: Some(vec![4, 2, 5, 1, 3]) };
    let mut o = Observed::<Gops>::new(&opts, Seed::ZERO).unwrap();
    o.step(&Step::Move { seat: Seat::ZERO, mv: GopsMove { card: 5 } }).unwrap();
    o.step(&Step::Move { seat: Seat::ONE, mv: GopsMove { card: 1 } }).unwrap();
    o.step(&Step::Move { seat: Seat::ONE, mv: GopsMove { card: 3 } }).unwrap();
    let v0 = o.m.view(Viewer::Seat(Seat::ZERO)).game;
    let v1 = o.m.view(Viewer::Seat(Seat::ONE)).game;
    assert_eq!(v0.prize, Some(2));
    assert_eq!(v0.prizes_left.iter().collect::<Vec<_>>(), vec![1, 3, 5]);
    assert_eq!(v0.hands[Seat::ONE].iter().collect::<Vec<_>>(), vec![2, 3, 4, 5]);
    assert_eq!((v0.my_bid, v1.my_bid), (None, Some(3)));
    assert_eq!(v0.moved.0, [false, true]);
    let json = serde_json::to_string(&v0).unwrap();
    assert!(!json.contains("\"my_bid\":3"), "{json}");
}

/// Views round-trip through JSON exactly: bots that play through the public API rebuild
/// their view from the JSON the API returns.
fn views_round_trip<G: Game>(options: &G::Options, seed: u64)
where
    G::View: serde::de::DeserializeOwned + PartialEq,
{
    let mut rng = Seed::from_bytes(&seed.to_le_bytes()).unwrap().rng();
    let mut o = Observed::<G>::new(options, Seed::from_array(rng.bytes32())).unwrap();
    let mut n = 0;
    loop {
        for v in [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator] {
            let view = o.m.game().view(v);
            let back: G::View =
                serde_json::from_str(&serde_json::to_string(&view).unwrap()).unwrap();
            assert_eq!(back, view);
        }
        if o.m.is_over() || n > 300 {
            break;
        }
        n += 1;
        let owing: Vec<Seat> = o.m.to_move().iter().collect();
        if owing.is_empty() || rng.below(20) == 0 {
            o.step(&Step::Deadline).unwrap();
            continue;
        }
        let seat = owing[rng.below(owing.len() as u32) as usize];
        let mut legal = Vec::new();
        o.m.legal_moves(seat, &mut legal);
        let mv = legal[rng.below(legal.len() as u32) as usize].clone();
        o.step(&Step::Move { seat, mv }).unwrap();
    }
}

#[test]
fn gops_and_dueling_views_round_trip_through_json() {
    for seed in 0..40 {
        let ties = [Ties::Rollover, Ties::Discard, Ties::Split][seed as usize % 3];
        views_round_trip::<Gops>(&GopsOptions { cards: 13, ties, prizes: None }, seed);
        views_round_trip::<DuelingMonsters>(&DuelingMonstersOptions::default(), seed);
    }
}
