//! `colosseum play` through the cluster: a seat in a match (created against a bot or for
//! another player, or joined), its events in plain words as they come, the status panel
//! and the clock at each prompt, `help` with the legal moves, the end screen and a
//! rematch. It sees exactly what its seat may see, through the same API as any client.
//! A broken connection never ends it: calls are tried again (moves with the same key)
//! and the watch resumes where it stood. Leaving (ctrl-c) keeps the seat: the session
//! that holds it is kept ([`super::seats`]) and `--join ID` takes it back.

use super::args::PlayArgs;
use super::face::{self, Face, Names};
use super::screen::{self, Screen, Typed};
use super::seats::{self, Seats};
use crate::session::{self, DEFAULT_GATEWAY};
use api::v1;
use client::requests::{self, opponent};
use client::{Client, Cursor, WatchOptions};
use games::time::{Policy, TimeRefused};
use std::collections::BTreeSet;
use std::process::ExitCode;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;
use tokio::sync::mpsc;
use tokio::time::Instant;
use tonic::{Code, Status};

/// The longest wait between two tries of a call the gateway could not answer.
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// What a process that was left with ctrl-c exits with (128 + SIGINT).
pub const INTERRUPTED: u8 = 130;
/// What the match's watch asks for besides its events: the seats' presence (the opponent
/// leaving and coming back is news), not the views (the loop reads the view it needs).
const PRESENCE: WatchOptions = WatchOptions { views: false, presence: true };
/// How many past events a player who comes back is shown.
const RECENT: usize = 4;

/// A refusal or failure in words for the person: the gateway's message, without the
/// protocol's names for it.
pub fn words(s: &Status) -> String {
    // A rules refusal carries its conformance code too ("illegal_move: ..."): the person
    // reads the rules' reason alone.
    if let Some((code, message)) = service_kit::status::rules_refusal_of(s) {
        let lead = match code {
            "not_your_turn" => "not your move now: ",
            "game_over" => "the match is over: ",
            _ => "",
        };
        return face::cut(&format!("{lead}{message}"), 300);
    }
    match s.code() {
        Code::Unavailable | Code::DeadlineExceeded => {
            "the cluster is not answering (is `colosseum run` still running?)".into()
        }
        Code::Unauthenticated => "the session is no longer valid".into(),
        Code::NotFound => format!("not found: {}", face::cut(s.message(), 200)),
        _ => face::cut(s.message(), 300),
    }
}

/// `call` until the gateway answers it (anything but a failure the API says to retry, or
/// a broken connection: see [`client::resumable`]), waiting longer after each try; says
/// once that it is reconnecting.
async fn answered<T, Fut>(screen: &mut Screen, mut call: impl FnMut() -> Fut) -> Result<T, Status>
where
    Fut: std::future::Future<Output = Result<T, Status>>,
{
    let mut wait = Duration::from_millis(100);
    let mut said = false;
    loop {
        match call().await {
            Err(s) if client::resumable(&s) => {
                if !said {
                    screen.say("  (the cluster is not answering; trying again; ctrl-c leaves)");
                    said = true;
                }
                RETRYING.store(true, Ordering::SeqCst);
                tokio::time::sleep(wait).await;
                RETRYING.store(false, Ordering::SeqCst);
                wait = (wait * 2).min(MAX_BACKOFF);
            }
            done => return done,
        }
    }
}

/// Whether [`answered`] is waiting to try a call again (then ctrl-c leaves at once).
static RETRYING: AtomicBool = AtomicBool::new(false);
/// The match being played, for the word on how to come back.
static PLAYING: Mutex<Option<String>> = Mutex::new(None);

/// Leaves at ctrl-c while a call is being tried again (the loop, which answers ctrl-c
/// otherwise, is waiting on that call): says how to come back and exits 130.
fn leave_while_retrying() {
    tokio::spawn(async {
        let Ok(mut interrupt) =
            tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        else {
            return;
        };
        while interrupt.recv().await.is_some() {
            if RETRYING.load(Ordering::SeqCst) {
                let playing = PLAYING.lock().map(|p| p.clone()).unwrap_or_default();
                let mut screen = Screen::default();
                match playing {
                    Some(id) => leave(&mut screen, &id),
                    None => screen.say("\nLeft."),
                }
                std::process::exit(INTERRUPTED.into());
            }
        }
    });
}

/// The lines typed, read on a thread of their own for the whole run (the match's loop,
/// then the rematch question): `None` once the input is closed.
pub struct Lines(mpsc::UnboundedReceiver<String>);

impl Lines {
    /// Starts reading standard input.
    pub fn stdin() -> Lines {
        let (tx, rx) = mpsc::unbounded_channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Lines(rx)
    }

