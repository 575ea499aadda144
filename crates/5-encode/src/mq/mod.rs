//! MQ mode (`canal.serverMode = kafka | rocketMQ | rabbitMQ | pulsarMQ`):
//! one Canal batch (the serialised entries of one get) turned into the
//! records Canal would send to a broker: their topic, partition, key and
//! payload (FlatMessage JSON or Canal's protobuf `Packet`). Pure: no broker,
//! no I/O; the MQ server publishes what this returns.
//!
//! The routing is Canal's (`CanalKafkaProducer.send` with `MQMessageUtils`):
//! `canal.mq.dynamicTopic` picks a topic per entry, then per topic
//! `canal.mq.partitionHash` spreads rows over `canal.mq.partitionsNum`
//! (or the topic's `canal.mq.dynamicTopicPartitionNum`) partitions with
//! Java's string hash, so records land where Canal would put them.

mod flat_parts;
pub mod hash;
pub mod rules;

use std::collections::{BTreeMap, HashMap};

use prost::Message;
use sluice_canal::proto::{
    Column, Entry, EntryType, EventType, Messages, Packet, PacketType, RowChange,
};
use sluice_canal::view::{EntryView, RowChangeView, ViewError};

use crate::flat::{FlatError, FlatMessage, FlatRow};
use flat_parts::Split;
use hash::{java_partition, java_string_hash, row_hash};
pub use rules::RouteError;
use rules::{HashMode, PartitionRules, TopicPartitions, TopicRules};

/// One record for the broker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MqMessage {
    /// The topic (Kafka) or routing key (RabbitMQ). From `canal.mq.dynamicTopic`
    /// with every `.` replaced by `_`; the static `canal.mq.topic` is used as
    /// written, as Canal does.
    pub topic: String,
    /// The partition, `None` when the broker has none (RabbitMQ never uses it).
    pub partition: Option<i32>,
    /// The record key, when the rows were placed by a hash: what was hashed
    /// for the first row so placed (`schema.table` for a table rule, the
    /// hash columns' values joined with `^` for a column rule). Canal sends
    /// no key; this one only tells consumers why a record is where it is.
    pub key: Option<Vec<u8>>,
    /// FlatMessage JSON (UTF-8) or a serialised Canal `Packet` (MESSAGES).
    pub payload: Vec<u8>,
    /// Where the record's data comes from, for errors a person can act on:
    /// `schema.table at file:offset` of its first entry.
    pub origin: String,
    /// Row changes carried by the record.
    pub rows: usize,
    /// Which entries the record carries, as a key that is the same when the
    /// same entries make a record again (the batch sent again after a
    /// rollback or a restart) and differs for other entries: `file:offset`
    /// of its first entry, `-file:offset` of its last when they differ, then
    /// `#` and a hash of the entries' bytes (snapshot rows read at one
    /// binlog point share a position; their bytes differ). Records split
    /// from the same entries (one per partition) share it, in a fixed order.
    /// A broker that drops duplicates by id (NATS JetStream) builds ids from
    /// it; it is not part of any payload.
    pub entries_key: String,
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
    /// `canal.instance.memory.rawEntry` (default true). Only the protobuf
    /// record of a batch sent whole depends on it: raw, Canal writes the
    /// entries as read with the batch id; otherwise it writes `version = 1`,
    /// no batch id, and honours `filter_transaction_entry`.
    pub raw_entry: bool,
    /// `canal.instance.filter.transaction.entry` (default false): drop
    /// transaction begins and ends from that non-raw protobuf record.
    pub filter_transaction_entry: bool,
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
            raw_entry: true,
            filter_transaction_entry: false,
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum MqError {
    #[error("an entry of batch {batch_id} does not decode: {source}")]
    Entry { batch_id: i64, source: ViewError },
    #[error("batch {batch_id}: the RowChange of {origin} does not decode: {source}")]
    RowChange {
        batch_id: i64,
        origin: String,
        source: prost::DecodeError,
    },
    #[error("batch {batch_id}: the rows of {origin} do not decode: {source}")]
    Rows {
        batch_id: i64,
        origin: String,
        source: ViewError,
    },
    #[error(transparent)]
    Flat(#[from] FlatError),
}

/// Turns batches into broker records for one destination.
#[derive(Debug, Clone)]
pub struct MqRouter {
    config: RouteConfig,
    /// `None` without `canal.mq.dynamicTopic`.
    topics: Option<TopicRules>,
    /// `None` without `canal.mq.partitionHash`.
    hash: Option<PartitionRules>,
    topic_partitions: TopicPartitions,
    /// `canal.mq.partition`, 0 when unset.
    partition: i32,
    /// `canal.mq.partitionsNum`, 1 when unset (Canal's default).
    partitions_num: i32,
    /// Whether records carry [`MqMessage::entries_key`]: only for brokers
    /// that use it, since it hashes every entry's bytes.
    entries_keys: bool,
}

/// A Java int from a `u32` setting, or an error naming the key.
fn java_int(key: &'static str, value: u32, min: u32) -> Result<i32, RouteError> {
    match i32::try_from(value) {
        Ok(v) if value >= min => Ok(v),
        _ => Err(RouteError::Value {
            key,
            value: value.to_string(),
            problem: format!("expected a number from {min} to {}", i32::MAX),
        }),
    }
}

/// An entry of the batch, read in place, with its bytes as read.
struct BatchEntry<'a> {
    view: EntryView<'a>,
    bytes: &'a [u8],
}

