//! The instance pipeline against a private MariaDB: binlog → entries →
//! store → consumer, with Canal's entry shapes, filters, and exactly-once
//! delivery when the source connection is killed inside transactions.

use std::sync::Arc;
use std::time::Duration;

use prost::Message;
use sluice_canal::proto::{Entry, EntryType, EventType, RowChange};
use sluice_canal::{LogIdentity, TableFilter};
use sluice_instance::destination::InstanceDestination;
use sluice_instance::filters::CanalFilters;
use sluice_instance::runner::{BinlogOnly, InstanceRunner};
use sluice_meta::{CursorStore, FileCursorStore};
use sluice_source::position::StartPosition;
use sluice_source::SourceConfig;
use sluice_store::{BatchMode, Destination, EventStore, GetWait, StoreConfig};
use sluice_testkit::{MariaDb, MariaDbConfig};
use tokio::sync::watch;

struct Pipeline {
    destination: Arc<InstanceDestination>,
    stop: watch::Sender<bool>,
    task: tokio::task::JoinHandle<sluice_instance::runner::RunnerStats>,
    _dir: tempfile::TempDir,
}

fn start(db: &MariaDb, filters: CanalFilters, store_cfg: StoreConfig) -> Pipeline {
    start_with(db, filters, store_cfg, |_| Box::new(BinlogOnly))
}

fn start_with(
    db: &MariaDb,
    filters: CanalFilters,
    store_cfg: StoreConfig,
    schema: impl FnOnce(&std::path::Path) -> Box<dyn sluice_instance::runner::SchemaHook>,
) -> Pipeline {
    let dir = tempfile::tempdir().unwrap();
    let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(dir.path()));
    let store = Arc::new(EventStore::new(store_cfg));
    let destination = Arc::new(
        InstanceDestination::open("example", store, cursors, LogIdentity::default()).unwrap(),
    );
    let source = SourceConfig::from_url(&db.url())
        .unwrap()
        .starting_at(StartPosition::Earliest);
    let (stop, rx) = watch::channel(false);
    let hook = schema(dir.path());
    let mut runner = InstanceRunner::new("example", destination.clone(), filters, hook, false);
    let task = tokio::spawn(async move {
        if let Err(e) = runner.run(source, rx).await {
            panic!("runner failed: {e}");
        }
        runner.stats
    });
    Pipeline {
        destination,
        stop,
        task,
        _dir: dir,
    }
}

fn decode(bytes: &[u8]) -> Entry {
    Entry::decode(bytes).unwrap()
}

/// Reads entries until `n` row changes arrived (or 60 s passed), pausing
/// `pause` after each batch.
async fn read_rows_slowly(
    d: &InstanceDestination,
    n: usize,
    fetch: i32,
    pause: Duration,
) -> Vec<Entry> {
    let mut out = Vec::new();
    let mut rows = 0;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(60);
    while rows < n && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(pause).await;
        let b = d
            .get(
                1001,
                fetch as usize,
                GetWait::AtMost(Duration::from_millis(200)),
            )
            .await
            .unwrap();
        if b.id < 0 {
            continue;
        }
        for e in &b.entries {
            let e = decode(e);
            if e.entry_type == Some(EntryType::RowData as i32) {
                let rc = RowChange::decode(e.store_value.as_deref().unwrap_or(&[])).unwrap();
                if rc.is_ddl != Some(true) {
                    rows += rc.row_datas.len();
                }
            }
            out.push(e);
        }
        d.ack(1001, b.id).unwrap();
        d.durable().await.unwrap();
    }
    out
}

