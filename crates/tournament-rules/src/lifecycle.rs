//! A hosted event's lifecycle: its phases (created, running, between rounds, paused, over),
//! when a round may start, what pause and resume do, what time decides (a round after its gap,
//! a continuous format's waves and end). Pure: the caller passes the time in, as it stored it.

use crate::model::{Error, GameNo, Outcome, Player, Recorded, RoundPairing};
use crate::rules::Timing;
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;

/// Where an event is. Stored (snake case) in the service's log.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// No round yet.
    Created,
    /// A round (or a continuous event) runs.
    Running,
    /// Between rounds.
    BetweenRounds,
    /// Paused.
    Paused,
    /// Over.
    Finished,
}

/// Why a start or a change is refused now.
#[derive(Clone, PartialEq, Debug)]
pub enum Refusal {
    /// The event is over.
    Over,
    /// Not the next round.
    WrongRound {
        /// The next round.
        expected: u32,
        /// The round asked for.
        got: u32,
    },
    /// The event is paused.
    Paused,
    /// The current round still has games without a result.
    RoundRunning {
        /// The round in progress.
        round: u32,
    },
    /// The format could not pair the round.
    Pairing(Error),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Over => write!(f, "the tournament is over"),
            Refusal::WrongRound { expected, got } => {
                write!(f, "the next round is {expected}, not {got}")
            }
            Refusal::Paused => write!(f, "the tournament is paused: resume it first"),
            Refusal::RoundRunning { round } => write!(f, "round {round} is still being played"),
            Refusal::Pairing(e) => write!(f, "{e}"),
        }
    }
}

/// What starting the next round (or a continuous event) does.
#[derive(Clone, PartialEq, Debug)]
pub enum Start {
    /// Started before: nothing to do (a retried start is answered again).
    Again,
    /// A continuous event starts: it runs until `ends_at_ms`, its first wave `pairs`.
    Wave {
        /// When no more games start.
        ends_at_ms: u64,
        /// The first games, in seat order.
        pairs: Vec<[Player; 2]>,
    },
    /// A round: its pairing, and the phase once it is begun (running; or, a round of byes
    /// alone, over as it starts: between rounds or finished).
    Round {
        /// The pairing to begin.
        pairing: RoundPairing,
        /// The phase after it.
        then: Phase,
    },
}

/// What time decides at a given moment.
#[derive(Clone, PartialEq, Debug)]
pub enum Due {
    /// Nothing.
    Nothing,
    /// A continuous event's next wave, in seat order.
    Wave(Vec<[Player; 2]>),
    /// This round starts (its gap is over): [`Lifecycle::start`] it.
    Round(u32),
    /// The event ends.
    Finish,
}

/// An event's phase and the times its format's timing is measured from, folded from what
/// happened (each fold takes the time it was stored with).
#[derive(Clone, Debug)]
pub struct Lifecycle {
    phase: Phase,
    /// The phase a pause interrupted.
    resume_to: Phase,
    /// A continuous event's end (0 until started).
    ends_at_ms: u64,
    /// When the last round ended (round gaps run from it).
    round_ended_ms: u64,
    /// A continuous event's players waiting for a game, with since when.
    idle_since: BTreeMap<Player, u64>,
}

impl Default for Lifecycle {
    fn default() -> Lifecycle {
        Lifecycle::new()
    }
}

impl Lifecycle {
    /// An event just created.
    pub fn new() -> Lifecycle {
        Lifecycle {
            phase: Phase::Created,
            resume_to: Phase::Created,
            ends_at_ms: 0,
            round_ended_ms: 0,
            idle_since: BTreeMap::new(),
        }
    }

    /// The phase.
    pub fn phase(&self) -> Phase {
        self.phase
    }

    /// A continuous event's end (0 until started).
    pub fn ends_at_ms(&self) -> u64 {
        self.ends_at_ms
    }

    /// When the last round ended.
    pub fn round_ended_ms(&self) -> u64 {
        self.round_ended_ms
    }

    // ---- folds: what happened, already stored (so applied even where refused) ----

    /// Games were paired at `at_ms`: round `round`'s pairing, or a continuous event's wave
    /// (round 0).
    ///
    /// # Errors
    /// The tournament refused them (the lifecycle still moves on: it is stored).
    pub fn paired(
        &mut self,
        t: &mut Tournament,
        round: u32,
        games: Vec<[Player; 2]>,
        byes: Vec<Player>,
        at_ms: u64,
    ) -> Result<(), Error> {
        for p in games.iter().flatten() {
            self.idle_since.remove(p);
        }
        let empty = games.is_empty();
        let done = if round == 0 {
            t.begin_games(&games).map(|_| ())
        } else {
            t.begin_round(&RoundPairing { round, games, byes }).map(|_| ())
        };
        if round != 0 && empty {
            // Byes alone: the round is over as it starts.
            self.round_ended_ms = at_ms;
        }
        done
    }

    /// Game `game` finished as `outcome` at `at_ms`.
    ///
    /// # Errors
    /// The tournament refused it (an unknown game, another result).
    pub fn finished_game(
        &mut self,
        t: &mut Tournament,
        game: GameNo,
        outcome: Outcome,
        at_ms: u64,
    ) -> Result<Recorded, Error> {
        let recorded = t.record(game, outcome);
        if let Some(g) = t.game(game) {
            for p in g.players {
                self.idle_since.insert(p, at_ms);
            }
        }
        if t.round_complete() {
            self.round_ended_ms = at_ms;
        }
        recorded
    }

