//! The match lists: each player's matches (written when the player is seated) and each
//! game's live matches (written when both seats are held, removed by the final step), of
//! listed matches only ([`MatchMeta::listed`]: a tenant's bulk matches and a private
//! tournament's never go on a live list).
//! Both are hints, newest first; the meta and the stored views are the truth, which
//! readers check each entry against, dropping one that can no longer hold.

use crate::error::StoreError;
use crate::matches::model::{ClaimOutcome, MatchMeta};
use ids::SeatHolder;
use ids::{MatchId, PlayerId};
use rules_core::Seat;

/// A listed match: when it was created and its id. Lists run newest first: by creation
/// time, then by id (as Redis orders the members of one score), both descending.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Listed {
    /// When the match was created, Unix ms (its score in the list).
    pub created_at_ms: u64,
    /// The match.
    pub id: MatchId,
}

/// How many matches a player's list keeps: the newest. Each addition trims the oldest
/// past this, so a list never grows beyond it, whatever the player does.
pub const PLAYER_MATCHES_KEPT: usize = 1_000;

/// The longest game name a live list is kept under (the registry's are a few letters;
/// a name is part of a key).
const MAX_GAME: usize = 64;

/// Whether `game` may name a live list: printable ASCII without spaces or braces (a brace
/// would make a Redis Cluster hash tag of it), at most 64 bytes.
pub(crate) fn listable_game(game: &str) -> bool {
    !game.is_empty()
        && game.len() <= MAX_GAME
        && game.bytes().all(|b| b.is_ascii_graphic() && b != b'{' && b != b'}')
}

/// [`listable_game`] as a read or removal of a live list answers it: every store alike.
pub(crate) fn checked_game(game: &str) -> Result<(), StoreError> {
    if listable_game(game) {
        Ok(())
    } else {
        Err(StoreError::InvalidArgument("a live list's game is a name without spaces or braces"))
    }
}

/// The live list a match belongs on now: its game's, if it is listed and both its seats
/// are held; none otherwise (an unlisted match never is, whoever is seated).
pub(crate) fn live_game(meta: &MatchMeta) -> Option<&str> {
    (meta.listed && meta.all_seated()).then_some(meta.game.as_str())
}

/// What seating `player` in `seat` of the match `meta` describes adds to the lists, before
/// the claim itself: its place in the player's list if the claim can give the seat to
/// them (the seat open, reserved for them or theirs already), and its place in the live
/// list if the claim also fills the last seat of a listed match. Written ahead of the
/// claim, so a claim that is then refused leaves an entry readers skip.
pub(crate) fn seating(meta: &MatchMeta, seat: Seat, player: PlayerId) -> (bool, bool) {
    let can_be_theirs = matches!(
        ClaimOutcome::of(&meta.seats[seat], false, player),
        ClaimOutcome::Claimed | ClaimOutcome::AlreadyYours
    );
    let other_held =
        matches!(&meta.seats[seat.other()], SeatHolder::Player(_) | SeatHolder::Bot(_));
    (can_be_theirs, can_be_theirs && other_held && meta.listed)
}

/// The players a new match seats (each gets it in its list).
pub(crate) fn seated_players(meta: &MatchMeta) -> Vec<PlayerId> {
    Seat::BOTH
        .into_iter()
        .filter_map(|s| match &meta.seats[s] {
            SeatHolder::Player(p) => Some(*p),
            SeatHolder::Open | SeatHolder::Reserved(_) | SeatHolder::Bot(_) => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rules_core::PerSeat;

    fn meta(seats: [SeatHolder; 2]) -> MatchMeta {
        MatchMeta { seats: PerSeat(seats), ..crate::matches::model::sample_meta() }
    }

    #[test]
    fn seating_lists_only_a_seat_the_claim_can_give() {
        let (me, other) = (PlayerId::random(), PlayerId::random());
        let open = meta([SeatHolder::Player(other), SeatHolder::Open]);
        assert_eq!(seating(&open, Seat::ONE, me), (true, true));
        let waiting = meta([SeatHolder::Open, SeatHolder::Open]);
        assert_eq!(seating(&waiting, Seat::ONE, me), (true, false));
        let reserved = meta([SeatHolder::Bot("b".into()), SeatHolder::Reserved(other)]);
        assert_eq!(seating(&reserved, Seat::ONE, me), (false, false));
        assert_eq!(seating(&reserved, Seat::ONE, other), (true, true));
        assert_eq!(seating(&reserved, Seat::ZERO, me), (false, false));
        assert_eq!(seated_players(&open), vec![other]);
        // An unlisted match: the player's list, never the live one.
        let unlisted = MatchMeta { listed: false, ..open.clone() };
        assert_eq!(seating(&unlisted, Seat::ONE, me), (true, false));
    }

    #[test]
    fn only_a_listed_match_with_both_seats_held_is_live() {
        let (a, b) = (PlayerId::random(), PlayerId::random());
        let both = meta([SeatHolder::Player(a), SeatHolder::Player(b)]);
        assert_eq!(live_game(&both), Some("gops"));
        assert_eq!(live_game(&MatchMeta { listed: false, ..both }), None);
        assert_eq!(live_game(&meta([SeatHolder::Player(a), SeatHolder::Open])), None);
    }

    #[test]
    fn newest_first_is_descending_order_and_games_are_key_safe() {
        let a = Listed { created_at_ms: 5, id: MatchId::random() };
        let b = Listed { created_at_ms: 6, id: MatchId::random() };
        assert!(b > a);
        assert!(listable_game("gops"));
        assert!(!listable_game("{gops}") && !listable_game("a b") && !listable_game(""));
    }
}
