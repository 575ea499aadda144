//! Where committed offsets live. Every store keeps Debezium's layout: a map
//! from the JSON key `[<engine name>, {"server": <topic.prefix>}]` to the
//! JSON offset map, so one store can hold the offsets of several engines
//! and a Java Debezium engine can read what Sluice wrote (and the other way
//! round).

use crate::{EngineError, OffsetKey, SourceOffset};

/// A store of committed offsets.
pub trait OffsetStore: Send {
    /// The offset committed for `key`, if any.
    fn load(&mut self, key: &OffsetKey) -> Result<Option<SourceOffset>, EngineError>;
    /// Stores `offset` for `key`, durably when it returns; the entries of
    /// other keys stay as they are.
    fn commit(&mut self, key: &OffsetKey, offset: &SourceOffset) -> Result<(), EngineError>;
    /// Where the store is, for messages (a file path, a ZooKeeper node).
    fn location(&self) -> String;
}

mod file;
mod zookeeper;

pub use file::FileOffsetStore;
pub use zookeeper::{Fence, ZooKeeperOffsetStore, DEFAULT_OFFSET_PATH};

use crate::java_map::JavaMapEntry;

/// The offset stored for `key` among a store's entries: the entry whose
/// key is exactly `key`'s JSON, else the last one whose key means the same
/// (another writer may have spaced it differently). A `null` value is an
/// offset Kafka Connect removed.
fn find_offset(entries: &[JavaMapEntry], key: &OffsetKey) -> Result<Option<SourceOffset>, String> {
    let exact = key.to_json().into_bytes();
    let found = entries
        .iter()
        .rev()
        .find(|(k, _)| k.as_deref() == Some(exact.as_slice()))
        .or_else(|| {
            entries
                .iter()
                .rev()
                .find(|(k, _)| k.as_deref().is_some_and(|k| key.matches(k)))
        });
    match found {
        None | Some((_, None)) => Ok(None),
        Some((_, Some(value))) => SourceOffset::from_json(value)
            .map(Some)
            .map_err(|e| format!("the offset stored for {}: {e}", key.to_json())),
    }
}

/// Replaces the entries for `key` (whatever their spacing) with one
/// holding `offset`, in place of the first of them; other entries stay.
fn put_offset(entries: &mut Vec<JavaMapEntry>, key: &OffsetKey, offset: &SourceOffset) {
    let entry = (
        Some(key.to_json().into_bytes()),
        Some(offset.to_json().into_bytes()),
    );
    let first = entries
        .iter()
        .position(|(k, _)| k.as_deref().is_some_and(|k| key.matches(k)));
    entries.retain(|(k, _)| !k.as_deref().is_some_and(|k| key.matches(k)));
    match first {
        Some(i) => entries.insert(i, entry),
        None => entries.push(entry),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn put_replaces_only_the_keys_entries() {
        let key = OffsetKey::new("engine", "db1");
        let other = (
            Some(b"[\"x\",{\"server\":\"y\"}]".to_vec()),
            Some(b"{}".to_vec()),
        );
        let mut entries = vec![
            other.clone(),
            (
                Some(br#"[ "engine", {"server": "db1"} ]"#.to_vec()),
                Some(br#"{"file":"a","pos":4}"#.to_vec()),
            ),
            (None, Some(b"null key".to_vec())),
        ];
        assert_eq!(find_offset(&entries, &key).unwrap().unwrap().file, "a");
        let offset = SourceOffset {
            file: "b".into(),
            pos: 9,
            ..Default::default()
        };
        put_offset(&mut entries, &key, &offset);
        assert_eq!(entries.len(), 3);
        assert_eq!(entries[0], other);
        assert_eq!(entries[1].0.as_deref(), Some(key.to_json().as_bytes()));
        assert_eq!(find_offset(&entries, &key).unwrap(), Some(offset));
        assert_eq!(
            find_offset(&entries, &OffsetKey::new("engine", "db2")).unwrap(),
            None
        );
        entries[1].1 = Some(b"{\"pos\":1}".to_vec());
        assert!(find_offset(&entries, &key)
            .unwrap_err()
            .contains("no `file`"));
    }
}
