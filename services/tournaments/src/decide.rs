//! What a writer appends, decided on a folded tournament: the `tournament` crate's lifecycle
//! answers (start a round or a wave, a phase after results, pause, resume, what time made due),
//! and this turns its answers into stored events, and its refusals into the API's errors.

use crate::error::Error;
use crate::fold::Loaded;
use crate::records::{Envelope, Event, OwnedMatch, PairedGame, Row, TournamentState};
use events::{MatchId, PlayerId};
use service_kit::status::{PlainCode, Reason};
use std::collections::BTreeSet;
use tournament::{Due, Player, Refusal, Start};

/// The reason of a refusal the tournament's state explains with no reason of its own.
pub(crate) const FAILED_PRECONDITION: Reason = Reason::Code(PlainCode::FailedPrecondition);

/// What a decision appends: the events, the matches whose record changes, a once mark,
/// and whether the tournament closes.
#[derive(Default, Debug)]
pub(crate) struct Decision {
    pub events: Vec<Event>,
    pub owned: Vec<(MatchId, String)>,
    pub once: Option<String>,
    pub close: bool,
}

/// Pause, resume or withdraw.
#[derive(Clone, Copy, Debug)]
pub enum Change {
    /// Pause.
    Pause,
    /// Resume.
    Resume,
    /// Withdraw an entrant.
    Withdraw(PlayerId),
}

impl Change {
    pub(crate) fn action(&self) -> &'static str {
        match self {
            Change::Pause => "PauseTournament",
            Change::Resume => "ResumeTournament",
            Change::Withdraw(_) => "WithdrawPlayer",
        }
    }
}

/// The API's error for a lifecycle's refusal.
fn refused(r: Refusal) -> Error {
    let reason = match r {
        Refusal::Over => Reason::TournamentOver,
        Refusal::Paused => Reason::Paused,
        Refusal::RoundRunning { .. } => Reason::RoundRunning,
        Refusal::WrongRound { .. } | Refusal::Pairing(_) => FAILED_PRECONDITION,
    };
    Error::NotNow(reason, r.to_string())
}

/// A phase entered (a continuous event's end with it when it starts, else 0).
fn entered(state: TournamentState, ends_at_ms: u64) -> Event {
    Event::State { state, ends_at_ms }
}

fn paired_games(l: &Loaded, games: &[[Player; 2]], first_no: u32) -> Vec<PairedGame> {
    games
        .iter()
        .enumerate()
        .map(|(i, pair)| {
            let no = first_no + i as u32;
            PairedGame {
                game_no: no,
                match_id: l.match_of(no),
                seats: [pair[0].0, pair[1].0],
                players: [l.player(pair[0]), l.player(pair[1])],
            }
        })
        .collect()
}

/// The events of a wave of games (an arena's; round 0).
fn wave(l: &Loaded, pairs: &[[Player; 2]]) -> Event {
    let first = l.t.games().len() as u32;
    Event::Paired { round: 0, games: paired_games(l, pairs, first), byes: Vec::new() }
}

/// The events of starting round `round` (or an arena), on `l`.
pub(crate) fn decide_round(l: &Loaded, round: u32, now: u64) -> Result<Decision, Error> {
    let events = match l.life.start(&l.t, round, now).map_err(refused)? {
        Start::Again => return Ok(Decision::default()), // Started before: answered again.
        Start::Wave { ends_at_ms, pairs } => {
            vec![entered(TournamentState::Running, ends_at_ms), wave(l, &pairs)]
        }
        Start::Round { pairing, then } => {
            let first_no = l.t.games().len() as u32;
            let paired = Event::Paired {
                round: pairing.round,
                games: paired_games(l, &pairing.games, first_no),
                byes: pairing.byes.iter().map(|p| (p.0, l.player(*p))).collect(),
            };
            vec![paired, entered(then, 0)]
        }
    };
    let close =
        events.iter().any(|e| matches!(e, Event::State { state: TournamentState::Finished, .. }));
    Ok(Decision { events, close, ..Decision::default() })
}

