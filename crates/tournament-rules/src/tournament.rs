//! The tournament state: entrants, rounds, games, withdrawals, and the operations that move it
//! on, whatever the format: what differs by format is asked of its
//! [`FormatRules`](crate::FormatRules). Every
//! operation validates before it changes anything, so an error leaves the state as it was.

use crate::Format;
use crate::bracket::Match;
use crate::model::{Entrant, Error, Game, GameNo, Outcome, Player, Recorded, RoundPairing};

/// The most entrants of a round robin, Swiss or arena.
pub const MAX_ENTRANTS: usize = 100_000;

/// A tournament in progress. Built by [`Tournament::new`], moved on by [`begin_round`],
/// [`begin_games`], [`record`] and [`withdraw`]; everything else reads it.
///
/// The service keeps the log of those calls and rebuilds the state by replaying it: the same
/// calls in the same order give the same state, and [`pair_round`] the same pairing.
///
/// [`begin_round`]: Tournament::begin_round
/// [`begin_games`]: Tournament::begin_games
/// [`record`]: Tournament::record
/// [`withdraw`]: Tournament::withdraw
/// [`pair_round`]: Tournament::pair_round
#[derive(Clone, Debug)]
pub struct Tournament {
    format: Format,
    ratings: Vec<Option<f64>>,
    /// Each player's position in the seed order (0 = top seed).
    seed_of: Vec<u32>,
    /// The players in seed order.
    by_seed: Vec<Player>,
    withdrawn: Vec<bool>,
    games: Vec<Game>,
    /// The rounds begun, each as recorded (a knockout's replays are added to their round).
    pub(crate) rounds: Vec<RoundPairing>,
    /// Knockout only: the matches of each round begun, and each game's match index.
    pub(crate) matches: Vec<Vec<Match>>,
    pub(crate) game_match: Vec<u32>,
    /// The game each player is in and has no result yet.
    busy: Vec<Option<GameNo>>,
    /// A continuous format only: no more games start.
    closed: bool,
}

impl Tournament {
    /// A tournament of `format` for these entrants, in entry order (entrant i is `Player(i)`).
    /// The seed order is by rating, highest first, unrated last, ties by entry order.
    ///
    /// # Errors
    /// Fewer than 2 entrants, more than the format takes ([`MAX_ENTRANTS`]; a knockout:
    /// [`MAX_KNOCKOUT_ENTRANTS`](crate::MAX_KNOCKOUT_ENTRANTS)), a non-finite rating, or the format's parameters refused
    /// (a Swiss of 0 rounds).
    pub fn new(format: Format, entrants: Vec<Entrant>) -> Result<Tournament, Error> {
        let ratings: Vec<Option<f64>> = entrants.iter().map(|e| e.rating).collect();
        let n = ratings.len();
        if n < 2 {
            return Err(Error::TooFewEntrants { entrants: n });
        }
        let max = format.rules().max_entrants();
        if n > max {
            return Err(Error::TooManyEntrants { entrants: n, max });
        }
        if let Some(i) = ratings.iter().position(|r| r.is_some_and(|r| !r.is_finite())) {
            return Err(Error::InvalidRating { player: Player(i as u32) });
        }
        format.rules().check(n)?;
        let mut by_seed: Vec<Player> = (0..n as u32).map(Player).collect();
        // Rated before unrated, higher first; the sort is stable, so ties keep entry order.
        by_seed.sort_by(|a, b| match (ratings[a.index()], ratings[b.index()]) {
            (Some(x), Some(y)) => y.total_cmp(&x),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => std::cmp::Ordering::Equal,
        });
        let mut seed_of = vec![0; n];
        for (s, p) in by_seed.iter().enumerate() {
            seed_of[p.index()] = s as u32;
        }
        Ok(Tournament {
            format,
            ratings,
            seed_of,
            by_seed,
            withdrawn: vec![false; n],
            games: Vec::new(),
            rounds: Vec::new(),
            matches: Vec::new(),
            game_match: Vec::new(),
            busy: vec![None; n],
            closed: false,
        })
    }

    /// The format.
    pub fn format(&self) -> Format {
        self.format
    }

    /// The number of entrants (players are `Player(0)` to `Player(entrants - 1)`).
    pub fn entrants(&self) -> usize {
        self.ratings.len()
    }

