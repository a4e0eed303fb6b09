//! Tournaments created and played through the deciders, as a writer would append their
//! events: the fixtures of the tests of the deciders and of what reads a folded tournament
//! (the export's pages, the public page).

use crate::decide::{Decision, decide_finished, decide_round};
use crate::fold::Loaded;
use crate::records::{
    EntrantSpec, Envelope, Event, GameSpec, MatchResult, OwnedMatch, Spec, State, TournamentState,
};
use store::{PlayerId, TenantId, TournamentId};
use tournament_rules::RoundRobin;

/// The tournaments' creation time.
pub(crate) const T0: u64 = 1_700_000_000_000;

/// A tournament of `format` for `n` entrants, rated from 2000 down in entry order.
pub(crate) fn spec(format: tournament_rules::Format, n: usize) -> Spec {
    Spec {
        id: TournamentId::random(),
        tenant: TenantId::random(),
        name: "t".into(),
        format,
        game: GameSpec { game: "gops".into(), options_json: String::new(), move_time_ms: 60_000 },
        entrants: (0..n)
            .map(|i| EntrantSpec {
                player: PlayerId::random(),
                seed_rating: Some(2000.0 - i as f64),
                name: format!("p{i}"),
            })
            .collect(),
        round_gap_ms: 0,
        created_ms: T0,
        public_page: false,
    }
}

/// A tournament created and folded through `events`, as a writer would append them.
pub(crate) fn loaded(format: tournament_rules::Format, n: usize) -> Loaded {
    let spec = spec(format, n);
    let mut l = Loaded::new(spec.clone(), 0).expect("valid");
    let created = Envelope { at_ms: T0, tournament: Some(spec.id), event: Event::Created { spec } };
    l.fold(1, &created);
    l
}

/// Folds a decision's events into `l` as appended at `at_ms`.
pub(crate) fn apply(l: &mut Loaded, d: Decision, at_ms: u64) {
    for event in d.events {
        let e = Envelope { at_ms, tournament: Some(l.spec.id), event };
        let seq = l.seq + 1;
        l.fold(seq, &e);
    }
}

/// What finishing game `g` with `winner` (a seat; `None`: a draw) at `at_ms` decides.
pub(crate) fn finish(l: &Loaded, g: u32, winner: Option<u8>, at_ms: u64) -> Decision {
    let game = l.t.games()[g as usize];
    let mut m = l.owned(&game);
    m.state = State::Finished;
    m.result =
        Some(MatchResult { winner, reason: "completed".into(), seed_hex: "00".into(), at_ms });
    decide_finished(l, &[m], at_ms).expect("decided")
}

/// A round robin of `n` played to its end (seat 0 wins odd games, even games drawn).
pub(crate) fn played_round_robin(n: usize) -> Loaded {
    let mut l = loaded(tournament_rules::Format::RoundRobin(RoundRobin { double: false }), n);
    let mut at = T0;
    for round in 1..=l.rounds() {
        at += 10;
        let d = decide_round(&l, round, at).expect("a round");
        apply(&mut l, d, at);
        for g in
            l.t.games().iter().filter(|g| g.outcome.is_none()).map(|g| g.no.0).collect::<Vec<_>>()
        {
            at += 1;
            let d = finish(&l, g, (g % 2 == 1).then_some(0), at);
            apply(&mut l, d, at);
        }
    }
    assert_eq!(l.state(), TournamentState::Finished);
    l
}

/// Finishes every game without a result at once (seat 0 wins odd games, even games
/// drawn), as one read of the lifecycle stream would.
pub(crate) fn finish_all(l: &mut Loaded, at_ms: u64) {
    let ms: Vec<OwnedMatch> =
        l.t.games()
            .iter()
            .filter(|g| g.outcome.is_none())
            .map(|g| {
                let mut m = l.owned(g);
                m.state = State::Finished;
                m.result = Some(MatchResult {
                    winner: (g.no.0 % 2 == 1).then_some(0),
                    reason: "completed".into(),
                    seed_hex: "00".into(),
                    at_ms,
                });
                m
            })
            .collect();
    let d = decide_finished(l, &ms, at_ms).expect("decided");
    apply(l, d, at_ms);
}
