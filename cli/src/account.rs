//! `colosseum register`, `login` and `logout`: an account's session opened on a gateway
//! and kept in the config directory ([`crate::session`]) for the commands that play or
//! look as that account, or ended there and forgotten here.

use crate::session::{self, Session};
use crate::{refused, refused_at};
use api::v1::{self, lobby_service_client::LobbyServiceClient};
use clap::Args;
use client::Client;
use match_maker::accounts::{MAX_PASSWORD_BYTES, MIN_PASSWORD_BYTES};
use std::io::{BufRead, Write};
use std::process::ExitCode;

/// Where a script puts the password (nothing is asked then): a command line would show it
/// in `ps`.
const PASSWORD_VAR: &str = "COLOSSEUM_PASSWORD";

/// How many times `register` asks again for a password that breaks the rule.
const PASSWORD_TRIES: usize = 3;

/// Options of `colosseum register`.
#[derive(Args)]
pub struct RegisterArgs {
    /// The gateway [default: the saved session's, else http://127.0.0.1:50051].
    #[arg(long)]
    pub gateway: Option<String>,
    /// The account's email (asked when not given).
    #[arg(long)]
    pub email: Option<String>,
    /// The display name [default: one the gateway picks].
    #[arg(long)]
    pub name: Option<String>,
    /// Appear on the leaderboards.
    #[arg(long)]
    pub leaderboard: bool,
    /// The account is a bot's (a program): ranked on the bots' board, apart from people.
    #[arg(long)]
    pub bot: bool,
}

/// Options of `colosseum login`.
#[derive(Args)]
pub struct LoginArgs {
    /// The gateway [default: the saved session's, else http://127.0.0.1:50051].
    #[arg(long)]
    pub gateway: Option<String>,
    /// The account's email (asked when not given).
    #[arg(long)]
    pub email: Option<String>,
}