    /// The next line; `None` once the input is closed.
    pub async fn next(&mut self) -> Option<String> {
        self.0.recv().await
    }
}

/// Who plays: the session, and how the person is told about it.
pub struct Player {
    /// The session.
    pub client: Client,
    /// The session as kept for a rejoin.
    pub held: seats::Held,
}

/// How a match's loop ended.
pub enum Ending {
    /// The match is over; the opponent, to offer a rematch to.
    Over(Opponent),
    /// The person left (ctrl-c, or the input closed): the seat is kept.
    Left,
}

/// The other seat, as a rematch needs it.
#[derive(Clone, Debug, Default)]
pub struct Opponent {
    /// The finished match's options (JSON, from its record), for a rematch of the same.
    pub options_json: String,
    /// Its name as the terminal says it ("Ada", "The strong bot").
    pub name: String,
    /// The built-in bot's name, when it is one.
    pub bot: Option<String>,
    /// The player id, when a person holds the seat.
    pub player_id: Option<String>,
}

/// Plays through the gateway of `args`, until the match ends (and no rematch follows) or
/// the person leaves.
///
/// # Errors
/// The gateway cannot be reached, or refuses what the loop cannot go on without.
pub fn play(args: &PlayArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let dir = session::config_dir();
        let mut seats = dir.as_deref().map(Seats::load).unwrap_or_default();
        let mut screen = Screen::default();
        let mut lines = Lines::stdin();
        let kept = args.join.as_deref().and_then(|id| seats.seat(id).cloned());
        let gateway = args
            .gateway
            .clone()
            .or_else(|| kept.as_ref().map(|k| k.held.gateway.clone()))
            .or_else(|| account().map(|s| s.gateway))
            .unwrap_or_else(|| DEFAULT_GATEWAY.to_string());
        let player = match kept.filter(|k| k.held.gateway == gateway) {
            Some(k) => held_player(k.held)?,
            None => player(&gateway, &mut seats).await?,
        };
        let (mut match_id, game, mut bot) = match &args.join {
            Some(id) => {
                let game = join(&player.client, id).await.map_err(|e| e.to_string())?;
                (id.clone(), game, None)
            }
            None => {
                let (id, bot) = create(&player.client, args, &mut screen).await?;
                (id, args.game.clone(), bot)
            }
        };
        let mut rejoin = args.join.is_some();
        loop {
            let seat = seats::Seat {
                match_id: match_id.clone(),
                game: game.clone(),
                held: player.held.clone(),
            };
            if let Some(dir) = &dir
                && let Err(e) = Seats::update(dir, |s| s.remember(seat))
            {
                screen.say(&format!("  (the seat is not kept for a rejoin: {e})"));
            }
            let opening = Opening { rejoin, bot: bot.clone() };
            let ending = play_match(&player.client, &match_id, &game, &opening, &mut lines).await?;
            let Ending::Over(opp) = ending else { return Ok(ExitCode::from(INTERRUPTED)) };
            let Some((id, b)) = rematch(&player.client, args, &game, &opp, &mut lines).await?
            else {
                return Ok(ExitCode::SUCCESS);
            };
            (match_id, bot, rejoin) = (id, b, false);
        }
    })
}

/// The saved account session, if any.
fn account() -> Option<session::Session> {
    session::config_dir().and_then(|d| session::load(&d).ok().flatten())
}

/// The session kept for a seat.
fn held_player(held: seats::Held) -> Result<Player, String> {
    let channel = client::channel(&held.gateway).map_err(|e| e.to_string())?;
    let client =
        Client::with_token(channel, &held.token, &held.player_id).map_err(|e| e.to_string())?;
    Ok(Player { client, held })
}

/// The session to play with on `gateway`: the saved account's there, else the guest
/// session kept for it (while it is valid), else a new guest session, kept.
///
/// # Errors
/// The gateway cannot be reached or refuses a guest session.
pub async fn player(gateway: &str, seats: &mut Seats) -> Result<Player, String> {
    let mut candidates = Vec::new();
    if let Some(a) = account().filter(|a| a.gateway == gateway) {
        candidates.push((
            seats::Held { gateway: a.gateway, token: a.token, player_id: a.player_id },
            a.display_name,
        ));
    }
    if let Some(g) = seats.guest(gateway) {
        candidates.push((g.clone(), String::new()));
    }
    for (held, name) in candidates {
        let p = held_player(held)?;
        match my_matches(&p.client, v1::MyMatchState::InProgress, 1).await {
            Ok(_) => {
                if !name.is_empty() {
                    println!("Playing as {name} (your account).");
                }
                return Ok(p);
            }
            Err(s) if s.code() == Code::Unauthenticated => continue,
            Err(s) => return Err(format!("cannot reach the cluster at {gateway}: {}", words(&s))),
        }
    }
    let channel = client::channel(gateway).map_err(|e| e.to_string())?;
    let mut api = v1::colosseum_service_client::ColosseumServiceClient::new(channel.clone());
    let req = v1::CreateGuestSessionRequest { display_name: "Guest".into() };
    let s = api
        .create_guest_session(req)
        .await
        .map_err(|s| format!("cannot reach the cluster at {gateway}: {}", words(&s)))?
        .into_inner();
    let client = Client::with_token(channel, &s.token, &s.player_id).map_err(|e| e.to_string())?;
    let held = seats::Held { gateway: gateway.to_string(), token: s.token, player_id: s.player_id };
    seats.set_guest(held.clone());
    // Kept at once: the next `play` on this gateway is the same guest.
    if let Some(dir) = session::config_dir()
        && let Err(e) = Seats::update(&dir, |s| s.set_guest(held.clone()))
    {
        eprintln!("(the guest session is not kept: {e})");
    }
    Ok(Player { client, held })
}

