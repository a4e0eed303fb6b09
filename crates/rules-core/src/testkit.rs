//! Test support shared by every game's leak and determinism tests: a match that records,
//! per viewer, everything that viewer receives (events it may see, its view after each
//! step, the messages of its own refused moves), serialized, so two matches that differ
//! only in what a viewer may not know can be compared item by item; and the leak checks
//! every simultaneous game repeats (sealed-move twins, the hidden seed).

use crate::game::{Game, OptionsError};
use crate::matches::{EventLog, Match, Step};
use crate::refusal::Refusal;
use crate::seat::{Seat, Viewer};
use crate::seed::{MatchRng, Seed};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];

fn slot(v: Viewer) -> usize {
    match v {
        Viewer::Seat(s) => s.index(),
        Viewer::Spectator => 2,
    }
}

/// A match plus what each viewer has received so far.
#[derive(Clone, Debug)]
pub struct Observed<G: Game> {
    /// The match.
    pub m: Match<G>,
    /// Every event so far.
    pub log: EventLog<G::Event>,
    seen: [Vec<String>; 3],
}

impl<G: Game> Observed<G> {
    /// Starts a match and records the opening events and views.
    ///
    /// # Errors
    /// Invalid options.
    pub fn new(options: &G::Options, seed: Seed) -> Result<Self, OptionsError> {
        let mut log = Vec::new();
        let m = Match::new(options, seed, &mut log)?;
        let mut o = Observed { m, log, seen: [Vec::new(), Vec::new(), Vec::new()] };
        o.record_from(0);
        Ok(o)
    }

    fn record_from(&mut self, from: usize) {
        for v in VIEWERS {
            for t in &self.log[from..] {
                if t.audience.admits(v) {
                    self.seen[slot(v)]
                        .push(serde_json::to_string(&t.event).expect("events serialize"));
                }
            }
            let view = serde_json::to_string(&self.m.view(v)).expect("views serialize");
            self.seen[slot(v)].push(view);
        }
    }

    /// Applies a step and records what each viewer receives. A refusal is shown to the
    /// seat that made the step only.
    ///
    /// # Errors
    /// The refusal (the match is unchanged).
    pub fn step(&mut self, step: &Step<G::Move>) -> Result<(), Refusal<G::Illegal>> {
        let from = self.log.len();
        match self.m.step(step, &mut self.log) {
            Ok(()) => {
                self.record_from(from);
                Ok(())
            }
            Err(e) => {
                if let Step::Move { seat, .. } | Step::Resign(seat) = step {
                    self.seen[seat.index()].push(format!("refused: {e}"));
                }
                Err(e)
            }
        }
    }

    /// Everything `viewer` has received, in order.
    pub fn seen(&self, viewer: Viewer) -> &[String] {
        &self.seen[slot(viewer)]
    }

    /// All events serialized, one per line: the bytes the determinism tests compare.
    pub fn event_bytes(&self) -> String {
        let mut s = String::new();
        for t in &self.log {
            s.push_str(&serde_json::to_string(t).expect("events serialize"));
            s.push('\n');
        }
        s
    }
}

/// Panics, naming the first difference, unless `viewer` received the same in `a` and `b`.
pub fn assert_same_seen<G: Game>(a: &Observed<G>, b: &Observed<G>, viewer: Viewer, context: &str) {
    let (x, y) = (a.seen(viewer), b.seen(viewer));
    if let Some(i) = (0..x.len().max(y.len())).find(|&i| x.get(i) != y.get(i)) {
        panic!(
            "{context}: {viewer:?} can tell the two matches apart at item {i}:\n  a: {}\n  b: {}",
            x.get(i).map_or("<nothing>", String::as_str),
            y.get(i).map_or("<nothing>", String::as_str)
        );
    }
}

/// A test's own source of chance (which moves to play), from a number.
pub fn driver(seed: u64) -> MatchRng {
    Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes").rng()
}

/// One of `xs`, drawn from `rng`.
pub fn pick<T: Clone>(rng: &mut MatchRng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u32) as usize].clone()
}

/// The legal moves of `seat` in the observed match.
pub fn legal<G: Game>(o: &Observed<G>, seat: Seat) -> Vec<G::Move> {
    let mut v = Vec::new();
    o.m.legal_moves(seat, &mut v);
    v
}

/// Plays a random match (moves and deadlines drawn from `seed`); before each first
/// submission of a round, forks a twin in which that seat submits a different legal
/// move, and checks that the other seat and the spectator cannot tell the two apart,
/// also through a refused move of their own (`probe`, which the rules always refuse).
pub fn sealed_twins<G: Game>(options: &G::Options, seed: u64, probe: &dyn Fn(Seat) -> G::Move) {
    let mut rng = driver(seed);
    let mut a = Observed::<G>::new(options, Seed::from_array(rng.bytes32())).unwrap();
    let mut steps = 0;
    while !a.m.is_over() && steps < 500 {
        steps += 1;
        let owing: Vec<Seat> = a.m.to_move().iter().collect();
        if owing.is_empty() || rng.below(30) == 0 {
            a.step(&Step::Deadline).unwrap();
            continue;
        }
        let first = pick(&mut rng, &owing);
        let moves = legal(&a, first);
        let x = pick(&mut rng, &moves);
        let alt: Vec<_> = moves.iter().filter(|m| **m != x).cloned().collect();
        if owing.len() == 2 && !alt.is_empty() {
            let y = pick(&mut rng, &alt);
            let mut b = a.clone();
            a.step(&Step::Move { seat: first, mv: x }).unwrap();
            b.step(&Step::Move { seat: first, mv: y }).unwrap();
            let other = first.other();
            // The waiting seat probes with a refused move in both worlds.
            assert!(a.step(&Step::Move { seat: other, mv: probe(other) }).is_err());
            assert!(b.step(&Step::Move { seat: other, mv: probe(other) }).is_err());
            assert_same_seen(&a, &b, Viewer::Seat(other), "a sealed move");
            assert_same_seen(&a, &b, Viewer::Spectator, "a sealed move");
        } else {
            a.step(&Step::Move { seat: first, mv: x }).unwrap();
        }
    }
}

/// Plays a random match (drawn from `seed`): the match's seed never reaches anyone
/// before the match ends, and is revealed to everyone when it does.
pub fn seed_stays_hidden<G: Game>(options: &G::Options, seed: u64) {
    let mut rng = driver(seed);
    let match_seed = Seed::from_array(rng.bytes32());
    let hex = match_seed.to_hex();
    let mut o = Observed::<G>::new(options, match_seed).unwrap();
    let mut steps = 0;
    while !o.m.is_over() && steps < 2000 {
        steps += 1;
        for v in VIEWERS {
            assert!(o.seen(v).iter().all(|s| !s.contains(&hex)), "{v:?} saw the seed");
        }
        let owing: Vec<Seat> = o.m.to_move().iter().collect();
        if owing.is_empty() {
            o.step(&Step::Deadline).unwrap();
            continue;
        }
        let seat = pick(&mut rng, &owing);
        let mv = pick(&mut rng, &legal(&o, seat));
        o.step(&Step::Move { seat, mv }).unwrap();
    }
    assert!(o.m.is_over());
    for v in VIEWERS {
        assert!(o.seen(v).iter().any(|s| s.contains(&hex)), "the seed is revealed at the end");
    }
}
