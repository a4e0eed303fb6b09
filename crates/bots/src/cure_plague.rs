//! Cure & Plague bots: `GreedyBot` plays the tile with the best immediate score for its
//! role (the survivors if the game ended after this tile), from its seat's view only.

use crate::{Bot, BotRng, Seen};
use rules_placement::board::{Board, Score};
use rules_placement::{CurePlague, CurePlagueMove};

/// The best immediate score for its role: Cure maximizes survivors, then neutralized
/// plague cells (its tiebreaker); Plague minimizes both. Ties prefer keeping items, then
/// a random pick.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreedyBot;

impl Bot<CurePlague> for GreedyBot {
    fn choose(
        &mut self,
        seen: &Seen<'_, CurePlague>,
        legal: &[CurePlagueMove],
        rng: &mut BotRng,
    ) -> CurePlagueMove {
        let view = seen.view();
        let Some((start, rest)) = view.tiles.split_first() else { return legal[0] };
        let mut board = Board::new(*start);
        for t in rest {
            board.place(*t);
        }
        // The tile's owner is the role that profits (after a lapsed Force Rush the bot
        // places its opponent's tile, and still plays for its own role).
        let sign = if view.cure == seen.seat() { 1 } else { -1 };
        let value = |s: Score| (sign * s.survivors as i64, sign * s.neutralized as i64);
        let mut best = None;
        let mut ties = 0;
        let mut pick = legal[0];
        for mv in legal {
            let tile = mv.tile();
            let before = board.score_near(&tile);
            board.place(tile);
            let after = board.score_near(&tile);
            board.undo();
            let (a, b) = (value(after), value(before));
            let key = (a.0 - b.0, a.1 - b.1, i64::from(mv.item.is_none()));
            match best {
                Some(k) if key < k => {}
                Some(k) if key == k => {
                    ties += 1;
                    if rng.below(ties) == 0 {
                        pick = *mv;
                    }
                }
                _ => {
                    best = Some(key);
                    ties = 1;
                    pick = *mv;
                }
            }
        }
        pick
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::RandomBot;
    use rules_core::{Discard, Match, Seed};
    use rules_placement::cure_plague::ItemsBySeat;
    use rules_placement::{CurePlagueOptions, Item};

    /// The role's value of the whole board after `mv`, by a full recount.
    fn full(m: &Match<CurePlague>, mv: &CurePlagueMove, sign: i64) -> (i64, i64) {
        let mut b = m.game().board().clone();
        b.place(mv.tile());
        let s = b.score();
        (sign * s.survivors as i64, sign * s.neutralized as i64)
    }

    #[test]
    fn greedy_reaches_the_best_immediate_score_for_its_role() {
        let all = vec![Item::Permute, Item::Transform, Item::ForceRush];
        let o = CurePlagueOptions {
            items: ItemsBySeat { seat0: all.clone(), seat1: all },
            ..CurePlagueOptions::default()
        };
        let mut rng = BotRng::from_seed([5; 32]);
        let mut legal = Vec::new();
        for game in 0..3u8 {
            let mut m = Match::<CurePlague>::new(&o, Seed::from_array([game; 32]), &mut Discard)
                .expect("default options are valid");
            while !m.is_over() {
                let seat = m.to_move().iter().next().expect("someone owes a move");
                legal.clear();
                m.legal_moves(seat, &mut legal);
                let seen = Seen::new(m.game(), seat);
                let sign = if m.game().cure() == seat { 1 } else { -1 };
                let pick = GreedyBot.choose(&seen, &legal, &mut rng);
                let best = legal.iter().map(|mv| full(&m, mv, sign)).max().expect("moves");
                assert_eq!(full(&m, &pick, sign), best);
                // Random moves between greedy checks keep the positions varied.
                let mv = if rng.below(2) == 0 {
                    pick
                } else {
                    RandomBot.choose(&seen, &legal, &mut rng)
                };
                m.submit(seat, &mv, &mut Discard).expect("legal");
            }
        }
    }
}
