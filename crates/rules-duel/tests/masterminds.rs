//! Masterminds Duel beyond what a conformance summary can show: who sees what (Reveal,
//! outed Bluffs, Warp Time's telling, unannounced effects), the leak tests (resample what
//! a seat cannot see; its view and its events must not change), determinism, deadlines.

use rules_core::testkit::{Observed, assert_same_seen};
use rules_core::{
    Audience, Game, Match, MatchEvent, MatchRng, PerSeat, Seat, Seed, Step, Tagged, Viewer,
};
use rules_duel::masterminds::{CardValues, MastermindsOptions, StrengthsOption};
use rules_duel::{Card, Masterminds, MastermindsEvent, MastermindsMove};
use serde_json::Value;

type Log = Vec<Tagged<MatchEvent<MastermindsEvent>>>;
type M = Match<Masterminds>;

const S0: Seat = Seat::ZERO;
const S1: Seat = Seat::ONE;

fn values(v: [i64; 10]) -> CardValues {
    let [bluff, counterspell, empower, fireball, kill, mayhem, offering, reveal, swap, warp_time] =
        v;
    CardValues {
        bluff,
        counterspell,
        empower,
        fireball,
        kill,
        mayhem,
        offering,
        reveal,
        swap,
        warp_time,
    }
}

fn with_strengths(s0: [i64; 10], s1: [i64; 10]) -> MastermindsOptions {
    MastermindsOptions {
        strengths: Some(StrengthsOption { seat0: values(s0), seat1: values(s1) }),
        ..Default::default()
    }
}

/// Seat 0 B6 C4 E6 F4 K6 M4 O6 R4 S6 W4, seat 1 the opposite (as the shared example).
fn alternate() -> MastermindsOptions {
    MastermindsOptions {
        puzzle_winners: Some((0..10).map(|i| if i % 2 == 0 { S0 } else { S1 }).collect()),
        ..Default::default()
    }
}

fn start(options: &MastermindsOptions) -> (M, Log) {
    let mut log = Vec::new();
    let m = M::new(options, Seed::ZERO, &mut log).expect("valid options");
    (m, log)
}

fn play(c: Card) -> MastermindsMove {
    MastermindsMove::play(c)
}

fn bluff(shown: Card) -> MastermindsMove {
    MastermindsMove::bluff(shown)
}

/// Plays one simultaneous turn, seat 0 first.
fn turn(m: &mut M, log: &mut Log, a: MastermindsMove, b: MastermindsMove) {
    m.submit(S0, &a, log).expect("legal");
    m.submit(S1, &b, log).expect("legal");
}

fn events_since(log: &Log, from: usize) -> Vec<(Audience, MastermindsEvent)> {
    log[from..]
        .iter()
        .filter_map(|t| match &t.event {
            MatchEvent::Game(e) => Some((t.audience, e.clone())),
            _ => None,
        })
        .collect()
}

fn view_json(m: &M, viewer: Viewer) -> Value {
    serde_json::to_value(m.view(viewer).game).expect("views serialize")
}

fn shown_cards(events: &[(Audience, MastermindsEvent)]) -> Vec<PerSeat<Card>> {
    events
        .iter()
        .filter_map(|(_, e)| match e {
            MastermindsEvent::TurnResolved { shown, .. } => Some(*shown),
            _ => None,
        })
        .collect()
}

fn outed(events: &[(Audience, MastermindsEvent)]) -> Vec<(Seat, u8, Option<Card>)> {
    events
        .iter()
        .filter_map(|(_, e)| match e {
            MastermindsEvent::BluffOuted { seat, turn, claimed, .. } => {
                Some((*seat, *turn, *claimed))
            }
            _ => None,
        })
        .collect()
}

fn revealed(events: &[(Audience, MastermindsEvent)]) -> Vec<(u8, PerSeat<u16>)> {
    events
        .iter()
        .filter_map(|(a, e)| match e {
            MastermindsEvent::Revealed { turn, strengths, .. } => {
                assert_eq!(*a, Audience::Public, "a Reveal shows strengths to everyone");
                Some((*turn, *strengths))
            }
            _ => None,
        })
        .collect()
}

