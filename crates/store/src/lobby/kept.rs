//! What the Redis lobby keeps of a ticket record it has read: the record (written once, at
//! the ticket's creation) and the ticket it decodes to, so a pass over thousands of
//! waiting tickets decodes none it has read before. Built and read in `record.rs`; kept in
//! the store's bounded cache (`redis_store`).

use crate::lobby::Ticket;
use std::sync::Arc;

/// A record and the ticket it decodes to.
#[derive(Clone, Debug)]
pub(crate) struct Kept {
    pub(crate) record: Arc<str>,
    pub(crate) decoded: Arc<Ticket>,
}
