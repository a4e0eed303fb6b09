//! Masterminds Duel on the wire: random matches through `rules_core::Match`, and for every
//! event and every view (seat 0, seat 1, spectator) the public message is checked against
//! the rules' value, decoded back with tables written here, and against what that viewer
//! was told by its events, so nothing hidden can travel through the conversion.

use api::v1::{self, masterminds_event::Kind};
use rules_core::{
    Audience, EventLog, Game, Match, MatchEvent, MatchRng, PerSeat, Seat, SeatSet, Seed, Viewer,
};
use rules_duel::masterminds::{BoutEnd, CardValues, SeenCard, StrengthsOption, TurnView};
use rules_duel::{
    Card, Masterminds, MastermindsEvent, MastermindsMove, MastermindsOptions, MastermindsView,
    Strengths,
};
use wire::{Wire, WireError};

const VIEWERS: [Viewer; 3] = [Viewer::Seat(Seat::ZERO), Viewer::Seat(Seat::ONE), Viewer::Spectator];
const MATCHES: u64 = 300;

fn driver(seed: u64) -> MatchRng {
    Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes").rng()
}

fn pick<T: Clone>(rng: &mut MatchRng, xs: &[T]) -> T {
    xs[rng.below(xs.len() as u32) as usize].clone()
}

fn legal(m: &Match<Masterminds>, seat: Seat) -> Vec<MastermindsMove> {
    let mut v = Vec::new();
    m.legal_moves(seat, &mut v);
    v
}

/// Default, given strengths (small, so ties and Swaps matter) or given puzzle winners.
fn options(rng: &mut MatchRng) -> MastermindsOptions {
    let priority = if rng.below(2) == 0 { Seat::ZERO } else { Seat::ONE };
    let mut o = MastermindsOptions { priority, ..MastermindsOptions::default() };
    match rng.below(3) {
        0 => {}
        1 => {
            let mut values = || {
                let mut v = || i64::from(rng.below(12));
                CardValues {
                    bluff: v(),
                    counterspell: v(),
                    empower: v(),
                    fireball: v(),
                    kill: v(),
                    mayhem: v(),
                    offering: v(),
                    reveal: v(),
                    swap: v(),
                    warp_time: v(),
                }
            };
            o.strengths = Some(StrengthsOption { seat0: values(), seat1: values() });
        }
        _ => {
            o.puzzle_winners = Some(
                (0..10).map(|_| if rng.below(2) == 0 { Seat::ZERO } else { Seat::ONE }).collect(),
            );
        }
    }
    o
}

// ---- Decoding tables, written independently of the code under test ----

fn seat(n: u32) -> Seat {
    Seat::new(u64::from(n)).expect("a seat is 0 or 1")
}

fn seats(ns: &[u32]) -> SeatSet {
    ns.iter().fold(SeatSet::NONE, |s, n| s.with(seat(*n)))
}

/// The card of a public value, by enum name (`MASTERMINDS_CARD_WARP_TIME` is `warp_time`);
/// unset is `None`.
fn card(v: i32) -> Option<Card> {
    let e = v1::MastermindsCard::try_from(v).expect("a known card value");
    if e == v1::MastermindsCard::Unspecified {
        return None;
    }
    let name = e.as_str_name();
    let found = Card::ALL
        .into_iter()
        .find(|c| name == format!("MASTERMINDS_CARD_{}", c.name().to_uppercase()));
    Some(found.expect("every card value names a card"))
}

fn some_card(v: i32) -> Card {
    card(v).expect("a card is set")
}

fn pair<T: TryFrom<i64>>(p: Option<&v1::SeatPair>) -> PerSeat<T>
where
    T::Error: std::fmt::Debug,
{
    let p = p.expect("the pair is set");
    PerSeat([T::try_from(p.seat0).unwrap(), T::try_from(p.seat1).unwrap()])
}

