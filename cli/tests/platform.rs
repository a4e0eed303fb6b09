//! `colosseum run` and the platform commands end to end, each cluster a real `colosseum run`
//! process on a port of its own: two clusters on one machine keep their tenant admin files
//! apart (`colosseum tenant --gateway` picks the right one, the default address names its
//! file when there is none, a clean stop removes it), and `colosseum tournament run` of a
//! knockout prints its bracket and winner.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::Duration;

/// A `colosseum` command with the config directory `dir` and no setting from the
/// environment the test runs in (no Redis, no internal secret, no metrics port).
fn colosseum(dir: &Path) -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_colosseum"));
    c.env("COLOSSEUM_CONFIG_DIR", dir);
    for v in [
        "REDIS_URL",
        "REDIS_SENTINEL_URLS",
        "REDIS_SENTINEL_MASTER",
        "REDIS_CLUSTER_URLS",
        "INTERNAL_TOKEN",
        "INTERNAL_TOKEN_FILE",
        "INTERNAL_AUTH",
        "METRICS_ADDR",
        "COLOSSEUM_API_KEY",
    ] {
        c.env_remove(v);
    }
    c
}

/// A running `colosseum run`: its gateway and the admin file it wrote.
struct Run {
    child: Child,
    gateway: String,
    admin: PathBuf,
}

impl Run {
    /// Starts one on a free port; waits for its banner.
    fn start(dir: &Path) -> Run {
        let mut child = colosseum(dir)
            .args(["run", "--addr", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("colosseum run starts");
        let mut lines = BufReader::new(child.stdout.take().expect("stdout")).lines();
        let (mut gateway, mut admin) = (None, None);
        let mut banner = String::new();
        for line in lines.by_ref() {
            let line = line.expect("a banner line");
            banner.push_str(&line);
            banner.push('\n');
            if let Some(url) = line.split("colosseum.v1): ").nth(1) {
                gateway = Some(url.trim().to_string());
            }
            if let Some(path) = line.split("(secret in ").nth(1) {
                admin = Some(PathBuf::from(path.split(", removed at exit)").next().unwrap()));
            }
            if line.starts_with("Stop with ctrl-c") {
                break;
            }
        }
        // Keep reading, so the child never blocks on a full pipe.
        std::thread::spawn(move || lines.for_each(drop));
        Run {
            child,
            gateway: gateway.unwrap_or_else(|| panic!("no gateway in the banner:\n{banner}")),
            admin: admin.unwrap_or_else(|| panic!("no admin file in the banner:\n{banner}")),
        }
    }

    /// Stops it as ctrl-c does; waits for its clean exit.
    fn stop(mut self) {
        let pid = self.child.id().to_string();
        let killed = Command::new("kill").args(["-INT", &pid]).status().expect("kill runs");
        assert!(killed.success());
        for _ in 0..300 {
            if let Some(status) = self.child.try_wait().expect("waited") {
                assert!(status.success(), "colosseum run exited with {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        panic!("colosseum run did not stop within 30 s of ctrl-c");
    }
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `colosseum tenant ARGS` in `dir`; answers its standard output, or fails the test.
fn tenant(dir: &Path, args: &[&str]) -> String {
    let o = colosseum(dir).arg("tenant").args(args).output().expect("colosseum tenant runs");
    let (out, err) = text(&o);
    assert!(o.status.success(), "tenant {args:?}: {err}");
    out
}

fn config_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("colosseum-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a config directory");
    dir
}

#[test]
fn two_runs_keep_their_admin_files_apart_and_tenant_picks_by_gateway() {
    let dir = config_dir("admin-files");
    let (a, b) = (Run::start(&dir), Run::start(&dir));
    assert_ne!(a.admin, b.admin, "two gateways, one admin file");
    for run in [&a, &b] {
        let port = run.gateway.rsplit(':').next().unwrap();
        assert_eq!(
            run.admin.file_name().unwrap().to_str().unwrap(),
            format!("admin-127.0.0.1-{port}.json")
        );
        assert!(run.admin.exists(), "{}", run.admin.display());
    }
    // A tenant made through each cluster is in that cluster's list alone.
    let ta = tenant(&dir, &["create", "--name", "cluster A", "--gateway", &a.gateway]);
    let tb = tenant(&dir, &["--gateway", &b.gateway, "create", "--name", "cluster B"]);
    let (list_a, list_b) = (
        tenant(&dir, &["list", "--gateway", &a.gateway]),
        tenant(&dir, &["list", "--gateway", &b.gateway]),
    );
    assert!(list_a.contains(ta.trim()) && !list_a.contains(tb.trim()), "{list_a}");
    assert!(list_b.contains(tb.trim()) && !list_b.contains(ta.trim()), "{list_b}");
    // The default address (no cluster there in this directory): the file looked for, and
    // how to get one.
    let o = colosseum(&dir).args(["tenant", "list"]).output().expect("runs");
    let (_, err) = text(&o);
    assert!(!o.status.success());
    let default = dir.join("admin-127.0.0.1-50051.json");
    assert!(err.contains(&default.display().to_string()), "{err}");
    assert!(err.contains("colosseum run"), "{err}");
    // A clean stop removes each one's file, and only its own.
    let (admin_a, admin_b) = (a.admin.clone(), b.admin.clone());
    a.stop();
    assert!(!admin_a.exists() && admin_b.exists());
    b.stop();
    assert!(!admin_b.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_knockout_prints_its_bracket_and_winner() {
    let dir = config_dir("knockout");
    let run = Run::start(&dir);
    // No --key: the run makes a tenant through the admin file of its --url's cluster.
    let o = colosseum(&dir)
        .args(["tournament", "run", "--url", &run.gateway, "--format", "knockout"])
        .args(["--players", "5", "--game", "gops"])
        .output()
        .expect("tournament run runs");
    let (out, err) = text(&o);
    run.stop();
    assert!(o.status.success(), "{err}");
    let lines: Vec<&str> = out.lines().collect();
    for l in &lines {
        assert!(l.chars().count() <= 80, "{} columns: {l:?}", l.chars().count());
    }
    assert_eq!(lines[0], "knockout of 5 bots (gops)", "{out}");
    assert!(lines.contains(&"Round 1 of 3: quarterfinals"), "{out}");
    assert!(lines.contains(&"Round 3 of 3: final"), "{out}");
    assert_eq!(lines.iter().filter(|l| l.ends_with(" bye")).count(), 3, "{out}");
    assert_eq!(lines.iter().filter(|l| l.contains(" beat ")).count(), 4, "{out}");
    let winner = lines.last().and_then(|l| l.strip_prefix("Winner: bot")).unwrap_or_else(|| {
        panic!("no winner last:\n{out}");
    });
    assert!(winner.chars().all(|c| c.is_ascii_digit()), "{out}");
    // The final's line begins with the winner.
    let final_line = lines[lines.len() - 2];
    assert!(final_line.starts_with(&format!("  bot{winner} beat ")), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
