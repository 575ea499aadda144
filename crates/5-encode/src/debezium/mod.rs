//! Debezium change-event JSON, as the Debezium engine's `Json` format emits
//! it for the MySQL (or MariaDB) connector: one [`DebeziumRecord`] per row
//! change (topic, key JSON, value JSON), tombstones after deletes, a
//! primary-key change as delete + tombstone + create, TRUNCATE events when
//! asked for, and transaction BEGIN/END records with
//! `provide.transaction.metadata`.
//!
//! Values come from the decoder's typed values, not from Canal's text:
//! DECIMAL as Kafka Connect `Decimal` bytes (from the value's digits),
//! temporal types as Debezium's epoch-based numbers and ISO strings,
//! character data decoded from its character set, and so on, as Debezium's
//! MySQL connector converts each type. With `converter.schemas.enable` (the default) key and value
//! are wrapped as `{"schema":…,"payload":…}` with the schema JsonConverter
//! writes. JSON is written straight into strings; per-table parts (topic,
//! column plans, schemas) are built once per table definition.
//!
//! Column DEFAULTs (from the table description, [`ColumnInfo::default`])
//! are converted as Debezium's DDL parser and value converters convert
//! them, written in the field schemas, and written in place of a null, as
//! Kafka's JsonConverter does with `replace.null.with.default`.
//!
//! Not produced by this encoder on its own: schema change records (their
//! bytes are written by `schema_change` for a caller that follows the
//! DDL with its schema, as the embedded engine does, and so are its
//! heartbeats), and the `__debezium.newkey`/`oldkey` headers of a
//! primary-key change.

mod column;
pub use column::{binary_padding, labels as enum_set_labels};
mod masks;
pub use masks::{ColumnMasks, DebeziumColumnRules, HashAlgorithm, Mask};
mod options;
pub use options::{
    BigIntUnsignedHandlingMode, BinaryHandlingMode, Connector, DebeziumOptions, DecimalFormat,
    DecimalHandlingMode, SkippedOperations, TimePrecisionMode, DEFAULT_DEBEZIUM_VERSION,
};
mod schema_change;
mod text;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

use sluice_binlog::{Cell, DecodeError, RowImage};
use sluice_events::{
    ChangeEvent, ColumnDef, ColumnInfo, ColumnProjection, Encoder, Op, Position, RowsChange,
    Statement, StatementKind, Table, TransactionState,
};

use column::{push_field_schema, push_value, ColumnPlan, Scratch, ValueProblem};
pub use schema_change::{ColumnDescription, SchemaChange, TableChange, TableDescription};
use text::{push_i64, push_str};

/// One record as the engine hands it to a consumer: the Kafka-style topic,
/// the key JSON and the value JSON (`None` value: a tombstone; `None` key: a
/// table without primary key, or a TRUNCATE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DebeziumRecord {
    pub destination: String,
    pub key: Option<String>,
    pub value: Option<String>,
    /// The index of the row the record is about in its rows event (the
    /// `source.row` field; 0 for records not about a row), so an engine
    /// can tell how much of a rows event a record completes.
    pub row: usize,
}

/// Errors of the Debezium output.
#[derive(Debug, thiserror::Error)]
pub enum DebeziumError {
    #[error("{property}: {value:?} is not valid; expected {allowed}")]
    InvalidOption {
        property: &'static str,
        value: String,
        allowed: &'static str,
    },
    #[error("{property}={value} is not supported by the Debezium output (supported: {supported})")]
    Unsupported {
        property: &'static str,
        value: String,
        supported: &'static str,
    },
    /// A value Debezium itself refuses, for the reason it gives.
    #[error("{property}={value} is refused: {reason}")]
    Refused {
        property: &'static str,
        value: String,
        reason: &'static str,
    },
    #[error("{property}: {pattern:?}: {reason}")]
    Pattern {
        property: String,
        pattern: String,
        reason: String,
    },
    #[error("topic.prefix is required")]
    MissingTopicPrefix,
    #[error("unknown Debezium output property {0:?}")]
    UnknownProperty(String),
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error("{db}.{table} column {column}: {detail}")]
    Value {
        db: String,
        table: String,
        column: String,
        detail: String,
    },
}

/// Processing time source: nanoseconds since the epoch.
pub type Clock = Box<dyn FnMut() -> i64 + Send>;

