//! Debezium's schema change records (`include.schema.changes`, on by
//! default in Debezium's MySQL connector): one record per DDL statement, to
//! the topic named by `topic.prefix`, with key `{"databaseName":…}` and a
//! value of `source`, `ts_ms`, `databaseName`, `schemaName`, `ddl` and
//! `tableChanges`, the tables as Debezium's `ConnectTableChangeSerializer`
//! writes them (every field of its schema present, null when unset).
//!
//! What the tables are is the caller's: a [`TableChange`] per table the
//! statement created, altered or dropped, with its columns as Debezium's
//! DDL parser describes them (JDBC type, type name and expression, length,
//! scale, ...). The encoding here is only the record's bytes.

use sluice_events::{Position, TransactionState};

use super::text::{push_i64, push_str};
use super::{DebeziumEncoder, DebeziumRecord, Source};

/// One table a DDL statement changed (`tableChanges[]`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableChange {
    /// `CREATE`, `ALTER` or `DROP`.
    pub kind: String,
    /// The table id, double-quoted: `"inventory"."customers"`.
    pub id: String,
    /// The table after the change; none for a DROP.
    pub table: Option<TableDescription>,
}

/// A table as Debezium's schema keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TableDescription {
    pub default_charset_name: Option<String>,
    pub primary_key_column_names: Vec<String>,
    pub columns: Vec<ColumnDescription>,
    pub comment: Option<String>,
}

/// A column as Debezium's schema keeps it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnDescription {
    pub name: String,
    /// `java.sql.Types` code.
    pub jdbc_type: i32,
    pub native_type: Option<i32>,
    pub type_name: String,
    pub type_expression: Option<String>,
    pub charset_name: Option<String>,
    pub length: Option<i32>,
    pub scale: Option<i32>,
    /// 1-based.
    pub position: i32,
    pub optional: bool,
    pub auto_incremented: bool,
    pub generated: bool,
    pub comment: Option<String>,
    pub default_value_expression: Option<String>,
    /// ENUM/SET labels (none: null).
    pub enum_values: Vec<String>,
}

/// One DDL statement, as a schema change record describes it.
#[derive(Debug, Clone)]
pub struct SchemaChange<'a> {
    /// The DDL event's place in the binlog.
    pub position: &'a Position<'a>,
    pub txn: &'a TransactionState,
    /// `databaseName`: the database the statement is about (its current
    /// database when it names none).
    pub database: &'a str,
    pub ddl: &'a str,
    pub table_changes: &'a [TableChange],
}

const KEY_SCHEMA_HEAD: &str = "{\"type\":\"struct\",\"fields\":[{\"type\":\"string\",\"optional\":false,\"field\":\"databaseName\"}],\"optional\":false,\"name\":";

const COLUMN_SCHEMA: &str = concat!(
    "{\"type\":\"struct\",\"fields\":[",
    "{\"type\":\"string\",\"optional\":false,\"field\":\"name\"},",
    "{\"type\":\"int32\",\"optional\":false,\"field\":\"jdbcType\"},",
    "{\"type\":\"int32\",\"optional\":true,\"field\":\"nativeType\"},",
    "{\"type\":\"string\",\"optional\":false,\"field\":\"typeName\"},",
    "{\"type\":\"string\",\"optional\":true,\"field\":\"typeExpression\"},",
    "{\"type\":\"string\",\"optional\":true,\"field\":\"charsetName\"},",
    "{\"type\":\"int32\",\"optional\":true,\"field\":\"length\"},",
    "{\"type\":\"int32\",\"optional\":true,\"field\":\"scale\"},",
    "{\"type\":\"int32\",\"optional\":false,\"field\":\"position\"},",
    "{\"type\":\"boolean\",\"optional\":true,\"field\":\"optional\"},",
    "{\"type\":\"boolean\",\"optional\":true,\"field\":\"autoIncremented\"},",
    "{\"type\":\"boolean\",\"optional\":true,\"field\":\"generated\"},",
    "{\"type\":\"string\",\"optional\":true,\"field\":\"comment\"},",
    "{\"type\":\"string\",\"optional\":true,\"field\":\"defaultValueExpression\"},",
    "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":false},\"optional\":true,\"field\":\"enumValues\"}],",
    "\"optional\":false,\"name\":\"io.debezium.connector.schema.Column\",\"version\":1}"
);

