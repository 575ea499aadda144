//! The catalog: every tracked database and table at one point of the binlog,
//! and the rules that turn a parsed DDL statement into changes of it
//! (character set resolution, key maintenance, column positions). Changes
//! are computed as [`Delta`]s first and then applied, so the history can
//! replay them exactly. It never parses SQL itself (see [`crate::read_ddl`])
//! and never talks to a server.
//!
//! Here: the catalog, [`Delta`]s and the plan of each statement; in
//! `charsets` the resolution of character sets and collations; in
//! `table_edits` the edits of one table (columns, keys, versioning).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::collation::{charset_of_collation, default_collation, normalize_collation};
use crate::ddl::*;
use crate::error::{Result, SchemaError};
use crate::lexer::LexOptions;
use crate::model::*;
use crate::position::BinlogPosition;
use crate::read_ddl::{parse_ddl, ParsedBy};
use charsets::{resolve_charset, resolve_column};
use table_edits::{
    add_column, add_key, add_system_versioning, change_column, column_keys, convert_charset,
    drop_system_versioning, find_column, remove_from_keys, rename_in_keys, sequence_table,
};

mod charsets;
mod table_edits;

pub use charsets::FALLBACK_CHARSET;

/// One change to the catalog; what the history stores for each DDL.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Delta {
    PutTable {
        table: TableSchema,
    },
    RemoveTable {
        db: String,
        name: String,
    },
    PutDatabase {
        database: DatabaseSchema,
    },
    RemoveDatabase {
        name: String,
    },
    /// The table's schema is unknown from here on (unparseable DDL skipped).
    MarkStale {
        db: String,
        name: String,
        reason: String,
    },
}

/// Why a table's tracked schema cannot be trusted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StaleMark {
    pub since: BinlogPosition,
    pub reason: String,
}

/// What applying one statement did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DdlOutcome {
    /// `CREATE TABLE`, `ALTER TABLE`, `INSERT`, ...
    pub kind: String,
    /// Which parser read it.
    pub parsed_by: ParsedBy,
    /// The changes made (empty for statements that change no table).
    pub deltas: Vec<Delta>,
    /// Remarks worth a log line (an ALTER of an untracked table, ...).
    pub notes: Vec<String>,
}

impl DdlOutcome {
    pub fn changed_schema(&self) -> bool {
        !self.deltas.is_empty()
    }
}

/// Session and server state that decides how a statement reads.
#[derive(Debug, Clone, Default)]
pub struct ApplyContext {
    /// The session's current database (the QUERY event's schema).
    pub current_db: String,
    /// The server's collation when the statement ran (`collation_server`
    /// from the QUERY event's status variables), the last resort for
    /// character sets no database or table names.
    pub server_collation: Option<String>,
    pub lex: LexOptions,
}

/// All tracked databases and tables.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "CatalogRepr", from = "CatalogRepr")]
pub struct Catalog {
    databases: BTreeMap<String, DatabaseSchema>,
    tables: BTreeMap<(String, String), TableSchema>,
    stale: BTreeMap<(String, String), StaleMark>,
    /// `lower_case_table_names` > 0: names compare case-insensitively.
    pub lower_case_table_names: bool,
}

/// How a catalog is stored: lists instead of maps with composite keys.
#[derive(Serialize, Deserialize)]
struct CatalogRepr {
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    lower_case_table_names: bool,
    databases: Vec<DatabaseSchema>,
    tables: Vec<TableSchema>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    stale: Vec<StaleEntry>,
}

#[derive(Serialize, Deserialize)]
struct StaleEntry {
    db: String,
    name: String,
    #[serde(flatten)]
    mark: StaleMark,
}

impl From<Catalog> for CatalogRepr {
    fn from(c: Catalog) -> Self {
        CatalogRepr {
            lower_case_table_names: c.lower_case_table_names,
            databases: c.databases.into_values().collect(),
            tables: c.tables.into_values().collect(),
            stale: c
                .stale
                .into_iter()
                .map(|((db, name), mark)| StaleEntry { db, name, mark })
                .collect(),
        }
    }
}

