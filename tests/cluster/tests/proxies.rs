//! The per-address login limit behind a load balancer, through real gateways: from a peer
//! the gateway does not trust, `x-forwarded-for` is ignored (a spoofed header gets no new
//! budget); from a trusted proxy (127.0.0.1/32 here, as `TRUSTED_PROXIES` would say),
//! each forwarded client has a budget of its own, the same client one budget whatever
//! it claims left of the proxy's entry, and a malformed header is refused.

use api::v1::{self, lobby_service_client::LobbyServiceClient};
use cluster_tests::Env;
use gateway::forwarded::TrustedProxies;
use match_maker::accounts::LOGIN_LIMIT_PER_ADDRESS;
use std::sync::atomic::{AtomicU64, Ordering};
use tonic::Code;
use tonic::transport::Channel;

/// A fresh unknown email each call: the per-account limit never comes into it.
fn email() -> String {
    static N: AtomicU64 = AtomicU64::new(0);
    format!("nobody-{}@example.org", N.fetch_add(1, Ordering::Relaxed))
}

/// One login of an unknown email with `forwarded` as `x-forwarded-for`: the code it is
/// answered with (UNAUTHENTICATED: counted and refused as bad credentials;
/// RESOURCE_EXHAUSTED: over the limit).
async fn login(lobby: &LobbyServiceClient<Channel>, forwarded: Option<&str>) -> Code {
    let mut req = tonic::Request::new(v1::LoginRequest {
        email: email(),
        password: "wrong password!".into(),
    });
    if let Some(f) = forwarded {
        req.metadata_mut().insert("x-forwarded-for", f.parse().expect("ascii"));
    }
    match lobby.clone().login(req).await {
        Ok(_) => panic!("an unknown email logged in"),
        Err(s) => s.code(),
    }
}

/// `n` logins, each with the `x-forwarded-for` `forwarded(i)` gives: how many were limited.
async fn logins(
    lobby: &LobbyServiceClient<Channel>,
    n: u32,
    forwarded: impl Fn(u32) -> Option<String>,
) -> u32 {
    let mut limited = 0;
    for i in 0..n {
        match login(lobby, forwarded(i).as_deref()).await {
            Code::Unauthenticated => {}
            Code::ResourceExhausted => limited += 1,
            other => panic!("login {i} answered {other:?}"),
        }
    }
    limited
}

async fn lobby(url: &str) -> LobbyServiceClient<Channel> {
    LobbyServiceClient::new(client::channel(url).expect("a channel"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_login_limit_keys_on_the_address_a_trusted_proxy_forwards() {
    let mut env = Env::start().await;
    let untrusted = lobby(&env.cluster.gateway_url()).await;
    let proxies = TrustedProxies::parse("127.0.0.1/32").expect("a list");
    let behind_lb = lobby(&env.cluster.start_gateway_trusting(proxies).await.expect("up")).await;

    // The first gateway trusts no one: every call is 127.0.0.1's, whatever it forwards,
    // so a new spoofed address per call gets no new budget.
    let spoofed = |i: u32| Some(format!("198.51.100.{}", i % 250));
    assert_eq!(logins(&untrusted, LOGIN_LIMIT_PER_ADDRESS, spoofed).await, 0);
    assert_eq!(login(&untrusted, Some("192.0.2.77")).await, Code::ResourceExhausted);
    assert_eq!(login(&untrusted, None).await, Code::ResourceExhausted);

    // Behind the trusted proxy, each forwarded client has its own budget, which the peer's
    // (127.0.0.1's, spent above) does not touch.
    let one = |_| Some("203.0.113.5".to_string());
    assert_eq!(logins(&behind_lb, LOGIN_LIMIT_PER_ADDRESS, one).await, 0);
    assert_eq!(login(&behind_lb, Some("203.0.113.5")).await, Code::ResourceExhausted);
    // The same client claiming another address left of the proxy's entry is still itself.
    assert_eq!(login(&behind_lb, Some("10.9.8.7, 203.0.113.5")).await, Code::ResourceExhausted);
    // Another client: a budget of its own.
    assert_eq!(login(&behind_lb, Some("203.0.113.6")).await, Code::Unauthenticated);
    // A chain through another trusted hop: the client right of it.
    assert_eq!(login(&behind_lb, Some("203.0.113.7, 127.0.0.1")).await, Code::Unauthenticated);
    assert_eq!(login(&behind_lb, Some("203.0.113.5, 127.0.0.1")).await, Code::ResourceExhausted);
    // No header from the proxy: the proxy itself, whose budget is spent.
    assert_eq!(login(&behind_lb, None).await, Code::ResourceExhausted);

    // A trusted proxy's header is checked, and refused without being echoed.
    let mut req = tonic::Request::new(v1::LoginRequest { email: email(), password: "x".into() });
    req.metadata_mut().insert("x-forwarded-for", "not-an-address".parse().expect("ascii"));
    let s = behind_lb.clone().login(req).await.expect_err("refused");
    assert_eq!(
        (s.code(), s.message()),
        (Code::InvalidArgument, "x-forwarded-for: entry 1 from the right is not an IP address")
    );
    let padded = format!("{}203.0.113.8", "192.0.2.1,".repeat(200));
    let mut req = tonic::Request::new(v1::LoginRequest { email: email(), password: "x".into() });
    req.metadata_mut().insert("x-forwarded-for", padded.parse().expect("ascii"));
    let s = behind_lb.clone().login(req).await.expect_err("refused");
    assert_eq!(
        (s.code(), s.message()),
        (Code::InvalidArgument, "x-forwarded-for is longer than 1024 bytes")
    );
    // The same from an untrusted peer is never read, so never refused.
    assert_eq!(login(&untrusted, Some(&padded)).await, Code::ResourceExhausted);
    env.shutdown().await;
}
