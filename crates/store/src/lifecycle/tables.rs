//! The lifecycle stream in the in-memory store: its entries and consumer groups, held in
//! the store's one state; `memory.rs` beside this works them.

use super::{Delivery, Finished, LIFECYCLE_KEPT};
use std::collections::BTreeMap;
use std::time::Duration;
use std::time::Instant;

/// The lifecycle stream. Entry ids are `<n>-0` with `n` counting from 1: ordered, like
/// Redis's, and opaque to callers.
#[derive(Default)]
pub(crate) struct Lifecycle {
    pub(crate) entries: BTreeMap<u64, Finished>,
    /// The last `n` given.
    pub(crate) last: u64,
    pub(crate) groups: BTreeMap<String, Group>,
}

#[derive(Default)]
pub(crate) struct Group {
    /// The last entry delivered to the group (0: none yet).
    pub(crate) delivered: u64,
    /// Delivered, not acknowledged: entry -> its consumer and when it was delivered.
    pub(crate) pending: BTreeMap<u64, (String, Instant)>,
}

impl Lifecycle {
    pub(crate) fn id(n: u64) -> String {
        format!("{n}-0")
    }

    pub(crate) fn number(id: &str) -> Option<u64> {
        id.strip_suffix("-0")?.parse().ok()
    }

    pub(crate) fn delivery(&self, n: u64) -> Delivery {
        Delivery { id: Lifecycle::id(n), finished: self.entries.get(&n).cloned() }
    }

    /// Up to `count` entries never delivered to `group` (made at the stream's start),
    /// now pending for `consumer`.
    pub(crate) fn read(&mut self, group: &str, consumer: &str, count: usize) -> Vec<Delivery> {
        let now = service_kit::time::instant();
        let g = self.groups.entry(group.to_string()).or_default();
        let fresh: Vec<u64> =
            self.entries.range(g.delivered + 1..).map(|(n, _)| *n).take(count).collect();
        for &n in &fresh {
            g.pending.insert(n, (consumer.to_string(), now));
            g.delivered = n;
        }
        fresh.into_iter().map(|n| self.delivery(n)).collect()
    }

    /// Up to `count` of `group`'s entries pending for `min_idle` or longer, now pending
    /// for `consumer`. Entries trimmed from the stream leave the pending list unanswered,
    /// as `XAUTOCLAIM` drops them.
    pub(crate) fn claim(
        &mut self,
        group: &str,
        consumer: &str,
        min_idle: Duration,
        count: usize,
    ) -> Vec<Delivery> {
        let now = service_kit::time::instant();
        let Some(g) = self.groups.get_mut(group) else { return Vec::new() };
        g.pending.retain(|n, _| self.entries.contains_key(n));
        let idle: Vec<u64> = g
            .pending
            .iter()
            .filter(|(_, (_, at))| now.saturating_duration_since(*at) >= min_idle)
            .map(|(n, _)| *n)
            .take(count)
            .collect();
        for &n in &idle {
            g.pending.insert(n, (consumer.to_string(), now));
        }
        idle.into_iter().map(|n| self.delivery(n)).collect()
    }

    /// Drops the entries every group has read and acknowledged (none without a group, or
    /// while one of `readers` has none); answers how many.
    pub(crate) fn trim_read(&mut self, readers: &[&str]) -> usize {
        if readers.iter().any(|r| !self.groups.contains_key(*r)) {
            return 0;
        }
        let floor = self
            .groups
            .values()
            .map(|g| g.pending.keys().next().copied().unwrap_or(g.delivered + 1))
            .min();
        let Some(floor) = floor else { return 0 };
        let kept = self.entries.split_off(&floor);
        let dropped = std::mem::replace(&mut self.entries, kept);
        dropped.len()
    }

    /// Appends to the lifecycle stream, trimmed as Redis's `MAXLEN` trims it.
    pub(crate) fn announce(&mut self, finished: Finished) {
        let l = self;
        l.last += 1;
        l.entries.insert(l.last, finished);
        while l.entries.len() > LIFECYCLE_KEPT {
            l.entries.pop_first();
        }
    }
}
