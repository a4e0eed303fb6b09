//! The mechanics every service's error match calls to build a gRPC status, so each code,
//! `google.rpc.ErrorInfo` reason (domain [`ERROR_DOMAIN`]) and message bound is written
//! once. Each service decides which status an error is in its own exhaustive match; here
//! only is a status built. Unexpected errors are logged here and answered generically, so
//! no internal detail (or hidden card) reaches a client; every message is bounded, so no
//! input echoed in one can outgrow an HTTP/2 header block.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The metadata key carrying a rules refusal's conformance code (`illegal_move`...).
pub const ERROR_CODE_KEY: &str = "colosseum-error-code";

/// The `google.rpc.ErrorInfo` domain of every Colosseum refusal.
pub const ERROR_DOMAIN: &str = "colosseum.v1";

/// The ErrorInfo reason of a refused idempotency key (see [`key_reused`]).
pub const REASON_KEY_REUSED: &str = "idempotency_key_reused";

/// The longest status message sent, in bytes: far below HTTP/2 header limits (a peer's
/// default is 16 KiB for the whole block) even once percent-encoded.
pub const MAX_MESSAGE_BYTES: usize = 512;

/// How many characters of a client's input a message may quote.
pub const MAX_QUOTE_CHARS: usize = 40;

/// `s` quoted for an error message, cut to [`MAX_QUOTE_CHARS`] (on a char boundary, with
/// its full length) so a message never echoes unbounded input.
pub fn clip(s: &str) -> String {
    match s.char_indices().nth(MAX_QUOTE_CHARS) {
        None => format!("{s:?}"),
        Some((end, _)) => format!("{:?}... ({} bytes)", &s[..end], s.len()),
    }
}

/// `m` cut to at most `max` bytes on a char boundary, marked `...` when cut.
pub fn truncate(mut m: String, max: usize) -> String {
    if m.len() <= max {
        return m;
    }
    let mut end = max.saturating_sub(3);
    while !m.is_char_boundary(end) {
        end -= 1;
    }
    m.truncate(end);
    m.push_str("...");
    m
}

/// A status with `code`, the message bounded, and an ErrorInfo of `reason` (domain
/// [`ERROR_DOMAIN`]) carrying `metadata`; `extra` adds more details.
// tonic-types' ErrorInfo takes a HashMap; its order is never read.
#[allow(clippy::disallowed_types)]
pub fn refusal_status(
    code: Code,
    message: impl Into<String>,
    reason: &str,
    metadata: &[(&str, String)],
    extra: impl FnOnce(&mut ErrorDetails),
) -> Status {
    let metadata: std::collections::HashMap<String, String> =
        metadata.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect();
    let mut details = ErrorDetails::new();
    details.set_error_info(reason, ERROR_DOMAIN, metadata);
    extra(&mut details);
    Status::with_error_details(code, truncate(message.into(), MAX_MESSAGE_BYTES), details)
}

/// A refusal with `code` and `message`, its ErrorInfo reason the code's own name
/// (`not_found`, `failed_precondition`...): what a caller can act on, told as it is.
pub fn refuse(code: Code, message: impl Into<String>) -> Status {
    refusal_status(code, message, reason_of(code), &[], |_| {})
}

/// A status code's canonical name, as gRPC spells it (`NOT_FOUND`): metric labels, reports.
pub fn code_name(code: Code) -> &'static str {
    match code {
        Code::Ok => "OK",
        Code::Cancelled => "CANCELLED",
        Code::Unknown => "UNKNOWN",
        Code::InvalidArgument => "INVALID_ARGUMENT",
        Code::DeadlineExceeded => "DEADLINE_EXCEEDED",
        Code::NotFound => "NOT_FOUND",
        Code::AlreadyExists => "ALREADY_EXISTS",
        Code::PermissionDenied => "PERMISSION_DENIED",
        Code::ResourceExhausted => "RESOURCE_EXHAUSTED",
        Code::FailedPrecondition => "FAILED_PRECONDITION",
        Code::Aborted => "ABORTED",
        Code::OutOfRange => "OUT_OF_RANGE",
        Code::Unimplemented => "UNIMPLEMENTED",
        Code::Internal => "INTERNAL",
        Code::Unavailable => "UNAVAILABLE",
        Code::DataLoss => "DATA_LOSS",
        Code::Unauthenticated => "UNAUTHENTICATED",
    }
}

