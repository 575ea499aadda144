//! The token cursor the parser's rules read with (look ahead, eat, expect,
//! skip balanced groups, names) and [`ParseError`], the one error they give.

use crate::ddl::TableName;
use crate::lexer::{Tok, Token};

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

pub(super) type PResult<T> = Result<T, ParseError>;

pub(super) struct Parser<'a> {
    pub(super) t: &'a [Token],
    pub(super) i: usize,
    pub(super) sql: &'a str,
}

impl<'a> Parser<'a> {
    // ---- cursor helpers ----

    pub(super) fn peek(&self) -> Option<&'a Tok> {
        self.t.get(self.i).map(|t| &t.tok)
    }
    pub(super) fn peek_at(&self, k: usize) -> Option<&'a Tok> {
        self.t.get(self.i + k).map(|t| &t.tok)
    }
    pub(super) fn at_end(&self) -> bool {
        self.i >= self.t.len() || self.peek().is_some_and(|t| t.is_punct(";"))
    }
    pub(super) fn err<T>(&self, msg: impl Into<String>) -> PResult<T> {
        let found = match self.peek() {
            Some(t) => format!("{t:?}"),
            None => "end of statement".to_string(),
        };
        Err(ParseError {
            message: format!("{}, found {found}", msg.into()),
            at: self.t.get(self.i).map(|t| t.start),
        })
    }
    pub(super) fn is_kw(&self, kw: &str) -> bool {
        self.peek().is_some_and(|t| t.is_kw(kw))
    }
    pub(super) fn is_kw_at(&self, k: usize, kw: &str) -> bool {
        self.peek_at(k).is_some_and(|t| t.is_kw(kw))
    }
    pub(super) fn is_punct(&self, p: &str) -> bool {
        self.peek().is_some_and(|t| t.is_punct(p))
    }
    pub(super) fn eat_kw(&mut self, kw: &str) -> bool {
        if self.is_kw(kw) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn eat_kws(&mut self, kws: &[&str]) -> bool {
        if kws.iter().enumerate().all(|(k, kw)| self.is_kw_at(k, kw)) {
            self.i += kws.len();
            true
        } else {
            false
        }
    }
    pub(super) fn eat_punct(&mut self, p: &str) -> bool {
        if self.is_punct(p) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn expect_kw(&mut self, kw: &str) -> PResult<()> {
        if self.eat_kw(kw) {
            Ok(())
        } else {
            self.err(format!("expected {kw}"))
        }
    }
    pub(super) fn expect_punct(&mut self, p: &str) -> PResult<()> {
        if self.eat_punct(p) {
            Ok(())
        } else {
            self.err(format!("expected `{p}`"))
        }
    }
    pub(super) fn end(&mut self) -> PResult<()> {
        while self.eat_punct(";") {}
        if self.i < self.t.len() {
            return self.err("expected end of statement");
        }
        Ok(())
    }

    /// An identifier: a word or a quoted identifier.
    pub(super) fn ident(&mut self) -> PResult<String> {
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

    pub(super) fn table_name(&mut self) -> PResult<TableName> {
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
    pub(super) fn name_or_string(&mut self) -> PResult<String> {
        match self.peek() {
            Some(Tok::Word(w)) | Some(Tok::Quoted(w)) | Some(Tok::Str(w)) => {
                self.i += 1;
                Ok(w.clone())
            }
            _ => self.err("expected a name"),
        }
    }

    /// Skips one balanced group starting at `(`.
    pub(super) fn skip_parens(&mut self) -> PResult<()> {
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
    pub(super) fn skip_to_separator(&mut self) -> PResult<()> {
        loop {
            match self.peek() {
                None => return Ok(()),
                Some(t) if t.is_punct(",") || t.is_punct(")") || t.is_punct(";") => return Ok(()),
                Some(t) if t.is_punct("(") => self.skip_parens()?,
                _ => self.i += 1,
            }
        }
    }

    pub(super) fn text_from(&self, start_tok: usize) -> String {
        let s = self.t.get(start_tok).map(|t| t.start).unwrap_or(0);
        let e = if self.i > start_tok {
            self.t.get(self.i - 1).map(|t| t.end).unwrap_or(s)
        } else {
            s
        };
        self.sql.get(s..e).unwrap_or("").trim().to_string()
    }

    /// MariaDB `WAIT n` / `NOWAIT`.
    pub(super) fn skip_wait(&mut self) -> PResult<()> {
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

    pub(super) fn if_not_exists(&mut self) -> bool {
        self.eat_kws(&["IF", "NOT", "EXISTS"])
    }
    pub(super) fn if_exists(&mut self) -> bool {
        self.eat_kws(&["IF", "EXISTS"])
    }
}
