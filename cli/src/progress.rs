//! What the long commands (load, chaos, selfplay, tournaments) tell stderr while they run:
//! their progress (indicatif's bar on a terminal, a plain line every ten seconds where
//! stderr is a log, since indicatif draws nothing there and an hour-long run would look
//! hung) and the in-process services' log lines, kept off stdout, which carries the result.

use std::io::IsTerminal;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressStyle};

/// How often a log gets a progress line.
const LOG_EVERY: Duration = Duration::from_secs(10);

/// A bar of `len` steps drawn with `template` on a terminal; in a log, a line
/// "`label`: pos/len (rate/s, eta) msg" every [`LOG_EVERY`] until the bar is finished or dropped.
pub fn bar(len: u64, template: &str, label: &'static str) -> ProgressBar {
    let bar = ProgressBar::new(len);
    bar.set_style(ProgressStyle::with_template(template).expect("a valid template"));
    if !std::io::stderr().is_terminal() {
        let weak = bar.downgrade();
        // A thread, not a task: a bar lives in sync commands too, and the line must come
        // even when the runtime's workers are all busy playing.
        std::thread::spawn(move || {
            loop {
                std::thread::sleep(LOG_EVERY);
                let Some(b) = weak.upgrade() else { break };
                if b.is_finished() {
                    break;
                }
                let msg = b.message();
                let sep = if msg.is_empty() { "" } else { " " };
                eprintln!(
                    "{label}: {}/{} ({:.0}/s, eta {} s){sep}{msg}",
                    b.position(),
                    b.length().unwrap_or(0),
                    b.per_sec(),
                    b.eta().as_secs()
                );
            }
        });
    }
    bar
}

/// The in-process services' log lines to stderr, filtered by `RUST_LOG` (else `default`).
pub fn logs_to_stderr(default: &str) {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .compact()
        .try_init();
}
