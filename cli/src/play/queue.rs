//! `colosseum play --queue`: paired by the match-maker instead of creating a match. The
//! session (the saved account's; a guest's for a casual queue) watches its tickets before
//! it queues, so the assignment cannot slip by unseen; a spinner shows the wait and ctrl-c
//! cancels the ticket. Once paired, the match is played as `play --join` plays it, and a
//! rated match's new rating is shown.

use super::args::PlayArgs;
use super::remote;
use super::seats::{self, Held, Seats};

use crate::session::{self, Session};
use crate::{refused, refused_at};
use api::v1;
use client::Client;
use indicatif::{ProgressBar, ProgressStyle};
use std::process::ExitCode;
use std::time::Duration;
use tokio::time::Instant;
use tonic::{Code, Status, Streaming};
use tonic_types::StatusExt;

/// How long a rated match's new rating is waited for: ratings are updated from the
/// match's end, asynchronously, by the match-maker.
const RATING_WAIT: Duration = Duration::from_secs(10);
/// How often a dropped ticket watch or a CreateTicket that found no gateway is tried.
const ATTEMPTS: u32 = 5;

/// Queues in the match-maker as `args` say, waits to be paired, plays the match.
///
/// # Errors
/// No session for a rated queue, the gateway's refusal, or what the play loop says.
pub fn play(args: &PlayArgs) -> Result<ExitCode, String> {
    // Checked as the match-maker will (a minute up; 0: its default, a minute), before
    // anything is opened.
    let move_time_ms = remote::move_time_ms(args, games::time::Policy::Queued)?;
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let (client, gateway, account, held) = open(args).await?;
        let mut watch = client.watch_tickets().await.map_err(|s| refused_session(s, &gateway))?;
        let spec = v1::QueueSpec {
            game: args.game.clone(),
            // `{}` (the option's default) is the defaults, which the API spells empty.
            options_json: if args.options.trim() == "{}" {
                String::new()
            } else {
                args.options.clone()
            },
            move_time_ms,
            rated: !args.casual,
        };
        let ticket = queue(&client, spec, &gateway).await?;
        let Some((match_id, seat)) = wait(&client, &mut watch, &ticket, args, &gateway).await?
        else {
            return Ok(ExitCode::from(remote::INTERRUPTED));
        };
        let before = match (&account, args.casual) {
            (Some(_), false) => client.rating(&args.game, client.player_id(), 0).await.ok(),
            _ => None,
        };
        let game = remote::join(&client, &match_id).await?;
        paired(&client, &match_id, seat, &game, !args.casual).await;
        // Kept, so that a player who leaves (ctrl-c) takes the seat back with --join.
        if let Some(dir) = session::config_dir() {
            let seat = seats::Seat { match_id: match_id.clone(), game: game.clone(), held };
            if let Err(e) = Seats::update(&dir, |s| s.remember(seat)) {
                println!("  (the seat is not kept for a rejoin: {e})");
            }
        }
        let mut lines = remote::Lines::stdin();
        let opening = remote::Opening { rejoin: false, bot: None };
        let ending = remote::play_match(&client, &match_id, &game, &opening, &mut lines).await?;
        let remote::Ending::Over(_) = ending else {
            return Ok(ExitCode::from(remote::INTERRUPTED));
        };
        let code = ExitCode::SUCCESS;
        if let Some(before) = before {
            show_rating(&client, &game, &before).await;
        }
        Ok(code)
    })
}

/// The session to queue with: the saved account's, or for a casual queue without one a
/// fresh guest's; the gateway it lives on; the account, if it is one.
async fn open(args: &PlayArgs) -> Result<(Client, String, Option<Session>, Held), String> {
    let saved = match session::config_dir() {
        Some(dir) => session::load(&dir)?,
        None => None,
    };
    let gateway = session::gateway(args.gateway.as_deref(), saved.as_ref());
    match saved {
        Some(s) => {
            let channel = client::channel(&gateway).map_err(|e| e.to_string())?;
            let client =
                Client::with_token(channel, &s.token, &s.player_id).map_err(|e| e.to_string())?;
            println!("Queueing as {} ({}).", s.display_name, s.player_id);
            let held = Held {
                gateway: gateway.clone(),
                token: s.token.clone(),
                player_id: s.player_id.clone(),
            };
            Ok((client, gateway, Some(s), held))
        }
        None if args.casual => {
            // The guest this machine plays this gateway as (kept in play.json).
            let mut seats = session::config_dir().as_deref().map(Seats::load).unwrap_or_default();
            let player = remote::player(&gateway, &mut seats).await?;
            println!("Queueing as a guest ({}).", player.client.player_id());
            Ok((player.client, gateway, None, player.held))
        }
        None => Err("a rated queue needs an account: colosseum register or colosseum login first \
                     (or --casual to play as a guest)"
            .into()),
    }
}

