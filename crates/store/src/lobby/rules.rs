//! The lobby's rules, decided once: pure functions from what a store read (tickets,
//! pairings, ratings) to what it should write. No I/O; both stores call them and only
//! sequence: read, decide here, write only if what was read is still current.

use crate::error::StoreError;
use crate::lobby::{
    Pairing, RateDecision, RatingUpdate, Recorded, SeekAccepted, Ticket, TicketCreated, TicketState,
};
use ids::{MatchId, PlayerId, TicketId};
use rules_core::Seat;

/// What [`cancel`] decided.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Cancel {
    /// No such ticket of this player's: answer `None`.
    NotFound,
    /// Not waiting: answer it unchanged.
    Unchanged(Ticket),
    /// Cancelled: the ticket after (unlisted, no longer live).
    Cancelled(Ticket),
}

/// A player cancels `ticket` at `now_ms`: only a waiting ticket of theirs is cancelled.
pub(crate) fn cancel(ticket: Option<&Ticket>, player: PlayerId, now_ms: u64) -> Cancel {
    match ticket {
        Some(t) if t.player == player => match t.state {
            TicketState::Waiting => Cancel::Cancelled(moved(t, TicketState::Cancelled, now_ms)),
            TicketState::Pairing { .. }
            | TicketState::Assigned { .. }
            | TicketState::Cancelled
            | TicketState::Expired => Cancel::Unchanged(t.clone()),
        },
        _ => Cancel::NotFound,
    }
}

/// The ticket after expiring at `now_ms`, if it expires: still waiting and due.
pub(crate) fn expire(ticket: &Ticket, now_ms: u64) -> Option<Ticket> {
    (ticket.state == TicketState::Waiting && ticket.expires_ms <= now_ms)
        .then(|| moved(ticket, TicketState::Expired, now_ms))
}

/// Whether `pairing` can be made at `now_ms` from `tickets` (seat 0's, seat 1's, as
/// stored) with `pending` saying whether its match is a pending pairing already: two
/// distinct tickets, both waiting, unexpired, not seeks, of its players and queue.
pub(crate) fn can_pair(
    pairing: &Pairing,
    tickets: [Option<&Ticket>; 2],
    pending: bool,
    now_ms: u64,
) -> bool {
    let queue = pairing.queue.key();
    pairing.tickets[0] != pairing.tickets[1]
        && !pending
        && Seat::BOTH.iter().all(|seat| {
            tickets[seat.index()].is_some_and(|t| {
                t.id == pairing.tickets[seat.index()]
                    && t.state == TicketState::Waiting
                    && !t.seek
                    && t.expires_ms > now_ms
                    && t.player == pairing.players[seat.index()]
                    && t.queue.key() == queue
            })
        })
}

/// The two tickets after `pairing` is made at `now_ms` (see [`can_pair`]): each
/// `Pairing` in its match, at its seat.
pub(crate) fn paired(pairing: &Pairing, tickets: [&Ticket; 2], now_ms: u64) -> [Ticket; 2] {
    Seat::BOTH.map(|seat| {
        let state = TicketState::Pairing { match_id: pairing.match_id, seat };
        moved(tickets[seat.index()], state, now_ms)
    })
}

/// How a pending pairing ends.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Settle {
    /// Its match exists: its tickets become `Assigned`.
    Assign,
    /// Its match cannot be made: its tickets wait again.
    Unpair,
}

/// The tickets a pending pairing of `match_id` moves when it settles at `now_ms`, after:
/// of `tickets` (as stored), those still `Pairing` in that match. (The pairing itself is
/// dropped, and on [`Settle::Unpair`] its rated match too.)
pub(crate) fn settle(
    match_id: MatchId,
    tickets: &[Option<Ticket>],
    how: Settle,
    now_ms: u64,
) -> Vec<Ticket> {
    tickets
        .iter()
        .flatten()
        .filter_map(|t| match t.state {
            TicketState::Pairing { match_id: m, seat } if m == match_id => {
                let state = match how {
                    Settle::Assign => TicketState::Assigned { match_id, seat },
                    Settle::Unpair => TicketState::Waiting,
                };
                Some(moved(t, state, now_ms))
            }
            // Another pairing's ticket, or one no longer pairing: not this settlement's.
            TicketState::Pairing { .. }
            | TicketState::Waiting
            | TicketState::Assigned { .. }
            | TicketState::Cancelled
            | TicketState::Expired => None,
        })
        .collect()
}

