//! The web client's lists and the record check, on a real cluster: ListMyMatches shows a
//! player its own matches (in progress and finished, paged, never another's),
//! ListLiveMatches lists a match while it is played and drops it when it ends, and lists
//! only matches meant to be seen (a casual or a public tournament's, never a tenant's bulk
//! match or a private tournament's), VerifyRecord accepts a real record and names a tampered one's first difference; and
//! twin matches that differ only in a sealed bid list byte for byte alike to those who may
//! not see it.

use api::v1::{self, MyMatchState, SeatResult};
use client::platform::Platform;
use cluster_tests::{Env, Player, assert_status, bot, create_request, gops, gops3, open};
use prost::Message;
use std::collections::BTreeSet;
use tonic::Code;
use tonic_types::StatusExt;

async fn mine(
    p: &Player,
    state: MyMatchState,
    size: u32,
    token: &str,
) -> v1::ListMyMatchesResponse {
    let req =
        v1::ListMyMatchesRequest { state: state as i32, page_size: size, page_token: token.into() };
    let r = p.client.api().list_my_matches(p.client.request(req)).await;
    r.unwrap_or_else(|s| panic!("{}'s matches: {s:?}", p.name)).into_inner()
}

/// Every one of `p`'s matches in `state`, a page of `size` at a time.
async fn all_mine(p: &Player, state: MyMatchState, size: u32) -> Vec<v1::MyMatch> {
    let mut out = Vec::new();
    let mut token = String::new();
    loop {
        let page = mine(p, state, size, &token).await;
        assert!(page.matches.len() <= size as usize);
        out.extend(page.matches);
        if page.next_page_token.is_empty() {
            return out;
        }
        token = page.next_page_token;
    }
}

async fn live(p: &Player, game: &str, size: u32, token: &str) -> v1::ListLiveMatchesResponse {
    let req =
        v1::ListLiveMatchesRequest { game: game.into(), page_size: size, page_token: token.into() };
    let r = p.client.api().list_live_matches(p.client.request(req)).await;
    r.unwrap_or_else(|s| panic!("{}'s live list: {s:?}", p.name)).into_inner()
}

/// Every live match of `game`, a page of `size` at a time.
async fn all_live(p: &Player, game: &str, size: u32) -> Vec<v1::LiveMatch> {
    let mut out = Vec::new();
    let mut token = String::new();
    loop {
        let page = live(p, game, size, &token).await;
        out.extend(page.matches);
        if page.next_page_token.is_empty() {
            return out;
        }
        token = page.next_page_token;
    }
}

fn ids<T>(list: &[T], id: impl Fn(&T) -> &str) -> Vec<String> {
    list.iter().map(|m| id(m).to_string()).collect()
}

