//! The hand-written DDL parser: reads MySQL and MariaDB DDL over the
//! [`lexer`](crate::lexer) tokens and extracts exactly what affects columns
//! and row keys, skipping the rest (partitions, table options, index and
//! constraint details, MariaDB extensions) by structure, not by guessing.
//! It never applies anything and never panics on input: anything it cannot
//! place is an error naming the token.

use crate::ddl::*;
use crate::lexer::{tokenize, LexOptions, Tok, Token};
use crate::model::Generated;

/// Why a statement could not be read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub message: String,
    /// Byte offset in the statement, when known.
    pub at: Option<usize>,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.at {
            Some(at) => write!(f, "{} (at byte {at})", self.message),
            None => f.write_str(&self.message),
        }
    }
}

type PResult<T> = Result<T, ParseError>;

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
    let tokens = tokenize(sql, opts).map_err(|e| ParseError {
        message: e.what.to_string(),
        at: Some(e.at),
    })?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        sql,
    };
    let stmt = p.statement()?;
    Ok(stmt)
}

/// Parses a column definition alone (`name type attributes...`).
pub fn parse_column_definition(sql: &str, opts: LexOptions) -> PResult<ColumnDefinition> {
    let tokens = tokenize(sql, opts).map_err(|e| ParseError {
        message: e.what.to_string(),
        at: Some(e.at),
    })?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        sql,
    };
    let c = p.column_definition()?;
    p.end()?;
    Ok(c)
}

/// Parses a table element (column, key or constraint) alone.
pub(crate) fn parse_create_element(
    sql: &str,
    opts: LexOptions,
) -> PResult<(Option<ColumnDefinition>, Option<KeyDefinition>)> {
    let tokens = tokenize(sql, opts).map_err(|e| ParseError {
        message: e.what.to_string(),
        at: Some(e.at),
    })?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        sql,
    };
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    p.create_element(&mut columns, &mut keys)?;
    p.end()?;
    Ok((columns.pop(), keys.pop()))
}

/// Parses table options alone (`ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 ...`).
pub(crate) fn parse_table_options(sql: &str, opts: LexOptions) -> PResult<TableOptions> {
    let tokens = tokenize(sql, opts).map_err(|e| ParseError {
        message: e.what.to_string(),
        at: Some(e.at),
    })?;
    let mut p = Parser {
        t: &tokens,
        i: 0,
        sql,
    };
    let mut o = TableOptions::default();
    p.table_options(&mut o)?;
    p.end()?;
    Ok(o)
}

struct Parser<'a> {
    t: &'a [Token],
    i: usize,
    sql: &'a str,
}

impl<'a> Parser<'a> {
    // ---- cursor helpers ----

