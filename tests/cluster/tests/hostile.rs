//! Hostile input at the public API: random requests (ids, options, moves decoded from
//! random bytes, idempotency keys, display names) against a real cluster. Every answer
//! is a clear refusal (never INTERNAL, UNKNOWN or UNAVAILABLE), never echoes more than a
//! bounded message, and the cluster keeps serving a real match played beside it.
//! `HOSTILE_REQUESTS` sets the volume (default 600 per kind, seconds on 2 cores).

use api::v1;
use cluster_tests::{Env, Picker, create_request, open, play_out};
use prost::Message;
use tonic::Code;

/// The longest status message the gateway may send (it must never echo unbounded input).
const MAX_MESSAGE: usize = 1024;

fn requests() -> usize {
    std::env::var("HOSTILE_REQUESTS").ok().and_then(|n| n.parse().ok()).unwrap_or(600)
}

/// Random bytes of a random length up to `max`.
fn bytes(p: &mut Picker, max: usize) -> Vec<u8> {
    let n = (p.next_u64() as usize) % (max + 1);
    (0..n).map(|_| p.next_u64() as u8).collect()
}

/// A random string: often printable, sometimes control characters, sometimes long.
fn text(p: &mut Picker) -> String {
    let max = if p.next_u64().is_multiple_of(8) { 70_000 } else { 80 };
    let raw = bytes(p, max);
    match p.next_u64() % 3 {
        0 => raw.iter().map(|b| char::from(b' ' + b % 95)).collect(),
        1 => String::from_utf8_lossy(&raw).into_owned(),
        _ => raw.iter().map(|b| char::from(b % 32)).collect(),
    }
}

/// Checks an answer: `Ok`, or a refusal a client can act on, with a bounded message.
fn check<T>(what: &str, r: Result<T, tonic::Status>) {
    if let Err(s) = r {
        assert!(
            !matches!(s.code(), Code::Internal | Code::Unknown | Code::Unavailable),
            "{what}: {:?} {:?}",
            s.code(),
            s.message().chars().take(200).collect::<String>()
        );
        assert!(s.message().len() <= MAX_MESSAGE, "{what}: a {} byte message", s.message().len());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn random_requests_get_clear_refusals_and_hurt_no_one() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let mallory = env.player("mallory").await;
    // A real match, played to its end beside the attack.
    let id = alice.create_open("gops", "", 0).await;
    bob.join(&id).await.expect("bob joins");
    let honest = {
        let (alice, bob, id) = (alice.clone(), bob.clone(), id.clone());
        tokio::spawn(async move { play_out([&alice, &bob], &id, &mut Picker::new(3), 26).await })
    };
    let mut p = Picker::new(0x5eed);
    let games: Vec<&str> = games::GAMES.iter().map(|g| g.name).collect();
    let mut api = mallory.client.api();
    for n in 0..requests() {
        let game = games[n % games.len()];
        // CreateMatch with random options (JSON-ish or not) and names.
        let options = match p.next_u64() % 3 {
            0 => text(&mut p),
            1 => format!("{{\"{}\": {}}}", text(&mut p).replace('"', ""), p.next_u64() % 100),
            _ => format!("{{\"cards\": {}}}", p.next_u64() as i64),
        };
        let mut req = create_request(game, &options, open(), p.next_u64() % 20_000_000);
        if p.next_u64().is_multiple_of(4) {
            req.game = text(&mut p);
        }
        check("CreateMatch", api.create_match(mallory.client.request(req)).await);
        // SubmitMove: moves decoded from random bytes, into a real match mallory is not in
        // and into random ids.
        let mv = v1::Move::decode(bytes(&mut p, 64).as_slice()).ok();
        let target = if p.next_u64().is_multiple_of(2) { id.clone() } else { text(&mut p) };
        let req = v1::SubmitMoveRequest {
            match_id: target.clone(),
            r#move: mv.clone(),
            idempotency_key: text(&mut p),
        };
        check("SubmitMove", api.submit_move(mallory.client.request(req)).await);
        // The same random moves from a seated player, into its own match.
        if let Some(mv) = mv {
            check("SubmitMove (seated)", bob.submit_with(&id, Some(mv), &bob.key()).await);
        }
        let req = v1::GetViewRequest { match_id: target.clone() };
        check("GetView", api.get_view(mallory.client.request(req)).await);
        let req = v1::JoinMatchRequest { match_id: target, ..Default::default() };
        check("JoinMatch", api.join_match(mallory.client.request(req)).await);
        let req = v1::CreateGuestSessionRequest { display_name: text(&mut p) };
        check("CreateGuestSession", api.create_guest_session(req).await);
    }
    let played = honest.await.expect("the honest match was played");
    assert!(played.last.outcome.is_some(), "the honest match ended");
    env.shutdown().await;
}
