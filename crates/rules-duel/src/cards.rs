//! The ten Masterminds Duel cards and what happens when two of them meet: a pure
//! function from the two cards played (and their strengths) to the turn's result, used
//! by the engine to resolve a turn and by bots to weigh a move.

use rules_core::{CardSet, PerSeat, Seat};
use serde::de::{self, MapAccess, Visitor};
use serde::ser::SerializeMap;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cmp::Ordering;
use std::fmt;
use std::ops::{Index, IndexMut};

/// A card; every seat holds one of each. Written in snake case (`warp_time`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Card {
    /// Shown as a card it names; no effect, its own strength.
    Bluff,
    /// Cancels the effect of the other card.
    Counterspell,
    /// The seat's next card gets +1 permanently before its turn resolves.
    Empower,
    /// Winning with it is worth 2 points.
    Fireball,
    /// Wins the turn; loses the bout if countered; wins the bout against Offering.
    Kill,
    /// The lower strength wins; loses against Kill.
    Mayhem,
    /// +3 permanently when it loses (not against Kill).
    Offering,
    /// The strengths of the next turn's two cards are revealed after its result.
    Reveal,
    /// Swaps the strengths of the seat's last two cards played.
    Swap,
    /// Next turn the other seat commits first and the Warp seat is told its card.
    WarpTime,
}

impl Card {
    /// All ten, in the rules' (alphabetical) order, which is also the index order.
    pub const ALL: [Card; 10] = [
        Card::Bluff,
        Card::Counterspell,
        Card::Empower,
        Card::Fireball,
        Card::Kill,
        Card::Mayhem,
        Card::Offering,
        Card::Reveal,
        Card::Swap,
        Card::WarpTime,
    ];

    /// 0..10, in the order of `ALL`.
    #[inline]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// The card of index `i` (0..10).
    #[inline]
    pub const fn from_index(i: usize) -> Card {
        Card::ALL[i]
    }

    /// The name as written in moves and options.
    pub const fn name(self) -> &'static str {
        match self {
            Card::Bluff => "bluff",
            Card::Counterspell => "counterspell",
            Card::Empower => "empower",
            Card::Fireball => "fireball",
            Card::Kill => "kill",
            Card::Mayhem => "mayhem",
            Card::Offering => "offering",
            Card::Reveal => "reveal",
            Card::Swap => "swap",
            Card::WarpTime => "warp_time",
        }
    }

    /// The card's bit in a hand.
    #[inline]
    pub const fn bit(self) -> u8 {
        self as u8
    }
}

impl fmt::Display for Card {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A full hand of ten cards, as a `CardSet` of card indices.
pub const FULL_HAND: CardSet = CardSet::range(0, 9);

/// The cards in a hand, in card order.
pub fn cards_in(hand: CardSet) -> impl DoubleEndedIterator<Item = Card> + Clone {
    hand.iter().map(|i| Card::from_index(i as usize))
}

/// A card strength. Strengths only grow (Empower, Offering) or move (Swap).
pub type Strength = u16;

/// One seat's strength for each card. Serialized as a map in card order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Strengths(pub [Strength; 10]);

impl Index<Card> for Strengths {
    type Output = Strength;
    #[inline]
    fn index(&self, c: Card) -> &Strength {
        &self.0[c.index()]
    }
}

impl IndexMut<Card> for Strengths {
    #[inline]
    fn index_mut(&mut self, c: Card) -> &mut Strength {
        &mut self.0[c.index()]
    }
}

impl Serialize for Strengths {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(10))?;
        for c in Card::ALL {
            m.serialize_entry(c.name(), &self[c])?;
        }
        m.end()
    }
}

// The inverse of `Serialize`: a view rebuilt from the API's JSON (bots) must hold exactly
// the strengths sent, so all ten cards are required and none may repeat.
impl<'de> Deserialize<'de> for Strengths {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> Visitor<'de> for Visit {
            type Value = Strengths;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map from each of the ten cards to its strength")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<Strengths, A::Error> {
                let mut out = [None; 10];
                while let Some((card, v)) = m.next_entry::<Card, Strength>()? {
                    if out[card.index()].replace(v).is_some() {
                        return Err(de::Error::custom(format!("{card} is given twice")));
                    }
                }
                let mut s = Strengths::default();
                for c in Card::ALL {
                    s[c] = out[c.index()]
                        .ok_or_else(|| de::Error::custom(format!("{c}'s strength is missing")))?;
                }
                Ok(s)
            }
        }
        d.deserialize_map(Visit)
    }
}

/// Both seats' strengths, serialized as `{"0": {...}, "1": {...}}` (the summary shape).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BothStrengths(pub PerSeat<Strengths>);

impl Serialize for BothStrengths {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(2))?;
        m.serialize_entry("0", &self.0[Seat::ZERO])?;
        m.serialize_entry("1", &self.0[Seat::ONE])?;
        m.end()
    }
}

/// A card as played: the true card and the card it is shown as (the same card unless it
/// is a Bluff, which names another).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Play {
    /// The card really played.
    pub card: Card,
    /// The card shown.
    pub shown: Card,
}

impl Play {
    /// A card played as itself.
    pub const fn plain(card: Card) -> Play {
        Play { card, shown: card }
    }

    /// Whether this is a Bluff.
    pub fn is_bluff(self) -> bool {
        self.card == Card::Bluff
    }
}

