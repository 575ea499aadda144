//! Whole statements: the dispatch on the first keyword, CREATE (table,
//! database, sequence, unique index), ALTER (table dispatch, database), DROP
//! and RENAME.

use super::cursor::{PResult, Parser};
use crate::ddl::*;
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn statement(&mut self) -> PResult<DdlStatement> {
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
