//! What a statement does to the schema, independent of how it was parsed:
//! the small language both parsers (sqlparser and the hand-written fallback)
//! produce and the catalog applies. It only describes; it never applies
//! changes and never parses.

use crate::model::Generated;

/// `[db.]name` as written; `db` is `None` when the statement relied on the
/// session's current database.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableName {
    pub db: Option<String>,
    pub name: String,
}

impl std::fmt::Display for TableName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.db {
            Some(db) => write!(f, "{db}.{}", self.name),
            None => f.write_str(&self.name),
        }
    }
}

/// A column type as written, with aliases resolved.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeSpec {
    /// Base name as `information_schema.COLUMNS.DATA_TYPE` reports it.
    pub sql_type: String,
    /// The full type text (without charset), e.g. `decimal(10,2) unsigned`.
    pub data_type: String,
    pub unsigned: bool,
    pub zerofill: bool,
    pub labels: Vec<String>,
    /// `ASCII` / `UNICODE` / `NATIONAL` imply a character set.
    pub implied_charset: Option<&'static str>,
    /// `SERIAL`: BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE.
    pub serial: bool,
    /// `BOOLEAN` etc. keep no extra meaning; `BINARY` after a character type
    /// asks for the charset's binary collation.
    pub binary_collation: bool,
    /// `TEXT(n)`: the length in characters, which picks the TEXT size class
    /// once the character set (and so bytes per character) is known.
    pub text_length: Option<u64>,
}

impl TypeSpec {
    /// Character types: their values carry a character set.
    pub fn is_text(&self) -> bool {
        matches!(
            self.sql_type.as_str(),
            "char"
                | "varchar"
                | "tinytext"
                | "text"
                | "mediumtext"
                | "longtext"
                | "enum"
                | "set"
                | "json"
        )
    }

    /// Binary string types: character set `binary`.
    pub fn is_binary_string(&self) -> bool {
        matches!(
            self.sql_type.as_str(),
            "binary" | "varbinary" | "tinyblob" | "blob" | "mediumblob" | "longblob"
        )
    }
}

/// A column definition before the catalog resolves its character set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ColumnDefinition {
    pub name: String,
    pub ty: TypeSpec,
    pub charset: Option<String>,
    pub collation: Option<String>,
    /// `NULL` / `NOT NULL` when written.
    pub nullable: Option<bool>,
    pub default: Option<String>,
    pub generated: Option<Generated>,
    pub invisible: bool,
    pub auto_increment: bool,
    pub primary_key: bool,
    pub unique: bool,
}

/// Which kind of index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyType {
    Primary,
    Unique,
    /// INDEX, KEY, FULLTEXT, SPATIAL, FOREIGN KEY, CHECK: no effect on rows.
    Other,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyDefinition {
    pub name: Option<String>,
    pub kind: KeyType,
    pub columns: Vec<String>,
}

/// Table options that matter for columns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableOptions {
    pub charset: Option<String>,
    pub collation: Option<String>,
    pub with_system_versioning: bool,
}

/// `FIRST` / `AFTER col`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ColumnPosition {
    First,
    After(String),
}

/// One ALTER TABLE operation that matters for columns or keys.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlterOp {
    AddColumn {
        column: ColumnDefinition,
        position: Option<ColumnPosition>,
        if_not_exists: bool,
    },
    DropColumn {
        name: String,
        if_exists: bool,
    },
    /// CHANGE (`old` differs from the new name) and MODIFY (`old` is the name).
    ChangeColumn {
        old: String,
        column: ColumnDefinition,
        position: Option<ColumnPosition>,
        if_exists: bool,
    },
    RenameColumn {
        old: String,
        new: String,
    },
    /// `ALTER COLUMN c SET DEFAULT x` (`Some`) / `DROP DEFAULT` (`None`).
    SetDefault {
        column: String,
        default: Option<String>,
    },
    /// `ALTER COLUMN c SET VISIBLE | INVISIBLE`.
    SetVisibility {
        column: String,
        invisible: bool,
    },
    AddKey {
        key: KeyDefinition,
        if_not_exists: bool,
    },
    DropPrimaryKey,
    DropKey {
        name: String,
    },
    RenameKey {
        old: String,
        new: String,
    },
    RenameTable(TableName),
    Options(TableOptions),
    /// `CONVERT TO CHARACTER SET cs [COLLATE c]`.
    ConvertCharset {
        charset: String,
        collation: Option<String>,
    },
    AddSystemVersioning,
    DropSystemVersioning,
    /// MariaDB `CONVERT PARTITION p TO TABLE t`: a new table like this one.
    PartitionToTable(TableName),
    /// MariaDB `CONVERT TABLE t TO PARTITION p`: table `t` goes away.
    TableToPartition(TableName),
}

/// What a statement does to the schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DdlStatement {
    /// Changes no table structure (DML, transaction control, views,
    /// routines, users, non-unique indexes, ...). The string names the kind.
    NoChange(String),
    CreateTable {
        table: TableName,
        temporary: bool,
        if_not_exists: bool,
        or_replace: bool,
        columns: Vec<ColumnDefinition>,
        keys: Vec<KeyDefinition>,
        options: TableOptions,
        /// `CREATE TABLE ... SELECT`: the query adds columns this statement
        /// does not describe.
        with_select: bool,
    },
    CreateTableLike {
        table: TableName,
        like: TableName,
        temporary: bool,
        if_not_exists: bool,
        or_replace: bool,
    },
    /// `CREATE SEQUENCE`: a table with the fixed sequence columns.
    CreateSequence {
        table: TableName,
        temporary: bool,
        if_not_exists: bool,
        or_replace: bool,
    },
    AlterTable {
        table: TableName,
        ops: Vec<AlterOp>,
    },
    RenameTables(Vec<(TableName, TableName)>),
    DropTables {
        tables: Vec<TableName>,
        if_exists: bool,
        temporary: bool,
    },
    Truncate(TableName),
    CreateDatabase {
        name: String,
        if_not_exists: bool,
        or_replace: bool,
        charset: Option<String>,
        collation: Option<String>,
    },
    AlterDatabase {
        name: Option<String>,
        charset: Option<String>,
        collation: Option<String>,
    },
    DropDatabase {
        name: String,
        if_exists: bool,
    },
}

impl DdlStatement {
    /// A short name of the statement kind, for reports: `CREATE TABLE`,
    /// `ALTER TABLE`, `CREATE INDEX`, ...
    pub fn kind(&self) -> String {
        match self {
            DdlStatement::NoChange(k) => k.clone(),
            DdlStatement::CreateTable { .. } | DdlStatement::CreateTableLike { .. } => {
                "CREATE TABLE".into()
            }
            DdlStatement::CreateSequence { .. } => "CREATE SEQUENCE".into(),
            DdlStatement::AlterTable { .. } => "ALTER TABLE".into(),
            DdlStatement::RenameTables(_) => "RENAME TABLE".into(),
            DdlStatement::DropTables { .. } => "DROP TABLE".into(),
            DdlStatement::Truncate(_) => "TRUNCATE".into(),
            DdlStatement::CreateDatabase { .. } => "CREATE DATABASE".into(),
            DdlStatement::AlterDatabase { .. } => "ALTER DATABASE".into(),
            DdlStatement::DropDatabase { .. } => "DROP DATABASE".into(),
        }
    }
}