fn field_of(s: &tonic::Status) -> Option<String> {
    s.get_details_error_info().and_then(|i| i.metadata.get("field").cloned())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_lists_its_own_matches_in_progress_and_finished_and_no_one_elses() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let carol = env.player("carol").await;
    // Created in this order, one a few milliseconds after another: newest first is the
    // reverse. A correspondence player has several at once.
    let mut made = Vec::new();
    for _ in 0..3 {
        made.push(alice.create_open("gops", "", 86_400_000).await);
        tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    }
    let vs_bot = create_request("gops", "", bot("random"), 0);
    made.push(alice.create(vs_bot).await.expect("a bot match").match_id);
    assert_eq!(bob.join(made[0].as_str()).await.expect("joins"), 1);
    assert_eq!(bob.join(made[1].as_str()).await.expect("joins"), 1);
    // Bob resigns the second: alice won it.
    bob.client.resign(made[1].as_str()).await.expect("bob resigns");
    // The bot bids at once, then waits for alice: the lists below are read after it has.
    cluster_tests::wait_view(&alice, &made[3], 200, |v| v.version >= 1).await;
    let newest_first: Vec<String> = made.iter().rev().cloned().collect();

    let all = all_mine(&alice, MyMatchState::Unspecified, 20).await;
    assert_eq!(ids(&all, |m| &m.match_id), newest_first);
    let by_id = |id: &str| all.iter().find(|m| m.match_id == id).expect("listed").clone();
    let playing = by_id(made[0].as_str());
    assert_eq!((playing.game.as_str(), playing.seat), ("gops", 0));
    assert_eq!((playing.opponent_name.as_str(), playing.opponent_is_bot), ("bob", false));
    assert_eq!(playing.state, MyMatchState::InProgress as i32);
    assert_eq!(playing.result, SeatResult::Unspecified as i32);
    // What alice's own view says: her move (GOPS bids are simultaneous), its deadline,
    // her version.
    let view = alice.view(made[0].as_str()).await;
    assert!(playing.your_move && !view.legal_moves.is_empty());
    assert_eq!(Some(playing.deadline_at_ms), view.deadline_at_ms);
    assert_eq!(playing.version, view.version);
    assert!(playing.created_at_ms > 0);
    let won = by_id(made[1].as_str());
    assert_eq!(won.state, MyMatchState::Finished as i32);
    assert_eq!((won.result, won.reason.as_str()), (SeatResult::Won as i32, "resigned"));
    assert!(!won.your_move);
    assert_eq!(won.deadline_at_ms, 0);
    let waiting = by_id(made[2].as_str());
    assert_eq!((waiting.opponent_name.as_str(), waiting.deadline_at_ms), ("", 0));
    let robot = by_id(made[3].as_str());
    assert_eq!((robot.opponent_name.as_str(), robot.opponent_is_bot), ("random", true));

    // The filters, and pages of one: the same matches, in the same order, each once.
    let playing_ids = ids(&all_mine(&alice, MyMatchState::InProgress, 20).await, |m| &m.match_id);
    assert_eq!(playing_ids, [made[3].as_str(), made[2].as_str(), made[0].as_str()]);
    let finished = all_mine(&alice, MyMatchState::Finished, 20).await;
    assert_eq!(ids(&finished, |m| &m.match_id), [made[1].as_str()]);
    assert_eq!(all_mine(&alice, MyMatchState::Unspecified, 1).await, all);
    let two = mine(&alice, MyMatchState::Unspecified, 2, "").await;
    assert_eq!(two.matches, all[..2]);
    assert!(!two.next_page_token.is_empty());
    let rest = mine(&alice, MyMatchState::Unspecified, 20, &two.next_page_token).await;
    assert_eq!(rest.matches, all[2..]);
    assert!(rest.next_page_token.is_empty());

    // Bob sees his two, from his seat: he lost the one he resigned.
    let bobs = all_mine(&bob, MyMatchState::Unspecified, 20).await;
    assert_eq!(ids(&bobs, |m| &m.match_id), [made[1].as_str(), made[0].as_str()]);
    assert_eq!(bobs[0].result, SeatResult::Lost as i32);
    assert_eq!((bobs[1].seat, bobs[1].opponent_name.as_str()), (1, "alice"));
    // Carol holds no seat: nothing, whatever she asks.
    assert!(all_mine(&carol, MyMatchState::Unspecified, 1).await.is_empty());
    let r = carol
        .client
        .api()
        .list_my_matches(carol.client.request(v1::ListMyMatchesRequest {
            page_token: two.next_page_token.clone(),
            ..Default::default()
        }))
        .await
        .expect("a page");
    assert!(r.into_inner().matches.is_empty(), "alice's token shows carol none of alice's");

    // Bounds, and the session.
    let mut api = alice.client.api();
    for (req, field) in [
        (v1::ListMyMatchesRequest { page_size: 101, ..Default::default() }, "page_size"),
        (v1::ListMyMatchesRequest { page_token: "zz".into(), ..Default::default() }, "page_token"),
        (v1::ListMyMatchesRequest { state: 9, ..Default::default() }, "state"),
    ] {
        let s = api.list_my_matches(alice.client.request(req)).await.expect_err(field);
        assert_eq!((s.code(), field_of(&s).as_deref()), (Code::InvalidArgument, Some(field)));
    }
    let anonymous = api.list_my_matches(v1::ListMyMatchesRequest::default()).await;
    assert_status(anonymous, Code::Unauthenticated, "session");
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_match_is_listed_for_any_session_until_it_ends() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    tokio::time::sleep(std::time::Duration::from_millis(3)).await;
    let waiting = alice.create_open("gops", "", 0).await;
    let hex = env.player("hex").await;
    hex.create_open("hexspiel", "", 0).await;
    let guest = env.player("visitor").await;
    let listed = all_live(&guest, "gops", 20).await;
    assert_eq!(ids(&listed, |m| &m.match_id), [id.as_str()], "an open seat is not live yet");
    let entry = &listed[0];
    assert_eq!(entry.game, "gops");
    assert_eq!(entry.player_names, ["alice", "bob"]);
    // The spectator's own numbering, as a spectator's GetView has it.
    assert_eq!(entry.version, guest.view(&id).await.version);
    // Every game's: the same entry (hexspiel's match waits for a player: not live).
    assert_eq!(all_live(&guest, "", 1).await, listed);
    assert!(all_live(&guest, "hexspiel", 20).await.is_empty());
    assert_eq!(bob.join(&waiting).await.expect("joins"), 1);
    let both = ids(&all_live(&guest, "", 1).await, |m| &m.match_id);
    assert_eq!(both, [waiting.as_str(), id.as_str()]);
    // A move changes the version the spectators see.
    alice.submit(&id, gops(3)).await.expect("alice bids");
    let after = all_live(&guest, "gops", 20).await;
    let moved = after.iter().find(|m| m.match_id == id).expect("still live");
    assert_eq!(moved.version, guest.view(&id).await.version);
    assert!(moved.version > entry.version);
    // Ended: gone from every list.
    alice.client.resign(&id).await.expect("alice resigns");
    assert_eq!(ids(&all_live(&guest, "", 20).await, |m| &m.match_id), [waiting.as_str()]);
    assert_eq!(ids(&all_live(&guest, "gops", 20).await, |m| &m.match_id), [waiting.as_str()]);
    // Bounds, and a session is needed (a guest's will do).
    let mut api = guest.client.api();
    for (req, field) in [
        (v1::ListLiveMatchesRequest { game: "chess".into(), ..Default::default() }, "game"),
        (v1::ListLiveMatchesRequest { game: "x".repeat(33), ..Default::default() }, "game"),
        (v1::ListLiveMatchesRequest { page_size: 101, ..Default::default() }, "page_size"),
        (
            v1::ListLiveMatchesRequest { page_token: "0".repeat(129), ..Default::default() },
            "page_token",
        ),
    ] {
        let s = api.list_live_matches(guest.client.request(req)).await.expect_err(field);
        assert_eq!((s.code(), field_of(&s).as_deref()), (Code::InvalidArgument, Some(field)));
    }
    let anonymous = api.list_live_matches(v1::ListLiveMatchesRequest::default()).await;
    assert_status(anonymous, Code::Unauthenticated, "session");
    env.shutdown().await;
}

