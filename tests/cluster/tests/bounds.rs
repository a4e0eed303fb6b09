//! Every documented bound at the public edge, on a real cluster. The methods are read from
//! the protos themselves (every `rpc` of every service in proto/colosseum/v1), so a new
//! method cannot be left out: each is sent a request message one byte over its limit
//! (RESOURCE_EXHAUSTED, reason MESSAGE_TOO_LARGE, `limit_bytes` its own limit) and one of
//! exactly its limit (never refused for its size). Then each documented field limit plus
//! one: INVALID_ARGUMENT, reason INVALID_FIELD, `field` naming it, on every method alike.

use api::v1;
use cluster_tests::{Env, Player};

/// A well-formed id (a UUID) that names nothing.
fn uuid_like() -> String {
    "6f1e7a52-0000-4000-8000-000000000001".into()
}
use std::time::Duration;
use tonic::{Code, Status};
use tonic_types::StatusExt;

/// Every public method, as `/colosseum.v1.<Service>/<Method>`, from the proto files.
fn public_methods() -> Vec<String> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proto/colosseum/v1");
    let mut out = Vec::new();
    let mut files: Vec<_> = std::fs::read_dir(dir).expect("the protos").flatten().collect();
    files.sort_by_key(|f| f.path());
    for f in files {
        let text = std::fs::read_to_string(f.path()).expect("a proto");
        let mut service = None;
        for line in text.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("service ") {
                service = rest.split_whitespace().next().map(str::to_string);
            } else if let (Some(s), Some(rest)) = (&service, line.strip_prefix("rpc ")) {
                let name = rest.split('(').next().expect("a name").trim();
                out.push(format!("/colosseum.v1.{s}/{name}"));
            } else if line == "}" {
                service = None;
            }
        }
    }
    out
}

/// The limit the protos document for a method's request message.
fn documented_limit(path: &str) -> usize {
    // colosseum.proto's header: 4 MiB, CreateMatches 8 MiB (tournaments.proto says so on
    // the message; checked below against the text).
    if path == "/colosseum.v1.TournamentService/CreateMatches" { 8 << 20 } else { 4 << 20 }
}

/// A message of exactly `size` bytes encoded: one field no request has.
#[derive(Clone, PartialEq, prost::Message)]
struct Blob {
    #[prost(bytes = "vec", tag = "1000")]
    pad: Vec<u8>,
}

fn blob(size: usize) -> Blob {
    let mut b = Blob { pad: Vec::new() };
    let mut pad = size.saturating_sub(8);
    loop {
        b.pad = vec![b'x'; pad];
        let len = prost::Message::encoded_len(&b);
        if len == size {
            return b;
        }
        pad = if len < size { pad + (size - len) } else { pad - 1 };
    }
}

/// Sends `msg` to `path` with `authorization`, as one message on a stream (the same bytes
/// as a unary call), and reads the first answer: the refusal, if any.
async fn raw(url: &str, authorization: &str, path: &str, msg: Blob) -> Result<(), Status> {
    let channel = tonic::transport::Endpoint::from_shared(url.to_string())
        .expect("a URL")
        .connect()
        .await
        .expect("connects");
    let mut grpc = tonic::client::Grpc::new(channel).max_encoding_message_size(usize::MAX);
    grpc.ready().await.expect("ready");
    let codec = tonic_prost::ProstCodec::<Blob, Blob>::default();
    let path = tonic::codegen::http::uri::PathAndQuery::try_from(path).expect("a path");
    let mut req = tonic::Request::new(tokio_stream::iter([msg]));
    req.metadata_mut().insert("authorization", authorization.parse().expect("ASCII"));
    let mut stream = grpc.streaming(req, path, codec).await?.into_inner();
    stream.message().await.map(drop)
}

fn reason(s: &Status) -> String {
    let info = s.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.domain, "colosseum.v1");
    info.reason
}

