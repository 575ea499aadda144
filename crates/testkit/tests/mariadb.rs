//! These start real MariaDB servers (needs `mariadbd` and `mariadb-install-db`).

use std::fs;
use std::thread;
use std::time::Instant;

use sluice_testkit::mysql::prelude::Queryable;
use sluice_testkit::{
    find_free_port, keep_test_dirs, BinlogChecksum, BinlogRowImage, BinlogRowMetadata, MariaDb,
    MariaDbConfig,
};

fn var(db: &MariaDb, name: &str) -> String {
    db.query_scalar(&format!("SELECT @@GLOBAL.{name}"))
        .unwrap()
        .unwrap_or_default()
}

fn file_len(p: &std::path::Path) -> u64 {
    fs::metadata(p).unwrap().len()
}

#[test]
fn two_instances_with_different_configs() {
    let t0 = Instant::now();
    let a = thread::spawn(|| MariaDb::start(MariaDbConfig::default()).unwrap());
    let b = thread::spawn(|| {
        MariaDb::start(
            MariaDbConfig::default()
                .binlog_row_image(BinlogRowImage::Minimal)
                .binlog_row_metadata(BinlogRowMetadata::NoLog)
                .binlog_checksum(BinlogChecksum::None)
                .log_bin_compress(true)
                .log_bin_compress_min_len(Some(10))
                .gtid_strict_mode(true)
                .server_id(2),
        )
        .unwrap()
    });
    let a = a.join().unwrap();
    let b = b.join().unwrap();
    eprintln!("two servers started in {:?}", t0.elapsed());

    assert_ne!(a.port(), b.port());
    assert_ne!(a.datadir(), b.datadir());

    assert_eq!(var(&a, "server_id"), "1");
    assert_eq!(var(&a, "binlog_format"), "ROW");
    assert_eq!(var(&a, "binlog_row_image"), "FULL");
    assert_eq!(var(&a, "binlog_row_metadata"), "FULL");
    assert_eq!(var(&a, "binlog_checksum"), "CRC32");
    assert_eq!(var(&a, "log_bin_compress"), "0");
    assert_eq!(var(&a, "character_set_server"), "utf8mb4");
    assert_eq!(var(&a, "collation_server"), "utf8mb4_general_ci");
    assert_eq!(var(&a, "gtid_strict_mode"), "0");

    assert_eq!(var(&b, "server_id"), "2");
    assert_eq!(var(&b, "binlog_row_image"), "MINIMAL");
    assert_eq!(var(&b, "binlog_row_metadata"), "NO_LOG");
    assert_eq!(var(&b, "binlog_checksum"), "NONE");
    assert_eq!(var(&b, "log_bin_compress"), "1");
    assert_eq!(var(&b, "log_bin_compress_min_len"), "10");
    assert_eq!(var(&b, "gtid_strict_mode"), "1");

    for db in [&a, &b] {
        let files = db.binlog_files().unwrap();
        assert_eq!(files.len(), 1, "{files:?}");
        let binlog = files[0].clone();
        assert!(binlog.starts_with(db.datadir()), "{binlog:?}");
        assert!(binlog.is_file(), "{binlog:?} missing");
        let before = file_len(&binlog);

        db.exec(
            "CREATE DATABASE shop;
             CREATE TABLE shop.items (id INT PRIMARY KEY, name VARCHAR(40), price DECIMAL(10,2), note TEXT);
             INSERT INTO shop.items VALUES (1, 'kettle', 19.99, NULL), (2, 'mug', 4.50, 'blue')",
        )
        .unwrap();

        let after = file_len(&binlog);
        assert!(after > before, "binlog did not grow: {before} -> {after}");
        let (name, pos) = db.current_binlog_position().unwrap();
        assert_eq!(db.datadir().join(&name), binlog);
        assert_eq!(pos, after, "SHOW MASTER STATUS position vs file size");

        let rows = db
            .query("SELECT id, name, price, note FROM shop.items ORDER BY id")
            .unwrap();
        assert_eq!(
            rows,
            vec![
                vec![
                    Some("1".to_string()),
                    Some("kettle".to_string()),
                    Some("19.99".to_string()),
                    None
                ],
                vec![
                    Some("2".to_string()),
                    Some("mug".to_string()),
                    Some("4.50".to_string()),
                    Some("blue".to_string())
                ],
            ]
        );
        assert!(!db.gtid_binlog_pos().unwrap().is_empty());
    }

    let (dir_a, dir_b) = (a.datadir().to_path_buf(), b.datadir().to_path_buf());
    let t1 = Instant::now();
    drop(a);
    drop(b);
    eprintln!("two servers dropped in {:?}", t1.elapsed());
    if !keep_test_dirs() {
        assert!(!dir_a.exists(), "{dir_a:?} not removed");
        assert!(!dir_b.exists(), "{dir_b:?} not removed");
    }
}

