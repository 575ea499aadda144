//! Target tables as the sink writes them ([`TablePlan`]: which source
//! column lands in which target column, and the key) and the statements of
//! a run of row changes: several rows per `INSERT … VALUES` (an upsert on
//! the key) or per `DELETE … WHERE key IN (…)`.

use std::collections::HashSet;

use crate::config::{Mapping, TargetKind};
use crate::value::{Param, TargetClass};

/// A column of a target table, read from its catalog.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TargetColumn {
    pub name: String,
    /// PostgreSQL: the type a text parameter is cast to (unused for MySQL).
    pub cast: String,
    pub class: TargetClass,
}

/// A target table's columns and primary key, from its catalog.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableInfo {
    pub columns: Vec<TargetColumn>,
    pub primary_key: Vec<String>,
}

/// One mapping resolved against its target table.
#[derive(Debug, Clone)]
pub struct TablePlan {
    pub mapping: Mapping,
    /// The quoted target table.
    pub table: String,
    pub columns: Vec<TargetColumn>,
    /// Target column indexes of the key.
    pub key: Vec<usize>,
    /// `targetColumns` and `targetPk`: source column → target column index.
    explicit: Vec<(String, usize)>,
}

/// The index of `name` among `columns`: as written, else ignoring case
/// (PostgreSQL folds unquoted names to lower case, MySQL compares without
/// case).
fn find(columns: &[TargetColumn], name: &str) -> Option<usize> {
    columns.iter().position(|c| c.name == name).or_else(|| {
        columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    })
}

impl TablePlan {
    pub fn new(mapping: &Mapping, info: TableInfo, kind: TargetKind) -> Result<TablePlan, String> {
        let table_name = match &mapping.target_schema {
            Some(s) => format!("{s}.{}", mapping.target_table),
            None => mapping.target_table.clone(),
        };
        if info.columns.is_empty() {
            return Err(format!(
                "{}: the target table {table_name} does not exist (create it first)",
                mapping.file.display()
            ));
        }
        let mut explicit = Vec::new();
        for (target, source) in &mapping.target_columns {
            let i = find(&info.columns, target).ok_or_else(|| {
                format!(
                    "{}: dbMapping.targetColumns.{target}: no column {target} in the target table {table_name}",
                    mapping.file.display()
                )
            })?;
            explicit.push((source.clone(), i));
        }
        let mut key = Vec::new();
        for (source, target) in &mapping.target_pk {
            let i = find(&info.columns, target).ok_or_else(|| {
                format!(
                    "{}: dbMapping.targetPk.{source}: no column {target} in the target table {table_name}",
                    mapping.file.display()
                )
            })?;
            if !explicit.iter().any(|(s, t)| s == source && *t == i) {
                explicit.push((source.clone(), i));
            }
            key.push(i);
        }
        if key.is_empty() {
            for name in &info.primary_key {
                key.extend(find(&info.columns, name));
            }
        }
        if key.is_empty() {
            return Err(format!(
                "{}: dbMapping.targetPk is not set and the target table {table_name} has no primary key: rows cannot be applied by key",
                mapping.file.display()
            ));
        }
        let quote = |s: &str| quote(kind, s);
        let table = match &mapping.target_schema {
            Some(s) => format!("{}.{}", quote(s), quote(&mapping.target_table)),
            None => quote(&mapping.target_table),
        };
        Ok(TablePlan {
            mapping: mapping.clone(),
            table,
            columns: info.columns,
            key,
            explicit,
        })
    }

    /// The target column of a source column, if it is written.
    pub fn target_of(&self, source: &str) -> Option<usize> {
        if let Some((_, i)) = self.explicit.iter().find(|(s, _)| s == source) {
            return Some(*i);
        }
        if let Some((_, i)) = self
            .explicit
            .iter()
            .find(|(s, _)| s.eq_ignore_ascii_case(source))
        {
            return Some(*i);
        }
        if self.mapping.map_all {
            return find(&self.columns, source);
        }
        None
    }
}

