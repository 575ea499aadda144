//! The errors of schema tracking. Every error that concerns a table names it
//! and, where one applies, the binlog position; none carries a secret.

use crate::fallback_parser::ParseError;

#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    /// Neither parser could read a statement that may change tables.
    #[error("cannot parse DDL at {position} (database `{db}`): {message}; statement: {sql}")]
    Unparseable {
        position: String,
        db: String,
        sql: String,
        message: String,
    },
    /// The statement was read but its effect cannot be known from its text
    /// (e.g. CREATE TABLE ... SELECT in statement format).
    #[error("DDL at {position} has an effect the statement does not describe: {message}; statement: {sql}")]
    Incomplete {
        position: String,
        sql: String,
        message: String,
    },
    /// The statement contradicts the tracked schema (a column it names does
    /// not exist, say): the tracked schema was already wrong.
    #[error("DDL at {position} does not fit the tracked schema of {table}: {message}")]
    Inconsistent {
        position: String,
        table: String,
        message: String,
    },
    /// A TABLE_MAP does not line up with the tracked schema and the binlog
    /// does not carry the names needed to repair it.
    #[error("table map of {table} at {position} does not match the tracked schema: {message}")]
    Mismatch {
        position: String,
        table: String,
        message: String,
    },
    /// A table whose schema is unknown since an unparseable DDL, and the
    /// binlog does not carry the names to rebuild it.
    #[error("schema of {table} is unknown since the DDL at {since} ({reason}); the table map at {position} has no column names to rebuild it")]
    Stale {
        position: String,
        table: String,
        since: String,
        reason: String,
    },
    #[error("no tracked schema for {table} at {position}")]
    UnknownTable { position: String, table: String },
    #[error("schema history {path}: {message}")]
    History { path: String, message: String },
    #[error("reading the live schema: {0}")]
    Metadata(String),
    /// The server refused to show a definition to the account (no SELECT
    /// privilege). `account` is `'user'@'host'` as the server names it.
    #[error("reading the live schema: the server refused ({message}); the account {account} needs the SELECT privilege")]
    MetadataDenied { account: String, message: String },
    /// A table the tracker does not know, which it could not read from the
    /// server for lack of privilege.
    #[error("no tracked schema for {table} at {position}, and the server refused its definition ({message}): the account {account} needs the SELECT privilege on it; run `{grant}` on the source, and the instance picks the table up when it retries (the schema history needs no change)")]
    ReadDenied {
        position: String,
        table: String,
        account: String,
        message: String,
        grant: String,
    },
    /// A tracked column whose rows cannot be turned into row images (an
    /// initial snapshot): the type is not supported, or its size is invalid.
    #[error("{table} column `{column}`: {message}")]
    RowType {
        table: String,
        column: String,
        message: String,
    },
    /// A value read with SELECT that does not parse as its column's type.
    #[error("{table} column `{column}`: value {value:?}: {message}")]
    RowValue {
        table: String,
        column: String,
        value: String,
        message: String,
    },
    #[error("parse error: {0}")]
    Parse(#[from] ParseError),
}

impl std::error::Error for ParseError {}

pub type Result<T> = std::result::Result<T, SchemaError>;