impl<'a> BatchEntry<'a> {
    fn kind(&self) -> Option<EntryType> {
        self.view
            .entry_type
            .and_then(|t| EntryType::try_from(t).ok())
    }

    fn is_transaction_boundary(&self) -> bool {
        matches!(
            self.kind(),
            Some(EntryType::TransactionBegin | EntryType::TransactionEnd)
        )
    }

    fn schema(&self) -> &'a str {
        self.view.header.schema_name
    }

    fn table(&self) -> &'a str {
        self.view.header.table_name
    }

    /// `schema.table at file:offset` (just `file:offset` without a table).
    fn origin(&self) -> String {
        let file = self.view.header.logfile_name;
        let offset = self.view.header.logfile_offset;
        if self.table().is_empty() {
            format!("{file}:{offset}")
        } else {
            format!("{}.{} at {file}:{offset}", self.schema(), self.table())
        }
    }

    /// Row changes in the entry, counted without decoding the rows.
    fn rows(&self) -> usize {
        if self.kind() != Some(EntryType::RowData) {
            return 0;
        }
        // 0 when the RowChange does not parse (the record then fails
        // where it is built, if anywhere).
        RowChangeView::parse(self.view.store_value).map_or(0, |c| c.row_count)
    }
}

/// Canal's non-raw protobuf record (`CanalMessageSerializerUtil`, entries
/// path): `Packet{version = 1, type = MESSAGES, body = Messages{entries}}`,
/// the batch id left out as Canal leaves it out.
fn entries_packet<'b>(entries: impl IntoIterator<Item = &'b [u8]>) -> Vec<u8> {
    let body = Messages {
        batch_id: 0,
        messages: entries.into_iter().map(<[u8]>::to_vec).collect(),
    };
    Packet {
        magic_number: None,
        version: Some(1),
        r#type: PacketType::Messages as i32,
        compression: None,
        body: body.encode_to_vec(),
    }
    .encode_to_vec()
}

