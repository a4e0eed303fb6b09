//! The lobby through the public API on a real Redis and real gRPC servers: accounts,
//! rated and casual queues, seeks, ratings and leaderboards, and the match-maker crashed
//! under fifty players queueing at once.

use api::v1;
use cluster_tests::{Env, Picker, Player, assert_status, play_out, queue};
use std::collections::BTreeMap;
use std::time::Duration;
use store::{EventStore, Finished, LifecycleStore, LobbyStore, MatchId, RedisStore};
use tonic::Code;

/// The ids of the live GOPS matches `p` is shown (the first page, 100 at most).
async fn live_ids(p: &Player) -> Vec<String> {
    let req =
        v1::ListLiveMatchesRequest { game: "gops".into(), page_size: 100, page_token: "".into() };
    let r = p.client.api().list_live_matches(p.client.request(req)).await.expect("live list");
    r.into_inner().matches.into_iter().map(|m| m.match_id).collect()
}

fn reason(s: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    s.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
}

/// Alice and bob queue for rated GOPS, are paired into one match, play it out; each
/// rating then counts the match exactly once, also after its result is announced again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_accounts_queue_play_and_are_rated_once() {
    let mut env = Env::start().await;
    let url = env.cluster.gateway_url();
    let alice = Player::account(&url, "alice").await;
    let bob = Player::account(&url, "bob").await;
    let q = queue("gops", true);
    let ta = alice.ticket_retrying(&q, "alice-1").await;
    // The same key again: the same ticket, nothing new.
    let again = alice.client.create_ticket(q.clone(), "alice-1", 0).await.expect("retry");
    assert!(again.duplicate);
    assert_eq!(again.ticket.expect("ticket").ticket_id, ta.ticket_id);
    let tb = bob.ticket_retrying(&q, "bob-1").await;
    let (ma, sa) = alice.assignment(&ta.ticket_id, Duration::from_secs(10)).await;
    let (mb, sb) = bob.assignment(&tb.ticket_id, Duration::from_secs(10)).await;
    assert_eq!(ma, mb, "one match for both");
    assert_ne!(sa, sb, "two seats");
    assert_eq!(live_ids(&alice).await, std::slice::from_ref(&ma), "a lobby match is listed live");
    let seats = if sa == 0 { [&alice, &bob] } else { [&bob, &alice] };
    let played = play_out(seats, &ma, &mut Picker::new(7), 100).await;
    let outcome = played.last.outcome.clone().expect("an outcome");

    let ra = alice.rating_after("gops", 1).await;
    let rb = bob.rating_after("gops", 1).await;
    assert_eq!((ra.games, rb.games), (1, 1));
    let alice_won = outcome.winner.map(|w| w == sa);
    match alice_won {
        Some(true) => assert!(ra.rating > 1500.0 && rb.rating < 1500.0, "{ra:?} {rb:?}"),
        Some(false) => assert!(ra.rating < 1500.0 && rb.rating > 1500.0, "{ra:?} {rb:?}"),
        None => assert!((ra.rating - rb.rating).abs() < 1e-9, "a draw moves both alike"),
    }
    assert!(ra.deviation < 350.0 && ra.provisional);
    assert_eq!(ra.history.len(), 1);
    assert_eq!(ra.history[0].match_id, ma);
    assert_eq!(ra.board, v1::Board::Provisional as i32);

    // The result announced again (an engine retrying, a replica rebuilding): nothing moves.
    let store = RedisStore::connect(&env.redis.url()).await.expect("redis");
    let id: MatchId = ma.parse().expect("a match id");
    let finished = Finished {
        match_id: id,
        game: "gops".into(),
        players: [None, None],
        winner: outcome.winner.map(rules_core_seat),
        reason: outcome.reason.clone(),
        at_ms: 1,
        seed_hex: None,
    };
    store.announce_finished(&finished).await.expect("announce");
    // The ratings consumer reads the stream in order: once a match announced after the
    // replay is rated, the replay has been read too.
    let carol = Player::account(&url, "carol").await;
    let dan = Player::account(&url, "dan").await;
    let tc = carol.ticket_retrying(&q, "carol-1").await;
    let td = dan.ticket_retrying(&q, "dan-1").await;
    let (mc, sc) = carol.assignment(&tc.ticket_id, Duration::from_secs(10)).await;
    let (md, _) = dan.assignment(&td.ticket_id, Duration::from_secs(10)).await;
    assert_eq!(mc, md);
    let seats = if sc == 0 { [&carol, &dan] } else { [&dan, &carol] };
    play_out(seats, &mc, &mut Picker::new(8), 100).await;
    carol.rating_after("gops", 1).await;
    let ra2 = alice.client.rating("gops", &alice.id, 10).await.expect("rating");
    let rb2 = bob.client.rating("gops", &bob.id, 10).await.expect("rating");
    assert_eq!((ra2.games, ra2.rating), (1, ra.rating), "a replayed result changes nothing");
    assert_eq!((rb2.games, rb2.rating), (1, rb.rating));
    assert!(store.rated_match(id).await.expect("read").is_none(), "forgotten once rated");
    assert!(store.unrated_matches().await.expect("read").is_empty());

    // Both on the provisional board, with every gateway answering the same ranks.
    let board = v1::GetLeaderboardRequest {
        game: "gops".into(),
        board: v1::Board::Provisional as i32,
        ..Default::default()
    };
    let page = alice.client.leaderboard(board.clone()).await.expect("leaderboard");
    assert_eq!(page.total, 4);
    let ranks: Vec<u64> = page.entries.iter().map(|e| e.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4]);
    let rank_of = |name: &str| page.entries.iter().find(|e| e.display_name == name).map(|e| e.rank);
    if alice_won.is_some() {
        let (winner, loser) =
            if alice_won == Some(true) { ("alice", "bob") } else { ("bob", "alice") };
        assert!(rank_of(winner) < rank_of(loser), "{page:?}");
    }
    let second = env.cluster.start_second_gateway(games::Family::Goofspiel).await;
    let second = second.expect("a second gateway");
    let there = alice.via(&second).client.leaderboard(board).await.expect("leaderboard");
    assert_eq!(there.entries, page.entries, "every gateway answers the same board");
    env.shutdown().await;
}

