//! Tournaments. A tournament is its results stream: `Created` (everything it is), then
//! what happened (`Paired`, `MatchStarted`, `MatchFinished`, `State`, `Withdrawn`, and the
//! `Standings` lines each result changed). Folding the stream through the pure
//! `tournament-rules` crate rebuilds it ([`crate::fold`]), so any replica serves any tournament:
//! a writer catches up, decides on what it read ([`crate::decide`]), and appends only if
//! nobody appended since (the store's expected sequence number); otherwise it catches up and
//! decides again. This file: the cache, that write loop, and the calls that use it.
//!
//! A game's match id is derived from the tournament and the game's number, so a pairing
//! stored before its matches were created is finished by whoever comes next (the
//! [`crate::driver`]) without creating anything twice.

use crate::admin::audit;
use crate::auth::Caller;
use crate::bulk::{check_game, check_key, create_in_engine, missing_players};
use crate::decide::{
    Change, Decision, FAILED_PRECONDITION, decide_change, decide_due, decide_finished, decide_round,
};
use crate::error::Error;
use crate::fold::{Loaded, outcome_of};
use crate::records::{
    EntrantSpec, Envelope, Event, MatchResult, OwnedMatch, Spec, State, derived_id,
};
use api::{internal, v1};
use engines::Engines;
use futures_util::StreamExt;
use service_kit::time::now_ms;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use store::{
    Append, Appended, Begun, MatchId, PlayerId, ResultsStream, TenantId, TenantStore, TournamentId,
};

/// The request kind of CreateTournament in the store.
pub const KIND: &str = "tournament";
/// The most entrants of a swiss or an arena.
pub const MAX_ENTRANTS: usize = 10_000;
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

/// One tournament's slot in the cache: folded state, one writer at a time.
type Slot = Arc<tokio::sync::Mutex<Option<Loaded>>>;

/// The tournaments.
pub struct Tournaments {
    store: Arc<dyn TenantStore>,
    engines: Engines,
    cache: Mutex<BTreeMap<TournamentId, Slot>>,
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
            return Err(api_convert::bad("name", "name is 1 to 128 bytes".into()).into());
        }
        let n = req.entrants.len();
        if !(2..=MAX_ENTRANTS).contains(&n) {
            return Err(api_convert::bad(
                "entrants",
                format!("2 to {MAX_ENTRANTS} entrants, not {n}"),
            )
            .into());
        }
        let format = tournament_rules::Format::from_proto(req.format.as_ref(), n)
            .map_err(|why| Error::from(api_convert::bad("format", why)))?;
        let game = check_game(req.game.as_ref())
            .map_err(|why| Error::from(api_convert::bad("game", why)))?;
        let mut entrants = Vec::with_capacity(n);
        let mut seen = BTreeSet::new();
        for (i, e) in req.entrants.iter().enumerate() {
            let field = format!("entrants[{i}].player_id");
            let player: PlayerId = e.player_id.parse().map_err(|_| {
                Error::from(api_convert::bad(&field, format!("{field} is not a player id")))
            })?;
            if !seen.insert(player) {
                return Err(api_convert::bad(&field, format!("{field} is entered twice")).into());
            }
            if e.seed_rating.is_some_and(|r| !r.is_finite()) {
                return Err(api_convert::bad(
                    &format!("entrants[{i}].seed_rating"),
                    "not a number".into(),
                )
                .into());
            }
            if e.name.len() > 64 {
                return Err(api_convert::bad(
                    &format!("entrants[{i}].name"),
                    "at most 64 bytes".into(),
                )
                .into());
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
            return Err(api_convert::bad(
                &field,
                format!("no player {p} ({} unknown)", missing.len()),
            )
            .into());
        }
        if req.round_gap_ms > MAX_ROUND_GAP_MS {
            return Err(
                api_convert::bad("round_gap_ms", "round_gap_ms is at most a week".into()).into()
            );
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
        let begin = store::Begin {
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
        // A continuous format's games are all of "round" 0.
        let continuous = loaded.spec.format.rules().timing().is_some();
        Ok(loaded.round_paired(if continuous { 0 } else { round }))
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
                return Err(api_convert::bad(
                    "winner",
                    "winner is 0 or 1, or absent for a draw".into(),
                )
                .into());
            }
        };
        let wanted = outcome_of(winner);
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

impl crate::results::OnFinished for Tournaments {
    fn finished(
        &self,
        ms: Vec<OwnedMatch>,
    ) -> std::pin::Pin<Box<dyn std::future::Future<Output = Result<(), Error>> + Send + '_>> {
        Box::pin(self.record(ms))
    }
}