/// A page of the caller's matches.
async fn my_matches(
    client: &Client,
    state: v1::MyMatchState,
    page_size: u32,
) -> Result<Vec<v1::MyMatch>, Status> {
    let req =
        v1::ListMyMatchesRequest { state: state.into(), page_size, page_token: String::new() };
    Ok(client.api().list_my_matches(client.request(req)).await?.into_inner().matches)
}

/// Joins match `id` (again: a seat already held is answered the same); its game.
///
/// # Errors
/// The gateway's refusal, in words.
pub async fn join(client: &Client, id: &str) -> Result<String, String> {
    if uuid::Uuid::parse_str(id).is_err() {
        return Err(format!(
            "{:?} is not a match id (a UUID, as `play` printed it)",
            face::cut(id, 40)
        ));
    }
    client.join(id, "").await.map_err(|s| format!("cannot join match {id}: {}", words(&s)))?;
    let view = client.view(id).await.map_err(|s| words(&s))?;
    Ok(view.game)
}

/// The per-move time to ask for, in ms: 0 without `--move-time` (the server's default,
/// from the games registry: the rules' time, or a minute); else `--move-time` as the
/// registry accepts it under `policy` (`Hosted` for a match made, `Queued` for a queue),
/// so the flag is refused here in the words the server would use, in seconds.
///
/// # Errors
/// `--move-time` out of the policy's range, or not the time the game's rules fix.
pub(super) fn move_time_ms(args: &PlayArgs, policy: Policy) -> Result<u64, String> {
    let Some(s) = args.move_time else { return Ok(0) };
    let b = policy.bounds();
    let range = || {
        let days = b.max_ms / 86_400_000;
        format!(
            "--move-time is in seconds, {} to {} ({days} days), not {s}",
            b.min_ms / 1000,
            b.max_ms / 1000
        )
    };
    // 0 would be "unset" to the registry: as a flag it is a time, and out of range.
    if s == 0 {
        return Err(range());
    }
    match games::time::accept(&args.game, &serde_json::Value::Null, s.saturating_mul(1000), policy)
    {
        Ok(ms) => Ok(ms),
        Err(TimeRefused::OutOfRange { .. }) => Err(range()),
        Err(TimeRefused::Fixed { move_ms, .. }) => Err(format!(
            "{} fixes the time per move ({} s by its rules): leave out --move-time",
            args.game,
            move_ms / 1000
        )),
    }
}

/// Creates the match `args` ask for, in seat 0, and says how to join it; its id and bot.
async fn create(
    client: &Client,
    args: &PlayArgs,
    screen: &mut Screen,
) -> Result<(String, Option<String>), String> {
    if games::registry::info(&args.game).is_none() {
        return Err(format!(
            "no game {:?}; the games are {}",
            face::cut(&args.game, 32),
            games::registry::names()
        ));
    }
    let move_time = move_time_ms(args, Policy::Hosted)?;
    let (opponent, bot) = match args.vs.as_str() {
        "bot" => {
            let b = args.bot_name()?;
            (opponent::bot(&b), Some(b))
        }
        "open" => (opponent::open(), None),
        other => return Err(format!("--vs is bot or open, not {:?}", face::cut(other, 32))),
    };
    let mut req = requests::create(&args.game, &args.options, opponent, move_time);
    // Tried again with the same key while the cluster does not answer: one match made.
    req.idempotency_key = uuid::Uuid::new_v4().to_string();
    let created = answered(screen, || client.create(req.clone()))
        .await
        .map_err(|s| format!("no match: {}", words(&s)))?;
    let title = games::registry::info(&args.game).map_or("", |g| g.title);
    match &bot {
        Some(b) => {
            screen.say(&format!("{title} against the {b} bot."));
            screen.say(&format!("Match {}", created.match_id));
        }
        None => {
            screen.say(&format!("{title}: a match for two; you are seat {}.", created.seat));
            screen.say("Your opponent joins with:");
            screen.say(&format!("  colosseum play --join {}", created.match_id));
        }
    }
    Ok((created.match_id, bot))
}