fn rules_core_seat(w: u32) -> rules_core::Seat {
    rules_core::Seat::new(u64::from(w)).expect("a seat")
}

/// Guests play casual but never rated; accounts log in and out; a wrong password and an
/// unknown email are answered alike; login attempts are limited.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guests_accounts_and_logins() {
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    let guest = env.player("guest").await;
    let refused = guest.client.create_ticket(queue("gops", true), "g-1", 0).await;
    assert_status(refused, Code::PermissionDenied, "needs an account");
    let casual = guest.client.create_ticket(queue("gops", false), "g-2", 0).await.expect("casual");
    assert_eq!(casual.ticket.expect("ticket").state, v1::TicketState::Waiting as i32);
    let profile = guest.client.profile().await.expect("profile");
    assert!(!profile.account);
    assert_eq!(profile.display_name, "guest");

    let email = format!("carol-{}@Example.org", cluster_tests::uuid_like());
    let carol = client::Client::register(&url, &email, "correct horse battery", "Carol", false)
        .await
        .expect("register");
    let again = client::Client::register(&url, &email, "another password", "Carol", false).await;
    let again = again.err().and_then(|e| e.status().cloned()).expect("refused");
    assert_eq!((again.code(), reason(&again).as_str()), (Code::AlreadyExists, "EMAIL_TAKEN"));
    let p = carol.profile().await.expect("profile");
    assert_eq!((p.account, p.email.as_str()), (true, email.to_lowercase().as_str()));

    // Logged in again with the email in another case; the same player.
    let (carol2, _) = client::Client::login(&url, &email.to_uppercase(), "correct horse battery")
        .await
        .expect("login");
    assert_eq!(carol2.player_id(), carol.player_id());
    carol2.logout().await.expect("logout");
    let after = carol2.profile().await;
    assert_status(after, Code::Unauthenticated, "unknown or expired session");
    carol.profile().await.expect("the other session stays");

    let wrong = client::Client::login(&url, &email, "wrong password!").await.err();
    let unknown = client::Client::login(&url, "nobody@example.org", "wrong password!").await.err();
    let (wrong, unknown) = (
        wrong.and_then(|e| e.status().cloned()).expect("refused"),
        unknown.and_then(|e| e.status().cloned()).expect("refused"),
    );
    assert_eq!((wrong.code(), wrong.message()), (unknown.code(), unknown.message()));
    assert_eq!((wrong.code(), reason(&wrong).as_str()), (Code::Unauthenticated, "BAD_CREDENTIALS"));

    // The account's window allows ten attempts (two made above); then it is limited.
    let mut limited = None;
    for _ in 0..12 {
        if let Err(e) = client::Client::login(&url, &email, "wrong password!").await {
            let s = e.status().cloned().expect("a status");
            if s.code() == Code::ResourceExhausted {
                limited = Some(s);
                break;
            }
        }
    }
    let limited = limited.expect("login attempts are limited");
    assert_eq!(reason(&limited), "RATE_LIMITED");
    env.shutdown().await;
}

