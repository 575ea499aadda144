//! The DDL corpus executed on a private MariaDB, statement by statement:
//! after every CREATE TABLE and ALTER TABLE the server accepted, the table
//! as the catalog models it must match `information_schema.COLUMNS`
//! (names and order, type, signedness, length, precision, character set,
//! collation, nullability, ENUM/SET labels). Statements the server rejects
//! (they were written for other versions or need context) are skipped.

mod common;

use std::collections::BTreeMap;

use common::corpus;
use sluice_schema::catalog::{ApplyContext, Catalog};
use sluice_schema::collation::known_collations;
use sluice_schema::ddl::DdlStatement;
use sluice_schema::lexer::LexOptions;
use sluice_schema::model::TableSchema;
use sluice_schema::position::BinlogPosition;
use sluice_schema::read_ddl::parse_ddl;
use sluice_testkit::{MariaDb, MariaDbConfig};

/// One column as information_schema reports it, reduced to what we model.
#[derive(Debug, Clone, PartialEq, Eq)]
struct ServerColumn {
    name: String,
    data_type: String,
    unsigned: bool,
    length: Option<String>,
    precision: Option<String>,
    charset: Option<String>,
    collation: Option<String>,
    nullable: bool,
    labels: Option<String>,
}

fn server_table(db: &MariaDb, schema: &str, table: &str) -> Vec<ServerColumn> {
    let esc = |s: &str| s.replace('\\', "\\\\").replace('\'', "''");
    db.query(&format!(
        "SELECT COLUMN_NAME, DATA_TYPE, COLUMN_TYPE, CHARACTER_MAXIMUM_LENGTH, NUMERIC_PRECISION, \
         NUMERIC_SCALE, CHARACTER_SET_NAME, COLLATION_NAME, IS_NULLABLE \
         FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{}' AND TABLE_NAME = '{}' \
         ORDER BY ORDINAL_POSITION",
        esc(schema),
        esc(table)
    ))
    .unwrap_or_default()
    .into_iter()
    .map(|r| {
        let s = |i: usize| r.get(i).cloned().flatten();
        let data_type = s(1).unwrap_or_default();
        let column_type = s(2).unwrap_or_default();
        let labels = matches!(data_type.as_str(), "enum" | "set").then(|| column_type.clone());
        let length = matches!(
            data_type.as_str(),
            "char" | "varchar" | "binary" | "varbinary"
        )
        .then(|| s(3))
        .flatten();
        let precision = (data_type == "decimal")
            .then(|| format!("{},{}", s(4).unwrap_or_default(), s(5).unwrap_or_default()));
        ServerColumn {
            name: s(0).unwrap_or_default(),
            unsigned: column_type.contains("unsigned"),
            length,
            precision,
            charset: s(6),
            collation: s(7),
            nullable: s(8).as_deref() == Some("YES"),
            labels,
            data_type,
        }
    })
    .collect()
}

fn our_table(t: &TableSchema) -> Vec<ServerColumn> {
    t.columns
        .iter()
        .filter(|c| !c.hidden)
        .map(|c| {
            // MariaDB stores JSON as LONGTEXT (utf8mb4_bin) with a CHECK.
            let data_type = if c.sql_type == "json" {
                "longtext".to_string()
            } else {
                c.sql_type.clone()
            };
            let params = c
                .data_type
                .split_once('(')
                .map(|(_, p)| p.split(')').next().unwrap_or("").to_string());
            let length = matches!(
                data_type.as_str(),
                "char" | "varchar" | "binary" | "varbinary"
            )
            .then(|| params.clone())
            .flatten();
            let precision = (data_type == "decimal").then(|| params.clone().unwrap_or_default());
            let labels = matches!(data_type.as_str(), "enum" | "set").then(|| {
                let quoted: Vec<String> = c
                    .labels
                    .iter()
                    .map(|l| format!("'{}'", l.replace('\'', "''")))
                    .collect();
                format!("{data_type}({})", quoted.join(","))
            });
            ServerColumn {
                name: c.name.clone(),
                data_type,
                unsigned: c.unsigned,
                length,
                precision,
                charset: c.charset.clone().filter(|cs| cs != "binary"),
                collation: c.collation.clone().filter(|cs| cs != "binary"),
                nullable: c.nullable,
                labels,
            }
        })
        .collect()
}

/// Replaces a table of the catalog with the server's SHOW CREATE TABLE, as a
/// row-format binlog would carry it.
fn resync(db: &MariaDb, catalog: &mut Catalog, ctx: &ApplyContext, schema: &str, table: &str) {
    let pos = BinlogPosition::start();
    if let Ok(rows) = db.query(&format!("SHOW CREATE TABLE `{schema}`.`{table}`")) {
        if let Some(create) = rows.first().and_then(|r| r.get(1).cloned().flatten()) {
            let _ = catalog.apply_ddl(ctx, &format!("DROP TABLE IF EXISTS `{table}`"), &pos);
            let _ = catalog.apply_ddl(ctx, &create, &pos);
        }
    }
}