/// Canal's raw protobuf record (`CanalMessageSerializerUtil`, raw path):
/// `Packet{type = MESSAGES, body = Messages{batch_id, entries as read}}`,
/// the batch id always written.
fn raw_packet<E: AsRef<[u8]>>(batch_id: i64, entries: &[E]) -> Vec<u8> {
    let mut body = Vec::new();
    prost::encoding::int64::encode(1, &batch_id, &mut body);
    // Each entry's bytes written as they are, without a copy per entry.
    for e in entries {
        let e = e.as_ref();
        prost::encoding::encode_key(2, prost::encoding::WireType::LengthDelimited, &mut body);
        prost::encoding::encode_varint(e.len() as u64, &mut body);
        body.extend_from_slice(e);
    }
    Packet {
        magic_number: None,
        version: None,
        r#type: PacketType::Messages as i32,
        compression: None,
        body,
    }
    .encode_to_vec()
}

/// The rows of a FlatMessage that go to one partition.
struct FlatPart<'a> {
    data: Vec<FlatRow<&'a str>>,
    old: Vec<FlatRow<&'a str>>,
    /// The hash input of the first row.
    key: Vec<u8>,
}

/// What a protobuf record being built for a partition carries.
#[derive(Default)]
struct PartitionPart {
    key: Option<Vec<u8>>,
    origin: String,
    rows: usize,
    entries: EntriesKey,
}

/// Builds [`MqMessage::entries_key`] from the entries of a record, in order.
struct EntriesKey {
    first: String,
    last: String,
    /// The address of the last entry's bytes: the rows of one entry split
    /// into several placements count it once.
    last_entry: usize,
    count: usize,
    /// A 64-bit hash of the entries' bytes: FNV-1a's step over 8-byte words
    /// (a word at a time, so MQ mode pays little for it), with a rotation
    /// to spread each word. Fixed here, so a key is the same from one
    /// Sluice version to the next.
    hash: u64,
}

impl Default for EntriesKey {
    fn default() -> Self {
        EntriesKey {
            first: String::new(),
            last: String::new(),
            last_entry: 0,
            count: 0,
            hash: 0xcbf2_9ce4_8422_2325,
        }
    }
}

impl EntriesKey {
    /// The key of `entries`; empty when keys are `off`.
    fn of<'a, 'b: 'a>(on: bool, entries: impl Iterator<Item = &'a BatchEntry<'b>>) -> String {
        if !on {
            return String::new();
        }
        let mut key = EntriesKey::default();
        for e in entries {
            key.add(e);
        }
        key.finish()
    }

    fn add(&mut self, e: &BatchEntry) {
        let address = e.bytes.as_ptr() as usize;
        if self.count > 0 && self.last_entry == address {
            return;
        }
        self.last_entry = address;
        self.last.clear();
        let header = &e.view.header;
        self.last.push_str(header.logfile_name);
        self.last.push(':');
        self.last.push_str(&header.logfile_offset.to_string());
        if self.count == 0 {
            self.first.clone_from(&self.last);
        }
        self.count += 1;
        let mut words = e.bytes.chunks_exact(8);
        for word in words.by_ref() {
            let mut w = [0u8; 8];
            w.copy_from_slice(word);
            self.mix(u64::from_le_bytes(w));
        }
        let mut tail = [0u8; 8];
        let rest = words.remainder();
        tail[..rest.len()].copy_from_slice(rest);
        // The length too, so trailing zero bytes count.
        self.mix(u64::from_le_bytes(tail) ^ ((e.bytes.len() as u64) << 56));
    }

    fn mix(&mut self, word: u64) {
        self.hash = (self.hash ^ word)
            .wrapping_mul(0x0000_0100_0000_01b3)
            .rotate_left(29);
    }

    /// The key; empty when no entry was added (keys are off).
    fn finish(self) -> String {
        if self.count == 0 {
            return String::new();
        }
        if self.last == self.first {
            format!("{}#{:016x}", self.first, self.hash)
        } else {
            format!("{}-{}#{:016x}", self.first, self.last, self.hash)
        }
    }
}

