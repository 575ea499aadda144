//! A destination as its consumers see it: the store's get/ack/rollback plus
//! subscriptions and cursors persisted through a [`CursorStore`] on every
//! change, so a restart loses nothing and replays at most the batches a
//! client had not acked.

use std::sync::{Arc, Mutex};

use sluice_canal::{EntryPosition, LogIdentity, LogPosition, TableFilter};
use sluice_meta::{ClientData, ClientIdentity, CursorStore, DestinationMeta};
use sluice_store::destination::BoxFuture;
use sluice_store::{
    Batch, ClientId, Destination, DestinationError, EntryBytes, EventStore, GetWait,
};

/// The consumer side of one instance.
pub struct InstanceDestination {
    name: String,
    store: Arc<EventStore<EntryBytes>>,
    cursors: Arc<dyn CursorStore>,
    identity: LogIdentity,
    meta: Mutex<DestinationMeta>,
    /// A client's non-empty subscribe filter replaces the configured one (Canal).
    filter_override: Mutex<Option<TableFilter>>,
}

impl InstanceDestination {
    /// Restores the persisted subscriptions into the store.
    pub fn open(
        name: &str,
        store: Arc<EventStore<EntryBytes>>,
        cursors: Arc<dyn CursorStore>,
        identity: LogIdentity,
    ) -> Result<Self, sluice_meta::MetaError> {
        let meta = cursors.load(name)?;
        let mut filter = None;
        for c in &meta.client_datas {
            store.subscribe(
                c.client_identity.client_id,
                c.cursor.as_ref().map(|p| p.postion.clone()),
            );
            if !c.client_identity.filter.trim().is_empty() {
                filter = TableFilter::new(&c.client_identity.filter).ok();
            }
        }
        Ok(InstanceDestination {
            name: name.to_string(),
            store,
            cursors,
            identity,
            meta: Mutex::new(meta),
            filter_override: Mutex::new(filter),
        })
    }

    /// Where the source must start so every client gets what it has not
    /// acked: the smallest cursor; `None` if no client has one yet.
    pub fn resume_position(&self) -> Option<EntryPosition> {
        let meta = self.lock_meta();
        meta.client_datas
            .iter()
            .filter_map(|c| c.cursor.as_ref().map(|p| p.postion.clone()))
            .min_by_key(|p| p.binlog_key())
    }

    /// The filter a subscriber asked for, which replaces the configured one.
    pub fn filter_override(&self) -> Option<TableFilter> {
        self.filter_override
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Whether the subscriber's filter keeps `schema.table`; `None` when no
    /// subscriber gave one (the configured filter applies).
    pub fn override_matches(&self, schema: &str, table: &str) -> Option<bool> {
        self.filter_override
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .as_ref()
            .map(|f| f.matches(schema, table))
    }

    pub fn store(&self) -> &Arc<EventStore<EntryBytes>> {
        &self.store
    }

    fn lock_meta(&self) -> std::sync::MutexGuard<'_, DestinationMeta> {
        self.meta.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Saves the cursors before returning (a file store fsyncs). On a
    /// multi-threaded runtime the wait is announced to it
    /// (`block_in_place`), so the worker's other tasks (the instance, other
    /// connections) move to another thread meanwhile.
    fn persist(&self, meta: &DestinationMeta) -> Result<(), DestinationError> {
        let save = || self.cursors.save(meta);
        let multi_thread = tokio::runtime::Handle::try_current()
            .is_ok_and(|h| h.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread);
        let saved = if multi_thread {
            tokio::task::block_in_place(save)
        } else {
            save()
        };
        saved.map_err(|e| DestinationError {
            code: 400,
            message: format!("destination {}: cannot persist cursors: {e}", self.name),
        })
    }

    /// The first start position persisted for this destination (see
    /// [`CursorStore::save_start`]), if any.
    pub fn persisted_start_position(
        &self,
    ) -> Result<Option<EntryPosition>, sluice_meta::MetaError> {
        self.cursors.load_start(&self.name)
    }

    /// Persists the position the destination's first stream started at,
    /// durably (a blocking write: call it off the async workers).
    pub fn persist_start_position(
        &self,
        position: &EntryPosition,
    ) -> Result<(), sluice_meta::MetaError> {
        self.cursors.save_start(&self.name, position)
    }
}

impl Destination for InstanceDestination {
    fn name(&self) -> &str {
        &self.name
    }