fn system_clock() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// A table as the output writes it, built once per table definition.
#[derive(Debug)]
struct TablePlan {
    /// What the plan was built from; a rows event whose table differs
    /// rebuilds it.
    defs: Vec<ColumnDef>,
    info: Option<Vec<ColumnInfo>>,
    /// The columns shown (column filters), `None`: all.
    keep: Option<ColumnProjection>,
    topic: String,
    db: String,
    table: String,
    columns: Vec<ColumnPlan>,
    /// Indexes of the primary-key columns, in table order.
    key: Vec<usize>,
    /// `{"schema":<key schema>,"payload":` (schemas enabled, table with a key).
    key_prefix: String,
    /// `{"schema":<envelope schema>,"payload":` (schemas enabled).
    value_prefix: String,
    /// The length of the table's last value: the next one is allocated that
    /// big, so a value is written without growing its string.
    last_value_len: std::sync::atomic::AtomicUsize,
}

/// The transaction being followed for `provide.transaction.metadata`.
#[derive(Debug, Default)]
struct TransactionMeta {
    /// The transaction's id once its first data event was emitted (and its
    /// BEGIN record with it).
    id: Option<String>,
    /// Position of the BEGIN (or MariaDB GTID event): the id without GTIDs.
    begin: Option<(String, u64)>,
    total: u64,
    /// Events per `db.table`, in first-seen order.
    per_table: Vec<(String, u64)>,
}

/// The Debezium JSON encoder. See the module documentation.
pub struct DebeziumEncoder {
    options: DebeziumOptions,
    clock: Clock,
    plans: HashMap<String, HashMap<String, Arc<TablePlan>>>,
    /// `{"version":…,"connector":…,"name":…` of every source block.
    source_head: String,
    /// The source struct's schema, for schema-wrapped values.
    source_schema: String,
    txn: TransactionMeta,
    scratch: Scratch,
    /// Kept between rows events for its buffers.
    event_parts: EventParts,
}

/// What every record of one rows event shares, rendered once for them
/// all: the `source` block before and after its `row` field, and the
/// processing time (the instant the event's records were made).
#[derive(Debug, Default)]
struct EventParts {
    source_head: String,
    source_tail: String,
    processing_time: String,
}

impl std::fmt::Debug for DebeziumEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DebeziumEncoder")
            .field("options", &self.options)
            .field(
                "tables",
                &self.plans.values().map(HashMap::len).sum::<usize>(),
            )
            .finish_non_exhaustive()
    }
}

/// Where a record's source block points.
struct Source<'a> {
    position: &'a Position<'a>,
    txn: &'a TransactionState,
    db: &'a str,
    table: Option<&'a str>,
    row: usize,
    /// `source.snapshot`: `"false"` but for snapshot reads.
    snapshot: &'static str,
    /// The parts rendered for the whole rows event, if they were.
    parts: Option<&'a EventParts>,
}

/// `source.snapshot` of a row a snapshot read (Debezium's
/// `SnapshotRecord`): the first record of the snapshot is `first`, the
/// first of each other table `first_in_data_collection`, the last of each
/// table but the last `last_in_data_collection`, the very last `last`, any
/// other `true`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SnapshotMarker {
    First,
    FirstInDataCollection,
    True,
    LastInDataCollection,
    Last,
}

impl SnapshotMarker {
    /// The value written in `source.snapshot`.
    pub fn name(self) -> &'static str {
        match self {
            SnapshotMarker::First => "first",
            SnapshotMarker::FirstInDataCollection => "first_in_data_collection",
            SnapshotMarker::True => "true",
            SnapshotMarker::LastInDataCollection => "last_in_data_collection",
            SnapshotMarker::Last => "last",
        }
    }
}

impl DebeziumEncoder {
    /// An encoder with the system clock as processing time.
    pub fn new(options: DebeziumOptions) -> Self {
        let mut source_head = String::from("{\"version\":");
        push_str(&mut source_head, &options.version);
        source_head.push_str(",\"connector\":");
        push_str(&mut source_head, options.connector.name());
        source_head.push_str(",\"name\":");
        push_str(&mut source_head, &options.topic_prefix);
        let source_schema = source_schema(options.connector);
        DebeziumEncoder {
            options,
            clock: Box::new(system_clock),
            plans: HashMap::new(),
            source_head,
            source_schema,
            txn: TransactionMeta::default(),
            scratch: Scratch::default(),
            event_parts: EventParts::default(),
        }
    }