impl DebeziumEncoder {
    /// The schema change record of `change`, to `topic.prefix`.
    pub fn schema_change(&mut self, change: &SchemaChange<'_>) -> DebeziumRecord {
        let o = &self.options;
        let schemas = o.schemas_enable;
        let connector = o.connector.name();
        let mut key = String::new();
        if schemas {
            key.push_str("{\"schema\":");
            key.push_str(KEY_SCHEMA_HEAD);
            push_str(
                &mut key,
                &format!("io.debezium.connector.{connector}.SchemaChangeKey"),
            );
            key.push_str(",\"version\":1},\"payload\":");
        }
        key.push_str("{\"databaseName\":");
        push_str(&mut key, change.database);
        key.push('}');
        if schemas {
            key.push('}');
        }

        let mut v = String::new();
        if schemas {
            v.push_str("{\"schema\":{\"type\":\"struct\",\"fields\":[");
            v.push_str(&self.source_schema);
            v.push_str(concat!(
                ",{\"type\":\"int64\",\"optional\":false,\"field\":\"ts_ms\"}",
                ",{\"type\":\"string\",\"optional\":true,\"field\":\"databaseName\"}",
                ",{\"type\":\"string\",\"optional\":true,\"field\":\"schemaName\"}",
                ",{\"type\":\"string\",\"optional\":true,\"field\":\"ddl\"}",
                ",{\"type\":\"array\",\"items\":{\"type\":\"struct\",\"fields\":[",
                "{\"type\":\"string\",\"optional\":false,\"field\":\"type\"},",
                "{\"type\":\"string\",\"optional\":false,\"field\":\"id\"},",
                "{\"type\":\"struct\",\"fields\":[",
                "{\"type\":\"string\",\"optional\":true,\"field\":\"defaultCharsetName\"},",
                "{\"type\":\"array\",\"items\":{\"type\":\"string\",\"optional\":false},\"optional\":true,\"field\":\"primaryKeyColumnNames\"},",
                "{\"type\":\"array\",\"items\":",
            ));
            v.push_str(COLUMN_SCHEMA);
            v.push_str(concat!(
                ",\"optional\":false,\"field\":\"columns\"},",
                "{\"type\":\"string\",\"optional\":true,\"field\":\"comment\"}],",
                "\"optional\":true,\"name\":\"io.debezium.connector.schema.Table\",\"version\":1,\"field\":\"table\"}],",
                "\"optional\":false,\"name\":\"io.debezium.connector.schema.Change\",\"version\":1},",
                "\"optional\":false,\"field\":\"tableChanges\"}],\"optional\":false,\"name\":",
            ));
            push_str(
                &mut v,
                &format!("io.debezium.connector.{connector}.SchemaChangeValue"),
            );
            v.push_str(",\"version\":1},\"payload\":");
        }
        // `source.table`: the tables the statement is about, comma-joined.
        let tables: Vec<&str> = change
            .table_changes
            .iter()
            .filter_map(|t| table_of_id(&t.id))
            .collect();
        let tables = tables.join(",");
        // A DDL is no transaction's: no thread in its source block.
        let txn = TransactionState {
            thread_id: None,
            ..change.txn.clone()
        };
        let source = Source {
            position: change.position,
            txn: &txn,
            db: change.database,
            table: (!tables.is_empty()).then_some(tables.as_str()),
            row: 0,
            snapshot: "false",
            parts: None,
        };
        v.push_str("{\"source\":");
        self.push_source(&mut v, &source);
        v.push_str(",\"ts_ms\":");
        let now = (self.clock)();
        push_i64(&mut v, now.div_euclid(1_000_000));
        v.push_str(",\"databaseName\":");
        push_str(&mut v, change.database);
        v.push_str(",\"schemaName\":null,\"ddl\":");
        push_str(&mut v, change.ddl);
        v.push_str(",\"tableChanges\":[");
        for (i, t) in change.table_changes.iter().enumerate() {
            if i > 0 {
                v.push(',');
            }
            push_table_change(&mut v, t);
        }
        v.push_str("]}");
        if schemas {
            v.push('}');
        }
        DebeziumRecord {
            destination: self.options.topic_prefix.clone(),
            key: Some(key),
            value: Some(v),
            row: 0,
        }
    }
}

