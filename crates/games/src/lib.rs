//! Where game names meet code: the registry of hosted games, the one host for a match of
//! any game, match records with their verifier, and the conformance-script runner.
//!
//! # Layout (each module uses only those above it)
//! - [`registry`]: every game by name with its family; `visit` turns a name into a type
//!   that has rules, wire and bots ([`Hostable`]); bots and JSON moves by game name.
//! - [`parse`]: options, moves and steps from JSON; `StepError`, `SetupError`.
//! - [`host`]: [`Host`], a match of any game over the typed `Logged<G>`, with a JSON and
//!   a protobuf codec.
//! - [`record`]: `Record`, and `Record::verify` which replays one.
//! - [`script`]: conformance scripts and their result lines.
//! - [`time`]: the time per move a match may have (the rules' fixed time, the host's
//!   policies), asked by every service and the CLI.

pub mod host;
pub mod parse;
pub mod record;
pub mod registry;
pub mod script;
pub mod time;

pub use host::{Host, HostError, Logged, StepIn, start};
pub use parse::{SetupError, StepError};
pub use record::{Mismatch, Record, Verified};
pub use registry::{Family, GAMES, GameInfo, Hostable, Visit, visit};
pub use script::{ResultLine, run_text};