fn strengths(s: &v1::MastermindsStrengths) -> Strengths {
    let v1::MastermindsStrengths {
        bluff,
        counterspell,
        empower,
        fireball,
        kill,
        mayhem,
        offering,
        reveal,
        swap,
        warp_time,
    } = *s;
    let mut out = Strengths::default();
    for (c, v) in [
        (Card::Bluff, bluff),
        (Card::Counterspell, counterspell),
        (Card::Empower, empower),
        (Card::Fireball, fireball),
        (Card::Kill, kill),
        (Card::Mayhem, mayhem),
        (Card::Offering, offering),
        (Card::Reveal, reveal),
        (Card::Swap, swap),
        (Card::WarpTime, warp_time),
    ] {
        out[c] = u16::try_from(v).unwrap();
    }
    out
}

fn bout_end(v: i32) -> BoutEnd {
    match v1::MastermindsBoutEnd::try_from(v).expect("a known bout end") {
        v1::MastermindsBoutEnd::Points => BoutEnd::Points,
        v1::MastermindsBoutEnd::KillCountered => BoutEnd::KillCountered,
        v1::MastermindsBoutEnd::KillAgainstOffering => BoutEnd::KillAgainstOffering,
        v1::MastermindsBoutEnd::Unspecified => panic!("a bout end is always set"),
    }
}

fn mv(m: &v1::MastermindsMove) -> MastermindsMove {
    MastermindsMove { card: some_card(m.card), shown: card(m.shown_as) }
}

/// The explicit table: which oneof field each rules variant must become.
fn expected_kind(e: &MastermindsEvent) -> &'static str {
    match e {
        MastermindsEvent::Setup { .. } => "setup",
        MastermindsEvent::Strengths { .. } => "strengths",
        MastermindsEvent::BoutStarted { .. } => "bout_started",
        MastermindsEvent::TurnStarted { .. } => "turn_started",
        MastermindsEvent::Moved { .. } => "moved",
        MastermindsEvent::MoveSealed { .. } => "move_sealed",
        MastermindsEvent::Told { .. } => "told",
        MastermindsEvent::Late { .. } => "late",
        MastermindsEvent::TurnResolved { .. } => "turn_resolved",
        MastermindsEvent::Revealed { .. } => "revealed",
        MastermindsEvent::BluffOuted { .. } => "bluff_outed",
        MastermindsEvent::BoutEnded { .. } => "bout_ended",
    }
}

fn kind_name(k: &Kind) -> &'static str {
    match k {
        Kind::Setup(_) => "setup",
        Kind::Strengths(_) => "strengths",
        Kind::BoutStarted(_) => "bout_started",
        Kind::TurnStarted(_) => "turn_started",
        Kind::Moved(_) => "moved",
        Kind::MoveSealed(_) => "move_sealed",
        Kind::Told(_) => "told",
        Kind::Late(_) => "late",
        Kind::TurnResolved(_) => "turn_resolved",
        Kind::Revealed(_) => "revealed",
        Kind::BluffOuted(_) => "bluff_outed",
        Kind::BoutEnded(_) => "bout_ended",
    }
}

fn u8_of(n: u32) -> u8 {
    u8::try_from(n).unwrap()
}

