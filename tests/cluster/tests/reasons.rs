//! Refusals as the protos name them, through the public API on a real cluster: the
//! reasons (UPPER_SNAKE_CASE, domain `colosseum.v1`) of the rules' refusals beside their
//! lower-case conformance code in `colosseum-error-code`, the plain reasons, ChangePassword's
//! wrong old password (UNAUTHENTICATED, BAD_CREDENTIALS, as a bad login), and refusals
//! whose words were wrong: a Masterminds `shown_as` on a Kill, CreateTournament's bad
//! options. (Other reasons are asserted where their behaviour is: edge.rs, bounds.rs,
//! lobby.rs, platform.rs, play.rs.)

use api::v1;
use cluster_tests::{Env, Player, create_request, gops, open, queue};
use tonic::{Code, Status};
use tonic_types::StatusExt;

fn reason(s: &Status) -> String {
    let info = s.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.domain, "colosseum.v1");
    info.reason
}

fn assert_reason<T: std::fmt::Debug>(what: &str, r: Result<T, Status>, code: Code, want: &str) {
    let s = r.expect_err(what);
    assert_eq!((s.code(), reason(&s).as_str()), (code, want), "{what}: {s:?}");
}

fn conformance_code(s: &Status) -> &str {
    s.metadata().get("colosseum-error-code").expect("the code").to_str().expect("ASCII")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_refusal_carries_the_reason_the_protos_list() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(60_000).await;
    // The rules: the ErrorInfo reason upper-cased, the conformance code as it is.
    alice.submit(&id, gops(5)).await.expect("a bid");
    let s = alice.submit(&id, gops(6)).await.expect_err("a second bid this round");
    assert_eq!((s.code(), reason(&s).as_str()), (Code::FailedPrecondition, "NOT_YOUR_TURN"));
    assert_eq!(conformance_code(&s), "not_your_turn");
    bob.submit(&id, gops(5)).await.expect("bob's bid");
    let s = alice.submit(&id, gops(5)).await.expect_err("a card played already");
    assert_eq!((s.code(), reason(&s).as_str()), (Code::FailedPrecondition, "ILLEGAL_MOVE"));
    assert_eq!(conformance_code(&s), "illegal_move");
    let mut api = alice.client.api();
    let resign = v1::ResignRequest { match_id: id.clone() };
    api.resign(alice.client.request(resign)).await.expect("resigned");
    let s = bob.submit(&id, gops(7)).await.expect_err("the match is over");
    assert_eq!((s.code(), reason(&s).as_str()), (Code::FailedPrecondition, "GAME_OVER"));
    assert_eq!(conformance_code(&s), "game_over");

    // Plain reasons: the code's own name.
    let s = alice.create(create_request("no-such-game", "", open(), 0)).await;
    assert_reason("an unknown game", s, Code::InvalidArgument, "INVALID_ARGUMENT");
    let mut req = create_request("gops", "", open(), 0);
    req.idempotency_key = "one-key".into();
    alice.create(req.clone()).await.expect("created");
    req.game = "hexspiel".into();
    assert_reason("a key reused", alice.create(req).await, Code::AlreadyExists, "ALREADY_EXISTS");
    let running = alice.create_open("gops", "", 0).await;
    assert_reason(
        "a record while running",
        alice.record(&running).await,
        Code::FailedPrecondition,
        "FAILED_PRECONDITION",
    );
    let s = api.get_view(v1::GetViewRequest { match_id: id.clone() }).await;
    assert_reason("no session", s, Code::Unauthenticated, "UNAUTHENTICATED");

    // Lobby: a guest asks for rated play; a wrong old password.
    let mut lobby = alice.client.lobby();
    let ticket = v1::CreateTicketRequest {
        queue: Some(queue("gops", true)),
        idempotency_key: "k".into(),
        ttl_seconds: 0,
        answer_on_watch: false,
    };
    let s = lobby.create_ticket(alice.client.request(ticket)).await;
    assert_reason("a guest's rated ticket", s, Code::PermissionDenied, "ACCOUNT_REQUIRED");
    let cy = Player::account(&env.cluster.gateway_url(), "cy").await;
    let change = v1::ChangePasswordRequest {
        old_password: "not the password".into(),
        new_password: "another good password".into(),
    };
    let s = cy.client.lobby().change_password(cy.client.request(change)).await;
    assert_reason("a wrong old password", s, Code::Unauthenticated, "BAD_CREDENTIALS");
    // The session it came with still works.
    let profile = cy.client.lobby().get_profile(cy.client.request(v1::GetProfileRequest {})).await;
    assert!(profile.is_ok(), "{profile:?}");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_say_what_was_wrong() {
    let env = Env::start().await;
    let (alice, bob) = (env.player("alice").await, env.player("bob").await);
    // A Kill shown as a Fireball: shown_as is a Bluff's alone; the card's number is not said.
    let id = alice.create_open("masterminds", "", 0).await;
    bob.join(&id).await.expect("bob joins");
    let kill = v1::Move {
        game: Some(v1::r#move::Game::Masterminds(v1::MastermindsMove {
            card: v1::MastermindsCard::Kill as i32,
            shown_as: v1::MastermindsCard::Fireball as i32,
        })),
    };
    let mut said = Vec::new();
    for p in [&alice, &bob] {
        let s = p.submit_with(&id, Some(kill.clone()), &p.key()).await.expect_err("no move");
        said.push((s.code(), reason(&s), s.message().to_string()));
    }
    let bad = said.iter().find(|(_, r, _)| r == "BAD_MOVE").expect("the move's shape refused");
    assert_eq!(bad.0, Code::InvalidArgument);
    assert!(bad.2.contains("shown_as is only for a Bluff"), "{}", bad.2);
    let fireball = (v1::MastermindsCard::Fireball as i32).to_string();
    assert!(!bad.2.contains(&format!("shown_as {fireball}")), "{}", bad.2);

    // CreateTournament's bad options, said once.
    let (_, _, t) = env.tenant("acme", &["tournaments:manage", "results:read"]).await;
    let entrant = |p: &Player| v1::Entrant {
        player_id: p.id.clone(),
        seed_rating: None,
        name: String::new(),
    };
    let create = v1::CreateTournamentRequest {
        idempotency_key: "bad-options".into(),
        name: "cup".into(),
        format: Some(v1::TournamentFormat {
            kind: Some(v1::tournament_format::Kind::RoundRobin(v1::RoundRobin { double: false })),
        }),
        game: Some(v1::GameSpec {
            game: "gops".into(),
            options_json: "{\"cards\": 99}".into(),
            move_time_ms: 0,
        }),
        entrants: vec![entrant(&alice), entrant(&bob)],
        round_gap_ms: 0,
        public_page: false,
    };
    let s = t.api().create_tournament(t.request(create)).await.expect_err("bad options");
    assert_eq!((s.code(), reason(&s).as_str()), (Code::InvalidArgument, "INVALID_FIELD"));
    assert_eq!(s.message().matches("bad options").count(), 1, "{}", s.message());
    env.shutdown().await;
}
