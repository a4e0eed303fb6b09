//! `colosseum.v1.ColosseumService`'s handlers: decode, check, call the match core
//! ([`crate::matches`]) or the engine, answer. A player can act only for its own seat;
//! spectators see public information only. Errors become statuses in `crate::error` only.

use crate::auth::token_key;
use crate::error::{Error, relay};
use crate::matches::{Gateway, caller, check_key, match_for_key, seat_of};
use api::internal;
use api::v1::{self, colosseum_service_server as srv, opponent};
use api_convert::{match_id, seat as seat_number};
use engines::{CallError, Created};
use futures_util::StreamExt;
use service_kit::telemetry::TraceContext;
use std::pin::Pin;
use store::{MatchId, PlayerId, SeatHolder};
use tonic::{Request, Response, Status, Streaming};
use tracing::Instrument;

/// A stream of decoded messages, as the generated server's WatchMatch and Play send them.
pub type Decoded<T> = Pin<Box<dyn futures_util::Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl srv::ColosseumService for Gateway {
    async fn create_guest_session(
        &self,
        req: Request<v1::CreateGuestSessionRequest>,
    ) -> Result<Response<v1::CreateGuestSessionResponse>, Status> {
        let v1::CreateGuestSessionRequest { display_name } = req.into_inner();
        let name = crate::limits::display_name(&display_name)?;
        let player_id = PlayerId::random();
        let name = if name.is_empty() {
            api_convert::text::guest_name(&player_id.to_string())
        } else {
            name
        };
        let token = hex::encode(service_kit::time::os_random_32());
        self.store.put_session(&token_key(&token), player_id, &name).await.map_err(Error::from)?;
        tracing::info!(%player_id, "guest session created");
        Ok(Response::new(v1::CreateGuestSessionResponse {
            token,
            player_id: player_id.to_string(),
            display_name: name,
        }))
    }

    async fn list_games(
        &self,
        _req: Request<v1::ListGamesRequest>,
    ) -> Result<Response<v1::ListGamesResponse>, Status> {
        Ok(Response::new(v1::ListGamesResponse { games: crate::games_info() }))
    }

    async fn create_match(
        &self,
        req: Request<v1::CreateMatchRequest>,
    ) -> Result<Response<v1::CreateMatchResponse>, Status> {
        crate::limits::create_match(req.get_ref())?;
        let me = caller(&req)?;
        let trace = TraceContext::from_metadata(req.metadata());
        let v1::CreateMatchRequest {
            game,
            options_json,
            opponent,
            seat,
            move_time_ms,
            idempotency_key: key,
        } = req.into_inner();
        check_key(&key)?;
        // A retry with the same key names the same match, so the store finds it taken.
        let id = if key.is_empty() { MatchId::random() } else { match_for_key(me, &key) };
        // An unknown game, or none hosting it, is refused before anything else is checked.
        self.engines.for_match(&game, id)?;
        let seat = seat_number(seat).map_err(Error::from)?;
        // The registry's answer: unset, the rules' time or a minute; else one second to a
        // week, and only the rules' time where they fix one (the engine checks that too).
        let options: serde_json::Value =
            serde_json::from_str(&options_json).unwrap_or(serde_json::Value::Null);
        let move_time_ms =
            games::time::accept(&game, &options, move_time_ms, games::time::Policy::Hosted)
                .map_err(Error::MoveTime)?;
        let mut bot = None;
        let other = match opponent.and_then(|o| o.kind) {
            None | Some(opponent::Kind::Open(_)) => SeatHolder::Open,
            Some(opponent::Kind::PlayerId(p)) => {
                let them: PlayerId =
                    api_convert::uuid_field("opponent.player_id", &p).map_err(Error::from)?;
                // Both would be one player: a match no one could ever play.
                if them == me {
                    return Err(Error::ChallengeSelf.into());
                }
                // A reservation for no one would wait for ever.
                if !self.store.player_exists(them).await.map_err(Error::from)? {
                    return Err(Error::NoSuchPlayer.into());
                }
                SeatHolder::Reserved(them)
            }
            Some(opponent::Kind::Bot(name)) => {
                if !crate::bots::has_bot(&game, &name) {
                    return Err(Error::NoSuchBot { game, bot: name }.into());
                }
                bot = Some(name);
                SeatHolder::Reserved(crate::bots::PLAYER_ID)
            }
        };
        let mut seats = [SeatHolder::Open, SeatHolder::Open];
        seats[seat.index()] = SeatHolder::Player(me);
        seats[seat.other().index()] = other;
        let [s0, s1] = seats;
        let span = tracing::info_span!("create_match", match_id = %id, game = %game, trace_id = %trace.trace_hex());
        // The span joins the caller's trace; the engine's span will hang under it.
        let trace = service_kit::telemetry::adopt(&span, &trace);
        let mut metadata = tonic::metadata::MetadataMap::new();
        trace.inject(&mut metadata);
        let created = self
            .engines
            .create_match(
                engines::NewMatch {
                    id,
                    game: game.clone(),
                    options_json,
                    seats: [s0, s1],
                    move_time_ms,
                    // A casual match (against a bot or a person): on its game's live list.
                    listed: true,
                },
                metadata,
            )
            .instrument(span)
            .await
            .map_err(Error::Engine);
        let seed_commitment = match created {
            Ok(Created::New { seed_commitment }) => seed_commitment,
            Ok(Created::Exists) if !key.is_empty() => {
                let meta = self.store.meta(id).await.map_err(Error::from)?;
                let meta = meta.ok_or(Error::MetaMissing(id))?;
                let same = meta.game == game
                    && matches!(&meta.seats[seat], SeatHolder::Player(p) if *p == me);
                if !same {
                    return Err(Error::KeyUsedForAnotherRequest.into());
                }
                // The first attempt may have stopped before recording the bot match: the
                // runner plays a match recorded twice once, so recording it again is safe.
                if bot.is_some() {
                    let bots = matches!(
                        &meta.seats[seat.other()],
                        SeatHolder::Reserved(p) | SeatHolder::Player(p) if *p == crate::bots::PLAYER_ID
                    );
                    if !bots {
                        bot = None;
                    }
                }
                meta.commitment_hex.clone()
            }
            // A random id taken: not a retry's, so it is refused as it was.
            Ok(Created::Exists) => {
                let taken = format!("match {id} already exists");
                return Err(Error::Engine(CallError::Exists(taken)).into());
            }
            Err(e) => return Err(e.into()),
        };
        if let Some(bot) = bot {
            // Recorded before the answer: whichever gateway runs the bots plays it, and
            // resumes it if the one playing it dies.
            let bot_match = store::BotMatch { id, game, bot };
            self.store.add_bot_match(&bot_match).await.map_err(Error::from)?;
        }
        Ok(Response::new(v1::CreateMatchResponse {
            match_id: id.to_string(),
            seat: wire::seat_u32(seat),
            seed_commitment,
        }))
    }

    async fn join_match(
        &self,
        req: Request<v1::JoinMatchRequest>,
    ) -> Result<Response<v1::JoinMatchResponse>, Status> {
        crate::limits::join_match(req.get_ref())?;
        let me = caller(&req)?;
        // Joining is idempotent by nature (a seated player gets its seat again): the key
        // is only checked.
        let v1::JoinMatchRequest { match_id: id, idempotency_key } = req.into_inner();
        let id = match_id(&id).map_err(Error::from)?;
        check_key(&idempotency_key)?;
        let meta = self.meta(id).await?;
        let resp = self
            .engines
            .for_match(&meta.game, id)?
            .join_match(internal::JoinMatchRequest {
                match_id: id.to_string(),
                player_id: me.to_string(),
            })
            .await
            .map_err(relay)?
            .into_inner();
        Ok(Response::new(v1::JoinMatchResponse { seat: resp.seat }))
    }

    async fn submit_move(
        &self,
        req: Request<v1::SubmitMoveRequest>,
    ) -> Result<Response<v1::SubmitMoveResponse>, Status> {
        let me = caller(&req)?;
        let trace = TraceContext::from_metadata(req.metadata());
        Ok(Response::new(self.submit_move_as(me, trace, req.into_inner()).await?))
    }

    async fn resign(
        &self,
        req: Request<v1::ResignRequest>,
    ) -> Result<Response<v1::ResignResponse>, Status> {
        let me = caller(&req)?;
        let trace = TraceContext::from_metadata(req.metadata());
        Ok(Response::new(self.resign_as(me, trace, req.into_inner()).await?))
    }

    async fn get_view(
        &self,
        req: Request<v1::GetViewRequest>,
    ) -> Result<Response<v1::GetViewResponse>, Status> {
        crate::limits::match_only(&req.get_ref().match_id)?;
        let me = caller(&req)?;
        let v1::GetViewRequest { match_id: id } = req.into_inner();
        let id = match_id(&id).map_err(Error::from)?;
        // A span per request, with the match id, for logs and traces.
        let span = tracing::info_span!("get_view", match_id = %id);
        let meta = self.meta(id).instrument(span).await?;
        let seat = seat_of(&meta, me);
        let view = self
            .engines
            .for_match(&meta.game, id)?
            .get_view(internal::GetViewRequest {
                match_id: id.to_string(),
                seat: seat.map(wire::seat_u32),
            })
            .await
            .map_err(relay)?
            .into_inner()
            .view
            .ok_or(Error::BadEngineAnswer("the rules engine returned no view"))?;
        Ok(Response::new(view))
    }

    type WatchMatchStream = Decoded<v1::WatchMatchResponse>;

    /// Not reached: `crate::served::Served` answers WatchMatch before the generated
    /// server; this is the same stream, each message decoded.
    async fn watch_match(
        &self,
        req: Request<v1::WatchMatchRequest>,
    ) -> Result<Response<Self::WatchMatchStream>, Status> {
        let stream = self.watch_stream(req).await?;
        Ok(Response::new(Box::pin(stream.map(|m| m.map(|m| m.decoded())))))
    }

    async fn get_match_record(
        &self,
        req: Request<v1::GetMatchRecordRequest>,
    ) -> Result<Response<v1::GetMatchRecordResponse>, Status> {
        crate::limits::match_only(&req.get_ref().match_id)?;
        caller(&req)?;
        let v1::GetMatchRecordRequest { match_id: id } = req.into_inner();
        let id = match_id(&id).map_err(Error::from)?;
        // A span per request, with the match id, for logs and traces.
        let span = tracing::info_span!("get_match_record", match_id = %id);
        let meta = match self.meta(id).instrument(span).await {
            // Gone from the store: archived, and let go after its window.
            Err(Error::NoSuchMatch(_)) if self.archive.is_some() => {
                let archive = self.archive.as_ref().expect("checked");
                let record_json = archive
                    .record(id)
                    .await
                    .map_err(Error::Store)?
                    .ok_or(Error::NoSuchMatch(id))?;
                return Ok(Response::new(v1::GetMatchRecordResponse { record_json }));
            }
            meta => meta?,
        };
        let record = self
            .engines
            .for_match(&meta.game, id)?
            .get_record(internal::GetRecordRequest { match_id: id.to_string() })
            .await
            .map_err(relay)?
            .into_inner()
            .record
            .ok_or(Error::BadEngineAnswer("the rules engine returned no record"))?;
        Ok(Response::new(record))
    }

    async fn list_my_matches(
        &self,
        req: Request<v1::ListMyMatchesRequest>,
    ) -> Result<Response<v1::ListMyMatchesResponse>, Status> {
        let size = crate::limits::list_my_matches(req.get_ref()).map_err(Error::from)?;
        let me = caller(&req)?;
        let v1::ListMyMatchesRequest { state, page_size: _, page_token } = req.into_inner();
        let state = v1::MyMatchState::try_from(state).unwrap_or_default();
        let page = crate::lists::my_matches(&self.store, me, state, size, &page_token).await?;
        Ok(Response::new(page))
    }

    async fn list_live_matches(
        &self,
        req: Request<v1::ListLiveMatchesRequest>,
    ) -> Result<Response<v1::ListLiveMatchesResponse>, Status> {
        let size = crate::limits::list_live_matches(req.get_ref()).map_err(Error::from)?;
        caller(&req)?;
        let v1::ListLiveMatchesRequest { game, page_size: _, page_token } = req.into_inner();
        let page = crate::lists::live_matches(&self.store, &game, size, &page_token).await?;
        Ok(Response::new(page))
    }

    async fn list_player_history(
        &self,
        req: Request<v1::ListPlayerHistoryRequest>,
    ) -> Result<Response<v1::ListPlayerHistoryResponse>, Status> {
        let size = crate::limits::list_player_history(req.get_ref()).map_err(Error::from)?;
        let me = caller(&req)?;
        let v1::ListPlayerHistoryRequest { player_id, page_size: _, page_token } = req.into_inner();
        let page = crate::history::page(self, me, &player_id, size, &page_token).await?;
        Ok(Response::new(page))
    }

    async fn verify_record(
        &self,
        req: Request<v1::VerifyRecordRequest>,
    ) -> Result<Response<v1::VerifyRecordResponse>, Status> {
        let v1::VerifyRecordRequest { record } = req.into_inner();
        Ok(Response::new(self.verifier.verify(record).await?))
    }

    type PlayStream = Decoded<v1::PlayResponse>;

    /// Not reached: `crate::served::Served` answers Play before the generated server;
    /// this is the same stream, each message decoded.
    async fn play(
        &self,
        req: Request<Streaming<v1::PlayRequest>>,
    ) -> Result<Response<Self::PlayStream>, Status> {
        let stream = crate::play::open(self.clone(), req)?;
        Ok(Response::new(Box::pin(stream.map(|m| m.map(|m| m.decoded())))))
    }
}
