//! The hand-written DDL parser: reads MySQL and MariaDB DDL over the
//! [`lexer`](crate::lexer) tokens and extracts exactly what affects columns
//! and row keys, skipping the rest (partitions, table options, index and
//! constraint details, MariaDB extensions) by structure, not by guessing.
//! It never applies anything and never panics on input: anything it cannot
//! place is an error naming the token.
//!
//! - `cursor`: the token cursor every rule reads with, and [`ParseError`];
//! - `statements`: CREATE, ALTER (dispatch), DROP, RENAME, TRUNCATE;
//! - `table_elements`: the elements of a table definition (keys,
//!   constraints), table options and partitioning;
//! - `columns`: column definitions, their attributes and expressions;
//! - `data_types`: data types and their parameters;
//! - `alter`: ALTER TABLE specifications.

mod alter;
mod columns;
mod cursor;
mod data_types;
mod statements;
mod table_elements;
#[cfg(test)]
mod tests;

use crate::ddl::*;
use crate::lexer::{tokenize, LexOptions};
use cursor::{PResult, Parser};

pub use cursor::ParseError;
pub(crate) use data_types::size_class;

/// Statements that start with one of these words may change tables.
const DDL_WORDS: &[&str] = &["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"];

/// The first keyword of a statement, found without tokenizing all of it
/// (skips whitespace and plain comments; `None` when an executable comment
/// comes first, which needs the full lexer).
pub fn first_keyword(sql: &str) -> Option<&str> {
    let b = sql.as_bytes();
    let mut i = 0;
    loop {
        while i < b.len() && b[i].is_ascii_whitespace() {
            i += 1;
        }
        if b[i..].starts_with(b"/*!") || b[i..].starts_with(b"/*M!") {
            return None;
        }
        if b[i..].starts_with(b"/*") {
            let end = sql[i + 2..].find("*/")?;
            i = i + 2 + end + 2;
            continue;
        }
        if b[i..].starts_with(b"#")
            || (b[i..].starts_with(b"--") && b.get(i + 2).is_none_or(|c| c.is_ascii_whitespace()))
        {
            let end = sql[i..].find('\n').map(|e| i + e).unwrap_or(b.len());
            i = end;
            continue;
        }
        break;
    }
    let start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    Some(&sql[start..i])
}

/// Parses one statement.
pub fn parse_statement(sql: &str, opts: LexOptions) -> PResult<DdlStatement> {
    if let Some(kw) = first_keyword(sql) {
        if !DDL_WORDS.iter().any(|w| w.eq_ignore_ascii_case(kw)) {
            return Ok(DdlStatement::NoChange(if kw.is_empty() {
                "EMPTY".to_string()
            } else {
                kw.to_ascii_uppercase()
            }));
        }
    }
    with_parser(sql, opts, |p| p.statement())
}

/// Parses a column definition alone (`name type attributes...`).
pub fn parse_column_definition(sql: &str, opts: LexOptions) -> PResult<ColumnDefinition> {
    with_parser(sql, opts, |p| {
        let c = p.column_definition()?;
        p.end()?;
        Ok(c)
    })
}

/// Parses a table element (column, key or constraint) alone.
pub(crate) fn parse_create_element(
    sql: &str,
    opts: LexOptions,
) -> PResult<(Option<ColumnDefinition>, Option<KeyDefinition>)> {
    with_parser(sql, opts, |p| {
        let mut columns = Vec::new();
        let mut keys = Vec::new();
        p.create_element(&mut columns, &mut keys)?;
        p.end()?;
        Ok((columns.pop(), keys.pop()))
    })
}

/// Parses table options alone (`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 ...`).
pub(crate) fn parse_table_options(sql: &str, opts: LexOptions) -> PResult<TableOptions> {
    with_parser(sql, opts, |p| {
        let mut o = TableOptions::default();
        p.table_options(&mut o)?;
        p.end()?;
        Ok(o)
    })
}

/// Runs `parse` over the tokens of `sql`: the one place text becomes a
/// [`Parser`].
fn with_parser<T>(
    sql: &str,
    opts: LexOptions,
    parse: impl FnOnce(&mut Parser<'_>) -> PResult<T>,
) -> PResult<T> {
    let tokens = tokenize(sql, opts).map_err(|e| ParseError {
        message: e.what.to_string(),
        at: Some(e.at),
    })?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        sql,
    };
    parse(&mut p)
}
