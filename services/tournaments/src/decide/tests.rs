//! The deciders' tests: a round started once and finished into the next state, pause and
//! resume, an arena's waves, a knockout's replays, each on a tournament played through them.

use super::*;
use crate::played::{T0, apply, finish, loaded};
use tournament_rules::arena::WAIT_MS as ARENA_WAIT_MS;
use tournament_rules::{Arena, DrawRule, Knockout, RoundRobin, Swiss};

#[test]
fn a_round_starts_once_then_finishes_into_the_next_state() {
    let mut l = loaded(tournament_rules::Format::Swiss(Swiss { rounds: 2 }), 4);
    let d = decide_round(&l, 1, T0).expect("round 1");
    assert!(matches!(d.events[0], Event::Paired { round: 1, ref games, .. } if games.len() == 2));
    apply(&mut l, d, T0);
    assert_eq!(l.state(), TournamentState::Running);
    assert_eq!(l.unstarted().len(), 2, "paired, not created yet");
    // Asked again: nothing new; the round after: not before this one ends.
    assert!(decide_round(&l, 1, T0).expect("again").events.is_empty());
    let err = decide_round(&l, 2, T0).expect_err("running");
    assert!(matches!(err, Error::NotNow(Reason::RoundRunning, _)), "{err:?}");
    assert!(matches!(decide_round(&l, 3, T0), Err(Error::NotNow(FAILED_PRECONDITION, _))));
    let d = finish(&l, 0, Some(0), T0 + 5);
    assert_eq!(d.owned.len(), 1, "the match's record, finished");
    let Event::Standings { rows } = &d.events[1] else {
        panic!("standings expected, got {:?}", d.events[1]);
    };
    assert!(rows.iter().any(|r| r.points2 == 2), "the winner's line changed");
    apply(&mut l, d, T0 + 5);
    // The same finish again (a replay of the lifecycle entry): nothing.
    assert!(finish(&l, 0, Some(0), T0 + 6).events.is_empty());
    let d = finish(&l, 1, None, T0 + 7);
    assert!(
        d.events
            .iter()
            .any(|e| matches!(e, Event::State { state: TournamentState::BetweenRounds, .. }))
    );
    assert!(!d.close);
    apply(&mut l, d, T0 + 7);
    assert_eq!(l.life.round_ended_ms(), T0 + 7);
    let step = decide_round(&l, 2, T0 + 8).expect("round 2");
    apply(&mut l, step, T0 + 8);
    let step = finish(&l, 2, Some(1), T0 + 9);
    apply(&mut l, step, T0 + 9);
    let d = finish(&l, 3, Some(0), T0 + 10);
    assert!(d.close, "the last result closes the tournament");
    apply(&mut l, d, T0 + 10);
    assert_eq!(l.state(), TournamentState::Finished);
    assert!(matches!(decide_round(&l, 3, T0), Err(Error::NotNow(Reason::TournamentOver, _))));
}

#[test]
fn pause_blocks_rounds_and_resume_restores_the_state() {
    let mut l = loaded(tournament_rules::Format::RoundRobin(RoundRobin { double: false }), 4);
    let step = decide_change(&l, &Change::Pause).expect("pause");
    apply(&mut l, step, T0);
    assert_eq!(l.state(), TournamentState::Paused);
    assert!(decide_change(&l, &Change::Pause).expect("again").events.is_empty());
    assert!(matches!(decide_round(&l, 1, T0), Err(Error::NotNow(Reason::Paused, _))));
    let step = decide_change(&l, &Change::Resume).expect("resume");
    apply(&mut l, step, T0);
    assert_eq!(l.state(), TournamentState::Created);
    let stranger = Change::Withdraw(PlayerId::random());
    assert!(matches!(decide_change(&l, &stranger), Err(Error::NotFound(_))));
    let p = l.spec.entrants[3].player;
    let step = decide_change(&l, &Change::Withdraw(p)).expect("withdraw");
    apply(&mut l, step, T0);
    assert!(l.t.is_withdrawn(Player(3)));
    assert!(decide_change(&l, &Change::Withdraw(p)).expect("again").events.is_empty());
}

#[test]
fn an_arena_pairs_its_free_players_once_a_few_are_free_or_one_has_waited() {
    let mut l = loaded(tournament_rules::Format::Arena(Arena { duration_ms: 60_000 }), 6);
    let step = decide_round(&l, 1, T0).expect("start");
    apply(&mut l, step, T0);
    assert_eq!(l.ends_at_ms(), T0 + 60_000);
    assert_eq!(l.t.games().len(), 3, "everyone paired at the start");
    // One game ends: two free players wait for others (they just met).
    let step = finish(&l, 0, Some(0), T0 + 10);
    apply(&mut l, step, T0 + 10);
    assert!(decide_due(&l, T0 + 11).expect("due").events.is_empty());
    // After the wait they are paired anyway.
    let d = decide_due(&l, T0 + 10 + ARENA_WAIT_MS).expect("due");
    assert!(matches!(&d.events[0], Event::Paired { round: 0, games, .. } if games.len() == 1));
    // Four free at once: paired without waiting.
    let step = finish(&l, 1, None, T0 + 20);
    apply(&mut l, step, T0 + 20);
    let step = finish(&l, 2, Some(1), T0 + 20);
    apply(&mut l, step, T0 + 20);
    let d = decide_due(&l, T0 + 21).expect("due");
    assert!(matches!(&d.events[0], Event::Paired { games, .. } if games.len() == 3));
    // Past its end: no pairing; the last result ends it.
    apply(&mut l, d, T0 + 21);
    let end = T0 + 60_001;
    assert!(decide_due(&l, end).expect("due").events.is_empty(), "games still run");
    let mut last = Decision::default();
    for g in 3..6 {
        last = finish(&l, g, Some(0), end);
        apply(&mut l, Decision { events: last.events.clone(), ..Decision::default() }, end);
    }
    assert!(last.close);
    assert_eq!(l.state(), TournamentState::Finished);
}

#[test]
fn new_games_are_numbered_and_their_matches_derived() {
    let mut l = loaded(tournament_rules::Format::Knockout(Knockout { draws: DrawRule::Replay }), 4);
    let step = decide_round(&l, 1, T0).expect("round 1");
    apply(&mut l, step, T0);
    assert_ne!(l.match_of(0), l.match_of(1));
    let again = loaded(tournament_rules::Format::Knockout(Knockout { draws: DrawRule::Replay }), 4);
    assert_ne!(l.match_of(0), again.match_of(0), "ids differ between tournaments");
    // A knockout draw under Replay starts a replay: a new game, a new match.
    let d = finish(&l, 0, None, T0 + 1);
    apply(&mut l, d, T0 + 1);
    assert_eq!(l.t.games().len(), 3);
    let (first, replay) = (l.t.games()[0], l.t.games()[2]);
    assert_eq!(replay.players, [first.players[1], first.players[0]], "seats swapped");
    // Game 0 has its result; game 1 and the replay wait for their matches.
    assert_eq!(l.unstarted().len(), 2);
}
