//! sqlparser's tree mapped to a [`DdlStatement`]: the statements and ALTER
//! TABLE operations this crate follows, with column definitions, keys and
//! table options rendered back to SQL and read by the hand-written
//! [`parser`](crate::fallback_parser)'s element rules, so both readers give one
//! meaning to each clause. Any form not mapped here is an error, and the
//! caller falls back to the hand-written parser.

use sqlparser::ast::{
    AlterColumnOperation, AlterTableOperation, CreateIndex, CreateTable, CreateTableLikeKind,
    MySQLColumnPosition, ObjectName, ObjectNamePart, ObjectType, RenameTableNameKind, SchemaName,
    Statement,
};
use sqlparser::dialect::MySqlDialect;

use crate::ddl::*;
use crate::fallback_parser::{
    parse_column_definition, parse_create_element, parse_table_options, ParseError,
};
use crate::lexer::LexOptions;

fn unsupported<T>(what: impl Into<String>) -> Result<T, ParseError> {
    Err(ParseError {
        message: what.into(),
        at: None,
    })
}

/// sqlparser alone: parse with the MySQL dialect and map the tree. Fails
/// when sqlparser rejects the statement or the tree holds a form this
/// crate does not map.
pub fn with_sqlparser(sql: &str, opts: LexOptions) -> Result<DdlStatement, ParseError> {
    // sqlparser knows neither ANSI_QUOTES nor MariaDB's executable comments.
    if opts.ansi_quotes || sql.contains("/*M!") {
        return unsupported("sql_mode or comments sqlparser does not read");
    }
    let stmts =
        sqlparser::parser::Parser::parse_sql(&MySqlDialect {}, sql).map_err(|e| ParseError {
            message: format!("sqlparser: {e}"),
            at: None,
        })?;
    let [stmt] = stmts.as_slice() else {
        return unsupported("not exactly one statement");
    };
    convert(stmt, opts)
}

fn name_of(o: &ObjectName) -> Result<TableName, ParseError> {
    let parts: Vec<String> =
        o.0.iter()
            .map(|p| match p {
                ObjectNamePart::Identifier(i) => Ok(i.value.clone()),
                ObjectNamePart::Function(_) => unsupported("function in an object name"),
            })
            .collect::<Result<_, _>>()?;
    match parts.as_slice() {
        [name] => Ok(TableName {
            db: None,
            name: name.clone(),
        }),
        [db, name] => Ok(TableName {
            db: Some(db.clone()),
            name: name.clone(),
        }),
        _ => unsupported("object name with more than two parts"),
    }
}

fn position(p: &Option<MySQLColumnPosition>) -> Option<ColumnPosition> {
    match p {
        None => None,
        Some(MySQLColumnPosition::First) => Some(ColumnPosition::First),
        Some(MySQLColumnPosition::After(c)) => Some(ColumnPosition::After(c.value.clone())),
    }
}

/// One statement of sqlparser's tree as a [`DdlStatement`].
fn convert(stmt: &Statement, opts: LexOptions) -> Result<DdlStatement, ParseError> {
    Ok(match stmt {
        Statement::CreateTable(ct) => create_table(ct, opts)?,
        Statement::AlterTable(at) => {
            let table = name_of(&at.name)?;
            let mut ops = Vec::new();
            for op in &at.operations {
                alter_op(op, opts, &mut ops)?;
            }
            DdlStatement::AlterTable { table, ops }
        }
        Statement::RenameTable(pairs) => DdlStatement::RenameTables(
            pairs
                .iter()
                .map(|r| Ok((name_of(&r.old_name)?, name_of(&r.new_name)?)))
                .collect::<Result<_, ParseError>>()?,
        ),
        Statement::Drop {
            object_type,
            if_exists,
            names,
            temporary,
            table,
            ..
        } => drop_objects(object_type, *if_exists, names, *temporary, table)?,
        Statement::Truncate(t) => {
            let [target] = t.table_names.as_slice() else {
                return unsupported("TRUNCATE of several tables");
            };
            DdlStatement::Truncate(name_of(&target.name)?)
        }
        Statement::CreateDatabase {
            db_name,
            if_not_exists,
            or_replace,
            default_charset,
            default_collation,
            ..
        } => DdlStatement::CreateDatabase {
            name: name_of(db_name)?.name,
            if_not_exists: *if_not_exists,
            or_replace: *or_replace,
            charset: default_charset.clone(),
            collation: default_collation.clone(),
        },
        Statement::CreateSchema {
            schema_name,
            if_not_exists,
            or_replace,
            options,
            with,
            default_collate_spec,
            ..
        } => {
            if options.is_some() || with.is_some() || default_collate_spec.is_some() {
                return unsupported("CREATE SCHEMA with options");
            }
            let SchemaName::Simple(n) = schema_name else {
                return unsupported("CREATE SCHEMA AUTHORIZATION");
            };
            DdlStatement::CreateDatabase {
                name: name_of(n)?.name,
                if_not_exists: *if_not_exists,
                or_replace: *or_replace,
                charset: None,
                collation: None,
            }
        }
        Statement::CreateIndex(ci) => create_index(ci, opts)?,
        Statement::CreateView { .. } => DdlStatement::NoChange("CREATE VIEW".into()),
        Statement::CreateTrigger { .. } => DdlStatement::NoChange("CREATE TRIGGER".into()),
        Statement::CreateProcedure { .. } => DdlStatement::NoChange("CREATE PROCEDURE".into()),
        Statement::CreateFunction { .. } => DdlStatement::NoChange("CREATE FUNCTION".into()),
        Statement::CreateRole { .. } | Statement::CreateUser { .. } => {
            DdlStatement::NoChange("CREATE USER".into())
        }
        Statement::DropTrigger { .. } => DdlStatement::NoChange("DROP TRIGGER".into()),
        Statement::DropFunction { .. } => DdlStatement::NoChange("DROP FUNCTION".into()),
        Statement::DropProcedure { .. } => DdlStatement::NoChange("DROP PROCEDURE".into()),
        Statement::AlterView { .. } => DdlStatement::NoChange("ALTER VIEW".into()),
        Statement::AlterUser { .. } | Statement::AlterRole { .. } => {
            DdlStatement::NoChange("ALTER USER".into())
        }
        _ => return unsupported("statement kind not mapped"),
    })
}

