//! Fuzzing every game's move decoding and apply, and its options: protobuf `Move`s built
//! from arbitrary fields, arbitrary and mutated bytes decoded with prost, arbitrary and
//! mutated JSON moves and options. Nothing may panic; a refusal leaves the state (every
//! view, the summary, the event log) as it was; accepted moves are exactly the legal ones.
//!
//! Every game of the registry is fuzzed (`games::visit`); the arbitrary protobuf moves
//! (`any_proto`) and the JSON keys (`WORDS`) name each game's fields, so a game not
//! listed there is fuzzed with arbitrary bytes, JSON and mutations of its legal moves only.
//!
//! `cargo test -p wire --test fuzz` runs a modest number of cases; the volume run is
//! `FUZZ_INPUTS=1000000 cargo test --release -p wire --test fuzz -- --nocapture
//! --test-threads 1` (inputs per target, a progress line every 10% of them; `FUZZ_GAME=gops`
//! for one game).

use api::v1::{self, r#move};
use games::parse::{parse_move, parse_options};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestCaseError, TestRunner};
use prost::Message;
use rules_core::{Game, Match, MatchRng, Seat, Seed, Step, Viewer};
use serde_json::{Map, Value, json};
use std::time::Instant;
use wire::Wire;

/// The longest refusal message any input may produce: messages repeat at most 64
/// characters of client text.
const MAX_MESSAGE: usize = 400;

fn inputs() -> u32 {
    std::env::var("FUZZ_INPUTS").ok().and_then(|s| s.parse().ok()).unwrap_or(200)
}

/// The runs' seed: `FUZZ_SEED`, or a fixed one, so `cargo test` is the same run every
/// time (a volume run picks its own seed to explore further).
fn seed() -> u64 {
    std::env::var("FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(1)
}

/// Runs `f` on `inputs()` values of `strategy`, printing progress; panics name the input.
#[allow(clippy::disallowed_methods, reason = "the progress lines time the run; no rules code")]
fn fuzz<S: Strategy>(target: &str, strategy: S, f: impl Fn(S::Value) -> Result<(), TestCaseError>)
where
    S::Value: std::fmt::Debug,
{
    let n = inputs();
    let config = Config {
        cases: n,
        failure_persistence: None,
        rng_seed: proptest::test_runner::RngSeed::Fixed(seed()),
        ..Config::default()
    };
    let mut runner = TestRunner::new(config);
    let started = Instant::now();
    let done = std::cell::Cell::new(0u64);
    let step = u64::from(n / 10).max(1);
    let result = runner.run(&strategy, |v| {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(v)));
        let d = done.get() + 1;
        done.set(d);
        if n >= 100_000 && d.is_multiple_of(step) {
            eprintln!("fuzz {target}: {d} inputs, {:.1} s", started.elapsed().as_secs_f64());
        }
        match r {
            Ok(r) => r,
            Err(p) => Err(TestCaseError::fail(format!(
                "panic: {}",
                p.downcast_ref::<String>()
                    .cloned()
                    .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                    .unwrap_or_default()
            ))),
        }
    });
    eprintln!(
        "fuzz {target}: {} inputs (seed {}) in {:.1} s, {}",
        done.get(),
        seed(),
        started.elapsed().as_secs_f64(),
        if result.is_ok() { "no failure" } else { "FAILED" }
    );
    if let Err(e) = result {
        panic!("fuzz {target}: {e}");
    }
}

fn json<T: serde::Serialize + ?Sized>(t: &T) -> Value {
    serde_json::to_value(t).expect("rules types serialize")
}

/// A match of `G` with default options after `prefix` random legal steps (moves, and now
/// and then a deadline), driven by `seed`; and the seat to fuzz.
fn state<G: Game>(seed: u64, prefix: u8, seat: bool) -> (Match<G>, Seat) {
    let s = Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes");
    let mut m = Match::<G>::new(&G::Options::default(), s, &mut Vec::new()).expect("defaults");
    let mut rng: MatchRng = Seed::from_bytes(&(!seed).to_le_bytes()).expect("8 bytes").rng();
    let mut moves = Vec::new();
    for _ in 0..prefix {
        let owing: Vec<Seat> = m.to_move().iter().collect();
        if owing.is_empty() {
            break;
        }
        if rng.below(8) == 0 {
            m.step(&Step::Deadline, &mut Vec::new()).expect("a deadline is always a step");
            continue;
        }
        let who = owing[rng.below(owing.len() as u32) as usize];
        moves.clear();
        m.legal_moves(who, &mut moves);
        if moves.is_empty() {
            break;
        }
        let mv = moves[rng.below(moves.len() as u32) as usize].clone();
        m.step(&Step::Move { seat: who, mv }, &mut Vec::new()).expect("legal moves apply");
    }
    (m, if seat { Seat::ONE } else { Seat::ZERO })
}