async fn read_rows(d: &InstanceDestination, n: usize) -> Vec<Entry> {
    read_rows_slowly(d, n, 100, Duration::ZERO).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entries_have_canal_shape_and_values() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.orders (id INT UNSIGNED PRIMARY KEY, status ENUM('new','paid'), tags SET('a','b'), price DECIMAL(8,2), flag BIT(3), data BLOB, note VARCHAR(20)); CREATE TABLE shop.hidden (id INT PRIMARY KEY)").unwrap();
    let filters = CanalFilters {
        tables: TableFilter::new("shop\\.orders").unwrap(),
        ..Default::default()
    };
    let p = start(&db, filters, StoreConfig::default());
    p.destination.subscribe(1001, "").unwrap();
    db.exec("INSERT INTO shop.orders VALUES (4000000000, 'paid', 'a,b', 12.50, b'101', 0x41FF, 'x'); INSERT INTO shop.hidden VALUES (1); UPDATE shop.orders SET note = 'y' WHERE id = 4000000000").unwrap();
    let entries = read_rows(&p.destination, 2).await;
    let kinds: Vec<i32> = entries.iter().filter_map(|e| e.entry_type).collect();
    // BEGIN, ROWDATA, END for the insert and the update; the hidden table's
    // transaction is empty after filtering and is not delivered.
    let rows: Vec<&Entry> = entries
        .iter()
        .filter(|e| e.entry_type == Some(EntryType::RowData as i32))
        .filter(|e| e.header.as_ref().and_then(|h| h.event_type) != Some(EventType::Create as i32))
        .filter(|e| e.header.as_ref().and_then(|h| h.event_type) != Some(EventType::Query as i32))
        .collect();
    assert_eq!(rows.len(), 2, "kinds {kinds:?}");
    let insert = RowChange::decode(rows[0].store_value.as_deref().unwrap()).unwrap();
    let h = rows[0].header.as_ref().unwrap();
    assert_eq!(h.schema_name.as_deref(), Some("shop"));
    assert_eq!(h.table_name.as_deref(), Some("orders"));
    assert_eq!(h.event_type, Some(EventType::Insert as i32));
    let cols = &insert.row_datas[0].after_columns;
    let values: Vec<_> = cols
        .iter()
        .map(|c| c.value.clone().unwrap_or_default())
        .collect();
    // Canal renders ENUM as index, SET as bit mask, BIT as a number, binary as ISO-8859-1.
    assert_eq!(
        values,
        vec!["4000000000", "2", "3", "12.50", "5", "A\u{ff}", "x"]
    );
    assert!(
        cols.iter().all(|c| c.updated == Some(true)),
        "every INSERT column is updated"
    );
    assert_eq!(cols[0].name.as_deref(), Some("id"));
    assert_eq!(cols[0].is_key, Some(true));
    let update = RowChange::decode(rows[1].store_value.as_deref().unwrap()).unwrap();
    let after = &update.row_datas[0].after_columns;
    let changed: Vec<_> = after
        .iter()
        .filter(|c| c.updated == Some(true))
        .map(|c| c.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(changed, vec!["note"]);
    let _ = p.stop.send(true);
    let _ = p.task.await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killed_source_connections_deliver_every_row_exactly_once() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v TEXT)")
        .unwrap();
    // 40 transactions of 100 statements of 8 KB each, written before
    // reading starts: 32 MB, more than loopback socket buffers hold, so the
    // server is still sending (inside a transaction) when its dump is killed.
    const TXNS: i64 = 40;
    for t in 0..TXNS {
        let stmts: Vec<String> = (0..100)
            .map(|i| {
                format!(
                    "INSERT INTO w.t VALUES ({0}, REPEAT('x', 8000))",
                    t * 100 + i
                )
            })
            .collect();
        db.exec(&format!("BEGIN; {}; COMMIT", stmts.join("; ")))
            .unwrap();
    }
    // A small store and a slow consumer hold the runner in the middle of
    // transactions, so the kills below cut the source inside them.
    let store_cfg = StoreConfig {
        batch_mode: BatchMode::ItemSize,
        max_entries: 16,
        ..Default::default()
    };
    let p = start(&db, CanalFilters::default(), store_cfg);
    p.destination.subscribe(1001, "").unwrap();
    let db = Arc::new(db);
    let killer = {
        let db = db.clone();
        std::thread::spawn(move || {
            for _ in 0..8 {
                std::thread::sleep(Duration::from_millis(120));
                if let Ok(rows) = db.query(
                    "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND = 'Binlog Dump'",
                ) {
                    for r in rows {
                        if let Some(id) = r.first().cloned().flatten() {
                            let _ = db.exec(&format!("KILL {id}"));
                        }
                    }
                }
            }
        })
    };
    let entries = read_rows_slowly(
        &p.destination,
        TXNS as usize * 100,
        8,
        Duration::from_millis(3),
    )
    .await;
    killer.join().unwrap();
    let mut ids = Vec::new();
    for e in &entries {
        if e.entry_type == Some(EntryType::RowData as i32) {
            let rc = RowChange::decode(e.store_value.as_deref().unwrap()).unwrap();
            if rc.event_type == Some(EventType::Insert as i32) {
                for rd in &rc.row_datas {
                    ids.push(
                        rd.after_columns[0]
                            .value
                            .clone()
                            .unwrap()
                            .parse::<i64>()
                            .unwrap(),
                    );
                }
            }
        }
    }
    let expected: Vec<i64> = (0..TXNS * 100).collect();
    assert_eq!(ids, expected, "every row exactly once, in order");
    let _ = p.stop.send(true);
    let stats = p.task.await.unwrap();
    assert!(stats.reconnects >= 1, "the source was never cut: {stats:?}");
    assert!(
        stats.aborted_transactions >= 1,
        "no cut landed inside a transaction: {stats:?}"
    );
    eprintln!("runner stats: {stats:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tracked_schema_names_columns_the_binlog_does_not() {
    // MariaDB's default: no column metadata in the binlog at all.
    let db = MariaDb::start(
        MariaDbConfig::default().binlog_row_metadata(sluice_testkit::BinlogRowMetadata::NoLog),
    )
    .unwrap();
    db.exec(
        "CREATE DATABASE s; CREATE TABLE s.t (id INT UNSIGNED PRIMARY KEY, kind ENUM('x','y'))",
    )
    .unwrap();
    let connect = sluice_source::conn::ConnectOptions {
        host: "127.0.0.1".into(),
        port: db.port(),
        user: "root".into(),
        ..Default::default()
    };
    let p = start_with(
        &db,
        CanalFilters::default(),
        StoreConfig::default(),
        |dir| {
            sluice_instance::schema_hook::tracked_schema(
                dir,
                "example",
                &connect,
                TableFilter::all(),
            )
            .unwrap()
        },
    );
    p.destination.subscribe(1001, "").unwrap();
    db.exec("INSERT INTO s.t VALUES (4294967295, 'y'); ALTER TABLE s.t ADD COLUMN note VARCHAR(10) AFTER id; INSERT INTO s.t VALUES (1, 'n', 'x')")
        .unwrap();
    let entries = read_rows(&p.destination, 2).await;
    let mut images = Vec::new();
    for e in &entries {
        if e.header.as_ref().and_then(|h| h.event_type) == Some(EventType::Insert as i32) {
            let rc = RowChange::decode(e.store_value.as_deref().unwrap()).unwrap();
            for rd in rc.row_datas {
                images.push(
                    rd.after_columns
                        .iter()
                        .map(|c| {
                            format!(
                                "{}={}:{}",
                                c.name.clone().unwrap_or_default(),
                                c.value.clone().unwrap_or_default(),
                                c.mysql_type.clone().unwrap_or_default()
                            )
                        })
                        .collect::<Vec<_>>(),
                );
            }
        }
    }
    assert_eq!(
        images,
        vec![
            vec![
                "id=4294967295:int unsigned".to_string(),
                "kind=2:enum('x','y')".to_string()
            ],
            vec![
                "id=1:int unsigned".to_string(),
                "note=n:varchar(10)".to_string(),
                "kind=1:enum('x','y')".to_string()
            ],
        ]
    );
    let _ = p.stop.send(true);
    let _ = p.task.await.unwrap();
}
