//! Opening the offset and history stores a configuration names.

use std::collections::HashMap;
use std::sync::Arc;

use sluice_schema::{MemoryHistoryStore, SchemaHistoryStore};

use crate::config::{EngineConfig, HistoryStorage, OffsetStorage};
use crate::{EngineError, OffsetKey, OffsetStore, SourceOffset};

/// This process's leader-latch node while it leads (`None` otherwise): the
/// ZooKeeper stores write only while that node exists.
pub type Fence = Arc<dyn Fn() -> Option<String> + Send + Sync>;

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
    let _ = &fence;
    match &config.offsets {
        OffsetStorage::Memory => Ok(Box::new(MemoryOffsetStore::default())),
        other => Err(EngineError::Config {
            property: "offset.storage".into(),
            message: format!("{other:?} is not available"),
        }),
    }
}

/// The schema history store `config` names, fenced by `fence` when it is
/// in ZooKeeper.
pub fn open_history_store(
    config: &EngineConfig,
    fence: Option<Fence>,
) -> Result<Box<dyn SchemaHistoryStore>, EngineError> {
    let _ = &fence;
    match &config.history {
        HistoryStorage::Memory => Ok(Box::new(MemoryHistoryStore::default())),
        other => Err(EngineError::Config {
            property: "schema.history.internal".into(),
            message: format!("{other:?} is not available"),
        }),
    }
}