/// The rules' event a message carries: every field read back.
fn event_back(k: &Kind) -> MastermindsEvent {
    match k {
        Kind::Setup(e) => MastermindsEvent::Setup { priority: seat(e.priority) },
        Kind::Strengths(e) => MastermindsEvent::Strengths {
            seat: seat(e.seat),
            strengths: strengths(e.strengths.as_ref().expect("strengths are set")),
        },
        Kind::BoutStarted(e) => MastermindsEvent::BoutStarted { bout: u8_of(e.bout) },
        Kind::TurnStarted(e) => MastermindsEvent::TurnStarted {
            bout: u8_of(e.bout),
            turn: u8_of(e.turn),
            first: e.first.map(seat),
        },
        Kind::Moved(e) => MastermindsEvent::Moved { seat: seat(e.seat) },
        Kind::MoveSealed(e) => MastermindsEvent::MoveSealed {
            seat: seat(e.seat),
            card: some_card(e.card),
            shown: card(e.shown_as),
        },
        Kind::Told(e) => MastermindsEvent::Told { seat: seat(e.seat), card: some_card(e.card) },
        Kind::Late(e) => MastermindsEvent::Late { seats: seats(&e.seats) },
        Kind::TurnResolved(e) => MastermindsEvent::TurnResolved {
            bout: u8_of(e.bout),
            turn: u8_of(e.turn),
            shown: PerSeat([some_card(e.shown0), some_card(e.shown1)]),
            winner: e.winner.map(seat),
            points: pair(e.points.as_ref()),
        },
        Kind::Revealed(e) => MastermindsEvent::Revealed {
            bout: u8_of(e.bout),
            turn: u8_of(e.turn),
            strengths: pair(e.strengths.as_ref()),
        },
        Kind::BluffOuted(e) => MastermindsEvent::BluffOuted {
            seat: seat(e.seat),
            bout: u8_of(e.bout),
            turn: u8_of(e.turn),
            claimed: card(e.claimed),
        },
        Kind::BoutEnded(e) => MastermindsEvent::BoutEnded {
            bout: u8_of(e.bout),
            winner: e.winner.map(seat),
            end: bout_end(e.end),
            points: pair(e.points.as_ref()),
            bout_wins: pair(e.bout_wins.as_ref()),
        },
    }
}

fn seen_back(c: Option<&v1::MastermindsSeenCard>) -> SeenCard {
    let v1::MastermindsSeenCard { card: c, shown_as } = *c.expect("both cards are set");
    SeenCard { card: some_card(c), shown: card(shown_as) }
}

/// The rules' view a message carries: every field of the message read back, so a field
/// the rules' view does not have would have nowhere to go and fail the comparison.
fn view_back(v: &v1::MastermindsView) -> MastermindsView {
    let v1::MastermindsView {
        viewer,
        priority,
        bout,
        turn,
        bout_wins,
        points,
        first,
        moved,
        my_strengths,
        my_hand,
        my_move,
        told,
        history,
    } = v;
    let moved = seats(moved);
    MastermindsView {
        viewer: viewer.map(seat),
        priority: seat(*priority),
        bout: u8_of(*bout),
        turn: u8_of(*turn),
        bout_wins: pair(bout_wins.as_ref()),
        points: pair(points.as_ref()),
        first: first.map(seat),
        moved: PerSeat::from_fn(|s| moved.contains(s)),
        my_strengths: my_strengths.as_ref().map(strengths),
        my_hand: my_hand.as_ref().map(|h| h.cards.iter().map(|c| some_card(*c)).collect()),
        my_move: my_move.as_ref().map(mv),
        told: card(*told),
        history: history
            .iter()
            .map(|t| {
                let v1::MastermindsTurn {
                    bout,
                    turn,
                    first,
                    late,
                    card0,
                    card1,
                    winner,
                    points,
                    revealed,
                } = t;
                TurnView {
                    bout: u8_of(*bout),
                    turn: u8_of(*turn),
                    first: first.map(seat),
                    late: seats(late),
                    cards: PerSeat([seen_back(card0.as_ref()), seen_back(card1.as_ref())]),
                    winner: winner.map(seat),
                    points: pair(points.as_ref()),
                    revealed: revealed.as_ref().map(|p| pair(Some(p))),
                }
            })
            .collect(),
    }
}

fn game_kind(e: &MastermindsEvent) -> Kind {
    match <Masterminds as Wire>::event_to_proto(e).kind {
        Some(v1::event::Kind::Masterminds(v1::MastermindsEvent { kind: Some(k) })) => k,
        other => panic!("{e:?} became {other:?}"),
    }
}