/// The table name of a double-quoted id `"db"."table"`.
fn table_of_id(id: &str) -> Option<&str> {
    let rest = id.strip_suffix('"')?;
    let start = rest.rfind("\".\"")?;
    Some(&rest[start + 3..])
}

fn push_opt_str(out: &mut String, v: Option<&str>) {
    match v {
        Some(s) => push_str(out, s),
        None => out.push_str("null"),
    }
}

fn push_opt_i32(out: &mut String, v: Option<i32>) {
    match v {
        Some(n) => push_i64(out, i64::from(n)),
        None => out.push_str("null"),
    }
}

fn push_bool(out: &mut String, v: bool) {
    out.push_str(if v { "true" } else { "false" });
}

fn push_table_change(out: &mut String, t: &TableChange) {
    out.push_str("{\"type\":");
    push_str(out, &t.kind);
    out.push_str(",\"id\":");
    push_str(out, &t.id);
    let Some(table) = &t.table else {
        out.push_str(",\"table\":null}");
        return;
    };
    out.push_str(",\"table\":{\"defaultCharsetName\":");
    push_opt_str(out, table.default_charset_name.as_deref());
    out.push_str(",\"primaryKeyColumnNames\":[");
    for (i, k) in table.primary_key_column_names.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_str(out, k);
    }
    out.push_str("],\"columns\":[");
    for (i, c) in table.columns.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_column(out, c);
    }
    out.push_str("],\"comment\":");
    push_opt_str(out, table.comment.as_deref());
    out.push_str("}}");
}

fn push_column(out: &mut String, c: &ColumnDescription) {
    out.push_str("{\"name\":");
    push_str(out, &c.name);
    out.push_str(",\"jdbcType\":");
    push_i64(out, i64::from(c.jdbc_type));
    out.push_str(",\"nativeType\":");
    push_opt_i32(out, c.native_type);
    out.push_str(",\"typeName\":");
    push_str(out, &c.type_name);
    out.push_str(",\"typeExpression\":");
    push_opt_str(out, c.type_expression.as_deref());
    out.push_str(",\"charsetName\":");
    push_opt_str(out, c.charset_name.as_deref());
    out.push_str(",\"length\":");
    push_opt_i32(out, c.length);
    out.push_str(",\"scale\":");
    push_opt_i32(out, c.scale);
    out.push_str(",\"position\":");
    push_i64(out, i64::from(c.position));
    out.push_str(",\"optional\":");
    push_bool(out, c.optional);
    out.push_str(",\"autoIncremented\":");
    push_bool(out, c.auto_incremented);
    out.push_str(",\"generated\":");
    push_bool(out, c.generated);
    out.push_str(",\"comment\":");
    push_opt_str(out, c.comment.as_deref());
    out.push_str(",\"defaultValueExpression\":");
    push_opt_str(out, c.default_value_expression.as_deref());
    out.push_str(",\"enumValues\":");
    if c.enum_values.is_empty() {
        out.push_str("null");
    } else {
        out.push('[');
        for (i, e) in c.enum_values.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            push_str(out, e);
        }
        out.push(']');
    }
    out.push('}');
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_names_of_ids() {
        assert_eq!(table_of_id("\"inv\".\"customers\""), Some("customers"));
        assert_eq!(table_of_id("customers"), None);
    }
}
