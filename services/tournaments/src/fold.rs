//! A tournament folded from its results stream ([`Loaded`]): each stored event handed to the
//! `tournament-rules` crate (the rules' state, and the lifecycle with the time it was stored at), and
//! what the folded state shows (its matches, standings lines, protos).

use crate::error::Error;
use crate::records::{
    Envelope, Event, OwnedMatch, Row, Spec, State, TournamentState, derived_id, state_to_proto,
};
use api::v1;
use std::collections::BTreeSet;
use store::{MatchId, PlayerId};
use tournament_rules::{Lifecycle, Outcome, Player, Tournament};

/// A tournament folded from its stream.
#[derive(Clone)]
pub struct Loaded {
    /// The last sequence number folded.
    pub seq: u64,
    /// What it is.
    pub spec: Spec,
    /// The rules' state.
    pub t: Tournament,
    /// Where it is in its lifecycle, and since when.
    pub life: Lifecycle,
    /// The games whose match is created.
    pub(crate) started: BTreeSet<u32>,
}

impl Loaded {
    pub(crate) fn new(spec: Spec, seq: u64) -> Result<Loaded, Error> {
        let entrants = spec
            .entrants
            .iter()
            .map(|e| tournament_rules::Entrant { rating: e.seed_rating })
            .collect();
        let t =
            Tournament::new(spec.format, entrants).map_err(|e| Error::Invalid(e.to_string()))?;
        Ok(Loaded { seq, spec, t, life: Lifecycle::new(), started: BTreeSet::new() })
    }

    /// Where it is.
    pub fn state(&self) -> TournamentState {
        self.life.phase()
    }

    /// An arena's end (0 until started).
    pub fn ends_at_ms(&self) -> u64 {
        self.life.ends_at_ms()
    }

    /// Folds one event (already stored: it cannot be refused now).
    pub(crate) fn fold(&mut self, seq: u64, e: &Envelope) {
        self.seq = seq;
        let refused = |what: &str, err: tournament_rules::Error| {
            tracing::error!(seq, what, error = %err, "a stored tournament event did not fold");
        };
        match &e.event {
            Event::Created { .. } | Event::Standings { .. } => {}
            Event::Paired { round, games, byes } => {
                let pairs =
                    games.iter().map(|g| [Player(g.seats[0]), Player(g.seats[1])]).collect();
                let byes = byes.iter().map(|(n, _)| Player(*n)).collect();
                if let Err(err) = self.life.paired(&mut self.t, *round, pairs, byes, e.at_ms) {
                    refused("paired", err);
                }
            }
            Event::MatchStarted { m } => {
                if let Some((_, g)) = m.tournament {
                    self.started.insert(g);
                }
            }
            Event::MatchFinished { m } => {
                if let (Some((_, g)), Some(r)) = (m.tournament, &m.result) {
                    let game = tournament_rules::GameNo(g);
                    let outcome = outcome_of(r.winner);
                    if let Err(err) = self.life.finished_game(&mut self.t, game, outcome, e.at_ms) {
                        refused("finished", err);
                    }
                }
            }
            Event::State { state, ends_at_ms } => {
                self.life.entered(&mut self.t, *state, *ends_at_ms);
            }
            Event::Withdrawn { entrant, .. } => {
                if let Err(err) = self.t.withdraw(Player(*entrant)) {
                    refused("withdrawn", err);
                }
            }
        }
    }

    /// The match id of game `g`.
    pub fn match_of(&self, g: u32) -> MatchId {
        MatchId(derived_id(&[b"tournament", self.spec.id.to_string().as_bytes(), &g.to_be_bytes()]))
    }

    pub(crate) fn player(&self, p: Player) -> PlayerId {
        self.spec.entrants[p.0 as usize].player
    }

