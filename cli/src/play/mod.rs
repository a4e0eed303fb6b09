//! `colosseum play`: a match in the terminal, through the cluster ([`remote`]; with
//! `--queue`, paired by the match-maker first: [`queue`]) or, with `--local`, on the
//! local rules engine against a bot ([`local`]). All read the same options ([`args`]) and
//! speak to the person the same way ([`screen`], a [`face`] per game); the seats taken
//! are kept for a rejoin ([`seats`]).

mod args;
mod face;
mod local;
mod queue;
mod remote;
mod screen;
mod seats;

pub use args::PlayArgs;

use std::process::ExitCode;

/// Forgets every seat `play` kept with the session of `token` (logged out).
///
/// # Errors
/// The kept seats cannot be written back.
pub fn forget_session(dir: &std::path::Path, token: &str) -> Result<(), String> {
    if !seats::Seats::kept_in(dir) {
        return Ok(());
    }
    seats::Seats::update(dir, |s| s.forget_token(token))
}

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
