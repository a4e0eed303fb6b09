//! Tournaments' public pages through the gateway, on a real Redis and real gRPC servers: a
//! public swiss followed with no token (and with a guest session) through
//! WatchPublicTournament to its final page, whose standings are GetStandings' and whose
//! rounds are the pairings StartRound answered; a private tournament not found exactly as
//! an id that names nothing; neither the tenant's id, name, key nor a player id on a page.

use api::v1;
use client::platform::Platform;
use cluster_tests::{Env, Picker, Player, gops3, play_out};
use std::collections::BTreeMap;
use std::time::Duration;
use tokio::sync::mpsc;
use tonic::Code;
use tonic_types::StatusExt;

type ViewClient =
    v1::tournament_view_service_client::TournamentViewServiceClient<tonic::transport::Channel>;

const ALL: [&str; 3] = ["matches:create", "tournaments:manage", "results:read"];

/// A client of the public pages with no token at all.
fn anyone(env: &Env) -> ViewClient {
    ViewClient::new(client::channel(&env.cluster.gateway_url()).expect("a channel"))
}

fn get(id: &str) -> v1::GetPublicTournamentRequest {
    v1::GetPublicTournamentRequest { tournament_id: id.into(), ..Default::default() }
}

fn watch(id: &str) -> v1::WatchPublicTournamentRequest {
    v1::WatchPublicTournamentRequest { tournament_id: id.into(), ..Default::default() }
}

/// A watch's pages, each as it comes, until the watch ends (OK): the channel closes.
fn follow(
    mut client: ViewClient,
    req: tonic::Request<v1::WatchPublicTournamentRequest>,
) -> mpsc::UnboundedReceiver<v1::PublicTournament> {
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        let mut stream = client.watch_public_tournament(req).await.expect("a watch").into_inner();
        loop {
            match tokio::time::timeout(Duration::from_secs(120), stream.message()).await {
                Ok(Ok(Some(page))) => drop(tx.send(page.tournament.expect("a page"))),
                Ok(Ok(None)) => return,
                other => panic!("the watch broke: {other:?}"),
            }
        }
    });
    rx
}

/// The pages of `watch` up to the first that shows `done`, which is last.
async fn pages_until(
    watch: &mut mpsc::UnboundedReceiver<v1::PublicTournament>,
    done: impl Fn(&v1::PublicTournament) -> bool,
) -> Vec<v1::PublicTournament> {
    let mut pages = Vec::new();
    loop {
        let page = tokio::time::timeout(Duration::from_secs(20), watch.recv()).await;
        let page = page.expect("a page within 20 s").expect("the watch goes on");
        let over = done(&page);
        pages.push(page);
        if over {
            return pages;
        }
    }
}

async fn create(
    p: &Platform,
    key: &str,
    players: &BTreeMap<String, Player>,
    public_page: bool,
) -> v1::Tournament {
    let entrants = players
        .values()
        .enumerate()
        .map(|(i, pl)| v1::Entrant {
            player_id: pl.id.clone(),
            seed_rating: Some(2000.0 - 10.0 * i as f64),
            // The last is given no name: a public page shows it by its place.
            name: if i + 1 == players.len() { String::new() } else { pl.name.clone() },
        })
        .collect();
    p.api()
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
        .expect("a tournament")
}

async fn tournament(p: &Platform, tid: &str) -> v1::Tournament {
    let req = v1::GetTournamentRequest { tournament_id: tid.into() };
    p.api()
        .get_tournament(p.request(req))
        .await
        .expect("a tournament")
        .into_inner()
        .tournament
        .expect("t")
}

