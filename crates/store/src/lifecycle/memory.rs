//! The lifecycle stream in the in-memory store.

use super::tables::Lifecycle;
use super::{Delivery, Finished, LifecycleStore};
use crate::error::StoreError;
use crate::memory::{MemoryStore, millis};
use async_trait::async_trait;
use std::time::Duration;

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

    async fn trim_lifecycle(&self, readers: &[&str]) -> Result<usize, StoreError> {
        Ok(self.lock().lifecycle.trim_read(readers))
    }
}
