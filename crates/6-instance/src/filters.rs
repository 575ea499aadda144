//! Which changes a stream passes on: one filter type for every reader (the
//! server's destinations, an embedded change stream, the engine's table
//! selection), asked on change events before they are encoded.
//!
//! [`CanalFilters`] is a destination's `canal.instance.filter.*`: the table
//! lists and the DML / DDL / query switches. Within a server the table list
//! a stream reads is the union of its clients' filters
//! ([`crate::client_filters`]): [`CanalFilters::reading`] asks with that
//! list in place of the configured one. Pure: no I/O, no store.

use sluice_canal::TableFilter;
use sluice_events::{Op, Statement, StatementKind};

/// Which changes a stream passes to its encoder. Transaction boundaries
/// always pass.
pub trait ChangeFilter: Send {
    /// Whether row changes of `schema.table` pass.
    fn table(&self, schema: &str, table: &str) -> bool;
    /// Whether row changes of `schema.table` of this kind pass.
    fn rows(&self, schema: &str, table: &str, _op: Op) -> bool {
        self.table(schema, table)
    }
    /// Whether a statement (DDL, or DML in statement format) passes.
    fn statement(&self, statement: &Statement<'_>) -> bool;
    /// Called before each event: a filter that changes while the stream
    /// runs (the union of a destination's clients' filters) takes its
    /// newest form here, so that one event is filtered by one form.
    fn refresh(&mut self) {}
}

/// Canal's filters (`canal.instance.filter.*`): a table passes when it
/// matches `tables` and not `black` (an empty black list drops nothing);
/// row changes, DDL, statement-format DML and other statements can each
/// be dropped as a whole.
#[derive(Debug, Clone)]
pub struct CanalFilters {
    pub tables: TableFilter,
    pub black: TableFilter,
    pub query_ddl: bool,
    pub query_dml: bool,
    pub query_dcl: bool,
    pub dml_insert: bool,
    pub dml_update: bool,
    pub dml_delete: bool,
    /// Drop TRANSACTIONBEGIN/END entries (Canal entries only; one pair
    /// still goes out now and then so cursors advance).
    pub transaction_entry: bool,
    /// `canal.instance.filter.table.error`: a rows event whose table cannot
    /// be described or whose rows cannot be decoded is skipped (logged with
    /// table and position) instead of stopping the destination.
    pub table_error: bool,
}

impl Default for CanalFilters {
    fn default() -> Self {
        CanalFilters {
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

impl CanalFilters {
    /// These filters with `tables` read in place of the configured list.
    pub fn reading<'a>(&'a self, tables: &'a TableFilter) -> Reading<'a> {
        Reading {
            filters: self,
            tables,
        }
    }

    fn passes_table(&self, tables: &TableFilter, schema: &str, table: &str) -> bool {
        tables.matches(schema, table)
            && (self.black.is_empty() || !self.black.matches(schema, table))
    }

    fn passes_rows(&self, tables: &TableFilter, schema: &str, table: &str, op: Op) -> bool {
        let dropped = match op {
            Op::Insert => self.dml_insert,
            Op::Update => self.dml_update,
            Op::Delete => self.dml_delete,
        };
        !dropped && self.passes_table(tables, schema, table)
    }

    /// A statement as Canal files it: DDL (any statement but DML outside a
    /// transaction, and DDL inside one), dropped with `query.ddl` or when
    /// the table it names does not pass; statement-format DML, dropped with
    /// `query.dml`; any other statement in a transaction, with `query.dcl`.
    fn passes_statement(&self, tables: &TableFilter, st: &Statement<'_>) -> bool {
        let dml = st.class.is_dml();
        let ddl = !dml && (st.class.kind != StatementKind::Other || !st.txn.in_transaction);
        if ddl {
            if self.query_ddl {
                return false;
            }
            let schema = st.class.schema.as_deref().unwrap_or(&st.db);
            return match st.class.table.as_deref() {
                Some(table) if !table.is_empty() => self.passes_table(tables, schema, table),
                _ => true,
            };
        }
        if dml {
            !self.query_dml
        } else {
            !self.query_dcl
        }
    }
}

impl ChangeFilter for CanalFilters {
    fn table(&self, schema: &str, table: &str) -> bool {
        self.passes_table(&self.tables, schema, table)
    }
    fn rows(&self, schema: &str, table: &str, op: Op) -> bool {
        self.passes_rows(&self.tables, schema, table, op)
    }
    fn statement(&self, statement: &Statement<'_>) -> bool {
        self.passes_statement(&self.tables, statement)
    }
}

/// [`CanalFilters`] with another table list read (see
/// [`CanalFilters::reading`]).
#[derive(Debug, Clone, Copy)]
pub struct Reading<'a> {
    filters: &'a CanalFilters,
    tables: &'a TableFilter,
}

impl Reading<'_> {
    pub fn table(&self, schema: &str, table: &str) -> bool {
        self.filters.passes_table(self.tables, schema, table)
    }
    pub fn rows(&self, schema: &str, table: &str, op: Op) -> bool {
        self.filters.passes_rows(self.tables, schema, table, op)
    }
    pub fn statement(&self, statement: &Statement<'_>) -> bool {
        self.filters.passes_statement(self.tables, statement)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_events::{classify_statement, Position, TransactionState};

    fn statement<'a>(sql: &'a str, txn: &'a TransactionState) -> Statement<'a> {
        Statement {
            position: Position {
                file: "binlog.000001",
                offset: 4,
                next_offset: 100,
                server_id: 1,
                timestamp: 0,
            },
            txn,
            db: "shop".into(),
            sql: sql.into(),
            class: classify_statement(sql),
        }
    }

    #[test]
    fn canal_filters_drop_by_table_kind_and_statement() {
        let f = CanalFilters {
            tables: TableFilter::new("shop\\..*").unwrap(),
            black: TableFilter::new("shop\\.secret").unwrap(),
            dml_delete: true,
            query_dml: true,
            ..Default::default()
        };
        assert!(f.rows("shop", "orders", Op::Insert));
        assert!(!f.rows("shop", "orders", Op::Delete));
        assert!(!f.rows("shop", "secret", Op::Insert));
        assert!(!f.rows("other", "t", Op::Insert));
        let outside = TransactionState::default();
        assert!(f.statement(&statement("ALTER TABLE orders ADD c INT", &outside)));
        assert!(!f.statement(&statement("ALTER TABLE secret ADD c INT", &outside)));
        assert!(!f.statement(&statement("INSERT INTO orders VALUES (1)", &outside)));
        // Another statement outside a transaction counts as DDL.
        assert!(f.statement(&statement("GRANT SELECT ON *.* TO u", &outside)));
        let blocked = CanalFilters {
            query_ddl: true,
            query_dcl: true,
            ..f.clone()
        };
        assert!(!blocked.statement(&statement("GRANT SELECT ON *.* TO u", &outside)));
        let inside = TransactionState {
            in_transaction: true,
            ..Default::default()
        };
        assert!(!blocked.statement(&statement("SET @a = 1", &inside)));
        // Reading another table list: the switches stay.
        let union = TableFilter::new("other\\..*").unwrap();
        assert!(f.reading(&union).rows("other", "t", Op::Insert));
        assert!(!f.reading(&union).rows("other", "t", Op::Delete));
        assert!(!f.reading(&union).table("shop", "orders"));
    }
}
