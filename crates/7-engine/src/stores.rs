//! Opening the offset and history stores a configuration names.

use std::collections::HashMap;
use std::sync::Arc;

use sluice_binlog::TableMap;
use sluice_instance::runner::{Description, EventPlace, SchemaHook};
use sluice_schema::{MemoryHistoryStore, SchemaHistoryStore};

use crate::config::{EngineConfig, HistoryStorage, OffsetStorage};
use sluice_ha::session::ZkConfig;

use crate::history_store::{
    DebeziumFileHistoryStore, DebeziumZooKeeperHistoryStore, SourceContext,
};
use crate::offset_store::{FileOffsetStore, ZooKeeperOffsetStore};
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};

pub use crate::offset_store::Fence;

/// A schema hook that notes the source of each statement in a
/// [`SourceContext`] before the statement reaches the schema history.
pub(crate) struct NotingSource {
    pub inner: Box<dyn SchemaHook>,
    pub context: Arc<SourceContext>,
}

impl SchemaHook for NotingSource {
    fn on_start(&mut self, file: &str, pos: u64) -> Result<(), String> {
        self.inner.on_start(file, pos)
    }
    fn on_statement_source(&mut self, server_id: u32, timestamp: u32, gtids: Option<&str>) {
        self.context.set(
            u64::from(server_id),
            u64::from(timestamp),
            gtids.filter(|g| !g.is_empty()).map(str::to_string),
        );
        self.inner.on_statement_source(server_id, timestamp, gtids);
    }
    fn on_query(&mut self, at: &EventPlace<'_>, schema: &str, sql: &str) -> Result<(), String> {
        self.inner.on_query(at, schema, sql)
    }
    fn describe(
        &mut self,
        at: &EventPlace<'_>,
        table: &Arc<TableMap>,
    ) -> Result<Description, String> {
        self.inner.describe(at, table)
    }
}

/// Offsets kept in memory only (Kafka's `MemoryOffsetBackingStore`).
#[derive(Debug, Default)]
pub struct MemoryOffsetStore {
    offsets: HashMap<String, SourceOffset>,
}

impl OffsetStore for MemoryOffsetStore {
    fn load(&mut self, key: &OffsetKey) -> Result<Option<SourceOffset>, EngineError> {
        Ok(self.offsets.get(&key.to_json()).cloned())
    }
    fn commit(&mut self, key: &OffsetKey, offset: &SourceOffset) -> Result<(), EngineError> {
        self.offsets.insert(key.to_json(), offset.clone());
        Ok(())
    }
    fn location(&self) -> String {
        "memory".into()
    }
}

/// The offset store `config` names, fenced by `fence` when it is in
/// ZooKeeper.
pub fn open_offset_store(
    config: &EngineConfig,
    fence: Option<Fence>,
) -> Result<Box<dyn OffsetStore>, EngineError> {
    match &config.offsets {
        OffsetStorage::Memory => Ok(Box::new(MemoryOffsetStore::default())),
        OffsetStorage::File(path) => Ok(Box::new(FileOffsetStore::open(path.clone())?)),
        OffsetStorage::ZooKeeper { servers, path } => {
            let zk =
                ZkConfig::new(servers.clone()).with_session_timeout(config.store_session_timeout);
            let store = ZooKeeperOffsetStore::connect(zk, path)?;
            Ok(Box::new(match fence {
                Some(f) => store.with_fence(f),
                None => store,
            }))
        }
    }
}

/// The schema history store `config` names, fenced by `fence` when it is
/// in ZooKeeper; its records' positions take `server_id`, `ts_sec` and
/// `gtids` from `context`.
pub fn open_history_store(
    config: &EngineConfig,
    fence: Option<Fence>,
    context: Arc<SourceContext>,
) -> Result<Box<dyn SchemaHistoryStore>, EngineError> {
    let server = config.debezium.topic_prefix.clone();
    match &config.history {
        HistoryStorage::Memory => Ok(Box::new(MemoryHistoryStore::default())),
        HistoryStorage::File(path) => Ok(Box::new(
            DebeziumFileHistoryStore::open(path, server)?.with_source_context(context),
        )),
        HistoryStorage::ZooKeeper { servers, path } => {
            let zk =
                ZkConfig::new(servers.clone()).with_session_timeout(config.store_session_timeout);
            let store = DebeziumZooKeeperHistoryStore::connect(zk, path, server)?
                .with_source_context(context);
            Ok(Box::new(match fence {
                Some(f) => store.with_fence(f),
                None => store,
            }))
        }
    }
}
