//! The Swiss format ([`Swiss`]): what a tournament asks of a Swiss, over the pairing engine of
//! the parent module: each active player's history as the pairing sees it, the hard rules a
//! hand-made pairing must keep, and the scoring and tie-breaks.

use super::{Entry, Float};
use crate::model::{BYE, Error, Game, Player, PlayerResult, RoundPairing, Seat};
use crate::rules::{FormatRules, Words};
use crate::standings::Standing;
use crate::tournament::Tournament;
use serde::{Deserialize, Serialize};
use std::cmp::Reverse;

/// A Dutch-system Swiss of `rounds` rounds.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Swiss {
    /// Rounds to play (at least 1).
    pub rounds: u32,
}

impl FormatRules for Swiss {
    fn name(&self) -> &'static str {
        "swiss"
    }

    fn label(&self) -> String {
        format!("Swiss, {} rounds", self.rounds)
    }

    fn check(&self, _entrants: usize) -> Result<(), Error> {
        if self.rounds == 0 {
            return Err(Error::ZeroRounds);
        }
        Ok(())
    }

    fn total_rounds(&self, _entrants: usize) -> u32 {
        self.rounds
    }

    /// The Dutch-system pairing of the active players (see the [`swiss`](crate::swiss)
    /// module); the bye, when they are odd, to the lowest-ranked player who has not had one.
    fn pair_round(&self, t: &Tournament, round: u32) -> Result<RoundPairing, Error> {
        let entries = entries(t);
        if entries.len() < 2 {
            return Err(Error::NotEnoughPlayers);
        }
        let p = super::pair(&entries, round, round < self.rounds)?;
        Ok(RoundPairing { round, games: p.games, byes: p.bye.into_iter().collect() })
    }

    /// Any pairing that keeps the hard rules: every active player once, no repeat, the right
    /// number of byes, none to a player who had one (an organiser's manual pairing, or one
    /// logged by an earlier version).
    fn check_round(&self, t: &Tournament, pairing: &RoundPairing) -> Result<(), Error> {
        let n = t.entrants();
        let active = |i: usize| !t.is_withdrawn(Player(i as u32));
        let mut paired = vec![false; n];
        for p in pairing.games.iter().flatten().chain(&pairing.byes) {
            paired[p.index()] = true;
        }
        let count = (0..n).filter(|&i| active(i)).count();
        if let Some(i) = (0..n).find(|&i| active(i) && !paired[i]) {
            return Err(Error::Unpaired(Player(i as u32)));
        }
        if pairing.byes.len() != count % 2 {
            return Err(Error::ByeCount { expected: count % 2, got: pairing.byes.len() });
        }
        let mut had_bye = vec![false; n];
        let mut met: Vec<Vec<Player>> = vec![Vec::new(); n];
        for r in t.rounds() {
            for b in &r.byes {
                had_bye[b.index()] = true;
            }
            for &[a, b] in &r.games {
                met[a.index()].push(b);
            }
        }
        if let Some(b) = pairing.byes.iter().find(|b| had_bye[b.index()]) {
            return Err(Error::SecondBye(*b));
        }
        for &[a, b] in &pairing.games {
            if met[a.index()].contains(&b) || met[b.index()].contains(&a) {
                return Err(Error::Repeat([a, b]));
            }
        }
        Ok(())
    }

    /// A bye scores as a win.
    fn points(&self, results: &[PlayerResult], byes: u32) -> u32 {
        results.iter().map(|r| r.points()).sum::<u32>() + byes * BYE
    }

    /// Points, Buchholz, Sonneborn-Berger, wins, seed.
    fn rank(&self, rows: &mut [Standing]) {
        rows.sort_by_key(|s| {
            (
                Reverse(s.points),
                Reverse(s.buchholz),
                Reverse(s.sonneborn_berger),
                Reverse(s.wins),
                s.seed,
            )
        });
    }

    /// Never a repeat, one bye at most.
    fn meetings(&self) -> Option<usize> {
        Some(1)
    }
}