#[test]
fn corpus_tables_match_what_mariadb_reports() {
    let db = MariaDb::start(MariaDbConfig::default()).expect("start MariaDB");
    let server_collation = db.query_scalar("SELECT @@collation_server").unwrap();
    let mut compared = 0usize;
    let mut matched = 0usize;
    let mut executed = 0usize;
    let mut by_origin: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut shown = 0;
    let mut with_select = 0usize;
    for (origin, stmts) in corpus::load() {
        let schema = format!("c_{}", origin.replace('-', "_"));
        db.exec(&format!("CREATE DATABASE `{schema}`; USE `{schema}`"))
            .unwrap();
        db.exec("SET SESSION foreign_key_checks = 0, sql_mode = '', system_versioning_alter_history = KEEP")
            .unwrap();
        let mut catalog = Catalog::new();
        let ctx = ApplyContext {
            current_db: schema.clone(),
            server_collation: server_collation.clone(),
            lex: LexOptions::default(),
        };
        let pos = BinlogPosition::start();
        // The database itself, with the server's defaults.
        catalog
            .apply_ddl(&ctx, &format!("CREATE DATABASE `{schema}`"), &pos)
            .unwrap();
        for sql in stmts {
            let Ok(parsed) = parse_ddl(&sql, LexOptions::default()) else {
                continue;
            };
            if db.exec(&sql).is_err() {
                continue;
            }
            executed += 1;
            // Statements may switch databases in the test suite; follow only ours.
            let current = db
                .query_scalar("SELECT DATABASE()")
                .ok()
                .flatten()
                .unwrap_or_default();
            if current != schema {
                db.exec(&format!("USE `{schema}`")).unwrap();
            }
            // CREATE ... SELECT: the columns come from the query, which
            // the text alone does not type (row-format binlogs carry a full
            // CREATE TABLE instead; see the crate docs). Not compared.
            if let DdlStatement::CreateTable {
                with_select: true,
                table,
                ..
            } = &parsed.statement
            {
                with_select += 1;
                if table.db.as_deref().is_none_or(|d| d == schema) {
                    resync(&db, &mut catalog, &ctx, &schema, &table.name);
                }
                continue;
            }
            let target = match &parsed.statement {
                DdlStatement::CreateTable {
                    table,
                    temporary: false,
                    ..
                }
                | DdlStatement::CreateTableLike {
                    table,
                    temporary: false,
                    ..
                }
                | DdlStatement::AlterTable { table, .. } => Some(table.clone()),
                _ => None,
            };
            if catalog.apply_ddl(&ctx, &sql, &pos).is_err() {
                // Our catalog may miss a table the server had (created in another
                // database, say); resync that table from the server below.
            }
            let Some(mut table) = target else { continue };
            if table.db.as_deref().is_some_and(|d| d != schema) {
                continue;
            }
            // An ALTER may rename the table.
            if let DdlStatement::AlterTable { ops, .. } = &parsed.statement {
                for op in ops {
                    if let sluice_schema::ddl::AlterOp::RenameTable(to) = op {
                        table = to.clone();
                    }
                }
            }
            let server = server_table(&db, &schema, &table.name);
            if server.is_empty() {
                continue;
            }
            compared += 1;
            let entry = by_origin.entry(origin.clone()).or_default();
            entry.0 += 1;
            let ours = catalog.table(&schema, &table.name).map(our_table);
            if ours.as_ref() == Some(&server) {
                matched += 1;
                entry.1 += 1;
            } else {
                if shown < 25 {
                    shown += 1;
                    println!("MISMATCH [{origin}] {}", sql.replace('\n', " "));
                    match &ours {
                        None => println!("  not tracked"),
                        Some(o) => {
                            for (a, b) in o.iter().zip(&server) {
                                if a != b {
                                    println!("  ours:   {a:?}\n  server: {b:?}");
                                }
                            }
                            if o.len() != server.len() {
                                println!("  {} columns ours, {} server", o.len(), server.len());
                            }
                        }
                    }
                }
                // Resync from the server's view so one miss does not cascade.
                resync(&db, &mut catalog, &ctx, &schema, &table.name);
            }
        }
    }
    for (o, (c, m)) in &by_origin {
        println!("{o}: {m}/{c} tables match");
    }
    let rate = 100.0 * matched as f64 / compared.max(1) as f64;
    println!(
        "executed {executed} statements; {matched}/{compared} table states match ({rate:.2} %); \
         {with_select} CREATE ... SELECT not compared"
    );
    assert!(compared >= 1000, "only {compared} table states compared");
    assert!(rate >= 99.0, "{rate:.2} %");
}

#[test]
fn collation_ids_match_the_server() {
    let db = MariaDb::start(MariaDbConfig::default()).expect("start MariaDB");
    let rows = db
        .query("SELECT COLLATION_NAME, ID FROM information_schema.COLLATIONS")
        .unwrap();
    let server: BTreeMap<String, u32> = rows
        .into_iter()
        .filter_map(|r| Some((r.first()?.clone()?, r.get(1)?.clone()?.parse().ok()?)))
        .collect();
    let mut checked = 0;
    for (name, id) in known_collations() {
        if let Some(&sid) = server.get(name) {
            assert_eq!(sid, id, "{name}");
            checked += 1;
        }
    }
    assert!(checked > 80, "only {checked} collations checked");
}