/// What the meeting of two cards does to one turn. Everything the engine needs to
/// apply it, and nothing it needs to know about earlier turns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Clash {
    /// Whether each card's effect applies (a Bluff never; a card facing a Counterspell
    /// never; Kill against Kill and Warp Time against Warp Time cancel each other).
    pub effective: PerSeat<bool>,
    /// Who wins the turn; none for a tie.
    pub winner: Option<Seat>,
    /// The points the winner scores (1; 2 for a Fireball whose effect applies).
    pub points: u8,
    /// The bout ends after this turn, won by this seat (a countered Kill loses it, a
    /// Kill against an Offering wins it).
    pub bout_to: Option<Seat>,
    /// Whose Offering gains +3 (it lost, not against a Kill).
    pub offering_gains: PerSeat<bool>,
    /// Whose Bluff is outed by this turn (the amendment's list, but for a Bluff shown as
    /// Reveal, which is outed only after the next turn).
    pub outed: PerSeat<bool>,
}

/// Resolves two cards meeting, given the strengths they resolve with (Empower already
/// applied). Pure: the engine applies the result, bots use it to look ahead.
pub fn clash(plays: PerSeat<Play>, strengths: PerSeat<Strength>) -> Clash {
    use Card::*;
    let cards = plays.map(|_, p| p.card);
    let mut effective = PerSeat::from_fn(|s| cards[s] != Bluff && cards[s.other()] != Counterspell);
    // Two Kills, or two Warp Times, cancel each other (README decision; rules text for W).
    if (cards[Seat::ZERO] == Kill && cards[Seat::ONE] == Kill)
        || (cards[Seat::ZERO] == WarpTime && cards[Seat::ONE] == WarpTime)
    {
        effective = PerSeat::splat(false);
    }
    let has = |s: Seat, c: Card| cards[s] == c && effective[s];
    let kill = Seat::BOTH.into_iter().find(|&s| has(s, Kill));
    let winner = match kill {
        // "Win this turn", and Mayhem "loses against Kill".
        Some(k) => Some(k),
        None => {
            let mut order = strengths[Seat::ZERO].cmp(&strengths[Seat::ONE]);
            // Mayhem against Mayhem: still the lower card wins (README decision).
            if has(Seat::ZERO, Mayhem) || has(Seat::ONE, Mayhem) {
                order = order.reverse();
            }
            match order {
                Ordering::Greater => Some(Seat::ZERO),
                Ordering::Less => Some(Seat::ONE),
                Ordering::Equal => None,
            }
        }
    };
    let points = match winner {
        Some(w) if has(w, Fireball) => 2,
        Some(_) => 1,
        None => 0,
    };
    let mut bout_to = None;
    for s in Seat::BOTH {
        if cards[s] == Kill && cards[s.other()] == Counterspell {
            bout_to = Some(s.other()); // "Lose the bout if canceled by Counterspell."
        } else if has(s, Kill) && cards[s.other()] == Offering {
            bout_to = Some(s); // "Win the bout if played against Offering."
        }
    }
    let offering_gains =
        PerSeat::from_fn(|s| has(s, Offering) && winner == Some(s.other()) && kill.is_none());
    let outed = PerSeat::from_fn(|s| {
        let (p, other) = (plays[s], cards[s.other()]);
        p.is_bluff()
            && (other == Counterspell
                || (p.shown == Kill && (winner == Some(s.other()) || other == Offering))
                || (p.shown == Fireball && winner == Some(s))
                || p.shown == WarpTime)
    });
    Clash { effective, winner, points, bout_to, offering_gains, outed }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(a: Card, b: Card) -> PerSeat<Play> {
        PerSeat([Play::plain(a), Play::plain(b)])
    }

    #[test]
    fn kill_beats_mayhem_and_strength() {
        let c = clash(p(Card::Kill, Card::Mayhem), PerSeat([1, 9]));
        assert_eq!(c.winner, Some(Seat::ZERO));
        assert_eq!(c.bout_to, None);
    }

    #[test]
    fn countered_kill_loses_the_bout_after_strengths() {
        let c = clash(p(Card::Kill, Card::Counterspell), PerSeat([6, 4]));
        assert_eq!((c.winner, c.bout_to), (Some(Seat::ZERO), Some(Seat::ONE)));
    }

    #[test]
    fn offering_gains_only_on_a_loss_not_to_kill() {
        let c = clash(p(Card::Offering, Card::Fireball), PerSeat([4, 6]));
        assert_eq!((c.winner, c.points, c.offering_gains.0), (Some(Seat::ONE), 2, [true, false]));
        let c = clash(p(Card::Offering, Card::Kill), PerSeat([6, 4]));
        assert_eq!(
            (c.winner, c.bout_to, c.offering_gains.0),
            (Some(Seat::ONE), Some(Seat::ONE), [false, false])
        );
    }

    #[test]
    fn bluff_shown_as_fireball_that_wins_is_outed() {
        let plays =
            PerSeat([Play { card: Card::Bluff, shown: Card::Fireball }, Play::plain(Card::Swap)]);
        let c = clash(plays, PerSeat([6, 4]));
        assert_eq!((c.winner, c.points, c.outed.0), (Some(Seat::ZERO), 1, [true, false]));
    }
}
