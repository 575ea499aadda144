//! Edits of one table's schema: columns added, changed and dropped at
//! their positions, keys kept in step with them, character set conversion,
//! MariaDB's system versioning, and the table behind a SEQUENCE.

use super::charsets::{resize_text, resolve_charset, resolve_column, to_binary_type};
use crate::ddl::*;
use crate::model::*;

/// The column an ALTER operation names: by its name before the statement
/// (`origin`), else by its current name.
pub(super) fn find_column(t: &TableSchema, origin: &[Option<String>], name: &str) -> Option<usize> {
    origin
        .iter()
        .position(|o| o.as_deref().is_some_and(|o| o.eq_ignore_ascii_case(name)))
        .or_else(|| t.column_index(name))
}

/// ADD COLUMN: the column resolved and inserted at its position, with its
/// keys; nothing under IF NOT EXISTS when it exists.
pub(super) fn add_column(
    t: &mut TableSchema,
    origin: &mut Vec<Option<String>>,
    column: &ColumnDefinition,
    position: Option<&ColumnPosition>,
    if_not_exists: bool,
) -> std::result::Result<(), String> {
    if t.column_index(&column.name).is_some() {
        if if_not_exists {
            return Ok(());
        }
        return Err(format!("column `{}` exists already", column.name));
    }
    let col = resolve_column(t, column);
    let at = insert_index(t, position, append_index(t))?;
    t.columns.insert(at, col);
    origin.insert(at, None);
    column_keys(t, column);
    Ok(())
}

/// CHANGE / MODIFY COLUMN: the column replaced by its new definition (NOT
/// NULL while in the primary key), renamed in keys and moved to its
/// position; nothing under IF EXISTS when it is missing.
pub(super) fn change_column(
    t: &mut TableSchema,
    origin: &mut Vec<Option<String>>,
    old: &str,
    column: &ColumnDefinition,
    position: Option<&ColumnPosition>,
    if_exists: bool,
) -> std::result::Result<(), String> {
    let Some(i) = find_column(t, origin, old) else {
        if if_exists {
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
    let at = insert_index(t, position, i)?;
    t.columns.insert(at, col);
    origin.insert(at, o);
    column_keys(t, column);
    Ok(())
}

/// CONVERT TO CHARACTER SET: every text column (JSON aside) and the table
/// default move to the new character set and collation.
pub(super) fn convert_charset(
    t: &mut TableSchema,
    charset: &str,
    collation: Option<&str>,
) -> std::result::Result<(), String> {
    let (Some(cs), Some(coll)) = resolve_charset(Some(charset), collation, None) else {
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
    Ok(())
}

/// DROP SYSTEM VERSIONING: the row start/end columns removed, from keys too.
pub(super) fn drop_system_versioning(t: &mut TableSchema, origin: &mut Vec<Option<String>>) {
    t.system_versioned = false;
    let gone: Vec<String> = t
        .columns
        .iter()
        .filter(|c| matches!(c.generated, Some(Generated::RowStart | Generated::RowEnd)))
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

/// Keys a column definition declares inline.
pub(super) fn column_keys(t: &mut TableSchema, c: &ColumnDefinition) {
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

pub(super) fn add_key(t: &mut TableSchema, k: &KeyDefinition) -> std::result::Result<(), String> {
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

pub(super) fn remove_from_keys(t: &mut TableSchema, column: &str) {
    t.primary_key.retain(|c| !c.eq_ignore_ascii_case(column));
    for k in t.unique_keys.iter_mut() {
        k.columns.retain(|c| !c.eq_ignore_ascii_case(column));
    }
    t.unique_keys.retain(|k| !k.columns.is_empty());
}

pub(super) fn rename_in_keys(t: &mut TableSchema, old: &str, new: &str) {
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
pub(super) fn add_system_versioning(t: &mut TableSchema) {
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
pub(super) fn sequence_table(db: &str, name: &str) -> TableSchema {
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
