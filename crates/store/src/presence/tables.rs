//! The seats' presence leases in the in-memory store, held in the store's one state;
//! `memory.rs` beside this works them.

use ids::MatchId;
use std::collections::BTreeMap;

/// Every seat's leases: (match, seat index) -> holder -> expiry (Unix ms).
pub(crate) type Leases = BTreeMap<(MatchId, usize), BTreeMap<String, u64>>;

/// Whether a lease of `leases` is live at `now_ms`; run-out ones are dropped.
pub(crate) fn live(leases: &mut BTreeMap<String, u64>, now_ms: u64) -> bool {
    leases.retain(|_, expiry| *expiry > now_ms);
    !leases.is_empty()
}