/// What a store read for [`accept_seek`].
pub(crate) struct SeekRead<'a> {
    /// The ticket the accepter's idempotency key names, if any (and stored).
    pub(crate) before: Option<&'a Ticket>,
    /// The seek, if stored.
    pub(crate) seek: Option<&'a Ticket>,
    /// Whether the pairing's match is pending already.
    pub(crate) pending: bool,
    /// Whether a ticket with the accepter's id is stored.
    pub(crate) id_taken: bool,
    /// The accepter's live ticket in the queue, if any (and stored).
    pub(crate) live: Option<&'a Ticket>,
}

/// What [`accept_seek`] decided.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Accept {
    /// Answer this, and change nothing.
    Answer(SeekAccepted),
    /// Pair: store the seek and the accepter's ticket as these (both `Pairing`), and the
    /// pairing.
    Pair {
        /// The seek after.
        seek: Ticket,
        /// The accepter's ticket as stored.
        accepter: Ticket,
    },
}

/// The seats of `seek` and of `accepter` in `pairing`: the pairing names the two tickets,
/// and the accepter is a non-seek ticket of the pairing's queue and player.
///
/// # Errors
/// [`StoreError::InvalidArgument`] otherwise.
pub(crate) fn accept_seats(
    seek: TicketId,
    accepter: &Ticket,
    pairing: &Pairing,
) -> Result<(Seat, Seat), StoreError> {
    let seat_of = |id: TicketId| Seat::BOTH.into_iter().find(|s| pairing.tickets[s.index()] == id);
    match (seat_of(seek), seat_of(accepter.id)) {
        (Some(s), Some(a))
            if s != a
                && !accepter.seek
                && accepter.queue == pairing.queue
                && pairing.players[a.index()] == accepter.player =>
        {
            Ok((s, a))
        }
        _ => Err(StoreError::InvalidArgument(
            "the pairing must seat the seek and the accepter, a non-seek ticket of its queue",
        )),
    }
}

/// `accepter` accepts the seek `read.seek` into `pairing` at `pairing.paired_ms`: a retry
/// of its key answers that ticket; the seek must be a waiting, unexpired seek of the
/// pairing's player and queue whose match is not pending; the accepter's id must be free
/// and the accepter have no live ticket in the queue.
///
/// # Errors
/// [`StoreError::InvalidArgument`] if the pairing does not seat the two (see
/// [`accept_seats`]), names another player or queue than the seek's, or the accepter's id
/// is taken.
pub(crate) fn accept_seek(
    seek: TicketId,
    accepter: &Ticket,
    pairing: &Pairing,
    read: &SeekRead<'_>,
) -> Result<Accept, StoreError> {
    let (seek_seat, accepter_seat) = accept_seats(seek, accepter, pairing)?;
    if let Some(before) = read.before {
        return Ok(Accept::Answer(SeekAccepted::Duplicate(before.clone())));
    }
    let Some(listed) = read.seek else { return Ok(Accept::Answer(SeekAccepted::Gone(None))) };
    if listed.player != pairing.players[seek_seat.index()]
        || listed.queue.key() != pairing.queue.key()
    {
        return Err(StoreError::InvalidArgument(
            "the pairing names another seek's player or queue",
        ));
    }
    if !listed.seek
        || listed.state != TicketState::Waiting
        || listed.expires_ms <= pairing.paired_ms
        || read.pending
    {
        return Ok(Accept::Answer(SeekAccepted::Gone(Some(listed.clone()))));
    }
    if read.id_taken {
        return Err(StoreError::InvalidArgument("the ticket id is taken"));
    }
    if let Some(live) = read.live {
        return Ok(Accept::Answer(SeekAccepted::LiveInQueue(live.clone())));
    }
    let now_ms = pairing.paired_ms;
    let state = |seat| TicketState::Pairing { match_id: pairing.match_id, seat };
    Ok(Accept::Pair {
        seek: moved(listed, state(seek_seat), now_ms),
        accepter: moved(accepter, state(accepter_seat), now_ms),
    })
}

