//! Criterion benchmarks of one pairing pass over a busy queue: 1,000 and 10,000 tickets with
//! ratings roughly normal around 1500 and waits spread over 0 to 120 s.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use ladder::{Candidate, pass};
use std::hint::black_box;

/// SplitMix64: a tiny deterministic generator, so every run benchmarks the same queue.
struct SplitMix(u64);

impl SplitMix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const NOW_MS: u64 = 1_000_000;

/// `n` tickets of distinct players: ratings the sum of four uniforms (roughly normal, mean 1500,
/// standard deviation about 350), waits uniform over 0 to 120 s.
fn queue(n: u32, seed: u64) -> Vec<Candidate<u32>> {
    let mut rng = SplitMix(seed);
    (0..n)
        .map(|id| {
            let sum: f64 = (0..4).map(|_| rng.unit()).sum();
            Candidate {
                id,
                player: u128::from(id),
                rating: 1500.0 + (sum - 2.0) * 600.0,
                since_ms: NOW_MS - rng.next() % 120_000,
            }
        })
        .collect()
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("pass");
    for n in [1_000, 10_000] {
        let q = queue(n, 42);
        g.bench_with_input(BenchmarkId::from_parameter(n), &q, |b, q| {
            b.iter(|| pass(black_box(q), NOW_MS))
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