// --- Reveal ---

/// "Reveal: After the results of the next turn, reveal the strength of both cards played
/// in that turn."
#[test]
fn reveal_shows_the_next_turns_strengths_after_its_result() {
    let (mut m, mut log) = start(&alternate());
    let from = log.len();
    turn(&mut m, &mut log, play(Card::Reveal), play(Card::Fireball));
    assert!(
        revealed(&events_since(&log, from)).is_empty(),
        "nothing shown on the Reveal's own turn"
    );
    let from = log.len();
    turn(&mut m, &mut log, play(Card::Swap), play(Card::Empower));
    let ev = events_since(&log, from);
    assert_eq!(revealed(&ev), vec![(2, PerSeat([6, 4]))]);
    let resolved = ev.iter().position(|(_, e)| matches!(e, MastermindsEvent::TurnResolved { .. }));
    let shown = ev.iter().position(|(_, e)| matches!(e, MastermindsEvent::Revealed { .. }));
    assert!(resolved < shown, "after the results");
    // Everyone's view keeps the revealed strengths with the turn.
    for v in [Viewer::Spectator, Viewer::Seat(S0), Viewer::Seat(S1)] {
        assert_eq!(view_json(&m, v)["history"][1]["revealed"], serde_json::json!([6, 4]));
        assert_eq!(view_json(&m, v)["history"][0]["revealed"], Value::Null);
    }
    // Only once: turn 3 reveals nothing.
    let from = log.len();
    turn(&mut m, &mut log, play(Card::Kill), play(Card::Kill));
    assert!(revealed(&events_since(&log, from)).is_empty());
}

/// Counterspell cancels a Reveal.
#[test]
fn countered_reveal_shows_nothing() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::Reveal), play(Card::Counterspell));
    let from = log.len();
    turn(&mut m, &mut log, play(Card::Swap), play(Card::Empower));
    assert!(revealed(&events_since(&log, from)).is_empty());
}

/// "Empower, Reveal and Warp Time played on a bout's last turn act on the next bout's
/// first turn" (README), for Reveal.
#[test]
fn reveal_on_a_bouts_last_turn_reveals_the_next_bouts_first() {
    let eq = [5; 10];
    let (mut m, mut log) = start(&with_strengths(eq, eq));
    use Card::*;
    for c in [Counterspell, Empower, Fireball, Kill, Mayhem, Offering, Swap, WarpTime] {
        turn(&mut m, &mut log, play(c), play(c));
    }
    let from = log.len();
    turn(&mut m, &mut log, play(Reveal), play(Reveal));
    assert!(revealed(&events_since(&log, from)).is_empty());
    assert_eq!(
        (m.summary_json()["bout"].clone(), m.summary_json()["turn"].clone()),
        (2.into(), 0.into())
    );
    let from = log.len();
    turn(&mut m, &mut log, play(Offering), play(Kill));
    let ev = events_since(&log, from);
    assert_eq!(revealed(&ev), vec![(1, PerSeat([5, 5]))]);
}

// --- Bluff, and when it is outed (the amendment) ---

/// "If Bluff is played against Counterspell, the matchup is shown as B vs C, regardless of
/// claimed card."
#[test]
fn bluff_against_counterspell_is_shown_as_bluff() {
    let (mut m, mut log) = start(&alternate());
    let from = log.len();
    turn(&mut m, &mut log, bluff(Card::Empower), play(Card::Counterspell));
    let ev = events_since(&log, from);
    assert_eq!(shown_cards(&ev), vec![PerSeat([Card::Bluff, Card::Counterspell])]);
    assert_eq!(outed(&ev), vec![(S0, 1, None)], "the claim is never shown");
    let v = view_json(&m, Viewer::Spectator);
    assert_eq!(v["history"][0]["cards"][0], serde_json::json!({"card": "bluff"}));
}

