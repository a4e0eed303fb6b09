//! The parts of the store each service holds, composed from the domains' traits: the
//! match-maker's ([`MatchMakerStore`]), the tournament service's ([`TenantStore`]), the
//! gateway's ([`GatewayStore`]) and the whole of it ([`FullStore`], for
//! `colosseum run` and the in-process cluster). Apart from the traits, so that no domain's
//! file imports this one back.

use crate::lease::LeaseStore;
use crate::lifecycle::LifecycleStore;
use crate::lobby::LobbyStore;
use crate::matches::traits::{EventStore, HostStore};
use crate::platform::PlatformStore;
use crate::presence::PresenceStore;

/// The match-maker's part: the lobby, the lifecycle stream (the ratings read it) and the
/// matcher's lease.
pub trait MatchMakerStore: LobbyStore + LifecycleStore + LeaseStore {}

impl<T: LobbyStore + LifecycleStore + LeaseStore + ?Sized> MatchMakerStore for T {}

/// The archiver's part (it runs in the match-maker): the lifecycle stream it reads, the
/// lobby's rating lines, the matches' metas (who sat where) and their release once
/// archived, and the platform's owners (a tenant's, a tournament's match).
pub trait ArchiverStore: LifecycleStore + LobbyStore + EventStore + PlatformStore {}

impl<T: LifecycleStore + LobbyStore + EventStore + PlatformStore + ?Sized> ArchiverStore for T {}

/// The tournament service's part: the platform's records, the lifecycle stream (the
/// results read it) and the driver's lease; no lobby, and no seed (that is
/// [`HostStore`]'s).
pub trait TenantStore: PlatformStore + LifecycleStore + LeaseStore {}

impl<T: PlatformStore + LifecycleStore + LeaseStore + ?Sized> TenantStore for T {}

/// The gateway's part: the matches (no seed), the seats' presence and the bot runner's
/// lease.
pub trait GatewayStore: PresenceStore + LeaseStore {}

impl<T: PresenceStore + LeaseStore + ?Sized> GatewayStore for T {}

/// Everything a store is: what `colosseum run` and the in-process cluster hand to every
/// service (each takes the part it may use, by upcasting). Both stores are one.
pub trait FullStore:
    HostStore + MatchMakerStore + TenantStore + GatewayStore + ArchiverStore
{
}

impl<T: HostStore + MatchMakerStore + TenantStore + GatewayStore + ArchiverStore + ?Sized> FullStore
    for T
{
}

/// Each part a binary opens answers the readiness probe with a ping of its store.
macro_rules! probe {
    ($($part:path),*) => {$(
        impl service_kit::binary::Probe for dyn $part {
            fn probe(
                &self,
            ) -> std::pin::Pin<Box<dyn Future<Output = Result<(), String>> + Send + '_>> {
                Box::pin(async move { self.ping().await.map_err(|e| e.to_string()) })
            }
        }
    )*};
}

probe!(crate::matches::traits::EventStore, HostStore, GatewayStore, FullStore);
