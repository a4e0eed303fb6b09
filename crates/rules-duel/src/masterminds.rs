//! Masterminds Duel, rules text 002 with its amendment on revealed information and the
//! conformance README: ten cards a seat with hidden per-seat strengths, 7 bouts of 9
//! sealed turns, cards back after each bout with permanent changes kept, 4 bout wins.
//! What a turn does is `cards::clash`; this file keeps the state, the turn order (Warp
//! Time), the effects that reach into the next turn, and who may see what.
//!
//! Decisions beyond the README's (the README's own are implemented as written):
//! - Reveal shows the two strengths the turn was resolved with (Empower's +1 included,
//!   an Offering's +3 from that turn not yet), publicly, after the turn's result.
//! - "Against Offering", "against Counterspell" and "both play W" mean the true cards: a
//!   Bluff shown as Offering does not let a Kill win the bout, a Bluff shown as
//!   Counterspell cancels nothing, and a real Warp Time against a Bluff shown as Warp Time
//!   takes effect (the Bluff is outed at once).
//! - An outed Bluff's claim is shown with it, except against a Counterspell (B vs C).
//! - Seeded draws: default puzzle winners, ten `below(2)` in card order at setup; a late
//!   seat's card, `below(hand size)` over its hand in card order, then for a Bluff
//!   `below(9)` over the other nine cards; both late: seat 0 draws first.

use crate::cards::{BothStrengths, Card, FULL_HAND, Play, Strength, Strengths, cards_in, clash};
use rules_core::{
    Audience, CardSet, EndReason, Game, MatchRng, OptionsError, Outcome, PerSeat, Sealed, Seat,
    SeatSet, Sink, Viewer,
};
use serde::{Deserialize, Serialize};
use std::fmt;

/// Bouts in a match.
pub const BOUTS: u8 = 7;
/// Turns in a bout.
pub const TURNS: u8 = 9;
/// Bout wins that end the match.
pub const BOUT_WINS: u8 = 4;
/// The strength of a card whose puzzle the seat won, and of one it lost.
pub const PUZZLE_STRENGTHS: (Strength, Strength) = (6, 4);
/// The largest strength an option may give (strengths are small; this keeps sums exact).
pub const MAX_STRENGTH: i64 = 1000;

/// Given strengths of one seat, every card named (conformance `strengths` option).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[allow(missing_docs)] // one field per card, named as the card
pub struct CardValues {
    pub bluff: i64,
    pub counterspell: i64,
    pub empower: i64,
    pub fireball: i64,
    pub kill: i64,
    pub mayhem: i64,
    pub offering: i64,
    pub reveal: i64,
    pub swap: i64,
    pub warp_time: i64,
}

impl CardValues {
    fn in_card_order(&self) -> [i64; 10] {
        [
            self.bluff,
            self.counterspell,
            self.empower,
            self.fireball,
            self.kill,
            self.mayhem,
            self.offering,
            self.reveal,
            self.swap,
            self.warp_time,
        ]
    }
}

/// The `strengths` option: `{"0": {...}, "1": {...}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StrengthsOption {
    /// Seat 0's strengths.
    #[serde(rename = "0")]
    pub seat0: CardValues,
    /// Seat 1's strengths.
    #[serde(rename = "1")]
    pub seat1: CardValues,
}

/// Masterminds Duel options (conformance names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MastermindsOptions {
    /// Every card's strength for each seat; wins over `puzzle_winners`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub strengths: Option<StrengthsOption>,
    /// Who won each card's puzzle (card order), giving 6 to the winner and 4 to the
    /// other; drawn from the seed when neither this nor `strengths` is given.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub puzzle_winners: Option<Vec<Seat>>,
    /// The seat that wins a match tied in bouts.
    pub priority: Seat,
}

impl Default for MastermindsOptions {
    fn default() -> Self {
        MastermindsOptions { strengths: None, puzzle_winners: None, priority: Seat::ZERO }
    }
}

/// The move as written: `{"card": "kill"}` or `{"card": "bluff", "as": "fireball"}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawMove {
    card: Card,
    #[serde(rename = "as", default)]
    shown: Option<Card>,
}

