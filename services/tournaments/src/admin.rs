//! TenantAdminService: tenants, their API keys and audit logs, for operators
//! (`colosseum tenant ...`), behind the internal secret. Every change is audited.

use crate::auth::{self, Keys, SCOPES};
use crate::error::Error;
use api::internal::{self, tenant_admin_service_server::TenantAdminService};
use service_kit::time::now_ms;
use std::sync::Arc;
use store::{ApiKey, TenantId, TenantStore};
use tonic::{Request, Response, Status};

/// The longest tenant name.
pub const MAX_NAME_BYTES: usize = 128;
/// The most audit entries one read answers.
pub const MAX_AUDIT: u32 = 1_000;

/// Appends an audit entry: who did what, with details.
///
/// # Errors
/// The store failed.
pub async fn audit(
    store: &Arc<dyn TenantStore>,
    tenant: TenantId,
    actor: &str,
    action: &str,
    detail: serde_json::Value,
) -> Result<(), Error> {
    let entry = serde_json::json!({
        "at_ms": now_ms(), "actor": actor, "action": action, "detail": detail,
    });
    store.audit(tenant, &entry.to_string()).await?;
    Ok(())
}

/// The admin service.
pub struct Admin {
    store: Arc<dyn TenantStore>,
    keys: Keys,
}

impl Admin {
    /// Over `store`; revocations also leave `keys`' cache at once.
    pub fn new(store: Arc<dyn TenantStore>, keys: Keys) -> Admin {
        Admin { store, keys }
    }

    async fn tenant(&self, id: &str) -> Result<TenantId, Error> {
        let id: TenantId = api_convert::uuid_field("tenant_id", id)?;
        self.store.tenant(id).await?.ok_or(Error::NotFound("tenant"))?;
        Ok(id)
    }
}

fn key_info(k: &ApiKey) -> internal::ApiKeyInfo {
    internal::ApiKeyInfo {
        key_id: k.key_id.clone(),
        tenant_id: k.tenant.to_string(),
        scopes: k.scopes.clone(),
        label: k.label.clone(),
        created_at_ms: k.created_ms,
        revoked_at_ms: k.revoked_ms,
    }
}

fn tenant_info(t: &store::Tenant) -> internal::TenantInfo {
    internal::TenantInfo {
        tenant_id: t.id.to_string(),
        name: t.name.clone(),
        created_at_ms: t.created_ms,
    }
}

#[tonic::async_trait]
impl TenantAdminService for Admin {
    async fn create_tenant(
        &self,
        req: Request<internal::CreateTenantRequest>,
    ) -> Result<Response<internal::CreateTenantResponse>, Status> {
        let name = req.into_inner().name.trim().to_string();
        if name.is_empty() || name.len() > MAX_NAME_BYTES {
            return Err(Error::from(api_convert::bad(
                "name",
                format!("name is 1 to {MAX_NAME_BYTES} bytes"),
            ))
            .into());
        }
        let tenant = store::Tenant { id: TenantId::random(), name, created_ms: now_ms() };
        self.store.put_tenant(&tenant).await.map_err(Error::from)?;
        audit(
            &self.store,
            tenant.id,
            "operator",
            "CreateTenant",
            serde_json::json!({"name": tenant.name}),
        )
        .await?;
        tracing::info!(tenant = %tenant.id, "tenant created");
        Ok(Response::new(internal::CreateTenantResponse { tenant: Some(tenant_info(&tenant)) }))
    }

    async fn list_tenants(
        &self,
        _req: Request<internal::ListTenantsRequest>,
    ) -> Result<Response<internal::ListTenantsResponse>, Status> {
        let all = self.store.tenants().await.map_err(Error::from)?;
        Ok(Response::new(internal::ListTenantsResponse {
            tenants: all.iter().map(tenant_info).collect(),
        }))
    }

    async fn create_api_key(
        &self,
        req: Request<internal::CreateApiKeyRequest>,
    ) -> Result<Response<internal::CreateApiKeyResponse>, Status> {
        let req = req.into_inner();
        let tenant = self.tenant(&req.tenant_id).await?;
        let mut scopes: Vec<String> = req.scopes.clone();
        scopes.sort();
        scopes.dedup();
        if scopes.is_empty() || scopes.iter().any(|s| !SCOPES.contains(&s.as_str())) {
            return Err(Error::from(api_convert::bad(
                "scopes",
                format!("scopes are one or more of {}", SCOPES.join(", ")),
            ))
            .into());
        }
        if req.label.len() > 64 {
            return Err(
                Error::from(api_convert::bad("label", "label is at most 64 bytes".into())).into()
            );
        }
        let (key, kept) = auth::make_key(tenant, scopes, req.label);
        self.store.put_api_key(&kept).await.map_err(Error::from)?;
        audit(
            &self.store,
            tenant,
            "operator",
            "CreateApiKey",
            serde_json::json!({"key_id": kept.key_id, "scopes": kept.scopes}),
        )
        .await?;
        Ok(Response::new(internal::CreateApiKeyResponse { key, info: Some(key_info(&kept)) }))
    }

    async fn revoke_api_key(
        &self,
        req: Request<internal::RevokeApiKeyRequest>,
    ) -> Result<Response<internal::RevokeApiKeyResponse>, Status> {
        let key_id = req.into_inner().key_id;
        if key_id.len() > 64 {
            return Err(Error::from(api_convert::bad("key_id", "not a key id".into())).into());
        }
        let kept = self
            .store
            .api_key(&key_id)
            .await
            .map_err(Error::from)?
            .ok_or(Error::NotFound("key"))?;
        if kept.revoked_ms == 0 {
            let tenant = kept.tenant;
            self.store
                .put_api_key(&ApiKey { revoked_ms: now_ms(), ..kept })
                .await
                .map_err(Error::from)?;
            audit(
                &self.store,
                tenant,
                "operator",
                "RevokeApiKey",
                serde_json::json!({"key_id": key_id}),
            )
            .await?;
        }
        self.keys.forget(&key_id);
        Ok(Response::new(internal::RevokeApiKeyResponse {}))
    }

    async fn list_api_keys(
        &self,
        req: Request<internal::ListApiKeysRequest>,
    ) -> Result<Response<internal::ListApiKeysResponse>, Status> {
        let tenant = self.tenant(&req.into_inner().tenant_id).await?;
        let keys = self.store.api_keys_of(tenant).await.map_err(Error::from)?;
        Ok(Response::new(internal::ListApiKeysResponse {
            keys: keys.iter().map(key_info).collect(),
        }))
    }

    async fn read_audit(
        &self,
        req: Request<internal::ReadAuditRequest>,
    ) -> Result<Response<internal::ReadAuditResponse>, Status> {
        let req = req.into_inner();
        let tenant = self.tenant(&req.tenant_id).await?;
        let limit = match req.limit {
            0 => 100,
            n => n.min(MAX_AUDIT),
        };
        let tail = self.store.audit_tail(tenant, limit as usize).await.map_err(Error::from)?;
        let entries = tail
            .iter()
            .map(|json| {
                let v: serde_json::Value = serde_json::from_str(json).unwrap_or_default();
                internal::AuditEntry {
                    at_ms: v["at_ms"].as_u64().unwrap_or(0),
                    actor: v["actor"].as_str().unwrap_or_default().to_string(),
                    action: v["action"].as_str().unwrap_or_default().to_string(),
                    detail_json: v["detail"].to_string(),
                }
            })
            .collect();
        Ok(Response::new(internal::ReadAuditResponse { entries }))
    }
}
