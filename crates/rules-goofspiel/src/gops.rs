//! Goofspiel (GOPS), rules text 003 and the conformance README: two equal hands of
//! 1..cards, a hidden prize order, sealed bids revealed together, ties rolled over,
//! discarded or split. A missed deadline loses the match.

use crate::points::Points;
use rules_core::{
    Audience, CardSet, EndReason, Game, MatchRng, OptionsError, Outcome, PerSeat, Sealed, Seat,
    SeatSet, Sink, Viewer, is_permutation,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// What happens to a prize both seats bid equally for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ties {
    /// The prize joins the next one; a pile still tied after the last round is lost.
    #[default]
    Rollover,
    /// The prize is lost.
    Discard,
    /// Each seat gets half.
    Split,
}

/// GOPS options (conformance names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GopsOptions {
    /// Cards per hand and prizes: 1..=cards, 3 to 13.
    pub cards: u8,
    /// The tie rule.
    pub ties: Ties,
    /// The full prize order; drawn from the seed when absent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prizes: Option<Vec<u8>>,
}

impl Default for GopsOptions {
    fn default() -> Self {
        GopsOptions { cards: 13, ties: Ties::Rollover, prizes: None }
    }
}

/// A bid: `{"card": 7}`. The value is checked by the rules, so any integer parses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GopsMove {
    /// The card bid.
    pub card: i64,
}

/// Why a bid is against the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GopsIllegal {
    /// No such card in this game.
    OutOfRange {
        /// The card asked for.
        card: i64,
        /// The highest card.
        cards: u8,
    },
    /// The seat has spent that card.
    Spent(u8),
}

impl fmt::Display for GopsIllegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GopsIllegal::OutOfRange { card, cards } => {
                write!(f, "card {card} does not exist: cards run from 1 to {cards}")
            }
            GopsIllegal::Spent(c) => write!(f, "card {c} was already played"),
        }
    }
}

/// A GOPS event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum GopsEvent {
    /// The public rules of this match (the prize order stays hidden).
    Setup {
        /// Cards per hand.
        cards: u8,
        /// The tie rule.
        ties: Ties,
    },
    /// A prize is turned face up.
    RoundStarted {
        /// The round, from 1.
        round: u8,
        /// The prize.
        prize: u8,
        /// Prize points rolled over from tied rounds, won together with this prize.
        pile: u16,
    },
    /// A seat has sealed its bid (public: nothing more).
    Moved {
        /// Who moved.
        seat: Seat,
    },
    /// Your own sealed bid (to that seat only).
    BidSealed {
        /// Whose bid.
        seat: Seat,
        /// The card.
        card: u8,
    },
    /// Both bids revealed together.
    Revealed {
        /// The round, from 1.
        round: u8,
        /// The two bids.
        bids: PerSeat<u8>,
        /// Who won the round; none on a tie.
        winner: Option<Seat>,
        /// Points each seat gained this round.
        gained: PerSeat<Points>,
        /// The scores after the round.
        scores: PerSeat<Points>,
    },
    /// The deadline passed with these seats late.
    Late {
        /// The late seats.
        seats: SeatSet,
    },
}

/// The state of a GOPS match.
#[derive(Clone, Debug)]
pub struct Gops {
    cards: u8,
    ties: Ties,
    prizes: [u8; 13],
    /// Rounds resolved.
    round: u8,
    hands: PerSeat<CardSet>,
    scores: PerSeat<Points>,
    /// Whole prize points rolled over and not yet won.
    pile: u16,
    sealed: Sealed<u8>,
    last: Option<(PerSeat<u8>, Option<Seat>)>,
    end: Option<Outcome>,
}

