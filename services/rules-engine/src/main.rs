//! `rules-engine`: serves the families in `FAMILIES` (default all) on `ENGINE_ADDR`, over
//! Redis at `REDIS_URL` (or the in-memory store when unset), holding idle matches in memory
//! for `ENGINE_IDLE_MS` and at most `ENGINE_MAX_HOT_MATCHES`, keeping finished matches'
//! records for `RECORD_RETENTION_DAYS` (0: for ever). Callers must send the shared
//! secret of `INTERNAL_TOKEN` or `INTERNAL_TOKEN_FILE` (or `INTERNAL_AUTH=off`).
//! `COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS` is fault injection for tests only (the chaos trial):
//! each finished match's announcement waits that long after its final step is stored.

use games::Family;
use rules_engine::engine::Engine;
use service_kit::binary::Service;
use service_kit::config::ConfigError;
use std::process::ExitCode;
use std::sync::Arc;

/// The families of a `FAMILIES` list (comma-separated, blanks ignored).
///
/// # Errors
/// A name that is no family, or no family at all.
fn families(value: &str) -> Result<Vec<Family>, ConfigError> {
    let all = Family::ALL.map(Family::as_str).join(",");
    let families = service_kit::config::list(value)
        .iter()
        .map(|s| {
            Family::parse(s).ok_or_else(|| ConfigError {
                var: "FAMILIES",
                problem: format!("{s:?} is not a family (the families are {all})"),
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if families.is_empty() {
        return Err(ConfigError { var: "FAMILIES", problem: "lists no family".into() });
    }
    Ok(families)
}

const SERVICE: Service =
    Service { name: "rules-engine", addr_var: "ENGINE_ADDR", default_addr: "127.0.0.1:50061" };

#[tokio::main]
async fn main() -> ExitCode {
    SERVICE
        .run(store::open_host_store_from_env(), |up, store| async move {
            let all = Family::ALL.map(Family::as_str).join(",");
            let families = families(&service_kit::config::string("FAMILIES", &all))?;
            let idle_ms = service_kit::config::number("ENGINE_IDLE_MS", 120_000)?;
            let default_max = rules_engine::engine::DEFAULT_MAX_HOT_MATCHES as u64;
            let max_hot = service_kit::config::number("ENGINE_MAX_HOT_MATCHES", default_max)?;
            let default_days = rules_engine::engine::DEFAULT_RETENTION_MS / 86_400_000;
            let retention_days =
                service_kit::config::number("RECORD_RETENTION_DAYS", default_days)?;
            // Fault injection for tests only: never set in a deployment.
            let announce_delay_ms =
                service_kit::config::number("COLOSSEUM_FAULT_ANNOUNCE_DELAY_MS", 0)?;
            let engine = Arc::new(
                Engine::new(store, families.clone(), idle_ms)
                    .with_max_hot_matches(usize::try_from(max_hot).unwrap_or(usize::MAX))
                    .with_record_retention_ms(retention_days.saturating_mul(86_400_000))
                    .with_archive(store::archive::open_from_env().await?),
            );
            if announce_delay_ms > 0 {
                tracing::warn!(
                    announce_delay_ms,
                    "fault injection: announcements held after each final step"
                );
                engine.hold_announcements(announce_delay_ms);
            }
            let names = families.iter().map(|f| f.as_str()).collect::<Vec<_>>().join(",");
            tracing::info!(families = %names, "rules engine serving");
            Ok(rules_engine::serve(up.listener, engine, up.token, up.shutdown).await?)
        })
        .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_a_list() {
        assert_eq!(families("goofspiel,").unwrap(), [Family::Goofspiel]);
        assert_eq!(families(" duel , placement").unwrap(), [Family::Duel, Family::Placement]);
        let e = families("goofspiel,chess").unwrap_err();
        assert_eq!(e.var, "FAMILIES");
        assert_eq!(
            e.to_string(),
            "FAMILIES: \"chess\" is not a family (the families are goofspiel,placement,duel)"
        );
        assert_eq!(families(" , ").unwrap_err().var, "FAMILIES");
    }
}