    /// The tenant's record of game `g`'s match, as created.
    pub fn owned(&self, g: &tournament_rules::Game) -> OwnedMatch {
        OwnedMatch {
            tenant: self.spec.tenant,
            match_id: self.match_of(g.no.0),
            game: self.spec.game.clone(),
            players: [self.player(g.players[0]), self.player(g.players[1])],
            label: if g.round == 0 { "arena".into() } else { format!("round {}", g.round) },
            tournament: Some((self.spec.id, g.no.0)),
            start_at_ms: 0,
            state: State::Scheduled,
            commitment: String::new(),
            result: None,
        }
    }

    /// The games paired whose match is not created yet (a writer died between the two).
    pub fn unstarted(&self) -> Vec<OwnedMatch> {
        self.t
            .games()
            .iter()
            .filter(|g| g.outcome.is_none() && !self.started.contains(&g.no.0))
            .map(|g| self.owned(g))
            .collect()
    }

    /// The standings lines.
    pub fn rows(&self) -> Vec<Row> {
        self.t.standings().iter().map(|s| self.row(s)).collect()
    }

    /// One standings line of the rules' standings, as GetStandings shows it.
    pub fn row(&self, s: &tournament_rules::Standing) -> Row {
        let e = &self.spec.entrants[s.player.0 as usize];
        Row {
            rank: s.rank,
            entrant: s.player.0,
            player: e.player,
            name: e.name.clone(),
            points2: s.points,
            played: s.games,
            wins: s.wins,
            draws: s.draws,
            losses: s.losses,
            byes: s.byes,
            buchholz2: s.buchholz,
            sonneborn_berger4: s.sonneborn_berger,
            withdrawn: s.withdrawn,
            reached_round: s.reached_round,
        }
    }

    /// The name entrant `p` appears under.
    pub fn name_of(&self, p: Player) -> &str {
        &self.spec.entrants[p.index()].name
    }

    /// Rounds in all (0 for an arena).
    pub fn rounds(&self) -> u32 {
        self.t.total_rounds()
    }

    /// As the proto shows it.
    pub fn to_proto(&self) -> v1::Tournament {
        let games = self.t.games();
        v1::Tournament {
            tournament_id: self.spec.id.to_string(),
            name: self.spec.name.clone(),
            format: Some(self.spec.format.to_proto()),
            game: Some(self.spec.game.to_proto()),
            state: state_to_proto(self.state()) as i32,
            round: self.t.round(),
            rounds: self.rounds(),
            players: self.spec.entrants.len() as u32,
            matches_started: self.started.len() as u32,
            matches_finished: games.iter().filter(|g| g.outcome.is_some()).count() as u32,
            sequence: self.seq,
            created_at_ms: self.spec.created_ms,
            ends_at_ms: self.ends_at_ms(),
            round_gap_ms: self.spec.round_gap_ms,
            public_page: self.spec.public_page,
        }
    }

    /// The round's pairing as RoundPaired shows it.
    pub(crate) fn round_paired(&self, round: u32) -> v1::RoundPaired {
        let games: Vec<&tournament_rules::Game> =
            self.t.games().iter().filter(|g| g.round == round).collect();
        let seated: BTreeSet<u32> =
            games.iter().flat_map(|g| [g.players[0].0, g.players[1].0]).collect();
        v1::RoundPaired {
            round,
            pairings: games
                .iter()
                .map(|g| v1::Pairing {
                    match_id: self.match_of(g.no.0).to_string(),
                    seat0_player_id: self.player(g.players[0]).to_string(),
                    seat1_player_id: self.player(g.players[1]).to_string(),
                })
                .collect(),
            bye_player_ids: self
                .t
                .byes_of(round)
                .iter()
                .filter(|p| !seated.contains(&p.0))
                .map(|p| self.player(*p).to_string())
                .collect(),
        }
    }
}

/// A match's winner (its seat; none for a draw) as the rules' outcome.
pub(crate) fn outcome_of(winner: Option<u8>) -> Outcome {
    match winner {
        Some(0) => Outcome::Seat0,
        Some(_) => Outcome::Seat1,
        None => Outcome::Draw,
    }
}
