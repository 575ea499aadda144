//! The relational sink's `mirrorDb: true` mapping (canal-adapter's mirror
//! of a whole database): every table of the source database, with its DDL
//! (CREATE, ALTER, CREATE INDEX, RENAME, TRUNCATE, DROP), lands in the
//! target database of a MariaDB target, tables made after the sink started
//! included, names qualified by the source database moved to the target
//! database; another database is left alone. A restart between a DDL and
//! its position (the position set back to before the DDL) runs the DDL
//! again: the target says it is there already, the sink passes it on and
//! ends equal to the source.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use common::ServerProcess;
use sluice_testkit::{MariaDb, MariaDbConfig};

/// A configuration folder: destination `example` from the source's start
/// (databases `w` and `x`), one rdb adapter into `meta` of the target,
/// mirroring `w` into `tgt`.
fn write_conf(dir: &Path, source: &MariaDb, target: &MariaDb) -> Result<()> {
    std::fs::create_dir_all(dir.join("adapter/rdb"))?;
    common::write_example_server(dir, "")?;
    common::write_example_instance(dir, source.port(), "w\\\\..*,x\\\\..*");
    std::fs::write(
        dir.join("adapter/application.yml"),
        format!(
            "canal.conf:\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: maria\n        properties:\n          jdbc.url: jdbc:mariadb://127.0.0.1:{}/meta\n          jdbc.username: root\n",
            target.port()
        ),
    )?;
    std::fs::write(
        dir.join("adapter/rdb/mirror_w.yml"),
        "destination: example\ngroupId: g1\nouterAdapterKey: maria\ndbMapping:\n  mirrorDb: true\n  database: w\n  targetDb: tgt\n",
    )?;
    Ok(())
}

/// A database's tables, each with its columns (name and type) and its
/// rows in key order, as one text per table.
fn dump(db: &MariaDb, database: &str) -> Result<Vec<String>> {
    let tables = db.query(&format!(
        "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = '{database}' ORDER BY TABLE_NAME"
    ))?;
    let mut out = Vec::new();
    for t in tables {
        let table = t[0].clone().context("a table without a name")?;
        let columns = db.query(&format!(
            "SELECT COLUMN_NAME, COLUMN_TYPE FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = '{database}' AND TABLE_NAME = '{table}' ORDER BY ORDINAL_POSITION"
        ))?;
        let names: Vec<String> = columns
            .iter()
            .map(|c| format!("`{}`", c[0].clone().unwrap_or_default()))
            .collect();
        let shape: Vec<String> = columns
            .iter()
            .map(|c| {
                format!(
                    "{} {}",
                    c[0].clone().unwrap_or_default(),
                    c[1].clone().unwrap_or_default()
                )
            })
            .collect();
        let indexes = db.query(&format!(
            "SELECT DISTINCT INDEX_NAME FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = '{database}' AND TABLE_NAME = '{table}' ORDER BY INDEX_NAME"
        ))?;
        let rows = db.query(&format!(
            "SELECT CONCAT_WS('|', {}) FROM `{database}`.`{table}` ORDER BY 1",
            names.join(", ")
        ))?;
        out.push(format!(
            "{table} ({}) indexes {:?}: {:?}",
            shape.join(", "),
            indexes
                .iter()
                .map(|i| i[0].clone().unwrap_or_default())
                .collect::<Vec<_>>(),
            rows.iter()
                .map(|r| r[0].clone().unwrap_or_default())
                .collect::<Vec<_>>()
        ));
    }
    Ok(out)
}

