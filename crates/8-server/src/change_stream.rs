//! One destination embedded in a program, without a server around it: the
//! destination's change events (from its `instance.properties`: source,
//! start position, table filters, schema tracking) handed to any encoder,
//! and the encoder's outputs to the program, one whole transaction at a
//! time. No store, cursors or Canal clients: the program decides what a
//! delivered transaction means (see [`ChangeStream::run`]'s returned
//! position to resume from).
//!
//! ```no_run
//! use sluice_server::change_stream::{open, FnSink};
//! use sluice_server::encode::debezium::{DebeziumEncoder, DebeziumOptions, DebeziumRecord};
//!
//! # async fn embed() -> Result<(), Box<dyn std::error::Error>> {
//! let stream = open("conf", "example")?;
//! let mut encoder = DebeziumEncoder::new(DebeziumOptions::new("sluice"));
//! let mut print = FnSink(|records: &mut Vec<DebeziumRecord>| {
//!     for r in records.drain(..) {
//!         println!("{}", r.value.unwrap_or_else(|| "null".into()));
//!     }
//!     Ok::<(), std::io::Error>(())
//! });
//! stream.run(&mut encoder, &mut print).await?;
//! # Ok(())
//! # }
//! ```

use std::path::Path;

use sluice_config::InstanceConfig;

pub use sluice_instance::stream::{
    CanalFilters, ChangeFilter, ChangeSink, ChangeStream, FnSink, StreamError, WriteSink,
};

use crate::{load_config, ServerError};

/// The change stream of `destination` as configured in the folder `conf_dir`
/// (`canal.properties` and `{destination}/instance.properties`); its schema
/// history goes to `{canal.file.data.dir}/{destination}/schema.history`.
pub fn open(conf_dir: impl AsRef<Path>, destination: &str) -> Result<ChangeStream, ServerError> {
    let destinations = load_config(conf_dir.as_ref())?.destinations;
    let config =
        InstanceConfig::load(&destinations, destination).map_err(|source| ServerError::Config {
            dir: destinations.conf_dir.clone(),
            source: Box::new(source),
        })?;
    Ok(ChangeStream::for_instance(&config, &destinations.data_dir)?)
}
