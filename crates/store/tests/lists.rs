//! The match lists' contract, on the `MemoryStore`, a `RedisStore` on a real
//! `redis-server` and one on a real 3-primary Redis Cluster: a match is in each seated
//! player's list and, once both seats are held, in its game's live list until its final
//! step, if it is a listed match (an unlisted one, a tenant's, never is); pages run newest
//! first without gaps or repeats (ties on one millisecond too); a player's list keeps the
//! newest 1,000; display names and bot names read back.

#[macro_use]
mod common;

use rules_core::{PerSeat, Seat};
use std::sync::Arc;
use store::{
    AppendOutcome, ClaimOutcome, Entry, Finished, FullStore, Listed, MatchId, MatchMeta,
    MatchSecret, PLAYER_MATCHES_KEPT, PlayerId, SeatHolder, StoreError,
};

type Store = Arc<dyn FullStore>;

fn meta(seats: [SeatHolder; 2], created_at_ms: u64) -> MatchMeta {
    MatchMeta {
        game: "gops".into(),
        options_json: "{}".into(),
        commitment_hex: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".into(),
        seats: PerSeat(seats),
        move_time_ms: 30_000,
        created_at_ms,
        listed: true,
    }
}

fn entry(version: u64) -> Entry {
    Entry {
        version,
        step_json: if version == 0 { "{}".into() } else { r#"{"resign":0}"#.into() },
        idempotency_key: None,
        events: Vec::new(),
        views: Vec::new(),
        traceparent: None,
        at_ms: 1_700_000_000_000 + version,
        tag: version + 1,
    }
}

async fn create(store: &Store, seats: [SeatHolder; 2], created_at_ms: u64) -> MatchId {
    create_as(store, meta(seats, created_at_ms)).await
}

async fn create_as(store: &Store, meta: MatchMeta) -> MatchId {
    let id = MatchId::random();
    let secret = MatchSecret { seed_hex: "00".repeat(16) };
    store.create_match(id, &meta, &secret, &entry(0), None).await.expect("create");
    id
}

fn ids(page: &[Listed]) -> Vec<MatchId> {
    page.iter().map(|l| l.id).collect()
}

/// Every entry of `player`'s list, a page of `size` at a time.
async fn all_pages(store: &Store, player: PlayerId, size: usize) -> Vec<Listed> {
    let mut out: Vec<Listed> = Vec::new();
    loop {
        let page = store.player_matches(player, out.last().copied(), size).await.expect("page");
        assert!(page.len() <= size);
        if page.is_empty() {
            return out;
        }
        out.extend(page);
    }
}

suite!(
    seating_lists_a_match_and_its_final_step_ends_it_live,
    an_unlisted_match_is_never_live_a_listed_one_is,
    pages_run_newest_first_without_gaps_or_repeats,
    a_players_list_keeps_the_newest,
    names_read_back,
);

async fn seating_lists_a_match_and_its_final_step_ends_it_live(store: Store) {
    let (alice, bob, carol) = (PlayerId::random(), PlayerId::random(), PlayerId::random());
    let id = create(&store, [SeatHolder::Player(alice), SeatHolder::Open], 1_000).await;
    let listed = Listed { created_at_ms: 1_000, id };
    assert_eq!(store.player_matches(alice, None, 10).await, Ok(vec![listed]));
    assert_eq!(store.player_matches(bob, None, 10).await, Ok(vec![]));
    // A seat still open: not live yet.
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![]));
    assert_eq!(store.claim_seat(id, Seat::ONE, bob).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(store.player_matches(bob, None, 10).await, Ok(vec![listed]));
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![listed]));
    // A claim of a seat held by another lists nothing for the claimant.
    assert_eq!(store.claim_seat(id, Seat::ONE, carol).await, Ok(ClaimOutcome::Taken));
    assert_eq!(store.player_matches(carol, None, 10).await, Ok(vec![]));
    // A retried claim lists it once.
    assert_eq!(store.claim_seat(id, Seat::ONE, bob).await, Ok(ClaimOutcome::AlreadyYours));
    assert_eq!(store.player_matches(bob, None, 10).await, Ok(vec![listed]));
    assert_eq!(store.live_matches("hexspiel", None, 10).await, Ok(vec![]));

    // The final step takes it off the live list; the players keep it.
    let finished = Finished {
        match_id: id,
        game: "gops".into(),
        players: [Some(alice), Some(bob)],
        winner: Some(Seat::ONE),
        reason: "resigned".into(),
        at_ms: 1_700_000_000_001,
        seed_hex: None,
    };
    assert_eq!(
        store.append_final(id, &entry(1), &finished).await,
        Ok(AppendOutcome::Appended { version: 1 })
    );
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![]));
    assert_eq!(store.player_matches(alice, None, 10).await, Ok(vec![listed]));

    // A match created with both seats held is live at once, for both players.
    let both = create(&store, [SeatHolder::Player(carol), SeatHolder::Player(alice)], 2_000).await;
    let both = Listed { created_at_ms: 2_000, id: both };
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![both]));
    assert_eq!(store.player_matches(carol, None, 10).await, Ok(vec![both]));
    assert_eq!(store.player_matches(alice, None, 10).await, Ok(vec![both, listed]));

    // Unlisting is the reader's repair; twice, or of one never listed, changes nothing.
    store.unlist_live_match("gops", both.id).await.expect("unlisted");
    store.unlist_live_match("gops", both.id).await.expect("again");
    store.unlist_player_match(alice, listed.id).await.expect("unlisted");
    store.unlist_player_match(bob, both.id).await.expect("never listed");
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![]));
    assert_eq!(store.player_matches(alice, None, 10).await, Ok(vec![both]));
    // A game that cannot name a list is refused.
    for bad in ["", "a b", "{gops}"] {
        let r = store.live_matches(bad, None, 10).await;
        assert!(matches!(r, Err(StoreError::InvalidArgument(_))), "{bad:?}: {r:?}");
    }
}