/// The events of matches `ms` finishing at `now`: each result once, the standings lines it
/// changed, and the phase it leads to.
pub(crate) fn decide_finished(l: &Loaded, ms: &[OwnedMatch], now: u64) -> Result<Decision, Error> {
    let mut after = l.clone();
    let mut events = Vec::new();
    let mut owned = Vec::new();
    let mut involved = BTreeSet::new();
    for m in ms {
        let Some((_, g)) = m.tournament else { continue };
        let Some(game) = after.t.games().get(g as usize).copied() else {
            return Err(Error::Corrupt(format!("no game {g} in the tournament")));
        };
        if game.outcome.is_some() {
            continue; // Recorded before (a replay, or adjudicated first).
        }
        let at = Envelope {
            at_ms: now,
            tournament: Some(l.spec.id),
            event: Event::MatchFinished { m: m.clone() },
        };
        after.fold(after.seq + 1, &at);
        events.push(at.event);
        owned.push((m.match_id, m.json()));
        involved.extend(game.players.map(|p| p.0));
    }
    if events.is_empty() {
        return Ok(Decision::default());
    }
    // The lines of the players whose own results changed (their opponents' tie-breaks and
    // everyone's ranks may move too: GetStandings reads every line).
    let changed: Vec<Row> =
        after.rows().into_iter().filter(|r| involved.contains(&r.entrant)).collect();
    events.push(Event::Standings { rows: changed });
    let phase = l.life.settle(&after.t, now);
    if let Some(state) = phase {
        events.push(entered(state, 0));
    }
    let close = phase == Some(TournamentState::Finished);
    Ok(Decision { events, owned, once: None, close })
}

/// The events of a pause, a resume or a withdrawal.
pub(crate) fn decide_change(l: &Loaded, change: &Change) -> Result<Decision, Error> {
    let phase = match change {
        Change::Pause => l.life.pause().map_err(refused)?,
        // A resumed arena's free players are paired by the driver's next pass.
        Change::Resume => l.life.resume(&l.t).map_err(refused)?,
        Change::Withdraw(player) => {
            l.life.open().map_err(refused)?;
            let Some(n) = l.spec.entrants.iter().position(|e| e.player == *player) else {
                return Err(Error::NotFound("entrant"));
            };
            if l.t.is_withdrawn(Player(n as u32)) {
                return Ok(Decision::default());
            }
            let event = Event::Withdrawn { entrant: n as u32, player: *player };
            return Ok(Decision { events: vec![event], ..Decision::default() });
        }
    };
    let events = phase.map(|p| entered(p, 0)).into_iter().collect();
    Ok(Decision { events, ..Decision::default() })
}