/// "If Bluff is played as Kill and loses." (and only then, or against an Offering)
#[test]
fn bluff_as_kill_is_outed_when_it_loses_only() {
    // Loses: seat 1's Bluff (4) against seat 0's Empower (6).
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::Empower), bluff(Card::Kill));
    let ev = events_since(&log, 0);
    assert_eq!(shown_cards(&ev), vec![PerSeat([Card::Empower, Card::Bluff])]);
    assert_eq!(outed(&ev), vec![(S1, 1, Some(Card::Kill))]);
    // Ties: seat 1's Bluff (4) against seat 0's Fireball (4): not outed.
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::Fireball), bluff(Card::Kill));
    let ev = events_since(&log, 0);
    assert_eq!(shown_cards(&ev), vec![PerSeat([Card::Fireball, Card::Kill])]);
    assert!(outed(&ev).is_empty());
    // Wins: seat 0's Bluff (6) against seat 1's Empower (4): not outed.
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, bluff(Card::Kill), play(Card::Empower));
    let ev = events_since(&log, 0);
    assert_eq!(shown_cards(&ev), vec![PerSeat([Card::Kill, Card::Empower])]);
    assert!(outed(&ev).is_empty());
    assert_eq!(view_json(&m, Viewer::Seat(S1))["history"][0]["cards"][0]["card"], "kill");
    assert_eq!(
        view_json(&m, Viewer::Seat(S0))["history"][0]["cards"][0],
        serde_json::json!({"card": "bluff", "as": "kill"}),
        "a seat always sees its own Bluff"
    );
}

/// "If Bluff is played as Kill against an Offering, the bout does not end."
#[test]
fn bluff_as_kill_against_offering_is_outed() {
    let (mut m, mut log) = start(&with_strengths([3; 10], [7; 10]));
    turn(&mut m, &mut log, play(Card::Offering), bluff(Card::Kill));
    let ev = events_since(&log, 0);
    // The Bluff (7) won by strength, yet the bout goes on: outed.
    assert_eq!(outed(&ev), vec![(S1, 1, Some(Card::Kill))]);
    assert_eq!(m.summary_json()["bout"], 1);
}

/// "If Bluff is played as Fireball and wins, only 1 point is awarded."
#[test]
fn bluff_as_fireball_is_outed_when_it_wins_only() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, bluff(Card::Fireball), play(Card::Empower));
    assert_eq!(outed(&events_since(&log, 0)), vec![(S0, 1, Some(Card::Fireball))]);
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::Reveal), bluff(Card::Fireball));
    assert!(
        outed(&events_since(&log, 0)).is_empty(),
        "a losing Bluff-Fireball looks like a Fireball"
    );
}

/// "If Bluff is played as Warp Time, it has no effect, revealed instantly."
#[test]
fn bluff_as_warp_time_is_outed_at_once() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::Swap), bluff(Card::WarpTime));
    let ev = events_since(&log, 0);
    assert_eq!(shown_cards(&ev), vec![PerSeat([Card::Swap, Card::Bluff])]);
    assert_eq!(outed(&ev), vec![(S1, 1, Some(Card::WarpTime))]);
    assert_eq!(m.to_move().iter().count(), 2, "no Warp: both commit at once");
}

/// "If Bluff is played as Reveal, it has no effect, revealed next turn."
#[test]
fn bluff_as_reveal_is_outed_after_the_next_turn() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, bluff(Card::Reveal), play(Card::Swap));
    let ev = events_since(&log, 0);
    assert_eq!(shown_cards(&ev), vec![PerSeat([Card::Reveal, Card::Swap])]);
    assert!(outed(&ev).is_empty());
    assert_eq!(view_json(&m, Viewer::Seat(S1))["history"][0]["cards"][0]["card"], "reveal");
    let from = log.len();
    turn(&mut m, &mut log, play(Card::Kill), play(Card::Kill));
    let ev = events_since(&log, from);
    assert!(revealed(&ev).is_empty(), "no effect");
    assert_eq!(outed(&ev), vec![(S0, 1, Some(Card::Reveal))]);
    let resolved = ev.iter().position(|(_, e)| matches!(e, MastermindsEvent::TurnResolved { .. }));
    let out = ev.iter().position(|(_, e)| matches!(e, MastermindsEvent::BluffOuted { .. }));
    assert!(resolved < out, "outed after the next turn's result");
    for v in [Viewer::Spectator, Viewer::Seat(S1)] {
        assert_eq!(
            view_json(&m, v)["history"][0]["cards"][0],
            serde_json::json!({"card": "bluff", "as": "reveal"})
        );
    }
}

