//! The FlatMessage records of one ROWDATA entry written straight from its
//! serialised bytes: the same JSON that [`FlatMessage::from_view`] followed
//! by the split of `MqRouter::flat_records` and [`FlatMessage::write_json`]
//! gives, without the owned message in between.
//!
//! That general path builds a map per row, looks each hash column up by
//! name, joins a key per row and escapes every column name of every row
//! and of `sqlType`/`mysqlType` once per record. Here the rows of an entry
//! are taken to list the columns of its first row, in that order, with no
//! name twice (what Canal entries of a table nearly always do): names are
//! escaped once per entry, hash columns are found once by position, a
//! record's key is joined once, the parts shared by the records of an entry
//! are written once, and a column of a later row is read by comparing its
//! bytes with the same column of an earlier one (`ColumnShape`), its name
//! and types then needing no parse nor check of their own. An entry that is
//! not of that form (a row with other
//! columns, a name twice, no rows, DDL, a malformed column) is left to the
//! general path, which is the reference for every case.
//!
//! [`FlatMessage::from_view`]: crate::flat::FlatMessage::from_view
//! [`FlatMessage::write_json`]: crate::flat::FlatMessage::write_json

use sluice_canal::proto::EventType;
use sluice_canal::view::{
    text, ColumnBytes, ColumnShape, EntryView, RawColumn, RowChangeView, RowDataView,
};

use super::hash::{java_partition, java_string_hash};
use crate::flat::{event_type_name, push_i64, write_str};

/// How the rows of an entry are placed.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Split<'r> {
    /// Every row in one record.
    Whole { partition: i32 },
    /// Every row in one record, with a key.
    WholeKeyed { partition: i32 },
    /// Each row by the hash of these columns (looked up by exact name), or
    /// of the key columns of the first row when `None`.
    Rows {
        columns: Option<&'r [String]>,
        database_hash: bool,
        partitions: i32,
    },
}

/// One record of an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FlatPart {
    pub partition: i32,
    pub key: Option<Vec<u8>>,
    pub rows: usize,
    pub json: String,
}

/// A record being written: `{"data":[` and its rows so far, the `old`
/// objects of its rows apart.
struct Part {
    partition: i32,
    key: Option<Vec<u8>>,
    rows: usize,
    data: String,
    old: String,
}

impl Part {
    fn new(partition: i32, key: Option<Vec<u8>>, capacity: usize) -> Part {
        let mut data = String::with_capacity(capacity);
        data.push_str("{\"data\":[");
        Part {
            partition,
            key,
            rows: 0,
            data,
            old: String::new(),
        }
    }
}

/// A column's value as Canal's converter reads it (`None` when NULL), or
/// `None` when the value is not UTF-8 (which the checked views refuse,
/// even for a NULL column).
#[inline]
fn value_of<'a>(c: &RawColumn<'a>) -> Option<Option<&'a str>> {
    let value = match c.value {
        Some(v) => text(v)?,
        None => "",
    };
    Some((!c.is_null).then_some(value))
}

/// A value as JSON: a string, or `null`.
#[inline]
fn write_value(out: &mut String, v: Option<&str>) {
    match v {
        Some(s) => write_str(out, s),
        None => out.push_str("null"),
    }
}

/// Appends to `parts` the records of the ROWDATA entry `entry` read in
/// batch `id` at `ts` (ms), placed by `split`, and returns true; or returns
/// false, with `parts` as it was, when the entry is not of the form this
/// path writes (then the general path must: it also reports any error).
/// Records come in partition order, as the general path's map gives them.
pub(crate) fn write_parts(
    entry: &EntryView<'_>,
    id: i64,
    ts: i64,
    split: Split<'_>,
    parts: &mut Vec<FlatPart>,
) -> bool {
    let Some((change, event_type)) = row_change(entry) else {
        return false;
    };
    let is_update = event_type == EventType::Update;
    let is_delete = event_type == EventType::Delete;
    let mut columns = EntryColumns::new(match split {
        Split::Rows {
            database_hash: true,
            ..
        } => java_string_hash(entry.header.schema_name),
        _ => 0,
    });
    let mut values: Vec<Option<&str>> = Vec::new();
    let mut out: Vec<Part> = Vec::new();
    for (r, row) in change.rows().enumerate() {
        let image = if is_delete {
            row.before_bytes()
        } else {
            row.after_bytes()
        };
        if !columns.read_values(r, image, is_update, &mut values) {
            return false;
        }
        if r == 0 {
            columns.fix_keys(split);
        }
        let part = columns.part_for(&mut out, split, entry, change.row_count, &values);
        push_data_row(part, &columns.keys, &values);
        if is_update && !columns.push_old_row(part, &row) {
            return false;
        }
    }
    let middle = columns.shared_middle(entry, id);
    let end = columns.shared_end(entry, change.sql, ts, event_type);
    finish_parts(out, &middle, &end, is_update, parts);
    true
}

