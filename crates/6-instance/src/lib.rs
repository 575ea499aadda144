//! A Canal destination ("instance"): one source, its filters, its store and
//! its consumers. This crate follows decoded binlog events into change
//! events ([`sluice_events::ChangeBuilder`]), encodes them as Canal entries
//! ([`sluice_encode::canal`]), filters them and feeds the store.

pub mod client_filters;
pub mod columns;
pub mod cursor_writer;
pub mod destination;
pub mod encode_pool;
pub mod filters;
pub mod manager;
pub mod metrics;
pub mod runner;
pub mod schema_hook;
pub mod snapshot;
pub mod source_options;
pub mod stream;
