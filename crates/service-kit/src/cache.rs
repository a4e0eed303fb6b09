//! The one bounded cache the services keep of what they read from the store (sessions, API
//! keys, settled match metas): a map under a lock, each entry with when it was read, good
//! for a time-to-live if it has one, and emptied whole when full (the entries in use come
//! back once each: simpler than an eviction order, and as cheap for these loads).

use std::borrow::Borrow;
use std::collections::BTreeMap;
use std::sync::Mutex;

/// A bounded cache of `V` by `K`.
pub struct Bounded<K, V> {
    map: Mutex<BTreeMap<K, (V, u64)>>,
    cap: usize,
    ttl_ms: Option<u64>,
}

impl<K: Ord, V: Clone> Bounded<K, V> {
    /// At most `cap` entries, each good for `ttl_ms` after it was read (`None`: until the
    /// cache empties).
    pub fn new(cap: usize, ttl_ms: Option<u64>) -> Self {
        Bounded { map: Mutex::new(BTreeMap::new()), cap: cap.max(1), ttl_ms }
    }

    /// The entry of `k`, if kept and still good at `now_ms`.
    pub fn get<Q>(&self, k: &Q, now_ms: u64) -> Option<V>
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        let map = self.map.lock().expect("the cache lock");
        let (v, at) = map.get(k)?;
        let fresh = self.ttl_ms.is_none_or(|ttl| now_ms.saturating_sub(*at) < ttl);
        fresh.then(|| v.clone())
    }

    /// Keeps `v` for `k`, read at `now_ms` (emptying the cache first if it is full).
    pub fn insert(&self, k: K, v: V, now_ms: u64) {
        let mut map = self.map.lock().expect("the cache lock");
        if map.len() >= self.cap && !map.contains_key(&k) {
            map.clear();
        }
        map.insert(k, (v, now_ms));
    }

    /// Forgets the entry of `k` (it is known to be stale).
    pub fn remove<Q>(&self, k: &Q)
    where
        K: Borrow<Q>,
        Q: Ord + ?Sized,
    {
        self.map.lock().expect("the cache lock").remove(k);
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.map.lock().expect("the cache lock").len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn entries_last_their_time_and_a_full_cache_starts_again() {
        let c: Bounded<String, u32> = Bounded::new(2, Some(100));
        c.insert("a".into(), 1, 1_000);
        assert_eq!(c.get("a", 1_099), Some(1));
        assert_eq!(c.get("a", 1_100), None, "stale at its time to live");
        c.insert("b".into(), 2, 1_000);
        // Replacing a kept entry does not empty a full cache.
        c.insert("b".into(), 3, 1_050);
        assert_eq!(c.len(), 2);
        c.insert("c".into(), 4, 1_060);
        assert_eq!(c.len(), 1, "full: emptied, then the new entry");
        assert_eq!(c.get("c", 1_060), Some(4));
        let forever: Bounded<u32, u32> = Bounded::new(10, None);
        forever.insert(1, 1, 0);
        assert_eq!(forever.get(&1, u64::MAX), Some(1));
        assert!(!forever.is_empty());
    }
}