/// A ticket can be cancelled while it waits, expires when its time runs out, and a seek
/// is paired with whoever accepts it first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_expiry_and_seeks() {
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    let dave = Player::account(&url, "dave").await;
    let mut stream = dave.client.watch_tickets().await.expect("watch");
    let t = dave.ticket_retrying(&queue("gops", true), "d-1").await;
    let other = dave.client.create_ticket(queue("gops", true), "d-2", 0).await;
    let other = other.expect_err("one live ticket per queue");
    assert_eq!((other.code(), reason(&other).as_str()), (Code::AlreadyExists, "TICKET_LIVE"));
    let cancelled = dave.client.cancel_ticket(&t.ticket_id).await.expect("cancel");
    assert_eq!(cancelled.state, v1::TicketState::Cancelled as i32);
    let pushed = client::Client::assignment(&mut stream, &t.ticket_id).await;
    assert_status(pushed, Code::FailedPrecondition, "CANCELLED");
    drop(stream);

    // The shortest time to live, 30 s: pushed as EXPIRED when it runs out.
    let req = v1::CreateTicketRequest {
        queue: Some(queue("masterminds", false)),
        idempotency_key: "d-3".into(),
        ttl_seconds: 30,
        answer_on_watch: false,
    };
    let t = dave.client.lobby().create_ticket(dave.client.request(req)).await.expect("ticket");
    let t = t.into_inner().ticket.expect("ticket");
    let mut stream = dave.client.watch_tickets().await.expect("watch");
    let pushed = tokio::time::timeout(
        Duration::from_secs(40),
        client::Client::assignment(&mut stream, &t.ticket_id),
    )
    .await
    .expect("expired in time");
    assert_status(pushed, Code::FailedPrecondition, "EXPIRED");

    // A seek: listed, accepted once.
    let erin = Player::account(&url, "erin").await;
    let frank = env.player("frank").await;
    let seek = erin
        .client
        .lobby()
        .create_seek(erin.client.request(v1::CreateSeekRequest {
            queue: Some(queue("gops", false)),
            idempotency_key: "e-1".into(),
            ttl_seconds: 0,
        }))
        .await
        .expect("seek")
        .into_inner()
        .ticket
        .expect("ticket");
    let listed = frank
        .client
        .lobby()
        .list_seeks(frank.client.request(v1::ListSeeksRequest { game: "gops".into(), limit: 0 }))
        .await
        .expect("list")
        .into_inner();
    assert_eq!(listed.seeks.len(), 1);
    assert_eq!(listed.seeks[0].seek_id, seek.ticket_id);
    assert_eq!(listed.seeks[0].display_name, "erin");
    let accept = |p: &Player, key: &str| {
        let req =
            v1::AcceptSeekRequest { seek_id: seek.ticket_id.clone(), idempotency_key: key.into() };
        let mut lobby = p.client.lobby();
        let r = p.client.request(req);
        async move { lobby.accept_seek(r).await }
    };
    let mine = accept(&frank, "f-1").await.expect("accepted").into_inner().ticket.expect("ticket");
    assert_eq!(mine.state, v1::TicketState::Assigned as i32);
    let retried = accept(&frank, "f-1").await.expect("retried").into_inner().ticket.expect("t");
    assert_eq!(retried.ticket_id, mine.ticket_id, "the same key answers the same ticket");
    let (m, s) = erin.assignment(&seek.ticket_id, Duration::from_secs(10)).await;
    assert_eq!(m, mine.match_id);
    assert_ne!(s, mine.seat);
    assert!(live_ids(&frank).await.contains(&m), "an accepted seek's match is listed live");
    let late = env.player("gina").await;
    assert_status(accept(&late, "g-1").await, Code::FailedPrecondition, "no longer open");
    let own = accept(&erin, "e-2").await;
    assert_status(own, Code::InvalidArgument, "your own seek");
    // An open stream would hold the gateway's drain at shutdown.
    drop(stream);
    env.shutdown().await;
}

