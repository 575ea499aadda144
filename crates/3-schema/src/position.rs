//! Binlog positions as the schema history orders them: the project's one
//! [`BinlogPosition`] (by epoch, file sequence number, then offset; the
//! GTID state is carried for reference only). It never reads binlogs.

pub use sluice_binlog::BinlogPosition;
