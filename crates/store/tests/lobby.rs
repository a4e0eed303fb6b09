//! The lobby's contract ([`store::LobbyStore`]), one suite over three stores: every test
//! runs against the `MemoryStore`, a `RedisStore` on a real `redis-server` and one on a
//! real 3-primary Redis Cluster, each Redis test on its own server or cluster started by
//! `test-harness`. The Redis-only checks (the key layout, an undecodable lifecycle entry)
//! are at the end.

#[macro_use]
mod common;

use common::redis_fixture;
use rules_core::Seat;
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;
use store::{
    Account, AccountChange, Board, Delivery, Finished, FullStore, MatchId, Pairing, PlayerId,
    Queue, RateDecision, RatedMatch, Rating, RatingChange, RatingUpdate, Recorded, Registered,
    SeekAccepted, StoreError, Ticket, TicketCreated, TicketFeed, TicketId, TicketState,
    redis_store::keys,
};
use test_harness::RedisServer;
use tokio_stream::StreamExt;

type Store = Arc<dyn FullStore>;

// ---------------------------------------------------------------------------------------
// Fixtures

/// The time the tests live at, Unix ms.
const NOW: u64 = 1_700_000_000_000;

/// Tickets expire this long after they are made.
const TTL: u64 = 60_000;

fn queue(game: &str, rated: bool) -> Queue {
    Queue {
        game: game.into(),
        options_json: r#"{"cards":13,"note":"a/b \"quoted\" ✓"}"#.into(),
        move_time_ms: 30_000,
        rated,
    }
}

fn ticket_at(player: PlayerId, queue: &Queue, seek: bool, key: &str, created_ms: u64) -> Ticket {
    Ticket {
        id: TicketId::random(),
        player,
        queue: queue.clone(),
        seek,
        // Many digits: the store must give back exactly this f64.
        rating: 1_523.456_789_012_345_7,
        idempotency_key: key.into(),
        created_ms,
        expires_ms: created_ms + TTL,
        state: TicketState::Waiting,
        changed_ms: created_ms,
        display_name: format!("name of {key}"),
    }
}

fn ticket(player: PlayerId, queue: &Queue, key: &str) -> Ticket {
    ticket_at(player, queue, false, key, NOW)
}

/// Stores a new waiting ticket of a new player.
async fn waiting_ticket(store: &Store, queue: &Queue) -> Ticket {
    created(store, ticket(PlayerId::random(), queue, "k")).await
}

async fn created(store: &Store, t: Ticket) -> Ticket {
    match store.create_ticket(&t).await {
        Ok(TicketCreated::Created(stored)) => {
            assert_eq!(stored, t);
            stored
        }
        other => panic!("not created: {other:?}"),
    }
}

fn pairing(a: &Ticket, b: &Ticket, paired_ms: u64) -> Pairing {
    Pairing {
        match_id: MatchId::random(),
        queue: a.queue.clone(),
        tickets: [a.id, b.id],
        players: [a.player, b.player],
        paired_ms,
    }
}

/// A rated GOPS match between `p` and `q` as the matcher makes one (tickets paired, then
/// assigned), waiting for its result.
async fn rated_pairing(store: &Store, p: PlayerId, q: PlayerId) -> MatchId {
    let rated = queue("gops", true);
    let key = MatchId::random().to_string();
    let a = created(store, ticket(p, &rated, &key)).await;
    let b = created(store, ticket(q, &rated, &key)).await;
    let pairing = pairing(&a, &b, NOW + 1);
    assert_eq!(store.pair(std::slice::from_ref(&pairing), NOW + 1).await, Ok(vec![true]));
    assert_eq!(store.assign(pairing.match_id, NOW + 2).await, Ok(true));
    pairing.match_id
}

fn paired(pairing: &Pairing, seat: Seat) -> TicketState {
    TicketState::Pairing { match_id: pairing.match_id, seat }
}

async fn state_of(store: &Store, id: TicketId) -> TicketState {
    store.ticket(id).await.expect("ticket").expect("stored").state
}

fn account(email: &str) -> Account {
    Account {
        player: PlayerId::random(),
        email: email.into(),
        password_phc: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
        display_name: "Ada ✓".into(),
        leaderboard: true,
        bot: false,
        created_ms: NOW,
    }
}

fn sha(n: u8) -> String {
    format!("{n:02x}").repeat(32)
}

fn rating(rating: f64, games: u64) -> Rating {
    Rating {
        rating,
        deviation: 87.654_321_098_765_43,
        volatility: 0.059_991_234_567_890_1,
        games,
        updated_ms: NOW + games,
    }
}

fn update(
    player: PlayerId,
    expect_games: u64,
    after: f64,
    board: Option<Board>,
    match_id: MatchId,
) -> RatingUpdate {
    RatingUpdate {
        player,
        expect_games,
        after: rating(after, expect_games + 1),
        board,
        change: RatingChange {
            match_id,
            rating: after,
            before: Some(1_500.0),
            deviation: 87.654_321_098_765_43,
            score: 0.5,
            opponent_rating: 1_499.999_999_999_9,
            at_ms: NOW + expect_games,
        },
    }
}

fn finished(n: u64) -> Finished {
    Finished {
        match_id: MatchId::random(),
        game: "gops".into(),
        players: [Some(PlayerId::random()), None],
        winner: if n.is_multiple_of(2) { Some(Seat::ONE) } else { None },
        reason: "completed".into(),
        at_ms: NOW + n,
        seed_hex: None,
    }
}

fn sorted<T: Ord>(mut items: Vec<T>) -> Vec<T> {
    items.sort();
    items
}

fn ids(tickets: &[Ticket]) -> Vec<TicketId> {
    tickets.iter().map(|t| t.id).collect()
}

suite!(
    accounts,
    sessions_can_be_deleted,
    rate_limits,
    create_ticket_outcomes,
    create_ticket_race_stores_one,
    tickets_of_lists_newest_first_and_forgets_old_ended_ones,
    cancel_only_a_waiting_ticket_of_ones_own,
    waiting_queues_and_waiting,
    seeks_oldest_first_by_game,
    pair_all_or_nothing,
    pair_race_puts_no_ticket_in_two_pairings,
    accept_seek_outcomes,
    accept_seek_forgets_old_ended_tickets_as_create_does,
    assign_is_idempotent,
    unpair_puts_both_back,
    expire_only_due_waiting_tickets,
    the_ticket_feed_announces_the_players_of_each_change,
    leases,
    record_result_outcomes,
    history_keeps_the_newest_hundred,
    place_leaderboard_and_rank,
    unrated_matches_until_recorded,
    lifecycle_groups_read_claim_and_ack,
    the_lifecycle_drops_what_every_group_has_acknowledged,
    a_final_step_leaves_its_announcement_owed_until_made,
    an_owed_announcement_without_its_final_step_is_dropped,
    lifecycle_read_waits_for_an_entry,
    a_blocking_read_stalls_nothing_else,
);

// ---------------------------------------------------------------------------------------
// Accounts, sessions, rate limits

async fn accounts(store: Store) {
    let ada = account("ada@example.com");
    assert_eq!(store.account(ada.player).await, Ok(None));
    assert_eq!(store.account_by_email(&ada.email).await, Ok(None));
    assert_eq!(store.register(&ada).await, Ok(Registered::Created));
    assert_eq!(store.account(ada.player).await, Ok(Some(ada.clone())));
    assert_eq!(store.account_by_email(&ada.email).await, Ok(Some(ada.clone())));

    // The email is taken: nothing changes, even for another player.
    let again = Account { display_name: "Impostor".into(), ..account(&ada.email) };
    assert_eq!(store.register(&again).await, Ok(Registered::EmailTaken));
    assert_eq!(store.account(again.player).await, Ok(None));
    assert_eq!(store.account_by_email(&ada.email).await, Ok(Some(ada.clone())));

    // A guest has no account.
    assert_eq!(store.account(PlayerId::random()).await, Ok(None));

    // An update changes one part; the rest stays as stored.
    let phc = AccountChange::Password("$argon2id$v=19$new".into());
    assert_eq!(store.update_account(ada.player, &phc).await, Ok(true));
    let profile = AccountChange::Profile { display_name: "Ada L.".into(), leaderboard: false };
    assert_eq!(store.update_account(ada.player, &profile).await, Ok(true));
    let expected = Account {
        password_phc: "$argon2id$v=19$new".into(),
        display_name: "Ada L.".into(),
        leaderboard: false,
        ..ada.clone()
    };
    assert_eq!(store.account(ada.player).await, Ok(Some(expected.clone())));
    assert_eq!(store.account_by_email(&ada.email).await, Ok(Some(expected.clone())));
    // A profile change after the password change keeps the new hash, and back.
    let again = AccountChange::Profile { display_name: "Ada".into(), leaderboard: true };
    assert_eq!(store.update_account(ada.player, &again).await, Ok(true));
    let stored = store.account(ada.player).await.expect("read").expect("there");
    assert_eq!(stored.password_phc, expected.password_phc);
    assert_eq!((stored.display_name.as_str(), stored.leaderboard), ("Ada", true));
    assert_eq!(store.update_account(PlayerId::random(), &phc).await, Ok(false));
}

