//! Records: replaying a finished match confirms it; any tampering is found and named;
//! checked-in records (tests/records/) pin the exact event bytes and random draws across
//! versions. Regenerate them deliberately with `UPDATE_GOLDEN=1 cargo test -p games`.

use games::{Mismatch, Record};
use rules_core::{Seat, Seed, Step};
use serde_json::{Value, json};
use std::path::Path;

/// Plays a match of `game` with moves drawn from `seed`, and a deadline step at random
/// one time in `deadline_odds` (never for 0) or whenever nobody owes a move.
fn random_record(game: &str, options: Value, seed: u64, deadline_odds: u32) -> Record {
    let match_seed =
        Seed::from_bytes(&[seed.to_le_bytes(), (!seed).to_le_bytes()].concat()).unwrap();
    let mut m = games::start(game, &options, match_seed).unwrap();
    let mut rng = Seed::from_bytes(&seed.to_le_bytes()).unwrap().rng();
    let mut n = 0;
    while m.outcome().is_none() && n < 1000 {
        n += 1;
        let owing: Vec<Seat> = m.to_move().iter().collect();
        if owing.is_empty() || deadline_odds > 0 && rng.below(deadline_odds) == 0 {
            m.step(&Step::Deadline).unwrap();
            continue;
        }
        let seat = owing[rng.below(owing.len() as u32) as usize];
        let legal = m.legal_moves(seat);
        let mv = legal[rng.below(legal.len() as u32) as usize].clone();
        m.step(&Step::Move { seat, mv }).unwrap();
    }
    games::Record::of(&*m)
}

fn golden_cases() -> Vec<(&'static str, &'static str, Value, u64, u32)> {
    vec![
        ("gops-13-rollover.record.json", "gops", json!({}), 11, 0),
        ("gops-5-split.record.json", "gops", json!({"cards": 5, "ties": "split"}), 12, 0),
        ("dueling-monsters-first.record.json", "dueling-monsters", json!({}), 13, 12),
        (
            "dueling-monsters-changeable.record.json",
            "dueling-monsters",
            json!({"submissions": "changeable", "bouts_to_win": 3}),
            14,
            12,
        ),
    ]
}

#[test]
fn checked_in_records_verify_and_replay_byte_for_byte() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/records");
    for (file, game, options, seed, odds) in golden_cases() {
        let fresh = random_record(game, options, seed, odds);
        let path = dir.join(file);
        let text = serde_json::to_string_pretty(&fresh).unwrap() + "\n";
        if std::env::var_os("UPDATE_GOLDEN").is_some() {
            std::fs::write(&path, &text).unwrap();
        }
        let stored = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (UPDATE_GOLDEN=1 writes it)", path.display()));
        assert_eq!(
            stored, text,
            "{file}: today's rules give different bytes than the stored record"
        );
        let record = Record::parse(&stored).unwrap();
        let v = record.verify().unwrap_or_else(|m| panic!("{file}: {m}"));
        assert_eq!(v.game, game);
        assert!(v.events > 3);
    }
}

#[test]
fn a_record_replays_only_when_finished() {
    let m = games::start("gops", &json!({"cards": 3}), Seed::ZERO).unwrap();
    let r = games::Record::of(&*m);
    assert!(r.seed.is_none(), "the seed stays secret while the match runs");
    assert_eq!(r.verify(), Err(Mismatch::Unfinished));
}

#[test]
fn tampering_is_found_and_named() {
    let good = random_record("dueling-monsters", json!({}), 5, 12);
    good.verify().unwrap();

    let mut r = good.clone();
    r.seed = Some(Seed::parse("00000000000000000000000000000001").unwrap());
    assert!(matches!(r.verify(), Err(Mismatch::Commitment { .. })));

    let mut r = good.clone();
    r.events[5].event["type"] = json!("forged");
    match r.verify() {
        Err(Mismatch::Event { index: 6, .. }) => {}
        other => panic!("expected event 6 to differ, got {other:?}"),
    }

    let mut r = good.clone();
    r.events.pop();
    assert!(matches!(r.verify(), Err(Mismatch::Event { recorded: None, .. })));

    let mut r = good.clone();
    r.steps.insert(0, json!({"seat": 0, "move": {"black": 9, "white": 9}}));
    match r.verify() {
        Err(Mismatch::Refused { step: 1, error }) => {
            assert_eq!(error.code.as_str(), "illegal_move")
        }
        other => panic!("expected step 1 refused, got {other:?}"),
    }

    let mut r = good.clone();
    r.steps[0] = json!({"seat": 0});
    assert!(matches!(r.verify(), Err(Mismatch::BadStep { step: 1, .. })));

    let mut r = good;
    let mut res = r.result.unwrap();
    res.winner = res.winner.map(Seat::other).or(Some(Seat::ZERO));
    r.result = Some(res);
    let err = r.verify().unwrap_err();
    assert!(matches!(err, Mismatch::Result { .. }));
    assert!(err.to_string().starts_with("the result differs"));
}

#[test]
fn same_inputs_give_identical_event_bytes() {
    for seed in 0..200 {
        for (game, options) in
            [("gops", json!({})), ("dueling-monsters", json!({"submissions": "changeable"}))]
        {
            let a = random_record(game, options.clone(), seed, 12);
            let b = random_record(game, options, seed, 12);
            assert_eq!(serde_json::to_string(&a).unwrap(), serde_json::to_string(&b).unwrap());
        }
    }
}
