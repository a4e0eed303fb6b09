//! The mechanics every service's error match calls to build a gRPC status, so each code,
//! `google.rpc.ErrorInfo` reason (domain [`ERROR_DOMAIN`]) and message bound is written
//! once. Each service decides which status an error is in its own exhaustive match; here
//! only is a status built. Unexpected errors are logged here and answered generically, so
//! no internal detail (or hidden card) reaches a client; every message is bounded, so no
//! input echoed in one can outgrow an HTTP/2 header block.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, StatusExt};

/// The metadata key carrying a rules refusal's conformance code (`illegal_move`...): the
/// conformance format's own lower-case spelling, where the ErrorInfo reason is its
/// upper-case form (`ILLEGAL_MOVE`).
pub const ERROR_CODE_KEY: &str = "colosseum-error-code";

/// The `google.rpc.ErrorInfo` domain of every Colosseum refusal.
pub const ERROR_DOMAIN: &str = "colosseum.v1";

/// Every `google.rpc.ErrorInfo` reason Colosseum answers: one closed set, spelled as
/// AIP-193 has it (UPPER_SNAKE_CASE, domain [`ERROR_DOMAIN`]), each listed in the header of
/// the proto that documents it (colosseum.proto, lobby.proto, tournaments.proto; a unit
/// test compares the two). No reason is written anywhere as a string literal.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Reason {
    /// The rules refused a move: the match is over (FAILED_PRECONDITION).
    GameOver,
    /// The rules refused a move: the seat owes none now (FAILED_PRECONDITION).
    NotYourTurn,
    /// The rules refused a move: against the rules (FAILED_PRECONDITION).
    IllegalMove,
    /// The rules refused a move: not a move of this game (INVALID_ARGUMENT).
    BadMove,
    /// One malformed field (INVALID_ARGUMENT); metadata `field` names it.
    InvalidField,
    /// SubmitMove's key was used for another move (ALREADY_EXISTS); metadata `version`.
    IdempotencyKeyReused,
    /// The request message is over its method's limit (RESOURCE_EXHAUSTED); metadata
    /// `limit_bytes`.
    MessageTooLarge,
    /// Login's email and password name no account (UNAUTHENTICATED).
    BadCredentials,
    /// Too many attempts (RESOURCE_EXHAUSTED); metadata `retry_after_ms`.
    RateLimited,
    /// Register's email has an account (ALREADY_EXISTS).
    EmailTaken,
    /// A guest asked for rated play (PERMISSION_DENIED).
    AccountRequired,
    /// A live ticket in that queue under another key (ALREADY_EXISTS); metadata
    /// `ticket_id`.
    TicketLive,
    /// The API key lacks the call's scope (PERMISSION_DENIED); metadata `scope`.
    ScopeMissing,
    /// CreateMatches refused the whole call (INVALID_ARGUMENT); metadata `bad_entries`.
    BadEntries,
    /// StartRound while a round is unfinished (FAILED_PRECONDITION).
    RoundRunning,
    /// The tournament has ended (FAILED_PRECONDITION).
    TournamentOver,
    /// StartRound on a paused tournament (FAILED_PRECONDITION).
    Paused,
    /// Any other refusal: the name of its status code (see [`Reason::of_code`]).
    Code(PlainCode),
}

/// The status codes a refusal with no more specific [`Reason`] carries as its reason.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum PlainCode {
    /// CANCELLED.
    Cancelled,
    /// INVALID_ARGUMENT: another malformed request (unknown game, bad options...).
    InvalidArgument,
    /// NOT_FOUND.
    NotFound,
    /// ALREADY_EXISTS: an idempotency key used for another request.
    AlreadyExists,
    /// PERMISSION_DENIED.
    PermissionDenied,
    /// RESOURCE_EXHAUSTED.
    ResourceExhausted,
    /// FAILED_PRECONDITION.
    FailedPrecondition,
    /// ABORTED.
    Aborted,
    /// UNAVAILABLE.
    Unavailable,
    /// INTERNAL (also for a refusal made with a code no refusal uses: a bug).
    Internal,
    /// UNAUTHENTICATED.
    Unauthenticated,
}

