//! Hexspiel bots. `PathBot` is shortest-path aware: it finds each seat's cheapest
//! connection (Dijkstra over the 64 cells: own stones free, an empty cell costs a stone
//! plus its AP, the opponent's stones walls), places stones where they shorten its own
//! connection most and the opponent's least, and bids everything when either seat could
//! connect on its next Hex turn; otherwise it bids by the prize's rank, as in GOPS.

use crate::{Bot, BotRng, Seen};
use rules_core::{CardSet, Seat};
use rules_goofspiel::hexspiel::board::sides;
use rules_goofspiel::hexspiel::{
    Board, CELLS, Cell, CellSet, Costs, Hexspiel, HexspielMove, HexspielView, NEIGHBOURS, Turn,
    prize_ap,
};

/// What a stone counts for in a path's length, besides its AP: with it, a path of fewer
/// stones is preferred to a cheaper one of more stones, up to this many AP.
const STONE: u32 = 100;
const FAR: u32 = u32::MAX / 4;
/// How many empty cells the bot considers placing on in a Hex turn (pairs among them).
const CANDIDATES: usize = 8;

/// Cheapest connections of one seat on one board.
struct Paths {
    /// Weighted length of the cheapest connection (`FAR` if none).
    best: u32,
    /// Empty cells on some cheapest connection.
    on_path: u64,
}

/// Each cell's weight for `own`: 0 for own stones, `STONE` + AP for an empty cell.
#[inline]
fn weight(c: Cell, own: u64, costs: &Costs) -> u32 {
    if own & c.bit() != 0 { 0 } else { STONE + costs.of(c) }
}

/// Distances from side `from` to every cell through cells not in `walls`.
fn spread(from: u64, own: u64, walls: u64, costs: &Costs) -> [u32; CELLS] {
    let mut dist = [FAR; CELLS];
    for c in CellSet(from & !walls).iter() {
        dist[c.index()] = weight(c, own, costs);
    }
    let mut done = walls;
    loop {
        // Dense Dijkstra: 64 nodes, a linear scan for the nearest beats a heap.
        let mut next = None;
        let mut best = FAR;
        for c in CellSet(!done).iter() {
            if dist[c.index()] < best {
                best = dist[c.index()];
                next = Some(c);
            }
        }
        let Some(c) = next else { return dist };
        done |= c.bit();
        for n in CellSet(NEIGHBOURS[c.index()] & !done).iter() {
            let d = best + weight(n, own, costs);
            if d < dist[n.index()] {
                dist[n.index()] = d;
            }
        }
    }
}

fn paths(seat: Seat, own: u64, theirs: u64, costs: &Costs) -> Paths {
    let (a, b) = sides(seat);
    let fwd = spread(a, own, theirs, costs);
    let best = CellSet(b).iter().map(|c| fwd[c.index()]).min().unwrap_or(FAR);
    if best >= FAR {
        return Paths { best: FAR, on_path: 0 };
    }
    let bwd = spread(b, own, theirs, costs);
    let mut on_path = 0;
    for c in CellSet(!(own | theirs)).iter() {
        let i = c.index();
        if fwd[i] < FAR && bwd[i] < FAR && fwd[i] + bwd[i] - weight(c, own, costs) == best {
            on_path |= c.bit();
        }
    }
    Paths { best, on_path }
}

/// Whether a seat whose cheapest connection is `best` could finish it in one Hex turn
/// with `ap` AP: at most two stones, affordable.
fn within_one_turn(best: u32, ap: u32) -> bool {
    best < FAR && best / STONE <= 2 && best % STONE <= ap
}

/// The shortest-path-aware bot.
#[derive(Clone, Copy, Debug, Default)]
pub struct PathBot;