/// Whether a rated result applies: the match must be a rated match waiting for its
/// result (`waiting`), and each player's games count (`games`, 0 for one never rated, in
/// `updates`' order) what its update was computed from.
pub(crate) fn record_result(
    waiting: bool,
    games: [u64; 2],
    updates: &[RatingUpdate; 2],
) -> Recorded {
    if !waiting {
        Recorded::AlreadyApplied
    } else if updates.iter().zip(games).any(|(u, g)| u.expect_games != g) {
        Recorded::Stale
    } else {
        Recorded::Applied
    }
}

/// Whether a ticket's change to `state` is pushed to its player (the ticket feed): every
/// state but PAIRING, which ASSIGNED (or, if the match is not made, WAITING again)
/// follows within seconds; a read shows it.
pub(crate) fn pushed(state: TicketState) -> bool {
    match state {
        TicketState::Pairing { .. } => false,
        TicketState::Waiting
        | TicketState::Assigned { .. }
        | TicketState::Cancelled
        | TicketState::Expired => true,
    }
}

/// What [`create`] decided.
#[derive(Clone, PartialEq, Debug)]
pub(crate) enum Create {
    /// Answer this, and change nothing.
    Answer(TicketCreated),
    /// Store this ticket (waiting), with its indexes.
    Store(Ticket),
}

/// Creating `ticket`, given the ticket its idempotency key made (`by_key`, if stored), the
/// player's live ticket in its queue (`live`) and whether its id is `taken`: the key's
/// ticket answers a retry (the same queue and kind: a duplicate; else the key reused);
/// one live ticket per player and queue; else it is stored, waiting.
///
/// # Errors
/// [`StoreError::InvalidArgument`] if the id is taken by another ticket.
pub(crate) fn create(
    ticket: &Ticket,
    by_key: Option<&Ticket>,
    live: Option<&Ticket>,
    taken: bool,
) -> Result<Create, StoreError> {
    if let Some(before) = by_key {
        let same = before.queue == ticket.queue && before.seek == ticket.seek;
        return Ok(Create::Answer(if same {
            TicketCreated::Duplicate(before.clone())
        } else {
            TicketCreated::KeyReused(before.clone())
        }));
    }
    if let Some(live) = live {
        return Ok(Create::Answer(TicketCreated::LiveInQueue(live.clone())));
    }
    if taken {
        return Err(StoreError::InvalidArgument("the ticket id is taken"));
    }
    Ok(Create::Store(Ticket { state: TicketState::Waiting, ..ticket.clone() }))
}

/// Of a player's tickets, oldest first, the ones to forget once `kept` are kept: the
/// oldest ended ones past `kept` (a live ticket is never forgotten). `None` for a ticket
/// listed but no longer stored (forgotten too).
pub(crate) fn forget(tickets: &[(TicketId, Option<&Ticket>)], kept: usize) -> Vec<TicketId> {
    let excess = tickets.len().saturating_sub(kept);
    tickets
        .iter()
        .filter(|(_, t)| !t.is_some_and(|t| t.state.is_live()))
        .take(excess)
        .map(|(id, _)| *id)
        .collect()
}

/// A fixed-window rate limit: the window's `hits` (this one counted) against `limit`, with
/// `left_ms` until the window ends; a limited caller waits at least 1 ms.
pub(crate) fn rate_limit(hits: u64, limit: u32, left_ms: u64) -> RateDecision {
    if hits <= u64::from(limit) {
        RateDecision::Allowed
    } else {
        RateDecision::Limited { retry_after_ms: left_ms.max(1) }
    }
}

