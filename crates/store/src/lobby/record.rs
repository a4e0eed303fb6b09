//! A ticket as the Redis lobby stores it: its [`Record`], one field of
//! `colosseum:{lobby}:tickets` written once at its creation (every value a string: the
//! layout stored tickets have, from when a script decoded them with cjson), and its state
//! now, a short text in `colosseum:{lobby}:ticket-state` ([`state_text`]) that every later
//! change compares and writes alone. A ticket stored before the state had a field of its
//! own has its state in its record ([`Stored`] reads both).

use crate::error::StoreError;
use crate::lobby::kept::Kept;
use crate::lobby::{Ticket, TicketState};
use crate::redis_store::codec::{decode, json};
use crate::redis_store::{corrupt, keys};
use rules_core::Seat;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// A ticket as stored: strings only (see the module docs).
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

/// A ticket as read: its record and its state's field (`None` for a ticket stored before
/// the field: its record's state is its state), and the record decoded once if it was
/// kept ([`Kept`]): a pass reads thousands of tickets whose records never change.
#[derive(Clone, Debug)]
pub(crate) struct Stored {
    /// The record, as written at the ticket's creation.
    pub(crate) record: Arc<str>,
    /// The state's text ([`state_text`]), if the ticket has the field.
    pub(crate) state: Option<String>,
    /// `record` decoded, when it was kept.
    decoded: Option<Arc<Ticket>>,
}

impl Kept {
    /// `record` and its ticket.
    ///
    /// # Errors
    /// A record that does not decode.
    pub(crate) fn new(record: Arc<str>) -> Result<Kept, StoreError> {
        let decoded = Arc::new(Record::ticket(&record)?);
        Ok(Kept { record, decoded })
    }

    /// The kept record with the state read now.
    pub(crate) fn stored(&self, state: Option<String>) -> Stored {
        Stored { record: self.record.clone(), state, decoded: Some(self.decoded.clone()) }
    }
}

/// Two reads are the same when their record and state are: the decoded ticket is a copy.
impl PartialEq for Stored {
    fn eq(&self, other: &Stored) -> bool {
        self.record == other.record && self.state == other.state
    }
}

impl Eq for Stored {}

impl Stored {
    /// A record and state as read.
    pub(crate) fn new(record: impl Into<Arc<str>>, state: Option<String>) -> Stored {
        Stored { record: record.into(), state, decoded: None }
    }

    /// The ticket, in its state now.
    pub(crate) fn ticket(&self) -> Result<Ticket, StoreError> {
        let mut ticket = match &self.decoded {
            Some(t) => Ticket::clone(t),
            None => Record::ticket(&self.record)?,
        };
        if let Some(text) = &self.state {
            (ticket.state, ticket.changed_ms) = parse_state(text)?;
        }
        Ok(ticket)
    }
}

/// The text of `ticket`'s state: its name and time, and while paired or assigned its match
/// and seat (`pairing 1733400000000 <match> 0`).
pub(crate) fn state_text(ticket: &Ticket) -> String {
    let (name, match_id, seat) = Record::new_state(ticket.state);
    if match_id.is_empty() {
        format!("{name} {}", ticket.changed_ms)
    } else {
        format!("{name} {} {match_id} {seat}", ticket.changed_ms)
    }
}

/// A state's text read back: the state and its time.
fn parse_state(text: &str) -> Result<(TicketState, u64), StoreError> {
    let bad = || corrupt(keys::TICKET_STATES, format!("a ticket state {:.40?}", text));
    let mut words = text.split(' ');
    let (name, changed) = (words.next().unwrap_or_default(), words.next().ok_or_else(bad)?);
    let changed_ms = changed.parse().map_err(|_| bad())?;
    let (match_id, seat) = (words.next().unwrap_or_default(), words.next().unwrap_or_default());
    Ok((state_of(name, match_id, seat).ok_or_else(bad)?, changed_ms))
}

/// A state from its name, match and seat as [`Record::new_state`] writes them (the match
/// and seat empty unless paired); `None` if they do not make one.
fn state_of(name: &str, match_id: &str, seat: &str) -> Option<TicketState> {
    let paired = || Some((match_id.parse().ok()?, Seat::new(seat.parse().ok()?)?));
    Some(match name {
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
        _ => return None,
    })
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
        ticket.state = state_of(&r.state, &r.match_id, &r.seat).ok_or_else(|| {
            bad(format!(
                "a ticket state {:.20?} (match {:.40?}, seat {:.4?})",
                r.state, r.match_id, r.seat
            ))
        })?;
        ticket.changed_ms = r.changed.parse().map_err(|e| bad(format!("changed: {e}")))?;
        Ok(ticket)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lobby::Queue;
    use ids::{MatchId, PlayerId, TicketId};

    fn ticket(state: TicketState) -> Ticket {
        Ticket {
            id: TicketId::random(),
            player: PlayerId::random(),
            queue: Queue {
                game: "gops".into(),
                options_json: "{}".into(),
                move_time_ms: 60_000,
                rated: false,
            },
            seek: false,
            rating: 1500.0,
            idempotency_key: "k".into(),
            created_ms: 10,
            expires_ms: 100,
            state,
            changed_ms: 1_733_400_000_123,
            display_name: String::new(),
        }
    }

    /// Every state's short text reads back as the same state and time, over a record
    /// written in another state; a text that names no state is a corrupt entry.
    #[test]
    fn a_state_field_round_trips_over_the_record() {
        let (m, seat) = (MatchId::random(), Seat::ONE);
        let created = ticket(TicketState::Waiting);
        let record =
            json(&Record::new(&created, created.state, 10).expect("record")).expect("json");
        for state in [
            TicketState::Waiting,
            TicketState::Pairing { match_id: m, seat },
            TicketState::Assigned { match_id: m, seat },
            TicketState::Cancelled,
            TicketState::Expired,
        ] {
            let now = Ticket { state, ..created.clone() };
            let stored = Stored::new(record.clone(), Some(state_text(&now)));
            let kept =
                Kept::new(record.clone().into()).expect("a record").stored(stored.state.clone());
            assert_eq!(kept.ticket(), stored.ticket(), "decoded once or each time, the same");
            assert_eq!(stored.ticket(), Ok(now), "{state:?}");
        }
        assert_eq!(
            Stored::new(record.clone(), None).ticket(),
            Ok(Ticket { changed_ms: 10, ..created.clone() })
        );
        for text in ["", "waiting", "waiting soon", "pairing 5", "pairing 5 not-a-match 0", "won 5"]
        {
            let bad = Stored::new(record.clone(), Some(text.into())).ticket();
            assert!(matches!(bad, Err(StoreError::Corrupt { .. })), "{text:?}: {bad:?}");
        }
    }
}
