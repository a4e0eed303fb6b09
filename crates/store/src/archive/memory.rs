//! The archive in memory, for `make run` without a database and for unit tests: a map by
//! match id, lists filtered and sorted on each read (fine for the matches of one process).

use crate::archive::{After, ArchiveStore, Archived, MAX_PAGE, Owner, Put, Summary};
use crate::error::StoreError;
use async_trait::async_trait;
use ids::MatchId;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// The archive in memory.
#[derive(Default)]
pub struct MemoryArchive {
    matches: Mutex<BTreeMap<MatchId, Archived>>,
}

impl MemoryArchive {
    /// An empty archive.
    pub fn new() -> Self {
        MemoryArchive::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut BTreeMap<MatchId, Archived>) -> T) -> T {
        f(&mut self.matches.lock().expect("the archive's lock"))
    }
}

#[async_trait]
impl ArchiveStore for MemoryArchive {
    async fn put(&self, archived: &Archived) -> Result<Put, StoreError> {
        Ok(self.with(|m| match m.entry(archived.summary.match_id) {
            std::collections::btree_map::Entry::Occupied(_) => Put::AlreadyArchived,
            std::collections::btree_map::Entry::Vacant(v) => {
                v.insert(archived.clone());
                Put::Written
            }
        }))
    }

    async fn record(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        Ok(self.with(|m| m.get(&id).map(|a| a.record_json.clone())))
    }

    async fn summary(&self, id: MatchId) -> Result<Option<Summary>, StoreError> {
        Ok(self.with(|m| m.get(&id).map(|a| a.summary.clone())))
    }

    async fn list(
        &self,
        owner: Owner,
        after: Option<After>,
        limit: usize,
    ) -> Result<Vec<Summary>, StoreError> {
        let mut found: Vec<Summary> = self.with(|m| {
            m.values()
                .map(|a| &a.summary)
                .filter(|s| s.belongs_to(owner) && after.is_none_or(|a| a.precedes(s)))
                .cloned()
                .collect()
        });
        found.sort_by_key(|s| std::cmp::Reverse((s.finished_at_ms, s.match_id)));
        found.truncate(limit.min(MAX_PAGE));
        Ok(found)
    }

    async fn prune(&self, before_ms: u64, limit: usize) -> Result<usize, StoreError> {
        Ok(self.with(|m| {
            let mut old: Vec<(u64, MatchId)> = m
                .values()
                .filter(|a| a.summary.finished_at_ms < before_ms)
                .map(|a| (a.summary.finished_at_ms, a.summary.match_id))
                .collect();
            old.sort();
            old.truncate(limit);
            for (_, id) in &old {
                m.remove(id);
            }
            old.len()
        }))
    }

    async fn ping(&self) -> Result<(), StoreError> {
        Ok(())
    }
}
