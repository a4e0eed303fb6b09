//! The matches' domain: a match's log, meta, seats, seed, snapshots, deadlines and the
//! append feed ([`store::EventStore`], [`store::HostStore`]), with what lives beside them
//! (sessions, the bots' matches, the players' and live lists), and their two
//! implementations (`memory/`, `redis/`, its Lua in `lua/`).

pub mod bots;
pub mod feed;
pub mod lists;
pub mod model;
pub mod record;
pub mod traits;

pub(crate) mod memory;
pub(crate) mod redis;
