//! 1,2,3 Goofspiel / Dueling Monsters, rules text 000 and the conformance README: each
//! round a seat plays a black (1..3, three of each) and a white (1..9) card; blacks
//! decide, whites break ties. When blacks differ the whites stay hidden and only their
//! comparison is announced. Bouts of 9 rounds, best of 3 or 5, tied bouts replayed.

use rules_core::{
    Audience, CardSet, EndReason, Game, MatchRng, MoveTime, OptionsError, Outcome, PerSeat, Sealed,
    Seat, SeatSet, Sink, Viewer, is_permutation,
};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::fmt;

/// How many times in a row both seats may miss a round before the match ends unplayed.
pub const MAX_RESTARTS: u8 = 3;

/// Whether a seat may replace its submission before the round resolves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Submissions {
    /// The first submission is final; the round resolves once both have played.
    #[default]
    First,
    /// A seat may submit again until the deadline resolves the round.
    Changeable,
}

/// Dueling Monsters options (conformance names).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DuelingMonstersOptions {
    /// Bouts needed to win: 2 (best of 3) or 3 (best of 5).
    pub bouts_to_win: u8,
    /// Prize orders, one per bout played (replays count); later bouts draw from the seed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prizes: Option<Vec<Vec<u8>>>,
    /// The submission rule.
    pub submissions: Submissions,
}

impl Default for DuelingMonstersOptions {
    fn default() -> Self {
        DuelingMonstersOptions { bouts_to_win: 2, prizes: None, submissions: Submissions::First }
    }
}

/// A move: `{"black": 1..3, "white": 1..9}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DuelingMonstersMove {
    /// The black card (monster level).
    pub black: i64,
    /// The white card (weapon strength).
    pub white: i64,
}

/// Why a move is against the rules.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DuelingMonstersIllegal {
    /// Blacks are 1, 2 or 3.
    NoSuchBlack(i64),
    /// Whites are 1 to 9.
    NoSuchWhite(i64),
    /// All three blacks of that value are spent this bout.
    BlackSpent(u8),
    /// That white is spent this bout.
    WhiteSpent(u8),
}

impl fmt::Display for DuelingMonstersIllegal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DuelingMonstersIllegal::NoSuchBlack(b) => {
                write!(f, "black {b} does not exist: blacks are 1, 2 or 3")
            }
            DuelingMonstersIllegal::NoSuchWhite(w) => {
                write!(f, "white {w} does not exist: whites run from 1 to 9")
            }
            DuelingMonstersIllegal::BlackSpent(b) => {
                write!(f, "you have no black {b} left this bout")
            }
            DuelingMonstersIllegal::WhiteSpent(w) => {
                write!(f, "white {w} was already played this bout")
            }
        }
    }
}

/// How the two hidden whites compared, when blacks differed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WhiteComparison {
    /// Seat 0's white was higher.
    Seat0,
    /// Seat 1's white was higher.
    Seat1,
    /// Equal whites.
    Tie,
}