/// The Swiss view of every active player.
fn entries(t: &Tournament) -> Vec<Entry> {
    let n = t.entrants();
    let mut score = vec![0u32; n];
    let mut seats: Vec<Vec<Seat>> = vec![Vec::new(); n];
    let mut opponents: Vec<Vec<Player>> = vec![Vec::new(); n];
    let mut had_bye = vec![false; n];
    let mut floats = vec![[Float::None; 2]; n];
    // The games of each round, in order (the round is complete when pairing).
    let mut by_round: Vec<Vec<&Game>> = vec![Vec::new(); t.rounds().len()];
    for g in t.games() {
        if let Some(r) = (g.round as usize).checked_sub(1) {
            by_round[r].push(g);
        }
    }
    for (r, games) in t.rounds().iter().zip(&by_round) {
        // Floats compare the scores before the round (FIDE A.4): a bye or an absence is a
        // downfloat.
        let mut this = vec![Float::Down; n];
        for g in games {
            let [a, b] = g.players;
            let (ia, ib) = (a.index(), b.index());
            let cmp = score[ia].cmp(&score[ib]);
            this[ia] = float_of(cmp);
            this[ib] = float_of(cmp.reverse());
        }
        for i in 0..n {
            floats[i] = [this[i], floats[i][0]];
        }
        for b in &r.byes {
            had_bye[b.index()] = true;
            score[b.index()] += BYE;
        }
        for g in games {
            let [a, b] = g.players;
            seats[a.index()].push(Seat::Zero);
            seats[b.index()].push(Seat::One);
            opponents[a.index()].push(b);
            opponents[b.index()].push(a);
            if let Some(o) = g.outcome {
                score[a.index()] += o.for_seat(Seat::Zero).points();
                score[b.index()] += o.for_seat(Seat::One).points();
            }
        }
    }
    (0..n)
        .filter(|&i| !t.is_withdrawn(Player(i as u32)))
        .map(|i| Entry {
            player: Player(i as u32),
            seed: t.seed(Player(i as u32)) - 1,
            score: score[i],
            seats: std::mem::take(&mut seats[i]),
            opponents: std::mem::take(&mut opponents[i]),
            had_bye: had_bye[i],
            floats: floats[i],
        })
        .collect()
}

fn float_of(cmp: std::cmp::Ordering) -> Float {
    match cmp {
        std::cmp::Ordering::Greater => Float::Down,
        std::cmp::Ordering::Less => Float::Up,
        std::cmp::Ordering::Equal => Float::None,
    }
}

impl Swiss {
    /// Its command-line name.
    pub const NAMES: [&'static str; 1] = ["swiss"];

    /// The Swiss `words` name, if they name it.
    pub fn from_words(words: &Words<'_>) -> Option<Self> {
        Self::NAMES.contains(&words.name).then_some(Swiss { rounds: words.rounds })
    }
}

/// Its arm of the API's `TournamentFormat`, each way, with what one service hosts.
#[cfg(feature = "proto")]
mod proto {
    use super::Swiss;
    use api::v1::{self, tournament_format::Kind};

    /// The most rounds a hosted Swiss plays.
    pub const MAX_HOSTED_ROUNDS: u32 = 50;

    impl Swiss {
        /// Its proto arm.
        pub fn to_proto(&self) -> Kind {
            Kind::Swiss(v1::Swiss { rounds: self.rounds })
        }

        /// The Swiss of `arm` for `entrants`.
        ///
        /// # Errors
        /// Rounds out of bounds, in words.
        pub fn from_proto(arm: &v1::Swiss, entrants: usize) -> Result<Self, String> {
            if arm.rounds == 0 || arm.rounds > MAX_HOSTED_ROUNDS || arm.rounds as usize >= entrants
            {
                return Err(format!(
                    "swiss rounds are 1 to {MAX_HOSTED_ROUNDS} and fewer than the entrants ({entrants})"
                ));
            }
            Ok(Swiss { rounds: arm.rounds })
        }
    }
}
