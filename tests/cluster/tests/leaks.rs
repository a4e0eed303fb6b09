//! Hidden information at the public API: twin matches that differ only in what one viewer
//! may not know (a sealed bid, a changed sealed move, a Bluff shown as a real card), played
//! through the gateway by the same players; that viewer's whole received stream (every
//! event and view, their versions and indexes, the message count) and its GetView answers
//! and refusals must be byte for byte the same. The hidden setup (prize orders, strengths)
//! is fixed by the match options, so both twins deal the same cards; what is random or
//! timed by nature (the seed and its commitment, entry tags, trace ids, deadline times) is
//! blanked before comparing.

use api::v1;
use cluster_tests::{Env, Player, create_request, open};
use prost::Message;

/// A step of a scenario: who moves, and the move's JSON in twin A and twin B (`None`:
/// that twin makes no move here).
struct Step {
    seat: usize,
    a: Option<serde_json::Value>,
    b: Option<serde_json::Value>,
}

fn same(seat: usize, mv: serde_json::Value) -> Step {
    Step { seat, a: Some(mv.clone()), b: Some(mv) }
}

fn differ(seat: usize, a: serde_json::Value, b: serde_json::Value) -> Step {
    Step { seat, a: Some(a), b: Some(b) }
}

fn only_b(seat: usize, b: serde_json::Value) -> Step {
    Step { seat, a: None, b: Some(b) }
}

/// What `viewer` received, blanked of what is random or timed by nature.
fn normalized(mut m: v1::WatchMatchResponse) -> Vec<u8> {
    m.tag = 0;
    m.traceparent.clear();
    if let Some(v) = m.view.as_mut() {
        blank_view(v);
    }
    if let Some(e) = m.event.as_mut() {
        match e.kind.as_mut() {
            Some(v1::event::Kind::MatchStarted(s)) => s.commitment.clear(),
            Some(v1::event::Kind::MatchEnded(s)) => s.seed.clear(),
            _ => {}
        }
    }
    m.encode_to_vec()
}

fn blank_view(v: &mut v1::GetViewResponse) {
    v.deadline_at_ms = None;
    v.deadline_in_ms = None;
    if let Some(o) = v.outcome.as_mut() {
        o.seed.clear();
    }
}

/// Everything `p` receives of match `id` so far: its watch stream (with views) up to its
/// current view, its GetView answer, and its refusal of a probe move.
async fn received(p: &Player, id: &str, probe: &v1::Move) -> Vec<Vec<u8>> {
    let mut view = p.view(id).await;
    let mut watch = p.watch_with(id, 0, None, true).await.expect("watch");
    let mut out = Vec::new();
    loop {
        let m = cluster_tests::read_n(&mut watch, 1).await.remove(0);
        let last = m.view.as_ref().is_some_and(|v| v.version == view.version);
        out.push(normalized(m));
        if last {
            break;
        }
    }
    blank_view(&mut view);
    out.push(view.encode_to_vec());
    let refusal = p.submit_with(id, Some(probe.clone()), &p.key()).await;
    let refusal = refusal.map(|_| "accepted".to_string()).unwrap_or_else(|s| {
        format!("{:?} {} {:?}", s.code(), s.message(), s.metadata().get("colosseum-error-code"))
    });
    out.push(refusal.into_bytes());
    out
}

/// Masterminds' `strengths` option for one seat: card `i` (in card order) gets `of(i)`.
fn strengths(of: impl Fn(u32) -> u32) -> serde_json::Value {
    const CARDS: [&str; 10] = [
        "bluff",
        "counterspell",
        "empower",
        "fireball",
        "kill",
        "mayhem",
        "offering",
        "reveal",
        "swap",
        "warp_time",
    ];
    let each = (0u32..).zip(CARDS).map(|(i, c)| (c.to_string(), of(i).into()));
    serde_json::Value::Object(each.collect())
}

/// Three players (alice in seat 0, bob in seat 1, carol a spectator) and twin matches of
/// `game` with `options`, both seats held.
async fn twin_matches(
    env: &Env,
    game: &str,
    options: &serde_json::Value,
    move_time_ms: u64,
) -> ([Player; 3], Vec<String>) {
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let carol = env.player("carol").await;
    let mut ids = Vec::new();
    for _ in 0..2 {
        let req = create_request(game, &options.to_string(), open(), move_time_ms);
        let id = alice.create(req).await.expect("create").match_id;
        bob.join(&id).await.expect("bob joins");
        ids.push(id);
    }
    ([alice, bob, carol], ids)
}