    fn peek(&self) -> Option<&'a Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }
    fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.t.get(self.i + k).map(|t| &t.tok)
    }
    fn at_end(&self) -> bool {
        self.i >= self.t.len() || self.peek().is_some_and(|t| t.is_punct(";"))
    }
    fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        let found = match self.peek() {
            Some(t) => format!("{t:?}"),
            None => "end of statement".to_string(),
        };
        Err(ParseError {
            message: format!("{}, found {found}", msg.into()),
            at: self.t.get(self.i).map(|t| t.start),
        })
    }
    fn is_kw(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is_kw(kw))
    }
    fn is_kw_at(&self, k: usize, kw: &str) -> bool {
        self.peek_at(k).is_some_and(|t| t.is_kw(kw))
    }
    fn is_punct(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is_punct(p))
    }
    fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn eat_kws(&mut self, kws: &[&str]) -> bool {
        if kws.iter().enumerate().all(|(k, kw)| self.is_kw_at(k, kw)) {
            self.i += kws.len();
            true
        } else {
            false
        }
    }
    fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            self.err(format!("expected {kw}"))
        }
    }
    fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.err(format!("expected `{p}`"))
        }
    }
    fn end(&mut self) -> PResult<()> {
        while self.eat_punct(";") {}
        if self.i < self.t.len() {
            return self.err("expected end of statement");
        }
        Ok(())
    }

    /// An identifier: a word or a quoted identifier.
    fn ident(&mut self) -> PResult<String> {
        match self.peek() {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) => {
                self.i += 1;
                Ok(w.clone())
            }
            // Some statements quote names as strings (`DROP INDEX 'x'` is not
            // valid, but database names in CREATE DATABASE may be).
            _ => self.err("expected an identifier"),
        }
    }

    fn table_name(&mut self) -> PResult<TableName> {
        let first = self.ident()?;
        if self.is_punct(".") {
            self.i += 1;
            let second = self.ident()?;
            Ok(TableName {
                db: Some(first),
                name: second,
            })
        } else {
            Ok(TableName {
                db: None,
                name: first,
            })
        }
    }

    /// A name that may be written as a word, a quoted identifier or a string
    /// (charset and collation names, engine names).
    fn name_or_string(&mut self) -> PResult<String> {
        match self.peek() {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) | Some(Tok::Str(w)) => {
                self.i += 1;
                Ok(w.clone())
            }
            _ => self.err("expected a name"),
        }
    }

    /// Skips one balanced group starting at `(`.
    fn skip_parens(&mut self) -> PResult<()> {
        self.expect_punct("(")?;
        let mut depth = 1usize;
        while depth > 0 {
            match self.peek() {
                None => return self.err("unbalanced parentheses"),
                Some(t) if t.is_punct("(") => depth += 1,
                Some(t) if t.is_punct(")") => depth -= 1,
                _ => {}
            }
            self.i += 1;
        }
        Ok(())
    }

    /// Skips tokens up to (not including) a `,` or `)` at depth 0, or the end.
    fn skip_to_separator(&mut self) -> PResult<()> {
        loop {
            match self.peek() {
                None => return Ok(()),
                Some(t) if t.is_punct(",") || t.is_punct(")") || t.is_punct(";") => return Ok(()),
                Some(t) if t.is_punct("(") => self.skip_parens()?,
                _ => self.i += 1,
            }
        }
    }

    fn text_from(&self, start_tok: usize) -> String {
        let s = self.t.get(start_tok).map(|t| t.start).unwrap_or(0);
        let e = if self.i > start_tok {
            self.t.get(self.i - 1).map(|t| t.end).unwrap_or(s)
        } else {
            s
        };
        self.sql.get(s..e).unwrap_or("").trim().to_string()
    }

    // ---- statements ----

    fn statement(&mut self) -> PResult<DdlStatement> {
        let Some(Tok::Word(w)) = self.peek() else {
            return Ok(DdlStatement::NoChange("EMPTY".into()));
        };
        let w = w.to_ascii_uppercase();
        match w.as_str() {
            "CREATE" => {
                self.i += 1;
                self.create()
            }
            "ALTER" => {
                self.i += 1;
                self.alter()
            }
            "DROP" => {
                self.i += 1;
                self.drop()
            }
            "RENAME" => {
                self.i += 1;
                self.rename()
            }
            "TRUNCATE" => {
                self.i += 1;
                self.eat_kw("TABLE");
                let t = self.table_name()?;
                self.skip_wait()?;
                self.end()?;
                Ok(DdlStatement::Truncate(t))
            }
            other => Ok(DdlStatement::NoChange(other.to_string())),
        }
    }

    /// MariaDB `WAIT n` / `NOWAIT`.
    fn skip_wait(&mut self) -> PResult<()> {
        if self.eat_kw("WAIT") {
            match self.peek() {
                Some(Tok::Num(_)) => self.i += 1,
                _ => return self.err("expected a number after WAIT"),
            }
        } else {
            self.eat_kw("NOWAIT");
        }
        Ok(())
    }

    fn if_not_exists(&mut self) -> bool {
        self.eat_kws(&["IF", "NOT", "EXISTS"])
    }
    fn if_exists(&mut self) -> bool {
        self.eat_kws(&["IF", "EXISTS"])
    }

    fn create(&mut self) -> PResult<DdlStatement> {
        let or_replace = self.eat_kws(&["OR", "REPLACE"]);
        let temporary = self.eat_kw("TEMPORARY");
        if self.eat_kw("TABLE") {
            return self.create_table(temporary, or_replace);
        }
        if self.is_kw("DATABASE") || self.is_kw("SCHEMA") {
            self.i += 1;
            let if_not_exists = self.if_not_exists();
            let name = self.ident()?;
            let (charset, collation) = self.database_options()?;
            self.end()?;
            return Ok(DdlStatement::CreateDatabase {
                name,
                if_not_exists,
                or_replace,
                charset,
                collation,
            });
        }
        if self.eat_kw("SEQUENCE") {
            let if_not_exists = self.if_not_exists();
            let table = self.table_name()?;
            return Ok(DdlStatement::CreateSequence {
                table,
                temporary,
                if_not_exists,
                or_replace,
            });
        }
        if self.is_kw("UNIQUE") || self.is_kw("INDEX") {
            // CREATE [UNIQUE] INDEX [IF NOT EXISTS] name [USING x] ON tbl (cols)
            let unique = self.eat_kw("UNIQUE");
            self.expect_kw("INDEX")?;
            let if_not_exists = self.if_not_exists();
            let name = self.ident()?;
            if self.eat_kw("USING") {
                self.ident()?;
            }
            self.expect_kw("ON")?;
            let table = self.table_name()?;
            if !unique {
                return Ok(DdlStatement::NoChange("CREATE INDEX".into()));
            }
            let columns = self.key_columns()?;
            return Ok(DdlStatement::AlterTable {
                table,
                ops: vec![AlterOp::AddKey {
                    key: KeyDefinition {
                        name: Some(name),
                        kind: KeyType::Unique,
                        columns,
                    },
                    if_not_exists,
                }],
            });
        }
        // Everything else CREATE makes holds no table columns: views,
        // routines, triggers, events, users, roles, servers, tablespaces,
        // FULLTEXT/SPATIAL indexes. Find the object word to name it.
        let kind = self.object_word();
        Ok(DdlStatement::NoChange(format!("CREATE {kind}")))
    }

    /// The first object keyword within the next few tokens (after DEFINER=,
    /// ALGORITHM=, SQL SECURITY ... clauses).
    fn object_word(&self) -> String {
        const OBJECTS: &[&str] = &[
            "VIEW",
            "TRIGGER",
            "PROCEDURE",
            "FUNCTION",
            "EVENT",
            "USER",
            "ROLE",
            "SERVER",
            "TABLESPACE",
            "LOGFILE",
            "INDEX",
            "PACKAGE",
            "AGGREGATE",
            "SPATIAL",
            "RESOURCE",
            "SYNONYM",
            "TYPE",
        ];
        for k in 0..16 {
            if let Some(Tok::Word(w)) = self.peek_at(k) {
                let u = w.to_ascii_uppercase();
                if let Some(o) = OBJECTS.iter().find(|o| **o == u) {
                    return match *o {
                        "SPATIAL" if self.is_kw_at(k + 1, "REFERENCE") => {
                            "SPATIAL REFERENCE SYSTEM"
                        }
                        "SPATIAL" | "INDEX" => "INDEX",
                        other => other,
                    }
                    .to_string();
                }
            }
        }
        self.peek()
            .map(|t| match t {
                Tok::Word(w) => w.to_ascii_uppercase(),
                _ => "OTHER".to_string(),
            })
            .unwrap_or_else(|| "OTHER".to_string())
    }

    fn database_options(&mut self) -> PResult<(Option<String>, Option<String>)> {
        let mut charset = None;
        let mut collation = None;
        while !self.at_end() {
            self.eat_kw("DEFAULT");
            if self.eat_kws(&["CHARACTER", "SET"]) || self.eat_kw("CHARSET") {
                self.eat_punct("=");
                charset = Some(self.name_or_string()?);
            } else if self.eat_kw("COLLATE") {
                self.eat_punct("=");
                collation = Some(self.name_or_string()?);
            } else if self.eat_kw("COMMENT") || self.eat_kw("ENCRYPTION") {
                self.eat_punct("=");
                self.i += 1;
            } else if self.eat_kw("READ") {
                self.expect_kw("ONLY")?;
                self.eat_punct("=");
                self.i += 1;
            } else {
                return self.err("unexpected database option");
            }
        }
        Ok((charset, collation))
    }

    fn create_table(&mut self, temporary: bool, or_replace: bool) -> PResult<DdlStatement> {
        let if_not_exists = self.if_not_exists();
        let table = self.table_name()?;
        // CREATE TABLE t LIKE s  /  CREATE TABLE t (LIKE s)
        if self.eat_kw("LIKE") {
            let like = self.table_name()?;
            self.end()?;
            return Ok(DdlStatement::CreateTableLike {
                table,
                like,
                temporary,
                if_not_exists,
                or_replace,
            });
        }
        if self.is_punct("(") && self.is_kw_at(1, "LIKE") {
            self.i += 2;
            let like = self.table_name()?;
            self.expect_punct(")")?;
            self.end()?;
            return Ok(DdlStatement::CreateTableLike {
                table,
                like,
                temporary,
                if_not_exists,
                or_replace,
            });
        }
        let mut columns = Vec::new();
        let mut keys = Vec::new();
        let mut options = TableOptions::default();
        let mut with_select = false;
        // `CREATE TABLE t (SELECT ...)` is a query in parentheses.
        let paren_select = self.is_punct("(")
            && (self.is_kw_at(1, "SELECT")
                || self.is_kw_at(1, "WITH")
                || self.is_kw_at(1, "VALUES"));
        if self.is_punct("(") && !paren_select {
            self.i += 1;
            loop {
                self.create_element(&mut columns, &mut keys)?;
                if self.eat_punct(",") {
                    continue;
                }
                self.expect_punct(")")?;
                break;
            }
        }
        // Table options, partitioning, then an optional query.
        loop {
            if self.at_end() {
                break;
            }
            if self.is_kw("PARTITION") {
                self.skip_partitioning()?;
                continue;
            }
            if self.is_kw("IGNORE") || self.is_kw("REPLACE") || self.is_kw("AS") {
                self.i += 1;
                continue;
            }
            if self.is_kw("SELECT")
                || (self.is_kw("WITH") && !self.is_kw_at(1, "SYSTEM"))
                || self.is_kw("VALUES")
                || self.is_kw("TABLE")
                || self.is_punct("(")
            {
                with_select = true;
                self.i = self.t.len();
                break;
            }
            self.table_option(&mut options)?;
        }
        Ok(DdlStatement::CreateTable {
            table,
            temporary,
            if_not_exists,
            or_replace,
            columns,
            keys,
            options,
            with_select,
        })
    }

    /// One element of a CREATE TABLE list.
    fn create_element(
        &mut self,
        columns: &mut Vec<ColumnDefinition>,
        keys: &mut Vec<KeyDefinition>,
    ) -> PResult<()> {
        if let Some(k) = self.key_definition()? {
            keys.push(k);
            return Ok(());
        }
        if self.is_kw("PERIOD") && self.is_kw_at(1, "FOR") {
            self.i += 2;
            self.skip_to_separator()?;
            return Ok(());
        }
        columns.push(self.column_definition()?);
        Ok(())
    }

    /// A key or constraint definition, if one starts here.
    fn key_definition(&mut self) -> PResult<Option<KeyDefinition>> {
        let start = self.i;
        let mut constraint_name = None;
        if self.eat_kw("CONSTRAINT") {
            // CONSTRAINT [IF NOT EXISTS] [symbol] PRIMARY KEY | UNIQUE | FOREIGN KEY | CHECK
            self.if_not_exists();
            if !(self.is_kw("PRIMARY")
                || self.is_kw("UNIQUE")
                || self.is_kw("FOREIGN")
                || self.is_kw("CHECK"))
            {
                constraint_name = Some(self.ident()?);
            }
        }
        if self.eat_kw("PRIMARY") {
            self.expect_kw("KEY")?;
            self.if_not_exists();
            self.index_name_and_type()?;
            let columns = self.key_columns()?;
            self.index_options()?;
            return Ok(Some(KeyDefinition {
                name: Some("PRIMARY".into()),
                kind: KeyType::Primary,
                columns,
            }));
        }
        if self.eat_kw("UNIQUE") {
            let _ = self.eat_kw("INDEX") || self.eat_kw("KEY");
            self.if_not_exists();
            let name = self.index_name_and_type()?.or(constraint_name);
            let columns = self.key_columns()?;
            self.index_options()?;
            return Ok(Some(KeyDefinition {
                name,
                kind: KeyType::Unique,
                columns,
            }));
        }
        if self.is_kw("FOREIGN") || self.is_kw("CHECK") {
            self.skip_to_separator()?;
            return Ok(Some(KeyDefinition {
                name: constraint_name,
                kind: KeyType::Other,
                columns: vec![],
            }));
        }
        if constraint_name.is_some() {
            self.i = start;
            return self.err("expected PRIMARY KEY, UNIQUE, FOREIGN KEY or CHECK after CONSTRAINT");
        }
        let is_index = self.is_kw("INDEX")
            || self.is_kw("KEY")
            || self.is_kw("FULLTEXT")
            || self.is_kw("SPATIAL")
            || (self.is_kw("VECTOR") && (self.is_kw_at(1, "INDEX") || self.is_kw_at(1, "KEY")));
        if is_index {
            self.skip_to_separator()?;
            return Ok(Some(KeyDefinition {
                name: None,
                kind: KeyType::Other,
                columns: vec![],
            }));
        }
        Ok(None)
    }

    /// `[name] [USING type]` before a key's column list; returns the name.
    fn index_name_and_type(&mut self) -> PResult<Option<String>> {
        let mut name = None;
        if !self.is_punct("(") && !self.is_kw("USING") {
            name = Some(self.ident()?);
        }
        if self.eat_kw("USING") || self.eat_kw("TYPE") {
            self.ident()?;
        }
        Ok(name)
    }

    /// `(col [(len)] [ASC|DESC], ...)`: the column names. Functional key
    /// parts (`((expr))`) have no column name and are skipped.
    fn key_columns(&mut self) -> PResult<Vec<String>> {
        self.expect_punct("(")?;
        let mut cols = Vec::new();
        loop {
            if self.is_punct("(") {
                self.skip_parens()?;
            } else {
                cols.push(self.ident()?);
                if self.is_punct("(") {
                    self.skip_parens()?;
                }
            }
            let _ = self.eat_kw("ASC") || self.eat_kw("DESC");
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(")")?;
            return Ok(cols);
        }
    }

    /// Index options after a key's column list, up to `,` or `)`.
    fn index_options(&mut self) -> PResult<()> {
        self.skip_to_separator()
    }

    fn column_definition(&mut self) -> PResult<ColumnDefinition> {
        // `[db.][table.]name`: only the last part names the column.
        let mut name = self.ident()?;
        while self.eat_punct(".") {
            name = self.ident()?;
        }
        let ty = self.data_type()?;
        let mut c = ColumnDefinition {
            name,
            charset: ty.implied_charset.map(str::to_string),
            collation: None,
            nullable: None,
            default: None,
            generated: None,
            invisible: false,
            auto_increment: false,
            primary_key: false,
            unique: false,
            ty,
        };
        if c.ty.serial {
            c.nullable = Some(false);
            c.auto_increment = true;
            c.unique = true;
        }
        self.column_attributes(&mut c)?;
        Ok(c)
    }

    fn column_attributes(&mut self, c: &mut ColumnDefinition) -> PResult<()> {
        loop {
            if self.at_end() || self.is_punct(",") || self.is_punct(")") {
                return Ok(());
            }
            // Keywords that end a column definition inside ALTER TABLE.
            if self.is_kw("FIRST")
                || self.is_kw("AFTER")
                || (self.is_kw("REMOVE") && self.is_kw_at(1, "PARTITIONING"))
                || (self.is_kw("PARTITION") && self.is_kw_at(1, "BY"))
            {
                return Ok(());
            }
            if self.eat_kws(&["NOT", "NULL"]) {
                c.nullable = Some(false);
            } else if self.eat_kw("NULL") {
                c.nullable = Some(true);
            } else if self.eat_kw("DEFAULT") {
                c.default = Some(self.expression()?);
            } else if self.eat_kw("AUTO_INCREMENT") {
                c.auto_increment = true;
            } else if self.eat_kw("UNIQUE") {
                self.eat_kw("KEY");
                c.unique = true;
            } else if self.eat_kws(&["PRIMARY", "KEY"]) || self.eat_kw("KEY") {
                c.primary_key = true;
            } else if self.eat_kw("COMMENT") {
                self.eat_punct("=");
                self.name_or_string()?;
            } else if self.eat_kws(&["CHARACTER", "SET"]) || self.eat_kw("CHARSET") {
                self.eat_punct("=");
                c.charset = Some(self.name_or_string()?);
            } else if self.eat_kw("COLLATE") {
                self.eat_punct("=");
                c.collation = Some(self.name_or_string()?);
            } else if self.eat_kw("BINARY") {
                c.ty.binary_collation = true;
            } else if self.eat_kw("ASCII") {
                c.charset = Some("latin1".into());
            } else if self.eat_kw("UNICODE") {
                c.charset = Some("ucs2".into());
            } else if self.eat_kw("BYTE") {
                c.charset = Some("binary".into());
            } else if self.eat_kw("COLUMN_FORMAT") || self.eat_kw("STORAGE") {
                self.ident()?;
            } else if self.eat_kws(&["ON", "UPDATE"]) {
                self.expression()?;
            } else if self.is_kw("GENERATED") || self.is_kw("AS") {
                if self.eat_kw("GENERATED") {
                    self.expect_kw("ALWAYS")?;
                }
                self.expect_kw("AS")?;
                if self.eat_kw("ROW") {
                    if self.eat_kw("START") {
                        c.generated = Some(Generated::RowStart);
                    } else {
                        self.expect_kw("END")?;
                        c.generated = Some(Generated::RowEnd);
                    }
                    continue;
                }
                if self.eat_kw("IDENTITY") {
                    if self.is_punct("(") {
                        self.skip_parens()?;
                    }
                    c.auto_increment = true;
                    continue;
                }
                let start = self.i;
                self.skip_parens()?;
                let text = self.text_from(start);
                let expr = text
                    .strip_prefix('(')
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or(&text)
                    .trim()
                    .to_string();
                let stored = if self.eat_kw("STORED") || self.eat_kw("PERSISTENT") {
                    true
                } else {
                    self.eat_kw("VIRTUAL");
                    false
                };
                c.generated = Some(if stored {
                    Generated::Stored { expr }
                } else {
                    Generated::Virtual { expr }
                });
            } else if self.eat_kw("VIRTUAL") {
                // Handled with AS; tolerate a stray keyword.
            } else if self.eat_kw("STORED") || self.eat_kw("PERSISTENT") {
                if let Some(Generated::Virtual { expr }) = c.generated.take() {
                    c.generated = Some(Generated::Stored { expr });
                }
            } else if self.eat_kw("INVISIBLE") {
                c.invisible = true;
            } else if self.eat_kw("VISIBLE") {
                c.invisible = false;
            } else if self.eat_kws(&["WITH", "SYSTEM", "VERSIONING"])
                || self.eat_kws(&["WITHOUT", "SYSTEM", "VERSIONING"])
            {
            } else if self.eat_kw("REFERENCES") {
                self.table_name()?;
                if self.is_punct("(") {
                    self.skip_parens()?;
                }
                loop {
                    if self.eat_kw("MATCH") {
                        self.ident()?;
                    } else if self.eat_kw("ON") {
                        let _ = self.eat_kw("DELETE") || self.eat_kw("UPDATE");
                        if !(self.eat_kw("RESTRICT")
                            || self.eat_kw("CASCADE")
                            || self.eat_kws(&["SET", "NULL"])
                            || self.eat_kws(&["SET", "DEFAULT"])
                            || self.eat_kws(&["NO", "ACTION"]))
                        {
                            return self.err("expected a referential action");
                        }
                    } else {
                        break;
                    }
                }
            } else if self.is_kw("CONSTRAINT") || self.is_kw("CHECK") {
                if self.eat_kw("CONSTRAINT") && !self.is_kw("CHECK") {
                    self.ident()?;
                }
                self.expect_kw("CHECK")?;
                self.skip_parens()?;
            } else if self.eat_kw("COMPRESSED") {
                if self.eat_punct("=") {
                    self.ident()?;
                }
            } else if self.eat_kw("SRID") {
                self.i += 1;
            } else if self.eat_kw("SERIAL") {
                self.expect_kw("DEFAULT")?;
                self.expect_kw("VALUE")?;
                c.nullable = Some(false);
                c.auto_increment = true;
                c.unique = true;
            } else if self.eat_kw("ENGINE_ATTRIBUTE") || self.eat_kw("SECONDARY_ENGINE_ATTRIBUTE") {
                self.eat_punct("=");
                self.i += 1;
            } else if matches!(self.peek(), Some(Tok::Word(_)))
                && self.peek_at(1).is_some_and(|t| t.is_punct("="))
            {
                // Engine-defined column attributes (`ENCRYPTED=YES`, `IETF_QUOTES=YES`).
                self.i += 2;
                self.i += 1;
            } else {
                return self.err("unexpected column attribute");
            }
        }
    }

    /// An expression as text: a literal, a function call, a parenthesised
    /// expression, or several joined by operators (DEFAULT, ON UPDATE).
    fn expression(&mut self) -> PResult<String> {
        let start = self.i;
        loop {
            // Unary signs.
            while self.is_punct("-")
                || self.is_punct("+")
                || self.is_punct("~")
                || self.is_punct("!")
            {
                self.i += 1;
            }
            match self.peek() {
                Some(Tok::Punct("(")) => self.skip_parens()?,
                Some(Tok::Str(_)) => {
                    self.i += 1;
                    while matches!(self.peek(), Some(Tok::Str(_))) {
                        self.i += 1;
                    }
                }
                Some(Tok::Num(_)) | Some(Tok::Var(_)) => self.i += 1,
                Some(Tok::Word(w)) => {
                    let is_introducer =
                        w.starts_with('_') && matches!(self.peek_at(1), Some(Tok::Str(_)));
                    let is_typed_literal = (w.eq_ignore_ascii_case("DATE")
                        || w.eq_ignore_ascii_case("TIME")
                        || w.eq_ignore_ascii_case("TIMESTAMP"))
                        && matches!(self.peek_at(1), Some(Tok::Str(_)));
                    self.i += 1;
                    if is_introducer || is_typed_literal {
                        self.i += 1;
                        if self.eat_kw("COLLATE") {
                            self.ident()?;
                        }
                    } else if self.is_punct("(") {
                        self.skip_parens()?;
                    } else if self.is_punct(".") {
                        // NEXT VALUE FOR seq / qualified names.
                        self.i += 1;
                        self.ident()?;
                    } else if w.eq_ignore_ascii_case("NEXT") || w.eq_ignore_ascii_case("NEXTVAL") {
                        self.eat_kw("VALUE");
                        self.eat_kw("FOR");
                        self.table_name()?;
                    }
                }
                Some(Tok::Quoted(_)) => self.i += 1,
                _ => return self.err("expected an expression"),
            }
            // Binary operators continue the expression.
            match self.peek() {
                Some(Tok::Punct(p))
                    if matches!(
                        *p,
                        "+" | "-"
                            | "*"
                            | "/"
                            | "%"
                            | "||"
                            | "&&"
                            | "|"
                            | "&"
                            | "^"
                            | "<<"
                            | ">>"
                            | "<"
                            | ">"
                            | "<="
                            | ">="
                            | "="
                            | "<>"
                            | "!="
                            | "->"
                            | "->>"
                    ) =>
                {
                    self.i += 1;
                }
                Some(Tok::Word(w))
                    if ["AND", "OR", "XOR", "DIV", "MOD", "IS", "LIKE", "IN"]
                        .iter()
                        .any(|k| w.eq_ignore_ascii_case(k)) =>
                {
                    self.i += 1;
                    self.eat_kw("NOT");
                }
                _ => break,
            }
        }
        Ok(self.text_from(start))
    }

    /// A data type and its modifiers (`UNSIGNED`, `ZEROFILL`).
    fn data_type(&mut self) -> PResult<TypeSpec> {
        let Some(Tok::Word(w0)) = self.peek() else {
            return self.err("expected a data type");
        };
        self.i += 1;
        let mut w = w0.to_ascii_lowercase();
        let mut implied_charset = None;
        let mut serial = false;
        // Multi-word type names.
        if w == "national" {
            implied_charset = Some("utf8mb3");
            w = self.ident()?.to_ascii_lowercase();
            if w == "char" || w == "character" {
                w = if self.eat_kw("VARYING") {
                    "varchar".into()
                } else {
                    "char".into()
                };
            }
        } else if w == "nchar" {
            implied_charset = Some("utf8mb3");
            w = if self.eat_kw("VARYING") || self.eat_kw("VARCHAR") {
                "varchar".into()
            } else {
                "char".into()
            };
        } else if w == "nvarchar" {
            implied_charset = Some("utf8mb3");
            w = "varchar".into();
        } else if w == "char" || w == "character" {
            if self.eat_kw("VARYING") {
                w = "varchar".into();
            } else {
                w = "char".into();
            }
        } else if w == "double" {
            self.eat_kw("PRECISION");
        } else if w == "long" {
            w = if self.eat_kw("VARBINARY") {
                "mediumblob".into()
            } else {
                self.eat_kw("VARCHAR");
                "mediumtext".into()
            };
        }
        let params = self.type_params(matches!(w.as_str(), "enum" | "set"))?;
        let num = |k: usize| -> Option<u64> { params.get(k).and_then(|p| p.parse::<u64>().ok()) };
        let fmt_params = |p: &[String]| -> String {
            if p.is_empty() {
                String::new()
            } else {
                format!("({})", p.join(","))
            }
        };
        let (sql_type, mut data_type, labels): (String, String, Vec<String>) = match w.as_str() {
            "tinyint" | "int1" => (
                "tinyint".into(),
                format!("tinyint{}", fmt_params(&params)),
                vec![],
            ),
            "smallint" | "int2" => (
                "smallint".into(),
                format!("smallint{}", fmt_params(&params)),
                vec![],
            ),
            "mediumint" | "int3" | "middleint" => (
                "mediumint".into(),
                format!("mediumint{}", fmt_params(&params)),
                vec![],
            ),
            "int" | "integer" | "int4" => {
                ("int".into(), format!("int{}", fmt_params(&params)), vec![])
            }
            "bigint" | "int8" => (
                "bigint".into(),
                format!("bigint{}", fmt_params(&params)),
                vec![],
            ),
            "bool" | "boolean" => ("tinyint".into(), "tinyint(1)".into(), vec![]),
            "serial" => {
                serial = true;
                ("bigint".into(), "bigint".into(), vec![])
            }
            "decimal" | "dec" | "numeric" | "fixed" | "number" => {
                let p = num(0).unwrap_or(10);
                let s = num(1).unwrap_or(0);
                ("decimal".into(), format!("decimal({p},{s})"), vec![])
            }
            "float" => match (num(0), num(1)) {
                (Some(m), Some(d)) => ("float".into(), format!("float({m},{d})"), vec![]),
                (Some(p), None) if p > 24 => ("double".into(), "double".into(), vec![]),
                _ => ("float".into(), "float".into(), vec![]),
            },
            "float4" => ("float".into(), "float".into(), vec![]),
            "double" | "real" | "float8" => match (num(0), num(1)) {
                (Some(m), Some(d)) => ("double".into(), format!("double({m},{d})"), vec![]),
                _ => ("double".into(), "double".into(), vec![]),
            },
            "bit" => (
                "bit".into(),
                format!("bit({})", num(0).unwrap_or(1)),
                vec![],
            ),
            "date" => ("date".into(), "date".into(), vec![]),
            "time" | "datetime" | "timestamp" => {
                let fsp = num(0).unwrap_or(0);
                let t = if fsp > 0 {
                    format!("{w}({fsp})")
                } else {
                    w.clone()
                };
                (w.clone(), t, vec![])
            }
            "year" => ("year".into(), "year".into(), vec![]),
            "char" => (
                "char".into(),
                format!("char({})", num(0).unwrap_or(1)),
                vec![],
            ),
            "binary" => (
                "binary".into(),
                format!("binary({})", num(0).unwrap_or(1)),
                vec![],
            ),
            "varchar" | "varchar2" | "varcharacter" => match num(0) {
                Some(n) => ("varchar".into(), format!("varchar({n})"), vec![]),
                None => return self.err("VARCHAR needs a length"),
            },
            "varbinary" => match num(0) {
                Some(n) => ("varbinary".into(), format!("varbinary({n})"), vec![]),
                None => return self.err("VARBINARY needs a length"),
            },
            "tinytext" | "mediumtext" | "longtext" | "tinyblob" | "mediumblob" | "longblob"
            | "json" | "geometry" | "point" | "linestring" | "polygon" | "multipoint"
            | "multilinestring" | "multipolygon" | "geometrycollection" | "inet6" | "inet4"
            | "uuid" | "clob" | "raw" => {
                let t = match w.as_str() {
                    "clob" => "longtext".to_string(),
                    "raw" => "varbinary".to_string(),
                    other => other.to_string(),
                };
                (t.clone(), t, vec![])
            }
            "geomcollection" => (
                "geometrycollection".into(),
                "geometrycollection".into(),
                vec![],
            ),
            "text" | "blob" => {
                // TEXT(n) / BLOB(n) pick the smallest type holding n characters
                // (bytes for BLOB); the charset width is applied later for TEXT.
                let base = match num(0) {
                    None => w.clone(),
                    Some(n) => size_class(&w, n),
                };
                (base.clone(), base, vec![])
            }
            "enum" | "set" => {
                let quoted: Vec<String> = params
                    .iter()
                    .map(|l| format!("'{}'", l.replace('\'', "''")))
                    .collect();
                (
                    w.clone(),
                    format!("{w}({})", quoted.join(",")),
                    params.clone(),
                )
            }
            "vector" => match num(0) {
                Some(n) => ("vector".into(), format!("vector({n})"), vec![]),
                None => return self.err("VECTOR needs a dimension"),
            },
            other => return self.err(format!("unknown data type `{other}`")),
        };
        let mut unsigned = serial;
        let mut zerofill = false;
        loop {
            if self.eat_kw("UNSIGNED") {
                unsigned = true;
            } else if self.eat_kw("SIGNED") {
            } else if self.eat_kw("ZEROFILL") {
                zerofill = true;
                unsigned = true;
            } else {
                break;
            }
        }
        if unsigned && is_numeric(&sql_type) {
            data_type.push_str(" unsigned");
        } else {
            unsigned = false;
        }
        if zerofill {
            data_type.push_str(" zerofill");
        }
        Ok(TypeSpec {
            sql_type,
            data_type,
            unsigned,
            zerofill,
            labels,
            implied_charset,
            serial,
            binary_collation: false,
            text_length: if w == "text" { num(0) } else { None },
        })
    }

    /// `(a, b)` numbers, or for ENUM/SET `('x', 'y')` labels.
    fn type_params(&mut self, labels: bool) -> PResult<Vec<String>> {
        if !self.eat_punct("(") {
            return Ok(vec![]);
        }
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Str(s)) if labels => {
                    let mut s = s.clone();
                    self.i += 1;
                    // Adjacent strings concatenate.
                    while let Some(Tok::Str(more)) = self.peek() {
                        s.push_str(more);
                        self.i += 1;
                    }
                    out.push(s);
                }
                Some(Tok::Word(w)) if labels && w.starts_with('_') => {
                    // Charset introducer before a label.
                    self.i += 1;
                    continue;
                }
                Some(Tok::Num(n)) if !labels => {
                    out.push(n.clone());
                    self.i += 1;
                }
                // `BIT(M)` etc. never take words; MariaDB accepts `CHAR(1 CHAR)`? no.
                _ => return self.err("unexpected token in type parameters"),
            }
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(")")?;
            return Ok(out);
        }
    }

    fn table_option(&mut self, o: &mut TableOptions) -> PResult<()> {
        self.eat_punct(",");
        if self.at_end() {
            return Ok(());
        }
        let had_default = self.eat_kw("DEFAULT");
        if self.eat_kws(&["CHARACTER", "SET"]) || self.eat_kw("CHARSET") {
            self.eat_punct("=");
            o.charset = Some(self.name_or_string()?);
            return Ok(());
        }
        if self.eat_kw("COLLATE") {
            self.eat_punct("=");
            o.collation = Some(self.name_or_string()?);
            return Ok(());
        }
        if had_default {
            return self.err("expected CHARACTER SET or COLLATE after DEFAULT");
        }
        if self.eat_kws(&["WITH", "SYSTEM", "VERSIONING"]) {
            o.with_system_versioning = true;
            return Ok(());
        }
        if self.eat_kw("UNION") {
            self.eat_punct("=");
            self.skip_parens()?;
            return Ok(());
        }
        if self.eat_kw("DATA") || self.eat_kw("INDEX") {
            self.expect_kw("DIRECTORY")?;
            self.eat_punct("=");
            self.i += 1;
            return Ok(());
        }
        if self.eat_kws(&["START", "TRANSACTION"]) {
            return Ok(());
        }
        if self.eat_kw("TABLESPACE") {
            self.ident()?;
            if self.eat_kw("STORAGE") {
                self.ident()?;
            }
            return Ok(());
        }
        if self.eat_kw("STORAGE") {
            self.ident()?;
            return Ok(());
        }
        // Generic `NAME [=] value`: ENGINE, AUTO_INCREMENT, COMMENT,
        // ROW_FORMAT, PAGE_COMPRESSED, ENCRYPTED, ... and engine-defined ones.
        match self.peek() {
            Some(Tok::Word(_)) => {
                self.i += 1;
                self.eat_punct("=");
                match self.peek() {
                    Some(Tok::Word(_)) | Some(Tok::Quoted(_)) | Some(Tok::Str(_))
                    | Some(Tok::Num(_)) => {
                        self.i += 1;
                        // `ENGINE = InnoDB`; no further tokens belong to it.
                        Ok(())
                    }
                    _ => self.err("expected a table option value"),
                }
            }
            _ => self.err("unexpected table option"),
        }
    }

    fn table_options(&mut self, o: &mut TableOptions) -> PResult<()> {
        while !self.at_end() {
            if self.is_kw("PARTITION") {
                self.skip_partitioning()?;
                continue;
            }
            self.table_option(o)?;
        }
        Ok(())
    }

    /// `PARTITION BY ... [PARTITIONS n] [SUBPARTITION BY ...] [(defs)]`.
    fn skip_partitioning(&mut self) -> PResult<()> {
        self.expect_kw("PARTITION")?;
        self.expect_kw("BY")?;
        loop {
            if self.at_end() {
                return Ok(());
            }
            if self.is_punct("(") {
                self.skip_parens()?;
                continue;
            }
            // Partitioning ends where a query or a table option could start.
            if self.is_kw("SELECT")
                || self.is_kw("AS")
                || self.is_kw("IGNORE")
                || self.is_kw("REPLACE")
            {
                return Ok(());
            }
            self.i += 1;
        }
    }

    // ---- ALTER ----

    fn alter(&mut self) -> PResult<DdlStatement> {
        let _ = self.eat_kw("ONLINE") || self.eat_kw("OFFLINE");
        self.eat_kw("IGNORE");
        if self.eat_kw("TABLE") {
            return self.alter_table();
        }
        if self.is_kw("DATABASE") || self.is_kw("SCHEMA") {
            self.i += 1;
            let name = if self.is_kw("DEFAULT")
                || self.is_kw("CHARACTER")
                || self.is_kw("CHARSET")
                || self.is_kw("COLLATE")
                || self.is_kw("UPGRADE")
            {
                None
            } else {
                Some(self.ident()?)
            };
            if self.eat_kws(&["UPGRADE", "DATA", "DIRECTORY", "NAME"]) {
                return Ok(DdlStatement::NoChange("ALTER DATABASE".into()));
            }
            let (charset, collation) = self.database_options()?;
            return Ok(DdlStatement::AlterDatabase {
                name,
                charset,
                collation,
            });
        }
        let kind = self.object_word();
        Ok(DdlStatement::NoChange(format!("ALTER {kind}")))
    }

    fn alter_table(&mut self) -> PResult<DdlStatement> {
        self.if_exists();
        let table = self.table_name()?;
        self.skip_wait()?;
        let mut ops = Vec::new();
        loop {
            if self.at_end() {
                break;
            }
            if self.is_kw("PARTITION") && self.is_kw_at(1, "BY") {
                self.skip_partitioning()?;
                continue;
            }
            self.alter_spec(&mut ops)?;
            if self.eat_punct(",") {
                continue;
            }
            if self.at_end() {
                break;
            }
            // Table options may follow without a comma.
        }
        Ok(DdlStatement::AlterTable { table, ops })
    }

    fn position(&mut self) -> PResult<Option<ColumnPosition>> {
        if self.eat_kw("FIRST") {
            return Ok(Some(ColumnPosition::First));
        }
        if self.eat_kw("AFTER") {
            return Ok(Some(ColumnPosition::After(self.ident()?)));
        }
        Ok(None)
    }

    fn alter_spec(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
        if self.eat_kw("ADD") {
            return self.alter_add(ops);
        }
        if self.eat_kw("DROP") {
            return self.alter_drop(ops);
        }
        if self.eat_kw("CHANGE") {
            self.eat_kw("COLUMN");
            let if_exists = self.if_exists();
            let old = self.ident()?;
            let column = self.column_definition()?;
            let position = self.position()?;
            ops.push(AlterOp::ChangeColumn {
                old,
                column,
                position,
                if_exists,
            });
            return Ok(());
        }
        if self.eat_kw("MODIFY") {
            self.eat_kw("COLUMN");
            let if_exists = self.if_exists();
            let column = self.column_definition()?;
            let position = self.position()?;
            ops.push(AlterOp::ChangeColumn {
                old: column.name.clone(),
                column,
                position,
                if_exists,
            });
            return Ok(());
        }
        if self.eat_kw("RENAME") {
            if self.eat_kw("COLUMN") {
                self.if_exists();
                let old = self.ident()?;
                self.expect_kw("TO")?;
                let new = self.ident()?;
                ops.push(AlterOp::RenameColumn { old, new });
            } else if self.eat_kw("INDEX") || self.eat_kw("KEY") {
                self.if_exists();
                let old = self.ident()?;
                self.expect_kw("TO")?;
                let new = self.ident()?;
                ops.push(AlterOp::RenameKey { old, new });
            } else {
                let _ = self.eat_kw("TO") || self.eat_kw("AS");
                ops.push(AlterOp::RenameTable(self.table_name()?));
            }
            return Ok(());
        }
        if self.eat_kw("ALTER") {
            if self.eat_kw("INDEX") || self.eat_kw("KEY") {
                // ALTER INDEX i [NOT] VISIBLE / IGNORED
                self.ident()?;
                self.eat_kw("NOT");
                self.ident()?;
                return Ok(());
            }
            if self.eat_kw("CHECK") || self.eat_kw("CONSTRAINT") {
                self.ident()?;
                self.eat_kw("NOT");
                self.ident()?;
                return Ok(());
            }
            self.eat_kw("COLUMN");
            self.if_exists();
            let column = self.ident()?;
            if self.eat_kws(&["SET", "DEFAULT"]) {
                let default = self.expression()?;
                ops.push(AlterOp::SetDefault {
                    column,
                    default: Some(default),
                });
            } else if self.eat_kws(&["DROP", "DEFAULT"]) {
                ops.push(AlterOp::SetDefault {
                    column,
                    default: None,
                });
            } else if self.eat_kws(&["SET", "VISIBLE"]) {
                ops.push(AlterOp::SetVisibility {
                    column,
                    invisible: false,
                });
            } else if self.eat_kws(&["SET", "INVISIBLE"]) {
                ops.push(AlterOp::SetVisibility {
                    column,
                    invisible: true,
                });
            } else {
                return self.err("expected SET DEFAULT, DROP DEFAULT or SET [IN]VISIBLE");
            }
            return Ok(());
        }
        if self.eat_kw("CONVERT") {
            if self.eat_kw("TO") {
                if !(self.eat_kws(&["CHARACTER", "SET"]) || self.eat_kw("CHARSET")) {
                    return self.err("expected CHARACTER SET");
                }
                self.eat_punct("=");
                let charset = self.name_or_string()?;
                let mut collation = None;
                if self.eat_kw("COLLATE") {
                    self.eat_punct("=");
                    collation = Some(self.name_or_string()?);
                }
                ops.push(AlterOp::ConvertCharset { charset, collation });
                return Ok(());
            }
            if self.eat_kw("PARTITION") {
                self.ident()?;
                self.expect_kw("TO")?;
                self.expect_kw("TABLE")?;
                ops.push(AlterOp::PartitionToTable(self.table_name()?));
                return Ok(());
            }
            if self.eat_kw("TABLE") {
                let t = self.table_name()?;
                self.expect_kw("TO")?;
                self.expect_kw("PARTITION")?;
                self.skip_to_separator()?;
                ops.push(AlterOp::TableToPartition(t));
                return Ok(());
            }
            return self.err("expected TO, PARTITION or TABLE after CONVERT");
        }
        // Operations with no effect on columns.
        if self.eat_kw("ALGORITHM") || self.eat_kw("LOCK") {
            self.eat_punct("=");
            self.ident()?;
            return Ok(());
        }
        if self.eat_kw("FORCE")
            || self.eat_kws(&["ENABLE", "KEYS"])
            || self.eat_kws(&["DISABLE", "KEYS"])
        {
            return Ok(());
        }
        if self.eat_kws(&["WITH", "VALIDATION"]) || self.eat_kws(&["WITHOUT", "VALIDATION"]) {
            return Ok(());
        }
        if self.eat_kws(&["ORDER", "BY"]) {
            loop {
                self.ident()?;
                while self.eat_punct(".") {
                    self.ident()?;
                }
                let _ = self.eat_kw("ASC") || self.eat_kw("DESC");
                if !(self.is_punct(",")
                    && matches!(self.peek_at(1), Some(Tok::Word(w)) if !is_alter_start(w)))
                {
                    break;
                }
                self.i += 1;
            }
            return Ok(());
        }
        if self.eat_kw("DISCARD") || self.eat_kw("IMPORT") {
            if self.eat_kw("PARTITION") {
                self.partition_names()?;
            }
            self.expect_kw("TABLESPACE")?;
            return Ok(());
        }
        if self.eat_kws(&["REMOVE", "PARTITIONING"]) || self.eat_kws(&["UPGRADE", "PARTITIONING"]) {
            return Ok(());
        }
        for kw in [
            "COALESCE",
            "REORGANIZE",
            "EXCHANGE",
            "TRUNCATE",
            "ANALYZE",
            "CHECK",
            "OPTIMIZE",
            "REBUILD",
            "REPAIR",
        ] {
            if self.is_kw(kw) && self.is_kw_at(1, "PARTITION") {
                self.i += 2;
                self.skip_partition_op()?;
                return Ok(());
            }
        }
        if self.is_kw("PARTITION") && self.is_kw_at(1, "BY") {
            return self.skip_partitioning();
        }
        if self.is_kw("ADD") || self.is_kw("SECONDARY_LOAD") || self.is_kw("SECONDARY_UNLOAD") {
            self.i += 1;
            return Ok(());
        }
        let mut o = TableOptions::default();
        self.table_option(&mut o)?;
        if o != TableOptions::default() {
            ops.push(AlterOp::Options(o));
        }
        Ok(())
    }

    fn partition_names(&mut self) -> PResult<()> {
        if self.eat_kw("ALL") {
            return Ok(());
        }
        loop {
            self.ident()?;
            if self.is_punct(",")
                && matches!(self.peek_at(1), Some(Tok::Word(w)) if !is_alter_start(w))
            {
                self.i += 1;
                continue;
            }
            return Ok(());
        }
    }

    /// The rest of a partition maintenance operation, up to the next `,`
    /// that starts another alter specification, or the end.
    fn skip_partition_op(&mut self) -> PResult<()> {
        loop {
            if self.at_end() {
                return Ok(());
            }
            if self.is_punct("(") {
                self.skip_parens()?;
                continue;
            }
            if self.is_punct(",")
                && matches!(self.peek_at(1), Some(Tok::Word(w)) if is_alter_start(w))
            {
                return Ok(());
            }
            self.i += 1;
        }
    }

    fn alter_add(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
        if self.eat_kws(&["SYSTEM", "VERSIONING"]) {
            ops.push(AlterOp::AddSystemVersioning);
            return Ok(());
        }
        if self.is_kw("PERIOD") && self.is_kw_at(1, "FOR") {
            self.i += 2;
            self.if_not_exists();
            self.skip_to_separator()?;
            return Ok(());
        }
        if self.eat_kw("PARTITION") {
            self.if_not_exists();
            if self.is_punct("(") {
                self.skip_parens()?;
            }
            self.skip_partition_op()?;
            return Ok(());
        }
        let column_kw = self.eat_kw("COLUMN");
        let if_not_exists = self.if_not_exists();
        if !column_kw {
            // ADD [CONSTRAINT] PRIMARY KEY / UNIQUE / INDEX / FOREIGN KEY / CHECK
            let save = self.i;
            if let Some(k) = self.key_definition()? {
                ops.push(AlterOp::AddKey {
                    key: k,
                    if_not_exists,
                });
                return Ok(());
            }
            self.i = save;
        }
        if self.eat_punct("(") {
            // ADD [COLUMN] (col def, col def, key def ...)
            loop {
                let mut columns = Vec::new();
                let mut keys = Vec::new();
                self.create_element(&mut columns, &mut keys)?;
                for column in columns {
                    ops.push(AlterOp::AddColumn {
                        column,
                        position: None,
                        if_not_exists,
                    });
                }
                for key in keys {
                    ops.push(AlterOp::AddKey { key, if_not_exists });
                }
                if self.eat_punct(",") {
                    continue;
                }
                self.expect_punct(")")?;
                return Ok(());
            }
        }
        let column = self.column_definition()?;
        let position = self.position()?;
        ops.push(AlterOp::AddColumn {
            column,
            position,
            if_not_exists,
        });
        Ok(())
    }

    fn alter_drop(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
        if self.eat_kws(&["PRIMARY", "KEY"]) || self.eat_kws(&["CONSTRAINT", "PRIMARY", "KEY"]) {
            ops.push(AlterOp::DropPrimaryKey);
            return Ok(());
        }
        if self.eat_kws(&["SYSTEM", "VERSIONING"]) {
            ops.push(AlterOp::DropSystemVersioning);
            return Ok(());
        }
        if self.is_kw("PERIOD") && self.is_kw_at(1, "FOR") {
            self.i += 2;
            self.if_exists();
            self.ident()?;
            return Ok(());
        }
        if self.eat_kw("INDEX")
            || self.eat_kw("KEY")
            || self.eat_kw("CONSTRAINT")
            || self.eat_kw("CHECK")
        {
            self.if_exists();
            let name = self.ident()?;
            ops.push(AlterOp::DropKey { name });
            return Ok(());
        }
        if self.eat_kws(&["FOREIGN", "KEY"]) {
            self.if_exists();
            self.ident()?;
            return Ok(());
        }
        if self.eat_kw("PARTITION") {
            self.if_exists();
            self.partition_names()?;
            return Ok(());
        }
        self.eat_kw("COLUMN");
        let if_exists = self.if_exists();
        let name = self.ident()?;
        let _ = self.eat_kw("RESTRICT") || self.eat_kw("CASCADE");
        ops.push(AlterOp::DropColumn { name, if_exists });
        Ok(())
    }

    // ---- DROP / RENAME ----

    fn drop(&mut self) -> PResult<DdlStatement> {
        let temporary = self.eat_kw("TEMPORARY");
        if self.eat_kw("TABLE") || self.eat_kw("TABLES") || self.eat_kw("SEQUENCE") {
            let if_exists = self.if_exists();
            let mut tables = vec![self.table_name()?];
            while self.eat_punct(",") {
                tables.push(self.table_name()?);
            }
            self.skip_wait()?;
            let _ = self.eat_kw("RESTRICT") || self.eat_kw("CASCADE");
            self.end()?;
            return Ok(DdlStatement::DropTables {
                tables,
                if_exists,
                temporary,
            });
        }
        if self.is_kw("DATABASE") || self.is_kw("SCHEMA") {
            self.i += 1;
            let if_exists = self.if_exists();
            let name = self.ident()?;
            self.end()?;
            return Ok(DdlStatement::DropDatabase { name, if_exists });
        }
        if self.eat_kw("INDEX") {
            // DROP INDEX [IF EXISTS] name ON tbl
            self.if_exists();
            let name = self.ident()?;
            self.expect_kw("ON")?;
            let table = self.table_name()?;
            return Ok(DdlStatement::AlterTable {
                table,
                ops: vec![AlterOp::DropKey { name }],
            });
        }
        let kind = self.object_word();
        Ok(DdlStatement::NoChange(format!("DROP {kind}")))
    }

    fn rename(&mut self) -> PResult<DdlStatement> {
        if !(self.eat_kw("TABLE") || self.eat_kw("TABLES")) {
            let kind = self.object_word();
            return Ok(DdlStatement::NoChange(format!("RENAME {kind}")));
        }
        self.if_exists();
        let mut pairs = Vec::new();
        loop {
            let from = self.table_name()?;
            self.skip_wait()?;
            self.expect_kw("TO")?;
            let to = self.table_name()?;
            pairs.push((from, to));
            if self.eat_punct(",") {
                self.if_exists();
                continue;
            }
            break;
        }
        self.end()?;
        Ok(DdlStatement::RenameTables(pairs))
    }
}