/// The RowChange of a ROWDATA entry and its event type, when it is one of
/// rows this path writes: not DDL, at least one row, INSERT, UPDATE or
/// DELETE.
#[inline]
fn row_change<'a>(entry: &EntryView<'a>) -> Option<(RowChangeView<'a>, EventType)> {
    let change = RowChangeView::parse(entry.store_value).ok()?;
    // An absent eventType reads as proto2's default, UPDATE.
    let event_type = change
        .event_type
        .and_then(|t| EventType::try_from(t).ok())
        .unwrap_or(EventType::Update);
    if change.is_ddl.unwrap_or(false)
        || change.row_count == 0
        || !matches!(
            event_type,
            EventType::Insert | EventType::Update | EventType::Delete
        )
    {
        return None;
    }
    Some((change, event_type))
}

/// What the first row fixes for the entry, and what the rows read so far
/// tell of its columns.
struct EntryColumns<'a> {
    names: Vec<&'a str>,
    /// `"name":` per column, with the `{` or `,` before it.
    keys: Vec<String>,
    sql_types: Vec<i32>,
    mysql_types: Vec<&'a str>,
    pk: Vec<usize>,
    /// Columns flagged updated in any row so far (Canal never clears them).
    updated: Vec<bool>,
    /// The hash columns' places in a row (`None`: not a column, hashed as "").
    hash_at: Vec<Option<usize>>,
    /// The hash the columns' hashes are folded into (the database's, or 0).
    hash_start: i32,
    /// Per column, the shape of the last column read in full that had one,
    /// and its checked type: the next rows' columns are read by comparing
    /// bytes with it. Apart for the before images of UPDATE.
    shapes: Vec<Option<(ColumnShape<'a>, &'a str)>>,
    old_shapes: Vec<Option<ColumnShape<'a>>>,
}

impl<'a> EntryColumns<'a> {
    fn new(hash_start: i32) -> Self {
        EntryColumns {
            names: Vec::new(),
            keys: Vec::new(),
            sql_types: Vec::new(),
            mysql_types: Vec::new(),
            pk: Vec::new(),
            updated: Vec::new(),
            hash_at: Vec::new(),
            hash_start,
            shapes: Vec::new(),
            old_shapes: Vec::new(),
        }
    }

    /// Reads the values of row `r`'s image `image` into `values`; false
    /// when the row is not of the entry's form.
    #[inline]
    fn read_values(
        &mut self,
        r: usize,
        image: ColumnBytes<'a>,
        is_update: bool,
        values: &mut Vec<Option<&'a str>>,
    ) -> bool {
        values.clear();
        for (i, bytes) in image.enumerate() {
            let Ok(bytes) = bytes else {
                return false;
            };
            let Some(c) = self.read_column(r, i, bytes) else {
                return false;
            };
            if is_update && c.updated {
                self.updated[i] = true;
            }
            let Some(value) = value_of(&c) else {
                return false;
            };
            values.push(value);
        }
        !(values.is_empty() || values.len() != self.names.len())
    }

