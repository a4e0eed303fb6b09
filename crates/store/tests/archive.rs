//! The archive's contract, on a real PostgreSQL (started here, on a free loopback port) and
//! on memory: one suite, both answers the same.

use std::sync::Arc;
use store::archive::memory::MemoryArchive;
use store::archive::postgres::PgArchive;
use store::archive::{After, MAX_PAGE};
use store::{
    ArchiveStore, Archived, MatchId, Owner, PlayerId, Put, RatingDelta, SeatHolder, Summary,
    TenantId, TournamentId,
};
use test_harness::PostgresServer;

fn rt() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap()
}

fn archived(id: MatchId, seats: [SeatHolder; 2], at: u64) -> Archived {
    Archived {
        summary: Summary {
            match_id: id,
            game: "gops".into(),
            seats,
            winner: Some(rules_core::Seat::ONE),
            reason: "completed".into(),
            finished_at_ms: at,
            tenant: None,
            tournament: None,
            ratings: [None, None],
        },
        // Not normalised anywhere: the bytes come back as they went in.
        record_json: format!("{{\"match_id\": \"{id}\",  \"moves\":[1, 2]}}"),
    }
}

/// Every page of `owner`'s list, `size` at a time.
async fn all_pages(a: &dyn ArchiveStore, owner: Owner, size: usize) -> Vec<MatchId> {
    let mut out = Vec::new();
    let mut after = None;
    loop {
        let page = a.list(owner, after, size).await.unwrap();
        assert!(page.len() <= size);
        let Some(last) = page.last() else { return out };
        after = Some(After::of(last));
        out.extend(page.iter().map(|s| s.match_id));
    }
}

async fn contract(a: Arc<dyn ArchiveStore>) {
    let ada = PlayerId::random();
    let bo = PlayerId::random();
    let first =
        archived(MatchId::random(), [SeatHolder::Player(ada), SeatHolder::Player(bo)], 1_000);
    assert_eq!(a.put(&first).await.unwrap(), Put::Written);
    // A repeat changes nothing, even one that says something else.
    let mut again = first.clone();
    again.record_json = "{}".into();
    again.summary.reason = "resigned".into();
    assert_eq!(a.put(&again).await.unwrap(), Put::AlreadyArchived);
    assert_eq!(a.record(first.summary.match_id).await.unwrap(), Some(first.record_json.clone()));
    assert_eq!(a.summary(first.summary.match_id).await.unwrap(), Some(first.summary.clone()));
    assert_eq!(a.record(MatchId::random()).await.unwrap(), None);

    // Ada's history: 25 more matches, some against a bot, one with her in both seats, one
    // with a draw and ratings, one a tenant's tournament's; two finish at the same ms.
    let tenant = TenantId::random();
    let tournament = TournamentId::random();
    let mut ids = vec![first.summary.match_id];
    for i in 0..25u64 {
        let other =
            if i % 3 == 0 { SeatHolder::Bot("random".into()) } else { SeatHolder::Player(bo) };
        let seats = if i == 7 {
            [SeatHolder::Player(ada), SeatHolder::Player(ada)]
        } else if i % 2 == 0 {
            [SeatHolder::Player(ada), other]
        } else {
            [other, SeatHolder::Player(ada)]
        };
        let at = if i == 11 { 2_000 + 10 * 10 } else { 2_000 + 10 * i };
        let mut m = archived(MatchId::random(), seats, at);
        if i == 5 {
            m.summary.winner = None;
            m.summary.reason = "completed".into();
            m.summary.ratings = [
                Some(RatingDelta { before: 1500.0, after: 1500.25 }),
                Some(RatingDelta { before: 1612.5, after: 1600.0 }),
            ];
        }
        if i >= 20 {
            m.summary.tenant = Some(tenant);
            m.summary.tournament = (i >= 22).then_some(tournament);
        }
        assert_eq!(a.put(&m).await.unwrap(), Put::Written);
        ids.push(m.summary.match_id);
    }
    let summaries = {
        let mut s = Vec::new();
        for id in &ids {
            s.push(a.summary(*id).await.unwrap().unwrap());
        }
        s
    };
    let mut newest_first = summaries.clone();
    newest_first.sort_by_key(|s| std::cmp::Reverse((s.finished_at_ms, s.match_id)));
    let expect: Vec<MatchId> = newest_first.iter().map(|s| s.match_id).collect();
    for size in [1, 4, 7, MAX_PAGE] {
        assert_eq!(all_pages(&*a, Owner::Player(ada), size).await, expect, "pages of {size}");
    }
    // A page is capped.
    assert_eq!(
        a.list(Owner::Player(ada), None, 10_000).await.unwrap().len(),
        ids.len().min(MAX_PAGE)
    );
    // Bo's: only the matches he sat in.
    let bos: Vec<MatchId> = newest_first
        .iter()
        .filter(|s| s.seats.contains(&SeatHolder::Player(bo)))
        .map(|s| s.match_id)
        .collect();
    assert_eq!(all_pages(&*a, Owner::Player(bo), 5).await, bos);
    assert_eq!(all_pages(&*a, Owner::Player(PlayerId::random()), 5).await, Vec::<MatchId>::new());
    // The tenant's and the tournament's.
    let of = |f: &dyn Fn(&Summary) -> bool| -> Vec<MatchId> {
        newest_first.iter().filter(|s| f(s)).map(|s| s.match_id).collect()
    };
    assert_eq!(all_pages(&*a, Owner::Tenant(tenant), 2).await, of(&|s| s.tenant == Some(tenant)));
    assert_eq!(all_pages(&*a, Owner::Tenant(tenant), 2).await.len(), 5);
    assert_eq!(
        all_pages(&*a, Owner::Tournament(tournament), 2).await,
        of(&|s| s.tournament == Some(tournament))
    );
    // What went in comes out: seats, winner, reason, ratings.
    let drawn = summaries.iter().find(|s| s.winner.is_none()).unwrap();
    assert_eq!(drawn.ratings[0], Some(RatingDelta { before: 1500.0, after: 1500.25 }));
    assert_eq!(drawn.ratings[1], Some(RatingDelta { before: 1612.5, after: 1600.0 }));
    assert!(summaries.iter().any(|s| s.seats[1] == SeatHolder::Bot("random".into())));

    // Retention: the oldest go first, and leave every list.
    assert_eq!(a.prune(2_000, 10).await.unwrap(), 1);
    assert_eq!(a.record(first.summary.match_id).await.unwrap(), None);
    assert_eq!(a.prune(2_045, 2).await.unwrap(), 2);
    assert_eq!(a.prune(2_045, 10).await.unwrap(), 3);
    assert_eq!(all_pages(&*a, Owner::Player(ada), 9).await, expect[..expect.len() - 6].to_vec());
    assert!(!all_pages(&*a, Owner::Player(bo), 9).await.contains(&first.summary.match_id));
    a.ping().await.unwrap();
}

