//! `colosseum play`: a match in the terminal against a built-in bot, on the local rules
//! engine. You are seat 0; you see only what your seat may see (your view and the events
//! addressed to you or the public), exactly what a networked client would get.

use bots::Seen;
use clap::Args;
use games::parse::{parse_move, parse_options};
use games::{Host, Hostable, Logged, Visit};
use rules_core::{Seat, Seed, Step, Tagged, Viewer};
use serde_json::{Value, json};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Options of `colosseum play`.
#[derive(Args)]
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
    /// The gateway to play through.
    #[arg(long, default_value = "http://127.0.0.1:50051")]
    pub gateway: String,
    /// Per-move time in seconds (1 to 604800).
    #[arg(long, default_value_t = 60)]
    pub move_time: u64,
    /// Play on the local rules engine, without a cluster (against a bot only).
    #[arg(long)]
    pub local: bool,
    /// With --local: the match seed (hex); default fresh from the OS.
    #[arg(long)]
    pub seed: Option<String>,
}

/// Turns what a person types into the game's move JSON: raw JSON, or a shorthand.
pub fn shorthand(game: &str, line: &str) -> Value {
    let line = line.trim();
    if line.starts_with('{') {
        return serde_json::from_str(line).unwrap_or(Value::String(line.to_string()));
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    let num = |w: &str| w.parse::<i64>().map(Value::from).unwrap_or(Value::String(w.to_string()));
    match (game, words.as_slice()) {
        ("gops", [c]) => json!({ "card": num(c) }),
        ("dueling-monsters", [b, w]) => json!({ "black": num(b), "white": num(w) }),
        ("masterminds", [c]) => json!({ "card": c }),
        ("masterminds", [c, a]) => json!({ "card": c, "as": a }),
        ("hexspiel", [b]) if b.parse::<i64>().is_ok() => json!({ "bid": num(b) }),
        ("hexspiel", cells) if cells.first() == Some(&"place") => json!({ "place": cells[1..] }),
        ("cure-plague", [hx, hy, cx, cy, px, py, rest @ ..]) => {
            let mut m = json!({
                "human": [num(hx), num(hy)], "cure": [num(cx), num(cy)], "plague": [num(px), num(py)]
            });
            match rest {
                [] => m,
                [item] => {
                    m["item"] = json!(item);
                    m
                }
                // Words past the item are not dropped: the line is not a move.
                _ => Value::String(line.to_string()),
            }
        }
        _ => Value::String(line.to_string()),
    }
}

pub fn hint(game: &str) -> &'static str {
    match game {
        "gops" => "type a card, e.g. 7",
        "dueling-monsters" => "type a black and a white, e.g. 2 9",
        "masterminds" => "type a card, e.g. kill, or bluff fireball",
        "hexspiel" => "type a bid, e.g. 5, or place c3 d4 (or {json} with a pattern)",
        "cure-plague" => "type human x y, cure x y, plague x y [item], e.g. -1 1 0 1 1 1",
        _ => "type the move as JSON",
    }
}

