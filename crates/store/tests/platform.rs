//! The platform's contract ([`store::PlatformStore`]), one suite over the three stores of
//! `tests/common` (memory, a real `redis-server`, a real 3-primary Redis Cluster).

#[macro_use]
mod common;

use std::sync::Arc;
use store::{
    ApiKey, Append, Appended, Begin, Begun, FullStore, MatchId, ResultsStream, StreamEntry, Tenant,
    TenantId, TournamentId,
};

type Store = Arc<dyn FullStore>;

const NOW: u64 = 1_700_000_000_000;

fn tenant(name: &str, created_ms: u64) -> Tenant {
    Tenant { id: TenantId::random(), name: name.into(), created_ms }
}

fn key(id: &str, tenant: TenantId, created_ms: u64) -> ApiKey {
    ApiKey {
        key_id: id.into(),
        tenant,
        scopes: vec!["results:read".into()],
        label: "ci".into(),
        digest_hex: "ab".repeat(32),
        created_ms,
        revoked_ms: 0,
    }
}

fn begin<'a>(
    kind: &'a str,
    tenant: TenantId,
    key: &'a str,
    digest: &'a str,
    record_json: &'a str,
    owned: &'a [(MatchId, String)],
    now_ms: u64,
) -> Begin<'a> {
    Begin { kind, tenant, key, digest, record_json, owned, scheduled: &[], now_ms }
}

fn events(n: usize, tag: &str) -> Vec<String> {
    (0..n).map(|i| format!("{{\"{tag}\":{i}}}")).collect()
}

fn append(stream: ResultsStream, expect: Option<u64>, events: Vec<String>) -> Append {
    Append {
        stream,
        expect_seq: expect,
        once: None,
        events,
        owned: Vec::new(),
        at_ms: NOW,
        close: false,
    }
}

fn jsons(entries: &[StreamEntry]) -> Vec<(u64, &str)> {
    entries.iter().map(|e| (e.seq, e.json.as_str())).collect()
}

suite!(
    scheduled_matches_come_due_in_order,
    tenants_and_keys,
    audit_keeps_the_tail_in_order,
    begin_and_finish_are_idempotent,
    tournament_streams_copy_to_the_tenant_and_guard_their_sequence,
    once_marks_append_once,
    reads_resume_from_any_sequence,
    each_append_is_announced_with_its_tenant,
    public_tournaments_are_found_by_id_alone,
);

async fn scheduled_matches_come_due_in_order(store: Store) {
    let t = TenantId::random();
    let (a, b, c) = (MatchId::random(), MatchId::random(), MatchId::random());
    let scheduled = [(a, NOW + 30), (b, NOW + 10), (c, NOW + 20)];
    let owned: Vec<(MatchId, String)> =
        scheduled.iter().map(|(id, _)| (*id, "{}".into())).collect();
    let mut req = begin("bulk", t, "s", "d", "{}", &owned, NOW);
    req.scheduled = &scheduled;
    assert_eq!(store.begin(&req).await, Ok(Begun::New));
    assert_eq!(store.due_scheduled(NOW, 10).await, Ok(vec![]));
    assert_eq!(store.due_scheduled(NOW + 20, 10).await, Ok(vec![b, c]));
    assert_eq!(store.due_scheduled(NOW + 99, 1).await, Ok(vec![b]));
    store.unschedule(b).await.expect("unschedule");
    store.unschedule(b).await.expect("again: nothing");
    assert_eq!(store.due_scheduled(NOW + 99, 10).await, Ok(vec![c, a]));
}

async fn tenants_and_keys(store: Store) {
    let (a, b) = (tenant("a", NOW), tenant("b", NOW + 1));
    store.put_tenant(&b).await.expect("put");
    store.put_tenant(&a).await.expect("put");
    assert_eq!(store.tenants().await.expect("tenants"), vec![a.clone(), b.clone()]);
    assert_eq!(store.tenant(a.id).await.expect("tenant"), Some(a.clone()));
    assert_eq!(store.tenant(TenantId::random()).await.expect("tenant"), None);
    let (k1, k2, k3) = (key("k1", a.id, NOW), key("k2", a.id, NOW + 5), key("k3", b.id, NOW));
    for k in [&k2, &k1, &k3] {
        store.put_api_key(k).await.expect("put key");
    }
    assert_eq!(store.api_keys_of(a.id).await.expect("keys"), vec![k1.clone(), k2.clone()]);
    assert_eq!(store.api_key("k3").await.expect("key"), Some(k3));
    assert_eq!(store.api_key("nope").await.expect("key"), None);
    let revoked = ApiKey { revoked_ms: NOW + 9, ..k1 };
    store.put_api_key(&revoked).await.expect("revoke");
    assert_eq!(store.api_key("k1").await.expect("key"), Some(revoked));
}

