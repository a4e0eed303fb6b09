//! The bot matches in memory: each match's member and position, positions counted up.

use crate::error::StoreError;
use crate::matches::bots::BotMatch;
use crate::memory::MemoryStore;
use std::ops::Bound;

impl MemoryStore {
    pub(crate) fn add_bot(&self, m: &BotMatch) -> Result<(), StoreError> {
        m.member()?;
        let bots = &mut self.lock().bots;
        bots.seq += 1;
        let seq = bots.seq;
        if let Some(old) = bots.seq_of.insert(m.clone(), seq) {
            bots.by_seq.remove(&old);
        }
        bots.by_seq.insert(seq, m.clone());
        Ok(())
    }

    pub(crate) fn bots_after(&self, after: u64, limit: usize) -> Vec<(u64, BotMatch)> {
        let state = self.lock();
        let later = state.bots.by_seq.range((Bound::Excluded(after), Bound::Unbounded));
        later.take(limit).map(|(seq, m)| (*seq, m.clone())).collect()
    }

    pub(crate) fn remove_bot(&self, m: &BotMatch) {
        let bots = &mut self.lock().bots;
        if let Some(seq) = bots.seq_of.remove(m) {
            bots.by_seq.remove(&seq);
        }
    }
}
