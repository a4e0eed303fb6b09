//! The lobby's tables in the in-memory store (accounts, rate-limit buckets, tickets,
//! ratings and boards), held in the store's one state; `memory.rs` beside this works them.

use crate::lobby::rules;
use crate::lobby::{
    Account, Board, Pairing, Queue, RatedMatch, Rating, RatingChange, TICKETS_KEPT, Ticket,
};
use ids::{MatchId, PlayerId, TicketId};
use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::time::Instant;

/// Past this many rate-limit buckets, the ended ones are dropped (Redis expires them).
pub(crate) const BUCKETS_SWEPT_PAST: usize = 10_000;

/// Everything of the lobby's, inside the store's one `State`.
#[derive(Default)]
pub(crate) struct Lobby {
    pub(crate) accounts: BTreeMap<PlayerId, Account>,
    /// Normalized email -> its account's player.
    pub(crate) emails: BTreeMap<String, PlayerId>,
    /// Rate-limit bucket -> hits in its window, and when the window ends.
    pub(crate) buckets: BTreeMap<String, (u64, Instant)>,
    pub(crate) tickets: Tickets,
    pub(crate) ratings: Ratings,
}

#[derive(Default)]
pub(crate) struct Tickets {
    /// Every ticket, as it is now.
    pub(crate) by_id: BTreeMap<TicketId, Ticket>,
    /// (player, idempotency key) -> the ticket made with it.
    pub(crate) idem: BTreeMap<(PlayerId, String), TicketId>,
    /// (player, queue key) -> the player's live ticket in that queue.
    pub(crate) live: BTreeMap<(PlayerId, String), TicketId>,
    /// Queue key -> the queue and its waiting tickets (not seeks); no empty set is kept.
    pub(crate) waiting: BTreeMap<String, (Queue, BTreeSet<TicketId>)>,
    /// The waiting seeks, by (created_ms, id): the order of Redis's sorted set.
    pub(crate) seeks: BTreeSet<(u64, TicketId)>,
    /// Player -> their tickets, by (created_ms, id).
    pub(crate) of_player: BTreeMap<PlayerId, BTreeSet<(u64, TicketId)>>,
    /// The pending pairings.
    pub(crate) pairings: BTreeMap<MatchId, Pairing>,
    /// The players whose tickets the operation under way changed: announced at its end.
    pub(crate) changed: BTreeSet<PlayerId>,
}

#[derive(Default)]
pub(crate) struct Ratings {
    /// Every match a rated pairing made, until it is rated (as on Redis: its absence
    /// makes a repeated result change nothing).
    pub(crate) rated: BTreeMap<MatchId, RatedMatch>,
    /// Those whose result is not recorded yet.
    pub(crate) unrated: BTreeSet<MatchId>,
    /// (game, player) -> rating.
    pub(crate) ratings: BTreeMap<(String, PlayerId), Rating>,
    /// (game, board) -> player -> score.
    pub(crate) boards: BTreeMap<(String, Board), BTreeMap<PlayerId, f64>>,
    /// (game, player) -> history lines, newest first.
    pub(crate) history: BTreeMap<(String, PlayerId), VecDeque<RatingChange>>,
}

impl Tickets {
    /// Takes a ticket out of its queue, or a seek off the list.
    pub(crate) fn unlist(&mut self, t: &Ticket) {
        if t.seek {
            self.seeks.remove(&(t.created_ms, t.id));
            return;
        }
        let key = t.queue.key();
        if let Some((_, ids)) = self.waiting.get_mut(&key) {
            ids.remove(&t.id);
            if ids.is_empty() {
                self.waiting.remove(&key);
            }
        }
    }

    /// Puts a waiting ticket in its queue, or a seek on the list.
    pub(crate) fn list(&mut self, t: &Ticket) {
        if t.seek {
            self.seeks.insert((t.created_ms, t.id));
        } else {
            let (_, ids) = self
                .waiting
                .entry(t.queue.key())
                .or_insert_with(|| (t.queue.clone(), BTreeSet::new()));
            ids.insert(t.id);
        }
    }

    /// The ticket ended: the player may queue again.
    pub(crate) fn unlive(&mut self, t: &Ticket) {
        let key = (t.player, t.queue.key());
        if self.live.get(&key) == Some(&t.id) {
            self.live.remove(&key);
        }
    }

    /// Lists a new ticket among its player's, and forgets the oldest ended ones past
    /// [`TICKETS_KEPT`].
    pub(crate) fn remember(&mut self, t: &Ticket) {
        let Tickets { by_id, idem, of_player, .. } = self;
        let mine = of_player.entry(t.player).or_default();
        mine.insert((t.created_ms, t.id));
        let listed: Vec<_> = mine.iter().map(|(_, id)| (*id, by_id.get(id))).collect();
        let forgotten = rules::forget(&listed, TICKETS_KEPT);
        mine.retain(|(_, id)| !forgotten.contains(id));
        for id in forgotten {
            if let Some(old) = by_id.remove(&id) {
                let key = (old.player, old.idempotency_key);
                if idem.get(&key) == Some(&old.id) {
                    idem.remove(&key);
                }
            }
        }
    }

    /// Stores `ticket` as it is now (its state and time as decided).
    pub(crate) fn save(&mut self, ticket: &Ticket) {
        if rules::pushed(ticket.state) {
            self.changed.insert(ticket.player);
        }
        self.by_id.insert(ticket.id, ticket.clone());
    }

    /// Stores a pending pairing (and, for a rated queue, its rated match).
    pub(crate) fn store_pairing(&mut self, ratings: &mut Ratings, pairing: &Pairing) {
        self.pairings.insert(pairing.match_id, pairing.clone());
        if pairing.queue.rated {
            let rated = RatedMatch { game: pairing.queue.game.clone(), players: pairing.players };
            ratings.rated.insert(pairing.match_id, rated);
            ratings.unrated.insert(pairing.match_id);
        }
    }
}

impl Ratings {
    /// Puts `player` on `board` (off the others) with `score`, or on none.
    pub(crate) fn place(&mut self, game: &str, player: PlayerId, board: Option<Board>, score: f64) {
        for b in Board::ALL {
            let entries = self.boards.entry((game.to_string(), b)).or_default();
            if Some(b) == board {
                entries.insert(player, score);
            } else {
                entries.remove(&player);
            }
        }
    }

    /// A board, best first; equal scores by player id descending (Redis's `ZREVRANGE`).
    pub(crate) fn ranked(&self, game: &str, board: Board) -> Vec<(PlayerId, f64)> {
        let mut ranked: Vec<(PlayerId, f64)> = self
            .boards
            .get(&(game.to_string(), board))
            .map(|b| b.iter().map(|(p, s)| (*p, *s)).collect())
            .unwrap_or_default();
        ranked.sort_by(|a, b| {
            b.1.partial_cmp(&a.1).unwrap_or(std::cmp::Ordering::Equal).then(b.0.cmp(&a.0))
        });
        ranked
    }
}

impl Lobby {
    /// An account's display name as it is now.
    pub(crate) fn account_name(&self, player: PlayerId) -> Option<String> {
        self.accounts.get(&player).map(|a| a.display_name.clone())
    }
}