/// A Dueling Monsters event.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum DuelingMonstersEvent {
    /// The public rules of this match.
    Setup {
        /// Bouts needed to win.
        bouts_to_win: u8,
        /// The submission rule.
        submissions: Submissions,
    },
    /// A bout starts (replays get a new number).
    BoutStarted {
        /// The bout, from 1.
        bout: u16,
    },
    /// A round's prize is revealed.
    RoundStarted {
        /// The bout.
        bout: u16,
        /// The round in the bout, from 1.
        round: u8,
        /// The prize.
        prize: u8,
    },
    /// A seat has submitted (public: nothing more).
    Moved {
        /// Who.
        seat: Seat,
    },
    /// Your own submission (to that seat only).
    MoveSealed {
        /// Whose.
        seat: Seat,
        /// The black card.
        black: u8,
        /// The white card.
        white: u8,
    },
    /// Both submissions resolved.
    Resolved {
        /// The round, from 1.
        round: u8,
        /// The blacks, always shown.
        blacks: PerSeat<u8>,
        /// The whites, shown only when the blacks tied.
        #[serde(skip_serializing_if = "Option::is_none")]
        whites: Option<PerSeat<u8>>,
        /// Which white was higher, announced when the blacks differed.
        #[serde(skip_serializing_if = "Option::is_none")]
        higher_white: Option<WhiteComparison>,
        /// Who took the prize; none when both colours tied (the prize is discarded).
        winner: Option<Seat>,
        /// The prize.
        prize: u8,
        /// Bout scores after the round.
        scores: PerSeat<u8>,
    },
    /// One seat missed the deadline: the other takes the prize, its white unrevealed.
    Forfeited {
        /// The round, from 1.
        round: u8,
        /// The late seat.
        late: Seat,
        /// The on-time seat's black, shown.
        on_time_black: u8,
        /// The late seat's randomly discarded black, shown.
        discarded_black: u8,
        /// The late seat's randomly discarded white, shown.
        discarded_white: u8,
        /// The prize, won by the on-time seat.
        prize: u8,
        /// Bout scores after the round.
        scores: PerSeat<u8>,
    },
    /// Both seats missed the deadline: the round restarts, nothing spent.
    Restarted {
        /// Consecutive restarts so far.
        restarts: u8,
    },
    /// A bout ended.
    BoutEnded {
        /// The bout.
        bout: u16,
        /// Its winner; none for a tie, which is replayed.
        winner: Option<Seat>,
        /// Its final scores.
        scores: PerSeat<u8>,
        /// Bouts won so far.
        bout_wins: PerSeat<u8>,
    },
}

/// One seat's cards in a bout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Hand {
    /// How many blacks of value 1, 2, 3 remain.
    pub blacks: [u8; 3],
    /// The whites that remain.
    pub whites: CardSet,
}

impl Hand {
    const FULL: Hand = Hand { blacks: [3, 3, 3], whites: CardSet::range(1, 9) };

    fn has_black(&self, b: u8) -> bool {
        self.blacks[b as usize - 1] > 0
    }

    /// The `i`-th physical black card (0-based, smallest first).
    fn nth_black(&self, mut i: u32) -> u8 {
        for (k, &n) in self.blacks.iter().enumerate() {
            if i < u32::from(n) {
                return k as u8 + 1;
            }
            i -= u32::from(n);
        }
        unreachable!("index beyond the blacks held")
    }

    fn black_count(&self) -> u32 {
        self.blacks.iter().map(|&n| u32::from(n)).sum()
    }

    fn spend(&mut self, black: u8, white: u8) {
        self.blacks[black as usize - 1] -= 1;
        self.whites.remove(white);
    }
}

/// The state of a Dueling Monsters match.
#[derive(Clone, Debug)]
pub struct DuelingMonsters {
    bouts_to_win: u8,
    given_prizes: Vec<[u8; 9]>,
    submissions: Submissions,
    /// The current bout, from 1 (replays included).
    bout: u16,
    bout_wins: PerSeat<u8>,
    prizes: [u8; 9],
    /// Rounds resolved in the bout.
    round: u8,
    scores: PerSeat<u8>,
    hands: PerSeat<Hand>,
    /// Whites publicly shown spent this bout (tied blacks, random discards).
    shown_whites: PerSeat<CardSet>,
    sealed: Sealed<(u8, u8)>,
    restarts: u8,
    end: Option<Outcome>,
}

/// What one viewer sees of a Dueling Monsters match.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DuelingMonstersView {
    /// Whose view (none: a spectator).
    pub viewer: Option<Seat>,
    /// Bouts needed to win.
    pub bouts_to_win: u8,
    /// The submission rule.
    pub submissions: Submissions,
    /// The current bout.
    pub bout: u16,
    /// Bouts won.
    pub bout_wins: PerSeat<u8>,
    /// Rounds resolved in the bout.
    pub round: u8,
    /// The prize of the open round.
    pub prize: Option<u8>,
    /// Prizes of this bout not yet revealed, as a set (their order is hidden).
    pub prizes_left: CardSet,
    /// Bout scores.
    pub scores: PerSeat<u8>,
    /// Each seat's remaining blacks (public: every black is shown).
    pub blacks: PerSeat<[u8; 3]>,
    /// How many whites each seat has left.
    pub whites_left: PerSeat<u32>,
    /// Whites shown spent this bout.
    pub shown_whites: PerSeat<CardSet>,
    /// The viewer's own whites.
    pub my_whites: Option<CardSet>,
    /// Which seats have submitted this round.
    pub moved: PerSeat<bool>,
    /// The viewer's own submission this round (black, white).
    pub my_move: Option<(u8, u8)>,
    /// Consecutive rounds both seats missed.
    pub restarts: u8,
}