fn view_message(v: &MastermindsView) -> v1::MastermindsView {
    match <Masterminds as Wire>::view_to_proto(v).game {
        Some(v1::view::Game::Masterminds(m)) => m,
        other => panic!("a Masterminds view became {other:?}"),
    }
}

// ---- What each viewer was told, rebuilt from the events it received ----

/// Everything one viewer has been told by its events: what its view may hold, no more.
struct Told {
    viewer: Viewer,
    /// Each resolved turn's cards as this viewer may know them, in order.
    turns: Vec<(u8, u8, PerSeat<SeenCard>)>,
    /// This viewer's own latest strengths (a seat only).
    strengths: Option<Strengths>,
    /// Its own sealed move this turn.
    sealed: Option<MastermindsMove>,
    /// The card told to it this turn (Warp Time).
    told: Option<Card>,
    /// Its own move of the turn being resolved, kept for the history.
    last_own: Option<MastermindsMove>,
}

impl Told {
    fn new(viewer: Viewer) -> Self {
        Told {
            viewer,
            turns: Vec::new(),
            strengths: None,
            sealed: None,
            told: None,
            last_own: None,
        }
    }

    fn hear(&mut self, e: &MastermindsEvent) {
        let me = self.viewer.seat();
        match e {
            MastermindsEvent::Strengths { seat, strengths } => {
                assert_eq!(Some(*seat), me, "strengths reach only their own seat");
                self.strengths = Some(*strengths);
            }
            MastermindsEvent::MoveSealed { seat, card, shown } => {
                assert_eq!(Some(*seat), me, "a sealed move reaches only its own seat");
                self.sealed = Some(MastermindsMove { card: *card, shown: *shown });
                self.last_own = self.sealed;
            }
            MastermindsEvent::Told { seat, card } => {
                assert_eq!(Some(*seat), me, "a told card reaches only the Warp seat");
                self.told = Some(*card);
            }
            MastermindsEvent::TurnStarted { .. } | MastermindsEvent::BoutEnded { .. } => {
                self.sealed = None;
                self.told = None;
            }
            MastermindsEvent::TurnResolved { bout, turn, shown, .. } => {
                let cards = PerSeat::from_fn(|s| {
                    if me == Some(s) {
                        // Its own card: the truth, with the claim of its own Bluff.
                        let own = self.last_own.expect("its own move was sealed to it");
                        SeenCard { card: own.card, shown: own.shown }
                    } else {
                        SeenCard { card: shown[s], shown: None }
                    }
                });
                self.turns.push((*bout, *turn, cards));
            }
            MastermindsEvent::BluffOuted { seat, bout, turn, claimed } => {
                let t = self
                    .turns
                    .iter_mut()
                    .find(|(b, t, _)| b == bout && t == turn)
                    .expect("an outed Bluff was played in a resolved turn");
                if me != Some(*seat) {
                    t.2[*seat] = SeenCard { card: Card::Bluff, shown: *claimed };
                }
            }
            MastermindsEvent::Setup { .. }
            | MastermindsEvent::BoutStarted { .. }
            | MastermindsEvent::Moved { .. }
            | MastermindsEvent::Late { .. }
            | MastermindsEvent::Revealed { .. } => {}
        }
    }

