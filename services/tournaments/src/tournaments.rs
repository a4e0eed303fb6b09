//! Tournaments. A tournament is its results stream: `Created` (everything it is), then
//! what happened (`Paired`, `MatchStarted`, `MatchFinished`, `State`, `Withdrawn`, and the
//! `Standings` lines each result changed). Folding the stream through the pure
//! `tournament` crate rebuilds it, so any replica serves any tournament: a writer catches
//! up, decides on what it read, and appends only if nobody appended since (the store's
//! expected sequence number); otherwise it catches up and decides again. Standings are a
//! function of the folded state, so a read never sees half a result.
//!
//! A game's match id is derived from the tournament and the game's number, so a pairing
//! stored before its matches were created is finished by whoever comes next (the
//! [`crate::driver`]) without creating anything twice.

use crate::admin::audit;
use crate::auth::Caller;
use crate::bulk::{check_game, check_key, create_in_engine, missing_players};
use crate::error::Error;
use crate::records::{
    EntrantSpec, Envelope, Event, MatchResult, OwnedMatch, PairedGame, Row, Spec, State,
    TournamentState, derived_id,
};
use api::{internal, v1};
use engines::Engines;
use events::{
    Append, Appended, Begun, MatchId, PlayerId, ResultsStream, TenantId, TenantStore, TournamentId,
};
use futures_util::StreamExt;
use service_kit::status::{PlainCode, Reason};
use service_kit::time::now_ms;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use tournament::{Outcome, Player, Tournament};

/// The reason of a refusal the tournament's state explains with no reason of its own.
const FAILED_PRECONDITION: Reason = Reason::Code(PlainCode::FailedPrecondition);

/// The request kind of CreateTournament in the store.
pub const KIND: &str = "tournament";
/// The most entrants of a swiss or an arena.
pub const MAX_ENTRANTS: usize = 10_000;
/// The most entrants of a round robin or a knockout.
pub const MAX_SMALL_ENTRANTS: usize = 1_024;
/// The most swiss rounds.
pub const MAX_ROUNDS: u32 = 50;
/// The shortest and longest arena.
pub const ARENA_MS: std::ops::RangeInclusive<u64> = 60_000..=24 * 3600 * 1000;
/// How many times a writer decides again after another replica appended first.
const ATTEMPTS: usize = 8;
/// Matches created at once.
const CREATING_AT_ONCE: usize = 64;
/// The longest gap between rounds that start by themselves.
pub const MAX_ROUND_GAP_MS: u64 = 7 * 24 * 3600 * 1000;
/// How many tournaments a replica keeps folded in memory before forgetting idle ones.
const CACHED: usize = 1_000;
/// Events read per catch-up page.
const PAGE: usize = 1_000;

/// A tournament folded from its stream.
#[derive(Clone)]
pub struct Loaded {
    /// The last sequence number folded.
    pub seq: u64,
    /// What it is.
    pub spec: Spec,
    /// The rules' state.
    pub t: Tournament,
    /// Where it is.
    pub state: TournamentState,
    /// The state before a pause.
    resume_to: TournamentState,
    /// The games whose match is created.
    started: BTreeSet<u32>,
    /// An arena's end (0 until started).
    pub ends_at_ms: u64,
    /// When the last round ended (for `round_gap_ms`).
    pub round_ended_ms: u64,
    /// An arena's players waiting for a game, with since when.
    idle_since: BTreeMap<u32, u64>,
}

impl Loaded {
    fn new(spec: Spec, seq: u64) -> Result<Loaded, Error> {
        let entrants =
            spec.entrants.iter().map(|e| tournament::Entrant { rating: e.seed_rating }).collect();
        let t =
            Tournament::new(spec.format, entrants).map_err(|e| Error::Invalid(e.to_string()))?;
        Ok(Loaded {
            seq,
            spec,
            t,
            state: TournamentState::Created,
            resume_to: TournamentState::Created,
            started: BTreeSet::new(),
            ends_at_ms: 0,
            round_ended_ms: 0,
            idle_since: BTreeMap::new(),
        })
    }