/// The Dueling Monsters summary.
#[derive(Serialize)]
pub struct DuelingMonstersSummary {
    bouts: PerSeat<u8>,
    bout: u16,
    scores: PerSeat<u8>,
    round: u8,
}

fn check_order(order: &[u8]) -> Option<[u8; 9]> {
    if is_permutation(order, 9) { order.try_into().ok() } else { None }
}

impl DuelingMonsters {
    fn prize(&self) -> u8 {
        self.prizes[self.round as usize]
    }

    fn prizes_to_come(&self) -> u8 {
        self.prizes[self.round as usize..].iter().sum()
    }

    fn start_bout(&mut self, rng: &mut MatchRng, out: &mut impl Sink<DuelingMonstersEvent>) {
        self.prizes = match self.given_prizes.get(self.bout as usize - 1) {
            Some(p) => *p,
            None => {
                let mut p = [1, 2, 3, 4, 5, 6, 7, 8, 9];
                rng.shuffle(&mut p);
                p
            }
        };
        self.round = 0;
        self.scores = PerSeat::splat(0);
        self.hands = PerSeat::splat(Hand::FULL);
        self.shown_whites = PerSeat::splat(CardSet::EMPTY);
        out.emit(Audience::Public, DuelingMonstersEvent::BoutStarted { bout: self.bout });
        self.start_round(out);
    }

    fn start_round(&mut self, out: &mut impl Sink<DuelingMonstersEvent>) {
        self.sealed.clear();
        out.emit(
            Audience::Public,
            DuelingMonstersEvent::RoundStarted {
                bout: self.bout,
                round: self.round + 1,
                prize: self.prize(),
            },
        );
    }

    fn resolve(
        &mut self,
        moves: PerSeat<(u8, u8)>,
        rng: &mut MatchRng,
        out: &mut impl Sink<DuelingMonstersEvent>,
    ) {
        let prize = self.prize();
        let blacks = moves.map(|_, m| m.0);
        let whites = moves.map(|_, m| m.1);
        let by = |o: Ordering| match o {
            Ordering::Greater => Some(Seat::ZERO),
            Ordering::Less => Some(Seat::ONE),
            Ordering::Equal => None,
        };
        let white_order = whites[Seat::ZERO].cmp(&whites[Seat::ONE]);
        let (winner, shown, higher_white) = match blacks[Seat::ZERO].cmp(&blacks[Seat::ONE]) {
            Ordering::Equal => (by(white_order), Some(whites), None),
            o => {
                let cmp = match white_order {
                    Ordering::Greater => WhiteComparison::Seat0,
                    Ordering::Less => WhiteComparison::Seat1,
                    Ordering::Equal => WhiteComparison::Tie,
                };
                (by(o), None, Some(cmp))
            }
        };
        for s in Seat::BOTH {
            self.hands[s].spend(blacks[s], whites[s]);
            if shown.is_some() {
                self.shown_whites[s].insert(whites[s]);
            }
        }
        if let Some(w) = winner {
            self.scores[w] += prize;
        }
        self.round += 1;
        self.restarts = 0;
        out.emit(
            Audience::Public,
            DuelingMonstersEvent::Resolved {
                round: self.round,
                blacks,
                whites: shown,
                higher_white,
                winner,
                prize,
                scores: self.scores,
            },
        );
        self.after_round(rng, out);
    }