async fn sessions_can_be_deleted(store: Store) {
    let p = PlayerId::random();
    store.put_session(&sha(1), p, "Ada").await.expect("put");
    store.put_session(&sha(2), p, "Ada").await.expect("put");
    assert!(store.session(&sha(1)).await.expect("session").is_some());
    assert_eq!(store.delete_session(&sha(1)).await, Ok(()));
    assert_eq!(store.session(&sha(1)).await, Ok(None));
    assert!(store.session(&sha(2)).await.expect("session").is_some(), "only that one");
    assert_eq!(store.delete_session(&sha(1)).await, Ok(()), "twice is no error");
    for bad in ["raw-token", &sha(0xab).to_uppercase()] {
        assert!(matches!(store.delete_session(bad).await, Err(StoreError::InvalidArgument(_))));
    }
}

async fn rate_limits(store: Store) {
    for _ in 0..3 {
        assert_eq!(store.rate_limit("login:a", 60_000, 3).await, Ok(RateDecision::Allowed));
    }
    for _ in 0..2 {
        match store.rate_limit("login:a", 60_000, 3).await {
            Ok(RateDecision::Limited { retry_after_ms }) => {
                assert!(retry_after_ms > 0 && retry_after_ms <= 60_000, "{retry_after_ms}");
            }
            other => panic!("not limited: {other:?}"),
        }
    }
    assert_eq!(store.rate_limit("login:b", 60_000, 3).await, Ok(RateDecision::Allowed));
    // The window starts at the first hit and ends: allowed again after it.
    assert_eq!(store.rate_limit("short", 200, 1).await, Ok(RateDecision::Allowed));
    assert!(matches!(
        store.rate_limit("short", 200, 1).await,
        Ok(RateDecision::Limited { retry_after_ms }) if retry_after_ms > 0 && retry_after_ms <= 200
    ));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(store.rate_limit("short", 200, 1).await, Ok(RateDecision::Allowed));
}

// ---------------------------------------------------------------------------------------
// Tickets

async fn create_ticket_outcomes(store: Store) {
    let p = PlayerId::random();
    let (rated, casual) = (queue("gops", true), queue("gops", false));
    let first = created(&store, ticket(p, &rated, "key-1")).await;
    assert_eq!(store.ticket(first.id).await, Ok(Some(first.clone())));
    assert_eq!(store.ticket(TicketId::random()).await, Ok(None));

    // The same key, queue and kind: that ticket.
    let retry = ticket(p, &rated, "key-1");
    assert_eq!(store.create_ticket(&retry).await, Ok(TicketCreated::Duplicate(first.clone())));
    // The same key for another queue, or for a seek: that ticket, refused.
    let other_queue = ticket(p, &casual, "key-1");
    assert_eq!(
        store.create_ticket(&other_queue).await,
        Ok(TicketCreated::KeyReused(first.clone()))
    );
    let as_seek = ticket_at(p, &rated, true, "key-1", NOW);
    assert_eq!(store.create_ticket(&as_seek).await, Ok(TicketCreated::KeyReused(first.clone())));
    // Another key in the same queue while the first is live.
    let second = ticket(p, &rated, "key-2");
    assert_eq!(store.create_ticket(&second).await, Ok(TicketCreated::LiveInQueue(first.clone())));
    // Another queue is free; another player is free in the same queue.
    created(&store, ticket(p, &casual, "key-3")).await;
    created(&store, ticket(PlayerId::random(), &rated, "key-1")).await;
    // None of the refused ones were stored.
    for refused in [&retry, &other_queue, &as_seek, &second] {
        assert_eq!(store.ticket(refused.id).await, Ok(None));
    }
    // Once the live one ended, the queue takes a new key again.
    store.cancel_ticket(first.id, p, NOW + 1).await.expect("cancel");
    created(&store, ticket(p, &rated, "key-2")).await;
    // A duplicate answers the ticket as it is now.
    let now = store.ticket(first.id).await.expect("ticket").expect("stored");
    assert_eq!(now.state, TicketState::Cancelled);
    assert_eq!(
        store.create_ticket(&ticket(p, &rated, "key-1")).await,
        Ok(TicketCreated::Duplicate(now))
    );
}

/// Racing creations of one player's tickets in one queue store one: under one key the
/// others answer it as a duplicate, under other keys as the live ticket in the queue.
async fn create_ticket_race_stores_one(store: Store) {
    let rated = queue("gops", true);
    for same_key in [true, false] {
        let p = PlayerId::random();
        let racers: Vec<_> = (0..8)
            .map(|i| {
                let key = if same_key { "key".to_string() } else { format!("key-{i}") };
                let (store, t) = (store.clone(), ticket(p, &rated, &key));
                tokio::spawn(async move { store.create_ticket(&t).await })
            })
            .collect();
        let mut created = Vec::new();
        let mut answered = Vec::new();
        for racer in racers {
            match racer.await.expect("joined").expect("answered") {
                TicketCreated::Created(t) => created.push(t),
                TicketCreated::Duplicate(t) if same_key => answered.push(t),
                TicketCreated::LiveInQueue(t) if !same_key => answered.push(t),
                other => panic!("unexpected {other:?} (same key: {same_key})"),
            }
        }
        assert_eq!(created.len(), 1, "one stored (same key: {same_key})");
        assert_eq!(answered.len(), 7);
        assert!(answered.iter().all(|t| t.id == created[0].id), "each answer is the one stored");
        assert_eq!(ids(&store.tickets_of(p).await.expect("listed")), vec![created[0].id]);
    }
}

async fn tickets_of_lists_newest_first_and_forgets_old_ended_ones(store: Store) {
    let p = PlayerId::random();
    assert_eq!(store.tickets_of(p).await, Ok(Vec::new()));
    let live = created(&store, ticket_at(p, &queue("duel", false), false, "live", NOW)).await;
    let q = queue("gops", false);
    let mut ended = Vec::new();
    for i in 1..=55 {
        let t = created(&store, ticket_at(p, &q, false, &format!("k{i}"), NOW + i)).await;
        let cancelled = store.cancel_ticket(t.id, p, NOW + 100).await.expect("cancel");
        ended.push(cancelled.expect("mine"));
    }
    // 50 kept: the live one (the oldest) and the 49 newest that ended; the six oldest that
    // ended are forgotten, their keys too.
    let listed = store.tickets_of(p).await.expect("tickets");
    let mut expected: Vec<Ticket> = ended[6..].iter().rev().cloned().collect();
    expected.push(live);
    assert_eq!(listed, expected);
    assert_eq!(store.ticket(ended[0].id).await, Ok(None));
    assert!(matches!(
        store.create_ticket(&ticket_at(p, &q, false, "k1", NOW + 200)).await,
        Ok(TicketCreated::Created(_))
    ));
    assert_eq!(store.tickets_of(PlayerId::random()).await, Ok(Vec::new()));
}

async fn cancel_only_a_waiting_ticket_of_ones_own(store: Store) {
    let q = queue("gops", false);
    let a = waiting_ticket(&store, &q).await;
    let b = waiting_ticket(&store, &q).await;
    // Another player's, or none: nothing.
    assert_eq!(store.cancel_ticket(a.id, b.player, NOW + 5).await, Ok(None));
    assert_eq!(store.cancel_ticket(TicketId::random(), a.player, NOW + 5).await, Ok(None));
    assert_eq!(state_of(&store, a.id).await, TicketState::Waiting);

    let cancelled = Ticket { state: TicketState::Cancelled, changed_ms: NOW + 5, ..a.clone() };
    assert_eq!(store.cancel_ticket(a.id, a.player, NOW + 5).await, Ok(Some(cancelled.clone())));
    assert_eq!(store.ticket(a.id).await, Ok(Some(cancelled.clone())));
    assert_eq!(ids(&store.waiting(&q).await.expect("waiting")), vec![b.id]);
    // Not waiting any more: unchanged.
    assert_eq!(store.cancel_ticket(a.id, a.player, NOW + 9).await, Ok(Some(cancelled)));

    // A paired ticket stays paired.
    let c = waiting_ticket(&store, &q).await;
    let p = pairing(&b, &c, NOW + 10);
    assert_eq!(store.pair(std::slice::from_ref(&p), NOW + 10).await, Ok(vec![true]));
    let now = store.ticket(b.id).await.expect("ticket").expect("stored");
    assert_eq!(now.state, paired(&p, Seat::ZERO));
    assert_eq!(store.cancel_ticket(b.id, b.player, NOW + 11).await, Ok(Some(now)));
    assert_eq!(state_of(&store, b.id).await, paired(&p, Seat::ZERO));
}