/// A swiss of `players` (three rounds of 3-card GOPS), its page public or not, with its
/// first round started: that round's pairings.
async fn tournament_round_one(
    p: &Platform,
    key: &str,
    players: &[Player],
    public_page: bool,
) -> Vec<v1::Pairing> {
    let entrants = players
        .iter()
        .map(|pl| v1::Entrant {
            player_id: pl.id.clone(),
            seed_rating: None,
            name: pl.name.clone(),
        })
        .collect();
    let created = p
        .api()
        .create_tournament(p.request(v1::CreateTournamentRequest {
            idempotency_key: key.into(),
            name: key.into(),
            format: Some(v1::TournamentFormat {
                kind: Some(v1::tournament_format::Kind::Swiss(v1::Swiss { rounds: 3 })),
            }),
            game: Some(gops3()),
            entrants,
            round_gap_ms: 0,
            public_page,
        }))
        .await
        .expect("created")
        .into_inner()
        .tournament
        .expect("a tournament");
    let req = v1::StartRoundRequest { tournament_id: created.tournament_id, round: 1 };
    let r = p.api().start_round(p.request(req)).await.expect("round 1").into_inner();
    r.round.expect("paired").pairings
}

/// A guest's ListLiveMatches shows only matches meant to be seen: a casual bot match and
/// a public tournament's games; never a tenant's bulk match or a private tournament's
/// games, though each is being played (both seats held, a bid made, no result), and each
/// of its players still finds it in their own list.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_casual_and_public_tournament_matches_are_listed_live() {
    let env = Env::start().await;
    let scopes = ["matches:create", "tournaments:manage", "results:read"];
    let (_, _, platform) = env.tenant("Private Org", &scopes).await;
    let mut players = Vec::new();
    for i in 0..10 {
        players.push(env.player(&format!("p{i}")).await);
    }
    let by_id = |id: &str| players.iter().find(|p| p.id == id).expect("an entrant");

    // A tenant's bulk match, private and public tournaments' first rounds.
    let spec = v1::MatchSpec {
        game: Some(gops3()),
        seat0_player_id: players[0].id.clone(),
        seat1_player_id: players[1].id.clone(),
        start_at_ms: 0,
        label: String::new(),
    };
    let bulk = v1::CreateMatchesRequest {
        idempotency_key: "bulk-1".into(),
        matches: vec![spec],
        validate_only: false,
    };
    let created = platform.api().create_matches(platform.request(bulk)).await.expect("bulk");
    let bulk_ids = created.into_inner().match_ids;
    assert_eq!(bulk_ids.len(), 1);
    let private = tournament_round_one(&platform, "private", &players[2..6], false).await;
    let public = tournament_round_one(&platform, "public", &players[6..10], true).await;
    assert_eq!((private.len(), public.len()), (2, 2));
    // Each of them being played: seat 0 has bid.
    let mut hidden: Vec<(String, &Player)> =
        bulk_ids.iter().map(|id| (id.clone(), &players[0])).collect();
    hidden.extend(private.iter().map(|g| (g.match_id.clone(), by_id(&g.seat0_player_id))));
    let shown: Vec<(String, &Player)> =
        public.iter().map(|g| (g.match_id.clone(), by_id(&g.seat0_player_id))).collect();
    for (id, seat0) in hidden.iter().chain(&shown) {
        seat0.submit(id, gops(1)).await.expect("seat 0 bids");
    }
    // A guest's casual match against a bot.
    let guest = env.player("visitor").await;
    let req = create_request("gops", "", bot("random"), 0);
    let casual = guest.create(req).await.expect("a bot match").match_id;
    // The bot takes its seat, then bids at once: both seats held.
    cluster_tests::wait_view(&guest, &casual, 200, |v| v.version >= 1).await;

    let live: BTreeSet<String> =
        all_live(&guest, "", 20).await.into_iter().map(|m| m.match_id).collect();
    let mut want: BTreeSet<String> = shown.iter().map(|(id, _)| id.clone()).collect();
    want.insert(casual.clone());
    assert_eq!(live, want, "the public tournament's games and the bot match, nothing else");
    assert_eq!(
        all_live(&guest, "gops", 1).await.len(),
        want.len(),
        "one game's list, a page of one at a time: the same"
    );
    for (id, seat0) in &hidden {
        // Still in play, and in its player's own list.
        let view = guest.view(id).await;
        assert!(view.outcome.is_none() && view.version >= 1, "{id}: {view:?}");
        let theirs = all_mine(seat0, MyMatchState::InProgress, 20).await;
        assert!(theirs.iter().any(|m| &m.match_id == id), "{id} in {}'s own list", seat0.name);
    }
    env.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_record_verifies_and_a_tampered_one_names_its_first_difference() {
    let env = Env::start().await;
    let (alice, bob, id) = env.gops_between(0).await;
    let mut picker = cluster_tests::Picker::new(26);
    let played = cluster_tests::play_out([&alice, &bob], &id, &mut picker, 100).await;
    let outcome = played.last.outcome.expect("an outcome");
    let json = alice.record(&id).await.expect("the record");
    // No session: the call is open to anyone.
    let mut api = alice.client.api();
    let verify = |record: Vec<u8>| v1::VerifyRecordRequest { record };
    let ok = api.verify_record(verify(json.clone().into_bytes())).await.expect("answered");
    let ok = ok.into_inner();
    assert!(ok.valid, "{ok:?}");
    assert_eq!((ok.game.as_str(), ok.difference.as_str()), ("gops", ""));
    assert_eq!(ok.steps as usize, played.moves.len());
    assert_eq!(ok.result, Some(outcome.clone()));

    // One public event's field changed: well formed, not valid, the event and the field
    // named, with what the record has and what the replay gives.
    let mut record: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    let events = record["events"].as_array_mut().expect("events");
    let (index, field, was) = events
        .iter_mut()
        .enumerate()
        .find_map(|(i, e)| {
            let fields = e["event"].as_object_mut()?;
            let (name, value) = fields.iter_mut().find(|(_, v)| v.is_u64())?;
            let was = value.as_u64()?;
            *value = (was + 100).into();
            Some((i + 1, name.clone(), was))
        })
        .expect("an event with a number");
    let tampered = serde_json::to_vec(&record).expect("JSON");
    let bad = api.verify_record(verify(tampered)).await.expect("answered").into_inner();
    assert!(!bad.valid);
    assert_eq!(
        bad.difference,
        format!(
            "event {index} differs at event.{field}: the record has {}, the replay gives {was}",
            was + 100
        )
    );
    assert!(bad.result.is_none());

    // The result alone changed.
    let mut record: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    record["result"]["reason"] = "abandoned".into();
    let bad = api.verify_record(verify(record.to_string().into_bytes())).await.expect("answered");
    let bad = bad.into_inner();
    assert!(!bad.valid);
    assert!(bad.difference.starts_with("the result differs at result.reason"), "{bad:?}");

    // Not a record at all: INVALID_ARGUMENT naming `record`, quoting it only in part.
    let long = format!("{{\"format\": {:?}}}", "z".repeat(100_000));
    for junk in [b"not json".to_vec(), Vec::new(), vec![0xff], long.into_bytes()] {
        let s = api.verify_record(verify(junk)).await.expect_err("refused");
        assert_eq!((s.code(), field_of(&s).as_deref()), (Code::InvalidArgument, Some("record")));
        assert!(s.message().len() <= 512, "{}", s.message());
    }
    env.shutdown().await;
}

