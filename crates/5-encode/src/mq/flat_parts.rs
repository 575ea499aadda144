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
use sluice_canal::view::{text, ColumnShape, EntryView, RawColumn, RowChangeView};

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
    let Ok(change) = RowChangeView::parse(entry.store_value) else {
        return false;
    };
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
        return false;
    }
    let is_update = event_type == EventType::Update;
    let is_delete = event_type == EventType::Delete;
    let database = entry.header.schema_name;

    // What the first row fixes for the entry.
    let mut names: Vec<&str> = Vec::new();
    // `"name":` per column, with the `{` or `,` before it.
    let mut keys: Vec<String> = Vec::new();
    let mut sql_types: Vec<i32> = Vec::new();
    let mut mysql_types: Vec<&str> = Vec::new();
    let mut pk: Vec<usize> = Vec::new();
    // Columns flagged updated in any row so far (Canal never clears them).
    let mut updated: Vec<bool> = Vec::new();
    // The hash columns' places in a row (`None`: not a column, hashed as "").
    let mut hash_at: Vec<Option<usize>> = Vec::new();
    let start = match split {
        Split::Rows {
            database_hash: true,
            ..
        } => java_string_hash(database),
        _ => 0,
    };

    // Per column, the shape of the last column read in full that had one,
    // and its checked type: the next rows' columns are read by comparing
    // bytes with it. Apart for the before images of UPDATE.
    let mut shapes: Vec<Option<(ColumnShape, &str)>> = Vec::new();
    let mut old_shapes: Vec<Option<ColumnShape>> = Vec::new();

    let mut values: Vec<Option<&str>> = Vec::new();
    let mut out: Vec<Part> = Vec::new();
    for (r, row) in change.rows().enumerate() {
        values.clear();
        let columns = if is_delete {
            row.before_bytes()
        } else {
            row.after_bytes()
        };
        for (i, bytes) in columns.enumerate() {
            let Ok(bytes) = bytes else {
                return false;
            };
            let shaped = shapes
                .get(i)
                .and_then(Option::as_ref)
                .and_then(|(shape, mysql_type)| Some((shape.read(bytes)?, *mysql_type)));
            let c = match shaped {
                // The shape's name and types, checked when it was read.
                Some((c, mysql_type)) => {
                    sql_types[i] = c.sql_type;
                    mysql_types[i] = mysql_type;
                    c
                }
                None => {
                    let Some((c, shape)) = RawColumn::parse_shaped(bytes) else {
                        return false;
                    };
                    if r == 0 {
                        let (Some(name), Some(mysql_type)) = (text(c.name), text(c.mysql_type))
                        else {
                            return false;
                        };
                        if names.contains(&name) {
                            return false;
                        }
                        names.push(name);
                        sql_types.push(c.sql_type);
                        mysql_types.push(mysql_type);
                        updated.push(false);
                        if c.is_key {
                            pk.push(i);
                        }
                        shapes.push(shape.map(|s| (s, mysql_type)));
                    } else {
                        // Bytes equal to checked ones need no check of their own.
                        if names.get(i).map(|n| n.as_bytes()) != Some(c.name) {
                            return false;
                        }
                        sql_types[i] = c.sql_type;
                        if mysql_types[i].as_bytes() != c.mysql_type {
                            let Some(t) = text(c.mysql_type) else {
                                return false;
                            };
                            mysql_types[i] = t;
                        }
                        if let Some(shape) = shape {
                            shapes[i] = Some((shape, mysql_types[i]));
                        }
                    }
                    c
                }
            };
            if is_update && c.updated {
                updated[i] = true;
            }
            let Some(value) = value_of(&c) else {
                return false;
            };
            values.push(value);
        }
        if values.is_empty() || values.len() != names.len() {
            return false;
        }
        if r == 0 {
            keys = names
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
                hash_at = match columns {
                    Some(columns) => columns
                        .iter()
                        .map(|c| names.iter().position(|n| n == c))
                        .collect(),
                    None => pk.iter().map(|&i| Some(i)).collect(),
                };
            }
        }

        let part = match split {
            Split::Whole { partition } | Split::WholeKeyed { partition } => {
                if out.is_empty() {
                    let key = matches!(split, Split::WholeKeyed { .. })
                        .then(|| format!("{}.{}", database, entry.header.table_name).into_bytes());
                    out.push(Part::new(partition, key, entry.store_value.len()));
                }
                &mut out[0]
            }
            Split::Rows { partitions, .. } => {
                let value = |at: &Option<usize>| at.and_then(|i| values[i]).unwrap_or_default();
                let h = hash_at
                    .iter()
                    .fold(start, |h, at| h ^ java_string_hash(value(at)));
                let partition = java_partition(h, partitions);
                let at = match out.iter().position(|p| p.partition == partition) {
                    Some(at) => at,
                    None => {
                        let key = hash_at.iter().map(value).collect::<Vec<_>>().join("^");
                        // About the JSON of its share of the rows, which is
                        // about the size of their entry bytes.
                        let share = usize::try_from(partitions)
                            .unwrap_or(1)
                            .clamp(1, change.row_count);
                        let capacity = entry.store_value.len() / share + 256;
                        out.push(Part::new(partition, Some(key.into_bytes()), capacity));
                        out.len() - 1
                    }
                };
                &mut out[at]
            }
        };

        part.rows += 1;
        if part.rows > 1 {
            part.data.push(',');
        }
        for (k, v) in keys.iter().zip(&values) {
            part.data.push_str(k);
            write_value(&mut part.data, *v);
        }
        part.data.push('}');

        if is_update {
            // One `old` object per row, even an empty one, so that `old[i]`
            // stays the before image of `data[i]`.
            if part.rows > 1 {
                part.old.push(',');
            }
            let mut first = true;
            for (i, bytes) in row.before_bytes().enumerate() {
                let Ok(bytes) = bytes else {
                    return false;
                };
                let shaped = old_shapes
                    .get(i)
                    .and_then(Option::as_ref)
                    .and_then(|shape| shape.read(bytes));
                let c = match shaped {
                    Some(c) => c,
                    None => {
                        let Some((c, shape)) = RawColumn::parse_shaped(bytes) else {
                            return false;
                        };
                        if names.get(i).map(|n| n.as_bytes()) != Some(c.name)
                            || text(c.mysql_type).is_none()
                        {
                            return false;
                        }
                        if old_shapes.len() <= i {
                            old_shapes.resize(i + 1, None);
                        }
                        if shape.is_some() {
                            old_shapes[i] = shape;
                        }
                        c
                    }
                };
                let Some(value) = value_of(&c) else {
                    return false;
                };
                if updated[i] {
                    part.old.push(if first { '{' } else { ',' });
                    first = false;
                    // The escaped name without the data row's `{` or `,`.
                    part.old.push_str(&keys[i][1..]);
                    write_value(&mut part.old, value);
                }
            }
            part.old.push_str(if first { "{}" } else { "}" });
        }
    }

    // What follows `data` and `old`, the same in every record of the entry.
    let mut middle = String::with_capacity(64 + 24 * names.len());
    middle.push_str("],\"database\":");
    write_str(&mut middle, database);
    middle.push_str(",\"es\":");
    push_i64(&mut middle, entry.header.execute_time);
    middle.push_str(",\"gtid\":");
    write_str(&mut middle, entry.header.gtid);
    middle.push_str(",\"id\":");
    push_i64(&mut middle, id);
    middle.push_str(",\"isDdl\":false,\"mysqlType\":");
    for (k, v) in keys.iter().zip(&mysql_types) {
        middle.push_str(k);
        write_str(&mut middle, v);
    }
    middle.push_str("},\"old\":");
    let mut end = String::with_capacity(64 + 16 * names.len());
    end.push_str(",\"pkNames\":");
    if pk.is_empty() {
        end.push_str("null");
    } else {
        for (i, &at) in pk.iter().enumerate() {
            end.push(if i == 0 { '[' } else { ',' });
            write_str(&mut end, names[at]);
        }
        end.push(']');
    }
    if entry.header.snapshot {
        end.push_str(",\"snapshot\":true");
    }
    end.push_str(",\"sql\":");
    write_str(&mut end, change.sql);
    end.push_str(",\"sqlType\":");
    for (k, &v) in keys.iter().zip(&sql_types) {
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

    out.sort_by_key(|p| p.partition);
    parts.extend(out.into_iter().map(|mut p| {
        let old = if is_update { p.old.len() + 2 } else { 4 };
        p.data.reserve(middle.len() + old + end.len());
        p.data.push_str(&middle);
        if is_update {
            p.data.push('[');
            p.data.push_str(&p.old);
            p.data.push(']');
        } else {
            p.data.push_str("null");
        }
        p.data.push_str(&end);
        FlatPart {
            partition: p.partition,
            key: p.key,
            rows: p.rows,
            json: p.data,
        }
    }));
    true
}