impl MqRouter {
    /// Checks and compiles the rules of `config`; a rule or number that
    /// cannot work is an error naming its `canal.mq.*` key.
    pub fn new(config: RouteConfig) -> Result<MqRouter, RouteError> {
        let topics = TopicRules::parse(&config.dynamic_topic)?;
        let hash = PartitionRules::parse(&config.partition_hash)?;
        let topic_partitions = TopicPartitions::parse(&config.dynamic_topic_partition_num)?;
        let partition = java_int(rules::PARTITION, config.partition.unwrap_or(0), 0)?;
        let partitions_num =
            java_int(rules::PARTITIONS_NUM, config.partitions_num.unwrap_or(1), 1)?;
        Ok(MqRouter {
            topics: (!topics.is_empty()).then_some(topics),
            hash: (!hash.is_empty()).then_some(hash),
            topic_partitions,
            partition,
            partitions_num,
            config,
            entries_keys: false,
        })
    }

    /// Records carry [`MqMessage::entries_key`] (empty otherwise): for a
    /// broker that drops duplicates by an id made from it.
    pub fn with_entries_keys(mut self) -> MqRouter {
        self.entries_keys = true;
        self
    }

    pub fn config(&self) -> &RouteConfig {
        &self.config
    }

    /// Appends to `out` the records of batch `batch_id` made at `ts` (ms).
    /// Within each topic and partition they come in binlog order, which is
    /// the order they must be published in; topics follow the order of
    /// their first entry.
    pub fn messages<E: AsRef<[u8]>>(
        &self,
        batch_id: i64,
        entries: &[E],
        ts: i64,
        out: &mut Vec<MqMessage>,
    ) -> Result<(), MqError> {
        if entries.is_empty() {
            return Ok(());
        }
        let decoded = entries
            .iter()
            .map(|bytes| {
                let bytes = bytes.as_ref();
                EntryView::parse(bytes)
                    .map(|view| BatchEntry { view, bytes })
                    .map_err(|source| MqError::Entry { batch_id, source })
            })
            .collect::<Result<Vec<_>, _>>()?;

        let Some(topic_rules) = &self.topics else {
            let topic = &self.config.topic;
            if !self.config.flat_message && self.hash.is_none() {
                // The batch as one record, as Canal sends it without routing.
                let (payload, rows, entries_key) = if self.config.raw_entry {
                    let rows = decoded.iter().map(BatchEntry::rows).sum();
                    let key = EntriesKey::of(self.entries_keys, decoded.iter());
                    (raw_packet(batch_id, entries), rows, key)
                } else {
                    let kept: Vec<&BatchEntry> = decoded
                        .iter()
                        .filter(|e| {
                            !(self.config.filter_transaction_entry && e.is_transaction_boundary())
                        })
                        .collect();
                    let rows = kept.iter().map(|e| e.rows()).sum();
                    let key = EntriesKey::of(self.entries_keys, kept.iter().copied());
                    (entries_packet(kept.iter().map(|e| e.bytes)), rows, key)
                };
                out.push(MqMessage {
                    topic: topic.clone(),
                    partition: Some(self.partition),
                    key: None,
                    payload,
                    origin: first_origin(decoded.iter()),
                    rows,
                    entries_key,
                });
                return Ok(());
            }
            let all: Vec<&BatchEntry> = decoded.iter().collect();
            return self.topic_records(batch_id, ts, topic, &all, out);
        };

        // Dynamic topics: transaction boundaries are dropped, each other
        // entry goes to the topic of the first rule it matches.
        let mut order: Vec<(String, Vec<&BatchEntry>)> = Vec::new();
        let mut index: HashMap<String, usize> = HashMap::new();
        for e in decoded.iter().filter(|e| !e.is_transaction_boundary()) {
            let topic = topic_rules
                .topic(e.schema(), e.table())
                .unwrap_or_else(|| self.config.topic.clone())
                .replace('.', "_");
            let i = *index.entry(topic.clone()).or_insert_with(|| {
                order.push((topic, Vec::new()));
                order.len() - 1
            });
            order[i].1.push(e);
        }
        for (topic, group) in &order {
            self.topic_records(batch_id, ts, topic, group, out)?;
        }
        Ok(())
    }

