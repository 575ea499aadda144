//! Column definitions: the name, the type and the attributes after it
//! (nullability, defaults, keys, character sets, generated and invisible
//! columns, references), and expressions kept as text.

use super::cursor::{PResult, Parser};
use crate::ddl::*;
use crate::lexer::Tok;
use crate::model::Generated;

impl Parser<'_> {
    pub(super) fn column_definition(&mut self) -> PResult<ColumnDefinition> {
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

    /// The attributes after a column's type, up to the end of the definition.
    fn column_attributes(&mut self, c: &mut ColumnDefinition) -> PResult<()> {
        loop {
            if self.column_ends() {
                return Ok(());
            }
            if !(self.basic_attribute(c)?
                || self.generation_or_visibility(c)?
                || self.reference_or_engine_attribute(c)?)
            {
                return self.err("unexpected column attribute");
            }
        }
    }

    /// Whether the column definition ends here (end, `,`, `)` or a keyword
    /// that ends a column definition inside ALTER TABLE).
    fn column_ends(&self) -> bool {
        if self.at_end() || self.is_punct(",") || self.is_punct(")") {
            return true;
        }
        // Keywords that end a column definition inside ALTER TABLE.
        if self.is_kw("FIRST")
            || self.is_kw("AFTER")
            || (self.is_kw("REMOVE") && self.is_kw_at(1, "PARTITIONING"))
            || (self.is_kw("PARTITION") && self.is_kw_at(1, "BY"))
        {
            return true;
        }
        false
    }

    /// Nullability, default, keys, comment, character set and collation,
    /// storage; `false` when none of them starts here.
    fn basic_attribute(&mut self, c: &mut ColumnDefinition) -> PResult<bool> {
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
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// Generated columns, system-versioning markers and visibility; `false`
    /// when none of them starts here.
    fn generation_or_visibility(&mut self, c: &mut ColumnDefinition) -> PResult<bool> {
        if self.is_kw("GENERATED") || self.is_kw("AS") {
            self.generated_clause(c)?;
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
        } else {
            return Ok(false);
        }
        Ok(true)
    }

    /// `[GENERATED ALWAYS] AS (expr) [VIRTUAL|STORED]`, `AS ROW START|END`,
    /// `AS IDENTITY`.
    fn generated_clause(&mut self, c: &mut ColumnDefinition) -> PResult<()> {
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
            return Ok(());
        }
        if self.eat_kw("IDENTITY") {
            if self.is_punct("(") {
                self.skip_parens()?;
            }
            c.auto_increment = true;
            return Ok(());
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
        Ok(())
    }

    /// REFERENCES, CHECK constraints, compression, SRID, `SERIAL DEFAULT
    /// VALUE` and engine-defined attributes; `false` when none starts here.
    fn reference_or_engine_attribute(&mut self, c: &mut ColumnDefinition) -> PResult<bool> {
        if self.eat_kw("REFERENCES") {
            self.references_clause()?;
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
            return Ok(false);
        }
        Ok(true)
    }

    /// The rest of `REFERENCES tbl [(cols)] [MATCH x] [ON DELETE|UPDATE action]...`.
    fn references_clause(&mut self) -> PResult<()> {
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
        Ok(())
    }

    /// An expression as text: a literal, a function call, a parenthesised
    /// expression, or several joined by operators (DEFAULT, ON UPDATE).
    pub(super) fn expression(&mut self) -> PResult<String> {
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
}
