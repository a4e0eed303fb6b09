//! The properties every game in the registry keeps, checked over random seeds and random
//! legal play through the one host (every entry of `GAMES`, none listed here):
//! (a) the legal moves are exactly the accepted ones, for both seats;
//! (b) a refused step changes nothing anyone can see;
//! (c) views never tell a viewer what it may not know: twin matches that differ only in a
//!     sealed move look the same to the other seat and the spectators, and the seed stays
//!     out of every view and event until the match ends;
//! (d) the record of every finished match verifies, and a tampered one does not.
//! Per-game rules (and per-game secrets: prize orders, unrevealed cards) are tested in
//! the rules crates.

use games::{GAMES, Host, Record};
use rules_core::{MatchRng, Seat, Seed, Step, Viewer};
use serde_json::Value;

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];
const SEEDS: u64 = 6;
/// At most this many moves of a list are tried at each position (lists run to hundreds).
const SAMPLE: usize = 8;

fn rng(seed: u64) -> MatchRng {
    Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes").rng()
}

fn pick<T: Clone>(rng: &mut MatchRng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u32) as usize].clone()
}

fn sample(rng: &mut MatchRng, xs: &[Value]) -> Vec<Value> {
    if xs.len() <= SAMPLE {
        return xs.to_vec();
    }
    (0..SAMPLE).map(|_| pick(rng, xs)).collect()
}

/// Everything a step could change that anyone can see.
fn seen(m: &dyn Host) -> (Value, Vec<Value>, Vec<Seat>, usize) {
    let views = VIEWERS.iter().map(|v| m.view(*v)).collect();
    (m.summary(), views, m.to_move().iter().collect(), m.event_count())
}

/// What `viewer` has been shown: its view and the events it may receive.
fn shown(m: &dyn Host, viewer: Viewer) -> (Value, Vec<Value>) {
    let events =
        m.events().into_iter().filter(|t| t.audience.admits(viewer)).map(|t| t.event).collect();
    (m.view(viewer), events)
}

/// Near misses of a move: each number one off, each key dropped, each array shortened.
fn mutations(mv: &Value) -> Vec<Value> {
    let mut out = Vec::new();
    match mv {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                out.extend([Value::from(i + 1), Value::from(i - 1)]);
            }
        }
        Value::Array(xs) => {
            if !xs.is_empty() {
                out.push(Value::Array(xs[1..].to_vec()));
            }
            for (i, x) in xs.iter().enumerate() {
                for y in mutations(x) {
                    let mut ys = xs.clone();
                    ys[i] = y;
                    out.push(Value::Array(ys));
                }
            }
        }
        Value::Object(o) => {
            for (k, x) in o {
                let mut dropped = o.clone();
                dropped.remove(k);
                out.push(Value::Object(dropped));
                for y in mutations(x) {
                    let mut changed = o.clone();
                    changed.insert(k.clone(), y);
                    out.push(Value::Object(changed));
                }
            }
        }
        _ => {}
    }
    out
}

/// (a) and (b) at one position: each sampled legal move of each seat is accepted (on a
/// copy), each sampled candidate outside the list is refused and changes nothing.
/// `pool` holds moves seen legal earlier in the match (for either seat). Returns how many
/// candidates were refused.
fn check_position(m: &dyn Host, pool: &[Value], rng: &mut MatchRng) -> usize {
    let mut refused = 0;
    let game = m.game();
    let before = seen(m);
    for seat in Seat::BOTH {
        let legal = m.legal_moves(seat);
        for mv in sample(rng, &legal) {
            let mut copy = m.boxed_clone();
            let r = copy.step(&Step::Move { seat, mv: mv.clone() });
            assert!(r.is_ok(), "{game}: legal move {mv} of {seat:?} refused: {r:?}");
        }
        let mut candidates: Vec<Value> = pool.to_vec();
        for mv in sample(rng, &legal) {
            candidates.extend(mutations(&mv));
        }
        candidates.retain(|c| !legal.contains(c));
        for mv in sample(rng, &candidates) {
            let mut copy = m.boxed_clone();
            let r = copy.step(&Step::Move { seat, mv: mv.clone() });
            assert!(r.is_err(), "{game}: {mv} is not among {seat:?}'s legal moves but is accepted");
            assert!(seen(&*copy) == before, "{game}: the refused {mv} changed the match");
            refused += 1;
        }
    }
    refused
}

