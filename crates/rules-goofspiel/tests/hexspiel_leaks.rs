//! Leak tests for Hexspiel. Each builds two matches that differ only in something the
//! rules hide from a viewer (the opponent's sealed bid, the order of the set's prizes
//! still face down, the seed) and checks that the viewer received exactly the same:
//! events, views after every step, and the messages of its own refused moves.

use proptest::prelude::*;
use rules_core::testkit::{Observed, assert_same_seen};
use rules_core::{MatchRng, Seat, Seed, Step, Viewer};
use rules_goofspiel::hexspiel::{Hexspiel, HexspielMove, HexspielOptions};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];

fn driver(seed: u64) -> MatchRng {
    Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes").rng()
}

fn pick<T: Clone>(rng: &mut MatchRng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u32) as usize].clone()
}

fn legal(o: &Observed<Hexspiel>, seat: Seat) -> Vec<HexspielMove> {
    let mut v = Vec::new();
    o.m.legal_moves(seat, &mut v);
    v
}

/// One random step: now and then a deadline (late bids, missed Hex turns), else a
/// random legal move of a seat that owes one.
fn random_step(o: &Observed<Hexspiel>, rng: &mut MatchRng) -> Step<HexspielMove> {
    let owing: Vec<Seat> = o.m.to_move().iter().collect();
    if owing.is_empty() || rng.below(20) == 0 {
        return Step::Deadline;
    }
    let seat = pick(rng, &owing);
    Step::Move { seat, mv: pick(rng, &legal(o, seat)) }
}

/// Before each first bid of a round, forks a twin in which that seat bids another card,
/// and checks that the other seat and spectators cannot tell the two apart, also
/// through a refused move of their own.
fn sealed_twins(seed: u64) {
    let mut rng = driver(seed);
    let opts = HexspielOptions::default();
    let mut a = Observed::<Hexspiel>::new(&opts, Seed::from_array(rng.bytes32())).unwrap();
    let mut steps = 0;
    while !a.m.is_over() && steps < 400 {
        steps += 1;
        let owing: Vec<Seat> = a.m.to_move().iter().collect();
        if owing.len() == 2 {
            let first = pick(&mut rng, &owing);
            let moves = legal(&a, first);
            let x = pick(&mut rng, &moves);
            let alt: Vec<_> = moves.iter().filter(|m| **m != x).copied().collect();
            let mut b = a.clone();
            a.step(&Step::Move { seat: first, mv: x }).unwrap();
            if !alt.is_empty() {
                b.step(&Step::Move { seat: first, mv: pick(&mut rng, &alt) }).unwrap();
                let other = first.other();
                // A probe the rules refuse in both worlds: card 0 does not exist.
                assert!(a.step(&Step::Move { seat: other, mv: HexspielMove::Bid(0) }).is_err());
                assert!(b.step(&Step::Move { seat: other, mv: HexspielMove::Bid(0) }).is_err());
                assert_same_seen(&a, &b, Viewer::Seat(other), "a sealed bid");
                assert_same_seen(&a, &b, Viewer::Spectator, "a sealed bid");
            }
            continue;
        }
        let step = random_step(&a, &mut rng);
        a.step(&step).unwrap();
    }
}

/// Two matches whose first prize orders agree up to round `k` and differ after: nobody
/// can tell them apart until prize `k + 1` is turned up.
fn future_prizes(seed: u64) {
    let mut rng = driver(seed);
    let mut p: Vec<u8> = (1..=7).collect();
    rng.shuffle(&mut p);
    let k = rng.below(6) as usize;
    let mut q = p.clone();
    q[k + 1..].rotate_left(1);
    let opts = |order: Vec<u8>| HexspielOptions { prizes: Some(vec![order]), ..Default::default() };
    let s = Seed::from_array(rng.bytes32());
    let mut a = Observed::<Hexspiel>::new(&opts(p), s).unwrap();
    let mut b = Observed::<Hexspiel>::new(&opts(q), s).unwrap();
    loop {
        let v = a.m.view(Viewer::Spectator).game;
        // Round k's prize is face up while its bids are owed; the next one is hidden
        // until round k + 1 starts.
        if a.m.is_over() || v.set > 1 || v.round as usize > k {
            break;
        }
        for viewer in VIEWERS {
            assert_same_seen(&a, &b, viewer, "future prizes");
        }
        let step = random_step(&a, &mut rng);
        a.step(&step).unwrap();
        b.step(&step).unwrap();
    }
}

/// The seed never reaches anyone before the match ends, and is revealed when it does.
fn seed_stays_hidden(seed: u64) {
    let mut rng = driver(seed);
    let match_seed = Seed::from_array(rng.bytes32());
    let hex = match_seed.to_hex();
    let mut o = Observed::<Hexspiel>::new(&HexspielOptions::default(), match_seed).unwrap();
    while !o.m.is_over() {
        let step = random_step(&o, &mut rng);
        o.step(&step).unwrap();
    }
    for v in VIEWERS {
        let seen = o.seen(v);
        let last = seen.len() - 2;
        assert!(seen[..last].iter().all(|s| !s.contains(&hex)), "{v:?} saw the seed");
        assert!(seen.iter().any(|s| s.contains(&hex)), "the seed is revealed at the end");
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hexspiel_sealed_bids_stay_sealed(seed in any::<u64>()) {
        sealed_twins(seed);
    }

    #[test]
    fn hexspiel_future_prizes_stay_hidden(seed in any::<u64>()) {
        future_prizes(seed);
    }

    #[test]
    fn hexspiel_seed_stays_hidden_until_the_end(seed in any::<u64>()) {
        seed_stays_hidden(seed);
    }
}
