//! Criterion benchmarks of what a metric costs its caller on a hot path (each move counts
//! and times several: the edge's request counter and latency, the engine's step timer, the
//! store's call timers): a labelled counter, a labelled histogram observation and a
//! `Timer` with two labels, started and dropped, each on a series used before.

use criterion::{Criterion, criterion_group, criterion_main};
use service_kit::metrics::{Timer, add_with, observe};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("metrics");
    let method = "/colosseum.v1.ColosseumService/SubmitMove";
    g.bench_function("counter_with_two_labels", |b| {
        b.iter(|| {
            add_with(
                "colosseum_bench_requests_total",
                &[("method", black_box(method)), ("code", "OK")],
                1,
            );
        });
    });
    g.bench_function("histogram_with_one_label", |b| {
        b.iter(|| {
            observe("colosseum_bench_seconds", &[("method", black_box(method))], 0.003);
        });
    });
    g.bench_function("timer_with_two_labels", |b| {
        b.iter(|| {
            let labels = [("step", "move"), ("game", black_box("gops"))];
            drop(Timer::start("colosseum_bench_step_seconds", &labels));
        });
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
