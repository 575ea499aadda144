//! Typed records, for applications that want Rust values rather than
//! Debezium JSON: each row change as a [`TypedRecord`] (database, table,
//! operation, before and after images as column name → [`Value`]), with the
//! same offset a JSON record of the same change has.
//!
//! How MySQL/MariaDB types map (the binlog's values, not Debezium's
//! converted ones):
//!
//! | column type | [`Value`] |
//! |---|---|
//! | TINYINT … BIGINT | `Int(i64)`; UNSIGNED: `UInt(u64)` (BIGINT UNSIGNED keeps its whole range) |
//! | BOOLEAN / BOOL (TINYINT(1) to the server) | `Int` (0 or 1) |
//! | BIT(1) | `Bool` |
//! | FLOAT / DOUBLE | `Float(f32)` / `Double(f64)` |
//! | DECIMAL(M,D) | `Decimal`: the exact digits as MySQL prints them (`"-12.50"`), precision and scale |
//! | YEAR | `Year(u16)` (0 for YEAR 0000) |
//! | DATE | `Date` (year, month, day; zero dates as stored, `0000-00-00` included) |
//! | TIME | `Time` (sign, hours up to 838, minutes, seconds, microseconds) |
//! | DATETIME | `DateTime` (wall clock, no time zone) |
//! | TIMESTAMP | `Timestamp` (seconds and microseconds since the epoch, UTC) |
//! | CHAR, VARCHAR, TEXT (any character set) | `Text(String)`, decoded from the column's character set |
//! | BINARY, VARBINARY, BLOB | `Bytes(Vec<u8>)`; BINARY(n) padded back to n bytes with zeros as MySQL returns it |
//! | ENUM | `Enum(label)` (`""` for the error value 0) |
//! | SET | `Set(labels)` |
//! | BIT(n), n > 1 | `Bits(bytes)`, big-endian as stored |
//! | JSON | `Json(text)` (MySQL's binary JSON rendered as JSON text) |
//! | GEOMETRY and its subtypes | `Geometry(bytes)`: MySQL's 4-byte SRID, then OGC WKB |
//! | VECTOR | `Vector(Vec<f32>)` |
//! | NULL | `Null` |
//!
//! A column missing from the row image (`binlog_row_image=MINIMAL` or
//! `NOBLOB`) is `Absent`; a partial JSON update whose full value the binlog
//! does not carry is `JsonPatch` (the diffs as `mysqlbinlog -v` prints them).
//!
//! `skipped.operations` applies as to JSON records (TRUNCATE is skipped by
//! default). Unlike Debezium's JSON there are no tombstones, and an update
//! that changes the primary key stays one `Update` with both images.

use std::sync::Arc;

use sluice_binlog::{Cell, Charset, ColumnDef, ColumnType, DecodeError, RowImage};
use sluice_encode::debezium::{ColumnMasks, Mask, SkippedOperations};
use sluice_events::{ChangeEvent, Encoder, Op, RowsChange, StatementKind, Table};

pub use sluice_binlog::temporal::{Date, DateTime, Time, Timestamp};

use crate::record::{EngineRecord, RecordOffset, Unplaced};

/// What a change did: Debezium's `op` codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operation {
    /// `c`: a row inserted.
    Create,
    /// `u`: a row updated.
    Update,
    /// `d`: a row deleted.
    Delete,
    /// `t`: a table truncated (no images).
    Truncate,
    /// `r`: a row read by the initial snapshot (`snapshot.mode=initial`):
    /// no `before`, `after` the row as read.
    Read,
}

impl Operation {
    /// Debezium's one-letter code.
    pub fn code(self) -> char {
        match self {
            Operation::Create => 'c',
            Operation::Update => 'u',
            Operation::Delete => 'd',
            Operation::Truncate => 't',
            Operation::Read => 'r',
        }
    }
}