fn snapshot<G: Game>(m: &Match<G>) -> Value {
    json(&[
        json(&m.summary()),
        json(&m.view(Viewer::Seat(Seat::ZERO))),
        json(&m.view(Viewer::Seat(Seat::ONE))),
        json(&m.view(Viewer::Spectator)),
        json(&m.outcome()),
    ])
}

/// Applies `mv` to a copy of `m`: accepted exactly when legal; a refusal changes nothing
/// and says so briefly.
fn apply_checked<G: Game>(m: &Match<G>, seat: Seat, mv: &G::Move) -> Result<(), TestCaseError> {
    let mut legal = Vec::new();
    m.legal_moves(seat, &mut legal);
    let is_legal = legal.contains(mv);
    let before = snapshot(m);
    let mut after = m.clone();
    let mut log = Vec::new();
    match after.step(&Step::Move { seat, mv: mv.clone() }, &mut log) {
        Ok(()) => {
            // A move written another way than its listed form (a Hexspiel placement's cells
            // in another order) is the same move if it makes the same match.
            let same_as_listed = is_legal
                || legal.iter().any(|l| {
                    let mut twin = m.clone();
                    twin.step(&Step::Move { seat, mv: l.clone() }, &mut Vec::new()).is_ok()
                        && snapshot(&twin) == snapshot(&after)
                });
            prop_assert!(same_as_listed, "accepted but not listed as legal: {mv:?}");
            prop_assert!(!log.is_empty(), "an accepted move emits events");
        }
        Err(r) => {
            prop_assert!(!is_legal, "listed as legal but refused ({r}): {mv:?}");
            prop_assert!(log.is_empty(), "a refusal emitted events");
            prop_assert_eq!(snapshot(&after), before, "a refusal changed the state");
            prop_assert!(r.to_string().chars().count() <= MAX_MESSAGE, "long message: {}", r);
        }
    }
    Ok(())
}

/// A JSON move: decoded strictly, then applied; an accepted move writes back to the same
/// JSON value the parser reads again (it is what the stream stores and a rebuild replays).
/// A refused one need not: a Hexspiel list longer than the rules allow keeps only its
/// first cells and their count, enough for the rules to refuse it, not to write it.
fn json_case<G: Game>(m: &Match<G>, seat: Seat, v: &Value) -> Result<(), TestCaseError> {
    match parse_move::<G>(v) {
        Err(e) => {
            prop_assert!(e.message.chars().count() <= MAX_MESSAGE, "long message: {}", e.message);
            Ok(())
        }
        Ok(mv) => {
            let accepted = m.clone().step(&Step::Move { seat, mv: mv.clone() }, &mut Vec::new());
            if accepted.is_ok() {
                let again = parse_move::<G>(&json(&mv));
                prop_assert!(again.as_ref() == Ok(&mv), "{mv:?} does not read back: {again:?}");
            }
            apply_checked(m, seat, &mv)
        }
    }
}

/// A protobuf move: converted (or refused), then applied; an accepted conversion turns
/// back into the same message... of the rules' move.
fn proto_case<G: Wire>(m: &Match<G>, seat: Seat, p: &v1::Move) -> Result<(), TestCaseError> {
    match G::move_from_proto(p) {
        Err(e) => {
            prop_assert!(e.to_string().chars().count() <= MAX_MESSAGE);
            Ok(())
        }
        Ok(mv) => apply_checked(m, seat, &mv),
    }
}

// ---- strategies ----------------------------------------------------------------------

fn int() -> impl Strategy<Value = i64> {
    prop_oneof![
        4 => -3i64..16,
        1 => Just(i64::MIN),
        1 => Just(i64::MAX),
        1 => Just(i64::from(u32::MAX)),
        1 => Just(i64::from(i32::MIN)),
        1 => Just(256i64),
        1 => any::<i64>(),
    ]
}

fn small_i32() -> impl Strategy<Value = i32> {
    prop_oneof![4 => -1i32..12, 1 => any::<i32>()]
}

