//! What every Colosseum service shares, so each concept lives in one place.
//!
//! # Layout
//! - [`config`]: the one config loader (environment variables, with defaults).
//! - [`internal`]: the shared secret of internal calls, sent and checked.
//! - [`fields`]: match ids, seats and seat holders as requests carry them.
//! - [`telemetry`]: structured logs and W3C trace context carried in gRPC metadata.
//! - [`status`]: the one mapping from domain errors to gRPC statuses.
//! - [`serve`]: health, reflection and graceful shutdown around a tonic router.
//! - [`time`]: the wall clock, read here only.
//! - [`metrics`]: counters and gauges, `/metrics`, `/healthz`, `/readyz` over HTTP.

pub mod config;
pub mod engines;
pub mod fields;
pub mod internal;
pub mod metrics;
pub mod serve;
pub mod status;
pub mod telemetry;
pub mod time;
