//! The parts of a table definition besides column types: the element list
//! of CREATE TABLE (columns, keys, constraints), table options and
//! partitioning clauses (skipped by structure).

use super::cursor::{PResult, Parser};
use crate::ddl::*;
use crate::lexer::Tok;

impl Parser<'_> {
    /// One element of a CREATE TABLE list.
    pub(super) fn create_element(
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
    pub(super) fn key_definition(&mut self) -> PResult<Option<KeyDefinition>> {
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
    pub(super) fn key_columns(&mut self) -> PResult<Vec<String>> {
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

    pub(super) fn table_option(&mut self, o: &mut TableOptions) -> PResult<()> {
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

    pub(super) fn table_options(&mut self, o: &mut TableOptions) -> PResult<()> {
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
    pub(super) fn skip_partitioning(&mut self) -> PResult<()> {
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
}
