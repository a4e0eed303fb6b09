//! `colosseum play` through the cluster: a guest session, a match against a bot or an open
//! seat (or joining one), events as they come, the view and the time left at each prompt.
//! It sees exactly what its seat may see, through the same client as every other player.
//! A broken connection never ends it: calls are tried again (moves with the same key) and
//! the watch resumes where it stood, until the gateway answers again.

use super::args::PlayArgs;
use super::terminal::{describe, hint, shorthand, show_view};
use crate::refused as status;
use crate::session::DEFAULT_GATEWAY;
use api::v1;
use client::requests::{self, opponent};
use client::{Client, Cursor};
use std::io::{BufRead, Write};
use std::process::ExitCode;
use std::time::Duration;
use tokio::sync::mpsc;
use tonic::Status;

/// The longest wait between two tries of a call the gateway could not answer.
const MAX_BACKOFF: Duration = Duration::from_secs(5);

/// `call` until the gateway answers it (anything but a failure the API says to retry, or
/// a broken connection: see [`client::resumable`]), waiting longer after each try; says
/// once that it is reconnecting.
async fn answered<T, Fut>(mut call: impl FnMut() -> Fut) -> Result<T, Status>
where
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    let mut wait = Duration::from_millis(100);
    let mut said = false;
    loop {
        match call().await {
            Err(s) if client::resumable(&s) => {
                if !said {
                    println!("  (the gateway is not answering: {}; trying again)", s.code());
                    said = true;
                }
                tokio::time::sleep(wait).await;
                wait = (wait * 2).min(MAX_BACKOFF);
            }
            done => return done,
        }
    }
}

/// What the loop waits for: a line typed, a message of the watch, or the end of input.
enum Input {
    Line(String),
    Event(Box<v1::WatchMatchResponse>),
    Closed,
}

/// Plays through the gateway of `args`, until the match ends or the input does.
///
/// # Errors
/// The gateway cannot be reached, or refuses what the loop cannot go on without.
pub fn play(args: &PlayArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let gateway = args.gateway.as_deref().unwrap_or(DEFAULT_GATEWAY);
        let client = Client::guest(gateway, "player").await.map_err(|e| {
            let why = match e {
                client::Error::Api(s) => status(s),
                e => e.to_string(),
            };
            format!("cannot reach the gateway at {gateway}: {why}")
        })?;
        let (match_id, game) = match &args.join {
            Some(id) => join(&client, id).await?,
            None => create(&client, args).await?,
        };
        play_match(&client, &match_id, &game).await
    })
}

/// Plays match `match_id` of `game` in the seat `client` holds, until the match ends
/// (then says who won and saves its record) or the input does (then resigns).
///
/// # Errors
/// The gateway refuses what the loop cannot go on without.
pub async fn play_match(client: &Client, match_id: &str, game: &str) -> Result<ExitCode, String> {
    println!("You are {}. {}; `resign` resigns.", client.player_id(), hint(game));
    let mut inputs = inputs(client, match_id).await?;
    // The version the person was last asked to move at: asked once per version.
    let mut prompted_at = None;
    loop {
        let view = answered(|| client.view(match_id)).await.map_err(status)?;
        if let Some(o) = &view.outcome {
            finish(client, match_id, &view, o).await?;
            return Ok(ExitCode::SUCCESS);
        }
        if !view.legal_moves.is_empty() && prompted_at != Some(view.version) {
            prompt(&view);
            prompted_at = Some(view.version);
        }
        match inputs.recv().await {
            None | Some(Input::Closed) => {
                println!("\nbye: resigning");
                let _ = answered(|| client.resign(match_id)).await;
                return Ok(ExitCode::SUCCESS);
            }
            Some(Input::Event(e)) => {
                if let Some(ev) = &e.event {
                    println!("  > [{}] {}", e.version, describe(ev));
                }
            }
            Some(Input::Line(line)) => {
                if !typed(client, match_id, game, line.trim()).await? {
                    prompted_at = None;
                }
            }
        }
    }
}

/// Joins match `id` (again: a seat already held is answered the same); its id and game.
///
/// # Errors
/// The gateway's refusal.
pub async fn join(client: &Client, id: &str) -> Result<(String, String), String> {
    client.join(id, "").await.map_err(status)?;
    let view = client.view(id).await.map_err(status)?;
    Ok((id.to_string(), view.game))
}