    fn forfeit(
        &mut self,
        late: Seat,
        rng: &mut MatchRng,
        out: &mut impl Sink<DuelingMonstersEvent>,
    ) {
        let on_time = late.other();
        let prize = self.prize();
        let (ob, ow) = self.sealed.get(on_time).expect("the on-time seat has submitted");
        self.hands[on_time].spend(ob, ow);
        // The late seat loses a random black (any of its physical black cards) and a
        // random white, drawn in that order from the match's stream.
        let hand = self.hands[late];
        let db = hand.nth_black(rng.below(hand.black_count()));
        let dw = hand.whites.nth(rng.below(hand.whites.len())).expect("a white is left");
        self.hands[late].spend(db, dw);
        self.shown_whites[late].insert(dw);
        self.scores[on_time] += prize;
        self.round += 1;
        self.restarts = 0;
        out.emit(
            Audience::Public,
            DuelingMonstersEvent::Forfeited {
                round: self.round,
                late,
                on_time_black: ob,
                discarded_black: db,
                discarded_white: dw,
                prize,
                scores: self.scores,
            },
        );
        self.after_round(rng, out);
    }

    fn after_round(&mut self, rng: &mut MatchRng, out: &mut impl Sink<DuelingMonstersEvent>) {
        let to_come = self.prizes_to_come();
        let [a, b] = self.scores.0;
        let decided = if a > b + to_come {
            Some(Some(Seat::ZERO))
        } else if b > a + to_come {
            Some(Some(Seat::ONE))
        } else if self.round == 9 {
            Some(None) // equal after 9 rounds: the bout is replayed
        } else {
            None
        };
        let Some(winner) = decided else {
            self.start_round(out);
            return;
        };
        if let Some(w) = winner {
            self.bout_wins[w] += 1;
        }
        out.emit(
            Audience::Public,
            DuelingMonstersEvent::BoutEnded {
                bout: self.bout,
                winner,
                scores: self.scores,
                bout_wins: self.bout_wins,
            },
        );
        if let Some(w) = winner.filter(|w| self.bout_wins[*w] == self.bouts_to_win) {
            self.sealed.clear();
            self.end = Some(Outcome::win(w, EndReason::Completed));
            return;
        }
        self.bout += 1;
        self.start_bout(rng, out);
    }
}

impl Game for DuelingMonsters {
    const NAME: &'static str = "dueling-monsters";
    const SIMULTANEOUS: bool = true;
    const HIDDEN_INFORMATION: bool = true;
    /// "1 minute per round" (text 000; the second text: "1 minute to make your submission each battle").
    const MOVE_TIME: MoveTime = MoveTime::Fixed { move_ms: 60_000, reserve_ms: 0 };
    type Options = DuelingMonstersOptions;
    type Move = DuelingMonstersMove;
    type Illegal = DuelingMonstersIllegal;
    type Event = DuelingMonstersEvent;
    type View = DuelingMonstersView;
    type Summary = DuelingMonstersSummary;

