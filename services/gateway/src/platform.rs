//! `colosseum.v1.TournamentService` at the gateway: every call passed on to the tournament
//! service as it came, with the caller's `authorization` (the tenant's API key, checked
//! there), the client's address and the trace context; the answer goes back as it is.

use crate::forward::balanced;
use api::v1::{
    tournament_service_client::TournamentServiceClient,
    tournament_service_server::TournamentService,
    tournament_view_service_client::TournamentViewServiceClient,
};
use service_kit::internal::{InternalToken, Stamp};
use tonic::Status;
use tonic::service::interceptor::InterceptedService;
use tonic::transport::Channel;

/// A client of the tournament service's TournamentService, stamping every call with the
/// secret.
pub type PlatformClient = TournamentServiceClient<InterceptedService<Channel, Stamp>>;

/// A client of its TournamentViewService (the public pages), the same way.
pub type ViewClient = TournamentViewServiceClient<InterceptedService<Channel, Stamp>>;

/// Clients of the tournament service's replicas, one per service it serves the gateway,
/// on one channel.
#[derive(Clone)]
pub struct TournamentsClient {
    /// TournamentService's.
    pub platform: PlatformClient,
    /// TournamentViewService's ([`crate::tournament_view`]).
    pub view: ViewClient,
}

/// Clients over `urls` (every replica).
///
/// # Errors
/// A URL that does not parse.
pub fn client(
    urls: &[String],
    token: Option<&InternalToken>,
) -> Result<TournamentsClient, service_kit::config::BadUrl> {
    let channel = balanced(urls)?;
    Ok(TournamentsClient {
        platform: TournamentServiceClient::with_interceptor(channel.clone(), Stamp::new(token))
            .max_decoding_message_size(8 * 1024 * 1024)
            .max_encoding_message_size(8 * 1024 * 1024),
        view: TournamentViewServiceClient::with_interceptor(channel, Stamp::new(token)),
    })
}

/// The gateway's face of the platform API.
#[derive(Clone)]
pub struct PlatformFront {
    client: Option<TournamentsClient>,
}

impl PlatformFront {
    /// Passes calls to `client`; without one, every call answers UNAVAILABLE.
    pub fn new(client: Option<TournamentsClient>) -> PlatformFront {
        PlatformFront { client }
    }

    fn client(&self) -> Result<PlatformClient, Status> {
        let client = self.client.as_ref().map(|c| c.platform.clone());
        client.ok_or_else(|| {
            service_kit::status::unavailable("no tournament service configured (TOURNAMENTS_URL)")
        })
    }
}

crate::forward::forward! {
    TournamentService for PlatformFront;
    unary {
        create_matches: CreateMatchesRequest => CreateMatchesResponse;
        get_match: GetMatchRequest => GetMatchResponse;
        get_tenant_match_record: GetTenantMatchRecordRequest => GetTenantMatchRecordResponse;
        create_tournament: CreateTournamentRequest => CreateTournamentResponse;
        get_tournament: GetTournamentRequest => GetTournamentResponse;
        list_tournaments: ListTournamentsRequest => ListTournamentsResponse;
        start_round: StartRoundRequest => StartRoundResponse;
        pause_tournament: PauseTournamentRequest => PauseTournamentResponse;
        resume_tournament: ResumeTournamentRequest => ResumeTournamentResponse;
        withdraw_player: WithdrawPlayerRequest => WithdrawPlayerResponse;
        adjudicate_match: AdjudicateMatchRequest => AdjudicateMatchResponse;
        get_standings: GetStandingsRequest => GetStandingsResponse;
        export_tournament: ExportTournamentRequest => ExportTournamentResponse;
    }
    stream watch_results: WatchResultsRequest => WatchResultsResponse as WatchResultsStream;
}
