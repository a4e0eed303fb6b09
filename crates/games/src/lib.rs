//! Where game names meet code: the catalog of hosted games, matches driven with JSON,
//! match records with their verifier, and the conformance-script runner.
//!
//! # Layout
//! - [`catalog`]: every game by name; `visit` turns a name into a type.
//! - [`dynamic`]: `DynMatch`, a match of any game speaking JSON, with its full log.
//! - [`record`]: `Record`, and `Record::verify` which replays one.
//! - [`script`]: conformance scripts and their result lines.

pub mod catalog;
pub mod dynamic;
pub mod record;
pub mod script;

pub use catalog::{GAMES, GameInfo, Visit, visit};
pub use dynamic::{DynMatch, Logged, SetupError, StepError, start};
pub use record::{Mismatch, Record, Verified};
pub use script::{ResultLine, run_text};