fn token(p: &Player) -> String {
    let r = p.client.request(());
    r.metadata().get("authorization").expect("a token").to_str().expect("ASCII").to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_public_method_refuses_a_message_over_its_limit_and_takes_one_at_it() {
    let tournaments = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../proto/colosseum/v1/tournaments.proto"
    ))
    .expect("the proto");
    assert!(tournaments.contains("// Creates matches. The message may be up to 8 MiB (other"));
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    let (_, _, platform) =
        env.tenant("acme", &["matches:create", "tournaments:manage", "results:read"]).await;
    let key = {
        let r = platform.request(());
        r.metadata().get("authorization").expect("a key").to_str().expect("ASCII").to_string()
    };
    let methods = public_methods();
    assert!(methods.len() >= 35, "{methods:?}");
    for path in &methods {
        // A new guest each time: a method taking its message may change the session
        // (Logout ends it).
        let player = env.player("alice").await;
        let auth = if path.contains("TournamentService") { key.clone() } else { token(&player) };
        let limit = documented_limit(path);
        let s = raw(&url, &auth, path, blob(limit + 1)).await.expect_err(path);
        assert_eq!(s.code(), Code::ResourceExhausted, "{path}: {s:?}");
        assert_eq!(reason(&s), "MESSAGE_TOO_LARGE", "{path}");
        let info = s.get_details_error_info().expect("an ErrorInfo");
        assert_eq!(info.metadata.get("limit_bytes"), Some(&limit.to_string()), "{path}");
        assert!(s.message().len() <= 512, "{path}");
        // At the limit the message is taken: whatever the method answers, not its size (a
        // stream with nothing to send yet stays open: taken too).
        let at = tokio::time::timeout(Duration::from_secs(2), raw(&url, &auth, path, blob(limit)));
        if let Ok(Err(s)) = at.await {
            let too_large = s.get_details_error_info().map(|i| i.reason);
            assert_ne!(too_large.as_deref(), Some("MESSAGE_TOO_LARGE"), "{path}: {s:?}");
        }
    }
    env.shutdown().await;
}

