//! The platform in memory: [`PlatformStore`] for [`MemoryStore`], the same records the
//! Redis keys hold, under the store's one lock (never held across an await).

use super::tables::Request;
use crate::error::StoreError;
use crate::memory::MemoryStore;
use crate::platform::{
    AUDIT_KEPT, ApiKey, Append, Appended, Begin, Begun, PlatformStore, Stream, StreamEntry, Tenant,
    Unfinished,
};
use async_trait::async_trait;
use ids::{MatchId, TenantId, TournamentId};

#[async_trait]
impl PlatformStore for MemoryStore {
    async fn put_tenant(&self, tenant: &Tenant) -> Result<(), StoreError> {
        self.lock().platform.tenants.insert(tenant.id, tenant.clone());
        Ok(())
    }

    async fn tenants(&self) -> Result<Vec<Tenant>, StoreError> {
        let mut all: Vec<Tenant> = self.lock().platform.tenants.values().cloned().collect();
        all.sort_by_key(|t| (t.created_ms, t.id));
        Ok(all)
    }

    async fn tenant(&self, id: TenantId) -> Result<Option<Tenant>, StoreError> {
        Ok(self.lock().platform.tenants.get(&id).cloned())
    }

    async fn put_api_key(&self, key: &ApiKey) -> Result<(), StoreError> {
        self.lock().platform.keys.insert(key.key_id.clone(), key.clone());
        Ok(())
    }

    async fn api_key(&self, key_id: &str) -> Result<Option<ApiKey>, StoreError> {
        Ok(self.lock().platform.keys.get(key_id).cloned())
    }

    async fn api_keys_of(&self, tenant: TenantId) -> Result<Vec<ApiKey>, StoreError> {
        let mut keys: Vec<ApiKey> =
            self.lock().platform.keys.values().filter(|k| k.tenant == tenant).cloned().collect();
        keys.sort_by(|a, b| (a.created_ms, &a.key_id).cmp(&(b.created_ms, &b.key_id)));
        Ok(keys)
    }

    async fn audit(&self, tenant: TenantId, json: &str) -> Result<(), StoreError> {
        let mut state = self.lock();
        let log = state.platform.audit.entry(tenant).or_default();
        log.push_back(json.to_string());
        while log.len() > AUDIT_KEPT {
            log.pop_front();
        }
        Ok(())
    }

    async fn audit_tail(&self, tenant: TenantId, limit: usize) -> Result<Vec<String>, StoreError> {
        let state = self.lock();
        let Some(log) = state.platform.audit.get(&tenant) else { return Ok(Vec::new()) };
        Ok(log.iter().skip(log.len().saturating_sub(limit)).cloned().collect())
    }

    async fn begin(&self, b: &Begin<'_>) -> Result<Begun, StoreError> {
        let mut state = self.lock();
        let p = &mut state.platform;
        let name = (b.kind.to_string(), b.tenant, b.key.to_string());
        if let Some(r) = p.requests.get(&name) {
            return Ok(if r.digest == b.digest {
                Begun::Same { record_json: r.record.clone(), done: r.done }
            } else {
                Begun::Mismatch
            });
        }
        p.requests.insert(
            name,
            Request {
                digest: b.digest.to_string(),
                record: b.record_json.to_string(),
                done: false,
                begun_ms: b.now_ms,
            },
        );
        for (id, json) in b.owned {
            p.owned.entry(*id).or_insert_with(|| json.clone());
        }
        for (id, at) in b.scheduled {
            p.scheduled.insert((*at, *id));
        }
        Ok(Begun::New)
    }

    async fn finish(
        &self,
        kind: &str,
        tenant: TenantId,
        key: &str,
        events: &[String],
        _now_ms: u64,
    ) -> Result<bool, StoreError> {
        let mut state = self.lock();
        let p = &mut state.platform;
        let r = p
            .requests
            .get_mut(&(kind.to_string(), tenant, key.to_string()))
            .ok_or(StoreError::InvalidArgument("finish: the request was never begun"))?;
        if r.done {
            return Ok(false);
        }
        r.done = true;
        p.push(Stream::Tenant(tenant), events);
        Ok(true)
    }

