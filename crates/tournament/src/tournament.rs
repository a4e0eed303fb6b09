//! The tournament state: entrants, rounds, games, withdrawals, and the operations that move it
//! on. Every operation validates before it changes anything, so an error leaves the state as it
//! was; every query is a pure function of the state.

use crate::arena::{self, Idle};
use crate::knockout::{self, MAX_DRAWS, MAX_KNOCKOUT_ENTRANTS, Match, Plan};
use crate::model::{
    BYE, DrawRule, Entrant, Error, Format, Game, GameNo, Outcome, Player, Recorded, RoundPairing,
    Seat,
};
use crate::round_robin::{berger_round, berger_rounds};
use crate::swiss::{self, Entry, Float};

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
    rounds: Vec<RoundPairing>,
    /// Knockout only: the matches of each round begun, and each game's match index.
    matches: Vec<Vec<Match>>,
    game_match: Vec<u32>,
    /// The game each player is in and has no result yet.
    busy: Vec<Option<GameNo>>,
    /// Arena only: no more games start.
    closed: bool,
}

impl Tournament {
    /// A tournament of `format` for these entrants, in entry order (entrant i is `Player(i)`).
    /// The seed order is by rating, highest first, unrated last, ties by entry order.
    ///
    /// # Errors
    /// Fewer than 2 entrants, more than [`MAX_ENTRANTS`] (a knockout:
    /// [`MAX_KNOCKOUT_ENTRANTS`]), a non-finite rating, or a Swiss of 0 rounds.
    pub fn new(format: Format, entrants: Vec<Entrant>) -> Result<Tournament, Error> {
        let ratings: Vec<Option<f64>> = entrants.iter().map(|e| e.rating).collect();
        let n = ratings.len();
        if n < 2 {
            return Err(Error::TooFewEntrants { entrants: n });
        }
        let max = match format {
            Format::Knockout { .. } => MAX_KNOCKOUT_ENTRANTS,
            _ => MAX_ENTRANTS,
        };
        if n > max {
            return Err(Error::TooManyEntrants { entrants: n, max });
        }
        if let Some(i) = ratings.iter().position(|r| r.is_some_and(|r| !r.is_finite())) {
            return Err(Error::InvalidRating { player: Player(i as u32) });
        }
        if format == (Format::Swiss { rounds: 0 }) {
            return Err(Error::ZeroRounds);
        }
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
        let n = self.entrants() as u32;
        match self.format {
            Format::RoundRobin { double } => berger_rounds(n) * if double { 2 } else { 1 },
            Format::Swiss { rounds } => rounds,
            Format::Knockout { .. } => knockout::knockout_rounds(self.entrants()),
            Format::Arena { .. } => 0,
        }
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
        if !self.round_complete() {
            return false;
        }
        match self.format {
            Format::Arena { .. } => self.closed,
            _ => self.round() >= self.total_rounds(),
        }
    }