async fn waiting_queues_and_waiting(store: Store) {
    assert_eq!(store.waiting_queues().await, Ok(Vec::new()));
    let (gops, duel, seeks_only) = (queue("gops", true), queue("duel", false), queue("tic", false));
    let a = waiting_ticket(&store, &gops).await;
    let b = waiting_ticket(&store, &gops).await;
    let c = waiting_ticket(&store, &duel).await;
    let seek = created(&store, ticket_at(PlayerId::random(), &seeks_only, true, "s", NOW)).await;
    // A seek is not queued: its queue is not listed, and it is not waiting in one.
    assert_eq!(
        sorted(store.waiting_queues().await.expect("queues")),
        sorted(vec![gops.clone(), duel.clone()])
    );
    assert_eq!(
        sorted(ids(&store.waiting(&gops).await.expect("waiting"))),
        sorted(vec![a.id, b.id])
    );
    assert_eq!(store.waiting(&duel).await, Ok(vec![c.clone()]));
    assert_eq!(store.waiting(&seeks_only).await, Ok(Vec::new()));
    assert!(store.waiting(&gops).await.expect("waiting").iter().all(|t| t.id != seek.id));
    // Another time control is another queue.
    let slow = Queue { move_time_ms: 60_000, ..gops.clone() };
    assert_eq!(store.waiting(&slow).await, Ok(Vec::new()));

    // A queue with no waiting ticket left is not listed.
    store.cancel_ticket(c.id, c.player, NOW + 1).await.expect("cancel");
    assert_eq!(store.waiting_queues().await, Ok(vec![gops.clone()]));
    let p = pairing(&a, &b, NOW + 2);
    assert_eq!(store.pair(&[p], NOW + 2).await, Ok(vec![true]));
    assert_eq!(store.waiting_queues().await, Ok(Vec::new()));
    assert_eq!(store.waiting(&gops).await, Ok(Vec::new()));
}

async fn seeks_oldest_first_by_game(store: Store) {
    assert_eq!(store.seeks(None, 10).await, Ok(Vec::new()));
    let (gops, duel) = (queue("gops", false), queue("duel", false));
    let seek = |q: &Queue, created_ms| ticket_at(PlayerId::random(), q, true, "s", created_ms);
    let s3 = created(&store, seek(&gops, NOW + 3)).await;
    let s1 = created(&store, seek(&duel, NOW + 1)).await;
    let s2 = created(&store, seek(&gops, NOW + 2)).await;
    let s4 = created(&store, seek(&duel, NOW + 4)).await;
    waiting_ticket(&store, &gops).await;
    assert_eq!(ids(&store.seeks(None, 10).await.expect("seeks")), vec![s1.id, s2.id, s3.id, s4.id]);
    assert_eq!(ids(&store.seeks(None, 2).await.expect("seeks")), vec![s1.id, s2.id]);
    assert_eq!(ids(&store.seeks(Some("gops"), 10).await.expect("seeks")), vec![s2.id, s3.id]);
    assert_eq!(ids(&store.seeks(Some("duel"), 1).await.expect("seeks")), vec![s1.id]);
    assert_eq!(store.seeks(Some("chess"), 10).await, Ok(Vec::new()));
    assert_eq!(store.seeks(None, 0).await, Ok(Vec::new()));
    store.cancel_ticket(s2.id, s2.player, NOW + 5).await.expect("cancel");
    assert_eq!(ids(&store.seeks(Some("gops"), 10).await.expect("seeks")), vec![s3.id]);
}

async fn pair_all_or_nothing(store: Store) {
    let (rated, casual) = (queue("gops", true), queue("gops", false));
    let [a, b, c, d] = [
        waiting_ticket(&store, &rated).await,
        waiting_ticket(&store, &rated).await,
        waiting_ticket(&store, &rated).await,
        waiting_ticket(&store, &rated).await,
    ];
    let ab = pairing(&a, &b, NOW + 1);
    // The second names `a` again: refused whole, `c` stays waiting.
    let ac = pairing(&a, &c, NOW + 1);
    let cd = pairing(&c, &d, NOW + 1);
    assert_eq!(store.pair(&[ab.clone(), ac.clone()], NOW + 1).await, Ok(vec![true, false]));
    for (t, seat) in [(&a, Seat::ZERO), (&b, Seat::ONE)] {
        let now = store.ticket(t.id).await.expect("ticket").expect("stored");
        assert_eq!(now.state, paired(&ab, seat));
        assert_eq!(now.changed_ms, NOW + 1);
    }
    assert_eq!(state_of(&store, c.id).await, TicketState::Waiting);
    assert_eq!(store.pending_pairings().await, Ok(vec![ab.clone()]));
    // A rated queue records the match as rated.
    let expected = RatedMatch { game: "gops".into(), players: [a.player, b.player] };
    assert_eq!(store.rated_match(ab.match_id).await, Ok(Some(expected)));
    assert_eq!(store.rated_match(ac.match_id).await, Ok(None));
    // Retrying a made pairing: its tickets are no longer waiting.
    assert_eq!(store.pair(std::slice::from_ref(&ab), NOW + 2).await, Ok(vec![false]));
    assert_eq!(store.pair(&[], NOW + 2).await, Ok(Vec::new()));

    // An expired ticket is not paired (at `expires_ms` it is due), nor is its partner.
    let late = c.expires_ms;
    assert_eq!(store.pair(std::slice::from_ref(&cd), late).await, Ok(vec![false]));
    assert_eq!(state_of(&store, d.id).await, TicketState::Waiting);
    assert_eq!(store.pair(std::slice::from_ref(&cd), late - 1).await, Ok(vec![true]));
    assert_eq!(
        sorted(
            store.pending_pairings().await.expect("pending").iter().map(|p| p.match_id).collect()
        ),
        sorted(vec![ab.match_id, cd.match_id])
    );

    // A seek is paired only by accepting it; a casual match is not rated.
    let e = waiting_ticket(&store, &casual).await;
    let f = waiting_ticket(&store, &casual).await;
    let s = created(&store, ticket_at(PlayerId::random(), &casual, true, "s", NOW)).await;
    let with_seek = pairing(&e, &s, NOW + 3);
    assert_eq!(store.pair(&[with_seek], NOW + 3).await, Ok(vec![false]));
    assert_eq!(state_of(&store, s.id).await, TicketState::Waiting);
    assert_eq!(ids(&store.seeks(None, 10).await.expect("seeks")), vec![s.id]);
    // Nor is a pairing that names the wrong player or queue.
    let wrong = Pairing { players: [f.player, e.player], ..pairing(&e, &f, NOW + 3) };
    assert_eq!(store.pair(&[wrong], NOW + 3).await, Ok(vec![false]));
    let ef = pairing(&e, &f, NOW + 3);
    assert_eq!(store.pair(std::slice::from_ref(&ef), NOW + 3).await, Ok(vec![true]));
    assert_eq!(store.rated_match(ef.match_id).await, Ok(None));
}

async fn pair_race_puts_no_ticket_in_two_pairings(store: Store) {
    let q = queue("gops", false);
    let mut tickets = Vec::new();
    for _ in 0..12 {
        tickets.push(waiting_ticket(&store, &q).await);
    }
    // 50 tasks, each pairing overlapping pairs of the same twelve tickets.
    let mut tasks = tokio::task::JoinSet::new();
    for task in 0..50usize {
        let store = store.clone();
        let pairings: Vec<Pairing> = (0..3)
            .map(|k| {
                let i = (task * 7 + k * 5) % tickets.len();
                let j = (i + 1 + (task + k) % (tickets.len() - 1)) % tickets.len();
                pairing(&tickets[i], &tickets[j], NOW + 1)
            })
            .collect();
        tasks.spawn(async move {
            let made = store.pair(&pairings, NOW + 1).await.expect("pair");
            pairings.into_iter().zip(made).filter(|(_, m)| *m).map(|(p, _)| p).collect::<Vec<_>>()
        });
    }
    let mut made = Vec::new();
    while let Some(joined) = tasks.join_next().await {
        made.extend(joined.expect("task"));
    }
    assert!(!made.is_empty());
    let mut seen = BTreeSet::new();
    for p in &made {
        for (seat, id) in Seat::BOTH.into_iter().zip(p.tickets) {
            assert!(seen.insert(id), "ticket {id} is in two pairings");
            assert_eq!(state_of(&store, id).await, paired(p, seat));
        }
    }
    let pending = store.pending_pairings().await.expect("pending");
    assert_eq!(
        sorted(pending.iter().map(|p| p.match_id).collect()),
        sorted(made.iter().map(|p| p.match_id).collect())
    );
    // Every ticket left out is still waiting.
    let waiting = store.waiting(&q).await.expect("waiting");
    assert_eq!(waiting.len() + seen.len(), tickets.len());
}

