//! The rules engines behind the gateway: the clients every caller of the engines shares
//! (`service_kit::engines`), kept under this name for the gateway's modules.

pub use service_kit::engines::*;