    /// The converted view holds exactly what this viewer was told, and its own fields.
    fn check(&self, m: &v1::MastermindsView, game_over: bool) {
        let me = self.viewer.seat();
        assert_eq!(m.viewer, me.map(|s| s.index() as u32));
        match me {
            None => {
                assert!(m.my_strengths.is_none(), "a spectator sees no strengths");
                assert!(m.my_hand.is_none(), "a spectator sees no hand");
                assert!(m.my_move.is_none(), "a spectator sees no sealed move");
                assert_eq!(m.told, 0, "a spectator is told no card");
            }
            Some(_) => {
                let s = m.my_strengths.as_ref().expect("a seat sees its strengths");
                assert_eq!(Some(strengths(s)), self.strengths, "its own latest strengths");
                assert!(m.my_hand.is_some(), "a seat sees its hand");
                assert_eq!(m.my_move.as_ref().map(mv), self.sealed, "its own sealed move");
                if !game_over {
                    assert_eq!(card(m.told), self.told, "the card told to it");
                }
            }
        }
        assert_eq!(m.history.len(), self.turns.len());
        for (t, (bout, turn, cards)) in m.history.iter().zip(&self.turns) {
            assert_eq!((t.bout, t.turn), (u32::from(*bout), u32::from(*turn)));
            let got = PerSeat([seen_back(t.card0.as_ref()), seen_back(t.card1.as_ref())]);
            assert_eq!(&got, cards, "turn {bout}.{turn} as {:?} was told it", self.viewer);
        }
    }
}

/// Converts and checks every event in `log[from..]` and every viewer's view; notes in
/// `kinds` the event kinds met.
fn check_step(
    m: &Match<Masterminds>,
    log: &EventLog<MastermindsEvent>,
    from: usize,
    told: &mut [Told; 3],
    kinds: &mut Vec<&'static str>,
) {
    for t in &log[from..] {
        let message = wire::match_event_to_proto::<Masterminds>(&t.event);
        match (&t.event, message.kind) {
            (MatchEvent::Game(e), Some(v1::event::Kind::Masterminds(me))) => {
                let k = me.kind.expect("the kind is set");
                assert_eq!(kind_name(&k), expected_kind(e), "{e:?}");
                assert_eq!(&event_back(&k), e, "every field carried");
                assert_eq!(k, game_kind(e));
                if !kinds.contains(&expected_kind(e)) {
                    kinds.push(expected_kind(e));
                }
                // Private events go to one seat only: the seat the event names.
                let private = matches!(
                    e,
                    MastermindsEvent::Strengths { .. }
                        | MastermindsEvent::MoveSealed { .. }
                        | MastermindsEvent::Told { .. }
                );
                assert_eq!(private, t.audience != Audience::Public, "{e:?} to {:?}", t.audience);
                for (i, v) in VIEWERS.into_iter().enumerate() {
                    if t.audience.admits(v) {
                        told[i].hear(e);
                    }
                }
            }
            (MatchEvent::Started { game, .. }, Some(v1::event::Kind::MatchStarted(s))) => {
                assert_eq!(s.game, *game);
            }
            (MatchEvent::Ended { outcome, seed }, Some(v1::event::Kind::MatchEnded(s))) => {
                assert_eq!(s.winner, outcome.winner.map(|w| w.index() as u32));
                assert_eq!(s.seed, seed.to_hex());
            }
            (MatchEvent::Resigned { seat: r }, Some(v1::event::Kind::Resigned(s))) => {
                assert_eq!(s.seat, r.index() as u32);
            }
            (e, k) => panic!("{e:?} became {k:?}"),
        }
    }
    for (i, v) in VIEWERS.into_iter().enumerate() {
        let view = m.view(v).game;
        let message = view_message(&view);
        assert_eq!(view_back(&message), view, "the message carries the view, exactly");
        told[i].check(&message, m.is_over());
        let json = serde_json::to_string(&view).expect("views serialize");
        let again: MastermindsView = serde_json::from_str(&json).expect("views deserialize");
        assert_eq!(again, view, "the JSON round trip is exact");
    }
}