/// How a match's loop starts.
pub struct Opening {
    /// The person comes back to a seat held before: past events are shown briefly.
    pub rejoin: bool,
    /// The built-in bot in the other seat, when known.
    pub bot: Option<String>,
}

/// The other seat's name: the bot's, the opponent's display name, or "Your opponent"
/// while it is open.
pub async fn opponent_of(client: &Client, match_id: &str, bot: Option<&str>) -> Opponent {
    if let Some(b) = bot {
        return Opponent {
            name: format!("The {b} bot"),
            bot: Some(b.to_string()),
            ..Opponent::default()
        };
    }
    let mine = my_matches(client, v1::MyMatchState::Unspecified, 20).await.unwrap_or_default();
    let Some(m) = mine.into_iter().find(|m| m.match_id == match_id) else {
        return Opponent { name: "Your opponent".into(), ..Opponent::default() };
    };
    if m.opponent_is_bot {
        Opponent {
            name: format!("The {} bot", m.opponent_name),
            bot: Some(m.opponent_name),
            ..Opponent::default()
        }
    } else if m.opponent_name.is_empty() {
        Opponent { name: "Your opponent".into(), ..Opponent::default() }
    } else {
        Opponent { name: face::cut(&m.opponent_name, 32), ..Opponent::default() }
    }
}

/// What the loop waits on besides the person: the watch's messages.
enum Watched {
    Message(Box<v1::WatchMatchResponse>),
    Ended(String),
}