/// (c) for a position where both seats owe a move: `first` seals `x` in one world and
/// `y` in the other; the other seat and the spectators cannot tell them apart.
fn check_twins(m: &dyn Host, first: Seat, x: &Value, y: &Value) {
    let (mut a, mut b) = (m.boxed_clone(), m.boxed_clone());
    a.step(&Step::Move { seat: first, mv: x.clone() }).unwrap();
    b.step(&Step::Move { seat: first, mv: y.clone() }).unwrap();
    for viewer in [Viewer::Seat(first.other()), Viewer::Spectator] {
        assert!(
            shown(&*a, viewer) == shown(&*b, viewer),
            "{}: {viewer:?} can tell {first:?} sealing {x} from sealing {y}",
            m.game()
        );
    }
}

/// (d): the record verifies; a changed seed, a changed event, a dropped step or a
/// changed result does not.
fn check_record(m: &dyn Host) {
    let game = m.game();
    let r = Record::of(m);
    let v = r.verify().unwrap_or_else(|e| panic!("{game}: the record does not verify: {e}"));
    assert_eq!(v.steps, r.steps.len());
    let mut seed = r.clone();
    let mut bytes = [0u8; 32];
    bytes.copy_from_slice(seed.seed.unwrap().as_bytes());
    bytes[0] ^= 1;
    seed.seed = Some(Seed::from_array(bytes));
    assert!(seed.verify().is_err(), "{game}: another seed verifies");
    let mut event = r.clone();
    let last = event.events.last_mut().unwrap();
    last.event = serde_json::json!({"tampered": true});
    assert!(event.verify().is_err(), "{game}: a changed event verifies");
    if !r.steps.is_empty() {
        let mut dropped = r.clone();
        dropped.steps.pop();
        assert!(dropped.verify().is_err(), "{game}: a record missing its last step verifies");
    }
    let mut result = r.clone();
    result.result = None;
    assert!(result.verify().is_err(), "{game}: a record without its result verifies");
}

/// What one match checked.
#[derive(Default)]
struct Tally {
    refused: usize,
    twins: usize,
}

/// Plays one random match of `game`, checking (a)-(c) at every position and (d) at the end.
fn play(game: &str, n: u64, tally: &mut Tally) {
    let mut rng = rng(n ^ 0x5eed);
    let seed = Seed::from_array(rng.bytes32());
    let hex = seed.to_hex();
    let mut m = games::start(game, &serde_json::json!({}), seed).unwrap();
    let mut pool: Vec<Value> = Vec::new();
    let mut steps = 0;
    while m.outcome().is_none() && steps < 1000 {
        steps += 1;
        for v in VIEWERS {
            let (view, events) = shown(&*m, v);
            let text = format!("{view}{}", Value::Array(events));
            assert!(!text.contains(&hex), "{game}: {v:?} saw the seed before the end");
        }
        tally.refused += check_position(&*m, &pool, &mut rng);
        let owing: Vec<Seat> = m.to_move().iter().collect();
        if owing.is_empty() || rng.below(40) == 0 {
            m.step(&Step::Deadline).unwrap();
            continue;
        }
        let seat = pick(&mut rng, &owing);
        let legal = m.legal_moves(seat);
        let x = pick(&mut rng, &legal);
        if owing.len() == 2 {
            let others: Vec<Value> = legal.iter().filter(|y| **y != x).cloned().collect();
            if !others.is_empty() {
                check_twins(&*m, seat, &x, &pick(&mut rng, &others));
                tally.twins += 1;
            }
        }
        if pool.len() < 64 {
            pool.push(x.clone());
        } else {
            pool[rng.below(64) as usize] = x.clone();
        }
        m.step(&Step::Move { seat, mv: x }).unwrap();
    }
    assert!(m.outcome().is_some(), "{game}: seed {n} did not end in 1000 steps");
    for v in VIEWERS {
        let (view, events) = shown(&*m, v);
        let text = format!("{view}{}", Value::Array(events));
        assert!(text.contains(&hex), "{game}: {v:?} is shown the seed at the end");
    }
    check_record(&*m);
}

#[test]
fn every_game_keeps_the_host_properties() {
    let mut twins = 0;
    for g in GAMES {
        let mut tally = Tally::default();
        for n in 0..SEEDS {
            play(g.name, n, &mut tally);
        }
        assert!(
            tally.refused > 100,
            "{}: only {} moves were tried and refused",
            g.name,
            tally.refused
        );
        twins += tally.twins;
    }
    // GOPS, Dueling Monsters and Hexspiel seal their moves.
    assert!(twins > 100, "only {twins} sealed moves were twinned");
}