/// A move: a card, and for a Bluff the card it is shown as. A Bluff without `as`, or
/// `as` on any other card, is not of the move's shape (`bad_move`); a Bluff named as
/// Bluff is of the shape but against the rules (`illegal_move`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "RawMove")]
pub struct MastermindsMove {
    /// The card played.
    pub card: Card,
    /// For a Bluff: the card it is shown as.
    #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
    pub shown: Option<Card>,
}

impl TryFrom<RawMove> for MastermindsMove {
    type Error = String;
    fn try_from(r: RawMove) -> Result<Self, String> {
        match (r.card, r.shown) {
            (Card::Bluff, None) => Err("a bluff names the card it is shown as: add \"as\"".into()),
            (Card::Bluff, shown) => Ok(MastermindsMove { card: Card::Bluff, shown }),
            (card, None) => Ok(MastermindsMove { card, shown: None }),
            (card, Some(_)) => Err(format!("only a bluff takes \"as\", not {card}")),
        }
    }
}

impl MastermindsMove {
    /// Plays `card` as itself (not for Bluff).
    pub const fn play(card: Card) -> Self {
        MastermindsMove { card, shown: None }
    }

    /// Plays the Bluff shown as `shown`.
    pub const fn bluff(shown: Card) -> Self {
        MastermindsMove { card: Card::Bluff, shown: Some(shown) }
    }

    fn to_play(self) -> Play {
        Play { card: self.card, shown: self.shown.unwrap_or(self.card) }
    }

    fn from_play(p: Play) -> Self {
        if p.is_bluff() { Self::bluff(p.shown) } else { Self::play(p.card) }
    }
}

/// Why a move is against the rules. Names only the mover's own cards.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MastermindsIllegal {
    /// The seat already played that card this bout.
    Spent(Card),
    /// A Bluff shown as Bluff.
    BluffAsBluff,
}

impl fmt::Display for MastermindsIllegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MastermindsIllegal::Spent(c) => write!(f, "you already played your {c} this bout"),
            MastermindsIllegal::BluffAsBluff => {
                f.write_str("a bluff must be shown as some other card than bluff")
            }
        }
    }
}

/// How a bout ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum BoutEnd {
    /// Nine turns were played; the higher bout points win it.
    Points,
    /// A Kill was canceled by Counterspell: the Kill's seat lost the bout.
    KillCountered,
    /// A Kill met an Offering: the Kill's seat won the bout.
    KillAgainstOffering,
}

/// A Masterminds Duel event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum MastermindsEvent {
    /// The public rules of this match.
    Setup {
        /// The seat that wins a match tied in bouts.
        priority: Seat,
    },
    /// A seat's own strengths (to that seat only): at the start, and after a turn
    /// that changed them.
    Strengths {
        /// Whose.
        seat: Seat,
        /// Its current strengths.
        strengths: Strengths,
    },
    /// A bout starts.
    BoutStarted {
        /// The bout, from 1.
        bout: u8,
    },
    /// A turn opens.
    TurnStarted {
        /// The bout.
        bout: u8,
        /// The turn, from 1.
        turn: u8,
        /// The seat that must commit first (Warp Time), if the turn is ordered.
        first: Option<Seat>,
    },
    /// A seat has committed its card (public: nothing more).
    Moved {
        /// Who.
        seat: Seat,
    },
    /// Your own committed card (to that seat only).
    MoveSealed {
        /// Whose.
        seat: Seat,
        /// The card played.
        card: Card,
        /// For a Bluff: the card it is shown as.
        #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
        shown: Option<Card>,
    },
    /// Warp Time: the card the first seat showed, told to the Warp seat only.
    Told {
        /// The Warp seat, to whom this is told.
        seat: Seat,
        /// The card the other seat shows.
        card: Card,
    },
    /// The deadline passed; these seats were late and play random cards.
    Late {
        /// The late seats.
        seats: SeatSet,
    },
    /// The two cards are shown and the turn is resolved.
    TurnResolved {
        /// The bout.
        bout: u8,
        /// The turn, from 1.
        turn: u8,
        /// The cards shown (a Bluff as the card it names, unless outed this turn).
        shown: PerSeat<Card>,
        /// Who won the turn; none on a tie.
        winner: Option<Seat>,
        /// Bout points after the turn.
        points: PerSeat<u8>,
    },
    /// Reveal: the strengths both cards of a turn resolved with.
    Revealed {
        /// The bout of the revealed turn.
        bout: u8,
        /// The revealed turn.
        turn: u8,
        /// The two strengths.
        strengths: PerSeat<Strength>,
    },
    /// A Bluff is outed: shown publicly as Bluff.
    BluffOuted {
        /// Whose Bluff.
        seat: Seat,
        /// The bout it was played in.
        bout: u8,
        /// The turn it was played in.
        turn: u8,
        /// The card it claimed, if that was ever shown (against a Counterspell it was not).
        claimed: Option<Card>,
    },
    /// A bout ended.
    BoutEnded {
        /// The bout.
        bout: u8,
        /// Its winner; none for a tie.
        winner: Option<Seat>,
        /// How it ended.
        end: BoutEnd,
        /// Its final points.
        points: PerSeat<u8>,
        /// Bouts won so far.
        bout_wins: PerSeat<u8>,
    },
}

