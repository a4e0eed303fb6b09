//! API keys: made (`ck_<key id>_<secret>`, shown once, kept as a SHA-256), checked on every
//! platform call (the gateway passes the caller's `authorization` on), their scopes, and a
//! short cache so a busy platform costs no store read per call. A revoked key is refused
//! once its cached copy is older than [`KNOWN_FOR_MS`].

use crate::error::Error;
use service_kit::cache::Bounded;
use service_kit::time::now_ms;
use std::sync::Arc;
use store::{ApiKey, PlatformStore, TenantId, token_digest};
use tonic::metadata::MetadataMap;

/// The scope of CreateMatches.
pub const MATCHES_CREATE: &str = "matches:create";
/// The scope of creating and running tournaments.
pub const TOURNAMENTS_MANAGE: &str = "tournaments:manage";
/// The scope of every read.
pub const RESULTS_READ: &str = "results:read";
/// Every scope.
pub const SCOPES: [&str; 3] = [MATCHES_CREATE, TOURNAMENTS_MANAGE, RESULTS_READ];

/// How long a key read from the store is trusted (a revocation takes this long at most).
pub const KNOWN_FOR_MS: u64 = 5_000;
/// The most keys cached; past it the cache starts again.
const CACHED_KEYS: usize = 10_000;
/// Every key starts with this.
pub const KEY_PREFIX: &str = "ck_";

/// Who is calling: a tenant, through one of its keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    /// The tenant.
    pub tenant: TenantId,
    /// The key's id (the audit log's actor).
    pub key_id: String,
    scopes: Vec<String>,
}

impl Caller {
    /// The caller, if the key holds `scope`.
    ///
    /// # Errors
    /// [`Error::ScopeMissing`].
    pub fn may(&self, scope: &'static str) -> Result<&Caller, Error> {
        if self.scopes.iter().any(|s| s == scope) {
            Ok(self)
        } else {
            Err(Error::ScopeMissing(scope))
        }
    }

    /// The audit log's name for the caller.
    pub fn actor(&self) -> String {
        format!("key:{}", self.key_id)
    }
}

/// A new key for `tenant`: the key to show once, and what is kept of it.
pub fn make_key(tenant: TenantId, scopes: Vec<String>, label: String) -> (String, ApiKey) {
    let random = service_kit::time::os_random_32();
    let key_id = hex::encode(&random[..8]);
    let key = format!("{KEY_PREFIX}{key_id}_{}", hex::encode(&random[8..]));
    let kept = ApiKey {
        key_id,
        tenant,
        scopes,
        label,
        digest_hex: token_digest(&key),
        created_ms: now_ms(),
        revoked_ms: 0,
    };
    (key, kept)
}

/// The key id of a key as sent, if it has the shape of one.
fn key_id_of(key: &str) -> Option<&str> {
    let rest = key.strip_prefix(KEY_PREFIX)?;
    let (id, secret) = rest.split_once('_')?;
    let hex = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_hexdigit());
    (hex(id, 16) && hex(secret, 48)).then_some(id)
}

/// Keys read from the store (or known missing), by key id, with when they were read.
type Cache = Arc<Bounded<String, Option<ApiKey>>>;

/// Checks API keys against the store, with a short cache.
#[derive(Clone)]
pub struct Keys {
    store: Arc<dyn PlatformStore>,
    cache: Cache,
}

impl Keys {
    /// Keys over `store`.
    pub fn new(store: Arc<dyn PlatformStore>) -> Keys {
        Keys { store, cache: Arc::new(Bounded::new(CACHED_KEYS, Some(KNOWN_FOR_MS))) }
    }

    /// The caller a request's `authorization` names.
    ///
    /// # Errors
    /// [`Error::BadKey`] for no key, a malformed, unknown or revoked one;
    /// [`Error::Store`] if the store failed.
    pub async fn caller(&self, meta: &MetadataMap) -> Result<Caller, Error> {
        let sent = meta
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .and_then(api_convert::text::bearer)
            .ok_or(Error::BadKey)?;
        let key_id = key_id_of(sent).ok_or(Error::BadKey)?;
        let now = now_ms();
        let kept = match self.cache.get(key_id, now) {
            Some(k) => k,
            None => {
                let k = self.store.api_key(key_id).await?;
                self.cache.insert(key_id.to_string(), k.clone(), now);
                k
            }
        };
        let kept = kept.ok_or(Error::BadKey)?;
        let digest = token_digest(sent);
        // Both are SHA-256 hex of fixed length: comparing them in constant time leaks
        // nothing about the key even to a caller who can time answers.
        let same = digest.len() == kept.digest_hex.len()
            && digest.bytes().zip(kept.digest_hex.bytes()).fold(0u8, |d, (a, b)| d | (a ^ b)) == 0;
        if !same || kept.revoked_ms != 0 {
            return Err(Error::BadKey);
        }
        Ok(Caller { tenant: kept.tenant, key_id: kept.key_id, scopes: kept.scopes })
    }

    /// Forgets a key at once (this replica revoked it).
    pub fn forget(&self, key_id: &str) {
        self.cache.remove(key_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use store::MemoryStore;
    use tonic::metadata::MetadataValue;

    fn meta(key: &str) -> MetadataMap {
        let mut m = MetadataMap::new();
        m.insert("authorization", MetadataValue::try_from(format!("Bearer {key}")).expect("ascii"));
        m
    }

    #[tokio::test]
    async fn a_key_authenticates_its_tenant_with_its_scopes_until_revoked() {
        let store = Arc::new(MemoryStore::new());
        let tenant = TenantId::random();
        let (key, kept) = make_key(tenant, vec![RESULTS_READ.into()], "ci".into());
        assert!(key_id_of(&key).is_some(), "{key}");
        assert!(!kept.digest_hex.contains(&key) && kept.digest_hex.len() == 64);
        store.put_api_key(&kept).await.expect("put");
        let keys = Keys::new(store.clone());
        let caller = keys.caller(&meta(&key)).await.expect("caller");
        assert_eq!(caller.tenant, tenant);
        assert!(caller.may(RESULTS_READ).is_ok());
        assert!(matches!(caller.may(MATCHES_CREATE), Err(Error::ScopeMissing(MATCHES_CREATE))));
        // The same id with another secret is no key.
        let forged = format!("{}{}", &key[..key.len() - 4], "0000");
        let forged = if forged == key { format!("{}1111", &key[..key.len() - 4]) } else { forged };
        assert!(matches!(keys.caller(&meta(&forged)).await, Err(Error::BadKey)));
        for bad in ["", "ck_", "Bearer", "ck_zz_zz", &key[..10]] {
            assert!(matches!(keys.caller(&meta(bad)).await, Err(Error::BadKey)), "{bad}");
        }
        assert!(matches!(keys.caller(&MetadataMap::new()).await, Err(Error::BadKey)));
        store.put_api_key(&ApiKey { revoked_ms: 1, ..kept.clone() }).await.expect("revoke");
        keys.forget(&kept.key_id);
        assert!(matches!(keys.caller(&meta(&key)).await, Err(Error::BadKey)));
    }
}