/// Outed "exactly in the cases the text lists": a Bluff shown as any other card, in any
/// other case, stays hidden for the whole match.
#[test]
fn other_bluffs_are_never_outed() {
    use Card::*;
    for shown in [Counterspell, Empower, Mayhem, Offering, Swap, Fireball, Kill] {
        // Seat 0's Bluff (4) loses to seat 1's Empower (6): only a Kill claim is outed by that.
        let (mut m, mut log) = start(&with_strengths([4; 10], [6; 10]));
        turn(&mut m, &mut log, bluff(shown), play(Empower));
        for c in [Swap, Reveal, Offering] {
            turn(&mut m, &mut log, play(c), play(c));
        }
        let ev = events_since(&log, 0);
        assert_eq!(outed(&ev).is_empty(), shown != Kill, "shown as {shown}");
        if shown != Kill {
            assert_eq!(
                view_json(&m, Viewer::Spectator)["history"][0]["cards"][0]["card"],
                shown.name()
            );
            assert_eq!(
                view_json(&m, Viewer::Seat(S1))["history"][0]["cards"][0]["card"],
                shown.name()
            );
        }
    }
}

// --- Warp Time ---

/// "the opponent commits first next turn and its shown card is told to the Warp player
/// before it commits" (issue); a Bluff is told as the card it names.
#[test]
fn warp_time_tells_the_warp_seat_the_shown_card() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::WarpTime), play(Card::Reveal));
    assert_eq!(m.to_move().iter().collect::<Vec<_>>(), vec![S1]);
    assert!(m.submit(S0, &play(Card::Kill), &mut log).is_err());
    let from = log.len();
    m.submit(S1, &bluff(Card::Offering), &mut log).expect("legal");
    let told: Vec<_> = events_since(&log, from)
        .into_iter()
        .filter(|(_, e)| matches!(e, MastermindsEvent::Told { .. }))
        .collect();
    assert_eq!(
        told,
        vec![(Audience::Seat(S0), MastermindsEvent::Told { seat: S0, card: Card::Offering })]
    );
    assert_eq!(view_json(&m, Viewer::Seat(S0))["told"], "offering");
    assert_eq!(view_json(&m, Viewer::Seat(S1))["told"], Value::Null);
    assert_eq!(view_json(&m, Viewer::Spectator)["told"], Value::Null);
    assert_eq!(m.to_move().iter().collect::<Vec<_>>(), vec![S0]);
    // Told Offering, seat 0 plays Kill: the Bluff is no Offering, so the bout goes on.
    m.submit(S0, &play(Card::Kill), &mut log).expect("legal");
    assert_eq!(m.summary_json()["bout"], 1);
    assert_eq!(m.summary_json()["points"], serde_json::json!([1, 1]));
}

/// README: "In a turn ordered by Warp Time only the seat that must play first can be
/// late"; once it has played, the Warp seat owes its card and can be late in turn.
#[test]
fn warp_turn_deadlines_take_one_seat_at_a_time() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, play(Card::WarpTime), play(Card::Reveal));
    m.deadline(&mut log).expect("open");
    assert_eq!(m.to_move().iter().collect::<Vec<_>>(), vec![S0], "seat 0 was not late");
    assert!(view_json(&m, Viewer::Seat(S0))["told"].is_string());
    m.deadline(&mut log).expect("open");
    assert_eq!(m.summary_json()["turn"], 2);
    let v = view_json(&m, Viewer::Spectator);
    assert_eq!(v["history"][1]["first"], 1);
}

// --- Information: strengths and unannounced effects ---