    async fn unfinished(&self, kind: &str, limit: usize) -> Result<Vec<Unfinished>, StoreError> {
        let state = self.lock();
        let mut all: Vec<Unfinished> = state
            .platform
            .requests
            .iter()
            .filter(|((k, _, _), r)| k == kind && !r.done)
            .map(|((_, tenant, key), r)| Unfinished {
                tenant: *tenant,
                key: key.clone(),
                record_json: r.record.clone(),
                begun_ms: r.begun_ms,
            })
            .collect();
        all.sort_by(|a, b| (a.begun_ms, a.tenant, &a.key).cmp(&(b.begun_ms, b.tenant, &b.key)));
        all.truncate(limit);
        Ok(all)
    }

    async fn owned(&self, id: MatchId) -> Result<Option<String>, StoreError> {
        Ok(self.lock().platform.owned.get(&id).cloned())
    }

    async fn append_results(&self, append: &Append) -> Result<Appended, StoreError> {
        let mut state = self.lock();
        let p = &mut state.platform;
        let last = p.seq(append.stream);
        if let Some(expect) = append.expect_seq
            && expect != last
        {
            return Ok(Appended::Conflict { last_seq: last });
        }
        if let Some(mark) = &append.once
            && !p.once.insert(mark.clone())
        {
            return Ok(Appended::Already);
        }
        for (id, json) in &append.owned {
            p.owned.insert(*id, json.clone());
        }
        let tenant = append.stream.tenant();
        if let Stream::Tournament(t, id) = append.stream {
            if last == 0 && !append.events.is_empty() {
                p.tournaments.entry(t).or_default().insert((append.at_ms, id));
                p.live.insert((t, id));
            }
            if append.close {
                p.live.remove(&(t, id));
            }
            p.push(Stream::Tenant(tenant), &append.events);
        }
        let last_seq = p.push(append.stream, &append.events);
        // No one listening is no error.
        let _ = self.results_feed.send(tenant);
        Ok(Appended::Done { last_seq })
    }

    async fn results_feed(&self) -> Result<crate::platform::ResultsFeed, StoreError> {
        // A lagged reader missed appends: its stream ends, as a lost subscription's does.
        let feed = tokio_stream::wrappers::BroadcastStream::new(self.results_feed.subscribe());
        Ok(Box::pin(tokio_stream::StreamExt::map_while(feed, Result::ok)))
    }

    async fn read_results(
        &self,
        stream: Stream,
        after: u64,
        limit: usize,
    ) -> Result<Vec<StreamEntry>, StoreError> {
        let state = self.lock();
        let Some(s) = state.platform.streams.get(&stream) else { return Ok(Vec::new()) };
        let from = usize::try_from(after).unwrap_or(usize::MAX).min(s.len());
        Ok(s[from..]
            .iter()
            .take(limit)
            .enumerate()
            .map(|(i, json)| StreamEntry { seq: after + 1 + i as u64, json: json.clone() })
            .collect())
    }

    async fn results_seq(&self, stream: Stream) -> Result<u64, StoreError> {
        Ok(self.lock().platform.seq(stream))
    }

    async fn tournaments_of(
        &self,
        tenant: TenantId,
        limit: usize,
    ) -> Result<Vec<TournamentId>, StoreError> {
        let state = self.lock();
        Ok(state
            .platform
            .tournaments
            .get(&tenant)
            .map(|s| s.iter().rev().take(limit).map(|(_, id)| *id).collect())
            .unwrap_or_default())
    }

    async fn due_scheduled(&self, now_ms: u64, limit: usize) -> Result<Vec<MatchId>, StoreError> {
        let state = self.lock();
        Ok(state
            .platform
            .scheduled
            .iter()
            .take_while(|(at, _)| *at <= now_ms)
            .take(limit)
            .map(|(_, id)| *id)
            .collect())
    }

    async fn unschedule(&self, id: MatchId) -> Result<(), StoreError> {
        self.lock().platform.scheduled.retain(|(_, m)| *m != id);
        Ok(())
    }

    async fn live_tournaments(&self) -> Result<Vec<(TenantId, TournamentId)>, StoreError> {
        Ok(self.lock().platform.live.iter().copied().collect())
    }

    async fn put_public_tournament(
        &self,
        id: TournamentId,
        tenant: TenantId,
    ) -> Result<(), StoreError> {
        self.lock().platform.public.insert(id, tenant);
        Ok(())
    }

    async fn public_tournament(&self, id: TournamentId) -> Result<Option<TenantId>, StoreError> {
        Ok(self.lock().platform.public.get(&id).copied())
    }
}