/// Runs `colosseum register`: asks what the options do not give, creates the account,
/// saves its session.
///
/// # Errors
/// No config directory, unreadable input, the gateway's refusal (`EMAIL_TAKEN`...), or
/// the session file cannot be written.
pub fn register(args: RegisterArgs) -> Result<ExitCode, String> {
    let dir = session::dir()?;
    let saved = session::load(&dir).ok().flatten();
    let gateway = session::gateway(args.gateway.as_deref(), saved.as_ref());
    let email = email(args.email)?;
    let password = new_password()?;
    let runtime = runtime()?;
    let s = runtime.block_on(async {
        // The generated client, not Client::register: that one keeps the token to itself,
        // and the token is what is saved.
        let mut lobby =
            LobbyServiceClient::new(client::channel(&gateway).map_err(|e| e.to_string())?);
        let req = v1::RegisterRequest {
            email,
            password,
            display_name: args.name.unwrap_or_default(),
            leaderboard: args.leaderboard,
            bot: args.bot,
        };
        let answer = lobby.register(req).await.map_err(|s| refused_at(s, &gateway))?;
        answer.into_inner().session.ok_or_else(|| "the gateway answered no session".to_string())
    })?;
    let session =
        Session { gateway, token: s.token, player_id: s.player_id, display_name: s.display_name };
    let path = session::save(&dir, &session)?;
    println!("Registered as {} ({}).", session.display_name, session.player_id);
    println!("Session saved in {}; play rated: colosseum play --game gops --queue", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Runs `colosseum login`: a new session of the account, saved (replacing any other).
///
/// # Errors
/// No config directory, unreadable input, the gateway's refusal (`BAD_CREDENTIALS`,
/// `RATE_LIMITED`), or the session file cannot be written.
pub fn login(args: LoginArgs) -> Result<ExitCode, String> {
    let dir = session::dir()?;
    let saved = session::load(&dir).ok().flatten();
    let gateway = session::gateway(args.gateway.as_deref(), saved.as_ref());
    let email = email(args.email)?;
    let password = password()?;
    let runtime = runtime()?;
    let session = runtime.block_on(async {
        let (client, token) =
            Client::login(&gateway, &email, &password).await.map_err(|e| match e {
                client::Error::Api(s) => refused_at(s, &gateway),
                e => e.to_string(),
            })?;
        // Login answers no display name through the client: the profile has it.
        let profile = client.profile().await.map_err(refused)?;
        Ok::<_, String>(Session {
            gateway: gateway.clone(),
            token,
            player_id: client.player_id().to_string(),
            display_name: profile.display_name,
        })
    })?;
    let path = session::save(&dir, &session)?;
    println!("Logged in as {} ({}).", session.display_name, session.player_id);
    println!("Session saved in {}.", path.display());
    Ok(ExitCode::SUCCESS)
}

/// Runs `colosseum logout`: ends the saved session at its gateway and forgets it. A
/// session the gateway no longer knows (a restarted in-memory cluster) is forgotten too;
/// one whose gateway cannot be reached is kept, since it still works there.
///
/// # Errors
/// No config directory, an unreadable session file, or the gateway cannot be reached.
pub fn logout() -> Result<ExitCode, String> {
    let dir = session::dir()?;
    let Some(s) = session::load(&dir)? else {
        println!("Not logged in (no session saved in {}).", session::path_in(&dir).display());
        return Ok(ExitCode::SUCCESS);
    };
    let runtime = runtime()?;
    let ended = runtime.block_on(async {
        let channel = client::channel(&s.gateway).map_err(|e| e.to_string())?;
        let client =
            Client::with_token(channel, &s.token, &s.player_id).map_err(|e| e.to_string())?;
        match client.logout().await {
            Ok(()) => Ok(true),
            Err(st) if st.code() == tonic::Code::Unauthenticated => Ok(false),
            Err(st) => Err(format!(
                "{}; the session is kept (remove {} to forget it anyway)",
                refused_at(st, &s.gateway),
                session::path_in(&dir).display()
            )),
        }
    })?;
    session::remove(&dir)?;
    // The seats `play` kept for this session hold its token: it goes with them.
    crate::play::forget_session(&dir, &s.token)?;
    if ended {
        println!("Logged out {} ({}).", s.display_name, s.player_id);
    } else {
        println!("The gateway no longer knew the session of {}; forgotten here.", s.display_name);
    }
    Ok(ExitCode::SUCCESS)
}

fn runtime() -> Result<tokio::runtime::Runtime, String> {
    tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())
}

/// The email given, or asked for on the terminal.
fn email(given: Option<String>) -> Result<String, String> {
    if let Some(e) = given {
        return Ok(e);
    }
    print!("Email: ");
    std::io::stdout().flush().map_err(|e| e.to_string())?;
    let line = read_line()?;
    if line.is_empty() {
        return Err("no email given".into());
    }
    Ok(line)
}

/// The password rule, as the match-maker enforces it at registration (its
/// `check_new_password`, which stays the authority): said before the password is asked.
fn password_rule() -> String {
    format!(
        "The password must be {MIN_PASSWORD_BYTES} to {MAX_PASSWORD_BYTES} bytes long (a \
         letter, digit or ASCII sign is one byte; an accented letter two or more)."
    )
}

/// What is wrong with `password` by [`password_rule`], if anything.
fn password_problem(password: &str) -> Option<String> {
    let n = password.len();
    (!(MIN_PASSWORD_BYTES..=MAX_PASSWORD_BYTES).contains(&n))
        .then(|| format!("that password is {n} bytes long. {}", password_rule()))
}

/// What `register` shows, in order, before the password is read: the rule, then the
/// prompts.
fn new_password_prompts() -> [String; 3] {
    [password_rule(), "Password: ".into(), "Password again: ".into()]
}

/// The new account's password: from [`PASSWORD_VAR`], else typed without echo, twice, the
/// rule said first; one that breaks it is refused here at once (asked again when typed).
fn new_password() -> Result<String, String> {
    if let Ok(p) = std::env::var(PASSWORD_VAR) {
        return match password_problem(&p) {
            Some(why) => Err(format!("{PASSWORD_VAR}: {why}")),
            None => Ok(p),
        };
    }
    let [rule, prompt, again] = new_password_prompts();
    println!("{rule}");
    for _ in 0..PASSWORD_TRIES {
        let first = secret(&prompt)?;
        if let Some(why) = password_problem(&first) {
            println!("Not accepted: {why}");
            continue;
        }
        if secret(&again)? != first {
            return Err("the two passwords differ".into());
        }
        return Ok(first);
    }
    Err(format!("no password kept the rule in {PASSWORD_TRIES} tries"))
}

/// An existing account's password: from [`PASSWORD_VAR`], else typed without echo.
fn password() -> Result<String, String> {
    if let Ok(p) = std::env::var(PASSWORD_VAR) {
        return Ok(p);
    }
    secret("Password: ")
}

/// A line typed on the terminal without echo; without a terminal (a pipe), a line of
/// standard input, which a pipe does not echo anyway.
fn secret(prompt: &str) -> Result<String, String> {
    match rpassword::prompt_password(prompt) {
        Ok(p) => Ok(p),
        Err(_) => {
            eprintln!(
                "(no terminal: reading the password from standard input; or set {PASSWORD_VAR})"
            );
            read_line()
        }
    }
}

/// A line of standard input, without its line end.
fn read_line() -> Result<String, String> {
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line).map_err(|e| e.to_string())?;
    Ok(line.trim_end_matches(['\r', '\n']).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn register_says_the_rule_before_it_asks_for_the_password() {
        let [rule, first, again] = new_password_prompts();
        assert!(
            rule.contains(&format!("{MIN_PASSWORD_BYTES} to {MAX_PASSWORD_BYTES} bytes")),
            "{rule}"
        );
        assert_eq!([first.as_str(), again.as_str()], ["Password: ", "Password again: "]);
    }

    #[test]
    fn the_rule_is_the_match_makers() {
        for p in ["", "short", "7 bytes", &"x".repeat(MAX_PASSWORD_BYTES + 1)] {
            let why = password_problem(p).expect("refused here");
            assert!(why.contains(&format!("{} bytes long", p.len())), "{why}");
            assert!(match_maker::accounts::check_new_password("password", p).is_err(), "{p:?}");
        }
        for p in ["8 bytes!", "long enough", &"x".repeat(MAX_PASSWORD_BYTES)] {
            assert_eq!(password_problem(p), None, "{p:?}");
            assert!(match_maker::accounts::check_new_password("password", p).is_ok(), "{p:?}");
        }
    }
}