/// Waits until the target's `tgt` equals the source's `w`.
async fn wait_mirrored(source: &MariaDb, target: &MariaDb, log: &Path) -> Result<Vec<String>> {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let want = dump(source, "w")?;
        let have = dump(target, "tgt").unwrap_or_default();
        if want == have {
            return Ok(have);
        }
        if Instant::now() > deadline {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            bail!("the target never equalled the source:\nsource {want:#?}\ntarget {have:#?}\nlog:\n{text}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mirrored_database_lands_with_its_ddl_and_a_replayed_ddl_is_passed() -> Result<()> {
    let source = MariaDb::start(MariaDbConfig::default())?;
    let target = MariaDb::start(MariaDbConfig::default())?;
    target.exec("CREATE DATABASE meta; CREATE DATABASE tgt")?;
    source.exec(
        "CREATE DATABASE w; CREATE DATABASE x; USE w; \
         CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(20), d DECIMAL(10,2), t DATETIME(3)); \
         INSERT INTO a VALUES (1, 'one', 1.50, '2026-01-02 03:04:05.678'), (2, 'two', NULL, NULL), (3, 'three', 3.25, NULL); \
         CREATE TABLE b (k VARCHAR(10) PRIMARY KEY, n INT); INSERT INTO b VALUES ('p', 1), ('q', 2); \
         CREATE TABLE x.other (id INT PRIMARY KEY); INSERT INTO x.other VALUES (1)",
    )?;
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    write_conf(conf.path(), &source, &target)?;
    let server = ServerProcess::spawn(conf.path(), &log);
    wait_mirrored(&source, &target, &log).await?;

    // DDL and rows while the sink runs, a table made after it started
    // among them.
    source.exec(
        "USE w; ALTER TABLE a ADD COLUMN c INT NOT NULL DEFAULT 7; \
         UPDATE a SET c = 8, v = 'uno' WHERE id = 1; UPDATE a SET id = 10 WHERE id = 2; DELETE FROM a WHERE id = 3; \
         CREATE INDEX a_v ON a (v); \
         RENAME TABLE b TO b2; INSERT INTO b2 VALUES ('r', 3); \
         CREATE TABLE late (id BIGINT UNSIGNED PRIMARY KEY, j JSON, e ENUM('s','m','l')); \
         INSERT INTO late VALUES (18446744073709551615, '{\"k\": [1, 2]}', 'm'); \
         CREATE TABLE gone (id INT PRIMARY KEY); INSERT INTO gone VALUES (1); DROP TABLE gone; \
         CREATE TABLE tr (id INT PRIMARY KEY); INSERT INTO tr VALUES (1), (2); TRUNCATE TABLE tr; INSERT INTO tr VALUES (3); \
         INSERT INTO x.other VALUES (2)",
    )?;
    let mirrored = wait_mirrored(&source, &target, &log).await?;
    assert!(
        mirrored.iter().any(|t| t.starts_with("late ("))
            && !mirrored.iter().any(|t| t.starts_with("gone ")),
        "{mirrored:#?}"
    );
    let other = target
        .query("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_NAME = 'other'")?;
    assert_eq!(
        other[0][0].as_deref(),
        Some("0"),
        "database x is not mirrored"
    );

    // One more DDL, then the position set back to just before it, as a
    // kill between the DDL and its position leaves it; the next server
    // (a new data folder, reading from the binlog's start) runs it again.
    source.exec("ALTER TABLE w.a ADD COLUMN z VARCHAR(5) DEFAULT 'zz'")?;
    wait_mirrored(&source, &target, &log).await?;
    drop(server);
    let events = source.query("SHOW BINLOG EVENTS")?;
    let ddl = events
        .iter()
        .position(|r| r[5].as_deref().is_some_and(|i| i.contains("ADD COLUMN z")))
        .context("the DDL is not in the binlog")?;
    let before = events[ddl - 1][1].clone().context("no position")?;
    target.exec(&format!(
        "UPDATE meta.sluice_sink_offsets SET pos = {before} WHERE mapping = 'mirror_w'"
    ))?;
    source.exec("INSERT INTO w.a (id, v, d, c, z) VALUES (20, 'twenty', 20.00, 1, 'yy')")?;
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    write_conf(conf.path(), &source, &target)?;
    let _server = ServerProcess::spawn(conf.path(), &log);
    wait_mirrored(&source, &target, &log).await?;
    let text = std::fs::read_to_string(&log)?;
    assert!(
        text.contains("mirrored DDL already in the target") && text.contains("ADD COLUMN z"),
        "the replayed DDL is not named in the log:\n{text}"
    );
    Ok(())
}
