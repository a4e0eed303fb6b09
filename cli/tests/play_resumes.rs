//! `colosseum play` through a cluster whose gateway restarts mid-match: the terminal
//! client's watch breaks and its calls fail for a moment, and it goes on (the watch
//! resumed, the calls tried again) to the end of the match and its saved record.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;
use tokio::time::Instant;

/// The child's output so far, read on a thread of its own.
struct Output {
    rx: mpsc::Receiver<String>,
    text: String,
}

impl Output {
    /// Waits (at most `within`) until the output holds `n` times `needle`.
    fn wait_for(&mut self, needle: &str, n: usize, within: Duration) {
        let until = Instant::now() + within;
        while self.text.matches(needle).count() < n {
            let left = until.saturating_duration_since(Instant::now());
            assert!(!left.is_zero(), "no {n}th {needle:?} in time; the output:\n{}", self.text);
            if let Ok(chunk) = self.rx.recv_timeout(left.min(Duration::from_millis(100))) {
                self.text.push_str(&chunk);
            }
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn play_goes_on_to_its_record_when_the_gateway_restarts_mid_match() {
    let store = Arc::new(store::MemoryStore::new());
    let mut cluster = in_process::Cluster::start(store, "127.0.0.1:0".parse().expect("an address"))
        .await
        .expect("the cluster starts");
    let dir = std::env::temp_dir().join(format!("colosseum-play-resumes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a directory");
    let url = cluster.gateway_url();
    let mut child = Command::new(env!("CARGO_BIN_EXE_colosseum"))
        .args(["play", "--gateway", &url, "--game", "gops", "--vs", "bot", "--bot", "random"])
        .current_dir(&dir)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the binary runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = child.stdout.take().expect("stdout");
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = [0u8; 4096];
        while let Ok(n) = stdout.read(&mut buf) {
            if n == 0 || tx.send(String::from_utf8_lossy(&buf[..n]).into_owned()).is_err() {
                return;
            }
        }
    });
    let mut out = Output { rx, text: String::new() };
    // At each new round's panel (one per round: a prompt repeated while the bot seals
    // asks nothing new), the first card of the player's hand; the gateway restarts after
    // the third move, while the client waits for the bot's bid.
    let mut panels = 0;
    let mut moves = 0;
    while !out.text.contains("Record saved: match-") {
        let until = Instant::now() + Duration::from_secs(60);
        loop {
            let now = out.text.matches("Your hand:").count();
            let prompted =
                out.text.rsplit("Your hand:").next().is_some_and(|t| t.contains("your move>"));
            if (now > panels && prompted) || out.text.contains("Record saved: match-") {
                panels = now;
                break;
            }
            assert!(Instant::now() < until, "the client stalled; the output:\n{}", out.text);
            if let Ok(chunk) = out.rx.recv_timeout(Duration::from_millis(100)) {
                out.text.push_str(&chunk);
            }
        }
        if out.text.contains("Record saved: match-") {
            break;
        }
        // The status panel's "Your hand: A 2 3 ... K": its first card, as its face reads.
        let hand = out.text.rsplit("Your hand:").next().expect("a view was shown");
        let card = hand.split_whitespace().next().expect("a card").to_string();
        writeln!(stdin, "{card}").expect("a move typed");
        stdin.flush().expect("flushed");
        moves += 1;
        assert!(moves < 60, "the match never ended; the output:\n{}", out.text);
        if moves == 3 {
            cluster.restart_gateway().await.expect("the gateway restarts");
        }
    }
    out.wait_for("Record saved: match-", 1, Duration::from_secs(60));
    drop(stdin);
    let status = tokio::task::spawn_blocking(move || child.wait()).await.expect("joined");
    assert!(status.expect("the client exits").success(), "{}", out.text);
    assert!(out.text.contains("Seed (now public)"), "{}", out.text);
    let saved = std::fs::read_dir(&dir)
        .expect("the directory")
        .filter_map(Result::ok)
        .find(|e| e.file_name().to_string_lossy().starts_with("match-"))
        .expect("the record file");
    let (code, verified) = {
        let o = Command::new(env!("CARGO_BIN_EXE_colosseum"))
            .args(["verify", saved.path().to_str().expect("a path")])
            .output()
            .expect("verify runs");
        (o.status.code(), String::from_utf8_lossy(&o.stdout).into_owned())
    };
    assert_eq!(code, Some(0), "{verified}");
    cluster.shutdown().await;
    let _ = std::fs::remove_dir_all(&dir);
}