impl Reason {
    /// Every reason, in the order the protos list them.
    pub const ALL: &'static [Reason] = &[
        Reason::GameOver,
        Reason::NotYourTurn,
        Reason::IllegalMove,
        Reason::BadMove,
        Reason::InvalidField,
        Reason::IdempotencyKeyReused,
        Reason::MessageTooLarge,
        Reason::Code(PlainCode::Cancelled),
        Reason::Code(PlainCode::InvalidArgument),
        Reason::Code(PlainCode::NotFound),
        Reason::Code(PlainCode::AlreadyExists),
        Reason::Code(PlainCode::PermissionDenied),
        Reason::Code(PlainCode::ResourceExhausted),
        Reason::Code(PlainCode::FailedPrecondition),
        Reason::Code(PlainCode::Aborted),
        Reason::Code(PlainCode::Unavailable),
        Reason::Code(PlainCode::Internal),
        Reason::Code(PlainCode::Unauthenticated),
        Reason::BadCredentials,
        Reason::RateLimited,
        Reason::EmailTaken,
        Reason::AccountRequired,
        Reason::TicketLive,
        Reason::ScopeMissing,
        Reason::BadEntries,
        Reason::RoundRunning,
        Reason::TournamentOver,
        Reason::Paused,
    ];

    /// The reason as sent (`INVALID_FIELD`).
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::GameOver => "GAME_OVER",
            Reason::NotYourTurn => "NOT_YOUR_TURN",
            Reason::IllegalMove => "ILLEGAL_MOVE",
            Reason::BadMove => "BAD_MOVE",
            Reason::InvalidField => "INVALID_FIELD",
            Reason::IdempotencyKeyReused => "IDEMPOTENCY_KEY_REUSED",
            Reason::MessageTooLarge => "MESSAGE_TOO_LARGE",
            Reason::BadCredentials => "BAD_CREDENTIALS",
            Reason::RateLimited => "RATE_LIMITED",
            Reason::EmailTaken => "EMAIL_TAKEN",
            Reason::AccountRequired => "ACCOUNT_REQUIRED",
            Reason::TicketLive => "TICKET_LIVE",
            Reason::ScopeMissing => "SCOPE_MISSING",
            Reason::BadEntries => "BAD_ENTRIES",
            Reason::RoundRunning => "ROUND_RUNNING",
            Reason::TournamentOver => "TOURNAMENT_OVER",
            Reason::Paused => "PAUSED",
            Reason::Code(c) => code_name(c.code()),
        }
    }

    /// The reason of a plain refusal with `code`: the code's own name.
    pub fn of_code(code: Code) -> Reason {
        Reason::Code(match code {
            Code::Cancelled => PlainCode::Cancelled,
            Code::InvalidArgument => PlainCode::InvalidArgument,
            Code::NotFound => PlainCode::NotFound,
            Code::AlreadyExists => PlainCode::AlreadyExists,
            Code::PermissionDenied => PlainCode::PermissionDenied,
            Code::ResourceExhausted => PlainCode::ResourceExhausted,
            Code::FailedPrecondition => PlainCode::FailedPrecondition,
            Code::Aborted => PlainCode::Aborted,
            Code::Unavailable => PlainCode::Unavailable,
            Code::Unauthenticated => PlainCode::Unauthenticated,
            // No refusal is made with these: one that is is a bug, told as one.
            Code::Ok
            | Code::Unknown
            | Code::DeadlineExceeded
            | Code::OutOfRange
            | Code::Unimplemented
            | Code::Internal
            | Code::DataLoss => PlainCode::Internal,
        })
    }

    /// The reason a status's ErrorInfo carries, if it is one of ours (either case: a
    /// service of an older release may still send the lower-case spelling).
    pub fn parse(reason: &str) -> Option<Reason> {
        Reason::ALL.iter().copied().find(|r| r.as_str().eq_ignore_ascii_case(reason))
    }
}

impl PlainCode {
    /// The status code.
    pub fn code(self) -> Code {
        match self {
            PlainCode::Cancelled => Code::Cancelled,
            PlainCode::InvalidArgument => Code::InvalidArgument,
            PlainCode::NotFound => Code::NotFound,
            PlainCode::AlreadyExists => Code::AlreadyExists,
            PlainCode::PermissionDenied => Code::PermissionDenied,
            PlainCode::ResourceExhausted => Code::ResourceExhausted,
            PlainCode::FailedPrecondition => Code::FailedPrecondition,
            PlainCode::Aborted => Code::Aborted,
            PlainCode::Unavailable => Code::Unavailable,
            PlainCode::Internal => Code::Internal,
            PlainCode::Unauthenticated => Code::Unauthenticated,
        }
    }
}

impl std::fmt::Display for Reason {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The reason of a status's ErrorInfo, if it carries one of ours.
pub fn reason_of_status(s: &Status) -> Option<Reason> {
    let details = s.get_error_details();
    let info = details.error_info()?;
    (info.domain == ERROR_DOMAIN).then(|| Reason::parse(&info.reason))?
}

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
    reason: Reason,
    metadata: &[(&str, String)],
    extra: impl FnOnce(&mut ErrorDetails),
) -> Status {
    let metadata: std::collections::HashMap<String, String> =
        metadata.iter().map(|(k, v)| ((*k).to_string(), v.clone())).collect();
    let mut details = ErrorDetails::new();
    details.set_error_info(reason.as_str(), ERROR_DOMAIN, metadata);
    extra(&mut details);
    Status::with_error_details(code, truncate(message.into(), MAX_MESSAGE_BYTES), details)
}

/// A refusal with `code` and `message`, its ErrorInfo reason the code's own name
/// (`NOT_FOUND`, `FAILED_PRECONDITION`...): what a caller can act on, told as it is.
pub fn refuse(code: Code, message: impl Into<String>) -> Status {
    refusal_status(code, message, Reason::of_code(code), &[], |_| {})
}