/// An identifier quoted for the target.
pub fn quote(kind: TargetKind, name: &str) -> String {
    match kind {
        TargetKind::Postgres => format!("\"{}\"", name.replace('"', "\"\"")),
        TargetKind::MySql => format!("`{}`", name.replace('`', "``")),
    }
}

/// Where a row change comes from, for error messages.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Origin {
    pub file: String,
    pub offset: i64,
    /// `schema.table` of the source.
    pub table: String,
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at {}:{}", self.table, self.file, self.offset)
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OpKind {
    Upsert,
    Delete,
}

/// One row change to a target table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowOp {
    /// Index of its [`TablePlan`].
    pub plan: usize,
    pub kind: OpKind,
    /// Upserts: the target columns written, ascending; deletes: empty.
    pub columns: Vec<usize>,
    /// Upserts: the values of `columns`.
    pub values: Vec<Param>,
    /// The values of the plan's key columns.
    pub key: Vec<Param>,
    pub origin: Origin,
}

/// One statement and its parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub sql: String,
    pub params: Vec<Param>,
    /// Its first row's origin.
    pub origin: Origin,
    pub rows: usize,
}

/// Most parameters in one statement (both PostgreSQL and MySQL take 65535).
const MAX_PARAMS: usize = 30_000;

/// The statements of `ops`, in order: consecutive changes of one kind to
/// one table (with the same columns) go in one statement while their keys
/// differ, up to `max_rows` rows, so that no statement touches a row twice
/// and the order of changes to a row is kept.
pub fn statements(
    kind: TargetKind,
    plans: &[TablePlan],
    ops: &[RowOp],
    max_rows: usize,
) -> Vec<Statement> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < ops.len() {
        let first = &ops[start];
        let plan = &plans[first.plan];
        let width = if first.kind == OpKind::Upsert {
            first.columns.len()
        } else {
            plan.key.len()
        }
        .max(1);
        let limit = max_rows.max(1).min((MAX_PARAMS / width).max(1));
        let mut keys: HashSet<&[Param]> = HashSet::new();
        let mut end = start;
        while end < ops.len() && end - start < limit {
            let op = &ops[end];
            if op.plan != first.plan
                || op.kind != first.kind
                || op.columns != first.columns
                || !keys.insert(&op.key)
            {
                break;
            }
            end += 1;
        }
        let run = &ops[start..end];
        out.push(match first.kind {
            OpKind::Upsert => upsert(kind, plan, run),
            OpKind::Delete => delete(kind, plan, run),
        });
        start = end;
    }
    out
}

/// A placeholder for the `n`th parameter (1-based) of a column.
fn placeholder(kind: TargetKind, n: usize, column: &TargetColumn, sql: &mut String) {
    use std::fmt::Write;
    match (kind, column.class) {
        // Canal gives BIT as a number; bigint → bit(n) keeps its low bits.
        (TargetKind::Postgres, TargetClass::Bit) => {
            let _ = write!(sql, "${n}::text::bigint::{}", column.cast);
        }
        (TargetKind::Postgres, _) => {
            let _ = write!(sql, "${n}::text::{}", column.cast);
        }
        // A string into BIT would be its characters' bits.
        (TargetKind::MySql, TargetClass::Bit) => sql.push_str("CAST(? AS UNSIGNED)"),
        (TargetKind::MySql, _) => sql.push('?'),
    }
}

/// A parameter as the target takes it: PostgreSQL gets text only (bytes
/// for bytea as its hex form), MySQL text or bytes.
fn param(kind: TargetKind, column: &TargetColumn, p: &Param) -> Param {
    match (kind, p) {
        (TargetKind::Postgres, Param::Bytes(b)) if column.class == TargetClass::Binary => {
            Param::Text(hex(b))
        }
        (TargetKind::Postgres, Param::Text(t)) if column.class == TargetClass::Binary => {
            Param::Text(hex(t.as_bytes()))
        }
        (TargetKind::Postgres, Param::Bytes(b)) => {
            Param::Text(String::from_utf8_lossy(b).into_owned())
        }
        _ => p.clone(),
    }
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(2 + bytes.len() * 2);
    s.push_str("\\x");
    for b in bytes {
        s.push(char::from(DIGITS[usize::from(b >> 4)]));
        s.push(char::from(DIGITS[usize::from(b & 15)]));
    }
    s
}

