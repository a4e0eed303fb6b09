//! Leak tests for Hexspiel. Each builds two matches that differ only in something the
//! rules hide from a viewer (the opponent's sealed bid, the order of the set's prizes
//! still face down, the seed) and checks that the viewer received exactly the same:
//! events, views after every step, and the messages of its own refused moves.

use proptest::prelude::*;
use rules_core::testkit::{Observed, assert_same_seen, sealed_twins, seed_stays_hidden};
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn hexspiel_sealed_bids_stay_sealed(seed in any::<u64>()) {
        // A probe the rules refuse in both worlds: card 0 does not exist.
        sealed_twins::<Hexspiel>(&HexspielOptions::default(), seed, &|_| HexspielMove::Bid(0));
    }

    #[test]
    fn hexspiel_future_prizes_stay_hidden(seed in any::<u64>()) {
        future_prizes(seed);
    }

    #[test]
    fn hexspiel_seed_stays_hidden_until_the_end(seed in any::<u64>()) {
        seed_stays_hidden::<Hexspiel>(&HexspielOptions::default(), seed);
    }
}