/// A public swiss of eight, three rounds, every match played by its players; two visitors
/// follow its page from before the first round, one with no token, one with a guest
/// session: each sees every round's results as they come, and its watch ends after the
/// page that shows it finished, whose standings are GetStandings' lines (the player id
/// apart), whose rounds are StartRound's pairings with their results, and which
/// GetPublicTournament answers too; nothing of the tenant's or a player id on any page.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_public_swiss_is_followed_to_its_final_standings_with_no_key() {
    let env = Env::start().await;
    let (tenant_id, key_id, p) = env.tenant("Hidden Org Ltd", &ALL).await;
    let mut players = BTreeMap::new();
    for i in 0..8 {
        let pl = env.player(&format!("s{i}")).await;
        players.insert(pl.id.clone(), pl);
    }
    let created = create(&p, "open-swiss", &players, true).await;
    assert!(created.public_page, "GetTournament tells the organiser");
    let tid = created.tournament_id.clone();
    let visitor = env.player("visitor").await;
    let mut watchers = [
        follow(anyone(&env), tonic::Request::new(watch(&tid))),
        follow(anyone(&env), visitor.client.request(watch(&tid))),
    ];
    let mut seen: [Vec<v1::PublicTournament>; 2] = Default::default();
    for (w, pages) in watchers.iter_mut().zip(&mut seen) {
        pages.extend(pages_until(w, |_| true).await);
        assert_eq!(pages[0].state, v1::TournamentState::Created as i32, "the page at once");
    }
    let mut paired = Vec::new();
    let mut picker = Picker::new(26);
    for round in 1..=3 {
        let req = v1::StartRoundRequest { tournament_id: tid.clone(), round };
        let r = p.api().start_round(p.request(req)).await.expect("a round").into_inner();
        let r = r.round.expect("paired");
        for pair in &r.pairings {
            let seats = [&players[&pair.seat0_player_id], &players[&pair.seat1_player_id]];
            play_out(seats, &pair.match_id, &mut picker, 100).await;
        }
        // Each watch shows the round's results, live, before the next round starts.
        for (w, pages) in watchers.iter_mut().zip(&mut seen) {
            pages.extend(pages_until(w, |t| t.games_finished == 4 * round).await);
        }
        paired.push(r);
    }
    let standings = p
        .api()
        .get_standings(p.request(v1::GetStandingsRequest { tournament_id: tid.clone() }))
        .await
        .expect("standings")
        .into_inner();
    let name_of: BTreeMap<String, String> =
        standings.standings.iter().map(|s| (s.player_id.clone(), s.name.clone())).collect();
    assert!(name_of.values().any(|n| n == "Player 8"), "the nameless entrant: {name_of:?}");
    for (mut w, pages) in watchers.into_iter().zip(seen) {
        // The last page was the finished one: the watch ends after it.
        let more = tokio::time::timeout(Duration::from_secs(20), w.recv()).await;
        assert!(matches!(more, Ok(None)), "the watch ends after its last page: {more:?}");
        assert!(pages.len() >= 4, "the first page, then each round's: {} pages", pages.len());
        for pair in pages.windows(2) {
            assert!(pair[0].sequence < pair[1].sequence, "each page a later one");
        }
        assert!(
            pages[..pages.len() - 1]
                .iter()
                .all(|t| t.state != v1::TournamentState::Finished as i32)
        );
        let last = pages.last().expect("a last page");
        assert_eq!(last.state, v1::TournamentState::Finished as i32);
        assert_eq!((last.name.as_str(), last.players, last.rounds), ("open-swiss", 8, 3));
        assert_eq!((last.games, last.games_finished), (12, 12));
        assert_eq!(last.sequence, standings.sequence, "GetStandings' moment");
        // GetStandings' lines, each without its player id.
        assert_eq!(last.standings.len(), standings.standings.len());
        for (line, s) in last.standings.iter().zip(&standings.standings) {
            let as_standing = v1::Standing {
                rank: line.rank,
                player_id: s.player_id.clone(),
                name: line.name.clone(),
                points2: line.points2,
                played: line.played,
                wins: line.wins,
                draws: line.draws,
                losses: line.losses,
                byes: line.byes,
                buchholz2: line.buchholz2,
                sonneborn_berger4: line.sonneborn_berger4,
                withdrawn: line.withdrawn,
                reached_round: line.reached_round,
            };
            assert_eq!(&as_standing, s);
            assert_eq!(line.crosstable.len(), 3, "{}: a game each round", line.name);
            assert_eq!(line.crosstable_earlier, 0);
        }
        // The rounds: StartRound's pairings, in board order, by name, with results that the
        // crosstable agrees with.
        assert_eq!(last.round_games.len(), 3);
        for (r, round) in paired.iter().zip(&last.round_games) {
            assert_eq!(round.round, r.round);
            assert!(round.bye_names.is_empty());
            let got: Vec<(&str, &str, &str)> = round
                .games
                .iter()
                .map(|g| (g.match_id.as_str(), g.seat0_name.as_str(), g.seat1_name.as_str()))
                .collect();
            let want: Vec<(&str, &str, &str)> = r
                .pairings
                .iter()
                .map(|g| {
                    (
                        g.match_id.as_str(),
                        name_of[&g.seat0_player_id].as_str(),
                        name_of[&g.seat1_player_id].as_str(),
                    )
                })
                .collect();
            assert_eq!(got, want, "round {}", r.round);
            for g in &round.games {
                assert_ne!(g.result, v1::PublicGameResult::Pending as i32);
                let seat0 = &last.standings[g.seat0_rank as usize - 1];
                assert_eq!(seat0.name, g.seat0_name);
                let cell = seat0.crosstable.iter().find(|c| c.round == r.round).expect("a cell");
                assert_eq!((cell.opponent_rank, cell.seat), (g.seat1_rank, 0));
            }
        }
        // Nothing of the tenant's, no player id, on any page.
        let text = format!("{pages:?}");
        for secret in [tenant_id.as_str(), key_id.as_str(), "Hidden Org"] {
            assert!(!text.contains(secret), "{secret:?} on a page");
        }
        for id in players.keys().chain([&visitor.id]) {
            assert!(!text.contains(&id[..8]), "a player id on a page");
        }
        // The same page, asked once, by anyone.
        let got = anyone(&env).get_public_tournament(get(&tid)).await.expect("a page");
        assert_eq!(got.into_inner().tournament.as_ref(), Some(last));
    }
    // A window: three lines from the fourth, the newest five games.
    let req = v1::GetPublicTournamentRequest {
        tournament_id: tid.clone(),
        standings_offset: 3,
        standings_limit: 3,
        games_offset: 0,
        games_limit: 5,
    };
    let page = anyone(&env).get_public_tournament(req).await.expect("a page").into_inner();
    let page = page.tournament.expect("a page");
    let ranks: Vec<u32> = page.standings.iter().map(|s| s.rank).collect();
    assert_eq!(ranks, [4, 5, 6]);
    let rounds: Vec<(u32, usize)> =
        page.round_games.iter().map(|r| (r.round, r.games.len())).collect();
    assert_eq!(rounds, [(2, 1), (3, 4)]);
    env.shutdown().await;
}

