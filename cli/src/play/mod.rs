//! `colosseum play`: a match in the terminal, through the cluster ([`remote`]; with
//! `--queue`, paired by the match-maker first: [`queue`]) or, with `--local`, on the
//! local rules engine against a bot ([`local`]). All read the same options ([`args`]) and
//! speak to the person the same way ([`terminal`]); the local player depends on no other.

mod args;
mod face;
mod local;
mod queue;
mod remote;
mod screen;
mod seats;

pub use args::PlayArgs;

use std::process::ExitCode;

/// Runs `colosseum play`: through the cluster (queued with `--queue`), or with `--local`
/// on the local engine.
///
/// # Errors
/// What the player that ran says went wrong.
pub fn run(args: PlayArgs) -> Result<ExitCode, String> {
    if args.local {
        local::play(&args)?;
        Ok(ExitCode::SUCCESS)
    } else if args.queue {
        queue::play(&args)
    } else {
        remote::play(&args)
    }
}