/// One resolved turn, with everything any viewer may later be shown of it.
#[derive(Clone, Copy, Debug)]
struct TurnRecord {
    bout: u8,
    turn: u8,
    first: Option<Seat>,
    late: SeatSet,
    plays: PerSeat<Play>,
    winner: Option<Seat>,
    points: PerSeat<u8>,
    outed: PerSeat<bool>,
    revealed: Option<PerSeat<Strength>>,
}

/// Effects of one turn that act on the next one (across a bout's end too).
#[derive(Clone, Copy, Debug, Default)]
struct Pending {
    /// Empower: the seat's next card gets +1 before its turn resolves.
    empower: PerSeat<bool>,
    /// Reveal: the next turn's strengths are revealed after its result.
    reveal: bool,
    /// Warp Time: the seat that commits first next turn.
    first: Option<Seat>,
    /// A Bluff shown as Reveal, outed after the next turn: its index in the history.
    bluff_reveal: PerSeat<Option<u8>>,
}

/// The state of a Masterminds Duel match.
#[derive(Clone, Debug)]
pub struct Masterminds {
    priority: Seat,
    strengths: PerSeat<Strengths>,
    /// The current bout, from 1.
    bout: u8,
    /// Turns resolved in the bout.
    turn: u8,
    bout_wins: PerSeat<u8>,
    points: PerSeat<u8>,
    /// The cards not yet played this bout.
    hands: PerSeat<CardSet>,
    /// Who commits first this turn (Warp Time); none: both at once.
    first: Option<Seat>,
    sealed: Sealed<Play>,
    /// Seats late this turn.
    late: SeatSet,
    pending: Pending,
    /// Every resolved turn of the match, in order.
    history: Vec<TurnRecord>,
    end: Option<Outcome>,
}

/// A card of a turn as one viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SeenCard {
    /// The card shown to this viewer: the true card for its own seat or an outed Bluff,
    /// else the card shown.
    pub card: Card,
    /// For a Bluff known to this viewer: the card it claimed, if that was shown.
    #[serde(rename = "as", skip_serializing_if = "Option::is_none")]
    pub shown: Option<Card>,
}

/// A resolved turn as one viewer sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TurnView {
    /// The bout.
    pub bout: u8,
    /// The turn, from 1.
    pub turn: u8,
    /// The seat that committed first (Warp Time).
    pub first: Option<Seat>,
    /// Seats that were late.
    pub late: SeatSet,
    /// The two cards.
    pub cards: PerSeat<SeenCard>,
    /// Who won it.
    pub winner: Option<Seat>,
    /// Bout points after it.
    pub points: PerSeat<u8>,
    /// The strengths both cards resolved with, if a Reveal showed them.
    pub revealed: Option<PerSeat<Strength>>,
}

