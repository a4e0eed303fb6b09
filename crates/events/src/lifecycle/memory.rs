//! The lifecycle stream in the in-memory store.

use super::{Delivery, Finished, LifecycleStore};
use crate::error::StoreError;
use crate::lobby::LIFECYCLE_KEPT;
use crate::lobby::memory::millis;
use crate::memory::MemoryStore;
use async_trait::async_trait;
use std::collections::BTreeMap;
use std::time::Duration;
use std::time::Instant;

#[async_trait]
impl LifecycleStore for MemoryStore {
    async fn announce_finished(&self, finished: &Finished) -> Result<(), StoreError> {
        let mut state = self.lock();
        state.lifecycle.announce(finished.clone());
        state.owed.remove(&finished.match_id);
        drop(state);
        // Every reader waiting now looks again; one that is between its look and its wait
        // was registered first (`Notified::enable`), so none misses it.
        self.finished.notify_waiters();
        Ok(())
    }

    async fn repair_announcements(
        &self,
        before_ms: u64,
        limit: usize,
    ) -> Result<usize, StoreError> {
        let mut due: Vec<Finished> =
            self.lock().owed.values().filter(|f| f.at_ms <= before_ms).cloned().collect();
        due.sort_by_key(|f| (f.at_ms, f.match_id));
        due.truncate(limit);
        for f in &due {
            self.announce_finished(f).await?;
        }
        Ok(due.len())
    }

    async fn lifecycle_read(
        &self,
        group: &str,
        consumer: &str,
        count: usize,
        block_ms: u64,
    ) -> Result<Vec<Delivery>, StoreError> {
        if count == 0 {
            return Ok(Vec::new());
        }
        let deadline = tokio::time::Instant::now() + millis(block_ms);
        loop {
            // Registered before looking, so an announcement between the look and the wait
            // still wakes this reader.
            let notified = self.finished.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let read = self.lock().lifecycle.read(group, consumer, count);
            if !read.is_empty() || block_ms == 0 {
                return Ok(read);
            }
            if tokio::time::timeout_at(deadline, notified).await.is_err() {
                return Ok(Vec::new());
            }
        }
    }

    async fn lifecycle_claim(
        &self,
        group: &str,
        consumer: &str,
        min_idle_ms: u64,
        count: usize,
    ) -> Result<Vec<Delivery>, StoreError> {
        let min_idle = Duration::from_millis(min_idle_ms);
        Ok(self.lock().lifecycle.claim(group, consumer, min_idle, count))
    }

    async fn lifecycle_ack(&self, group: &str, ids: &[String]) -> Result<(), StoreError> {
        let mut state = self.lock();
        if let Some(g) = state.lifecycle.groups.get_mut(group) {
            for n in ids.iter().filter_map(|id| Lifecycle::number(id)) {
                g.pending.remove(&n);
            }
        }
        Ok(())
    }
}

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