    /// Replaces the processing-time clock (envelope `ts_ms`/`ts_us`/`ts_ns`):
    /// `clock` returns nanoseconds since the epoch.
    pub fn with_clock(mut self, clock: impl FnMut() -> i64 + Send + 'static) -> Self {
        self.clock = Box::new(clock);
        self
    }

    pub fn options(&self) -> &DebeziumOptions {
        &self.options
    }

    /// The plan of `table`, built when first seen or when its definition
    /// changed.
    fn plan(&mut self, table: &Table<'_>) -> Arc<TablePlan> {
        let (db, name) = (table.schema(), table.name());
        if let Some(plan) = self.plans.get(db).and_then(|t| t.get(name)) {
            if plan.defs == table.map.columns
                && plan.info.as_deref() == table.info
                && plan.keep.as_ref() == table.keep
            {
                return Arc::clone(plan);
            }
        }
        let plan = Arc::new(self.build_plan(table));
        self.plans
            .entry(db.to_string())
            .or_default()
            .insert(name.to_string(), Arc::clone(&plan));
        plan
    }

    fn build_plan(&self, table: &Table<'_>) -> TablePlan {
        let o = &self.options;
        let columns: Vec<ColumnPlan> = table
            .columns()
            .map(|c| {
                let mut plan = ColumnPlan::new(&c, o);
                plan.kept = table.keeps(c.index);
                if plan.maskable() {
                    plan.mask = o
                        .masks
                        .mask_for(table.schema(), table.name(), &plan.name)
                        .map(|m| (m, ColumnPlan::declared_length(&c)));
                }
                plan
            })
            .collect();
        let key: Vec<usize> = table
            .columns()
            .filter(|c| c.is_key)
            .map(|c| c.index)
            .collect();
        let base = format!("{}.{}.{}", o.topic_prefix, table.schema(), table.name());
        let mut key_prefix = String::new();
        let mut value_prefix = String::new();
        if o.schemas_enable {
            key_prefix.push_str("{\"schema\":{\"type\":\"struct\",\"fields\":[");
            for (n, &i) in key.iter().enumerate() {
                if n > 0 {
                    key_prefix.push(',');
                }
                // The key as Debezium writes it: every primary-key column,
                // whatever the column filters and masks say.
                let key_column = ColumnPlan {
                    mask: None,
                    ..columns[i].clone()
                };
                push_field_schema(&mut key_prefix, &key_column, o);
            }
            key_prefix.push_str("],\"optional\":false,\"name\":");
            push_str(&mut key_prefix, &format!("{base}.Key"));
            key_prefix.push_str("},\"payload\":");

            let mut row = String::from("{\"type\":\"struct\",\"fields\":[");
            for (n, c) in columns.iter().filter(|c| c.kept).enumerate() {
                if n > 0 {
                    row.push(',');
                }
                push_field_schema(&mut row, c, o);
            }
            row.push_str("],\"optional\":true,\"name\":");
            push_str(&mut row, &format!("{base}.Value"));
            value_prefix.push_str("{\"schema\":{\"type\":\"struct\",\"fields\":[");
            value_prefix.push_str(&row);
            value_prefix.push_str(",\"field\":\"before\"},");
            value_prefix.push_str(&row);
            value_prefix.push_str(",\"field\":\"after\"},");
            value_prefix.push_str(&self.source_schema);
            value_prefix.push(',');
            value_prefix.push_str(TRANSACTION_BLOCK_SCHEMA);
            value_prefix.push_str(
                ",{\"type\":\"string\",\"optional\":false,\"field\":\"op\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ms\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_us\"},{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ns\"}],\"optional\":false,\"name\":",
            );
            push_str(&mut value_prefix, &format!("{base}.Envelope"));
            value_prefix.push_str(",\"version\":2},\"payload\":");
        }
        TablePlan {
            defs: table.map.columns.clone(),
            info: table.info.map(<[ColumnInfo]>::to_vec),
            keep: table.keep.cloned(),
            topic: base,
            db: table.schema().to_string(),
            table: table.name().to_string(),
            columns,
            key,
            last_value_len: std::sync::atomic::AtomicUsize::new(value_prefix.len() + 512),
            key_prefix,
            value_prefix,
        }
    }