/// A refusal with `code`, `message` and a reason of its own (no metadata).
pub fn refuse_with(code: Code, reason: Reason, message: impl Into<String>) -> Status {
    refusal_status(code, message, reason, &[], |_| {})
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

/// INVALID_ARGUMENT for one malformed `field` (too long, not a UUID...), with a
/// `google.rpc.BadRequest` naming it (reason `INVALID_FIELD`, the field in its metadata).
pub fn bad_field(field: String, message: String) -> Status {
    let description = truncate(message.clone(), MAX_MESSAGE_BYTES);
    let meta = [("field", field.clone())];
    refusal_status(Code::InvalidArgument, message, Reason::InvalidField, &meta, |d| {
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
    refusal_status(Code::AlreadyExists, message, Reason::IdempotencyKeyReused, &meta, |_| {})
}

/// The version of a [`key_reused`] status, as a callee sent it.
pub fn key_reused_of(s: &Status) -> Option<u64> {
    if s.code() != Code::AlreadyExists {
        return None;
    }
    if reason_of_status(s) != Some(Reason::IdempotencyKeyReused) {
        return None;
    }
    s.get_error_details().error_info()?.metadata.get("version")?.parse().ok()
}

/// A rules refusal: `code` (the rules' choice), message `<conformance>: <message>`, the
/// conformance code (`illegal_move`, as the conformance format spells it) in
/// [`ERROR_CODE_KEY`] and `reason` (its upper-case form) as the ErrorInfo reason.
pub fn rules_refusal(code: Code, reason: Reason, conformance: &str, message: &str) -> Status {
    let mut s = refusal_status(code, format!("{conformance}: {message}"), reason, &[], |_| {});
    if let Ok(v) = conformance.parse() {
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
        assert_eq!(
            (info.reason.as_str(), info.domain.as_str()),
            ("IDEMPOTENCY_KEY_REUSED", ERROR_DOMAIN)
        );
        assert_eq!(key_reused_of(&reused), Some(7));
        let bad = bad_field("match_id".into(), "m".into());
        assert_eq!(bad_field_of(&bad), Some(("match_id".into(), "m".into())));
        let v = &bad.get_details_bad_request().unwrap().field_violations[0];
        assert_eq!((v.field.as_str(), bad.code()), ("match_id", Code::InvalidArgument));
        let refused =
            rules_refusal(Code::FailedPrecondition, Reason::NotYourTurn, "not_your_turn", "x");
        assert_eq!(refused.get_details_error_info().unwrap().reason, "NOT_YOUR_TURN");
        assert_eq!(refused.message(), "not_your_turn: x");
        assert_eq!(refused.metadata().get(ERROR_CODE_KEY).unwrap(), "not_your_turn");
        assert_eq!(rules_refusal_of(&refused), Some(("not_your_turn", "x")));
        assert_eq!(rules_refusal_of(&Status::failed_precondition("full")), None);
    }

    /// The reasons the proto headers list: every backquoted UPPER_SNAKE_CASE word in the
    /// comment above `syntax` of each public proto that documents reasons.
    fn proto_reasons() -> std::collections::BTreeSet<String> {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proto/colosseum/v1");
        let mut out = std::collections::BTreeSet::new();
        for file in ["colosseum.proto", "lobby.proto", "tournaments.proto"] {
            let text = std::fs::read_to_string(format!("{dir}/{file}")).expect("the proto");
            let header = text.split("\nsyntax").next().expect("a header");
            for quoted in header.split('`').skip(1).step_by(2) {
                let upper = quoted.chars().all(|c| c.is_ascii_uppercase() || c == '_');
                if upper && quoted.len() > 1 {
                    assert!(out.insert(quoted.to_string()), "{quoted} listed twice");
                }
            }
        }
        out
    }

    #[test]
    fn the_reasons_are_the_protos_list_spelled_as_aip_193_says() {
        let ours: std::collections::BTreeSet<String> =
            Reason::ALL.iter().map(|r| r.as_str().to_string()).collect();
        assert_eq!(ours.len(), Reason::ALL.len(), "each reason once");
        assert_eq!(ours, proto_reasons(), "Reason::ALL against the proto headers");
        for r in Reason::ALL {
            let s = r.as_str();
            assert!(s.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{s}");
            assert_eq!(Reason::parse(s), Some(*r));
            assert_eq!(Reason::parse(&s.to_ascii_lowercase()), Some(*r), "an older spelling");
            if let Reason::Code(c) = r {
                assert_eq!(s, code_name(c.code()), "a plain reason is its code's name");
                assert_eq!(Reason::of_code(c.code()), *r);
            }
        }
        // The rules' reasons are the conformance codes, upper-cased.
        for (reason, code) in [
            (Reason::GameOver, "game_over"),
            (Reason::NotYourTurn, "not_your_turn"),
            (Reason::IllegalMove, "illegal_move"),
            (Reason::BadMove, "bad_move"),
        ] {
            assert_eq!(reason.as_str(), code.to_ascii_uppercase());
        }
        let s = refuse(Code::NotFound, "no such match");
        assert_eq!(reason_of_status(&s), Some(Reason::Code(PlainCode::NotFound)));
        assert_eq!(s.get_details_error_info().unwrap().reason, "NOT_FOUND");
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
