//! The catalog: every tracked database and table at one point of the binlog,
//! and the rules that turn a parsed DDL statement into changes of it
//! (character set resolution, key maintenance, column positions). Changes
//! are computed as [`Delta`]s first and then applied, so the history can
//! replay them exactly. It never parses SQL itself (see [`crate::parse`])
//! and never talks to a server.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::collation::{
    charset_of_collation, default_collation, max_bytes_per_char, normalize_charset,
    normalize_collation,
};
use crate::ddl::*;
use crate::error::{Result, SchemaError};
use crate::lexer::LexOptions;
use crate::model::*;
use crate::parse::{parse_ddl, ParsedBy};
use crate::position::BinlogPosition;

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

/// When nothing says which character set a column gets.
pub const FALLBACK_CHARSET: &str = "utf8mb4";

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
        let db_of = |t: &TableName| t.db.clone().unwrap_or_else(|| ctx.current_db.clone());
        let inconsistent = |table: String, message: String| SchemaError::Inconsistent {
            position: position.to_string(),
            table,
            message,
        };
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
                if *temporary {
                    notes.push(format!("temporary table {table} is not tracked"));
                    return Ok(vec![]);
                }
                let db = db_of(table);
                if *if_not_exists && self.table(&db, &table.name).is_some() {
                    return Ok(vec![]);
                }
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
                if *temporary {
                    notes.push(format!("temporary table {table} is not tracked"));
                    return Ok(vec![]);
                }
                let db = db_of(table);
                if *if_not_exists && self.table(&db, &table.name).is_some() {
                    return Ok(vec![]);
                }
                let ldb = db_of(like);
                match self.table(&ldb, &like.name) {
                    Some(src) => {
                        let mut t = src.clone();
                        t.db = db;
                        t.name = table.name.clone();
                        vec![Delta::PutTable { table: t }]
                    }
                    None => {
                        return Err(inconsistent(
                            format!("{db}.{}", table.name),
                            format!("LIKE names {ldb}.{}, which is not tracked", like.name),
                        ))
                    }
                }
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
                out
            }
            DdlStatement::RenameTables(pairs) => {
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
            } => {
                if *if_not_exists && self.database(name).is_some() {
                    return Ok(vec![]);
                }
                let (cs, coll) = resolve_charset(
                    charset.as_deref(),
                    collation.as_deref(),
                    ctx.server_collation.as_deref(),
                );
                let mut out = Vec::new();
                if *or_replace {
                    out.push(Delta::RemoveDatabase { name: name.clone() });
                }
                out.push(Delta::PutDatabase {
                    database: DatabaseSchema {
                        name: name.clone(),
                        default_charset: cs,
                        default_collation: coll,
                    },
                });
                out
            }
            DdlStatement::AlterDatabase {
                name,
                charset,
                collation,
            } => {
                let name = name.clone().unwrap_or_else(|| ctx.current_db.clone());
                let (cs, coll) = resolve_charset(charset.as_deref(), collation.as_deref(), None);
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
            DdlStatement::DropDatabase { name, .. } => {
                vec![Delta::RemoveDatabase { name: name.clone() }]
            }
        })
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
        let find = |t: &TableSchema, origin: &[Option<String>], name: &str| -> Option<usize> {
            origin
                .iter()
                .position(|o| o.as_deref().is_some_and(|o| o.eq_ignore_ascii_case(name)))
                .or_else(|| t.column_index(name))
        };
        match op {
            AlterOp::AddColumn {
                column,
                position,
                if_not_exists,
            } => {
                if t.column_index(&column.name).is_some() {
                    if *if_not_exists {
                        return Ok(());
                    }
                    return Err(format!("column `{}` exists already", column.name));
                }
                let col = resolve_column(t, column);
                let at = insert_index(t, position.as_ref(), append_index(t))?;
                t.columns.insert(at, col);
                origin.insert(at, None);
                column_keys(t, column);
            }
            AlterOp::DropColumn { name, if_exists } => match find(t, origin, name) {
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
            } => {
                let Some(i) = find(t, origin, old) else {
                    if *if_exists {
                        return Ok(());
                    }
                    return Err(format!("no column `{old}` to change"));
                };
                let old_name = t.columns[i].name.clone();
                let mut col = resolve_column(t, column);
                if t.primary_key
                    .iter()
                    .any(|k| k.eq_ignore_ascii_case(&old_name))
                {
                    col.nullable = false;
                }
                t.columns.remove(i);
                let o = origin.remove(i);
                rename_in_keys(t, &old_name, &col.name);
                let at = insert_index(t, position.as_ref(), i)?;
                t.columns.insert(at, col);
                origin.insert(at, o);
                column_keys(t, column);
            }
            AlterOp::RenameColumn { old, new } => {
                let Some(i) = find(t, origin, old) else {
                    return Err(format!("no column `{old}` to rename"));
                };
                let old_name = std::mem::replace(&mut t.columns[i].name, new.clone());
                rename_in_keys(t, &old_name, new);
            }
            AlterOp::SetDefault { column, default } => {
                let Some(i) = find(t, origin, column) else {
                    return Err(format!("no column `{column}`"));
                };
                t.columns[i].default = default.clone();
            }
            AlterOp::SetVisibility { column, invisible } => {
                let Some(i) = find(t, origin, column) else {
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
                let (Some(cs), Some(coll)) =
                    resolve_charset(Some(charset), collation.as_deref(), None)
                else {
                    return Err(format!("unknown character set `{charset}`"));
                };
                for c in t.columns.iter_mut() {
                    let text = c.charset.as_deref().is_some_and(|x| x != "binary");
                    if text && c.sql_type != "json" {
                        resize_text(c, &cs);
                        c.charset = Some(cs.clone());
                        c.collation = Some(coll.clone());
                        if cs == "binary" {
                            to_binary_type(c);
                        }
                    }
                }
                t.default_charset = Some(cs);
                t.default_collation = Some(coll);
            }
            AlterOp::AddSystemVersioning => {
                if !t.system_versioned {
                    add_system_versioning(t);
                }
            }
            AlterOp::DropSystemVersioning => {
                t.system_versioned = false;
                let gone: Vec<String> = t
                    .columns
                    .iter()
                    .filter(|c| {
                        matches!(c.generated, Some(Generated::RowStart | Generated::RowEnd))
                    })
                    .map(|c| c.name.clone())
                    .collect();
                let keep: Vec<bool> = t.columns.iter().map(|c| !gone.contains(&c.name)).collect();
                let mut k = keep.iter();
                origin.retain(|_| k.next().copied().unwrap_or(true));
                t.columns.retain(|c| !gone.contains(&c.name));
                for g in gone {
                    remove_from_keys(t, &g);
                }
            }
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

/// Resolves a (charset, collation) pair as written into both names, or
/// `(None, None)` when neither is given and no fallback collation applies.
fn resolve_charset(
    charset: Option<&str>,
    collation: Option<&str>,
    fallback_collation: Option<&str>,
) -> (Option<String>, Option<String>) {
    let is_default = |s: &str| s.eq_ignore_ascii_case("default");
    let charset = charset.filter(|s| !is_default(s));
    let collation = collation.filter(|s| !is_default(s));
    match (charset, collation) {
        (Some(cs), Some(c)) => (Some(normalize_charset(cs)), Some(normalize_collation(c))),
        (Some(cs), None) => {
            let cs = normalize_charset(cs);
            let c = default_collation(&cs)
                .map(str::to_string)
                .unwrap_or_else(|| format!("{cs}_general_ci"));
            (Some(cs), Some(c))
        }
        (None, Some(c)) => (Some(charset_of_collation(c)), Some(normalize_collation(c))),
        (None, None) => match fallback_collation {
            Some(c) => (Some(charset_of_collation(c)), Some(normalize_collation(c))),
            None => (None, None),
        },
    }
}

/// Turns a column definition into a column of table `t` (whose defaults
/// apply when the definition names no character set).
fn resolve_column(t: &TableSchema, c: &ColumnDefinition) -> ColumnSchema {
    let ty = &c.ty;
    let mut col = ColumnSchema {
        name: c.name.clone(),
        data_type: ty.data_type.clone(),
        sql_type: ty.sql_type.clone(),
        unsigned: ty.unsigned,
        zerofill: ty.zerofill,
        charset: None,
        collation: None,
        labels: ty.labels.clone(),
        // AUTO_INCREMENT implies NOT NULL unless NULL is written; system
        // period columns are always NOT NULL.
        nullable: c.nullable.unwrap_or(!c.auto_increment)
            && !c.primary_key
            && !matches!(c.generated, Some(Generated::RowStart | Generated::RowEnd)),
        default: c.default.clone(),
        generated: c.generated.clone(),
        invisible: c.invisible,
        auto_increment: c.auto_increment,
        hidden: false,
    };
    if ty.is_binary_string() {
        col.charset = Some("binary".into());
        col.collation = Some("binary".into());
    } else if ty.sql_type == "json" {
        col.charset = Some("utf8mb4".into());
        col.collation = Some("utf8mb4_bin".into());
    } else if ty.is_text() {
        let (cs, coll) = match resolve_charset(c.charset.as_deref(), c.collation.as_deref(), None) {
            (Some(cs), Some(coll)) if c.collation.is_some() || !ty.binary_collation => (cs, coll),
            (Some(cs), _) => {
                let coll = binary_collation_of(&cs);
                (cs, coll)
            }
            _ => {
                let cs = t
                    .default_charset
                    .clone()
                    .unwrap_or_else(|| FALLBACK_CHARSET.to_string());
                let coll = if ty.binary_collation {
                    binary_collation_of(&cs)
                } else {
                    t.default_collation
                        .clone()
                        .or_else(|| default_collation(&cs).map(str::to_string))
                        .unwrap_or_else(|| format!("{cs}_general_ci"))
                };
                (cs, coll)
            }
        };
        if let Some(n) = ty.text_length {
            let bytes = n.saturating_mul(max_bytes_per_char(&cs) as u64);
            let class = crate::parser::size_class("text", bytes);
            col.sql_type = class.clone();
            col.data_type = class;
        }
        col.charset = Some(cs);
        col.collation = Some(coll);
        if col.charset.as_deref() == Some("binary") {
            to_binary_type(&mut col);
        }
    }
    col
}

/// CONVERT TO CHARACTER SET keeps a TEXT column's length in characters,
/// moving it to a larger TEXT type when the new charset needs more bytes.
fn resize_text(c: &mut ColumnSchema, new_charset: &str) {
    let max_bytes: u64 = match c.sql_type.as_str() {
        "tinytext" => 255,
        "text" => 65_535,
        "mediumtext" => 16_777_215,
        _ => return,
    };
    let old = c.charset.as_deref().map(max_bytes_per_char).unwrap_or(1) as u64;
    let chars = max_bytes / old.max(1);
    let bytes = chars.saturating_mul(max_bytes_per_char(new_charset) as u64);
    let class = crate::parser::size_class("text", bytes);
    c.sql_type = class.clone();
    c.data_type = class;
}

fn binary_collation_of(cs: &str) -> String {
    if cs == "binary" {
        "binary".into()
    } else {
        format!("{cs}_bin")
    }
}

/// CHAR/VARCHAR/TEXT with character set `binary` are BINARY/VARBINARY/BLOB.
fn to_binary_type(c: &mut ColumnSchema) {
    let new = match c.sql_type.as_str() {
        "char" => "binary",
        "varchar" => "varbinary",
        "tinytext" => "tinyblob",
        "text" => "blob",
        "mediumtext" => "mediumblob",
        "longtext" => "longblob",
        _ => return,
    };
    c.data_type = c.data_type.replacen(c.sql_type.as_str(), new, 1);
    c.sql_type = new.to_string();
}

/// Keys a column definition declares inline.
fn column_keys(t: &mut TableSchema, c: &ColumnDefinition) {
    if c.primary_key {
        t.primary_key = vec![c.name.clone()];
    }
    if c.unique {
        let name = unique_name(t, &c.name);
        t.unique_keys.push(KeySchema {
            name,
            kind: KeyKind::Unique,
            columns: vec![c.name.clone()],
        });
    }
}

fn unique_name(t: &TableSchema, base: &str) -> String {
    let taken = |n: &str| t.unique_keys.iter().any(|k| k.name.eq_ignore_ascii_case(n));
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|i| format!("{base}_{i}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| base.to_string())
}

fn add_key(t: &mut TableSchema, k: &KeyDefinition) -> std::result::Result<(), String> {
    let names: Vec<String> = k
        .columns
        .iter()
        .map(|c| {
            t.column(c)
                .map(|col| col.name.clone())
                .ok_or_else(|| format!("key names column `{c}`, which does not exist"))
        })
        .collect::<std::result::Result<_, _>>()?;
    match k.kind {
        KeyType::Primary => {
            for n in &names {
                if let Some(i) = t.column_index(n) {
                    t.columns[i].nullable = false;
                }
            }
            t.primary_key = names;
        }
        KeyType::Unique => {
            if names.is_empty() {
                return Ok(());
            }
            let name = match &k.name {
                Some(n) => n.clone(),
                None => unique_name(t, &names[0]),
            };
            t.unique_keys.push(KeySchema {
                name,
                kind: KeyKind::Unique,
                columns: names,
            });
        }
        KeyType::Other => {}
    }
    Ok(())
}

fn remove_from_keys(t: &mut TableSchema, column: &str) {
    t.primary_key.retain(|c| !c.eq_ignore_ascii_case(column));
    for k in t.unique_keys.iter_mut() {
        k.columns.retain(|c| !c.eq_ignore_ascii_case(column));
    }
    t.unique_keys.retain(|k| !k.columns.is_empty());
}

fn rename_in_keys(t: &mut TableSchema, old: &str, new: &str) {
    for c in t.primary_key.iter_mut() {
        if c.eq_ignore_ascii_case(old) {
            *c = new.to_string();
        }
    }
    for k in t.unique_keys.iter_mut() {
        for c in k.columns.iter_mut() {
            if c.eq_ignore_ascii_case(old) {
                *c = new.to_string();
            }
        }
    }
}

/// Where a column added without FIRST/AFTER goes: at the end, but before
/// MariaDB's implicit (invisible) system-versioning columns, which stay last.
fn append_index(t: &TableSchema) -> usize {
    let trailing = t.columns.iter().rev().take_while(|c| c.hidden).count();
    t.columns.len() - trailing
}

fn insert_index(
    t: &TableSchema,
    position: Option<&ColumnPosition>,
    default: usize,
) -> std::result::Result<usize, String> {
    Ok(match position {
        None => default.min(t.columns.len()),
        Some(ColumnPosition::First) => 0,
        Some(ColumnPosition::After(c)) => {
            t.column_index(c)
                .ok_or_else(|| format!("AFTER names column `{c}`, which does not exist"))?
                + 1
        }
    })
}

/// MariaDB's implicit system-versioning columns, appended invisible.
fn add_system_versioning(t: &mut TableSchema) {
    t.system_versioned = true;
    let has_start = t
        .columns
        .iter()
        .any(|c| c.generated == Some(Generated::RowStart));
    if has_start {
        return;
    }
    for (name, g) in [
        ("row_start", Generated::RowStart),
        ("row_end", Generated::RowEnd),
    ] {
        t.columns.push(ColumnSchema {
            name: name.into(),
            data_type: "timestamp(6)".into(),
            sql_type: "timestamp".into(),
            unsigned: false,
            zerofill: false,
            charset: None,
            collation: None,
            labels: vec![],
            nullable: false,
            default: None,
            generated: Some(g),
            invisible: true,
            auto_increment: false,
            hidden: true,
        });
    }
}

/// The table behind a MariaDB SEQUENCE.
fn sequence_table(db: &str, name: &str) -> TableSchema {
    let mut t = TableSchema::new(db, name);
    for (n, ty, unsigned) in [
        ("next_not_cached_value", "bigint", false),
        ("minimum_value", "bigint", false),
        ("maximum_value", "bigint", false),
        ("start_value", "bigint", false),
        ("increment", "bigint", false),
        ("cache_size", "bigint", true),
        ("cycle_option", "tinyint", true),
        ("cycle_count", "bigint", false),
    ] {
        t.columns.push(ColumnSchema {
            name: n.into(),
            data_type: if unsigned {
                format!("{ty} unsigned")
            } else {
                ty.to_string()
            },
            sql_type: ty.into(),
            unsigned,
            zerofill: false,
            charset: None,
            collation: None,
            labels: vec![],
            nullable: false,
            default: None,
            generated: None,
            invisible: false,
            auto_increment: false,
            hidden: false,
        });
    }
    t
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