impl From<CatalogRepr> for Catalog {
    fn from(r: CatalogRepr) -> Self {
        let mut c = Catalog {
            lower_case_table_names: r.lower_case_table_names,
            ..Catalog::default()
        };
        for d in r.databases {
            c.put_database(d);
        }
        for t in r.tables {
            c.put_table(t);
        }
        for s in r.stale {
            let k = c.key(&s.db, &s.name);
            c.stale.insert(k, s.mark);
        }
        c
    }
}

impl Catalog {
    pub fn new() -> Self {
        Self::default()
    }

    fn key(&self, db: &str, name: &str) -> (String, String) {
        if self.lower_case_table_names {
            (db.to_lowercase(), name.to_lowercase())
        } else {
            (db.to_string(), name.to_string())
        }
    }

    pub fn table(&self, db: &str, name: &str) -> Option<&TableSchema> {
        self.tables.get(&self.key(db, name))
    }

    pub fn tables(&self) -> impl Iterator<Item = &TableSchema> {
        self.tables.values()
    }

    pub fn database(&self, name: &str) -> Option<&DatabaseSchema> {
        let k = self.key(name, "").0;
        self.databases.get(&k)
    }

    pub fn databases(&self) -> impl Iterator<Item = &DatabaseSchema> {
        self.databases.values()
    }

    /// Whether the table's schema is unknown since an unparseable DDL.
    pub fn stale(&self, db: &str, name: &str) -> Option<&StaleMark> {
        self.stale.get(&self.key(db, name))
    }

    /// Adds or replaces a table (seeding, repairs).
    pub fn put_table(&mut self, table: TableSchema) {
        let k = self.key(&table.db, &table.name);
        self.stale.remove(&k);
        self.tables.insert(k, table);
    }

    pub fn put_database(&mut self, db: DatabaseSchema) {
        let k = self.key(&db.name, "").0;
        self.databases.insert(k, db);
    }

    /// Applies recorded changes (history replay, repairs).
    pub fn apply_deltas(&mut self, deltas: &[Delta], at: &BinlogPosition) {
        for d in deltas {
            match d {
                Delta::PutTable { table } => self.put_table(table.clone()),
                Delta::RemoveTable { db, name } => {
                    let k = self.key(db, name);
                    self.tables.remove(&k);
                    self.stale.remove(&k);
                }
                Delta::PutDatabase { database } => self.put_database(database.clone()),
                Delta::RemoveDatabase { name } => {
                    let k = self.key(name, "").0;
                    self.databases.remove(&k);
                    self.tables.retain(|(d, _), _| *d != k);
                    self.stale.retain(|(d, _), _| *d != k);
                }
                Delta::MarkStale { db, name, reason } => {
                    let k = self.key(db, name);
                    self.stale.insert(
                        k,
                        StaleMark {
                            since: at.clone(),
                            reason: reason.clone(),
                        },
                    );
                }
            }
        }
    }

    /// Parses one statement and applies its effect. On error nothing changes.
    pub fn apply_ddl(
        &mut self,
        ctx: &ApplyContext,
        sql: &str,
        position: &BinlogPosition,
    ) -> Result<DdlOutcome> {
        let parsed = parse_ddl(sql, ctx.lex).map_err(|e| SchemaError::Unparseable {
            position: position.to_string(),
            db: ctx.current_db.clone(),
            sql: snippet(sql),
            message: e.to_string(),
        })?;
        let mut notes = Vec::new();
        let deltas = self.plan(ctx, &parsed.statement, sql, position, &mut notes)?;
        self.apply_deltas(&deltas, position);
        Ok(DdlOutcome {
            kind: parsed.statement.kind(),
            parsed_by: parsed.parsed_by,
            deltas,
            notes,
        })
    }