/// A DECIMAL value, exact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decimal {
    /// The value as MySQL prints it: sign, digits, `.` and exactly `scale`
    /// fraction digits (`"-12.50"`, `"0.00"`).
    pub text: String,
    pub precision: u8,
    pub scale: u8,
}

/// One column value of a [`Row`]; see the module documentation for how
/// each MySQL type maps.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Null,
    /// Not in the binlog's row image (MINIMAL or NOBLOB images).
    Absent,
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f32),
    Double(f64),
    Decimal(Decimal),
    Year(u16),
    Date(Date),
    Time(Time),
    DateTime(DateTime),
    Timestamp(Timestamp),
    Text(String),
    Bytes(Vec<u8>),
    Enum(String),
    Set(Vec<String>),
    Bits(Vec<u8>),
    Json(String),
    /// A partial JSON update without its full value (see the module
    /// documentation).
    JsonPatch(String),
    Geometry(Vec<u8>),
    Vector(Vec<f32>),
}

impl Value {
    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }
    /// The integer of an `Int`, or of a `UInt` that fits.
    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(v) => Some(*v),
            Value::UInt(v) => i64::try_from(*v).ok(),
            _ => None,
        }
    }
    /// The text of a `Text`, `Enum`, `Json` or `Decimal`.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::Text(s) | Value::Enum(s) | Value::Json(s) | Value::JsonPatch(s) => Some(s),
            Value::Decimal(d) => Some(&d.text),
            _ => None,
        }
    }
}

/// A row image: its table's column names, in table order, with a value
/// each.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    columns: Arc<[String]>,
    values: Vec<Value>,
}

impl Row {
    /// The value of column `name` (exact name).
    pub fn get(&self, name: &str) -> Option<&Value> {
        let i = self.columns.iter().position(|c| c == name)?;
        self.values.get(i)
    }
    pub fn columns(&self) -> &[String] {
        &self.columns
    }
    pub fn values(&self) -> &[Value] {
        &self.values
    }
    /// (name, value) pairs in table order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &Value)> {
        self.columns
            .iter()
            .map(String::as_str)
            .zip(self.values.iter())
    }
    pub fn into_values(self) -> Vec<Value> {
        self.values
    }
}

/// Where in the binlog a change was read (Debezium's `source` block).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceInfo {
    pub file: String,
    /// Start of the rows event (or statement) the change came from.
    pub pos: u64,
    /// 0-based index of the row in its rows event.
    pub row: usize,
    pub server_id: u32,
    /// The event's time, seconds since the epoch.
    pub ts_sec: u32,
    /// The transaction's GTID, if the server writes GTIDs.
    pub gtid: Option<String>,
    /// The thread id of the transaction's BEGIN, when it had one.
    pub thread: Option<u32>,
}

/// One change, typed. `offset` is what a JSON record of the same change
/// carries; mark it processed through the [`Committer`](crate::Committer)
/// as with JSON records.
#[derive(Debug, Clone, PartialEq)]
pub struct TypedRecord {
    pub database: String,
    pub table: String,
    pub op: Operation,
    pub before: Option<Row>,
    pub after: Option<Row>,
    /// The primary-key columns, in table order (empty: no primary key).
    pub key_columns: Arc<[String]>,
    pub source: SourceInfo,
    pub offset: RecordOffset,
}

impl EngineRecord for TypedRecord {
    fn offset(&self) -> &RecordOffset {
        &self.offset
    }
}

/// A typed record before the engine gives it its offset.
#[derive(Debug)]
pub(crate) struct PendingTyped {
    database: String,
    table: String,
    op: Operation,
    before: Option<Row>,
    after: Option<Row>,
    key_columns: Arc<[String]>,
    source: SourceInfo,
}

impl Unplaced for PendingTyped {
    type Record = TypedRecord;
    fn row(&self) -> usize {
        self.source.row
    }
    fn place(self, offset: RecordOffset) -> TypedRecord {
        TypedRecord {
            database: self.database,
            table: self.table,
            op: self.op,
            before: self.before,
            after: self.after,
            key_columns: self.key_columns,
            source: self.source,
            offset,
        }
    }
}