/// What is due by itself at `now`: a round after its gap, an arena's pairings and end.
pub(crate) fn decide_due(l: &Loaded, now: u64) -> Result<Decision, Error> {
    match l.life.due(&l.t, now, l.spec.round_gap_ms) {
        Due::Nothing => Ok(Decision::default()),
        Due::Wave(pairs) => Ok(Decision { events: vec![wave(l, &pairs)], ..Decision::default() }),
        Due::Round(round) => decide_round(l, round, now),
        Due::Finish => Ok(Decision {
            events: vec![entered(TournamentState::Finished, 0)],
            close: true,
            ..Decision::default()
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::records::{EntrantSpec, GameSpec, MatchResult, Spec, State};
    use api::v1;
    use events::{TenantId, TournamentId};
    use tournament::arena::WAIT_MS as ARENA_WAIT_MS;
    use tournament::{Arena, DrawRule, Knockout, RoundRobin, Swiss};

    const T0: u64 = 1_700_000_000_000;

    fn spec(format: tournament::Format, n: usize) -> Spec {
        Spec {
            id: TournamentId::random(),
            tenant: TenantId::random(),
            name: "t".into(),
            format,
            game: GameSpec {
                game: "gops".into(),
                options_json: String::new(),
                move_time_ms: 60_000,
            },
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
    fn loaded(format: tournament::Format, n: usize) -> Loaded {
        let spec = spec(format, n);
        let mut l = Loaded::new(spec.clone(), 0).expect("valid");
        let created =
            Envelope { at_ms: T0, tournament: Some(spec.id), event: Event::Created { spec } };
        l.fold(1, &created);
        l
    }

    fn apply(l: &mut Loaded, d: Decision, at_ms: u64) {
        for event in d.events {
            let e = Envelope { at_ms, tournament: Some(l.spec.id), event };
            let seq = l.seq + 1;
            l.fold(seq, &e);
        }
    }

    fn finish(l: &Loaded, g: u32, winner: Option<u8>, at_ms: u64) -> Decision {
        let game = l.t.games()[g as usize];
        let mut m = l.owned(&game);
        m.state = State::Finished;
        m.result =
            Some(MatchResult { winner, reason: "completed".into(), seed_hex: "00".into(), at_ms });
        decide_finished(l, &[m], at_ms).expect("decided")
    }

    #[test]
    fn a_round_starts_once_then_finishes_into_the_next_state() {
        let mut l = loaded(tournament::Format::Swiss(Swiss { rounds: 2 }), 4);
        let d = decide_round(&l, 1, T0).expect("round 1");
        assert!(
            matches!(d.events[0], Event::Paired { round: 1, ref games, .. } if games.len() == 2)
        );
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
        let mut l = loaded(tournament::Format::RoundRobin(RoundRobin { double: false }), 4);
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
        let mut l = loaded(tournament::Format::Arena(Arena { duration_ms: 60_000 }), 6);
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
        let mut l = loaded(tournament::Format::Knockout(Knockout { draws: DrawRule::Replay }), 4);
        let step = decide_round(&l, 1, T0).expect("round 1");
        apply(&mut l, step, T0);
        assert_ne!(l.match_of(0), l.match_of(1));
        let again = loaded(tournament::Format::Knockout(Knockout { draws: DrawRule::Replay }), 4);
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

    /// A round robin of `n` played to its end (seat 0 wins odd games, even games drawn).
    fn played_round_robin(n: usize) -> Loaded {
        let mut l = loaded(tournament::Format::RoundRobin(RoundRobin { double: false }), n);
        let mut at = T0;
        for round in 1..=l.rounds() {
            at += 10;
            let d = decide_round(&l, round, at).expect("a round");
            apply(&mut l, d, at);
            for g in
                l.t.games()
                    .iter()
                    .filter(|g| g.outcome.is_none())
                    .map(|g| g.no.0)
                    .collect::<Vec<_>>()
            {
                at += 1;
                let d = finish(&l, g, (g % 2 == 1).then_some(0), at);
                apply(&mut l, d, at);
            }
        }
        assert_eq!(l.state(), TournamentState::Finished);
        l
    }

    /// Every page of an export from the first, concatenated: standings lines, matches,
    /// text, and the pages' sizes.
    fn all_pages(
        l: &Loaded,
        size: usize,
        budget: usize,
    ) -> (Vec<serde_json::Value>, Vec<serde_json::Value>, String, Vec<usize>) {
        let (mut lines, mut matches, mut text, mut sizes) = (vec![], vec![], String::new(), vec![]);
        let mut from = crate::export::Cursor { seq: l.seq, ..Default::default() };
        loop {
            let page = crate::export::page_within(l, from, size, budget).expect("a page");
            let json: serde_json::Value = serde_json::from_str(&page.json).expect("json");
            assert_eq!(json["tournament"]["matches"], l.t.games().len());
            lines.extend(json["standings"].as_array().expect("lines").iter().cloned());
            matches.extend(json["matches"].as_array().expect("matches").iter().cloned());
            sizes.push(page.json.len() + page.text.len());
            text.push_str(&page.text);
            match page.next {
                Some(next) => {
                    assert_eq!(crate::export::Cursor::parse(&next.token()).expect("ours"), next);
                    from = next;
                }
                None => return (lines, matches, text, sizes),
            }
        }
    }

    #[test]
    fn an_export_in_pages_is_the_whole_export() {
        let l = played_round_robin(10);
        let (lines, matches, text, sizes) = all_pages(&l, 10_000, crate::export::PAGE_BYTES);
        assert_eq!((lines.len(), matches.len(), sizes.len()), (10, 45, 1));
        let ranks: Vec<u64> = lines.iter().map(|r| r["rank"].as_u64().expect("rank")).collect();
        assert_eq!(ranks, (1..=10).collect::<Vec<_>>());
        assert_eq!(text.lines().count(), 12, "title, heads, ten lines");
        let ids: BTreeSet<&str> =
            matches.iter().map(|m| m["match_id"].as_str().expect("id")).collect();
        assert_eq!(ids.len(), 45);
        assert_eq!(matches.iter().filter(|m| m["result"] == "1/2-1/2").count(), 23);
        // Three at a time, and a few hundred bytes at a time: the same export.
        let by_three = all_pages(&l, 3, crate::export::PAGE_BYTES);
        assert_eq!(by_three.3.len(), 19, "55 items, 3 a page");
        assert_eq!((&by_three.0, &by_three.1, &by_three.2), (&lines, &matches, &text));
        let small = all_pages(&l, 10_000, 600);
        assert!(small.3.len() > 10, "{} pages", small.3.len());
        assert!(small.3.iter().all(|&b| b <= 600 + 300), "{:?}", small.3);
        assert_eq!((&small.0, &small.1, &small.2), (&lines, &matches, &text));
    }

    #[test]
    fn a_page_token_not_ours_is_refused() {
        use crate::export::{Cursor, page};
        for bad in ["x", "e1.1.2", "e1.0.0.0", "e1.1.2.3.4", "e1.a.2.3", &"9".repeat(70)] {
            assert!(matches!(Cursor::parse(bad), Err(Error::Invalid(_))), "{bad}");
        }
        let l = played_round_robin(4);
        for (line, game) in [(5, 0), (4, 7), (1, 1)] {
            let c = Cursor { seq: l.seq, line, game };
            assert!(matches!(page(&l, c, 10), Err(Error::Invalid(_))), "{c:?}");
        }
    }

    /// Finishes every game without a result at once (seat 0 wins odd games, even games
    /// drawn), as one read of the lifecycle stream would.
    fn finish_all(l: &mut Loaded, at_ms: u64) {
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

    #[test]
    fn a_public_page_shows_getstandings_lines_their_crosstable_and_the_games_by_round() {
        use crate::view::{Window, page};
        use v1::{CrosstableResult as C, PublicGameResult as G};
        let l = played_round_robin(5);
        let all = Window::of(0, 0, 0, 0).expect("the defaults");
        let p = page(&l, all);
        assert_eq!((p.players, p.games, p.games_finished, p.rounds), (5, 10, 10, 5));
        assert_eq!(p.state, v1::TournamentState::Finished as i32);
        assert_eq!(p.sequence, l.seq);
        // GetStandings' lines, without the player id.
        let rows = l.rows();
        assert_eq!(p.standings.len(), 5);
        for (line, row) in p.standings.iter().zip(&rows) {
            let mut same = row.to_proto();
            same.player_id.clear();
            let got = v1::Standing {
                rank: line.rank,
                player_id: String::new(),
                name: line.name.clone(),
                points2: line.points2,
                played: line.played,
                wins: line.wins,
                draws: line.draws,
                losses: line.losses,
                byes: line.byes,
                buchholz2: line.buchholz2,
                sonneborn_berger4: line.sonneborn_berger4,
                withdrawn: line.withdrawn,
                reached_round: line.reached_round,
            };
            assert_eq!(got, same);
            // Five rounds of an odd field: four games and a bye each, in round order.
            let rounds: Vec<u32> = line.crosstable.iter().map(|c| c.round).collect();
            assert_eq!(rounds, [1, 2, 3, 4, 5], "{}", line.name);
            let byes = line.crosstable.iter().filter(|c| c.result == C::Bye as i32).count();
            assert_eq!(byes, 1);
        }
        // Each game is in both players' rows, one's win the other's loss.
        let rank_of = |name: &str| p.standings.iter().find(|s| s.name == name).map(|s| s.rank);
        for r in &p.round_games {
            assert_eq!(r.games.len(), 2, "round {}", r.round);
            assert_eq!(r.bye_names.len(), 1);
            for g in &r.games {
                assert_eq!(Some(g.seat0_rank), rank_of(&g.seat0_name));
                let row = &p.standings[g.seat0_rank as usize - 1];
                let c = row.crosstable.iter().find(|c| c.round == r.round).expect("a cell");
                assert_eq!((c.opponent_rank, c.seat), (g.seat1_rank, 0));
                let expected = match G::try_from(g.result).expect("a result") {
                    G::Seat0Won => C::Win,
                    G::Seat1Won => C::Loss,
                    G::Draw => C::Draw,
                    G::Pending | G::Unspecified => C::Pending,
                };
                assert_eq!(c.result, expected as i32);
            }
        }
        let rounds: Vec<u32> = p.round_games.iter().map(|r| r.round).collect();
        assert_eq!(rounds, [1, 2, 3, 4, 5]);
        // Nothing of the tenant's, and no player id.
        let text = format!("{p:?}");
        assert!(!text.contains(&l.spec.tenant.to_string()));
        for e in &l.spec.entrants {
            assert!(!text.contains(&e.player.to_string()[..8]), "a player id on the page");
        }
        // Windows: lines 2 and 3; the three newest games but the two newest.
        let w = Window::of(1, 2, 2, 3).expect("a window");
        let part = page(&l, w);
        assert_eq!(part.standings, p.standings[1..3]);
        let ids = |p: &v1::PublicTournament| -> Vec<String> {
            p.round_games.iter().flat_map(|r| r.games.iter().map(|g| g.match_id.clone())).collect()
        };
        assert_eq!(ids(&part), ids(&p)[5..8]);
        assert_eq!(part.round_games.iter().map(|r| r.round).collect::<Vec<_>>(), [3, 4]);
        let past = page(&l, Window::of(9, 0, 99, 0).expect("a window"));
        assert!(past.standings.is_empty() && past.round_games.is_empty());
        assert_eq!(past.players, 5, "the summary is on every page");
        // Limits over their bounds name their field.
        for (w, field) in [
            (Window::of(0, 1_001, 0, 0), "standings_limit"),
            (Window::of(0, 0, 0, 1_001), "games_limit"),
        ] {
            match w {
                Err(Error::Field(fields::FieldError::Bad { field: f, .. })) => assert_eq!(f, field),
                other => panic!("{field}: {other:?}"),
            }
        }
    }

    #[test]
    fn a_page_of_a_day_long_arena_of_a_thousand_players_stays_under_a_mebibyte() {
        use crate::view::{CROSSTABLE_CELLS, Window, page};
        let format = tournament::Format::Arena(Arena { duration_ms: 24 * 3600 * 1000 });
        let mut sp = spec(format, 1_000);
        for (i, e) in sp.entrants.iter_mut().enumerate() {
            // The longest names there are.
            e.name = format!("{i:04}{}", "n".repeat(60));
        }
        let mut l = Loaded::new(sp.clone(), 0).expect("valid");
        l.fold(
            1,
            &Envelope { at_ms: T0, tournament: Some(sp.id), event: Event::Created { spec: sp } },
        );
        let step = decide_round(&l, 1, T0).expect("start");
        apply(&mut l, step, T0);
        let mut at = T0;
        for _ in 0..60 {
            at += ARENA_WAIT_MS;
            finish_all(&mut l, at);
            let d = decide_due(&l, at + ARENA_WAIT_MS).expect("paired");
            apply(&mut l, d, at);
        }
        assert!(l.t.games().len() >= 30_000, "{} games", l.t.games().len());
        let p = page(&l, Window::of(0, 1_000, 0, 1_000).expect("the largest window"));
        assert_eq!(p.standings.len(), 1_000);
        assert!(p.standings.iter().all(|s| s.crosstable.len() == CROSSTABLE_CELLS));
        assert!(p.standings.iter().all(|s| s.crosstable_earlier > 0));
        let games: usize = p.round_games.iter().map(|r| r.games.len()).sum();
        assert_eq!((games, p.round_games.len()), (1_000, 1), "an arena's games are round 0");
        let bytes = prost::Message::encoded_len(&p);
        assert!(bytes < 1 << 20, "{bytes} bytes");
    }
}