async fn accept_seek_forgets_old_ended_tickets_as_create_does(store: Store) {
    let p = PlayerId::random();
    let q = queue("gops", false);
    let live = created(&store, ticket_at(p, &queue("duel", false), false, "live", NOW)).await;
    let mut ended = Vec::new();
    for i in 1..=50 {
        let t = created(&store, ticket_at(p, &q, false, &format!("k{i}"), NOW + i)).await;
        let cancelled = store.cancel_ticket(t.id, p, NOW + 100).await.expect("cancel");
        ended.push(cancelled.expect("mine"));
    }
    // 51 listed now: accepting a seek lists a 52nd and forgets the two oldest that ended.
    let seek = created(&store, ticket_at(PlayerId::random(), &q, true, "s", NOW + 200)).await;
    let accepter = ticket_at(p, &q, false, "accept", NOW + 201);
    let pairing = pairing(&seek, &accepter, NOW + 202);
    assert_eq!(
        store.accept_seek(seek.id, &accepter, &pairing).await,
        Ok(SeekAccepted::Paired(pairing.clone()))
    );
    let stored = store.ticket(accepter.id).await.expect("ticket").expect("stored");
    let mut expected = vec![stored];
    expected.extend(ended[2..].iter().rev().cloned());
    expected.push(live);
    assert_eq!(store.tickets_of(p).await, Ok(expected));
    assert_eq!(store.ticket(ended[1].id).await, Ok(None));
    // Its key is forgotten too: it makes a new ticket.
    assert!(matches!(
        store.create_ticket(&ticket_at(p, &queue("duel", true), false, "k2", NOW + 300)).await,
        Ok(TicketCreated::Created(_))
    ));
}

async fn accept_seek_outcomes(store: Store) {
    let q = queue("gops", false);
    let seek = created(&store, ticket_at(PlayerId::random(), &q, true, "s", NOW)).await;
    let accepter = ticket_at(PlayerId::random(), &q, false, "accept-1", NOW + 1);
    let p = pairing(&seek, &accepter, NOW + 2);
    assert_eq!(
        store.accept_seek(seek.id, &accepter, &p).await,
        Ok(SeekAccepted::Paired(p.clone()))
    );
    assert_eq!(state_of(&store, seek.id).await, paired(&p, Seat::ZERO));
    let stored = store.ticket(accepter.id).await.expect("ticket").expect("stored");
    assert_eq!(
        stored,
        Ticket { state: paired(&p, Seat::ONE), changed_ms: NOW + 2, ..accepter.clone() }
    );
    assert_eq!(store.seeks(None, 10).await, Ok(Vec::new()));
    assert_eq!(store.pending_pairings().await, Ok(vec![p.clone()]));
    assert_eq!(store.tickets_of(accepter.player).await, Ok(vec![stored.clone()]));

    // A retry with the same key: the accepter's ticket as it is.
    let retry = Ticket { id: TicketId::random(), ..accepter.clone() };
    let retried =
        Pairing { match_id: MatchId::random(), tickets: [seek.id, retry.id], ..p.clone() };
    assert_eq!(
        store.accept_seek(seek.id, &retry, &retried).await,
        Ok(SeekAccepted::Duplicate(stored))
    );
    // Another player is too late: the seek as it is now.
    let late = ticket_at(PlayerId::random(), &q, false, "accept-2", NOW + 3);
    let late_pairing = pairing(&seek, &late, NOW + 3);
    let taken = store.ticket(seek.id).await.expect("ticket").expect("stored");
    assert_eq!(
        store.accept_seek(seek.id, &late, &late_pairing).await,
        Ok(SeekAccepted::Gone(Some(taken)))
    );
    assert_eq!(store.ticket(late.id).await, Ok(None));
    // No seek at all, or a queued ticket, is gone too.
    let unknown = Ticket { id: TicketId::random(), ..seek.clone() };
    assert_eq!(
        store.accept_seek(unknown.id, &late, &pairing(&unknown, &late, NOW + 3)).await,
        Ok(SeekAccepted::Gone(None))
    );
    let queued = waiting_ticket(&store, &q).await;
    assert_eq!(
        store.accept_seek(queued.id, &late, &pairing(&queued, &late, NOW + 3)).await,
        Ok(SeekAccepted::Gone(Some(queued.clone())))
    );
    // An expired seek (at the pairing's time) is gone.
    let old = created(&store, ticket_at(PlayerId::random(), &q, true, "s", NOW)).await;
    let expired_pairing = pairing(&old, &late, old.expires_ms);
    assert_eq!(
        store.accept_seek(old.id, &late, &expired_pairing).await,
        Ok(SeekAccepted::Gone(Some(old.clone())))
    );
    assert_eq!(store.ticket(late.id).await, Ok(None));
    // An accepter already waiting in the seek's queue keeps that one ticket: refused.
    let fresh = created(&store, ticket_at(PlayerId::random(), &q, true, "s2", NOW)).await;
    let busy = created(&store, ticket_at(PlayerId::random(), &q, false, "busy-1", NOW)).await;
    let second = ticket_at(busy.player, &q, false, "busy-2", NOW + 1);
    assert_eq!(
        store.accept_seek(fresh.id, &second, &pairing(&fresh, &second, NOW + 2)).await,
        Ok(SeekAccepted::LiveInQueue(busy.clone()))
    );
    assert_eq!(store.ticket(second.id).await, Ok(None));
    assert_eq!(state_of(&store, fresh.id).await, TicketState::Waiting);
    // A pairing that does not seat the two is refused outright.
    let stray = Pairing { tickets: [old.id, TicketId::random()], ..pairing(&old, &late, NOW + 3) };
    assert!(matches!(
        store.accept_seek(old.id, &late, &stray).await,
        Err(StoreError::InvalidArgument(_))
    ));
    // A rated seek records its match.
    let rated = queue("gops", true);
    let rs = created(&store, ticket_at(PlayerId::random(), &rated, true, "s", NOW)).await;
    let ra = ticket_at(PlayerId::random(), &rated, false, "r", NOW + 1);
    let rp = pairing(&ra, &rs, NOW + 1);
    assert_eq!(store.accept_seek(rs.id, &ra, &rp).await, Ok(SeekAccepted::Paired(rp.clone())));
    assert_eq!(state_of(&store, rs.id).await, paired(&rp, Seat::ONE));
    assert_eq!(
        store.rated_match(rp.match_id).await,
        Ok(Some(RatedMatch { game: "gops".into(), players: [ra.player, rs.player] }))
    );
}

async fn assign_is_idempotent(store: Store) {
    let q = queue("gops", false);
    let [a, b] = [waiting_ticket(&store, &q).await, waiting_ticket(&store, &q).await];
    let p = pairing(&a, &b, NOW + 1);
    assert_eq!(store.pair(std::slice::from_ref(&p), NOW + 1).await, Ok(vec![true]));
    assert_eq!(store.assign(p.match_id, NOW + 2).await, Ok(true));
    let assigned = |seat| TicketState::Assigned { match_id: p.match_id, seat };
    for (t, seat) in [(&a, Seat::ZERO), (&b, Seat::ONE)] {
        let now = store.ticket(t.id).await.expect("ticket").expect("stored");
        assert_eq!((now.state, now.changed_ms), (assigned(seat), NOW + 2));
    }
    assert_eq!(store.pending_pairings().await, Ok(Vec::new()));
    // Again: no longer pending, nothing changes.
    assert_eq!(store.assign(p.match_id, NOW + 3).await, Ok(false));
    let again = store.ticket(a.id).await.expect("ticket").expect("stored");
    assert_eq!((again.state, again.changed_ms), (assigned(Seat::ZERO), NOW + 2));
    assert_eq!(store.assign(MatchId::random(), NOW + 3).await, Ok(false));
    assert_eq!(store.unpair(p.match_id, NOW + 3).await, Ok(false));
    // Assigned is final: the player may queue again.
    created(&store, ticket(a.player, &q, "next")).await;
}

async fn unpair_puts_both_back(store: Store) {
    let q = queue("gops", true);
    let [a, b] = [waiting_ticket(&store, &q).await, waiting_ticket(&store, &q).await];
    let p = pairing(&a, &b, NOW + 1);
    assert_eq!(store.pair(std::slice::from_ref(&p), NOW + 1).await, Ok(vec![true]));
    assert_eq!(store.unpair(p.match_id, NOW + 2).await, Ok(true));
    for t in [&a, &b] {
        let now = store.ticket(t.id).await.expect("ticket").expect("stored");
        assert_eq!((now.state, now.changed_ms), (TicketState::Waiting, NOW + 2));
    }
    assert_eq!(sorted(ids(&store.waiting(&q).await.expect("waiting"))), sorted(vec![a.id, b.id]));
    assert_eq!(store.waiting_queues().await, Ok(vec![q.clone()]));
    assert_eq!(store.pending_pairings().await, Ok(Vec::new()));
    // The match will not be made: nothing to rate.
    assert_eq!(store.rated_match(p.match_id).await, Ok(None));
    assert_eq!(store.unrated_matches().await, Ok(Vec::new()));
    assert_eq!(store.unpair(p.match_id, NOW + 3).await, Ok(false));
    assert_eq!(store.assign(p.match_id, NOW + 3).await, Ok(false));
    // They may be paired again.
    let again = pairing(&b, &a, NOW + 4);
    assert_eq!(store.pair(&[again], NOW + 4).await, Ok(vec![true]));

    // An accepted seek is listed again.
    let casual = queue("gops", false);
    let seek = created(&store, ticket_at(PlayerId::random(), &casual, true, "s", NOW)).await;
    let accepter = ticket_at(PlayerId::random(), &casual, false, "a", NOW + 1);
    let sp = pairing(&seek, &accepter, NOW + 1);
    assert_eq!(
        store.accept_seek(seek.id, &accepter, &sp).await,
        Ok(SeekAccepted::Paired(sp.clone()))
    );
    assert_eq!(store.seeks(None, 10).await, Ok(Vec::new()));
    assert_eq!(store.unpair(sp.match_id, NOW + 5).await, Ok(true));
    let listed = store.seeks(None, 10).await.expect("seeks");
    assert_eq!(listed, vec![Ticket { changed_ms: NOW + 5, ..seek.clone() }]);
    assert_eq!(
        store.waiting(&casual).await.expect("waiting"),
        vec![Ticket { changed_ms: NOW + 5, ..accepter }]
    );
}

