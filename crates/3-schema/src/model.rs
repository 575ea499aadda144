//! The schema model: databases, tables, columns and keys as the tracker
//! knows them, in column order exactly as the server stores them (the order
//! of TABLE_MAP columns). Pure data with small helpers; it never parses SQL
//! and never talks to a server.

use serde::{Deserialize, Serialize};

/// How a generated column is generated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Generated {
    /// `AS (expr) VIRTUAL`: computed on read. Still a column of the row
    /// image (MariaDB and MySQL 5.7+ write it in TABLE_MAP and rows events).
    Virtual { expr: String },
    /// `AS (expr) STORED` / `PERSISTENT`.
    Stored { expr: String },
    /// `GENERATED ALWAYS AS ROW START` of a system-versioned table.
    RowStart,
    /// `GENERATED ALWAYS AS ROW END`.
    RowEnd,
}

/// One column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ColumnSchema {
    pub name: String,
    /// The full type, lower case, as written after normalisation of aliases:
    /// `int unsigned`, `varchar(64)`, `decimal(10,2)`, `enum('a','b')`.
    pub data_type: String,
    /// The base type name, as `information_schema.COLUMNS.DATA_TYPE`:
    /// `int`, `varchar`, `decimal`, `enum` (`json` for JSON on both servers).
    pub sql_type: String,
    pub unsigned: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub zerofill: bool,
    /// Character set of character, ENUM and SET columns (`binary` for the
    /// binary string types); `None` for other types.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub charset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub collation: Option<String>,
    /// ENUM or SET labels, in definition order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub labels: Vec<String>,
    pub nullable: bool,
    /// The DEFAULT clause as written (`'abc'`, `0`, `NULL`, `current_timestamp()`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub generated: Option<Generated>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub invisible: bool,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub auto_increment: bool,
    /// Hidden by the server itself (MariaDB's implicit `row_start` and
    /// `row_end` of `WITH SYSTEM VERSIONING`): absent from `SELECT *` and
    /// `information_schema`, present in every row image.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hidden: bool,
}

impl ColumnSchema {
    /// Whether values of this column are character data (so a collation applies).
    pub fn is_character(&self) -> bool {
        self.charset.is_some()
    }
}

/// What kind of key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyKind {
    Primary,
    Unique,
}

/// A PRIMARY or UNIQUE key (other indexes do not matter for row changes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct KeySchema {
    pub name: String,
    pub kind: KeyKind,
    pub columns: Vec<String>,
}

/// One table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TableSchema {
    pub db: String,
    pub name: String,
    pub columns: Vec<ColumnSchema>,
    /// Column names of the PRIMARY KEY, in key order; empty if there is none.
    pub primary_key: Vec<String>,
    /// UNIQUE keys (the PRIMARY KEY is in `primary_key`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unique_keys: Vec<KeySchema>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_charset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_collation: Option<String>,
    /// `WITH SYSTEM VERSIONING`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub system_versioned: bool,
}

impl TableSchema {
    pub fn new(db: impl Into<String>, name: impl Into<String>) -> Self {
        TableSchema {
            db: db.into(),
            name: name.into(),
            columns: Vec::new(),
            primary_key: Vec::new(),
            unique_keys: Vec::new(),
            default_charset: None,
            default_collation: None,
            system_versioned: false,
        }
    }

    /// Index of a column; column names are case-insensitive.
    pub fn column_index(&self, name: &str) -> Option<usize> {
        self.columns
            .iter()
            .position(|c| c.name.eq_ignore_ascii_case(name))
    }

    pub fn column(&self, name: &str) -> Option<&ColumnSchema> {
        self.column_index(name).map(|i| &self.columns[i])
    }

    pub fn column_names(&self) -> Vec<&str> {
        self.columns.iter().map(|c| c.name.as_str()).collect()
    }

    /// The key that identifies rows: the PRIMARY KEY, or else (as the server
    /// does) the first UNIQUE key whose columns are all NOT NULL.
    pub fn row_key(&self) -> Vec<String> {
        if !self.primary_key.is_empty() {
            return self.primary_key.clone();
        }
        self.unique_keys
            .iter()
            .find(|k| {
                k.columns
                    .iter()
                    .all(|c| self.column(c).is_some_and(|c| !c.nullable))
            })
            .map(|k| k.columns.clone())
            .unwrap_or_default()
    }

    /// `db.name`.
    pub fn qualified_name(&self) -> String {
        format!("{}.{}", self.db, self.name)
    }
}

/// A database (schema) and its defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DatabaseSchema {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_charset: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub default_collation: Option<String>,
}
