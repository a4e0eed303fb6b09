//! Bot against bot, many matches in a row. The hot loop reuses its buffers and discards
//! events, so a move allocates nothing. Seats alternate: bot A sits at seat 0 in even
//! matches and seat 1 in odd ones. Timing is the caller's (rules crates read no clock).

use crate::{Bot, BotRng, Seen};
use rules_core::{Discard, Game, Match, Seat, Seed};
use serde::Serialize;

/// What a selfplay run counted.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Tally {
    /// Matches played.
    pub matches: u64,
    /// Moves submitted (deadline steps not counted).
    pub moves: u64,
    /// Matches won by bot A and by bot B.
    pub wins: [u64; 2],
    /// Matches without a winner.
    pub draws: u64,
}

/// Plays `matches` matches of `G` between bots `a` and `b`. Match seeds come from `seed`;
/// `progress` is called every `every` matches with the tally so far. Generic over the
/// bots so a caller that knows them (random against random) gets their moves inlined;
/// `dyn Bot` works too.
///
/// # Errors
/// The options are invalid.
pub fn run<G: Game, A: Bot<G> + ?Sized, B: Bot<G> + ?Sized>(
    options: &G::Options,
    matches: u64,
    seed: [u8; 32],
    a: &mut A,
    b: &mut B,
    every: u64,
    progress: &mut dyn FnMut(&Tally),
) -> Result<Tally, rules_core::OptionsError> {
    let mut master = BotRng::from_seed(seed);
    let mut rng = BotRng::from_seed(master.bytes32());
    let mut legal = Vec::with_capacity(64);
    let mut t = Tally::default();
    for i in 0..matches {
        let a_seat = if i % 2 == 0 { Seat::ZERO } else { Seat::ONE };
        let mut m = Match::<G>::new(options, Seed::from_array(master.bytes32()), &mut Discard)?;
        t.moves += play_out(&mut m, a_seat, a, b, &mut rng, &mut legal);
        t.matches += 1;
        match m.outcome().and_then(|o| o.winner) {
            Some(w) if w == a_seat => t.wins[0] += 1,
            Some(_) => t.wins[1] += 1,
            None => t.draws += 1,
        }
        if every > 0 && t.matches % every == 0 {
            progress(&t);
        }
    }
    Ok(t)
}

/// Plays one match to its end; returns the moves made. When nobody owes a move but the
/// match goes on (a round that only its deadline resolves), or no owing seat has a legal
/// move, the deadline passes.
pub fn play_out<G: Game, A: Bot<G> + ?Sized, B: Bot<G> + ?Sized>(
    m: &mut Match<G>,
    a_seat: Seat,
    a: &mut A,
    b: &mut B,
    rng: &mut BotRng,
    legal: &mut Vec<G::Move>,
) -> u64 {
    let mut moves = 0;
    while !m.is_over() {
        let to_move = m.to_move();
        if to_move.is_empty() {
            m.deadline(&mut Discard).expect("the match is not over");
            continue;
        }
        let mut moved = false;
        for seat in to_move.iter() {
            legal.clear();
            m.legal_moves(seat, legal);
            if legal.is_empty() {
                continue;
            }
            moved = true;
            let seen = Seen::new(m.game(), seat);
            let mv = if seat == a_seat {
                a.choose(&seen, legal, rng)
            } else {
                b.choose(&seen, legal, rng)
            };
            m.submit(seat, &mv, &mut Discard).expect("bots play legal moves");
            moves += 1;
            if m.is_over() {
                break;
            }
        }
        if !moved {
            // A seat owes a move but has none it may make (possible under unusual
            // options): only its deadline can move the match on.
            m.deadline(&mut Discard).expect("the match is not over");
        }
    }
    moves
}