    fn encode_rows(
        &mut self,
        rows: &RowsChange<'_>,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        if self.options.skipped_operations.skips_all_of(rows.op) {
            return Ok(());
        }
        let plan = self.plan(&rows.table);
        let mut parts = std::mem::take(&mut self.event_parts);
        let result = self.encode_rows_with(rows, &plan, &mut parts, out);
        self.event_parts = parts;
        result
    }

    fn encode_rows_with(
        &mut self,
        rows: &RowsChange<'_>,
        plan: &TablePlan,
        parts: &mut EventParts,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        let mut source = Source {
            position: &rows.position,
            txn: rows.txn,
            db: rows.table.schema(),
            table: Some(rows.table.name()),
            row: 0,
            snapshot: "false",
            parts: None,
        };
        parts.source_head.clear();
        self.push_source_head(&mut parts.source_head, &source);
        parts.source_tail.clear();
        Self::push_source_tail(&mut parts.source_tail, &source);
        parts.processing_time.clear();
        self.push_processing_time(&mut parts.processing_time);
        let parts = &*parts;
        for row in rows.rows() {
            let row = row?;
            source = Source {
                row: row.index,
                parts: Some(parts),
                ..source
            };
            match (rows.op, &row.before, &row.after) {
                (Op::Insert, _, Some(after)) => {
                    let key = self.key(plan, after)?;
                    self.emit(plan, &source, key, None, Some(after), "c", out)?;
                }
                (Op::Delete, Some(before), _) => {
                    let key = self.key(plan, before)?;
                    self.emit_delete(plan, &source, key, before, out)?;
                }
                (Op::Update, Some(before), Some(after)) => {
                    let old_key = self.key(plan, before)?;
                    // A MINIMAL after image leaves unchanged key columns out:
                    // the key is then the before image's.
                    let new_key = if plan.key.iter().all(|&i| after.is_present(i)) {
                        self.key(plan, after)?
                    } else {
                        old_key.clone()
                    };
                    if old_key == new_key {
                        self.emit(plan, &source, new_key, Some(before), Some(after), "u", out)?;
                    } else {
                        // A primary-key change: the old row goes (with its
                        // tombstone), the new one comes.
                        self.emit_delete(plan, &source, old_key, before, out)?;
                        self.emit(plan, &source, new_key, None, Some(after), "c", out)?;
                    }
                }
                // An update without a before image (never from a server).
                (Op::Update, None, Some(after)) => {
                    let key = self.key(plan, after)?;
                    self.emit(plan, &source, key, None, Some(after), "u", out)?;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The rows of `rows`, an insert (the rows a snapshot read at the
    /// point `rows.position` names, its time the time of reading), as
    /// `op:"r"` records: `before` null, `source.snapshot` the marker
    /// `marker` gives each row's index, `source.row` 0 as Debezium's
    /// snapshot records have it. Each record's `row` is the row's index.
    pub fn encode_read(
        &mut self,
        rows: &RowsChange<'_>,
        marker: &dyn Fn(usize) -> SnapshotMarker,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        let start = out.len();
        let result = self.encode_read_rows(rows, marker, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn encode_read_rows(
        &mut self,
        rows: &RowsChange<'_>,
        marker: &dyn Fn(usize) -> SnapshotMarker,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        let plan = self.plan(&rows.table);
        for row in rows.rows() {
            let row = row?;
            let Some(after) = &row.after else {
                continue;
            };
            let source = Source {
                position: &rows.position,
                txn: rows.txn,
                db: rows.table.schema(),
                table: Some(rows.table.name()),
                row: 0,
                snapshot: marker(row.index).name(),
                parts: None,
            };
            let key = self.key(&plan, after)?;
            let at = out.len();
            if self.emit(&plan, &source, key, None, Some(after), "r", out)? {
                if let Some(r) = out.get_mut(at) {
                    r.row = row.index;
                }
            }
        }
        Ok(())
    }

    fn emit_delete(
        &mut self,
        plan: &TablePlan,
        source: &Source<'_>,
        key: Option<String>,
        before: &RowImage<'_>,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        let emitted = self.emit(plan, source, key.clone(), Some(before), None, "d", out)?;
        if emitted && self.options.tombstones_on_delete {
            out.push(DebeziumRecord {
                destination: plan.topic.clone(),
                key,
                value: None,
                row: source.row,
            });
        }
        Ok(())
    }

    /// The key JSON of a row (schema-wrapped when schemas are enabled), or
    /// `None` for a table without primary key.
    fn key(
        &mut self,
        plan: &TablePlan,
        image: &RowImage<'_>,
    ) -> Result<Option<String>, DebeziumError> {
        if plan.key.is_empty() {
            return Ok(None);
        }
        let mut s = String::with_capacity(plan.key_prefix.len() + 32);
        s.push_str(&plan.key_prefix);
        s.push('{');
        let mut first = true;
        // Key columns are in table order: the cells after the last one are
        // not read.
        let last = plan.key.iter().copied().max().unwrap_or(0);
        for (i, cell) in image.cells().enumerate().take(last + 1) {
            let cell = cell?;
            if !plan.key.contains(&i) {
                continue;
            }
            if !first {
                s.push(',');
            }
            first = false;
            self.push_cell(&mut s, plan, i, &cell, true)?;
        }
        s.push('}');
        if self.options.schemas_enable {
            s.push('}');
        }
        Ok(Some(s))
    }

    /// Column `index`'s field; `in_key`: as the key has it, never masked.
    fn push_cell(
        &mut self,
        out: &mut String,
        plan: &TablePlan,
        index: usize,
        cell: &Cell<'_>,
        in_key: bool,
    ) -> Result<(), DebeziumError> {
        let (Some(column), Some(def)) = (plan.columns.get(index), plan.defs.get(index)) else {
            return Ok(());
        };
        let unmasked;
        let column = if in_key && column.mask.is_some() {
            unmasked = ColumnPlan {
                mask: None,
                ..column.clone()
            };
            &unmasked
        } else {
            column
        };
        out.push_str(&column.field);
        match cell {
            // A column left out of a MINIMAL/NOBLOB image: not known, null
            // (which JsonConverter writes as the DEFAULT, if any).
            Cell::Absent => out.push_str(column.null()),
            Cell::Present(value) => {
                push_value(out, column, def, value, &self.options, &mut self.scratch).map_err(
                    |p| match p {
                        ValueProblem::Decode(e) => DebeziumError::Decode(e),
                        ValueProblem::Mismatch(detail) => DebeziumError::Value {
                            db: plan.db.clone(),
                            table: plan.table.clone(),
                            column: column.name.clone(),
                            detail,
                        },
                    },
                )?
            }
        }
        Ok(())
    }

    fn push_row(
        &mut self,
        out: &mut String,
        plan: &TablePlan,
        image: Option<&RowImage<'_>>,
    ) -> Result<(), DebeziumError> {
        let Some(image) = image else {
            out.push_str("null");
            return Ok(());
        };
        out.push('{');
        let mut first = true;
        for (i, cell) in image.cells().enumerate() {
            let cell = cell?;
            if plan.keep.is_some() && !plan.columns.get(i).is_some_and(|c| c.kept) {
                continue;
            }
            if !first {
                out.push(',');
            }
            first = false;
            self.push_cell(out, plan, i, &cell, false)?;
        }
        out.push('}');
        Ok(())
    }

    /// The `source` block (§1.5 order).
    fn push_source(&self, out: &mut String, source: &Source<'_>) {
        match source.parts {
            Some(parts) => out.push_str(&parts.source_head),
            None => self.push_source_head(out, source),
        }
        push_i64(out, source.row as i64);
        match source.parts {
            Some(parts) => out.push_str(&parts.source_tail),
            None => Self::push_source_tail(out, source),
        }
    }

    /// The `source` block up to its `row` field's value.
    fn push_source_head(&self, out: &mut String, source: &Source<'_>) {
        let p = source.position;
        let ts = p.timestamp as i64;
        out.push_str(&self.source_head);
        out.push_str(",\"ts_ms\":");
        push_i64(out, ts * 1000);
        out.push_str(",\"snapshot\":");
        push_str(out, source.snapshot);
        out.push_str(",\"db\":");
        push_str(out, source.db);
        out.push_str(",\"sequence\":null,\"ts_us\":");
        push_i64(out, ts * 1_000_000);
        out.push_str(",\"ts_ns\":");
        push_i64(out, ts * 1_000_000_000);
        out.push_str(",\"table\":");
        match source.table {
            Some(t) => push_str(out, t),
            None => out.push_str("null"),
        }
        out.push_str(",\"server_id\":");
        push_i64(out, p.server_id as i64);
        out.push_str(",\"gtid\":");
        match &source.txn.gtid {
            Some(g) => push_str(out, g),
            None => out.push_str("null"),
        }
        out.push_str(",\"file\":");
        push_str(out, p.file);
        out.push_str(",\"pos\":");
        push_i64(out, p.offset as i64);
        out.push_str(",\"row\":");
    }

    /// The `source` block after its `row` field's value.
    fn push_source_tail(out: &mut String, source: &Source<'_>) {
        out.push_str(",\"thread\":");
        match source.txn.thread_id {
            Some(t) => push_i64(out, t as i64),
            None => out.push_str("null"),
        }
        out.push_str(",\"query\":null}");
    }

    /// The `ts_ms`, `ts_us`, `ts_ns` processing-time fields and the closing brace.
    fn push_processing_time(&mut self, out: &mut String) {
        let now = (self.clock)();
        out.push_str(",\"ts_ms\":");
        push_i64(out, now.div_euclid(1_000_000));
        out.push_str(",\"ts_us\":");
        push_i64(out, now.div_euclid(1000));
        out.push_str(",\"ts_ns\":");
        push_i64(out, now);
        out.push('}');
    }

    /// One data-change record (and, with transaction metadata, the BEGIN
    /// record of its transaction if it is the first), unless
    /// `skipped.operations` drops records of `op`: Debezium filters each
    /// record by its own operation, so a key change's `d` and `c` follow
    /// `d` and `c`. Returns whether it was emitted.
    #[allow(clippy::too_many_arguments)]
    fn emit(
        &mut self,
        plan: &TablePlan,
        source: &Source<'_>,
        key: Option<String>,
        before: Option<&RowImage<'_>>,
        after: Option<&RowImage<'_>>,
        op: &str,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<bool, DebeziumError> {
        if self.options.skipped_operations.skips(op) {
            return Ok(false);
        }
        let mut v = String::with_capacity(
            plan.last_value_len
                .load(std::sync::atomic::Ordering::Relaxed)
                .saturating_add(64),
        );
        v.push_str(&plan.value_prefix);
        v.push_str("{\"before\":");
        self.push_row(&mut v, plan, before)?;
        v.push_str(",\"after\":");
        self.push_row(&mut v, plan, after)?;
        v.push_str(",\"source\":");
        self.push_source(&mut v, source);
        v.push_str(",\"transaction\":");
        // A TRUNCATE is a statement of its own, outside any transaction;
        // a snapshot read is in none.
        if self.options.provide_transaction_metadata && op != "t" && op != "r" {
            self.push_transaction_block(
                &mut v,
                source,
                &format!("{}.{}", plan.db, plan.table),
                out,
            );
        } else {
            v.push_str("null");
        }
        v.push_str(",\"op\":");
        push_str(&mut v, op);
        match source.parts {
            Some(parts) => v.push_str(&parts.processing_time),
            None => self.push_processing_time(&mut v),
        }
        if self.options.schemas_enable {
            v.push('}');
        }
        plan.last_value_len
            .store(v.len(), std::sync::atomic::Ordering::Relaxed);
        out.push(DebeziumRecord {
            destination: plan.topic.clone(),
            key,
            value: Some(v),
            row: source.row,
        });
        Ok(true)
    }

    /// The data event's `transaction` block; the transaction's BEGIN record
    /// goes out first if this is its first data event.
    fn push_transaction_block(
        &mut self,
        v: &mut String,
        source: &Source<'_>,
        collection: &str,
        out: &mut Vec<DebeziumRecord>,
    ) {
        if self.txn.id.is_none() {
            let id = match (&source.txn.gtid, &self.txn.begin) {
                (Some(g), _) => g.clone(),
                (None, Some((file, pos))) => format!("file={file},pos={pos}"),
                (None, None) => format!(
                    "file={},pos={}",
                    source.position.file, source.position.offset
                ),
            };
            let ts_ms = source.position.timestamp_ms();
            out.push(self.boundary_record("BEGIN", &id, None, ts_ms));
            self.txn.id = Some(id);
            self.txn.total = 0;
            self.txn.per_table.clear();
        }
        self.txn.total += 1;
        let order = match self.txn.per_table.iter_mut().find(|(t, _)| t == collection) {
            Some((_, n)) => {
                *n += 1;
                *n
            }
            None => {
                self.txn.per_table.push((collection.to_string(), 1));
                1
            }
        };
        v.push_str("{\"id\":");
        push_str(v, self.txn.id.as_deref().unwrap_or(""));
        v.push_str(",\"total_order\":");
        push_i64(v, self.txn.total as i64);
        v.push_str(",\"data_collection_order\":");
        push_i64(v, order as i64);
        v.push('}');
    }

    /// A BEGIN or END record to `<prefix>.transaction` (§1.7).
    fn boundary_record(
        &self,
        status: &str,
        id: &str,
        end: Option<&TransactionMeta>,
        ts_ms: i64,
    ) -> DebeziumRecord {
        let schemas = self.options.schemas_enable;
        let mut key = String::new();
        if schemas {
            key.push_str("{\"schema\":");
            key.push_str(TRANSACTION_KEY_SCHEMA);
            key.push_str(",\"payload\":");
        }
        key.push_str("{\"id\":");
        push_str(&mut key, id);
        key.push('}');
        if schemas {
            key.push('}');
        }
        let mut v = String::new();
        if schemas {
            v.push_str("{\"schema\":");
            v.push_str(TRANSACTION_VALUE_SCHEMA);
            v.push_str(",\"payload\":");
        }
        v.push_str("{\"status\":");
        push_str(&mut v, status);
        v.push_str(",\"id\":");
        push_str(&mut v, id);
        match end {
            Some(t) => {
                v.push_str(",\"event_count\":");
                push_i64(&mut v, t.total as i64);
                v.push_str(",\"data_collections\":[");
                for (i, (name, n)) in t.per_table.iter().enumerate() {
                    if i > 0 {
                        v.push(',');
                    }
                    v.push_str("{\"data_collection\":");
                    push_str(&mut v, name);
                    v.push_str(",\"event_count\":");
                    push_i64(&mut v, *n as i64);
                    v.push('}');
                }
                v.push(']');
            }
            None => v.push_str(",\"event_count\":null,\"data_collections\":null"),
        }
        v.push_str(",\"ts_ms\":");
        push_i64(&mut v, ts_ms);
        v.push('}');
        if schemas {
            v.push('}');
        }
        DebeziumRecord {
            destination: format!("{}.transaction", self.options.topic_prefix),
            key: Some(key),
            value: Some(v),
            row: 0,
        }
    }

    /// A TRUNCATE statement as an `op:"t"` event (when `t` is not skipped):
    /// null key, no images.
    fn encode_truncate(
        &mut self,
        statement: &Statement<'_>,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        let Some(table) = statement.class.table.as_deref() else {
            return Ok(());
        };
        let db = statement
            .class
            .schema
            .as_deref()
            .unwrap_or(statement.db.as_ref());
        let plan = match self.plans.get(db).and_then(|t| t.get(table)) {
            Some(p) => Arc::clone(p),
            // A table not seen in a rows event yet: no columns known.
            None => {
                let map = sluice_binlog::TableMap {
                    table_id: 0,
                    flags: 0,
                    schema: db.to_string(),
                    table: table.to_string(),
                    columns: Vec::new(),
                    has_optional_metadata: false,
                };
                Arc::new(self.build_plan(&Table {
                    map: &map,
                    info: None,
                    keep: None,
                }))
            }
        };
        let source = Source {
            position: &statement.position,
            txn: statement.txn,
            db,
            table: Some(table),
            row: 0,
            snapshot: "false",
            parts: None,
        };
        self.emit(&plan, &source, None, None, None, "t", out)?;
        Ok(())
    }
}

impl Encoder for DebeziumEncoder {
    type Output = DebeziumRecord;
    type Error = DebeziumError;

    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        // On error, none of the event's records: not some of its rows.
        let start = out.len();
        let result = self.encode_event(event, out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

impl DebeziumEncoder {
    fn encode_event(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<DebeziumRecord>,
    ) -> Result<(), DebeziumError> {
        match event {
            ChangeEvent::Begin { position, .. } => {
                self.txn = TransactionMeta {
                    begin: Some((position.file.to_string(), position.offset)),
                    ..TransactionMeta::default()
                };
            }
            ChangeEvent::Rows(rows) => self.encode_rows(rows, out)?,
            ChangeEvent::Commit { position, .. } => {
                let txn = std::mem::take(&mut self.txn);
                if let (true, Some(id)) = (self.options.provide_transaction_metadata, &txn.id) {
                    out.push(self.boundary_record("END", id, Some(&txn), position.timestamp_ms()));
                }
            }
            ChangeEvent::Statement(s) => {
                if s.class.kind == StatementKind::Truncate
                    && !self.options.skipped_operations.truncate
                {
                    self.encode_truncate(s, out)?;
                }
            }
        }
        Ok(())
    }
}

/// The `source` struct's schema (§1.10), with its `field` name.
fn source_schema(connector: Connector) -> String {
    format!(
        concat!(
            "{{\"type\":\"struct\",\"fields\":[",
            "{{\"type\":\"string\",\"optional\":false,\"field\":\"version\"}},",
            "{{\"type\":\"string\",\"optional\":false,\"field\":\"connector\"}},",
            "{{\"type\":\"string\",\"optional\":false,\"field\":\"name\"}},",
            "{{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"}},",
            "{{\"type\":\"string\",\"optional\":true,\"name\":\"io.debezium.data.Enum\",\"version\":1,",
            "\"parameters\":{{\"allowed\":\"true,first,first_in_data_collection,last_in_data_collection,last,false,incremental\"}},",
            "\"default\":\"false\",\"field\":\"snapshot\"}},",
            "{{\"type\":\"string\",\"optional\":false,\"field\":\"db\"}},",
            "{{\"type\":\"string\",\"optional\":true,\"field\":\"sequence\"}},",
            "{{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_us\"}},",
            "{{\"type\":\"int64\",\"optional\":true,\"field\":\"ts_ns\"}},",
            "{{\"type\":\"string\",\"optional\":true,\"field\":\"table\"}},",
            "{{\"type\":\"int64\",\"optional\":false,\"field\":\"server_id\"}},",
            "{{\"type\":\"string\",\"optional\":true,\"field\":\"gtid\"}},",
            "{{\"type\":\"string\",\"optional\":false,\"field\":\"file\"}},",
            "{{\"type\":\"int64\",\"optional\":false,\"field\":\"pos\"}},",
            "{{\"type\":\"int32\",\"optional\":false,\"field\":\"row\"}},",
            "{{\"type\":\"int64\",\"optional\":true,\"field\":\"thread\"}},",
            "{{\"type\":\"string\",\"optional\":true,\"field\":\"query\"}}],",
            "\"optional\":false,\"name\":\"io.debezium.connector.{}.Source\",\"version\":1,\"field\":\"source\"}}"
        ),
        connector.name()
    )
}

/// The data event's `transaction` block schema (§1.10), with its `field` name.
const TRANSACTION_BLOCK_SCHEMA: &str = concat!(
    "{\"type\":\"struct\",\"fields\":[",
    "{\"type\":\"string\",\"optional\":false,\"field\":\"id\"},",
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"total_order\"},",
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"data_collection_order\"}],",
    "\"optional\":true,\"name\":\"event.block\",\"version\":1,\"field\":\"transaction\"}"
);

/// Key schema of BEGIN/END records.
const TRANSACTION_KEY_SCHEMA: &str = concat!(
    "{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":false,\"field\":\"id\"}],",
    "\"optional\":false,\"name\":\"io.debezium.connector.common.TransactionMetadataKey\",\"version\":1}"
);

/// Value schema of BEGIN/END records (§1.7 field order).
const TRANSACTION_VALUE_SCHEMA: &str = concat!(
    "{\"type\":\"struct\",\"fields\":[",
    "{\"type\":\"string\",\"optional\":false,\"field\":\"status\"},",
    "{\"type\":\"string\",\"optional\":false,\"field\":\"id\"},",
    "{\"type\":\"int64\",\"optional\":true,\"field\":\"event_count\"},",
    "{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[",
    "{\"type\":\"string\",\"optional\":false,\"field\":\"data_collection\"},",
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"event_count\"}],",
    "\"optional\":false},\"optional\":true,\"field\":\"data_collections\"},",
    "{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"}],",
    "\"optional\":false,\"name\":\"io.debezium.connector.common.TransactionMetadataValue\",\"version\":1}"
);
