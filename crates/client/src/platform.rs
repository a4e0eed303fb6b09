//! The platform API (`colosseum.v1.TournamentService`) as a tenant calls it: every request
//! carries the tenant's API key. Thin on purpose: [`Platform::api`] is the generated client
//! and [`Platform::request`] wraps a message with the key, so every RPC reads as the proto
//! names it.

use crate::{Error, channel};
use api::v1::tournament_service_client::TournamentServiceClient;
use tonic::Request;
use tonic::metadata::{Ascii, MetadataValue};
use tonic::transport::Channel;

/// The largest message either way: a 10,000-match CreateMatches is about 1.5 MB.
pub const MAX_MESSAGE_BYTES: usize = 8 * 1024 * 1024;

/// A tenant's connection to the platform API.
#[derive(Clone)]
pub struct Platform {
    api: TournamentServiceClient<Channel>,
    authorization: MetadataValue<Ascii>,
}

impl Platform {
    /// The gateway at `url`, calling with the API key `key` (`ck_...`).
    ///
    /// # Errors
    /// A URL that does not parse, or a key that is no header value.
    pub fn connect(url: &str, key: &str) -> Result<Platform, Error> {
        Platform::on(channel(url)?, key)
    }

    /// Over an open channel.
    ///
    /// # Errors
    /// A key that is no header value.
    pub fn on(channel: Channel, key: &str) -> Result<Platform, Error> {
        let authorization = format!("Bearer {key}").parse().map_err(|_| Error::BadToken)?;
        let api = TournamentServiceClient::new(channel)
            .max_decoding_message_size(MAX_MESSAGE_BYTES)
            .max_encoding_message_size(MAX_MESSAGE_BYTES);
        Ok(Platform { api, authorization })
    }

    /// The generated client (cheap to clone; one per call is fine).
    pub fn api(&self) -> TournamentServiceClient<Channel> {
        self.api.clone()
    }

    /// `message` as a request carrying the key.
    pub fn request<T>(&self, message: T) -> Request<T> {
        let mut r = Request::new(message);
        r.metadata_mut().insert("authorization", self.authorization.clone());
        r
    }
}
