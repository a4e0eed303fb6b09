//! The lobby's writes through the store's compare-and-set ([`Cas`]): a ticket's record, its
//! state and its indexes, as `tables.rs` keeps them in memory, its pairing and its
//! announcement.

use crate::error::StoreError;
use crate::lobby::record::{Record, Stored, state_text};
use crate::lobby::rules;
use crate::lobby::{Pairing, RatedMatch, Ticket};
use crate::redis_store::cas::Cas;
use crate::redis_store::codec::json;
use crate::redis_store::keys;
use ids::PlayerId;

impl Cas {
    /// Writes only if the ticket `id` is still as `read` (`None`: no such ticket): its
    /// state's field, and for a ticket stored before that field, its record.
    pub(crate) fn expect_ticket(&mut self, id: &str, read: Option<&Stored>) {
        match read {
            None => self.expect(keys::TICKETS, id, None),
            Some(Stored { state: Some(state), .. }) => {
                self.expect(keys::TICKET_STATES, id, Some(state));
            }
            Some(Stored { record, state: None, .. }) => {
                self.expect(keys::TICKET_STATES, id, None);
                self.expect(keys::TICKETS, id, Some(record));
            }
        }
    }

    /// Stores a new `ticket`: its record and its state.
    pub(crate) fn save(&mut self, ticket: &Ticket) -> Result<(), StoreError> {
        let record = json(&Record::new(ticket, ticket.state, ticket.changed_ms)?)?;
        self.write("HSET", keys::TICKETS, &[&ticket.id.to_string(), &record]);
        self.save_state(ticket);
        Ok(())
    }

    /// Stores `ticket`'s state now, over `old` as read (a new ticket if none): the state's
    /// short field alone, the record as it was written at the creation.
    pub(crate) fn save_over(
        &mut self,
        old: Option<&Stored>,
        ticket: &Ticket,
    ) -> Result<(), StoreError> {
        match old {
            None => self.save(ticket),
            Some(_) => {
                self.save_state(ticket);
                Ok(())
            }
        }
    }

    /// Writes `ticket`'s state field, and announces its player if the state is pushed.
    fn save_state(&mut self, ticket: &Ticket) {
        self.write("HSET", keys::TICKET_STATES, &[&ticket.id.to_string(), &state_text(ticket)]);
        if rules::pushed(ticket.state) {
            self.announce(ticket.player);
        }
    }

    /// Forgets the ticket `id`: its record and its state.
    pub(crate) fn forget(&mut self, id: &str) {
        self.write("HDEL", keys::TICKETS, &[id]);
        self.write("HDEL", keys::TICKET_STATES, &[id]);
    }

    /// Takes a ticket out of its queue (the queue off the list when it empties), or a
    /// seek off the list.
    pub(crate) fn unlist(&mut self, ticket: &Ticket) {
        let id = ticket.id.to_string();
        if ticket.seek {
            self.write("ZREM", keys::SEEKS, &[&id]);
        } else {
            let queue = ticket.queue.key();
            let queues = self.key(keys::QUEUES);
            self.write("UNQUEUE", &keys::waiting(&queue), &[&id, &queues, &queue]);
        }
    }

    /// Puts a waiting ticket in its queue, or a seek on the list.
    pub(crate) fn list(&mut self, ticket: &Ticket) -> Result<(), StoreError> {
        let id = ticket.id.to_string();
        if ticket.seek {
            self.write("ZADD", keys::SEEKS, &[&ticket.created_ms.to_string(), &id]);
        } else {
            let queue = ticket.queue.key();
            self.write("SADD", &keys::waiting(&queue), &[&id]);
            self.write("HSET", keys::QUEUES, &[&queue, &json(&ticket.queue)?]);
        }
        Ok(())
    }

    /// The ticket ended: its player may queue again.
    pub(crate) fn unlive(&mut self, ticket: &Ticket) {
        let field = keys::live_field(ticket.player, &ticket.queue.key());
        self.write("HDELEQ", keys::LIVE, &[&field, &ticket.id.to_string()]);
    }

    /// Stores a pending pairing and, for a rated queue, its rated match.
    pub(crate) fn store_pairing(&mut self, pairing: &Pairing) -> Result<(), StoreError> {
        let id = pairing.match_id.to_string();
        self.write("HSET", keys::PAIRINGS, &[&id, &json(pairing)?]);
        if pairing.queue.rated {
            let rated = RatedMatch { game: pairing.queue.game.clone(), players: pairing.players };
            self.write("HSET", keys::RATED_MATCHES, &[&id, &json(&rated)?]);
            self.write("SADD", keys::UNRATED, &[&id]);
        }
        Ok(())
    }

    /// Announces `player` on the ticket feed once, after the writes before it.
    pub(crate) fn announce(&mut self, player: PlayerId) {
        self.publish_once(keys::TICKET_CHANGES, player.to_string());
    }
}
