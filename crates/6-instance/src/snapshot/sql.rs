//! How a table is read: its plan (schema, key columns, SELECT) and the SQL
//! of chunks and key bounds, with key values written as SQL literals. Pure
//! text: never talks to the source.

use super::*;

/// How a table is read.
pub struct TablePlan {
    pub schema: TableSchema,
    pub map: Arc<TableMap>,
    pub columns: Arc<[ColumnInfo]>,
    pub select: String,
    /// Key column indexes; empty: read in one chunk, reconciled by whole rows.
    pub key: Vec<usize>,
}

/// The table as `SHOW CREATE TABLE` describes it now, and how to read it;
/// `None` when it is gone.
pub async fn table_plan(
    conn: &mut Conn,
    schema: &str,
    table: &str,
) -> Result<Option<TablePlan>, SnapshotError> {
    let qualified = format!("{schema}.{table}");
    let sql = format!("SHOW CREATE TABLE {}.{}", quote(schema), quote(table));
    let rs = match conn.query(&sql).await {
        Ok(rs) => rs,
        Err(SourceError::Server { code, .. }) if code == NO_SUCH_TABLE => return Ok(None),
        Err(source) => {
            return Err(SnapshotError::Source {
                table: qualified,
                source,
            })
        }
    };
    let Some(create) = rs.rows.first().and_then(|r| r.get(1)).cloned().flatten() else {
        return Ok(None);
    };
    let table_err = |message: String| SnapshotError::Table {
        table: qualified.clone(),
        message,
    };
    let described = sluice_schema::metadata::table_from_create(schema, table, &create)
        .map_err(|e| table_err(e.to_string()))?;
    let map = sluice_schema::select_rows::table_map_for(&described, 0)
        .map_err(|e| table_err(e.to_string()))?;
    let columns = crate::schema_hook::column_infos(&described);
    let select = sluice_schema::select_rows::select_list(&described);
    let key_names = described.row_key();
    let mut key = Vec::new();
    for name in &key_names {
        match described.column_index(name) {
            Some(i) if orderable(&map.columns[i].column_type) => key.push(i),
            _ => {
                key.clear();
                break;
            }
        }
    }
    Ok(Some(TablePlan {
        schema: described,
        map: Arc::new(map),
        columns,
        select,
        key,
    }))
}

impl TablePlan {
    /// The table as change events describe it.
    pub fn table(&self) -> sluice_events::Table<'_> {
        sluice_events::Table {
            map: &self.map,
            info: Some(&self.columns),
            keep: None,
        }
    }
}

/// Key types whose SQL order and literal form Sluice can follow.
pub(super) fn orderable(t: &ColumnType) -> bool {
    matches!(
        t,
        ColumnType::Tiny
            | ColumnType::Short
            | ColumnType::Int24
            | ColumnType::Long
            | ColumnType::LongLong
            | ColumnType::NewDecimal { .. }
            | ColumnType::Year
            | ColumnType::Date
            | ColumnType::Time2 { .. }
            | ColumnType::DateTime2 { .. }
            | ColumnType::Timestamp2 { .. }
            | ColumnType::VarChar { .. }
            | ColumnType::Char { .. }
    )
}