async fn an_unlisted_match_is_never_live_a_listed_one_is(store: Store) {
    let (alice, bob, carol) = (PlayerId::random(), PlayerId::random(), PlayerId::random());
    let unlisted = |seats, at| MatchMeta { listed: false, ..meta(seats, at) };
    // Created with both seats held (a tenant's bulk match): in its players' lists only.
    let both = [SeatHolder::Player(alice), SeatHolder::Player(bob)];
    let seated = create_as(&store, unlisted(both.clone(), 1_000)).await;
    let seated = Listed { created_at_ms: 1_000, id: seated };
    assert_eq!(store.player_matches(alice, None, 10).await, Ok(vec![seated]));
    assert_eq!(store.player_matches(bob, None, 10).await, Ok(vec![seated]));
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![]));
    // Its last seat filled by a claim, retried too: still not live.
    let open = [SeatHolder::Player(carol), SeatHolder::Open];
    let joined = create_as(&store, unlisted(open.clone(), 2_000)).await;
    let joined = Listed { created_at_ms: 2_000, id: joined };
    assert_eq!(store.claim_seat(joined.id, Seat::ONE, alice).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(store.claim_seat(joined.id, Seat::ONE, alice).await, Ok(ClaimOutcome::AlreadyYours));
    assert_eq!(store.player_matches(alice, None, 10).await, Ok(vec![joined, seated]));
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![]));
    // What reads the meta learns it is unlisted.
    let read = store.meta(joined.id).await.expect("meta").expect("a meta");
    assert!(!read.listed && read.all_seated());

    // The same two ways, listed: live.
    let made = create_as(&store, meta(both, 3_000)).await;
    let made = Listed { created_at_ms: 3_000, id: made };
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![made]));
    let claimed = create_as(&store, meta(open, 4_000)).await;
    let claimed = Listed { created_at_ms: 4_000, id: claimed };
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![made]), "a seat open");
    assert_eq!(store.claim_seat(claimed.id, Seat::ONE, bob).await, Ok(ClaimOutcome::Claimed));
    assert_eq!(store.live_matches("gops", None, 10).await, Ok(vec![claimed, made]));
    assert!(store.meta(claimed.id).await.expect("meta").expect("a meta").listed);
}

