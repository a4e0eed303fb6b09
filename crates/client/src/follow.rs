//! What a player keeps while it follows a match: what its watch asks for
//! ([`WatchOptions`]), where its watch stream resumes after a break ([`Cursor`]), which of
//! the views the stream brings ask it for a move it has not made yet ([`Turns`]), and who
//! is connected ([`presence`]). The cursor and the turns start over when the stream says
//! `resync` (the store lost its last writes, and versions are reissued); presence is no
//! position in the match, and moves no cursor.

use api::v1;

/// What a watch asks for beside the match's events.
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct WatchOptions {
    /// The caller's view after each version (`include_views`).
    pub views: bool,
    /// The seats' presence, once caught up and at each change (`include_presence`).
    pub presence: bool,
}

impl WatchOptions {
    /// The events, with the caller's views when `views`, without presence.
    pub const fn views(views: bool) -> WatchOptions {
        WatchOptions { views, presence: false }
    }

    /// The events, the caller's views and the seats' presence: what a player's client
    /// shows.
    pub const ALL: WatchOptions = WatchOptions { views: true, presence: true };
}

/// The seats' presence `m` carries, by seat (`[seat 0, seat 1]`: whether each seat's
/// player has a watch of the match open), if `m` is a presence message; `None` for any
/// other message.
pub fn presence(m: &v1::WatchMatchResponse) -> Option<[bool; 2]> {
    let p = m.presence.as_ref()?;
    let seat = |i: usize| p.connected.get(i).copied().unwrap_or(false);
    Some([seat(0), seat(1)])
}

/// Where a watch resumes: after the last message received (its version, index and tag).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Cursor {
    /// The version of the last message received (0: nothing yet).
    pub version: u64,
    /// Its index inside that version; `None`: the version is complete.
    pub index: Option<u32>,
    /// Its tag, so that a version reissued since is caught.
    pub tag: Option<u64>,
}

impl Cursor {
    /// The whole match, from its creation.
    pub const START: Cursor = Cursor { version: 0, index: None, tag: None };

    /// After version `version`, complete (no tag check).
    pub fn after_version(version: u64) -> Cursor {
        Cursor { version, ..Cursor::START }
    }

    /// The cursor once `m` is received: just after it, or, for a `resync`, where the
    /// match is restated from; a presence message leaves it where it was.
    #[must_use]
    pub fn next(self, m: &v1::WatchMatchResponse) -> Cursor {
        match &m.resync {
            Some(r) => Cursor::after_version(r.after_version),
            None if m.presence.is_some() => self,
            None => Cursor { version: m.version, index: Some(m.index), tag: Some(m.tag) },
        }
    }
}

/// Which views ask a seat for a move it has not made: the match is on, the seat has legal
/// moves, and it has not acted at this version or a later one (a stream brings a view per
/// version, and a view repeated or overtaken asks nothing new).
#[derive(Clone, Copy, Default, PartialEq, Eq, Debug)]
pub struct Turns {
    acted_at: Option<u64>,
}

impl Turns {
    /// Whether `view` asks for a move not made yet.
    pub fn owed(&self, view: &v1::GetViewResponse) -> bool {
        view.outcome.is_none()
            && !view.legal_moves.is_empty()
            && self.acted_at.is_none_or(|v| v < view.version)
    }

    /// The seat acted on its view at `version`.
    pub fn acted(&mut self, version: u64) {
        self.acted_at = Some(version);
    }

    /// Forgets every move made (after a `resync`: a version acted at may come again
    /// with another step).
    pub fn forget(&mut self) {
        self.acted_at = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(version: u64, legal: usize, over: bool) -> v1::GetViewResponse {
        v1::GetViewResponse {
            version,
            legal_moves: vec![v1::Move::default(); legal],
            outcome: over.then(v1::Outcome::default),
            ..Default::default()
        }
    }

    #[test]
    fn a_turn_is_owed_once_per_version() {
        let mut turns = Turns::default();
        assert!(turns.owed(&view(1, 2, false)));
        assert!(!turns.owed(&view(1, 0, false)), "no legal move");
        assert!(!turns.owed(&view(1, 2, true)), "the match is over");
        turns.acted(3);
        assert!(!turns.owed(&view(3, 2, false)) && !turns.owed(&view(2, 2, false)));
        assert!(turns.owed(&view(4, 2, false)));
        turns.forget();
        assert!(turns.owed(&view(3, 2, false)));
    }

    #[test]
    fn a_cursor_follows_the_stream_and_restarts_on_resync() {
        let m = v1::WatchMatchResponse { version: 5, index: 2, tag: 9, ..Default::default() };
        let at = Cursor::START.next(&m);
        assert_eq!(at, Cursor { version: 5, index: Some(2), tag: Some(9) });
        let resync = v1::WatchMatchResponse {
            resync: Some(v1::Resync { after_version: 0 }),
            ..Default::default()
        };
        assert_eq!(at.next(&resync), Cursor::START);
    }

    #[test]
    fn presence_is_read_and_moves_no_cursor() {
        let p = |connected: Vec<bool>| v1::WatchMatchResponse {
            version: 5,
            index: 2,
            tag: 9,
            presence: Some(v1::SeatPresence { connected }),
            ..Default::default()
        };
        assert_eq!(presence(&p(vec![false, true])), Some([false, true]));
        assert_eq!(
            presence(&p(vec![true])),
            Some([true, false]),
            "a seat not named: not connected"
        );
        let event = v1::WatchMatchResponse { version: 5, index: 2, tag: 9, ..Default::default() };
        assert_eq!(presence(&event), None);
        // Wherever the cursor stands (a version complete, the start), presence keeps it.
        for at in [Cursor::START, Cursor::after_version(5), Cursor::START.next(&event)] {
            assert_eq!(at.next(&p(vec![true, true])), at);
        }
    }
}
