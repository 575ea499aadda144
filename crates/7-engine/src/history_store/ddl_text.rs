//! `CREATE TABLE` / `CREATE DATABASE` text for a tracked definition: the
//! readable `ddl` of the snapshot and repair records, which a Debezium
//! reader configured to prefer DDL (`schema.history.internal.prefer.ddl`)
//! parses instead of the table changes.

use sluice_schema::{ColumnSchema, DatabaseSchema, Generated, TableSchema};

/// A MySQL identifier in backquotes.
pub(crate) fn quote_ident(name: &str) -> String {
    format!("`{}`", name.replace('`', "``"))
}

/// A MySQL string literal in single quotes.
pub(crate) fn quote_string(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "''"))
}

/// `CREATE DATABASE IF NOT EXISTS` with the database's defaults.
pub(crate) fn create_database_sql(db: &DatabaseSchema) -> String {
    let mut sql = format!("CREATE DATABASE IF NOT EXISTS {}", quote_ident(&db.name));
    if let Some(cs) = &db.default_charset {
        sql.push_str(&format!(" CHARACTER SET {cs}"));
    }
    if let Some(c) = &db.default_collation {
        sql.push_str(&format!(" COLLATE {c}"));
    }
    sql
}

/// `DROP TABLE IF EXISTS` of one table.
pub(crate) fn drop_table_sql(db: &str, name: &str) -> String {
    format!(
        "DROP TABLE IF EXISTS {}.{}",
        quote_ident(db),
        quote_ident(name)
    )
}

/// A `CREATE TABLE` statement that defines `table` as tracked: columns in
/// row-image order with types, character sets, nullability, defaults,
/// generation and visibility, then the primary and unique keys, the table
/// defaults and system versioning. Parsing it again gives the same
/// definition.
pub fn create_table_sql(table: &TableSchema) -> String {
    let mut parts: Vec<String> = Vec::new();
    // The implicit period columns of `WITH SYSTEM VERSIONING` come back
    // with it; they are not written.
    let implicit_period = table.system_versioned && table.columns.iter().any(|c| c.hidden);
    let mut period: (Option<&str>, Option<&str>) = (None, None);
    for c in &table.columns {
        if c.hidden && implicit_period {
            continue;
        }
        match c.generated {
            Some(Generated::RowStart) => period.0 = Some(&c.name),
            Some(Generated::RowEnd) => period.1 = Some(&c.name),
            _ => {}
        }
        parts.push(column_sql(c));
    }
    if let (Some(start), Some(end)) = period {
        parts.push(format!(
            "PERIOD FOR SYSTEM_TIME({}, {})",
            quote_ident(start),
            quote_ident(end)
        ));
    }
    if !table.primary_key.is_empty() {
        parts.push(format!("PRIMARY KEY ({})", ident_list(&table.primary_key)));
    }
    for k in &table.unique_keys {
        parts.push(format!(
            "UNIQUE KEY {} ({})",
            quote_ident(&k.name),
            ident_list(&k.columns)
        ));
    }
    let mut sql = format!(
        "CREATE TABLE {}.{} (\n  {}\n)",
        quote_ident(&table.db),
        quote_ident(&table.name),
        parts.join(",\n  ")
    );
    if let Some(cs) = &table.default_charset {
        sql.push_str(&format!(" DEFAULT CHARSET={cs}"));
    }
    if let Some(c) = &table.default_collation {
        sql.push_str(&format!(" COLLATE={c}"));
    }
    if table.system_versioned {
        sql.push_str(" WITH SYSTEM VERSIONING");
    }
    sql
}

fn ident_list(names: &[String]) -> String {
    names
        .iter()
        .map(|n| quote_ident(n))
        .collect::<Vec<_>>()
        .join(", ")
}

fn column_sql(c: &ColumnSchema) -> String {
    let mut sql = format!("{} {}", quote_ident(&c.name), c.data_type);
    if c.unsigned && !c.data_type.contains("unsigned") {
        sql.push_str(" unsigned");
    }
    if c.zerofill && !c.data_type.contains("zerofill") {
        sql.push_str(" zerofill");
    }
    // Binary strings and JSON have a fixed character set; naming it would
    // change the type.
    let named_charset = c.charset.as_deref().filter(|cs| {
        *cs != "binary"
            && c.sql_type != "json"
            && !c.sql_type.ends_with("blob")
            && !c.sql_type.ends_with("binary")
    });
    if let Some(cs) = named_charset {
        sql.push_str(&format!(" CHARACTER SET {cs}"));
        if let Some(coll) = &c.collation {
            sql.push_str(&format!(" COLLATE {coll}"));
        }
    }
    match &c.generated {
        Some(Generated::Virtual { expr }) => sql.push_str(&format!(" AS ({expr}) VIRTUAL")),
        Some(Generated::Stored { expr }) => sql.push_str(&format!(" AS ({expr}) STORED")),
        Some(Generated::RowStart) => sql.push_str(" GENERATED ALWAYS AS ROW START"),
        Some(Generated::RowEnd) => sql.push_str(" GENERATED ALWAYS AS ROW END"),
        None => {
            sql.push_str(if c.nullable { " NULL" } else { " NOT NULL" });
            if let Some(d) = &c.default {
                sql.push_str(&format!(" DEFAULT {d}"));
            }
            if c.auto_increment {
                sql.push_str(" AUTO_INCREMENT");
            }
        }
    }
    if c.invisible {
        sql.push_str(" INVISIBLE");
    }
    sql
}