    /// A knockout's champion, once the final is decided (`None` too if every finalist withdrew).
    pub fn champion(&self) -> Option<Player> {
        match self.format {
            Format::Knockout { .. } if self.finished() => {
                self.matches.last().and_then(|m| m.first()).and_then(|m| m.winner)
            }
            _ => None,
        }
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
        let round = self.round() + 1;
        match self.format {
            Format::RoundRobin { .. } => Ok(self.round_robin_pairing(round)),
            Format::Swiss { .. } => {
                let entries = self.swiss_entries();
                if entries.len() < 2 {
                    return Err(Error::NotEnoughPlayers);
                }
                let p = swiss::pair(&entries, round, round < self.total_rounds())?;
                Ok(RoundPairing { round, games: p.games, byes: p.bye.into_iter().collect() })
            }
            Format::Knockout { .. } => {
                let mut games = Vec::new();
                let mut byes = Vec::new();
                for plan in self.knockout_plan() {
                    match plan {
                        Plan::Game(g) => games.push(g),
                        Plan::Bye(p) => byes.push(p),
                        Plan::Empty => {}
                    }
                }
                Ok(RoundPairing { round, games, byes })
            }
            Format::Arena { .. } => Err(Error::WrongFormat),
        }
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
        match self.format {
            Format::Swiss { .. } => self.check_swiss(pairing)?,
            _ => {
                if *pairing != self.pair_round()? {
                    return Err(Error::NotScheduled);
                }
            }
        }
        let plans = match self.format {
            Format::Knockout { .. } => Some(self.knockout_plan()),
            _ => None,
        };
        self.rounds.push(RoundPairing {
            round,
            games: pairing.games.clone(),
            byes: pairing.byes.clone(),
        });
        let numbers: Vec<GameNo> =
            pairing.games.iter().map(|&g| self.start_game(round, g)).collect();
        if let Some(plans) = plans {
            let mut next = numbers.iter();
            let matches = self
                .knockout_sides()
                .into_iter()
                .zip(plans)
                .map(|(sides, plan)| match plan {
                    Plan::Game(_) => {
                        let g = *next.next().expect("one game per game plan");
                        Match { sides, games: vec![g], winner: None }
                    }
                    Plan::Bye(p) => Match { sides, games: Vec::new(), winner: Some(p) },
                    Plan::Empty => Match { sides, games: Vec::new(), winner: None },
                })
                .collect::<Vec<_>>();
            for (i, m) in matches.iter().enumerate() {
                for g in &m.games {
                    self.game_match[g.index()] = i as u32;
                }
            }
            self.matches.push(matches);
        }
        Ok(numbers)
    }

