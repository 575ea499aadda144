//! Schema tracking against a private MariaDB: a DDL script exercising every
//! form of issue 4 runs between inserts; the binlog is then decoded offline
//! through a SchemaTracker and every row must carry the columns and values a
//! SELECT showed at that moment, under binlog_row_metadata NO_LOG and FULL.

mod common;

use std::sync::Arc;

use common::live::{decode, server_columns, Captured, Decoded, TestSource};
use sluice_binlog::RowsKind;
use sluice_schema::history::{FileHistoryStore, HistoryRecord, RepairSource};
use sluice_schema::model::TableSchema;
use sluice_schema::position::BinlogPosition;
use sluice_schema::tracker::{SchemaTracker, TrackerOptions, UnparseableDdlPolicy};
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig};

/// One step of the script.
enum Step {
    /// DDL (or any statement) to run.
    Sql(&'static str),
    /// An INSERT into `db.table` of the row with primary key `id`; the row
    /// is read back with SELECT right after, as the expected decode.
    Row(&'static str, &'static str, i64, &'static str),
}

use Step::{Row, Sql};

/// Every DDL form the issue lists, with a row written before and after each.
const SCRIPT: &[Step] = &[
    Sql("CREATE DATABASE shop CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci"),
    Sql("CREATE TABLE shop.t (id INT UNSIGNED NOT NULL PRIMARY KEY, a TINYINT UNSIGNED, \
         e ENUM('x','y','z') NOT NULL DEFAULT 'x', s SET('p','q','r'), \
         name VARCHAR(20) CHARACTER SET latin1) ENGINE=InnoDB"),
    Row("shop", "t", 1, "INSERT INTO shop.t VALUES (1, 200, 'y', 'p,r', 'café')"),
    // ADD with AFTER and FIRST, MariaDB's IF NOT EXISTS, defaults.
    Sql("ALTER TABLE shop.t ADD COLUMN b BIGINT UNSIGNED DEFAULT 7 AFTER id, \
         ADD COLUMN IF NOT EXISTS c VARCHAR(10) DEFAULT 'c0' FIRST, ADD COLUMN IF NOT EXISTS a INT"),
    Row("shop", "t", 2, "INSERT INTO shop.t (id, a, e, s, name, b) VALUES (2, 255, 'z', 'q', 'naïve', 18446744073709551615)"),
    // DROP, CHANGE (rename + retype + charset), MODIFY with AFTER.
    Sql("ALTER TABLE shop.t DROP COLUMN a, \
         CHANGE COLUMN name title VARCHAR(30) CHARACTER SET utf8mb4 NOT NULL DEFAULT '', \
         MODIFY COLUMN e ENUM('x','y','z','w') NOT NULL DEFAULT 'x' AFTER c"),
    Row("shop", "t", 3, "INSERT INTO shop.t (id, e, s, title) VALUES (3, 'w', 'p,q,r', 'Ünïcødé ✓')"),
    // RENAME COLUMN with ALGORITHM and LOCK clauses.
    Sql("ALTER TABLE shop.t RENAME COLUMN title TO label, ALGORITHM=INPLACE, LOCK=NONE"),
    Row("shop", "t", 4, "INSERT INTO shop.t (id, label) VALUES (4, 'renamed')"),
    // Generated (virtual and stored) and invisible columns.
    Sql("ALTER TABLE shop.t ADD COLUMN g INT AS (id * 2) VIRTUAL, \
         ADD COLUMN st INT AS (id + 1) STORED, ADD COLUMN h INT INVISIBLE DEFAULT 5"),
    Row("shop", "t", 5, "INSERT INTO shop.t (id, label) VALUES (5, 'generated')"),
    // Table default charset, then a column that takes it.
    Sql("ALTER TABLE shop.t DEFAULT CHARSET latin1, ADD COLUMN d2 VARCHAR(5)"),
    Row("shop", "t", 6, "INSERT INTO shop.t (id, d2) VALUES (6, 'é€')"),
    Sql("ALTER TABLE shop.t CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci"),
    Row("shop", "t", 7, "INSERT INTO shop.t (id, d2, label) VALUES (7, '✓', 'converted')"),
    // Partitions and table options.
    Sql("ALTER TABLE shop.t PARTITION BY HASH (id) PARTITIONS 2"),
    Sql("ALTER TABLE shop.t COMMENT 'orders', ENGINE=InnoDB, ROW_FORMAT=DYNAMIC, \
         ALTER COLUMN b SET DEFAULT 9"),
    Row("shop", "t", 8, "INSERT INTO shop.t (id) VALUES (8)"),
    Sql("ALTER TABLE shop.t REMOVE PARTITIONING"),
    // MariaDB: WAIT, ONLINE, executable comments.
    Sql("ALTER ONLINE TABLE shop.t WAIT 5 ADD COLUMN w DATETIME(3) /*!100301 NULL */"),
    Row("shop", "t", 9, "INSERT INTO shop.t (id, w) VALUES (9, '2024-02-29 12:34:56.789')"),
    // RENAME TABLE, CREATE ... LIKE.
    Sql("RENAME TABLE shop.t TO shop.t_old"),
    Sql("CREATE TABLE shop.t LIKE shop.t_old"),
    Row("shop", "t", 10, "INSERT INTO shop.t (id, label) VALUES (10, 'like')"),
    Row("shop", "t_old", 11, "INSERT INTO shop.t_old (id, label) VALUES (11, 'old')"),
    // CREATE ... SELECT (logged as a full CREATE TABLE in row format).
    Sql("CREATE TABLE shop.sel (PRIMARY KEY (id)) SELECT id, label, e FROM shop.t_old"),
    Row("shop", "sel", 12, "INSERT INTO shop.sel VALUES (12, 'sel', 'y')"),
    Sql("TRUNCATE TABLE shop.sel"),
    Row("shop", "sel", 13, "INSERT INTO shop.sel VALUES (13, 'after truncate', 'w')"),
    // DROP and re-CREATE with other columns.
    Sql("DROP TABLE shop.sel"),
    Sql("CREATE TABLE shop.sel (id INT NOT NULL, x DECIMAL(10,2) UNSIGNED, m MEDIUMINT UNSIGNED, \
         y YEAR, PRIMARY KEY (id))"),
    Row("shop", "sel", 14, "INSERT INTO shop.sel VALUES (14, 12345.67, 16777215, 2024)"),
    // CREATE OR REPLACE, DROP COLUMN IF EXISTS, ADD PRIMARY KEY / DROP PRIMARY KEY.
    Sql("CREATE OR REPLACE TABLE shop.sel (id INT NOT NULL, u SMALLINT UNSIGNED, n TEXT)"),
    Sql("ALTER TABLE shop.sel ADD PRIMARY KEY (id), DROP COLUMN IF EXISTS nothere"),
    Row("shop", "sel", 15, "INSERT INTO shop.sel VALUES (15, 65535, 'text')"),
    // System versioning.
    Sql("CREATE TABLE shop.v (id INT PRIMARY KEY, a INT) WITH SYSTEM VERSIONING"),
    Row("shop", "v", 16, "INSERT INTO shop.v (id, a) VALUES (16, 1)"),
    Sql("SET SESSION system_versioning_alter_history = KEEP"),
    Sql("ALTER TABLE shop.v ADD COLUMN b INT UNSIGNED"),
    Row("shop", "v", 17, "INSERT INTO shop.v (id, a, b) VALUES (17, 2, 4294967295)"),
    Sql("ALTER TABLE shop.v DROP SYSTEM VERSIONING"),
    Row("shop", "v", 18, "INSERT INTO shop.v VALUES (18, 3, 3)"),
    Sql("ALTER TABLE shop.v ADD SYSTEM VERSIONING"),
    Row("shop", "v", 19, "INSERT INTO shop.v (id, a, b) VALUES (19, 4, 4)"),
    // Databases: CREATE, tables in it, DROP DATABASE, CREATE again.
    Sql("CREATE DATABASE other"),
    Sql("CREATE TABLE other.o (id INT PRIMARY KEY, n VARCHAR(3))"),
    Row("other", "o", 20, "INSERT INTO other.o VALUES (20, 'abc')"),
    Sql("DROP DATABASE other"),
    Sql("CREATE DATABASE other DEFAULT CHARACTER SET latin1"),
    Sql("CREATE TABLE other.o (id INT PRIMARY KEY, n VARCHAR(3), k INT UNSIGNED)"),
    Row("other", "o", 21, "INSERT INTO other.o VALUES (21, 'ñé', 7)"),
    // Unique key promoted to row key, DROP INDEX, CREATE UNIQUE INDEX.
    Sql("CREATE TABLE shop.u (a INT NOT NULL, b INT, UNIQUE KEY ua (a))"),
    Row("shop", "u", 22, "INSERT INTO shop.u VALUES (22, 1)"),
    Sql("DROP INDEX ua ON shop.u"),
    Sql("CREATE UNIQUE INDEX ub ON shop.u (a, b)"),
    Row("shop", "u", 23, "INSERT INTO shop.u VALUES (23, 2)"),
    Sql("DROP TABLE shop.t_old, shop.u"),
    Row("shop", "t", 24, "INSERT INTO shop.t (id, label) VALUES (24, 'last')"),
];

/// The row written by a `Row` step, as the server shows it.
#[derive(Debug, Clone)]
struct Expected {
    /// Binlog positions before and after the INSERT.
    range: (BinlogPosition, BinlogPosition),
    table: String,
    names: Vec<String>,
    values: Vec<Option<String>>,
}

fn key_column(db: &MariaDb, schema: &str, table: &str) -> String {
    let cols = server_columns(db, schema, table);
    if cols.iter().any(|(n, _)| n == "id") {
        "id".into()
    } else {
        cols[0].0.clone()
    }
}

/// Runs the script on `db`; returns the expected rows and the binlog
/// position after each step.
fn run_script(db: &MariaDb) -> (Vec<Expected>, Vec<(String, u64)>) {
    let mut expected = Vec::new();
    let mut positions = Vec::new();
    for step in SCRIPT {
        match step {
            Sql(sql) => db.exec(sql).unwrap_or_else(|e| panic!("{sql}: {e:#}")),
            Row(schema, table, id, insert) => {
                let (f, o) = db.current_binlog_position().unwrap();
                let before = BinlogPosition::new(f, o);
                db.exec(insert)
                    .unwrap_or_else(|e| panic!("{insert}: {e:#}"));
                let (f, o) = db.current_binlog_position().unwrap();
                let after = BinlogPosition::new(f, o);
                let cols = server_columns(db, schema, table);
                let names: Vec<String> = cols.iter().map(|(n, _)| n.clone()).collect();
                let list: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
                let key = key_column(db, schema, table);
                let rows = db
                    .query(&format!(
                        "SELECT {} FROM `{schema}`.`{table}` WHERE `{key}` = {id}",
                        list.join(", ")
                    ))
                    .unwrap();
                assert_eq!(rows.len(), 1, "{schema}.{table} row {id}");
                let mut names = names;
                let mut values = rows[0].clone();
                // The implicit system-versioning columns are hidden from
                // information_schema but are columns of the row image.
                let versioned = db
                    .query_scalar(&format!(
                        "SELECT TABLE_TYPE FROM information_schema.TABLES \
                         WHERE TABLE_SCHEMA = '{schema}' AND TABLE_NAME = '{table}'"
                    ))
                    .unwrap();
                if versioned.as_deref() == Some("SYSTEM VERSIONED")
                    && !names.iter().any(|n| n == "row_start")
                {
                    names.extend(["row_start".to_string(), "row_end".to_string()]);
                    values.extend([None, None]);
                }
                expected.push(Expected {
                    range: (before, after),
                    table: format!("{schema}.{table}"),
                    names,
                    values,
                });
            }
        }
        positions.push(db.current_binlog_position().unwrap());
    }
    (expected, positions)
}

fn start_server(metadata: BinlogRowMetadata) -> Arc<MariaDb> {
    let db = MariaDb::start(
        MariaDbConfig::default()
            .binlog_row_metadata(metadata)
            .arg("--default-time-zone=+00:00"),
    )
    .expect("start MariaDB");
    Arc::new(db)
}

/// Writes of the script's tables, in binlog order.
fn script_writes(d: &Decoded) -> Vec<&common::live::DecodedRow> {
    d.rows
        .iter()
        .filter(|r| {
            r.kind == RowsKind::Write
                && (r.table.starts_with("shop.") || r.table.starts_with("other."))
        })
        .collect()
}

fn assert_rows_match(decoded: &Decoded, expected: &[Expected]) {
    let all = script_writes(decoded);
    // The writes of each INSERT step (CREATE ... SELECT writes others).
    let writes: Vec<_> = expected
        .iter()
        .map(|e| {
            let w: Vec<_> = all
                .iter()
                .filter(|r| r.position > e.range.0 && r.position <= e.range.1)
                .collect();
            assert_eq!(
                w.len(),
                1,
                "writes of the insert into {} at {:?}",
                e.table,
                e.range
            );
            *w[0]
        })
        .collect();
    let got: Vec<String> = writes.iter().map(|r| r.table.clone()).collect();
    let want: Vec<String> = expected.iter().map(|e| e.table.clone()).collect();
    assert_eq!(got, want, "decoded writes by table");
    for (r, e) in writes.iter().zip(expected) {
        let names: Vec<String> = r
            .names
            .iter()
            .map(|n| n.clone().unwrap_or_default())
            .collect();
        assert_eq!(
            names, e.names,
            "column names of {} at {}",
            r.table, r.position
        );
        for ((name, got), want) in names.iter().zip(&r.values).zip(&e.values) {
            if name == "row_start" || name == "row_end" {
                continue;
            }
            assert_eq!(got, want, "{}.{name} at {}", r.table, r.position);
        }
    }
}

fn history_path(dir: &tempfile::TempDir) -> std::path::PathBuf {
    dir.path().join("schema-history.jsonl")
}

fn run_full_script(metadata: BinlogRowMetadata) {
    let db = start_server(metadata);
    db.exec(
        "CREATE DATABASE pre; CREATE TABLE pre.p (id INT UNSIGNED PRIMARY KEY, e ENUM('on','off'))",
    )
    .unwrap();
    let start = db.current_binlog_position().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = FileHistoryStore::open(history_path(&dir)).unwrap();
    let mut tracker = SchemaTracker::open(Box::new(store), TrackerOptions::default()).unwrap();
    // The first start: the schema of every table at the start position,
    // read from the server before streaming begins.
    let start_pos = BinlogPosition::new(start.0.clone(), start.1);
    tracker
        .seed(&TestSource(db.clone()), &|_, _| true, &start_pos)
        .unwrap();
    db.exec("INSERT INTO pre.p VALUES (4294967295, 'off')")
        .unwrap();
    let (expected, positions) = run_script(&db);
    db.flush_binlogs().unwrap();
    let decoded = decode(&db, &mut tracker, None).unwrap_or_else(|e| panic!("{e}"));
    // In row format the server logs CREATE ... SELECT as a CREATE TABLE
    // with every column spelled out (and the rows as row events).
    let sel = decoded
        .queries
        .iter()
        .find(|(_, q)| q.starts_with("CREATE TABLE") && q.contains("sel") && q.contains("`label`"))
        .map(|(_, q)| q.clone())
        .unwrap_or_default();
    assert!(
        sel.contains("`label`") && !sel.to_ascii_uppercase().contains("SELECT"),
        "{sel}"
    );
    assert_rows_match(&decoded, &expected);
    // The table that existed before the start decodes with the seeded schema.
    let pre: Vec<_> = decoded.rows.iter().filter(|r| r.table == "pre.p").collect();
    assert_eq!(pre[0].names, vec![Some("id".to_string()), Some("e".into())]);
    assert_eq!(
        pre[0].values,
        vec![Some("4294967295".to_string()), Some("off".into())]
    );
    // Every TABLE_MAP agreed with the tracked schema: nothing was repaired.
    let repairs: Vec<&HistoryRecord> = tracker
        .records()
        .iter()
        .filter(|r| matches!(r, HistoryRecord::Repair { .. }))
        .collect();
    assert!(repairs.is_empty(), "unexpected repairs: {repairs:#?}");

    // The tracked catalog equals the server's own view at the end.
    for (schema, table) in [
        ("shop", "t"),
        ("shop", "sel"),
        ("shop", "v"),
        ("other", "o"),
    ] {
        let t = tracker.catalog().table(schema, table).unwrap();
        let server: Vec<String> = server_columns(&db, schema, table)
            .into_iter()
            .map(|c| c.0)
            .collect();
        let ours: Vec<&str> = t.column_names();
        let ours: Vec<String> = ours
            .iter()
            .filter(|n| server.contains(&n.to_string()) || !matches!(**n, "row_start" | "row_end"))
            .map(|s| s.to_string())
            .collect();
        assert_eq!(ours, server, "{schema}.{table}");
    }

    // Restart at an older position: reload the history from the file and
    // decode from the position after the RENAME COLUMN step.
    drop(tracker);
    let store = FileHistoryStore::open(history_path(&dir)).unwrap();
    let mut tracker = SchemaTracker::open(Box::new(store), TrackerOptions::default()).unwrap();
    let step = SCRIPT
        .iter()
        .position(|s| matches!(s, Sql(q) if q.contains("RENAME COLUMN title TO label")))
        .unwrap();
    let before_rename = BinlogPosition::new(positions[step - 1].0.clone(), positions[step - 1].1);
    // The catalog of that time still has `title`, not `label`.
    let old = tracker.catalog_at(&before_rename);
    let old_t: &TableSchema = old.table("shop", "t").unwrap();
    assert!(
        old_t.column("title").is_some() && old_t.column("label").is_none(),
        "{old_t:?}"
    );
    assert!(old_t.column("g").is_none());
    tracker.start_at(&before_rename);
    let replay = decode(&db, &mut tracker, Some(&before_rename)).unwrap();
    // Rows from there on decode exactly as in the first pass.
    let first_pass: Vec<_> = script_writes(&decoded)
        .into_iter()
        .filter(|r| r.position > before_rename)
        .cloned()
        .collect();
    let second_pass: Vec<_> = script_writes(&replay).into_iter().cloned().collect();
    assert_eq!(first_pass, second_pass);
    // Restart even earlier, before the first ALTER: row 1 decodes with the
    // original columns.
    let first_alter = SCRIPT
        .iter()
        .position(|s| matches!(s, Sql(q) if q.starts_with("ALTER TABLE shop.t ADD COLUMN b")))
        .unwrap();
    let p = BinlogPosition::new(
        positions[first_alter - 2].0.clone(),
        positions[first_alter - 2].1,
    );
    tracker.start_at(&p);
    let replay = decode(&db, &mut tracker, Some(&p)).unwrap();
    let w = script_writes(&replay);
    assert_eq!(
        w[0].names,
        vec![
            Some("id".to_string()),
            Some("a".into()),
            Some("e".into()),
            Some("s".into()),
            Some("name".into())
        ]
    );
    assert_eq!(w[0].values[1].as_deref(), Some("200"));
    assert_eq!(w[0].values[4].as_deref(), Some("café"));
    // Replaying recorded history appends nothing.
    let n = tracker.records().len();
    assert_eq!(
        FileHistoryStore::open(history_path(&dir))
            .map(
                |mut s| sluice_schema::history::SchemaHistoryStore::load(&mut s)
                    .unwrap()
                    .len()
            )
            .unwrap(),
        n
    );
}

#[test]
fn every_ddl_form_decodes_with_the_right_columns_no_log() {
    run_full_script(BinlogRowMetadata::NoLog);
}

#[test]
fn every_ddl_form_decodes_with_the_right_columns_full() {
    run_full_script(BinlogRowMetadata::Full);
}

#[test]
fn wrong_tracked_schema_is_repaired_from_full_metadata() {
    let db = start_server(BinlogRowMetadata::Full);
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.p (id INT PRIMARY KEY, qty INT UNSIGNED, note VARCHAR(10))")
        .unwrap();
    let start = db.current_binlog_position().unwrap();
    let start_pos = BinlogPosition::new(start.0.clone(), start.1);
    db.exec("INSERT INTO shop.p VALUES (1, 4000000000, 'n1')")
        .unwrap();
    db.flush_binlogs().unwrap();

    let dir = tempfile::tempdir().unwrap();
    let store = FileHistoryStore::open(history_path(&dir)).unwrap();
    let mut tracker = SchemaTracker::open(Box::new(store), TrackerOptions::default()).unwrap();
    tracker
        .seed(&TestSource(db.clone()), &|_, _| true, &start_pos)
        .unwrap();
    // Deliberately wrong: a column renamed and one signed that is not.
    let mut wrong = tracker.catalog().table("shop", "p").unwrap().clone();
    wrong.columns[1].name = "quantity".into();
    wrong.columns[1].unsigned = false;
    wrong.columns[1].data_type = "int".into();
    let mut catalog = tracker.catalog().clone();
    catalog.put_table(wrong);
    // Record the wrong state as a snapshot at the start, as a diverged
    // history would hold it.
    let store = FileHistoryStore::open(history_path(&dir)).unwrap();
    drop(tracker);
    let mut store = store;
    sluice_schema::history::SchemaHistoryStore::append(
        &mut store,
        &HistoryRecord::Snapshot {
            position: start_pos.clone(),
            reason: "test: wrong".into(),
            catalog,
        },
    )
    .unwrap();
    let mut tracker = SchemaTracker::open(Box::new(store), TrackerOptions::default()).unwrap();
    tracker.start_at(&start_pos);
    let captured = Captured::default();
    let decoded = captured
        .during(|| decode(&db, &mut tracker, Some(&start_pos)))
        .unwrap();
    let w = script_writes(&decoded);
    assert_eq!(w.len(), 1);
    assert_eq!(
        w[0].names,
        vec![Some("id".into()), Some("qty".into()), Some("note".into())]
    );
    assert_eq!(w[0].values[1].as_deref(), Some("4000000000"));
    let log = captured.text();
    assert!(
        log.contains("WARN") && log.contains("shop.p") && log.contains(&start.0),
        "{log}"
    );
    let repairs: Vec<&HistoryRecord> = tracker
        .records()
        .iter()
        .filter(|r| {
            matches!(
                r,
                HistoryRecord::Repair {
                    source: RepairSource::BinlogMetadata,
                    ..
                }
            )
        })
        .collect();
    assert_eq!(repairs.len(), 1, "{:#?}", tracker.records());
    let fixed = tracker.catalog().table("shop", "p").unwrap();
    assert_eq!(fixed.column_names(), vec!["id", "qty", "note"]);
    assert!(fixed.columns[1].unsigned);
    // The repair is durable: a restart at the end position reads it back.
    let store = FileHistoryStore::open(history_path(&dir)).unwrap();
    let t2 = SchemaTracker::open(Box::new(store), TrackerOptions::default()).unwrap();
    assert_eq!(
        t2.catalog().table("shop", "p").unwrap().column_names(),
        vec!["id", "qty", "note"]
    );
}

#[test]
fn wrong_tracked_schema_without_full_metadata_is_an_error() {
    let db = start_server(BinlogRowMetadata::NoLog);
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.p (id INT PRIMARY KEY, qty INT UNSIGNED)")
        .unwrap();
    let start = db.current_binlog_position().unwrap();
    let start_pos = BinlogPosition::new(start.0.clone(), start.1);
    db.exec("INSERT INTO shop.p VALUES (1, 2)").unwrap();
    db.flush_binlogs().unwrap();
    let mut tracker = SchemaTracker::open(
        Box::new(sluice_schema::history::MemoryHistoryStore::default()),
        TrackerOptions::default(),
    )
    .unwrap();
    tracker
        .seed(&TestSource(db.clone()), &|_, _| true, &start_pos)
        .unwrap();
    // One column too many: must not decode with shifted columns.
    let mut c = tracker.catalog().clone();
    let mut t = c.table("shop", "p").unwrap().clone();
    let extra = t.columns[1].clone();
    t.columns.push(sluice_schema::model::ColumnSchema {
        name: "extra".into(),
        ..extra
    });
    c.put_table(t);
    let mut store = sluice_schema::history::MemoryHistoryStore::default();
    sluice_schema::history::SchemaHistoryStore::append(
        &mut store,
        &HistoryRecord::Snapshot {
            position: start_pos.clone(),
            reason: "wrong".into(),
            catalog: c,
        },
    )
    .unwrap();
    let mut tracker = SchemaTracker::open(Box::new(store), TrackerOptions::default()).unwrap();
    let err = decode(&db, &mut tracker, Some(&start_pos))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("shop.p") && err.contains(&start.0) && err.contains("3 columns tracked"),
        "{err}"
    );
}

/// CREATE TABLE ... SELECT logged in statement format: the statement does not
/// say which columns the query makes. Each policy.
fn unreadable_ddl(
    policy: UnparseableDdlPolicy,
    metadata: BinlogRowMetadata,
    live: bool,
) -> (Result<Decoded, String>, SchemaTracker, String) {
    let db = start_server(metadata);
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.src (id INT PRIMARY KEY, label VARCHAR(10), n INT UNSIGNED)").unwrap();
    db.exec("INSERT INTO shop.src VALUES (1, 'one', 3000000000)")
        .unwrap();
    let start = db.current_binlog_position().unwrap();
    let start_pos = BinlogPosition::new(start.0.clone(), start.1);
    db.exec("SET SESSION binlog_format = STATEMENT").unwrap();
    db.exec("CREATE TABLE shop.c2 SELECT id, n, label FROM shop.src")
        .unwrap();
    db.exec("SET SESSION binlog_format = ROW").unwrap();
    db.exec("INSERT INTO shop.c2 VALUES (2, 4000000000, 'two')")
        .unwrap();
    db.flush_binlogs().unwrap();
    let mut tracker = SchemaTracker::open(
        Box::new(sluice_schema::history::MemoryHistoryStore::default()),
        TrackerOptions {
            policy,
            ..TrackerOptions::default()
        },
    )
    .unwrap();
    tracker
        .seed(&TestSource(db.clone()), &|_, _| true, &start_pos)
        .unwrap();
    // Drop c2 from the seeded catalog: it did not exist at the start.
    let mut c = tracker.catalog().clone();
    c.apply_deltas(
        &[sluice_schema::catalog::Delta::RemoveTable {
            db: "shop".into(),
            name: "c2".into(),
        }],
        &start_pos,
    );
    let mut store = sluice_schema::history::MemoryHistoryStore::default();
    sluice_schema::history::SchemaHistoryStore::append(
        &mut store,
        &HistoryRecord::Snapshot {
            position: start_pos.clone(),
            reason: "start".into(),
            catalog: c,
        },
    )
    .unwrap();
    let mut tracker = SchemaTracker::open(
        Box::new(store),
        TrackerOptions {
            policy,
            ..TrackerOptions::default()
        },
    )
    .unwrap();
    tracker.set_metadata_source(Box::new(TestSource(db.clone())));
    tracker.set_live(live);
    let captured = Captured::default();
    let r = captured
        .during(|| decode(&db, &mut tracker, Some(&start_pos)))
        .map_err(|e| e.to_string());
    (r, tracker, captured.text())
}

#[test]
fn unreadable_ddl_fail_policy_stops_with_position() {
    let (r, _, _) = unreadable_ddl(UnparseableDdlPolicy::Fail, BinlogRowMetadata::NoLog, false);
    let err = r.unwrap_err();
    assert!(
        err.contains("shop.c2") && err.contains("SELECT") && err.contains("binlog."),
        "{err}"
    );
}

#[test]
fn unreadable_ddl_skip_policy_warns_and_never_misaligns() {
    // NO_LOG: rows of the skipped table decode from the binlog alone.
    let (r, tracker, log) = unreadable_ddl(
        UnparseableDdlPolicy::SkipWithWarning,
        BinlogRowMetadata::NoLog,
        false,
    );
    let d = r.unwrap();
    let w = script_writes(&d);
    assert_eq!(w.len(), 1);
    assert!(w[0].names.iter().all(Option::is_none), "{:?}", w[0]);
    assert!(log.contains("WARN") && log.contains("shop.c2"), "{log}");
    assert!(tracker.catalog().stale("shop", "c2").is_some());
    // FULL: the table is rebuilt from the TABLE_MAP.
    let (r, tracker, log) = unreadable_ddl(
        UnparseableDdlPolicy::SkipWithWarning,
        BinlogRowMetadata::Full,
        false,
    );
    let d = r.unwrap();
    let w = script_writes(&d);
    assert_eq!(
        w[0].names,
        vec![Some("id".into()), Some("n".into()), Some("label".into())]
    );
    assert_eq!(w[0].values[1].as_deref(), Some("4000000000"));
    assert!(log.contains("rebuilt"), "{log}");
    assert!(tracker.catalog().stale("shop", "c2").is_none());
}

#[test]
fn unreadable_ddl_reread_policy() {
    // Live with a source: the table is read from the server.
    let (r, tracker, log) =
        unreadable_ddl(UnparseableDdlPolicy::Reread, BinlogRowMetadata::NoLog, true);
    let d = r.unwrap();
    let w = script_writes(&d);
    assert_eq!(
        w[0].names,
        vec![Some("id".into()), Some("n".into()), Some("label".into())]
    );
    assert_eq!(w[0].values[1].as_deref(), Some("4000000000"));
    assert!(log.contains("re-read"), "{log}");
    assert!(tracker.records().iter().any(|r| matches!(
        r,
        HistoryRecord::Ddl {
            unparsed: Some(_),
            ..
        }
    )));
    // Not live: the table is stale and, without FULL metadata, its rows are
    // an error rather than a guess.
    let (r, _, _) = unreadable_ddl(
        UnparseableDdlPolicy::Reread,
        BinlogRowMetadata::NoLog,
        false,
    );
    let err = r.unwrap_err();
    assert!(
        err.contains("shop.c2") && err.contains("unknown since"),
        "{err}"
    );
}
