//! The `colosseum` binary end to end: conformance lines, record then verify (and a
//! tampered record refused with the place it differs), selfplay's summary, clear errors, a
//! new password against the rule refused before it is sent, the games listed with their
//! bots.

use serde_json::Value;
use std::process::Command;

fn colosseum(args: &[&str]) -> (i32, String, String) {
    let out =
        Command::new(env!("CARGO_BIN_EXE_colosseum")).args(args).output().expect("the binary runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn repo(path: &str) -> String {
    format!("{}/../{path}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn conformance_run_prints_one_line_per_script_in_order() {
    let a = repo("tests/conformance/shared/gops-complete-match.json");
    let b = repo("tests/conformance/gops-invalid-seed.json");
    let (code, out, _) = colosseum(&["conformance", "run", &a, &b, &a]);
    assert_eq!(code, 0);
    let lines: Vec<Value> = out.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0]["status"], "finished");
    assert_eq!(lines[0]["summary"]["scores"], serde_json::json!([4, 4]));
    assert_eq!(lines[1]["status"], "invalid");
    assert_eq!(lines[1]["error"]["code"], "bad_script");
    assert_eq!(lines[0], lines[2]);
}

#[test]
fn record_then_verify_and_tampering_is_named() {
    let script = repo("tests/conformance/dueling-monsters-best-of-five-third-win-ends.json");
    let (code, record, err) = colosseum(&["record", &script]);
    assert_eq!(code, 0, "{err}");
    let dir = std::env::temp_dir().join(format!("colosseum-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let good = dir.join("good.json");
    std::fs::write(&good, &record).unwrap();
    let (code, out, _) = colosseum(&["verify", good.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(out.starts_with("verified: dueling-monsters record"), "{out}");
    assert!(out.contains("result seat 1"), "{out}");

    let mut r: Value = serde_json::from_str(&record).unwrap();
    r["events"][4]["event"]["prize"] = Value::from(1);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_string(&r).unwrap()).unwrap();
    let (code, out, _) = colosseum(&["verify", bad.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(out.starts_with("NOT verified: event 5 differs"), "{out}");
}

#[test]
fn record_refuses_a_script_whose_step_is_refused() {
    let (code, _, err) = colosseum(&["record", &repo("tests/conformance/gops-card-zero.json")]);
    assert_eq!(code, 2);
    assert!(err.contains("step 1 refused: illegal_move"), "{err}");
}

#[test]
fn selfplay_prints_a_summary_that_adds_up() {
    let (code, out, err) = colosseum(&[
        "selfplay",
        "--game",
        "gops",
        "--matches",
        "300",
        "--seed",
        "9",
        "--bot",
        "strong",
        "--vs",
        "random",
    ]);
    assert_eq!(code, 0, "{err}");
    let s: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(s["matches"], 300);
    assert_eq!(s["moves"], 300 * 26);
    let wins = s["wins"].as_array().unwrap();
    assert_eq!(
        wins[0].as_u64().unwrap() + wins[1].as_u64().unwrap() + s["draws"].as_u64().unwrap(),
        300
    );
    assert!(s["win_rate"].as_f64().unwrap() > 0.75, "the strong bot beats random: {s}");
    let ci = s["win_rate_ci95"].as_array().unwrap();
    assert!(ci[0].as_f64().unwrap() < s["win_rate"].as_f64().unwrap());
}

#[test]
fn unknown_names_get_clear_errors() {
    let (code, _, err) = colosseum(&["selfplay", "--game", "chess"]);
    assert_eq!(code, 2);
    assert!(err.contains("unknown game \"chess\""), "{err}");
    let (code, _, err) = colosseum(&["selfplay", "--game", "gops", "--bot", "genius"]);
    assert_eq!(code, 2);
    assert!(err.contains("gops has no bot \"genius\""), "{err}");
}

#[test]
fn show_prints_the_final_board_of_a_record() {
    let dir = std::env::temp_dir().join(format!("colosseum-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    for (script, marks) in [
        (
            "tests/conformance/shared/cure-plague-complete-match.json",
            vec!["0 hCP", "-1 PCh", "\"survivors\":19"],
        ),
        (
            "tests/conformance/shared/hexspiel-complete-match.json",
            vec!["1 O O O O O O O O 1", "\"stones\":[0,8]"],
        ),
    ] {
        let (code, record, err) = colosseum(&["record", &repo(script)]);
        assert_eq!(code, 0, "{err}");
        let path = dir.join("r.json");
        std::fs::write(&path, record).unwrap();
        let (code, out, err) = colosseum(&["show", path.to_str().unwrap()]);
        assert_eq!(code, 0, "{err}");
        for m in marks {
            assert!(out.contains(m), "{script}: no {m:?} in\n{out}");
        }
    }
}

#[test]
fn games_lists_every_game_with_its_bots_and_default() {
    let (code, out, err) = colosseum(&["games"]);
    assert_eq!(code, 0, "{err}");
    for line in out.lines() {
        assert!(line.chars().count() <= 80, "{} columns: {line:?}", line.chars().count());
    }
    for g in games::GAMES {
        let at = out
            .lines()
            .position(|l| l.starts_with(&format!("{} ", g.name)))
            .unwrap_or_else(|| panic!("no line for {}:\n{out}", g.name));
        // Its bots: the lines under it up to the next game's.
        let bots: String = out
            .lines()
            .skip(at + 1)
            .take_while(|l| l.starts_with(' '))
            .collect::<Vec<_>>()
            .join(" ");
        let names = games::registry::bot_names(g.name);
        let default = names.last().expect("every game has a bot");
        assert!(bots.trim_start().starts_with("bots:"), "{}:\n{out}", g.name);
        assert!(bots.contains(&format!("{default} (default)")), "{}:\n{out}", g.name);
        for b in names {
            assert!(bots.contains(&format!(" {b}")), "{} has no {b}:\n{out}", g.name);
        }
    }
}

#[test]
fn register_refuses_a_password_against_the_rule_before_sending_it() {
    let dir = std::env::temp_dir().join(format!("colosseum-register-{}", std::process::id()));
    // No gateway listens on port 1: a refusal naming the rule came from no server.
    let out = Command::new(env!("CARGO_BIN_EXE_colosseum"))
        .args(["register", "--email", "a@example.org", "--gateway", "http://127.0.0.1:1"])
        .env("COLOSSEUM_CONFIG_DIR", &dir)
        .env("COLOSSEUM_PASSWORD", "short")
        .output()
        .expect("the binary runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("that password is 5 bytes long"), "{err}");
    assert!(err.contains("8 to 128 bytes"), "{err}");
    assert!(!err.contains("Unavailable") && !err.contains("127.0.0.1:1"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}