/// The first message on `watch` about ticket `id`, within 10 s: less than the watch's
/// 15 s re-read (`RESYNC_EVERY`), so what comes was pushed by the ticket's announcement
/// once the watch's first read is done.
async fn pushed(watch: &mut tonic::Streaming<v1::WatchTicketsResponse>, id: &str) -> v1::Ticket {
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let m = watch.message().await.expect("the stream").expect("not ended");
            if let Some(t) = m.ticket.filter(|t| t.ticket_id == id) {
                return t;
            }
        }
    })
    .await
    .expect("pushed in time")
}

/// A ticket answered on the watch (`answer_on_watch`): the answer names a new ticket and
/// nothing more, the caller's stream brings it whole (as the same key answers it, with the
/// flag or without: a duplicate is answered whole), then its assignment there once an
/// opponent queues.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ticket_answered_on_the_watch_comes_whole_on_the_stream() {
    let env = Env::start().await;
    let (gil, hal) = (env.player("gil").await, env.player("hal").await);
    let mut watch = gil.client.watch_tickets().await.expect("watch");
    // A ticket in another queue, seen on the stream: the watch's first read is done, so
    // the next ticket can only come by its creation's announcement.
    let first = gil.ticket_retrying(&queue("masterminds", false), "g-0").await;
    pushed(&mut watch, &first.ticket_id).await;

    let q = queue("gops", false);
    let flagged = |key: &str| v1::CreateTicketRequest {
        queue: Some(q.clone()),
        idempotency_key: key.into(),
        ttl_seconds: 0,
        answer_on_watch: true,
    };
    let answer = gil.client.lobby().create_ticket(gil.client.request(flagged("g-1"))).await;
    let answer = answer.expect("ticket").into_inner();
    let id = answer.ticket.as_ref().expect("named").ticket_id.clone();
    let named = v1::Ticket { ticket_id: id.clone(), ..Default::default() };
    assert_eq!((answer.ticket, answer.duplicate), (Some(named), false), "only the id");
    let on_stream = pushed(&mut watch, &id).await;
    assert_eq!(on_stream.state, v1::TicketState::Waiting as i32);
    // The same key again, with the flag and without: the same ticket, whole.
    let again = gil.client.lobby().create_ticket(gil.client.request(flagged("g-1"))).await;
    let again = again.expect("the same key").into_inner();
    let plain = gil.client.create_ticket(q.clone(), "g-1", 0).await.expect("the same key");
    assert!(again.duplicate && plain.duplicate, "the same key answers the same ticket");
    // The rating gap grows with the wait: every other field is the stream's.
    let gapless = |t: Option<v1::Ticket>| v1::Ticket { rating_gap: 0.0, ..t.expect("whole") };
    let on_stream = gapless(Some(on_stream));
    assert_eq!(gapless(again.ticket), on_stream, "a duplicate answered on the watch is whole");
    assert_eq!(gapless(plain.ticket), on_stream);

    // Refusals are the same either way: a second key while the first waits.
    let refused = gil.client.create_ticket_on_watch(q.clone(), "g-2").await;
    let refused = refused.expect_err("one live ticket per queue");
    assert_eq!((refused.code(), reason(&refused).as_str()), (Code::AlreadyExists, "TICKET_LIVE"));

    let th = hal.ticket_retrying(&q, "h-1").await;
    let (m, seat) =
        tokio::time::timeout(Duration::from_secs(15), client::Client::assignment(&mut watch, &id))
            .await
            .expect("assigned in time")
            .expect("assigned");
    let (mh, sh) = hal.assignment(&th.ticket_id, Duration::from_secs(15)).await;
    assert_eq!(m, mh, "one match for both");
    assert_ne!(seat, sh);
    drop(watch);
    env.shutdown().await;
}

