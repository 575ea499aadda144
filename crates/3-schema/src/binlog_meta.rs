//! Where the tracked schema meets the binlog: checking a TABLE_MAP against a
//! tracked table, rebuilding a table from a TABLE_MAP's FULL metadata, and
//! merging the two into a `TableMap` whose `ColumnDef`s carry names,
//! signedness, collations, ENUM/SET labels and the primary key. It never
//! aligns columns by guessing: a count or type mismatch is reported.

use sluice_binlog::{ColumnDef, ColumnType, TableMap};

use crate::collation::{charset_of_collation, collation_id, collation_name, max_bytes_per_char};
use crate::model::{ColumnSchema, TableSchema};

/// Whether a TABLE_MAP carries column names for every column (FULL metadata).
pub fn has_names(tm: &TableMap) -> bool {
    !tm.columns.is_empty() && tm.columns.iter().all(|c| c.name.is_some())
}

/// Differences between a tracked table and a TABLE_MAP. Structural checks
/// (column count, storage type, exact sizes the binlog always carries)
/// apply to every TABLE_MAP; names, signedness, labels and character
/// lengths only where the binlog carries them.
pub fn mismatches(schema: &TableSchema, tm: &TableMap) -> Vec<String> {
    let mut out = Vec::new();
    if schema.columns.len() != tm.columns.len() {
        out.push(format!(
            "{} columns tracked ({}), {} in the binlog",
            schema.columns.len(),
            schema.column_names().join(", "),
            tm.columns.len()
        ));
        return out;
    }
    for (i, (s, b)) in schema.columns.iter().zip(&tm.columns).enumerate() {
        if let Some(n) = &b.name {
            if !n.eq_ignore_ascii_case(&s.name) {
                out.push(format!(
                    "column {i} is `{n}` in the binlog, `{}` tracked",
                    s.name
                ));
                continue;
            }
        }
        if let Err(why) = type_matches(s, b) {
            out.push(format!("column `{}`: {why}", s.name));
            continue;
        }
        if let Some(u) = b.unsigned {
            if u != s.unsigned && is_signed_type(&s.sql_type) {
                out.push(format!(
                    "column `{}` is {} in the binlog, tracked {}",
                    s.name,
                    if u { "unsigned" } else { "signed" },
                    if s.unsigned { "unsigned" } else { "signed" }
                ));
            }
        }
        if let Some(labels) = &b.labels {
            let tracked: Vec<&[u8]> = s.labels.iter().map(|l| l.as_bytes()).collect();
            let theirs: Vec<&[u8]> = labels.iter().map(|l| l.as_slice()).collect();
            if tracked != theirs && (b.collation.is_none() || is_utf8_collation(b.collation)) {
                out.push(format!(
                    "column `{}` has other ENUM/SET labels in the binlog",
                    s.name
                ));
            }
        }
    }
    out
}

fn is_utf8_collation(c: Option<u32>) -> bool {
    matches!(
        c.map(sluice_binlog::Charset::of_collation),
        Some(sluice_binlog::Charset::Utf8)
    )
}

fn is_signed_type(t: &str) -> bool {
    matches!(
        t,
        "tinyint" | "smallint" | "mediumint" | "int" | "bigint" | "decimal" | "float" | "double"
    )
}

/// The number in `name(n)` / `name(p,s)` of a data type.
fn type_params(data_type: &str) -> Vec<u64> {
    let Some(open) = data_type.find('(') else {
        return vec![];
    };
    let Some(close) = data_type[open..].find(')') else {
        return vec![];
    };
    data_type[open + 1..open + close]
        .split(',')
        .filter_map(|p| p.trim().parse().ok())
        .collect()
}

