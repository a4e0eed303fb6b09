//! Criterion benchmarks of whole random matches (the selfplay hot loop), with a bare
//! ChaCha8 draw loop as the in-run baseline for ratios, and the strong Dueling Monsters
//! bot against random beside the random match of that game.

use bots::dueling_monsters::StrongBot;
use bots::{BotRng, RandomBot, selfplay};
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use rules_goofspiel::{DuelingMonsters, DuelingMonstersOptions, Gops, GopsOptions};
use std::hint::black_box;

/// Matches per iteration of the GOPS throughput benchmark.
const MATCHES: u64 = 1_000;
/// Matches per iteration of the strong Dueling Monsters bot's benchmark (one match is
/// too few: its length, and so its cost, varies from match to match).
const STRONG_MATCHES: u64 = 100;

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
    // A thousand matches per iteration, as `colosseum selfplay` plays them (one bot RNG
    // and one master seed stream for the lot): throughput is matches per second.
    let gops = GopsOptions::default();
    g.throughput(Throughput::Elements(MATCHES));
    g.bench_function("gops13_x1000", |b| {
        b.iter(|| {
            selfplay::run::<Gops, _, _>(
                &gops,
                MATCHES,
                [1; 32],
                &mut RandomBot,
                &mut RandomBot,
                0,
                &mut |_| {},
            )
            .unwrap()
        })
    });
    g.throughput(Throughput::Elements(1));
    let dm = DuelingMonstersOptions::default();
    g.bench_function("dueling_monsters", |b| {
        b.iter(|| {
            selfplay::run::<DuelingMonsters, _, _>(
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
    // Strong against random, seats alternating: a solved 27 x 27 matrix game per move of
    // the strong seat.
    let mut strong = StrongBot::new();
    g.throughput(Throughput::Elements(STRONG_MATCHES));
    g.bench_function("dueling_monsters_strong_vs_random_x100", |b| {
        b.iter(|| {
            selfplay::run::<DuelingMonsters, _, _>(
                &dm,
                STRONG_MATCHES,
                [1; 32],
                &mut strong,
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