/// Fifty players queue at once on two match-maker replicas; one is crashed (its runtime
/// dropped, as kill -9) midway. Everyone is paired exactly once: 25 matches, each with two
/// of them, no ticket in two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fifty_players_two_match_makers_one_crashed_everyone_paired_once() {
    let mut env = Env::start().await;
    env.cluster.start_match_maker_replica().await.expect("a second match-maker");
    let url = env.cluster.gateway_url();
    let mut players = Vec::new();
    for i in 0..50 {
        players.push(Player::account(&url, &format!("p{i}")).await);
    }
    let q = queue("gops", true);
    let mut tasks = Vec::new();
    for (i, p) in players.iter().cloned().enumerate() {
        let q = q.clone();
        tasks.push(tokio::spawn(async move {
            // Staggered, so the crash lands while tickets are still arriving.
            tokio::time::sleep(Duration::from_millis(20 * i as u64)).await;
            let t = p.ticket_retrying(&q, &format!("{}-ticket", p.name)).await;
            let (m, seat) = p.assignment(&t.ticket_id, Duration::from_secs(60)).await;
            (p.id.clone(), t.ticket_id, m, seat)
        }));
    }
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The crash takes the leader: the lease's holder is named after its replica's address.
    let store = RedisStore::connect(&env.redis.url()).await.expect("redis");
    let client = redis::Client::open(env.redis.url()).expect("url");
    let mut conn = client.get_multiplexed_async_connection().await.expect("connect");
    let lease = "colosseum:{lobby}:lease:matcher";
    let leader: Option<String> =
        redis::cmd("GET").arg(lease).query_async(&mut conn).await.expect("GET");
    let holder = leader.clone().expect("a lease holder");
    let urls = env.cluster.match_maker_urls();
    let i = urls
        .iter()
        .position(|u| holder.starts_with(&format!("{}/", u.trim_start_matches("http://"))))
        .unwrap_or_else(|| panic!("the lease holder {holder} is one of {urls:?}"));
    env.cluster.crash_match_maker(i);
    let mut by_match: BTreeMap<String, Vec<(String, u32)>> = BTreeMap::new();
    let mut tickets = std::collections::BTreeSet::new();
    for t in tasks {
        let (player, ticket, m, seat) = t.await.expect("a player's task");
        assert!(tickets.insert(ticket), "one ticket per player");
        by_match.entry(m).or_default().push((player, seat));
    }
    assert_eq!(by_match.len(), 25, "everyone paired exactly once: {by_match:?}");
    let after: Option<String> =
        redis::cmd("GET").arg(lease).query_async(&mut conn).await.expect("GET");
    assert!(leader.is_some() && after.is_some() && leader != after, "the lease changed hands");
    for (m, seated) in &by_match {
        assert_eq!(seated.len(), 2, "match {m}: {seated:?}");
        assert_ne!(seated[0].1, seated[1].1);
        let meta =
            store.meta(m.parse().expect("id")).await.expect("meta").expect("the match exists");
        for (player, seat) in seated {
            let holder = &meta.seats.0[*seat as usize];
            assert!(
                matches!(holder, store::SeatHolder::Player(p) if p.to_string() == *player),
                "match {m} seat {seat}: {holder:?}"
            );
        }
    }
    assert!(store.pending_pairings().await.expect("read").is_empty());
    env.shutdown().await;
}