/// What one viewer sees of a GOPS match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GopsView {
    /// Whose view this is (none: a spectator).
    pub viewer: Option<Seat>,
    /// Cards per hand.
    pub cards: u8,
    /// The tie rule.
    pub ties: Ties,
    /// Rounds resolved.
    pub round: u8,
    /// The prize face up now, if a round is open.
    pub prize: Option<u8>,
    /// Rolled-over points that go with it.
    pub pile: u16,
    /// Scores.
    pub scores: PerSeat<Points>,
    /// Each seat's unspent cards (public: spent cards were all revealed).
    pub hands: PerSeat<CardSet>,
    /// Prizes not yet turned up, as a set (their order is hidden).
    pub prizes_left: CardSet,
    /// Which seats have sealed a bid this round.
    pub moved: PerSeat<bool>,
    /// The viewer's own sealed bid this round.
    pub my_bid: Option<u8>,
    /// The last revealed round: bids and winner.
    pub last: Option<(PerSeat<u8>, Option<Seat>)>,
}

/// The GOPS summary: `{"scores": [s0, s1], "round": r}`.
#[derive(Serialize)]
pub struct GopsSummary {
    scores: PerSeat<Points>,
    round: u8,
}

impl Gops {
    fn prize(&self) -> Option<u8> {
        (self.round < self.cards).then(|| self.prizes[self.round as usize])
    }

    fn start_round(&self, out: &mut impl Sink<GopsEvent>) {
        if let Some(prize) = self.prize() {
            out.emit(
                Audience::Public,
                GopsEvent::RoundStarted { round: self.round + 1, prize, pile: self.pile },
            );
        }
    }

    fn resolve(&mut self, bids: PerSeat<u8>, out: &mut impl Sink<GopsEvent>) {
        let prize = u16::from(self.prizes[self.round as usize]);
        let stake = prize + self.pile;
        let mut gained = PerSeat::splat(Points::ZERO);
        let winner = match bids[Seat::ZERO].cmp(&bids[Seat::ONE]) {
            std::cmp::Ordering::Greater => Some(Seat::ZERO),
            std::cmp::Ordering::Less => Some(Seat::ONE),
            std::cmp::Ordering::Equal => None,
        };
        match winner {
            Some(w) => {
                gained[w] = Points::whole(stake);
                self.pile = 0;
            }
            None => match self.ties {
                Ties::Rollover => self.pile = stake,
                Ties::Discard => {}
                Ties::Split => gained = PerSeat::splat(Points::half_of(prize)),
            },
        }
        for s in Seat::BOTH {
            self.hands[s].remove(bids[s]);
            self.scores[s] += gained[s];
        }
        self.round += 1;
        self.sealed.clear();
        self.last = Some((bids, winner));
        out.emit(
            Audience::Public,
            GopsEvent::Revealed { round: self.round, bids, winner, gained, scores: self.scores },
        );
        if self.round == self.cards {
            // A pile still tied after the last round is lost.
            self.pile = 0;
            let winner = match self.scores[Seat::ZERO].cmp(&self.scores[Seat::ONE]) {
                std::cmp::Ordering::Greater => Some(Seat::ZERO),
                std::cmp::Ordering::Less => Some(Seat::ONE),
                std::cmp::Ordering::Equal => None,
            };
            self.end = Some(Outcome { winner, reason: EndReason::Completed });
        } else {
            self.start_round(out);
        }
    }
}

fn validate(o: &GopsOptions, rng: &mut MatchRng) -> Result<[u8; 13], OptionsError> {
    if !(3..=13).contains(&o.cards) {
        return Err(OptionsError::new("cards", format!("{} is not in 3..13", o.cards)));
    }
    let mut prizes = [0u8; 13];
    let n = o.cards as usize;
    match &o.prizes {
        Some(given) => {
            if !is_permutation(given, o.cards) {
                return Err(OptionsError::new(
                    "prizes",
                    format!("must be a permutation of 1..{}", o.cards),
                ));
            }
            prizes[..n].copy_from_slice(given);
        }
        None => {
            for (i, p) in prizes[..n].iter_mut().enumerate() {
                *p = i as u8 + 1;
            }
            rng.shuffle(&mut prizes[..n]);
        }
    }
    Ok(prizes)
}

