//! Queues and tickets as the API speaks of them: a `QueueSpec` checked into a
//! [`Queue`] (known game, canonical options, a time `games::time` allows a queue), time to
//! live, the ticket as a client sees it, and the match a pairing creates.

use crate::error::Error;
use api::v1;
use api_convert::text::{MAX_GAME_LEN, MAX_OPTIONS_JSON_BYTES, at_most};
use rules_core::Seed;
use store::{MatchId, Pairing, Queue, Ticket, TicketId, TicketState};

/// The shortest time to live of a ticket, s.
pub const MIN_TTL_S: u32 = 30;
/// The longest, s: a week.
pub const MAX_TTL_S: u32 = 7 * 24 * 3600;
/// The default time to live below an hour per move, s.
pub const REALTIME_TTL_S: u32 = 300;
/// Per-move times from this one up are correspondence: their tickets wait a week.
pub const CORRESPONDENCE_FROM_MS: u64 = 3_600_000;

/// The queue a spec names.
///
/// # Errors
/// INVALID_ARGUMENT: no spec, a field over its bound, an unknown game, options the game
/// refuses, or a per-move time outside a minute to a week or not the one the rules fix.
pub fn queue_of(spec: Option<v1::QueueSpec>) -> Result<Queue, Error> {
    let spec = spec.ok_or_else(|| api_convert::bad("queue", "queue is required".into()))?;
    at_most("queue.game", spec.game.len(), MAX_GAME_LEN, "bytes")?;
    at_most("queue.options_json", spec.options_json.len(), MAX_OPTIONS_JSON_BYTES, "bytes")?;
    if games::registry::info(&spec.game).is_none() {
        return Err(Error::BadQueue(format!(
            "no game {}; the games are {}",
            service_kit::status::clip(&spec.game),
            games::registry::names()
        )));
    }
    // The options as the rules read them, written back canonically, so that options that
    // mean the same make one queue.
    let host = games::host::start_text(&spec.game, &spec.options_json, Seed::ZERO)
        .map_err(|e| Error::BadQueue(service_kit::status::truncate(e.to_string(), 200)))?;
    let options = host.options_json();
    // The lobby's policy, in the games registry with the others: a minute to a week.
    let move_time_ms =
        games::time::accept(&spec.game, &options, spec.move_time_ms, games::time::Policy::Queued)
            .map_err(|e| api_convert::bad("queue.move_time_ms", e.message("queue.move_time_ms")))?;
    Ok(Queue {
        game: spec.game,
        options_json: options.to_string(),
        move_time_ms,
        rated: spec.rated,
    })
}

/// A ticket's time to live, ms: `ttl_seconds` within bounds, or the queue's default.
///
/// # Errors
/// INVALID_ARGUMENT naming `ttl_seconds`.
pub fn ttl_ms(ttl_seconds: u32, queue: &Queue) -> Result<u64, Error> {
    let s = match ttl_seconds {
        0 if queue.move_time_ms >= CORRESPONDENCE_FROM_MS => MAX_TTL_S,
        0 => REALTIME_TTL_S,
        s if (MIN_TTL_S..=MAX_TTL_S).contains(&s) => s,
        s => {
            return Err(api_convert::bad(
                "ttl_seconds",
                format!("ttl_seconds {s} is outside {MIN_TTL_S}..={MAX_TTL_S}"),
            )
            .into());
        }
    };
    Ok(u64::from(s) * 1000)
}

/// The spec a queue answers as.
pub fn spec_of(q: &Queue) -> v1::QueueSpec {
    v1::QueueSpec {
        game: q.game.clone(),
        options_json: q.options_json.clone(),
        move_time_ms: q.move_time_ms,
        rated: q.rated,
    }
}

/// A ticket as its player sees it at `now_ms`.
pub fn ticket_proto(t: &Ticket, now_ms: u64) -> v1::Ticket {
    let (state, placed) = match t.state {
        TicketState::Waiting => (v1::TicketState::Waiting, None),
        TicketState::Pairing { match_id, seat } => {
            (v1::TicketState::Pairing, Some((match_id, seat)))
        }
        TicketState::Assigned { match_id, seat } => {
            (v1::TicketState::Assigned, Some((match_id, seat)))
        }
        TicketState::Cancelled => (v1::TicketState::Cancelled, None),
        TicketState::Expired => (v1::TicketState::Expired, None),
    };
    let rating_gap = if t.state == TicketState::Waiting && !t.seek {
        ladder::pairing::gap(now_ms.saturating_sub(t.created_ms))
    } else {
        0.0
    };
    v1::Ticket {
        ticket_id: t.id.to_string(),
        queue: Some(spec_of(&t.queue)),
        state: state as i32,
        match_id: placed.map(|(m, _)| m.to_string()).unwrap_or_default(),
        seat: placed.map(|(_, s)| wire::seat_u32(s)).unwrap_or_default(),
        created_at_ms: t.created_ms,
        expires_at_ms: t.expires_ms,
        // Infinity is no JSON number; past the schedule's end a ticket takes anyone.
        rating_gap: if rating_gap.is_finite() { rating_gap } else { f64::MAX },
        seek: t.seek,
    }
}

