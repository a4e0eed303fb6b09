//! The selfplay hot path allocates nothing per move: a counting allocator shows that
//! a thousand random GOPS matches allocate no more than ten do.

// A global allocator can only be written with `unsafe`; it just forwards to the system
// allocator and counts.
#![allow(unsafe_code)]

use bots::{RandomBot, selfplay};
use rules_goofspiel::{Gops, GopsOptions};
use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicU64, Ordering};

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

fn allocations_for(matches: u64) -> (u64, u64) {
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let tally = selfplay::run::<Gops>(
        &GopsOptions::default(),
        matches,
        [3; 32],
        &mut RandomBot,
        &mut RandomBot,
        0,
        &mut |_| {},
    )
    .unwrap();
    (ALLOCATIONS.load(Ordering::Relaxed) - before, tally.moves)
}

#[test]
fn random_gops_selfplay_allocates_nothing_per_move() {
    let (few, few_moves) = allocations_for(10);
    let (many, many_moves) = allocations_for(1000);
    assert_eq!((few_moves, many_moves), (260, 26_000));
    assert_eq!(few, many, "1000 matches allocated {many} times, 10 matches {few} times");
}
