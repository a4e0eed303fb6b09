//! Whole events played out with random results from a seeded ChaCha8, for the CLI's
//! `simulate` and for the tests: the same seed replays the same event. [`simulate`] takes the
//! pairing step as a callback so that the caller can time each `pair_round` (this crate reads
//! no clock); [`audit`] checks the hard rules on any state.

use crate::Format;
use crate::model::{Entrant, Error, GameNo, Outcome, Player, Recorded, RoundPairing};
use crate::tournament::Tournament;
use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// What an event's history shows about the rules (see [`audit`]).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Default, Serialize, Deserialize)]
pub struct Report {
    /// Rounds begun.
    pub rounds: u32,
    /// Games played (knockout replays and arena games included).
    pub games: u32,
    /// Knockout replays of drawn games.
    pub replays: u32,
    /// Meetings beyond what the format allows: a pair meeting in more than one round (two in a
    /// double round robin; a knockout replay is the same meeting). In an arena: a game against
    /// the same opponent as the player's previous one. Must be 0 in a Swiss.
    pub rematches: u32,
    /// Players with more byes than the format allows (one in a Swiss, one per cycle in a round
    /// robin). Must be 0.
    pub double_byes: u32,
    /// The largest |seat-0 games - seat-1 games| any player had at any point.
    pub max_seat_imbalance: u32,
    /// [`Tournament::seat_relaxations`].
    pub seat_relaxations: u32,
}

/// A random outcome: seat 0 wins 40%, seat 1 wins 40%, a draw 20%.
pub fn random_outcome(rng: &mut ChaCha8Rng) -> Outcome {
    match rng.next_u32() % 5 {
        0 | 1 => Outcome::Seat0,
        2 | 3 => Outcome::Seat1,
        _ => Outcome::Draw,
    }
}

/// Begins `pairing` and records random results for all its games, knockout replays included.
///
/// # Errors
/// Those of [`Tournament::begin_round`].
pub fn play_round(
    t: &mut Tournament,
    pairing: &RoundPairing,
    rng: &mut ChaCha8Rng,
) -> Result<(), Error> {
    let games = t.begin_round(pairing)?;
    play_games(t, games, rng)
}

fn play_games(t: &mut Tournament, games: Vec<GameNo>, rng: &mut ChaCha8Rng) -> Result<(), Error> {
    let mut queue = games;
    while let Some(g) = queue.pop() {
        if let Recorded::Replay { game, .. } = t.record(g, random_outcome(rng))? {
            queue.push(game);
        }
    }
    Ok(())
}

/// Plays a whole event of `format` for `entrants`, results drawn from
/// `ChaCha8Rng::seed_from_u64(seed)`. Each round is paired by `pair` (normally
/// `|t| t.pair_round()`, wrapped in a timer by a CLI). A continuous format (an arena) plays one
/// wave per simulated minute of its duration (at least one): every player paired by `pair_arena`, all results
/// recorded. Returns the final state and its [`audit`].
///
/// # Errors
/// Those of [`Tournament::new`], of `pair` and of [`Tournament::begin_round`].
pub fn simulate(
    format: Format,
    entrants: Vec<Entrant>,
    seed: u64,
    mut pair: impl FnMut(&Tournament) -> Result<RoundPairing, Error>,
) -> Result<(Tournament, Report), Error> {
    let mut t = Tournament::new(format, entrants)?;
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    if let Some(timing) = format.rules().timing() {
        let everyone: Vec<Player> = (0..t.entrants() as u32).map(Player).collect();
        for _ in 0..(timing.duration_ms / 60_000).max(1) {
            let pairs = t.pair_arena(&everyone);
            let games = t.begin_games(&pairs)?;
            play_games(&mut t, games, &mut rng)?;
        }
        t.close();
    } else {
        while !t.finished() {
            let pairing = pair(&t)?;
            play_round(&mut t, &pairing, &mut rng)?;
        }
    }
    let report = audit(&t);
    Ok((t, report))
}

/// Checks a state's history against the hard rules (see [`Report`]).
pub fn audit(t: &Tournament) -> Report {
    let n = t.entrants();
    let format = t.format();
    let rules = format.rules();
    // A continuous format counts a game against the previous game's opponent as a rematch.
    let back_to_back = rules.timing().is_some();
    let mut report = Report {
        rounds: t.round(),
        games: t.games().len() as u32,
        seat_relaxations: t.seat_relaxations(),
        ..Report::default()
    };
    // Rounds in which each pair met.
    let mut met: BTreeMap<(Player, Player), Vec<u32>> = BTreeMap::new();
    let mut last_opponent: Vec<Option<Player>> = vec![None; n];
    let mut diff = vec![0i32; n];
    for g in t.games() {
        let [a, b] = g.players;
        let rounds = met.entry((a.min(b), a.max(b))).or_default();
        if rounds.contains(&g.round) && g.round != 0 {
            report.replays += 1;
        } else {
            rounds.push(g.round);
        }
        if back_to_back && last_opponent[a.index()] == Some(b) {
            report.rematches += 1;
        }
        last_opponent[a.index()] = Some(b);
        last_opponent[b.index()] = Some(a);
        diff[a.index()] += 1;
        diff[b.index()] -= 1;
        for p in [a, b] {
            report.max_seat_imbalance =
                report.max_seat_imbalance.max(diff[p.index()].unsigned_abs());
        }
    }
    if let Some(allowed) = rules.meetings() {
        report.rematches +=
            met.values().map(|r| r.len().saturating_sub(allowed) as u32).sum::<u32>();
        let mut byes = vec![0usize; n];
        for r in 1..=t.round() {
            for b in t.byes_of(r) {
                byes[b.index()] += 1;
            }
        }
        report.double_byes = byes.iter().filter(|&&b| b > allowed).count() as u32;
    }
    report
}
