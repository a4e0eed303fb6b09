//! The selfplay hot path allocates nothing per move: a counting allocator shows that
//! a thousand random GOPS matches allocate no more than ten do, and the same of Dueling
//! Monsters, random and its strong bot (which reuses its matrix and solver buffers).

// A global allocator can only be written with `unsafe`; it just forwards to the system
// allocator and counts.
#![allow(unsafe_code)]

use bots::dueling_monsters::StrongBot;
use bots::{Bot, RandomBot, selfplay};
use rules_core::Game;
use rules_goofspiel::{DuelingMonsters, DuelingMonstersOptions, Gops, GopsOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

struct Counting;

thread_local! {
    // This thread's allocations only: the test runner's own threads allocate when they
    // please (output, timing), and a busy machine moves that into the measured window.
    // Const-initialised with no destructor, so reading it never allocates.
    static ALLOCATIONS: Cell<u64> = const { Cell::new(0) };
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.with(|a| a.set(a.get() + 1));
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The allocations and moves of `matches` matches of `a` against `b`.
fn allocations_for<G: Game>(
    options: &G::Options,
    matches: u64,
    a: &mut dyn Bot<G>,
    b: &mut dyn Bot<G>,
) -> (u64, u64) {
    let before = ALLOCATIONS.with(Cell::get);
    let tally = selfplay::run::<G, _, _>(options, matches, [3; 32], a, b, 0, &mut |_| {}).unwrap();
    (ALLOCATIONS.with(Cell::get) - before, tally.moves)
}

#[test]
fn random_gops_selfplay_allocates_nothing_per_move() {
    let o = GopsOptions::default();
    let (few, few_moves) = allocations_for::<Gops>(&o, 10, &mut RandomBot, &mut RandomBot);
    let (many, many_moves) = allocations_for::<Gops>(&o, 1000, &mut RandomBot, &mut RandomBot);
    assert_eq!((few_moves, many_moves), (260, 26_000));
    assert_eq!(few, many, "1000 matches allocated {many} times, 10 matches {few} times");
}

#[test]
fn dueling_monsters_selfplay_allocates_nothing_per_move() {
    let o = DuelingMonstersOptions::default();
    let (few, _) = allocations_for::<DuelingMonsters>(&o, 10, &mut RandomBot, &mut RandomBot);
    let (many, moves) =
        allocations_for::<DuelingMonsters>(&o, 1000, &mut RandomBot, &mut RandomBot);
    assert!(moves > 30_000, "{moves} moves");
    assert_eq!(few, many, "random: 1000 matches allocated {many} times, 10 matches {few} times");
    // The strong bot's buffers are sized when it is made, before the count starts.
    let mut strong = StrongBot::new();
    let (few, _) = allocations_for::<DuelingMonsters>(&o, 10, &mut strong, &mut RandomBot);
    let (many, moves) = allocations_for::<DuelingMonsters>(&o, 200, &mut strong, &mut RandomBot);
    assert!(moves > 6_000, "{moves} moves");
    assert_eq!(few, many, "strong: 200 matches allocated {many} times, 10 matches {few} times");
}