/// How one column's values are read.
#[derive(Debug, Clone)]
enum Kind {
    Bool,
    Text,
    Binary {
        pad_to: usize,
    },
    Labels(Vec<String>),
    Other,
    /// A character column a Debezium mask names: its value read as the
    /// inner kind, then masked (a hash cut to the declared length).
    Masked(Arc<Mask>, Box<Kind>, Option<usize>),
}

/// The `n` of a declared `char(n)` / `varchar(n)`: what a hash is cut to.
fn declared_length(declared: &str) -> Option<usize> {
    let d = declared.trim().to_ascii_lowercase();
    if !(d.starts_with("char")
        || d.starts_with("varchar")
        || d.starts_with("nchar")
        || d.starts_with("nvarchar"))
    {
        return None;
    }
    let (_, rest) = d.split_once('(')?;
    rest.split_once(')')?.0.trim().parse().ok()
}

/// The change-event encoder of typed records.
pub(crate) struct TypedEncoder {
    skipped: SkippedOperations,
    /// Debezium's column masks, applied to character values as the JSON
    /// records have them.
    masks: ColumnMasks,
}

impl TypedEncoder {
    pub fn new(skipped: SkippedOperations, masks: ColumnMasks) -> Self {
        TypedEncoder { skipped, masks }
    }

    fn skips(&self, op: Operation) -> bool {
        match op {
            Operation::Create => self.skipped.create,
            Operation::Update => self.skipped.update,
            Operation::Delete => self.skipped.delete,
            Operation::Truncate => self.skipped.truncate,
            Operation::Read => false,
        }
    }

    /// The rows of `rows` (an insert: the rows a snapshot read) as
    /// [`Operation::Read`] records.
    pub fn encode_read(
        &mut self,
        rows: &RowsChange<'_>,
        out: &mut Vec<PendingTyped>,
    ) -> Result<(), DecodeError> {
        let start = out.len();
        let result = self.encode_rows_as(rows, Some(Operation::Read), out);
        if result.is_err() {
            out.truncate(start);
        }
        result
    }

    fn encode_rows(
        &mut self,
        rows: &RowsChange<'_>,
        out: &mut Vec<PendingTyped>,
    ) -> Result<(), DecodeError> {
        self.encode_rows_as(rows, None, out)
    }

    fn encode_rows_as(
        &mut self,
        rows: &RowsChange<'_>,
        read: Option<Operation>,
        out: &mut Vec<PendingTyped>,
    ) -> Result<(), DecodeError> {
        let op = match (read, rows.op) {
            (Some(op), _) => op,
            (None, Op::Insert) => Operation::Create,
            (None, Op::Update) => Operation::Update,
            (None, Op::Delete) => Operation::Delete,
        };
        if self.skips(op) {
            return Ok(());
        }
        let table = &rows.table;
        let name_of = |c: &sluice_events::Column<'_>| {
            if c.name.is_empty() {
                format!("@{}", c.index + 1)
            } else {
                c.name.to_string()
            }
        };
        // The columns shown (column filters): rows hold only those.
        let columns: Arc<[String]> = table.kept_columns().map(|c| name_of(&c)).collect();
        let key_columns: Arc<[String]> = table
            .columns()
            .filter(|c| c.is_key)
            .map(|c| name_of(&c))
            .collect();
        let kinds: Vec<Kind> = table
            .columns()
            .map(|c| {
                let kind = kind_of(c.def, c.mysql_type);
                let mask = (!self.masks.is_empty() && matches!(kind, Kind::Text | Kind::Labels(_)))
                    .then(|| self.masks.mask_for(table.schema(), table.name(), c.name))
                    .flatten();
                match mask {
                    Some(mask) => Kind::Masked(mask, Box::new(kind), declared_length(c.mysql_type)),
                    None => kind,
                }
            })
            .collect();
        for row in rows.rows() {
            let row = row?;
            let image = |i: &Option<RowImage<'_>>| -> Result<Option<Row>, DecodeError> {
                i.as_ref()
                    .map(|i| read_row(table, i, &columns, &kinds))
                    .transpose()
            };
            out.push(PendingTyped {
                database: table.schema().to_string(),
                table: table.name().to_string(),
                op,
                before: image(&row.before)?,
                after: image(&row.after)?,
                key_columns: key_columns.clone(),
                source: SourceInfo {
                    file: rows.position.file.to_string(),
                    pos: rows.position.offset,
                    row: row.index,
                    server_id: rows.position.server_id,
                    ts_sec: rows.position.timestamp,
                    gtid: rows.txn.gtid.clone(),
                    thread: rows.txn.thread_id,
                },
            });
        }
        Ok(())
    }
}

