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
