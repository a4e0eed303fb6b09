//! `colosseum conformance run`, `record` and `verify`: thin shells over the `games`
//! crate, which runs the very rules code the services host.

use clap::Subcommand;
use std::io::Read;
use std::path::Path;
use std::process::ExitCode;

/// What to do with scripts.
#[derive(Subcommand)]
pub enum Action {
    /// Run each script and print one JSON result line per script, in order.
    Run {
        /// The scripts.
        #[arg(required = true)]
        files: Vec<String>,
    },
}

/// Runs scripts. The exit code is 0 even when scripts are rejected: a result line is a
/// finding, not a failure. Only an unreadable file makes it 1.
pub fn run(action: Action) -> Result<ExitCode, String> {
    let Action::Run { files } = action;
    let mut code = ExitCode::SUCCESS;
    for f in files {
        let line = match std::fs::read_to_string(&f) {
            Ok(text) => games::run_text(&f, &text),
            Err(e) => {
                code = ExitCode::FAILURE;
                games::script::ResultLine {
                    file: f.clone(),
                    status: "invalid",
                    step: None,
                    error: Some(games::script::ErrorLine {
                        code: "bad_script".into(),
                        message: format!("cannot read: {e}"),
                    }),
                    winner: None,
                    summary: None,
                }
            }
        };
        println!("{}", serde_json::to_string(&line).map_err(|e| e.to_string())?);
    }
    Ok(code)
}

/// Plays a script and prints the record.
pub fn record(script: &Path) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(script).map_err(|e| format!("{}: {e}", script.display()))?;
    let m = games::script::play_text(&text)?;
    println!(
        "{}",
        serde_json::to_string_pretty(&games::Record::of(&*m)).map_err(|e| e.to_string())?
    );
    Ok(ExitCode::SUCCESS)
}

/// Replays a record (finished or not) and prints the final position as a spectator
/// sees it: the board picture for games with a board, then the summary.
pub fn show(path: &str) -> Result<ExitCode, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
    let record = games::Record::parse(&text).map_err(|e| e.to_string())?;
    let seed = record
        .seed
        .ok_or("the match is still running: its seed is secret, so it cannot be replayed")?;
    let mut m = games::start(&record.game, &record.options, seed).map_err(|e| e.to_string())?;
    for (i, raw) in record.steps.iter().enumerate() {
        let step = games::parse::parse_step(raw).map_err(|e| format!("step {}: {e}", i + 1))?;
        m.step(&step).map_err(|e| format!("step {} refused: {e}", i + 1))?;
    }
    show_view(&m.view(rules_core::Viewer::Spectator));
    println!("summary: {}", m.summary());
    Ok(ExitCode::SUCCESS)
}

/// Verifies a record; exit 0 and a summary if it holds, 1 and the first difference if not.
pub fn verify(path: &str) -> Result<ExitCode, String> {
    let text = if path == "-" {
        let mut s = String::new();
        std::io::stdin().read_to_string(&mut s).map_err(|e| e.to_string())?;
        s
    } else {
        std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?
    };
    match games::Record::parse(&text).and_then(|r| r.verify()) {
        Ok(v) => {
            let winner = match v.result.winner {
                Some(s) => s.to_string(),
                None => "no winner".to_string(),
            };
            println!(
                "verified: {} record, seed matches its commitment, {} steps and {} events replay identically, result {winner} ({})",
                v.game,
                v.steps,
                v.events,
                serde_json::to_string(&v.result.reason).unwrap_or_default()
            );
            Ok(ExitCode::SUCCESS)
        }
        Err(m) => {
            println!("NOT verified: {m}");
            Ok(ExitCode::FAILURE)
        }
    }
}

/// Prints a view: its board picture (games with a board carry one), then every other
/// field on one line.
fn show_view(view: &serde_json::Value) {
    use serde_json::Value;
    let Some(obj) = view.get("game").and_then(Value::as_object) else { return };
    if let Some(lines) = obj.get("picture").and_then(Value::as_array) {
        for l in lines.iter().filter_map(Value::as_str) {
            println!("    {l}");
        }
    }
    let line: Vec<String> = obj
        .iter()
        .filter(|(k, v)| {
            !v.is_null()
                && !matches!(k.as_str(), "viewer" | "picture" | "board" | "costs" | "tiles")
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    println!("  {}", line.join("  "));
}
