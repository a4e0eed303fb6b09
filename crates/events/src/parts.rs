//! The parts of the store each service holds, composed from the domains' traits: the
//! tournament service's ([`TenantStore`]) and the whole of it ([`FullStore`], for
//! `colosseum run` and the in-process cluster). Apart from the traits, so that no domain's
//! file imports this one back.

use crate::lobby::LobbyStore;
use crate::platform::PlatformStore;
use crate::presence::PresenceStore;
use crate::store::HostStore;

/// The tournament service's part: the platform's records, with the lobby's lease and
/// lifecycle stream (and no seed: that is [`HostStore`]'s).
pub trait TenantStore: LobbyStore + PlatformStore {}

impl<T: LobbyStore + PlatformStore + ?Sized> TenantStore for T {}

/// Everything a store is: what `colosseum run` and the in-process cluster hand to every
/// service (each takes the part it may use, by upcasting). Both stores are one.
pub trait FullStore: HostStore + TenantStore + PresenceStore {}

impl<T: HostStore + TenantStore + PresenceStore + ?Sized> FullStore for T {}