pub(super) fn quote(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// The SELECT of the chunk after `from` (raw key values), `limit` rows in
/// key order; the whole table when `limit` is `None`.
pub fn chunk_sql(
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    limit: Option<usize>,
) -> Result<String, String> {
    let mut sql = format!("SELECT {} FROM {}", plan.select, qualified_name(plan));
    let Some(limit) = limit else {
        return Ok(sql);
    };
    if let Some(from) = from {
        sql.push_str(&format!(" WHERE {}", key_beyond(plan, from)?));
    }
    sql.push_str(&format!(
        " ORDER BY {} LIMIT {limit}",
        key_names(plan).join(", ")
    ));
    Ok(sql)
}

/// The SELECT of the key of the `rows`-th row after `from` (raw key values;
/// from the first row when `None`) in key order: the upper bound of the
/// chunk that starts there. No row: fewer rows are left, the chunk is the
/// table's last.
pub fn chunk_bound_sql(
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    rows: usize,
) -> Result<String, String> {
    let names = key_names(plan);
    let mut sql = format!("SELECT {} FROM {}", names.join(", "), qualified_name(plan));
    if let Some(from) = from {
        sql.push_str(&format!(" WHERE {}", key_beyond(plan, from)?));
    }
    sql.push_str(&format!(
        " ORDER BY {} LIMIT 1 OFFSET {}",
        names.join(", "),
        rows.max(1) - 1
    ));
    Ok(sql)
}

/// The SELECT of the rows whose key is after `from` and up to `to` (both
/// raw key values; `None`: from the first row, to the last), in key order.
/// Chunks whose bounds follow one another cover the table whatever
/// changes it meanwhile.
pub fn chunk_range_sql(
    plan: &TablePlan,
    from: Option<&[Vec<u8>]>,
    to: Option<&[Vec<u8>]>,
) -> Result<String, String> {
    let mut sql = format!("SELECT {} FROM {}", plan.select, qualified_name(plan));
    let mut conditions = Vec::new();
    if let Some(from) = from {
        conditions.push(format!("({})", key_beyond(plan, from)?));
    }
    if let Some(to) = to {
        conditions.push(format!("({})", key_up_to(plan, to)?));
    }
    if !conditions.is_empty() {
        sql.push_str(&format!(" WHERE {}", conditions.join(" AND ")));
    }
    sql.push_str(&format!(" ORDER BY {}", key_names(plan).join(", ")));
    Ok(sql)
}

pub(super) fn qualified_name(plan: &TablePlan) -> String {
    format!("{}.{}", quote(&plan.schema.db), quote(&plan.schema.name))
}

pub(super) fn key_names(plan: &TablePlan) -> Vec<String> {
    plan.key
        .iter()
        .map(|&i| quote(&plan.schema.columns[i].name))
        .collect()
}

/// The condition that a row's key comes after `key` (raw key values) in
/// key order: `(k1 > v1) OR (k1 = v1 AND k2 > v2) OR ...`, a form every
/// server's range optimiser reads.
pub(super) fn key_beyond(plan: &TablePlan, key: &[Vec<u8>]) -> Result<String, String> {
    key_compared(plan, key, ">", ">")
}

/// The condition that a row's key is `key` or comes before it:
/// `(k1 < v1) OR (k1 = v1 AND k2 <= v2)`.
pub(super) fn key_up_to(plan: &TablePlan, key: &[Vec<u8>]) -> Result<String, String> {
    key_compared(plan, key, "<", "<=")
}

/// `(k1 op v1) OR (k1 = v1 AND k2 op v2) OR ...`, `last_op` on the last
/// key column.
pub(super) fn key_compared(
    plan: &TablePlan,
    key: &[Vec<u8>],
    op: &str,
    last_op: &str,
) -> Result<String, String> {
    if key.len() != plan.key.len() {
        return Err(key_changed(key.len(), plan.key.len()));
    }
    let names = key_names(plan);
    let literals = plan
        .key
        .iter()
        .zip(key)
        .map(|(&i, v)| literal(plan, i, v))
        .collect::<Result<Vec<_>, _>>()?;
    let mut ors = Vec::new();
    for n in 0..names.len() {
        let mut ands: Vec<String> = (0..n)
            .map(|j| format!("{} = {}", names[j], literals[j]))
            .collect();
        let op = if n + 1 == names.len() { last_op } else { op };
        ands.push(format!("{} {op} {}", names[n], literals[n]));
        ors.push(format!("({})", ands.join(" AND ")));
    }
    Ok(ors.join(" OR "))
}

/// A persisted key of `values` values for a table whose key has `columns`.
pub(super) fn key_changed(values: usize, columns: usize) -> String {
    format!(
        "the persisted key has {values} values, the table's key {columns} columns: its key changed; remove the snapshot progress to read the table again"
    )
}

/// A key value as an SQL literal that compares in the column's own order.
pub(super) fn literal(plan: &TablePlan, index: usize, value: &[u8]) -> Result<String, String> {
    let column = &plan.schema.columns[index];
    let def = &plan.map.columns[index];
    let text = || {
        std::str::from_utf8(value)
            .ok()
            .filter(|s| {
                !s.is_empty()
                    && s.bytes()
                        .all(|b| b.is_ascii_digit() || b"-+.: eE".contains(&b))
            })
            .map(str::to_string)
            .ok_or_else(|| {
                format!(
                    "key column {} has a value that is not a number or time: {:?}",
                    column.name,
                    String::from_utf8_lossy(value)
                )
            })
    };
    Ok(match def.column_type {
        ColumnType::VarChar { .. } | ColumnType::Char { .. } => {
            let hex = to_hex(value);
            match (&column.charset, &column.collation) {
                (Some(cs), Some(coll)) if cs != "binary" => {
                    format!("CONVERT(X'{hex}' USING {cs}) COLLATE {coll}")
                }
                (Some(cs), None) if cs != "binary" => format!("CONVERT(X'{hex}' USING {cs})"),
                _ => format!("X'{hex}'"),
            }
        }
        ColumnType::Tiny
        | ColumnType::Short
        | ColumnType::Int24
        | ColumnType::Long
        | ColumnType::LongLong
        | ColumnType::NewDecimal { .. }
        | ColumnType::Year => text()?,
        _ => format!("'{}'", text()?),
    })
}

/// Raw key values as persisted in a snapshot's progress (upper-case hex).
pub fn to_hex(bytes: &[u8]) -> String {
    use std::fmt::Write;
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        let _ = write!(s, "{b:02X}");
    }
    s
}

/// The bytes of [`to_hex`]'s text; `None` when it is not hex.
pub fn from_hex(text: &str) -> Option<Vec<u8>> {
    if !text.len().is_multiple_of(2) {
        return None;
    }
    (0..text.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(text.get(i..i + 2)?, 16).ok())
        .collect()
}
