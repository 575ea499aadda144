//! Reading the live schema from a server goes through [`MetadataSource`]; this
//! crate holds only the trait and the seeding logic that turns what a source
//! returns (SHOW CREATE output) into catalog entries. The implementation that
//! talks to a server lives elsewhere; this module never does I/O itself.

use crate::catalog::{ApplyContext, Catalog, Delta};
use crate::ddl::DdlStatement;
use crate::error::{Result, SchemaError};
use crate::lexer::LexOptions;
use crate::model::TableSchema;
use crate::position::BinlogPosition;
use crate::read_ddl::parse_ddl;

/// The live schema of a server, as SHOW statements report it.
pub trait MetadataSource {
    /// Database names (excluding the server's own, if the caller wishes).
    fn list_databases(&self) -> Result<Vec<String>>;
    /// Base tables of a database (no views).
    fn list_tables(&self, db: &str) -> Result<Vec<String>>;
    /// `SHOW CREATE DATABASE`'s statement, `None` if it does not exist.
    fn show_create_database(&self, db: &str) -> Result<Option<String>>;
    /// `SHOW CREATE TABLE`'s statement, `None` if the table does not exist.
    fn show_create_table(&self, db: &str, table: &str) -> Result<Option<String>>;
}

/// Which tables to track from the server: the capture filters.
pub type TableFilter<'a> = &'a dyn Fn(&str, &str) -> bool;

/// System databases never seeded.
pub const SYSTEM_DATABASES: &[&str] = &["mysql", "information_schema", "performance_schema", "sys"];

/// Reads one table from a source into a schema, `None` if it is gone.
pub fn read_table(
    source: &dyn MetadataSource,
    catalog: &Catalog,
    db: &str,
    table: &str,
    position: &BinlogPosition,
) -> Result<Option<TableSchema>> {
    let Some(sql) = source.show_create_table(db, table)? else {
        return Ok(None);
    };
    table_in_catalog(catalog, db, table, &sql, position)
}

/// The table a `SHOW CREATE TABLE` statement describes, on its own (the
/// statement names the table's character set, so no database is needed).
pub fn table_from_create(db: &str, table: &str, sql: &str) -> Result<TableSchema> {
    let position = BinlogPosition::new("", 0);
    table_in_catalog(&Catalog::new(), db, table, sql, &position)?.ok_or_else(|| {
        SchemaError::Metadata(format!(
            "SHOW CREATE TABLE {db}.{table} did not describe the table"
        ))
    })
}

fn table_in_catalog(
    catalog: &Catalog,
    db: &str,
    table: &str,
    sql: &str,
    position: &BinlogPosition,
) -> Result<Option<TableSchema>> {
    let ctx = ApplyContext {
        current_db: db.to_string(),
        server_collation: None,
        lex: LexOptions::default(),
    };
    let parsed = parse_ddl(sql, ctx.lex).map_err(|e| {
        SchemaError::Metadata(format!("SHOW CREATE TABLE {db}.{table} did not parse: {e}"))
    })?;
    if !matches!(parsed.statement, DdlStatement::CreateTable { .. }) {
        return Err(SchemaError::Metadata(format!(
            "SHOW CREATE TABLE {db}.{table} returned {}",
            parsed.statement.kind()
        )));
    }
    let mut notes = Vec::new();
    // Plan against a catalog without the table, so CREATE applies.
    let mut scratch = catalog.clone();
    scratch.apply_deltas(
        &[Delta::RemoveTable {
            db: db.to_string(),
            name: table.to_string(),
        }],
        position,
    );
    let deltas = scratch.plan(&ctx, &parsed.statement, sql, position, &mut notes)?;
    Ok(deltas.into_iter().find_map(|d| match d {
        Delta::PutTable { mut table } => {
            // SHOW CREATE TABLE names the table as the server stores it.
            table.db = db.to_string();
            Some(table)
        }
        _ => None,
    }))
}

/// Reads every database and every table the filter selects.
pub fn read_catalog(
    source: &dyn MetadataSource,
    filter: TableFilter<'_>,
    position: &BinlogPosition,
) -> Result<Catalog> {
    let mut catalog = Catalog::new();
    for db in source.list_databases()? {
        if SYSTEM_DATABASES.iter().any(|s| s.eq_ignore_ascii_case(&db)) {
            continue;
        }
        if let Some(sql) = source.show_create_database(&db)? {
            let ctx = ApplyContext {
                current_db: db.clone(),
                server_collation: None,
                lex: LexOptions::default(),
            };
            let parsed = parse_ddl(&sql, ctx.lex).map_err(|e| {
                SchemaError::Metadata(format!("SHOW CREATE DATABASE {db} did not parse: {e}"))
            })?;
            let mut notes = Vec::new();
            let deltas = catalog.plan(&ctx, &parsed.statement, &sql, position, &mut notes)?;
            catalog.apply_deltas(&deltas, position);
        }
        for t in source.list_tables(&db)? {
            if !filter(&db, &t) {
                continue;
            }
            if let Some(schema) = read_table(source, &catalog, &db, &t, position)? {
                catalog.put_table(schema);
            }
        }
    }
    Ok(catalog)
}