/// Prints a view: its board picture (games with a board carry one), then every other
/// field on one line.
pub fn show_view(view: &Value) {
    let Some(obj) = view.get("game").and_then(Value::as_object) else { return };
    if let Some(lines) = obj.get("picture").and_then(Value::as_array) {
        for l in lines.iter().filter_map(Value::as_str) {
            println!("    {l}");
        }
    }
    let line: Vec<String> = obj
        .iter()
        .filter(|(k, v)| {
            !v.is_null()
                && !matches!(k.as_str(), "viewer" | "picture" | "board" | "costs" | "tiles")
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    println!("  {}", line.join("  "));
}

fn show_events(events: &[Tagged<Value>], me: Seat) {
    for t in events.iter().filter(|t| t.audience.admits(Viewer::Seat(me))) {
        println!("  > {}", t.event);
    }
}

struct Play<'a>(&'a PlayArgs);

impl Visit for Play<'_> {
    type Out = Result<(), String>;
    fn visit<G: Hostable>(self) -> Self::Out {
        let args = self.0;
        if args.vs != "bot" {
            return Err(
                "only --vs bot plays locally; a person plays a person through the cluster".into()
            );
        }
        let options: Value =
            serde_json::from_str(&args.options).map_err(|e| format!("--options: {e}"))?;
        let options = parse_options::<G>(&options).map_err(|e| e.to_string())?;
        let seed = match &args.seed {
            Some(s) => Seed::parse(s).map_err(|e| format!("--seed: {e}"))?,
            None => Seed::from_array(os_seed()),
        };
        let bot_name = args.bot.clone().unwrap_or_else(|| G::BOTS[G::BOTS.len() - 1].to_string());
        let mut bot = G::bot(&bot_name)
            .ok_or_else(|| format!("no bot {bot_name:?}; bots: {}", G::BOTS.join(", ")))?;
        let mut rng = bots::BotRng::from_seed(os_seed());
        let mut m = Logged::<G>::new(options, seed).map_err(|e| e.to_string())?;
        let (me, it) = (Seat::ZERO, Seat::ONE);
        println!("{} against the {bot_name} bot. You are seat 0. {}.", G::NAME, hint(G::NAME));
        println!("Seed commitment: {}", m.inner().commitment().to_hex());
        show_events(&m.events(), me);
        let stdin = std::io::stdin();
        let mut lines = stdin.lock().lines();
        while m.outcome().is_none() {
            let owing = m.to_move();
            if owing.is_empty() {
                show_events(&m.step(&Step::Deadline).map_err(|e| e.to_string())?, me);
                continue;
            }
            // The bot moves whenever it owes a move; in simultaneous games it seals first,
            // which tells you only that it has moved.
            if owing.contains(it) {
                let mut legal = Vec::new();
                m.inner().legal_moves(it, &mut legal);
                let mv = bot.choose(&Seen::new(m.inner().game(), it), &legal, &mut rng);
                let events =
                    m.step(&Step::Move { seat: it, mv: serde_json::to_value(&mv).unwrap() });
                show_events(&events.map_err(|e| e.to_string())?, me);
                continue;
            }
            show_view(&m.view(Viewer::Seat(me)));
            print!("your move> ");
            std::io::stdout().flush().ok();
            let Some(Ok(line)) = lines.next() else {
                println!("\nbye (you resigned)");
                m.step(&Step::Resign(me)).ok();
                break;
            };
            if line.trim() == "resign" {
                show_events(&m.step(&Step::Resign(me)).map_err(|e| e.to_string())?, me);
                break;
            }
            let mv = shorthand(G::NAME, &line);
            if let Err(e) = parse_move::<G>(&mv) {
                println!("  ! {} ({})", e.message, hint(G::NAME));
                continue;
            }
            match m.step(&Step::Move { seat: me, mv }) {
                Ok(events) => show_events(&events, me),
                Err(e) => println!("  ! {}", e.message),
            }
        }
        if let Some(o) = m.outcome() {
            let verdict = match o.winner {
                Some(s) if s == me => "You win",
                Some(_) => "The bot wins",
                None => "No winner",
            };
            println!(
                "{verdict} ({}). Seed revealed: {}",
                serde_json::to_string(&o.reason).unwrap_or_default(),
                seed.to_hex()
            );
            println!("Summary: {}", m.summary());
        }
        Ok(())
    }
}

/// 32 bytes from the operating system, for a fresh match seed.
fn os_seed() -> [u8; 32] {
    let mut b = [0u8; 32];
    if let Ok(mut f) = std::fs::File::open("/dev/urandom") {
        use std::io::Read;
        let _ = f.read_exact(&mut b);
    }
    b
}

/// Runs `colosseum play`: through the cluster, or with `--local` on the local engine.
pub fn run(args: PlayArgs) -> Result<ExitCode, String> {
    if !args.local {
        return crate::client::play(args);
    }
    games::visit(&args.game, Play(&args)).unwrap_or_else(|| {
        Err(format!("unknown game {:?}; the games are {}", args.game, games::registry::names()))
    })?;
    Ok(ExitCode::SUCCESS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shorthands_become_moves() {
        assert_eq!(shorthand("gops", " 7 "), json!({"card": 7}));
        assert_eq!(shorthand("dueling-monsters", "2 9"), json!({"black": 2, "white": 9}));
        assert_eq!(shorthand("masterminds", "bluff kill"), json!({"card": "bluff", "as": "kill"}));
        assert_eq!(shorthand("hexspiel", "place c3 d4"), json!({"place": ["c3", "d4"]}));
        assert_eq!(shorthand("hexspiel", "4"), json!({"bid": 4}));
        assert_eq!(
            shorthand("cure-plague", "-1 1 0 1 1 1 permute"),
            json!({"human": [-1, 1], "cure": [0, 1], "plague": [1, 1], "item": "permute"})
        );
        assert_eq!(shorthand("gops", "{\"card\": 3}"), json!({"card": 3}));
        assert_eq!(shorthand("gops", "seven"), json!({"card": "seven"}));
        // Nothing typed is dropped: extra words make the line no move (a bad move).
        assert_eq!(
            shorthand("cure-plague", "-1 1 0 1 1 1 permute extra"),
            json!("-1 1 0 1 1 1 permute extra")
        );
        assert_eq!(shorthand("gops", "7 8"), json!("7 8"));
        assert_eq!(shorthand("dueling-monsters", "2 9 1"), json!("2 9 1"));
        // A third cell is kept, and the rules (or the wire) refuse it, never send two.
        assert_eq!(shorthand("hexspiel", "place c3 d4 e5"), json!({"place": ["c3", "d4", "e5"]}));
        assert!(
            games::registry::move_from_json("hexspiel", &shorthand("hexspiel", "place c3 d4 e5"))
                .is_err()
        );
        assert!(
            games::registry::move_from_json("hexspiel", &shorthand("hexspiel", "place c3 d4"))
                .is_ok()
        );
    }
}
