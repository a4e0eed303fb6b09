//! The options of `colosseum play`, apart from what plays them, so the local and the
//! networked player both read them and neither depends on the other.

use clap::Args;

/// Options of `colosseum play`.
#[derive(Args, Clone)]
pub struct PlayArgs {
    /// The game (see `colosseum games`).
    #[arg(long, default_value = "gops")]
    pub game: String,
    /// Who you play: `bot` (a built-in bot) or `open` (an open seat another player joins).
    #[arg(long, default_value = "bot")]
    pub vs: String,
    /// Which bot (default: the game's strongest).
    #[arg(long)]
    pub bot: Option<String>,
    /// The game's options as JSON.
    #[arg(long, default_value = "{}")]
    pub options: String,
    /// Join this match (its id) instead of creating one.
    #[arg(long)]
    pub join: Option<String>,
    /// The gateway to play through [default: http://127.0.0.1:50051; with --queue, the
    /// saved session's].
    #[arg(long)]
    pub gateway: Option<String>,
    /// Per-move time in seconds, 1 to 604800 [default: 60; a queue takes 60 up]. Dueling
    /// Monsters, Hexspiel and Cure & Plague fix their own time (60): leave it out for them.
    #[arg(long)]
    pub move_time: Option<u64>,
    /// Play on the local rules engine, without a cluster (against a bot only).
    #[arg(long)]
    pub local: bool,
    /// Be paired by the match-maker instead (rated: needs a saved session, see
    /// `colosseum register`).
    #[arg(long, conflicts_with_all = ["local", "join", "vs", "bot"])]
    pub queue: bool,
    /// With --queue: a casual (unrated) queue; a guest may play it.
    #[arg(long, requires = "queue")]
    pub casual: bool,
    /// With --local: the match seed (hex); default fresh from the OS.
    #[arg(long)]
    pub seed: Option<String>,
}

impl PlayArgs {
    /// The bot to play: the one asked for, else the game's default (its strongest).
    ///
    /// # Errors
    /// The game has no such bot (or none at all).
    pub fn bot_name(&self) -> Result<String, String> {
        let bots = games::registry::bot_names(&self.game);
        match &self.bot {
            Some(b) if bots.contains(&b.as_str()) => Ok(b.clone()),
            Some(b) => Err(format!(
                "{} has no bot {:?}; its bots: {}",
                self.game,
                rules_core::clip(b),
                bots.join(", ")
            )),
            None => bots
                .last()
                .map(|b| (*b).to_string())
                .ok_or_else(|| format!("{} has no bot", self.game)),
        }
    }
}