/// Whether a tracked column can be stored as the binlog's column type.
fn type_matches(s: &ColumnSchema, b: &ColumnDef) -> Result<(), String> {
    let t = b.column_type;
    let p = type_params(&s.data_type);
    let ok = match s.sql_type.as_str() {
        "tinyint" => t == ColumnType::Tiny,
        "smallint" => t == ColumnType::Short,
        "mediumint" => t == ColumnType::Int24,
        "int" => t == ColumnType::Long,
        "bigint" => t == ColumnType::LongLong,
        "float" => t == ColumnType::Float,
        "double" => t == ColumnType::Double,
        "decimal" => match t {
            ColumnType::NewDecimal { precision, scale } => {
                p.first().is_none_or(|&x| x == precision as u64)
                    && p.get(1).is_none_or(|&x| x == scale as u64)
            }
            _ => false,
        },
        "year" => t == ColumnType::Year,
        "date" => t == ColumnType::Date,
        "time" | "datetime" | "timestamp" => {
            let fsp = p.first().copied().unwrap_or(0);
            match (s.sql_type.as_str(), t) {
                ("time", ColumnType::Time) => fsp == 0,
                ("time", ColumnType::Time2 { fsp: f }) => f as u64 == fsp,
                ("datetime", ColumnType::DateTime) => fsp == 0,
                ("datetime", ColumnType::DateTime2 { fsp: f }) => f as u64 == fsp,
                ("timestamp", ColumnType::Timestamp) => fsp == 0,
                ("timestamp", ColumnType::Timestamp2 { fsp: f }) => f as u64 == fsp,
                _ => false,
            }
        }
        "varchar" | "varbinary" => match t {
            ColumnType::VarChar { max_len } => b.name.is_none() || char_len_matches(s, &p, max_len),
            _ => false,
        },
        "char" | "binary" | "uuid" | "inet6" | "inet4" => match t {
            ColumnType::Char { max_len } => {
                b.name.is_none()
                    || !matches!(s.sql_type.as_str(), "char" | "binary")
                    || char_len_matches(s, &p, max_len)
            }
            _ => false,
        },
        "enum" => match t {
            ColumnType::Enum { pack_len } => {
                pack_len as usize == if s.labels.len() > 255 { 2 } else { 1 }
            }
            _ => false,
        },
        "set" => match t {
            ColumnType::Set { pack_len } => {
                let bytes = s.labels.len().div_ceil(8);
                pack_len as usize == if bytes > 4 { 8 } else { bytes.max(1) }
            }
            _ => false,
        },
        "bit" => match t {
            ColumnType::Bit { bits } => p.first().is_none_or(|&n| n == bits as u64),
            _ => false,
        },
        "tinytext" | "tinyblob" => t == ColumnType::Blob { len_bytes: 1 },
        "text" | "blob" => t == ColumnType::Blob { len_bytes: 2 },
        "mediumtext" | "mediumblob" => t == ColumnType::Blob { len_bytes: 3 },
        "longtext" | "longblob" => t == ColumnType::Blob { len_bytes: 4 },
        "json" => matches!(
            t,
            ColumnType::Json { .. } | ColumnType::Blob { len_bytes: 4 }
        ),
        "geometry" | "point" | "linestring" | "polygon" | "multipoint" | "multilinestring"
        | "multipolygon" | "geometrycollection" => matches!(t, ColumnType::Geometry { .. }),
        "vector" => matches!(t, ColumnType::Vector { .. }),
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "tracked as {}, binlog type is {:?}",
            s.data_type, t
        ))
    }
}

/// Whether a CHAR/VARCHAR length in characters fits the binlog's byte length.
fn char_len_matches(s: &ColumnSchema, p: &[u64], max_len: u16) -> bool {
    let Some(&n) = p.first() else { return true };
    let width = s.charset.as_deref().map(max_bytes_per_char).unwrap_or(1) as u64;
    n * width == max_len as u64
}

/// Builds a table from a TABLE_MAP with FULL metadata (names required);
/// attributes the binlog does not carry (defaults, generated expressions,
/// unique keys) are kept from `previous` for columns of the same name.
pub fn schema_from_binlog(tm: &TableMap, previous: Option<&TableSchema>) -> Option<TableSchema> {
    if !has_names(tm) {
        return None;
    }
    let mut t = TableSchema::new(tm.schema.clone(), tm.table.clone());
    if let Some(p) = previous {
        t.default_charset = p.default_charset.clone();
        t.default_collation = p.default_collation.clone();
        t.system_versioned = p.system_versioned;
    }
    for c in &tm.columns {
        let name = c.name.clone().unwrap_or_default();
        let prev = previous.and_then(|p| p.column(&name));
        let collation = c.collation.and_then(collation_name).map(str::to_string);
        let charset = collation.as_deref().map(charset_of_collation);
        let binary = c.collation == Some(63);
        let unsigned = c.unsigned.unwrap_or(false);
        let (sql_type, mut data_type) = binlog_type(c, charset.as_deref(), binary);
        if unsigned && is_signed_type(&sql_type) {
            data_type.push_str(" unsigned");
        }
        let labels: Vec<String> = c
            .labels
            .iter()
            .flatten()
            .map(|l| String::from_utf8_lossy(l).into_owned())
            .collect();
        if !labels.is_empty() {
            let quoted: Vec<String> = labels
                .iter()
                .map(|l| format!("'{}'", l.replace('\'', "''")))
                .collect();
            data_type = format!("{sql_type}({})", quoted.join(","));
        }
        let is_text = c.column_type.is_character() || c.column_type.is_enum_or_set();
        t.columns.push(ColumnSchema {
            name,
            data_type,
            sql_type,
            unsigned,
            zerofill: prev.is_some_and(|p| p.zerofill),
            charset: if is_text { charset } else { None },
            collation: if is_text { collation } else { None },
            labels,
            nullable: c.nullable,
            default: prev.and_then(|p| p.default.clone()),
            generated: prev.and_then(|p| p.generated.clone()),
            invisible: c
                .visible
                .map(|v| !v)
                .unwrap_or(prev.is_some_and(|p| p.invisible)),
            auto_increment: prev.is_some_and(|p| p.auto_increment),
            hidden: prev.is_some_and(|p| p.hidden),
        });
    }
    t.primary_key = tm
        .columns
        .iter()
        .filter(|c| c.is_primary_key())
        .filter_map(|c| c.name.clone())
        .collect();
    if let Some(p) = previous {
        t.unique_keys = p
            .unique_keys
            .iter()
            .filter(|k| k.columns.iter().all(|c| t.column(c).is_some()))
            .cloned()
            .collect();
    }
    Some(t)
}

