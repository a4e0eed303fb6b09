//! `colosseum selfplay`: bot against bot, as fast as one core goes, with a progress bar
//! on a terminal and a JSON summary on stdout.

use bots::selfplay;
use clap::Args;
use games::{Hostable, Visit};
use serde_json::json;
use std::process::ExitCode;

/// Options of `colosseum selfplay`.
#[derive(Args)]
pub struct SelfplayArgs {
    /// The game (see `colosseum games`).
    #[arg(long)]
    game: String,
    /// How many matches.
    #[arg(long, default_value_t = 1000)]
    matches: u64,
    /// Seed of the run: a number, or 16 to 64 hex digits. Match seeds derive from it.
    #[arg(long, default_value = "0")]
    seed: String,
    /// Bot A (default: "random", every game has one).
    #[arg(long, default_value = "random")]
    bot: String,
    /// Bot B (default: the same as bot A).
    #[arg(long)]
    vs: Option<String>,
    /// The game's options as JSON (default: all defaults).
    #[arg(long, default_value = "{}")]
    options: String,
}

/// The 95% Wilson score interval of a proportion.
pub fn wilson(successes: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (z, n_f) = (1.959_963_984_540_054_f64, n as f64);
    let p = successes as f64 / n_f;
    let denom = 1.0 + z * z / n_f;
    let centre = (p + z * z / (2.0 * n_f)) / denom;
    let half = z * (p * (1.0 - p) / n_f + z * z / (4.0 * n_f * n_f)).sqrt() / denom;
    (centre - half, centre + half)
}

fn parse_seed(s: &str) -> Result<[u8; 32], String> {
    let mut out = [0u8; 32];
    if let Ok(n) = s.parse::<u64>() {
        out[..8].copy_from_slice(&n.to_le_bytes());
        return Ok(out);
    }
    let seed = rules_core::Seed::parse(s).map_err(|e| format!("--seed: {e}"))?;
    out[..seed.as_bytes().len()].copy_from_slice(seed.as_bytes());
    Ok(out)
}

struct Run<'a>(&'a SelfplayArgs);

impl Visit for Run<'_> {
    type Out = Result<serde_json::Value, String>;
    fn visit<G: Hostable>(self) -> Self::Out {
        let args = self.0;
        let options: serde_json::Value =
            serde_json::from_str(&args.options).map_err(|e| format!("--options: {e}"))?;
        let options = games::parse::parse_options::<G>(&options).map_err(|e| e.to_string())?;
        let vs = args.vs.clone().unwrap_or_else(|| args.bot.clone());
        let unknown =
            |b: &str| format!("{} has no bot {b:?}; its bots are {}", G::NAME, G::BOTS.join(", "));
        let mut a = G::bot(&args.bot).ok_or_else(|| unknown(&args.bot))?;
        let mut b = G::bot(&vs).ok_or_else(|| unknown(&vs))?;
        let bar = crate::progress::bar(
            args.matches,
            "{spinner} {bar:40} {pos}/{len} matches ({per_sec}, eta {eta})",
            "matches",
        );
        let every = (args.matches / 200).max(1);
        // The CLI, not the rules, reads the clock.
        #[allow(clippy::disallowed_methods)]
        let started = std::time::Instant::now();
        let seed = parse_seed(&args.seed)?;
        let mut progress = |t: &selfplay::Tally| bar.set_position(t.matches);
        // Random against random, the rules' own speed test, with the bots' calls inlined;
        // any other pair through the roster's boxes. The same moves either way.
        let tally = if args.bot == "random" && vs == "random" {
            let mut r = bots::RandomBot;
            selfplay::run::<G, _, _>(
                &options,
                args.matches,
                seed,
                &mut r,
                &mut bots::RandomBot,
                every,
                &mut progress,
            )
        } else {
            selfplay::run::<G, _, _>(
                &options,
                args.matches,
                seed,
                a.as_mut(),
                b.as_mut(),
                every,
                &mut progress,
            )
        }
        .map_err(|e| e.to_string())?;
        let seconds = started.elapsed().as_secs_f64();
        bar.finish_and_clear();
        let (lo, hi) = wilson(tally.wins[0], tally.matches);
        let n = tally.matches.max(1) as f64;
        Ok(json!({
            "game": G::NAME,
            "bots": [args.bot, vs],
            "matches": tally.matches,
            "moves": tally.moves,
            "seconds": (seconds * 1000.0).round() / 1000.0,
            "matches_per_s": (tally.matches as f64 / seconds).round(),
            "moves_per_s": (tally.moves as f64 / seconds).round(),
            "wins": tally.wins,
            "draws": tally.draws,
            "win_rate": tally.wins[0] as f64 / n,
            "win_rate_ci95": [lo, hi],
            "score_rate": (tally.wins[0] as f64 + tally.draws as f64 / 2.0) / n,
        }))
    }
}

/// Runs `colosseum selfplay`.
pub fn run(args: SelfplayArgs) -> Result<ExitCode, String> {
    let summary = games::visit(&args.game, Run(&args)).unwrap_or_else(|| {
        Err(format!("unknown game {:?}; the games are {}", args.game, games::registry::names()))
    })?;
    println!("{summary}");
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(500, 1000);
        assert!((lo - 0.469).abs() < 0.001 && (hi - 0.531).abs() < 0.001, "{lo} {hi}");
        let (lo, hi) = wilson(0, 100);
        assert!(lo.abs() < 1e-12 && hi > 0.03 && hi < 0.04);
    }

    #[test]
    fn seeds_parse_as_numbers_or_hex() {
        assert_eq!(parse_seed("1").unwrap()[0], 1);
        assert_eq!(parse_seed("ff00000000000000").unwrap()[0], 0xff);
        assert!(parse_seed("xyz").is_err());
    }
}