/// `ticket` moved to `state` at `now_ms`.
fn moved(ticket: &Ticket, state: TicketState, now_ms: u64) -> Ticket {
    Ticket { state, changed_ms: now_ms, ..ticket.clone() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lobby::{Queue, Rating, RatingChange};
    use uuid::Uuid;

    fn tid(n: u128) -> TicketId {
        TicketId(Uuid::from_u128(n))
    }

    fn pid(n: u128) -> PlayerId {
        PlayerId(Uuid::from_u128(n))
    }

    fn mid(n: u128) -> MatchId {
        MatchId(Uuid::from_u128(n))
    }

    fn queue() -> Queue {
        Queue { game: "gops".into(), options_json: "{}".into(), move_time_ms: 1000, rated: true }
    }

    fn ticket(n: u128, seek: bool) -> Ticket {
        Ticket {
            id: tid(n),
            player: pid(n),
            queue: queue(),
            seek,
            rating: 1500.0,
            idempotency_key: format!("k{n}"),
            created_ms: 10,
            expires_ms: 100,
            state: TicketState::Waiting,
            changed_ms: 10,
            display_name: String::new(),
        }
    }

    fn pairing(a: &Ticket, b: &Ticket) -> Pairing {
        Pairing {
            match_id: mid(99),
            queue: queue(),
            tickets: [a.id, b.id],
            players: [a.player, b.player],
            paired_ms: 50,
        }
    }

    #[test]
    fn only_a_waiting_ticket_of_the_player_is_cancelled() {
        let t = ticket(1, false);
        assert_eq!(cancel(None, t.player, 20), Cancel::NotFound);
        assert_eq!(cancel(Some(&t), pid(2), 20), Cancel::NotFound);
        let Cancel::Cancelled(after) = cancel(Some(&t), t.player, 20) else { panic!() };
        assert_eq!((after.state, after.changed_ms), (TicketState::Cancelled, 20));
        assert_eq!(cancel(Some(&after), t.player, 30), Cancel::Unchanged(after.clone()));
    }

    #[test]
    fn a_waiting_ticket_expires_when_due() {
        let t = ticket(1, false);
        assert_eq!(expire(&t, 99), None);
        assert_eq!(expire(&t, 100).map(|t| t.state), Some(TicketState::Expired));
        let taken = Ticket { state: TicketState::Cancelled, ..t };
        assert_eq!(expire(&taken, 200), None);
    }

    #[test]
    fn a_pairing_needs_two_waiting_tickets_of_its_players_and_queue() {
        let (a, b) = (ticket(1, false), ticket(2, false));
        let p = pairing(&a, &b);
        assert!(can_pair(&p, [Some(&a), Some(&b)], false, 50));
        assert!(!can_pair(&p, [Some(&a), Some(&b)], true, 50), "pending already");
        assert!(!can_pair(&p, [Some(&a), Some(&b)], false, 100), "expired");
        assert!(!can_pair(&p, [Some(&a), None], false, 50), "missing");
        assert!(!can_pair(&pairing(&a, &a), [Some(&a), Some(&a)], false, 50), "the same ticket");
        let s = ticket(2, true);
        assert!(!can_pair(&pairing(&a, &s), [Some(&a), Some(&s)], false, 50), "a seek");
        let other = Pairing { players: [b.player, a.player], ..p.clone() };
        assert!(!can_pair(&other, [Some(&a), Some(&b)], false, 50), "another player");
        let [pa, pb] = paired(&p, [&a, &b], 50);
        assert_eq!(pb.state, TicketState::Pairing { match_id: p.match_id, seat: Seat::ONE });
        assert!(!can_pair(&p, [Some(&pa), Some(&pb)], false, 50), "paired already");
    }

    #[test]
    fn settling_moves_only_the_tickets_pairing_in_the_match() {
        let (a, b) = (ticket(1, false), ticket(2, false));
        let p = pairing(&a, &b);
        let [pa, _] = paired(&p, [&a, &b], 50);
        let assigned =
            settle(p.match_id, &[Some(pa.clone()), Some(b.clone()), None], Settle::Assign, 60);
        assert_eq!(assigned.len(), 1);
        assert_eq!(
            assigned[0].state,
            TicketState::Assigned { match_id: p.match_id, seat: Seat::ZERO }
        );
        let waiting = settle(p.match_id, &[Some(pa)], Settle::Unpair, 60);
        assert_eq!((waiting[0].state, waiting[0].changed_ms), (TicketState::Waiting, 60));
    }

    #[test]
    fn a_seek_is_accepted_once_and_only_while_waiting() {
        let (s, a) = (ticket(1, true), ticket(2, false));
        let p = pairing(&s, &a);
        let read =
            |seek| SeekRead { before: None, seek, pending: false, id_taken: false, live: None };
        let Ok(Accept::Pair { seek, accepter }) = accept_seek(s.id, &a, &p, &read(Some(&s))) else {
            panic!()
        };
        assert_eq!(seek.state, TicketState::Pairing { match_id: p.match_id, seat: Seat::ZERO });
        assert_eq!(accepter.changed_ms, p.paired_ms);
        let gone = accept_seek(s.id, &a, &p, &read(Some(&seek))).unwrap();
        assert_eq!(gone, Accept::Answer(SeekAccepted::Gone(Some(seek.clone()))));
        assert_eq!(
            accept_seek(s.id, &a, &p, &read(None)).unwrap(),
            Accept::Answer(SeekAccepted::Gone(None))
        );
        let dup = SeekRead { before: Some(&accepter), ..read(Some(&s)) };
        assert_eq!(
            accept_seek(s.id, &a, &p, &dup).unwrap(),
            Accept::Answer(SeekAccepted::Duplicate(accepter.clone()))
        );
        let taken = SeekRead { id_taken: true, ..read(Some(&s)) };
        assert!(accept_seek(s.id, &a, &p, &taken).is_err());
        let live = SeekRead { live: Some(&accepter), ..read(Some(&s)) };
        assert_eq!(
            accept_seek(s.id, &a, &p, &live).unwrap(),
            Accept::Answer(SeekAccepted::LiveInQueue(accepter.clone()))
        );
        let late = Pairing { paired_ms: 100, ..p.clone() };
        assert!(matches!(
            accept_seek(s.id, &a, &late, &read(Some(&s))),
            Ok(Accept::Answer(SeekAccepted::Gone(Some(_))))
        ));
        assert!(accept_seek(a.id, &a, &p, &read(Some(&s))).is_err(), "not seated");
    }

    #[test]
    fn a_result_applies_once_and_on_the_counts_it_was_computed_from() {
        let update = |n: u128, games| RatingUpdate {
            player: pid(n),
            expect_games: games,
            after: Rating {
                rating: 1500.0,
                deviation: 300.0,
                volatility: 0.06,
                games: 1,
                updated_ms: 1,
            },
            board: None,
            change: RatingChange {
                match_id: mid(9),
                rating: 1500.0,
                before: Some(1500.0),
                deviation: 300.0,
                score: 1.0,
                opponent_rating: 1500.0,
                at_ms: 1,
            },
        };
        let updates = [update(1, 0), update(2, 3)];
        assert_eq!(record_result(true, [0, 3], &updates), Recorded::Applied);
        assert_eq!(record_result(true, [0, 4], &updates), Recorded::Stale);
        assert_eq!(record_result(false, [0, 3], &updates), Recorded::AlreadyApplied);
    }

    #[test]
    fn a_hit_over_the_limit_waits_for_the_window() {
        assert_eq!(rate_limit(3, 3, 500), RateDecision::Allowed);
        assert_eq!(rate_limit(4, 3, 500), RateDecision::Limited { retry_after_ms: 500 });
        assert_eq!(rate_limit(4, 3, 0), RateDecision::Limited { retry_after_ms: 1 });
    }

    #[test]
    fn only_the_oldest_ended_tickets_past_the_kept_are_forgotten() {
        let live = ticket(1, false);
        let ended = Ticket { state: TicketState::Expired, ..ticket(2, false) };
        let id = tid;
        let list =
            [(id(1), Some(&live)), (id(2), Some(&ended)), (id(3), None), (id(4), Some(&ended))];
        assert_eq!(forget(&list, 4), Vec::<TicketId>::new());
        assert_eq!(forget(&list, 2), vec![id(2), id(3)]);
        assert_eq!(forget(&list, 0), vec![id(2), id(3), id(4)]);
    }
}
