//! Sluice's binlog decoder: pure functions and types that turn the bytes of a
//! MySQL (5.0–9.x) or MariaDB (10.x–11.x) binary log into typed events and
//! row values. No network, no async: it reads bytes and files.
//!
//! Layers, bottom up: [`bytes`] (bounds-checked reads) → [`framing`] (magic,
//! headers, CRC32) → [`decoder`] (event bodies, table maps) → [`rows`] and
//! [`value`] (row images and column values, decoded lazily as views).
//! Nothing here panics on bad input: every length is checked against the
//! bytes that are really there, and errors name what and where.

pub mod bytes;
pub mod column;
pub mod compression;
pub mod decimal;
pub mod decoder;
mod digits;
pub mod error;
pub mod event_type;
pub mod events;
pub mod file;
pub mod framing;
pub mod gtid;
pub mod gtid_state;
pub mod header;
pub mod json;
pub mod json_write;
pub mod position;
pub mod rows;
pub mod rows_write;
pub mod table_map;
pub mod temporal;
pub mod value;

pub use column::{Charset, ColumnType};
pub use decoder::{walk_file, Decoder, EventPosition};
pub use error::{DecodeError, LocatedError};
pub use event_type::{EventType, RowsKind};
pub use events::EventData;
pub use file::{file_sequence, BinlogFile};
pub use framing::{EventFramer, RawEvent, BINLOG_MAGIC};
pub use gtid_state::{GtidState, MariadbGtidState};
pub use header::{ChecksumAlg, EventHeader, FormatDescription};
pub use json_write::{encode_json, JsonTextError};
pub use position::BinlogPosition;
pub use rows::{Row, RowImage, RowsEvent};
pub use rows_write::{write_row_image, CellIn, RowImageWriter, WriteError};
pub use table_map::{ColumnDef, TableMap};
pub use value::{Cell, Value};