const WORDS: &[&str] = &[
    "card",
    "black",
    "white",
    "bid",
    "place",
    "pattern",
    "kind",
    "cells",
    "human",
    "cure",
    "plague",
    "item",
    "as",
    "permute",
    "transform",
    "force_rush",
    "bluff",
    "kill",
    "fireball",
    "warp_time",
    "row5",
    "ring6",
    "y7",
    "a1",
    "c3",
    "h8",
    "i3",
    "a9",
    "c0",
    "c03",
    "C3",
    "zz",
    "",
    "0",
    "1",
    "cards",
    "ties",
    "rollover",
    "prizes",
    "bouts_to_win",
    "submissions",
    "changeable",
    "first_cure",
    "items",
    "advantage",
    "start_tile",
    "on_timeout",
    "forfeit",
    "strengths",
    "puzzle_winners",
    "priority",
    "costs",
    "start_ap",
    "ap_cap",
    "set_bonus",
    "max_sets",
    "11111111",
    "99999999",
];

fn word() -> impl Strategy<Value = String> {
    prop_oneof![
        8 => prop::sample::select(WORDS).prop_map(str::to_string),
        1 => "[a-z]{1,3}[0-9]{0,3}",
        1 => ".{0,200}",
    ]
}

fn any_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        int().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-1e20f64..1e20).prop_map(|f| json!(f)),
        word().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((word(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect::<Map<_, _>>())),
        ]
    })
}

/// A change to a valid value: `path` picks a node (numbers index down the tree).
#[derive(Clone, Debug)]
enum Mutation {
    /// Replace the node with another value.
    Replace(Vec<u8>, Value),
    /// The node, an object, as the list of its values (serde's sequence form).
    ToList(Vec<u8>),
    /// Add a key to the node, an object.
    AddKey(Vec<u8>, String, Value),
    /// Remove a key of the node.
    RemoveKey(Vec<u8>),
    /// Append an element to the node, a list.
    Push(Vec<u8>, Value),
    /// Add the same number to every integer (wrapping): a tile keeps its shape far away.
    Shift(i64),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let path = prop::collection::vec(any::<u8>(), 0..4);
    prop_oneof![
        3 => (path.clone(), any_json()).prop_map(|(p, v)| Mutation::Replace(p, v)),
        2 => path.clone().prop_map(Mutation::ToList),
        1 => (path.clone(), word(), any_json()).prop_map(|(p, k, v)| Mutation::AddKey(p, k, v)),
        1 => path.clone().prop_map(Mutation::RemoveKey),
        2 => (path, any_json()).prop_map(|(p, v)| Mutation::Push(p, v)),
        2 => prop_oneof![
            int(),
            Just(i64::MIN + 1),
            Just(i64::MIN + 2),
            Just(i64::MAX - 1),
            Just(i64::MAX - 2),
            Just(-1i64 << 62),
        ]
        .prop_map(Mutation::Shift),
    ]
}

fn node<'a>(v: &'a mut Value, path: &[u8]) -> &'a mut Value {
    let Some((&i, rest)) = path.split_first() else { return v };
    let n = match &*v {
        Value::Array(a) if !a.is_empty() => a.len(),
        Value::Object(o) if !o.is_empty() => o.len(),
        _ => return v,
    };
    let i = usize::from(i) % n;
    match v {
        Value::Array(a) => node(&mut a[i], rest),
        Value::Object(o) => {
            let k = o.keys().nth(i).expect("in range").clone();
            node(o.get_mut(&k).expect("present"), rest)
        }
        _ => unreachable!(),
    }
}

fn shift(v: &mut Value, by: i64) {
    match v {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                *v = Value::from(i.wrapping_add(by));
            }
        }
        Value::Array(a) => a.iter_mut().for_each(|x| shift(x, by)),
        Value::Object(o) => o.values_mut().for_each(|x| shift(x, by)),
        _ => {}
    }
}

fn mutate(mut v: Value, m: &Mutation) -> Value {
    match m {
        Mutation::Shift(by) => shift(&mut v, *by),
        Mutation::Replace(p, x) => *node(&mut v, p) = x.clone(),
        Mutation::ToList(p) => {
            let n = node(&mut v, p);
            if let Value::Object(o) = n {
                *n = Value::Array(o.values().cloned().collect());
            }
        }
        Mutation::AddKey(p, k, x) => {
            if let Value::Object(o) = node(&mut v, p) {
                o.insert(k.clone(), x.clone());
            }
        }
        Mutation::RemoveKey(p) => {
            if let Value::Object(o) = node(&mut v, p) {
                let k = o.keys().next().cloned();
                if let Some(k) = k {
                    o.remove(&k);
                }
            }
        }
        Mutation::Push(p, x) => {
            if let Value::Array(a) = node(&mut v, p) {
                a.push(x.clone());
            }
        }
    }
    v
}