/// The page around a player starts at the top when the player is second, and every
/// gateway gives the same ranks (the board is in Redis, not a replica's memory).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn leaderboard_pages_and_ranks_agree_across_gateways() {
    let mut env = Env::start().await;
    let url = env.cluster.gateway_url();
    let store = RedisStore::connect(&env.redis.url()).await.expect("redis");
    let mut players = Vec::new();
    for (i, r) in [1700.0, 1650.0, 1600.0, 1550.0, 1500.0].into_iter().enumerate() {
        let p = Player::account(&url, &format!("r{i}")).await;
        let id = p.id.parse().expect("id");
        store.place("gops", id, Some(store::Board::Rated), r).await.expect("place");
        players.push(p);
    }
    let around = |who: &Player, limit: u32| v1::GetLeaderboardRequest {
        game: "gops".into(),
        board: v1::Board::Rated as i32,
        limit,
        from_rank: 0,
        around_player_id: who.id.clone(),
    };
    let page = players[1].client.leaderboard(around(&players[1], 5)).await.expect("page");
    let ranks: Vec<u64> = page.entries.iter().map(|e| e.rank).collect();
    assert_eq!(ranks, [1, 2, 3, 4, 5]);
    let page = players[1].client.leaderboard(around(&players[1], 3)).await.expect("page");
    let names: Vec<&str> = page.entries.iter().map(|e| e.display_name.as_str()).collect();
    assert_eq!(names, ["r0", "r1", "r2"], "rank 1 shows when the player is second");
    let page = players[4].client.leaderboard(around(&players[4], 3)).await.expect("page");
    let names: Vec<&str> = page.entries.iter().map(|e| e.display_name.as_str()).collect();
    assert_eq!(names, ["r3", "r4"], "the last one in the middle of what there is");

    let second = env.cluster.start_second_gateway(games::Family::Goofspiel).await.expect("gateway");
    for p in &players {
        let here = p.client.rating("gops", &p.id, 0).await.expect("rating");
        let there = p.via(&second).client.rating("gops", &p.id, 0).await.expect("rating");
        assert_eq!(here.rank, there.rank);
    }
    let r = players[2].client.rating("gops", &players[2].id, 0).await.expect("rating");
    assert_eq!(r.rank, Some(3));
    let bad = players[0]
        .client
        .leaderboard(v1::GetLeaderboardRequest { game: "chess".into(), ..Default::default() });
    assert_status(bad.await, Code::InvalidArgument, "no game");
    env.shutdown().await;
}

/// A pairing stored by a match-maker that died before creating its match (or before
/// telling anyone) is finished by whoever holds the lease: the match is created with both
/// players seated, both tickets are assigned and pushed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pairing_left_pending_is_finished_by_the_next_match_maker() {
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    let store = RedisStore::connect(&env.redis.url()).await.expect("redis");
    let (hana, ivan) = (Player::account(&url, "hana").await, Player::account(&url, "ivan").await);
    let mut watch = hana.client.watch_tickets().await.expect("watch");
    // What a match-maker that dies at once leaves: the pairing, pending, and no match.
    let pairing = left_pending(&store, [&hana, &ivan], MatchId::random()).await;
    let (th, ti) = (pairing.tickets[0], pairing.tickets[1]);
    assert!(store.meta(pairing.match_id).await.expect("meta").is_none(), "no match yet");
    let (m, seat) = tokio::time::timeout(
        Duration::from_secs(15),
        client::Client::assignment(&mut watch, &th.to_string()),
    )
    .await
    .expect("finished in time")
    .expect("assigned");
    assert_eq!((m.as_str(), seat), (pairing.match_id.to_string().as_str(), 0));
    let meta = store.meta(pairing.match_id).await.expect("meta").expect("the match exists");
    assert!(matches!(&meta.seats.0[1], store::SeatHolder::Player(p) if *p == pairing.players[1]));
    let assigned = store.ticket(ti).await.expect("read").expect("stored").state;
    assert!(matches!(assigned, store::TicketState::Assigned { .. }), "{assigned:?}");
    assert!(store.pending_pairings().await.expect("read").is_empty());
    assert!(store.rated_match(pairing.match_id).await.expect("read").is_some());
    // An open stream would hold the gateway's drain at shutdown.
    drop(watch);
    env.shutdown().await;
}