/// What one viewer sees of a Masterminds Duel match. Built per viewer: the other seat's
/// strengths, its committed card and the truth behind its unouted Bluffs are never in it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct MastermindsView {
    /// Whose view (none: a spectator).
    pub viewer: Option<Seat>,
    /// The seat that wins a match tied in bouts.
    pub priority: Seat,
    /// The current bout.
    pub bout: u8,
    /// Turns resolved in the bout.
    pub turn: u8,
    /// Bouts won.
    pub bout_wins: PerSeat<u8>,
    /// Bout points.
    pub points: PerSeat<u8>,
    /// Who commits first this turn (Warp Time).
    pub first: Option<Seat>,
    /// Which seats have committed this turn.
    pub moved: PerSeat<bool>,
    /// The viewer's own strengths, effects included.
    pub my_strengths: Option<Strengths>,
    /// The viewer's own cards not yet played this bout.
    pub my_hand: Option<Vec<Card>>,
    /// The viewer's own committed move this turn.
    pub my_move: Option<MastermindsMove>,
    /// For the Warp seat, once the other seat committed: the card it shows.
    pub told: Option<Card>,
    /// Every resolved turn of the match.
    pub history: Vec<TurnView>,
}

/// The Masterminds Duel summary.
#[derive(Serialize)]
pub struct MastermindsSummary {
    bout_wins: PerSeat<u8>,
    bout: u8,
    points: PerSeat<u8>,
    turn: u8,
    strengths: BothStrengths,
}

fn initial_strengths(
    options: &MastermindsOptions,
    rng: &mut MatchRng,
) -> Result<PerSeat<Strengths>, OptionsError> {
    if let Some(given) = &options.strengths {
        let mut out = PerSeat::splat(Strengths::default());
        for (seat, values) in [(Seat::ZERO, &given.seat0), (Seat::ONE, &given.seat1)] {
            for (i, v) in values.in_card_order().into_iter().enumerate() {
                if !(0..=MAX_STRENGTH).contains(&v) {
                    return Err(OptionsError::new(
                        "strengths",
                        format!(
                            "{seat}'s {} is {v}; strengths run from 0 to {MAX_STRENGTH}",
                            Card::from_index(i)
                        ),
                    ));
                }
                out[seat].0[i] = v as Strength;
            }
        }
        return Ok(out);
    }
    let winners: [Seat; 10] = match &options.puzzle_winners {
        Some(w) => w.as_slice().try_into().map_err(|_| {
            OptionsError::new(
                "puzzle_winners",
                format!("{} seats given; one per card, ten in all", w.len()),
            )
        })?,
        None => std::array::from_fn(|_| if rng.below(2) == 0 { Seat::ZERO } else { Seat::ONE }),
    };
    let (hi, lo) = PUZZLE_STRENGTHS;
    Ok(PerSeat::from_fn(|seat| {
        Strengths(std::array::from_fn(|i| if winners[i] == seat { hi } else { lo }))
    }))
}

impl Masterminds {
    /// The current strengths of `seat`'s cards (for tests and the summary).
    pub fn strengths(&self, seat: Seat) -> Strengths {
        self.strengths[seat]
    }

    fn start_bout(&mut self, out: &mut impl Sink<MastermindsEvent>) {
        self.turn = 0;
        self.points = PerSeat::splat(0);
        self.hands = PerSeat::splat(FULL_HAND);
        out.emit(Audience::Public, MastermindsEvent::BoutStarted { bout: self.bout });
        self.start_turn(out);
    }

    fn start_turn(&mut self, out: &mut impl Sink<MastermindsEvent>) {
        self.sealed.clear();
        self.late = SeatSet::NONE;
        self.first = self.pending.first.take();
        out.emit(
            Audience::Public,
            MastermindsEvent::TurnStarted {
                bout: self.bout,
                turn: self.turn + 1,
                first: self.first,
            },
        );
    }

