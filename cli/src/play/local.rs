//! `colosseum play --local`: a match in the terminal against a built-in bot, on the local
//! rules engine. You are seat 0; you see only what your seat may see (your view and the
//! events addressed to you or the public), exactly what a networked client would get.

use super::args::PlayArgs;
use super::terminal::{hint, shorthand, show_view};
use bots::Seen;
use games::parse::{parse_move, parse_options};
use games::{Host, Hostable, Logged, Visit};
use rules_core::{Seat, Seed, Step, Tagged, Viewer};
use serde_json::Value;
use std::io::{BufRead, Write};

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

/// Plays `args` against a bot on the local rules engine.
///
/// # Errors
/// An unknown game or bot, bad options or seed, or a step the engine refuses.
pub fn play(args: &PlayArgs) -> Result<(), String> {
    games::visit(&args.game, Play(args)).unwrap_or_else(|| {
        Err(format!("unknown game {:?}; the games are {}", args.game, games::registry::names()))
    })
}