#[test]
fn the_memory_archive_keeps_the_contract() {
    rt().block_on(contract(Arc::new(MemoryArchive::new())));
}

#[test]
fn the_postgres_archive_keeps_the_contract() {
    let pg = PostgresServer::start();
    rt().block_on(async {
        contract(Arc::new(PgArchive::open(&pg.url()).await.unwrap())).await;
    });
    // The record is kept as text, byte for byte.
    assert_eq!(pg.query("SELECT count(*) FROM archive_migrations").trim(), "1");
}

#[test]
fn replicas_starting_together_apply_the_migrations_once() {
    let pg = PostgresServer::start();
    rt().block_on(async {
        let opens = (0..6).map(|_| {
            let url = pg.url();
            tokio::spawn(async move { PgArchive::open(&url).await.map(|_| ()) })
        });
        for open in futures_util::future::join_all(opens).await {
            open.unwrap().unwrap();
        }
    });
    assert_eq!(pg.query("SELECT version FROM archive_migrations").trim(), "1");
}

#[test]
fn the_archive_answers_again_after_the_database_comes_back() {
    let mut pg = PostgresServer::start();
    let rt = rt();
    let a = rt.block_on(PgArchive::open(&pg.url())).unwrap();
    let ada = PlayerId::random();
    let m = archived(MatchId::random(), [SeatHolder::Player(ada), SeatHolder::Open], 5);
    rt.block_on(a.put(&m)).unwrap();
    pg.crash();
    // Down: an error, soon (bounded), not a hang; nothing half-written.
    let down = archived(MatchId::random(), [SeatHolder::Player(ada), SeatHolder::Open], 6);
    assert!(rt.block_on(a.put(&down)).is_err());
    assert!(rt.block_on(a.ping()).is_err());
    pg.restart();
    assert_eq!(rt.block_on(a.put(&down)).unwrap(), Put::Written);
    // Opened while the database was down: it migrates once the database is back.
    pg.crash();
    let late = rt.block_on(PgArchive::open(&pg.url())).expect("opens without the database");
    assert!(rt.block_on(late.ping()).is_err());
    pg.restart();
    assert_eq!(rt.block_on(late.put(&down)).unwrap(), Put::AlreadyArchived);
    assert_eq!(rt.block_on(a.put(&m)).unwrap(), Put::AlreadyArchived);
    let page = rt.block_on(a.list(Owner::Player(ada), None, 10)).unwrap();
    assert_eq!(
        page.iter().map(|s| s.match_id).collect::<Vec<_>>(),
        [down.summary.match_id, m.summary.match_id]
    );
}