    /// The records of the entries going to `topic`.
    fn topic_records(
        &self,
        batch_id: i64,
        ts: i64,
        topic: &str,
        entries: &[&BatchEntry],
        out: &mut Vec<MqMessage>,
    ) -> Result<(), MqError> {
        let partitions = self
            .topic_partitions
            .partitions(topic)
            .unwrap_or(self.partitions_num);
        if self.config.flat_message {
            for e in entries {
                if !self.flat_parts(batch_id, ts, e, topic, partitions, out) {
                    self.flat_entry(batch_id, ts, e, topic, partitions, out)?;
                }
            }
            return Ok(());
        }
        let Some(hash) = &self.hash else {
            let kept: Vec<&&BatchEntry> = entries
                .iter()
                .filter(|e| !(self.config.filter_transaction_entry && e.is_transaction_boundary()))
                .collect();
            if !kept.is_empty() {
                out.push(MqMessage {
                    topic: topic.to_string(),
                    partition: Some(self.partition),
                    key: None,
                    payload: entries_packet(kept.iter().map(|e| e.bytes)),
                    origin: first_origin(kept.iter().map(|e| **e)),
                    rows: kept.iter().map(|e| e.rows()).sum(),
                    entries_key: EntriesKey::of(self.entries_keys, kept.iter().map(|e| **e)),
                });
            }
            return Ok(());
        };
        self.protobuf_partitions(batch_id, hash, entries, topic, partitions, out)
    }

    /// The FlatMessage records of an entry by the general path: the
    /// message built whole, then split and written. The reference for
    /// [`flat_parts`](Self::flat_parts), and what reports malformed entries.
    fn flat_entry(
        &self,
        batch_id: i64,
        ts: i64,
        e: &BatchEntry,
        topic: &str,
        partitions: i32,
        out: &mut Vec<MqMessage>,
    ) -> Result<(), MqError> {
        let flat =
            FlatMessage::from_view(&e.view, batch_id, ts).map_err(|source| MqError::Rows {
                batch_id,
                origin: e.origin(),
                source,
            })?;
        if let Some(flat) = flat {
            self.flat_records(flat, e, topic, partitions, out);
        }
        Ok(())
    }

    /// The records of a ROWDATA entry written by [`flat_parts`], placed
    /// as [`flat_records`](Self::flat_records) places them; false when that
    /// path leaves the entry to the general one.
    fn flat_parts(
        &self,
        batch_id: i64,
        ts: i64,
        e: &BatchEntry,
        topic: &str,
        partitions: i32,
        out: &mut Vec<MqMessage>,
    ) -> bool {
        if e.view.entry_type != Some(EntryType::RowData as i32) {
            return false;
        }
        let split = match &self.hash {
            None => Split::Whole {
                partition: self.partition,
            },
            Some(hash) => match hash.mode(e.schema(), e.table()) {
                None => Split::Whole { partition: 0 },
                Some(HashMode::Table) => Split::WholeKeyed {
                    partition: java_partition(java_string_hash(e.table()), partitions),
                },
                Some(HashMode::Columns(columns)) => Split::Rows {
                    columns: Some(columns),
                    database_hash: self.config.database_hash,
                    partitions,
                },
                Some(HashMode::PrimaryKey) => Split::Rows {
                    columns: None,
                    database_hash: self.config.database_hash,
                    partitions,
                },
            },
        };
        let mut parts = Vec::new();
        if !flat_parts::write_parts(&e.view, batch_id, ts, split, &mut parts) {
            return false;
        }
        let origin = e.origin();
        let entries_key = EntriesKey::of(self.entries_keys, std::iter::once(e));
        out.extend(parts.into_iter().map(|p| MqMessage {
            topic: topic.to_string(),
            partition: Some(p.partition),
            key: p.key,
            payload: p.json.into_bytes(),
            origin: origin.clone(),
            rows: p.rows,
            entries_key: entries_key.clone(),
        }));
        true
    }

