//! A ticket as the Redis lobby stores it: [`Record`], one field of
//! `colosseum:{lobby}:tickets` whose every value is a string, so `create_ticket.lua` can
//! decode and re-encode it with cjson exactly; `cas.lua` only compares its text.

use crate::error::StoreError;
use crate::lobby::{Ticket, TicketState};
use crate::redis_store::codec::{decode, json};
use crate::redis_store::{corrupt, keys};
use ids::MatchId;
use rules_core::Seat;
use serde::{Deserialize, Serialize};

/// A ticket as the scripts see it: strings only (see the module docs and
/// `prelude.lua`).
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    /// The ticket as created, JSON; its `state` and `changed_ms` are the fields below.
    pub(crate) t: String,
    /// The queue's JSON, for `colosseum:{lobby}:queues` when the ticket is listed again.
    pub(crate) q: String,
    /// The queue key.
    pub(crate) queue: String,
    pub(crate) player: String,
    /// `1` for a seek, `0` for a queued ticket.
    pub(crate) seek: String,
    /// Created, Unix ms (the score in the player's list and the seek list).
    pub(crate) created: String,
    /// Expires, Unix ms.
    pub(crate) expires: String,
    /// Its field in `colosseum:{lobby}:idem`.
    pub(crate) idem: String,
    /// Its field in `colosseum:{lobby}:live`.
    pub(crate) live: String,
    /// `waiting`, `pairing`, `assigned`, `cancelled` or `expired`.
    pub(crate) state: String,
    /// The state's time, Unix ms.
    pub(crate) changed: String,
    /// The match, while pairing or assigned; else empty.
    #[serde(rename = "match")]
    pub(crate) match_id: String,
    /// The seat (`0`/`1`), while pairing or assigned; else empty.
    pub(crate) seat: String,
}

impl Record {
    /// The record of `ticket` in `state` at `changed_ms`.
    pub(crate) fn new(
        ticket: &Ticket,
        state: TicketState,
        changed_ms: u64,
    ) -> Result<Record, StoreError> {
        let queue = ticket.queue.key();
        let (state, match_id, seat) = Record::new_state(state);
        Ok(Record {
            t: json(ticket)?,
            q: json(&ticket.queue)?,
            live: keys::live_field(ticket.player, &queue),
            idem: keys::idem_field(ticket.player, &ticket.idempotency_key),
            queue,
            player: ticket.player.to_string(),
            seek: if ticket.seek { "1" } else { "0" }.into(),
            created: ticket.created_ms.to_string(),
            expires: ticket.expires_ms.to_string(),
            state: state.into(),
            changed: changed_ms.to_string(),
            match_id,
            seat,
        })
    }

    /// The stored record `old` with `ticket`'s state and time: the rest (the ticket as
    /// created, its queue, its index fields) kept as it is, not encoded again.
    pub(crate) fn moved(old: &str, ticket: &Ticket) -> Result<String, StoreError> {
        let mut r: Record = decode(keys::TICKETS, old)?;
        let fresh = Record::new_state(ticket.state);
        (r.state, r.match_id, r.seat) = (fresh.0.into(), fresh.1, fresh.2);
        r.changed = ticket.changed_ms.to_string();
        json(&r)
    }

    /// A state's fields in a record: its name, the match and the seat (empty unless paired).
    fn new_state(state: TicketState) -> (&'static str, String, String) {
        match state {
            TicketState::Waiting => ("waiting", String::new(), String::new()),
            TicketState::Pairing { match_id, seat } => {
                ("pairing", match_id.to_string(), seat.index().to_string())
            }
            TicketState::Assigned { match_id, seat } => {
                ("assigned", match_id.to_string(), seat.index().to_string())
            }
            TicketState::Cancelled => ("cancelled", String::new(), String::new()),
            TicketState::Expired => ("expired", String::new(), String::new()),
        }
    }

    /// The ticket a stored record holds, in the record's state.
    pub(crate) fn ticket(text: &str) -> Result<Ticket, StoreError> {
        let bad = |what: String| corrupt(keys::TICKETS, what);
        let r: Record = decode(keys::TICKETS, text)?;
        let mut ticket: Ticket = decode(keys::TICKETS, &r.t)?;
        let paired = || -> Result<(MatchId, Seat), StoreError> {
            let match_id = r.match_id.parse().map_err(|e| bad(format!("{e}")))?;
            let seat = r.seat.parse().ok().and_then(Seat::new);
            Ok((match_id, seat.ok_or_else(|| bad(format!("a seat {:?}", r.seat)))?))
        };
        ticket.state = match r.state.as_str() {
            "waiting" => TicketState::Waiting,
            "pairing" => {
                let (match_id, seat) = paired()?;
                TicketState::Pairing { match_id, seat }
            }
            "assigned" => {
                let (match_id, seat) = paired()?;
                TicketState::Assigned { match_id, seat }
            }
            "cancelled" => TicketState::Cancelled,
            "expired" => TicketState::Expired,
            other => return Err(bad(format!("a ticket state {other:?}"))),
        };
        ticket.changed_ms = r.changed.parse().map_err(|e| bad(format!("changed: {e}")))?;
        Ok(ticket)
    }
}