/// Asserts a field refusal: INVALID_ARGUMENT, reason INVALID_FIELD, `field` in the
/// ErrorInfo and the BadRequest.
fn assert_field<T: std::fmt::Debug>(what: &str, r: Result<T, Status>, field: &str) {
    let s = r.expect_err(what);
    assert_eq!(s.code(), Code::InvalidArgument, "{what}: {s:?}");
    assert_eq!(reason(&s), "INVALID_FIELD", "{what}: {s:?}");
    let info = s.get_details_error_info().expect("an ErrorInfo");
    assert_eq!(info.metadata.get("field").map(String::as_str), Some(field), "{what}");
    let b = s.get_details_bad_request().expect("a BadRequest");
    assert_eq!(b.field_violations[0].field, field, "{what}");
    assert!(s.message().len() <= 512, "{what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_documented_field_limit_plus_one_names_its_field() {
    let env = Env::start().await;
    let p = env.player("alice").await;
    let c = &p.client;
    let mut api = c.api();
    let mut lobby = c.lobby();
    let long_id = "6".repeat(37);
    let over = |n: usize| "x".repeat(n + 1);

    // ColosseumService.
    let r =
        api.create_guest_session(v1::CreateGuestSessionRequest { display_name: over(32) }).await;
    assert_field("CreateGuestSession", r, "display_name");
    let create = |f: &dyn Fn(&mut v1::CreateMatchRequest)| {
        let mut r = cluster_tests::create_request("gops", "", cluster_tests::open(), 0);
        f(&mut r);
        r
    };
    for (req, field) in [
        (create(&|r| r.game = over(32)), "game"),
        (create(&|r| r.options_json = over(4096)), "options_json"),
        (create(&|r| r.idempotency_key = over(128)), "idempotency_key"),
        (create(&|r| r.move_time_ms = 604_800_001), "move_time_ms"),
        (create(&|r| r.opponent = Some(cluster_tests::bot(&over(32)))), "opponent.bot"),
    ] {
        assert_field("CreateMatch", api.create_match(c.request(req)).await, field);
    }
    let join = v1::JoinMatchRequest { match_id: long_id.clone(), idempotency_key: String::new() };
    assert_field("JoinMatch", api.join_match(c.request(join)).await, "match_id");
    let join = v1::JoinMatchRequest { match_id: uuid_like(), idempotency_key: over(128) };
    assert_field("JoinMatch", api.join_match(c.request(join)).await, "idempotency_key");
    let submit = |match_id: String, key: String, mv: Option<v1::Move>| v1::SubmitMoveRequest {
        match_id,
        r#move: mv,
        idempotency_key: key,
    };
    let r = api.submit_move(c.request(submit(long_id.clone(), "k".into(), None))).await;
    assert_field("SubmitMove", r, "match_id");
    let r = api.submit_move(c.request(submit(uuid_like(), over(128), None))).await;
    assert_field("SubmitMove", r, "idempotency_key");
    for place in [vec!["c3".to_string(); 17], vec!["c".repeat(9)]] {
        let hex = v1::HexspielMove {
            kind: Some(v1::hexspiel_move::Kind::Hex(v1::HexspielHexTurn { place, pattern: None })),
        };
        let mv = v1::Move { game: Some(v1::r#move::Game::Hexspiel(hex)) };
        let r = api.submit_move(c.request(submit(uuid_like(), "k".into(), Some(mv)))).await;
        assert_field("SubmitMove", r, "move.hexspiel.hex.place");
    }
    let r = api.resign(c.request(v1::ResignRequest { match_id: long_id.clone() })).await;
    assert_field("Resign", r, "match_id");
    let r = api.get_view(c.request(v1::GetViewRequest { match_id: long_id.clone() })).await;
    assert_field("GetView", r, "match_id");
    let watch = v1::WatchMatchRequest { match_id: long_id.clone(), ..Default::default() };
    assert_field("WatchMatch", api.watch_match(c.request(watch)).await.map(drop), "match_id");
    let rec = v1::GetMatchRecordRequest { match_id: long_id.clone() };
    assert_field("GetMatchRecord", api.get_match_record(c.request(rec)).await, "match_id");
    for (req, field) in [
        (v1::ListMyMatchesRequest { page_size: 101, ..Default::default() }, "page_size"),
        (v1::ListMyMatchesRequest { page_token: over(128), ..Default::default() }, "page_token"),
    ] {
        assert_field("ListMyMatches", api.list_my_matches(c.request(req)).await, field);
    }
    for (req, field) in [
        (v1::ListLiveMatchesRequest { game: over(32), ..Default::default() }, "game"),
        (v1::ListLiveMatchesRequest { page_size: 101, ..Default::default() }, "page_size"),
        (v1::ListLiveMatchesRequest { page_token: over(128), ..Default::default() }, "page_token"),
    ] {
        assert_field("ListLiveMatches", api.list_live_matches(c.request(req)).await, field);
    }
    // A record of 10,001 steps (the documented bound: 10,000), well formed otherwise.
    let record = serde_json::json!({
        "format": "colosseum-record/1",
        "game": "gops",
        "options": {},
        "commitment": "00".repeat(32),
        "seed": null,
        "steps": vec![serde_json::Value::Null; 10_001],
        "events": [],
        "result": null,
    });
    let verify = v1::VerifyRecordRequest { record: record.to_string().into_bytes() };
    assert_field("VerifyRecord", api.verify_record(verify).await, "record");

    // LobbyService.
    let register = |email: String, password: String, display_name: String| v1::RegisterRequest {
        email,
        password,
        display_name,
        ..Default::default()
    };
    let ok_pw = "correct horse battery".to_string();
    for (req, field) in [
        (
            register(format!("{}@example.org", "e".repeat(243)), ok_pw.clone(), String::new()),
            "email",
        ),
        (register("a@example.org".into(), "short77".into(), String::new()), "password"),
        (register("a@example.org".into(), over(128), String::new()), "password"),
        (register("a@example.org".into(), ok_pw.clone(), over(32)), "display_name"),
    ] {
        assert_field("Register", lobby.register(req).await, field);
    }
    let login = v1::LoginRequest { email: over(254), password: ok_pw.clone() };
    assert_field("Login", lobby.login(login).await, "email");
    let login = v1::LoginRequest { email: "a@example.org".into(), password: over(128) };
    assert_field("Login", lobby.login(login).await, "password");
    let account = Player::account(&env.cluster.gateway_url(), "bea").await;
    let mut bea = account.client.lobby();
    for (old, new, field) in [
        (over(128), ok_pw.clone(), "old_password"),
        (ok_pw.clone(), over(128), "new_password"),
        (ok_pw.clone(), "short77".to_string(), "new_password"),
    ] {
        let req = v1::ChangePasswordRequest { old_password: old, new_password: new };
        assert_field(
            "ChangePassword",
            bea.change_password(account.client.request(req)).await,
            field,
        );
    }
    let update = v1::UpdateProfileRequest { display_name: Some(over(32)), leaderboard: None };
    assert_field("UpdateProfile", lobby.update_profile(c.request(update)).await, "display_name");
    let spec = |f: &dyn Fn(&mut v1::QueueSpec)| {
        let mut q = cluster_tests::queue("gops", false);
        f(&mut q);
        Some(q)
    };
    let ticket = |queue, key: String, ttl_seconds| v1::CreateTicketRequest {
        queue,
        idempotency_key: key,
        ttl_seconds,
        answer_on_watch: false,
    };
    for (req, field) in [
        (ticket(spec(&|q| q.game = over(32)), "k".into(), 0), "queue.game"),
        (ticket(spec(&|q| q.options_json = over(4096)), "k".into(), 0), "queue.options_json"),
        (ticket(spec(&|q| q.move_time_ms = 604_800_001), "k".into(), 0), "queue.move_time_ms"),
        (ticket(spec(&|q| q.move_time_ms = 59_999), "k".into(), 0), "queue.move_time_ms"),
        (ticket(spec(&|_| {}), over(128), 0), "idempotency_key"),
        (ticket(spec(&|_| {}), "k".into(), 29), "ttl_seconds"),
        (ticket(spec(&|_| {}), "k".into(), 604_801), "ttl_seconds"),
    ] {
        assert_field("CreateTicket", lobby.create_ticket(c.request(req)).await, field);
    }
    let seek = v1::CreateSeekRequest {
        queue: spec(&|q| q.rated = true),
        idempotency_key: "k".into(),
        ttl_seconds: 0,
    };
    assert_field(
        "CreateSeek",
        lobby.create_seek(account.client.request(seek)).await,
        "queue.rated",
    );
    let seek = v1::CreateSeekRequest {
        queue: spec(&|q| q.move_time_ms = 604_800_001),
        idempotency_key: "k".into(),
        ttl_seconds: 0,
    };
    assert_field("CreateSeek", lobby.create_seek(c.request(seek)).await, "queue.move_time_ms");
    let list = v1::ListSeeksRequest { game: String::new(), limit: 201 };
    assert_field("ListSeeks", lobby.list_seeks(list).await, "limit");
    let list = v1::ListSeeksRequest { game: over(32), limit: 0 };
    assert_field("ListSeeks", lobby.list_seeks(list).await, "game");
    let accept = v1::AcceptSeekRequest { seek_id: long_id.clone(), idempotency_key: "k".into() };
    assert_field("AcceptSeek", lobby.accept_seek(c.request(accept)).await, "seek_id");
    let accept = v1::AcceptSeekRequest { seek_id: uuid_like(), idempotency_key: over(128) };
    assert_field("AcceptSeek", lobby.accept_seek(c.request(accept)).await, "idempotency_key");
    let cancel = v1::CancelTicketRequest { ticket_id: long_id.clone() };
    assert_field("CancelTicket", lobby.cancel_ticket(c.request(cancel)).await, "ticket_id");
    let board = |f: &dyn Fn(&mut v1::GetLeaderboardRequest)| {
        let mut r = v1::GetLeaderboardRequest { game: "gops".into(), ..Default::default() };
        f(&mut r);
        r
    };
    for (req, field) in [
        (board(&|r| r.limit = 101), "limit"),
        (board(&|r| r.around_player_id = long_id.clone()), "around_player_id"),
    ] {
        assert_field("GetLeaderboard", lobby.get_leaderboard(req).await, field);
    }
    let rating =
        v1::GetRatingRequest { game: "gops".into(), player_id: p.id.clone(), history_limit: 101 };
    assert_field("GetRating", lobby.get_rating(rating).await, "history_limit");
    let rating =
        v1::GetRatingRequest { game: "gops".into(), player_id: long_id.clone(), history_limit: 0 };
    assert_field("GetRating", lobby.get_rating(rating).await, "player_id");

    // TournamentService.
    let (_, _, t) =
        env.tenant("acme", &["matches:create", "tournaments:manage", "results:read"]).await;
    let mut tapi = t.api();
    let r = tapi.list_tournaments(t.request(v1::ListTournamentsRequest { limit: 201 })).await;
    assert_field("ListTournaments", r, "limit");
    let r = tapi.get_match(t.request(v1::GetMatchRequest { match_id: long_id.clone() })).await;
    assert_field("GetMatch", r, "match_id");
    let get = v1::GetTournamentRequest { tournament_id: long_id.clone() };
    assert_field("GetTournament", tapi.get_tournament(t.request(get)).await, "tournament_id");
    let adjudicate = v1::AdjudicateMatchRequest {
        tournament_id: uuid_like(),
        match_id: uuid_like(),
        winner: Some(0),
        note: over(256),
    };
    assert_field("AdjudicateMatch", tapi.adjudicate_match(t.request(adjudicate)).await, "note");
    let create = v1::CreateMatchesRequest {
        idempotency_key: over(64),
        matches: Vec::new(),
        validate_only: true,
    };
    assert_field("CreateMatches", tapi.create_matches(t.request(create)).await, "idempotency_key");
    let tournament = v1::CreateTournamentRequest {
        idempotency_key: "k".into(),
        name: over(128),
        ..Default::default()
    };
    assert_field("CreateTournament", tapi.create_tournament(t.request(tournament)).await, "name");

    // TournamentViewService: open, so asked with no token at all.
    let mut view = v1::tournament_view_service_client::TournamentViewServiceClient::new(
        client::channel(&env.cluster.gateway_url()).expect("a channel"),
    );
    let page = |f: &dyn Fn(&mut v1::GetPublicTournamentRequest)| {
        let mut r =
            v1::GetPublicTournamentRequest { tournament_id: uuid_like(), ..Default::default() };
        f(&mut r);
        r
    };
    for (req, field) in [
        (page(&|r| r.tournament_id = long_id.clone()), "tournament_id"),
        (page(&|r| r.tournament_id = String::new()), "tournament_id"),
        (page(&|r| r.standings_limit = 1_001), "standings_limit"),
        (page(&|r| r.games_limit = 1_001), "games_limit"),
    ] {
        let watch = v1::WatchPublicTournamentRequest {
            tournament_id: req.tournament_id.clone(),
            standings_offset: req.standings_offset,
            standings_limit: req.standings_limit,
            games_offset: req.games_offset,
            games_limit: req.games_limit,
        };
        assert_field("GetPublicTournament", view.get_public_tournament(req).await, field);
        let r = view.watch_public_tournament(watch).await.map(drop);
        assert_field("WatchPublicTournament", r, field);
    }
    env.shutdown().await;
}
