//! The Redis lobby as a sequencer: [`Cas`] gathers the values an operation read (and
//! decided on in [`crate::lobby::rules`]) and the writes it decided, and runs them as one
//! `lua/cas.lua`: written only if every value read is still current, else read again.

use crate::error::StoreError;
use crate::lobby::record::Record;
use crate::lobby::{Pairing, RatedMatch, Ticket};
use crate::redis_store::codec::json;
use crate::redis_store::{RedisStore, keys};
use ids::PlayerId;
use redis::Script;
use std::collections::BTreeSet;

/// How many times an operation reads, decides and tries to write before it gives up on a
/// lobby that keeps changing under it.
pub(crate) const ATTEMPTS: usize = 16;

/// The error of an operation that lost every one of its [`ATTEMPTS`] to other writers.
pub(crate) fn contended(operation: &str) -> StoreError {
    StoreError::Redis(format!(
        "lobby {operation}: what it read changed before it could write, {ATTEMPTS} times"
    ))
}

/// `lua/cas.lua`, hashed once and loaded on first use (`redis::Script` answers `NOSCRIPT`
/// by loading).
static SCRIPT: std::sync::LazyLock<Script> =
    std::sync::LazyLock::new(|| Script::new(include_str!("lua/cas.lua")));

/// One compare-and-set: guards (the values read) and writes, for `lua/cas.lua`.
#[derive(Default)]
pub(crate) struct Cas {
    keys: Vec<String>,
    guards: Vec<String>,
    guarded: usize,
    writes: Vec<String>,
    announced: BTreeSet<PlayerId>,
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
    fn key(&mut self, key: &str) -> String {
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

    /// Adds one write: `op` on `key` with `args` (see `lua/cas.lua`).
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

    // --- A ticket's record and indexes, as `tables.rs` keeps them in memory ---

    /// Stores `ticket` as it is (its state and time in the record).
    pub(crate) fn save(&mut self, ticket: &Ticket) -> Result<(), StoreError> {
        let record = json(&Record::new(ticket, ticket.state, ticket.changed_ms)?)?;
        self.write("HSET", keys::TICKETS, &[&ticket.id.to_string(), &record]);
        self.announce(ticket.player);
        Ok(())
    }

    /// Stores `ticket` as it is, over `old`, its record as read if any (see
    /// [`Record::moved`]: only the state is encoded again).
    pub(crate) fn save_over(
        &mut self,
        old: Option<&str>,
        ticket: &Ticket,
    ) -> Result<(), StoreError> {
        let Some(old) = old else { return self.save(ticket) };
        let record = Record::moved(old, ticket)?;
        self.write("HSET", keys::TICKETS, &[&ticket.id.to_string(), &record]);
        self.announce(ticket.player);
        Ok(())
    }

    /// Takes a ticket out of its queue (the queue off the list when it empties), or a
    /// seek off the list.
    pub(crate) fn unlist(&mut self, ticket: &Ticket) {
        let id = ticket.id.to_string();
        if ticket.seek {
            self.write("ZREM", keys::SEEKS, &[&id]);
        } else {
            let queue = ticket.queue.key();
            let queues = self.key(keys::QUEUES);
            self.write("UNQUEUE", &keys::waiting(&queue), &[&id, &queues, &queue]);
        }
    }

    /// Puts a waiting ticket in its queue, or a seek on the list.
    pub(crate) fn list(&mut self, ticket: &Ticket) -> Result<(), StoreError> {
        let id = ticket.id.to_string();
        if ticket.seek {
            self.write("ZADD", keys::SEEKS, &[&ticket.created_ms.to_string(), &id]);
        } else {
            let queue = ticket.queue.key();
            self.write("SADD", &keys::waiting(&queue), &[&id]);
            self.write("HSET", keys::QUEUES, &[&queue, &json(&ticket.queue)?]);
        }
        Ok(())
    }

    /// The ticket ended: its player may queue again.
    pub(crate) fn unlive(&mut self, ticket: &Ticket) {
        let field = keys::live_field(ticket.player, &ticket.queue.key());
        self.write("HDELEQ", keys::LIVE, &[&field, &ticket.id.to_string()]);
    }

    /// Stores a pending pairing and, for a rated queue, its rated match.
    pub(crate) fn store_pairing(&mut self, pairing: &Pairing) -> Result<(), StoreError> {
        let id = pairing.match_id.to_string();
        self.write("HSET", keys::PAIRINGS, &[&id, &json(pairing)?]);
        if pairing.queue.rated {
            let rated = RatedMatch { game: pairing.queue.game.clone(), players: pairing.players };
            self.write("HSET", keys::RATED_MATCHES, &[&id, &json(&rated)?]);
            self.write("SADD", keys::UNRATED, &[&id]);
        }
        Ok(())
    }

    /// Announces `player` on the ticket feed once, after the writes before it.
    pub(crate) fn announce(&mut self, player: PlayerId) {
        if self.announced.insert(player) {
            self.writes.extend(
                ["PUBLISH", "0", keys::TICKET_CHANGES, &player.to_string()].map(String::from),
            );
        }
    }
}