    /// Seals `play` for `seat`; resolves the turn once both have committed.
    fn commit(&mut self, seat: Seat, play: Play, out: &mut impl Sink<MastermindsEvent>) {
        self.sealed.seal(seat, play);
        let shown = play.is_bluff().then_some(play.shown);
        out.emit(
            Audience::Seat(seat),
            MastermindsEvent::MoveSealed { seat, card: play.card, shown },
        );
        out.emit(Audience::Public, MastermindsEvent::Moved { seat });
        if self.first == Some(seat) {
            // Warp Time: the Warp seat sees the card shown before it commits.
            let warp = seat.other();
            out.emit(Audience::Seat(warp), MastermindsEvent::Told { seat: warp, card: play.shown });
        }
        if let Some(plays) = self.sealed.both() {
            self.resolve(plays, out);
        }
    }

    fn resolve(&mut self, plays: PerSeat<Play>, out: &mut impl Sink<MastermindsEvent>) {
        let before = self.strengths;
        let pending = std::mem::take(&mut self.pending);
        // Empower of the previous turn: +1 permanently, before this turn resolves.
        for s in Seat::BOTH {
            if pending.empower[s] {
                self.strengths[s][plays[s].card] += 1;
            }
        }
        let played = PerSeat::from_fn(|s| self.strengths[s][plays[s].card]);
        let c = clash(plays, played);
        if let Some(w) = c.winner {
            self.points[w] += c.points;
        }
        for s in Seat::BOTH {
            if c.offering_gains[s] {
                self.strengths[s][Card::Offering] += 3;
            }
            // Swap: the seat's cards of the two previous turns of this bout trade
            // strengths; on turns 1 and 2 there are not two, and it does nothing.
            if plays[s].card == Card::Swap && c.effective[s] && self.turn >= 2 {
                let n = self.history.len();
                let (a, b) = (self.history[n - 1].plays[s].card, self.history[n - 2].plays[s].card);
                let st = &mut self.strengths[s];
                let (x, y) = (st[a], st[b]);
                st[a] = y;
                st[b] = x;
            }
            self.hands[s].remove(plays[s].card.bit());
        }
        // Effects that act on the next turn (the next bout's first, after turn 9).
        for s in Seat::BOTH {
            let has = |card: Card| plays[s].card == card && c.effective[s];
            self.pending.empower[s] = has(Card::Empower);
            if has(Card::WarpTime) {
                self.pending.first = Some(s.other());
            }
            self.pending.reveal |= has(Card::Reveal);
            if plays[s].is_bluff() && plays[s].shown == Card::Reveal && !c.outed[s] {
                self.pending.bluff_reveal[s] = Some(self.history.len() as u8);
            }
        }
        self.turn += 1;
        let revealed = pending.reveal.then_some(played);
        self.history.push(TurnRecord {
            bout: self.bout,
            turn: self.turn,
            first: self.first,
            late: self.late,
            plays,
            winner: c.winner,
            points: self.points,
            outed: c.outed,
            revealed,
        });
        let shown = PerSeat::from_fn(|s| if c.outed[s] { Card::Bluff } else { plays[s].shown });
        out.emit(
            Audience::Public,
            MastermindsEvent::TurnResolved {
                bout: self.bout,
                turn: self.turn,
                shown,
                winner: c.winner,
                points: self.points,
            },
        );
        for s in Seat::BOTH {
            if c.outed[s] {
                self.emit_outed(s, self.history.len() - 1, out);
            }
        }
        if let Some(strengths) = revealed {
            out.emit(
                Audience::Public,
                MastermindsEvent::Revealed { bout: self.bout, turn: self.turn, strengths },
            );
        }
        for s in Seat::BOTH {
            // A Bluff shown as Reveal "has no effect, revealed next turn".
            if let Some(i) = pending.bluff_reveal[s] {
                self.history[i as usize].outed[s] = true;
                self.emit_outed(s, i as usize, out);
            }
        }
        for s in Seat::BOTH {
            if self.strengths[s] != before[s] {
                out.emit(
                    Audience::Seat(s),
                    MastermindsEvent::Strengths { seat: s, strengths: self.strengths[s] },
                );
            }
        }
        match c.bout_to {
            Some(w) => {
                let end = if plays[w].card == Card::Kill {
                    BoutEnd::KillAgainstOffering
                } else {
                    BoutEnd::KillCountered
                };
                self.end_bout(Some(w), end, out);
            }
            None if self.turn == TURNS => {
                let winner = match self.points[Seat::ZERO].cmp(&self.points[Seat::ONE]) {
                    std::cmp::Ordering::Greater => Some(Seat::ZERO),
                    std::cmp::Ordering::Less => Some(Seat::ONE),
                    std::cmp::Ordering::Equal => None,
                };
                self.end_bout(winner, BoutEnd::Points, out);
            }
            None => self.start_turn(out),
        }
    }