/// The SQL type of a binlog column.
fn binlog_type(c: &ColumnDef, charset: Option<&str>, binary: bool) -> (String, String) {
    let width = charset.map(max_bytes_per_char).unwrap_or(1) as u64;
    let chars = |bytes: u16| bytes as u64 / width.max(1);
    match c.column_type {
        ColumnType::VarChar { max_len } => {
            let base = if binary { "varbinary" } else { "varchar" };
            (base.into(), format!("{base}({})", chars(max_len)))
        }
        ColumnType::Char { max_len } => {
            let base = if binary { "binary" } else { "char" };
            (base.into(), format!("{base}({})", chars(max_len)))
        }
        ColumnType::Blob { len_bytes } => {
            let prefix = match len_bytes {
                1 => "tiny",
                2 => "",
                3 => "medium",
                _ => "long",
            };
            let kind = if binary || c.collation.is_none() {
                "blob"
            } else {
                "text"
            };
            let t = format!("{prefix}{kind}");
            (t.clone(), t)
        }
        ColumnType::NewDecimal { precision, scale } => {
            ("decimal".into(), format!("decimal({precision},{scale})"))
        }
        ColumnType::Time2 { fsp } if fsp > 0 => ("time".into(), format!("time({fsp})")),
        ColumnType::DateTime2 { fsp } if fsp > 0 => ("datetime".into(), format!("datetime({fsp})")),
        ColumnType::Timestamp2 { fsp } if fsp > 0 => {
            ("timestamp".into(), format!("timestamp({fsp})"))
        }
        ColumnType::Bit { bits } => ("bit".into(), format!("bit({bits})")),
        other => (other.sql_name().to_string(), other.sql_name().to_string()),
    }
}

/// The TABLE_MAP with each column described by the tracked schema: names,
/// signedness, collation, labels and primary key filled in where the binlog
/// left them out. Call only after [`mismatches`] found none (the column
/// counts must be equal; extra binlog columns are left as they are).
pub fn enrich(tm: &TableMap, schema: &TableSchema) -> TableMap {
    let mut out = tm.clone();
    // With FULL metadata the binlog names the key itself.
    let binlog_has_key = tm.columns.iter().any(|c| c.primary_key_prefix.is_some());
    let key = if binlog_has_key {
        vec![]
    } else {
        schema.row_key()
    };
    for (c, s) in out.columns.iter_mut().zip(&schema.columns) {
        if c.name.is_none() {
            c.name = Some(s.name.clone());
        }
        if c.unsigned.is_none() && c.column_type.is_numeric() {
            c.unsigned = Some(s.unsigned);
        }
        if c.collation.is_none() && (c.column_type.is_character() || c.column_type.is_enum_or_set())
        {
            c.collation = s.collation.as_deref().and_then(collation_id);
        }
        if c.labels.is_none() && c.column_type.is_enum_or_set() {
            c.labels = Some(s.labels.iter().map(|l| l.as_bytes().to_vec()).collect());
        }
        if c.visible.is_none() {
            c.visible = Some(!s.invisible);
        }
        if c.primary_key_prefix.is_none() && key.iter().any(|k| k.eq_ignore_ascii_case(&s.name)) {
            c.primary_key_prefix = Some(0);
        }
    }
    out
}