/// The ErrorInfo reason of a plain refusal with `code`.
fn reason_of(code: Code) -> &'static str {
    match code {
        Code::Ok => "ok",
        Code::Cancelled => "cancelled",
        Code::Unknown => "unknown",
        Code::InvalidArgument => "invalid_argument",
        Code::DeadlineExceeded => "deadline_exceeded",
        Code::NotFound => "not_found",
        Code::AlreadyExists => "already_exists",
        Code::PermissionDenied => "permission_denied",
        Code::ResourceExhausted => "resource_exhausted",
        Code::FailedPrecondition => "failed_precondition",
        Code::Aborted => "aborted",
        Code::OutOfRange => "out_of_range",
        Code::Unimplemented => "unimplemented",
        Code::Internal => "internal",
        Code::Unavailable => "unavailable",
        Code::DataLoss => "data_loss",
        Code::Unauthenticated => "unauthenticated",
    }
}

/// INVALID_ARGUMENT for one malformed `field` (too long, not a UUID...), with a
/// `google.rpc.BadRequest` naming it (reason `invalid_field`, the field in its metadata).
pub fn bad_field(field: String, message: String) -> Status {
    let description = truncate(message.clone(), MAX_MESSAGE_BYTES);
    let meta = [("field", field.clone())];
    refusal_status(Code::InvalidArgument, message, "invalid_field", &meta, |d| {
        d.add_bad_request_violation(field, description);
    })
}

/// The field and message of a [`bad_field`] status, as a callee sent it.
pub fn bad_field_of(s: &Status) -> Option<(String, String)> {
    if s.code() != Code::InvalidArgument {
        return None;
    }
    let details = s.get_error_details();
    let v = details.bad_request().and_then(|b| b.field_violations.first())?;
    Some((v.field.clone(), truncate(s.message().to_string(), MAX_MESSAGE_BYTES)))
}

/// ALREADY_EXISTS for an idempotency key used before for another move, applied at
/// `version`: the version in the message and in the ErrorInfo metadata.
pub fn key_reused(version: u64) -> Status {
    let message =
        format!("idempotency_key was already used for another move, applied at version {version}");
    let meta = [("version", version.to_string())];
    refusal_status(Code::AlreadyExists, message, REASON_KEY_REUSED, &meta, |_| {})
}

/// The version of a [`key_reused`] status, as a callee sent it.
pub fn key_reused_of(s: &Status) -> Option<u64> {
    if s.code() != Code::AlreadyExists {
        return None;
    }
    let details = s.get_error_details();
    let info = details.error_info().filter(|i| i.reason == REASON_KEY_REUSED)?;
    info.metadata.get("version")?.parse().ok()
}

/// A rules refusal: `code` (the rules' choice), message `<reason>: <message>`, the
/// conformance code `reason` as the ErrorInfo reason and in [`ERROR_CODE_KEY`].
pub fn rules_refusal(code: Code, reason: &str, message: &str) -> Status {
    let mut s = refusal_status(code, format!("{reason}: {message}"), reason, &[], |_| {});
    if let Ok(v) = reason.parse() {
        s.metadata_mut().insert(ERROR_CODE_KEY, v);
    }
    s
}

/// The conformance code and message of a [`rules_refusal`] status, as it was made (so
/// passing it on keeps them).
pub fn rules_refusal_of(s: &Status) -> Option<(&str, &str)> {
    let reason = s.metadata().get(ERROR_CODE_KEY)?.to_str().ok()?;
    let message = s.message();
    Some((reason, message.strip_prefix(&format!("{reason}: ")).unwrap_or(message)))
}

/// UNAVAILABLE: a dependency is down (the store, a rules engine), retrying later is safe.
/// `detail` is logged, the caller hears only that.
pub fn unavailable(detail: impl std::fmt::Display) -> Status {
    tracing::warn!(error = %truncate(detail.to_string(), 4096), "dependency unavailable");
    refuse(Code::Unavailable, "a backing service is unavailable; retry shortly")
}

