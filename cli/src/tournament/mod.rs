//! `colosseum tournament`: run a tournament through the platform API with a bot in every
//! seat ([`run`]), simulate one in process with random results ([`simulate`]), or pair one
//! swiss round from JSON on standard input (`pair`, for comparing with other pairing
//! programs).

mod bracket;
mod run;
mod simulate;

use clap::{Args, Subcommand};
use std::io::Read;
use std::process::ExitCode;

/// Options of `colosseum tournament`.
#[derive(Args)]
pub struct TournamentArgs {
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Create a tournament through the gateway, play every match with bots, print standings
    /// (a knockout: its bracket and winner).
    Run(run::RunArgs),
    /// Play a tournament in process with random results; print a JSON summary.
    Simulate(simulate::SimulateArgs),
    /// Read a swiss history as JSON on standard input, print the next round's pairing.
    Pair,
}

/// Runs `colosseum tournament`.
pub fn run(args: TournamentArgs) -> Result<ExitCode, String> {
    match args.action {
        Action::Run(a) => run::run(a),
        Action::Simulate(a) => simulate::run(&a),
        Action::Pair => {
            let mut input = String::new();
            std::io::stdin().read_to_string(&mut input).map_err(|e| e.to_string())?;
            let out = tournament_rules::pair_from_json(&input).map_err(|e| e.to_string())?;
            println!("{out}");
            Ok(ExitCode::SUCCESS)
        }
    }
}