fn cell_name() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => "[a-h][1-8]",
        1 => "[a-z][0-9]{1,3}",
        1 => word(),
    ]
}

fn pcell() -> impl Strategy<Value = Option<v1::Cell>> {
    prop::option::weighted(0.95, (int(), int()).prop_map(|(x, y)| v1::Cell { x, y }))
}

fn any_proto() -> impl Strategy<Value = v1::Move> {
    let game = prop_oneof![
        int().prop_map(|card| r#move::Game::Gops(v1::GopsMove { card })),
        (int(), int()).prop_map(|(black, white)| r#move::Game::DuelingMonsters(
            v1::DuelingMonstersMove { black, white }
        )),
        (pcell(), pcell(), pcell(), small_i32()).prop_map(|(human, cure, plague, item)| {
            r#move::Game::CurePlague(v1::CurePlagueMove { human, cure, plague, item })
        }),
        (small_i32(), small_i32()).prop_map(|(card, shown_as)| r#move::Game::Masterminds(
            v1::MastermindsMove { card, shown_as }
        )),
        prop_oneof![
            int().prop_map(v1::hexspiel_move::Kind::Bid),
            (
                prop::collection::vec(cell_name(), 0..4),
                prop::option::of((small_i32(), prop::collection::vec(cell_name(), 0..9)))
            )
                .prop_map(|(place, pattern)| v1::hexspiel_move::Kind::Hex(
                    v1::HexspielHexTurn {
                        place,
                        pattern: pattern.map(|(kind, cells)| v1::HexspielPattern { kind, cells }),
                    }
                )),
        ]
        .prop_map(|k| r#move::Game::Hexspiel(v1::HexspielMove { kind: Some(k) })),
    ];
    prop::option::weighted(0.97, game).prop_map(|game| v1::Move { game })
}

/// A change to encoded bytes.
#[derive(Clone, Debug)]
enum ByteEdit {
    Flip(u16, u8),
    Insert(u16, Vec<u8>),
    Cut(u16, u16),
}

fn byte_edits() -> impl Strategy<Value = Vec<ByteEdit>> {
    prop::collection::vec(
        prop_oneof![
            (any::<u16>(), any::<u8>()).prop_map(|(i, b)| ByteEdit::Flip(i, b)),
            (any::<u16>(), prop::collection::vec(any::<u8>(), 1..10))
                .prop_map(|(i, b)| ByteEdit::Insert(i, b)),
            (any::<u16>(), 1u16..8).prop_map(|(i, n)| ByteEdit::Cut(i, n)),
        ],
        1..4,
    )
}

fn edit(mut b: Vec<u8>, edits: &[ByteEdit]) -> Vec<u8> {
    for e in edits {
        let at = |i: u16, len: usize| if len == 0 { 0 } else { usize::from(i) % (len + 1) };
        match e {
            ByteEdit::Flip(i, x) if !b.is_empty() => {
                let i = usize::from(*i) % b.len();
                b[i] ^= x | 1;
            }
            ByteEdit::Flip(..) => {}
            ByteEdit::Insert(i, x) => {
                let i = at(*i, b.len());
                b.splice(i..i, x.iter().copied());
            }
            ByteEdit::Cut(i, n) => {
                let i = at(*i, b.len());
                let j = (i + usize::from(*n)).min(b.len());
                b.drain(i..j);
            }
        }
    }
    b
}

/// A legal move chosen by `pick`, of `seat` if it has any, else of the other seat, with
/// the seat that may make it.
fn some_legal<G: Game>(m: &Match<G>, seat: Seat, pick: u32) -> Option<(Seat, G::Move)> {
    let other = if seat == Seat::ZERO { Seat::ONE } else { Seat::ZERO };
    legal_pick(m, seat, pick)
        .map(|mv| (seat, mv))
        .or_else(|| legal_pick(m, other, pick).map(|mv| (other, mv)))
}

/// A legal move of `m` for `seat` chosen by `pick`, if it has any.
fn legal_pick<G: Game>(m: &Match<G>, seat: Seat, pick: u32) -> Option<G::Move> {
    let mut legal = Vec::new();
    m.legal_moves(seat, &mut legal);
    let n = legal.len();
    (n > 0).then(|| legal.swap_remove(pick as usize % n))
}

