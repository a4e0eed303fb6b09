//! Leak tests for GOPS and Dueling Monsters. Each builds two matches that differ only in
//! something the rules hide from a viewer (the opponent's sealed move, the future prize
//! order, whites that were never revealed, the seed) and checks that the viewer received
//! exactly the same: events, views after every step, and messages of its refused moves.

use proptest::prelude::*;
use rules_core::testkit::{
    Observed, assert_same_seen, driver, legal, pick, sealed_twins, seed_stays_hidden,
};
use rules_core::{MatchEvent, MatchRng, Seat, Seed, Step, Viewer};
use rules_goofspiel::dueling_monsters::{DuelingMonstersEvent, Submissions};
use rules_goofspiel::{
    DuelingMonsters, DuelingMonstersMove, DuelingMonstersOptions, Gops, GopsMove, GopsOptions, Ties,
};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];

fn gops_options(rng: &mut MatchRng) -> GopsOptions {
    let ties = [Ties::Rollover, Ties::Discard, Ties::Split][rng.below(3) as usize];
    GopsOptions { cards: 3 + rng.below(11) as u8, ties, prizes: None }
}

fn gops_probe(_: Seat) -> GopsMove {
    GopsMove { card: 0 }
}

fn dm_probe(_: Seat) -> DuelingMonstersMove {
    DuelingMonstersMove { black: 3, white: 0 }
}

/// Two matches whose prize orders agree up to round `k` and differ after: nobody can
/// tell them apart until prize `k + 1` is turned up.
fn gops_future_prizes(seed: u64) {
    let mut rng = driver(seed);
    let cards = 3 + rng.below(11) as u8;
    let mut p: Vec<u8> = (1..=cards).collect();
    rng.shuffle(&mut p);
    let k = rng.below(u32::from(cards) - 1) as usize;
    let mut q = p.clone();
    q[k + 1..].rotate_left(1);
    let ties = [Ties::Rollover, Ties::Discard, Ties::Split][rng.below(3) as usize];
    let opts = |prizes| GopsOptions { cards, ties, prizes: Some(prizes) };
    let s = Seed::from_array(rng.bytes32());
    let mut a = Observed::<Gops>::new(&opts(p), s).unwrap();
    let mut b = Observed::<Gops>::new(&opts(q), s).unwrap();
    while !a.m.is_over() {
        let owing: Vec<Seat> = a.m.to_move().iter().collect();
        let seat = pick(&mut rng, &owing);
        let mv = pick(&mut rng, &legal(&a, seat));
        a.step(&Step::Move { seat, mv }).unwrap();
        b.step(&Step::Move { seat, mv }).unwrap();
        if (a.m.view(Viewer::Spectator).game.round as usize) <= k {
            for v in VIEWERS {
                assert_same_seen(&a, &b, v, "future prizes");
            }
        }
    }
}

fn dm_options(rng: &mut MatchRng) -> DuelingMonstersOptions {
    let submissions = if rng.below(2) == 0 { Submissions::First } else { Submissions::Changeable };
    DuelingMonstersOptions { bouts_to_win: 2 + rng.below(2) as u8, prizes: None, submissions }
}

/// Plays a random Dueling Monsters match and returns its steps.
fn dm_random_steps(
    opts: &DuelingMonstersOptions,
    s: Seed,
    rng: &mut MatchRng,
) -> Vec<Step<DuelingMonstersMove>> {
    let mut o = Observed::<DuelingMonsters>::new(opts, s).unwrap();
    let mut steps = Vec::new();
    while !o.m.is_over() && steps.len() < 400 {
        let owing: Vec<Seat> = o.m.to_move().iter().collect();
        let step = if owing.len() != 2 && rng.below(25) == 0 || owing.is_empty() {
            Step::Deadline
        } else {
            let seat = pick(rng, &owing);
            Step::Move { seat, mv: pick(rng, &legal(&o, seat)) }
        };
        o.step(&step).unwrap();
        steps.push(step);
    }
    steps
}

fn replay(
    opts: &DuelingMonstersOptions,
    s: Seed,
    steps: &[Step<DuelingMonstersMove>],
) -> Observed<DuelingMonsters> {
    let mut m = Observed::<DuelingMonsters>::new(opts, s).unwrap();
    for step in steps {
        m.step(step).unwrap();
    }
    m
}