    /// Column `i` of row `r`: read by its shape when the bytes match an
    /// earlier one's, else parsed, and on the first row noted as the
    /// entry's; `None` when it is not of the entry's form.
    #[inline]
    fn read_column(&mut self, r: usize, i: usize, bytes: &'a [u8]) -> Option<RawColumn<'a>> {
        let shaped = self
            .shapes
            .get(i)
            .and_then(Option::as_ref)
            .and_then(|(shape, mysql_type)| Some((shape.read(bytes)?, *mysql_type)));
        if let Some((c, mysql_type)) = shaped {
            // The shape's name and types, checked when it was read.
            self.sql_types[i] = c.sql_type;
            self.mysql_types[i] = mysql_type;
            return Some(c);
        }
        let (c, shape) = RawColumn::parse_shaped(bytes)?;
        if r == 0 {
            let (Some(name), Some(mysql_type)) = (text(c.name), text(c.mysql_type)) else {
                return None;
            };
            if self.names.contains(&name) {
                return None;
            }
            self.names.push(name);
            self.sql_types.push(c.sql_type);
            self.mysql_types.push(mysql_type);
            self.updated.push(false);
            if c.is_key {
                self.pk.push(i);
            }
            self.shapes.push(shape.map(|s| (s, mysql_type)));
        } else {
            // Bytes equal to checked ones need no check of their own.
            if self.names.get(i).map(|n| n.as_bytes()) != Some(c.name) {
                return None;
            }
            self.sql_types[i] = c.sql_type;
            if self.mysql_types[i].as_bytes() != c.mysql_type {
                self.mysql_types[i] = text(c.mysql_type)?;
            }
            if let Some(shape) = shape {
                self.shapes[i] = Some((shape, self.mysql_types[i]));
            }
        }
        Some(c)
    }

    /// After the first row: the escaped names, and where the hash columns
    /// are.
    fn fix_keys(&mut self, split: Split<'_>) {
        self.keys = self
            .names
            .iter()
            .enumerate()
            .map(|(i, name)| {
                let mut k = String::with_capacity(name.len() + 4);
                k.push(if i == 0 { '{' } else { ',' });
                write_str(&mut k, name);
                k.push(':');
                k
            })
            .collect();
        if let Split::Rows { columns, .. } = split {
            self.hash_at = match columns {
                Some(columns) => columns
                    .iter()
                    .map(|c| self.names.iter().position(|n| n == c))
                    .collect(),
                None => self.pk.iter().map(|&i| Some(i)).collect(),
            };
        }
    }

    /// The record a row of `values` goes to, made when it is the first.
    #[inline]
    fn part_for<'p>(
        &self,
        out: &'p mut Vec<Part>,
        split: Split<'_>,
        entry: &EntryView<'_>,
        row_count: usize,
        values: &[Option<&str>],
    ) -> &'p mut Part {
        match split {
            Split::Whole { partition } | Split::WholeKeyed { partition } => {
                if out.is_empty() {
                    let key = matches!(split, Split::WholeKeyed { .. }).then(|| {
                        format!("{}.{}", entry.header.schema_name, entry.header.table_name)
                            .into_bytes()
                    });
                    out.push(Part::new(partition, key, entry.store_value.len()));
                }
                &mut out[0]
            }
            Split::Rows { partitions, .. } => {
                let value = |at: &Option<usize>| at.and_then(|i| values[i]).unwrap_or_default();
                let h = self
                    .hash_at
                    .iter()
                    .fold(self.hash_start, |h, at| h ^ java_string_hash(value(at)));
                let partition = java_partition(h, partitions);
                let at = match out.iter().position(|p| p.partition == partition) {
                    Some(at) => at,
                    None => {
                        let key = self.hash_at.iter().map(value).collect::<Vec<_>>().join("^");
                        // About the JSON of its share of the rows, which is
                        // about the size of their entry bytes.
                        let share = usize::try_from(partitions).unwrap_or(1).clamp(1, row_count);
                        let capacity = entry.store_value.len() / share + 256;
                        out.push(Part::new(partition, Some(key.into_bytes()), capacity));
                        out.len() - 1
                    }
                };
                &mut out[at]
            }
        }
    }

    /// Appends the `old` object of an UPDATE row: its updated columns'
    /// before values. One per row, even an empty one, so that `old[i]`
    /// stays the before image of `data[i]`. False when the before image is
    /// not of the entry's form.
    #[inline]
    fn push_old_row(&mut self, part: &mut Part, row: &RowDataView<'a>) -> bool {
        if part.rows > 1 {
            part.old.push(',');
        }
        let mut first = true;
        for (i, bytes) in row.before_bytes().enumerate() {
            let Ok(bytes) = bytes else {
                return false;
            };
            let Some(c) = self.read_old_column(i, bytes) else {
                return false;
            };
            let Some(value) = value_of(&c) else {
                return false;
            };
            if self.updated[i] {
                part.old.push(if first { '{' } else { ',' });
                first = false;
                // The escaped name without the data row's `{` or `,`.
                part.old.push_str(&self.keys[i][1..]);
                write_value(&mut part.old, value);
            }
        }
        part.old.push_str(if first { "{}" } else { "}" });
        true
    }

    /// Column `i` of an UPDATE's before image: read by its shape, or
    /// parsed and checked against the entry's name.
    #[inline]
    fn read_old_column(&mut self, i: usize, bytes: &'a [u8]) -> Option<RawColumn<'a>> {
        let shaped = self
            .old_shapes
            .get(i)
            .and_then(Option::as_ref)
            .and_then(|shape| shape.read(bytes));
        if shaped.is_some() {
            return shaped;
        }
        let (c, shape) = RawColumn::parse_shaped(bytes)?;
        if self.names.get(i).map(|n| n.as_bytes()) != Some(c.name) || text(c.mysql_type).is_none() {
            return None;
        }
        if self.old_shapes.len() <= i {
            self.old_shapes.resize(i + 1, None);
        }
        if shape.is_some() {
            self.old_shapes[i] = shape;
        }
        Some(c)
    }

    /// What follows `data` and precedes the `old` value, the same in every
    /// record of the entry.
    fn shared_middle(&self, entry: &EntryView<'_>, id: i64) -> String {
        let mut middle = String::with_capacity(64 + 24 * self.names.len());
        middle.push_str("],\"database\":");
        write_str(&mut middle, entry.header.schema_name);
        middle.push_str(",\"es\":");
        push_i64(&mut middle, entry.header.execute_time);
        middle.push_str(",\"gtid\":");
        write_str(&mut middle, entry.header.gtid);
        middle.push_str(",\"id\":");
        push_i64(&mut middle, id);
        middle.push_str(",\"isDdl\":false,\"mysqlType\":");
        for (k, v) in self.keys.iter().zip(&self.mysql_types) {
            middle.push_str(k);
            write_str(&mut middle, v);
        }
        middle.push_str("},\"old\":");
        middle
    }

    /// What follows the `old` value, the same in every record of the entry.
    fn shared_end(
        &self,
        entry: &EntryView<'_>,
        sql: &str,
        ts: i64,
        event_type: EventType,
    ) -> String {
        let mut end = String::with_capacity(64 + 16 * self.names.len());
        end.push_str(",\"pkNames\":");
        if self.pk.is_empty() {
            end.push_str("null");
        } else {
            for (i, &at) in self.pk.iter().enumerate() {
                end.push(if i == 0 { '[' } else { ',' });
                write_str(&mut end, self.names[at]);
            }
            end.push(']');
        }
        if entry.header.snapshot {
            end.push_str(",\"snapshot\":true");
        }
        end.push_str(",\"sql\":");
        write_str(&mut end, sql);
        end.push_str(",\"sqlType\":");
        for (k, &v) in self.keys.iter().zip(&self.sql_types) {
            end.push_str(k);
            push_i64(&mut end, i64::from(v));
        }
        end.push_str("},\"table\":");
        write_str(&mut end, entry.header.table_name);
        end.push_str(",\"ts\":");
        push_i64(&mut end, ts);
        end.push_str(",\"type\":");
        write_str(&mut end, event_type_name(event_type));
        end.push('}');
        end
    }
}

/// Appends a row's `data` object to its record.
#[inline]
fn push_data_row(part: &mut Part, keys: &[String], values: &[Option<&str>]) {
    part.rows += 1;
    if part.rows > 1 {
        part.data.push(',');
    }
    for (k, v) in keys.iter().zip(values) {
        part.data.push_str(k);
        write_value(&mut part.data, *v);
    }
    part.data.push('}');
}

/// Completes each record with the shared parts and its `old` array, and
/// appends them to `parts` in partition order.
fn finish_parts(
    mut out: Vec<Part>,
    middle: &str,
    end: &str,
    is_update: bool,
    parts: &mut Vec<FlatPart>,
) {
    out.sort_by_key(|p| p.partition);
    parts.extend(out.into_iter().map(|mut p| {
        let old = if is_update { p.old.len() + 2 } else { 4 };
        p.data.reserve(middle.len() + old + end.len());
        p.data.push_str(middle);
        if is_update {
            p.data.push('[');
            p.data.push_str(&p.old);
            p.data.push(']');
        } else {
            p.data.push_str("null");
        }
        p.data.push_str(end);
        FlatPart {
            partition: p.partition,
            key: p.key,
            rows: p.rows,
            json: p.data,
        }
    }));
}