    /// A player's seed rating, if any.
    pub fn rating(&self, p: Player) -> Option<f64> {
        self.ratings.get(p.index()).copied().flatten()
    }

    /// A player's seed (1 = top seed).
    ///
    /// # Panics
    /// If `p` is not an entrant.
    pub fn seed(&self, p: Player) -> u32 {
        self.seed_of[p.index()] + 1
    }

    /// The players in seed order.
    pub fn seed_order(&self) -> &[Player] {
        &self.by_seed
    }

    /// Whether `p` has withdrawn.
    pub fn is_withdrawn(&self, p: Player) -> bool {
        self.withdrawn.get(p.index()).copied().unwrap_or(false)
    }

    /// The current round: the number of rounds begun (0 before the first; always 0 in an
    /// arena).
    pub fn round(&self) -> u32 {
        self.rounds.len() as u32
    }

    /// The number of rounds the tournament has (0 for an arena). A round robin has one Berger
    /// cycle (two if double); a knockout log2 of its bracket size.
    pub fn total_rounds(&self) -> u32 {
        self.format.rules().total_rounds(self.entrants())
    }

    /// The pairing of round `round` (1-based) as begun, with a knockout's replays added.
    pub fn round_pairing(&self, round: u32) -> Option<&RoundPairing> {
        self.rounds.get((round as usize).checked_sub(1)?)
    }

    /// The byes of round `round` (empty for a round not begun).
    pub fn byes_of(&self, round: u32) -> &[Player] {
        self.round_pairing(round).map_or(&[], |r| &r.byes)
    }

    /// Every game, in the order started (`games()[g.0]` is game `g`).
    pub fn games(&self) -> &[Game] {
        &self.games
    }

    /// One game.
    pub fn game(&self, g: GameNo) -> Option<&Game> {
        self.games.get(g.index())
    }

    /// Whether every game started has a result (in a round format: the current round is over).
    pub fn round_complete(&self) -> bool {
        self.busy.iter().all(Option::is_none)
    }

    /// Whether the tournament is over: every round paired and complete; a knockout's final
    /// decided; an arena closed with every game finished.
    pub fn finished(&self) -> bool {
        self.round_complete() && self.format.rules().finished(self)
    }

    /// A knockout's champion, once the final is decided (`None` too if every finalist withdrew).
    pub fn champion(&self) -> Option<Player> {
        if !self.finished() {
            return None;
        }
        self.format.rules().champion(self)
    }

    /// The next round's pairing, computed without changing anything: what [`begin_round`]
    /// expects. Deterministic: the same state always gives the same pairing.
    ///
    /// - Round robin: the Berger table's round (players numbered by seed); a player whose
    ///   opponent is the odd-number dummy or has withdrawn gets a bye.
    /// - Swiss: the Dutch-system pairing of the active players (see the [`swiss`](crate::swiss)
    ///   module for its rules); the bye, when they are odd, to the lowest-ranked player who has
    ///   not had one. Pairing is round by round (with one round of lookahead in fields of up to
    ///   64), so a Swiss nearly as long as a round robin can still run out of legal pairings
    ///   before its last round: [`Error::NoLegalPairing`]; that is what round robins are for.
    /// - Knockout: the bracket's next matches; a side with nobody (a bracket bye, a withdrawn
    ///   player) sends the other through with a bye.
    ///
    /// # Errors
    /// [`Error::WrongFormat`] in an arena, [`Error::RoundIncomplete`], [`Error::Finished`],
    /// [`Error::NotEnoughPlayers`] (Swiss, fewer than 2 active), [`Error::NoLegalPairing`]
    /// (Swiss, no pairing without a repeat or a second bye).
    ///
    /// [`begin_round`]: Tournament::begin_round
    pub fn pair_round(&self) -> Result<RoundPairing, Error> {
        self.check_next_round()?;
        self.format.rules().pair_round(self, self.round() + 1)
    }

