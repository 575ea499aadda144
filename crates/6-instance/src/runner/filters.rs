//! Canal's filters of a destination (`canal.instance.filter.*` but the
//! table lists, which the destination's clients decide): which entries the
//! stream leaves out for everyone.

use super::*;

/// Canal's filters (instance.properties `canal.instance.filter.*`).
#[derive(Debug, Clone)]
pub struct RunnerFilters {
    pub tables: TableFilter,
    pub black: TableFilter,
    pub query_ddl: bool,
    pub query_dml: bool,
    pub query_dcl: bool,
    pub dml_insert: bool,
    pub dml_update: bool,
    pub dml_delete: bool,
    pub transaction_entry: bool,
    /// `canal.instance.filter.table.error`: a rows event whose table cannot
    /// be described or whose rows cannot be decoded is skipped (logged
    /// with table and position) instead of stopping the destination.
    pub table_error: bool,
}

impl Default for RunnerFilters {
    fn default() -> Self {
        RunnerFilters {
            tables: TableFilter::all(),
            black: TableFilter::all(),
            query_ddl: false,
            query_dml: false,
            query_dcl: false,
            dml_insert: false,
            dml_update: false,
            dml_delete: false,
            transaction_entry: false,
            table_error: false,
        }
    }
}
