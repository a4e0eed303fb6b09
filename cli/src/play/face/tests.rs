//! Every game's face over real matches: random legal play through the rules (seeded), and
//! at every step, for both seats, the status panel fits 80 columns, every event reads as
//! words (no debug dump, no braces, no halves), every legal move spelled reads back as
//! itself, `help` fits, and the end has a score and a board that fit.

use super::*;
use games::StepIn;
use prost::Message;
use rules_core::{Seat, Seed, Step, Viewer};

/// What no plain-language line may hold: debug dumps and internal units.
const NOT_WORDS: [&str; 6] = ["{", "Some(", "None", "halves", "\"", "::"];

fn seed(n: u64) -> Seed {
    let mut b = [0u8; 32];
    b[..8].copy_from_slice(&n.to_le_bytes());
    Seed::from_array(b)
}

/// A cheap deterministic choice (the face must cope with any legal play).
fn pick(n: usize, state: &mut u64) -> usize {
    *state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    ((*state >> 33) as usize) % n
}

fn fits(lines: &[String], what: &str) {
    for l in lines {
        assert!(l.chars().count() <= WIDTH, "{what}: {} columns: {l:?}", l.chars().count());
    }
}

fn words(line: &str, what: &str) {
    for bad in NOT_WORDS {
        assert!(!line.contains(bad), "{what}: {bad:?} in {line:?}");
    }
    assert!(line.chars().count() <= 200, "{what}: a long line {line:?}");
}

/// Plays `game` to its end with seeded random moves, checking the faces of both seats.
fn play_through(game: &str, n: u64) {
    let mut host = games::start(game, &serde_json::json!({}), seed(n)).expect("a match");
    let mut faces = [of(game).expect("a face"), of(game).expect("a face")];
    let names = [Names::new(Some(0), "The random bot"), Names::new(Some(1), "Ada")];
    let mut seen = 0;
    let mut state = n;
    let mut steps = 0;
    loop {
        let events = host.encoded_events();
        for e in &events[seen..] {
            let event = v1::Event::decode(e.payload.as_slice()).expect("an event");
            for s in Seat::BOTH {
                if e.audience.admits(Viewer::Seat(s)) {
                    let i = s.index();
                    if let Some(l) = line(faces[i].as_mut(), &event, &names[i]) {
                        words(&l, &format!("{game} event {event:?}"));
                    }
                }
            }
        }
        seen = events.len();
        for s in Seat::BOTH {
            let i = s.index();
            let out = host.view_proto(Viewer::Seat(s), false);
            let status = faces[i].status(&out.view, &names[i]);
            assert!(!status.is_empty(), "{game}: an empty status");
            fits(&status, &format!("{game} status"));
            for l in &status {
                words(l, &format!("{game} status"));
            }
            if !out.legal.is_empty() {
                fits(&faces[i].help(&out.legal), &format!("{game} help"));
                // Every legal move (a sample of a long list) reads back as itself.
                let every = out.legal.len().div_ceil(40).max(1);
                for mv in out.legal.iter().step_by(every) {
                    let typed = faces[i].spell(mv);
                    let read = faces[i].read(&typed, &out.legal);
                    assert_eq!(read.as_ref(), Ok(mv), "{game}: {typed:?} read back");
                }
            }
        }
        if host.outcome().is_some() {
            for s in Seat::BOTH {
                let i = s.index();
                let view = host.view_proto(Viewer::Seat(s), false).view;
                assert!(faces[i].score(&view).is_some(), "{game}: no final score");
                let board = faces[i].final_board(&view, &names[i]);
                assert!(!board.is_empty(), "{game}: no final board");
                fits(&board, &format!("{game} final board"));
            }
            return;
        }
        let owing: Vec<Seat> = host.to_move().iter().collect();
        if owing.is_empty() {
            host.step(&Step::Deadline).expect("a deadline");
            continue;
        }
        let s = owing[pick(owing.len(), &mut state)];
        let legal = host.view_proto(Viewer::Seat(s), false).legal;
        let mv = legal[pick(legal.len(), &mut state)].clone();
        host.step_proto(StepIn::Move { seat: s, mv }).expect("a legal move");
        steps += 1;
        assert!(steps < 10_000, "{game}: no end");
    }
}

/// Six seeded matches of `game`.
fn matches_of(game: &str) {
    for n in 0..6 {
        play_through(game, n);
    }
}

#[test]
fn every_hosted_game_has_a_face() {
    for g in games::GAMES {
        assert!(of(g.name).is_some(), "{} has no face", g.name);
    }
}

#[test]
fn gops_fits_and_speaks_words_through_whole_matches() {
    matches_of("gops");
}

#[test]
fn dueling_monsters_fits_and_speaks_words_through_whole_matches() {
    matches_of("dueling-monsters");
}

#[test]
fn hexspiel_fits_and_speaks_words_through_whole_matches() {
    matches_of("hexspiel");
}

#[test]
fn cure_plague_fits_and_speaks_words_through_whole_matches() {
    matches_of("cure-plague");
}

#[test]
fn masterminds_fits_and_speaks_words_through_whole_matches() {
    matches_of("masterminds");
}

#[test]
fn names_say_you_and_the_opponent() {
    let n = Names::new(Some(1), "The strong bot");
    assert_eq!(n.subj(1), "You");
    assert_eq!(n.subj(0), "The strong bot");
    assert_eq!(n.obj(0), "the strong bot");
    assert_eq!(n.poss(0), "the strong bot's");
    assert_eq!(n.poss(1), "your");
    assert_eq!(n.order(), [1, 0]);
    let spectator = Names::new(None, "x");
    assert_eq!(spectator.subj(0), "Seat 0");
}

#[test]
fn text_helpers_wrap_cut_and_count() {
    let items: Vec<String> = (1..=60).map(|i| format!("move{i}")).collect();
    let lines = wrap("Legal: ", &items, ", ");
    assert!(lines.len() > 1);
    fits(&lines, "wrap");
    assert_eq!(lines.join(" ").matches("move").count(), 60);
    assert_eq!(cut("abcdef", 4), "abc…");
    assert_eq!(points(13), "6.5");
    assert_eq!(points(12), "6");
    assert_eq!(plural(1, "point"), "1 point");
    assert_eq!(plural(2, "point"), "2 points");
}

#[test]
fn a_match_level_event_reads_from_the_viewers_side() {
    use v1::event::Kind;
    let names = Names::new(Some(0), "Ada");
    let ended = |winner| v1::Event {
        kind: Some(Kind::MatchEnded(v1::MatchEnded {
            winner,
            reason: "resigned".into(),
            seed: "00".into(),
        })),
    };
    assert_eq!(
        common_line(&ended(Some(0)), &names).as_deref(),
        Some("The match is over: you won (Ada resigned). The seed is now public.")
    );
    let resigned = v1::Event { kind: Some(Kind::Resigned(v1::Resigned { seat: 0 })) };
    assert_eq!(common_line(&resigned, &names).as_deref(), Some("You resigned."));
}
