//! The handlers of `colosseum.v1.LobbyService`, as the match-maker serves them to the
//! gateway: decode and bound the request, find the caller (the gateway names it in
//! metadata), call the domain (accounts, queues, matcher, boards), map errors to statuses.

use crate::accounts::{self, Passwords};
use crate::boards;
use crate::error::Error;
use crate::matcher::Matcher;
use crate::metrics;
use crate::queues::{self, pairing_of, queue_of, ticket_proto, ttl_ms};
use crate::ratings::{board_for, initial};
use crate::watch::TicketHub;
use api::v1::{self, lobby_service_server::LobbyService};
use service_kit::internal::{CLIENT_HEADER, PLAYER_HEADER};
use service_kit::time::now_ms;
use std::pin::Pin;
use std::sync::Arc;
use store::{Account, LobbyStore, PlayerId, SeekAccepted, Ticket, TicketCreated, TicketState};
use tokio_stream::Stream;
use tokio_stream::wrappers::ReceiverStream;
use tonic::metadata::MetadataMap;
use tonic::{Request, Response, Status};

/// The most seeks ListSeeks answers.
pub const MAX_SEEKS: u32 = 200;
/// ListSeeks' default.
pub const DEFAULT_SEEKS: u32 = 50;
/// The most live tickets (seeks included) a player may hold at once, across queues.
pub const MAX_LIVE_TICKETS: usize = 10;

/// The lobby service.
pub struct Lobby {
    store: Arc<dyn LobbyStore>,
    passwords: Arc<Passwords>,
    hub: TicketHub,
    matcher: Arc<Matcher>,
}

impl Lobby {
    /// The service over its parts.
    pub fn new(
        store: Arc<dyn LobbyStore>,
        passwords: Arc<Passwords>,
        hub: TicketHub,
        matcher: Arc<Matcher>,
    ) -> Lobby {
        Lobby { store, passwords, hub, matcher }
    }

    /// The caller's account, or [`Error::AccountRequired`] for a guest.
    async fn account(&self, player: PlayerId, what: &'static str) -> Result<Account, Error> {
        self.store.account(player).await?.ok_or(Error::AccountRequired(what))
    }

    /// The caller's display name as chosen: its account's, or its guest session's.
    async fn display_name(&self, meta: &MetadataMap, player: PlayerId) -> Result<String, Error> {
        if let Some(a) = self.store.account(player).await? {
            return Ok(a.display_name);
        }
        Ok(match token(meta) {
            Some(t) => self
                .store
                .session(&store::token_digest(&t))
                .await?
                .map(|s| s.display_name)
                .unwrap_or_default(),
            None => String::new(),
        })
    }

    async fn ticket(
        &self,
        meta: &MetadataMap,
        spec: Option<v1::QueueSpec>,
        key: String,
        ttl_seconds: u32,
        seek: bool,
    ) -> Result<(Ticket, bool), Error> {
        let player = caller(meta)?;
        let queue = queue_of(spec)?;
        check_key(&key)?;
        if seek && queue.rated {
            return Err(api_convert::bad(
                "queue.rated",
                "a seek is casual: queue.rated must be false".into(),
            )
            .into());
        }
        if queue.rated {
            self.account(player, "rated play").await?;
        }
        let ttl = ttl_ms(ttl_seconds, &queue)?;
        // Queues are many (every time control is one): a player's live tickets are not.
        let live = self.store.tickets_of(player).await?;
        let live = live.iter().filter(|t| t.state.is_live()).count();
        if live >= MAX_LIVE_TICKETS {
            return Err(Error::TooManyTickets { limit: MAX_LIVE_TICKETS });
        }
        let rating = self.store.rating(&queue.game, player).await?.unwrap_or_else(initial);
        let display_name = self.display_name(meta, player).await?;
        let now = now_ms();
        let ticket = Ticket {
            id: store::TicketId::random(),
            player,
            queue,
            seek,
            rating: rating.rating,
            idempotency_key: key,
            created_ms: now,
            expires_ms: now + ttl,
            state: TicketState::Waiting,
            changed_ms: now,
            display_name,
        };
        match self.store.create_ticket(&ticket).await? {
            TicketCreated::Created(t) => {
                service_kit::metrics::add(metrics::TICKETS, 1);
                Ok((t, false))
            }
            TicketCreated::Duplicate(t) => Ok((t, true)),
            TicketCreated::KeyReused(_) => Err(Error::KeyReused),
            TicketCreated::LiveInQueue(t) => Err(Error::TicketLive(t.id)),
        }
    }
}

/// The player the gateway authenticated.
fn caller(meta: &MetadataMap) -> Result<PlayerId, Error> {
    meta.get(PLAYER_HEADER)
        .and_then(|v| v.to_str().ok())
        .and_then(|s| s.parse().ok())
        .ok_or(Error::NoCaller)
}