/// "Effects of Empower, Mayhem, Offering and Swap are not revealed"; "A seat's own view
/// shows its own current strengths." Strength changes reach their owner only.
#[test]
fn permanent_changes_reach_only_their_owner() {
    let (mut m, mut log) = start(&alternate());
    use Card::*;
    // Turn 1 E 6 / F 6 ties. Turn 2: seat 0's Offering gets +1 (7) and loses to Mayhem
    // (6, the lower wins): +3, 10. Turn 3: seat 0's Swap trades Offering 10 and Empower 6.
    turn(&mut m, &mut log, play(Empower), play(Fireball));
    turn(&mut m, &mut log, play(Offering), play(Mayhem));
    turn(&mut m, &mut log, play(Swap), play(Swap));
    let s0 = m.game().strengths(S0);
    assert_eq!((s0[Empower], s0[Offering]), (10, 6), "O 6+1+3 = 10, swapped with E 6");
    for (aud, e) in events_since(&log, 0) {
        if let MastermindsEvent::Strengths { seat, .. } = e {
            assert_eq!(aud, Audience::Seat(seat), "strengths go to their owner only");
        }
        if aud == Audience::Public {
            assert!(!matches!(
                e,
                MastermindsEvent::Strengths { .. } | MastermindsEvent::Revealed { .. }
            ));
        }
    }
    let mine = view_json(&m, Viewer::Seat(S0));
    assert_eq!(mine["my_strengths"]["offering"], 6);
    assert_eq!(mine["my_strengths"]["empower"], 10);
    assert_eq!(view_json(&m, Viewer::Seat(S1))["my_strengths"]["offering"], 4);
    assert_eq!(view_json(&m, Viewer::Spectator)["my_strengths"], Value::Null);
}

/// Applies a move to both matches (it must be legal in both).
fn both(
    a: &mut Observed<Masterminds>,
    b: &mut Observed<Masterminds>,
    seat: Seat,
    mv: MastermindsMove,
) {
    let step = Step::Move { seat, mv };
    a.step(&step).expect("legal in a");
    b.step(&step).expect("legal in b");
}

/// Leak test (rules-core testkit), strengths and permanent changes: seat 1's strengths
/// are resampled, all far above seat 0's whatever Empower and Offering add, so every
/// result is the same; seat 0 and spectators must receive exactly the same (events, views,
/// refusals) whatever the cards played, Empower, Offering, Swap and Mayhem included, as
/// long as no Reveal shows strengths.
#[test]
fn leak_test_strengths_and_permanent_changes() {
    for k in 0..15u8 {
        let mut driver = Seed::from_array([k; 32]).rng();
        let s1a: [i64; 10] = std::array::from_fn(|_| 100 + i64::from(driver.below(4)));
        let s1b: [i64; 10] = std::array::from_fn(|_| 100 + i64::from(driver.below(4)));
        let mut a =
            Observed::<Masterminds>::new(&with_strengths([1; 10], s1a), Seed::ZERO).unwrap();
        let mut b =
            Observed::<Masterminds>::new(&with_strengths([1; 10], s1b), Seed::ZERO).unwrap();
        let mut legal = Vec::new();
        while !a.m.is_over() {
            let seat = a.m.to_move().iter().next().expect("someone owes a move");
            legal.clear();
            a.m.legal_moves(seat, &mut legal);
            legal.retain(|mv| mv.card != Card::Reveal);
            both(&mut a, &mut b, seat, legal[driver.below(legal.len() as u32) as usize]);
        }
        assert_ne!(a.m.game().strengths(S1), b.m.game().strengths(S1), "resampled");
        for v in [Viewer::Seat(S0), Viewer::Spectator] {
            assert_same_seen(&a, &b, v, &format!("match {k}"));
        }
    }
}