/// Whites that were never revealed (the blacks differed): swapping two of them between
/// rounds of one bout, where the announced comparisons stay the same, must be invisible
/// to the other seat and to spectators for the whole match. Returns whether a swap was
/// found to test.
fn dm_hidden_whites(seed: u64) -> bool {
    let mut rng = driver(seed);
    let opts = DuelingMonstersOptions { submissions: Submissions::First, ..dm_options(&mut rng) };
    let s = Seed::from_array(rng.bytes32());
    let steps = dm_random_steps(&opts, s, &mut rng);
    // Replay, noting for each move step its bout and round.
    struct Played {
        step: usize,
        seat: Seat,
        bout: u16,
        round: u8,
    }
    let mut o = Observed::<DuelingMonsters>::new(&opts, s).unwrap();
    let mut played = Vec::new();
    for (i, st) in steps.iter().enumerate() {
        let v = o.m.view(Viewer::Spectator).game;
        if let Step::Move { seat, .. } = st {
            played.push(Played { step: i, seat: *seat, bout: v.bout, round: v.round });
        }
        o.step(st).unwrap();
    }
    // Rounds whose whites stayed hidden, and forfeits, as (bout, round index).
    let mut hidden = Vec::new();
    let mut forfeits = Vec::new();
    let mut bout = 1;
    for t in &o.log {
        if let MatchEvent::Game(e) = &t.event {
            match e {
                DuelingMonstersEvent::BoutStarted { bout: b } => bout = *b,
                // Blacks differed: the rules keep both whites hidden.
                DuelingMonstersEvent::Resolved { round, higher_white: Some(_), .. } => {
                    hidden.push((bout, *round - 1))
                }
                DuelingMonstersEvent::Forfeited { round, late, .. } => {
                    forfeits.push((bout, *round - 1, *late))
                }
                _ => {}
            }
        }
    }
    let white = |i: usize| match &steps[i] {
        Step::Move { mv, .. } => mv.white,
        _ => unreachable!("a move step"),
    };
    let find = |seat: Seat, bout: u16, round: u8| {
        played.iter().find(|p| p.seat == seat && p.bout == bout && p.round == round).map(|p| p.step)
    };
    for seat in Seat::BOTH {
        let mine: Vec<&Played> = played
            .iter()
            .filter(|p| p.seat == seat && hidden.contains(&(p.bout, p.round)))
            .collect();
        for (x, px) in mine.iter().enumerate() {
            for py in &mine[x + 1..] {
                let forfeited_between = forfeits
                    .iter()
                    .any(|&(b, r, l)| l == seat && b == px.bout && r > px.round && r < py.round);
                if px.bout != py.bout || forfeited_between {
                    continue;
                }
                let (Some(ox), Some(oy)) =
                    (find(seat.other(), px.bout, px.round), find(seat.other(), py.bout, py.round))
                else {
                    continue;
                };
                let (wx, wy, vx, vy) = (white(px.step), white(py.step), white(ox), white(oy));
                if wx == wy || wx.cmp(&vx) != wy.cmp(&vx) || wy.cmp(&vy) != wx.cmp(&vy) {
                    continue;
                }
                let mut twin = steps.clone();
                for (i, w) in [(px.step, wy), (py.step, wx)] {
                    if let Step::Move { mv, .. } = &mut twin[i] {
                        mv.white = w;
                    }
                }
                let (a, b) = (replay(&opts, s, &steps), replay(&opts, s, &twin));
                // The seat itself knows its own whites: its view differs, as it should.
                assert_ne!(a.seen(Viewer::Seat(seat)), b.seen(Viewer::Seat(seat)));
                assert_same_seen(&a, &b, Viewer::Seat(seat.other()), "hidden whites");
                assert_same_seen(&a, &b, Viewer::Spectator, "hidden whites");
                return true;
            }
        }
    }
    false
}

/// Bout 1's prize orders agree up to round `k`: nobody can tell until prize `k + 1`.
fn dm_future_prizes(seed: u64) {
    let mut rng = driver(seed);
    let mut p: Vec<u8> = (1..=9).collect();
    rng.shuffle(&mut p);
    let k = rng.below(8) as usize;
    let mut q = p.clone();
    q[k + 1..].rotate_left(1);
    let base = dm_options(&mut rng);
    let opts = |order| DuelingMonstersOptions { prizes: Some(vec![order]), ..base.clone() };
    let s = Seed::from_array(rng.bytes32());
    let mut a = Observed::<DuelingMonsters>::new(&opts(p), s).unwrap();
    let mut b = Observed::<DuelingMonsters>::new(&opts(q), s).unwrap();
    let revealed = |o: &Observed<DuelingMonsters>| {
        o.log.iter().any(|t| {
            matches!(&t.event, MatchEvent::Game(DuelingMonstersEvent::RoundStarted { bout: 1, round, .. })
                if *round as usize == k + 2)
        })
    };
    let mut n = 0;
    while !a.m.is_over() && !revealed(&a) && n < 300 {
        n += 1;
        let owing: Vec<Seat> = a.m.to_move().iter().collect();
        let step = if owing.is_empty() || rng.below(20) == 0 {
            Step::Deadline
        } else {
            let seat = pick(&mut rng, &owing);
            Step::Move { seat, mv: pick(&mut rng, &legal(&a, seat)) }
        };
        a.step(&step).unwrap();
        b.step(&step).unwrap();
        if !revealed(&a) {
            for v in VIEWERS {
                assert_same_seen(&a, &b, v, "future prizes");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn gops_sealed_bids_stay_sealed(seed in any::<u64>()) {
        let opts = gops_options(&mut driver(seed ^ 1));
        sealed_twins::<Gops>(&opts, seed, &gops_probe);
    }

    #[test]
    fn gops_future_prizes_stay_hidden(seed in any::<u64>()) {
        gops_future_prizes(seed);
    }

    #[test]
    fn gops_seed_stays_hidden_until_the_end(seed in any::<u64>()) {
        seed_stays_hidden::<Gops>(&gops_options(&mut driver(seed ^ 2)), seed);
    }

    #[test]
    fn dueling_sealed_moves_stay_sealed(seed in any::<u64>()) {
        let opts = dm_options(&mut driver(seed ^ 1));
        sealed_twins::<DuelingMonsters>(&opts, seed, &dm_probe);
    }

    #[test]
    fn dueling_future_prizes_stay_hidden(seed in any::<u64>()) {
        dm_future_prizes(seed);
    }

    #[test]
    fn dueling_seed_stays_hidden_until_the_end(seed in any::<u64>()) {
        seed_stays_hidden::<DuelingMonsters>(&dm_options(&mut driver(seed ^ 2)), seed);
    }
}

#[test]
fn dueling_unrevealed_whites_stay_hidden() {
    // Not every random match has a swappable pair; count that enough of them do, so the
    // test cannot pass by never finding one.
    let tested = (0..600u64).filter(|&s| dm_hidden_whites(s)).count();
    assert!(tested >= 300, "only {tested} of 600 matches had a swap to test");
}
