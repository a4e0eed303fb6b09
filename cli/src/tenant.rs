//! `colosseum tenant ...`: tenants and their API keys, through the tournament service's
//! TenantAdminService with the internal secret. `colosseum run` writes where that is and
//! its secret to a file in the config directory (0600) named after its gateway's address,
//! `admin-127.0.0.1-50051.json` for the default one ([`admin_path`]), so clusters on other
//! addresses of one machine keep theirs apart; `colosseum tenant --gateway ADDR` reads the
//! one of that gateway (default 127.0.0.1:50051). `--url` and `INTERNAL_TOKEN` (or
//! `INTERNAL_TOKEN_FILE`) name another cluster's.

use api::internal::{self, tenant_admin_service_client::TenantAdminServiceClient};
use clap::{Args, Subcommand};
use serde::{Deserialize, Serialize};
use service_kit::internal::{InternalToken, Stamp};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Where an operator reaches the tenant admin: written by `colosseum run`.
#[derive(Serialize, Deserialize, PartialEq, Eq, Debug)]
pub struct Admin {
    /// The tournament service's URL.
    pub url: String,
    /// The internal secret.
    pub token: String,
}

/// A gateway's address as a part of a file name: the scheme and any path dropped, a host
/// of `localhost` or an unspecified address (`0.0.0.0`, `[::]`: a gateway listening on
/// every interface) read as the loopback a local command reaches it by, and every
/// character but letters, digits, `.` and `-` made a `-`. `http://127.0.0.1:50051/` and
/// `0.0.0.0:50051` both give `127.0.0.1-50051`.
pub fn gateway_key(gateway: &str) -> String {
    let rest = gateway.split_once("://").map_or(gateway, |(_, r)| r);
    let authority = rest.split('/').next().unwrap_or_default().to_ascii_lowercase();
    let authority = match authority.parse::<std::net::SocketAddr>() {
        Ok(mut a) if a.ip().is_unspecified() => {
            a.set_ip(match a {
                std::net::SocketAddr::V4(_) => std::net::Ipv4Addr::LOCALHOST.into(),
                std::net::SocketAddr::V6(_) => std::net::Ipv6Addr::LOCALHOST.into(),
            });
            a.to_string()
        }
        _ => match authority.strip_prefix("localhost:") {
            Some(port) => format!("127.0.0.1:{port}"),
            None => authority,
        },
    };
    let key: String = authority
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '.' { c } else { '-' })
        .collect();
    let key = key.trim_matches('-');
    if key.is_empty() { "unknown".into() } else { key.chars().take(200).collect() }
}

/// The file `colosseum run` writes for its gateway at `gateway`, and `colosseum tenant`
/// reads for it.
pub fn admin_path(dir: &Path, gateway: &str) -> PathBuf {
    dir.join(format!("admin-{}.json", gateway_key(gateway)))
}

/// Writes `admin` (0600) for `colosseum tenant`, under the name of `gateway`.
///
/// # Errors
/// The file cannot be written.
pub fn save_admin(dir: &Path, gateway: &str, admin: &Admin) -> Result<PathBuf, String> {
    use std::io::Write;
    use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(dir)
        .map_err(|e| e.to_string())?;
    let path = admin_path(dir, gateway);
    let mut f = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| e.to_string())?;
    f.write_all(serde_json::to_string(admin).map_err(|e| e.to_string())?.as_bytes())
        .map_err(|e| e.to_string())?;
    Ok(path)
}

/// Removes the file [`save_admin`] wrote for `gateway` if it still holds `admin` (a
/// cluster started on that address since keeps its own); answers whether it did.
pub fn remove_admin(dir: &Path, gateway: &str, admin: &Admin) -> bool {
    let path = admin_path(dir, gateway);
    let ours = std::fs::read_to_string(&path)
        .ok()
        .and_then(|t| serde_json::from_str::<Admin>(&t).ok())
        .is_some_and(|a| a == *admin);
    ours && std::fs::remove_file(&path).is_ok()
}

