//! Criterion benchmarks of one Swiss round's pairing (`Tournament::pair_round`) for 500 and
//! 10,000 players, after prior rounds with random results: the third round (after two games,
//! everyone's seat preference mild) and the fourth (after three, everyone bound by the seat
//! rule), the two kinds of round the pairing meets.

use criterion::{BenchmarkId, Criterion, criterion_group, criterion_main};
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::hint::black_box;
use tournament_rules::{Entrant, Format, Tournament, play_round};

/// A Swiss of `n` players with ratings spread over 1000 to 2500 (a tenth unrated), `played`
/// rounds paired and played with results from a fixed seed.
fn event(n: u32, played: u32) -> Tournament {
    let entrants = (0..n)
        .map(|i| Entrant { rating: (i % 10 != 0).then(|| 1000.0 + f64::from(i * 7919 % 1500)) })
        .collect();
    let mut t =
        Tournament::new(Format::Swiss(tournament_rules::Swiss { rounds: 9 }), entrants).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(42);
    for _ in 0..played {
        let pairing = t.pair_round().unwrap();
        play_round(&mut t, &pairing, &mut rng).unwrap();
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("swiss_pair_round");
    g.sample_size(10);
    for n in [500, 10_000] {
        for played in [2, 3] {
            let t = event(n, played);
            let id = BenchmarkId::new(format!("round{}", played + 1), n);
            g.bench_with_input(id, &t, |b, t| b.iter(|| black_box(t).pair_round().unwrap()));
        }
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
