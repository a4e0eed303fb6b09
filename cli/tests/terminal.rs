//! `colosseum play` as a person meets it: the real binary on a pseudo-terminal, against a
//! real cluster (its gateway on a loopback port, its store a real Redis). For each game
//! a match against the bot is played to its end, with `help`, the clock, events in plain
//! words and the end screen checked, and ctrl-c then `play --join ID` mid-match giving
//! the same seat back; every line the terminal shows fits 80 columns. Two people: the
//! one who stays is told when the other leaves and comes back.

// Opening a pseudo-terminal and making it the child's controlling terminal (so that
// ctrl-c, a 0x03 written to it, is a SIGINT to the child) needs libc's calls.
#![allow(unsafe_code)]

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, mpsc};
use std::time::Duration;
use tokio::time::Instant;

/// How long any one thing the test waits for may take.
const PATIENCE: Duration = Duration::from_secs(60);

/// The binary on a pseudo-terminal of 80 columns: what it shows, what is typed to it.
struct Pty {
    master: File,
    rx: mpsc::Receiver<Vec<u8>>,
    raw: Vec<u8>,
    child: Child,
}

impl Pty {
    /// Runs `colosseum ARGS` in `dir` (its working directory and config directory).
    fn spawn(args: &[&str], dir: &Path) -> Pty {
        let (mut master, mut slave) = (0, 0);
        let size = libc::winsize { ws_row: 50, ws_col: 80, ws_xpixel: 0, ws_ypixel: 0 };
        // SAFETY: openpty writes two fds into the integers given; no name buffer, no
        // termios (the defaults: echo, ISIG), a valid winsize.
        let rc = unsafe {
            libc::openpty(&mut master, &mut slave, std::ptr::null_mut(), std::ptr::null(), &size)
        };
        assert_eq!(rc, 0, "openpty: {}", std::io::Error::last_os_error());
        // SAFETY: both fds were just opened by openpty and are owned here alone.
        let (master, slave) = unsafe { (File::from_raw_fd(master), OwnedFd::from_raw_fd(slave)) };
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_colosseum"));
        cmd.args(args)
            .current_dir(dir)
            .env("COLOSSEUM_CONFIG_DIR", dir.join("config"))
            .env("RUST_LOG", "off")
            .stdin(Stdio::from(slave.try_clone().expect("a slave fd")))
            .stdout(Stdio::from(slave.try_clone().expect("a slave fd")))
            .stderr(Stdio::from(slave));
        // SAFETY: between fork and exec only async-signal-safe calls: a new session, and
        // the pseudo-terminal (stdin by now) made its controlling terminal.
        unsafe {
            cmd.pre_exec(|| {
                if libc::setsid() < 0 || libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = cmd.spawn().expect("the binary runs");
        drop(cmd);
        let mut reader = master.try_clone().expect("a master fd");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            let mut buf = [0u8; 4096];
            // EIO once the child closed the terminal: the end of its output.
            while let Ok(n) = reader.read(&mut buf) {
                if n == 0 || tx.send(buf[..n].to_vec()).is_err() {
                    return;
                }
            }
        });
        Pty { master, rx, raw: Vec::new(), child }
    }

    fn pump(&mut self, wait: Duration) {
        if let Ok(chunk) = self.rx.recv_timeout(wait) {
            self.raw.extend(chunk);
        }
        while let Ok(chunk) = self.rx.try_recv() {
            self.raw.extend(chunk);
        }
    }

    /// What the terminal shows so far, escape sequences and carriage returns taken out.
    fn text(&self) -> String {
        plain(&String::from_utf8_lossy(&self.raw))
    }

    /// Waits until the output holds `needle` at least `n` times.
    fn wait_for(&mut self, needle: &str, n: usize) {
        let until = Instant::now() + PATIENCE;
        while self.text().matches(needle).count() < n {
            assert!(Instant::now() < until, "no {n}th {needle:?}; the terminal:\n{}", self.text());
            self.pump(Duration::from_millis(50));
        }
    }

    /// Waits at most `within` until `done` holds of the text (no failure if it does not).
    fn wait_some(&mut self, done: impl Fn(&str) -> bool, within: Duration) {
        let until = Instant::now() + within;
        while !done(&self.text()) && Instant::now() < until {
            self.pump(Duration::from_millis(50));
        }
    }

    /// Waits until one of `needles` shows past byte `from` of the text; which one.
    fn wait_any(&mut self, needles: &[&str], from: usize) -> usize {
        let until = Instant::now() + PATIENCE;
        loop {
            let text = self.text();
            let tail = text.get(from..).unwrap_or("");
            if let Some(i) = needles.iter().position(|n| tail.contains(n)) {
                return i;
            }
            assert!(Instant::now() < until, "none of {needles:?}; the terminal:\n{text}");
            self.pump(Duration::from_millis(50));
        }
    }

    fn type_line(&mut self, line: &str) {
        self.master.write_all(format!("{line}\r").as_bytes()).expect("typed");
        self.master.flush().expect("flushed");
    }

    /// Presses ctrl-c.
    fn interrupt(&mut self) {
        self.master.write_all(&[3]).expect("ctrl-c typed");
    }

    /// Waits for the child to exit; its exit code.
    fn exit_code(&mut self) -> Option<i32> {
        let until = Instant::now() + PATIENCE;
        loop {
            if let Some(s) = self.child.try_wait().expect("a status") {
                self.pump(Duration::from_millis(200));
                return s.code();
            }
            assert!(Instant::now() < until, "the client never exited:\n{}", self.text());
            self.pump(Duration::from_millis(50));
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `s` as a terminal shows it, near enough: without ANSI escape sequences (CSI
/// `ESC [ ... letter`; a redraw elsewhere between `ESC 7` and `ESC 8`), a carriage
/// return starting its line over.
fn plain(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // ESC 7 and ESC 8 are two characters; a CSI runs to its final letter.
            '\x1b' => match chars.next() {
                Some('[') => {
                    for c in chars.by_ref() {
                        if c.is_ascii_alphabetic() {
                            break;
                        }
                    }
                }
                // ESC 7 ... ESC 8 redraws another line (the clock above the prompt) and
                // puts the cursor back: this line is as it was.
                Some('7') => {
                    while let Some(c) = chars.next() {
                        if c == '\x1b' && chars.peek() == Some(&'8') {
                            chars.next();
                            break;
                        }
                    }
                }
                Some(_) | None => {}
            },
            // A carriage return not ending a line goes back to its start (a spinner
            // redraws its line so): what follows is the line from there.
            '\r' => {
                if chars.peek() != Some(&'\n') {
                    out.truncate(out.rfind('\n').map_or(0, |i| i + 1));
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Every line the client printed fits 80 columns (the prompt's line also holds what was
/// typed and the clock redrawn above it, so it is not counted); no line is a debug dump.
fn check_lines(text: &str, game: &str) {
    for line in text.lines() {
        // The terminal echoes a ctrl-c as ^C where the cursor was.
        let line = line.strip_prefix("^C").unwrap_or(line);
        if line.starts_with("your move> ") {
            continue;
        }
        assert!(line.chars().count() <= 80, "{game}: {} columns: {line:?}", line.chars().count());
        for bad in ["Some(", "None)", "Kind::", "halves", "Status {", "code:"] {
            assert!(!line.contains(bad), "{game}: {bad:?} in {line:?}");
        }
    }
}

/// A fresh directory under the system's temp dir (a player's home and config), removed
/// with everything in it when the test is done with it.
struct FreshDir(PathBuf);

impl std::ops::Deref for FreshDir {
    type Target = Path;
    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for FreshDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn fresh_dir(name: &str) -> FreshDir {
    let dir = std::env::temp_dir().join(format!("colosseum-term-{name}-{}", uuid::Uuid::new_v4()));
    std::fs::create_dir_all(&dir).expect("a directory");
    FreshDir(dir)
}

/// The seat the client keeps in `dir` for a rejoin: match id and its session.
fn kept_seat(dir: &Path) -> (String, client::Client) {
    let text = std::fs::read(dir.join("config/play.json")).expect("play.json is kept");
    let seats: serde_json::Value = serde_json::from_slice(&text).expect("JSON");
    let last = seats["matches"].as_array().and_then(|m| m.last()).expect("a match kept").clone();
    let held = &last["held"];
    let channel = client::channel(held["gateway"].as_str().expect("a gateway")).expect("a channel");
    let c = client::Client::with_token(
        channel,
        held["token"].as_str().expect("a token"),
        held["player_id"].as_str().expect("a player"),
    )
    .expect("a client");
    (last["match_id"].as_str().expect("an id").to_string(), c)
}

/// A cluster on real Redis.
struct Env {
    _redis: test_harness::RedisServer,
    cluster: in_process::Cluster,
}

async fn env() -> Env {
    let redis = test_harness::RedisServer::start();
    let store = store::RedisStore::connect(&redis.url()).await.expect("redis");
    let cluster =
        in_process::Cluster::start(Arc::new(store), "127.0.0.1:0".parse().expect("an address"))
            .await
            .expect("the cluster starts");
    Env { _redis: redis, cluster }
}

/// Plays `game` against its default bot on a terminal to the end, typing `help` at the
/// first prompt and each move as the game's JSON (its friendly forms are the faces'
/// unit tests); leaves with ctrl-c after the second move and comes back with
/// `play --join ID` (no gateway named: the kept seat knows it).
async fn bot_match_to_its_end(game: &str) {
    let env = env().await;
    let url = env.cluster.gateway_url();
    let dir = fresh_dir(game);
    let mut pty = Pty::spawn(&["play", "--gateway", &url, "--game", game, "--vs", "bot"], &dir);
    pty.wait_for("your move> ", 1);
    let (match_id, player) = kept_seat(&dir);
    let before = pty.text().len();
    pty.type_line("help");
    pty.wait_any(&["Commands: help"], before);
    pty.wait_for("your move> ", 2);
    // Help names the moves this game has now, in its own words.
    let legal = player.view(&match_id).await.expect("a view").legal_moves;
    assert!(!legal.is_empty(), "{game}: help was asked on a turn with moves");
    let text = pty.text();
    let help = text.get(before..).unwrap_or_default();
    let lists = match game {
        "gops" => "Your cards (type one): ",
        "dueling-monsters" => "Monsters (black) you can play: ",
        "hexspiel" => "Your cards (type one to bid): ",
        "cure-plague" => "Cure cells (",
        "masterminds" => "Your cards (type a name",
        other => panic!("no help marker for {other}"),
    };
    assert!(help.contains(lists), "{game} help lists no moves:\n{help}");
    let mut moves = 0;
    let mut rejoined = false;
    // The prompts seen so far (the help's own prompt included).
    let mut prompts = 0;
    loop {
        let view = player.view(&match_id).await.expect("a view");
        if view.outcome.is_some() {
            break;
        }
        if view.legal_moves.is_empty() {
            tokio::time::sleep(Duration::from_millis(50)).await;
            continue;
        }
        // As a person would: the move is typed once the prompt for it is up (a prompt
        // the client printed before it read the last move counts too, so this waits at
        // most a moment), and typed again if the client was not ready for it (it says
        // what was wrong and sends nothing, so a move is never made twice).
        pty.wait_some(|t| t.matches("your move> ").count() > prompts, Duration::from_secs(5));
        prompts = pty.text().matches("your move> ").count();
        let until = Instant::now() + PATIENCE;
        let mut view = view;
        'typed: loop {
            let mv = games::registry::move_to_json(
                game,
                &view.legal_moves[moves % view.legal_moves.len()],
            )
            .expect("a legal move as JSON");
            pty.type_line(&mv.to_string());
            let retry = Instant::now() + Duration::from_secs(5);
            loop {
                let v = player.view(&match_id).await.expect("a view");
                if v.version > view.version || v.outcome.is_some() {
                    break 'typed;
                }
                assert!(Instant::now() < until, "{game}: the move was not made:\n{}", pty.text());
                if Instant::now() > retry && !v.legal_moves.is_empty() {
                    view = v;
                    continue 'typed;
                }
                pty.pump(Duration::from_millis(50));
            }
        }
        moves += 1;
        if moves == 2 && !rejoined {
            let at = pty.text().len();
            pty.interrupt();
            pty.wait_any(&["Come back with:  colosseum play --join"], at);
            assert_eq!(pty.exit_code(), Some(130), "{}", pty.text());
            check_lines(&pty.text(), game);
            pty = Pty::spawn(&["play", "--join", &match_id], &dir);
            pty.wait_for("Welcome back: you are seat 0", 1);
            pty.wait_for("Recently:", 1);
            prompts = 0;
            rejoined = true;
        }
        assert!(moves < 400, "{game}: the match never ended");
    }
    pty.wait_for("Seed (now public)", 1);
    pty.wait_for("Record saved: match-", 1);
    let text = pty.text();
    assert!(
        ["You won", "You lost", "Draw", "No result"]
            .iter()
            .any(|r| text.contains(&format!("  {r}"))),
        "{game}: no result on the end screen:\n{text}"
    );
    assert!(text.contains("Clock: "), "{game}: no clock:\n{text}");
    assert!(text.contains("  * "), "{game}: no event lines:\n{text}");
    check_lines(&text, game);
    // Leaving at the rematch question.
    pty.type_line("");
    assert_eq!(pty.exit_code(), Some(0), "{}", pty.text());
    let record = dir.join(format!("match-{match_id}.json"));
    let out = Command::new(env!("CARGO_BIN_EXE_colosseum"))
        .args(["verify", record.to_str().expect("a path")])
        .output()
        .expect("verify runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stdout));
    env.cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn gops_on_a_terminal() {
    bot_match_to_its_end("gops").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn dueling_monsters_on_a_terminal() {
    bot_match_to_its_end("dueling-monsters").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hexspiel_on_a_terminal() {
    bot_match_to_its_end("hexspiel").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cure_plague_on_a_terminal() {
    bot_match_to_its_end("cure-plague").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn masterminds_on_a_terminal() {
    bot_match_to_its_end("masterminds").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_opponent_is_told_when_a_player_leaves_and_comes_back() {
    let env = env().await;
    let url = env.cluster.gateway_url();
    let (ada, bob) = (fresh_dir("ada"), fresh_dir("bob"));
    let mut a = Pty::spawn(&["play", "--gateway", &url, "--game", "gops", "--vs", "open"], &ada);
    a.wait_for("colosseum play --join ", 1);
    a.pump(Duration::from_millis(200));
    let text = a.text();
    let after = text.split("colosseum play --join ").nth(1).expect("the command");
    let match_id: String = after.chars().take(36).collect();
    let mut b = Pty::spawn(&["play", "--gateway", &url, "--join", &match_id], &bob);
    b.wait_for("your move> ", 1);
    a.wait_for("your move> ", 1);
    assert!(b.text().contains("against Guest"), "{}", b.text());
    let at = b.text().len();
    a.interrupt();
    a.wait_for("Come back with:  colosseum play --join", 1);
    assert_eq!(a.exit_code(), Some(130), "{}", a.text());
    b.wait_any(&["Guest left the match; their clock keeps running."], at);
    let at = b.text().len();
    // No gateway named: the seat kept in Ada's config directory knows it.
    let mut a = Pty::spawn(&["play", "--join", &match_id], &ada);
    a.wait_for("Welcome back: you are seat 0", 1);
    b.wait_any(&["Guest is back."], at);
    a.wait_for("your move> ", 1);
    a.type_line("resign");
    a.wait_for("You lost", 1);
    b.wait_for("You won", 1);
    for (who, pty) in [("ada", &a), ("bob", &b)] {
        check_lines(&pty.text(), who);
    }
    env.cluster.shutdown().await;
}

/// `colosseum register` in `dir` (its config directory keeps the session).
fn register(dir: &Path, url: &str, name: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_colosseum"))
        .args([
            "register",
            "--gateway",
            url,
            "--email",
            &format!("{name}@example.org"),
            "--name",
            name,
        ])
        .env("COLOSSEUM_CONFIG_DIR", dir.join("config"))
        .env("COLOSSEUM_PASSWORD", "correct horse battery")
        .output()
        .expect("register runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rated_pairing_names_the_opponent_and_rating_and_a_left_seat_is_taken_back() {
    let env = env().await;
    let url = env.cluster.gateway_url();
    let (ada, bob) = (fresh_dir("q-ada"), fresh_dir("q-bob"));
    register(&ada, &url, "Ada");
    register(&bob, &url, "Bob");
    let queue = ["play", "--queue", "--game", "gops"];
    let mut a = Pty::spawn(&queue, &ada);
    let mut b = Pty::spawn(&queue, &bob);
    a.wait_for("Paired with Bob (rated 1500, provisional) in a rated match.", 1);
    b.wait_for("Paired with Ada (rated 1500, provisional) in a rated match.", 1);
    a.wait_for("your move> ", 1);
    // Ada leaves, and takes her seat back with the account session kept for it.
    let (match_id, _) = kept_seat(&ada);
    let at = b.text().len();
    a.interrupt();
    a.wait_for("Come back with:  colosseum play --join", 1);
    assert_eq!(a.exit_code(), Some(130), "{}", a.text());
    b.wait_any(&["Ada left the match"], at);
    let mut a = Pty::spawn(&["play", "--join", &match_id], &ada);
    a.wait_for("Welcome back: you are seat", 1);
    a.wait_for("your move> ", 1);
    a.type_line("resign");
    a.wait_for("You lost", 1);
    b.wait_for("You won", 1);
    // The winner's new rating, once the match-maker has counted the match.
    b.type_line("");
    b.wait_for("Rating: 1500 -> ", 1);
    for (who, pty) in [("ada", &a), ("bob", &b)] {
        check_lines(&pty.text(), who);
    }
    env.cluster.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_clock_counts_down_in_place_warns_and_a_missed_deadline_loses() {
    let env = env().await;
    let url = env.cluster.gateway_url();
    let dir = fresh_dir("clock");
    let args = ["play", "--gateway", &url, "--game", "gops", "--vs", "bot", "--move-time", "7"];
    let mut pty = Pty::spawn(&args, &dir);
    pty.wait_for("your move> ", 1);
    // Nothing typed: the warnings come, then the rules play a card for the seat.
    pty.wait_for("seconds left to move", 1);
    pty.wait_for("You missed the deadline, which loses the match.", 1);
    pty.wait_for("You lost 0-0 against the strong bot (you missed a move deadline)", 1);
    // The clock line above the prompt was redrawn in place (save the cursor, up a line,
    // rewrite it, restore), each second with less time on it.
    let raw = String::from_utf8_lossy(&pty.raw).into_owned();
    let redrawn: Vec<&str> = raw
        .split("\x1b7\x1b[1A\r\x1b[2K")
        .skip(1)
        .filter_map(|r| r.split("\x1b8").next())
        .collect();
    assert!(redrawn.len() >= 3, "the clock was not redrawn: {redrawn:?}");
    let distinct: std::collections::BTreeSet<&str> = redrawn.iter().copied().collect();
    assert!(distinct.len() >= 3, "the clock did not count down: {redrawn:?}");
    assert!(redrawn.iter().all(|c| c.starts_with("Clock: 0:0")), "{redrawn:?}");
    check_lines(&pty.text(), "clock");
    // ctrl-c at the rematch question leaves, as Enter does.
    pty.wait_for("Rematch the strong bot?", 1);
    pty.interrupt();
    assert_eq!(pty.exit_code(), Some(0), "{}", pty.text());
    env.cluster.shutdown().await;
}