    /// Records the next round's pairing and starts its games; returns their numbers, in the
    /// pairing's order. Accepts exactly what [`pair_round`] produced. A Swiss also accepts any
    /// other pairing that keeps the hard rules (every active player once, no repeat, the right
    /// number of byes, none to a player who had one): an organiser's manual pairing, or a
    /// pairing logged by an earlier version. A round robin or knockout accepts only the
    /// scheduled round.
    ///
    /// # Errors
    /// Those of [`pair_round`] (but not [`Error::NoLegalPairing`]), [`Error::WrongRound`], and
    /// the validation errors: [`Error::UnknownPlayer`], [`Error::DuplicatePlayer`],
    /// [`Error::WithdrawnPlayer`], [`Error::Unpaired`], [`Error::Repeat`],
    /// [`Error::SecondBye`], [`Error::ByeCount`], [`Error::NotScheduled`].
    ///
    /// [`pair_round`]: Tournament::pair_round
    pub fn begin_round(&mut self, pairing: &RoundPairing) -> Result<Vec<GameNo>, Error> {
        self.check_next_round()?;
        let round = self.round() + 1;
        if pairing.round != round {
            return Err(Error::WrongRound { expected: round, got: pairing.round });
        }
        self.check_players(pairing.games.iter().flatten().chain(&pairing.byes).copied())?;
        let format = self.format;
        let rules = format.rules();
        rules.check_round(self, pairing)?;
        self.rounds.push(RoundPairing {
            round,
            games: pairing.games.clone(),
            byes: pairing.byes.clone(),
        });
        let numbers: Vec<GameNo> =
            pairing.games.iter().map(|&g| self.start_game(round, g)).collect();
        rules.round_begun(self, &numbers);
        Ok(numbers)
    }

    /// Records a game's result.
    ///
    /// Idempotent: the same result again answers [`Recorded::Already`] and changes nothing. A
    /// knockout draw under [`DrawRule::Replay`](crate::DrawRule::Replay) starts the replay itself (seats swapped, same
    /// round) and answers [`Recorded::Replay`] with it, so the caller cannot forget it; after
    /// [`MAX_DRAWS`](crate::MAX_DRAWS) draws in a row the higher seed advances instead. A draw under
    /// [`DrawRule::HigherSeed`](crate::DrawRule::HigherSeed) sends the higher seed through.
    ///
    /// A withdrawn player's game still needs a result: the caller records the forfeit (the
    /// opponent's win), which in a knockout sends the opponent through.
    ///
    /// # Errors
    /// [`Error::UnknownGame`]; [`Error::Conflict`] if the game has a different result.
    pub fn record(&mut self, game: GameNo, outcome: Outcome) -> Result<Recorded, Error> {
        let g = *self.games.get(game.index()).ok_or(Error::UnknownGame(game))?;
        if let Some(recorded) = g.outcome {
            return if recorded == outcome {
                Ok(Recorded::Already)
            } else {
                Err(Error::Conflict { game, recorded })
            };
        }
        self.games[game.index()].outcome = Some(outcome);
        for p in g.players {
            self.busy[p.index()] = None;
        }
        let format = self.format;
        Ok(format.rules().result(self, g, outcome))
    }

    /// Withdraws a player: they are never paired again. Their standings stay (with the
    /// withdrawn flag) and their past games still count for everyone's tie-breaks. A game they
    /// are playing still needs a result from the caller (normally the opponent's win by
    /// forfeit). In a knockout, an opponent still waiting for them advances with a bye.
    /// Idempotent.
    ///
    /// # Errors
    /// [`Error::UnknownPlayer`].
    pub fn withdraw(&mut self, p: Player) -> Result<(), Error> {
        let w = self.withdrawn.get_mut(p.index()).ok_or(Error::UnknownPlayer(p))?;
        *w = true;
        Ok(())
    }

    /// Arena: pairs the idle players among `idle` (unknown, withdrawn, busy and repeated
    /// entries are ignored): neighbours by arena points then seed, avoiding an immediate
    /// rematch with the last opponent whenever another choice exists; the player with fewer
    /// seat-0 games takes seat 0. An odd player out is left for the next call. Empty in a
    /// format played in rounds and once the arena is closed. Nothing changes until
    /// [`begin_games`].
    ///
    /// [`begin_games`]: Tournament::begin_games
    pub fn pair_arena(&self, idle: &[Player]) -> Vec<[Player; 2]> {
        if self.closed {
            return Vec::new();
        }
        let mut seen = vec![false; self.entrants()];
        let idle: Vec<Player> = idle
            .iter()
            .filter(|p| {
                let i = p.index();
                i < self.entrants()
                    && !self.withdrawn[i]
                    && self.busy[i].is_none()
                    && !std::mem::replace(&mut seen[i], true)
            })
            .copied()
            .collect();
        self.format.rules().pair_wave(self, &idle)
    }