/// A bot's account is labelled as one and ranked on the bots' board only, apart from
/// people, whatever its opt-in says.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bot_accounts_are_ranked_apart() {
    let env = Env::start().await;
    let url = env.cluster.gateway_url();
    let human = Player::account(&url, "human").await;
    let channel = client::channel(&url).expect("url");
    let registered = api::v1::lobby_service_client::LobbyServiceClient::new(channel.clone())
        .register(v1::RegisterRequest {
            email: format!("bot-{}@example.org", cluster_tests::uuid_like()),
            password: "correct horse battery".into(),
            display_name: "botty".into(),
            leaderboard: false,
            bot: true,
        })
        .await
        .expect("register")
        .into_inner()
        .session
        .expect("session");
    let bot = Player::of(
        client::Client::with_token(channel, &registered.token, &registered.player_id)
            .expect("client"),
        "botty",
    );
    assert!(bot.client.profile().await.expect("profile").bot);
    let q = queue("gops", true);
    let (th, tb) = (human.ticket_retrying(&q, "h-1").await, bot.ticket_retrying(&q, "b-1").await);
    let (m, sh) = human.assignment(&th.ticket_id, Duration::from_secs(10)).await;
    let (mb, _) = bot.assignment(&tb.ticket_id, Duration::from_secs(10)).await;
    assert_eq!(m, mb);
    let seats = if sh == 0 { [&human, &bot] } else { [&bot, &human] };
    play_out(seats, &m, &mut Picker::new(9), 100).await;
    let rb = bot.rating_after("gops", 1).await;
    let rh = human.rating_after("gops", 1).await;
    assert_eq!(rb.board, v1::Board::Bots as i32);
    assert_eq!(rh.board, v1::Board::Provisional as i32);
    let board = |b: v1::Board| v1::GetLeaderboardRequest {
        game: "gops".into(),
        board: b as i32,
        ..Default::default()
    };
    let bots = human.client.leaderboard(board(v1::Board::Bots)).await.expect("bots");
    let names: Vec<&str> = bots.entries.iter().map(|e| e.display_name.as_str()).collect();
    assert_eq!(names, ["botty"]);
    let people = human.client.leaderboard(board(v1::Board::Provisional)).await.expect("people");
    let names: Vec<&str> = people.entries.iter().map(|e| e.display_name.as_str()).collect();
    assert_eq!(names, ["human"]);
    env.shutdown().await;
}

/// Queues are many (every time control is one), a player's live tickets are not: the
/// eleventh answers RESOURCE_EXHAUSTED, and a cancelled one makes room again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_holds_at_most_ten_live_tickets() {
    let env = Env::start().await;
    let kim = env.player("kim").await;
    let spec = |i: u64| v1::QueueSpec { move_time_ms: 60_000 * (i + 1), ..queue("gops", false) };
    let mut first = None;
    for i in 0..10 {
        let t = kim.client.create_ticket(spec(i), &format!("k-{i}"), 0).await.expect("a ticket");
        first.get_or_insert(t.ticket.expect("ticket").ticket_id);
    }
    let eleventh = kim.client.create_ticket(spec(10), "k-10", 0).await;
    assert_status(eleventh, Code::ResourceExhausted, "10 live tickets");
    kim.client.cancel_ticket(&first.expect("a first ticket")).await.expect("cancel");
    kim.client.create_ticket(spec(10), "k-10", 0).await.expect("room again");
    env.shutdown().await;
}

// A rated match whose finish never reached the lifecycle stream (its engine died between
// the final step and the announcement) is rated all the same: `tests/announce.rs`.

/// What a match-maker that died at once leaves: `players`' tickets in the rated GOPS
/// queue, rated far apart (the live matcher leaves them waiting: their gaps are 100 for
/// now), paired into `match_id`, pending, and no match created. The pairing.
async fn left_pending(
    store: &RedisStore,
    players: [&Player; 2],
    match_id: MatchId,
) -> store::Pairing {
    let now = service_kit::time::now_ms();
    let queue = store::Queue {
        game: "gops".into(),
        options_json: "{}".into(),
        move_time_ms: 60_000,
        rated: true,
    };
    let mut tickets = Vec::new();
    for (p, rating) in players.into_iter().zip([1500.0, 2500.0]) {
        let t = store::Ticket {
            id: store::TicketId::random(),
            player: p.id.parse().expect("id"),
            queue: queue.clone(),
            seek: false,
            rating,
            idempotency_key: format!("{}-left-pending", p.name),
            created_ms: now,
            expires_ms: now + 300_000,
            state: store::TicketState::Waiting,
            changed_ms: now,
            display_name: p.name.clone(),
        };
        assert!(matches!(
            store.create_ticket(&t).await.expect("create"),
            store::TicketCreated::Created(_)
        ));
        tickets.push(t);
    }
    let pairing = store::Pairing {
        match_id,
        queue,
        tickets: [tickets[0].id, tickets[1].id],
        players: [tickets[0].player, tickets[1].player],
        paired_ms: now,
    };
    assert_eq!(store.pair(std::slice::from_ref(&pairing), now).await.expect("pair"), [true]);
    pairing
}