fn upsert(kind: TargetKind, plan: &TablePlan, run: &[RowOp]) -> Statement {
    let cols = &run[0].columns;
    let names: Vec<String> = cols
        .iter()
        .map(|&i| quote(kind, &plan.columns[i].name))
        .collect();
    let mut sql = format!("INSERT INTO {} ({}) VALUES ", plan.table, names.join(", "));
    let mut params = Vec::with_capacity(run.len() * cols.len());
    for (r, op) in run.iter().enumerate() {
        sql.push_str(if r == 0 { "(" } else { ", (" });
        for (c, (&i, v)) in cols.iter().zip(&op.values).enumerate() {
            if c > 0 {
                sql.push_str(", ");
            }
            params.push(param(kind, &plan.columns[i], v));
            placeholder(kind, params.len(), &plan.columns[i], &mut sql);
        }
        sql.push(')');
    }
    let non_key: Vec<&String> = cols
        .iter()
        .zip(&names)
        .filter(|(i, _)| !plan.key.contains(i))
        .map(|(_, n)| n)
        .collect();
    match kind {
        TargetKind::Postgres => {
            let key: Vec<String> = plan
                .key
                .iter()
                .map(|&i| quote(kind, &plan.columns[i].name))
                .collect();
            sql.push_str(&format!(" ON CONFLICT ({}) DO ", key.join(", ")));
            if non_key.is_empty() {
                sql.push_str("NOTHING");
            } else {
                let set: Vec<String> = non_key
                    .iter()
                    .map(|n| format!("{n} = EXCLUDED.{n}"))
                    .collect();
                sql.push_str(&format!("UPDATE SET {}", set.join(", ")));
            }
        }
        TargetKind::MySql => {
            let set: Vec<String> = if non_key.is_empty() {
                // Only key columns: a duplicate changes nothing.
                vec![format!("{0} = {0}", names[0])]
            } else {
                non_key
                    .iter()
                    .map(|n| format!("{n} = VALUES({n})"))
                    .collect()
            };
            sql.push_str(&format!(" ON DUPLICATE KEY UPDATE {}", set.join(", ")));
        }
    }
    Statement {
        sql,
        params,
        origin: run[0].origin.clone(),
        rows: run.len(),
    }
}

fn delete(kind: TargetKind, plan: &TablePlan, run: &[RowOp]) -> Statement {
    let key: Vec<String> = plan
        .key
        .iter()
        .map(|&i| quote(kind, &plan.columns[i].name))
        .collect();
    let mut sql = if key.len() == 1 {
        format!("DELETE FROM {} WHERE {} IN (", plan.table, key[0])
    } else {
        format!("DELETE FROM {} WHERE ({}) IN (", plan.table, key.join(", "))
    };
    let mut params = Vec::with_capacity(run.len() * key.len());
    for (r, op) in run.iter().enumerate() {
        if r > 0 {
            sql.push_str(", ");
        }
        if key.len() > 1 {
            sql.push('(');
        }
        for (c, (&i, v)) in plan.key.iter().zip(&op.key).enumerate() {
            if c > 0 {
                sql.push_str(", ");
            }
            params.push(param(kind, &plan.columns[i], v));
            placeholder(kind, params.len(), &plan.columns[i], &mut sql);
        }
        if key.len() > 1 {
            sql.push(')');
        }
    }
    sql.push(')');
    Statement {
        sql,
        params,
        origin: run[0].origin.clone(),
        rows: run.len(),
    }
}

#[cfg(test)]
mod tests;