/// `CREATE TABLE`: `LIKE`, or columns, keys and table options read back
/// through the hand-written element rules.
fn create_table(ct: &CreateTable, opts: LexOptions) -> Result<DdlStatement, ParseError> {
    let table = name_of(&ct.name)?;
    if let Some(like) = &ct.like {
        let l = match like {
            CreateTableLikeKind::Parenthesized(l) | CreateTableLikeKind::Plain(l) => l,
        };
        return Ok(DdlStatement::CreateTableLike {
            table,
            like: name_of(&l.name)?,
            temporary: ct.temporary,
            if_not_exists: ct.if_not_exists,
            or_replace: ct.or_replace,
        });
    }
    if ct.clone.is_some() {
        return unsupported("CREATE TABLE ... CLONE");
    }
    let mut columns = Vec::new();
    let mut keys = Vec::new();
    for c in &ct.columns {
        columns.push(parse_column_definition(&c.to_string(), opts)?);
    }
    for k in &ct.constraints {
        let (col, key) = parse_create_element(&k.to_string(), opts)?;
        if col.is_some() {
            return unsupported("constraint read as a column");
        }
        keys.extend(key);
    }
    let options = parse_table_options(&ct.table_options.to_string(), opts)?;
    Ok(DdlStatement::CreateTable {
        table,
        temporary: ct.temporary,
        if_not_exists: ct.if_not_exists,
        or_replace: ct.or_replace,
        columns,
        keys,
        options,
        with_select: ct.query.is_some(),
    })
}

/// `DROP TABLE | SEQUENCE | DATABASE | SCHEMA | INDEX ... ON t`; any other
/// object changes no table.
fn drop_objects(
    object_type: &ObjectType,
    if_exists: bool,
    names: &[ObjectName],
    temporary: bool,
    table: &Option<ObjectName>,
) -> Result<DdlStatement, ParseError> {
    Ok(match object_type {
        ObjectType::Table | ObjectType::Sequence => DdlStatement::DropTables {
            tables: names.iter().map(name_of).collect::<Result<_, _>>()?,
            if_exists,
            temporary,
        },
        ObjectType::Schema | ObjectType::Database => {
            let [n] = names else {
                return unsupported("DROP DATABASE of several names");
            };
            DdlStatement::DropDatabase {
                name: name_of(n)?.name,
                if_exists,
            }
        }
        ObjectType::Index => {
            let (Some(t), [n]) = (table, names) else {
                return unsupported("DROP INDEX without ON table");
            };
            DdlStatement::AlterTable {
                table: name_of(t)?,
                ops: vec![AlterOp::DropKey {
                    name: name_of(n)?.name,
                }],
            }
        }
        other => DdlStatement::NoChange(format!("DROP {other}").to_ascii_uppercase()),
    })
}

