//! The selfplay hot path allocates nothing per move: a counting allocator shows that
//! a thousand random GOPS matches allocate no more than ten do.

// A global allocator can only be written with `unsafe`; it just forwards to the system
// allocator and counts.
#![allow(unsafe_code)]

use bots::{RandomBot, selfplay};
use rules_goofspiel::{Gops, GopsOptions};
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

fn allocations_for(matches: u64) -> (u64, u64) {
    let before = ALLOCATIONS.with(Cell::get);
    let tally = selfplay::run::<Gops, _, _>(
        &GopsOptions::default(),
        matches,
        [3; 32],
        &mut RandomBot,
        &mut RandomBot,
        0,
        &mut |_| {},
    )
    .unwrap();
    (ALLOCATIONS.with(Cell::get) - before, tally.moves)
}

#[test]
fn random_gops_selfplay_allocates_nothing_per_move() {
    let (few, few_moves) = allocations_for(10);
    let (many, many_moves) = allocations_for(1000);
    assert_eq!((few_moves, many_moves), (260, 26_000));
    assert_eq!(few, many, "1000 matches allocated {many} times, 10 matches {few} times");
}
