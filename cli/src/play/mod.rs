//! `colosseum play`: a match in the terminal, through the cluster ([`remote`]) or, with
//! `--local`, on the local rules engine against a bot ([`local`]). Both read the same
//! options ([`args`]) and speak to the person the same way ([`terminal`]); neither
//! depends on the other.

mod args;
mod local;
mod remote;
mod terminal;

pub use args::PlayArgs;
pub use terminal::show_view;

use std::process::ExitCode;

/// Runs `colosseum play`: through the cluster, or with `--local` on the local engine.
///
/// # Errors
/// What the player that ran says went wrong.
pub fn run(args: PlayArgs) -> Result<ExitCode, String> {
    if args.local {
        local::play(&args)?;
        Ok(ExitCode::SUCCESS)
    } else {
        remote::play(&args)
    }
}