/// `CREATE UNIQUE INDEX` as an added key; a plain index changes no column.
fn create_index(ci: &CreateIndex, opts: LexOptions) -> Result<DdlStatement, ParseError> {
    let table = name_of(&ci.table_name)?;
    if !ci.unique {
        return Ok(DdlStatement::NoChange("CREATE INDEX".into()));
    }
    let cols: Vec<String> = ci.columns.iter().map(|c| c.to_string()).collect();
    let (_, key) = parse_create_element(&format!("UNIQUE KEY k ({})", cols.join(", ")), opts)?;
    let Some(mut key) = key else {
        return unsupported("unique index without columns");
    };
    key.name = match &ci.name {
        Some(n) => Some(name_of(n)?.name),
        None => None,
    };
    Ok(DdlStatement::AlterTable {
        table,
        ops: vec![AlterOp::AddKey {
            key,
            if_not_exists: ci.if_not_exists,
        }],
    })
}

fn alter_op(
    op: &AlterTableOperation,
    opts: LexOptions,
    ops: &mut Vec<AlterOp>,
) -> Result<(), ParseError> {
    match op {
        AlterTableOperation::AddColumn {
            if_not_exists,
            column_def,
            column_position,
            ..
        } => ops.push(AlterOp::AddColumn {
            column: parse_column_definition(&column_def.to_string(), opts)?,
            position: position(column_position),
            if_not_exists: *if_not_exists,
        }),
        AlterTableOperation::AddConstraint { constraint, .. } => {
            let (col, key) = parse_create_element(&constraint.to_string(), opts)?;
            if col.is_some() {
                return unsupported("constraint read as a column");
            }
            if let Some(key) = key {
                ops.push(AlterOp::AddKey {
                    key,
                    if_not_exists: false,
                });
            }
        }
        AlterTableOperation::DropColumn {
            column_names,
            if_exists,
            ..
        } => {
            for n in column_names {
                ops.push(AlterOp::DropColumn {
                    name: n.value.clone(),
                    if_exists: *if_exists,
                });
            }
        }
        AlterTableOperation::DropPrimaryKey { .. } => ops.push(AlterOp::DropPrimaryKey),
        AlterTableOperation::DropIndex { name } => ops.push(AlterOp::DropKey {
            name: name.value.clone(),
        }),
        AlterTableOperation::DropConstraint { name, .. } => ops.push(AlterOp::DropKey {
            name: name.value.clone(),
        }),
        AlterTableOperation::DropForeignKey { .. } => {}
        AlterTableOperation::RenameColumn {
            old_column_name,
            new_column_name,
        } => ops.push(AlterOp::RenameColumn {
            old: old_column_name.value.clone(),
            new: new_column_name.value.clone(),
        }),
        AlterTableOperation::RenameTable { table_name } => {
            let n = match table_name {
                RenameTableNameKind::As(n) | RenameTableNameKind::To(n) => n,
            };
            ops.push(AlterOp::RenameTable(name_of(n)?));
        }
        AlterTableOperation::ChangeColumn {
            old_name,
            new_name,
            data_type,
            options,
            column_position,
        } => {
            let text = column_text(&new_name.to_string(), data_type, options);
            ops.push(AlterOp::ChangeColumn {
                old: old_name.value.clone(),
                column: parse_column_definition(&text, opts)?,
                position: position(column_position),
                if_exists: false,
            });
        }
        AlterTableOperation::ModifyColumn {
            col_name,
            data_type,
            options,
            column_position,
        } => {
            let text = column_text(&col_name.to_string(), data_type, options);
            ops.push(AlterOp::ChangeColumn {
                old: col_name.value.clone(),
                column: parse_column_definition(&text, opts)?,
                position: position(column_position),
                if_exists: false,
            });
        }
        AlterTableOperation::AlterColumn { column_name, op } => match op {
            AlterColumnOperation::SetDefault { value } => ops.push(AlterOp::SetDefault {
                column: column_name.value.clone(),
                default: Some(value.to_string()),
            }),
            AlterColumnOperation::DropDefault => ops.push(AlterOp::SetDefault {
                column: column_name.value.clone(),
                default: None,
            }),
            _ => return unsupported("ALTER COLUMN operation not mapped"),
        },
        AlterTableOperation::Algorithm { .. }
        | AlterTableOperation::Lock { .. }
        | AlterTableOperation::AutoIncrement { .. }
        | AlterTableOperation::AddPartitions { .. }
        | AlterTableOperation::DropPartitions { .. } => {}
        _ => return unsupported("ALTER TABLE operation not mapped"),
    }
    Ok(())
}

fn column_text(
    name: &str,
    data_type: &sqlparser::ast::DataType,
    options: &[sqlparser::ast::ColumnOption],
) -> String {
    let mut s = format!("{name} {data_type}");
    for o in options {
        s.push(' ');
        s.push_str(&o.to_string());
    }
    s
}