/// The client's address as the gateway saw it (`unknown` if it could not tell).
fn client_address(meta: &MetadataMap) -> String {
    meta.get(CLIENT_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(|s| service_kit::config::truncate(s, 64).to_string())
        .unwrap_or_else(|| "unknown".into())
}

/// The calling session's token, from the `authorization` the gateway passed on.
fn token(meta: &MetadataMap) -> Option<String> {
    let value = meta.get("authorization")?.to_str().ok()?;
    api_convert::text::bearer(value).map(str::to_string)
}

fn check_key(key: &str) -> Result<(), Error> {
    api_convert::text::key("idempotency_key", key)?;
    if key.is_empty() {
        return Err(
            api_convert::bad("idempotency_key", "idempotency_key is required".into()).into()
        );
    }
    Ok(())
}

fn session(account: &Account, token: String) -> v1::AccountSession {
    v1::AccountSession {
        token,
        player_id: account.player.to_string(),
        display_name: account.display_name.clone(),
    }
}

fn profile(a: &Account) -> v1::Profile {
    v1::Profile {
        player_id: a.player.to_string(),
        display_name: a.display_name.clone(),
        account: true,
        email: a.email.clone(),
        leaderboard: a.leaderboard,
        bot: a.bot,
    }
}

type Watch = Pin<Box<dyn Stream<Item = Result<v1::WatchTicketsResponse, Status>> + Send>>;

#[tonic::async_trait]
impl LobbyService for Lobby {
    async fn register(
        &self,
        req: Request<v1::RegisterRequest>,
    ) -> Result<Response<v1::RegisterResponse>, Status> {
        let address = client_address(req.metadata());
        let v1::RegisterRequest { email, password, display_name, leaderboard, bot } =
            req.into_inner();
        let email = accounts::normalize_email(&email)?;
        accounts::check_new_password("password", &password)?;
        let name = api_convert::text::display_name(&display_name).map_err(Error::from)?;
        accounts::count_register(&*self.store, &address).await?;
        let player = PlayerId::random();
        let account = Account {
            player,
            email,
            password_phc: self.passwords.hash(password).await?,
            display_name: accounts::name_or_default(name, player),
            leaderboard,
            bot,
            created_ms: now_ms(),
        };
        accounts::register(&*self.store, &account).await?;
        let token = accounts::open_session(&*self.store, &account).await?;
        tracing::info!(%player, "account registered");
        service_kit::metrics::add(metrics::REGISTERED, 1);
        Ok(Response::new(v1::RegisterResponse { session: Some(session(&account, token)) }))
    }

    async fn login(
        &self,
        req: Request<v1::LoginRequest>,
    ) -> Result<Response<v1::LoginResponse>, Status> {
        let address = client_address(req.metadata());
        let v1::LoginRequest { email, password } = req.into_inner();
        let email = accounts::normalize_email(&email)?;
        api_convert::text::at_most(
            "password",
            password.len(),
            accounts::MAX_PASSWORD_BYTES,
            "bytes",
        )
        .map_err(Error::from)?;
        accounts::count_login(&*self.store, &email, &address).await?;
        let account = self.store.account_by_email(&email).await.map_err(Error::from)?;
        let phc = account.as_ref().map(|a| a.password_phc.clone());
        if !self.passwords.verify(phc, password).await {
            service_kit::metrics::add(metrics::LOGIN_FAILED, 1);
            return Err(Error::BadCredentials.into());
        }
        let account = account.ok_or(Error::BadCredentials)?;
        let token = accounts::open_session(&*self.store, &account).await?;
        Ok(Response::new(v1::LoginResponse { session: Some(session(&account, token)) }))
    }

    async fn logout(
        &self,
        req: Request<v1::LogoutRequest>,
    ) -> Result<Response<v1::LogoutResponse>, Status> {
        caller(req.metadata())?;
        let token = token(req.metadata()).ok_or(Error::NoCaller)?;
        self.store.delete_session(&store::token_digest(&token)).await.map_err(Error::from)?;
        Ok(Response::new(v1::LogoutResponse {}))
    }

    async fn change_password(
        &self,
        req: Request<v1::ChangePasswordRequest>,
    ) -> Result<Response<v1::ChangePasswordResponse>, Status> {
        let player = caller(req.metadata())?;
        let (meta, _, r) = req.into_parts();
        let v1::ChangePasswordRequest { old_password, new_password } = r;
        api_convert::text::at_most(
            "old_password",
            old_password.len(),
            accounts::MAX_PASSWORD_BYTES,
            "bytes",
        )
        .map_err(Error::from)?;
        accounts::check_new_password("new_password", &new_password)?;
        let account = self.account(player, "a password").await?;
        // Guessing the old password is a login attempt like any other.
        accounts::count_login(&*self.store, &account.email, &client_address(&meta)).await?;
        if !self.passwords.verify(Some(account.password_phc.clone()), old_password).await {
            return Err(Error::WrongPassword.into());
        }
        let phc = self.passwords.hash(new_password).await?;
        let change = store::AccountChange::Password(phc);
        self.store.update_account(player, &change).await.map_err(Error::from)?;
        Ok(Response::new(v1::ChangePasswordResponse {}))
    }

    async fn update_profile(
        &self,
        req: Request<v1::UpdateProfileRequest>,
    ) -> Result<Response<v1::UpdateProfileResponse>, Status> {
        let player = caller(req.metadata())?;
        let v1::UpdateProfileRequest { display_name, leaderboard } = req.into_inner();
        let name = display_name
            .map(|n| api_convert::text::display_name(&n))
            .transpose()
            .map_err(Error::from)?;
        let mut account = self.account(player, "a profile").await?;
        if let Some(name) = name {
            account.display_name = accounts::name_or_default(name, player);
        }
        if let Some(l) = leaderboard {
            account.leaderboard = l;
        }
        let change = store::AccountChange::Profile {
            display_name: account.display_name.clone(),
            leaderboard: account.leaderboard,
        };
        self.store.update_account(player, &change).await.map_err(Error::from)?;
        // Onto the boards (or off them) in every game the player is rated in, from the
        // stored flag every time: a call cut short before this is mended by a retry.
        for g in games::GAMES {
            if let Some(r) = self.store.rating(g.name, player).await.map_err(Error::from)? {
                let board = board_for(account.leaderboard, account.bot, &r);
                self.store.place(g.name, player, board, r.rating).await.map_err(Error::from)?;
            }
        }
        Ok(Response::new(v1::UpdateProfileResponse { profile: Some(profile(&account)) }))
    }

    async fn get_profile(
        &self,
        req: Request<v1::GetProfileRequest>,
    ) -> Result<Response<v1::GetProfileResponse>, Status> {
        let player = caller(req.metadata())?;
        if let Some(a) = self.store.account(player).await.map_err(Error::from)? {
            return Ok(Response::new(v1::GetProfileResponse { profile: Some(profile(&a)) }));
        }
        let name = self.display_name(req.metadata(), player).await?;
        Ok(Response::new(v1::GetProfileResponse {
            profile: Some(v1::Profile {
                player_id: player.to_string(),
                display_name: name,
                ..v1::Profile::default()
            }),
        }))
    }

    async fn create_ticket(
        &self,
        req: Request<v1::CreateTicketRequest>,
    ) -> Result<Response<v1::CreateTicketResponse>, Status> {
        let (meta, _, r) = req.into_parts();
        let (t, duplicate) =
            self.ticket(&meta, r.queue, r.idempotency_key, r.ttl_seconds, false).await?;
        // A new ticket's creation is announced on the caller's watch, which carries it: the
        // answer names it. A duplicate announces nothing (and its first answer was likely
        // lost), so it is answered whole.
        let ticket = if r.answer_on_watch && !duplicate {
            v1::Ticket { ticket_id: t.id.to_string(), ..Default::default() }
        } else {
            ticket_proto(&t, now_ms())
        };
        Ok(Response::new(v1::CreateTicketResponse { ticket: Some(ticket), duplicate }))
    }

    async fn cancel_ticket(
        &self,
        req: Request<v1::CancelTicketRequest>,
    ) -> Result<Response<v1::CancelTicketResponse>, Status> {
        let player = caller(req.metadata())?;
        let id = queues::ticket_id("ticket_id", &req.get_ref().ticket_id)?;
        let t = self
            .store
            .cancel_ticket(id, player, now_ms())
            .await
            .map_err(Error::from)?
            .ok_or(Error::NoSuchTicket)?;
        Ok(Response::new(v1::CancelTicketResponse { ticket: Some(ticket_proto(&t, now_ms())) }))
    }

    type WatchTicketsStream = Watch;

    async fn watch_tickets(
        &self,
        req: Request<v1::WatchTicketsRequest>,
    ) -> Result<Response<Watch>, Status> {
        let player = caller(req.metadata())?;
        Ok(Response::new(Box::pin(ReceiverStream::new(self.hub.watch(player)))))
    }

    async fn create_seek(
        &self,
        req: Request<v1::CreateSeekRequest>,
    ) -> Result<Response<v1::CreateSeekResponse>, Status> {
        let (meta, _, r) = req.into_parts();
        let (t, duplicate) =
            self.ticket(&meta, r.queue, r.idempotency_key, r.ttl_seconds, true).await?;
        Ok(Response::new(v1::CreateSeekResponse {
            ticket: Some(ticket_proto(&t, now_ms())),
            duplicate,
        }))
    }

    async fn list_seeks(
        &self,
        req: Request<v1::ListSeeksRequest>,
    ) -> Result<Response<v1::ListSeeksResponse>, Status> {
        let v1::ListSeeksRequest { game, limit } = req.into_inner();
        api_convert::text::at_most("game", game.len(), api_convert::text::MAX_GAME_LEN, "bytes")
            .map_err(Error::from)?;
        let limit = api_convert::text::page_size("limit", limit, DEFAULT_SEEKS, MAX_SEEKS)
            .map_err(Error::from)?;
        let game = (!game.is_empty()).then_some(game.as_str());
        let seeks = self.store.seeks(game, limit as usize).await.map_err(Error::from)?;
        let now = now_ms();
        let mut out = Vec::with_capacity(seeks.len());
        // One past its time is expired by the next pass; it is no longer offered.
        for t in seeks.into_iter().filter(|t| t.expires_ms > now) {
            // An account's name as it is now (it may have changed since); a guest's as
            // it chose it when it posted the seek.
            let name = match self.store.account(t.player).await.map_err(Error::from)? {
                Some(a) => a.display_name,
                None if !t.display_name.is_empty() => t.display_name.clone(),
                None => api_convert::text::guest_name(&t.player.to_string()),
            };
            out.push(v1::Seek {
                seek_id: t.id.to_string(),
                queue: Some(queues::spec_of(&t.queue)),
                player_id: t.player.to_string(),
                display_name: name,
                rating: t.rating,
                expires_at_ms: t.expires_ms,
            });
        }
        Ok(Response::new(v1::ListSeeksResponse { seeks: out }))
    }

    async fn accept_seek(
        &self,
        req: Request<v1::AcceptSeekRequest>,
    ) -> Result<Response<v1::AcceptSeekResponse>, Status> {
        let player = caller(req.metadata())?;
        let display_name = self.display_name(req.metadata(), player).await?;
        let v1::AcceptSeekRequest { seek_id, idempotency_key } = req.into_inner();
        let seek_id = queues::ticket_id("seek_id", &seek_id)?;
        check_key(&idempotency_key)?;
        let seek = self.store.ticket(seek_id).await.map_err(Error::from)?;
        let seek = seek.filter(|t| t.seek).ok_or(Error::SeekGone)?;
        if seek.player == player {
            return Err(Error::OwnSeek.into());
        }
        let rating = self.store.rating(&seek.queue.game, player).await.map_err(Error::from)?;
        let now = now_ms();
        let accepter = Ticket {
            id: store::TicketId::random(),
            player,
            queue: seek.queue.clone(),
            seek: false,
            rating: rating.unwrap_or_else(initial).rating,
            idempotency_key,
            created_ms: now,
            expires_ms: seek.expires_ms,
            state: TicketState::Waiting,
            changed_ms: now,
            display_name,
        };
        let pairing = pairing_of(&seek, &accepter, now);
        let mine = match self
            .store
            .accept_seek(seek_id, &accepter, &pairing)
            .await
            .map_err(Error::from)?
        {
            SeekAccepted::Paired(p) => {
                service_kit::metrics::add(metrics::PAIRED, 1);
                // Left pending on failure: the matcher finishes it, and the ticket's
                // watcher hears when.
                if let Err(e) = self.matcher.finish(&p).await {
                    tracing::warn!(match_id = %p.match_id, error = %e, "accepted seek not finished yet");
                }
                accepter.id
            }
            // The key answers only the ticket it made for this seek.
            SeekAccepted::Duplicate(t) => {
                let ours = matches!(t.state,
                    TicketState::Pairing { match_id, .. } | TicketState::Assigned { match_id, .. }
                        if match_id == pairing_of(&seek, &t, now).match_id);
                if !ours {
                    return Err(Error::KeyReused.into());
                }
                t.id
            }
            SeekAccepted::Gone(_) => return Err(Error::SeekGone.into()),
            SeekAccepted::LiveInQueue(t) => return Err(Error::TicketLive(t.id).into()),
        };
        let t = self.store.ticket(mine).await.map_err(Error::from)?.ok_or(Error::NoSuchTicket)?;
        Ok(Response::new(v1::AcceptSeekResponse { ticket: Some(ticket_proto(&t, now_ms())) }))
    }

    async fn get_leaderboard(
        &self,
        req: Request<v1::GetLeaderboardRequest>,
    ) -> Result<Response<v1::GetLeaderboardResponse>, Status> {
        Ok(Response::new(boards::leaderboard(&*self.store, req.into_inner()).await?))
    }

    async fn get_rating(
        &self,
        req: Request<v1::GetRatingRequest>,
    ) -> Result<Response<v1::GetRatingResponse>, Status> {
        Ok(Response::new(boards::rating(&*self.store, req.into_inner()).await?))
    }
}