async fn expire_only_due_waiting_tickets(store: Store) {
    let q = queue("gops", false);
    let early = created(&store, ticket_at(PlayerId::random(), &q, false, "k", NOW)).await;
    let later = created(&store, ticket_at(PlayerId::random(), &q, false, "k", NOW + 100)).await;
    let seek = created(&store, ticket_at(PlayerId::random(), &q, true, "k", NOW)).await;
    let [c, d] = [
        created(&store, ticket_at(PlayerId::random(), &q, false, "k", NOW)).await,
        created(&store, ticket_at(PlayerId::random(), &q, false, "k", NOW)).await,
    ];
    let p = pairing(&c, &d, NOW + 1);
    assert_eq!(store.pair(&[p], NOW + 1).await, Ok(vec![true]));
    assert_eq!(store.expire(&[], NOW + TTL).await, Ok(Vec::new()));
    // Due at `expires_ms`: the early one and the seek, not the later one nor the paired.
    let all = [early.id, later.id, seek.id, c.id, TicketId::random(), early.id];
    let expired = store.expire(&all, NOW + TTL).await.expect("expire");
    let gone =
        |t: &Ticket| Ticket { state: TicketState::Expired, changed_ms: NOW + TTL, ..t.clone() };
    assert_eq!(expired, vec![gone(&early), gone(&seek)]);
    assert_eq!(store.ticket(early.id).await, Ok(Some(gone(&early))));
    assert_eq!(store.waiting(&q).await, Ok(vec![later.clone()]));
    assert_eq!(store.seeks(None, 10).await, Ok(Vec::new()));
    assert!(matches!(state_of(&store, c.id).await, TicketState::Pairing { .. }));
    // Final: not cancelled, not paired; the player may queue again.
    assert_eq!(
        store.cancel_ticket(early.id, early.player, NOW + TTL).await,
        Ok(Some(gone(&early)))
    );
    created(&store, ticket(early.player, &q, "again")).await;
}

/// The players the feed names over the next `n` notifications (each within seconds).
async fn next_players(feed: &mut TicketFeed, n: usize) -> Vec<PlayerId> {
    let mut got = Vec::new();
    for _ in 0..n {
        let player = tokio::time::timeout(Duration::from_secs(5), feed.next())
            .await
            .expect("a notification in time")
            .expect("the feed is open");
        got.push(player);
    }
    got
}

/// Whether `feed` stays quiet for a moment.
async fn quiet(feed: &mut TicketFeed) -> bool {
    tokio::time::timeout(Duration::from_millis(300), feed.next()).await.is_err()
}

async fn the_ticket_feed_announces_the_players_of_each_change(store: Store) {
    let mut feed = store.ticket_feed().await.expect("subscribe");
    let q = queue("gops", false);
    let a = waiting_ticket(&store, &q).await;
    assert_eq!(next_players(&mut feed, 1).await, vec![a.player]);
    let b = waiting_ticket(&store, &q).await;
    assert_eq!(next_players(&mut feed, 1).await, vec![b.player]);
    // Refused: nothing to announce.
    let again = store.create_ticket(&ticket(a.player, &q, "k")).await.expect("duplicate");
    assert!(matches!(&again, TicketCreated::Duplicate(t) if t.id == a.id), "{again:?}");
    assert_eq!(store.cancel_ticket(a.id, b.player, NOW).await, Ok(None));
    assert!(quiet(&mut feed).await);
    // PAIRING is not pushed: ASSIGNED, or WAITING again, follows it.
    let p = pairing(&a, &b, NOW + 1);
    assert_eq!(store.pair(std::slice::from_ref(&p), NOW + 1).await, Ok(vec![true]));
    assert!(quiet(&mut feed).await);
    assert_eq!(store.unpair(p.match_id, NOW + 2).await, Ok(true));
    assert_eq!(sorted(next_players(&mut feed, 2).await), sorted(vec![a.player, b.player]));
    assert_eq!(store.pair(std::slice::from_ref(&p), NOW + 3).await, Ok(vec![true]));
    assert!(quiet(&mut feed).await);
    assert_eq!(store.assign(p.match_id, NOW + 4).await, Ok(true));
    assert_eq!(sorted(next_players(&mut feed, 2).await), sorted(vec![a.player, b.player]));
    let c = waiting_ticket(&store, &q).await;
    assert_eq!(next_players(&mut feed, 1).await, vec![c.player]);
    store.cancel_ticket(c.id, c.player, NOW + 5).await.expect("cancel");
    assert_eq!(next_players(&mut feed, 1).await, vec![c.player]);
    let d = waiting_ticket(&store, &q).await;
    assert_eq!(next_players(&mut feed, 1).await, vec![d.player]);
    assert_eq!(store.expire(&[d.id], NOW + TTL).await.expect("expire").len(), 1);
    assert_eq!(next_players(&mut feed, 1).await, vec![d.player]);
    let seek = created(&store, ticket_at(PlayerId::random(), &q, true, "s", NOW)).await;
    assert_eq!(next_players(&mut feed, 1).await, vec![seek.player]);
    let accepter = ticket_at(PlayerId::random(), &q, false, "a", NOW);
    let sp = pairing(&seek, &accepter, NOW + 6);
    assert_eq!(
        store.accept_seek(seek.id, &accepter, &sp).await,
        Ok(SeekAccepted::Paired(sp.clone()))
    );
    assert!(quiet(&mut feed).await, "both pairing: not pushed");
    assert_eq!(store.assign(sp.match_id, NOW + 7).await, Ok(true));
    assert_eq!(
        sorted(next_players(&mut feed, 2).await),
        sorted(vec![seek.player, accepter.player])
    );
    assert!(quiet(&mut feed).await);
}

async fn leases(store: Store) {
    assert_eq!(store.lease("pairing", "mm-1", 10_000).await, Ok(true));
    assert_eq!(store.lease("pairing", "mm-2", 10_000).await, Ok(false), "one holder");
    assert_eq!(store.lease("pairing", "mm-1", 10_000).await, Ok(true), "renewed");
    assert_eq!(store.lease("ratings", "mm-2", 10_000).await, Ok(true), "another lease");
    // A lease that runs out is taken over.
    assert_eq!(store.lease("short", "mm-1", 200).await, Ok(true));
    assert_eq!(store.lease("short", "mm-2", 200).await, Ok(false));
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(store.lease("short", "mm-2", 10_000).await, Ok(true));
    assert_eq!(store.lease("short", "mm-1", 10_000).await, Ok(false));
}

// ---------------------------------------------------------------------------------------
// Ratings and leaderboards

async fn record_result_outcomes(store: Store) {
    let (p, q) = (PlayerId::random(), PlayerId::random());
    // No rated pairing made it: nothing to rate.
    let unknown = MatchId::random();
    let never = [update(p, 0, 1_600.0, None, unknown), update(q, 0, 1_400.0, None, unknown)];
    assert_eq!(store.record_result(unknown, "gops", &never).await, Ok(Recorded::AlreadyApplied));
    let m1 = rated_pairing(&store, p, q).await;
    assert_eq!(store.rating("gops", p).await, Ok(None));
    let first = [
        update(p, 0, 1_662.312_345_678_901_2, Some(Board::Provisional), m1),
        update(q, 0, 1_337.687_654_321_098_7, None, m1),
    ];
    assert_eq!(store.record_result(m1, "gops", &first).await, Ok(Recorded::Applied));
    assert_eq!(store.rating("gops", p).await, Ok(Some(first[0].after)));
    assert_eq!(store.rating("gops", q).await, Ok(Some(first[1].after)));
    assert_eq!(store.rating("duel", p).await, Ok(None), "per game");
    assert_eq!(
        store.leaderboard("gops", Board::Provisional, 0, 10).await,
        Ok((vec![(p, first[0].after.rating)], 1))
    );
    assert_eq!(store.rank("gops", Board::Rated, q).await, Ok(None));
    assert_eq!(store.history("gops", p, 10).await, Ok(vec![first[0].change.clone()]));

    // Replayed: nothing changes, even with other numbers.
    let replay = [update(p, 1, 2_000.0, Some(Board::Rated), m1), update(q, 1, 1.0, None, m1)];
    assert_eq!(store.record_result(m1, "gops", &replay).await, Ok(Recorded::AlreadyApplied));
    assert_eq!(store.rating("gops", p).await, Ok(Some(first[0].after)));
    assert_eq!(store.history("gops", p, 10).await.expect("history").len(), 1);

    // Computed from an old games count: stale, nothing changes (not even the other's).
    let m2 = rated_pairing(&store, q, p).await;
    let stale = [update(q, 1, 1_400.0, None, m2), update(p, 0, 1_700.0, Some(Board::Rated), m2)];
    assert_eq!(store.record_result(m2, "gops", &stale).await, Ok(Recorded::Stale));
    assert_eq!(store.rating("gops", q).await, Ok(Some(first[1].after)));
    assert_eq!(store.rank("gops", Board::Rated, p).await, Ok(None));

    // Recomputed: applied; `p` moves from provisional to rated, newest line first.
    let second = [update(q, 1, 1_400.0, None, m2), update(p, 1, 1_700.0, Some(Board::Rated), m2)];
    assert_eq!(store.record_result(m2, "gops", &second).await, Ok(Recorded::Applied));
    assert_eq!(store.rank("gops", Board::Rated, p).await, Ok(Some(0)));
    assert_eq!(store.rank("gops", Board::Provisional, p).await, Ok(None));
    assert_eq!(store.leaderboard("gops", Board::Provisional, 0, 10).await, Ok((Vec::new(), 0)));
    assert_eq!(
        store.history("gops", p, 10).await,
        Ok(vec![second[1].change.clone(), first[0].change.clone()])
    );
    assert_eq!(store.history("gops", p, 1).await, Ok(vec![second[1].change.clone()]));
    assert_eq!(store.history("gops", p, 0).await, Ok(Vec::new()));
    assert_eq!(store.history("gops", PlayerId::random(), 10).await, Ok(Vec::new()));
}

