//! Match scripts (../shared/conformance/README.md): parsing, strictly, and running one
//! through the same rules code the services use, giving the one-line JSON result.

use crate::host::{self, Host};
use crate::parse::{StepError, parse_step};
use rules_core::{Seat, Seed, Step};
use serde::Serialize;
use serde_json::{Map, Value};

/// A parsed script.
#[derive(Clone, Debug)]
pub struct Script {
    /// The game's name.
    pub game: String,
    /// The options object (empty for defaults).
    pub options: Value,
    /// The seed (all zeros when left out).
    pub seed: Seed,
    /// The steps, moves still JSON.
    pub steps: Vec<Step<Value>>,
}

/// An error in a result line.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct ErrorLine {
    /// `bad_script` or a refusal code.
    pub code: String,
    /// What was wrong.
    pub message: String,
}

/// The result of one script.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ResultLine {
    /// The script's path as given.
    pub file: String,
    /// `finished`, `in_progress`, `rejected` or `invalid`.
    pub status: &'static str,
    /// The refused step, from 1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// The refusal or the script error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<ErrorLine>,
    /// The winner (null: none yet, or a draw). Absent for an invalid script.
    #[serde(skip_serializing_if = "is_invalid_winner")]
    pub winner: Option<Option<Seat>>,
    /// The state after the last applied step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<Value>,
}

fn is_invalid_winner(w: &Option<Option<Seat>>) -> bool {
    w.is_none()
}

fn field<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<Option<&'a Value>, String> {
    match obj.get(key) {
        Some(Value::Null) => Err(format!("`{key}` is null; leave it out or give a value")),
        other => Ok(other),
    }
}

/// Parses a script from JSON text.
///
/// # Errors
/// A message saying why it is a bad script.
fn parse_script(text: &str) -> Result<Script, String> {
    let v: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    let obj = v.as_object().ok_or("a script is a JSON object")?;
    if let Some(k) =
        obj.keys().find(|k| !matches!(k.as_str(), "game" | "options" | "seed" | "steps"))
    {
        return Err(format!(
            "unknown key `{}` (a script has game, options, seed, steps)",
            rules_core::clip(k)
        ));
    }
    let game = field(obj, "game")?
        .and_then(Value::as_str)
        .ok_or("`game` is required and is a string")?
        .to_string();
    let options = match field(obj, "options")? {
        None => Value::Object(Map::new()),
        Some(o @ Value::Object(m)) => {
            if let Some((k, _)) = m.iter().find(|(_, v)| v.is_null()) {
                return Err(format!(
                    "option `{}` is null; leave it out for its default",
                    rules_core::clip(k)
                ));
            }
            o.clone()
        }
        Some(o) => {
            return Err(format!(
                "`options` is an object, not {}",
                rules_core::clip(&o.to_string())
            ));
        }
    };
    let seed = match field(obj, "seed")? {
        None => Seed::ZERO,
        Some(Value::String(s)) => Seed::parse(s).map_err(|e| format!("`seed`: {e}"))?,
        Some(s) => {
            return Err(format!(
                "`seed` is a hex string, not {}",
                rules_core::clip(&s.to_string())
            ));
        }
    };
    let steps = field(obj, "steps")?
        .and_then(Value::as_array)
        .ok_or("`steps` is required and is an array")?
        .iter()
        .enumerate()
        .map(|(i, s)| parse_step(s).map_err(|e| format!("step {}: {e}", i + 1)))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Script { game, options, seed, steps })
}

fn invalid(file: &str, message: String) -> ResultLine {
    ResultLine {
        file: file.to_string(),
        status: "invalid",
        step: None,
        error: Some(ErrorLine { code: "bad_script".into(), message }),
        winner: None,
        summary: None,
    }
}

/// The result line of a script once it has been applied up to `refused`.
fn line(file: &str, m: &dyn Host, refused: Option<(usize, StepError)>) -> ResultLine {
    let outcome = m.outcome();
    let status = match (&refused, outcome) {
        (Some(_), _) => "rejected",
        (None, Some(_)) => "finished",
        (None, None) => "in_progress",
    };
    let (step, error) = match refused {
        Some((i, e)) => {
            (Some(i), Some(ErrorLine { code: e.code.as_str().into(), message: e.message }))
        }
        None => (None, None),
    };
    ResultLine {
        file: file.to_string(),
        status,
        step,
        error,
        winner: Some(outcome.and_then(|o| o.winner)),
        summary: Some(m.summary()),
    }
}

/// Runs a script's text; `file` is only echoed in the result.
pub fn run_text(file: &str, text: &str) -> ResultLine {
    let script = match parse_script(text) {
        Ok(s) => s,
        Err(e) => return invalid(file, e),
    };
    let mut m = match host::start(&script.game, &script.options, script.seed) {
        Ok(m) => m,
        Err(e) => return invalid(file, e.to_string()),
    };
    for (i, step) in script.steps.iter().enumerate() {
        if let Err(e) = m.step(step) {
            return line(file, m.as_ref(), Some((i + 1, e)));
        }
    }
    line(file, m.as_ref(), None)
}

/// Runs a script's text and returns the match too (for records).
///
/// # Errors
/// The result line when the script is invalid or a step is refused.
pub fn play_text(text: &str) -> Result<Box<dyn Host>, String> {
    let script = parse_script(text)?;
    let mut m =
        host::start(&script.game, &script.options, script.seed).map_err(|e| e.to_string())?;
    for (i, step) in script.steps.iter().enumerate() {
        m.step(step).map_err(|e| format!("step {} refused: {e}", i + 1))?;
    }
    Ok(m)
}
