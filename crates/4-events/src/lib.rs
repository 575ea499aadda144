//! The change-event model: what every output is encoded from.
//!
//! The schema stage gives decoded binlog events whose tables are described
//! (names, types, keys); [`ChangeBuilder`] follows the transaction state
//! (GTID, BEGIN, XID/COMMIT) across them and turns each one that matters to a
//! consumer into a [`ChangeEvent`]: a transaction boundary, a statement (DDL,
//! or DML in statement format), or the row changes of one rows event. The
//! row images stay the decoder's zero-copy [`RowImage`]s, read cell by cell
//! into typed [`Value`]s only by the encoder that needs them.
//!
//! An output is an [`Encoder`]: Canal entries, Canal FlatMessage JSON,
//! Debezium JSON and `sluice tail`'s JSON lines are encoders of this one
//! model, so adding an output never touches the pipeline.
//!
//! Column filters ([`columns`]) travel with the table of a rows event
//! ([`Table::keep`]), resolved once per table description: every encoder
//! honours them, none matches rules itself.

pub mod columns;
mod model;
mod statement;

pub use columns::{CanalColumnRules, ColumnProjection, ColumnRules, Projections};
pub use model::*;
pub use statement::{classify_statement, StatementClass, StatementKind};

pub use sluice_binlog::{Cell, ColumnDef, DecodeError, RowImage, RowsEvent, TableMap, Value};

/// An output format: turns change events into the bytes (or messages) of
/// one output. Encoders keep whatever state their format needs between
/// events (a transaction being collected, buffers reused row to row).
pub trait Encoder {
    /// What one event encodes to (entries, lines, messages).
    type Output;
    /// The error of a value the format cannot represent, or of a row image
    /// the decoder could not read.
    type Error: std::error::Error + Send + Sync + 'static;

    /// Encodes one event into `out` (an event may give nothing, e.g. a
    /// transaction boundary the format does not carry).
    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<Self::Output>,
    ) -> Result<(), Self::Error>;
}
