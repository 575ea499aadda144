//! Target tables as the sink writes them ([`TablePlan`]: which source
//! column lands in which target column, and the key) and the statements of
//! a run of row changes: several rows per `INSERT … VALUES` (an upsert on
//! the key) or per `DELETE … WHERE key IN (…)`.

use std::collections::HashSet;

use sluice_binlog::BinlogPosition;
use sluice_canal::view::HeaderView;

use crate::config::{Mapping, PostgresUpsert, TargetKind};
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
    /// Target column indexes of the key; empty: a keyless table, whose
    /// rows are inserted as they come and deleted (and updated) by matching
    /// every written column, one row at a time.
    pub key: Vec<usize>,
    /// `targetColumns` and `targetPk`: source column → target column index.
    explicit: Vec<(String, usize)>,
    /// The index of the sink's mapping whose position counts this plan's
    /// rows: its own, or the `mirrorDb` mapping it was made for.
    pub slot: usize,
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
    /// `slot`: the index of the sink's mapping whose position counts the
    /// plan's rows (its own, or the `mirrorDb` mapping it was made for).
    pub fn new(
        mapping: &Mapping,
        info: TableInfo,
        kind: TargetKind,
        slot: usize,
    ) -> Result<TablePlan, String> {
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
        // canal-adapter applies a `concurrent` mapping's rows on threads
        // chosen by key: without a key that cannot keep their order.
        if key.is_empty() && mapping.concurrent {
            return Err(format!(
                "{}: mapping {}: concurrent: true needs a key, but dbMapping.targetPk is not set and the target table {table_name} has no primary key; set targetPk, give the table a primary key, or drop concurrent to apply its rows by whole-row match",
                mapping.file.display(),
                mapping.name
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
            slot,
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
    /// The source's epoch (which server of a failover sequence).
    pub epoch: u32,
    /// A row of the initial snapshot (applied whatever the positions).
    pub snapshot: bool,
}

impl Origin {
    /// Where the row changes of the entry with header `h` come from.
    pub fn of(h: &HeaderView<'_>) -> Origin {
        Origin {
            file: h.logfile_name.to_string(),
            offset: h.logfile_offset,
            table: format!("{}.{}", h.schema_name, h.table_name),
            epoch: h.source_epoch,
            snapshot: h.snapshot,
        }
    }

    /// Its entry's binlog position.
    pub fn position(&self) -> BinlogPosition {
        entry_position(&self.file, self.offset).in_epoch(self.epoch)
    }
}

/// The position of an entry's header: Canal's protobuf offset is signed,
/// the binlog's is not (a negative one would be a corrupt entry, read as 0).
pub fn entry_position(file: &str, offset: i64) -> BinlogPosition {
    BinlogPosition::new(file, u64::try_from(offset).unwrap_or(0))
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
    /// PostgreSQL: 0, or the `params` are `rows` rows of this many values
    /// that go as this many `text[]` parameters, one per column (see
    /// [`unnest`]).
    pub arrays: usize,
    /// PostgreSQL: the rows go first by `COPY` into the staging table of
    /// `arrays` text columns, which `sql` reads (see [`crate::pgcopy`]).
    pub staged: bool,
}

/// Most parameters in one statement (both PostgreSQL and MySQL take 65535).
const MAX_PARAMS: usize = 30_000;

/// How many statements back a change of a `concurrent` mapping may join.
const REGROUP_WINDOW: usize = 8;

/// The statements of `ops`: changes of one kind to one table (with the
/// same columns) go in one statement while their keys differ, up to
/// `max_rows` rows, so that no statement touches a row twice and the order
/// of changes to a row is kept.
///
/// Without `concurrent`, only consecutive changes are joined: the order of
/// all changes is kept. With `concurrent: true` (canal-adapter's "rows of
/// different keys are independent", which it applies on parallel threads)
/// a change may also join an earlier statement of its table and kind when
/// no statement between touches its key, so that interleaved inserts,
/// updates and deletes of a table become one upsert and one delete
/// statement. Changes never move past a change of another table (its
/// foreign keys may need the order).
pub fn statements(
    kind: TargetKind,
    plans: &[TablePlan],
    ops: &[RowOp],
    max_rows: usize,
    method: PostgresUpsert,
) -> Vec<Statement> {
    struct Group<'a> {
        plan: usize,
        kind: OpKind,
        columns: &'a [usize],
        keys: HashSet<&'a [Param]>,
        ops: Vec<&'a RowOp>,
        limit: usize,
    }
    let mut out = Vec::new();
    // The statements of the current run of one table's changes.
    let mut groups: Vec<Group<'_>> = Vec::new();
    let flush = |groups: &mut Vec<Group<'_>>, out: &mut Vec<Statement>| {
        for g in groups.drain(..) {
            let plan = &plans[g.plan];
            out.push(match g.kind {
                OpKind::Upsert => upsert(kind, plan, &g.ops, method),
                OpKind::Delete => delete(kind, plan, &g.ops),
            });
        }
    };
    for op in ops {
        if groups.first().is_some_and(|g| g.plan != op.plan) {
            flush(&mut groups, &mut out);
        }
        let plan = &plans[op.plan];
        let window = if plan.mapping.concurrent {
            REGROUP_WINDOW
        } else {
            1
        };
        // Keyless rows: inserts join, each delete is a statement of its own.
        let keyless = plan.key.is_empty();
        let mut joined = false;
        for g in groups.iter_mut().rev().take(window) {
            if keyless && op.kind == OpKind::Delete {
                break;
            }
            if !keyless && g.keys.contains(op.key.as_slice()) {
                break;
            }
            if g.kind == op.kind && g.columns == op.columns.as_slice() && g.ops.len() < g.limit {
                g.keys.insert(&op.key);
                g.ops.push(op);
                joined = true;
                break;
            }
        }
        if joined {
            continue;
        }
        let width = if op.kind == OpKind::Upsert {
            op.columns.len()
        } else {
            plan.key.len()
        }
        .max(1);
        groups.push(Group {
            plan: op.plan,
            kind: op.kind,
            columns: &op.columns,
            keys: HashSet::from([op.key.as_slice()]),
            ops: vec![op],
            limit: max_rows.max(1).min((MAX_PARAMS / width).max(1)),
        });
    }
    flush(&mut groups, &mut out);
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

fn upsert(kind: TargetKind, plan: &TablePlan, run: &[&RowOp], method: PostgresUpsert) -> Statement {
    let cols = &run[0].columns;
    let names: Vec<String> = cols
        .iter()
        .map(|&i| quote(kind, &plan.columns[i].name))
        .collect();
    let mut sql = format!("INSERT INTO {} ({}) ", plan.table, names.join(", "));
    let mut params = Vec::with_capacity(run.len() * cols.len());
    let staged = kind == TargetKind::Postgres && method == PostgresUpsert::Copy;
    if staged {
        // Each upsert takes (and deletes) the rows its COPY put there, so
        // the next one in the transaction starts from an empty table.
        sql = format!(
            "WITH s AS (DELETE FROM {} RETURNING *) {sql}{} FROM s",
            crate::pgcopy::staging_table(cols.len()),
            casts(plan, cols, "s")
        );
    }
    if kind == TargetKind::Postgres {
        if !staged {
            sql.push_str(&unnest(plan, cols));
        }
        for op in run {
            for (&i, v) in cols.iter().zip(&op.values) {
                params.push(param(kind, &plan.columns[i], v));
            }
        }
    } else {
        sql.push_str("VALUES ");
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
    }
    let non_key: Vec<&String> = cols
        .iter()
        .zip(&names)
        .filter(|(i, _)| !plan.key.contains(i))
        .map(|(_, n)| n)
        .collect();
    match kind {
        // A keyless table: rows are inserted as they come.
        _ if plan.key.is_empty() => {}
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
        arrays: if kind == TargetKind::Postgres {
            cols.len()
        } else {
            0
        },
        staged,
    }
}

/// PostgreSQL: `SELECT …` of the rows given as one `text[]` parameter per
/// column (`$1` … `$n`), each cast to its column's type. One short
/// statement whatever the rows, which PostgreSQL plans at once, where a
/// `VALUES` list of a thousand rows of casts takes it longer to parse and
/// plan than to write the rows.
fn unnest(plan: &TablePlan, cols: &[usize]) -> String {
    let mut arrays = String::new();
    let mut names = String::new();
    for c in 0..cols.len() {
        if c > 0 {
            arrays.push_str(", ");
            names.push_str(", ");
        }
        arrays.push_str(&format!("${}::text[]", c + 1));
        names.push_str(&format!("c{c}"));
    }
    format!(
        "{} FROM unnest({arrays}) AS u({names})",
        casts(plan, cols, "u")
    )
}

/// PostgreSQL: `SELECT` of the text columns `c0` … of `alias`, each cast to
/// its target column's type (the `unnest` and the `COPY` forms alike).
fn casts(plan: &TablePlan, cols: &[usize], alias: &str) -> String {
    let mut select = String::from("SELECT ");
    for (c, &i) in cols.iter().enumerate() {
        if c > 0 {
            select.push_str(", ");
        }
        let column = &plan.columns[i];
        select.push_str(&match column.class {
            // Canal gives BIT as a number; bigint → bit(n) keeps its low bits.
            TargetClass::Bit => format!("{alias}.c{c}::bigint::{}", column.cast),
            _ => format!("{alias}.c{c}::{}", column.cast),
        });
    }
    select
}

fn delete(kind: TargetKind, plan: &TablePlan, run: &[&RowOp]) -> Statement {
    if plan.key.is_empty() {
        return delete_matching(kind, plan, run[0]);
    }
    if kind == TargetKind::Postgres {
        let key: Vec<String> = plan
            .key
            .iter()
            .map(|&i| quote(kind, &plan.columns[i].name))
            .collect();
        let mut params = Vec::with_capacity(run.len() * key.len());
        for op in run {
            for (&i, v) in plan.key.iter().zip(&op.key) {
                params.push(param(kind, &plan.columns[i], v));
            }
        }
        return Statement {
            sql: format!(
                "DELETE FROM {} WHERE ({}) IN ({})",
                plan.table,
                key.join(", "),
                unnest(plan, &plan.key)
            ),
            params,
            origin: run[0].origin.clone(),
            rows: run.len(),
            arrays: plan.key.len(),
            staged: false,
        };
    }
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
        arrays: 0,
        staged: false,
    }
}

/// The delete of one row of a keyless table: the first row equal to the
/// row's image in every written column (NULL equal to NULL). Duplicates of
/// a row are alike, so which one goes does not matter.
fn delete_matching(kind: TargetKind, plan: &TablePlan, op: &RowOp) -> Statement {
    let mut conditions = String::new();
    let mut params = Vec::with_capacity(op.columns.len());
    for (c, (&i, v)) in op.columns.iter().zip(&op.values).enumerate() {
        if c > 0 {
            conditions.push_str(" AND ");
        }
        let column = &plan.columns[i];
        conditions.push_str(&quote(kind, &column.name));
        conditions.push_str(match kind {
            TargetKind::Postgres => " IS NOT DISTINCT FROM ",
            TargetKind::MySql => " <=> ",
        });
        params.push(param(kind, column, v));
        placeholder(kind, params.len(), column, &mut conditions);
    }
    if conditions.is_empty() {
        conditions.push_str("TRUE");
    }
    let sql = match kind {
        // PostgreSQL's DELETE has no LIMIT: the row is picked by its ctid.
        TargetKind::Postgres => format!(
            "DELETE FROM {0} WHERE ctid = (SELECT ctid FROM {0} WHERE {conditions} LIMIT 1)",
            plan.table
        ),
        TargetKind::MySql => format!("DELETE FROM {} WHERE {conditions} LIMIT 1", plan.table),
    };
    Statement {
        sql,
        params,
        origin: op.origin.clone(),
        rows: 1,
        arrays: 0,
        staged: false,
    }
}

/// The target type of a column added to a source table, from Canal's
/// `mysqlType` of it: the same type for MariaDB/MySQL, the nearest one for
/// PostgreSQL (as the type table in the README maps them). `None` when the
/// text is not a type name (it goes into an `ALTER TABLE` as written).
pub fn nearest_type(kind: TargetKind, mysql_type: &str) -> Option<String> {
    let t = mysql_type.trim().to_ascii_lowercase();
    // A type is a name, an optional (…) of numbers or quoted labels, and
    // words such as `unsigned`: nothing that could end the statement.
    let safe = !t.is_empty()
        && !t.contains(';')
        && !t.contains("--")
        && !t.contains("/*")
        && t.chars().filter(|&c| c == '(').count() <= 1;
    if !safe {
        return None;
    }
    if kind == TargetKind::MySql {
        return Some(t);
    }
    let (name, rest) = t.split_at(
        t.find(|c: char| !c.is_ascii_alphanumeric())
            .unwrap_or(t.len()),
    );
    let args = rest
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
        .map(|(a, _)| a.trim())
        .filter(|a| {
            a.chars()
                .all(|c| c.is_ascii_digit() || c == ',' || c == ' ')
        });
    let unsigned = rest.contains("unsigned");
    let with = |base: &str| match args {
        Some(a) if !a.is_empty() => format!("{base}({a})"),
        _ => base.to_string(),
    };
    Some(match name {
        "tinyint" | "smallint" | "year" => "smallint".into(),
        "mediumint" => "integer".into(),
        "int" | "integer" if unsigned => "bigint".into(),
        "int" | "integer" => "integer".into(),
        "bigint" if unsigned => "numeric(20)".into(),
        "bigint" => "bigint".into(),
        "decimal" | "numeric" | "dec" | "fixed" => with("numeric"),
        "float" => "real".into(),
        "double" | "real" => "double precision".into(),
        "char" | "varchar" => with("varchar"),
        "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob" => "bytea".into(),
        "date" => "date".into(),
        "time" => with("time"),
        "datetime" | "timestamp" => with("timestamp"),
        "json" => "jsonb".into(),
        "bit" => with("bit"),
        // text types, enum, set and anything else: its text.
        _ => "text".into(),
    })
}

#[cfg(test)]
mod tests;