/// Plays match `match_id` of `game` in the seat `client` holds, until the match ends
/// (the end screen, the record saved) or the person leaves (ctrl-c, or the input closes).
///
/// # Errors
/// The gateway refuses what the loop cannot go on without.
pub async fn play_match(
    client: &Client,
    match_id: &str,
    game: &str,
    opening: &Opening,
    lines: &mut Lines,
) -> Result<Ending, String> {
    let mut screen = Screen::default();
    let mut face = face::of(game).ok_or_else(|| format!("this client does not know {game}"))?;
    let first = answered(&mut screen, || client.view(match_id)).await.map_err(|s| words(&s))?;
    let mut opp = opponent_of(client, match_id, opening.bot.as_deref()).await;
    let mut names = Names::new(first.seat, opp.name.clone());
    let title = games::registry::info(game).map_or(game, |g| g.title);
    if let Some(seat) = first.seat {
        let back = if opening.rejoin { "Welcome back: " } else { "" };
        screen.wrapped(&format!(
            "{back}you are seat {seat} in {title}, against {}.",
            names.obj(1 - seat)
        ));
    }
    screen.note(&format!(
        "{}. Type help for your legal moves.",
        face::capitalized(face.how_to_move())
    ));
    if let Some(pid) = first.player_ids.get(first.seat.map_or(1, |s| 1 - s) as usize)
        && opp.bot.is_none()
        && !pid.is_empty()
    {
        opp.player_id = Some(pid.clone());
    }
    if let Ok(mut p) = PLAYING.lock() {
        *p = Some(match_id.to_string());
    }
    static LISTENING: std::sync::Once = std::sync::Once::new();
    LISTENING.call_once(leave_while_retrying);
    // ctrl-c from here on is this loop's to answer (a signal that comes while it awaits
    // something else waits for it; while a call is tried again, it leaves at once).
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| format!("cannot listen for ctrl-c: {e}"))?;
    let mut watch = watch(client, match_id).await?;
    // On a rejoin, what happened before is told briefly (the face still reads all of it).
    let mut story = Story {
        history: opening.rejoin.then(|| (first.version, Vec::new())),
        presence: None,
        bot: opp.bot.is_some(),
    };
    // The match's story so far comes before the first panel: its first message (or a
    // second's wait), then whatever else has come.
    if let Ok(m) = tokio::time::timeout(Duration::from_secs(1), watch.recv()).await {
        told(m, &mut watch, &mut story, face.as_mut(), &names, &mut screen);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut view = Some(first.clone());
    let mut named = names.opponent != "Your opponent";
    let mut dirty = true;
    let mut prompted_at: Option<u64> = None;
    // The legal moves the person was last asked to choose from.
    let mut asked_for: Vec<v1::Move> = Vec::new();
    let mut deadline: Option<(Instant, bool, bool)> = None;
    let mut warned = BTreeSet::new();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    loop {
        if dirty && watch.is_empty() {
            dirty = false;
            let v = answered(&mut screen, || client.view(match_id)).await.map_err(|s| words(&s))?;
            if let Some((_, lines)) = story.history.take()
                && !lines.is_empty()
            {
                screen.say("  Recently:");
                for l in &lines[lines.len().saturating_sub(RECENT)..] {
                    screen.event(l);
                }
            }
            // Named once both seats are held (asked once: a guest's name does not change).
            if !named && v.player_ids.iter().all(|p| !p.is_empty()) {
                named = true;
                opp = opponent_of(client, match_id, opening.bot.as_deref()).await;
                names.opponent.clone_from(&opp.name);
                opp.player_id = v.player_ids.get(v.seat.map_or(1, |s| 1 - s) as usize).cloned();
            }
            if let Some(o) = &v.outcome {
                let options =
                    finish(client, match_id, face.as_ref(), &v, o, &names, &mut screen).await;
                opp.options_json = options.unwrap_or_default();
                return Ok(Ending::Over(opp));
            }
            let mine = !v.legal_moves.is_empty();
            let other = v.seat.map_or(1, |s| 1 - s);
            let was = deadline.map(|(at, ..)| at);
            deadline = v.deadline_in_ms.map(|ms| {
                (Instant::now() + Duration::from_millis(ms), mine, v.to_move.contains(&other))
            });
            // Another deadline (a new round, a restart) warns afresh.
            let moved = |a: Instant, b: Instant| a.max(b) - a.min(b) > Duration::from_secs(1);
            if let (Some(a), Some((b, ..))) = (was, deadline)
                && moved(a, b)
            {
                warned.clear();
            }
            if mine && prompted_at != Some(v.version) {
                prompted_at = Some(v.version);
                // The same moves asked for again (the other seat sealed its own meanwhile):
                // the prompt again, not the whole panel.
                if asked_for != v.legal_moves {
                    show(&mut screen, face.as_ref(), &v, &names, title);
                    asked_for.clone_from(&v.legal_moves);
                }
                screen.prompt(clock(deadline, &names).as_deref());
            } else if !mine && prompted_at != Some(v.version) {
                asked_for.clear();
                prompted_at = Some(v.version);
                if let Some(c) = clock(deadline, &names) {
                    screen.say(&format!("  {c}"));
                }
            }
            view = Some(v);
        }
        tokio::select! {
            _ = interrupt.recv() => {
                leave(&mut screen, match_id);
                return Ok(Ending::Left);
            }
            line = lines.next() => {
                screen.entered(line.as_deref());
                let Some(line) = line else {
                    leave(&mut screen, match_id);
                    return Ok(Ending::Left);
                };
                // A move typed while the match moved on is not sent: the person chose it
                // for a position that is gone (the deadline played for them, a round ended).
                if dirty {
                    let v = answered(&mut screen, || client.view(match_id)).await.map_err(|s| words(&s))?;
                    let a_move = matches!(screen::typed(&line), Typed::Move(_) | Typed::Json(_));
                    let gone = !asked_for.is_empty() && v.legal_moves != asked_for;
                    view = Some(v);
                    if a_move && gone {
                        screen.say("  ! the match moved on before that move was sent: look again");
                        prompted_at = None;
                        asked_for.clear();
                        continue;
                    }
                }
                let Some(v) = &view else { continue };
                if typed_line(client, match_id, face.as_ref(), v, &names, &line, &mut screen, title).await? {
                    dirty = true;
                    prompted_at = None;
                    asked_for.clear();
                }
            }
            m = watch.recv() => {
                told(m, &mut watch, &mut story, face.as_mut(), &names, &mut screen);
                dirty = true;
            }
            _ = tick.tick() => {
                if let Some((at, mine, _)) = deadline {
                    let left = at.saturating_duration_since(Instant::now());
                    if let Some(c) = clock(deadline, &names) {
                        screen.tick(&c);
                    }
                    if mine && let Some(secs) = screen::due_warning(left, &mut warned) {
                        screen.say(&screen::warning(secs));
                        screen.prompt(clock(deadline, &names).as_deref());
                    }
                    if left.is_zero() && view.as_ref().is_some_and(|v| v.outcome.is_none()) {
                        // The deadline passed: the clock service steps the match on.
                        dirty = true;
                        deadline = None;
                    }
                }
            }
        }
    }
}

/// What the loop remembers of the watch's messages.
struct Story {
    /// On a rejoin, until the first panel: the version the person came back at, and the
    /// lines of the events up to it (told briefly, not one by one).
    history: Option<(u64, Vec<String>)>,
    /// The seats' presence as last told.
    presence: Option<[bool; 2]>,
    /// The other seat is a built-in bot (its presence is not news).
    bot: bool,
}