    /// Records a game's result.
    ///
    /// Idempotent: the same result again answers [`Recorded::Already`] and changes nothing. A
    /// knockout draw under [`DrawRule::Replay`] starts the replay itself (seats swapped, same
    /// round) and answers [`Recorded::Replay`] with it, so the caller cannot forget it; after
    /// [`MAX_DRAWS`] draws in a row the higher seed advances instead. A draw under
    /// [`DrawRule::HigherSeed`] sends the higher seed through.
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
        match self.format {
            Format::Knockout { draws } => Ok(self.knockout_result(g, outcome, draws)),
            _ => Ok(Recorded::Stored),
        }
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
    /// seat-0 games takes seat 0. An odd player out is left for the next call. Empty in other
    /// formats and once the arena is closed. Nothing changes until [`begin_games`].
    ///
    /// [`begin_games`]: Tournament::begin_games
    pub fn pair_arena(&self, idle: &[Player]) -> Vec<[Player; 2]> {
        if !matches!(self.format, Format::Arena { .. }) || self.closed {
            return Vec::new();
        }
        let mut seen = vec![false; self.entrants()];
        let points = crate::standings::points_by_player(self);
        let mut last_opponent = vec![None; self.entrants()];
        let mut last_seat = vec![None; self.entrants()];
        let mut seats = vec![[0u32; 2]; self.entrants()];
        for g in &self.games {
            for (s, p) in g.players.iter().enumerate() {
                last_opponent[p.index()] = Some(g.players[1 - s]);
                last_seat[p.index()] = Some(if s == 0 { Seat::Zero } else { Seat::One });
                seats[p.index()][s] += 1;
            }
        }
        let list = idle
            .iter()
            .filter(|p| {
                let i = p.index();
                i < self.entrants()
                    && !self.withdrawn[i]
                    && self.busy[i].is_none()
                    && !std::mem::replace(&mut seen[i], true)
            })
            .map(|&p| Idle {
                player: p,
                points: points[p.index()],
                seed: self.seed_of[p.index()],
                last_opponent: last_opponent[p.index()],
                seats: seats[p.index()],
                last_seat: last_seat[p.index()],
            })
            .collect();
        arena::pair(list)
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
        if !matches!(self.format, Format::Arena { .. }) {
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
        if matches!(self.format, Format::Arena { .. }) {
            self.closed = true;
        }
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
        if matches!(self.format, Format::Arena { .. }) {
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

    /// A Swiss round's hard rules (the players are already known, active and unique).
    fn check_swiss(&self, pairing: &RoundPairing) -> Result<(), Error> {
        let mut paired = vec![false; self.entrants()];
        for p in pairing.games.iter().flatten().chain(&pairing.byes) {
            paired[p.index()] = true;
        }
        let active = (0..self.entrants()).filter(|&i| !self.withdrawn[i]).count();
        if let Some(i) = (0..self.entrants()).find(|&i| !self.withdrawn[i] && !paired[i]) {
            return Err(Error::Unpaired(Player(i as u32)));
        }
        if pairing.byes.len() != active % 2 {
            return Err(Error::ByeCount { expected: active % 2, got: pairing.byes.len() });
        }
        let mut had_bye = vec![false; self.entrants()];
        let mut met: Vec<Vec<Player>> = vec![Vec::new(); self.entrants()];
        for r in &self.rounds {
            for b in &r.byes {
                had_bye[b.index()] = true;
            }
            for &[a, b] in &r.games {
                met[a.index()].push(b);
            }
        }
        if let Some(b) = pairing.byes.iter().find(|b| had_bye[b.index()]) {
            return Err(Error::SecondBye(*b));
        }
        for &[a, b] in &pairing.games {
            if met[a.index()].contains(&b) || met[b.index()].contains(&a) {
                return Err(Error::Repeat([a, b]));
            }
        }
        Ok(())
    }

    fn start_game(&mut self, round: u32, players: [Player; 2]) -> GameNo {
        let no = GameNo(self.games.len() as u32);
        self.games.push(Game { no, round, players, outcome: None });
        self.game_match.push(u32::MAX);
        for p in players {
            self.busy[p.index()] = Some(no);
        }
        no
    }

    fn round_robin_pairing(&self, round: u32) -> RoundPairing {
        let n = self.entrants() as u32;
        let cycle = berger_rounds(n);
        let (r, swapped) = if round > cycle { (round - cycle, true) } else { (round, false) };
        let mut games = Vec::new();
        let mut byes = Vec::new();
        for (a, b) in berger_round(n, r) {
            let (a, b) = if swapped { (b, a) } else { (a, b) };
            let side = |num: u32| {
                (num <= n)
                    .then(|| self.by_seed[num as usize - 1])
                    .filter(|p| !self.withdrawn[p.index()])
            };
            match (side(a), side(b)) {
                (Some(x), Some(y)) => games.push([x, y]),
                (Some(x), None) | (None, Some(x)) => byes.push(x),
                (None, None) => {}
            }
        }
        RoundPairing { round, games, byes }
    }

    /// The Swiss view of every active player.
    fn swiss_entries(&self) -> Vec<Entry> {
        let n = self.entrants();
        let mut score = vec![0u32; n];
        let mut seats: Vec<Vec<Seat>> = vec![Vec::new(); n];
        let mut opponents: Vec<Vec<Player>> = vec![Vec::new(); n];
        let mut had_bye = vec![false; n];
        let mut floats = vec![[Float::None; 2]; n];
        // The games of each round, in order (the round is complete when pairing).
        let mut by_round: Vec<Vec<&Game>> = vec![Vec::new(); self.rounds.len()];
        for g in &self.games {
            if let Some(r) = (g.round as usize).checked_sub(1) {
                by_round[r].push(g);
            }
        }
        for (r, games) in self.rounds.iter().zip(&by_round) {
            // Floats compare the scores before the round (FIDE A.4): a bye or an absence is a
            // downfloat.
            let mut this = vec![Float::Down; n];
            for g in games {
                let [a, b] = g.players;
                let (ia, ib) = (a.index(), b.index());
                let cmp = score[ia].cmp(&score[ib]);
                this[ia] = float_of(cmp);
                this[ib] = float_of(cmp.reverse());
            }
            for i in 0..n {
                floats[i] = [this[i], floats[i][0]];
            }
            for b in &r.byes {
                had_bye[b.index()] = true;
                score[b.index()] += BYE;
            }
            for g in games {
                let [a, b] = g.players;
                seats[a.index()].push(Seat::Zero);
                seats[b.index()].push(Seat::One);
                opponents[a.index()].push(b);
                opponents[b.index()].push(a);
                if let Some(o) = g.outcome {
                    score[a.index()] += o.for_seat(Seat::Zero).points();
                    score[b.index()] += o.for_seat(Seat::One).points();
                }
            }
        }
        (0..n)
            .filter(|&i| !self.withdrawn[i])
            .map(|i| Entry {
                player: Player(i as u32),
                seed: self.seed_of[i],
                score: score[i],
                seats: std::mem::take(&mut seats[i]),
                opponents: std::mem::take(&mut opponents[i]),
                had_bye: had_bye[i],
                floats: floats[i],
            })
            .collect()
    }

    /// The sides of each match of the next knockout round: the bracket layout for round 1,
    /// then the previous round's winners two by two.
    fn knockout_sides(&self) -> Vec<[Option<Player>; 2]> {
        match self.matches.last() {
            None => {
                let size = self.entrants().next_power_of_two() as u32;
                let order = knockout::bracket_order(size);
                order
                    .chunks(2)
                    .map(|c| {
                        let side = |s: u32| self.by_seed.get(s as usize - 1).copied();
                        [side(c[0]), side(c[1])]
                    })
                    .collect()
            }
            Some(prev) => prev.chunks(2).map(|c| [c[0].winner, c[1].winner]).collect(),
        }
    }

    /// How each match of the next knockout round starts.
    fn knockout_plan(&self) -> Vec<Plan> {
        let mut seats0 = vec![0u32; self.entrants()];
        for g in &self.games {
            seats0[g.players[0].index()] += 1;
        }
        self.knockout_sides()
            .into_iter()
            .map(|sides| {
                let active = |s: Option<Player>| s.filter(|p| !self.withdrawn[p.index()]);
                match (active(sides[0]), active(sides[1])) {
                    (Some(a), Some(b)) => {
                        // Fewer seat-0 games takes seat 0; equal, the higher seed.
                        let key = |p: Player| (seats0[p.index()], self.seed_of[p.index()]);
                        Plan::Game(if key(a) <= key(b) { [a, b] } else { [b, a] })
                    }
                    (Some(a), None) | (None, Some(a)) => Plan::Bye(a),
                    (None, None) => Plan::Empty,
                }
            })
            .collect()
    }

    fn knockout_result(&mut self, g: Game, outcome: Outcome, draws: DrawRule) -> Recorded {
        let round = g.round as usize - 1;
        let mi = self.game_match[g.no.index()] as usize;
        let higher = |t: &Tournament, [a, b]: [Player; 2]| {
            if t.seed_of[a.index()] < t.seed_of[b.index()] { a } else { b }
        };
        let winner = match outcome {
            Outcome::Seat0 => g.players[0],
            Outcome::Seat1 => g.players[1],
            Outcome::Draw => match draws {
                DrawRule::HigherSeed => higher(self, g.players),
                DrawRule::Replay if self.matches[round][mi].games.len() >= MAX_DRAWS => {
                    higher(self, g.players)
                }
                DrawRule::Replay => {
                    let players = [g.players[1], g.players[0]];
                    let no = self.start_game(g.round, players);
                    self.game_match[no.index()] = mi as u32;
                    self.matches[round][mi].games.push(no);
                    self.rounds[round].games.push(players);
                    return Recorded::Replay { game: no, players };
                }
            },
        };
        self.matches[round][mi].winner = Some(winner);
        Recorded::Stored
    }

    /// Knockout: the matches of each round begun.
    pub(crate) fn knockout_matches(&self) -> &[Vec<Match>] {
        &self.matches
    }

    /// The rounds begun.
    pub(crate) fn rounds(&self) -> &[RoundPairing] {
        &self.rounds
    }
}

fn float_of(cmp: std::cmp::Ordering) -> Float {
    match cmp {
        std::cmp::Ordering::Greater => Float::Down,
        std::cmp::Ordering::Less => Float::Up,
        std::cmp::Ordering::Equal => Float::None,
    }
}
