//! Bots and selfplay. A bot sees what its seat sees (the game's view for that seat) and
//! the legal moves, and picks one; it never reads the full state.
//!
//! # Layout
//! - this file: the `Bot` trait, `BotRng`, the random legal bot, and `Roster`, which
//!   names the bots of each game.
//! - [`selfplay`]: the loop that plays bot against bot, allocation-free per move.
//! - [`gops`]: the strong GOPS bot (equilibrium endgames) and "bid the prize value".

pub mod gops;
pub mod matrix;
pub mod selfplay;

use rand_chacha::ChaCha8Rng;
use rand_core::{Rng, SeedableRng};
use rules_core::{Game, uniform_below};
use rules_goofspiel::{DuelingMonsters, Gops};

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

/// A player program for game `G`.
pub trait Bot<G: Game>: Send {
    /// Picks one of `legal` (never empty) from what its seat sees.
    fn choose(&mut self, view: &G::View, legal: &[G::Move], rng: &mut BotRng) -> G::Move;
}

/// Plays a uniformly random legal move.
#[derive(Clone, Copy, Debug, Default)]
pub struct RandomBot;

impl<G: Game> Bot<G> for RandomBot {
    #[inline]
    fn choose(&mut self, _view: &G::View, legal: &[G::Move], rng: &mut BotRng) -> G::Move {
        legal[rng.below(legal.len() as u32) as usize].clone()
    }
}

/// The bots a game offers, by name.
pub trait Roster: Game + Sized {
    /// The bot names, the first being the default.
    const BOTS: &'static [&'static str];
    /// A new bot of that name.
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>>;
}

impl Roster for Gops {
    const BOTS: &'static [&'static str] = &["random", "strong", "prize"];
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
    const BOTS: &'static [&'static str] = &["random"];
    fn bot(name: &str) -> Option<Box<dyn Bot<Self>>> {
        match name {
            "random" => Some(Box::new(RandomBot)),
            _ => None,
        }
    }
}
