//! The platform API through the gateway on a real Redis and real gRPC servers: tenants and
//! scoped keys (and one tenant never seeing another's), bulk creation of 10,000 matches all
//! or none, the same key retried after the tournament service was killed mid-call, a
//! 16-player swiss of GOPS played to the end with standings checked against the matches'
//! own results, and the results stream resumed from the middle.

use api::internal;
use api::v1;
use client::platform::Platform;
use cluster_tests::{Env, Picker, Player, assert_status, gops3, play_out};
use std::collections::{BTreeMap, BTreeSet};
use std::time::Duration;
use tokio_stream::StreamExt;
use tonic::Code;

fn reason(s: &tonic::Status) -> String {
    use tonic_types::StatusExt;
    s.get_error_details().error_info().map(|i| i.reason.clone()).unwrap_or_default()
}

const ALL: [&str; 3] = ["matches:create", "tournaments:manage", "results:read"];

fn spec(game: &str, options: &str, a: &Player, b: &Player) -> v1::MatchSpec {
    v1::MatchSpec {
        game: Some(v1::GameSpec {
            game: game.into(),
            options_json: options.into(),
            move_time_ms: 0,
        }),
        seat0_player_id: a.id.clone(),
        seat1_player_id: b.id.clone(),
        start_at_ms: 0,
        label: String::new(),
    }
}

fn bulk(key: &str, matches: Vec<v1::MatchSpec>) -> v1::CreateMatchesRequest {
    v1::CreateMatchesRequest { idempotency_key: key.into(), matches, validate_only: false }
}

/// The matches a stream's events announce as started, in order.
fn started_ids(events: &[v1::WatchResultsResponse]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| match &e.event {
            Some(v1::watch_results_response::Event::MatchStarted(m)) => {
                m.r#match.as_ref().map(|m| m.match_id.clone())
            }
            _ => None,
        })
        .collect()
}

/// Every event of a results stream up to `n` events (waits up to 20 s for them).
async fn stream_events(
    p: &Platform,
    tournament_id: &str,
    after: u64,
    n: usize,
) -> Vec<v1::WatchResultsResponse> {
    let req =
        v1::WatchResultsRequest { tournament_id: tournament_id.into(), after_sequence: after };
    let mut s = p.api().watch_results(p.request(req)).await.expect("watch").into_inner();
    let mut out = Vec::new();
    while out.len() < n {
        let next = tokio::time::timeout(Duration::from_secs(20), s.next()).await;
        match next {
            Ok(Some(Ok(e))) => out.push(e),
            other => panic!("the stream ended or stalled after {} events: {other:?}", out.len()),
        }
    }
    out
}

