//! The relational sink's keys of `canal.properties` (`sluice.sink.*`).

use std::path::PathBuf;

use crate::Property;

/// The `sluice.sink.*` keys as written, with their lines: their values are
/// the sink's own types, read where the sink is configured, so that its
/// errors point at the key's line.
#[derive(Debug, Clone, Default)]
pub struct SinkKeys {
    /// `sluice.sink.adapterConf`: the canal-adapter folder, relative to
    /// `conf_dir`; unset, `{conf_dir}/adapter` when it holds an
    /// `application.yml`.
    pub adapter_conf: Option<Property>,
    /// `sluice.sink.clientId`: the store client id of the first sink of
    /// each destination.
    pub client_id: Option<Property>,
    /// `sluice.sink.schemaChanges`: what the sinks do with DDL.
    pub schema_changes: Option<Property>,
    /// `sluice.sink.postgresUpsert`: how upserts go into PostgreSQL.
    pub postgres_upsert: Option<Property>,
    /// `canal.conf.dir`, which the adapter folder is found from.
    pub conf_dir: PathBuf,
    /// The canal.properties the keys are in, for errors that point there.
    pub path: PathBuf,
}
