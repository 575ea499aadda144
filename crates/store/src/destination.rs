//! What a server needs from a destination to serve its consumers, whatever
//! the transport (Canal TCP, MQ, embedded): subscribe, get, ack, rollback.
//! Implemented by the instance (which also persists cursors); consumed by
//! the servers. Entries cross this boundary serialised, as Canal's `Entry`
//! protobuf bytes, so a server never re-encodes them.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::{Batch, ClientId, GetWait, StoreError};

/// A serialised Canal `Entry`: `Bytes`, so that an entry written in place
/// behind room for its head is stored as a view, not copied into a new
/// allocation.
pub type EntryBytes = bytes::Bytes;

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
    /// Acks the oldest outstanding batch and moves the client's cursor. The
    /// cursor may be persisted after this returns: a server sends the client
    /// no reply after an ack before [`durable`](Self::durable) says so.
    fn ack(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError>;
    /// Waits until the cursors of every ack accepted before the call are
    /// durable; the error of the write that failed otherwise (the cursors
    /// are written again with the next ack). Immediate for a destination
    /// that persists in `ack` or keeps cursors in memory.
    fn durable(&self) -> BoxFuture<'_, Result<(), DestinationError>> {
        Box::pin(async { Ok(()) })
    }
    fn rollback(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError>;
}

/// The destinations this server runs now.
pub trait Destinations: Send + Sync {
    /// `None` when the destination is unknown or not running on this server.
    fn destination(&self, name: &str) -> Option<Arc<dyn Destination>>;
}