    fn emit_outed(&self, seat: Seat, index: usize, out: &mut impl Sink<MastermindsEvent>) {
        let r = &self.history[index];
        // Against a Counterspell the matchup is shown as B vs C: the claim never shows.
        let claimed =
            (r.plays[seat.other()].card != Card::Counterspell).then_some(r.plays[seat].shown);
        out.emit(
            Audience::Public,
            MastermindsEvent::BluffOuted { seat, bout: r.bout, turn: r.turn, claimed },
        );
    }

    fn end_bout(
        &mut self,
        winner: Option<Seat>,
        end: BoutEnd,
        out: &mut impl Sink<MastermindsEvent>,
    ) {
        if let Some(w) = winner {
            self.bout_wins[w] += 1;
        }
        out.emit(
            Audience::Public,
            MastermindsEvent::BoutEnded {
                bout: self.bout,
                winner,
                end,
                points: self.points,
                bout_wins: self.bout_wins,
            },
        );
        if let Some(w) = Seat::BOTH.into_iter().find(|&s| self.bout_wins[s] >= BOUT_WINS) {
            self.finish(Outcome::win(w, EndReason::Completed));
        } else if self.bout == BOUTS {
            let w = match self.bout_wins[Seat::ZERO].cmp(&self.bout_wins[Seat::ONE]) {
                std::cmp::Ordering::Greater => Seat::ZERO,
                std::cmp::Ordering::Less => Seat::ONE,
                std::cmp::Ordering::Equal => self.priority,
            };
            self.finish(Outcome::win(w, EndReason::Completed));
        } else {
            self.bout += 1;
            self.start_bout(out);
        }
    }

    fn finish(&mut self, outcome: Outcome) {
        self.end = Some(outcome);
        self.sealed.clear();
        self.first = None;
        self.pending = Pending::default();
    }

    fn seen_card(&self, r: &TurnRecord, seat: Seat, viewer: Viewer) -> SeenCard {
        let p = r.plays[seat];
        let own = viewer.seat() == Some(seat);
        if p.is_bluff() && (own || r.outed[seat]) {
            let claim_shown = own || r.plays[seat.other()].card != Card::Counterspell;
            SeenCard { card: Card::Bluff, shown: claim_shown.then_some(p.shown) }
        } else {
            SeenCard { card: p.shown, shown: None }
        }
    }
}

impl Game for Masterminds {
    const NAME: &'static str = "masterminds";
    const SIMULTANEOUS: bool = true;
    const HIDDEN_INFORMATION: bool = true;
    type Options = MastermindsOptions;
    type Move = MastermindsMove;
    type Illegal = MastermindsIllegal;
    type Event = MastermindsEvent;
    type View = MastermindsView;
    type Summary = MastermindsSummary;

    fn new(
        options: &MastermindsOptions,
        rng: &mut MatchRng,
        out: &mut impl Sink<MastermindsEvent>,
    ) -> Result<Self, OptionsError> {
        let strengths = initial_strengths(options, rng)?;
        let mut g = Masterminds {
            priority: options.priority,
            strengths,
            bout: 1,
            turn: 0,
            bout_wins: PerSeat::splat(0),
            points: PerSeat::splat(0),
            hands: PerSeat::splat(FULL_HAND),
            first: None,
            sealed: Sealed::default(),
            late: SeatSet::NONE,
            pending: Pending::default(),
            history: Vec::with_capacity(usize::from(BOUTS * TURNS)),
            end: None,
        };
        out.emit(Audience::Public, MastermindsEvent::Setup { priority: g.priority });
        for s in Seat::BOTH {
            out.emit(
                Audience::Seat(s),
                MastermindsEvent::Strengths { seat: s, strengths: g.strengths[s] },
            );
        }
        g.start_bout(out);
        Ok(g)
    }