    /// One FlatMessage as records: whole, or split by a column hash into
    /// one record per partition (`MQMessageUtils.messagePartition`).
    fn flat_records(
        &self,
        mut flat: FlatMessage<&str>,
        e: &BatchEntry,
        topic: &str,
        partitions: i32,
        out: &mut Vec<MqMessage>,
    ) {
        let origin = e.origin();
        let entries_key = EntriesKey::of(self.entries_keys, std::iter::once(e));
        let record = |flat: &FlatMessage<&str>, partition: i32, key: Option<Vec<u8>>| MqMessage {
            topic: topic.to_string(),
            partition: Some(partition),
            key,
            payload: flat.to_json().into_bytes(),
            origin: origin.clone(),
            rows: flat.data.as_ref().map_or(0, Vec::len),
            entries_key: entries_key.clone(),
        };
        let Some(hash) = &self.hash else {
            out.push(record(&flat, self.partition, None));
            return;
        };
        let has_rows = flat.data.as_ref().is_some_and(|d| !d.is_empty());
        let mode = if flat.is_ddl || !has_rows {
            None
        } else {
            hash.mode(flat.database, flat.table)
        };
        let columns: Vec<&str> = match mode {
            None => {
                out.push(record(&flat, 0, None));
                return;
            }
            Some(HashMode::Table) => {
                let partition = java_partition(java_string_hash(flat.table), partitions);
                let key = format!("{}.{}", flat.database, flat.table).into_bytes();
                out.push(record(&flat, partition, Some(key)));
                return;
            }
            Some(HashMode::Columns(columns)) => columns.iter().map(String::as_str).collect(),
            Some(HashMode::PrimaryKey) => flat.pk_names.clone().unwrap_or_default(),
        };
        let data = flat.data.take().unwrap_or_default();
        let old = flat.old.take().filter(|o| !o.is_empty());
        let mut parts: BTreeMap<i32, FlatPart> = BTreeMap::new();
        for (i, row) in data.into_iter().enumerate() {
            // Looked up by exact name, as Canal's flat path does.
            let values: Vec<&str> = columns
                .iter()
                .map(|c| {
                    row.iter()
                        .find(|(name, _)| name == c)
                        .and_then(|(_, v)| *v)
                        .unwrap_or_default()
                })
                .collect();
            let h = row_hash(
                flat.database,
                self.config.database_hash,
                values.iter().map(|v| Some(*v)),
            );
            let key = values.join("^");
            let part = parts
                .entry(java_partition(h, partitions))
                .or_insert_with(|| FlatPart {
                    data: Vec::new(),
                    old: Vec::new(),
                    key: key.into_bytes(),
                });
            part.data.push(row);
            if let Some(before) = old.as_ref().and_then(|o| o.get(i)) {
                part.old.push(before.clone());
            }
        }
        for (partition, part) in parts {
            flat.data = Some(part.data);
            flat.old = old.is_some().then_some(part.old);
            out.push(record(&flat, partition, Some(part.key)));
        }
    }

