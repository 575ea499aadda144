//! How each column is written: its Kafka Connect type (as the MySQL
//! connector maps it, §1.8 of the Debezium spec), its field schema and its
//! JSON value, from the decoder's typed [`Value`](sluice_binlog::Value)s.
//!
//! The parts depend one way: `kind` (what a column is) and `format`
//! (text writers) first, then `default` (DEFAULTs), `plan` (a column's
//! plan), then `schema` (field schemas) and `value` (values, masked or
//! not).

mod default;
mod format;
mod kind;
mod plan;
mod schema;
mod value;

pub use kind::{binary_padding, labels};
pub(crate) use plan::{ColumnPlan, Scratch, ValueProblem};
pub(crate) use schema::push_field_schema;
pub(crate) use value::push_value;

#[cfg(test)]
mod tests;