impl Encoder for TypedEncoder {
    type Output = PendingTyped;
    type Error = DecodeError;

    fn encode(
        &mut self,
        event: &ChangeEvent<'_>,
        out: &mut Vec<PendingTyped>,
    ) -> Result<(), DecodeError> {
        let start = out.len();
        let result = match event {
            ChangeEvent::Rows(rows) => self.encode_rows(rows, out),
            ChangeEvent::Statement(s)
                if s.class.kind == StatementKind::Truncate && !self.skips(Operation::Truncate) =>
            {
                if let Some(table) = s.class.table.as_deref() {
                    let db = s.class.schema.as_deref().unwrap_or(s.db.as_ref());
                    out.push(PendingTyped {
                        database: db.to_string(),
                        table: table.to_string(),
                        op: Operation::Truncate,
                        before: None,
                        after: None,
                        key_columns: Arc::from(Vec::new()),
                        source: SourceInfo {
                            file: s.position.file.to_string(),
                            pos: s.position.offset,
                            row: 0,
                            server_id: s.position.server_id,
                            ts_sec: s.position.timestamp,
                            gtid: s.txn.gtid.clone(),
                            thread: s.txn.thread_id,
                        },
                    });
                }
                Ok(())
            }
            _ => Ok(()),
        };
        // On error none of the event's records, not some of its rows.
        if result.is_err() {
            out.truncate(start);
        }
        result
    }
}

fn read_row(
    table: &Table<'_>,
    image: &RowImage<'_>,
    columns: &Arc<[String]>,
    kinds: &[Kind],
) -> Result<Row, DecodeError> {
    let mut values = Vec::with_capacity(columns.len());
    for (i, cell) in image.cells().enumerate() {
        let (Some(def), Some(kind)) = (table.map.columns.get(i), kinds.get(i)) else {
            break;
        };
        let cell = cell?;
        if !table.keeps(i) {
            continue;
        }
        values.push(match cell {
            Cell::Absent => Value::Absent,
            Cell::Present(v) => typed_value(&v, def, kind)?,
        });
    }
    // Columns the image does not reach (never from a server) are absent.
    values.resize(columns.len(), Value::Absent);
    Ok(Row {
        columns: columns.clone(),
        values,
    })
}

/// What the column's types say about reading its bytes and integers.
fn kind_of(def: &ColumnDef, declared_as_written: &str) -> Kind {
    let declared = declared_as_written.trim().to_ascii_lowercase();
    match def.column_type {
        ColumnType::Bit { bits: 1 } => Kind::Bool,
        ColumnType::VarChar { .. } | ColumnType::Char { .. } | ColumnType::Blob { .. } => {
            match sluice_encode::debezium::binary_padding(def, &declared) {
                Some(pad_to) => Kind::Binary { pad_to },
                None => Kind::Text,
            }
        }
        ColumnType::Enum { .. } | ColumnType::Set { .. } => {
            // Labels keep their case: from the type as written.
            Kind::Labels(sluice_encode::debezium::enum_set_labels(
                def,
                declared_as_written,
            ))
        }
        _ => Kind::Other,
    }
}