/// A refusal of the session itself says what to do about it.
fn refused_session(s: Status, gateway: &str) -> String {
    if s.code() == Code::Unauthenticated {
        format!("{}: the saved session is no longer valid there: colosseum login again", refused(s))
    } else {
        refused_at(s, gateway)
    }
}

fn retryable(code: Code) -> bool {
    matches!(code, Code::Unavailable | Code::Aborted | Code::DeadlineExceeded)
}

/// CreateTicket with a fresh idempotency key, retried with the same key while the
/// gateway is unavailable (a retry answers the same ticket). A ticket already waiting
/// in this queue (an earlier run that did not cancel it) is waited on instead.
async fn queue(client: &Client, spec: v1::QueueSpec, gateway: &str) -> Result<v1::Ticket, String> {
    let key = uuid::Uuid::new_v4().to_string();
    let mut backoff = Duration::from_millis(200);
    let mut attempt = 1;
    loop {
        let s = match client.create_ticket(spec.clone(), &key, 0).await {
            Ok(r) => return r.ticket.ok_or_else(|| "CreateTicket answered no ticket".to_string()),
            Err(s) => s,
        };
        if let Some(id) = live_ticket(&s) {
            println!("You already had a ticket waiting in this queue: waiting on that one.");
            return Ok(v1::Ticket { ticket_id: id, ..v1::Ticket::default() });
        }
        if !retryable(s.code()) || attempt >= ATTEMPTS {
            return Err(refused_session(s, gateway));
        }
        tokio::time::sleep(backoff).await;
        backoff *= 2;
        attempt += 1;
    }
}

/// The caller's live ticket a `TICKET_LIVE` refusal names (in its ErrorInfo).
fn live_ticket(s: &Status) -> Option<String> {
    if service_kit::status::reason_of_status(s) != Some(service_kit::status::Reason::TicketLive) {
        return None;
    }
    s.get_details_error_info()?.metadata.get("ticket_id").cloned()
}

/// Waits, with a spinner, for `ticket` to be paired: its match and seat, or `None` when
/// ctrl-c cancelled it. A watch that drops is opened again (it restates live tickets).
async fn wait(
    client: &Client,
    watch: &mut Streaming<v1::WatchTicketsResponse>,
    ticket: &v1::Ticket,
    args: &PlayArgs,
    gateway: &str,
) -> Result<Option<(String, u32)>, String> {
    let kind = if args.casual { "casual" } else { "rated" };
    println!("Waiting for an opponent in the {kind} {} queue; ctrl-c cancels.", args.game);
    let spinner = ProgressBar::new_spinner();
    spinner.set_style(
        ProgressStyle::with_template("{spinner} waiting for an opponent {elapsed} {msg}")
            .map_err(|e| e.to_string())?,
    );
    spinner.set_message(gap(ticket.rating_gap));
    spinner.enable_steady_tick(Duration::from_millis(120));
    let mut attempt = 1;
    let answer = loop {
        let outcome = tokio::select! {
            r = Client::assignment(watch, &ticket.ticket_id) => r,
            _ = tokio::signal::ctrl_c() => {
                spinner.finish_and_clear();
                cancel(client, &ticket.ticket_id).await;
                return Ok(None);
            }
        };
        match outcome {
            Err(s) if retryable(s.code()) && attempt < ATTEMPTS => {
                tokio::time::sleep(Duration::from_millis(500)).await;
                attempt += 1;
                match client.watch_tickets().await {
                    Ok(w) => *watch = w,
                    Err(s) if retryable(s.code()) => {}
                    Err(s) => break Err(refused_session(s, gateway)),
                }
            }
            Err(s) if s.code() == Code::FailedPrecondition => {
                // Client::assignment names the state the ticket ended in.
                break Err(format!("no match: {}; queue again", s.message()));
            }
            Err(s) => break Err(refused_at(s, gateway)),
            Ok(paired) => break Ok(Some(paired)),
        }
    };
    spinner.finish_and_clear();
    answer
}

/// The rating gap a waiting ticket accepts, in words.
fn gap(gap: f64) -> String {
    if gap <= 0.0 {
        String::new()
    } else if !gap.is_finite() || gap >= 10_000.0 {
        "(any rating)".into()
    } else {
        format!("(rating gap ±{gap:.0})")
    }
}

