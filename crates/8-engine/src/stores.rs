//! Opening the offset and history stores a configuration names.

use std::collections::HashMap;

use sluice_schema::{MemoryHistoryStore, SchemaHistoryStore};

use crate::config::{EngineConfig, HistoryStorage, OffsetStorage};
use sluice_ha::session::ZkConfig;

use crate::history_store::{DebeziumFileHistoryStore, DebeziumZooKeeperHistoryStore};
use crate::offset_store::{FileOffsetStore, ZooKeeperOffsetStore};
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};

pub use crate::offset_store::Fence;

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
/// in ZooKeeper.
pub fn open_history_store(
    config: &EngineConfig,
    fence: Option<Fence>,
) -> Result<Box<dyn SchemaHistoryStore>, EngineError> {
    let server = config.debezium.topic_prefix.clone();
    match &config.history {
        HistoryStorage::Memory => Ok(Box::new(MemoryHistoryStore::default())),
        HistoryStorage::File(path) => Ok(Box::new(DebeziumFileHistoryStore::open(path, server)?)),
        HistoryStorage::ZooKeeper { servers, path } => {
            let zk =
                ZkConfig::new(servers.clone()).with_session_timeout(config.store_session_timeout);
            let store = DebeziumZooKeeperHistoryStore::connect(zk, path, server)?;
            Ok(Box::new(match fence {
                Some(f) => store.with_fence(f),
                None => store,
            }))
        }
    }
}
