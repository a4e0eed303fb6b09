//! Test support shared by every game's leak and determinism tests: a match that records,
//! per viewer, everything that viewer receives (events it may see, its view after each
//! step, the messages of its own refused moves), serialized, so two matches that differ
//! only in what a viewer may not know can be compared item by item.

use crate::game::{Game, OptionsError};
use crate::matches::{EventLog, Match, Step};
use crate::refusal::Refusal;
use crate::seat::{Seat, Viewer};
use crate::seed::Seed;

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
