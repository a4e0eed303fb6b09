//! The authorization matrix of the public API: every RPC called by no session, a malformed
//! or unknown token, an outsider, a spectator, the other seat and on a finished match is
//! refused with its code, and nothing changes (the match's version and every viewer's view
//! are the same before and after, read through the API). Spectators see public
//! information only. Challenges no one could answer and joins of finished matches are
//! refused at once.

use api::v1;
use cluster_tests::{Env, Player, assert_status, create_request, gops, gops_view, open};
use tonic::{Code, Request, Status};

/// Who calls, as the `authorization` metadata says.
#[derive(Clone, Copy, Debug)]
enum Auth {
    /// No `authorization` at all.
    Missing,
    /// This exact header value.
    Raw(&'static str),
    /// A well-formed token no session has.
    Unknown,
    /// The player's own session.
    Session,
}

const NOT_A_SESSION: [Auth; 6] = [
    Auth::Missing,
    Auth::Raw("Bearer"),
    Auth::Raw("Bearer    "),
    Auth::Raw("Basic YWxhZGRpbjpvcGVuc2VzYW1l"),
    Auth::Raw("Bearer not-hex-at-all"),
    Auth::Unknown,
];

fn as_auth<T>(p: &Player, auth: Auth, msg: T) -> Request<T> {
    let mut r = p.client.request(msg);
    let value = match auth {
        Auth::Session => return r,
        Auth::Missing => {
            r.metadata_mut().remove("authorization");
            return r;
        }
        Auth::Raw(v) => v.to_string(),
        Auth::Unknown => format!("Bearer {}", "ab".repeat(32)),
    };
    r.metadata_mut().insert("authorization", value.parse().expect("ascii"));
    r
}

/// The RPCs that need a session.
#[derive(Clone, Copy, Debug)]
enum Rpc {
    Create,
    Join,
    Submit,
    Resign,
    View,
    Watch,
    Record,
}

const RPCS: [Rpc; 7] =
    [Rpc::Create, Rpc::Join, Rpc::Submit, Rpc::Resign, Rpc::View, Rpc::Watch, Rpc::Record];

/// Calls `rpc` on match `id` as `p` with `auth`; a bid of `card` for SubmitMove.
async fn call(p: &Player, auth: Auth, rpc: Rpc, id: &str, card: i64) -> Result<(), Status> {
    let mut api = p.client.api();
    let id = id.to_string();
    match rpc {
        Rpc::Create => {
            let req = create_request("gops", "", open(), 60_000);
            api.create_match(as_auth(p, auth, req)).await.map(drop)
        }
        Rpc::Join => {
            let req = v1::JoinMatchRequest { match_id: id, idempotency_key: String::new() };
            api.join_match(as_auth(p, auth, req)).await.map(drop)
        }
        Rpc::Submit => {
            let req = v1::SubmitMoveRequest {
                match_id: id,
                r#move: Some(gops(card)),
                idempotency_key: p.key(),
            };
            api.submit_move(as_auth(p, auth, req)).await.map(drop)
        }
        Rpc::Resign => {
            let req = v1::ResignRequest { match_id: id };
            api.resign(as_auth(p, auth, req)).await.map(drop)
        }
        Rpc::View => {
            let req = v1::GetViewRequest { match_id: id };
            api.get_view(as_auth(p, auth, req)).await.map(drop)
        }
        Rpc::Watch => {
            let req = v1::WatchMatchRequest {
                match_id: id,
                after_version: 0,
                include_views: true,
                after_index: None,
                after_tag: None,
                include_presence: false,
            };
            api.watch_match(as_auth(p, auth, req)).await.map(drop)
        }
        Rpc::Record => {
            let req = v1::GetMatchRecordRequest { match_id: id };
            api.get_match_record(as_auth(p, auth, req)).await.map(drop)
        }
    }
}

/// What each viewer sees of match `id`, minus the countdown (it moves with the clock).
async fn snapshot(viewers: &[&Player], id: &str) -> Vec<v1::GetViewResponse> {
    let mut out = Vec::new();
    for p in viewers {
        let mut v = p.view(id).await;
        v.deadline_in_ms = None;
        out.push(v);
    }
    out
}

/// A GOPS match in play: alice (seat 0) has sealed a bid of 13, bob (seat 1) owes his;
/// carol holds no seat.
async fn sealed_match() -> (Env, [Player; 3], String) {
    let env = Env::start().await;
    let (alice, bob, carol) =
        (env.player("alice").await, env.player("bob").await, env.player("carol").await);
    let id = alice.create_open("gops", "", 60_000).await;
    assert_eq!(bob.join(&id).await.expect("join"), 1);
    alice.submit(&id, gops(13)).await.expect("alice bids");
    (env, [alice, bob, carol], id)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_rpc_needs_a_valid_session() {
    let (env, [alice, bob, carol], id) = sealed_match().await;
    let before = snapshot(&[&alice, &bob, &carol], &id).await;
    for auth in NOT_A_SESSION {
        for rpc in RPCS {
            // As the seated players themselves: a valid match, a legal move, only the
            // session is wrong.
            for p in [&alice, &bob] {
                let r = call(p, auth, rpc, &id, 1).await;
                assert_status(r, Code::Unauthenticated, "");
            }
        }
    }
    assert_eq!(snapshot(&[&alice, &bob, &carol], &id).await, before, "nothing changed");
    // The two calls that need no session.
    let mut api = alice.client.api();
    let games = api.list_games(as_auth(&alice, Auth::Missing, v1::ListGamesRequest {})).await;
    assert!(!games.expect("ListGames needs no token").into_inner().games.is_empty());
    let req = v1::CreateGuestSessionRequest { display_name: "dave".into() };
    let s = api.create_guest_session(as_auth(&alice, Auth::Missing, req)).await;
    assert!(!s.expect("CreateGuestSession needs no token").into_inner().token.is_empty());
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn outsiders_and_unknown_matches_change_nothing() {
    let (env, [alice, bob, carol], id) = sealed_match().await;
    let before = snapshot(&[&alice, &bob, &carol], &id).await;
    // Carol holds no seat: she may look, not act; the seats are taken.
    assert_status(
        call(&carol, Auth::Session, Rpc::Submit, &id, 1).await,
        Code::PermissionDenied,
        "no seat",
    );
    assert_status(
        call(&carol, Auth::Session, Rpc::Resign, &id, 1).await,
        Code::PermissionDenied,
        "no seat",
    );
    assert_status(
        call(&carol, Auth::Session, Rpc::Join, &id, 1).await,
        Code::FailedPrecondition,
        "no open seat",
    );
    // The record would reveal the sealed bid and the prize order.
    assert_status(
        call(&carol, Auth::Session, Rpc::Record, &id, 1).await,
        Code::FailedPrecondition,
        "",
    );
    assert_status(
        call(&alice, Auth::Session, Rpc::Record, &id, 1).await,
        Code::FailedPrecondition,
        "",
    );
    assert_eq!(snapshot(&[&alice, &bob, &carol], &id).await, before, "nothing changed");

    // A match no one created: NOT_FOUND for every call about it, from anyone.
    let nowhere = "00000000-0000-4000-8000-000000000000";
    for rpc in [Rpc::Join, Rpc::Submit, Rpc::Resign, Rpc::View, Rpc::Watch, Rpc::Record] {
        for p in [&alice, &carol] {
            assert_status(
                call(p, Auth::Session, rpc, nowhere, 1).await,
                Code::NotFound,
                "no match",
            );
        }
    }
    // Not a match id at all.
    for rpc in [Rpc::Join, Rpc::Submit, Rpc::Resign, Rpc::View, Rpc::Watch, Rpc::Record] {
        assert_status(call(&carol, Auth::Session, rpc, "m-1", 1).await, Code::InvalidArgument, "");
    }
    assert_eq!(snapshot(&[&alice, &bob, &carol], &id).await, before, "nothing changed");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spectator_sees_public_information_only() {
    let (env, [alice, bob, carol], id) = sealed_match().await;
    let seen = carol.view(&id).await;
    assert_eq!(seen.seat, None, "carol watches as a spectator");
    let g = gops_view(&seen);
    assert_eq!(g.my_bid, None, "no sealed bid in a spectator's view");
    assert_eq!(g.moved, [0], "only that seat 0 has bid");
    // A spectator sees no more than the opponent, who has not bid yet.
    let bobs = bob.view(&id).await;
    assert_eq!(g, gops_view(&bobs), "the spectator's board is the opponent's");
    assert!(seen.legal_moves.is_empty(), "a spectator has no moves");

    // Her watch carries no private event and no seat's view, through the end of the match.
    let stream = carol.watch_with(&id, 0, None, true).await.expect("watch");
    bob.submit(&id, gops(1)).await.expect("bob bids");
    alice
        .client
        .api()
        .resign(alice.client.request(v1::ResignRequest { match_id: id.clone() }))
        .await
        .expect("resign");
    let all = cluster_tests::read_to_end(stream).await;
    assert!(all.iter().any(|m| m.event.is_some()), "the watch delivered events");
    for m in &all {
        assert!(!m.private, "a spectator got a private event: {m:?}");
        if let Some(v) = &m.view {
            assert_eq!(v.seat, None, "a spectator got a seat's view: {v:?}");
            assert!(v.legal_moves.is_empty());
        }
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_seat_acts_for_itself_only() {
    let (env, [alice, bob, carol], id) = sealed_match().await;
    let before = snapshot(&[&alice, &bob, &carol], &id).await;
    // Alice has bid: a second bid this round is refused, whatever card (the one bob owes
    // cannot be sent by her; the request has no seat to name).
    for card in [1, 5, 13] {
        assert_status(
            call(&alice, Auth::Session, Rpc::Submit, &id, card).await,
            Code::FailedPrecondition,
            "",
        );
    }
    // A key spelled like bob's scoped key is hers alone.
    let r = alice.submit_with(&id, Some(gops(2)), "seat1:k1").await;
    assert_status(r, Code::FailedPrecondition, "");
    assert_eq!(snapshot(&[&alice, &bob, &carol], &id).await, before, "nothing changed");
    let v =
        cluster_tests::accepted(bob.submit_with(&id, Some(gops(7)), "k1").await.expect("bob bids"))
            .expect("bob's key is his own: accepted, not a duplicate");
    assert_eq!(v, before[1].version + 1);
    // The round resolved with each seat's own card: both spent what they bid.
    let after = alice.view(&id).await;
    let g = gops_view(&after);
    let hand = |c: &Option<v1::Cards>| c.as_ref().map(|c| c.values.clone()).unwrap_or_default();
    assert!(!hand(&g.hand0).contains(&13) && hand(&g.hand0).contains(&7), "{g:?}");
    assert!(!hand(&g.hand1).contains(&7) && hand(&g.hand1).contains(&13), "{g:?}");
    // Resigning resigns one's own seat.
    alice
        .client
        .api()
        .resign(alice.client.request(v1::ResignRequest { match_id: id.clone() }))
        .await
        .expect("resign");
    assert_eq!(bob.view(&id).await.outcome.expect("over").winner, Some(1));
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finished_match_takes_no_change() {
    let env = Env::start().await;
    let (alice, bob, carol) =
        (env.player("alice").await, env.player("bob").await, env.player("carol").await);
    // Resigned before anyone took the open seat.
    let id = alice.create_open("gops", "", 60_000).await;
    alice
        .client
        .api()
        .resign(alice.client.request(v1::ResignRequest { match_id: id.clone() }))
        .await
        .expect("resign");
    let before = snapshot(&[&alice, &carol], &id).await;
    assert_eq!(before[0].outcome.as_ref().expect("over").winner, Some(1));
    assert_status(bob.join(&id).await, Code::FailedPrecondition, "the match is over");
    assert_status(bob.join_with(&id, "k").await, Code::FailedPrecondition, "the match is over");
    assert_eq!(snapshot(&[&alice, &carol], &id).await, before, "no one was seated");
    assert_eq!(bob.view(&id).await.seat, None, "bob sees it as a spectator");
    let record = alice.record(&id).await.expect("a finished match's record");
    assert!(!record.contains(&bob.id), "bob is nowhere in the record");

    // Played out to a resignation: neither seat nor anyone else can change it.
    let id = alice.create_open("gops", "", 60_000).await;
    bob.join(&id).await.expect("join");
    bob.client
        .api()
        .resign(bob.client.request(v1::ResignRequest { match_id: id.clone() }))
        .await
        .expect("resign");
    let before = snapshot(&[&alice, &bob, &carol], &id).await;
    for p in [&alice, &bob] {
        assert_status(
            call(p, Auth::Session, Rpc::Submit, &id, 1).await,
            Code::FailedPrecondition,
            "",
        );
        assert_status(
            call(p, Auth::Session, Rpc::Resign, &id, 1).await,
            Code::FailedPrecondition,
            "",
        );
        // A seated player joining again is told its seat, and nothing more happens.
        call(p, Auth::Session, Rpc::Join, &id, 1).await.expect("a seated player's join");
    }
    assert_status(
        call(&carol, Auth::Session, Rpc::Join, &id, 1).await,
        Code::FailedPrecondition,
        "",
    );
    assert_status(
        call(&carol, Auth::Session, Rpc::Submit, &id, 1).await,
        Code::PermissionDenied,
        "",
    );
    for p in [&alice, &bob, &carol] {
        call(p, Auth::Session, Rpc::Record, &id, 1).await.expect("the record is public");
    }
    assert_eq!(snapshot(&[&alice, &bob, &carol], &id).await, before, "nothing changed");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_challenge_names_another_player_who_exists() {
    let env = Env::start().await;
    let (alice, bob) = (env.player("alice").await, env.player("bob").await);
    let challenge =
        |who: &str| create_request("gops", "", client::requests::opponent::player(who), 60_000);
    assert_status(alice.create(challenge(&alice.id)).await, Code::InvalidArgument, "yourself");
    let nobody = "6f1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d";
    assert_status(alice.create(challenge(nobody)).await, Code::NotFound, "no such player");
    // What a client sent is quoted at most 64 characters long.
    let long = "x".repeat(10_000);
    let e = alice.create(challenge(&long)).await.expect_err("not a UUID");
    assert_eq!(e.code(), Code::InvalidArgument);
    assert!(e.message().len() < 200, "{}", e.message());
    // Bob exists: his challenge waits for him, and he takes it.
    let m = alice.create(challenge(&bob.id)).await.expect("a challenge to bob");
    assert_eq!(bob.join(&m.match_id).await.expect("bob joins"), 1);
    assert_eq!(alice.view(&m.match_id).await.player_ids, [alice.id.clone(), bob.id.clone()]);
    env.shutdown().await;
}
