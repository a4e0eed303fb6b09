//! Progress of the long commands (load, selfplay, tournaments): indicatif's bar on a
//! terminal, and a plain line every ten seconds where stderr is a log (CI, a redirected
//! benchmark), since indicatif draws nothing there and an hour-long run would look hung.

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
