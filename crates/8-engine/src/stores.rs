//! Opening the offset and history stores a configuration names.

use std::collections::HashMap;

use sluice_schema::{MemoryHistoryStore, SchemaHistoryStore};

use crate::config::{EngineConfig, HistoryStorage, OffsetStorage};
use std::sync::Arc;

use sluice_ha::session::ZkConfig;

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
    let _ = &fence;
    match &config.history {
        HistoryStorage::Memory => Ok(Box::new(MemoryHistoryStore::default())),
        HistoryStorage::File(path) => Ok(Box::new(
            sluice_schema::FileHistoryStore::open(path).map_err(|e| EngineError::Store {
                location: path.display().to_string(),
                message: e.to_string(),
            })?,
        )),
        HistoryStorage::ZooKeeper { servers, path } => {
            let zk =
                ZkConfig::new(servers.clone()).with_session_timeout(config.store_session_timeout);
            let mut store = sluice_ha::schema_history::ZooKeeperHistoryStore::connect(
                zk,
                &path.trim_start_matches('/').replace('/', "_"),
            )?;
            if let Some(f) = fence {
                store = store.with_guard(Arc::new(move |_: &str| f().is_some()));
            }
            Ok(Box::new(store))
        }
        #[allow(unreachable_patterns)]
        other => Err(EngineError::Config {
            property: "schema.history.internal".into(),
            message: format!("{other:?} is not available"),
        }),
    }
}