async fn history_keeps_the_newest_hundred(store: Store) {
    let (p, q) = (PlayerId::random(), PlayerId::random());
    let mut matches = Vec::new();
    for games in 0..105 {
        let m = rated_pairing(&store, p, q).await;
        let updates = [update(p, games, 1_500.5, None, m), update(q, games, 1_499.5, None, m)];
        assert_eq!(store.record_result(m, "gops", &updates).await, Ok(Recorded::Applied));
        matches.push(m);
    }
    let lines = store.history("gops", p, 500).await.expect("history");
    let newest: Vec<MatchId> = matches.iter().rev().take(100).copied().collect();
    assert_eq!(lines.iter().map(|l| l.match_id).collect::<Vec<_>>(), newest);
    assert_eq!(store.rating("gops", p).await.expect("rating").expect("rated").games, 105);
}

async fn place_leaderboard_and_rank(store: Store) {
    let mut players: Vec<PlayerId> = (0..5).map(|_| PlayerId::random()).collect();
    players.sort();
    let [p0, p1, p2, p3, p4] = [players[0], players[1], players[2], players[3], players[4]];
    assert_eq!(store.leaderboard("gops", Board::Rated, 0, 10).await, Ok((Vec::new(), 0)));
    for (p, score) in [(p0, 1_500.0), (p1, 1_800.25), (p2, 1_500.0), (p3, 1_200.123_456_789_012_3)]
    {
        store.place("gops", p, Some(Board::Rated), score).await.expect("place");
    }
    store.place("gops", p4, Some(Board::Bots), 2_400.0).await.expect("place");
    // Best first; equal ratings by player id, descending.
    let all = vec![(p1, 1_800.25), (p2, 1_500.0), (p0, 1_500.0), (p3, 1_200.123_456_789_012_3)];
    assert_eq!(store.leaderboard("gops", Board::Rated, 0, 10).await, Ok((all.clone(), 4)));
    assert_eq!(store.leaderboard("gops", Board::Rated, 1, 2).await, Ok((all[1..3].to_vec(), 4)));
    assert_eq!(store.leaderboard("gops", Board::Rated, 3, 5).await, Ok((all[3..].to_vec(), 4)));
    assert_eq!(store.leaderboard("gops", Board::Rated, 9, 5).await, Ok((Vec::new(), 4)));
    assert_eq!(store.leaderboard("gops", Board::Rated, 0, 0).await, Ok((Vec::new(), 4)));
    assert_eq!(store.leaderboard("gops", Board::Bots, 0, 10).await, Ok((vec![(p4, 2_400.0)], 1)));
    assert_eq!(store.leaderboard("duel", Board::Rated, 0, 10).await, Ok((Vec::new(), 0)));
    assert_eq!(store.rank("gops", Board::Rated, p1).await, Ok(Some(0)));
    assert_eq!(store.rank("gops", Board::Rated, p0).await, Ok(Some(2)));
    assert_eq!(store.rank("gops", Board::Rated, p4).await, Ok(None));
    // Moved to another board: off the first. On none: off every board.
    store.place("gops", p1, Some(Board::Provisional), 1_900.0).await.expect("place");
    assert_eq!(store.rank("gops", Board::Rated, p1).await, Ok(None));
    assert_eq!(store.rank("gops", Board::Provisional, p1).await, Ok(Some(0)));
    store.place("gops", p1, None, 0.0).await.expect("place");
    assert_eq!(store.rank("gops", Board::Provisional, p1).await, Ok(None));
    assert_eq!(store.leaderboard("gops", Board::Rated, 0, 10).await.expect("board").1, 3);
    assert!(matches!(
        store.place("gops", p1, Some(Board::Rated), f64::NAN).await,
        Err(StoreError::InvalidArgument(_))
    ));
}

async fn unrated_matches_until_recorded(store: Store) {
    assert_eq!(store.unrated_matches().await, Ok(Vec::new()));
    let (rated, casual) = (queue("gops", true), queue("gops", false));
    let [a, b] = [waiting_ticket(&store, &rated).await, waiting_ticket(&store, &rated).await];
    let [c, d] = [waiting_ticket(&store, &casual).await, waiting_ticket(&store, &casual).await];
    let (p, cp) = (pairing(&a, &b, NOW + 1), pairing(&c, &d, NOW + 1));
    assert_eq!(store.pair(&[p.clone(), cp], NOW + 1).await, Ok(vec![true, true]));
    let rated_match = RatedMatch { game: "gops".into(), players: [a.player, b.player] };
    assert_eq!(store.unrated_matches().await, Ok(vec![(p.match_id, rated_match.clone())]));
    assert_eq!(store.assign(p.match_id, NOW + 2).await, Ok(true));
    assert_eq!(store.unrated_matches().await, Ok(vec![(p.match_id, rated_match.clone())]));
    let updates = [
        update(a.player, 0, 1_600.0, None, p.match_id),
        update(b.player, 0, 1_400.0, None, p.match_id),
    ];
    assert_eq!(store.record_result(p.match_id, "gops", &updates).await, Ok(Recorded::Applied));
    assert_eq!(store.unrated_matches().await, Ok(Vec::new()));
    // Rated: forgotten, so a repeated announcement finds nothing to rate, and a replayed
    // result changes nothing.
    assert_eq!(store.rated_match(p.match_id).await, Ok(None));
    assert_eq!(
        store.record_result(p.match_id, "gops", &updates).await,
        Ok(Recorded::AlreadyApplied)
    );
    assert_eq!(store.rating("gops", a.player).await.expect("rating").expect("rated").games, 1);
}

// ---------------------------------------------------------------------------------------
// The lifecycle stream

fn finished_of(deliveries: &[Delivery]) -> Vec<Finished> {
    deliveries.iter().map(|d| d.finished.clone().expect("decoded")).collect()
}

fn delivery_ids(deliveries: &[Delivery]) -> Vec<String> {
    deliveries.iter().map(|d| d.id.clone()).collect()
}

async fn the_lifecycle_drops_what_every_group_has_acknowledged(store: Store) {
    const READERS: &[&str] = &["ratings", "archive"];
    // No group yet: nothing is anyone's to drop (nor is there a stream).
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(0));
    let all: Vec<Finished> = (0..5).map(finished).collect();
    for f in &all {
        store.announce_finished(f).await.expect("announce");
    }
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(0), "no group has read anything");
    let a = store.lifecycle_read("ratings", "r1", 3, 0).await.expect("read");
    store.lifecycle_ack("ratings", &delivery_ids(&a)).await.expect("ack");
    // The ratings have read and acknowledged three; the archive has no group yet, so it
    // has read nothing: nothing is dropped (the first entries once went so, unread).
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(0));
    let b = store.lifecycle_read("archive", "a1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&b), all, "a group made late still reads from the start");
    // The archive has read all five but acknowledged none: nothing is dropped.
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(0));
    store.lifecycle_ack("archive", &delivery_ids(&b[..1])).await.expect("ack");
    store.lifecycle_ack("archive", &delivery_ids(&b[2..])).await.expect("ack");
    // The first is everyone's: dropped. The second is still pending for the archive.
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(1));
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(0));
    tokio::time::sleep(Duration::from_millis(150)).await;
    let owed = store.lifecycle_claim("archive", "a2", 100, 10).await.expect("claim");
    assert_eq!(finished_of(&owed), all[1..2], "what a group owes stays");
    store.lifecycle_ack("archive", &delivery_ids(&owed)).await.expect("ack");
    // Now the ratings' unread entries (3, 4) hold the floor.
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(2));
    let rest = store.lifecycle_read("ratings", "r1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&rest), all[3..], "an entry a group has not read stays");
    store.lifecycle_ack("ratings", &delivery_ids(&rest)).await.expect("ack");
    assert_eq!(store.trim_lifecycle(READERS).await, Ok(2));
    // A group made after the trim reads from what is left (nothing).
    assert_eq!(store.lifecycle_read("late", "l1", 10, 0).await, Ok(Vec::new()));
}

