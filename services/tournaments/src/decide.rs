//! What a writer appends, decided on a folded tournament: the `tournament-rules` crate's lifecycle
//! answers (start a round or a wave, a phase after results, pause, resume, what time made due),
//! and this turns its answers into stored events, and its refusals into the API's errors.

use crate::error::Error;
use crate::fold::Loaded;
use crate::records::{Envelope, Event, OwnedMatch, PairedGame, Row, TournamentState};
use service_kit::status::{PlainCode, Reason};
use std::collections::BTreeSet;
use store::{MatchId, PlayerId};
use tournament_rules::{Due, Player, Refusal, Start};

/// The reason of a refusal the tournament's state explains with no reason of its own.
pub(crate) const FAILED_PRECONDITION: Reason = Reason::Code(PlainCode::FailedPrecondition);

/// What a decision appends: the events, the matches whose record changes, a once mark,
/// and whether the tournament closes.
#[derive(Default, Debug)]
pub(crate) struct Decision {
    pub events: Vec<Event>,
    pub owned: Vec<(MatchId, String)>,
    pub once: Option<String>,
    pub close: bool,
}

/// Pause, resume or withdraw.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    /// Pause.
    Pause,
    /// Resume.
    Resume,
    /// Withdraw an entrant.
    Withdraw(PlayerId),
}

impl Change {
    pub(crate) fn action(&self) -> &'static str {
        match self {
            Change::Pause => "PauseTournament",
            Change::Resume => "ResumeTournament",
            Change::Withdraw(_) => "WithdrawPlayer",
        }
    }
}

/// The API's error for a lifecycle's refusal.
fn refused(r: Refusal) -> Error {
    let reason = match r {
        Refusal::Over => Reason::TournamentOver,
        Refusal::Paused => Reason::Paused,
        Refusal::RoundRunning { .. } => Reason::RoundRunning,
        Refusal::WrongRound { .. } | Refusal::Pairing(_) => FAILED_PRECONDITION,
    };
    Error::NotNow(reason, r.to_string())
}

/// A phase entered (a continuous event's end with it when it starts, else 0).
fn entered(state: TournamentState, ends_at_ms: u64) -> Event {
    Event::State { state, ends_at_ms }
}

fn paired_games(l: &Loaded, games: &[[Player; 2]], first_no: u32) -> Vec<PairedGame> {
    games
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let no = first_no + i as u32;
            PairedGame {
                game_no: no,
                match_id: l.match_of(no),
                seats: [pair[0].0, pair[1].0],
                players: [l.player(pair[0]), l.player(pair[1])],
            }
        })
        .collect()
}

/// The events of a wave of games (an arena's; round 0).
fn wave(l: &Loaded, pairs: &[[Player; 2]]) -> Event {
    let first = l.t.games().len() as u32;
    Event::Paired { round: 0, games: paired_games(l, pairs, first), byes: Vec::new() }
}

/// The events of starting round `round` (or an arena), on `l`.
pub(crate) fn decide_round(l: &Loaded, round: u32, now: u64) -> Result<Decision, Error> {
    let events = match l.life.start(&l.t, round, now).map_err(refused)? {
        Start::Again => return Ok(Decision::default()), // Started before: answered again.
        Start::Wave { ends_at_ms, pairs } => {
            vec![entered(TournamentState::Running, ends_at_ms), wave(l, &pairs)]
        }
        Start::Round { pairing, then } => {
            let first_no = l.t.games().len() as u32;
            let paired = Event::Paired {
                round: pairing.round,
                games: paired_games(l, &pairing.games, first_no),
                byes: pairing.byes.iter().map(|p| (p.0, l.player(*p))).collect(),
            };
            vec![paired, entered(then, 0)]
        }
    };
    let close =
        events.iter().any(|e| matches!(e, Event::State { state: TournamentState::Finished, .. }));
    Ok(Decision { events, close, ..Decision::default() })
}

/// The events of matches `ms` finishing at `now`: each result once, the standings lines it
/// changed, and the phase it leads to.
pub(crate) fn decide_finished(l: &Loaded, ms: &[OwnedMatch], now: u64) -> Result<Decision, Error> {
    let mut after = l.clone();
    let mut events = Vec::new();
    let mut owned = Vec::new();
    let mut involved = BTreeSet::new();
    for m in ms {
        let Some((_, g)) = m.tournament else { continue };
        let Some(game) = after.t.games().get(g as usize).copied() else {
            return Err(Error::Corrupt(format!("no game {g} in the tournament")));
        };
        if game.outcome.is_some() {
            continue; // Recorded before (a replay, or adjudicated first).
        }
        let at = Envelope {
            at_ms: now,
            tournament: Some(l.spec.id),
            event: Event::MatchFinished { m: m.clone() },
        };
        after.fold(after.seq + 1, &at);
        events.push(at.event);
        owned.push((m.match_id, m.json()));
        involved.extend(game.players.map(|p| p.0));
    }
    if events.is_empty() {
        return Ok(Decision::default());
    }
    // The lines of the players whose own results changed (their opponents' tie-breaks and
    // everyone's ranks may move too: GetStandings reads every line).
    let changed: Vec<Row> =
        after.rows().into_iter().filter(|r| involved.contains(&r.entrant)).collect();
    events.push(Event::Standings { rows: changed });
    let phase = l.life.settle(&after.t, now);
    if let Some(state) = phase {
        events.push(entered(state, 0));
    }
    let close = phase == Some(TournamentState::Finished);
    Ok(Decision { events, owned, once: None, close })
}

/// The events of a pause, a resume or a withdrawal.
pub(crate) fn decide_change(l: &Loaded, change: &Change) -> Result<Decision, Error> {
    let phase = match change {
        Change::Pause => l.life.pause().map_err(refused)?,
        // A resumed arena's free players are paired by the driver's next pass.
        Change::Resume => l.life.resume(&l.t).map_err(refused)?,
        Change::Withdraw(player) => {
            l.life.open().map_err(refused)?;
            let Some(n) = l.spec.entrants.iter().position(|e| e.player == *player) else {
                return Err(Error::NotFound("entrant"));
            };
            if l.t.is_withdrawn(Player(n as u32)) {
                return Ok(Decision::default());
            }
            let event = Event::Withdrawn { entrant: n as u32, player: *player };
            return Ok(Decision { events: vec![event], ..Decision::default() });
        }
    };
    let events = phase.map(|p| entered(p, 0)).into_iter().collect();
    Ok(Decision { events, ..Decision::default() })
}

/// What is due by itself at `now`: a round after its gap, an arena's pairings and end.
pub(crate) fn decide_due(l: &Loaded, now: u64) -> Result<Decision, Error> {
    match l.life.due(&l.t, now, l.spec.round_gap_ms) {
        Due::Nothing => Ok(Decision::default()),
        Due::Wave(pairs) => Ok(Decision { events: vec![wave(l, &pairs)], ..Decision::default() }),
        Due::Round(round) => decide_round(l, round, now),
        Due::Finish => Ok(Decision {
            events: vec![entered(TournamentState::Finished, 0)],
            close: true,
            ..Decision::default()
        }),
    }
}

#[cfg(test)]
mod tests;
