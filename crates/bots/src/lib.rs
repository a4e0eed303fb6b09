//! Bots and selfplay. A bot sees what its seat sees (the game's view for that seat) and
//! the legal moves, and picks one; it never reads the full state.
//!
//! # Layout
//! - this file: the `Bot` trait, `BotRng`, the random legal bot, `Roster`, which names
//!   the bots of each game, and `JsonBot` (bots by game name: `games::registry`).
//! - [`selfplay`]: the loop that plays bot against bot, allocation-free per move.
//! - [`gops`]: the strong GOPS bot (equilibrium endgames) and "bid the prize value".
//! - [`dueling_monsters`]: the strong Dueling Monsters bot (each round's equilibrium,
//!   valued by its chance of winning the bout).
//! - [`cure_plague`]: the greedy Cure & Plague bot (best immediate score for its role).
//! - [`hexspiel`]: the shortest-path-aware Hexspiel bot.
//! - [`masterminds`]: the Masterminds Duel heuristic bot (expected turn result).

pub mod cure_plague;
pub mod dueling_monsters;
pub mod gops;
pub mod hexspiel;
pub mod masterminds;
pub mod matrix;
pub mod selfplay;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rules_core::{Game, Seat, Viewer, uniform_below};
use rules_duel::Masterminds;
use rules_goofspiel::Hexspiel;
use rules_goofspiel::{DuelingMonsters, Gops};
use rules_placement::CurePlague;

/// A bot's own source of chance (never the match's: bots must not disturb the match's
/// random stream, which decides what the rules draw).
#[derive(Clone, Debug)]
pub struct BotRng(ChaCha8Rng);

impl BotRng {
    /// A generator from 32 bytes.
    pub fn from_seed(seed: [u8; 32]) -> Self {
        BotRng(ChaCha8Rng::from_seed(seed))
    }

    /// A uniform integer in `0..n` (n > 0).
    #[inline]
    pub fn below(&mut self, n: u32) -> u32 {
        uniform_below(&mut self.0, n)
    }

    /// A uniform float in [0, 1).
    pub fn unit(&mut self) -> f64 {
        (self.0.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// 32 fresh bytes.
    pub fn bytes32(&mut self) -> [u8; 32] {
        let mut b = [0u8; 32];
        self.0.fill_bytes(&mut b);
        b
    }
}

/// What a bot may look at: its seat's view, built only if the bot asks for it (a random
/// bot never does, which keeps selfplay fast). The full state stays out of reach: a bot
/// in selfplay gets the view the rules build for its seat, a bot playing through the
/// public API the view the API sent it.
pub struct Seen<'a, G: Game> {
    source: Source<'a, G>,
    seat: Seat,
}

enum Source<'a, G: Game> {
    State(&'a G),
    View(G::View),
}

impl<'a, G: Game> Seen<'a, G> {
    /// What `seat` sees of `game`.
    pub fn new(game: &'a G, seat: Seat) -> Self {
        Seen { source: Source::State(game), seat }
    }

    /// A view received from the API.
    pub fn from_view(view: G::View, seat: Seat) -> Seen<'static, G> {
        Seen { source: Source::View(view), seat }
    }

    /// The bot's seat.
    pub fn seat(&self) -> Seat {
        self.seat
    }

    /// The seat's view, built by the rules for that seat.
    pub fn view(&self) -> G::View {
        match &self.source {
            Source::State(g) => g.view(Viewer::Seat(self.seat)),
            Source::View(v) => v.clone(),
        }
    }
}

/// A player program for game `G`.
pub trait Bot<G: Game>: Send {
    /// Picks one of `legal` (never empty) from what its seat sees.
    fn choose(&mut self, seen: &Seen<'_, G>, legal: &[G::Move], rng: &mut BotRng) -> G::Move;
}

/// Plays a uniformly random legal move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomBot;

impl<G: Game> Bot<G> for RandomBot {
    #[inline]
    fn choose(&mut self, _seen: &Seen<'_, G>, legal: &[G::Move], rng: &mut BotRng) -> G::Move {
        legal[rng.below(legal.len() as u32) as usize].clone()
    }
}

/// The bots a game offers, by name.
pub trait Roster: Game<View: serde::de::DeserializeOwned> + Sized {
    /// The bot names, the last being the default (the strongest: `colosseum play` and
    /// anything else that picks a bot for a game take the last).
    const BOTS: &'static [&'static str];
    /// A new bot of that name.
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>>;
}

impl Roster for Gops {
    const BOTS: &'static [&'static str] = &["random", "prize", "strong"];
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomBot)),
            "strong" => Some(Box::new(gops::StrongBot::new())),
            "prize" => Some(Box::new(gops::PrizeBot)),
            _ => None,
        }
    }
}

impl Roster for DuelingMonsters {
    const BOTS: &'static [&'static str] = &["random", "strong"];
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomBot)),
            "strong" => Some(Box::new(dueling_monsters::StrongBot::new())),
            _ => None,
        }
    }
}

impl Roster for CurePlague {
    const BOTS: &'static [&'static str] = &["random", "greedy"];
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomBot)),
            "greedy" => Some(Box::new(cure_plague::GreedyBot)),
            _ => None,
        }
    }
}

impl Roster for Hexspiel {
    const BOTS: &'static [&'static str] = &["random", "path"];
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomBot)),
            "path" => Some(Box::new(hexspiel::PathBot)),
            _ => None,
        }
    }
}

impl Roster for Masterminds {
    const BOTS: &'static [&'static str] = &["random", "heuristic"];
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomBot)),
            "heuristic" => Some(Box::new(masterminds::HeuristicBot::new())),
            _ => None,
        }
    }
}

/// A bot for a game chosen at run time, speaking JSON: views and moves in the conformance
/// shapes, as a client of the public API receives them. The bot runner plays with it.
pub trait JsonBot: Send {
    /// Picks one of `legal` from the seat's view.
    ///
    /// # Errors
    /// A view or move that is not of this game.
    fn choose(
        &mut self,
        seat: Seat,
        view_json: &str,
        legal: &[serde_json::Value],
    ) -> Result<serde_json::Value, String>;
}

struct Typed<G: Roster> {
    bot: Box<dyn Bot<G>>,
    rng: BotRng,
}

impl<G: Roster> JsonBot for Typed<G> {
    fn choose(
        &mut self,
        seat: Seat,
        view_json: &str,
        legal: &[serde_json::Value],
    ) -> Result<serde_json::Value, String> {
        let view: G::View =
            serde_json::from_str(view_json).map_err(|e| format!("not a {} view: {e}", G::NAME))?;
        let legal: Vec<G::Move> = legal
            .iter()
            .map(|m| {
                serde_json::from_value(m.clone())
                    .map_err(|e| format!("not a {} move: {e}", G::NAME))
            })
            .collect::<Result<_, _>>()?;
        if legal.is_empty() {
            return Err("no legal move".into());
        }
        let mv = self.bot.choose(&Seen::from_view(view, seat), &legal, &mut self.rng);
        serde_json::to_value(mv).map_err(|e| e.to_string())
    }
}

/// A JSON-speaking bot `bot` of game `G`, its choices drawn from `seed` (by game name:
/// `games::registry::json_bot`).
pub fn json_bot<G: Roster>(bot: &str, seed: [u8; 32]) -> Option<Box<dyn JsonBot>> {
    let bot = G::bot(bot)?;
    Some(Box::new(Typed::<G> { bot, rng: BotRng::from_seed(seed) }))
}