async fn lifecycle_groups_read_claim_and_ack(store: Store) {
    // Nothing yet: a group made now still reads what is announced later, from the start.
    assert_eq!(store.lifecycle_read("ratings", "r1", 10, 0).await, Ok(Vec::new()));
    assert_eq!(store.lifecycle_claim("nobody", "x", 0, 10).await, Ok(Vec::new()));
    let all: Vec<Finished> = (0..3).map(finished).collect();
    for f in &all {
        store.announce_finished(f).await.expect("announce");
    }
    let first = store.lifecycle_read("ratings", "r1", 2, 0).await.expect("read");
    assert_eq!(finished_of(&first), all[..2]);
    let rest = store.lifecycle_read("ratings", "r1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&rest), all[2..]);
    assert_eq!(
        store.lifecycle_read("ratings", "r2", 10, 0).await,
        Ok(Vec::new()),
        "once per group"
    );
    // A second group, made later, sees every entry from the stream's start.
    let other = store.lifecycle_read("tournaments", "t1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&other), all);

    // r1 acknowledges only its first delivery; the others stay pending.
    store.lifecycle_ack("ratings", &delivery_ids(&first[..1])).await.expect("ack");
    assert_eq!(
        store.lifecycle_claim("ratings", "r2", 60_000, 10).await,
        Ok(Vec::new()),
        "not idle yet"
    );
    tokio::time::sleep(Duration::from_millis(150)).await;
    let claimed = store.lifecycle_claim("ratings", "r2", 100, 10).await.expect("claim");
    assert_eq!(finished_of(&claimed), all[1..]);
    assert_eq!(delivery_ids(&claimed), [delivery_ids(&first[1..]), delivery_ids(&rest)].concat());
    // Claimed just now: idle again only later.
    assert_eq!(store.lifecycle_claim("ratings", "r3", 100, 10).await, Ok(Vec::new()));
    store.lifecycle_ack("ratings", &delivery_ids(&claimed)).await.expect("ack");
    store.lifecycle_ack("ratings", &[]).await.expect("nothing to ack");
    store.lifecycle_ack("nobody", &delivery_ids(&claimed)).await.expect("no such group");
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_eq!(
        store.lifecycle_claim("ratings", "r3", 0, 10).await,
        Ok(Vec::new()),
        "all acknowledged"
    );
    // The other group's entries are still its own to acknowledge.
    assert_eq!(
        finished_of(&store.lifecycle_claim("tournaments", "t2", 0, 1).await.expect("claim")),
        all[..1]
    );
}

/// A new GOPS match (open seats) at version 0.
async fn new_match(store: &Store) -> MatchId {
    let id = MatchId::random();
    let meta = store::MatchMeta {
        game: "gops".into(),
        options_json: String::new(),
        commitment_hex: "00".repeat(32),
        seats: rules_core::PerSeat([store::SeatHolder::Open, store::SeatHolder::Open]),
        move_time_ms: 30_000,
        created_at_ms: NOW,
        listed: true,
    };
    let secret = store::MatchSecret { seed_hex: "ab".repeat(16) };
    store.create_match(id, &meta, &secret, &step(0), None).await.expect("create");
    id
}

/// The entry of step `version`.
fn step(version: u64) -> store::Entry {
    store::Entry {
        version,
        step_json: if version == 0 { "{}".into() } else { r#"{"resign":0}"#.into() },
        idempotency_key: None,
        events: Vec::new(),
        views: Vec::new(),
        traceparent: None,
        at_ms: NOW + version,
        tag: version + 1,
    }
}

async fn a_final_step_leaves_its_announcement_owed_until_made(store: Store) {
    // A final step stored, its engine gone before announcing it: owed.
    let (id, other) = (new_match(&store).await, new_match(&store).await);
    let f = Finished { match_id: id, ..finished(1) };
    let appended = store.append_final(id, &step(1), &f).await;
    assert_eq!(appended, Ok(store::AppendOutcome::Appended { version: 1 }));
    assert_eq!(store.deadline(id).await, Ok(None), "the final step clears the deadline");
    // Not yet due: the engine may still be announcing it.
    assert_eq!(store.repair_announcements(f.at_ms - 1, 10).await, Ok(0));
    assert_eq!(store.lifecycle_read("ratings", "r1", 10, 0).await, Ok(Vec::new()));
    // Due: announced once, then no longer owed.
    assert_eq!(store.repair_announcements(f.at_ms, 10).await, Ok(1));
    assert_eq!(store.repair_announcements(u64::MAX, 10).await, Ok(0));
    let read = store.lifecycle_read("ratings", "r1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&read), vec![f]);

    // Announced by its engine: nothing owed, nothing announced twice.
    let g = Finished { match_id: other, ..finished(2) };
    store.append_final(other, &step(1), &g).await.expect("append");
    store.announce_finished(&g).await.expect("announce");
    assert_eq!(store.repair_announcements(u64::MAX, 10).await, Ok(0));
    let read = store.lifecycle_read("ratings", "r1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&read), vec![g]);

    // Many owed: at most `limit` a call, oldest first.
    let mut owed = Vec::new();
    for n in 0..5 {
        let id = new_match(&store).await;
        let f = Finished { match_id: id, ..finished(10 + n) };
        store.append_final(id, &step(1), &f).await.expect("append");
        owed.push(f);
    }
    assert_eq!(store.repair_announcements(u64::MAX, 0).await, Ok(0));
    assert_eq!(store.repair_announcements(u64::MAX, 2).await, Ok(2));
    assert_eq!(store.repair_announcements(u64::MAX, 10).await, Ok(3));
    let read = store.lifecycle_read("ratings", "r1", 10, 0).await.expect("read");
    assert_eq!(finished_of(&read), owed);
}

async fn an_owed_announcement_without_its_final_step_is_dropped(store: Store) {
    let id = new_match(&store).await;
    // Refused (not the next version): nothing stored, nothing owed.
    let f = Finished { match_id: id, ..finished(1) };
    assert_eq!(
        store.append_final(id, &step(2), &f).await,
        Ok(store::AppendOutcome::Conflict { current_version: 0 })
    );
    assert_eq!(store.repair_announcements(u64::MAX, 10).await, Ok(0));
    assert_eq!(store.lifecycle_read("ratings", "r1", 10, 0).await, Ok(Vec::new()));
    // An unknown match: refused as an append is.
    let unknown = MatchId::random();
    let u = Finished { match_id: unknown, ..finished(2) };
    assert_eq!(store.append_final(unknown, &step(1), &u).await, Err(StoreError::NotFound(unknown)));
    assert_eq!(store.repair_announcements(u64::MAX, 10).await, Ok(0));
}

async fn lifecycle_read_waits_for_an_entry(store: Store) {
    // Nothing comes: an empty answer after about `block_ms`.
    let started = tokio::time::Instant::now();
    assert_eq!(store.lifecycle_read("ratings", "r1", 10, 200).await, Ok(Vec::new()));
    assert!(started.elapsed() >= Duration::from_millis(150), "{:?}", started.elapsed());
    // An entry announced while a reader waits wakes it.
    let reader = {
        let store = store.clone();
        tokio::spawn(async move { store.lifecycle_read("ratings", "r1", 10, 5_000).await })
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let f = finished(7);
    store.announce_finished(&f).await.expect("announce");
    let read = tokio::time::timeout(Duration::from_secs(3), reader)
        .await
        .expect("woken before its time ran out")
        .expect("task")
        .expect("read");
    assert_eq!(finished_of(&read), vec![f]);
}

async fn a_blocking_read_stalls_nothing_else(store: Store) {
    let reader = {
        let store = store.clone();
        tokio::spawn(async move { store.lifecycle_read("ratings", "r1", 10, 3_000).await })
    };
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Meanwhile other calls answer at once.
    let started = tokio::time::Instant::now();
    for _ in 0..5 {
        store.ping().await.expect("ping");
        store.lease("x", "me", 1_000).await.expect("lease");
    }
    assert!(started.elapsed() < Duration::from_secs(1), "{:?}", started.elapsed());
    assert_eq!(reader.await.expect("task"), Ok(Vec::new()));
}

// ---------------------------------------------------------------------------------------
// Redis only

/// A plain connection for inspecting the server behind the store's back.
async fn inspect(server: &RedisServer) -> redis::aio::MultiplexedConnection {
    let client = redis::Client::open(server.url()).expect("url");
    client.get_multiplexed_async_connection().await.expect("connect")
}

#[tokio::test]
async fn redis_keeps_the_lobby_under_one_hash_tag() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
    let ada = account("ada@example.com");
    store.register(&ada).await.expect("register");
    store.rate_limit("b", 60_000, 1).await.expect("rate limit");
    store.lease("l", "me", 60_000).await.expect("lease");
    let q = queue("gops", true);
    let [a, b] = [waiting_ticket(store, &q).await, waiting_ticket(store, &q).await];
    let seek = created(store, ticket_at(PlayerId::random(), &q, true, "s", NOW)).await;
    let c = waiting_ticket(store, &queue("duel", false)).await;
    let p = pairing(&a, &b, NOW + 1);
    store.pair(std::slice::from_ref(&p), NOW + 1).await.expect("pair");
    let updates = [
        update(a.player, 0, 1_600.0, Some(Board::Provisional), p.match_id),
        update(b.player, 0, 1_400.0, None, p.match_id),
    ];
    store.record_result(p.match_id, "gops", &updates).await.expect("record");
    store.announce_finished(&finished(1)).await.expect("announce");

    let mut conn = inspect(server).await;
    let found: Vec<String> =
        sorted(redis::cmd("KEYS").arg("*").query_async(&mut conn).await.expect("KEYS"));
    let mut expected = vec![
        keys::account(ada.player),
        keys::email(&ada.email),
        keys::rate_limit("b"),
        keys::lease("l"),
        keys::TICKETS.to_string(),
        keys::TICKET_STATES.to_string(),
        keys::TICKET_IDEM.to_string(),
        keys::LIVE.to_string(),
        keys::SEEKS.to_string(),
        keys::QUEUES.to_string(),
        keys::waiting(&queue("duel", false).key()),
        keys::PAIRINGS.to_string(),
        // Its only match rated: the rated-matches hash is empty, so gone.
        keys::rating("gops"),
        keys::board("gops", Board::Provisional),
        keys::history("gops", a.player),
        keys::history("gops", b.player),
        keys::LIFECYCLE.to_string(),
    ];
    for t in [&a, &b, &c, &seek] {
        expected.push(keys::player_tickets(t.player));
    }
    assert_eq!(found, sorted(expected));
    // No client text in a name: the email and the options appear only as digests.
    assert!(found.iter().all(|k| !k.contains('@') && !k.contains("cards")), "{found:?}");
    for key in found.iter().filter(|k| k.as_str() != keys::LIFECYCLE) {
        assert!(key.starts_with(keys::LOBBY_PREFIX), "{key}");
    }
    // The ratings are stored exactly as written.
    let stored: String = redis::cmd("HGET")
        .arg(keys::rating("gops"))
        .arg(a.player.to_string())
        .query_async(&mut conn)
        .await
        .expect("HGET");
    assert_eq!(serde_json::from_str::<Rating>(&stored).expect("rating"), updates[0].after);
    drop(fixture);
}

/// A ticket stored before its state had a field of its own (its state in its record, as
/// an older build left it) reads as it was, and its next change writes the state's field.
#[tokio::test]
async fn redis_moves_a_ticket_stored_with_its_state_in_its_record() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
    let mut conn = inspect(server).await;
    let q = queue("gops", false);
    let t = waiting_ticket(store, &q).await;
    let state_of =
        |id: TicketId| redis::cmd("HGET").arg(keys::TICKET_STATES).arg(id.to_string()).clone();
    let before: Option<String> = state_of(t.id).query_async(&mut conn).await.expect("HGET");
    assert_eq!(before, Some(format!("waiting {}", t.changed_ms)));
    let _: i64 = redis::cmd("HDEL")
        .arg(keys::TICKET_STATES)
        .arg(t.id.to_string())
        .query_async(&mut conn)
        .await
        .expect("HDEL");
    assert_eq!(store.ticket(t.id).await, Ok(Some(t.clone())), "read from its record");
    let cancelled = store.cancel_ticket(t.id, t.player, NOW + 1).await.expect("cancel");
    let cancelled = cancelled.expect("the ticket");
    assert_eq!(cancelled.state, TicketState::Cancelled);
    assert_eq!(store.ticket(t.id).await, Ok(Some(cancelled)));
    let after: Option<String> = state_of(t.id).query_async(&mut conn).await.expect("HGET");
    assert_eq!(after, Some(format!("cancelled {}", NOW + 1)));

    // A record kept from a read is not a ticket another process has forgotten since.
    let u = waiting_ticket(store, &q).await;
    assert_eq!(store.ticket(u.id).await, Ok(Some(u.clone())), "read, its record kept");
    for key in [keys::TICKETS, keys::TICKET_STATES] {
        let _: i64 = redis::cmd("HDEL")
            .arg(key)
            .arg(u.id.to_string())
            .query_async(&mut conn)
            .await
            .expect("HDEL");
    }
    assert_eq!(store.ticket(u.id).await, Ok(None), "forgotten behind the kept record");
    drop(fixture);
}

#[tokio::test]
async fn an_undecodable_lifecycle_entry_is_delivered_to_be_acknowledged() {
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
    let mut conn = inspect(server).await;
    let _: String = redis::cmd("XADD")
        .arg(keys::LIFECYCLE)
        .arg("*")
        .arg("f")
        .arg("not json")
        .query_async(&mut conn)
        .await
        .expect("XADD");
    let good = finished(1);
    store.announce_finished(&good).await.expect("announce");
    let read = store.lifecycle_read("ratings", "r1", 10, 0).await.expect("read");
    assert_eq!(read.len(), 2);
    assert_eq!(read[0].finished, None);
    assert_eq!(read[1].finished, Some(good));
    store.lifecycle_ack("ratings", &delivery_ids(&read)).await.expect("ack");
    assert_eq!(store.lifecycle_claim("ratings", "r2", 0, 10).await, Ok(Vec::new()));
    drop(fixture);
}

/// `used_memory` of the server, bytes.
async fn used_memory(conn: &mut redis::aio::MultiplexedConnection) -> u64 {
    let info: String = redis::cmd("INFO").arg("memory").query_async(conn).await.expect("INFO");
    info.lines()
        .find_map(|l| l.strip_prefix("used_memory:"))
        .and_then(|v| v.trim().parse().ok())
        .expect("used_memory in INFO")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rated_bookkeeping_shrinks_back_at_a_million_matches() {
    const LIVE: usize = 1_000_000;
    const RATED: usize = 20_000;
    let fixture = redis_fixture().await;
    let (store, server) = (&fixture.store, fixture.redis.as_ref().expect("redis"));
    let mut conn = inspect(server).await;
    // A million rated matches in play, stored as the pairing script stores them (written
    // here in pipelines: a million pairings through the store would take minutes).
    let (p, q) = (PlayerId::random(), PlayerId::random());
    let rated =
        serde_json::to_string(&RatedMatch { game: "gops".into(), players: [p, q] }).expect("json");
    let ids: Vec<MatchId> = (0..LIVE).map(|_| MatchId::random()).collect();
    for chunk in ids.chunks(10_000) {
        let mut pipe = redis::pipe();
        for id in chunk {
            pipe.cmd("HSET").arg(keys::RATED_MATCHES).arg(id.to_string()).arg(&rated).ignore();
            pipe.cmd("SADD").arg(keys::UNRATED).arg(id.to_string()).ignore();
        }
        let () = pipe.query_async(&mut conn).await.expect("seed");
    }
    let count = |conn: &mut redis::aio::MultiplexedConnection| {
        let mut pipe = redis::pipe();
        pipe.cmd("HLEN").arg(keys::RATED_MATCHES).cmd("SCARD").arg(keys::UNRATED);
        pipe.cmd("EXISTS").arg("colosseum:{lobby}:rated-done");
        let mut conn = conn.clone();
        async move { pipe.query_async::<(usize, usize, usize)>(&mut conn).await.expect("count") }
    };
    assert_eq!(count(&mut conn).await, (LIVE, LIVE, 0));
    let before = used_memory(&mut conn).await;

    // Some finish and are rated, as the ratings consumer rates them.
    for (games, &m) in ids[..RATED].iter().enumerate() {
        let games = games as u64;
        let updates = [update(p, games, 1_500.5, None, m), update(q, games, 1_499.5, None, m)];
        assert_eq!(store.record_result(m, "gops", &updates).await, Ok(Recorded::Applied));
    }
    // What was kept for them is gone, and nothing new stays per rated match.
    assert_eq!(count(&mut conn).await, (LIVE - RATED, LIVE - RATED, 0));
    let after = used_memory(&mut conn).await;
    assert!(after < before, "used_memory grew from {before} to {after} bytes");
    // A repeated announcement of any of them (a redelivery, a repair racing its engine)
    // still rates nothing twice, and adds nothing.
    for &m in ids[..1_000].iter() {
        assert_eq!(store.rated_match(m).await, Ok(None));
        let late = [update(p, RATED as u64, 9.0, None, m), update(q, RATED as u64, 9.0, None, m)];
        assert_eq!(store.record_result(m, "gops", &late).await, Ok(Recorded::AlreadyApplied));
    }
    assert_eq!(count(&mut conn).await, (LIVE - RATED, LIVE - RATED, 0));
    assert_eq!(store.rating("gops", p).await.expect("rating").expect("rated").games, RATED as u64);
    drop(fixture);
}