impl PathBot {
    fn bid(
        view: &HexspielView,
        me: Seat,
        legal: &[HexspielMove],
        rng: &mut BotRng,
    ) -> HexspielMove {
        let hand = view.hand.unwrap_or(CardSet::EMPTY);
        let Some(prize) = view.prize else { return legal[0] };
        let stake = prize_ap(prize);
        let (mine, theirs) = (view.board.stones(me).0, view.board.stones(me.other()).0);
        let my = paths(me, mine, theirs, &view.costs);
        let their = paths(me.other(), theirs, mine, &view.costs);
        // Either seat a Hex turn away from connecting: this round decides the match, and
        // a tie denies the turn as well as a win does. One of the top two cards, at
        // random: two copies of this bot would otherwise tie on their highest cards
        // round after round until the set limit.
        let card = if within_one_turn(my.best, view.ap[me] + stake)
            || within_one_turn(their.best, view.ap[me.other()] + stake)
        {
            hand.nth(hand.len().saturating_sub(1 + rng.below(2)))
        } else {
            // Rank of this prize among the set's prizes still to come (by AP, then worth),
            // bid the card of the same rank among my top cards; a coin flip between it
            // and the next keeps the bid from being predictable.
            let mut left = view.prizes_left;
            left.insert(prize);
            let key = |w: u8| prize_ap(w) * 8 + u32::from(w);
            let rank = left.iter().filter(|&w| key(w) < key(prize)).count() as u32;
            let spare = hand.len().saturating_sub(left.len());
            let pick = (spare + rank + rng.below(2)).min(hand.len().saturating_sub(1));
            hand.nth(pick)
        };
        let card = card.map_or(0, i64::from);
        legal.iter().copied().find(|m| *m == HexspielMove::Bid(card)).unwrap_or(legal[0])
    }

    fn hex(view: &HexspielView, me: Seat, legal: &[HexspielMove]) -> HexspielMove {
        let board: &Board = &view.board;
        let (mine, theirs) = (board.stones(me).0, board.stones(me.other()).0);
        let my = paths(me, mine, theirs, &view.costs);
        let their = paths(me.other(), theirs, mine, &view.costs);
        // Candidates: cells on both cheapest connections first, then on mine, then on
        // theirs; cheaper cells first within each group.
        let mut ranked: Vec<Cell> = CellSet(my.on_path | their.on_path).iter().collect();
        ranked.sort_by_key(|&c| {
            let group = match (my.on_path & c.bit() != 0, their.on_path & c.bit() != 0) {
                (true, true) => 0,
                (true, false) => 1,
                _ => 2,
            };
            (group, view.costs.of(c), c.index())
        });
        let candidates = ranked.iter().take(CANDIDATES).fold(0u64, |m, c| m | c.bit());
        let mut best: Option<(i64, HexspielMove)> = None;
        for mv in legal {
            let HexspielMove::Hex { place, pattern } = mv else { continue };
            let mut stones = 0u64;
            let mut cost = 0;
            for c in place.cells().iter().filter_map(|n| n.cell()) {
                stones |= c.bit();
                cost += view.costs.of(c);
            }
            if stones & !candidates != 0 {
                continue;
            }
            let after_mine = mine | stones;
            let me_after = paths(me, after_mine, theirs, &view.costs).best;
            let them_after = paths(me.other(), theirs, after_mine, &view.costs).best;
            let score = if me_after == 0 {
                i64::MAX
            } else {
                i64::from(them_after.min(FAR)) - i64::from(me_after.min(FAR)) - i64::from(cost) / 2
                    + if pattern.is_some() { 50 } else { 0 }
            };
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, *mv));
            }
        }
        // No candidate move is legal (the stockpile rule can forbid small moves): any.
        best.map_or(legal[0], |(_, mv)| mv)
    }
}

impl Bot<Hexspiel> for PathBot {
    fn choose(
        &mut self,
        seen: &Seen<'_, Hexspiel>,
        legal: &[HexspielMove],
        rng: &mut BotRng,
    ) -> HexspielMove {
        let view = seen.view();
        let me = seen.seat();
        match view.to_move {
            Turn::Hex(_) => Self::hex(&view, me, legal),
            _ => Self::bid(&view, me, legal, rng),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_empty_board_needs_eight_rim_stones_or_a_cheaper_mix() {
        let costs = Costs::default();
        let p = paths(Seat::ZERO, 0, 0, &costs);
        // Eight stones from row 1 to row 8; along column a every cell costs 1.
        assert_eq!(p.best, 8 * STONE + 8);
        assert!(p.on_path & Cell::new(0, 3).unwrap().bit() != 0);
        // With a1..a7 placed, a8 alone is missing.
        let own = (0..7).fold(0u64, |m, r| m | Cell::new(0, r).unwrap().bit());
        assert_eq!(paths(Seat::ZERO, own, 0, &costs).best, STONE + 1);
        assert!(within_one_turn(STONE + 1, 1));
        assert!(!within_one_turn(3 * STONE + 3, 50));
    }
}