/// Plays one random match, checking every event, view and legal move on the way.
fn random_match(seed: u64, kinds: &mut Vec<&'static str>) {
    let mut rng = driver(seed);
    let opts = options(&mut rng);
    let mut log = Vec::new();
    let mut m = Match::<Masterminds>::new(&opts, Seed::from_array(rng.bytes32()), &mut log)
        .expect("valid options");
    let mut told = VIEWERS.map(Told::new);
    check_step(&m, &log, 0, &mut told, kinds);
    let resign_at = (rng.below(10) == 0).then(|| rng.below(120));
    let mut steps = 0;
    while !m.is_over() {
        steps += 1;
        assert!(steps < 1000, "a match ends");
        let from = log.len();
        let owing: Vec<Seat> = m.to_move().iter().collect();
        if resign_at == Some(steps) {
            m.resign(pick(&mut rng, &Seat::BOTH), &mut log).unwrap();
        } else if owing.is_empty() || rng.below(20) == 0 {
            m.deadline(&mut log).unwrap();
        } else {
            let seat = pick(&mut rng, &owing);
            let moves = legal(&m, seat);
            for x in &moves {
                let back = <Masterminds as Wire>::move_from_proto(&Masterminds::move_to_proto(x));
                assert_eq!(back.as_ref(), Ok(x), "a legal move survives the wire");
            }
            m.submit(seat, &pick(&mut rng, &moves), &mut log).unwrap();
        }
        check_step(&m, &log, from, &mut told, kinds);
    }
}

#[test]
fn random_matches_convert_exactly_and_leak_nothing() {
    let mut kinds = Vec::new();
    for seed in 0..MATCHES {
        random_match(seed, &mut kinds);
    }
    // Every variant was met, so the checks above ran on each kind.
    let all = [
        "setup",
        "strengths",
        "bout_started",
        "turn_started",
        "moved",
        "move_sealed",
        "told",
        "late",
        "turn_resolved",
        "revealed",
        "bluff_outed",
        "bout_ended",
    ];
    for k in all {
        assert!(kinds.contains(&k), "no {k} event in {MATCHES} matches");
    }
}

/// Two matches that differ only in the card one seat commits first: the other seat and
/// the spectator receive the same messages (events and views), up to the resolution.
#[test]
fn a_sealed_card_does_not_reach_the_wire() {
    let mut forks = 0;
    for seed in 0..60 {
        let mut rng = driver(1000 + seed);
        let opts = options(&mut rng);
        let mut log = Vec::new();
        let mut a = Match::<Masterminds>::new(&opts, Seed::from_array(rng.bytes32()), &mut log)
            .expect("valid options");
        while !a.is_over() {
            let owing: Vec<Seat> = a.to_move().iter().collect();
            if owing.is_empty() {
                a.deadline(&mut log).unwrap();
                continue;
            }
            let first = pick(&mut rng, &owing);
            let moves = legal(&a, first);
            let x = pick(&mut rng, &moves);
            let alt: Vec<_> = moves.iter().filter(|m| **m != x).copied().collect();
            if owing.len() == 2 && !alt.is_empty() {
                forks += 1;
                let y = pick(&mut rng, &alt);
                let mut b = a.clone();
                let (mut la, mut lb) = (Vec::new(), Vec::new());
                a.submit(first, &x, &mut la).unwrap();
                b.submit(first, &y, &mut lb).unwrap();
                for v in [Viewer::Seat(first.other()), Viewer::Spectator] {
                    let seen = |l: &EventLog<MastermindsEvent>| -> Vec<v1::Event> {
                        l.iter()
                            .filter(|t| t.audience.admits(v))
                            .map(|t| wire::match_event_to_proto::<Masterminds>(&t.event))
                            .collect()
                    };
                    assert_eq!(seen(&la), seen(&lb), "events to {v:?}");
                    assert_eq!(
                        Masterminds::view_to_proto(&a.view(v).game),
                        Masterminds::view_to_proto(&b.view(v).game),
                        "view of {v:?}"
                    );
                }
                log.extend(la);
            } else {
                a.submit(first, &x, &mut log).unwrap();
            }
        }
    }
    assert!(forks > 1000, "only {forks} forks");
}