async fn audit_keeps_the_tail_in_order(store: Store) {
    let (a, b) = (TenantId::random(), TenantId::random());
    for e in events(5, "a") {
        store.audit(a, &e).await.expect("audit");
    }
    store.audit(b, "{\"b\":0}").await.expect("audit");
    assert_eq!(store.audit_tail(a, 2).await.expect("tail"), events(5, "a")[3..].to_vec());
    assert_eq!(store.audit_tail(a, 100).await.expect("tail"), events(5, "a"));
    assert_eq!(store.audit_tail(b, 100).await.expect("tail"), vec!["{\"b\":0}".to_string()]);
    assert_eq!(store.audit_tail(TenantId::random(), 10).await.expect("tail"), Vec::<String>::new());
}

async fn begin_and_finish_are_idempotent(store: Store) {
    let t = TenantId::random();
    let m = MatchId::random();
    let owned = vec![(m, "{\"first\":1}".to_string())];
    let begun = store.begin(&begin("bulk", t, "key-1", "d1", "{\"r\":1}", &owned, NOW)).await;
    assert_eq!(begun, Ok(Begun::New));
    assert_eq!(store.owned(m).await.expect("owned").as_deref(), Some("{\"first\":1}"));
    // The same request again: its record, not done; the owned record is not overwritten.
    let again = vec![(m, "{\"second\":1}".to_string())];
    let begun = store.begin(&begin("bulk", t, "key-1", "d1", "{\"r\":2}", &again, NOW + 1)).await;
    assert_eq!(begun, Ok(Begun::Same { record_json: "{\"r\":1}".into(), done: false }));
    assert_eq!(store.owned(m).await.expect("owned").as_deref(), Some("{\"first\":1}"));
    // Another request under the key; the key of another kind or tenant is another key.
    assert_eq!(
        store.begin(&begin("bulk", t, "key-1", "d2", "{}", &[], NOW)).await,
        Ok(Begun::Mismatch)
    );
    assert_eq!(store.begin(&begin("tour", t, "key-1", "d2", "{}", &[], NOW)).await, Ok(Begun::New));
    let other = TenantId::random();
    assert_eq!(
        store.begin(&begin("bulk", other, "key-1", "d2", "{}", &[], NOW + 2)).await,
        Ok(Begun::New)
    );
    let unfinished = store.unfinished("bulk", 10).await.expect("unfinished");
    assert_eq!(unfinished.len(), 2);
    assert_eq!((unfinished[0].tenant, unfinished[0].key.as_str()), (t, "key-1"));
    assert_eq!(unfinished[0].record_json, "{\"r\":1}");
    assert_eq!(unfinished[0].begun_ms, NOW);
    // Finished once: its events reach the tenant's stream once.
    assert_eq!(store.finish("bulk", t, "key-1", &events(3, "s"), NOW).await, Ok(true));
    assert_eq!(store.finish("bulk", t, "key-1", &events(3, "s"), NOW).await, Ok(false));
    let tenant_stream = ResultsStream::Tenant(t);
    assert_eq!(store.results_seq(tenant_stream).await, Ok(3));
    let begun = store.begin(&begin("bulk", t, "key-1", "d1", "{}", &[], NOW)).await;
    assert_eq!(begun, Ok(Begun::Same { record_json: "{\"r\":1}".into(), done: true }));
    let left = store.unfinished("bulk", 10).await.expect("unfinished");
    assert_eq!(left.iter().map(|u| u.tenant).collect::<Vec<_>>(), vec![other]);
    assert!(store.finish("bulk", t, "never", &[], NOW).await.is_err());
}

async fn tournament_streams_copy_to_the_tenant_and_guard_their_sequence(store: Store) {
    let t = TenantId::random();
    let (x, y) = (TournamentId::random(), TournamentId::random());
    let sx = ResultsStream::Tournament(t, x);
    let sy = ResultsStream::Tournament(t, y);
    assert_eq!(
        store.append_results(&append(sx, Some(0), events(2, "x"))).await,
        Ok(Appended::Done { last_seq: 2 })
    );
    let mut ay = append(sy, Some(0), events(1, "y"));
    ay.at_ms = NOW + 10;
    assert_eq!(store.append_results(&ay).await, Ok(Appended::Done { last_seq: 1 }));
    // A writer that read an older sequence number appends nothing.
    assert_eq!(
        store.append_results(&append(sx, Some(1), events(1, "z"))).await,
        Ok(Appended::Conflict { last_seq: 2 })
    );
    let m = MatchId::random();
    let mut ax = append(sx, Some(2), events(1, "x2"));
    ax.owned = vec![(m, "{\"done\":true}".into())];
    ax.close = true;
    assert_eq!(store.append_results(&ax).await, Ok(Appended::Done { last_seq: 3 }));
    assert_eq!(store.owned(m).await.expect("owned").as_deref(), Some("{\"done\":true}"));
    let tenant_stream = store.read_results(ResultsStream::Tenant(t), 0, 100).await.expect("read");
    assert_eq!(
        jsons(&tenant_stream),
        vec![(1, "{\"x\":0}"), (2, "{\"x\":1}"), (3, "{\"y\":0}"), (4, "{\"x2\":0}")]
    );
    let xs = store.read_results(sx, 0, 100).await.expect("read");
    assert_eq!(jsons(&xs), vec![(1, "{\"x\":0}"), (2, "{\"x\":1}"), (3, "{\"x2\":0}")]);
    assert_eq!(store.tournaments_of(t, 10).await, Ok(vec![y, x]));
    assert_eq!(store.tournaments_of(t, 1).await, Ok(vec![y]));
    assert_eq!(store.tournaments_of(TenantId::random(), 10).await, Ok(vec![]));
    // x closed; y live.
    assert_eq!(store.live_tournaments().await, Ok(vec![(t, y)]));
    // A tenant-only append takes any sequence number.
    let a = append(ResultsStream::Tenant(t), None, events(1, "bulk"));
    assert_eq!(store.append_results(&a).await, Ok(Appended::Done { last_seq: 5 }));
}