impl Game for Gops {
    const NAME: &'static str = "gops";
    const SIMULTANEOUS: bool = true;
    const HIDDEN_INFORMATION: bool = true;
    type Options = GopsOptions;
    type Move = GopsMove;
    type Illegal = GopsIllegal;
    type Event = GopsEvent;
    type View = GopsView;
    type Summary = GopsSummary;

    fn new(
        options: &GopsOptions,
        rng: &mut MatchRng,
        out: &mut impl Sink<GopsEvent>,
    ) -> Result<Self, OptionsError> {
        let prizes = validate(options, rng)?;
        let g = Gops {
            cards: options.cards,
            ties: options.ties,
            prizes,
            round: 0,
            hands: PerSeat::splat(CardSet::range(1, options.cards)),
            scores: PerSeat::splat(Points::ZERO),
            pile: 0,
            sealed: Sealed::default(),
            last: None,
            end: None,
        };
        out.emit(Audience::Public, GopsEvent::Setup { cards: g.cards, ties: g.ties });
        g.start_round(out);
        Ok(g)
    }

    #[inline]
    fn to_move(&self) -> SeatSet {
        if self.end.is_some() { SeatSet::NONE } else { self.sealed.waiting() }
    }

    fn has_moved(&self, seat: Seat) -> bool {
        self.sealed.get(seat).is_some()
    }

    fn legal_moves(&self, seat: Seat, out: &mut Vec<GopsMove>) {
        out.extend(self.hands[seat].iter().map(|c| GopsMove { card: i64::from(c) }));
    }

    #[inline]
    fn apply(
        &mut self,
        seat: Seat,
        mv: &GopsMove,
        _rng: &mut MatchRng,
        out: &mut impl Sink<GopsEvent>,
    ) -> Result<(), GopsIllegal> {
        if !(1..=i64::from(self.cards)).contains(&mv.card) {
            return Err(GopsIllegal::OutOfRange { card: mv.card, cards: self.cards });
        }
        let card = mv.card as u8;
        if !self.hands[seat].contains(card) {
            return Err(GopsIllegal::Spent(card));
        }
        self.sealed.seal(seat, card);
        out.emit(Audience::Seat(seat), GopsEvent::BidSealed { seat, card });
        out.emit(Audience::Public, GopsEvent::Moved { seat });
        if let Some(bids) = self.sealed.both() {
            self.resolve(bids, out);
        }
        Ok(())
    }

    fn deadline(&mut self, _rng: &mut MatchRng, out: &mut impl Sink<GopsEvent>) {
        let late = self.to_move();
        if late.is_empty() {
            return;
        }
        out.emit(Audience::Public, GopsEvent::Late { seats: late });
        // A missed deadline loses like a resignation; both late is a draw.
        self.end = Some(match (late.contains(Seat::ZERO), late.contains(Seat::ONE)) {
            (true, true) => Outcome::draw(EndReason::MissedDeadline),
            (true, false) => Outcome::win(Seat::ONE, EndReason::MissedDeadline),
            _ => Outcome::win(Seat::ZERO, EndReason::MissedDeadline),
        });
    }

    fn view(&self, viewer: Viewer) -> GopsView {
        let prize = if self.end.is_some() { None } else { self.prize() };
        let mut prizes_left = CardSet::EMPTY;
        for &p in
            &self.prizes[(self.round as usize + 1).min(self.cards as usize)..self.cards as usize]
        {
            prizes_left.insert(p);
        }
        GopsView {
            viewer: viewer.seat(),
            cards: self.cards,
            ties: self.ties,
            round: self.round,
            prize,
            pile: self.pile,
            scores: self.scores,
            hands: self.hands,
            prizes_left,
            moved: PerSeat::from_fn(|s| self.sealed.get(s).is_some()),
            my_bid: viewer.seat().and_then(|s| self.sealed.get(s)),
            last: self.last,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end
    }

    fn summary(&self) -> GopsSummary {
        GopsSummary { scores: self.scores, round: self.round }
    }
}
