//! `colosseum tenant ...`: tenants and their API keys, through the tournament service's
//! TenantAdminService with the internal secret. `colosseum run` writes where that is and
//! its secret to `admin.json` in the config directory (0600); `--url` and `INTERNAL_TOKEN`
//! (or `INTERNAL_TOKEN_FILE`) name another cluster's.

use api::internal::{self, tenant_admin_service_client::TenantAdminServiceClient};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use service_kit::internal::{InternalToken, Stamp};
use std::path::Path;
use std::process::ExitCode;

/// Where an operator reaches the tenant admin: written by `colosseum run`.
#[derive(Serialize, Deserialize)]
pub struct Admin {
    /// The tournament service's URL.
    pub url: String,
    /// The internal secret.
    pub token: String,
}

/// The file `colosseum run` writes.
pub fn admin_path(dir: &Path) -> std::path::PathBuf {
    dir.join("admin.json")
}

/// Writes `admin` (0600) for `colosseum tenant`.
///
/// # Errors
/// The file cannot be written.
pub fn save_admin(dir: &Path, admin: &Admin) -> Result<(), String> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| e.to_string())?;
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(admin_path(dir))
        .map_err(|e| e.to_string())?;
    f.write_all(serde_json::to_string(admin).map_err(|e| e.to_string())?.as_bytes())
        .map_err(|e| e.to_string())
}

/// Options of `colosseum tenant`.
#[derive(Args)]
pub struct TenantArgs {
    /// The tournament service (default: the one `colosseum run` wrote to admin.json).
    #[arg(long, global = true)]
    url: Option<String>,
    #[command(subcommand)]
    action: Action,
}

#[derive(Subcommand)]
enum Action {
    /// Create a tenant; prints its id.
    Create {
        /// Its name.
        #[arg(long)]
        name: String,
    },
    /// List the tenants.
    List,
    /// Manage a tenant's API keys.
    Key {
        #[command(subcommand)]
        action: KeyAction,
    },
    /// Print the tail of a tenant's audit log.
    Audit {
        /// The tenant id.
        #[arg(long)]
        tenant: String,
        /// How many entries.
        #[arg(long, default_value_t = 50)]
        limit: u32,
    },
}

#[derive(Subcommand)]
enum KeyAction {
    /// Create a key; prints it (this once).
    Create {
        /// The tenant id.
        #[arg(long)]
        tenant: String,
        /// A scope: matches:create, tournaments:manage, results:read (repeat; default all).
        #[arg(long = "scope")]
        scopes: Vec<String>,
        /// A label for people.
        #[arg(long, default_value = "")]
        label: String,
    },
    /// Revoke a key by its id.
    Revoke {
        /// The key id (the part after `ck_`, before the second `_`).
        key_id: String,
    },
    /// List a tenant's keys.
    List {
        /// The tenant id.
        #[arg(long)]
        tenant: String,
    },
}

type Client = TenantAdminServiceClient<
    tonic::service::interceptor::InterceptedService<tonic::transport::Channel, Stamp>,
>;

async fn connect(url: Option<String>) -> Result<Client, String> {
    let saved: Option<Admin> = crate::session::config_dir()
        .and_then(|d| std::fs::read_to_string(admin_path(&d)).ok())
        .and_then(|t| serde_json::from_str(&t).ok());
    let from_env = ["INTERNAL_TOKEN", "INTERNAL_TOKEN_FILE", "INTERNAL_AUTH"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    let token = match (&saved, from_env) {
        (Some(a), false) => Some(InternalToken::new(&a.token)?),
        _ => service_kit::internal::from_env().map_err(|e| e.to_string())?,
    };
    let url = url
        .or_else(|| saved.map(|a| a.url))
        .ok_or("no tournament service: start `colosseum run`, or give --url and INTERNAL_TOKEN")?;
    let channel = service_kit::config::endpoint(&url)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| format!("cannot reach {url}: {e}"))?;
    Ok(TenantAdminServiceClient::with_interceptor(channel, Stamp::new(token.as_ref())))
}

/// Runs `colosseum tenant`.
pub fn run(args: TenantArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Runtime::new().map_err(|e| e.to_string())?;
    rt.block_on(async move {
        let mut c = connect(args.url).await?;
        let fail = |s: tonic::Status| {
            format!("{}: {}", service_kit::status::code_name(s.code()), s.message())
        };
        match args.action {
            Action::Create { name } => {
                let t =
                    c.create_tenant(internal::CreateTenantRequest { name }).await.map_err(fail)?;
                let t = t.into_inner().tenant.unwrap_or_default();
                println!("{}", t.tenant_id);
            }
            Action::List => {
                for t in c
                    .list_tenants(internal::ListTenantsRequest {})
                    .await
                    .map_err(fail)?
                    .into_inner()
                    .tenants
                {
                    println!("{}  {}", t.tenant_id, t.name);
                }
            }
            Action::Key { action: KeyAction::Create { tenant, scopes, label } } => {
                let scopes = if scopes.is_empty() {
                    vec![
                        "matches:create".into(),
                        "tournaments:manage".into(),
                        "results:read".into(),
                    ]
                } else {
                    scopes
                };
                let k = c
                    .create_api_key(internal::CreateApiKeyRequest {
                        tenant_id: tenant,
                        scopes,
                        label,
                    })
                    .await
                    .map_err(fail)?
                    .into_inner();
                println!("{}", k.key);
                eprintln!("(shown this once; only its hash is kept)");
            }
            Action::Key { action: KeyAction::Revoke { key_id } } => {
                c.revoke_api_key(internal::RevokeApiKeyRequest { key_id }).await.map_err(fail)?;
                println!("revoked");
            }
            Action::Key { action: KeyAction::List { tenant } } => {
                let keys = c
                    .list_api_keys(internal::ListApiKeysRequest { tenant_id: tenant })
                    .await
                    .map_err(fail)?;
                for k in keys.into_inner().keys {
                    let state = if k.revoked_at_ms == 0 { "live" } else { "revoked" };
                    println!("{}  {}  {}  {}", k.key_id, k.scopes.join(","), state, k.label);
                }
            }
            Action::Audit { tenant, limit } => {
                let a = c
                    .read_audit(internal::ReadAuditRequest { tenant_id: tenant, limit })
                    .await
                    .map_err(fail)?;
                for e in a.into_inner().entries {
                    println!("{}  {}  {}  {}", e.at_ms, e.actor, e.action, e.detail_json);
                }
            }
        }
        Ok(ExitCode::SUCCESS)
    })
}