    fn to_move(&self) -> SeatSet {
        if self.end.is_some() {
            return SeatSet::NONE;
        }
        match self.first {
            None => self.sealed.waiting(),
            Some(f) if self.sealed.get(f).is_none() => SeatSet::only(f),
            Some(f) => self.sealed.waiting().without(f),
        }
    }

    fn has_moved(&self, seat: Seat) -> bool {
        self.sealed.get(seat).is_some()
    }

    fn legal_moves(&self, seat: Seat, out: &mut Vec<MastermindsMove>) {
        for card in cards_in(self.hands[seat]) {
            if card == Card::Bluff {
                out.extend(Card::ALL[1..].iter().map(|&c| MastermindsMove::bluff(c)));
            } else {
                out.push(MastermindsMove::play(card));
            }
        }
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: &MastermindsMove,
        _rng: &mut MatchRng,
        out: &mut impl Sink<MastermindsEvent>,
    ) -> Result<(), MastermindsIllegal> {
        if !self.hands[seat].contains(mv.card.bit()) {
            return Err(MastermindsIllegal::Spent(mv.card));
        }
        if mv.shown == Some(Card::Bluff) {
            return Err(MastermindsIllegal::BluffAsBluff);
        }
        self.commit(seat, mv.to_play(), out);
        Ok(())
    }

    fn deadline(&mut self, rng: &mut MatchRng, out: &mut impl Sink<MastermindsEvent>) {
        let late = self.to_move();
        if late.is_empty() {
            return;
        }
        for s in late.iter() {
            self.late = self.late.with(s);
        }
        out.emit(Audience::Public, MastermindsEvent::Late { seats: late });
        for seat in late.iter() {
            // A random card of the hand; a Bluff drawn this way names a random other card.
            let hand = self.hands[seat];
            let i = hand.nth(rng.below(hand.len())).expect("a card is left");
            let card = Card::from_index(i as usize);
            let shown = if card == Card::Bluff {
                Card::from_index(1 + rng.below(9) as usize)
            } else {
                card
            };
            self.commit(seat, Play { card, shown }, out);
        }
    }

    fn view(&self, viewer: Viewer) -> MastermindsView {
        let me = viewer.seat();
        let told = match (me, self.first) {
            (Some(s), Some(f)) if s == f.other() => self.sealed.get(f).map(|p| p.shown),
            _ => None,
        };
        let history = self
            .history
            .iter()
            .map(|r| TurnView {
                bout: r.bout,
                turn: r.turn,
                first: r.first,
                late: r.late,
                cards: PerSeat::from_fn(|s| self.seen_card(r, s, viewer)),
                winner: r.winner,
                points: r.points,
                revealed: r.revealed,
            })
            .collect();
        MastermindsView {
            viewer: me,
            priority: self.priority,
            bout: self.bout,
            turn: self.turn,
            bout_wins: self.bout_wins,
            points: self.points,
            first: self.first,
            moved: PerSeat::from_fn(|s| self.sealed.get(s).is_some()),
            my_strengths: me.map(|s| self.strengths[s]),
            my_hand: me.map(|s| cards_in(self.hands[s]).collect()),
            my_move: me.and_then(|s| self.sealed.get(s)).map(MastermindsMove::from_play),
            told,
            history,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end
    }

    fn summary(&self) -> MastermindsSummary {
        MastermindsSummary {
            bout_wins: self.bout_wins,
            bout: self.bout,
            points: self.points,
            turn: self.turn,
            strengths: BothStrengths(self.strengths),
        }
    }
}