    /// The players free to play: active and in no game without a result, in entry order (an
    /// arena's idle players).
    pub fn idle_players(&self) -> Vec<Player> {
        (0..self.entrants())
            .filter(|&i| !self.withdrawn[i] && self.busy[i].is_none())
            .map(|i| Player(i as u32))
            .collect()
    }

    /// Arena: starts these games (in seat order) and returns their numbers. Any pairs of idle
    /// players are accepted, not only [`pair_arena`]'s.
    ///
    /// # Errors
    /// [`Error::WrongFormat`] outside an arena, [`Error::Finished`] once closed,
    /// [`Error::UnknownPlayer`], [`Error::WithdrawnPlayer`], [`Error::Busy`],
    /// [`Error::DuplicatePlayer`].
    ///
    /// [`pair_arena`]: Tournament::pair_arena
    pub fn begin_games(&mut self, pairs: &[[Player; 2]]) -> Result<Vec<GameNo>, Error> {
        if self.format.rules().timing().is_none() {
            return Err(Error::WrongFormat);
        }
        if self.closed {
            return Err(Error::Finished);
        }
        self.check_players(pairs.iter().flatten().copied())?;
        if let Some(p) = pairs.iter().flatten().find(|p| self.busy[p.index()].is_some()) {
            return Err(Error::Busy(*p));
        }
        Ok(pairs.iter().map(|&g| self.start_game(0, g)).collect())
    }

    /// Arena: no more games start (the caller calls this when the duration is over); games in
    /// progress still get their results. Idempotent; nothing in other formats, which end with
    /// their last round.
    pub fn close(&mut self) {
        if self.format.rules().timing().is_some() {
            self.closed = true;
        }
    }

    /// Whether a continuous format has been closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed
    }

    /// How many times a game took a player's seat imbalance |seat-0 games - seat-1 games|
    /// beyond 1: zero unless the Swiss seat rule had to be relaxed (or a pairing was made by
    /// hand, or a format without the rule: knockout replays, arenas).
    pub fn seat_relaxations(&self) -> u32 {
        let mut diff = vec![0i32; self.entrants()];
        let mut count = 0;
        for g in &self.games {
            for (s, p) in g.players.iter().enumerate() {
                let d = &mut diff[p.index()];
                *d += if s == 0 { 1 } else { -1 };
                if d.abs() > 1 {
                    count += 1;
                }
            }
        }
        count
    }

    // ---- internals ----

    fn check_next_round(&self) -> Result<(), Error> {
        if self.format.rules().timing().is_some() {
            return Err(Error::WrongFormat);
        }
        if !self.round_complete() {
            return Err(Error::RoundIncomplete { round: self.round() });
        }
        if self.finished() {
            return Err(Error::Finished);
        }
        Ok(())
    }

    /// Every player known, active, and there once.
    fn check_players(&self, players: impl Iterator<Item = Player>) -> Result<(), Error> {
        let mut seen = vec![false; self.entrants()];
        for p in players {
            let i = p.index();
            if i >= self.entrants() {
                return Err(Error::UnknownPlayer(p));
            }
            if self.withdrawn[i] {
                return Err(Error::WithdrawnPlayer(p));
            }
            if std::mem::replace(&mut seen[i], true) {
                return Err(Error::DuplicatePlayer(p));
            }
        }
        Ok(())
    }

    pub(crate) fn start_game(&mut self, round: u32, players: [Player; 2]) -> GameNo {
        let no = GameNo(self.games.len() as u32);
        self.games.push(Game { no, round, players, outcome: None });
        self.game_match.push(u32::MAX);
        for p in players {
            self.busy[p.index()] = Some(no);
        }
        no
    }

    /// The rounds begun.
    pub(crate) fn rounds(&self) -> &[RoundPairing] {
        &self.rounds
    }
}