/// Creates the match `args` ask for, in seat 0, and says how to join it; its id and game.
async fn create(client: &Client, args: &PlayArgs) -> Result<(String, String), String> {
    let opponent = match args.vs.as_str() {
        "bot" => opponent::bot(&args.bot.clone().unwrap_or_else(|| {
            games::registry::bot_names(&args.game).last().copied().unwrap_or("random").to_string()
        })),
        "open" => opponent::open(),
        other => return Err(format!("--vs is bot or open, not {other:?}")),
    };
    let req = requests::create(&args.game, &args.options, opponent, args.move_time * 1000);
    let created = client.create(req).await.map_err(status)?;
    println!("Match {} created; you are seat {}.", created.match_id, created.seat);
    if args.vs == "open" {
        println!("The other player joins with:  colosseum play --join {}", created.match_id);
    }
    Ok((created.match_id, args.game.clone()))
}

/// The lines typed (read on a thread of their own) and the match's watch stream, merged.
async fn inputs(client: &Client, match_id: &str) -> Result<mpsc::UnboundedReceiver<Input>, String> {
    let (tx, rx) = mpsc::unbounded_channel::<Input>();
    {
        let tx = tx.clone();
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(Input::Line(line)).is_err() {
                    return;
                }
            }
            let _ = tx.send(Input::Closed);
        });
    }
    let watch = answered(|| client.watch(match_id, Cursor::START, false)).await.map_err(status)?;
    let (client, match_id) = (client.clone(), match_id.to_string());
    tokio::spawn(async move {
        // A watch that breaks (a gateway restarted, a connection lost) is resumed after
        // the last message received, so no event is shown twice or missed.
        let mut watch = watch;
        let mut at = Cursor::START;
        loop {
            let broke = loop {
                match watch.message().await {
                    Ok(Some(e)) => {
                        at = at.next(&e);
                        if tx.send(Input::Event(Box::new(e))).is_err() {
                            return;
                        }
                    }
                    // The match ended.
                    Ok(None) => return,
                    Err(s) => break s,
                }
            };
            if !client::resumable(&broke) && broke.code() != tonic::Code::ResourceExhausted {
                println!("  (the watch ended: {}; moves still work)", broke.message());
                return;
            }
            watch = match answered(|| client.watch(&match_id, at, false)).await {
                Ok(w) => w,
                Err(s) => {
                    println!("  (the watch could not resume: {}; moves still work)", s.message());
                    return;
                }
            };
        }
    });
    Ok(rx)
}

/// Shows the view and the time left, and asks for a move.
fn prompt(view: &v1::GetViewResponse) {
    let json: serde_json::Value = serde_json::from_str(&view.view_json).unwrap_or_default();
    show_view(&serde_json::json!({ "game": json }));
    if let Some(ms) = view.deadline_in_ms {
        println!("  time left: {:.0} s", ms as f64 / 1000.0);
    }
    print!("your move> ");
    std::io::stdout().flush().ok();
}

/// Acts on a typed line: nothing, `resign`, or a move (a fresh idempotency key each).
/// Returns whether the prompt still stands (`false`: ask again, the line made no move).
///
/// # Errors
/// A resignation the gateway refused.
async fn typed(client: &Client, match_id: &str, game: &str, line: &str) -> Result<bool, String> {
    if line.is_empty() {
        return Ok(false);
    }
    if line == "resign" {
        answered(|| client.resign(match_id)).await.map_err(status)?;
        return Ok(true);
    }
    let mv = match games::registry::move_from_json(game, &shorthand(game, line)) {
        Ok(m) => m,
        Err(e) => {
            println!("  ! {e} ({})", hint(game));
            return Ok(false);
        }
    };
    // Tried again with the same key until the gateway answers: applied once.
    let key = uuid::Uuid::new_v4().to_string();
    match answered(|| client.submit(match_id, Some(mv.clone()), &key)).await {
        Ok(_) => Ok(true),
        Err(s) => {
            println!("  ! {}", s.message());
            Ok(false)
        }
    }
}

/// Says who won and saves the finished match's record, so anyone can replay and verify it.
async fn finish(
    client: &Client,
    match_id: &str,
    view: &v1::GetViewResponse,
    o: &v1::Outcome,
) -> Result<(), String> {
    let verdict = match (o.winner, view.seat) {
        (Some(w), Some(s)) if w == s => "You win".to_string(),
        (Some(w), _) => format!("Seat {w} wins"),
        (None, _) => "No winner".to_string(),
    };
    println!("{verdict} ({}). Seed revealed: {}", o.reason, o.seed);
    let record = answered(|| client.record(match_id)).await.map_err(status)?;
    let path = format!("match-{match_id}.json");
    match std::fs::write(&path, record) {
        Ok(()) => println!("Record saved: {path}   (check it: colosseum verify {path})"),
        Err(e) => println!("Could not save the record to {path}: {e}"),
    }
    Ok(())
}