#[test]
fn moves_of_other_games_and_empty_moves_are_refused() {
    let gops = v1::Move { game: Some(v1::r#move::Game::Gops(v1::GopsMove { card: 3 })) };
    assert_eq!(
        Masterminds::move_from_proto(&gops),
        Err(WireError::WrongGame { expected: "masterminds" })
    );
    assert_eq!(
        Masterminds::move_from_proto(&v1::Move { game: None }),
        Err(WireError::Missing("game"))
    );
    let mm = |card: i32, shown_as: i32| v1::Move {
        game: Some(v1::r#move::Game::Masterminds(v1::MastermindsMove { card, shown_as })),
    };
    let (bluff, kill, fireball) = (
        v1::MastermindsCard::Bluff as i32,
        v1::MastermindsCard::Kill as i32,
        v1::MastermindsCard::Fireball as i32,
    );
    assert_eq!(Masterminds::move_from_proto(&mm(0, 0)), Err(WireError::Missing("card")));
    assert_eq!(
        Masterminds::move_from_proto(&mm(99, 0)),
        Err(WireError::Unknown { field: "card", value: 99 })
    );
    // A Bluff names a card; no other card does (a Kill shown as a Fireball is no move).
    assert_eq!(Masterminds::move_from_proto(&mm(bluff, 0)), Err(WireError::Missing("shown_as")));
    let shown = Masterminds::move_from_proto(&mm(kill, fireball));
    assert_eq!(shown, Err(WireError::OnlyFor { field: "shown_as", only_for: "a Bluff" }));
    let said = shown.unwrap_err().to_string();
    assert!(said.starts_with("shown_as is only for a Bluff"), "{said}");
    assert!(!said.contains(&fireball.to_string()), "no internal number: {said}");
    assert_eq!(
        Masterminds::move_from_proto(&mm(bluff, 77)),
        Err(WireError::Unknown { field: "shown_as", value: 77 })
    );
    assert_eq!(Masterminds::move_from_proto(&mm(kill, 0)), Ok(MastermindsMove::play(Card::Kill)));
    // Bluff as Bluff is of the shape: the rules refuse it, as for the JSON move.
    assert_eq!(
        Masterminds::move_from_proto(&mm(bluff, bluff)),
        Ok(MastermindsMove::bluff(Card::Bluff))
    );
}

#[test]
fn every_card_and_move_round_trips() {
    for c in Card::ALL {
        assert_eq!(card(wire::masterminds::card(c) as i32), Some(c));
        let moves = if c == Card::Bluff {
            Card::ALL.iter().map(|&s| MastermindsMove::bluff(s)).collect()
        } else {
            vec![MastermindsMove::play(c)]
        };
        for m in moves {
            assert_eq!(Masterminds::move_from_proto(&Masterminds::move_to_proto(&m)), Ok(m));
        }
    }
    assert_eq!(games::visit("masterminds", NameOf), Some(Masterminds::NAME));
}

/// Which game `games::visit` picked.
struct NameOf;

impl games::Visit for NameOf {
    type Out = &'static str;
    fn visit<G: games::Hostable>(self) -> &'static str {
        G::NAME
    }
}

#[test]
fn strengths_json_is_strict() {
    let s: Strengths = serde_json::from_str(
        r#"{"bluff":1,"counterspell":2,"empower":3,"fireball":4,"kill":5,"mayhem":6,
            "offering":7,"reveal":8,"swap":9,"warp_time":10}"#,
    )
    .unwrap();
    assert_eq!(s.0, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    assert!(serde_json::from_str::<Strengths>(r#"{"bluff":1}"#).is_err(), "all ten are needed");
    assert!(
        serde_json::from_str::<Strengths>(
            r#"{"bluff":1,"bluff":1,"counterspell":2,"empower":3,"fireball":4,"kill":5,
                "mayhem":6,"offering":7,"reveal":8,"swap":9,"warp_time":10}"#
        )
        .is_err(),
        "no card twice"
    );
}