async fn once_marks_append_once(store: Store) {
    let t = TenantId::random();
    let mut a = append(ResultsStream::Tenant(t), None, events(1, "f"));
    a.once = Some("finished:1".into());
    assert_eq!(store.append_results(&a).await, Ok(Appended::Done { last_seq: 1 }));
    assert_eq!(store.append_results(&a).await, Ok(Appended::Already));
    // A conflicting append does not use up its mark.
    let x = TournamentId::random();
    let mut b = append(ResultsStream::Tournament(t, x), Some(7), events(1, "g"));
    b.once = Some("finished:2".into());
    assert_eq!(store.append_results(&b).await, Ok(Appended::Conflict { last_seq: 0 }));
    b.expect_seq = Some(0);
    assert_eq!(store.append_results(&b).await, Ok(Appended::Done { last_seq: 1 }));
    assert_eq!(store.results_seq(ResultsStream::Tenant(t)).await, Ok(2));
}

async fn reads_resume_from_any_sequence(store: Store) {
    let t = TenantId::random();
    let s = ResultsStream::Tenant(t);
    assert_eq!(store.read_results(s, 0, 10).await, Ok(vec![]));
    assert_eq!(store.results_seq(s).await, Ok(0));
    store.append_results(&append(s, None, events(10, "e"))).await.expect("append");
    let page = store.read_results(s, 3, 4).await.expect("read");
    assert_eq!(page.iter().map(|e| e.seq).collect::<Vec<_>>(), vec![4, 5, 6, 7]);
    assert_eq!(page[0].json, "{\"e\":3}");
    assert_eq!(store.read_results(s, 10, 10).await, Ok(vec![]));
    assert_eq!(store.read_results(s, 9, 0).await, Ok(vec![]));
    assert_eq!(store.read_results(s, u64::MAX, 10).await, Ok(vec![]));
}

async fn each_append_is_announced_with_its_tenant(store: Store) {
    use tokio_stream::StreamExt;
    let mut feed = store.results_feed().await.expect("subscribed");
    let t = TenantId::random();
    let x = TournamentId::random();
    // A tournament's append (it copies to the tenant's stream) and a tenant's alone: each
    // announced once, naming the tenant; a conflict or a repeat announces nothing.
    store
        .append_results(&append(ResultsStream::Tournament(t, x), Some(0), events(1, "a")))
        .await
        .expect("append");
    let stale = append(ResultsStream::Tournament(t, x), Some(0), events(1, "b"));
    assert_eq!(store.append_results(&stale).await, Ok(Appended::Conflict { last_seq: 1 }));
    store
        .append_results(&append(ResultsStream::Tenant(t), None, events(1, "c")))
        .await
        .expect("append");
    for _ in 0..2 {
        let next = tokio::time::timeout(std::time::Duration::from_secs(10), feed.next()).await;
        assert_eq!(next.expect("announced").expect("the feed is open"), t);
    }
    let more = tokio::time::timeout(std::time::Duration::from_millis(300), feed.next()).await;
    assert!(more.is_err(), "the conflict was announced: {more:?}");
}

async fn public_tournaments_are_found_by_id_alone(store: Store) {
    let (t, other) = (TenantId::random(), TenantId::random());
    let (x, y) = (TournamentId::random(), TournamentId::random());
    assert_eq!(store.public_tournament(x).await, Ok(None));
    store.put_public_tournament(x, t).await.expect("listed");
    store.put_public_tournament(x, t).await.expect("again: the same");
    assert_eq!(store.public_tournament(x).await, Ok(Some(t)));
    // A tournament with a stream but not listed public is not found, as none is.
    store
        .append_results(&append(ResultsStream::Tournament(other, y), Some(0), events(1, "y")))
        .await
        .expect("append");
    assert_eq!(store.public_tournament(y).await, Ok(None));
}
