//! What the service keeps, as JSON the store sequences but never reads: a tenant's record
//! of each match it made ([`OwnedMatch`]), the events of the results streams ([`Event`] in
//! an [`Envelope`]), and how each becomes the proto a platform reads.

use api::v1;
use serde::{Deserialize, Serialize};
use store::{MatchId, PlayerId, TenantId, TournamentId};

/// A game, its options and its time control, as checked.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct GameSpec {
    /// The game.
    pub game: String,
    /// Its options as given (JSON; empty for the defaults).
    pub options_json: String,
    /// Time per move, ms (resolved: never 0).
    pub move_time_ms: u64,
}

impl GameSpec {
    /// As the proto shows it.
    pub fn to_proto(&self) -> v1::GameSpec {
        v1::GameSpec {
            game: self.game.clone(),
            options_json: self.options_json.clone(),
            move_time_ms: self.move_time_ms,
        }
    }
}

/// A tournament as created.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Spec {
    /// Its id.
    pub id: TournamentId,
    /// Its tenant.
    pub tenant: TenantId,
    /// Its name.
    pub name: String,
    /// Its format.
    pub format: tournament_rules::Format,
    /// Its game.
    pub game: GameSpec,
    /// The entrants, in entry order.
    pub entrants: Vec<EntrantSpec>,
    /// The gap between rounds that start by themselves (0: by StartRound only).
    pub round_gap_ms: u64,
    /// When it was created, Unix ms.
    pub created_ms: u64,
    /// It has a public page (readable by its id alone: [`crate::view`]); absent in a
    /// tournament stored before there were public pages, which has none.
    #[serde(default)]
    pub public_page: bool,
}

/// An entrant as created.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct EntrantSpec {
    /// The player.
    pub player: PlayerId,
    /// The seed rating.
    pub seed_rating: Option<f64>,
    /// The name for tables.
    pub name: String,
}

/// A finished match's result.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct MatchResult {
    /// The winning seat; `None` for a draw.
    pub winner: Option<u8>,
    /// Why it ended.
    pub reason: String,
    /// The published seed (hex); empty for an adjudicated match still running.
    pub seed_hex: String,
    /// When, Unix ms.
    pub at_ms: u64,
}

/// Where a tenant's match is.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Waiting for its start time (not created yet).
    Scheduled,
    /// Created: being played.
    Running,
    /// Over.
    Finished,
}

/// A tenant's record of a match it made (bulk or in a tournament).
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct OwnedMatch {
    /// The tenant.
    pub tenant: TenantId,
    /// The match.
    pub match_id: MatchId,
    /// What it plays.
    pub game: GameSpec,
    /// The players, seat 0 first.
    pub players: [PlayerId; 2],
    /// The platform's label, or `round <n>`.
    pub label: String,
    /// The tournament, and the game's number in it.
    pub tournament: Option<(TournamentId, u32)>,
    /// When it starts, Unix ms (0: at once).
    pub start_at_ms: u64,
    /// Where it is.
    pub state: State,
    /// The seed commitment, once created.
    pub commitment: String,
    /// The result, once finished.
    pub result: Option<MatchResult>,
}

impl OwnedMatch {
    /// As the proto shows it.
    pub fn to_proto(&self) -> v1::TenantMatch {
        v1::TenantMatch {
            match_id: self.match_id.to_string(),
            game: Some(self.game.to_proto()),
            seat0_player_id: self.players[0].to_string(),
            seat1_player_id: self.players[1].to_string(),
            state: match self.state {
                State::Scheduled => v1::MatchState::Scheduled,
                State::Running => v1::MatchState::Running,
                State::Finished => v1::MatchState::Finished,
            } as i32,
            result: self.result.as_ref().map(|r| v1::MatchResult {
                winner: r.winner.map(u32::from),
                reason: r.reason.clone(),
                seed_hex: r.seed_hex.clone(),
                finished_at_ms: r.at_ms,
            }),
            tournament_id: self.tournament.map(|(t, _)| t.to_string()).unwrap_or_default(),
            label: self.label.clone(),
            seed_commitment: self.commitment.clone(),
        }
    }

    /// The record as stored.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("an owned match encodes")
    }

    /// A stored record.
    ///
    /// # Errors
    /// Not a record.
    pub fn parse(json: &str) -> Result<OwnedMatch, crate::error::Error> {
        serde_json::from_str(json).map_err(|e| crate::error::Error::Corrupt(e.to_string()))
    }
}

/// One event of a results stream, with when and which tournament.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
pub struct Envelope {
    /// When, Unix ms.
    pub at_ms: u64,
    /// The tournament; `None` for a bulk match's.
    pub tournament: Option<TournamentId>,
    /// What happened.
    pub event: Event,
}

