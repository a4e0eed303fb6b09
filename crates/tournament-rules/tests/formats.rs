//! Round robin, knockout and arena through the public API, with hand-checked cases and
//! properties over random events; and the operations' validation and idempotence.

use proptest::prelude::*;
use rand_chacha::ChaCha8Rng;
use rand_core::SeedableRng;
use std::collections::BTreeMap;
use tournament_rules::{
    DrawRule, Entrant, Error, Format, GameNo, Outcome, Player, Recorded, RoundPairing, Tournament,
    audit, play_round, simulate,
};

fn p(i: u32) -> Player {
    Player(i)
}

/// Entrants seeded in entry order (descending ratings).
fn seeded(n: u32) -> Vec<Entrant> {
    (0..n).map(|i| Entrant { rating: Some(3000.0 - f64::from(i)) }).collect()
}

fn record_all(t: &mut Tournament, games: &[GameNo], outcome: Outcome) {
    for &g in games {
        t.record(g, outcome).unwrap();
    }
}

// ---- round robin ----

#[test]
fn round_robin_follows_the_berger_table_by_seed() {
    // Seeds: #1 (1800), #3 (1700), #2 (1600), #0 (1500) are Berger numbers 1 to 4.
    let ratings = [1500.0, 1800.0, 1600.0, 1700.0].map(|r| Entrant { rating: Some(r) });
    let mut t = Tournament::new(
        Format::RoundRobin(tournament_rules::RoundRobin { double: false }),
        ratings.to_vec(),
    )
    .unwrap();
    assert_eq!(t.total_rounds(), 3);
    let expected = [
        vec![[p(1), p(0)], [p(3), p(2)]], // 1-4 2-3
        vec![[p(0), p(2)], [p(1), p(3)]], // 4-3 1-2
        vec![[p(3), p(0)], [p(2), p(1)]], // 2-4 3-1
    ];
    for (r, games) in expected.into_iter().enumerate() {
        let pairing = t.pair_round().unwrap();
        assert_eq!(pairing, RoundPairing { round: r as u32 + 1, games, byes: vec![] });
        let numbers = t.begin_round(&pairing).unwrap();
        record_all(&mut t, &numbers, Outcome::Draw);
    }
    assert!(t.finished());
    assert_eq!(t.pair_round(), Err(Error::Finished));
}