fn setup() -> impl Strategy<Value = (u64, u8, bool, u32)> {
    (any::<u64>(), 0u8..40, any::<bool>(), any::<u32>())
}

// ---- targets -------------------------------------------------------------------------

fn fuzz_game<G: Wire>() {
    let name = G::NAME;
    fuzz(&format!("{name}/json"), (setup(), any_json()), |((seed, prefix, seat, _), v)| {
        let (m, seat) = state::<G>(seed, prefix, seat);
        json_case(&m, seat, &v)
    });
    fuzz(
        &format!("{name}/json-mutated"),
        (setup(), mutation()),
        |((seed, prefix, seat, pick), mu)| {
            let (m, seat) = state::<G>(seed, prefix, seat);
            let Some((seat, mv)) = some_legal(&m, seat, pick) else { return Ok(()) };
            // The legal move itself, then changed.
            json_case(&m, seat, &json(&mv))?;
            json_case(&m, seat, &mutate(json(&mv), &mu))
        },
    );
    fuzz(&format!("{name}/proto"), (setup(), any_proto()), |((seed, prefix, seat, _), p)| {
        let (m, seat) = state::<G>(seed, prefix, seat);
        proto_case(&m, seat, &p)
    });
    fuzz(
        &format!("{name}/bytes"),
        (setup(), prop::collection::vec(any::<u8>(), 0..64), byte_edits()),
        |((seed, prefix, seat, pick), raw, edits)| {
            let (m, seat) = state::<G>(seed, prefix, seat);
            // Arbitrary bytes (from `seat`), and a legal move's encoding with bytes changed
            // (from the seat that may make it).
            let mut cases = vec![(seat, raw)];
            if let Some((who, mv)) = some_legal(&m, seat, pick) {
                let p = G::move_to_proto(&mv);
                let back = G::move_from_proto(&p);
                prop_assert!(back.as_ref() == Ok(&mv), "round trip: {mv:?} -> {back:?}");
                cases.push((who, edit(p.encode_to_vec(), &edits)));
            }
            for (seat, b) in cases {
                if let Ok(p) = v1::Move::decode(b.as_slice()) {
                    proto_case(&m, seat, &p)?;
                }
            }
            Ok(())
        },
    );
    fuzz(
        &format!("{name}/options"),
        (any::<u64>(), prop_oneof![any_json().prop_map(Ok), mutation().prop_map(Err)], 0u8..60),
        |(seed, input, steps)| {
            let v = match input {
                Ok(v) => v,
                Err(mu) => mutate(json(&G::Options::default()), &mu),
            };
            let Ok(options) = parse_options::<G>(&v) else { return Ok(()) };
            let s = Seed::from_bytes(&seed.to_le_bytes()).expect("8 bytes");
            let Ok(mut m) = Match::<G>::new(&options, s, &mut Vec::new()) else { return Ok(()) };
            // Options that start a match must play: random legal moves and deadlines.
            let mut rng = Seed::from_bytes(&(!seed).to_le_bytes()).expect("8 bytes").rng();
            for _ in 0..steps {
                let owing: Vec<Seat> = m.to_move().iter().collect();
                let Some(&who) = owing.first() else { break };
                if rng.below(6) == 0 {
                    m.step(&Step::Deadline, &mut Vec::new()).expect("deadline");
                    continue;
                }
                match legal_pick(&m, who, rng.below(u32::MAX)) {
                    Some(mv) => apply_checked(&m, who, &mv)?,
                    None => break,
                }
                let mv = legal_pick(&m, who, rng.below(u32::MAX)).expect("listed");
                m.step(&Step::Move { seat: who, mv }, &mut Vec::new()).expect("legal");
            }
            Ok(())
        },
    );
}

struct Fuzz;

impl games::Visit for Fuzz {
    type Out = ();
    fn visit<G: games::Hostable>(self) {
        fuzz_game::<G>();
    }
}

/// Every game in the registry (or only `FUZZ_GAME`'s, when set).
#[test]
fn fuzz_every_game() {
    let only = std::env::var("FUZZ_GAME").ok().filter(|g| !g.is_empty());
    for g in games::GAMES.iter().filter(|g| only.as_deref().is_none_or(|o| o == g.name)) {
        games::visit(g.name, Fuzz).expect("a registry game");
    }
}
