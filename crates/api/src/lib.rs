//! Generated code for proto/: the public API (`v1`) and the internal one (`internal`).
//! Nothing is written by hand here but the module tree; conversions live in `wire`.

#![allow(missing_docs, clippy::all, clippy::pedantic)]

/// The generated packages, nested as in proto/ (`colosseum.v1`, `colosseum.internal.v1`).
pub mod colosseum {
    /// The public API.
    pub mod v1 {
        tonic::include_proto!("colosseum.v1");
    }
    /// The internal API.
    pub mod internal {
        /// Version 1.
        pub mod v1 {
            tonic::include_proto!("colosseum.internal.v1");
        }
    }
}

pub use colosseum::internal::v1 as internal;
pub use colosseum::v1;

/// The encoded file descriptor set of every proto, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] = tonic::include_file_descriptor_set!("colosseum_descriptor");
