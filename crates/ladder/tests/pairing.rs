//! Properties of the pairing pass on random queues, and its agreement with a brute-force O(n²)
//! transcription of the rule it documents.

use ladder::{Candidate, SCHEDULE, acceptable, gap, pass};
use proptest::prelude::*;
use std::cmp::Reverse;
use std::collections::BTreeSet;

type Cand = Candidate<u32>;

/// The documented rule, literally: turns by (longest wait, smaller id); each free ticket takes
/// the free acceptable ticket nearest in rating, ties to the earlier turn.
fn brute_force(cands: &[Cand], now: u64) -> Vec<(u32, u32)> {
    let mut turns: Vec<&Cand> = cands.iter().filter(|c| c.rating.is_finite()).collect();
    turns.sort_by_key(|c| (Reverse(c.waited_ms(now)), c.id));
    let mut free = vec![true; turns.len()];
    let mut pairs = Vec::new();
    for i in 0..turns.len() {
        if !free[i] {
            continue;
        }
        free[i] = false;
        let mut best: Option<(f64, usize)> = None;
        for j in 0..turns.len() {
            if free[j] && acceptable(turns[i], turns[j], now) {
                let d = (turns[i].rating - turns[j].rating).abs();
                if best.is_none_or(|(bd, _)| d < bd) {
                    best = Some((d, j));
                }
            }
        }
        if let Some((_, j)) = best {
            free[j] = false;
            pairs.push((turns[i].id, turns[j].id));
        }
    }
    pairs
}

const NOW: u64 = 1_000_000;

fn a_rating() -> impl Strategy<Value = f64> {
    prop_oneof![
        // Few distinct values: many ties in rating and in distance.
        4 => (0u32..40).prop_map(|x| 1300.0 + 25.0 * f64::from(x)),
        4 => 800.0..2400.0f64,
        1 => Just(f64::NAN),
        1 => Just(f64::INFINITY),
        1 => Just(-0.0),
        1 => Just(0.0),
    ]
}

fn a_since() -> impl Strategy<Value = u64> {
    prop_oneof![
        // Right at the schedule's boundaries, where the gaps change.
        3 => proptest::sample::select(SCHEDULE.iter().map(|&(from, _)| NOW - from).collect::<Vec<_>>()),
        6 => (NOW - 400_000)..=NOW,
        1 => NOW..NOW + 10_000,
    ]
}

/// A queue of up to `max` tickets with unique ids, few players (so some share one), varied
/// ratings and waits.
fn a_queue(max: usize) -> impl Strategy<Value = Vec<Cand>> {
    proptest::collection::vec((0u128..12, a_rating(), a_since()), 0..=max).prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .map(|(i, (player, rating, since_ms))| Candidate {
                id: u32::try_from(i).unwrap() * 7 % 1009,
                player,
                rating,
                since_ms,
            })
            .collect()
    })
}

fn a_shuffled_queue(max: usize) -> impl Strategy<Value = (Vec<Cand>, Vec<Cand>)> {
    a_queue(max).prop_flat_map(|q| (Just(q.clone()), Just(q).prop_shuffle()))
}

fn find(cands: &[Cand], id: u32) -> &Cand {
    cands.iter().find(|c| c.id == id).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn gap_never_shrinks(a in any::<u64>(), b in any::<u64>(), small in 0u64..400_000) {
        let (lo, hi) = if a <= b { (a, b) } else { (b, a) };
        prop_assert!(gap(lo) <= gap(hi));
        prop_assert!(gap(small) <= gap(small + 1));
    }

    #[test]
    fn pass_follows_the_rule((queue, shuffled) in a_shuffled_queue(60)) {
        let pairs = pass(&queue, NOW);
        prop_assert_eq!(&pairs, &brute_force(&queue, NOW));
        // The same output from any input order.
        prop_assert_eq!(&pairs, &pass(&shuffled, NOW));

        let mut seen = BTreeSet::new();
        for &(a, b) in &pairs {
            // Nobody in two pairs.
            prop_assert!(seen.insert(a) && seen.insert(b));
            let (ca, cb) = (find(&queue, a), find(&queue, b));
            // Different players, within both gaps.
            prop_assert_ne!(ca.player, cb.player);
            let diff = (ca.rating - cb.rating).abs();
            prop_assert!(diff <= gap(ca.waited_ms(NOW)) && diff <= gap(cb.waited_ms(NOW)));
            // The longer-waiting first (ties: the smaller id).
            prop_assert!((Reverse(ca.waited_ms(NOW)), ca.id) < (Reverse(cb.waited_ms(NOW)), cb.id));
        }
        // Maximal: no two tickets left over are acceptable to each other.
        let left: Vec<&Cand> = queue.iter().filter(|c| !seen.contains(&c.id)).collect();
        for (i, a) in left.iter().enumerate() {
            for b in &left[i + 1..] {
                prop_assert!(!acceptable(a, b, NOW), "{a:?} and {b:?} both left over");
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    /// Larger queues, where the trees are several levels deep.
    #[test]
    fn pass_follows_the_rule_on_larger_queues(queue in a_queue(600)) {
        prop_assert_eq!(pass(&queue, NOW), brute_force(&queue, NOW));
    }
}

/// One player holding most of the tickets must neither slow the pass down nor be paired with
/// themself; the few other players still find partners among them.
#[test]
fn one_player_with_many_tickets() {
    let mut queue: Vec<Cand> = (0..2_000)
        .map(|i| Candidate { id: i, player: 1, rating: 1500.0 + f64::from(i % 50), since_ms: 0 })
        .collect();
    queue.extend((0..10).map(|i| Candidate {
        id: 10_000 + i,
        player: 2 + u128::from(i),
        rating: 1520.0,
        since_ms: 0,
    }));
    let pairs = pass(&queue, 1_000);
    assert_eq!(pairs.len(), 10);
    assert_eq!(pairs, brute_force(&queue, 1_000));
}
