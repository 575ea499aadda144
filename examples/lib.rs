//! Programs that embed Sluice; see the `[[example]]` entries of this
//! package: `embed_server.rs` runs a whole server, `debezium_destination.rs`
//! prints one destination's row changes as Debezium JSON.