#[test]
fn round_robin_odd_field_gives_byes_and_refuses_other_pairings() {
    let mut t = Tournament::new(
        Format::RoundRobin(tournament_rules::RoundRobin { double: false }),
        seeded(5),
    )
    .unwrap();
    assert_eq!(t.total_rounds(), 5);
    let r1 = t.pair_round().unwrap();
    // Number 1 meets the dummy 6: seed 1 sits out.
    assert_eq!(r1.byes, vec![p(0)]);
    assert_eq!(r1.games, vec![[p(1), p(4)], [p(2), p(3)]]);
    let other =
        RoundPairing { round: 1, games: vec![[p(1), p(3)], [p(2), p(4)]], byes: vec![p(0)] };
    assert_eq!(t.begin_round(&other), Err(Error::NotScheduled));
    t.begin_round(&r1).unwrap();
    // A withdrawn player's scheduled opponents sit out with a bye.
    record_all(&mut t, &[GameNo(0), GameNo(1)], Outcome::Seat0);
    t.withdraw(p(3)).unwrap();
    let r2 = t.pair_round().unwrap();
    // Round 2 of the table: 6-4 5-3 1-2. 6-4 is the dummy against the withdrawn #3: nobody
    // plays; 5-3 is #4 against #2; 1-2 is #0 against #1.
    assert_eq!(r2.games, vec![[p(4), p(2)], [p(0), p(1)]]);
    assert!(r2.byes.is_empty());
    t.begin_round(&r2).unwrap();
    record_all(&mut t, &[GameNo(2), GameNo(3)], Outcome::Seat1);
    let r3 = t.pair_round().unwrap();
    // Round 3: 2-6 3-1 4-5: #1 has the bye, #4 would meet the withdrawn #3 and sits out too.
    assert_eq!(r3.games, vec![[p(2), p(0)]]);
    assert_eq!(r3.byes, vec![p(1), p(4)]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Every pair meets exactly once per cycle; in a double round robin the second meeting has
    /// the seats swapped; every round pairs everyone once, with one bye when odd.
    #[test]
    fn round_robin_pairs_everyone_once_per_cycle(n in 2u32..30, double: bool, seed: u64) {
        let (t, report) =
            simulate(Format::RoundRobin(tournament_rules::RoundRobin { double }), seeded(n), seed, |t| t.pair_round()).unwrap();
        let cycles = if double { 2 } else { 1 };
        prop_assert_eq!(t.round(), tournament_rules::berger_rounds(n) * cycles);
        let mut meetings: BTreeMap<(Player, Player), Vec<[Player; 2]>> = BTreeMap::new();
        for r in 1..=t.round() {
            let pairing = t.round_pairing(r).unwrap();
            let mut seen: Vec<Player> =
                pairing.games.iter().flatten().chain(&pairing.byes).copied().collect();
            seen.sort();
            prop_assert_eq!(seen, (0..n).map(Player).collect::<Vec<_>>());
            prop_assert_eq!(pairing.byes.len() as u32, n % 2);
            for &g in &pairing.games {
                meetings.entry((g[0].min(g[1]), g[0].max(g[1]))).or_default().push(g);
            }
        }
        prop_assert_eq!(meetings.len() as u32, n * (n - 1) / 2);
        for games in meetings.values() {
            prop_assert_eq!(games.len(), cycles as usize);
            if double {
                prop_assert_eq!(games[1], [games[0][1], games[0][0]]);
            }
        }
        prop_assert_eq!(report.rematches, 0);
        prop_assert_eq!(report.double_byes, 0);
    }
}

// ---- knockout ----

#[test]
fn knockout_byes_go_to_the_top_seeds() {
    let t = Tournament::new(
        Format::Knockout(tournament_rules::Knockout { draws: DrawRule::HigherSeed }),
        seeded(6),
    )
    .unwrap();
    assert_eq!(t.total_rounds(), 3);
    let r1 = t.pair_round().unwrap();
    // Bracket of 8: 1-8 4-5 2-7 3-6; seeds 7 and 8 do not exist.
    assert_eq!(r1.byes, vec![p(0), p(1)]);
    assert_eq!(r1.games, vec![[p(3), p(4)], [p(2), p(5)]]);
}

#[test]
fn knockout_seeds_one_and_two_meet_in_the_final() {
    for n in [8u32, 16] {
        let mut t = Tournament::new(
            Format::Knockout(tournament_rules::Knockout { draws: DrawRule::HigherSeed }),
            seeded(n),
        )
        .unwrap();
        let mut last = None;
        while !t.finished() {
            let pairing = t.pair_round().unwrap();
            let numbers = t.begin_round(&pairing).unwrap();
            for g in numbers {
                // The higher seed (lower index) always wins.
                let [a, b] = t.game(g).unwrap().players;
                t.record(g, if a < b { Outcome::Seat0 } else { Outcome::Seat1 }).unwrap();
            }
            last = Some(pairing);
        }
        let fin = last.unwrap();
        assert_eq!(fin.games.len(), 1);
        let mut finalists = fin.games[0];
        finalists.sort();
        assert_eq!(finalists, [p(0), p(1)], "n = {n}");
        assert_eq!(t.champion(), Some(p(0)));
        let s = t.standings();
        assert_eq!(s[0].player, p(0));
        assert_eq!(s[0].reached_round, t.total_rounds() + 1);
        assert_eq!(s[1].player, p(1));
        // Semifinalists (seeds 3 and 4) next, then the quarterfinalists.
        assert_eq!([s[2].player, s[3].player], [p(2), p(3)]);
        assert_eq!(s[2].reached_round, t.total_rounds() - 1);
        assert_eq!(t.games().len() as u32, n - 1);
    }
}

#[test]
fn knockout_draws_are_replayed_then_go_to_the_higher_seed() {
    let mut t = Tournament::new(
        Format::Knockout(tournament_rules::Knockout { draws: DrawRule::Replay }),
        seeded(2),
    )
    .unwrap();
    let pairing = t.pair_round().unwrap();
    assert_eq!(pairing.games, vec![[p(0), p(1)]]);
    let g = t.begin_round(&pairing).unwrap()[0];
    // A draw starts the replay, seats swapped, in the same round.
    let replay = Recorded::Replay { game: GameNo(1), players: [p(1), p(0)] };
    assert_eq!(t.record(g, Outcome::Draw), Ok(replay));
    // Idempotent: the same result again starts nothing more.
    assert_eq!(t.record(g, Outcome::Draw), Ok(Recorded::Already));
    assert_eq!(t.games().len(), 2);
    assert_eq!(t.game(GameNo(1)).unwrap().round, 1);
    assert!(!t.round_complete());
    assert_eq!(
        t.record(GameNo(1), Outcome::Draw),
        Ok(Recorded::Replay { game: GameNo(2), players: [p(0), p(1)] })
    );
    // The third draw in a row sends the higher seed through.
    assert_eq!(t.record(GameNo(2), Outcome::Draw), Ok(Recorded::Stored));
    assert!(t.finished());
    assert_eq!(t.champion(), Some(p(0)));
    assert_eq!(t.round_pairing(1).unwrap().games.len(), 3);

    // A decisive replay decides.
    let mut t = Tournament::new(
        Format::Knockout(tournament_rules::Knockout { draws: DrawRule::Replay }),
        seeded(2),
    )
    .unwrap();
    let pairing = t.pair_round().unwrap();
    let g = t.begin_round(&pairing).unwrap()[0];
    t.record(g, Outcome::Draw).unwrap();
    t.record(GameNo(1), Outcome::Seat0).unwrap();
    assert_eq!(t.champion(), Some(p(1)));

    // Under HigherSeed a draw is enough.
    let mut t = Tournament::new(
        Format::Knockout(tournament_rules::Knockout { draws: DrawRule::HigherSeed }),
        seeded(2),
    )
    .unwrap();
    let pairing = t.pair_round().unwrap();
    let g = t.begin_round(&pairing).unwrap()[0];
    assert_eq!(t.record(g, Outcome::Draw), Ok(Recorded::Stored));
    assert_eq!(t.champion(), Some(p(0)));
}

#[test]
fn knockout_withdrawal_gives_the_opponent_a_bye() {
    let mut t = Tournament::new(
        Format::Knockout(tournament_rules::Knockout { draws: DrawRule::HigherSeed }),
        seeded(4),
    )
    .unwrap();
    let r1 = t.pair_round().unwrap();
    assert_eq!(r1.games, vec![[p(0), p(3)], [p(1), p(2)]]);
    let numbers = t.begin_round(&r1).unwrap();
    // #1 wins, then withdraws before the final; #0's game is still running.
    t.record(numbers[1], Outcome::Seat0).unwrap();
    t.withdraw(p(1)).unwrap();
    assert_eq!(t.pair_round(), Err(Error::RoundIncomplete { round: 1 }));
    t.record(numbers[0], Outcome::Seat0).unwrap();
    let fin = t.pair_round().unwrap();
    assert!(fin.games.is_empty());
    assert_eq!(fin.byes, vec![p(0)]);
    t.begin_round(&fin).unwrap();
    assert!(t.finished());
    assert_eq!(t.champion(), Some(p(0)));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Exactly one champion, n - 1 matches decided by play (one elimination each), and no
    /// replay beyond the rule.
    #[test]
    fn knockout_has_one_champion(n in 2u32..300, replay: bool, seed: u64) {
        let draws = if replay { DrawRule::Replay } else { DrawRule::HigherSeed };
        let (t, report) =
            simulate(Format::Knockout(tournament_rules::Knockout { draws }), seeded(n), seed, |t| t.pair_round()).unwrap();
        prop_assert!(t.finished());
        let champion = t.champion();
        prop_assert!(champion.is_some());
        let top = t.total_rounds() + 1;
        let s = t.standings();
        prop_assert_eq!(Some(s[0].player), champion);
        prop_assert_eq!(s.iter().filter(|s| s.reached_round == top).count(), 1);
        prop_assert_eq!(report.games - report.replays, n - 1);
        if replay {
            prop_assert!(report.replays <= 2 * (n - 1));
        } else {
            prop_assert_eq!(report.replays, 0);
        }
    }
}

// ---- arena ----

#[test]
fn arena_streaks_double_the_points() {
    let mut t =
        Tournament::new(Format::Arena(tournament_rules::Arena { duration_ms: 60_000 }), seeded(6))
            .unwrap();
    // #0 beats #1..#5 in turn, then draws with #1: 2 + 2 + 4 + 4 + 4 + 2 = 18.
    for (i, o) in [
        (1, Outcome::Seat0),
        (2, Outcome::Seat0),
        (3, Outcome::Seat0),
        (4, Outcome::Seat0),
        (5, Outcome::Seat0),
        (1, Outcome::Draw),
    ] {
        let g = t.begin_games(&[[p(0), p(i)]]).unwrap()[0];
        t.record(g, o).unwrap();
    }
    let s = t.standings();
    assert_eq!((s[0].player, s[0].points, s[0].wins, s[0].draws), (p(0), 18, 5, 1));
    // #1: a loss and a draw.
    assert_eq!(s.iter().find(|s| s.player == p(1)).unwrap().points, 1);
}

#[test]
fn arena_pairs_idle_players_at_once() {
    let mut t =
        Tournament::new(Format::Arena(tournament_rules::Arena { duration_ms: 60_000 }), seeded(5))
            .unwrap();
    let everyone: Vec<Player> = (0..5).map(Player).collect();
    assert_eq!(t.pair_round(), Err(Error::WrongFormat));
    // Equal scores: neighbours by seed; #4 waits.
    let first = t.pair_arena(&everyone);
    assert_eq!(first, vec![[p(0), p(1)], [p(2), p(3)]]);
    let games = t.begin_games(&first).unwrap();
    // Busy players are not paired again, nor can they be started.
    assert!(t.pair_arena(&everyone).is_empty());
    assert_eq!(t.begin_games(&[[p(0), p(4)]]), Err(Error::Busy(p(0))));
    t.record(games[0], Outcome::Seat0).unwrap();
    // #0 (2 points) and #1 are idle again, with #4: #0 does not meet #1 again at once.
    let next = t.pair_arena(&[p(1), p(0), p(4), p(0)]);
    assert_eq!(next, vec![[p(4), p(0)]]);
    // #1 alone, or with nobody new: a rematch rather than waiting.
    t.begin_games(&next).unwrap();
    assert!(t.pair_arena(&[p(1)]).is_empty());
    t.record(games[1], Outcome::Seat1).unwrap();
    t.withdraw(p(2)).unwrap();
    assert_eq!(t.pair_arena(&[p(1), p(2), p(3)]), vec![[p(3), p(1)]]);
    t.close();
    assert!(t.pair_arena(&[p(1), p(3)]).is_empty());
    assert_eq!(t.begin_games(&[[p(1), p(3)]]), Err(Error::Finished));
    assert!(!t.finished());
    t.record(GameNo(2), Outcome::Draw).unwrap();
    assert!(t.finished());
}

// ---- operations ----

#[test]
fn new_validates_entrants_and_format() {
    let swiss = Format::Swiss(tournament_rules::Swiss { rounds: 3 });
    assert_eq!(
        Tournament::new(swiss, seeded(1)).err(),
        Some(Error::TooFewEntrants { entrants: 1 })
    );
    let nan = vec![Entrant { rating: Some(1.0) }, Entrant { rating: Some(f64::NAN) }];
    assert_eq!(Tournament::new(swiss, nan).err(), Some(Error::InvalidRating { player: p(1) }));
    assert_eq!(
        Tournament::new(Format::Swiss(tournament_rules::Swiss { rounds: 0 }), seeded(4)).err(),
        Some(Error::ZeroRounds)
    );
    let ko = Format::Knockout(tournament_rules::Knockout { draws: DrawRule::Replay });
    let many = vec![Entrant::default(); tournament_rules::MAX_KNOCKOUT_ENTRANTS + 1];
    assert!(matches!(Tournament::new(ko, many), Err(Error::TooManyEntrants { .. })));
    // Unrated entrants are seeded last, in entry order.
    let mixed = vec![Entrant::default(), Entrant { rating: Some(1200.0) }, Entrant::default()];
    let t = Tournament::new(swiss, mixed).unwrap();
    assert_eq!(t.seed_order(), &[p(1), p(0), p(2)]);
    assert_eq!(t.seed(p(2)), 3);
}

#[test]
fn record_is_idempotent_and_refuses_a_different_result() {
    let mut t =
        Tournament::new(Format::Swiss(tournament_rules::Swiss { rounds: 2 }), seeded(4)).unwrap();
    let pairing = t.pair_round().unwrap();
    let games = t.begin_round(&pairing).unwrap();
    assert_eq!(t.record(games[0], Outcome::Seat0), Ok(Recorded::Stored));
    let before = t.standings();
    assert_eq!(t.record(games[0], Outcome::Seat0), Ok(Recorded::Already));
    assert_eq!(
        t.record(games[0], Outcome::Draw),
        Err(Error::Conflict { game: games[0], recorded: Outcome::Seat0 })
    );
    assert_eq!(t.standings(), before);
    assert_eq!(t.record(GameNo(99), Outcome::Draw), Err(Error::UnknownGame(GameNo(99))));
    assert_eq!(t.pair_round(), Err(Error::RoundIncomplete { round: 1 }));
    assert_eq!(t.begin_round(&pairing), Err(Error::RoundIncomplete { round: 1 }));
}

#[test]
fn begin_round_validates_a_swiss_pairing() {
    let mut t =
        Tournament::new(Format::Swiss(tournament_rules::Swiss { rounds: 3 }), seeded(5)).unwrap();
    let round = |games: Vec<[Player; 2]>, byes: Vec<Player>| RoundPairing { round: 1, games, byes };
    let ok = round(vec![[p(0), p(1)], [p(2), p(3)]], vec![p(4)]);
    assert_eq!(
        t.begin_round(&RoundPairing { round: 2, ..ok.clone() }),
        Err(Error::WrongRound { expected: 1, got: 2 })
    );
    assert_eq!(
        t.begin_round(&round(vec![[p(0), p(1)], [p(2), p(1)]], vec![p(4)])),
        Err(Error::DuplicatePlayer(p(1)))
    );
    assert_eq!(
        t.begin_round(&round(vec![[p(0), p(1)], [p(2), p(7)]], vec![p(4)])),
        Err(Error::UnknownPlayer(p(7)))
    );
    assert_eq!(t.begin_round(&round(vec![[p(0), p(1)]], vec![p(4)])), Err(Error::Unpaired(p(2))));
    assert_eq!(
        t.begin_round(&round(vec![[p(0), p(1)], [p(2), p(3)]], vec![])),
        Err(Error::Unpaired(p(4)))
    );
    assert_eq!(
        t.begin_round(&round(vec![[p(0), p(1)]], vec![p(2), p(3), p(4)])),
        Err(Error::ByeCount { expected: 1, got: 3 })
    );
    // A hand-made pairing that keeps the rules is accepted.
    let games = t.begin_round(&ok).unwrap();
    record_all(&mut t, &games, Outcome::Seat1);
    let r2 = |games: Vec<[Player; 2]>, byes: Vec<Player>| RoundPairing { round: 2, games, byes };
    assert_eq!(
        t.begin_round(&r2(vec![[p(1), p(0)], [p(2), p(4)]], vec![p(3)])),
        Err(Error::Repeat([p(1), p(0)]))
    );
    assert_eq!(
        t.begin_round(&r2(vec![[p(0), p(2)], [p(1), p(3)]], vec![p(4)])),
        Err(Error::SecondBye(p(4)))
    );
    t.withdraw(p(4)).unwrap();
    assert_eq!(
        t.begin_round(&r2(vec![[p(0), p(2)], [p(1), p(4)]], vec![p(3)])),
        Err(Error::WithdrawnPlayer(p(4)))
    );
    // Four active players now: no bye, and the withdrawn player is never paired.
    let next = t.pair_round().unwrap();
    assert!(next.byes.is_empty());
    assert!(!next.games.iter().flatten().any(|&q| q == p(4)));
    t.begin_round(&next).unwrap();
    assert_eq!(t.withdraw(p(9)), Err(Error::UnknownPlayer(p(9))));
}

#[test]
fn every_format_simulates() {
    for format in [
        Format::RoundRobin(tournament_rules::RoundRobin { double: true }),
        Format::Swiss(tournament_rules::Swiss { rounds: 5 }),
        Format::Knockout(tournament_rules::Knockout { draws: DrawRule::Replay }),
        Format::Arena(tournament_rules::Arena { duration_ms: 10 * 60_000 }),
    ] {
        let (t, report) = simulate(format, seeded(13), 3, |t| t.pair_round()).unwrap();
        assert!(t.finished(), "{format:?}");
        assert_eq!(report, audit(&t));
        assert!(report.games > 0);
        assert_eq!(report.double_byes, 0);
        assert!(!t.standings_table().is_empty());
        let whole = t.crosstable();
        assert_eq!(whole.rows.len(), 13);
        // A page of it is the same rows, built alone.
        let lines = t.standings();
        assert_eq!(t.crosstable_rows(&lines[4..9]), whole.rows[4..9], "{format:?}");
        assert!(t.crosstable_rows(&[]).is_empty());
    }
    // The same seed gives the same event.
    let a = simulate(Format::Swiss(tournament_rules::Swiss { rounds: 4 }), seeded(20), 9, |t| {
        t.pair_round()
    })
    .unwrap()
    .0;
    let b = simulate(Format::Swiss(tournament_rules::Swiss { rounds: 4 }), seeded(20), 9, |t| {
        t.pair_round()
    })
    .unwrap()
    .0;
    assert_eq!(a.games(), b.games());
    let mut t =
        Tournament::new(Format::Swiss(tournament_rules::Swiss { rounds: 1 }), seeded(4)).unwrap();
    let pairing = t.pair_round().unwrap();
    play_round(&mut t, &pairing, &mut ChaCha8Rng::seed_from_u64(1)).unwrap();
    assert!(t.finished());
}