fn is_numeric(t: &str) -> bool {
    matches!(
        t,
        "tinyint" | "smallint" | "mediumint" | "int" | "bigint" | "decimal" | "float" | "double"
    )
}

/// TEXT(n)/BLOB(n) size classes by byte length (characters for TEXT are
/// scaled by the catalog once the charset is known).
pub(crate) fn size_class(base: &str, bytes: u64) -> String {
    let prefix = match bytes {
        0..=255 => "tiny",
        256..=65535 => "",
        65536..=16_777_215 => "medium",
        _ => "long",
    };
    let kind = if base.contains("blob") {
        "blob"
    } else {
        "text"
    };
    format!("{prefix}{kind}")
}

/// Words that begin an ALTER TABLE specification (for lists whose commas
/// could also separate specifications).
fn is_alter_start(w: &str) -> bool {
    const STARTS: &[&str] = &[
        "ADD",
        "DROP",
        "CHANGE",
        "MODIFY",
        "RENAME",
        "ALTER",
        "CONVERT",
        "ALGORITHM",
        "LOCK",
        "FORCE",
        "ENABLE",
        "DISABLE",
        "ORDER",
        "ENGINE",
        "DEFAULT",
        "CHARACTER",
        "CHARSET",
        "COLLATE",
        "COMMENT",
        "AUTO_INCREMENT",
        "ROW_FORMAT",
        "PARTITION",
        "COALESCE",
        "REORGANIZE",
        "EXCHANGE",
        "TRUNCATE",
        "ANALYZE",
        "CHECK",
        "OPTIMIZE",
        "REBUILD",
        "REPAIR",
        "REMOVE",
        "DISCARD",
        "IMPORT",
        "WITH",
        "WITHOUT",
        "KEY_BLOCK_SIZE",
        "STATS_PERSISTENT",
        "PAGE_COMPRESSED",
        "ENCRYPTED",
    ];
    STARTS.iter().any(|t| t.eq_ignore_ascii_case(w))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(sql: &str) -> DdlStatement {
        parse_statement(sql, LexOptions::default()).unwrap_or_else(|e| panic!("{sql}: {e}"))
    }

    #[test]
    fn create_table_columns_keys_options() {
        let s = p("CREATE TABLE IF NOT EXISTS `shop`.`t` (
            id INT UNSIGNED NOT NULL AUTO_INCREMENT,
            name VARCHAR(64) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'x' COMMENT 'n',
            e ENUM('a','b''c') NOT NULL DEFAULT 'a',
            g INT AS (id * 2) VIRTUAL INVISIBLE,
            d DECIMAL(10,2) ZEROFILL,
            PRIMARY KEY (id),
            UNIQUE KEY uk (name(10), e),
            KEY k (name),
            CONSTRAINT fk FOREIGN KEY (id) REFERENCES o (id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 /*!50100 PARTITION BY HASH (id) PARTITIONS 4 */");
        let DdlStatement::CreateTable {
            table,
            columns,
            keys,
            options,
            if_not_exists,
            with_select,
            ..
        } = s
        else {
            panic!("{s:?}")
        };
        assert!(if_not_exists && !with_select);
        assert_eq!(table.db.as_deref(), Some("shop"));
        assert_eq!(columns.len(), 5);
        assert_eq!(columns[0].ty.data_type, "int unsigned");
        assert_eq!(columns[1].charset.as_deref(), Some("latin1"));
        assert_eq!(columns[1].default.as_deref(), Some("'x'"));
        assert_eq!(columns[2].ty.labels, vec!["a", "b'c"]);
        assert_eq!(columns[2].ty.data_type, "enum('a','b''c')");
        assert_eq!(
            columns[3].generated,
            Some(Generated::Virtual {
                expr: "id * 2".into()
            })
        );
        assert!(columns[3].invisible);
        assert_eq!(columns[4].ty.data_type, "decimal(10,2) unsigned zerofill");
        assert_eq!(keys.len(), 4);
        assert_eq!(keys[0].kind, KeyType::Primary);
        assert_eq!(keys[1].columns, vec!["name", "e"]);
        assert_eq!(options.charset.as_deref(), Some("utf8mb4"));
    }

    #[test]
    fn alter_table_forms() {
        let s = p(
            "ALTER TABLE t ADD COLUMN IF NOT EXISTS c INT AFTER b, DROP COLUMN IF EXISTS d,
                   CHANGE a a2 BIGINT FIRST, MODIFY b TEXT, RENAME COLUMN x TO y,
                   ALTER COLUMN z SET DEFAULT 5, ADD (p INT, q INT), ALGORITHM=INPLACE, LOCK=NONE,
                   ADD PRIMARY KEY (a2), DROP INDEX i, ADD UNIQUE INDEX IF NOT EXISTS u (p),
                   CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, ENGINE=InnoDB,
                   ADD PARTITION (PARTITION p3 VALUES LESS THAN (30)), RENAME TO t2",
        );
        let DdlStatement::AlterTable { ops, .. } = s else {
            panic!()
        };
        let kinds: Vec<String> = ops
            .iter()
            .map(|o| {
                format!("{o:?}")
                    .split([' ', '{', '('])
                    .next()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "AddColumn",
                "DropColumn",
                "ChangeColumn",
                "ChangeColumn",
                "RenameColumn",
                "SetDefault",
                "AddColumn",
                "AddColumn",
                "AddKey",
                "DropKey",
                "AddKey",
                "ConvertCharset",
                "RenameTable"
            ]
        );
    }

    #[test]
    fn non_ddl_is_recognised_fast() {
        for sql in [
            "BEGIN",
            "COMMIT",
            "INSERT INTO t VALUES (1)",
            "GRANT ALL ON *.* TO x",
            "SET @a = 1",
            "FLUSH TABLES",
            "ANALYZE TABLE t",
        ] {
            assert!(matches!(p(sql), DdlStatement::NoChange(_)), "{sql}");
        }
        for sql in [
            "CREATE VIEW v AS SELECT 1",
            "CREATE DEFINER=`root`@`%` TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1",
            "CREATE INDEX i ON t (a)",
            "DROP VIEW v",
            "CREATE USER u",
            "ALTER USER u IDENTIFIED BY 'x'",
        ] {
            assert!(matches!(p(sql), DdlStatement::NoChange(_)), "{sql}");
        }
    }
}