fn typed_value(
    v: &sluice_binlog::Value<'_>,
    def: &ColumnDef,
    kind: &Kind,
) -> Result<Value, DecodeError> {
    use sluice_binlog::Value as V;
    if let Kind::Masked(mask, inner, max_chars) = kind {
        let text = match typed_value(v, def, inner)? {
            Value::Null => None,
            Value::Text(t) | Value::Enum(t) => Some(t),
            Value::Set(labels) => Some(labels.join(",")),
            _ => None,
        };
        return Ok(match mask.apply(text.as_deref(), *max_chars) {
            Some(masked) => Value::Text(masked),
            None => Value::Null,
        });
    }
    Ok(match v {
        V::Null => Value::Null,
        V::Int(i) => Value::Int(*i),
        V::UInt(i) => Value::UInt(*i),
        V::Float(f) => Value::Float(*f),
        V::Double(d) => Value::Double(*d),
        V::Decimal(d) => Value::Decimal(Decimal {
            text: d.to_text()?,
            precision: d.precision,
            scale: d.scale,
        }),
        V::Year(y) => Value::Year(if *y == 0 { 0 } else { 1900 + u16::from(*y) }),
        V::Date(d) => Value::Date(*d),
        V::Time(t) => Value::Time(*t),
        V::DateTime(d) => Value::DateTime(*d),
        V::Timestamp(t) => Value::Timestamp(*t),
        V::Bytes(b) => match kind {
            Kind::Binary { pad_to } => {
                let mut bytes = b.to_vec();
                if bytes.len() < *pad_to {
                    bytes.resize(*pad_to, 0);
                }
                Value::Bytes(bytes)
            }
            _ => match def.charset() {
                Some(Charset::Utf8) | Some(Charset::Other) | None => {
                    match std::str::from_utf8(b) {
                        Ok(s) => Value::Text(s.to_string()),
                        // Not text after all: the bytes as they are.
                        Err(_) => Value::Bytes(b.to_vec()),
                    }
                }
                // latin1, UCS-2, UTF-16, UTF-32: the decoder's conversion.
                _ => Value::Text(v.to_text(def)?.unwrap_or_default()),
            },
        },
        V::Enum(i) => {
            let label = match kind {
                Kind::Labels(l) => (*i as usize)
                    .checked_sub(1)
                    .and_then(|n| l.get(n))
                    .cloned()
                    .unwrap_or_default(),
                _ => String::new(),
            };
            Value::Enum(label)
        }
        V::Set(bits) => Value::Set(match kind {
            Kind::Labels(l) => l
                .iter()
                .enumerate()
                .take(64)
                .filter(|(n, _)| bits & (1u64 << n) != 0)
                .map(|(_, s)| s.clone())
                .collect(),
            _ => Vec::new(),
        }),
        V::Bit(b) if matches!(kind, Kind::Bool) => Value::Bool(b.iter().any(|&x| x != 0)),
        V::Bit(b) => Value::Bits(b.to_vec()),
        V::Json(b) => {
            let mut s = String::new();
            sluice_binlog::json::render_json(b, &mut s)?;
            Value::Json(s)
        }
        V::JsonText(s) => Value::Json(s.clone()),
        V::JsonDiff { .. } => Value::JsonPatch(v.to_text(def)?.unwrap_or_default()),
        V::Geometry(b) => Value::Geometry(b.to_vec()),
        V::Vector(b) => Value::Vector(
            b.chunks_exact(4)
                .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect(),
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn operation_codes() {
        let codes: String = [
            Operation::Create,
            Operation::Update,
            Operation::Delete,
            Operation::Truncate,
            Operation::Read,
        ]
        .iter()
        .map(|o| o.code())
        .collect();
        assert_eq!(codes, "cudtr");
    }
}