/// The pairing of two tickets: the match id is derived from both (so a retry, or a
/// match-maker that takes over, names the same match), and so is who sits first, so
/// neither the older ticket nor the seek's poster always moves first.
pub fn pairing_of(a: &Ticket, b: &Ticket, now_ms: u64) -> Pairing {
    use sha2::{Digest, Sha256};
    let (lo, hi) = if a.id <= b.id { (a, b) } else { (b, a) };
    let mut h = Sha256::new();
    h.update(b"colosseum pairing");
    h.update(lo.id.0.as_bytes());
    h.update(hi.id.0.as_bytes());
    let digest = h.finalize();
    let mut bytes = [0; 16];
    bytes.copy_from_slice(&digest[..16]);
    let match_id = MatchId::from(uuid::Builder::from_custom_bytes(bytes).into_uuid());
    let (first, second) = if digest[16] & 1 == 0 { (lo, hi) } else { (hi, lo) };
    Pairing {
        match_id,
        queue: a.queue.clone(),
        tickets: [first.id, second.id],
        players: [first.player, second.player],
        paired_ms: now_ms,
    }
}

/// The ticket id a proto field names.
///
/// # Errors
/// INVALID_ARGUMENT naming `field`.
pub fn ticket_id(field: &str, s: &str) -> Result<TicketId, Error> {
    Ok(api_convert::uuid_field(field, s)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec(game: &str, options: &str, move_time_ms: u64, rated: bool) -> Option<v1::QueueSpec> {
        Some(v1::QueueSpec { game: game.into(), options_json: options.into(), move_time_ms, rated })
    }

    #[test]
    fn queues_are_checked_and_their_options_canonical() {
        let a = queue_of(spec("gops", "", 0, true)).unwrap();
        let b = queue_of(spec("gops", "{}", 60_000, true)).unwrap();
        assert_eq!(a, b, "defaults and an empty object are one queue");
        assert_eq!(a.key(), b.key());
        assert_eq!(a.move_time_ms, 60_000);
        let week = queue_of(spec("gops", "", games::time::WEEK_MS, false)).unwrap();
        assert_ne!(week.key(), a.key());
        for (s, needle) in [
            (spec("chess", "", 0, true), "no game"),
            (spec("gops", "{\"nope\":1}", 0, true), "nope"),
            (spec("gops", "", 1_000, true), "outside a minute to a week"),
            (spec("hexspiel", "", 120_000, true), "fix the time per move"),
            (None, "queue is required"),
        ] {
            let e = queue_of(s).unwrap_err().to_string();
            assert!(e.contains(needle), "{e}");
        }
        let long = "x".repeat(5000);
        let e = queue_of(spec("gops", &long, 0, true)).unwrap_err().to_string();
        assert!(e.contains("at most 4096 bytes"), "{e}");
    }

    #[test]
    fn time_to_live_follows_the_time_control() {
        let realtime = queue_of(spec("gops", "", 0, true)).unwrap();
        let correspondence = queue_of(spec("gops", "", 86_400_000, true)).unwrap();
        assert_eq!(ttl_ms(0, &realtime).unwrap(), 300_000);
        assert_eq!(ttl_ms(0, &correspondence).unwrap(), 604_800_000);
        assert_eq!(ttl_ms(30, &realtime).unwrap(), 30_000);
        assert!(ttl_ms(29, &realtime).is_err());
        assert!(ttl_ms(MAX_TTL_S + 1, &realtime).is_err());
    }

    #[test]
    fn a_pairing_names_the_same_match_whichever_ticket_comes_first() {
        let q = queue_of(spec("gops", "", 0, true)).unwrap();
        let t = |n: u8| Ticket {
            id: TicketId::random(),
            player: store::PlayerId::random(),
            queue: q.clone(),
            seek: false,
            rating: 1500.0 + f64::from(n),
            idempotency_key: format!("k{n}"),
            created_ms: 0,
            expires_ms: 1,
            state: TicketState::Waiting,
            changed_ms: 0,
            display_name: String::new(),
        };
        let mut first_seat = [0; 2];
        for _ in 0..64 {
            let (a, b) = (t(1), t(2));
            let p = pairing_of(&a, &b, 5);
            assert_eq!(p, pairing_of(&b, &a, 5));
            assert!(p.tickets.contains(&a.id) && p.tickets.contains(&b.id));
            assert_eq!(p.players[0], if p.tickets[0] == a.id { a.player } else { b.player });
            first_seat[usize::from(p.tickets[0] == a.id)] += 1;
        }
        assert!(first_seat[0] > 0 && first_seat[1] > 0, "seats are not always the same");
    }
}
