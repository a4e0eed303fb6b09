//! The handlers of `colosseum.v1.TournamentService`: find the caller by its API key and
//! check the call's scope, decode and bound the request, call the domain (bulk,
//! tournaments, results), map errors to statuses. Another tenant's ids answer NOT_FOUND.

use crate::admin::audit;
use crate::auth::{Caller, Keys, MATCHES_CREATE, RESULTS_READ, TOURNAMENTS_MANAGE};
use crate::bulk::Bulk;
use crate::decide::Change;
use crate::error::Error;
use crate::records::{OwnedMatch, State};
use crate::results::{WATCH_POLL, Wakes, follow};
use crate::tournaments::Tournaments;
use api::v1::{self, tournament_service_server::TournamentService};
use std::pin::Pin;
use std::sync::Arc;
use store::{MatchId, ResultsStream, TenantStore, TournamentId};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tokio_util::sync::CancellationToken;
use tonic::{Request, Response, Status};

/// The most tournaments ListTournaments answers.
pub const MAX_LIST: u32 = 200;

/// The platform API.
pub struct Platform {
    store: Arc<dyn TenantStore>,
    keys: Keys,
    bulk: Bulk,
    tournaments: Arc<Tournaments>,
    wakes: Wakes,
    shutdown: CancellationToken,
}

impl Platform {
    /// Over its parts; watches are woken by `wakes` and end at `shutdown`.
    pub fn new(
        store: Arc<dyn TenantStore>,
        keys: Keys,
        bulk: Bulk,
        tournaments: Arc<Tournaments>,
        wakes: Wakes,
        shutdown: CancellationToken,
    ) -> Platform {
        Platform { store, keys, bulk, tournaments, wakes, shutdown }
    }

    async fn caller<T>(&self, req: &Request<T>, scope: &'static str) -> Result<Caller, Error> {
        let caller = self.keys.caller(req.metadata()).await?;
        caller.may(scope)?;
        Ok(caller)
    }

    /// The tenant's match `id`: NOT_FOUND for another tenant's or none.
    async fn owned(&self, caller: &Caller, id: &str) -> Result<OwnedMatch, Error> {
        let id: MatchId = api_convert::match_id(id)?;
        let json = self.store.owned(id).await?.ok_or(Error::NotFound("match"))?;
        let m = OwnedMatch::parse(&json)?;
        if m.tenant != caller.tenant {
            return Err(Error::NotFound("match"));
        }
        Ok(m)
    }
}

fn tournament_id(id: &str) -> Result<TournamentId, Error> {
    Ok(api_convert::uuid_field("tournament_id", id)?)
}

type Watch = Pin<Box<dyn Stream<Item = Result<v1::WatchResultsResponse, Status>> + Send>>;

#[tonic::async_trait]
impl TournamentService for Platform {
    async fn create_matches(
        &self,
        req: Request<v1::CreateMatchesRequest>,
    ) -> Result<Response<v1::CreateMatchesResponse>, Status> {
        let caller = self.caller(&req, MATCHES_CREATE).await?;
        let req = req.into_inner();
        let (key, validate_only, n) =
            (req.idempotency_key.clone(), req.validate_only, req.matches.len());
        let ids = self.bulk.create(caller.tenant, req).await?;
        if !validate_only {
            service_kit::metrics::add(crate::metrics::BULK_CREATED, ids.len() as i64);
            audit(
                &self.store,
                caller.tenant,
                &caller.actor(),
                "CreateMatches",
                serde_json::json!({"idempotency_key": key, "matches": n}),
            )
            .await?;
        }
        Ok(Response::new(v1::CreateMatchesResponse {
            match_ids: ids.iter().map(ToString::to_string).collect(),
        }))
    }

