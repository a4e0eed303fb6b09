//! The terminal client over the public API: a guest session, a match against a bot or an
//! open seat (or joining one), events as they come, the view and the time left at each
//! prompt. It sees exactly what its seat may see.

use crate::play::{PlayArgs, hint, shorthand, show_view};
use api::v1::{self, opponent};
use gateway::bots::Client;
use std::io::{BufRead, Write};
use std::process::ExitCode;

fn status(s: tonic::Status) -> String {
    format!("{}: {}", s.code(), s.message())
}

/// One line for an event: its innermost message.
pub fn describe(e: &v1::Event) -> String {
    use v1::event::Kind;
    match &e.kind {
        Some(Kind::MatchStarted(m)) => {
            format!("match started ({}), seed commitment {}", m.game, m.commitment)
        }
        Some(Kind::Resigned(r)) => format!("seat {} resigned", r.seat),
        Some(Kind::MatchEnded(m)) => format!(
            "match ended: {} ({}), seed {}",
            m.winner.map_or("no winner".to_string(), |w| format!("seat {w} wins")),
            m.reason,
            m.seed
        ),
        Some(Kind::Gops(g)) => format!("{:?}", g.kind.as_ref()),
        Some(Kind::DuelingMonsters(g)) => format!("{:?}", g.kind.as_ref()),
        Some(Kind::CurePlague(g)) => format!("{:?}", g.kind.as_ref()),
        Some(Kind::Masterminds(g)) => format!("{:?}", g.kind.as_ref()),
        Some(Kind::Hexspiel(g)) => format!("{:?}", g.kind.as_ref()),
        None => "(empty event)".into(),
    }
    .replace("Some(", "(")
}

enum Input {
    Line(String),
    Event(Box<v1::WatchMatchResponse>),
    Closed,
}

/// Plays through the gateway.
pub fn play(args: PlayArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let (client, me) = Client::guest(&args.gateway, "player")
            .await
            .map_err(|s| format!("cannot reach the gateway at {}: {}", args.gateway, status(s)))?;
        let mut api = client.api();
        let (match_id, game) = match &args.join {
            Some(id) => {
                api.join_match(client.request(v1::JoinMatchRequest {
                    match_id: id.clone(),
                    idempotency_key: String::new(),
                }))
                .await
                .map_err(status)?;
                let view = api
                    .get_view(client.request(v1::GetViewRequest { match_id: id.clone() }))
                    .await
                    .map_err(status)?;
                (id.clone(), view.into_inner().game)
            }
            None => {
                let opponent = match args.vs.as_str() {
                    "bot" => opponent::Kind::Bot(args.bot.clone().unwrap_or_else(|| {
                        games::registry::bot_names(&args.game)
                            .last()
                            .copied()
                            .unwrap_or("random")
                            .to_string()
                    })),
                    "open" => opponent::Kind::Open(v1::OpenSeat {}),
                    other => return Err(format!("--vs is bot or open, not {other:?}")),
                };
                let created = api
                    .create_match(client.request(v1::CreateMatchRequest {
                        game: args.game.clone(),
                        options_json: args.options.clone(),
                        opponent: Some(v1::Opponent { kind: Some(opponent) }),
                        seat: 0,
                        move_time_ms: args.move_time * 1000,
                        idempotency_key: String::new(),
                    }))
                    .await
                    .map_err(status)?
                    .into_inner();
                println!("Match {} created; you are seat {}.", created.match_id, created.seat);
                if args.vs == "open" {
                    println!(
                        "The other player joins with:  colosseum play --join {}",
                        created.match_id
                    );
                }
                (created.match_id, args.game.clone())
            }
        };
        println!("You are {me}. {}; `resign` resigns.", hint(&game));
        let (tx, mut rx) = tokio::sync::mpsc::unbounded_channel::<Input>();
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
        let mut watch = api
            .watch_match(client.request(v1::WatchMatchRequest {
                match_id: match_id.clone(),
                after_version: 0,
                include_views: false,
                after_index: None,
                after_tag: None,
            }))
            .await
            .map_err(status)?
            .into_inner();
        tokio::spawn(async move {
            while let Ok(Some(e)) = watch.message().await {
                if tx.send(Input::Event(Box::new(e))).is_err() {
                    return;
                }
            }
        });
        let mut prompted_at = None;
        loop {
            let view = api
                .get_view(client.request(v1::GetViewRequest { match_id: match_id.clone() }))
                .await
                .map_err(status)?
                .into_inner();
            if let Some(o) = &view.outcome {
                let verdict = match (o.winner, view.seat) {
                    (Some(w), Some(s)) if w == s => "You win".to_string(),
                    (Some(w), _) => format!("Seat {w} wins"),
                    (None, _) => "No winner".to_string(),
                };
                println!("{verdict} ({}). Seed revealed: {}", o.reason, o.seed);
                // The finished match's record, so anyone can replay and verify it.
                let record = api
                    .get_match_record(
                        client.request(v1::GetMatchRecordRequest { match_id: match_id.clone() }),
                    )
                    .await
                    .map_err(status)?
                    .into_inner();
                let path = format!("match-{match_id}.json");
                match std::fs::write(&path, record.record_json) {
                    Ok(()) => {
                        println!("Record saved: {path}   (check it: colosseum verify {path})")
                    }
                    Err(e) => println!("Could not save the record to {path}: {e}"),
                }
                return Ok(ExitCode::SUCCESS);
            }
            if !view.legal_moves.is_empty() && prompted_at != Some(view.version) {
                let json: serde_json::Value =
                    serde_json::from_str(&view.view_json).unwrap_or_default();
                show_view(&serde_json::json!({ "game": json }));
                if let Some(ms) = view.deadline_in_ms {
                    println!("  time left: {:.0} s", ms as f64 / 1000.0);
                }
                print!("your move> ");
                std::io::stdout().flush().ok();
                prompted_at = Some(view.version);
            }
            match rx.recv().await {
                None | Some(Input::Closed) => {
                    println!("\nbye: resigning");
                    let _ = api
                        .resign(client.request(v1::ResignRequest { match_id: match_id.clone() }))
                        .await;
                    return Ok(ExitCode::SUCCESS);
                }
                Some(Input::Event(e)) => {
                    if let Some(ev) = &e.event {
                        println!("  > [{}] {}", e.version, describe(ev));
                    }
                }
                Some(Input::Line(line)) => {
                    let line = line.trim();
                    if line.is_empty() {
                        prompted_at = None;
                        continue;
                    }
                    if line == "resign" {
                        api.resign(
                            client.request(v1::ResignRequest { match_id: match_id.clone() }),
                        )
                        .await
                        .map_err(status)?;
                        continue;
                    }
                    let mv = match games::registry::move_from_json(&game, &shorthand(&game, line)) {
                        Ok(m) => m,
                        Err(e) => {
                            println!("  ! {e} ({})", hint(&game));
                            prompted_at = None;
                            continue;
                        }
                    };
                    let key = uuid::Uuid::new_v4().to_string();
                    match api
                        .submit_move(client.request(v1::SubmitMoveRequest {
                            match_id: match_id.clone(),
                            r#move: Some(mv),
                            idempotency_key: key,
                        }))
                        .await
                    {
                        Ok(_) => {}
                        Err(s) => {
                            println!("  ! {}", s.message());
                            prompted_at = None;
                        }
                    }
                }
            }
        }
    })
}