    /// The protobuf records of a topic with `canal.mq.partitionHash`: the
    /// entries regrouped per partition, rows split one per entry under a
    /// column rule (`MQMessageUtils.messagePartition` on entries).
    fn protobuf_partitions(
        &self,
        batch_id: i64,
        hash: &PartitionRules,
        entries: &[&BatchEntry],
        topic: &str,
        partitions: i32,
        out: &mut Vec<MqMessage>,
    ) -> Result<(), MqError> {
        let mut parts: BTreeMap<i32, (Vec<Vec<u8>>, PartitionPart)> = BTreeMap::new();
        let keyed = self.entries_keys;
        let mut place = |partition: i32, bytes: Vec<u8>, e: &BatchEntry, rows: usize, key| {
            let (list, part) = parts.entry(partition).or_default();
            if list.is_empty() {
                part.origin = e.origin();
            }
            if part.key.is_none() {
                part.key = key;
            }
            if keyed {
                part.entries.add(e);
            }
            part.rows += rows;
            list.push(bytes);
        };
        for e in entries {
            if e.is_transaction_boundary() {
                continue;
            }
            if e.kind() != Some(EntryType::RowData) {
                place(0, e.bytes.to_vec(), e, 0, None);
                continue;
            }
            let change =
                RowChange::decode(e.view.store_value).map_err(|source| MqError::RowChange {
                    batch_id,
                    origin: e.origin(),
                    source,
                })?;
            let mode = if change.is_ddl.unwrap_or(false) || change.row_datas.is_empty() {
                None
            } else {
                hash.mode(e.schema(), e.table())
            };
            let rows = change.row_datas.len();
            let columns = match mode {
                None => {
                    place(0, e.bytes.to_vec(), e, rows, None);
                    continue;
                }
                Some(HashMode::Table) => {
                    let partition = java_partition(java_string_hash(e.table()), partitions);
                    let key = format!("{}.{}", e.schema(), e.table()).into_bytes();
                    place(partition, e.bytes.to_vec(), e, rows, Some(key));
                    continue;
                }
                Some(HashMode::Columns(columns)) => Some(columns),
                Some(HashMode::PrimaryKey) => None,
            };
            let is_delete = change.event_type == Some(EventType::Delete as i32);
            // Each row becomes an entry of its own: the entry's other
            // fields as they are.
            let whole = Entry::decode(e.bytes).map_err(|source| MqError::RowChange {
                batch_id,
                origin: e.origin(),
                source,
            })?;
            let mut single = change.clone();
            for row in &change.row_datas {
                let image = if is_delete {
                    &row.before_columns
                } else {
                    &row.after_columns
                };
                let values = hashed_values(image, columns.map(|c| c.as_slice()));
                let h = row_hash(
                    e.schema(),
                    self.config.database_hash,
                    values.iter().map(|v| Some(*v)),
                );
                single.row_datas = vec![row.clone()];
                let entry = Entry {
                    store_value: Some(single.encode_to_vec().into()),
                    ..whole.clone()
                };
                place(
                    java_partition(h, partitions),
                    entry.encode_to_vec(),
                    e,
                    1,
                    Some(values.join("^").into_bytes()),
                );
            }
        }
        for (partition, (list, part)) in parts {
            out.push(MqMessage {
                topic: topic.to_string(),
                partition: Some(partition),
                key: part.key,
                payload: entries_packet(list.iter().map(Vec::as_slice)),
                origin: part.origin,
                rows: part.rows,
                entries_key: part.entries.finish(),
            });
        }
        Ok(())
    }
}

/// The values a row is placed by: those of the columns `columns` names
/// (compared case-insensitively, in column order, as Canal's protobuf path
/// does), or of its key columns.
fn hashed_values<'c>(image: &'c [Column], columns: Option<&[String]>) -> Vec<&'c str> {
    image
        .iter()
        .filter(|c| match columns {
            Some(names) => {
                let name = c.name.as_deref().unwrap_or_default();
                names
                    .iter()
                    .any(|n| rules::java_equals_ignore_case(n, name))
            }
            None => c.is_key.unwrap_or(false),
        })
        .map(|c| c.value.as_deref().unwrap_or_default())
        .collect()
}

/// The origin of a record: its first entry with a table, else its first entry.
fn first_origin<'a>(mut entries: impl Iterator<Item = &'a BatchEntry<'a>> + Clone) -> String {
    entries
        .clone()
        .find(|e| !e.table().is_empty())
        .or_else(|| entries.next())
        .map(BatchEntry::origin)
        .unwrap_or_default()
}

#[cfg(test)]
mod tests;
