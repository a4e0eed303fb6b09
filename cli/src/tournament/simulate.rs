//! `colosseum tournament simulate`: a whole event in process, random results from a seed,
//! each round's pairing timed; prints a JSON summary (pairing time per round p50 and max,
//! rematches, double byes, seat imbalance). `--events K` plays K events (seeds S..S+K) for
//! long runs (100,000 rounds), with a progress bar.

use clap::Args;
use serde_json::json;
use std::process::ExitCode;
use std::time::Instant;

/// Options of `colosseum tournament simulate`.
#[derive(Args)]
pub struct SimulateArgs {
    /// swiss, round-robin, double-round-robin, knockout or arena.
    #[arg(long, default_value = "swiss")]
    format: String,
    /// Entrants.
    #[arg(long, default_value_t = 64)]
    players: u32,
    /// Swiss rounds.
    #[arg(long, default_value_t = 6)]
    rounds: u32,
    /// Arena minutes (one wave of games per minute).
    #[arg(long, default_value_t = 10)]
    minutes: u64,
    /// Knockout: a draw sends the higher seed through (default: replayed).
    #[arg(long)]
    higher_seed: bool,
    /// The first event's seed (results and ratings).
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// How many events to play, seeds one after another.
    #[arg(long, default_value_t = 1)]
    events: u64,
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

/// Runs the simulation.
pub fn run(args: &SimulateArgs) -> Result<ExitCode, String> {
    let format = tournament_rules::Format::from_words(&tournament_rules::Words {
        name: &args.format,
        rounds: args.rounds,
        duration_ms: args.minutes * 60_000,
        higher_seed: args.higher_seed,
    })?;
    let bar = (args.events > 1).then(|| {
        crate::progress::bar(
            args.events,
            "{bar:40} {pos}/{len} events, {elapsed} ({eta} left)",
            "events",
        )
    });
    let mut pair_ms: Vec<f64> = Vec::new();
    let (mut rounds, mut games, mut rematches, mut double_byes) = (0u64, 0u64, 0u64, 0u64);
    let (mut max_imbalance, mut relaxations) = (0u32, 0u64);
    for e in 0..args.events {
        let seed = args.seed + e;
        // Ratings from the seed too, so seeding differs between events.
        let entrants = (0..args.players)
            .map(|i| tournament_rules::Entrant {
                rating: Some(
                    1000.0 + f64::from((i.wrapping_mul(2_654_435_761) ^ seed as u32) % 1500),
                ),
            })
            .collect();
        let (_, report) = tournament_rules::simulate(format, entrants, seed, |t| {
            #[allow(clippy::disallowed_methods)] // The CLI measures pairing time.
            let t0 = Instant::now();
            let p = t.pair_round();
            pair_ms.push(t0.elapsed().as_secs_f64() * 1000.0);
            p
        })
        .map_err(|e| format!("event {e} (seed {seed}): {e}"))?;
        rounds += u64::from(report.rounds);
        games += u64::from(report.games);
        rematches += u64::from(report.rematches);
        double_byes += u64::from(report.double_byes);
        max_imbalance = max_imbalance.max(report.max_seat_imbalance);
        relaxations += u64::from(report.seat_relaxations);
        if let Some(b) = &bar {
            b.inc(1);
        }
    }
    if let Some(b) = bar {
        b.finish_and_clear();
    }
    pair_ms.sort_by(f64::total_cmp);
    let summary = json!({
        "format": args.format,
        "players": args.players,
        "events": args.events,
        "rounds": rounds,
        "games": games,
        "pairing_ms": {
            "p50": percentile(&pair_ms, 0.5),
            "p99": percentile(&pair_ms, 0.99),
            "max": pair_ms.last().copied().unwrap_or(0.0),
        },
        "rematches": rematches,
        "double_byes": double_byes,
        "max_seat_imbalance": max_imbalance,
        "seat_relaxations": relaxations,
    });
    println!("{}", serde_json::to_string_pretty(&summary).map_err(|e| e.to_string())?);
    Ok(if rematches == 0 && double_byes == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE })
}
