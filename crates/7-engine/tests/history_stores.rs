//! The schema history in Debezium's record format, in a file and in
//! ZooKeeper, against a private MariaDB, a private ZooKeeper and the
//! reference design's Java store (Curator): a tracker's history read back
//! exactly and giving the catalog of any time, a history Java wrote read
//! into the right tables, the ZooKeeper layout as Java reads it, fencing,
//! torn and cut-short writes, and big snapshots.

use std::io::{Read, Write};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::Value;
use sluice_binlog::{walk_file, EventData};
use sluice_engine::history_store::{
    create_table_sql, DebeziumFileHistoryStore, DebeziumZooKeeperHistoryStore, Fence,
};
use sluice_ha::zookeeper_client::Client;
use sluice_ha::{LatchConfig, LeaderLatch, ZkConfig, ZkSession};
use sluice_schema::catalog::{ApplyContext, Delta};
use sluice_schema::{
    BinlogPosition, Catalog, HistoryRecord, MemoryHistoryStore, SchemaHistoryStore, SchemaTracker,
    TableSchema, TrackerOptions,
};
use sluice_testkit::{MariaDb, ZooKeeperEnsemble};

const SERVER: &str = "dbserver1";

fn init_tracing() {
    if std::env::var_os("RUST_LOG").is_some() {
        let _ = tracing_subscriber::fmt()
            .with_env_filter(tracing_subscriber::EnvFilter::from_default_env())
            .with_test_writer()
            .try_init();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn zk_config(servers: &str) -> ZkConfig {
    ZkConfig::new(servers).with_session_timeout(Duration::from_secs(4))
}

fn zk_store(servers: &str, path: &str) -> DebeziumZooKeeperHistoryStore {
    DebeziumZooKeeperHistoryStore::connect(zk_config(servers), path, SERVER).unwrap()
}

fn options() -> TrackerOptions {
    TrackerOptions {
        // Periodic snapshots in the middle of the history, so that
        // snapshots are written and read back between DDL records.
        snapshot_every: 3,
        ..TrackerOptions::default()
    }
}

fn position(db: &MariaDb) -> BinlogPosition {
    let (file, pos) = db.current_binlog_position().unwrap();
    BinlogPosition::new(file, pos)
}

/// Feeds every QUERY event after `from` of `db`'s binlog to the trackers.
fn feed(db: &MariaDb, trackers: &mut [&mut SchemaTracker], from: &BinlogPosition) {
    for path in db.binlog_files().unwrap() {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let buf = std::fs::read(&path).unwrap();
        walk_file(&name, &buf, |at, _raw, data| {
            let end = BinlogPosition::new(name.clone(), at.next_pos);
            if &end <= from {
                return ControlFlow::Continue(());
            }
            if let EventData::Query(q) = data {
                let sql = q.query_text().into_owned();
                for t in trackers.iter_mut() {
                    t.on_query(&end, &q.schema_text(), &sql, q.status_vars)
                        .unwrap_or_else(|e| panic!("{sql}: {e}"));
                }
            }
            ControlFlow::Continue(())
        })
        .unwrap();
    }
}

const STEP_1: &[&str] = &[
    "CREATE DATABASE shop CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci",
    "CREATE TABLE shop.customers (id INT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY, \
     name VARCHAR(64) CHARACTER SET latin1 NOT NULL DEFAULT 'x', \
     kind ENUM('a','b''c') NOT NULL DEFAULT 'a', tags SET('p','q'), \
     price DECIMAL(10,2) UNSIGNED, born DATETIME(3), photo BLOB, note TEXT, \
     UNIQUE KEY uk_name (name))",
    "CREATE TABLE shop.orders (id BIGINT NOT NULL PRIMARY KEY, customer INT UNSIGNED, \
     total DOUBLE, g INT AS (id * 2) VIRTUAL)",
];
const STEP_2: &[&str] = &[
    "ALTER TABLE shop.customers ADD COLUMN email VARCHAR(128) AFTER name, DROP COLUMN note",
    "CREATE DATABASE other DEFAULT CHARACTER SET latin1",
    "CREATE TABLE other.o (id INT PRIMARY KEY, n VARCHAR(3))",
    "INSERT INTO shop.orders (id) VALUES (1)",
];
const STEP_3: &[&str] = &[
    "RENAME TABLE shop.orders TO shop.orders_old",
    "DROP DATABASE other",
    "ALTER TABLE shop.customers MODIFY COLUMN email VARCHAR(255) NOT NULL",
    "CREATE TABLE shop.v (id INT PRIMARY KEY, a INT) WITH SYSTEM VERSIONING",
];

/// Runs the script on a fresh MariaDB; returns it with the position before
/// the script and after each step.
fn run_script() -> (MariaDb, Vec<BinlogPosition>) {
    let db = MariaDb::start_default().unwrap();
    let mut positions = vec![position(&db)];
    for step in [STEP_1, STEP_2, STEP_3] {
        for sql in step {
            db.exec(sql).unwrap();
        }
        positions.push(position(&db));
    }
    (db, positions)
}

/// The tracker over `store` ends where the one over memory does, and a
/// tracker over a reopened `reopen()` reads the same records and resumes
/// at every step with the catalog of that time.
fn check_store(
    db: &MariaDb,
    positions: &[BinlogPosition],
    store: Box<dyn SchemaHistoryStore>,
    reopen: impl Fn() -> Box<dyn SchemaHistoryStore>,
) {
    let mut memory =
        SchemaTracker::open(Box::new(MemoryHistoryStore::default()), options()).unwrap();
    let mut tracker = SchemaTracker::open(store, options()).unwrap();
    assert!(!tracker.has_history());
    memory.seed_empty(&positions[0]).unwrap();
    tracker.seed_empty(&positions[0]).unwrap();
    feed(db, &mut [&mut memory, &mut tracker], &positions[0]);
    assert_eq!(tracker.catalog(), memory.catalog());
    assert!(
        memory
            .records()
            .iter()
            .filter(|r| matches!(r, HistoryRecord::Snapshot { .. }))
            .count()
            >= 3,
        "periodic snapshots in the history"
    );
    drop(tracker);

    let reopened = SchemaTracker::open(reopen(), options()).unwrap();
    assert_eq!(
        reopened.records(),
        memory.records(),
        "the records read back exactly"
    );
    assert_eq!(reopened.catalog(), memory.catalog());
    drop(reopened);
    // Resuming at an older and at a newer position gives that time's catalog.
    for p in [&positions[1], &positions[3], &positions[2], &positions[0]] {
        let mut t = SchemaTracker::open(reopen(), options()).unwrap();
        t.resume_at(p).unwrap();
        assert_eq!(t.catalog(), &memory.catalog_at(p), "catalog at {p}");
    }
    let at_1 = memory.catalog_at(&positions[1]);
    let customers = at_1.table("shop", "customers").unwrap();
    assert_eq!(
        customers.column_names(),
        ["id", "name", "kind", "tags", "price", "born", "photo", "note"]
    );
    assert!(at_1.table("other", "o").is_none());
    let at_2 = memory.catalog_at(&positions[2]);
    assert!(at_2.table("other", "o").is_some());
    assert_eq!(
        at_2.table("shop", "customers").unwrap().column_names(),
        ["id", "name", "email", "kind", "tags", "price", "born", "photo"]
    );
    let at_3 = memory.catalog_at(&positions[3]);
    assert!(at_3.table("other", "o").is_none() && at_3.table("shop", "orders").is_none());
    assert!(at_3.table("shop", "orders_old").is_some() && at_3.table("shop", "v").is_some());
}

/// Every stored record has Debezium's fields; returns them.
fn check_debezium_shape(records: &[Value]) {
    assert!(!records.is_empty());
    for r in records {
        assert_eq!(r["source"], serde_json::json!({"server": SERVER}), "{r}");
        assert!(
            r["position"]["file"].is_string() && r["position"]["pos"].is_u64(),
            "{r}"
        );
        assert!(r["ts_ms"].is_u64(), "{r}");
        assert!(r["tableChanges"].is_array(), "{r}");
    }
    // The ALTER of step 2, as Debezium writes it.
    let alter = records
        .iter()
        .find(|r| {
            r["ddl"]
                .as_str()
                .is_some_and(|d| d.starts_with("ALTER TABLE shop.customers ADD COLUMN email"))
        })
        .expect("the ALTER record");
    assert_eq!(alter["databaseName"], "");
    let change = &alter["tableChanges"][0];
    assert_eq!(change["type"], "ALTER");
    assert_eq!(change["id"], "\"shop\".\"customers\"");
    assert_eq!(
        change["table"]["primaryKeyColumnNames"],
        serde_json::json!(["id"])
    );
    let columns = change["table"]["columns"].as_array().unwrap();
    let names: Vec<&str> = columns
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        ["id", "name", "email", "kind", "tags", "price", "born", "photo"]
    );
    let col = |n: &str| columns.iter().find(|c| c["name"] == n).unwrap();
    assert_eq!(col("id")["jdbcType"], 4);
    assert_eq!(col("id")["typeName"], "INT UNSIGNED");
    assert_eq!(col("id")["autoIncremented"], true);
    assert_eq!(col("id")["optional"], false);
    assert_eq!(col("id")["position"], 1);
    assert_eq!(col("name")["jdbcType"], 12);
    assert_eq!(col("name")["charsetName"], "latin1");
    assert_eq!(col("name")["length"], 64);
    assert_eq!(col("name")["defaultValueExpression"], "x");
    assert_eq!(col("email")["length"], 128);
    assert_eq!(col("email")["optional"], true);
    assert_eq!(col("kind")["jdbcType"], 1);
    assert_eq!(
        col("kind")["enumValues"],
        serde_json::json!(["'a'", "'b''c'"])
    );
    assert_eq!(col("price")["jdbcType"], 3);
    assert_eq!(
        (
            col("price")["length"].clone(),
            col("price")["scale"].clone()
        ),
        (10.into(), 2.into())
    );
    assert_eq!(col("born")["jdbcType"], 93);
    assert_eq!(col("photo")["jdbcType"], 2004);
    assert_eq!(col("photo")["charsetName"], Value::Null);
    // DROP DATABASE names the tables it drops.
    let drop_db = records
        .iter()
        .find(|r| r["ddl"] == "DROP DATABASE other")
        .expect("the DROP DATABASE record");
    assert_eq!(
        drop_db["tableChanges"],
        serde_json::json!([{"type": "DROP", "id": "\"other\".\"o\""}])
    );
    // RENAME TABLE: an ALTER of the new name with the old one as `previousId`.
    let rename = records
        .iter()
        .find(|r| r["ddl"] == "RENAME TABLE shop.orders TO shop.orders_old")
        .expect("the RENAME record");
    let change = &rename["tableChanges"][0];
    assert_eq!(rename["tableChanges"].as_array().unwrap().len(), 1);
    assert_eq!(
        (&change["type"], &change["id"], &change["previousId"]),
        (
            &Value::from("ALTER"),
            &Value::from("\"shop\".\"orders_old\""),
            &Value::from("\"shop\".\"orders\"")
        )
    );
    // A snapshot: head, one record per database, one per table.
    let table_record = records
        .iter()
        .find(|r| {
            r["ddl"]
                .as_str()
                .is_some_and(|d| d.starts_with("CREATE TABLE `shop`.`customers`"))
        })
        .expect("a snapshot record of shop.customers");
    assert_eq!(table_record["tableChanges"][0]["type"], "CREATE");
    assert_eq!(table_record["databaseName"], "shop");
}

#[test]
fn a_trackers_history_reads_back_exactly_from_a_debezium_file() {
    init_tracing();
    let (db, positions) = run_script();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema-history.dat");
    let open = || -> Box<dyn SchemaHistoryStore> {
        Box::new(DebeziumFileHistoryStore::open(&path, SERVER).unwrap())
    };
    check_store(&db, &positions, open(), open);
    let text = std::fs::read_to_string(&path).unwrap();
    let records: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    check_debezium_shape(&records);

    // The CREATE TABLE text of every table parses back to the same table.
    let memory_catalog = SchemaTracker::open(open(), options())
        .unwrap()
        .catalog_at(&positions[2]);
    check_create_table_text(&memory_catalog);
}

/// `create_table_sql` of each table, parsed again, gives the table.
fn check_create_table_text(catalog: &Catalog) {
    let mut checked = 0;
    for t in catalog.tables() {
        let mut fresh = Catalog::new();
        for d in catalog.databases() {
            fresh.put_database(d.clone());
        }
        let sql = create_table_sql(t);
        fresh
            .apply_ddl(
                &ApplyContext::default(),
                &sql,
                &BinlogPosition::new("binlog.000001", 4),
            )
            .unwrap_or_else(|e| panic!("{sql}: {e}"));
        assert_eq!(fresh.table(&t.db, &t.name), Some(t), "{sql}");
        checked += 1;
    }
    assert!(checked >= 3);
}

#[test]
fn a_trackers_history_reads_back_exactly_from_zookeeper() {
    init_tracing();
    let (db, positions) = run_script();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let path = "/debezium/schema-history";
    let open = || -> Box<dyn SchemaHistoryStore> { Box::new(zk_store(&servers, path)) };
    check_store(&db, &positions, open(), open);
    let records: Vec<Value> = zk_children(&servers, path)
        .into_iter()
        .map(|(_, data)| serde_json::from_slice(&gunzip(&data)).unwrap())
        .collect();
    check_debezium_shape(&records);
}

fn gunzip(data: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(data)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// The children of `path` in name order, with their data.
fn zk_children(servers: &str, path: &str) -> Vec<(String, Vec<u8>)> {
    runtime().block_on(async {
        let client = Client::connect(servers).await.unwrap();
        let mut names = client.list_children(path).await.unwrap();
        names.sort();
        let mut out = Vec::new();
        for n in names {
            let (data, _) = client.get_data(&format!("{path}/{n}")).await.unwrap();
            out.push((n, data));
        }
        out
    })
}

/// Positions of the Java fixture.
fn java_position(pos: u64) -> BinlogPosition {
    BinlogPosition::new("mysql-bin.000003", pos)
}

/// A history as Java Debezium writes it (§3.1–3.3 of the record format),
/// without Sluice's field: a snapshot (SET, DROP TABLE, DROP DATABASE,
/// CREATE DATABASE, USE, CREATE TABLE) at 154, then streaming DDL; one
/// record of another connector and one without `source`/`position`.
const JAVA_HISTORY: &[&str] = &[
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566600,"file":"mysql-bin.000003","pos":154,"snapshot":true,"server_id":223344},"ts_ms":1714566600101,"databaseName":"","ddl":"SET character_set_server=utf8mb4, collation_server=utf8mb4_general_ci","tableChanges":[]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566600,"file":"mysql-bin.000003","pos":154,"snapshot":true,"server_id":223344},"ts_ms":1714566600102,"databaseName":"inventory","ddl":"DROP TABLE IF EXISTS `inventory`.`customers`","tableChanges":[]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566600,"file":"mysql-bin.000003","pos":154,"snapshot":true,"server_id":223344},"ts_ms":1714566600103,"databaseName":"inventory","ddl":"DROP DATABASE IF EXISTS `inventory`","tableChanges":[]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566600,"file":"mysql-bin.000003","pos":154,"snapshot":true,"server_id":223344},"ts_ms":1714566600104,"databaseName":"inventory","ddl":"CREATE DATABASE `inventory` CHARSET utf8mb4 COLLATE utf8mb4_general_ci","tableChanges":[]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566600,"file":"mysql-bin.000003","pos":154,"snapshot":true,"server_id":223344},"ts_ms":1714566600105,"databaseName":"inventory","ddl":"USE `inventory`","tableChanges":[]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566600,"file":"mysql-bin.000003","pos":154,"snapshot":true,"server_id":223344},"ts_ms":1714566600106,"databaseName":"inventory","ddl":"CREATE TABLE `customers` (\n  `id` int NOT NULL AUTO_INCREMENT,\n  `first_name` varchar(255) NOT NULL,\n  `email` varchar(255) NOT NULL,\n  PRIMARY KEY (`id`),\n  UNIQUE KEY `email` (`email`)\n) ENGINE=InnoDB AUTO_INCREMENT=1005 DEFAULT CHARSET=utf8mb4","tableChanges":[{"type":"CREATE","id":"\"inventory\".\"customers\"","table":{"defaultCharsetName":"utf8mb4","primaryKeyColumnNames":["id"],"columns":[{"name":"id","jdbcType":4,"typeName":"INT","typeExpression":"INT","charsetName":null,"position":1,"optional":false,"autoIncremented":true,"generated":true,"comment":null,"hasDefaultValue":false},{"name":"first_name","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":255,"position":2,"optional":false,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":false},{"name":"email","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":255,"position":3,"optional":false,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":false}],"attributes":[]},"comment":null}]}"#,
    // §3.3, verbatim: its table changes list two columns, its DDL says
    // what happened to the table the history built (the DDL wins).
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566645,"file":"mysql-bin.000003","pos":1043,"server_id":223344},"ts_ms":1714566645301,"databaseName":"inventory","ddl":"ALTER TABLE customers ADD COLUMN note VARCHAR(64) NULL","tableChanges":[{"type":"ALTER","id":"\"inventory\".\"customers\"","table":{"defaultCharsetName":"utf8mb4","primaryKeyColumnNames":["id"],"columns":[{"name":"id","jdbcType":4,"typeName":"INT","typeExpression":"INT","charsetName":null,"position":1,"optional":false,"autoIncremented":true,"generated":true,"comment":null,"hasDefaultValue":false},{"name":"note","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":64,"position":2,"optional":true,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":true}],"attributes":[]},"comment":null}]}"#,
    // Another connector's record: ignored.
    r#"{"source":{"server":"otherserver"},"position":{"file":"mysql-bin.000003","pos":1500},"ts_ms":1714566645400,"databaseName":"inventory","ddl":"CREATE TABLE ghost (id INT)","tableChanges":[]}"#,
    // Not valid (no source, no position): skipped.
    r#"{"ts_ms":1714566645500,"databaseName":"inventory","ddl":"CREATE TABLE nowhere (id INT)","tableChanges":[]}"#,
    // A statement Sluice's parser does not read: the table changes give the table.
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566700,"file":"mysql-bin.000003","pos":2000,"server_id":223344},"ts_ms":1714566700001,"databaseName":"inventory","ddl":"ALTER TABLE customers FROBNICATE vip","tableChanges":[{"type":"ALTER","id":"\"inventory\".\"customers\"","table":{"defaultCharsetName":"utf8mb4","primaryKeyColumnNames":["id"],"columns":[{"name":"id","jdbcType":4,"typeName":"INT","typeExpression":"INT","charsetName":null,"position":1,"optional":false,"autoIncremented":true,"generated":true,"comment":null,"hasDefaultValue":false},{"name":"first_name","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":255,"position":2,"optional":false,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":false},{"name":"email","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":255,"position":3,"optional":false,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":false},{"name":"note","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":64,"position":4,"optional":true,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":true},{"name":"size","jdbcType":1,"typeName":"ENUM","typeExpression":"ENUM","charsetName":"utf8mb4","position":5,"optional":false,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":true,"defaultValueExpression":"s","enumValues":["'s'","'m'","'l'"]},{"name":"balance","jdbcType":3,"typeName":"DECIMAL UNSIGNED","typeExpression":"DECIMAL UNSIGNED","charsetName":null,"length":12,"scale":2,"position":6,"optional":true,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":true}],"attributes":[]},"comment":null}]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566800,"file":"mysql-bin.000003","pos":3000,"server_id":223344},"ts_ms":1714566800001,"databaseName":"inventory","ddl":"CREATE TABLE products (id INT NOT NULL PRIMARY KEY, name VARCHAR(32))","tableChanges":[{"type":"CREATE","id":"\"inventory\".\"products\"","table":{"defaultCharsetName":"utf8mb4","primaryKeyColumnNames":["id"],"columns":[{"name":"id","jdbcType":4,"typeName":"INT","typeExpression":"INT","charsetName":null,"position":1,"optional":false,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":false},{"name":"name","jdbcType":12,"typeName":"VARCHAR","typeExpression":"VARCHAR","charsetName":"utf8mb4","length":32,"position":2,"optional":true,"autoIncremented":false,"generated":false,"comment":null,"hasDefaultValue":true}],"attributes":[]},"comment":null}]}"#,
    r#"{"source":{"server":"dbserver1"},"position":{"ts_sec":1714566900,"file":"mysql-bin.000003","pos":3100,"server_id":223344},"ts_ms":1714566900001,"databaseName":"inventory","ddl":"DROP TABLE `products`","tableChanges":[{"type":"DROP","id":"\"inventory\".\"products\""}]}"#,
];

/// A tracker over a history Java wrote gives the right tables at every
/// position.
fn check_java_history(
    store: Box<dyn SchemaHistoryStore>,
    reopen: impl Fn() -> Box<dyn SchemaHistoryStore>,
) {
    let tracker = SchemaTracker::open(store, options()).unwrap();
    let names = |t: &TableSchema| {
        t.column_names()
            .iter()
            .map(|s| s.to_string())
            .collect::<Vec<_>>()
    };
    // The latest state.
    let c = tracker.catalog();
    assert_eq!(
        names(c.table("inventory", "customers").unwrap()),
        ["id", "first_name", "email", "note", "size", "balance"]
    );
    assert!(c.table("inventory", "products").is_none());
    assert!(c.tables().all(|t| t.name != "ghost" && t.name != "nowhere"));
    assert!(c.stale("inventory", "customers").is_none());
    // The statements Sluice reads are replayed; the one it does not read
    // is rebuilt from the record's table changes.
    let ddl_at = |pos: u64| {
        tracker
            .records()
            .iter()
            .find_map(|r| match r {
                HistoryRecord::Ddl {
                    position,
                    parsed_by,
                    unparsed,
                    kind,
                    ..
                } if *position == java_position(pos) => {
                    Some((kind.clone(), parsed_by.is_some(), unparsed.is_some()))
                }
                _ => None,
            })
            .unwrap_or_else(|| panic!("a record at {pos}"))
    };
    assert_eq!(ddl_at(1043), ("ALTER TABLE".to_string(), true, false));
    // (Sluice's parser reads FROBNICATE as a change of nothing, which the
    // table changes contradict: they win.)
    let (kind, parsed, _) = ddl_at(2000);
    assert_eq!((kind.as_str(), parsed), ("TABLE CHANGES", false));
    drop(tracker);

    let at = |pos: u64| {
        let mut t = SchemaTracker::open(reopen(), options()).unwrap();
        t.resume_at(&java_position(pos)).unwrap();
        t.catalog().clone()
    };
    let snapshot = at(154);
    let customers = snapshot.table("inventory", "customers").unwrap();
    assert_eq!(names(customers), ["id", "first_name", "email"]);
    assert_eq!(customers.primary_key, ["id"]);
    assert!(customers.columns[0].auto_increment && !customers.columns[0].nullable);
    assert_eq!(customers.columns[1].data_type, "varchar(255)");
    assert_eq!(customers.columns[1].charset.as_deref(), Some("utf8mb4"));
    assert_eq!(
        snapshot
            .database("inventory")
            .unwrap()
            .default_charset
            .as_deref(),
        Some("utf8mb4")
    );

    let streaming = at(1043);
    let note = streaming
        .table("inventory", "customers")
        .unwrap()
        .column("note")
        .unwrap()
        .clone();
    assert_eq!(
        names(streaming.table("inventory", "customers").unwrap()),
        ["id", "first_name", "email", "note"]
    );
    assert!(note.nullable && note.data_type == "varchar(64)");

    let rebuilt = at(2000);
    let customers = rebuilt.table("inventory", "customers").unwrap();
    let size = customers.column("size").unwrap();
    assert_eq!(size.sql_type, "enum");
    assert_eq!(size.labels, ["s", "m", "l"]);
    assert_eq!(size.default.as_deref(), Some("'s'"));
    let balance = customers.column("balance").unwrap();
    assert!(balance.unsigned && balance.data_type == "decimal(12,2) unsigned");

    assert!(at(3000).table("inventory", "products").is_some());
    assert!(at(3100).table("inventory", "products").is_none());
}

#[test]
fn a_history_java_wrote_to_a_file_loads_with_the_right_tables() {
    init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema-history.dat");
    // A crash in the middle of the last append.
    let text = format!(
        "{}\n{{\"source\":{{\"server\":\"dbser",
        JAVA_HISTORY.join("\n")
    );
    std::fs::write(&path, text).unwrap();
    let open = || -> Box<dyn SchemaHistoryStore> {
        Box::new(DebeziumFileHistoryStore::open(&path, SERVER).unwrap())
    };
    let mut store = DebeziumFileHistoryStore::open(&path, SERVER).unwrap();
    store.load().unwrap();
    assert!(store.torn_tail().is_some_and(|t| t.contains("dbser")));
    check_java_history(open(), open);

    // The next append cuts the torn line off and starts a clean one.
    let mut tracker = SchemaTracker::open(open(), options()).unwrap();
    tracker.resume_at(&java_position(3100)).unwrap();
    tracker
        .on_query(
            &java_position(4000),
            "inventory",
            "CREATE TABLE t4 (a INT)",
            &[],
        )
        .unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(!text.contains("dbser\"") && !text.contains("\"dbser\n"));
    assert_eq!(text.lines().count(), JAVA_HISTORY.len() + 1);
    let t = SchemaTracker::open(open(), options()).unwrap();
    assert!(t.catalog().table("inventory", "t4").is_some());
    assert!(t.catalog().table("inventory", "customers").is_some());
}

/// Compiles `tests/java/HistoryPeer.java` into `out`; returns its class path.
fn compile_java_peer(out: &Path) -> String {
    let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/java/HistoryPeer.java");
    sluice_testkit::java::compile_with_curator(&source, out)
}

fn java(classpath: &str, mode: &str, servers: &str, path: &str, input: &str) -> String {
    let mut child = Command::new("java")
        .arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
        .arg("-cp")
        .arg(classpath)
        .arg("HistoryPeer")
        .args([mode, servers, path])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("java starts");
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "HistoryPeer {mode} failed");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_history_java_wrote_to_zookeeper_loads_with_the_right_tables() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let path = "/debezium-database-history";
    // Java's records, with a child whose data was never set (a crash
    // between create and setData: Curator's default data, the IP address)
    // and an empty one.
    let mut lines: Vec<&str> = JAVA_HISTORY.to_vec();
    lines.insert(6, "CRASH");
    lines.insert(8, "EMPTY");
    let classes = tempfile::tempdir().unwrap();
    let classpath = compile_java_peer(classes.path());
    java(
        &classpath,
        "write",
        &servers,
        path,
        &(lines.join("\n") + "\n"),
    );
    let children = zk_children(&servers, path);
    assert_eq!(children.len(), lines.len());
    assert!(
        !children[6].1.is_empty() && children[6].1[..2] != [0x1f, 0x8b],
        "the crashed child holds no gzip"
    );
    assert!(children[8].1.is_empty());
    let open = || -> Box<dyn SchemaHistoryStore> { Box::new(zk_store(&servers, path)) };
    check_java_history(open(), open);
}

#[test]
fn zookeeper_children_are_curators_gzip_records_java_reads() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let path = "/sluice/history";
    let mut tracker = SchemaTracker::open(Box::new(zk_store(&servers, path)), options()).unwrap();
    let p = |pos: u64| BinlogPosition::new("mariadb-bin.000001", pos);
    tracker.seed_empty(&p(4)).unwrap();
    tracker
        .on_query(
            &p(400),
            "shop",
            "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(8))",
            &[],
        )
        .unwrap();
    tracker
        .on_query(&p(500), "shop", "ALTER TABLE t ADD COLUMN w INT", &[])
        .unwrap();
    tracker.snapshot(&p(500), "requested").unwrap();
    drop(tracker);

    let children = zk_children(&servers, path);
    let names: Vec<&str> = children.iter().map(|(n, _)| n.as_str()).collect();
    // Empty snapshot (head only), CREATE, ALTER, snapshot (head + table).
    assert_eq!(
        names,
        [
            "child0000000000",
            "child0000000001",
            "child0000000002",
            "child0000000003",
            "child0000000004"
        ]
    );
    let mut records = Vec::new();
    for (name, data) in &children {
        assert_eq!(&data[..2], &[0x1f, 0x8b], "{name} is gzip");
        let r: Value = serde_json::from_slice(&gunzip(data)).unwrap();
        for field in ["source", "position", "tableChanges"] {
            assert!(r.get(field).is_some(), "{name} has {field}: {r}");
        }
        records.push(r);
    }
    assert_eq!(
        records[1]["ddl"],
        "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(8))"
    );
    assert_eq!(
        records[1]["position"],
        serde_json::json!({"file": "mariadb-bin.000001", "pos": 400})
    );
    assert_eq!(records[1]["tableChanges"][0]["type"], "CREATE");
    assert_eq!(records[2]["tableChanges"][0]["type"], "ALTER");
    assert_eq!(records[4]["tableChanges"][0]["id"], "\"shop\".\"t\"");
    assert!(records[4]["ddl"]
        .as_str()
        .unwrap()
        .starts_with("CREATE TABLE `shop`.`t`"));

    // The reference design's Java reader sees the same records.
    let classes = tempfile::tempdir().unwrap();
    {
        let classpath = compile_java_peer(classes.path());
        let out = java(&classpath, "read", &servers, path, "");
        let read: Vec<(String, Value)> = out
            .lines()
            .map(|l| {
                let (name, json) = l.split_once('\t').unwrap();
                assert_ne!(json, "NOT_GZIP", "{name}");
                (name.to_string(), serde_json::from_str(json).unwrap())
            })
            .collect();
        assert_eq!(read.len(), records.len());
        for ((name, java), (rust_name, rust)) in read.iter().zip(names.iter().zip(&records)) {
            assert_eq!((name.as_str(), java), (*rust_name, rust));
        }
    }
}

#[test]
fn an_append_is_refused_once_the_latch_node_is_gone() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let path = "/sluice/fenced-history";
    let rt = runtime();
    let (session, latch) = rt.block_on(async {
        let session = ZkSession::connect(zk_config(&servers)).await.unwrap();
        let latch = LeaderLatch::start(&session, LatchConfig::at("/sluice/latch").unwrap());
        assert!(latch
            .await_leadership(Duration::from_secs(10))
            .await
            .unwrap());
        (session, latch)
    });
    let node = latch.node_path().expect("the latch node");
    // What the engine would pass: the latch node while leading. Here the
    // path is kept after the latch closes, as a process that has not yet
    // noticed it lost its session would still have it.
    let fence_node: Arc<Mutex<Option<String>>> = Arc::new(Mutex::new(Some(node.clone())));
    let held = fence_node.clone();
    let fence: Fence = Arc::new(move || held.lock().unwrap().clone());
    let mut store = zk_store(&servers, path).with_fence(fence);
    let record = |pos: u64, name: &str| {
        let mut c = Catalog::new();
        let sql = format!("CREATE TABLE {name} (a INT)");
        let outcome = c
            .apply_ddl(
                &ApplyContext {
                    current_db: "shop".into(),
                    ..ApplyContext::default()
                },
                &sql,
                &BinlogPosition::new("binlog.000001", pos),
            )
            .unwrap();
        HistoryRecord::Ddl {
            position: BinlogPosition::new("binlog.000001", pos),
            db: "shop".into(),
            sql,
            kind: outcome.kind,
            parsed_by: Some(outcome.parsed_by),
            deltas: outcome.deltas,
            unparsed: None,
        }
    };
    assert!(store.load().unwrap().is_empty());
    store.append(&record(100, "a")).unwrap();
    assert_eq!(zk_children(&servers, path).len(), 1);

    rt.block_on(async {
        latch.close().await.unwrap();
    });
    let e = store.append(&record(200, "b")).unwrap_err().to_string();
    assert!(
        e.contains("no longer holds the leader latch") && e.contains(path),
        "{e}"
    );
    assert_eq!(zk_children(&servers, path).len(), 1, "nothing written");

    // No latch node at all: refused before anything is sent.
    *fence_node.lock().unwrap() = None;
    let e = store.append(&record(300, "c")).unwrap_err().to_string();
    assert!(e.contains("does not hold the leader latch"), "{e}");
    assert_eq!(zk_children(&servers, path).len(), 1, "nothing written");
    let records = store.load().unwrap();
    assert_eq!(records.len(), 1, "only the first record: {records:?}");
    assert!(matches!(&records[0], HistoryRecord::Ddl { sql, .. } if sql.contains("TABLE a")));
    rt.block_on(session.close());
}

/// A catalog of `n` tables of 20 columns each.
fn big_catalog(n: usize) -> Catalog {
    let mut c = Catalog::new();
    let ctx = ApplyContext {
        current_db: "shop".into(),
        ..ApplyContext::default()
    };
    c.apply_ddl(
        &ctx,
        "CREATE DATABASE shop",
        &BinlogPosition::new("binlog.000001", 4),
    )
    .unwrap();
    for i in 0..n {
        let columns: Vec<String> = (0..20).map(|j| format!("column_{j} VARCHAR(64)")).collect();
        let sql = format!(
            "CREATE TABLE table_{i:05} (id INT PRIMARY KEY, {})",
            columns.join(", ")
        );
        c.apply_ddl(&ctx, &sql, &BinlogPosition::new("binlog.000001", 4))
            .unwrap();
    }
    c
}

#[test]
fn a_big_snapshot_is_split_per_table_and_a_too_big_record_is_refused() {
    init_tracing();
    let zk = ZooKeeperEnsemble::start(1).unwrap();
    let servers = zk.connect_string();
    let path = "/sluice/big-history";
    let mut store = zk_store(&servers, path);
    assert!(store.load().unwrap().is_empty());
    let snapshot = HistoryRecord::Snapshot {
        position: BinlogPosition::new("binlog.000001", 4),
        reason: "seeded from the server".into(),
        catalog: big_catalog(3000),
    };
    // Megabytes of JSON as one record; far below a node per table.
    assert!(serde_json::to_vec(&snapshot).unwrap().len() > 4 * 1024 * 1024);
    store.append(&snapshot).unwrap();
    let children = zk_children(&servers, path);
    assert_eq!(
        children.len(),
        1 + 1 + 3000,
        "head, database, one per table"
    );
    assert!(children.iter().all(|(_, d)| d.len() < 16 * 1024));
    assert_eq!(
        zk_store(&servers, path).load().unwrap(),
        vec![snapshot.clone()]
    );

    // One record too big for a node even gzip'd: a clear error, nothing written.
    let mut x: u64 = 0x2545_F491_4F6C_DD1D;
    let noise: String = (0..3 * 1024 * 1024)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (b'a' + (x % 26) as u8) as char
        })
        .collect();
    let huge = HistoryRecord::Ddl {
        position: BinlogPosition::new("binlog.000001", 900),
        db: "shop".into(),
        sql: format!("CREATE TABLE noise (a INT) COMMENT '{noise}'"),
        kind: "CREATE TABLE".into(),
        parsed_by: None,
        deltas: vec![Delta::PutTable {
            table: TableSchema::new("shop", "noise"),
        }],
        unparsed: None,
    };
    let e = store.append(&huge).unwrap_err().to_string();
    assert!(
        e.contains("more than") && e.contains("jute.maxbuffer") && e.contains(path),
        "{e}"
    );
    assert_eq!(zk_children(&servers, path).len(), 3002, "nothing written");
}

#[test]
fn a_snapshot_cut_short_is_left_out_of_the_file() {
    init_tracing();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("schema-history.dat");
    let mut store = DebeziumFileHistoryStore::open(&path, SERVER).unwrap();
    let first = HistoryRecord::Snapshot {
        position: BinlogPosition::new("binlog.000001", 4),
        reason: "seeded".into(),
        catalog: big_catalog(2),
    };
    let second = HistoryRecord::Snapshot {
        position: BinlogPosition::new("binlog.000001", 900),
        reason: "periodic".into(),
        catalog: big_catalog(3),
    };
    store.append(&first).unwrap();
    store.append(&second).unwrap();
    assert_eq!(store.load().unwrap(), vec![first.clone(), second]);
    // A crash after the second snapshot's head and first table: its last
    // records never reached the file.
    let text = std::fs::read_to_string(&path).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 4 + 5, "head, database, tables, twice");
    std::fs::write(&path, lines[..6].join("\n") + "\n").unwrap();
    let mut reopened = DebeziumFileHistoryStore::open(&path, SERVER).unwrap();
    assert_eq!(reopened.load().unwrap(), vec![first]);
}