    /// The event entered `phase` (a continuous event's end set when it starts, else 0).
    pub fn entered(&mut self, t: &mut Tournament, phase: Phase, ends_at_ms: u64) {
        if phase == Phase::Paused {
            self.resume_to = self.phase;
        }
        self.phase = phase;
        if ends_at_ms != 0 {
            self.ends_at_ms = ends_at_ms;
        }
        if phase == Phase::Finished {
            t.close();
        }
    }

    // ---- decisions: pure functions of the state and the time ----

    /// Not over.
    ///
    /// # Errors
    /// [`Refusal::Over`].
    pub fn open(&self) -> Result<(), Refusal> {
        if self.phase == Phase::Finished {
            return Err(Refusal::Over);
        }
        Ok(())
    }

    /// Starting round `round` at `now` (a continuous event has one "round": its start).
    ///
    /// # Errors
    /// Over, not the next round, paused, the round before still running, no pairing.
    pub fn start(&self, t: &Tournament, round: u32, now: u64) -> Result<Start, Refusal> {
        let format = t.format();
        let timing = format.rules().timing();
        let current =
            if timing.is_some() { u32::from(self.phase != Phase::Created) } else { t.round() };
        if round >= 1 && round <= current {
            return Ok(Start::Again);
        }
        self.open()?;
        if round != current + 1 {
            return Err(Refusal::WrongRound { expected: current + 1, got: round });
        }
        if self.phase == Phase::Paused {
            return Err(Refusal::Paused);
        }
        if let Some(timing) = timing {
            let pairs = t.pair_arena(&t.idle_players());
            return Ok(Start::Wave { ends_at_ms: now + timing.duration_ms, pairs });
        }
        if !t.round_complete() {
            return Err(Refusal::RoundRunning { round: current });
        }
        let pairing = t.pair_round().map_err(Refusal::Pairing)?;
        let then = if pairing.games.is_empty() {
            // Byes alone (withdrawals left nobody to play): over as it starts.
            let mut after = t.clone();
            let _ = after.begin_round(&pairing);
            if after.finished() { Phase::Finished } else { Phase::BetweenRounds }
        } else {
            Phase::Running
        };
        Ok(Start::Round { pairing, then })
    }

    /// The phase results just recorded lead to (`after`: the tournament with them), if it
    /// changes: a round complete is between rounds or over (a paused event stays paused
    /// unless over); a continuous event is over once its time is up and its games done.
    pub fn settle(&self, after: &Tournament, now: u64) -> Option<Phase> {
        let format = after.format();
        if format.rules().timing().is_some() {
            // Paired again by time ([`Lifecycle::due`]), not here: paired at once, the two
            // who just played would meet again and again.
            return (now >= self.ends_at_ms && all_done(after)).then_some(Phase::Finished);
        }
        if !after.round_complete() {
            return None;
        }
        let phase = if after.finished() { Phase::Finished } else { Phase::BetweenRounds };
        (self.phase != Phase::Paused || phase == Phase::Finished).then_some(phase)
    }

    /// Pausing: the phase to enter, if any (paused already: none).
    ///
    /// # Errors
    /// [`Refusal::Over`].
    pub fn pause(&self) -> Result<Option<Phase>, Refusal> {
        self.open()?;
        Ok((self.phase != Phase::Paused).then_some(Phase::Paused))
    }

    /// Resuming: the phase to enter, if paused: the one paused, but between rounds if the
    /// round ended meanwhile (a continuous event just runs on: its idle players are paired
    /// by [`Lifecycle::due`]).
    ///
    /// # Errors
    /// [`Refusal::Over`].
    pub fn resume(&self, t: &Tournament) -> Result<Option<Phase>, Refusal> {
        self.open()?;
        if self.phase != Phase::Paused {
            return Ok(None);
        }
        let continuous = t.format().rules().timing().is_some();
        let to = if self.resume_to == Phase::Running && t.round_complete() && !continuous {
            Phase::BetweenRounds
        } else {
            self.resume_to
        };
        Ok(Some(to))
    }

    /// What is due by itself at `now`: a continuous event's next wave or its end, the next
    /// round once `round_gap_ms` (0: never by itself) has passed since the last ended.
    pub fn due(&self, t: &Tournament, now: u64, round_gap_ms: u64) -> Due {
        let format = t.format();
        if let Some(timing) = format.rules().timing()
            && self.phase == Phase::Running
            && now < self.ends_at_ms
        {
            let pairs = self.wave(t, &timing, now);
            return if pairs.is_empty() { Due::Nothing } else { Due::Wave(pairs) };
        }
        match self.phase {
            Phase::BetweenRounds
                if round_gap_ms > 0 && now >= self.round_ended_ms + round_gap_ms =>
            {
                Due::Round(t.round() + 1)
            }
            Phase::Running | Phase::Paused
                if self.ends_at_ms != 0 && now >= self.ends_at_ms && all_done(t) =>
            {
                Due::Finish
            }
            Phase::Created
            | Phase::Running
            | Phase::BetweenRounds
            | Phase::Paused
            | Phase::Finished => Due::Nothing,
        }
    }

    /// The idle players to pair now: once `timing.batch` are free, or one has waited
    /// `timing.wait_ms` (then whoever is free: maybe the last opponent again).
    fn wave(&self, t: &Tournament, timing: &Timing, now: u64) -> Vec<[Player; 2]> {
        let idle = t.idle_players();
        let waited = idle
            .iter()
            .filter_map(|p| self.idle_since.get(p))
            .any(|since| now.saturating_sub(*since) >= timing.wait_ms);
        if idle.len() < 2 || (idle.len() < timing.batch && !waited) {
            return Vec::new();
        }
        t.pair_arena(&idle)
    }
}

/// Every game started has its result.
fn all_done(t: &Tournament) -> bool {
    t.games().iter().all(|g| g.outcome.is_some())
}
