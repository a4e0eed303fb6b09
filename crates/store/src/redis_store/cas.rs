//! The Redis store as a sequencer: [`Cas`] gathers the values an operation read (and
//! decided on in Rust: the lobby's rules, a seat's claim) and the writes it decided, and
//! runs them as one `cas.lua`: written only if every value read is still current, else
//! the caller reads again, at most [`ATTEMPTS`] times.

use crate::error::StoreError;
use crate::redis_store::RedisStore;
use redis::Script;
use std::collections::BTreeSet;

/// How many times an operation reads, decides and tries to write before it gives up on a
/// lobby that keeps changing under it.
pub(crate) const ATTEMPTS: usize = 16;

/// The error of an operation that lost every one of its [`ATTEMPTS`] to other writers.
pub(crate) fn contended(operation: &str) -> StoreError {
    StoreError::Redis(format!(
        "{operation}: what it read changed before it could write, {ATTEMPTS} times"
    ))
}

/// `cas.lua`, hashed once and loaded on first use (`redis::Script` answers `NOSCRIPT`
/// by loading).
static SCRIPT: std::sync::LazyLock<Script> =
    std::sync::LazyLock::new(|| Script::new(include_str!("cas.lua")));

/// One compare-and-set: guards (the values read) and writes, for `cas.lua`.
#[derive(Default)]
pub(crate) struct Cas {
    keys: Vec<String>,
    guards: Vec<String>,
    guarded: usize,
    writes: Vec<String>,
    /// The messages published so far, each sent once.
    published: BTreeSet<(&'static str, String)>,
}

impl Cas {
    pub(crate) fn new() -> Self {
        Cas::default()
    }

    /// Whether it writes anything.
    pub(crate) fn is_empty(&self) -> bool {
        self.writes.is_empty()
    }

    /// `key`'s index in KEYS (1-based, as Lua counts), added if new.
    pub(crate) fn key(&mut self, key: &str) -> String {
        let at = match self.keys.iter().position(|k| k == key) {
            Some(at) => at,
            None => {
                self.keys.push(key.to_string());
                self.keys.len() - 1
            }
        };
        (at + 1).to_string()
    }

    /// Writes only if `field` of the hash `key` is still `value` (`None`: absent).
    pub(crate) fn expect(&mut self, key: &str, field: &str, value: Option<&str>) {
        let at = self.key(key);
        self.guards.extend([at, field.to_string(), value.unwrap_or_default().to_string()]);
        self.guarded += 1;
    }

    /// Writes only if the sorted set `key` still holds `members`, in this order.
    pub(crate) fn expect_members(&mut self, key: &str, members: &[String]) {
        let at = self.key(key);
        let listed: String = members.iter().map(|m| format!("{m} ")).collect();
        self.guards.extend([at, String::new(), listed]);
        self.guarded += 1;
    }

    /// Adds one write: `op` on `key` with `args` (see `cas.lua`).
    pub(crate) fn write(&mut self, op: &'static str, key: &str, args: &[&str]) {
        let at = self.key(key);
        self.writes.push(op.to_string());
        self.writes.push(at);
        self.writes.extend(args.iter().map(|a| a.to_string()));
    }

    /// Runs it: true if written, false if a guard failed (nothing written).
    pub(crate) async fn run(self, store: &RedisStore) -> Result<bool, StoreError> {
        let mut call = SCRIPT.prepare_invoke();
        for key in &self.keys {
            call.key(key);
        }
        call.arg(self.guarded).arg(&self.guards).arg(&self.writes);
        let written: i64 = call.invoke_async(&mut store.conn()).await?;
        Ok(written == 1)
    }

    /// Publishes `message` on `channel` once, after the writes before it.
    pub(crate) fn publish_once(&mut self, channel: &'static str, message: String) {
        if !self.published.contains(&(channel, message.clone())) {
            self.writes.extend(["PUBLISH", "0", channel, &message].map(String::from));
            self.published.insert((channel, message));
        }
    }
}
