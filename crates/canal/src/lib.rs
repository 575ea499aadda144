//! Canal's data model, shared by the instance that produces entries, the
//! store that holds them and the servers that deliver them: the protobuf
//! messages of Canal's TCP protocol, admin protocol and entry format, the
//! cursor position JSON, and Canal's `schema.table` regex filters. No I/O here.

pub mod admin;
pub mod auth;
pub mod filter;
pub mod position;
pub mod proto;
pub mod view;

pub use filter::{FilterError, TableFilter};
pub use position::{EntryPosition, LogIdentity, LogPosition};