async fn pages_run_newest_first_without_gaps_or_repeats(store: Store) {
    let (alice, bob) = (PlayerId::random(), PlayerId::random());
    // Five at distinct times and four sharing one millisecond, all live.
    let mut made = Vec::new();
    for at in [10, 20, 30, 30, 30, 30, 40, 50, 60] {
        let seats = [SeatHolder::Player(alice), SeatHolder::Player(bob)];
        made.push(Listed { created_at_ms: at, id: create(&store, seats, at).await });
    }
    made.sort();
    made.reverse();
    for size in [1, 2, 3, 4, 9, 20] {
        assert_eq!(all_pages(&store, alice, size).await, made, "pages of {size}");
    }
    let mut live = Vec::new();
    loop {
        let page = store.live_matches("gops", live.last().copied(), 2).await.expect("live");
        if page.is_empty() {
            break;
        }
        live.extend(page);
    }
    assert_eq!(live, made);
    // From inside the tie: exactly the rest.
    let at = made.iter().position(|l| l.created_at_ms == 30).expect("a tie") + 1;
    let rest = store.player_matches(alice, Some(made[at - 1]), 100).await.expect("rest");
    assert_eq!(ids(&rest), ids(&made[at..]));
    assert_eq!(store.player_matches(alice, None, 0).await, Ok(vec![]));
}

async fn a_players_list_keeps_the_newest(store: Store) {
    let alice = PlayerId::random();
    let extra = 3;
    let mut made = Vec::new();
    for at in 0..(PLAYER_MATCHES_KEPT + extra) as u64 {
        let seats = [SeatHolder::Player(alice), SeatHolder::Open];
        made.push(Listed {
            created_at_ms: 1_000 + at,
            id: create(&store, seats, 1_000 + at).await,
        });
    }
    made.reverse();
    let kept = all_pages(&store, alice, 100).await;
    assert_eq!(kept.len(), PLAYER_MATCHES_KEPT);
    assert_eq!(kept, made[..PLAYER_MATCHES_KEPT]);
}

async fn names_read_back(store: Store) {
    let (ann, bea, nobody) = (PlayerId::random(), PlayerId::random(), PlayerId::random());
    store.put_session(&"a".repeat(64), ann, "Ann").await.expect("session");
    store.put_session(&"b".repeat(64), bea, "Bea").await.expect("session");
    store.put_session(&"c".repeat(64), bea, "Bea Two").await.expect("a later session");
    assert_eq!(
        store.display_names(&[ann, nobody, bea]).await,
        Ok(vec![Some("Ann".into()), None, Some("Bea Two".into())])
    );
    assert_eq!(store.display_names(&[]).await, Ok(vec![]));
    // An account: its name as it is now, not its session's.
    let account = store::Account {
        player: ann,
        email: format!("ann-{ann}@example.org"),
        password_phc: "$argon2id$v=19$m=19456,t=2,p=1$c2FsdA$aGFzaA".into(),
        display_name: "Ann Account".into(),
        leaderboard: false,
        bot: false,
        created_ms: 1,
    };
    store.register(&account).await.expect("registered");
    let renamed =
        store::AccountChange::Profile { display_name: "Ann B".into(), leaderboard: false };
    assert_eq!(store.update_account(ann, &renamed).await, Ok(true));
    assert_eq!(store.display_names(&[ann]).await, Ok(vec![Some("Ann B".into())]));
    let id = create(&store, [SeatHolder::Player(ann), SeatHolder::Open], 5).await;
    assert_eq!(store.bot_of(id).await, Ok(None));
    let bot = store::BotMatch { id, game: "gops".into(), bot: "strong".into() };
    store.add_bot_match(&bot).await.expect("recorded");
    assert_eq!(store.bot_of(id).await, Ok(Some("strong".into())));
    // Kept with the match once the bot match is forgotten.
    store.remove_bot_match(&bot).await.expect("forgotten");
    assert_eq!(store.bot_of(id).await, Ok(Some("strong".into())));
    assert_eq!(store.meta(id).await.expect("meta").map(|m| m.game), Some("gops".into()));
}
