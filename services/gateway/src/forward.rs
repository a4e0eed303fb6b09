//! The gateway's fronts for services it passes on whole (the match-maker's LobbyService,
//! the tournament service's TournamentService and its public pages): one balanced channel
//! over a service's replicas, one way a request goes on (the caller, the client's address,
//! the session token, the trace context) and one way an answer comes back, and the macro
//! that writes a front's methods from their names.

use crate::auth::Caller;
use crate::forwarded::ClientAddress;
use service_kit::internal::{CLIENT_HEADER, PLAYER_HEADER};
use service_kit::telemetry::TraceContext;
use tonic::metadata::MetadataValue;
use tonic::transport::Channel;
use tonic::{Request, Status};

/// One channel over every replica of a backend at `urls`, balanced past one that is down.
///
/// # Errors
/// A URL that does not parse.
pub fn balanced(urls: &[String]) -> Result<Channel, service_kit::config::BadUrl> {
    let endpoints = urls
        .iter()
        .map(|u| {
            service_kit::config::endpoint(u).map(|e| {
                e.connect_timeout(std::time::Duration::from_secs(2))
                    .tcp_keepalive(Some(std::time::Duration::from_secs(30)))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Channel::balance_list(endpoints.into_iter()))
}

/// The request to send on: the message with only the metadata the backend may read.
pub(crate) fn onward<T>(req: Request<T>) -> Request<T> {
    let caller = req.extensions().get::<Caller>().map(|c| c.player_id);
    let addr = req.extensions().get::<ClientAddress>().map(|a| a.0);
    let authorization = req.metadata().get("authorization").cloned();
    let trace = TraceContext::from_metadata(req.metadata());
    let mut out = Request::new(req.into_inner());
    let m = out.metadata_mut();
    if let Some(player) = caller
        && let Ok(v) = MetadataValue::try_from(player.to_string())
    {
        m.insert(PLAYER_HEADER, v);
    }
    if let Some(addr) = addr
        && let Ok(v) = MetadataValue::try_from(addr.to_string())
    {
        m.insert(CLIENT_HEADER, v);
    }
    if let Some(v) = authorization {
        m.insert("authorization", v);
    }
    trace.inject(m);
    out
}

/// The match-maker's answer as the client gets it: its own refusals as they are; a
/// transport failure (its replica down or restarting) as UNAVAILABLE, which the retry
/// contract says to retry, as for the rules engines.
pub(crate) fn relay(s: Status) -> Status {
    if service_kit::status::is_transport_failure(&s) {
        service_kit::status::unavailable(s)
    } else {
        s
    }
}

/// Writes `$service` for `$front` (which has `fn client(&self) -> Result<Client, Status>`):
/// each unary method and the server stream passed on with [`onward`] and answered back
/// through [`relay`].
macro_rules! forward {
    (
        $service:ident for $front:ty;
        unary { $($method:ident: $req:ident => $resp:ident;)* }
        stream $smethod:ident: $sreq:ident => $sresp:ident as $stype:ident;
    ) => {
        #[tonic::async_trait]
        impl $service for $front {
            $(
                async fn $method(
                    &self,
                    req: tonic::Request<api::v1::$req>,
                ) -> Result<tonic::Response<api::v1::$resp>, tonic::Status> {
                    self.client()?
                        .$method($crate::forward::onward(req))
                        .await
                        .map_err($crate::forward::relay)
                }
            )*

            type $stype = std::pin::Pin<
                Box<dyn tokio_stream::Stream<Item = Result<api::v1::$sresp, tonic::Status>> + Send>,
            >;

            async fn $smethod(
                &self,
                req: tonic::Request<api::v1::$sreq>,
            ) -> Result<tonic::Response<Self::$stype>, tonic::Status> {
                use tokio_stream::StreamExt;
                let stream = self
                    .client()?
                    .$smethod($crate::forward::onward(req))
                    .await
                    .map_err($crate::forward::relay)?
                    .into_inner();
                Ok(tonic::Response::new(Box::pin(
                    stream.map(|m| m.map_err($crate::forward::relay)),
                )))
            }
        }
    };
}
pub(crate) use forward;

#[cfg(test)]
mod tests {
    use super::*;
    use tonic::Code;

    #[test]
    fn a_transport_failure_is_unavailable_and_a_refusal_passes_as_it_is() {
        let broken = Status::from_error(Box::new(std::io::Error::other("connection reset")));
        assert_eq!(relay(broken).code(), Code::Unavailable);
        let refused = Status::failed_precondition("the seek is no longer open");
        let passed = relay(refused);
        assert_eq!(
            (passed.code(), passed.message()),
            (Code::FailedPrecondition, "the seek is no longer open")
        );
    }
}