    async fn get_match(
        &self,
        req: Request<v1::GetMatchRequest>,
    ) -> Result<Response<v1::GetMatchResponse>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let mut m = self.owned(&caller, &req.get_ref().match_id).await?;
        if m.state != State::Finished {
            // Created or not yet: its engine knows.
            let engine =
                self.bulk.engines().for_match(&m.game.game, m.match_id).map_err(Error::from)?;
            let meta = engine
                .clone()
                .get_meta(api::internal::GetMetaRequest { match_id: m.match_id.to_string() })
                .await;
            if let Ok(meta) = meta {
                m.state = State::Running;
                m.commitment = meta.into_inner().commitment;
            }
        }
        Ok(Response::new(v1::GetMatchResponse { r#match: Some(m.to_proto()) }))
    }

    async fn get_tenant_match_record(
        &self,
        req: Request<v1::GetTenantMatchRecordRequest>,
    ) -> Result<Response<v1::GetTenantMatchRecordResponse>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let m = self.owned(&caller, &req.get_ref().match_id).await?;
        let engine =
            self.bulk.engines().for_match(&m.game.game, m.match_id).map_err(Error::from)?;
        let record = engine
            .clone()
            .get_record(api::internal::GetRecordRequest { match_id: m.match_id.to_string() })
            .await
            .map_err(|s| Error::Engine(engines::CallError::from(s)))?
            .into_inner()
            .record
            .map(|r| r.record_json)
            .unwrap_or_default();
        Ok(Response::new(v1::GetTenantMatchRecordResponse { record_json: record }))
    }

    async fn create_tournament(
        &self,
        req: Request<v1::CreateTournamentRequest>,
    ) -> Result<Response<v1::CreateTournamentResponse>, Status> {
        let caller = self.caller(&req, TOURNAMENTS_MANAGE).await?;
        let t = self.tournaments.create(&caller, req.into_inner()).await?;
        Ok(Response::new(v1::CreateTournamentResponse { tournament: Some(t.to_proto()) }))
    }

    async fn get_tournament(
        &self,
        req: Request<v1::GetTournamentRequest>,
    ) -> Result<Response<v1::GetTournamentResponse>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let id = tournament_id(&req.get_ref().tournament_id)?;
        let t = self.tournaments.read(caller.tenant, id).await?;
        Ok(Response::new(v1::GetTournamentResponse { tournament: Some(t.to_proto()) }))
    }

