//! Character sets and collations of tables and columns: what a statement
//! writes resolved to both names, a column definition resolved against its
//! table's defaults, TEXT resized and text types made binary on a change of
//! character set.

use crate::collation::{
    charset_of_collation, default_collation, max_bytes_per_char, normalize_charset,
    normalize_collation,
};
use crate::ddl::*;
use crate::model::*;

/// When nothing says which character set a column gets.
pub const FALLBACK_CHARSET: &str = "utf8mb4";

/// Resolves a (charset, collation) pair as written into both names, or
/// `(None, None)` when neither is given and no fallback collation applies.
pub(super) fn resolve_charset(
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
pub(super) fn resolve_column(t: &TableSchema, c: &ColumnDefinition) -> ColumnSchema {
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
            let class = crate::fallback_parser::size_class("text", bytes);
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
pub(super) fn resize_text(c: &mut ColumnSchema, new_charset: &str) {
    let max_bytes: u64 = match c.sql_type.as_str() {
        "tinytext" => 255,
        "text" => 65_535,
        "mediumtext" => 16_777_215,
        _ => return,
    };
    let old = c.charset.as_deref().map(max_bytes_per_char).unwrap_or(1) as u64;
    let chars = max_bytes / old.max(1);
    let bytes = chars.saturating_mul(max_bytes_per_char(new_charset) as u64);
    let class = crate::fallback_parser::size_class("text", bytes);
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
pub(super) fn to_binary_type(c: &mut ColumnSchema) {
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