impl Envelope {
    /// As stored.
    pub fn json(&self) -> String {
        serde_json::to_string(self).expect("an event encodes")
    }

    /// A stored event.
    ///
    /// # Errors
    /// Not an event.
    pub fn parse(json: &str) -> Result<Envelope, crate::error::Error> {
        serde_json::from_str(json).map_err(|e| crate::error::Error::Corrupt(e.to_string()))
    }
}

/// What happened. A tournament's stream is its source of truth: folding its events
/// ([`crate::tournaments`]) rebuilds it.
#[derive(Clone, PartialEq, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Event {
    /// A match was created.
    MatchStarted {
        /// The match.
        m: OwnedMatch,
    },
    /// A match ended (or was adjudicated).
    MatchFinished {
        /// The match, with its result.
        m: OwnedMatch,
    },
    /// A tournament was created: everything it is.
    Created {
        /// The tournament as created.
        spec: Spec,
    },
    /// Games were paired: a round's, or an arena's players paired again.
    Paired {
        /// The round (0 for an arena).
        round: u32,
        /// The games, each (game number, match, entrant numbers seat 0 first).
        games: Vec<PairedGame>,
        /// Entrants with a bye (number and player).
        byes: Vec<(u32, PlayerId)>,
    },
    /// Standings lines that changed.
    Standings {
        /// The lines.
        rows: Vec<Row>,
    },
    /// The tournament's state changed.
    State {
        /// The new state.
        state: TournamentState,
        /// An arena's end, Unix ms (when started).
        ends_at_ms: u64,
    },
    /// An entrant was withdrawn.
    Withdrawn {
        /// The entrant's number.
        entrant: u32,
        /// The player.
        player: PlayerId,
    },
}

/// A game a pairing made.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct PairedGame {
    /// The game's number in the tournament.
    pub game_no: u32,
    /// Its match.
    pub match_id: MatchId,
    /// The entrants, seat 0 first.
    pub seats: [u32; 2],
    /// Their players.
    pub players: [PlayerId; 2],
}

/// One standings line, as the stream and GetStandings show it.
#[derive(Clone, PartialEq, Eq, Debug, Serialize, Deserialize)]
pub struct Row {
    /// Rank, 1 first.
    pub rank: u32,
    /// Entrant number.
    pub entrant: u32,
    /// The player.
    pub player: PlayerId,
    /// The entrant's name.
    pub name: String,
    /// Points, half points.
    pub points2: u32,
    /// Games played.
    pub played: u32,
    /// Wins.
    pub wins: u32,
    /// Draws.
    pub draws: u32,
    /// Losses.
    pub losses: u32,
    /// Byes.
    pub byes: u32,
    /// Buchholz, half points.
    pub buchholz2: u32,
    /// Sonneborn-Berger, quarter points.
    pub sonneborn_berger4: u32,
    /// Withdrawn.
    pub withdrawn: bool,
    /// Knockout: the round reached.
    pub reached_round: u32,
}

impl Row {
    /// As the proto shows it.
    pub fn to_proto(&self) -> v1::Standing {
        v1::Standing {
            rank: self.rank,
            player_id: self.player.to_string(),
            name: self.name.clone(),
            points2: self.points2,
            played: self.played,
            wins: self.wins,
            draws: self.draws,
            losses: self.losses,
            byes: self.byes,
            buchholz2: self.buchholz2,
            sonneborn_berger4: self.sonneborn_berger4,
            withdrawn: self.withdrawn,
            reached_round: self.reached_round,
        }
    }
}

/// A tournament's state: the lifecycle's phase, stored as it serializes (snake case).
pub use tournament_rules::Phase as TournamentState;

/// A tournament's state as the proto shows it.
pub fn state_to_proto(s: TournamentState) -> v1::TournamentState {
    match s {
        TournamentState::Created => v1::TournamentState::Created,
        TournamentState::Running => v1::TournamentState::Running,
        TournamentState::BetweenRounds => v1::TournamentState::BetweenRounds,
        TournamentState::Paused => v1::TournamentState::Paused,
        TournamentState::Finished => v1::TournamentState::Finished,
    }
}

/// A deterministic id from parts (a match of a bulk call or of a tournament): the same
/// request always names the same matches, so a retry or a takeover creates nothing twice.
pub fn derived_id(parts: &[&[u8]]) -> uuid::Uuid {
    use sha2::{Digest, Sha256};
    let mut h = Sha256::new();
    for p in parts {
        h.update((p.len() as u64).to_be_bytes());
        h.update(p);
    }
    let digest = h.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_custom_bytes(bytes).into_uuid()
}
