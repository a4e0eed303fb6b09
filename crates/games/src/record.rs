//! Match records and their verifier. A record holds everything needed to replay a match:
//! game, options, seed commitment, steps, every event with its audience, the result and,
//! once the match is over, the seed. `verify` replays it and names the first difference.

use crate::host::{self, Host};
use crate::parse::{SetupError, StepError, parse_step};
use rules_core::{Commitment, Outcome, Seed, Tagged};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::fmt;

/// The format tag written in every record.
const RECORD_FORMAT: &str = "colosseum-record/1";

/// A match record.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Record {
    /// Always `RECORD_FORMAT`.
    pub format: String,
    /// The game's name.
    pub game: String,
    /// The game's options, every given one written out.
    pub options: Value,
    /// SHA-256 of the seed, public from the first event.
    pub commitment: Commitment,
    /// The seed: present once the match has ended.
    pub seed: Option<Seed>,
    /// The steps, in the conformance script shape.
    pub steps: Vec<Value>,
    /// Every event, in order, with its audience.
    pub events: Vec<Tagged<Value>>,
    /// How the match ended, once it has.
    pub result: Option<Outcome>,
}

/// What a successful verification found.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Verified {
    /// The game.
    pub game: String,
    /// Steps replayed.
    pub steps: usize,
    /// Events compared.
    pub events: usize,
    /// The confirmed result.
    pub result: Outcome,
}

/// Where a record and its replay part ways.
#[derive(Clone, Debug, PartialEq)]
pub enum Mismatch {
    /// Not a record of a known format.
    Format(String),
    /// The match has not ended, so its seed is still secret.
    Unfinished,
    /// SHA-256 of the revealed seed is not the commitment.
    Commitment {
        /// The recorded commitment.
        recorded: Commitment,
        /// SHA-256 of the revealed seed.
        computed: Commitment,
    },
    /// The match does not start (unknown game, bad options).
    Setup(SetupError),
    /// A recorded step is not a step.
    BadStep {
        /// Its index, from 1.
        step: usize,
        /// What is wrong with it.
        problem: String,
    },
    /// The rules refuse a recorded step.
    Refused {
        /// Its index, from 1.
        step: usize,
        /// The refusal.
        error: StepError,
    },
    /// An event differs (index from 1); `None` means one side has no such event.
    Event {
        /// Its index, from 1.
        index: usize,
        /// The recorded event.
        recorded: Option<Value>,
        /// The replayed event.
        replayed: Option<Value>,
    },
    /// The result differs.
    Result {
        /// The recorded result.
        recorded: Option<Outcome>,
        /// The replayed result.
        replayed: Option<Outcome>,
    },
}

impl fmt::Display for Mismatch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let show = |v: &Option<Value>| match v {
            Some(v) => v.to_string(),
            None => "nothing".to_string(),
        };
        match self {
            Mismatch::Format(m) => write!(f, "not a match record: {m}"),
            Mismatch::Unfinished => {
                f.write_str("the match has not ended: its seed is not revealed yet")
            }
            Mismatch::Commitment { recorded, computed } => write!(
                f,
                "the seed does not match the commitment: SHA-256 of the seed is {}, the record committed to {}",
                computed.to_hex(),
                recorded.to_hex()
            ),
            Mismatch::Setup(e) => write!(f, "the match does not start: {e}"),
            Mismatch::BadStep { step, problem } => {
                write!(f, "step {step} is not a step: {problem}")
            }
            Mismatch::Refused { step, error } => {
                write!(f, "step {step} is refused by the rules: {error}")
            }
            Mismatch::Event { index, recorded, replayed } => write!(
                f,
                "event {index} differs: the record has {}, the replay gives {}",
                show(recorded),
                show(replayed)
            ),
            Mismatch::Result { recorded, replayed } => write!(
                f,
                "the result differs: the record has {}, the replay gives {}",
                serde_json::to_string(recorded).unwrap_or_default(),
                serde_json::to_string(replayed).unwrap_or_default()
            ),
        }
    }
}

impl Record {
    /// The record of `m` so far (the seed only once the match has ended).
    pub fn of(m: &dyn Host) -> Record {
        Record {
            format: RECORD_FORMAT.to_string(),
            game: m.game().to_string(),
            options: m.options_json(),
            commitment: m.commitment(),
            seed: m.revealed_seed(),
            steps: m.steps_json(),
            events: m.events(),
            result: m.outcome(),
        }
    }

    /// Parses a record from JSON text.
    ///
    /// # Errors
    /// `Mismatch::Format` naming what is wrong.
    pub fn parse(text: &str) -> Result<Record, Mismatch> {
        let r: Record = serde_json::from_str(text).map_err(|e| Mismatch::Format(e.to_string()))?;
        if r.format != RECORD_FORMAT {
            return Err(Mismatch::Format(format!(
                "format {:?}, expected {RECORD_FORMAT:?}",
                r.format
            )));
        }
        Ok(r)
    }

    /// Replays the record and confirms the commitment, every event and the result.
    ///
    /// # Errors
    /// The first place where the record and the replay differ.
    pub fn verify(&self) -> Result<Verified, Mismatch> {
        let seed = self.seed.ok_or(Mismatch::Unfinished)?;
        let computed = seed.commitment();
        if computed != self.commitment {
            return Err(Mismatch::Commitment { recorded: self.commitment, computed });
        }
        let mut m = host::start(&self.game, &self.options, seed).map_err(Mismatch::Setup)?;
        for (i, raw) in self.steps.iter().enumerate() {
            let step =
                parse_step(raw).map_err(|problem| Mismatch::BadStep { step: i + 1, problem })?;
            m.step(&step).map_err(|error| Mismatch::Refused { step: i + 1, error })?;
        }
        let replayed = m.events();
        for i in 0..replayed.len().max(self.events.len()) {
            let (rec, rep) = (self.events.get(i), replayed.get(i));
            if rec != rep {
                let as_json = |t: Option<&Tagged<Value>>| {
                    t.map(|t| serde_json::to_value(t).unwrap_or(Value::Null))
                };
                return Err(Mismatch::Event {
                    index: i + 1,
                    recorded: as_json(rec),
                    replayed: as_json(rep),
                });
            }
        }
        let result = m.outcome();
        if result != self.result {
            return Err(Mismatch::Result { recorded: self.result, replayed: result });
        }
        let result = result.ok_or(Mismatch::Unfinished)?;
        Ok(Verified {
            game: self.game.clone(),
            steps: self.steps.len(),
            events: replayed.len(),
            result,
        })
    }
}