/// Tells a message of the watch: an event's line (kept for later while it is history),
/// the opponent leaving or coming back, or that the watch stopped.
fn told(
    m: Option<Watched>,
    watch: &mut Watch,
    story: &mut Story,
    face: &mut dyn Face,
    names: &Names,
    screen: &mut Screen,
) {
    match m {
        Some(Watched::Message(m)) => {
            if let Some(now) = client::presence(&m) {
                if let Some(l) = presence_line(story.presence, now, names).filter(|_| !story.bot) {
                    screen.event(&l);
                }
                story.presence = Some(now);
                return;
            }
            let Some(event) = &m.event else { return };
            if let Some(l) = face::line(face, event, names) {
                match &mut story.history {
                    Some((upto, past)) if m.version <= *upto => past.push(l),
                    _ => screen.event(&l),
                }
            }
        }
        Some(Watched::Ended(why)) => {
            screen.say(&format!("  (the live events stopped: {why}; moves still work)"));
            *watch = Watch::none();
        }
        None => {}
    }
}

/// What changed in the opponent's presence, in words: gone, back, or (at first) away.
fn presence_line(before: Option<[bool; 2]>, now: [bool; 2], names: &Names) -> Option<String> {
    let other = names.me.map(|m| 1 - m)?;
    let (was, is) = (before.map(|b| b[other as usize]), now[other as usize]);
    let who = names.subj(other);
    match (was, is) {
        (Some(true), false) => Some(format!("{who} left the match; their clock keeps running.")),
        (Some(false), true) => Some(format!("{who} is back.")),
        (None, false) if names.opponent != "Your opponent" => {
            Some(format!("{who} is not connected right now."))
        }
        (None, false | true) | (Some(true), true) | (Some(false), false) => None,
    }
}

/// The clock line for the deadline running now.
fn clock(deadline: Option<(Instant, bool, bool)>, names: &Names) -> Option<String> {
    let (at, mine, theirs) = deadline?;
    Some(screen::clock_line(at.saturating_duration_since(Instant::now()), mine, theirs, names))
}

/// The status panel of view `v`.
fn show(screen: &mut Screen, face: &dyn Face, v: &v1::GetViewResponse, names: &Names, title: &str) {
    let Some(view) = &v.view else { return };
    let other = v.seat.map_or(1, |s| 1 - s);
    screen.panel(&format!("{title}: you against {}", names.obj(other)), &face.status(view, names));
}

/// Says how to come back to a match left with its seat kept.
fn leave(screen: &mut Screen, match_id: &str) {
    screen.say("");
    screen.say("You left the match; your seat is kept and your clock keeps running.");
    screen.say(&format!("Come back with:  colosseum play --join {match_id}"));
}

/// Acts on a typed line: a command, or a move (a fresh idempotency key each). Returns
/// whether a move or resignation was made (then the view is read again).
///
/// # Errors
/// A resignation the gateway refused.
#[allow(clippy::too_many_arguments)]
async fn typed_line(
    client: &Client,
    match_id: &str,
    face: &dyn Face,
    v: &v1::GetViewResponse,
    names: &Names,
    line: &str,
    screen: &mut Screen,
    title: &str,
) -> Result<bool, String> {
    let reprompt = |screen: &mut Screen| {
        if !v.legal_moves.is_empty() {
            screen.prompt(None);
        }
    };
    let mv = match screen::typed(line) {
        Typed::Empty => {
            reprompt(screen);
            return Ok(false);
        }
        Typed::Help => {
            if v.legal_moves.is_empty() {
                screen.say("  You have no move to make now: wait for the other seat.");
            } else {
                for l in face.help(&v.legal_moves) {
                    screen.say(&l);
                }
            }
            for l in screen::commands() {
                screen.say(&l);
            }
            reprompt(screen);
            return Ok(false);
        }
        Typed::Board => {
            show(screen, face, v, names, title);
            reprompt(screen);
            return Ok(false);
        }
        Typed::Resign => {
            // A retried resignation whose first try was applied hears the match is over.
            return match answered(screen, || client.resign(match_id)).await {
                Ok(_) => Ok(true),
                Err(s)
                    if service_kit::status::rules_refusal_of(&s)
                        .is_some_and(|(c, _)| c == "game_over") =>
                {
                    Ok(true)
                }
                Err(s) => {
                    screen.say(&format!("  ! {}", words(&s)));
                    reprompt(screen);
                    Ok(false)
                }
            };
        }
        Typed::Json(json) => serde_json::from_str(json)
            .map_err(|_| "that is not JSON".to_string())
            .and_then(|j| games::registry::move_from_json(&v.game, &j)),
        Typed::Move(text) => face.read(text, &v.legal_moves),
    };
    let mv = match mv {
        Ok(mv) => mv,
        Err(e) => {
            screen.say(&format!("  ! {e}"));
            reprompt(screen);
            return Ok(false);
        }
    };
    if v.legal_moves.is_empty() {
        screen.say("  ! it is not your move: wait for the other seat");
        return Ok(false);
    }
    // Tried again with the same key until the gateway answers: applied once.
    let key = uuid::Uuid::new_v4().to_string();
    match answered(screen, || client.submit(match_id, Some(mv.clone()), &key)).await {
        Ok(_) => Ok(true),
        Err(s) => {
            screen.say(&format!("  ! {}", words(&s)));
            reprompt(screen);
            Ok(false)
        }
    }
}

