//! MQ mode (`canal.serverMode = kafka | rabbitMQ | redis | nats`): the TCP server is off
//! and one worker per running destination acts as Canal's embedded MQ
//! client (clientId 1001, empty filter): get a batch, turn it into records
//! ([`sluice_encode::mq::MqRouter`]), publish them all, and ack the batch
//! only when the broker confirmed every record — otherwise roll it back and
//! send it again after a backoff, so nothing is lost or reordered.

pub mod kafka;
mod keys;
pub mod nats;
pub mod rabbit;
pub mod redis;
pub mod worker;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use sluice_encode::mq::MqMessage;

pub use kafka::{KafkaConfigError, KafkaPublisher, KafkaSettings};
pub use worker::{Worker, WorkerConfig, WorkerExit, MQ_CLIENT_ID};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A batch's records on their way to the broker: resolves once the broker
/// confirmed every one of them, or with the first failure.
pub type Confirmation = BoxFuture<'static, Result<(), PublishError>>;

/// The confirmation of a batch the broker confirmed already (or that had
/// nothing for it).
pub(crate) fn confirmed() -> Confirmation {
    Box::pin(std::future::ready(Ok(())))
}

/// Why a publish failed.
#[derive(Debug, thiserror::Error)]
pub enum PublishError {
    /// The broker refused or did not confirm a record; sending the batch
    /// again may succeed (broker down, timeout, leader change).
    #[error("{broker}: {message}")]
    Retriable {
        broker: &'static str,
        message: String,
    },
    /// A record the broker will never take as it is (larger than it
    /// allows): `origin` names the table and binlog position.
    #[error("{broker}: a record of {bytes} bytes from {origin} is larger than the broker allows: {message}")]
    TooLarge {
        broker: &'static str,
        origin: String,
        bytes: usize,
        message: String,
    },
}

/// A broker connection: publishes records and confirms them.
pub trait Publisher: Send {
    /// Whether this broker needs [`MqMessage::entries_key`] (it drops
    /// duplicates by an id made from it); the router computes keys only
    /// then.
    fn uses_entries_keys(&self) -> bool {
        false
    }

    /// Hands every record to the broker in order and returns once they are
    /// on their way, with the [`Confirmation`] of all of them. Records of
    /// batches sent one after another reach the broker in that order, so
    /// the worker keeps several batches in flight and acks each once its
    /// confirmation came. An error here means the batch did not go out
    /// whole.
    fn send(
        &mut self,
        records: Arc<[MqMessage]>,
    ) -> BoxFuture<'_, Result<Confirmation, PublishError>>;

    /// Publishes every record in order and returns once the broker has
    /// confirmed all of them; an error otherwise (some records may have
    /// been delivered: the batch is sent again, so consumers can see
    /// duplicates of an unconfirmed batch, never a gap).
    fn publish<'a>(
        &'a mut self,
        records: &'a [MqMessage],
    ) -> BoxFuture<'a, Result<(), PublishError>> {
        Box::pin(async move { self.send(records.into()).await?.await })
    }
}