    fn subscribe(&self, client: ClientId, filter: &str) -> Result<(), DestinationError> {
        if !filter.trim().is_empty() {
            let f = TableFilter::new(filter).map_err(|e| DestinationError {
                code: 400,
                message: e.to_string(),
            })?;
            *self
                .filter_override
                .lock()
                .unwrap_or_else(|p| p.into_inner()) = Some(f);
        }
        let mut meta = self.lock_meta();
        let cursor = meta
            .client_datas
            .iter()
            .find(|c| c.client_identity.client_id == client)
            .and_then(|c| c.cursor.as_ref().map(|p| p.postion.clone()));
        self.store.subscribe(client, cursor);
        match meta
            .client_datas
            .iter_mut()
            .find(|c| c.client_identity.client_id == client)
        {
            Some(c) => c.client_identity.filter = filter.to_string(),
            None => meta.client_datas.push(ClientData {
                client_identity: ClientIdentity {
                    client_id: client,
                    destination: self.name.clone(),
                    filter: filter.to_string(),
                },
                cursor: None,
            }),
        }
        self.persist(&meta)
    }

    fn unsubscribe(&self, client: ClientId) -> Result<(), DestinationError> {
        self.store.unsubscribe(client);
        let mut meta = self.lock_meta();
        meta.client_datas
            .retain(|c| c.client_identity.client_id != client);
        self.persist(&meta)
    }

    fn get(
        &self,
        client: ClientId,
        fetch_size: usize,
        wait: GetWait,
    ) -> BoxFuture<'_, Result<Batch<EntryBytes>, DestinationError>> {
        Box::pin(async move { Ok(self.store.get(client, fetch_size, wait).await?) })
    }

    fn ack(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        let Some(position) = self.store.ack(client, batch_id)? else {
            return Ok(());
        };
        let mut meta = self.lock_meta();
        if let Some(c) = meta
            .client_datas
            .iter_mut()
            .find(|c| c.client_identity.client_id == client)
        {
            c.cursor = Some(LogPosition {
                identity: self.identity.clone(),
                postion: position,
            });
        }
        self.persist(&meta)
    }

    fn rollback(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        Ok(self.store.rollback(client, batch_id)?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_meta::FileCursorStore;
    use sluice_store::{EntryMeta, StoreConfig};

    fn pos(offset: u64) -> EntryPosition {
        EntryPosition {
            journal_name: "binlog.000001".into(),
            position: offset,
            ..Default::default()
        }
    }

    #[tokio::test]
    async fn acked_cursors_survive_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(dir.path()));
        let cfg = StoreConfig {
            batch_mode: sluice_store::BatchMode::ItemSize,
            ..Default::default()
        };
        let store = Arc::new(EventStore::new(cfg));
        for i in 0..4u64 {
            let bytes: EntryBytes = Arc::from(vec![i as u8]);
            let meta = EntryMeta {
                bytes: 1,
                ack_point: (i % 2 == 1).then(|| pos(i * 100 + 100)),
                position: pos(i * 100),
                is_ddl: false,
            };
            store.put(bytes, meta).await.unwrap();
        }
        let d =
            InstanceDestination::open("d", store.clone(), cursors.clone(), LogIdentity::default())
                .unwrap();
        d.subscribe(1001, "shop\\..*").unwrap();
        let b = d.get(1001, 3, GetWait::NoWait).await.unwrap();
        assert_eq!(b.entries.len(), 3);
        d.ack(1001, b.id).unwrap();

        // A new process: the cursor and the filter are back.
        let store2 = Arc::new(EventStore::new(StoreConfig::default()));
        let d2 = InstanceDestination::open("d", store2, cursors, LogIdentity::default()).unwrap();
        assert_eq!(d2.resume_position(), Some(pos(200)));
        assert_eq!(
            d2.filter_override().map(|f| f.as_str().to_string()),
            Some("shop\\..*".into())
        );
        let saved = std::fs::read_to_string(dir.path().join("d/meta.dat")).unwrap();
        assert!(saved.contains("\"postion\":{"), "{saved}");
    }
}