/// Leak test, sealed cards: what seat 1 committed (and as what a Bluff is shown) is
/// invisible to seat 0 and spectators until the turn resolves.
#[test]
fn leak_test_sealed_card() {
    let mut legal = Vec::new();
    let reference = Observed::<Masterminds>::new(&alternate(), Seed::ZERO).unwrap();
    reference.m.legal_moves(S1, &mut legal);
    let mut first: Option<Observed<Masterminds>> = None;
    for &mv in &legal {
        let mut o = Observed::<Masterminds>::new(&alternate(), Seed::ZERO).unwrap();
        o.step(&Step::Move { seat: S1, mv }).expect("legal");
        let mine = view_json(&o.m, Viewer::Seat(S1));
        assert_eq!(
            serde_json::from_value::<MastermindsMove>(mine["my_move"].clone()).ok(),
            Some(mv)
        );
        match &first {
            None => first = Some(o),
            Some(f) => {
                for v in [Viewer::Seat(S0), Viewer::Spectator] {
                    assert_same_seen(f, &o, v, &format!("seat 1 committed {mv:?}"));
                }
            }
        }
    }
}

/// Leak test, the true card behind a Bluff: a Bluff shown as X looks, to the other seat
/// and to spectators, exactly like a real X with the same result, until it is outed: for
/// every X that is not outed at once, through the turn after (a Reveal-claim is outed
/// after that turn's result, so it is compared up to it).
#[test]
fn leak_test_bluff_truth() {
    use Card::*;
    // Seat 1 strong (9), seat 0 weak (1): seat 1 wins every turn that has no Mayhem, with
    // or without its card's effect, so only the hidden truth differs.
    for x in [Counterspell, Empower, Kill, Offering, Reveal, Swap] {
        let opts = with_strengths([1; 10], [9; 10]);
        let mut a = Observed::<Masterminds>::new(&opts, Seed::ZERO).unwrap();
        let mut b = Observed::<Masterminds>::new(&opts, Seed::ZERO).unwrap();
        // Turns 1-2, so that a Swap on turn 3 has two cards to swap; seat 1's Warp Time
        // makes seat 0 commit first in turn 3.
        for (c0, c1) in [(Fireball, Fireball), (Mayhem, WarpTime)] {
            both(&mut a, &mut b, S0, play(c0));
            both(&mut a, &mut b, S1, play(c1));
        }
        both(&mut a, &mut b, S0, play(Swap));
        a.step(&Step::Move { seat: S1, mv: play(x) }).expect("legal");
        b.step(&Step::Move { seat: S1, mv: bluff(x) }).expect("legal");
        if x != Reveal {
            // Turn 4: seat 1's next card (Empower's +1 in a, none in b) still wins.
            both(&mut a, &mut b, S0, play(Empower));
            both(&mut a, &mut b, S1, play(Reveal));
        }
        for v in [Viewer::Seat(S0), Viewer::Spectator] {
            assert_same_seen(&a, &b, v, &format!("a real {x} against a Bluff shown as {x}"));
        }
    }
}

// --- Moves, deadlines, determinism ---

/// A refused move changes nothing and emits nothing; its message names only the mover's
/// own card.
#[test]
fn refused_moves_leave_the_state_untouched() {
    let (mut m, mut log) = start(&alternate());
    turn(&mut m, &mut log, bluff(Card::Kill), play(Card::Fireball));
    let before = (m.summary_json(), view_json(&m, Viewer::Seat(S0)), log.len());
    let err = m.submit(S0, &bluff(Card::Swap), &mut log).expect_err("spent");
    assert_eq!(err.to_string(), "you already played your bluff this bout");
    let err = m.submit(S1, &bluff(Card::Bluff), &mut log).expect_err("bluff as bluff");
    assert_eq!(err.to_string(), "a bluff must be shown as some other card than bluff");
    assert_eq!(before, (m.summary_json(), view_json(&m, Viewer::Seat(S0)), log.len()));
}

