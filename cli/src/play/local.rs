//! `colosseum play --local`: a match in the terminal against a built-in bot, on the local
//! rules engine (no cluster, no clock). You are seat 0; you see only what your seat may
//! see (its view and the events addressed to it or the public), drawn by the same face
//! as a match through the cluster.

use super::args::PlayArgs;
use super::face::{self, Names};
use super::screen::{self, Screen, Typed};
use games::{Host, StepIn};
use prost::Message;
use rules_core::{Seat, Seed, Step, Viewer};
use std::io::BufRead;

/// Plays `args` against a bot on the local rules engine.
///
/// # Errors
/// An unknown game or bot, bad options or seed, or a step the engine refuses.
pub fn play(args: &PlayArgs) -> Result<(), String> {
    if args.vs != "bot" {
        return Err(
            "only --vs bot plays locally; a person plays a person through the cluster".into()
        );
    }
    let game = args.game.as_str();
    let info = games::registry::info(game).ok_or_else(|| {
        format!("no game {:?}; the games are {}", face::cut(game, 32), games::registry::names())
    })?;
    let options: serde_json::Value =
        serde_json::from_str(&args.options).map_err(|_| "--options is not JSON".to_string())?;
    let seed = match &args.seed {
        Some(s) => Seed::parse(s).map_err(|e| format!("--seed: {e}"))?,
        None => Seed::from_array(os_seed()),
    };
    let bot_name = args.bot_name()?;
    let mut bot = games::registry::json_bot(game, &bot_name, os_seed())
        .ok_or_else(|| format!("no bot {bot_name}"))?;
    let mut m = games::start(game, &options, seed).map_err(|e| e.to_string())?;
    let mut face = face::of(game).ok_or("this client does not know the game")?;
    let names = Names::new(Some(0), format!("The {bot_name} bot"));
    let (me, it) = (Seat::ZERO, Seat::ONE);
    let mut screen = Screen::default();
    screen.say(&format!(
        "{} against the {bot_name} bot, on this machine. You are seat 0.",
        info.title
    ));
    screen.note(&format!("{}. Type help for your legal moves.", face.how_to_move()));
    screen.say(&format!("  Seed commitment: {}", m.commitment().to_hex()));
    let mut seen = 0;
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    loop {
        seen = tell(m.as_ref(), seen, face.as_mut(), &names, &mut screen);
        if let Some(o) = m.outcome() {
            let v = m.view_proto(Viewer::Seat(me), false).view;
            let outcome = api::v1::Outcome {
                winner: o.winner.map(|s| s.index() as u32),
                reason: wire::reason(&o),
                seed: seed.to_hex(),
            };
            for l in screen::end_screen(face.as_ref(), &v, &outcome, &names) {
                screen.say(&l);
            }
            return Ok(());
        }
        let owing = m.to_move();
        if owing.is_empty() {
            m.step(&Step::Deadline).map_err(|e| e.to_string())?;
            continue;
        }
        // The bot moves whenever it owes a move; in simultaneous games it seals first,
        // which tells you only that it has moved.
        if owing.contains(it) {
            let view = m.view(Viewer::Seat(it))["game"].to_string();
            let legal = m.legal_moves(it);
            let mv = bot.choose(it, &view, &legal)?;
            m.step(&Step::Move { seat: it, mv }).map_err(|e| e.to_string())?;
            continue;
        }
        let out = m.view_proto(Viewer::Seat(me), false);
        screen.panel(
            &format!("{}: you against the {bot_name} bot", info.title),
            &face.status(&out.view, &names),
        );
        screen.prompt(None);
        let Some(Ok(line)) = lines.next() else {
            screen.entered(None);
            screen.say("Input closed: you resign.");
            m.step(&Step::Resign(me)).map_err(|e| e.to_string())?;
            continue;
        };
        screen.entered(Some(&line));
        let mv = match screen::typed(&line) {
            Typed::Empty | Typed::Board => continue,
            Typed::Help => {
                for l in face.help(&out.legal).into_iter().chain(screen::commands()) {
                    screen.say(&l);
                }
                continue;
            }
            Typed::Resign => {
                m.step(&Step::Resign(me)).map_err(|e| e.to_string())?;
                continue;
            }
            Typed::Json(j) => serde_json::from_str(j)
                .map_err(|_| "that is not JSON".to_string())
                .and_then(|j| games::registry::move_from_json(game, &j)),
            Typed::Move(t) => face.read(t, &out.legal),
        };
        match mv.map(|mv| m.step_proto(StepIn::Move { seat: me, mv }).map_err(|e| e.to_string())) {
            Ok(Ok(_)) => {}
            Ok(Err(e)) | Err(e) => screen.say(&format!("  ! {e}")),
        }
    }
}

/// Tells the events past `seen` that seat 0 may receive; how many there are now.
fn tell(
    m: &dyn Host,
    seen: usize,
    face: &mut dyn face::Face,
    names: &Names,
    screen: &mut Screen,
) -> usize {
    let events = m.encoded_events();
    for e in &events[seen..] {
        if !e.audience.admits(Viewer::Seat(Seat::ZERO)) {
            continue;
        }
        if let Ok(event) = api::v1::Event::decode(e.payload.as_slice())
            && let Some(l) = face::line(face, &event, names)
        {
            screen.event(&l);
        }
    }
    events.len()
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