/// What a list shows of a match, without what differs between any two matches by nature
/// (their ids and creation times) and with a deadline only as running or not (its time is
/// the clock's, not the match's).
fn blanked<M: Message + Clone>(m: &M, blank: impl Fn(&mut M)) -> Vec<u8> {
    let mut m = m.clone();
    blank(&mut m);
    m.encode_to_vec()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn twins_differing_in_a_sealed_bid_list_alike_to_whoever_may_not_see_it() {
    let env = Env::start().await;
    let alice = env.player("alice").await;
    let bob = env.player("bob").await;
    let carol = env.player("carol").await;
    let mut twins = Vec::new();
    for card in [1, 5] {
        let req = create_request("gops", "{\"cards\":5}", open(), 0);
        let id = alice.create(req).await.expect("create").match_id;
        assert_eq!(bob.join(&id).await.expect("joins"), 1);
        // Seat 0 bids, sealed: a different card in each twin.
        alice.submit(&id, gops(card)).await.expect("alice bids");
        twins.push(id);
    }
    let spectator = all_live(&carol, "gops", 20).await;
    let seen: Vec<Vec<u8>> = twins
        .iter()
        .map(|id| {
            let m = spectator.iter().find(|m| &m.match_id == id).expect("listed");
            blanked(m, |m| {
                m.match_id.clear();
                m.created_at_ms = 0;
            })
        })
        .collect();
    assert_eq!(seen[0], seen[1], "the spectator's entries");
    let seat1 = all_mine(&bob, MyMatchState::Unspecified, 20).await;
    let seen: Vec<Vec<u8>> = twins
        .iter()
        .map(|id| {
            let m = seat1.iter().find(|m| &m.match_id == id).expect("listed");
            assert!(m.your_move, "bob has not bid");
            blanked(m, |m| {
                m.match_id.clear();
                m.created_at_ms = 0;
                m.deadline_at_ms = u64::from(m.deadline_at_ms > 0);
            })
        })
        .collect();
    assert_eq!(seen[0], seen[1], "seat 1's entries");
    env.shutdown().await;
}