/// The status of a refusal, as a client could compare two: code, message, reason and
/// metadata.
fn refusal(s: &tonic::Status) -> (Code, String, String, BTreeMap<String, String>) {
    let info = s.get_details_error_info().expect("an ErrorInfo");
    (s.code(), s.message().to_string(), info.reason, info.metadata.into_iter().collect())
}

/// A tournament not opened to the public answers NOT_FOUND exactly as an id that names
/// nothing, to GetPublicTournament and WatchPublicTournament alike, with a token or none;
/// its organiser still reads it with the key.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_tournament_is_not_found_exactly_as_an_unknown_id() {
    let env = Env::start().await;
    let (_, _, p) = env.tenant("private", &ALL).await;
    let mut players = BTreeMap::new();
    for i in 0..4 {
        let pl = env.player(&format!("q{i}")).await;
        players.insert(pl.id.clone(), pl);
    }
    let private = create(&p, "closed-swiss", &players, false).await;
    assert!(!private.public_page);
    let round = v1::StartRoundRequest { tournament_id: private.tournament_id.clone(), round: 1 };
    p.api().start_round(p.request(round)).await.expect("it runs");
    let unknown = store::TournamentId::random().to_string();
    let guest = env.player("visitor").await;
    let mut answers = Vec::new();
    for id in [&private.tournament_id, &unknown] {
        let s = anyone(&env).get_public_tournament(get(id)).await.expect_err("not found");
        answers.push(refusal(&s));
        let s = anyone(&env)
            .get_public_tournament(guest.client.request(get(id)))
            .await
            .expect_err("not found");
        answers.push(refusal(&s));
        let s = anyone(&env).watch_public_tournament(watch(id)).await.expect_err("not found");
        answers.push(refusal(&s));
    }
    assert_eq!(answers[0].0, Code::NotFound);
    assert_eq!(answers[0].2, "NOT_FOUND");
    for a in &answers {
        assert_eq!(a, &answers[0], "every answer the same");
        assert!(!a.1.contains(&private.tournament_id) && !a.1.contains(&unknown));
    }
    // The organiser's own view is as it was.
    assert_eq!(
        tournament(&p, &private.tournament_id).await.state,
        v1::TournamentState::Running as i32
    );
    env.shutdown().await;
}
