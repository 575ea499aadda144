//! MQ mode (`canal.serverMode = kafka | rabbitMQ`): one Canal batch (the
//! serialised entries of one get) turned into the records Canal would send
//! to a broker: their topic, partition, key and payload (FlatMessage JSON or
//! Canal's protobuf `Packet`). Pure: no broker, no I/O; the MQ server
//! publishes what this returns.

use prost::Message;
use sluice_canal::proto::{Compression, Entry, Messages, Packet, PacketType};

use crate::flat::{FlatError, FlatMessage};

/// One record for the broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MqMessage {
    /// The topic (Kafka) or routing key (RabbitMQ), `.` already replaced by `_`.
    pub topic: String,
    /// The partition, `None` when the broker has none (RabbitMQ never uses it).
    pub partition: Option<i32>,
    /// The record key, when the rows were placed by a hash.
    pub key: Option<Vec<u8>>,
    /// FlatMessage JSON (UTF-8) or a serialised Canal `Packet` (MESSAGES).
    pub payload: Vec<u8>,
    /// Where the record's data comes from, for errors a person can act on:
    /// `schema.table` and the binlog position of its first entry.
    pub origin: String,
    /// Row changes carried by the record.
    pub rows: usize,
}

/// The routing and format settings of one destination (`canal.mq.*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RouteConfig {
    /// `canal.mq.flatMessage` (default true): JSON, else protobuf.
    pub flat_message: bool,
    /// `canal.mq.topic`: the default topic.
    pub topic: String,
    /// `canal.mq.dynamicTopic`, as written.
    pub dynamic_topic: String,
    /// `canal.mq.partition`: the partition when no hash applies.
    pub partition: Option<u32>,
    /// `canal.mq.partitionsNum`.
    pub partitions_num: Option<u32>,
    /// `canal.mq.partitionHash`, as written.
    pub partition_hash: String,
    /// `canal.mq.dynamicTopicPartitionNum`, as written.
    pub dynamic_topic_partition_num: String,
    /// `canal.mq.database.hash` (default true).
    pub database_hash: bool,
}

impl Default for RouteConfig {
    fn default() -> Self {
        RouteConfig {
            flat_message: true,
            topic: String::new(),
            dynamic_topic: String::new(),
            partition: None,
            partitions_num: None,
            partition_hash: String::new(),
            dynamic_topic_partition_num: String::new(),
            database_hash: true,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MqError {
    #[error("an entry of batch {batch_id} does not decode: {source}")]
    Entry {
        batch_id: i64,
        source: prost::DecodeError,
    },
    #[error(transparent)]
    Flat(#[from] FlatError),
}

/// Turns batches into broker records for one destination.
#[derive(Debug, Clone)]
pub struct MqRouter {
    config: RouteConfig,
}

impl MqRouter {
    pub fn new(config: RouteConfig) -> MqRouter {
        MqRouter { config }
    }

    pub fn config(&self) -> &RouteConfig {
        &self.config
    }

    /// Appends to `out` the records of batch `batch_id` made at `ts` (ms),
    /// in the order they must be published.
    ///
    /// Today: the static topic and `canal.mq.partition` only.
    pub fn messages<E: AsRef<[u8]>>(
        &self,
        batch_id: i64,
        entries: &[E],
        ts: i64,
        out: &mut Vec<MqMessage>,
    ) -> Result<(), MqError> {
        let topic = self.config.topic.replace('.', "_");
        let partition = Some(self.config.partition.unwrap_or(0) as i32);
        if !self.config.flat_message {
            if entries.is_empty() {
                return Ok(());
            }
            let body = Messages {
                batch_id,
                messages: entries.iter().map(|e| e.as_ref().to_vec()).collect(),
            };
            let packet = Packet {
                magic_number: None,
                version: None,
                r#type: PacketType::Messages as i32,
                compression: Some(Compression::None as i32),
                body: body.encode_to_vec(),
            };
            out.push(MqMessage {
                topic,
                partition,
                key: None,
                payload: packet.encode_to_vec(),
                origin: String::new(),
                rows: 0,
            });
            return Ok(());
        }
        for bytes in entries {
            let entry = Entry::decode(bytes.as_ref())
                .map_err(|source| MqError::Entry { batch_id, source })?;
            let Some(flat) = FlatMessage::from_entry(&entry, batch_id, ts)? else {
                continue;
            };
            let rows = flat.data.as_ref().map_or(0, Vec::len);
            let origin = format!("{}.{}", flat.database, flat.table);
            out.push(MqMessage {
                topic: topic.clone(),
                partition,
                key: None,
                payload: flat.to_json().into_bytes(),
                origin,
                rows,
            });
        }
        Ok(())
    }
}