#[test]
fn exec_runs_every_statement_and_reports_the_failing_one() {
    let db = MariaDb::start_default().unwrap();
    db.exec("CREATE DATABASE d; USE d; CREATE TABLE t (a INT); INSERT INTO t VALUES (1),(2)")
        .unwrap();
    // USE carries over on the shared connection.
    assert_eq!(
        db.query_scalar("SELECT SUM(a) FROM t").unwrap().as_deref(),
        Some("3")
    );
    let err = db
        .exec("INSERT INTO t VALUES (3); INSERT INTO no_such_table VALUES (4)")
        .unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("no_such_table"), "{msg}");
    // The first statement ran; the connection still works after a server error.
    assert_eq!(
        db.query_scalar("SELECT COUNT(*) FROM t")
            .unwrap()
            .as_deref(),
        Some("3")
    );
    // A multi-statement query returns the first result set that has columns.
    let rows = db.query("DO 1; SELECT 'x'; SELECT 'y'").unwrap();
    assert_eq!(rows, vec![vec![Some("x".to_string())]]);
}

#[test]
fn query_bytes_returns_raw_values_and_query_rejects_non_utf8() {
    let db = MariaDb::start_default().unwrap();
    let rows = db
        .query_bytes(
            "SELECT X'00FF7F', NULL, 'é', 1.50, CAST('2024-02-29 12:34:56.5' AS DATETIME(1))",
        )
        .unwrap();
    assert_eq!(
        rows,
        vec![vec![
            Some(vec![0x00, 0xff, 0x7f]),
            None,
            Some("é".as_bytes().to_vec()),
            Some(b"1.50".to_vec()),
            Some(b"2024-02-29 12:34:56.5".to_vec()),
        ]]
    );
    let err = db.query("SELECT X'FF'").unwrap_err();
    assert!(format!("{err:#}").contains("query_bytes"), "{err:#}");
    assert!(db.query("SELECT 1 FROM DUAL WHERE 0").unwrap().is_empty());
}

#[test]
fn flush_stop_restart_and_urls() {
    let port = find_free_port().unwrap();
    let mut db = MariaDb::start(MariaDbConfig::default().port(Some(port))).unwrap();
    assert_eq!(db.port(), port);
    assert_eq!(db.url(), format!("mysql://root@127.0.0.1:{port}"));

    // TCP connections work, by explicit options and by URL.
    let mut tcp = db.connect_tcp().unwrap();
    let one: Option<u32> = tcp.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
    let mut by_url = sluice_testkit::mysql::Conn::new(db.url().as_str()).unwrap();
    let one: Option<u32> = by_url.query_first("SELECT 1").unwrap();
    assert_eq!(one, Some(1));
    drop((tcp, by_url));

    db.exec("CREATE DATABASE d; CREATE TABLE d.t (a INT); INSERT INTO d.t VALUES (1)")
        .unwrap();
    db.flush_binlogs().unwrap();
    db.exec("INSERT INTO d.t VALUES (2)").unwrap();
    let files = db.binlog_files().unwrap();
    assert_eq!(files.len(), 2, "{files:?}");
    let (current, _) = db.current_binlog_position().unwrap();
    assert!(files[1].ends_with(&current));

    db.stop().unwrap();
    assert!(!db.is_running());
    assert!(db.query("SELECT 1").is_err());
    // Stopped: the index file still lists the files, which stay on disk.
    assert_eq!(db.binlog_files().unwrap(), files);
    assert!(files.iter().all(|f| f.is_file()));

    db.restart().unwrap();
    assert!(db.is_running());
    assert_eq!(
        db.query_scalar("SELECT COUNT(*) FROM d.t")
            .unwrap()
            .as_deref(),
        Some("2")
    );
    assert_eq!(db.binlog_files().unwrap().len(), 3);

    db.kill().unwrap();
    assert!(!db.is_running());
    db.restart().unwrap();
    assert_eq!(
        db.query_scalar("SELECT COUNT(*) FROM d.t")
            .unwrap()
            .as_deref(),
        Some("2")
    );
}

#[test]
fn startup_failure_quotes_the_error_log() {
    let err = MariaDb::start(MariaDbConfig::default().arg("--no-such-option-here=1")).unwrap_err();
    let msg = format!("{err:#}");
    assert!(msg.contains("exited during startup"), "{msg}");
    assert!(msg.contains("no-such-option-here"), "{msg}");
}

#[test]
fn shares_across_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<MariaDb>();

    let db = MariaDb::start_default().unwrap();
    db.exec("CREATE DATABASE d; CREATE TABLE d.t (a INT)")
        .unwrap();
    thread::scope(|s| {
        for i in 0..4 {
            let db = &db;
            s.spawn(move || db.exec(&format!("INSERT INTO d.t VALUES ({i})")).unwrap());
        }
    });
    assert_eq!(
        db.query_scalar("SELECT COUNT(*) FROM d.t")
            .unwrap()
            .as_deref(),
        Some("4")
    );
}

#[test]
fn extra_args_override_the_defaults() {
    let db = MariaDb::start(MariaDbConfig::default().args([
        "--innodb-log-file-size=64M",
        "--innodb-buffer-pool-size=64M",
    ]))
    .unwrap();
    assert_eq!(var(&db, "innodb_log_file_size"), (64u64 << 20).to_string());
    assert_eq!(
        var(&db, "innodb_buffer_pool_size"),
        (64u64 << 20).to_string()
    );
}
