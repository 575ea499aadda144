//! ALTER TABLE: the list of specifications (ADD, DROP, CHANGE, MODIFY,
//! RENAME, ALTER COLUMN, CONVERT, partition maintenance, table options).

use super::cursor::{PResult, Parser};
use crate::ddl::*;
use crate::lexer::Tok;

impl Parser<'_> {
    pub(super) fn alter_table(&mut self) -> PResult<DdlStatement> {
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

    /// One ALTER TABLE specification, its effect on columns and keys pushed
    /// to `ops`.
    fn alter_spec(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
        if self.eat_kw("ADD") {
            return self.alter_add(ops);
        }
        if self.eat_kw("DROP") {
            return self.alter_drop(ops);
        }
        if self.eat_kw("CHANGE") {
            return self.alter_change(ops);
        }
        if self.eat_kw("MODIFY") {
            return self.alter_modify(ops);
        }
        if self.eat_kw("RENAME") {
            return self.alter_rename(ops);
        }
        if self.eat_kw("ALTER") {
            return self.alter_alter(ops);
        }
        if self.eat_kw("CONVERT") {
            return self.alter_convert(ops);
        }
        if self.skip_no_column_effect()? {
            return Ok(());
        }
        let mut o = TableOptions::default();
        self.table_option(&mut o)?;
        if o != TableOptions::default() {
            ops.push(AlterOp::Options(o));
        }
        Ok(())
    }

    /// `CHANGE [COLUMN] [IF EXISTS] old new_definition [FIRST|AFTER c]`.
    fn alter_change(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
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
        Ok(())
    }

    /// `MODIFY [COLUMN] [IF EXISTS] definition [FIRST|AFTER c]`.
    fn alter_modify(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
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
        Ok(())
    }

    /// `RENAME COLUMN a TO b`, `RENAME INDEX|KEY a TO b`, `RENAME [TO|AS] t`.
    fn alter_rename(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
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
        Ok(())
    }

    /// `ALTER [COLUMN] c SET DEFAULT | DROP DEFAULT | SET [IN]VISIBLE`; index and
    /// constraint visibility (no effect on columns).
    fn alter_alter(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
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
        Ok(())
    }

    /// `CONVERT TO CHARACTER SET`, `CONVERT PARTITION p TO TABLE t`,
    /// `CONVERT TABLE t TO PARTITION ...`.
    fn alter_convert(&mut self, ops: &mut Vec<AlterOp>) -> PResult<()> {
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
        self.err("expected TO, PARTITION or TABLE after CONVERT")
    }

    /// Specifications with no effect on columns (ALGORITHM, LOCK, FORCE, ORDER BY,
    /// tablespace and partition maintenance, ...), skipped; `false` when none
    /// starts here.
    fn skip_no_column_effect(&mut self) -> PResult<bool> {
        if self.eat_kw("ALGORITHM") || self.eat_kw("LOCK") {
            self.eat_punct("=");
            self.ident()?;
            return Ok(true);
        }
        if self.eat_kw("FORCE")
            || self.eat_kws(&["ENABLE", "KEYS"])
            || self.eat_kws(&["DISABLE", "KEYS"])
        {
            return Ok(true);
        }
        if self.eat_kws(&["WITH", "VALIDATION"]) || self.eat_kws(&["WITHOUT", "VALIDATION"]) {
            return Ok(true);
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
            return Ok(true);
        }
        if self.eat_kw("DISCARD") || self.eat_kw("IMPORT") {
            if self.eat_kw("PARTITION") {
                self.partition_names()?;
            }
            self.expect_kw("TABLESPACE")?;
            return Ok(true);
        }
        if self.eat_kws(&["REMOVE", "PARTITIONING"]) || self.eat_kws(&["UPGRADE", "PARTITIONING"]) {
            return Ok(true);
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
                return Ok(true);
            }
        }
        if self.is_kw("PARTITION") && self.is_kw_at(1, "BY") {
            self.skip_partitioning()?;
            return Ok(true);
        }
        if self.is_kw("ADD") || self.is_kw("SECONDARY_LOAD") || self.is_kw("SECONDARY_UNLOAD") {
            self.i += 1;
            return Ok(true);
        }
        Ok(false)
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
