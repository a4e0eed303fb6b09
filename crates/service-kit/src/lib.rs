//! What every Colosseum service shares, and nothing of any one domain: infrastructure
//! only (no game, store or rules type appears here), so each concept lives in one place.
//!
//! # Layout
//! - [`cache`]: the one bounded cache of what a service read from its store.
//! - [`config`]: environment variables read with defaults (strings, numbers, addresses,
//!   URL lists).
//! - [`internal`]: the shared secret of internal calls, sent and checked.
//! - [`lease`]: the leased loop: a duty one replica at a time performs, on a tick.
//! - [`binary`]: the one shape of a service binary's `main` (logs, secret, address,
//!   signals, metrics and health, the listener).
//! - [`telemetry`]: structured logs and W3C trace context carried in gRPC metadata.
//! - [`status`]: the mechanics of every error status (reasons, details, bounded
//!   messages); each service's one error match calls them.
//! - [`serve`]: the one serve harness: health, reflection, the edge layer and graceful
//!   shutdown around a service's routes.
//! - [`time`]: the wall clock, read here only.
//! - [`metrics`]: counters, gauges and histograms with labels, process metrics, and
//!   `/metrics`, `/healthz`, `/readyz` over HTTP.

pub mod binary;
pub mod cache;
pub mod config;
pub mod internal;
pub mod lease;
pub mod metrics;
pub mod serve;
pub mod status;
pub mod telemetry;
pub mod time;