/// The admin file of `gateway`, read; `Ok(None)` when there is none.
///
/// # Errors
/// A file that cannot be read or parsed, named.
fn load_admin(path: &Path) -> Result<Option<Admin>, String> {
    match std::fs::read_to_string(path) {
        Ok(t) => serde_json::from_str(&t)
            .map(Some)
            .map_err(|e| format!("{}: not a tenant admin file: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
}

/// Options of `colosseum tenant`.
#[derive(Args)]
pub struct TenantArgs {
    /// The tournament service (default: the one `colosseum run` wrote to the admin file of
    /// --gateway).
    #[arg(long, global = true)]
    url: Option<String>,
    /// The gateway of the cluster (`colosseum run --addr`): picks its admin file,
    /// admin-<address>.json in the config directory.
    #[arg(long, global = true, default_value = crate::session::DEFAULT_GATEWAY)]
    gateway: String,
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

/// Where the tenant admin is and its secret: `--url` and `INTERNAL_TOKEN` (or
/// `INTERNAL_TOKEN_FILE`) when given, else the admin file of `gateway`.
fn target(url: Option<String>, gateway: &str) -> Result<(String, Option<InternalToken>), String> {
    let from_env = ["INTERNAL_TOKEN", "INTERNAL_TOKEN_FILE", "INTERNAL_AUTH"]
        .iter()
        .any(|v| std::env::var_os(v).is_some());
    if let (Some(url), true) = (&url, from_env) {
        let token = service_kit::internal::from_env().map_err(|e| e.to_string())?;
        return Ok((url.clone(), token));
    }
    let dir = crate::session::dir()?;
    let path = admin_path(&dir, gateway);
    let Some(saved) = load_admin(&path)? else {
        return Err(format!(
            "no tenant admin file for gateway {gateway}: {} does not exist; `colosseum run` \
             writes it for its --addr while it runs (give --gateway ADDR for a cluster on \
             another address), or give --url and INTERNAL_TOKEN for a cluster elsewhere",
            path.display()
        ));
    };
    let token = if from_env {
        service_kit::internal::from_env().map_err(|e| e.to_string())?
    } else {
        Some(InternalToken::new(&saved.token)?)
    };
    Ok((url.unwrap_or(saved.url), token))
}

async fn connect(url: Option<String>, gateway: &str) -> Result<Client, String> {
    let (url, token) = target(url, gateway)?;
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
        let mut c = connect(args.url, &args.gateway).await?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_gateway_names_its_file_and_two_addresses_do_not_collide() {
        let dir = Path::new("/config");
        let default = dir.join("admin-127.0.0.1-50051.json");
        for same in [
            "http://127.0.0.1:50051",
            "http://127.0.0.1:50051/",
            "127.0.0.1:50051",
            "0.0.0.0:50051",
            "http://localhost:50051",
            crate::session::DEFAULT_GATEWAY,
        ] {
            assert_eq!(admin_path(dir, same), default, "{same}");
        }
        let others = [
            "http://127.0.0.1:50052",
            "10.0.0.7:50051",
            "[::1]:50051",
            "https://games.example.org:443/x",
        ];
        let mut names: Vec<PathBuf> = others.iter().map(|g| admin_path(dir, g)).collect();
        names.push(default);
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "{names:?}");
        for n in &names {
            let file = n.file_name().unwrap().to_str().unwrap();
            assert!(file.chars().all(|c| c.is_ascii_alphanumeric() || "-.".contains(c)), "{file}");
        }
        assert_eq!(gateway_key("[::]:50051"), gateway_key("[::1]:50051"));
        assert_eq!(gateway_key("../../etc/passwd"), "..");
    }

    #[test]
    fn each_run_finds_and_removes_its_own_file_alone() {
        let dir = std::env::temp_dir().join(format!("colosseum-admin-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let a = Admin { url: "http://127.0.0.1:1".into(), token: "a".repeat(32) };
        let b = Admin { url: "http://127.0.0.1:2".into(), token: "b".repeat(32) };
        let path_a = save_admin(&dir, "127.0.0.1:50051", &a).unwrap();
        let path_b = save_admin(&dir, "http://127.0.0.1:50061", &b).unwrap();
        assert_ne!(path_a, path_b);
        assert_eq!(load_admin(&admin_path(&dir, "http://127.0.0.1:50051")).unwrap(), Some(a));
        assert_eq!(load_admin(&admin_path(&dir, "127.0.0.1:50061")).unwrap().as_ref(), Some(&b));
        assert_eq!(load_admin(&admin_path(&dir, "127.0.0.1:50071")).unwrap(), None);
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path_b).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        // Another cluster's secret now in the file: not removed.
        let c = Admin { url: b.url.clone(), token: "c".repeat(32) };
        assert!(!remove_admin(&dir, "127.0.0.1:50061", &c));
        assert!(remove_admin(&dir, "127.0.0.1:50061", &b));
        assert!(!path_b.exists() && path_a.exists());
        std::fs::write(&path_a, "{").unwrap();
        let broken = load_admin(&path_a).unwrap_err();
        assert!(broken.contains(&path_a.display().to_string()), "{broken}");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