    /// Computes the changes a parsed statement makes, without applying them.
    pub fn plan(
        &self,
        ctx: &ApplyContext,
        stmt: &DdlStatement,
        sql: &str,
        position: &BinlogPosition,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Delta>> {
        let db_of = |t: &TableName| table_db(ctx, t);
        let inconsistent =
            |table: String, message: String| inconsistent_at(position, table, message);
        Ok(match stmt {
            DdlStatement::NoChange(_) | DdlStatement::Truncate(_) => vec![],
            DdlStatement::CreateTable {
                table,
                temporary,
                if_not_exists,
                columns,
                keys,
                options,
                with_select,
                ..
            } => {
                let Some(db) = self.create_target(ctx, table, *temporary, *if_not_exists, notes)
                else {
                    return Ok(vec![]);
                };
                if *with_select {
                    return Err(SchemaError::Incomplete {
                        position: position.to_string(),
                        sql: snippet(sql),
                        message: format!(
                            "CREATE TABLE {db}.{} ... SELECT takes columns from a query",
                            table.name
                        ),
                    });
                }
                let t = self
                    .build_table(ctx, &db, &table.name, columns, keys, options)
                    .map_err(|m| inconsistent(format!("{db}.{}", table.name), m))?;
                vec![Delta::PutTable { table: t }]
            }
            DdlStatement::CreateTableLike {
                table,
                like,
                temporary,
                if_not_exists,
                ..
            } => {
                let Some(db) = self.create_target(ctx, table, *temporary, *if_not_exists, notes)
                else {
                    return Ok(vec![]);
                };
                self.like_deltas(ctx, db, table, like, position)?
            }
            DdlStatement::CreateSequence {
                table, temporary, ..
            } => {
                if *temporary {
                    return Ok(vec![]);
                }
                vec![Delta::PutTable {
                    table: sequence_table(&db_of(table), &table.name),
                }]
            }
            DdlStatement::AlterTable { table, ops } => {
                self.alter_table_deltas(ctx, table, ops, position, notes)?
            }
            DdlStatement::RenameTables(pairs) => self.rename_deltas(ctx, pairs, position, notes),
            DdlStatement::DropTables {
                tables, temporary, ..
            } => {
                if *temporary {
                    return Ok(vec![]);
                }
                tables
                    .iter()
                    .map(|t| Delta::RemoveTable {
                        db: db_of(t),
                        name: t.name.clone(),
                    })
                    .collect()
            }
            DdlStatement::CreateDatabase {
                name,
                if_not_exists,
                or_replace,
                charset,
                collation,
            } => self.create_database_deltas(
                ctx,
                name,
                *if_not_exists,
                *or_replace,
                charset.as_deref(),
                collation.as_deref(),
            ),
            DdlStatement::AlterDatabase {
                name,
                charset,
                collation,
            } => self.alter_database_delta(
                ctx,
                name.as_deref(),
                charset.as_deref(),
                collation.as_deref(),
            ),
            DdlStatement::DropDatabase { name, .. } => {
                vec![Delta::RemoveDatabase { name: name.clone() }]
            }
        })
    }

    /// The database a `CREATE TABLE [LIKE]` makes its table in, or `None` when
    /// it makes nothing tracked (a temporary table, noted; or IF NOT EXISTS
    /// and the table exists).
    fn create_target(
        &self,
        ctx: &ApplyContext,
        table: &TableName,
        temporary: bool,
        if_not_exists: bool,
        notes: &mut Vec<String>,
    ) -> Option<String> {
        if temporary {
            notes.push(format!("temporary table {table} is not tracked"));
            return None;
        }
        let db = table_db(ctx, table);
        if if_not_exists && self.table(&db, &table.name).is_some() {
            return None;
        }
        Some(db)
    }

    /// CREATE TABLE ... LIKE: a copy of the tracked source table under the
    /// new name, in `db`.
    fn like_deltas(
        &self,
        ctx: &ApplyContext,
        db: String,
        table: &TableName,
        like: &TableName,
        position: &BinlogPosition,
    ) -> Result<Vec<Delta>> {
        let ldb = table_db(ctx, like);
        match self.table(&ldb, &like.name) {
            Some(src) => {
                let mut t = src.clone();
                t.db = db;
                t.name = table.name.clone();
                Ok(vec![Delta::PutTable { table: t }])
            }
            None => Err(inconsistent_at(
                position,
                format!("{db}.{}", table.name),
                format!("LIKE names {ldb}.{}, which is not tracked", like.name),
            )),
        }
    }

    /// ALTER TABLE: the operations applied in order to a copy of the table;
    /// the table put back (after removing the old name when renamed) if it
    /// changed, then any tables the operations split off or absorb.
    fn alter_table_deltas(
        &self,
        ctx: &ApplyContext,
        table: &TableName,
        ops: &[AlterOp],
        position: &BinlogPosition,
        notes: &mut Vec<String>,
    ) -> Result<Vec<Delta>> {
        let db_of = |t: &TableName| table_db(ctx, t);
        let inconsistent =
            |table: String, message: String| inconsistent_at(position, table, message);
        let db = db_of(table);
        let Some(old) = self.table(&db, &table.name) else {
            notes.push(format!(
                "ALTER TABLE of untracked table {db}.{}",
                table.name
            ));
            return Ok(vec![]);
        };
        let mut t = old.clone();
        let mut extra = Vec::new();
        // Operations name columns as they were before the statement
        // (`CHANGE a b ..., CHANGE b a ...` swaps them).
        let mut origin: Vec<Option<String>> =
            t.columns.iter().map(|c| Some(c.name.clone())).collect();
        for op in ops {
            self.alter(ctx, &mut t, &mut origin, op, &mut extra)
                .map_err(|m| inconsistent(format!("{db}.{}", table.name), m))?;
        }
        // Key columns are NOT NULL.
        for k in t.primary_key.clone() {
            if let Some(i) = t.column_index(&k) {
                t.columns[i].nullable = false;
            }
        }
        let mut out = Vec::new();
        if t.db != old.db || t.name != old.name {
            out.push(Delta::RemoveTable {
                db: old.db.clone(),
                name: old.name.clone(),
            });
        }
        if &t != old || !out.is_empty() {
            out.push(Delta::PutTable { table: t });
        }
        out.extend(extra);
        Ok(out)
    }

    /// RENAME TABLE: each pair as a removal and a put, in order, over a
    /// scratch copy of the catalog.
    fn rename_deltas(
        &self,
        ctx: &ApplyContext,
        pairs: &[(TableName, TableName)],
        position: &BinlogPosition,
        notes: &mut Vec<String>,
    ) -> Vec<Delta> {
        let db_of = |t: &TableName| table_db(ctx, t);
        // Renames apply in order (`a TO tmp, b TO a, tmp TO b` swaps).
        let mut scratch = self.clone();
        let mut out = Vec::new();
        for (from, to) in pairs {
            let (fdb, tdb) = (db_of(from), db_of(to));
            let removed = Delta::RemoveTable {
                db: fdb.clone(),
                name: from.name.clone(),
            };
            match scratch.table(&fdb, &from.name).cloned() {
                Some(mut t) => {
                    t.db = tdb;
                    t.name = to.name.clone();
                    let put = Delta::PutTable { table: t };
                    scratch.apply_deltas(&[removed.clone(), put.clone()], position);
                    out.push(removed);
                    out.push(put);
                }
                None => {
                    notes.push(format!("RENAME of untracked table {fdb}.{}", from.name));
                    let gone = Delta::RemoveTable {
                        db: tdb,
                        name: to.name.clone(),
                    };
                    scratch.apply_deltas(std::slice::from_ref(&gone), position);
                    out.push(gone);
                }
            }
        }
        out
    }

    /// CREATE DATABASE: the database with its resolved defaults (after
    /// removing the old one under OR REPLACE); nothing under IF NOT EXISTS
    /// when it exists.
    fn create_database_deltas(
        &self,
        ctx: &ApplyContext,
        name: &str,
        if_not_exists: bool,
        or_replace: bool,
        charset: Option<&str>,
        collation: Option<&str>,
    ) -> Vec<Delta> {
        if if_not_exists && self.database(name).is_some() {
            return vec![];
        }
        let (cs, coll) = resolve_charset(charset, collation, ctx.server_collation.as_deref());
        let mut out = Vec::new();
        if or_replace {
            out.push(Delta::RemoveDatabase {
                name: name.to_string(),
            });
        }
        out.push(Delta::PutDatabase {
            database: DatabaseSchema {
                name: name.to_string(),
                default_charset: cs,
                default_collation: coll,
            },
        });
        out
    }

    /// ALTER DATABASE: the database (the current one when unnamed) with new
    /// defaults when a character set is given.
    fn alter_database_delta(
        &self,
        ctx: &ApplyContext,
        name: Option<&str>,
        charset: Option<&str>,
        collation: Option<&str>,
    ) -> Vec<Delta> {
        let name = name.map_or_else(|| ctx.current_db.clone(), str::to_string);
        let (cs, coll) = resolve_charset(charset, collation, None);
        let mut d = self.database(&name).cloned().unwrap_or(DatabaseSchema {
            name: name.clone(),
            default_charset: None,
            default_collation: None,
        });
        if cs.is_some() {
            d.default_charset = cs;
            d.default_collation = coll;
        }
        vec![Delta::PutDatabase { database: d }]
    }

    /// The default character set and collation for a new table in `db`.
    fn db_defaults(&self, ctx: &ApplyContext, db: &str) -> (String, String) {
        if let Some(d) = self.database(db) {
            if let (Some(cs), Some(c)) = (&d.default_charset, &d.default_collation) {
                return (cs.clone(), c.clone());
            }
        }
        match &ctx.server_collation {
            Some(c) => (charset_of_collation(c), normalize_collation(c)),
            None => (
                FALLBACK_CHARSET.to_string(),
                default_collation(FALLBACK_CHARSET)
                    .unwrap_or("utf8mb4_general_ci")
                    .to_string(),
            ),
        }
    }

    fn build_table(
        &self,
        ctx: &ApplyContext,
        db: &str,
        name: &str,
        columns: &[ColumnDefinition],
        keys: &[KeyDefinition],
        options: &TableOptions,
    ) -> std::result::Result<TableSchema, String> {
        let mut t = TableSchema::new(db, name);
        let (dcs, dcoll) = self.db_defaults(ctx, db);
        let (cs, coll) = match resolve_charset(
            options.charset.as_deref(),
            options.collation.as_deref(),
            None,
        ) {
            (Some(cs), Some(c)) => (cs, c),
            _ => (dcs, dcoll),
        };
        t.default_charset = Some(cs);
        t.default_collation = Some(coll);
        for c in columns {
            if t.column_index(&c.name).is_some() {
                return Err(format!("duplicate column `{}`", c.name));
            }
            let col = resolve_column(&t, c);
            t.columns.push(col);
            column_keys(&mut t, c);
        }
        for k in keys {
            add_key(&mut t, k)?;
        }
        if options.with_system_versioning {
            add_system_versioning(&mut t);
        }
        Ok(t)
    }

    fn alter(
        &self,
        ctx: &ApplyContext,
        t: &mut TableSchema,
        origin: &mut Vec<Option<String>>,
        op: &AlterOp,
        extra: &mut Vec<Delta>,
    ) -> std::result::Result<(), String> {
        match op {
            AlterOp::AddColumn {
                column,
                position,
                if_not_exists,
            } => add_column(t, origin, column, position.as_ref(), *if_not_exists)?,
            AlterOp::DropColumn { name, if_exists } => match find_column(t, origin, name) {
                Some(i) => {
                    let removed = t.columns.remove(i);
                    origin.remove(i);
                    remove_from_keys(t, &removed.name);
                }
                None if *if_exists => {}
                None => return Err(format!("no column `{name}` to drop")),
            },
            AlterOp::ChangeColumn {
                old,
                column,
                position,
                if_exists,
            } => change_column(t, origin, old, column, position.as_ref(), *if_exists)?,
            AlterOp::RenameColumn { old, new } => {
                let Some(i) = find_column(t, origin, old) else {
                    return Err(format!("no column `{old}` to rename"));
                };
                let old_name = std::mem::replace(&mut t.columns[i].name, new.clone());
                rename_in_keys(t, &old_name, new);
            }
            AlterOp::SetDefault { column, default } => {
                let Some(i) = find_column(t, origin, column) else {
                    return Err(format!("no column `{column}`"));
                };
                t.columns[i].default = default.clone();
            }
            AlterOp::SetVisibility { column, invisible } => {
                let Some(i) = find_column(t, origin, column) else {
                    return Err(format!("no column `{column}`"));
                };
                t.columns[i].invisible = *invisible;
            }
            AlterOp::AddKey { key, if_not_exists } => {
                let exists = match key.kind {
                    KeyType::Primary => !t.primary_key.is_empty(),
                    _ => key.name.as_ref().is_some_and(|n| {
                        t.unique_keys.iter().any(|k| k.name.eq_ignore_ascii_case(n))
                    }),
                };
                if !(exists && *if_not_exists) {
                    add_key(t, key)?;
                }
            }
            AlterOp::DropPrimaryKey => t.primary_key.clear(),
            AlterOp::DropKey { name } => {
                if name.eq_ignore_ascii_case("PRIMARY") {
                    t.primary_key.clear();
                } else {
                    t.unique_keys.retain(|k| !k.name.eq_ignore_ascii_case(name));
                }
            }
            AlterOp::RenameKey { old, new } => {
                for k in t.unique_keys.iter_mut() {
                    if k.name.eq_ignore_ascii_case(old) {
                        k.name = new.clone();
                    }
                }
            }
            AlterOp::RenameTable(to) => {
                if let Some(db) = &to.db {
                    t.db = db.clone();
                }
                t.name = to.name.clone();
            }
            AlterOp::Options(o) => {
                if let (Some(cs), Some(c)) =
                    resolve_charset(o.charset.as_deref(), o.collation.as_deref(), None)
                {
                    t.default_charset = Some(cs);
                    t.default_collation = Some(c);
                }
                if o.with_system_versioning && !t.system_versioned {
                    add_system_versioning(t);
                }
            }
            AlterOp::ConvertCharset { charset, collation } => {
                convert_charset(t, charset, collation.as_deref())?
            }
            AlterOp::AddSystemVersioning => {
                if !t.system_versioned {
                    add_system_versioning(t);
                }
            }
            AlterOp::DropSystemVersioning => drop_system_versioning(t, origin),
            AlterOp::PartitionToTable(to) => {
                let mut n = t.clone();
                n.db = to.db.clone().unwrap_or_else(|| t.db.clone());
                n.name = to.name.clone();
                extra.push(Delta::PutTable { table: n });
            }
            AlterOp::TableToPartition(from) => {
                extra.push(Delta::RemoveTable {
                    db: from.db.clone().unwrap_or_else(|| ctx.current_db.clone()),
                    name: from.name.clone(),
                });
            }
        }
        Ok(())
    }
}

/// The database a table name in a statement means: its own, or the current
/// one.
fn table_db(ctx: &ApplyContext, t: &TableName) -> String {
    t.db.clone().unwrap_or_else(|| ctx.current_db.clone())
}

/// The error for a statement that contradicts the tracked schema.
fn inconsistent_at(position: &BinlogPosition, table: String, message: String) -> SchemaError {
    SchemaError::Inconsistent {
        position: position.to_string(),
        table,
        message,
    }
}

/// A statement shortened for error messages, credentials redacted.
pub fn snippet(sql: &str) -> String {
    let one_line: String = crate::redact::redact(sql)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if one_line.chars().count() > 200 {
        let cut: String = one_line.chars().take(200).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

/// Names of tables in a catalog, for reports.
pub fn table_names(c: &Catalog) -> BTreeSet<String> {
    c.tables().map(|t| t.qualified_name()).collect()
}
