//! Structured logs, W3C trace context and OpenTelemetry. Every service logs `tracing`
//! lines (JSON when `LOG_FORMAT=json`, compact text otherwise) and carries a
//! `traceparent` through gRPC metadata and inside stream events. With
//! `OTEL_EXPORTER_OTLP_ENDPOINT` set, request spans are exported over OTLP/gRPC, each
//! adopting the incoming trace context as its parent, so one move is one trace across the
//! gateway and the rules engine.

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use std::cell::RefCell;
use std::fmt;
use tonic::metadata::MetadataMap;

/// Starts logging for a service: `RUST_LOG` filters (default `info`), `LOG_FORMAT=json`
/// switches to one JSON object per line, `OTEL_EXPORTER_OTLP_ENDPOINT` (e.g.
/// `http://collector:4317`) adds span export over OTLP/gRPC. Safe to call twice (the second
/// call is ignored).
pub fn init(service: &'static str) {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let json = crate::config::string("LOG_FORMAT", "text") == "json";
    let (text, structured) = if json {
        (None, Some(tracing_subscriber::fmt::layer().json().with_target(false)))
    } else {
        (Some(tracing_subscriber::fmt::layer().compact().with_target(false)), None)
    };
    let otel = crate::config::optional("OTEL_EXPORTER_OTLP_ENDPOINT").and_then(|endpoint| {
        match opentelemetry_otlp::SpanExporter::builder().with_tonic().build() {
            Ok(exporter) => {
                let provider = opentelemetry_sdk::trace::SdkTracerProvider::builder()
                    .with_batch_exporter(exporter)
                    .with_resource(
                        opentelemetry_sdk::Resource::builder().with_service_name(service).build(),
                    )
                    .build();
                eprintln!("exporting spans over OTLP to {endpoint}");
                Some(otel_layer(service, provider))
            }
            Err(e) => {
                eprintln!("OpenTelemetry export to {endpoint} is off: {e}");
                None
            }
        }
    });
    let done = tracing_subscriber::registry()
        .with(filter)
        .with(text)
        .with(structured)
        .with(otel)
        .try_init();
    if done.is_ok() {
        tracing::info!(service, "logging started");
    }
}

/// A `tracing` layer that turns spans into OpenTelemetry spans of `provider` (which also
/// becomes the global provider).
pub fn otel_layer<S>(
    service: &'static str,
    provider: opentelemetry_sdk::trace::SdkTracerProvider,
) -> impl tracing_subscriber::Layer<S>
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    use opentelemetry::trace::TracerProvider;
    let tracer = provider.tracer(service);
    opentelemetry::global::set_tracer_provider(provider);
    tracing_opentelemetry::layer().with_tracer(tracer)
}

/// Makes `span` a child of `ctx` in OpenTelemetry (a no-op when nothing exports spans),
/// and returns the context to pass on: the span's own when it is exported, so the next
/// service's span hangs under it; else a child of `ctx`.
pub fn adopt(span: &tracing::Span, ctx: &TraceContext) -> TraceContext {
    use opentelemetry::trace::{
        SpanContext, SpanId, TraceContextExt, TraceFlags, TraceId, TraceState,
    };
    use tracing_opentelemetry::OpenTelemetrySpanExt;
    let parent = SpanContext::new(
        TraceId::from_bytes(ctx.trace_id),
        SpanId::from_bytes(ctx.span_id),
        TraceFlags::new(ctx.flags),
        true,
        TraceState::default(),
    );
    let _ = span.set_parent(opentelemetry::Context::new().with_remote_span_context(parent));
    let own = span.context().span().span_context().clone();
    if own.is_valid() && own.trace_id().to_bytes() == ctx.trace_id {
        TraceContext { trace_id: ctx.trace_id, span_id: own.span_id().to_bytes(), flags: ctx.flags }
    } else {
        ctx.child()
    }
}

thread_local! {
    static IDS: RefCell<ChaCha8Rng> = RefCell::new(ChaCha8Rng::from_seed(crate::time::os_random_32()));
}

/// A W3C trace context: `00-<trace id>-<parent span id>-<flags>`.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct TraceContext {
    /// The trace, shared by every span of one move.
    pub trace_id: [u8; 16],
    /// This span.
    pub span_id: [u8; 8],
    /// Trace flags (bit 0: sampled).
    pub flags: u8,
}

impl TraceContext {
    /// A new trace (sampled).
    pub fn root() -> Self {
        IDS.with(|r| {
            let mut r = r.borrow_mut();
            let mut trace_id = [0u8; 16];
            r.fill_bytes(&mut trace_id);
            let mut span_id = [0u8; 8];
            r.fill_bytes(&mut span_id);
            TraceContext { trace_id, span_id, flags: 1 }
        })
    }

    /// A child span in the same trace.
    pub fn child(&self) -> Self {
        let mut span_id = [0u8; 8];
        IDS.with(|r| r.borrow_mut().fill_bytes(&mut span_id));
        TraceContext { span_id, ..*self }
    }

    /// Parses a `traceparent` header value; `None` if malformed (W3C: then start anew).
    pub fn parse(s: &str) -> Option<Self> {
        let parts: Vec<&str> = s.trim().split('-').collect();
        let [version, trace, span, flags] = parts.as_slice() else { return None };
        if *version != "00" || trace.len() != 32 || span.len() != 16 || flags.len() != 2 {
            return None;
        }
        let mut trace_id = [0u8; 16];
        hex::decode_to_slice(trace, &mut trace_id).ok()?;
        let mut span_id = [0u8; 8];
        hex::decode_to_slice(span, &mut span_id).ok()?;
        let flags = u8::from_str_radix(flags, 16).ok()?;
        if trace_id == [0; 16] || span_id == [0; 8] {
            return None;
        }
        Some(TraceContext { trace_id, span_id, flags })
    }

    /// The trace id in hex (for logs).
    pub fn trace_hex(&self) -> String {
        hex::encode(self.trace_id)
    }

    /// The caller's context from `traceparent` in gRPC metadata (the parent of this
    /// request's span: pass it to `adopt`), or a new trace.
    pub fn from_metadata(m: &MetadataMap) -> Self {
        m.get("traceparent")
            .and_then(|v| v.to_str().ok())
            .and_then(Self::parse)
            .unwrap_or_else(Self::root)
    }

    /// Writes this context as `traceparent` into outgoing gRPC metadata.
    pub fn inject(&self, m: &mut MetadataMap) {
        if let Ok(v) = self.to_string().parse() {
            m.insert("traceparent", v);
        }
    }
}

impl fmt::Display for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "00-{}-{}-{:02x}",
            hex::encode(self.trace_id),
            hex::encode(self.span_id),
            self.flags
        )
    }
}

impl fmt::Debug for TraceContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn traceparent_round_trips_and_children_share_the_trace() {
        let root = TraceContext::root();
        let parsed = TraceContext::parse(&root.to_string()).unwrap();
        assert_eq!(parsed, root);
        let child = root.child();
        assert_eq!(child.trace_id, root.trace_id);
        assert_ne!(child.span_id, root.span_id);
        let mut m = MetadataMap::new();
        root.inject(&mut m);
        let next = TraceContext::from_metadata(&m);
        assert_eq!(next, root);
    }

    #[test]
    fn malformed_traceparents_are_refused() {
        for bad in [
            "",
            "01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-zz-00f067aa0ba902b7-01",
        ] {
            assert!(TraceContext::parse(bad).is_none(), "{bad}");
        }
        assert!(
            TraceContext::parse("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .is_some()
        );
    }
}
