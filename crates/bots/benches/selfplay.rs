//! Criterion benchmarks of whole random matches (the selfplay hot loop), with a bare
//! ChaCha8 draw loop as the in-run baseline for ratios.

use bots::{BotRng, RandomBot, selfplay};
use criterion::{Criterion, criterion_group, criterion_main};
use rules_goofspiel::{DuelingMonsters, DuelingMonstersOptions, Gops, GopsOptions};
use std::hint::black_box;

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("random_match");
    g.bench_function("baseline_52_rng_draws", |b| {
        let mut rng = BotRng::from_seed([7; 32]);
        b.iter(|| {
            let mut acc = 0u32;
            for _ in 0..52 {
                acc = acc.wrapping_add(rng.below(13));
            }
            black_box(acc)
        })
    });
    let gops = GopsOptions::default();
    g.bench_function("gops13", |b| {
        b.iter(|| {
            selfplay::run::<Gops>(&gops, 1, [1; 32], &mut RandomBot, &mut RandomBot, 0, &mut |_| {})
                .unwrap()
        })
    });
    let dm = DuelingMonstersOptions::default();
    g.bench_function("dueling_monsters", |b| {
        b.iter(|| {
            selfplay::run::<DuelingMonsters>(
                &dm,
                1,
                [1; 32],
                &mut RandomBot,
                &mut RandomBot,
                0,
                &mut |_| {},
            )
            .unwrap()
        })
    });
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
