//! OpenTelemetry: one move is one trace across services. A client sends a `traceparent`;
//! the gateway's `submit_move` span and the rules engine's `apply_step` span are exported
//! in that trace, the engine's under the gateway's, and the opponent's watch stream carries
//! the same trace id with the move's events.

use cluster_tests::{Env, gops};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider};
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_is_one_trace_from_gateway_to_engine_to_watcher() {
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder().with_simple_exporter(exporter.clone()).build();
    tracing_subscriber::registry()
        .with(tracing_subscriber::EnvFilter::new("info"))
        .with(service_kit::telemetry::otel_layer("colosseum-test", provider))
        .init();

    let env = Env::start().await;
    let a = env.player("a").await;
    let b = env.player("b").await;
    let id = a.create_open("gops", "", 60_000).await;
    b.join(&id).await.unwrap();
    let mut watch = b.watch(&id, 0).await.unwrap();

    let trace_id = "4bf92f3577b34da6a3ce929d0e0e4736";
    let mut req = a.client.request(api::v1::SubmitMoveRequest {
        match_id: id.clone(),
        r#move: Some(gops(13)),
        idempotency_key: a.key(),
    });
    req.metadata_mut()
        .insert("traceparent", format!("00-{trace_id}-00f067aa0ba902b7-01").parse().unwrap());
    let version =
        cluster_tests::accepted(a.client.api().submit_move(req).await.unwrap().into_inner())
            .unwrap();

    // The opponent's stream carries the trace with the move's events.
    let mut carried = None;
    while let Some(e) = watch.message().await.unwrap() {
        if e.version == version {
            carried = Some(e.traceparent);
            break;
        }
    }
    let carried = carried.expect("the move reached the opponent");
    assert!(carried.starts_with(&format!("00-{trace_id}-")), "{carried}");

    let spans = exporter.get_finished_spans().unwrap();
    let in_trace: Vec<_> =
        spans.iter().filter(|s| hex(s.span_context.trace_id().to_bytes()) == trace_id).collect();
    let gateway = in_trace
        .iter()
        .find(|s| s.name == "submit_move")
        .expect("the gateway's span is in the trace");
    let engine = in_trace
        .iter()
        .find(|s| s.name == "apply_step")
        .expect("the engine's span is in the trace");
    assert_eq!(
        engine.parent_span_id,
        gateway.span_context.span_id(),
        "the engine's span hangs under the gateway's"
    );
    assert_eq!(
        hex(gateway.parent_span_id.to_bytes()),
        "00f067aa0ba902b7",
        "the gateway's span hangs under the client's"
    );
    // The watchers' traceparent names the engine's span, which produced the events.
    assert!(carried.contains(&hex(engine.span_context.span_id().to_bytes())), "{carried}");
    env.shutdown().await;
}

fn hex(b: impl AsRef<[u8]>) -> String {
    b.as_ref().iter().map(|x| format!("{x:02x}")).collect()
}