    /// Folds one event (already stored: it cannot be refused now).
    fn fold(&mut self, seq: u64, e: &Envelope) {
        self.seq = seq;
        let refused = |what: &str, err: tournament::Error| {
            tracing::error!(seq, what, error = %err, "a stored tournament event did not fold");
        };
        match &e.event {
            Event::Created { .. } | Event::Standings { .. } => {}
            Event::Paired { round, games, byes } => {
                let pairs: Vec<[Player; 2]> =
                    games.iter().map(|g| [Player(g.seats[0]), Player(g.seats[1])]).collect();
                for g in games {
                    self.idle_since.remove(&g.seats[0]);
                    self.idle_since.remove(&g.seats[1]);
                }
                let done = if *round == 0 {
                    self.t.begin_games(&pairs).map(|_| ())
                } else {
                    let p = tournament::RoundPairing {
                        round: *round,
                        games: pairs,
                        byes: byes.iter().map(|(n, _)| Player(*n)).collect(),
                    };
                    self.t.begin_round(&p).map(|_| ())
                };
                if let Err(err) = done {
                    refused("paired", err);
                }
                if *round != 0 && games.is_empty() {
                    self.round_ended_ms = e.at_ms;
                }
            }
            Event::MatchStarted { m } => {
                if let Some((_, g)) = m.tournament {
                    self.started.insert(g);
                }
            }
            Event::MatchFinished { m } => {
                if let (Some((_, g)), Some(r)) = (m.tournament, &m.result) {
                    let outcome = match r.winner {
                        Some(0) => Outcome::Seat0,
                        Some(_) => Outcome::Seat1,
                        None => Outcome::Draw,
                    };
                    if let Err(err) = self.t.record(tournament::GameNo(g), outcome) {
                        refused("finished", err);
                    }
                    if let Some(game) = self.t.games().get(g as usize) {
                        for p in game.players {
                            self.idle_since.insert(p.0, e.at_ms);
                        }
                    }
                    if self.t.round_complete() {
                        self.round_ended_ms = e.at_ms;
                    }
                }
            }
            Event::State { state, ends_at_ms } => {
                if *state == TournamentState::Paused {
                    self.resume_to = self.state;
                }
                self.state = *state;
                if *ends_at_ms != 0 {
                    self.ends_at_ms = *ends_at_ms;
                }
                if *state == TournamentState::Finished
                    && matches!(self.spec.format, tournament::Format::Arena { .. })
                {
                    self.t.close();
                }
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
    pub fn owned(&self, g: &tournament::Game) -> OwnedMatch {
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
    pub fn row(&self, s: &tournament::Standing) -> Row {
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
            format: Some(format_to_proto(&self.spec.format)),
            game: Some(self.spec.game.to_proto()),
            state: self.state.to_proto() as i32,
            round: self.t.round(),
            rounds: self.rounds(),
            players: self.spec.entrants.len() as u32,
            matches_started: self.started.len() as u32,
            matches_finished: games.iter().filter(|g| g.outcome.is_some()).count() as u32,
            sequence: self.seq,
            created_at_ms: self.spec.created_ms,
            ends_at_ms: self.ends_at_ms,
            round_gap_ms: self.spec.round_gap_ms,
            public_page: self.spec.public_page,
        }
    }

    /// The round's pairing as RoundPaired shows it.
    fn round_paired(&self, round: u32) -> v1::RoundPaired {
        let games: Vec<&tournament::Game> =
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

    /// The players not in a game without a result, and not withdrawn (an arena's idle).
    fn idle(&self) -> Vec<Player> {
        let busy: BTreeSet<u32> = self
            .t
            .games()
            .iter()
            .filter(|g| g.outcome.is_none())
            .flat_map(|g| [g.players[0].0, g.players[1].0])
            .collect();
        (0..self.spec.entrants.len() as u32)
            .filter(|p| !busy.contains(p) && !self.t.is_withdrawn(Player(*p)))
            .map(Player)
            .collect()
    }
}

/// The proto of a format.
pub fn format_to_proto(f: &tournament::Format) -> v1::TournamentFormat {
    use v1::tournament_format::Kind;
    let kind = match *f {
        tournament::Format::RoundRobin { double } => Kind::RoundRobin(v1::RoundRobin { double }),
        tournament::Format::Swiss { rounds } => Kind::Swiss(v1::Swiss { rounds }),
        tournament::Format::Knockout { draws } => Kind::Knockout(v1::Knockout {
            draw: match draws {
                tournament::DrawRule::Replay => v1::KnockoutDraw::Replay,
                tournament::DrawRule::HigherSeed => v1::KnockoutDraw::HigherSeed,
            } as i32,
        }),
        tournament::Format::Arena { duration_ms } => Kind::Arena(v1::Arena { duration_ms }),
    };
    v1::TournamentFormat { kind: Some(kind) }
}

fn format_from_proto(
    f: Option<&v1::TournamentFormat>,
    players: usize,
) -> Result<tournament::Format, Error> {
    use v1::tournament_format::Kind;
    let bad = |why: String| Error::from(fields::bad("format", why));
    let small = |n: usize| {
        if n > MAX_SMALL_ENTRANTS {
            Err(bad(format!(
                "a round robin or knockout takes at most {MAX_SMALL_ENTRANTS} entrants"
            )))
        } else {
            Ok(())
        }
    };
    match f.and_then(|f| f.kind.as_ref()) {
        None => Err(bad("format is required: round_robin, swiss, knockout or arena".into())),
        Some(Kind::RoundRobin(r)) => {
            small(players)?;
            Ok(tournament::Format::RoundRobin { double: r.double })
        }
        Some(Kind::Swiss(s)) => {
            if s.rounds == 0 || s.rounds > MAX_ROUNDS || s.rounds as usize >= players {
                return Err(bad(format!(
                    "swiss rounds are 1 to {MAX_ROUNDS} and fewer than the entrants ({players})"
                )));
            }
            Ok(tournament::Format::Swiss { rounds: s.rounds })
        }
        Some(Kind::Knockout(k)) => {
            small(players)?;
            let draws = if k.draw == v1::KnockoutDraw::HigherSeed as i32 {
                tournament::DrawRule::HigherSeed
            } else {
                tournament::DrawRule::Replay
            };
            Ok(tournament::Format::Knockout { draws })
        }
        Some(Kind::Arena(a)) => {
            if !ARENA_MS.contains(&a.duration_ms) {
                return Err(bad("an arena lasts 1 minute to 24 hours (duration_ms)".into()));
            }
            Ok(tournament::Format::Arena { duration_ms: a.duration_ms })
        }
    }
}

/// One tournament's slot in the cache: folded state, one writer at a time.
type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

/// The tournaments.
pub struct Tournaments {
    store: Arc<dyn TenantStore>,
    engines: Engines,
    cache: Mutex<BTreeMap<TournamentId, Slot>>,
}

/// What a decision appends: the events, the matches whose record changes, a once mark,
/// and whether the tournament closes.
#[derive(Default, Debug)]
struct Decision {
    events: Vec<Event>,
    owned: Vec<(MatchId, String)>,
    once: Option<String>,
    close: bool,
}

impl Tournaments {
    /// Over `store`, creating matches through `engines`.
    pub fn new(store: Arc<dyn TenantStore>, engines: Engines) -> Arc<Tournaments> {
        Arc::new(Tournaments { store, engines, cache: Mutex::default() })
    }

    fn slot(&self, id: TournamentId) -> Slot {
        let mut cache = self.cache.lock().expect("the cache lock");
        if cache.len() >= CACHED && !cache.contains_key(&id) {
            // Forget the folded state of every tournament nobody is using now: a later
            // call folds its stream again.
            cache.retain(|_, slot| Arc::strong_count(slot) > 1);
        }
        cache.entry(id).or_default().clone()
    }

    /// Catches `slot` up with the stream; NOT_FOUND if the tenant has no such tournament.
    async fn catch_up(
        &self,
        tenant: TenantId,
        id: TournamentId,
        slot: &mut Option<Loaded>,
        until: u64,
    ) -> Result<(), Error> {
        let stream = ResultsStream::Tournament(tenant, id);
        loop {
            let after = slot.as_ref().map_or(0, |l| l.seq);
            let want = usize::try_from(until.saturating_sub(after)).unwrap_or(PAGE).min(PAGE);
            if want == 0 {
                break;
            }
            let page = self.store.read_results(stream, after, want).await?;
            let full = page.len() == want;
            for entry in page {
                let e = Envelope::parse(&entry.json)?;
                match (slot.as_mut(), &e.event) {
                    (None, Event::Created { spec }) => {
                        let mut l = Loaded::new(spec.clone(), entry.seq)?;
                        l.fold(entry.seq, &e);
                        *slot = Some(l);
                    }
                    (Some(l), _) => l.fold(entry.seq, &e),
                    (None, _) => {
                        return Err(Error::Corrupt(
                            "a tournament stream not opened by Created".into(),
                        ));
                    }
                }
            }
            if !full {
                break;
            }
        }
        if slot.is_none() {
            return Err(Error::NotFound("tournament"));
        }
        Ok(())
    }

    /// The tournament, caught up (a copy: readers never hold the writer's lock long).
    ///
    /// # Errors
    /// NOT_FOUND for another tenant's or none.
    pub async fn read(&self, tenant: TenantId, id: TournamentId) -> Result<Loaded, Error> {
        self.read_with(tenant, id, Loaded::clone).await
    }

    /// What `f` makes of the tournament caught up, under its lock: for a reader that keeps
    /// a little of a large tournament (a public page), which would cost more to copy.
    ///
    /// # Errors
    /// NOT_FOUND for another tenant's or none.
    pub async fn read_with<T>(
        &self,
        tenant: TenantId,
        id: TournamentId,
        f: impl FnOnce(&Loaded) -> T,
    ) -> Result<T, Error> {
        let slot = self.slot(id);
        let mut held = slot.lock().await;
        if held.as_ref().is_some_and(|l| l.spec.tenant != tenant) {
            return Err(Error::NotFound("tournament"));
        }
        self.catch_up(tenant, id, &mut held, u64::MAX).await?;
        Ok(f(held.as_ref().expect("caught up")))
    }

    /// The tournament as it stood at sequence number `seq` (an export's later pages show
    /// what its first did): the held state if it is still there, else folded anew.
    ///
    /// # Errors
    /// NOT_FOUND for another tenant's or none.
    pub async fn read_at(
        &self,
        tenant: TenantId,
        id: TournamentId,
        seq: u64,
    ) -> Result<Loaded, Error> {
        let now = self.read(tenant, id).await?;
        if now.seq == seq {
            return Ok(now);
        }
        let mut at = None;
        self.catch_up(tenant, id, &mut at, seq).await?;
        Ok(at.expect("caught up"))
    }

    /// Decides with `decide` on the caught-up state and appends what it decides, again on
    /// a conflict. Answers the state after (and whether anything was appended).
    async fn write(
        &self,
        tenant: TenantId,
        id: TournamentId,
        decide: impl Fn(&Loaded) -> Result<Decision, Error>,
    ) -> Result<(Loaded, bool), Error> {
        let slot = self.slot(id);
        let mut held = slot.lock().await;
        for _ in 0..ATTEMPTS {
            self.catch_up(tenant, id, &mut held, u64::MAX).await?;
            let loaded = held.as_ref().expect("caught up");
            if loaded.spec.tenant != tenant {
                return Err(Error::NotFound("tournament"));
            }
            let mut d = decide(loaded)?;
            if d.events.is_empty() {
                return Ok((loaded.clone(), false));
            }
            let at_ms = now_ms();
            let envelopes: Vec<Envelope> = d
                .events
                .into_iter()
                .map(|event| Envelope { at_ms, tournament: Some(id), event })
                .collect();
            // The tenant's record of every game these events start is written with them,
            // before its match can exist: a match that finishes at once is already known
            // as the tenant's when the lifecycle stream says so.
            let mut after = loaded.clone();
            let mut seq = loaded.seq;
            for e in &envelopes {
                seq += 1;
                after.fold(seq, e);
            }
            let known = loaded.t.games().len();
            for g in &after.t.games()[known..] {
                let m = after.owned(g);
                d.owned.push((m.match_id, m.json()));
            }
            let appended = self
                .store
                .append_results(&Append {
                    stream: ResultsStream::Tournament(tenant, id),
                    expect_seq: Some(loaded.seq),
                    once: d.once,
                    events: envelopes.iter().map(Envelope::json).collect(),
                    owned: d.owned,
                    at_ms,
                    close: d.close,
                })
                .await?;
            match appended {
                Appended::Done { .. } => {
                    // Folded from what was appended; were this future dropped here, the
                    // next writer reads them back from the stream instead.
                    *held = Some(after.clone());
                    return Ok((after, true));
                }
                Appended::Already => return Ok((loaded.clone(), false)),
                Appended::Conflict { .. } => continue,
            }
        }
        Err(Error::Busy)
    }

    /// CreateTournament.
    ///
    /// # Errors
    /// A bad request, a reused key, the store.
    pub async fn create(
        &self,
        caller: &Caller,
        req: v1::CreateTournamentRequest,
    ) -> Result<Loaded, Error> {
        check_key(&req.idempotency_key)?;
        let name = req.name.trim().to_string();
        if name.is_empty() || name.len() > 128 {
            return Err(fields::bad("name", "name is 1 to 128 bytes".into()).into());
        }
        let n = req.entrants.len();
        if !(2..=MAX_ENTRANTS).contains(&n) {
            return Err(
                fields::bad("entrants", format!("2 to {MAX_ENTRANTS} entrants, not {n}")).into()
            );
        }
        let format = format_from_proto(req.format.as_ref(), n)?;
        let game =
            check_game(req.game.as_ref()).map_err(|why| Error::from(fields::bad("game", why)))?;
        let mut entrants = Vec::with_capacity(n);
        let mut seen = BTreeSet::new();
        for (i, e) in req.entrants.iter().enumerate() {
            let field = format!("entrants[{i}].player_id");
            let player: PlayerId = e.player_id.parse().map_err(|_| {
                Error::from(fields::bad(&field, format!("{field} is not a player id")))
            })?;
            if !seen.insert(player) {
                return Err(fields::bad(&field, format!("{field} is entered twice")).into());
            }
            if e.seed_rating.is_some_and(|r| !r.is_finite()) {
                return Err(fields::bad(
                    &format!("entrants[{i}].seed_rating"),
                    "not a number".into(),
                )
                .into());
            }
            if e.name.len() > 64 {
                return Err(
                    fields::bad(&format!("entrants[{i}].name"), "at most 64 bytes".into()).into()
                );
            }
            let name = if e.name.trim().is_empty() && req.public_page {
                // A public page shows no part of a player id.
                format!("Player {}", i + 1)
            } else if e.name.trim().is_empty() {
                player.to_string()[..8].to_string()
            } else {
                e.name.trim().to_string()
            };
            entrants.push(EntrantSpec { player, seed_rating: e.seed_rating, name });
        }
        let missing = missing_players(&self.store, seen).await?;
        if let Some(p) = missing.first() {
            let i = entrants.iter().position(|e| e.player == *p).unwrap_or(0);
            let field = format!("entrants[{i}].player_id");
            return Err(
                fields::bad(&field, format!("no player {p} ({} unknown)", missing.len())).into()
            );
        }
        if req.round_gap_ms > MAX_ROUND_GAP_MS {
            return Err(fields::bad("round_gap_ms", "round_gap_ms is at most a week".into()).into());
        }
        let tenant = caller.tenant;
        let id = TournamentId(derived_id(&[
            b"tournament",
            tenant.to_string().as_bytes(),
            req.idempotency_key.as_bytes(),
        ]));
        let spec = Spec {
            id,
            tenant,
            name,
            format,
            game,
            entrants,
            round_gap_ms: req.round_gap_ms,
            created_ms: now_ms(),
            public_page: req.public_page,
        };
        let digest = {
            use prost::Message;
            use sha2::{Digest, Sha256};
            hex::encode(Sha256::digest(req.encode_to_vec()))
        };
        let record = serde_json::json!({ "id": id }).to_string();
        let begin = events::Begin {
            kind: KIND,
            tenant,
            key: &req.idempotency_key,
            digest: &digest,
            record_json: &record,
            owned: &[],
            scheduled: &[],
            now_ms: spec.created_ms,
        };
        match self.store.begin(&begin).await? {
            Begun::Mismatch => return Err(Error::KeyReused),
            Begun::New | Begun::Same { .. } => {}
        }
        Loaded::new(spec.clone(), 0)?;
        if spec.public_page {
            // Listed before the stream opens: a public tournament is always found (a
            // listing whose stream never opened is found empty, NOT_FOUND as any id).
            self.store.put_public_tournament(id, tenant).await?;
        }
        // The first append opens the stream; a retry finds it there (a conflict at 0).
        let at_ms = spec.created_ms;
        let created = Envelope { at_ms, tournament: Some(id), event: Event::Created { spec } };
        self.store
            .append_results(&Append {
                stream: ResultsStream::Tournament(tenant, id),
                expect_seq: Some(0),
                once: None,
                events: vec![created.json()],
                owned: Vec::new(),
                at_ms,
                close: false,
            })
            .await?;
        self.store.finish(KIND, tenant, &req.idempotency_key, &[], at_ms).await?;
        audit(
            &self.store,
            tenant,
            &caller.actor(),
            "CreateTournament",
            serde_json::json!({"tournament_id": id}),
        )
        .await?;
        self.read(tenant, id).await
    }

    /// StartRound: pairs round `round` and creates its matches (a round already started
    /// answers its pairing again).
    ///
    /// # Errors
    /// Not the next round, a round unfinished, paused, over; the store or engines.
    pub async fn start_round(
        &self,
        tenant: TenantId,
        id: TournamentId,
        round: u32,
    ) -> Result<v1::RoundPaired, Error> {
        let (loaded, _) = self.write(tenant, id, |l| decide_round(l, round, now_ms())).await?;
        self.start_matches(&loaded).await?;
        if matches!(loaded.spec.format, tournament::Format::Arena { .. }) {
            return Ok(loaded.round_paired(0));
        }
        Ok(loaded.round_paired(round))
    }

    /// Creates the matches of every game paired and not started, then announces them.
    ///
    /// # Errors
    /// An engine or the store failed: the driver tries again.
    pub async fn start_matches(&self, loaded: &Loaded) -> Result<(), Error> {
        let todo = loaded.unstarted();
        if todo.is_empty() {
            return Ok(());
        }
        // Only a tournament with a public page shows its games on the live lists.
        let listed = loaded.spec.public_page;
        let created: Vec<Result<OwnedMatch, Error>> = futures_util::stream::iter(todo)
            .map(|mut m| async move {
                m.commitment = create_in_engine(&self.engines, &m, listed).await?;
                m.state = State::Running;
                Ok(m)
            })
            .buffer_unordered(CREATING_AT_ONCE)
            .collect()
            .await;
        let mut started = Vec::with_capacity(created.len());
        for c in created {
            started.push(c?);
        }
        started.sort_by_key(|m| m.tournament.map(|(_, g)| g));
        let (tenant, id) = (loaded.spec.tenant, loaded.spec.id);
        self.write(tenant, id, move |l| {
            let mut d = Decision::default();
            for m in &started {
                let g = m.tournament.map_or(0, |(_, g)| g);
                let running = l.t.games().get(g as usize).is_some_and(|g| g.outcome.is_none());
                if running && !l.started.contains(&g) {
                    d.owned.push((m.match_id, m.json()));
                    d.events.push(Event::MatchStarted { m: m.clone() });
                }
            }
            Ok(d)
        })
        .await?;
        Ok(())
    }

    /// Matches of one tournament finished (or were adjudicated): each recorded once (a
    /// game with its result already changes nothing), in one append with the standings
    /// lines they changed and the round's new state; a knockout replay is started.
    ///
    /// # Errors
    /// The store or engines failed (the lifecycle entries stay pending).
    pub async fn record(&self, ms: Vec<OwnedMatch>) -> Result<(), Error> {
        let Some((tenant, id)) = ms.first().and_then(|m| m.tournament.map(|(t, _)| (m.tenant, t)))
        else {
            return Ok(());
        };
        if ms.iter().any(|m| m.tenant != tenant || m.tournament.map(|(t, _)| t) != Some(id)) {
            return Err(Error::Corrupt("results of several tournaments in one record".into()));
        }
        let (loaded, wrote) = self.write(tenant, id, |l| decide_finished(l, &ms, now_ms())).await?;
        if wrote {
            self.start_matches(&loaded).await?;
        }
        Ok(())
    }

    /// Pause, resume, withdraw: one event each, audited.
    ///
    /// # Errors
    /// NOT_FOUND, over, the store.
    pub async fn change(
        &self,
        caller: &Caller,
        id: TournamentId,
        change: Change,
    ) -> Result<(), Error> {
        let action = change.action();
        let detail = serde_json::json!({"tournament_id": id, "change": format!("{change:?}")});
        let (loaded, _) = self.write(caller.tenant, id, |l| decide_change(l, &change)).await?;
        audit(&self.store, caller.tenant, &caller.actor(), action, detail).await?;
        // A resumed arena pairs its idle players at once.
        self.start_matches(&loaded).await?;
        Ok(())
    }

    /// AdjudicateMatch: the organiser's result, recorded as the match's (its own finish,
    /// if it comes later, changes nothing); a decisive one ends a running match by the
    /// loser's resignation.
    ///
    /// # Errors
    /// NOT_FOUND (no such match of the tournament), over, the store.
    pub async fn adjudicate(
        &self,
        caller: &Caller,
        id: TournamentId,
        match_id: MatchId,
        winner: Option<u32>,
        note: &str,
    ) -> Result<(), Error> {
        let loaded = self.read(caller.tenant, id).await?;
        let g = loaded
            .t
            .games()
            .iter()
            .find(|g| loaded.match_of(g.no.0) == match_id)
            .copied()
            .ok_or(Error::NotFound("match of this tournament"))?;
        let winner = match winner {
            None => None,
            Some(w @ (0 | 1)) => Some(w as u8),
            Some(_) => {
                return Err(
                    fields::bad("winner", "winner is 0 or 1, or absent for a draw".into()).into()
                );
            }
        };
        let wanted = match winner {
            Some(0) => Outcome::Seat0,
            Some(_) => Outcome::Seat1,
            None => Outcome::Draw,
        };
        match g.outcome {
            Some(o) if o == wanted => return Ok(()), // The same result stands.
            Some(_) => {
                return Err(Error::NotNow(
                    FAILED_PRECONDITION,
                    "the match has another result already".into(),
                ));
            }
            None => {}
        }
        // Audited first: a call dropped after it leaves an audited attempt, never an
        // unaudited result.
        audit(
            &self.store,
            caller.tenant,
            &caller.actor(),
            "AdjudicateMatch",
            serde_json::json!({"tournament_id": id, "match_id": match_id, "winner": winner, "note": note}),
        )
        .await?;
        // The stored record (its commitment, once created), finished by the organiser.
        let mut m = match self.store.owned(match_id).await? {
            Some(json) => OwnedMatch::parse(&json)?,
            None => loaded.owned(&g),
        };
        m.state = State::Finished;
        m.result = Some(MatchResult {
            winner,
            reason: "adjudicated".into(),
            seed_hex: String::new(),
            at_ms: now_ms(),
        });
        self.record(vec![m]).await?;
        if let Some(w) = winner {
            // Ends the match in its engine too: the loser resigns (already over: refused,
            // which is fine). A drawn adjudication leaves the match to its clock.
            let loser = 1 - u32::from(w);
            if let Ok(engine) = self.engines.for_match(&loaded.spec.game.game, match_id) {
                let _ = engine
                    .clone()
                    .apply_step(internal::ApplyStepRequest {
                        match_id: match_id.to_string(),
                        step: Some(internal::apply_step_request::Step::Resign(loser)),
                        idempotency_key: format!("adjudicated:{match_id}"),
                    })
                    .await;
            }
        }
        Ok(())
    }

    /// What the driver does for one live tournament: finish a pairing whose matches were
    /// not all created, start a round whose gap is over, end an arena whose time is up.
    ///
    /// # Errors
    /// The store or engines failed.
    pub async fn drive(&self, tenant: TenantId, id: TournamentId) -> Result<(), Error> {
        let loaded = self.read(tenant, id).await?;
        self.start_matches(&loaded).await?;
        // The time read when deciding, not before: a retry after a conflict must not pair
        // an arena past its end.
        let (loaded, _) = self.write(tenant, id, |l| decide_due(l, now_ms())).await?;
        self.start_matches(&loaded).await
    }
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
    fn action(&self) -> &'static str {
        match self {
            Change::Pause => "PauseTournament",
            Change::Resume => "ResumeTournament",
            Change::Withdraw(_) => "WithdrawPlayer",
        }
    }
}

fn over(l: &Loaded) -> Result<(), Error> {
    if l.state == TournamentState::Finished {
        return Err(Error::NotNow(Reason::TournamentOver, "the tournament is over".into()));
    }
    Ok(())
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

/// The events of starting round `round` (or an arena), on `l`.
fn decide_round(l: &Loaded, round: u32, now: u64) -> Result<Decision, Error> {
    let arena = matches!(l.spec.format, tournament::Format::Arena { .. });
    let current = if arena { u32::from(l.state != TournamentState::Created) } else { l.t.round() };
    if round >= 1 && round <= current {
        return Ok(Decision::default()); // Started before: answered again.
    }
    over(l)?;
    if round != current + 1 {
        return Err(Error::NotNow(
            FAILED_PRECONDITION,
            format!("the next round is {}, not {round}", current + 1),
        ));
    }
    if l.state == TournamentState::Paused {
        return Err(Error::NotNow(
            Reason::Paused,
            "the tournament is paused: resume it first".into(),
        ));
    }
    let first_no = l.t.games().len() as u32;
    if arena {
        let tournament::Format::Arena { duration_ms } = l.spec.format else { unreachable!() };
        let pairs = l.t.pair_arena(&l.idle());
        return Ok(Decision {
            events: vec![
                Event::State { state: TournamentState::Running, ends_at_ms: now + duration_ms },
                Event::Paired {
                    round: 0,
                    games: paired_games(l, &pairs, first_no),
                    byes: Vec::new(),
                },
            ],
            ..Decision::default()
        });
    }
    if !l.t.round_complete() {
        return Err(Error::NotNow(
            Reason::RoundRunning,
            format!("round {current} is still being played"),
        ));
    }
    let pairing =
        l.t.pair_round().map_err(|e| Error::NotNow(FAILED_PRECONDITION, e.to_string()))?;
    if pairing.games.is_empty() {
        // Byes alone (withdrawals left nobody to play): the round is over as it starts.
        let mut after = l.clone();
        let paired = Event::Paired {
            round: pairing.round,
            games: Vec::new(),
            byes: pairing.byes.iter().map(|p| (p.0, l.player(*p))).collect(),
        };
        after.fold(
            l.seq + 1,
            &Envelope { at_ms: now, tournament: Some(l.spec.id), event: paired.clone() },
        );
        let state = if after.t.finished() {
            TournamentState::Finished
        } else {
            TournamentState::BetweenRounds
        };
        return Ok(Decision {
            events: vec![paired, Event::State { state, ends_at_ms: 0 }],
            close: state == TournamentState::Finished,
            ..Decision::default()
        });
    }
    Ok(Decision {
        events: vec![
            Event::Paired {
                round: pairing.round,
                games: paired_games(l, &pairing.games, first_no),
                byes: pairing.byes.iter().map(|p| (p.0, l.player(*p))).collect(),
            },
            Event::State { state: TournamentState::Running, ends_at_ms: 0 },
        ],
        ..Decision::default()
    })
}

/// The events of game `g` finishing as `m` says.
fn decide_finished(l: &Loaded, ms: &[OwnedMatch], now: u64) -> Result<Decision, Error> {
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
    let mut close = false;
    let arena = matches!(l.spec.format, tournament::Format::Arena { .. });
    if arena {
        // Paired again by the driver once a few are free (`arena_pairs`): paired at once,
        // the two who just played would meet again and again.
        if now >= l.ends_at_ms && after.t.games().iter().all(|g| g.outcome.is_some()) {
            events.push(Event::State { state: TournamentState::Finished, ends_at_ms: 0 });
            close = true;
        }
    } else if after.t.round_complete() {
        let state = if after.t.finished() {
            TournamentState::Finished
        } else {
            TournamentState::BetweenRounds
        };
        close = state == TournamentState::Finished;
        if l.state != TournamentState::Paused || close {
            events.push(Event::State { state, ends_at_ms: 0 });
        }
    }
    Ok(Decision { events, owned, once: None, close })
}

fn decide_change(l: &Loaded, change: &Change) -> Result<Decision, Error> {
    over(l)?;
    let event = match change {
        Change::Pause if l.state == TournamentState::Paused => return Ok(Decision::default()),
        Change::Pause => Event::State { state: TournamentState::Paused, ends_at_ms: 0 },
        Change::Resume if l.state != TournamentState::Paused => return Ok(Decision::default()),
        Change::Resume => {
            let to = if l.resume_to == TournamentState::Running
                && l.t.round_complete()
                && !matches!(l.spec.format, tournament::Format::Arena { .. })
            {
                TournamentState::BetweenRounds
            } else {
                l.resume_to
            };
            // A resumed arena's free players are paired by the driver's next pass.
            return Ok(Decision {
                events: vec![Event::State { state: to, ends_at_ms: 0 }],
                ..Decision::default()
            });
        }
        Change::Withdraw(player) => {
            let Some(n) = l.spec.entrants.iter().position(|e| e.player == *player) else {
                return Err(Error::NotFound("entrant"));
            };
            if l.t.is_withdrawn(Player(n as u32)) {
                return Ok(Decision::default());
            }
            Event::Withdrawn { entrant: n as u32, player: *player }
        }
    };
    Ok(Decision { events: vec![event], ..Decision::default() })
}

/// How many free players an arena pairs at once without waiting.
pub const ARENA_BATCH: usize = 4;
/// The longest an arena player waits for others to be free before being paired anyway.
pub const ARENA_WAIT_MS: u64 = 2_000;

/// An arena's free players to pair now: once [`ARENA_BATCH`] are free, or one has waited
/// [`ARENA_WAIT_MS`] (then whoever is free: maybe the last opponent again).
fn arena_pairs(l: &Loaded, now: u64) -> Vec<[Player; 2]> {
    let idle = l.idle();
    let waited = idle
        .iter()
        .filter_map(|p| l.idle_since.get(&p.0))
        .any(|since| now.saturating_sub(*since) >= ARENA_WAIT_MS);
    if idle.len() < 2 || (idle.len() < ARENA_BATCH && !waited) {
        return Vec::new();
    }
    l.t.pair_arena(&idle)
}

/// What is due by itself at `now`: a round after its gap, an arena's pairings and end.
fn decide_due(l: &Loaded, now: u64) -> Result<Decision, Error> {
    let arena = matches!(l.spec.format, tournament::Format::Arena { .. });
    if arena && l.state == TournamentState::Running && now < l.ends_at_ms {
        let pairs = arena_pairs(l, now);
        if pairs.is_empty() {
            return Ok(Decision::default());
        }
        let first = l.t.games().len() as u32;
        return Ok(Decision {
            events: vec![Event::Paired {
                round: 0,
                games: paired_games(l, &pairs, first),
                byes: Vec::new(),
            }],
            ..Decision::default()
        });
    }
    match l.state {
        TournamentState::BetweenRounds
            if l.spec.round_gap_ms > 0 && now >= l.round_ended_ms + l.spec.round_gap_ms =>
        {
            decide_round(l, l.t.round() + 1, now)
        }
        TournamentState::Running | TournamentState::Paused
            if l.ends_at_ms != 0
                && now >= l.ends_at_ms
                && l.t.games().iter().all(|g| g.outcome.is_some()) =>
        {
            Ok(Decision {
                events: vec![Event::State { state: TournamentState::Finished, ends_at_ms: 0 }],
                close: true,
                ..Decision::default()
            })
        }
        _ => Ok(Decision::default()),
    }
}

impl crate::results::OnFinished for Tournaments {
    fn finished(
        &self,
        ms: Vec<OwnedMatch>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>> {
        Box::pin(self.record(ms))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::GameSpec;

    const T0: u64 = 1_700_000_000_000;

    fn spec(format: tournament::Format, n: usize) -> Spec {
        Spec {
            id: TournamentId::random(),
            tenant: TenantId::random(),
            name: "t".into(),
            format,
            game: GameSpec {
                game: "gops".into(),
                options_json: String::new(),
                move_time_ms: 60_000,
            },
            entrants: (0..n)
                .map(|i| EntrantSpec {
                    player: PlayerId::random(),
                    seed_rating: Some(2000.0 - i as f64),
                    name: format!("p{i}"),
                })
                .collect(),
            round_gap_ms: 0,
            created_ms: T0,
            public_page: false,
        }
    }

    /// A tournament created and folded through `events`, as a writer would append them.
    fn loaded(format: tournament::Format, n: usize) -> Loaded {
        let spec = spec(format, n);
        let mut l = Loaded::new(spec.clone(), 0).expect("valid");
        let created =
            Envelope { at_ms: T0, tournament: Some(spec.id), event: Event::Created { spec } };
        l.fold(1, &created);
        l
    }

    fn apply(l: &mut Loaded, d: Decision, at_ms: u64) {
        for event in d.events {
            let e = Envelope { at_ms, tournament: Some(l.spec.id), event };
            let seq = l.seq + 1;
            l.fold(seq, &e);
        }
    }

    fn finish(l: &Loaded, g: u32, winner: Option<u8>, at_ms: u64) -> Decision {
        let game = l.t.games()[g as usize];
        let mut m = l.owned(&game);
        m.state = State::Finished;
        m.result =
            Some(MatchResult { winner, reason: "completed".into(), seed_hex: "00".into(), at_ms });
        decide_finished(l, &[m], at_ms).expect("decided")
    }

    #[test]
    fn a_round_starts_once_then_finishes_into_the_next_state() {
        let mut l = loaded(tournament::Format::Swiss { rounds: 2 }, 4);
        let d = decide_round(&l, 1, T0).expect("round 1");
        assert!(
            matches!(d.events[0], Event::Paired { round: 1, ref games, .. } if games.len() == 2)
        );
        apply(&mut l, d, T0);
        assert_eq!(l.state, TournamentState::Running);
        assert_eq!(l.unstarted().len(), 2, "paired, not created yet");
        // Asked again: nothing new; the round after: not before this one ends.
        assert!(decide_round(&l, 1, T0).expect("again").events.is_empty());
        let err = decide_round(&l, 2, T0).expect_err("running");
        assert!(matches!(err, Error::NotNow(Reason::RoundRunning, _)), "{err:?}");
        assert!(matches!(decide_round(&l, 3, T0), Err(Error::NotNow(FAILED_PRECONDITION, _))));
        let d = finish(&l, 0, Some(0), T0 + 5);
        assert_eq!(d.owned.len(), 1, "the match's record, finished");
        let rows = match &d.events[1] {
            Event::Standings { rows } => rows.clone(),
            other => panic!("standings expected, got {other:?}"),
        };
        assert!(rows.iter().any(|r| r.points2 == 2), "the winner's line changed");
        apply(&mut l, d, T0 + 5);
        // The same finish again (a replay of the lifecycle entry): nothing.
        assert!(finish(&l, 0, Some(0), T0 + 6).events.is_empty());
        let d = finish(&l, 1, None, T0 + 7);
        assert!(
            d.events
                .iter()
                .any(|e| matches!(e, Event::State { state: TournamentState::BetweenRounds, .. }))
        );
        assert!(!d.close);
        apply(&mut l, d, T0 + 7);
        assert_eq!(l.round_ended_ms, T0 + 7);
        let step = decide_round(&l, 2, T0 + 8).expect("round 2");
        apply(&mut l, step, T0 + 8);
        let step = finish(&l, 2, Some(1), T0 + 9);
        apply(&mut l, step, T0 + 9);
        let d = finish(&l, 3, Some(0), T0 + 10);
        assert!(d.close, "the last result closes the tournament");
        apply(&mut l, d, T0 + 10);
        assert_eq!(l.state, TournamentState::Finished);
        assert!(matches!(decide_round(&l, 3, T0), Err(Error::NotNow(Reason::TournamentOver, _))));
    }

    #[test]
    fn pause_blocks_rounds_and_resume_restores_the_state() {
        let mut l = loaded(tournament::Format::RoundRobin { double: false }, 4);
        let step = decide_change(&l, &Change::Pause).expect("pause");
        apply(&mut l, step, T0);
        assert_eq!(l.state, TournamentState::Paused);
        assert!(decide_change(&l, &Change::Pause).expect("again").events.is_empty());
        assert!(matches!(decide_round(&l, 1, T0), Err(Error::NotNow(Reason::Paused, _))));
        let step = decide_change(&l, &Change::Resume).expect("resume");
        apply(&mut l, step, T0);
        assert_eq!(l.state, TournamentState::Created);
        let stranger = Change::Withdraw(PlayerId::random());
        assert!(matches!(decide_change(&l, &stranger), Err(Error::NotFound(_))));
        let p = l.spec.entrants[3].player;
        let step = decide_change(&l, &Change::Withdraw(p)).expect("withdraw");
        apply(&mut l, step, T0);
        assert!(l.t.is_withdrawn(Player(3)));
        assert!(decide_change(&l, &Change::Withdraw(p)).expect("again").events.is_empty());
    }

    #[test]
    fn an_arena_pairs_its_free_players_once_a_few_are_free_or_one_has_waited() {
        let mut l = loaded(tournament::Format::Arena { duration_ms: 60_000 }, 6);
        let step = decide_round(&l, 1, T0).expect("start");
        apply(&mut l, step, T0);
        assert_eq!(l.ends_at_ms, T0 + 60_000);
        assert_eq!(l.t.games().len(), 3, "everyone paired at the start");
        // One game ends: two free players wait for others (they just met).
        let step = finish(&l, 0, Some(0), T0 + 10);
        apply(&mut l, step, T0 + 10);
        assert!(decide_due(&l, T0 + 11).expect("due").events.is_empty());
        // After the wait they are paired anyway.
        let d = decide_due(&l, T0 + 10 + ARENA_WAIT_MS).expect("due");
        assert!(matches!(&d.events[0], Event::Paired { round: 0, games, .. } if games.len() == 1));
        // Four free at once: paired without waiting.
        let step = finish(&l, 1, None, T0 + 20);
        apply(&mut l, step, T0 + 20);
        let step = finish(&l, 2, Some(1), T0 + 20);
        apply(&mut l, step, T0 + 20);
        let d = decide_due(&l, T0 + 21).expect("due");
        assert!(matches!(&d.events[0], Event::Paired { games, .. } if games.len() == 3));
        // Past its end: no pairing; the last result ends it.
        apply(&mut l, d, T0 + 21);
        let end = T0 + 60_001;
        assert!(decide_due(&l, end).expect("due").events.is_empty(), "games still run");
        let mut last = Decision::default();
        for g in 3..6 {
            last = finish(&l, g, Some(0), end);
            apply(&mut l, Decision { events: last.events.clone(), ..Decision::default() }, end);
        }
        assert!(last.close);
        assert_eq!(l.state, TournamentState::Finished);
    }

    #[test]
    fn new_games_are_numbered_and_their_matches_derived() {
        let mut l = loaded(tournament::Format::Knockout { draws: tournament::DrawRule::Replay }, 4);
        let step = decide_round(&l, 1, T0).expect("round 1");
        apply(&mut l, step, T0);
        assert_ne!(l.match_of(0), l.match_of(1));
        let again = loaded(tournament::Format::Knockout { draws: tournament::DrawRule::Replay }, 4);
        assert_ne!(l.match_of(0), again.match_of(0), "ids differ between tournaments");
        // A knockout draw under Replay starts a replay: a new game, a new match.
        let d = finish(&l, 0, None, T0 + 1);
        apply(&mut l, d, T0 + 1);
        assert_eq!(l.t.games().len(), 3);
        let (first, replay) = (l.t.games()[0], l.t.games()[2]);
        assert_eq!(replay.players, [first.players[1], first.players[0]], "seats swapped");
        // Game 0 has its result; game 1 and the replay wait for their matches.
        assert_eq!(l.unstarted().len(), 2);
    }

    /// A round robin of `n` played to its end (seat 0 wins odd games, even games drawn).
    fn played_round_robin(n: usize) -> Loaded {
        let mut l = loaded(tournament::Format::RoundRobin { double: false }, n);
        let mut at = T0;
        for round in 1..=l.rounds() {
            at += 10;
            let d = decide_round(&l, round, at).expect("a round");
            apply(&mut l, d, at);
            for g in
                l.t.games()
                    .iter()
                    .filter(|g| g.outcome.is_none())
                    .map(|g| g.no.0)
                    .collect::<Vec<_>>()
            {
                at += 1;
                let d = finish(&l, g, (g % 2 == 1).then_some(0), at);
                apply(&mut l, d, at);
            }
        }
        assert_eq!(l.state, TournamentState::Finished);
        l
    }

    /// Every page of an export from the first, concatenated: standings lines, matches,
    /// text, and the pages' sizes.
    fn all_pages(
        l: &Loaded,
        size: usize,
        budget: usize,
    ) -> (Vec<serde_json::Value>, Vec<serde_json::Value>, String, Vec<usize>) {
        let (mut lines, mut matches, mut text, mut sizes) = (vec![], vec![], String::new(), vec![]);
        let mut from = crate::export::Cursor { seq: l.seq, ..Default::default() };
        loop {
            let page = crate::export::page_within(l, from, size, budget).expect("a page");
            let json: serde_json::Value = serde_json::from_str(&page.json).expect("json");
            assert_eq!(json["tournament"]["matches"], l.t.games().len());
            lines.extend(json["standings"].as_array().expect("lines").iter().cloned());
            matches.extend(json["matches"].as_array().expect("matches").iter().cloned());
            sizes.push(page.json.len() + page.text.len());
            text.push_str(&page.text);
            match page.next {
                Some(next) => {
                    assert_eq!(crate::export::Cursor::parse(&next.token()).expect("ours"), next);
                    from = next;
                }
                None => return (lines, matches, text, sizes),
            }
        }
    }

    #[test]
    fn an_export_in_pages_is_the_whole_export() {
        let l = played_round_robin(10);
        let (lines, matches, text, sizes) = all_pages(&l, 10_000, crate::export::PAGE_BYTES);
        assert_eq!((lines.len(), matches.len(), sizes.len()), (10, 45, 1));
        let ranks: Vec<u64> = lines.iter().map(|r| r["rank"].as_u64().expect("rank")).collect();
        assert_eq!(ranks, (1..=10).collect::<Vec<_>>());
        assert_eq!(text.lines().count(), 12, "title, heads, ten lines");
        let ids: BTreeSet<&str> =
            matches.iter().map(|m| m["match_id"].as_str().expect("id")).collect();
        assert_eq!(ids.len(), 45);
        assert_eq!(matches.iter().filter(|m| m["result"] == "1/2-1/2").count(), 23);
        // Three at a time, and a few hundred bytes at a time: the same export.
        let by_three = all_pages(&l, 3, crate::export::PAGE_BYTES);
        assert_eq!(by_three.3.len(), 19, "55 items, 3 a page");
        assert_eq!((&by_three.0, &by_three.1, &by_three.2), (&lines, &matches, &text));
        let small = all_pages(&l, 10_000, 600);
        assert!(small.3.len() > 10, "{} pages", small.3.len());
        assert!(small.3.iter().all(|&b| b <= 600 + 300), "{:?}", small.3);
        assert_eq!((&small.0, &small.1, &small.2), (&lines, &matches, &text));
    }

    #[test]
    fn a_page_token_not_ours_is_refused() {
        use crate::export::{Cursor, page};
        for bad in ["x", "e1.1.2", "e1.0.0.0", "e1.1.2.3.4", "e1.a.2.3", &"9".repeat(70)] {
            assert!(matches!(Cursor::parse(bad), Err(Error::Invalid(_))), "{bad}");
        }
        let l = played_round_robin(4);
        for (line, game) in [(5, 0), (4, 7), (1, 1)] {
            let c = Cursor { seq: l.seq, line, game };
            assert!(matches!(page(&l, c, 10), Err(Error::Invalid(_))), "{c:?}");
        }
    }

    /// Finishes every game without a result at once (seat 0 wins odd games, even games
    /// drawn), as one read of the lifecycle stream would.
    fn finish_all(l: &mut Loaded, at_ms: u64) {
        let ms: Vec<OwnedMatch> =
            l.t.games()
                .iter()
                .filter(|g| g.outcome.is_none())
                .map(|g| {
                    let mut m = l.owned(g);
                    m.state = State::Finished;
                    m.result = Some(MatchResult {
                        winner: (g.no.0 % 2 == 1).then_some(0),
                        reason: "completed".into(),
                        seed_hex: "00".into(),
                        at_ms,
                    });
                    m
                })
                .collect();
        let d = decide_finished(l, &ms, at_ms).expect("decided");
        apply(l, d, at_ms);
    }

    #[test]
    fn a_public_page_shows_getstandings_lines_their_crosstable_and_the_games_by_round() {
        use crate::view::{Window, page};
        use v1::{CrosstableResult as C, PublicGameResult as G};
        let l = played_round_robin(5);
        let all = Window::of(0, 0, 0, 0).expect("the defaults");
        let p = page(&l, all);
        assert_eq!((p.players, p.games, p.games_finished, p.rounds), (5, 10, 10, 5));
        assert_eq!(p.state, v1::TournamentState::Finished as i32);
        assert_eq!(p.sequence, l.seq);
        // GetStandings' lines, without the player id.
        let rows = l.rows();
        assert_eq!(p.standings.len(), 5);
        for (line, row) in p.standings.iter().zip(&rows) {
            let mut same = row.to_proto();
            same.player_id.clear();
            let got = v1::Standing {
                rank: line.rank,
                player_id: String::new(),
                name: line.name.clone(),
                points2: line.points2,
                played: line.played,
                wins: line.wins,
                draws: line.draws,
                losses: line.losses,
                byes: line.byes,
                buchholz2: line.buchholz2,
                sonneborn_berger4: line.sonneborn_berger4,
                withdrawn: line.withdrawn,
                reached_round: line.reached_round,
            };
            assert_eq!(got, same);
            // Five rounds of an odd field: four games and a bye each, in round order.
            let rounds: Vec<u32> = line.crosstable.iter().map(|c| c.round).collect();
            assert_eq!(rounds, [1, 2, 3, 4, 5], "{}", line.name);
            let byes = line.crosstable.iter().filter(|c| c.result == C::Bye as i32).count();
            assert_eq!(byes, 1);
        }
        // Each game is in both players' rows, one's win the other's loss.
        let rank_of = |name: &str| p.standings.iter().find(|s| s.name == name).map(|s| s.rank);
        for r in &p.round_games {
            assert_eq!(r.games.len(), 2, "round {}", r.round);
            assert_eq!(r.bye_names.len(), 1);
            for g in &r.games {
                assert_eq!(Some(g.seat0_rank), rank_of(&g.seat0_name));
                let row = &p.standings[g.seat0_rank as usize - 1];
                let c = row.crosstable.iter().find(|c| c.round == r.round).expect("a cell");
                assert_eq!((c.opponent_rank, c.seat), (g.seat1_rank, 0));
                let expected = match G::try_from(g.result).expect("a result") {
                    G::Seat0Won => C::Win,
                    G::Seat1Won => C::Loss,
                    G::Draw => C::Draw,
                    G::Pending | G::Unspecified => C::Pending,
                };
                assert_eq!(c.result, expected as i32);
            }
        }
        let rounds: Vec<u32> = p.round_games.iter().map(|r| r.round).collect();
        assert_eq!(rounds, [1, 2, 3, 4, 5]);
        // Nothing of the tenant's, and no player id.
        let text = format!("{p:?}");
        assert!(!text.contains(&l.spec.tenant.to_string()));
        for e in &l.spec.entrants {
            assert!(!text.contains(&e.player.to_string()[..8]), "a player id on the page");
        }
        // Windows: lines 2 and 3; the three newest games but the two newest.
        let w = Window::of(1, 2, 2, 3).expect("a window");
        let part = page(&l, w);
        assert_eq!(part.standings, p.standings[1..3]);
        let ids = |p: &v1::PublicTournament| -> Vec<String> {
            p.round_games.iter().flat_map(|r| r.games.iter().map(|g| g.match_id.clone())).collect()
        };
        assert_eq!(ids(&part), ids(&p)[5..8]);
        assert_eq!(part.round_games.iter().map(|r| r.round).collect::<Vec<_>>(), [3, 4]);
        let past = page(&l, Window::of(9, 0, 99, 0).expect("a window"));
        assert!(past.standings.is_empty() && past.round_games.is_empty());
        assert_eq!(past.players, 5, "the summary is on every page");
        // Limits over their bounds name their field.
        for (w, field) in [
            (Window::of(0, 1_001, 0, 0), "standings_limit"),
            (Window::of(0, 0, 0, 1_001), "games_limit"),
        ] {
            match w {
                Err(Error::Field(fields::FieldError::Bad { field: f, .. })) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_page_of_a_day_long_arena_of_a_thousand_players_stays_under_a_mebibyte() {
        use crate::view::{CROSSTABLE_CELLS, Window, page};
        let format = tournament::Format::Arena { duration_ms: 24 * 3600 * 1000 };
        let mut sp = spec(format, 1_000);
        for (i, e) in sp.entrants.iter_mut().enumerate() {
            // The longest names there are.
            e.name = format!("{i:04}{}", "n".repeat(60));
        }
        let mut l = Loaded::new(sp.clone(), 0).expect("valid");
        l.fold(
            1,
            &Envelope { at_ms: T0, tournament: Some(sp.id), event: Event::Created { spec: sp } },
        );
        let step = decide_round(&l, 1, T0).expect("start");
        apply(&mut l, step, T0);
        let mut at = T0;
        for _ in 0..60 {
            at += ARENA_WAIT_MS;
            finish_all(&mut l, at);
            let d = decide_due(&l, at + ARENA_WAIT_MS).expect("paired");
            apply(&mut l, d, at);
        }
        assert!(l.t.games().len() >= 30_000, "{} games", l.t.games().len());
        let p = page(&l, Window::of(0, 1_000, 0, 1_000).expect("the largest window"));
        assert_eq!(p.standings.len(), 1_000);
        assert!(p.standings.iter().all(|s| s.crosstable.len() == CROSSTABLE_CELLS));
        assert!(p.standings.iter().all(|s| s.crosstable_earlier > 0));
        let games: usize = p.round_games.iter().map(|r| r.games.len()).sum();
        assert_eq!((games, p.round_games.len()), (1_000, 1), "an arena's games are round 0");
        let bytes = prost::Message::encoded_len(&p);
        assert!(bytes < 1 << 20, "{bytes} bytes");
    }
}
