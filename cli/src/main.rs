//! The `colosseum` command line: one binary for the tools around the rules.
//!
//! - `conformance run FILE...`: one JSON result line per match script.
//! - `record SCRIPT`: play a script and print its match record.
//! - `verify RECORD`: replay a finished record and confirm it.
//! - `show RECORD`: replay a finished record and print its final board and summary.
//! - `selfplay --game G --matches N`: bot against bot, with a JSON summary.
//! - `run`: the whole cluster in one process (embedded store, or Redis at REDIS_URL,
//!   REDIS_SENTINEL_URLS + REDIS_SENTINEL_MASTER or REDIS_CLUSTER_URLS).
//! - `play --game G --vs bot`: a match in the terminal, through the cluster; with
//!   `--queue`, paired by the match-maker (rated with a saved account session).
//! - `register`, `login`, `logout`: an account's session, kept in the config directory
//!   ([`session`]) for `play --queue` and `leaderboard --around me`.
//! - `leaderboard --game G`: a page of a game's leaderboard.
//! - `load --game G --matches N --concurrency C`: bot-vs-bot matches through the gateway, measured.
//! - `chaos`: the cluster as separate processes, services killed and restarted under load,
//!   every match checked in Redis afterwards (docs/reliability.md).
//! - `games`: list the hosted games.

mod account;
mod chaos;
mod conformance;
mod health;
mod history;
mod leaderboard;
mod load;
mod play;
mod progress;
mod run;
mod selfplay;
mod session;
mod tenant;
mod tournament;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

// glibc's malloc contends on its arena locks under many tokio tasks; mimalloc measured
// faster on the cluster load (docs/benchmarks.md).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Parser)]
#[command(name = "colosseum", version, about = "Colosseum: two-player Death Match games, hosted")]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run match scripts (see ../shared/conformance/README.md).
    Conformance {
        #[command(subcommand)]
        action: conformance::Action,
    },
    /// Play a match script and print its match record (JSON).
    Record {
        /// The script.
        script: std::path::PathBuf,
    },
    /// Replay a finished match record: check the seed commitment, every event and the result.
    Verify {
        /// The record (JSON), or - for standard input.
        record: String,
    },
    /// Play bot against bot and print a JSON summary (matches, moves, speed, wins).
    Selfplay(selfplay::SelfplayArgs),
    /// Bring up the whole cluster in this process and print where to connect.
    Run(run::RunArgs),
    /// Play a match in the terminal: against a bot or another player, through the cluster.
    Play(play::PlayArgs),
    /// Create an account and keep its session (for `play --queue`).
    Register(account::RegisterArgs),
    /// Log in to an account and keep its session.
    Login(account::LoginArgs),
    /// End the saved session and forget it.
    Logout,
    /// Show a page of a game's leaderboard.
    Leaderboard(leaderboard::LeaderboardArgs),
    /// Show a player's finished matches, newest first (yours by default).
    History(history::HistoryArgs),
    /// Replay a finished match record and print its final board and summary.
    Show {
        /// The record (JSON).
        record: String,
    },
    /// Play bot-vs-bot matches through the gateway and print throughput and latency (JSON).
    Load(load::LoadArgs),
    /// Kill and restart services under load, then check every match in Redis (JSON summary).
    Chaos(chaos::ChaosArgs),
    /// List the hosted games.
    Games,
    /// Tournaments: run one with bots through the gateway, simulate one, pair a swiss round.
    Tournament(tournament::TournamentArgs),
    /// Tenants of the platform API and their API keys (operators; internal secret).
    Tenant(tenant::TenantArgs),
    /// Ask a server's grpc.health.v1 whether it serves (exit 0 when SERVING), for probes.
    Health(health::HealthArgs),
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let result = match cli.command {
        Command::Conformance { action } => conformance::run(action),
        Command::Record { script } => conformance::record(&script),
        Command::Verify { record } => conformance::verify(&record),
        Command::Show { record } => conformance::show(&record),
        Command::Selfplay(args) => selfplay::run(args),
        Command::Run(args) => run::run(args),
        Command::Load(args) => load::run(args),
        Command::Play(args) => play::run(args),
        Command::Register(args) => account::register(args),
        Command::Login(args) => account::login(args),
        Command::Logout => account::logout(),
        Command::Leaderboard(args) => leaderboard::run(args),
        Command::History(args) => history::run(args),
        Command::Chaos(args) => chaos::run(args),
        Command::Tenant(args) => tenant::run(args),
        Command::Tournament(args) => tournament::run(args),
        Command::Health(args) => health::run(args),
        Command::Games => {
            // Each game on a line, its bots on the next (wrapped within 80 columns), the
            // last named the default: the one `play --vs bot` picks without --bot.
            const INDENT: &str = "                   ";
            for g in games::GAMES {
                println!("{:<18} {:<10} {}", g.name, g.family, g.title);
                let names = games::registry::bot_names(g.name);
                let mut line = format!("{INDENT}bots:");
                for (i, b) in names.iter().enumerate() {
                    let last = i + 1 == names.len();
                    let item = format!(" {b}{}", if last { " (default)" } else { "," });
                    if line.len() + item.len() > 80 && line.len() > INDENT.len() + 5 {
                        println!("{line}");
                        line = format!("{INDENT}     ");
                    }
                    line.push_str(&item);
                }
                println!("{line}");
            }
            Ok(ExitCode::SUCCESS)
        }
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("colosseum: {e}");
            ExitCode::from(2)
        }
    }
}

/// A gateway's refusal as one line for the person: its code and message.
fn refused(s: tonic::Status) -> String {
    format!("{}: {}", s.code(), s.message())
}

/// As [`refused`], naming the gateway when it may not have been reached (UNAVAILABLE).
fn refused_at(s: tonic::Status, gateway: &str) -> String {
    if s.code() == tonic::Code::Unavailable {
        format!("{} (gateway {gateway})", refused(s))
    } else {
        refused(s)
    }
}
