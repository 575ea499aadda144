//! A Canal column value turned into what the target column takes.
//!
//! Canal renders values for its clients, not for a database: ENUM as its
//! index, SET as its bit mask, BIT as a number and binary data as
//! ISO-8859-1 text (one char per byte). These are turned back into labels
//! and bytes here; everything else is sent as the text Canal gives and cast
//! by the target to the column's type (see [`crate::sql`]), so DECIMAL stays
//! exact and DATETIME keeps its fractions.

use crate::config::TargetKind;

/// One parameter of a statement.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Param {
    Null,
    Text(String),
    Bytes(Vec<u8>),
}

/// What a target column is, as far as conversion goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetClass {
    /// Integer, decimal, float or boolean: ENUM and SET stay numbers.
    Numeric,
    /// BIT: takes Canal's number.
    Bit,
    /// bytea, BLOB, BINARY.
    Binary,
    Other,
}

/// `java.sql.Types.BLOB`, Canal's sqlType of binary data (and of SET).
const SQL_BLOB: i32 = 2004;
/// `BINARY`, `VARBINARY`, `LONGVARBINARY`.
const SQL_BINARIES: [i32; 3] = [-2, -3, -4];

/// The target's value of a source column.
pub fn convert(
    value: Option<&str>,
    is_null: bool,
    mysql_type: &str,
    sql_type: i32,
    target: TargetClass,
    kind: TargetKind,
) -> Param {
    let Some(v) = value.filter(|_| !is_null) else {
        return Param::Null;
    };
    let lower = mysql_type.trim_start().to_ascii_lowercase();
    if target != TargetClass::Numeric {
        if lower.starts_with("enum(") {
            return Param::Text(enum_label(mysql_type, v));
        }
        if lower.starts_with("set(") {
            return Param::Text(set_labels(mysql_type, v));
        }
    }
    if sql_type == SQL_BLOB || SQL_BINARIES.contains(&sql_type) {
        if let Some(bytes) = latin1_bytes(v) {
            return Param::Bytes(bytes);
        }
    }
    if (lower.starts_with("date") || lower.starts_with("timestamp"))
        && zero_date_is_null(kind, v.as_bytes())
    {
        return Param::Null;
    }
    Param::Text(v.to_string())
}

/// Whether a date or time value `v` is NULL in a `kind` target: PostgreSQL
/// has no zero date, so '0000-00-00…' becomes NULL there (as MySQL's JDBC
/// driver's zeroDateTimeBehavior=convertToNull does).
pub(crate) fn zero_date_is_null(kind: TargetKind, v: &[u8]) -> bool {
    kind == TargetKind::Postgres && v.starts_with(b"0000-00-00")
}

/// Canal's ISO-8859-1 text back into the bytes it was made of; `None` when
/// a char is past U+00FF (the text was not made that way).
pub fn latin1_bytes(text: &str) -> Option<Vec<u8>> {
    text.chars()
        .map(|c| u8::try_from(u32::from(c)).ok())
        .collect()
}

/// The labels of `enum('a','b')` / `set('a','b')`, as declared.
fn labels(mysql_type: &str) -> Vec<String> {
    let Some(open) = mysql_type.find('(') else {
        return Vec::new();
    };
    let body = mysql_type[open + 1..].trim_end().trim_end_matches(')');
    let mut out = Vec::new();
    let mut chars = body.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\'' {
            continue;
        }
        let mut label = String::new();
        while let Some(c) = chars.next() {
            match c {
                // '' inside quotes is one quote.
                '\'' if chars.peek() == Some(&'\'') => {
                    chars.next();
                    label.push('\'');
                }
                '\'' => break,
                '\\' => {
                    if let Some(n) = chars.next() {
                        label.push(n);
                    }
                }
                c => label.push(c),
            }
        }
        out.push(label);
    }
    out
}

/// An ENUM index as its label (index 0, MySQL's invalid value, is '').
fn enum_label(mysql_type: &str, v: &str) -> String {
    match v.parse::<usize>() {
        Ok(0) => String::new(),
        Ok(i) => labels(mysql_type)
            .get(i - 1)
            .cloned()
            .unwrap_or_else(|| v.to_string()),
        Err(_) => v.to_string(),
    }
}

/// A SET bit mask as its labels joined by commas, in declaration order.
fn set_labels(mysql_type: &str, v: &str) -> String {
    let Ok(mask) = v.parse::<u64>() else {
        return v.to_string();
    };
    labels(mysql_type)
        .into_iter()
        .enumerate()
        .filter(|(i, _)| *i < 64 && mask & (1u64 << i) != 0)
        .map(|(_, l)| l)
        .collect::<Vec<_>>()
        .join(",")
}

#[cfg(test)]
mod tests {
    use super::*;

    const PG: TargetKind = TargetKind::Postgres;

    #[test]
    fn enum_and_set_become_labels_unless_the_target_is_numeric() {
        let t = "enum('a','it''s','c')";
        let text = |v| convert(Some(v), false, t, 4, TargetClass::Other, PG);
        assert_eq!(text("2"), Param::Text("it's".into()));
        assert_eq!(text("0"), Param::Text(String::new()));
        let n = convert(Some("2"), false, t, 4, TargetClass::Numeric, PG);
        assert_eq!(n, Param::Text("2".into()));
        let set = convert(
            Some("5"),
            false,
            "set('x','y','z')",
            2004,
            TargetClass::Other,
            PG,
        );
        assert_eq!(set, Param::Text("x,z".into()));
    }

    #[test]
    fn binary_values_are_their_bytes_again() {
        let v = "\u{0}\u{ff}A\u{80}";
        let p = convert(Some(v), false, "blob", 2004, TargetClass::Binary, PG);
        assert_eq!(p, Param::Bytes(vec![0, 0xff, b'A', 0x80]));
    }

    #[test]
    fn zero_dates_are_null_in_postgres_only() {
        let z = Some("0000-00-00 00:00:00");
        assert_eq!(
            convert(z, false, "datetime", 93, TargetClass::Other, PG),
            Param::Null
        );
        assert_eq!(
            convert(
                z,
                false,
                "datetime",
                93,
                TargetClass::Other,
                TargetKind::MySql
            ),
            Param::Text("0000-00-00 00:00:00".into())
        );
        assert_eq!(
            convert(None, true, "int", 4, TargetClass::Numeric, PG),
            Param::Null
        );
    }
}