/// The end screen, and the record saved so anyone can replay and verify the match; the
/// match's options, read from its record.
async fn finish(
    client: &Client,
    match_id: &str,
    face: &dyn Face,
    v: &v1::GetViewResponse,
    o: &v1::Outcome,
    names: &Names,
    screen: &mut Screen,
) -> Option<String> {
    let view = v.view.clone().unwrap_or_default();
    for l in screen::end_screen(face, &view, o, names) {
        screen.say(&l);
    }
    let path = format!("match-{match_id}.json");
    let record = answered(screen, || client.record(match_id)).await;
    // Its options, for a rematch of the same game.
    let options = record.as_ref().ok().and_then(|r| {
        serde_json::from_str::<serde_json::Value>(r).ok().map(|j| j["options"].to_string())
    });
    match record {
        Ok(record) => match std::fs::write(&path, record) {
            Ok(()) => {
                screen.say(&format!("  Record saved: {path}"));
                screen.say(&format!("  Check it:     colosseum verify {path}"));
            }
            Err(e) => screen.say(&format!("  Could not save the record to {path}: {e}")),
        },
        Err(s) => screen.say(&format!("  No record: {}", words(&s))),
    }
    options
}

/// Offers a rematch and, if the person wants one, makes it: the new match and its bot.
///
/// # Errors
/// The gateway refused the new match.
async fn rematch(
    client: &Client,
    args: &PlayArgs,
    game: &str,
    opp: &Opponent,
    lines: &mut Lines,
) -> Result<Option<(String, Option<String>)>, String> {
    let mut screen = Screen::default();
    let offer = match (&opp.bot, &opp.player_id) {
        (Some(b), _) => format!("Rematch the {b} bot? Type `rematch` (or r); Enter leaves."),
        (None, Some(_)) => {
            format!(
                "Offer {} a rematch? Type `rematch` (or r); Enter leaves.",
                face::uncapitalized(&opp.name)
            )
        }
        (None, None) => return Ok(None),
    };
    // ctrl-c leaves here too (the match's loop took the signal over from the default),
    // listened for before the question is asked.
    let mut interrupt = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt())
        .map_err(|e| format!("cannot listen for ctrl-c: {e}"))?;
    screen.say(&format!("  {offer}"));
    let line = tokio::select! {
        line = lines.next() => line,
        _ = interrupt.recv() => None,
    };
    let Some(line) = line else { return Ok(None) };
    if !matches!(line.trim().to_ascii_lowercase().as_str(), "rematch" | "r" | "y" | "yes") {
        return Ok(None);
    }
    let opponent = match (&opp.bot, &opp.player_id) {
        (Some(b), _) => opponent::bot(b),
        (None, Some(p)) => v1::Opponent { kind: Some(v1::opponent::Kind::PlayerId(p.clone())) },
        (None, None) => return Ok(None),
    };
    let rules = PlayArgs { game: game.to_string(), ..args.clone() };
    let options = if opp.options_json.is_empty() { &args.options } else { &opp.options_json };
    let mut req = requests::create(
        game,
        options,
        opponent,
        move_time_ms(&rules, Policy::Hosted).unwrap_or(0),
    );
    // Tried again with the same key while the cluster does not answer: one match made.
    req.idempotency_key = uuid::Uuid::new_v4().to_string();
    let created = answered(&mut screen, || client.create(req.clone()))
        .await
        .map_err(|s| format!("no rematch: {}", words(&s)))?;
    if opp.bot.is_none() {
        screen.say(&format!("  Rematch offered: {} joins with", face::uncapitalized(&opp.name)));
        screen.say(&format!("  colosseum play --join {}", created.match_id));
    }
    Ok(Some((created.match_id, opp.bot.clone())))
}

/// The match's watch, run in a task: its messages in order, resumed after a break from
/// the last one received (nothing shown twice or missed).
struct Watch(Option<mpsc::UnboundedReceiver<Watched>>);

impl Watch {
    fn none() -> Watch {
        Watch(None)
    }

    fn is_empty(&self) -> bool {
        self.0.as_ref().is_none_or(mpsc::UnboundedReceiver::is_empty)
    }

