//! Reading a statement into a [`DdlStatement`], the crate's one entry for
//! DDL text: statements that cannot change tables are recognised from their
//! first keyword; the rest go to `sqlparser` (MySQL dialect; its tree is
//! mapped in `from_sqlparser`) first and to the hand-written
//! [`parser`](crate::fallback_parser) when sqlparser rejects them or produces a form
//! this crate does not map. Nothing here applies changes.

use crate::ddl::*;
use crate::fallback_parser::{first_keyword, parse_statement, ParseError};
use crate::lexer::LexOptions;

pub use crate::from_sqlparser::with_sqlparser;

/// Which reader produced a statement's meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ParsedBy {
    /// The first keyword shows it changes no table.
    Classifier,
    Sqlparser,
    Fallback,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Parsed {
    pub statement: DdlStatement,
    pub parsed_by: ParsedBy,
}

const DDL_WORDS: &[&str] = &["CREATE", "ALTER", "DROP", "RENAME", "TRUNCATE"];

/// Reads one statement: classifier, then sqlparser, then the fallback.
/// Credentials are redacted first: sqlparser logs whole statements at
/// debug level, and a password never changes a table.
pub fn parse_ddl(sql: &str, opts: LexOptions) -> Result<Parsed, ParseError> {
    if let Some(kw) = first_keyword(sql) {
        if !DDL_WORDS.iter().any(|w| w.eq_ignore_ascii_case(kw)) {
            return Ok(Parsed {
                statement: DdlStatement::NoChange(kw.to_ascii_uppercase()),
                parsed_by: ParsedBy::Classifier,
            });
        }
    }
    let sql = &*crate::redact::redact_with(sql, opts);
    if let Ok(statement) = with_sqlparser(sql, opts) {
        return Ok(Parsed {
            statement,
            parsed_by: ParsedBy::Sqlparser,
        });
    }
    let statement = parse_statement(sql, opts)?;
    Ok(Parsed {
        statement,
        parsed_by: ParsedBy::Fallback,
    })
}

/// The hand-written parser alone (for measurements and cross-checks).
pub fn with_fallback(sql: &str, opts: LexOptions) -> Result<DdlStatement, ParseError> {
    parse_statement(sql, opts)
}