/// INTERNAL: a bug or corrupt data. `detail` is logged, the caller hears nothing of it.
pub fn internal(detail: impl std::fmt::Display) -> Status {
    tracing::error!(error = %truncate(detail.to_string(), 4096), "internal error");
    refuse(Code::Internal, "internal error")
}

/// Whether `s` was made by our own client, not sent by the callee: it carries a source
/// error (a refused or broken connection, a reset stream). The request may or may not
/// have reached the callee.
pub fn is_transport_failure(s: &Status) -> bool {
    // CANCELLED with a source is the backend's stream reset under us (a replica killed
    // mid-call): this side cancelled nothing, or there would be no one left to answer.
    std::error::Error::source(s).is_some()
        && matches!(s.code(), Code::Unknown | Code::Internal | Code::Unavailable | Code::Cancelled)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reset_stream_is_a_transport_failure_and_a_sent_status_is_not() {
        let mut reset = Status::cancelled("operation was canceled");
        assert!(!is_transport_failure(&reset), "a status the peer sent, no source");
        reset.set_source(std::sync::Arc::new(std::io::Error::other("stream reset")));
        assert!(is_transport_failure(&reset));
        let mut refused = Status::failed_precondition("game over");
        refused.set_source(std::sync::Arc::new(std::io::Error::other("x")));
        assert!(!is_transport_failure(&refused));
    }

    #[test]
    fn messages_are_bounded_and_details_read_back() {
        let huge = "é".repeat(1 << 19);
        let s = refuse(Code::InvalidArgument, format!("unknown option {huge}"));
        assert!(s.message().len() <= MAX_MESSAGE_BYTES && s.message().ends_with("..."));
        let quoted = clip(&huge);
        assert!(quoted.len() < 120 && quoted.ends_with("(1048576 bytes)"), "{quoted}");
        assert_eq!(clip("ab"), "\"ab\"");
        let reused = key_reused(7);
        assert_eq!(reused.code(), Code::AlreadyExists);
        assert!(reused.message().contains("version 7"));
        let info = reused.get_details_error_info().unwrap();
        assert_eq!((info.reason.as_str(), info.domain.as_str()), (REASON_KEY_REUSED, ERROR_DOMAIN));
        assert_eq!(key_reused_of(&reused), Some(7));
        let bad = bad_field("match_id".into(), "m".into());
        assert_eq!(bad_field_of(&bad), Some(("match_id".into(), "m".into())));
        let v = &bad.get_details_bad_request().unwrap().field_violations[0];
        assert_eq!((v.field.as_str(), bad.code()), ("match_id", Code::InvalidArgument));
        let refused = rules_refusal(Code::FailedPrecondition, "not_your_turn", "x");
        assert_eq!(refused.get_details_error_info().unwrap().reason, "not_your_turn");
        assert_eq!(refused.message(), "not_your_turn: x");
        assert_eq!(refused.metadata().get(ERROR_CODE_KEY).unwrap(), "not_your_turn");
        assert_eq!(rules_refusal_of(&refused), Some(("not_your_turn", "x")));
        assert_eq!(rules_refusal_of(&Status::failed_precondition("full")), None);
    }

    #[test]
    fn internal_errors_say_nothing_inside() {
        let s = internal("seed 1234 in state");
        assert_eq!(s.code(), Code::Internal);
        assert!(!s.message().contains("1234"));
        let s = unavailable("redis at 10.0.0.7");
        assert_eq!(s.code(), Code::Unavailable);
        assert!(!s.message().contains("10.0.0.7"));
    }

    #[test]
    fn transport_failures_are_told_from_answers() {
        // As tonic makes them: a status from a local error (a broken connection).
        let broken = Status::from_error(Box::new(std::io::Error::new(
            std::io::ErrorKind::ConnectionReset,
            "connection reset",
        )));
        assert_eq!(broken.code(), Code::Unknown);
        assert!(is_transport_failure(&broken));
        // Sent by the callee (no source).
        assert!(!is_transport_failure(&Status::unknown("a bug")));
        assert!(!is_transport_failure(&Status::unavailable("down")));
    }
}
