//! The tournament service: the platform API (`colosseum.v1.TournamentService`, fronted by
//! the gateway), the public pages of tournaments (`colosseum.v1.TournamentViewService`,
//! fronted by the gateway too) and tenant administration
//! (`colosseum.internal.v1.TenantAdminService`, for operators). Stateless but for what the store holds: any replica answers any call; one
//! at a time holds the driver lease.
//!
//! # Layout
//! - [`handlers`]: the platform API's handlers.
//! - [`auth`]: API keys and scopes.
//! - [`admin`]: tenants, keys, the audit log.
//! - [`bulk`]: CreateMatches, all or none.
//! - [`tournaments`]: tournaments as folded results streams: the cache, the write loop, the
//!   calls.
//! - [`fold`]: a stored event handed to the `tournament-rules` crate; [`decide`]: what a writer
//!   appends, from the crate's lifecycle.
//! - [`results`]: finished matches from the lifecycle stream, once; WatchResults.
//! - [`driver`]: what callers left and what time decides, under the lease.
//! - [`export`]: ExportTournament's pages.
//! - [`view`]: the public pages of tournaments opened to all.
//! - [`records`]: what is stored, and its protos.
//! - `played` (tests only): tournaments played through the deciders, for the tests.
//! - [`error`], [`metrics`].

// A format (or any enum) matched with `_ =>` sends a new variant down another's path without
// a compile error: every arm is named.
#![warn(clippy::wildcard_enum_match_arm)]

pub mod admin;
pub mod auth;
pub mod bulk;
pub mod decide;
pub mod driver;
pub mod error;
pub mod export;
pub mod fold;
pub mod handlers;
pub mod metrics;
#[cfg(test)]
mod played;
pub mod records;
pub mod results;
pub mod tournaments;
pub mod view;

use api::internal::tenant_admin_service_server::TenantAdminServiceServer;
use api::v1::tournament_service_server::TournamentServiceServer;
use api::v1::tournament_view_service_server::TournamentViewServiceServer;
use service_kit::binary::{Failure, Up};
use service_kit::internal::InternalToken;
use std::sync::Arc;
use store::{FullStore, TenantStore};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

/// The `tournaments` binary's body ([`service_kit::binary::Service::run`]): the engines the
/// environment names, then [`serve`].
///
/// # Errors
/// The engines' variables are set wrong, or serving failed.
pub async fn main(up: Up, store: Arc<dyn FullStore>) -> Result<(), Failure> {
    let engines = engines::Engines::from_env(up.token.as_ref())?;
    Ok(serve(up.listener, store, engines, up.token, up.shutdown).await?)
}

/// Serves the tournament service on `listener` until `shutdown`, with its results reader
/// and driver beside the server; matches are created through `engines`.
///
/// # Errors
/// The server failed.
pub async fn serve(
    listener: TcpListener,
    store: Arc<dyn TenantStore>,
    engines: engines::Engines,
    token: Option<InternalToken>,
    shutdown: CancellationToken,
) -> Result<(), tonic::transport::Error> {
    service_kit::metrics::describe(metrics::ALL);
    let name = listener.local_addr().map(|a| a.to_string()).unwrap_or_default();
    let keys = auth::Keys::new(store.clone());
    let bulk = bulk::Bulk::new(store.clone(), engines.clone());
    let tournaments = tournaments::Tournaments::new(store.clone(), engines.clone());
    let results = results::Results::new(store.clone(), engines, tournaments.clone());
    let tasks = [
        tokio::spawn(results.run(shutdown.clone())),
        tokio::spawn(driver::run(
            store.clone(),
            bulk.clone(),
            tournaments.clone(),
            name,
            shutdown.clone(),
        )),
    ];
    // One subscription to the results feed for every watch of this replica.
    let wakes = results::Wakes::start(store.clone(), shutdown.clone());
    let view = view::View::new(store.clone(), tournaments.clone(), wakes.clone(), shutdown.clone());
    let platform = handlers::Platform::new(
        store.clone(),
        keys.clone(),
        bulk,
        tournaments,
        wakes,
        shutdown.clone(),
    );
    let services = service_kit::serve::Services::new(api::FILE_DESCRIPTOR_SET)
        .with(
            TournamentServiceServer::new(platform)
                .max_decoding_message_size(service_kit::serve::MAX_LARGER_REQUEST_BYTES),
        )
        .with(TournamentViewServiceServer::new(view))
        .with(TenantAdminServiceServer::new(admin::Admin::new(store, keys)))
        .larger_messages(api_convert::text::LARGER_MESSAGES);
    let auth = service_kit::internal::InternalAuthLayer::new(token);
    let result = service_kit::serve::serve(auth, services, listener, shutdown).await;
    for t in tasks {
        t.abort();
    }
    result
}
