//! `colosseum health`: asks a server's grpc.health.v1 whether it serves, for probes that
//! have no other tool (compose healthchecks in the distroless image, scripts). Exit 0:
//! SERVING; 1: anything else (not serving, no answer within the timeout).

use clap::Args;
use std::process::ExitCode;
use std::time::Duration;
use tonic_health::pb::health_check_response::ServingStatus;
use tonic_health::pb::{HealthCheckRequest, health_client::HealthClient};

/// Options of `colosseum health`.
#[derive(Args)]
pub struct HealthArgs {
    /// The server, e.g. http://127.0.0.1:50061.
    url: String,
    /// The service to ask about (empty: the server as a whole).
    #[arg(long, default_value = "")]
    service: String,
    /// How long to wait for the answer, ms.
    #[arg(long, default_value_t = 2000)]
    timeout_ms: u64,
}

/// What the server at `url` says of `service` (a `ServingStatus` number), within
/// `timeout`; or why it said nothing.
pub async fn status(url: &str, service: &str, timeout: Duration) -> Result<i32, String> {
    let ask = async {
        let channel = service_kit::config::endpoint(url)
            .map_err(|e| e.to_string())?
            .connect_timeout(timeout)
            .connect()
            .await
            .map_err(|e| format!("cannot connect: {e}"))?;
        let answer = HealthClient::new(channel)
            .check(HealthCheckRequest { service: service.to_string() })
            .await
            .map_err(|s| format!("{:?}: {}", s.code(), s.message()))?;
        Ok(answer.into_inner().status)
    };
    tokio::time::timeout(timeout, ask).await.unwrap_or_else(|_| Err("no answer in time".into()))
}

/// Runs `colosseum health`.
pub fn run(args: HealthArgs) -> Result<ExitCode, String> {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let timeout = Duration::from_millis(args.timeout_ms);
    match rt.block_on(status(&args.url, &args.service, timeout)) {
        Ok(s) if s == ServingStatus::Serving as i32 => {
            println!("SERVING");
            Ok(ExitCode::SUCCESS)
        }
        Ok(s) => {
            println!("{:?}", ServingStatus::try_from(s).unwrap_or(ServingStatus::Unknown));
            Ok(ExitCode::from(1))
        }
        Err(e) => {
            println!("not serving: {e}");
            Ok(ExitCode::from(1))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn status_reads_what_the_server_reports_and_says_why_when_it_cannot() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let (reporter, health) = tonic_health::server::health_reporter();
        reporter
            .set_service_status("colosseum.test", tonic_health::ServingStatus::NotServing)
            .await;
        let stop = tokio_util::sync::CancellationToken::new();
        let server = tokio::spawn(
            tonic::transport::Server::builder().add_service(health).serve_with_incoming_shutdown(
                tokio_stream::wrappers::TcpListenerStream::new(listener),
                stop.clone().cancelled_owned(),
            ),
        );
        let t = Duration::from_secs(2);
        assert_eq!(status(&url, "", t).await, Ok(ServingStatus::Serving as i32));
        assert_eq!(status(&url, "colosseum.test", t).await, Ok(ServingStatus::NotServing as i32));
        let unknown = status(&url, "nope", t).await.unwrap_err();
        assert!(unknown.contains("NotFound"), "{unknown}");
        stop.cancel();
        server.await.unwrap().unwrap();
        let gone = status(&url, "", t).await.unwrap_err();
        assert!(gone.contains("cannot connect"), "{gone}");
        assert!(status("nonsense", "", t).await.is_err());
    }
}
