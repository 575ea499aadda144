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

use sluice_encode::mq::MqMessage;

pub use kafka::{KafkaConfigError, KafkaPublisher, KafkaSettings};
pub use worker::{Worker, WorkerConfig, WorkerExit, MQ_CLIENT_ID};

pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

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
    /// Publishes every record in order and returns once the broker has
    /// confirmed all of them; an error otherwise (some records may have
    /// been delivered: the batch is sent again, so consumers can see
    /// duplicates of an unconfirmed batch, never a gap).
    fn publish<'a>(
        &'a mut self,
        records: &'a [MqMessage],
    ) -> BoxFuture<'a, Result<(), PublishError>>;

    /// Whether this broker needs [`MqMessage::entries_key`] (it drops
    /// duplicates by an id made from it); the router computes keys only
    /// then.
    fn uses_entries_keys(&self) -> bool {
        false
    }
}