/// Plays `steps` in twin matches of `game` with `options` (alice in seat 0, bob in seat
/// 1), then checks that each of `viewers` (0: alice, 1: bob, 2: a spectator) received the
/// same in both. `settle` waits for whatever the clock must do before comparing.
async fn twins(
    game: &str,
    options: serde_json::Value,
    steps: &[Step],
    viewers: &[usize],
    probe: serde_json::Value,
    settle: std::time::Duration,
) {
    let env = Env::start().await;
    let ([alice, bob, carol], ids) = twin_matches(&env, game, &options, 0).await;
    let seats = [&alice, &bob];
    for (n, step) in steps.iter().enumerate() {
        for (twin, id) in ids.iter().enumerate() {
            let Some(json) = (if twin == 0 { &step.a } else { &step.b }) else { continue };
            let mv = games::registry::move_from_json(game, json).expect("a move of the game");
            seats[step.seat]
                .submit(id, mv)
                .await
                .unwrap_or_else(|s| panic!("{game} step {n} in twin {twin}: {s:?}"));
        }
    }
    tokio::time::sleep(settle).await;
    let probe =
        games::registry::move_from_json(game, &probe).expect("the probe is of the game's shape");
    let people = [&alice, &bob, &carol];
    for &viewer in viewers {
        let a = received(people[viewer], &ids[0], &probe).await;
        let b = received(people[viewer], &ids[1], &probe).await;
        assert_eq!(a.len(), b.len(), "{game}: viewer {viewer} got a different message count");
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(x == y, "{game}: viewer {viewer}'s message {i} differs between the twins");
        }
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opponents_sealed_bid_leaves_no_trace_before_it_is_revealed() {
    let prizes: Vec<u32> = (1..=13).rev().collect();
    twins(
        "gops",
        serde_json::json!({ "prizes": prizes }),
        &[differ(0, serde_json::json!({"card": 3}), serde_json::json!({"card": 12}))],
        &[1, 2],
        serde_json::json!({"card": 99}),
        std::time::Duration::ZERO,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_changed_sealed_move_is_not_told_to_the_opponent() {
    // Changeable submissions: seat 0 changes its mind in twin B, so that both twins hold
    // the same moves until the round's minute ends.
    let script = include_str!("../../conformance/dueling-monsters-both-late-round-restarts.json");
    let script: serde_json::Value = serde_json::from_str(script).expect("a script");
    let mut options = script["options"].clone();
    options["submissions"] = serde_json::json!("changeable");
    twins(
        "dueling-monsters",
        options,
        &[
            differ(
                0,
                serde_json::json!({"black": 1, "white": 5}),
                serde_json::json!({"black": 3, "white": 9}),
            ),
            same(1, serde_json::json!({"black": 2, "white": 4})),
            // Twin B changes its mind to twin A's move: one step more than twin A.
            only_b(0, serde_json::json!({"black": 1, "white": 5})),
        ],
        &[1, 2],
        serde_json::json!({"black": 7, "white": 1}),
        std::time::Duration::ZERO,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bluff_shown_as_a_card_is_told_apart_from_the_card_by_nothing() {
    // Seat 1 strong, seat 0 weak: seat 1 wins each turn with or without its card's
    // effect, so only the hidden truth (a real card or a Bluff shown as it) differs.
    let options =
        serde_json::json!({ "strengths": { "0": strengths(|_| 1), "1": strengths(|_| 9) } });
    let card = |c: &str| serde_json::json!({ "card": c });
    for x in ["offering", "empower", "swap"] {
        twins(
            "masterminds",
            options.clone(),
            &[
                same(0, card("fireball")),
                same(1, card("fireball")),
                same(0, card("mayhem")),
                same(1, card("warp_time")),
                same(0, card("swap")),
                differ(1, card(x), serde_json::json!({"card": "bluff", "as": x})),
                same(0, card("empower")),
                same(1, card("reveal")),
            ],
            &[0, 2],
            card("fireball"),
            std::time::Duration::ZERO,
        )
        .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sealed_hexspiel_bid_leaves_no_trace_before_it_is_revealed() {
    // Round 1 played out in both twins, then seat 0's sealed bid of round 2 differs.
    let bid = |n: u32| serde_json::json!({ "bid": n });
    twins(
        "hexspiel",
        serde_json::json!({"prizes": [[2, 4, 6, 1, 3, 5, 7]]}),
        &[
            same(0, bid(1)),
            same(1, bid(5)),
            same(1, serde_json::json!({"place": ["a1", "b1"]})),
            differ(0, bid(2), bid(9)),
        ],
        &[1, 2],
        bid(42),
        std::time::Duration::ZERO,
    )
    .await;
}

/// Random play, identical in twin matches, up to a random round of simultaneous moves in
/// which seat 0 seals a different legal move in each twin (for Masterminds, at times a real
/// card in one twin and a Bluff in the other) (and, with changeable
/// submissions, twin B changes its mind back to twin A's move); then seat 1 and a
/// spectator must have received the same in both.
async fn random_twins(env: &Env, game: &str, setup: &TwinSetup, seed: u64) {
    let TwinSetup { options, probe, changeable } = setup;
    let changeable = *changeable;
    let probe = games::registry::move_from_json(game, probe).expect("a probe of the game's shape");
    let ([alice, bob, carol], ids) = twin_matches(env, game, options, 60_000).await;
    let seats = [&alice, &bob];
    let mut picker = cluster_tests::Picker::new(seed);
    // With changeable submissions a round resolves only at its deadline (a minute here),
    // so the hidden move is in the first round.
    let rounds_before = if changeable { 0 } else { picker.next_u64() % 4 };
    let mut rounds = 0;
    loop {
        let va = alice.view(&ids[0]).await;
        assert!(va.outcome.is_none(), "{game} ended before the hidden move");
        let both = va.to_move.len() == 2;
        if both && rounds == rounds_before {
            // The hidden difference: two different legal moves for seat 0.
            let n = va.legal_moves.len() as u64;
            assert!(n >= 2, "{game}: seat 0 has a choice");
            let i = picker.next_u64() % n;
            let j = (i + 1 + picker.next_u64() % (n - 1)) % n;
            let (x, y) = (&va.legal_moves[i as usize], &va.legal_moves[j as usize]);
            alice.submit(&ids[0], x.clone()).await.expect("twin A's move");
            alice.submit(&ids[1], y.clone()).await.expect("twin B's move");
            if changeable {
                alice.submit(&ids[1], x.clone()).await.expect("twin B changes its mind");
            }
            break;
        }
        rounds += u64::from(both);
        // The same random move in both twins, for a seat that owes one.
        let mover = if va.to_move.contains(&0) { 0 } else { 1 };
        let view = seats[mover].view(&ids[0]).await;
        let mv = picker.pick(&view).expect("a legal move");
        for id in &ids {
            seats[mover].submit(id, mv.clone()).await.expect("the same move in both twins");
        }
    }
    for viewer in [&bob, &carol] {
        let a = received(viewer, &ids[0], &probe).await;
        let b = received(viewer, &ids[1], &probe).await;
        assert_eq!(a.len(), b.len(), "{game} seed {seed}: a different message count");
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                x == y,
                "{game} seed {seed}: message {i} differs between the twins: {:?} vs {:?}",
                v1::WatchMatchResponse::decode(x.as_slice()),
                v1::WatchMatchResponse::decode(y.as_slice())
            );
        }
    }
}

/// One way to play random twins of a game: options that fix its hidden setup (so both
/// twins deal alike), a move of the game's shape that no state allows (every viewer's
/// refusal of it is compared too), and whether seat 0 changes its mind in twin B.
struct TwinSetup {
    options: serde_json::Value,
    probe: serde_json::Value,
    changeable: bool,
}

/// The random twins of `game`: what the registry cannot say (options and a probe move);
/// a game with no setups here is not in the random twins.
fn twin_setups(game: &str) -> Vec<TwinSetup> {
    let setup = |options, probe| TwinSetup { options, probe, changeable: false };
    match game {
        "gops" => {
            let prizes: Vec<u32> = (1..=13).collect();
            vec![setup(serde_json::json!({ "prizes": prizes }), serde_json::json!({"card": 99}))]
        }
        "dueling-monsters" => {
            let script =
                include_str!("../../conformance/dueling-monsters-both-late-round-restarts.json");
            let script: serde_json::Value = serde_json::from_str(script).expect("a script");
            let dueling = script["options"].clone();
            let mut changeable = dueling.clone();
            changeable["submissions"] = serde_json::json!("changeable");
            let probe = serde_json::json!({"black": 7, "white": 1});
            vec![
                setup(dueling, probe.clone()),
                TwinSetup { options: changeable, probe, changeable: true },
            ]
        }
        "hexspiel" => vec![setup(
            serde_json::json!({"prizes": [[2, 4, 6, 1, 3, 5, 7]]}),
            serde_json::json!({"bid": 42}),
        )],
        // Masterminds' strengths come from its puzzles (the seed) unless given: give them.
        "masterminds" => vec![setup(
            serde_json::json!({"strengths": {"0": strengths(|i| 4 + i % 3), "1": strengths(|i| 5 + i % 3)}}),
            serde_json::json!({"card": "bluff", "as": "bluff"}),
        )],
        _ => Vec::new(),
    }
}

/// Whether a game seals simultaneous moves (what the random twins hide).
struct Simultaneous;

impl games::Visit for Simultaneous {
    type Out = bool;
    fn visit<G: games::Hostable>(self) -> bool {
        G::SIMULTANEOUS
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_twins_of_every_hidden_information_game_look_the_same_to_the_others() {
    let sealed: Vec<&str> = games::GAMES
        .iter()
        .map(|g| g.name)
        .filter(|&g| games::visit(g, Simultaneous).expect("a registry game"))
        .collect();
    let env = Env::start().await;
    for seed in 1..=4 {
        for &game in &sealed {
            for setup in &twin_setups(game) {
                random_twins(&env, game, setup, seed).await;
            }
        }
    }
    env.shutdown().await;
}