/// Keys carry scopes and tenants; a tenant's ids are NOT_FOUND to another; no key, a
/// forged one and a revoked one are refused; the audit log records the actions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tenants_see_only_their_own_and_keys_keep_their_scopes() {
    let env = Env::start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (ta, key_a, pa) = env.tenant("acme", &ALL).await;
    let (_, _, pb) = env.tenant("umbrella", &ALL).await;
    let (_, _, reader) = env.tenant("readers", &["results:read"]).await;
    let ids = pa
        .api()
        .create_matches(pa.request(bulk("one", vec![spec("gops", "", &a, &b)])))
        .await
        .expect("created")
        .into_inner()
        .match_ids;
    assert_eq!(ids.len(), 1);
    let got =
        pa.api().get_match(pa.request(v1::GetMatchRequest { match_id: ids[0].clone() })).await;
    let m = got.expect("a's match").into_inner().r#match.expect("match");
    assert_eq!(
        (m.seat0_player_id.as_str(), m.seat1_player_id.as_str()),
        (a.id.as_str(), b.id.as_str())
    );
    assert_eq!(m.state, v1::MatchState::Running as i32);
    assert_eq!(m.seed_commitment.len(), 64);
    // The match is playable at once, by its players through the public API.
    assert_eq!(a.view(&ids[0]).await.seat, Some(0));
    // Another tenant: not found, exactly as an id that does not exist.
    let theirs =
        pb.api().get_match(pb.request(v1::GetMatchRequest { match_id: ids[0].clone() })).await;
    assert_status(theirs, Code::NotFound, "no such match");
    let none = pb
        .api()
        .get_match(
            pb.request(v1::GetMatchRequest { match_id: store::MatchId::random().to_string() }),
        )
        .await;
    assert_status(none, Code::NotFound, "no such match");
    let theirs = pb
        .api()
        .get_tenant_match_record(
            pb.request(v1::GetTenantMatchRecordRequest { match_id: ids[0].clone() }),
        )
        .await;
    assert_status(theirs, Code::NotFound, "no such match");
    // A read-only key cannot create.
    let denied = reader
        .api()
        .create_matches(reader.request(bulk("two", vec![spec("gops", "", &a, &b)])))
        .await
        .expect_err("no scope");
    assert_eq!(
        (denied.code(), reason(&denied).as_str()),
        (Code::PermissionDenied, "SCOPE_MISSING")
    );
    // No key, a forged key.
    let mut raw = v1::tournament_service_client::TournamentServiceClient::new(
        client::channel(&env.cluster.gateway_url()).expect("channel"),
    );
    let none = raw.list_tournaments(v1::ListTournamentsRequest { limit: 0 }).await;
    assert_status(none, Code::Unauthenticated, "API key");
    let forged =
        Platform::connect(&env.cluster.gateway_url(), &format!("ck_{key_a}_{}", "0".repeat(48)))
            .expect("platform");
    let denied = forged
        .api()
        .list_tournaments(forged.request(v1::ListTournamentsRequest { limit: 0 }))
        .await;
    assert_status(denied, Code::Unauthenticated, "API key");
    // Revoked: refused.
    env.admin()
        .revoke_api_key(internal::RevokeApiKeyRequest { key_id: key_a.clone() })
        .await
        .expect("revoke");
    let mut refused = None;
    for _ in 0..80 {
        match pa.api().list_tournaments(pa.request(v1::ListTournamentsRequest { limit: 0 })).await {
            Err(s) => {
                refused = Some(s);
                break;
            }
            Ok(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
    assert_eq!(refused.expect("revoked within 8 s").code(), Code::Unauthenticated);
    let audit = env
        .admin()
        .read_audit(internal::ReadAuditRequest { tenant_id: ta, limit: 100 })
        .await
        .expect("audit")
        .into_inner()
        .entries;
    let actions: Vec<&str> = audit.iter().map(|e| e.action.as_str()).collect();
    assert_eq!(actions, ["CreateTenant", "CreateApiKey", "CreateMatches", "RevokeApiKey"]);
    assert_eq!(audit[2].actor, format!("key:{key_a}"));
    env.shutdown().await;
}

/// 10,000 matches: one bad entry refuses them all, naming it; validate_only creates
/// nothing; the good call answers 10,000 ids, each playable, and the same key again the
/// same ids; the tenant's stream announces each match once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_matches_are_created_all_or_none() {
    let env = Env::start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (_, _, p) = env.tenant("bulk", &ALL).await;
    let good = spec("gops", "{\"cards\":3}", &a, &b);
    let mut matches = vec![good.clone(); 10_000];
    matches[7_777].game.as_mut().expect("game").game = "chess".into();
    matches[9_001].seat1_player_id = a.id.clone();
    let refused =
        p.api().create_matches(p.request(bulk("k1", matches.clone()))).await.expect_err("bad");
    assert_eq!((refused.code(), reason(&refused).as_str()), (Code::InvalidArgument, "BAD_ENTRIES"));
    let violations = {
        use tonic_types::StatusExt;
        refused.get_error_details().bad_request().cloned().expect("bad request").field_violations
    };
    let fields: Vec<&str> = violations.iter().map(|v| v.field.as_str()).collect();
    assert_eq!(fields, ["matches[7777].game", "matches[9001].seat1_player_id"]);
    assert!(refused.message().len() <= 512);
    // Nothing was created: the tenant's stream is empty.
    let mut validate = bulk("k1", matches.clone());
    validate.validate_only = true;
    assert!(p.api().create_matches(p.request(validate)).await.is_err());
    matches[7_777] = good.clone();
    matches[9_001] = good.clone();
    let mut validate = bulk("k1", matches.clone());
    validate.validate_only = true;
    let checked = p.api().create_matches(p.request(validate)).await.expect("valid").into_inner();
    assert!(checked.match_ids.is_empty(), "validate_only creates nothing");
    let ids =
        p.api().create_matches(p.request(bulk("k1", matches.clone()))).await.expect("created");
    let ids = ids.into_inner().match_ids;
    assert_eq!(ids.len(), 10_000);
    assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), 10_000, "every id differs");
    for id in [&ids[0], &ids[4_242], &ids[9_999]] {
        let v = b.view(id).await;
        assert_eq!(v.seat, Some(1), "playable at once by its players");
    }
    let again =
        p.api().create_matches(p.request(bulk("k1", matches.clone()))).await.expect("again");
    assert_eq!(again.into_inner().match_ids, ids, "the same key, the same ids");
    let other = bulk("k1", vec![good.clone()]);
    let reused = p.api().create_matches(p.request(other)).await.expect_err("another request");
    assert_eq!(reused.code(), Code::AlreadyExists);
    let events = stream_events(&p, "", 0, 10_000).await;
    let started: BTreeSet<String> = started_ids(&events).into_iter().collect();
    assert_eq!(started, ids.iter().cloned().collect::<BTreeSet<_>>());
    assert_eq!(
        events.iter().map(|e| e.sequence).collect::<Vec<_>>(),
        (1..=10_000).collect::<Vec<u64>>()
    );
    env.shutdown().await;
}

