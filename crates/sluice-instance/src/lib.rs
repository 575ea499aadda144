//! A Canal destination ("instance"): one source, its filters, its store and
//! its consumers. This crate turns decoded binlog events into Canal entries
//! ([`entry`]) with Canal's value rendering ([`canal_value`]).

pub mod canal_value;
pub mod destination;
pub mod entry;
pub mod manager;
mod pb;
pub mod runner;
pub mod schema_hook;
pub mod stream;
