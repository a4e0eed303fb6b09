//! Masterminds Duel bots. `HeuristicBot` weighs each card it holds against the cards the
//! other seat may still hold (uniformly, or the one it was told under Warp Time), using
//! the rules' own `clash` with estimated strengths, plus small bonuses for effects that
//! pay off later. It reads only its seat's view.

use crate::{Bot, BotRng, Seen};
use rules_core::{PerSeat, Seat};
use rules_duel::cards::{Play, Strength, Strengths, clash};
use rules_duel::masterminds::{BOUTS, MastermindsView, TURNS};
use rules_duel::{Card, Masterminds, MastermindsMove};

/// What a bout is worth against a turn's point, when a Kill decides it outright.
const BOUT_VALUE: f64 = 5.0;

/// Plays the card with the best expected turn result against the other seat's possible
/// cards, with estimated strengths: revealed ones when a Reveal showed them, else the
/// puzzle rule's complement of its own starting strength (6 against 4), else 5.
#[derive(Clone, Debug, Default)]
pub struct HeuristicBot {
    /// Its own strengths at the start of the match (to guess the other seat's).
    start: Option<Strengths>,
}

impl HeuristicBot {
    /// A new bot.
    pub fn new() -> Self {
        Self::default()
    }

    fn estimate(&self, v: &MastermindsView, me: Seat, card: Card) -> f64 {
        let them = me.other();
        // The latest Reveal of a card shown by the other seat.
        let revealed = v.history.iter().rev().find_map(|t| {
            let r = t.revealed?;
            (t.cards[them].card == card).then_some(f64::from(r[them]))
        });
        revealed.unwrap_or_else(|| match self.start {
            Some(s) if matches!(s[card], 4 | 6) => f64::from(10 - s[card]),
            _ => 5.0,
        })
    }
}

/// The other seat's cards not yet shown this bout (a hidden Bluff is not seen through).
fn their_hand(v: &MastermindsView, them: Seat) -> Vec<Card> {
    let mut left: Vec<Card> = Card::ALL.to_vec();
    for t in v.history.iter().filter(|t| t.bout == v.bout) {
        let c = t.cards[them].card;
        left.retain(|&x| x != c);
    }
    left
}

/// Whether `seat`'s last card was an Empower that was not met by a Counterspell.
fn empowered(v: &MastermindsView, seat: Seat) -> bool {
    v.history.last().is_some_and(|t| {
        t.cards[seat].card == Card::Empower && t.cards[seat.other()].card != Card::Counterspell
    })
}

impl Bot<Masterminds> for HeuristicBot {
    fn choose(
        &mut self,
        seen: &Seen<'_, Masterminds>,
        legal: &[MastermindsMove],
        _rng: &mut BotRng,
    ) -> MastermindsMove {
        let v = seen.view();
        let me = seen.seat();
        let them = me.other();
        let Some(mine) = v.my_strengths else { return legal[0] };
        if v.history.is_empty() {
            self.start = Some(mine);
        }
        let theirs: Vec<Card> = match v.told {
            Some(c) => vec![c],
            None => their_hand(&v, them),
        };
        let my_bonus = Strength::from(empowered(&v, me));
        let their_bonus = if empowered(&v, them) { 1.0 } else { 0.0 };
        let last_turn_of_match = v.bout == BOUTS && v.turn + 1 == TURNS;
        let mut best = (f64::NEG_INFINITY, legal[0]);
        for &mv in legal {
            let play = Play { card: mv.card, shown: mv.shown.unwrap_or(mv.card) };
            // A Bluff's claim only changes what is shown; claim Empower, which is never outed.
            if play.is_bluff() && play.shown != Card::Empower {
                continue;
            }
            let my_strength = mine[mv.card] + my_bonus;
            let mut total = 0.0;
            for &card in &theirs {
                let est = self.estimate(&v, me, card) + their_bonus;
                // Strengths are compared as integers; round the estimate.
                let their_strength = est.round().max(0.0) as Strength;
                let plays = if me == Seat::ZERO {
                    PerSeat([play, Play::plain(card)])
                } else {
                    PerSeat([Play::plain(card), play])
                };
                let strengths = if me == Seat::ZERO {
                    PerSeat([my_strength, their_strength])
                } else {
                    PerSeat([their_strength, my_strength])
                };
                let c = clash(plays, strengths);
                let mut value = match c.winner {
                    Some(w) if w == me => f64::from(c.points),
                    Some(_) => -f64::from(c.points),
                    None => 0.0,
                };
                match c.bout_to {
                    Some(w) if w == me => value += BOUT_VALUE,
                    Some(_) => value -= BOUT_VALUE,
                    None => {}
                }
                if c.effective[me] && !last_turn_of_match {
                    value += match mv.card {
                        Card::WarpTime => 0.6,
                        Card::Empower => 0.4,
                        Card::Reveal => 0.1,
                        _ => 0.0,
                    };
                }
                if c.offering_gains[me] {
                    value += 0.5;
                }
                total += value;
            }
            let value = total / theirs.len() as f64;
            if value > best.0 {
                best = (value, mv);
            }
        }
        best.1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{RandomBot, selfplay};
    use rules_duel::MastermindsOptions;

    #[test]
    fn heuristic_beats_random() {
        let mut a = HeuristicBot::new();
        let mut b = RandomBot;
        let t = selfplay::run::<Masterminds, _, _>(
            &MastermindsOptions::default(),
            60,
            [7; 32],
            &mut a,
            &mut b,
            0,
            &mut |_| {},
        )
        .expect("default options are valid");
        assert_eq!(t.matches, 60);
        assert!(t.wins[0] > 40, "heuristic won only {} of 60", t.wins[0]);
    }

    #[test]
    fn told_offering_plays_kill() {
        // Under Warp Time, told an Offering, the bot takes the bout with its Kill.
        use rules_core::{Discard, Match, Seed};
        let mut m =
            Match::<Masterminds>::new(&MastermindsOptions::default(), Seed::ZERO, &mut Discard)
                .expect("valid");
        m.submit(Seat::ZERO, &MastermindsMove::play(Card::WarpTime), &mut Discard).unwrap();
        m.submit(Seat::ONE, &MastermindsMove::play(Card::Swap), &mut Discard).unwrap();
        m.submit(Seat::ONE, &MastermindsMove::play(Card::Offering), &mut Discard).unwrap();
        let mut legal = Vec::new();
        m.legal_moves(Seat::ZERO, &mut legal);
        let mut bot = HeuristicBot::new();
        let mv =
            bot.choose(&Seen::new(m.game(), Seat::ZERO), &legal, &mut BotRng::from_seed([0; 32]));
        assert_eq!(mv, MastermindsMove::play(Card::Kill));
    }
}