/// The tournament service is killed (as kill -9) while a bulk call is under way; the same
/// key through a new replica answers the same ids and every match exists once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bulk_call_retried_after_the_service_died_midway_gives_the_same_ids() {
    let mut env = Env::start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (_, _, p) = env.tenant("crash", &ALL).await;
    let matches = vec![spec("gops", "{\"cards\":3}", &a, &b); 3_000];
    let call = {
        let (p, matches) = (p.clone(), matches.clone());
        tokio::spawn(
            async move { p.api().create_matches(p.request(bulk("crash-1", matches))).await },
        )
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    env.cluster.crash_tournaments(0);
    let first = call.await.expect("the call ends");
    assert!(first.is_err(), "the replica died under the call");
    env.cluster.start_tournaments_replica().await.expect("a new replica");
    let mut ids = None;
    for _ in 0..50 {
        match p.api().create_matches(p.request(bulk("crash-1", matches.clone()))).await {
            Ok(r) => {
                ids = Some(r.into_inner().match_ids);
                break;
            }
            Err(s) => {
                assert!(
                    matches!(s.code(), Code::Unavailable | Code::Aborted | Code::Unknown),
                    "{s:?}"
                );
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
    }
    let ids = ids.expect("the retry succeeds");
    let again = p.api().create_matches(p.request(bulk("crash-1", matches))).await.expect("again");
    assert_eq!(again.into_inner().match_ids, ids);
    assert_eq!(ids.len(), 3_000);
    let events = stream_events(&p, "", 0, 3_000).await;
    let started: Vec<String> = started_ids(&events);
    assert_eq!(started.len(), 3_000, "each announced once");
    assert_eq!(started.into_iter().collect::<BTreeSet<_>>(), ids.into_iter().collect());
    env.shutdown().await;
}

/// Points in half points of `player` from the finished matches, and their opponents.
#[derive(Default, Clone, Debug)]
struct Tally {
    points2: u32,
    wins: u32,
    opponents: Vec<String>,
    beaten: Vec<String>,
    drawn: Vec<String>,
    byes: u32,
}

/// A 16-player swiss of GOPS (3 cards), 4 rounds, every match played to its end by the
/// players through the public API; the final standings agree with the matches' own
/// results (points, Buchholz, Sonneborn-Berger computed here from them); no pairing
/// repeats; the results stream resumed from its middle equals the unbroken stream.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sixteen_player_swiss_is_played_to_the_end() {
    let env = Env::start().await;
    let (_, _, p) = env.tenant("swiss", &ALL).await;
    let mut players = BTreeMap::new();
    for i in 0..16 {
        let pl = env.player(&format!("p{i}")).await;
        players.insert(pl.id.clone(), pl);
    }
    let kind = v1::tournament_format::Kind::Swiss(v1::Swiss { rounds: 4 });
    let created = create_tournament(&p, "swiss-1", kind, &players).await;
    let tid = created.tournament_id.clone();
    assert_eq!((created.rounds, created.players), (4, 16));
    let mut met = BTreeSet::new();
    let mut tally: BTreeMap<String, Tally> = BTreeMap::new();
    let mut picker = Picker::new(16);
    for round in 1..=4 {
        let paired = p
            .api()
            .start_round(p.request(v1::StartRoundRequest { tournament_id: tid.clone(), round }))
            .await
            .expect("round")
            .into_inner()
            .round
            .expect("paired");
        assert_eq!(paired.pairings.len(), 8);
        // Asked again: the same round, nothing new.
        let again = p
            .api()
            .start_round(p.request(v1::StartRoundRequest { tournament_id: tid.clone(), round }))
            .await
            .expect("again");
        assert_eq!(again.into_inner().round.expect("paired"), paired);
        for pair in &paired.pairings {
            let key = if pair.seat0_player_id < pair.seat1_player_id {
                (pair.seat0_player_id.clone(), pair.seat1_player_id.clone())
            } else {
                (pair.seat1_player_id.clone(), pair.seat0_player_id.clone())
            };
            assert!(met.insert(key), "a repeat pairing in round {round}");
            let seats = [&players[&pair.seat0_player_id], &players[&pair.seat1_player_id]];
            let played = play_out(seats, &pair.match_id, &mut picker, 100).await;
            let winner = played.last.outcome.expect("over").winner;
            let ids = [pair.seat0_player_id.clone(), pair.seat1_player_id.clone()];
            for s in 0..2 {
                let t = tally.entry(ids[s].clone()).or_default();
                t.opponents.push(ids[1 - s].clone());
                match winner {
                    Some(w) if w as usize == s => {
                        t.points2 += 2;
                        t.wins += 1;
                        t.beaten.push(ids[1 - s].clone());
                    }
                    Some(_) => {}
                    None => {
                        t.points2 += 1;
                        t.drawn.push(ids[1 - s].clone());
                    }
                }
            }
        }
        // The round's results reach the tournament (through the lifecycle stream).
        let mut state = 0;
        for _ in 0..200 {
            let t = p
                .api()
                .get_tournament(p.request(v1::GetTournamentRequest { tournament_id: tid.clone() }))
                .await
                .expect("tournament")
                .into_inner()
                .tournament
                .expect("t");
            state = t.state;
            if t.matches_finished == 8 * round {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let expected = if round == 4 {
            v1::TournamentState::Finished
        } else {
            v1::TournamentState::BetweenRounds
        };
        assert_eq!(state, expected as i32, "after round {round}");
    }
    let standings = p
        .api()
        .get_standings(p.request(v1::GetStandingsRequest { tournament_id: tid.clone() }))
        .await
        .expect("standings")
        .into_inner();
    assert_eq!(standings.standings.len(), 16);
    let points_of = |id: &String| tally.get(id).map_or(0, |t| t.points2);
    for s in &standings.standings {
        let t = &tally[&s.player_id];
        assert_eq!(s.points2, t.points2 + 2 * t.byes, "{}", s.name);
        assert_eq!(s.wins, t.wins);
        assert_eq!(s.played, 4);
        let buchholz: u32 = t.opponents.iter().map(points_of).sum();
        assert_eq!(s.buchholz2, buchholz, "{} buchholz", s.name);
        let sb4: u32 = t.beaten.iter().map(|o| 2 * points_of(o)).sum::<u32>()
            + t.drawn.iter().map(points_of).sum::<u32>();
        assert_eq!(s.sonneborn_berger4, sb4, "{} sonneborn-berger", s.name);
    }
    // Ranked by points, then Buchholz, then Sonneborn-Berger, then wins.
    for w in standings.standings.windows(2) {
        let k = |s: &v1::Standing| (s.points2, s.buchholz2, s.sonneborn_berger4, s.wins);
        assert!(k(&w[0]) >= k(&w[1]), "{:?} before {:?}", w[0], w[1]);
        assert_eq!(w[1].rank, w[0].rank + 1);
    }
    // The export agrees, and every match's record verifies.
    let export_page = |page_token: String, page_size: u32| {
        let req = p.request(v1::ExportTournamentRequest {
            tournament_id: tid.clone(),
            page_token,
            page_size,
        });
        let mut api = p.api();
        async move { api.export_tournament(req).await }
    };
    let export = export_page(String::new(), 0).await.expect("export").into_inner();
    assert!(export.next_page_token.is_empty(), "16 lines and 32 matches fit a page");
    assert_eq!(export.sequence, standings.sequence);
    let json: serde_json::Value = serde_json::from_str(&export.json).expect("json");
    assert_eq!(json["matches"].as_array().map(Vec::len), Some(32));
    assert!(export.text.contains("swiss-1"), "the name heads the table");
    // Five at a time: the same lines, matches and table, in ten pages.
    let (mut lines, mut matches, mut text, mut pages) = (vec![], vec![], String::new(), 0);
    let mut token = String::new();
    loop {
        let page = export_page(token, 5).await.expect("a page").into_inner();
        let part: serde_json::Value = serde_json::from_str(&page.json).expect("json");
        lines.extend(part["standings"].as_array().expect("lines").clone());
        matches.extend(part["matches"].as_array().expect("matches").clone());
        text.push_str(&page.text);
        pages += 1;
        if page.next_page_token.is_empty() {
            break;
        }
        token = page.next_page_token;
    }
    assert_eq!(pages, 10);
    assert_eq!(
        (&lines, &matches),
        (
            json["standings"].as_array().expect("lines"),
            json["matches"].as_array().expect("matches")
        )
    );
    assert_eq!(text, export.text);
    let bad = export_page("e1.1.99.0".into(), 5).await.expect_err("not a token of ours");
    assert_eq!(bad.code(), tonic::Code::InvalidArgument, "{bad:?}");
    let first = json["matches"][0]["match_id"].as_str().expect("id").to_string();
    let record = p
        .api()
        .get_tenant_match_record(p.request(v1::GetTenantMatchRecordRequest { match_id: first }))
        .await
        .expect("record")
        .into_inner()
        .record_json;
    games::Record::parse(&record).expect("a record").verify().expect("it verifies");
    // The stream: whole, and resumed from its middle.
    let total = standings.sequence as usize;
    let whole = stream_events(&p, &tid, 0, total).await;
    let half = total / 2;
    let resumed = stream_events(&p, &tid, half as u64, total - half).await;
    assert_eq!(&whole[half..], &resumed[..]);
    let finished = whole
        .iter()
        .filter(|e| matches!(e.event, Some(v1::watch_results_response::Event::MatchFinished(_))))
        .count();
    assert_eq!(finished, 32, "each finish once");
    env.shutdown().await;
}

async fn create_tournament(
    p: &Platform,
    key: &str,
    kind: v1::tournament_format::Kind,
    players: &BTreeMap<String, Player>,
) -> v1::Tournament {
    let entrants = players
        .values()
        .enumerate()
        .map(|(i, pl)| v1::Entrant {
            player_id: pl.id.clone(),
            seed_rating: Some(2000.0 - 10.0 * i as f64),
            name: pl.name.clone(),
        })
        .collect();
    p.api()
        .create_tournament(p.request(v1::CreateTournamentRequest {
            idempotency_key: key.into(),
            name: key.into(),
            format: Some(v1::TournamentFormat { kind: Some(kind) }),
            game: Some(gops3()),
            entrants,
            round_gap_ms: 0,
            public_page: false,
        }))
        .await
        .expect("created")
        .into_inner()
        .tournament
        .expect("tournament")
}

async fn start(p: &Platform, tid: &str, round: u32) -> Result<v1::RoundPaired, tonic::Status> {
    let r = p
        .api()
        .start_round(p.request(v1::StartRoundRequest { tournament_id: tid.into(), round }))
        .await?;
    Ok(r.into_inner().round.expect("paired"))
}

async fn tournament_when(
    p: &Platform,
    tid: &str,
    done: impl Fn(&v1::Tournament) -> bool,
) -> v1::Tournament {
    for _ in 0..400 {
        let t = p
            .api()
            .get_tournament(p.request(v1::GetTournamentRequest { tournament_id: tid.into() }))
            .await
            .expect("tournament")
            .into_inner()
            .tournament
            .expect("t");
        if done(&t) {
            return t;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the tournament never got there");
}

/// A knockout of four under the organiser's hand: paused (no round starts), resumed, a
/// match adjudicated (recorded, ended in its engine by the loser's resignation, audited),
/// the other played; the final decides a champion; the tournament ends.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_organiser_pauses_resumes_and_adjudicates_a_knockout() {
    let env = Env::start().await;
    let (tenant_id, _, p) = env.tenant("ko", &ALL).await;
    let mut players = BTreeMap::new();
    for i in 0..4 {
        let pl = env.player(&format!("k{i}")).await;
        players.insert(pl.id.clone(), pl);
    }
    let kind = v1::tournament_format::Kind::Knockout(v1::Knockout {
        draw: v1::KnockoutDraw::HigherSeed as i32,
    });
    let tid = create_tournament(&p, "ko-1", kind, &players).await.tournament_id;
    let pause = v1::PauseTournamentRequest { tournament_id: tid.clone() };
    p.api().pause_tournament(p.request(pause)).await.expect("paused");
    let refused = start(&p, &tid, 1).await.expect_err("paused");
    assert_eq!((refused.code(), reason(&refused).as_str()), (Code::FailedPrecondition, "PAUSED"));
    let resume = v1::ResumeTournamentRequest { tournament_id: tid.clone() };
    p.api().resume_tournament(p.request(resume)).await.expect("resumed");
    let round1 = start(&p, &tid, 1).await.expect("round 1");
    assert_eq!(round1.pairings.len(), 2);
    // Round 2 cannot start before round 1 ends.
    let early = start(&p, &tid, 2).await.expect_err("round 1 runs");
    assert_eq!(reason(&early), "ROUND_RUNNING");
    let judged = &round1.pairings[0];
    let adjudicate = v1::AdjudicateMatchRequest {
        tournament_id: tid.clone(),
        match_id: judged.match_id.clone(),
        winner: Some(1),
        note: "seat 0 left".into(),
    };
    p.api().adjudicate_match(p.request(adjudicate.clone())).await.expect("adjudicated");
    p.api().adjudicate_match(p.request(adjudicate)).await.expect("again: the same");
    // Ended in its engine too: seat 0 resigned.
    let seat1 = &players[&judged.seat1_player_id];
    let over =
        cluster_tests::wait_view(seat1, &judged.match_id, 100, |v| v.outcome.is_some()).await;
    assert_eq!(over.outcome.expect("over").winner, Some(1));
    let m = p
        .api()
        .get_match(p.request(v1::GetMatchRequest { match_id: judged.match_id.clone() }))
        .await
        .expect("match")
        .into_inner()
        .r#match
        .expect("m");
    let result = m.result.expect("a result");
    assert_eq!((result.winner, result.reason.as_str()), (Some(1), "adjudicated"));
    let other = &round1.pairings[1];
    let seats = [&players[&other.seat0_player_id], &players[&other.seat1_player_id]];
    play_out(seats, &other.match_id, &mut Picker::new(3), 100).await;
    tournament_when(&p, &tid, |t| t.state == v1::TournamentState::BetweenRounds as i32).await;
    let final_round = start(&p, &tid, 2).await.expect("the final");
    assert_eq!(final_round.pairings.len(), 1);
    let f = &final_round.pairings[0];
    assert!(
        [&f.seat0_player_id, &f.seat1_player_id].contains(&&judged.seat1_player_id),
        "the adjudicated winner is in the final"
    );
    let seats = [&players[&f.seat0_player_id], &players[&f.seat1_player_id]];
    play_out(seats, &f.match_id, &mut Picker::new(4), 100).await;
    tournament_when(&p, &tid, |t| t.state == v1::TournamentState::Finished as i32).await;
    let standings = p
        .api()
        .get_standings(p.request(v1::GetStandingsRequest { tournament_id: tid.clone() }))
        .await
        .expect("standings")
        .into_inner()
        .standings;
    assert_eq!(standings[0].reached_round, 3, "the champion");
    assert_eq!(standings[1].reached_round, 2, "the finalist");
    let audit = env
        .admin()
        .read_audit(internal::ReadAuditRequest { tenant_id, limit: 100 })
        .await
        .expect("audit")
        .into_inner()
        .entries;
    let actions: Vec<&str> = audit.iter().map(|e| e.action.as_str()).collect();
    for a in
        ["CreateTournament", "PauseTournament", "ResumeTournament", "StartRound", "AdjudicateMatch"]
    {
        assert!(actions.contains(&a), "{a} audited: {actions:?}");
    }
    env.shutdown().await;
}

/// A withdrawn player is never paired again: a swiss of six continues with five (a bye).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_withdrawn_player_is_never_paired_again() {
    let env = Env::start().await;
    let (_, _, p) = env.tenant("wd", &ALL).await;
    let mut players = BTreeMap::new();
    for i in 0..6 {
        let pl = env.player(&format!("w{i}")).await;
        players.insert(pl.id.clone(), pl);
    }
    let kind = v1::tournament_format::Kind::Swiss(v1::Swiss { rounds: 3 });
    let tid = create_tournament(&p, "wd-1", kind, &players).await.tournament_id;
    let r1 = start(&p, &tid, 1).await.expect("round 1");
    let gone = r1.pairings[0].seat0_player_id.clone();
    let withdraw =
        v1::WithdrawPlayerRequest { tournament_id: tid.clone(), player_id: gone.clone() };
    p.api().withdraw_player(p.request(withdraw)).await.expect("withdrawn");
    let mut picker = Picker::new(9);
    for pairing in &r1.pairings {
        let seats = [&players[&pairing.seat0_player_id], &players[&pairing.seat1_player_id]];
        play_out(seats, &pairing.match_id, &mut picker, 100).await;
    }
    tournament_when(&p, &tid, |t| t.matches_finished == 3).await;
    let r2 = start(&p, &tid, 2).await.expect("round 2");
    assert_eq!(r2.pairings.len(), 2);
    assert_eq!(r2.bye_player_ids.len(), 1);
    assert!(r2.bye_player_ids[0] != gone);
    for pairing in &r2.pairings {
        assert!(pairing.seat0_player_id != gone && pairing.seat1_player_id != gone);
    }
    let standings = p
        .api()
        .get_standings(p.request(v1::GetStandingsRequest { tournament_id: tid.clone() }))
        .await
        .expect("standings")
        .into_inner()
        .standings;
    assert!(standings.iter().any(|s| s.player_id == gone && s.withdrawn));
    env.shutdown().await;
}

/// A match scheduled 1.5 s ahead: its id at once, SCHEDULED (and not found to the public
/// API) until its time, then created by the driver and playable; each match of the call is
/// announced once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scheduled_match_is_created_at_its_time_and_announced_once() {
    let env = Env::start().await;
    let (a, b) = (env.player("alice").await, env.player("bob").await);
    let (_, _, p) = env.tenant("sched", &ALL).await;
    let now = service_kit::time::now_ms();
    let mut later = spec("gops", "{\"cards\":3}", &a, &b);
    later.start_at_ms = now + 1_500;
    let soon = spec("gops", "{\"cards\":3}", &a, &b);
    let ids = p
        .api()
        .create_matches(p.request(bulk("sched-1", vec![later, soon])))
        .await
        .expect("created")
        .into_inner()
        .match_ids;
    let get = |id: String| {
        let p = p.clone();
        async move {
            p.api()
                .get_match(p.request(v1::GetMatchRequest { match_id: id }))
                .await
                .expect("match")
                .into_inner()
                .r#match
                .expect("m")
        }
    };
    assert_eq!(get(ids[0].clone()).await.state, v1::MatchState::Scheduled as i32);
    assert_status(a.try_view(&ids[0]).await, Code::NotFound, "");
    assert_eq!(get(ids[1].clone()).await.state, v1::MatchState::Running as i32);
    let mut running = false;
    for _ in 0..100 {
        if get(ids[0].clone()).await.state == v1::MatchState::Running as i32 {
            running = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(running, "created by the driver at its time");
    assert!(service_kit::time::now_ms() >= now + 1_500, "not before its time");
    assert_eq!(a.view(&ids[0]).await.seat, Some(0));
    // Two passes of the driver later, still one announcement each.
    tokio::time::sleep(Duration::from_millis(1_200)).await;
    let events = stream_events(&p, "", 0, 2).await;
    let mut started: Vec<String> = started_ids(&events);
    started.sort();
    let mut expected = ids.clone();
    expected.sort();
    assert_eq!(started, expected);
    let more = p
        .api()
        .watch_results(
            p.request(v1::WatchResultsRequest { tournament_id: String::new(), after_sequence: 2 }),
        )
        .await
        .expect("watch")
        .into_inner();
    let next = tokio::time::timeout(Duration::from_millis(800), Box::pin(more).next()).await;
    assert!(next.is_err(), "nothing after the two starts: {next:?}");
    env.shutdown().await;
}