    fn new(
        options: &DuelingMonstersOptions,
        rng: &mut MatchRng,
        out: &mut impl Sink<DuelingMonstersEvent>,
    ) -> Result<Self, OptionsError> {
        if !(2..=3).contains(&options.bouts_to_win) {
            return Err(OptionsError::new(
                "bouts_to_win",
                format!("{} is neither 2 (best of 3) nor 3 (best of 5)", options.bouts_to_win),
            ));
        }
        let given_prizes = options
            .prizes
            .iter()
            .flatten()
            .enumerate()
            .map(|(i, p)| {
                check_order(p).ok_or_else(|| {
                    OptionsError::new(
                        "prizes",
                        format!("order {} is not a permutation of 1..9", i + 1),
                    )
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut g = DuelingMonsters {
            bouts_to_win: options.bouts_to_win,
            given_prizes,
            submissions: options.submissions,
            bout: 1,
            bout_wins: PerSeat::splat(0),
            prizes: [0; 9],
            round: 0,
            scores: PerSeat::splat(0),
            hands: PerSeat::splat(Hand::FULL),
            shown_whites: PerSeat::splat(CardSet::EMPTY),
            sealed: Sealed::default(),
            restarts: 0,
            end: None,
        };
        out.emit(
            Audience::Public,
            DuelingMonstersEvent::Setup {
                bouts_to_win: g.bouts_to_win,
                submissions: g.submissions,
            },
        );
        g.start_bout(rng, out);
        Ok(g)
    }

    fn to_move(&self) -> SeatSet {
        if self.end.is_some() { SeatSet::NONE } else { self.sealed.waiting() }
    }

    fn can_submit(&self, seat: Seat) -> bool {
        self.end.is_none()
            && (self.submissions == Submissions::Changeable || self.sealed.get(seat).is_none())
    }

    fn has_moved(&self, seat: Seat) -> bool {
        self.sealed.get(seat).is_some()
    }

    fn legal_moves(&self, seat: Seat, out: &mut Vec<DuelingMonstersMove>) {
        let h = self.hands[seat];
        for b in 1..=3u8 {
            if h.has_black(b) {
                out.extend(
                    h.whites
                        .iter()
                        .map(|w| DuelingMonstersMove { black: i64::from(b), white: i64::from(w) }),
                );
            }
        }
    }

    fn apply(
        &mut self,
        seat: Seat,
        mv: &DuelingMonstersMove,
        rng: &mut MatchRng,
        out: &mut impl Sink<DuelingMonstersEvent>,
    ) -> Result<(), DuelingMonstersIllegal> {
        if !(1..=3).contains(&mv.black) {
            return Err(DuelingMonstersIllegal::NoSuchBlack(mv.black));
        }
        if !(1..=9).contains(&mv.white) {
            return Err(DuelingMonstersIllegal::NoSuchWhite(mv.white));
        }
        let (black, white) = (mv.black as u8, mv.white as u8);
        let h = self.hands[seat];
        if !h.has_black(black) {
            return Err(DuelingMonstersIllegal::BlackSpent(black));
        }
        if !h.whites.contains(white) {
            return Err(DuelingMonstersIllegal::WhiteSpent(white));
        }
        let first_time = self.sealed.get(seat).is_none();
        self.sealed.seal(seat, (black, white));
        out.emit(Audience::Seat(seat), DuelingMonstersEvent::MoveSealed { seat, black, white });
        if first_time {
            out.emit(Audience::Public, DuelingMonstersEvent::Moved { seat });
        }
        if self.submissions == Submissions::First
            && let Some(moves) = self.sealed.both()
        {
            self.resolve(moves, rng, out);
        }
        Ok(())
    }

    fn deadline(&mut self, rng: &mut MatchRng, out: &mut impl Sink<DuelingMonstersEvent>) {
        if self.end.is_some() {
            return;
        }
        if let Some(moves) = self.sealed.both() {
            // Changeable submissions: the deadline is what resolves the round.
            self.resolve(moves, rng, out);
            return;
        }
        let late = self.sealed.waiting();
        if late == SeatSet::BOTH {
            self.restarts += 1;
            out.emit(Audience::Public, DuelingMonstersEvent::Restarted { restarts: self.restarts });
            if self.restarts >= MAX_RESTARTS {
                self.end = Some(Outcome::draw(EndReason::Abandoned));
            }
            return;
        }
        let late = if late.contains(Seat::ZERO) { Seat::ZERO } else { Seat::ONE };
        self.forfeit(late, rng, out);
    }

    fn view(&self, viewer: Viewer) -> DuelingMonstersView {
        let open = self.end.is_none();
        let me = viewer.seat();
        let mut prizes_left = CardSet::EMPTY;
        let from = if open { self.round as usize + 1 } else { 9 };
        for &p in &self.prizes[from.min(9)..] {
            prizes_left.insert(p);
        }
        DuelingMonstersView {
            viewer: me,
            bouts_to_win: self.bouts_to_win,
            submissions: self.submissions,
            bout: self.bout,
            bout_wins: self.bout_wins,
            round: self.round,
            prize: open.then(|| self.prize()),
            prizes_left,
            scores: self.scores,
            blacks: self.hands.map(|_, h| h.blacks),
            whites_left: self.hands.map(|_, h| h.whites.len()),
            shown_whites: self.shown_whites,
            my_whites: me.map(|s| self.hands[s].whites),
            moved: PerSeat::from_fn(|s| self.sealed.get(s).is_some()),
            my_move: me.and_then(|s| self.sealed.get(s)),
            restarts: self.restarts,
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.end
    }

    fn summary(&self) -> DuelingMonstersSummary {
        DuelingMonstersSummary {
            bouts: self.bout_wins,
            bout: self.bout,
            scores: self.scores,
            round: self.round,
        }
    }
}
