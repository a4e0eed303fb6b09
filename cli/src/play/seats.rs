//! The seats `colosseum play` holds, kept in the config directory (`play.json`, readable
//! by its owner only) so that a player who left (ctrl-c, a closed terminal) gets the
//! same seat back with `colosseum play --join ID`: the session that holds it and the
//! gateway it was played through. Also the guest session each gateway gave, so that one
//! machine plays as one guest there until the session lapses.

use crate::session;
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The file's name in the config directory.
const FILE: &str = "play.json";
/// How many matches are remembered (the oldest is forgotten first).
const KEPT: usize = 50;

/// A session as the gateway gave it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Held {
    /// The gateway it lives on.
    pub gateway: String,
    /// The bearer token.
    pub token: String,
    /// Its player id.
    pub player_id: String,
}

// The token is a secret: a debug print names the session by its player alone.
impl std::fmt::Debug for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Held")
            .field("gateway", &self.gateway)
            .field("player_id", &self.player_id)
            .finish_non_exhaustive()
    }
}

/// A match played from here, and the session that holds its seat.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seat {
    /// The match id.
    pub match_id: String,
    /// The game.
    pub game: String,
    /// The session in the seat.
    pub held: Held,
}

/// What `play.json` holds.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seats {
    /// The guest session of each gateway.
    #[serde(default)]
    pub guests: Vec<Held>,
    /// The matches played from here, newest last.
    #[serde(default)]
    pub matches: Vec<Seat>,
}

impl Seats {
    /// What `dir` holds: nothing if the file is missing; a file that is not seats is
    /// moved aside (`play.json.broken`, said on stderr) and read as nothing. A seat not
    /// kept cannot be rejoined, but it never stops a match.
    pub fn load(dir: &Path) -> Seats {
        let path = dir.join(FILE);
        let Ok(text) = std::fs::read(&path) else { return Seats::default() };
        serde_json::from_slice(&text).unwrap_or_else(|_| {
            let aside = dir.join(format!("{FILE}.broken"));
            let _ = std::fs::rename(&path, &aside);
            eprintln!("{} was not readable: moved to {}", path.display(), aside.display());
            Seats::default()
        })
    }

    /// Whether `dir` keeps seats at all.
    pub fn kept_in(dir: &Path) -> bool {
        dir.join(FILE).exists()
    }

    /// Reads `dir`'s seats afresh, applies `change`, writes them back: another `play`
    /// may have kept a seat since this one read the file.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn update(dir: &Path, change: impl FnOnce(&mut Seats)) -> Result<(), String> {
        let mut seats = Seats::load(dir);
        change(&mut seats);
        seats.save(dir)
    }

    /// Forgets every seat and guest session held with `token` (a session that ended).
    pub fn forget_token(&mut self, token: &str) {
        self.guests.retain(|g| g.token != token);
        self.matches.retain(|s| s.held.token != token);
    }

    /// Writes it back to `dir`.
    ///
    /// # Errors
    /// The file cannot be written.
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let json = serde_json::to_vec_pretty(self).map_err(|e| e.to_string())?;
        session::write_private(dir, FILE, &json).map(|_| ())
    }

    /// The guest session kept for `gateway`.
    pub fn guest(&self, gateway: &str) -> Option<&Held> {
        self.guests.iter().find(|g| g.gateway == gateway)
    }

    /// Keeps `held` as `gateway`'s guest session, replacing an earlier one.
    pub fn set_guest(&mut self, held: Held) {
        self.guests.retain(|g| g.gateway != held.gateway);
        self.guests.push(held);
    }

    /// The seat kept for match `id`.
    pub fn seat(&self, id: &str) -> Option<&Seat> {
        self.matches.iter().rev().find(|s| s.match_id == id)
    }

    /// Remembers `seat` (newest), forgetting the oldest past [`KEPT`].
    pub fn remember(&mut self, seat: Seat) {
        self.matches.retain(|s| s.match_id != seat.match_id);
        self.matches.push(seat);
        let over = self.matches.len().saturating_sub(KEPT);
        self.matches.drain(..over);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn held(gateway: &str, token: &str) -> Held {
        Held { gateway: gateway.into(), token: token.into(), player_id: "p".into() }
    }

    #[test]
    fn seats_are_kept_newest_last_and_bounded() {
        let mut s = Seats::default();
        for i in 0..KEPT + 5 {
            s.remember(Seat {
                match_id: format!("m{i}"),
                game: "gops".into(),
                held: held("g", "t"),
            });
        }
        assert_eq!(s.matches.len(), KEPT);
        assert!(s.seat("m0").is_none());
        assert_eq!(s.seat(&format!("m{}", KEPT + 4)).map(|s| s.game.as_str()), Some("gops"));
        s.set_guest(held("a", "1"));
        s.set_guest(held("b", "2"));
        s.set_guest(held("a", "3"));
        assert_eq!(s.guest("a").map(|g| g.token.as_str()), Some("3"));
        assert_eq!(s.guests.len(), 2);
    }

    #[test]
    fn a_debug_print_never_shows_the_token_and_an_ended_session_is_forgotten() {
        let h = held("g", "secret-token");
        assert!(!format!("{h:?}").contains("secret-token"));
        let mut s = Seats::default();
        s.set_guest(held("g", "t1"));
        s.remember(Seat { match_id: "m1".into(), game: "gops".into(), held: held("g", "t1") });
        s.remember(Seat { match_id: "m2".into(), game: "gops".into(), held: held("g", "t2") });
        s.forget_token("t1");
        assert!(s.guest("g").is_none());
        assert!(s.seat("m1").is_none());
        assert!(s.seat("m2").is_some());
    }

    #[test]
    fn a_saved_file_reads_back_and_a_broken_one_reads_as_none() {
        let dir = std::env::temp_dir().join(format!("colosseum-seats-{}", uuid::Uuid::new_v4()));
        let mut s = Seats::default();
        s.remember(Seat { match_id: "m".into(), game: "gops".into(), held: held("g", "t") });
        s.save(&dir).expect("saved");
        assert_eq!(Seats::load(&dir), s);
        std::fs::write(dir.join(FILE), "not json").expect("written");
        assert_eq!(Seats::load(&dir), Seats::default());
        // Moved aside, not lost.
        assert_eq!(std::fs::read(dir.join("play.json.broken")).expect("kept aside"), b"not json");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
