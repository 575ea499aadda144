//! What a server needs from a destination to serve its consumers, whatever
//! the transport (Canal TCP, MQ, embedded): subscribe, get, ack, rollback.
//! Implemented by the instance (which also persists cursors); consumed by
//! the servers. Entries cross this boundary serialised, as Canal's `Entry`
//! protobuf bytes, so a server never re-encodes them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::{Batch, ClientId, GetWait, StoreError};

/// A serialised Canal `Entry`.
pub type EntryBytes = Arc<[u8]>;

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// Why a destination refused a request. `code` follows Canal's error codes
/// (400 generic, 401 missing destination or client id).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct DestinationError {
    pub code: i32,
    pub message: String,
}

impl From<StoreError> for DestinationError {
    fn from(e: StoreError) -> Self {
        DestinationError {
            code: 400,
            message: e.to_string(),
        }
    }
}

/// One running destination, as its consumers see it.
pub trait Destination: Send + Sync {
    fn name(&self) -> &str;
    /// Registers (or re-registers) a client; a non-empty filter replaces the
    /// destination's table filter, as in Canal.
    fn subscribe(&self, client: ClientId, filter: &str) -> Result<(), DestinationError>;
    fn unsubscribe(&self, client: ClientId) -> Result<(), DestinationError>;
    /// getWithoutAck.
    fn get(
        &self,
        client: ClientId,
        fetch_size: usize,
        wait: GetWait,
    ) -> BoxFuture<'_, Result<Batch<EntryBytes>, DestinationError>>;
    /// Acks the oldest outstanding batch and persists the cursor it reaches.
    fn ack(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError>;
    fn rollback(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError>;
}

/// The destinations this server runs now.
pub trait Destinations: Send + Sync {
    /// `None` when the destination is unknown or not running on this server.
    fn destination(&self, name: &str) -> Option<Arc<dyn Destination>>;
}