    /// The next message; pending forever once the watch is gone (moves still work).
    async fn recv(&mut self) -> Option<Watched> {
        match &mut self.0 {
            Some(rx) => {
                let m = rx.recv().await;
                if m.is_none() {
                    self.0 = None;
                }
                m
            }
            None => std::future::pending().await,
        }
    }
}

/// Opens the watch of `match_id` from its start.
async fn watch(client: &Client, match_id: &str) -> Result<Watch, String> {
    let mut screen = Screen::default();
    let first = answered(&mut screen, || client.watch_with(match_id, Cursor::START, PRESENCE))
        .await
        .map_err(|s| words(&s))?;
    let (tx, rx) = mpsc::unbounded_channel();
    let (client, match_id) = (client.clone(), match_id.to_string());
    tokio::spawn(async move {
        let mut stream = first;
        let mut at = Cursor::START;
        loop {
            let broke = loop {
                match stream.message().await {
                    Ok(Some(m)) => {
                        at = at.next(&m);
                        if tx.send(Watched::Message(Box::new(m))).is_err() {
                            return;
                        }
                    }
                    // The match ended.
                    Ok(None) => return,
                    Err(s) => break s,
                }
            };
            if !client::resumable(&broke) && broke.code() != Code::ResourceExhausted {
                let _ = tx.send(Watched::Ended(words(&broke)));
                return;
            }
            let mut screen = Screen::default();
            stream =
                match answered(&mut screen, || client.watch_with(&match_id, at, PRESENCE)).await {
                    Ok(w) => w,
                    Err(s) => {
                        let _ = tx.send(Watched::Ended(words(&s)));
                        return;
                    }
                };
        }
    });
    Ok(Watch(Some(rx)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use service_kit::status::{Reason, rules_refusal};

    #[test]
    fn a_refusal_reads_as_words_without_codes() {
        let s = rules_refusal(
            Code::FailedPrecondition,
            Reason::IllegalMove,
            "illegal_move",
            "you have no black 3 left this bout",
        );
        assert_eq!(words(&s), "you have no black 3 left this bout");
        let s =
            rules_refusal(Code::FailedPrecondition, Reason::NotYourTurn, "not_your_turn", "wait");
        assert_eq!(words(&s), "not your move now: wait");
        assert!(words(&Status::unavailable("x")).contains("not answering"));
        assert_eq!(words(&Status::unauthenticated("x")), "the session is no longer valid");
    }

    #[test]
    fn presence_news_is_the_opponents_change() {
        let names = Names::new(Some(0), "Ada");
        assert_eq!(presence_line(None, [true, true], &names), None);
        assert_eq!(
            presence_line(None, [true, false], &names).as_deref(),
            Some("Ada is not connected right now.")
        );
        assert_eq!(
            presence_line(Some([true, true]), [true, false], &names).as_deref(),
            Some("Ada left the match; their clock keeps running.")
        );
        assert_eq!(
            presence_line(Some([true, false]), [true, true], &names).as_deref(),
            Some("Ada is back.")
        );
        // The viewer's own seat is not news.
        assert_eq!(presence_line(Some([true, true]), [false, true], &names), None);
    }

    #[test]
    fn move_time_is_in_seconds_and_left_out_where_the_rules_fix_it() {
        let args = |game: &str, t: Option<u64>| PlayArgs {
            game: game.into(),
            vs: "bot".into(),
            bot: None,
            options: "{}".into(),
            join: None,
            gateway: None,
            move_time: t,
            local: false,
            queue: false,
            casual: false,
            seed: None,
        };
        let made = |game: &str, t: Option<u64>| move_time_ms(&args(game, t), Policy::Hosted);
        // Left out: 0, the server's default (the rules' time, or a minute).
        assert_eq!(made("gops", None), Ok(0));
        assert_eq!(made("gops", Some(5)), Ok(5_000));
        assert!(made("gops", Some(0)).unwrap_err().contains("in seconds, 1 to 604800"));
        assert!(made("gops", Some(604_801)).unwrap_err().contains("in seconds"));
        assert_eq!(made("hexspiel", None), Ok(0));
        assert!(made("hexspiel", Some(30)).unwrap_err().contains("leave out"));
        // The time the rules fix is the one time the registry takes for them.
        assert_eq!(made("hexspiel", Some(60)), Ok(60_000));
        // A queue: a minute up, as the match-maker takes it.
        let queued = |t| move_time_ms(&args("gops", t), Policy::Queued);
        assert_eq!(queued(None), Ok(0));
        assert_eq!(queued(Some(60)), Ok(60_000));
        assert!(queued(Some(5)).unwrap_err().contains("in seconds, 60 to 604800"));
    }
}