/// Moves parse in the README's shape only.
#[test]
fn move_shapes() {
    let ok = |s: &str| serde_json::from_str::<MastermindsMove>(s).is_ok();
    assert!(ok(r#"{"card": "kill"}"#));
    assert!(ok(r#"{"card": "bluff", "as": "warp_time"}"#));
    assert!(ok(r#"{"card": "bluff", "as": "bluff"}"#), "shape ok, rules refuse it");
    assert!(!ok(r#"{"card": "bluff"}"#));
    assert!(!ok(r#"{"card": "kill", "as": "swap"}"#));
    assert!(!ok(r#"{"card": "kill", "x": 1}"#));
    assert!(!ok(r#"{"card": "Kill"}"#));
    assert!(!ok(r#"{"card": 4}"#));
    assert_eq!(
        serde_json::to_string(&bluff(Card::WarpTime)).unwrap(),
        r#"{"card":"bluff","as":"warp_time"}"#
    );
    assert_eq!(serde_json::to_string(&play(Card::Kill)).unwrap(), r#"{"card":"kill"}"#);
}

fn deadline_match(seed: Seed, options: &MastermindsOptions) -> (M, Log) {
    let mut log = Vec::new();
    let mut m = M::new(options, seed, &mut log).expect("valid");
    let mut steps = 0;
    while !m.is_over() {
        m.deadline(&mut log).expect("open");
        steps += 1;
        assert!(steps <= 2 * 63, "a match of deadlines ends");
    }
    (m, log)
}

/// Deadlines alone play whole matches: every missed turn plays a card of the late seat's
/// hand (a Bluff naming another card), and the same seed gives the same match.
#[test]
fn deadlines_play_random_cards_deterministically() {
    let mut bluffs = 0;
    for k in 0..40u8 {
        let seed = Seed::from_array([k; 32]);
        let (a, log_a) = deadline_match(seed, &MastermindsOptions::default());
        let (_, log_b) = deadline_match(seed, &MastermindsOptions::default());
        let json = |l: &Log| serde_json::to_string(l).expect("serializes");
        assert_eq!(json(&log_a), json(&log_b), "same seed, same events byte for byte");
        for (_, e) in events_since(&log_a, 0) {
            if let MastermindsEvent::MoveSealed { card: Card::Bluff, shown, .. } = e {
                bluffs += 1;
                assert!(shown.is_some_and(|c| c != Card::Bluff));
            }
        }
        assert!(a.outcome().is_some());
    }
    assert!(bluffs > 0);
}

/// Default strengths: each card is 6 for the seat that won its puzzle (from the seed) and
/// 4 for the other; different seeds give different winners.
#[test]
fn default_strengths_are_six_and_four_from_the_seed() {
    let mut distinct = std::collections::BTreeSet::new();
    for k in 0..20u8 {
        let mut log = Vec::new();
        let m =
            M::new(&MastermindsOptions::default(), Seed::from_array([k; 32]), &mut log).unwrap();
        let (a, b) = (m.game().strengths(S0), m.game().strengths(S1));
        for c in Card::ALL {
            assert!(matches!((a[c], b[c]), (6, 4) | (4, 6)));
        }
        distinct.insert(a.0);
    }
    assert!(distinct.len() > 1);
}

/// Random legal play always finishes within 7 bouts, and the winner follows the bout wins.
#[test]
fn random_matches_finish() {
    let mut legal = Vec::new();
    for k in 0..100u8 {
        let mut driver: MatchRng = Seed::from_array([k.wrapping_add(100); 32]).rng();
        let (mut m, mut log) = start(&MastermindsOptions::default());
        while !m.is_over() {
            let seat = m.to_move().iter().next().expect("a seat owes");
            legal.clear();
            m.legal_moves(seat, &mut legal);
            let mv = legal[driver.below(legal.len() as u32) as usize];
            m.submit(seat, &mv, &mut log).expect("legal moves are legal");
        }
        let s = m.summary_json();
        let wins: Vec<u64> =
            s["bout_wins"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        let w = m.outcome().unwrap().winner.unwrap();
        assert!(s["bout"].as_u64().unwrap() <= 7);
        assert!(wins[w.index()] >= wins[w.other().index()]);
        assert!(wins[0] == 4 || wins[1] == 4 || s["bout"] == 7);
    }
}

trait SummaryJson {
    fn summary_json(&self) -> Value;
}

impl SummaryJson for M {
    fn summary_json(&self) -> Value {
        serde_json::to_value(self.summary()).expect("serializes")
    }
}

#[test]
fn game_facts() {
    assert_eq!(Masterminds::NAME, "masterminds");
    const { assert!(Masterminds::SIMULTANEOUS && Masterminds::HIDDEN_INFORMATION) };
}