    async fn list_tournaments(
        &self,
        req: Request<v1::ListTournamentsRequest>,
    ) -> Result<Response<v1::ListTournamentsResponse>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let limit = api_convert::text::page_size("limit", req.get_ref().limit, 50, MAX_LIST)
            .map_err(Error::from)?;
        let ids =
            self.store.tournaments_of(caller.tenant, limit as usize).await.map_err(Error::from)?;
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            out.push(self.tournaments.read(caller.tenant, id).await?.to_proto());
        }
        Ok(Response::new(v1::ListTournamentsResponse { tournaments: out }))
    }

    async fn start_round(
        &self,
        req: Request<v1::StartRoundRequest>,
    ) -> Result<Response<v1::StartRoundResponse>, Status> {
        let caller = self.caller(&req, TOURNAMENTS_MANAGE).await?;
        let id = tournament_id(&req.get_ref().tournament_id)?;
        let round = req.get_ref().round;
        let paired = self.tournaments.start_round(caller.tenant, id, round).await?;
        audit(
            &self.store,
            caller.tenant,
            &caller.actor(),
            "StartRound",
            serde_json::json!({"tournament_id": id, "round": round}),
        )
        .await?;
        Ok(Response::new(v1::StartRoundResponse { round: Some(paired) }))
    }

    async fn pause_tournament(
        &self,
        req: Request<v1::PauseTournamentRequest>,
    ) -> Result<Response<v1::PauseTournamentResponse>, Status> {
        let caller = self.caller(&req, TOURNAMENTS_MANAGE).await?;
        let id = tournament_id(&req.get_ref().tournament_id)?;
        self.tournaments.change(&caller, id, Change::Pause).await?;
        Ok(Response::new(v1::PauseTournamentResponse {}))
    }

    async fn resume_tournament(
        &self,
        req: Request<v1::ResumeTournamentRequest>,
    ) -> Result<Response<v1::ResumeTournamentResponse>, Status> {
        let caller = self.caller(&req, TOURNAMENTS_MANAGE).await?;
        let id = tournament_id(&req.get_ref().tournament_id)?;
        self.tournaments.change(&caller, id, Change::Resume).await?;
        Ok(Response::new(v1::ResumeTournamentResponse {}))
    }

    async fn withdraw_player(
        &self,
        req: Request<v1::WithdrawPlayerRequest>,
    ) -> Result<Response<v1::WithdrawPlayerResponse>, Status> {
        let caller = self.caller(&req, TOURNAMENTS_MANAGE).await?;
        let id = tournament_id(&req.get_ref().tournament_id)?;
        let player = api_convert::player_id(&req.get_ref().player_id)?;
        self.tournaments.change(&caller, id, Change::Withdraw(player)).await?;
        Ok(Response::new(v1::WithdrawPlayerResponse {}))
    }

    async fn adjudicate_match(
        &self,
        req: Request<v1::AdjudicateMatchRequest>,
    ) -> Result<Response<v1::AdjudicateMatchResponse>, Status> {
        let caller = self.caller(&req, TOURNAMENTS_MANAGE).await?;
        let r = req.into_inner();
        let id = tournament_id(&r.tournament_id)?;
        let m = api_convert::match_id(&r.match_id)?;
        api_convert::text::at_most("note", r.note.len(), 256, "bytes")?;
        self.tournaments.adjudicate(&caller, id, m, r.winner, &r.note).await?;
        Ok(Response::new(v1::AdjudicateMatchResponse {}))
    }

    async fn get_standings(
        &self,
        req: Request<v1::GetStandingsRequest>,
    ) -> Result<Response<v1::GetStandingsResponse>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let id = tournament_id(&req.get_ref().tournament_id)?;
        let t = self.tournaments.read(caller.tenant, id).await?;
        Ok(Response::new(v1::GetStandingsResponse {
            standings: t.rows().iter().map(crate::records::Row::to_proto).collect(),
            sequence: t.seq,
            round: t.t.round(),
        }))
    }

    async fn export_tournament(
        &self,
        req: Request<v1::ExportTournamentRequest>,
    ) -> Result<Response<v1::ExportTournamentResponse>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let r = req.get_ref();
        let id = tournament_id(&r.tournament_id)?;
        let mut from = crate::export::Cursor::parse(&r.page_token)?;
        let size = match r.page_size {
            0 => crate::export::DEFAULT_PAGE_SIZE,
            n => usize::try_from(n).unwrap_or(usize::MAX),
        };
        let t = if from.seq == 0 {
            let t = self.tournaments.read(caller.tenant, id).await?;
            from.seq = t.seq;
            t
        } else {
            self.tournaments.read_at(caller.tenant, id, from.seq).await?
        };
        if t.seq != from.seq {
            return Err(crate::export::bad_token().into());
        }
        let page = crate::export::page(&t, from, size)?;
        Ok(Response::new(v1::ExportTournamentResponse {
            json: page.json,
            text: page.text,
            next_page_token: page.next.map(|c| c.token()).unwrap_or_default(),
            sequence: t.seq,
        }))
    }

    type WatchResultsStream = Watch;

    async fn watch_results(
        &self,
        req: Request<v1::WatchResultsRequest>,
    ) -> Result<Response<Watch>, Status> {
        let caller = self.caller(&req, RESULTS_READ).await?;
        let r = req.into_inner();
        let stream = if r.tournament_id.is_empty() {
            ResultsStream::Tenant(caller.tenant)
        } else {
            let id = tournament_id(&r.tournament_id)?;
            let stream = ResultsStream::Tournament(caller.tenant, id);
            // Its first event is its creation: an empty stream is no tournament of theirs.
            if self.store.results_seq(stream).await.map_err(Error::from)? == 0 {
                return Err(Error::NotFound("tournament").into());
            }
            stream
        };
        let (tx, rx) = tokio::sync::mpsc::channel(256);
        tokio::spawn(follow(
            self.store.clone(),
            stream,
            r.after_sequence,
            tx,
            self.wakes.subscribe(),
            WATCH_POLL,
            self.shutdown.clone(),
        ));
        Ok(Response::new(Box::pin(ReceiverStream::new(rx))))
    }
}
