//! `colosseum load --bulk N`: the platform API's CreateMatches timed. An in-process
//! cluster (Redis at REDIS_URL, else in memory), a tenant and key made through its
//! tenant admin, two guest players, then `--bulk-runs` calls of N matches each (new keys),
//! each timed from the request to the answer (every match created and announced).

use super::{LoadArgs, percentile};
use api::internal::{self, tenant_admin_service_client::TenantAdminServiceClient};
use api::v1;
use client::Client;
use client::platform::Platform;
use serde_json::json;
use service_kit::internal::Stamp;
use std::time::Instant;

/// Runs the bulk benchmark.
///
/// # Errors
/// The cluster cannot start, or a call fails.
pub async fn run(args: &LoadArgs) -> Result<serde_json::Value, String> {
    let store = store::open_full_store_from_env().await.map_err(|e| e.to_string())?;
    let cluster = in_process::Cluster::start(store, "127.0.0.1:0".parse().expect("an address"))
        .await
        .map_err(|e| e.to_string())?;
    let fail = |s: tonic::Status| format!("{}: {}", s.code(), s.message());
    let (p, a, b) = tenant_and_players(&cluster, "bulk bench", "bulk").await?;
    let spec = v1::MatchSpec {
        game: Some(v1::GameSpec {
            game: args.game.clone(),
            options_json: String::new(),
            move_time_ms: 0,
        }),
        seat0_player_id: a.player_id().to_string(),
        seat1_player_id: b.player_id().to_string(),
        start_at_ms: 0,
        label: String::new(),
    };
    let mut runs_ms = Vec::new();
    for run in 0..args.bulk_runs {
        let req = v1::CreateMatchesRequest {
            idempotency_key: format!("bench-{run}-{}", uuid::Uuid::new_v4()),
            matches: vec![spec.clone(); args.bulk as usize],
            validate_only: false,
        };
        #[allow(clippy::disallowed_methods)] // The load client measures wall time.
        let t0 = Instant::now();
        let ids =
            p.api().create_matches(p.request(req)).await.map_err(fail)?.into_inner().match_ids;
        let ms = t0.elapsed().as_secs_f64() * 1000.0;
        if ids.len() as u64 != args.bulk {
            return Err(format!("{} ids for {} matches", ids.len(), args.bulk));
        }
        eprintln!("run {}: {} matches in {ms:.0} ms", run + 1, args.bulk);
        runs_ms.push(ms);
    }
    cluster.shutdown().await;
    let mut sorted: Vec<u64> = runs_ms.iter().map(|m| (*m * 1000.0) as u64).collect();
    sorted.sort_unstable();
    let median = percentile(&sorted, 0.5);
    Ok(json!({
        "game": args.game,
        "bulk": {
            "matches": args.bulk,
            "runs_ms": runs_ms,
            "median_ms": median,
            "matches_per_s": if median > 0.0 { args.bulk as f64 * 1000.0 / median } else { 0.0 },
        },
        "store": store::description_from_env(),
    }))
}

/// Matches created through CreateMatches at most 10,000 a call (`label` names the calls'
/// idempotency keys): `spec(i, now_ms)` is match `i`'s, `now_ms` read once a call. The
/// ids in order; `bar` goes up by each call's matches.
///
/// # Errors
/// A call refused, or its answer not one id per match.
pub(super) async fn create_in_calls(
    p: &Platform,
    label: &str,
    n: u64,
    bar: &indicatif::ProgressBar,
    mut spec: impl FnMut(u64, u64) -> v1::MatchSpec,
) -> Result<Vec<store::MatchId>, String> {
    const PER_CALL: u64 = 10_000;
    let mut ids = Vec::with_capacity(usize::try_from(n).unwrap_or(0));
    for call in 0..n.div_ceil(PER_CALL) {
        let range = call * PER_CALL..n.min((call + 1) * PER_CALL);
        let now = service_kit::time::now_ms();
        let req = v1::CreateMatchesRequest {
            idempotency_key: format!("{label}-{call}-{}", uuid::Uuid::new_v4()),
            matches: range.clone().map(|i| spec(i, now)).collect(),
            validate_only: false,
        };
        let answered = p
            .api()
            .create_matches(p.request(req))
            .await
            .map_err(|s| format!("{}: {}", s.code(), s.message()))?
            .into_inner()
            .match_ids;
        if answered.len() as u64 != range.end - range.start {
            return Err(format!("{} ids for {} matches", answered.len(), range.end - range.start));
        }
        for id in answered {
            ids.push(id.parse().map_err(|_| format!("a match id {id:?}"))?);
        }
        bar.inc(range.end - range.start);
    }
    Ok(ids)
}

/// A tenant named `tenant` with a `matches:create` key, made through `cluster`'s tenant
/// admin, its platform client on the gateway, and two guest players (`{prefix}-a`,
/// `{prefix}-b`).
///
/// # Errors
/// A call fails.
pub(super) async fn tenant_and_players(
    cluster: &in_process::Cluster,
    tenant: &str,
    prefix: &str,
) -> Result<(Platform, Client, Client), String> {
    let url = cluster.gateway_url();
    let admin_url = cluster.tournaments_urls().first().cloned().ok_or("no tournament service")?;
    let channel = tonic::transport::Endpoint::from_shared(admin_url)
        .map_err(|e| e.to_string())?
        .connect()
        .await
        .map_err(|e| e.to_string())?;
    let mut admin = TenantAdminServiceClient::with_interceptor(
        channel,
        Stamp::new(Some(cluster.internal_token())),
    );
    let fail = |s: tonic::Status| format!("{}: {}", s.code(), s.message());
    let tenant = admin
        .create_tenant(internal::CreateTenantRequest { name: tenant.to_string() })
        .await
        .map_err(fail)?
        .into_inner()
        .tenant
        .ok_or("no tenant")?;
    let key = admin
        .create_api_key(internal::CreateApiKeyRequest {
            tenant_id: tenant.tenant_id,
            scopes: vec!["matches:create".into()],
            label: "bench".into(),
        })
        .await
        .map_err(fail)?
        .into_inner()
        .key;
    let p = Platform::connect(&url, &key).map_err(|e| e.to_string())?;
    let a = Client::guest(&url, &format!("{prefix}-a")).await.map_err(|e| e.to_string())?;
    let b = Client::guest(&url, &format!("{prefix}-b")).await.map_err(|e| e.to_string())?;
    Ok((p, a, b))
}