/// Cancels the ticket after a ctrl-c; one paired first is a match already made (or being
/// made: its match follows within seconds), which is resigned (the person asked to leave).
async fn cancel(client: &Client, ticket_id: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match client.cancel_ticket(ticket_id).await {
            Ok(t) if t.state == i32::from(v1::TicketState::Assigned) => {
                println!("Paired before the cancel: resigning match {}.", t.match_id);
                if let Err(s) = client.resign(&t.match_id).await {
                    println!("Could not resign: {}", refused(s));
                }
            }
            Ok(t)
                if t.state == i32::from(v1::TicketState::Pairing) && Instant::now() < deadline =>
            {
                // Paired, its match not made yet: cancelling again answers it once made.
                tokio::time::sleep(Duration::from_millis(200)).await;
                continue;
            }
            Ok(t) if t.state == i32::from(v1::TicketState::Pairing) => println!(
                "Paired before the cancel, the match not made yet: resign it when it shows \
                 (colosseum play --join MATCH_ID)."
            ),
            Ok(_) => println!("Ticket {ticket_id} cancelled."),
            Err(s) => println!("Could not cancel ticket {ticket_id}: {}", refused(s)),
        }
        return;
    }
}

/// Says who the match is against: the opponent's name and, for a rated match, rating.
async fn paired(client: &Client, match_id: &str, seat: u32, game: &str, rated: bool) {
    let opp = remote::opponent_of(client, match_id, None).await;
    let view = client.view(match_id).await.ok();
    let id = view.as_ref().and_then(|v| v.player_ids.get(1 - seat as usize).cloned());
    let rating = match (rated, id) {
        (true, Some(id)) => client.rating(game, &id, 0).await.ok().map(|r| {
            let provisional = if r.provisional { ", provisional" } else { "" };
            format!(" (rated {:.0}{provisional})", r.rating)
        }),
        _ => None,
    };
    let kind = if rated { "rated" } else { "casual" };
    println!("Paired with {}{} in a {kind} match.", opp.name, rating.unwrap_or_default());
    println!("You are seat {seat} in match {match_id}.");
}

/// Prints the player's rating in `game` once the match has counted (its `games` grew),
/// or says it has not yet.
async fn show_rating(client: &Client, game: &str, before: &v1::GetRatingResponse) {
    let deadline = Instant::now() + RATING_WAIT;
    loop {
        if let Ok(after) = client.rating(game, client.player_id(), 0).await
            && after.games > before.games
        {
            println!("Rating: {}", change(before, &after));
            return;
        }
        if Instant::now() >= deadline {
            println!(
                "Rating: not updated yet (it follows the match's end); \
                 colosseum leaderboard --game {game} --around me shows it later."
            );
            return;
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
}

/// "1500 -> 1662 (RD 290)".
fn change(before: &v1::GetRatingResponse, after: &v1::GetRatingResponse) -> String {
    format!("{:.0} -> {:.0} (RD {:.0})", before.rating, after.rating, after.deviation)
}

#[cfg(test)]
mod tests {
    use super::*;
    use service_kit::status::{Reason, refusal_status};

    #[test]
    fn a_rating_change_reads_as_before_and_after() {
        let before =
            v1::GetRatingResponse { rating: 1500.0, deviation: 350.0, ..Default::default() };
        let after = v1::GetRatingResponse {
            rating: 1662.3,
            deviation: 290.2,
            games: 1,
            ..Default::default()
        };
        assert_eq!(change(&before, &after), "1500 -> 1662 (RD 290)");
    }

    #[test]
    fn the_gap_reads_as_a_bound_or_as_any() {
        assert_eq!(gap(0.0), "");
        assert_eq!(gap(150.4), "(rating gap ±150)");
        assert_eq!(gap(f64::MAX), "(any rating)");
    }

    #[test]
    fn a_ticket_live_refusal_names_the_live_ticket() {
        let id = "0b0e8a52-0000-4000-8000-000000000000";
        let meta = [("ticket_id", id.to_string())];
        let live = refusal_status(
            Code::AlreadyExists,
            "a ticket is live",
            Reason::TicketLive,
            &meta,
            |_| {},
        );
        assert_eq!(live_ticket(&live).as_deref(), Some(id));
        let other = refusal_status(
            Code::AlreadyExists,
            "reused",
            Reason::IdempotencyKeyReused,
            &meta,
            |_| {},
        );
        assert_eq!(live_ticket(&other), None);
        assert_eq!(live_ticket(&Status::already_exists("no details")), None);
    }
}
