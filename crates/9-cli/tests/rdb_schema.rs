//! The relational sink and a column added to a source table
//! (`sluice.sink.schemaChanges`): `apply` adds it to the PostgreSQL and the
//! MariaDB target tables and writes its values; `log` logs the table, the
//! column and the position and applies the rows without it; `stop` stops
//! the sink before the first row that has it, naming the position.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use common::ServerProcess;
use sluice_testkit::mysql::prelude::Queryable;
use sluice_testkit::postgres::Postgres;
use sluice_testkit::{MariaDb, MariaDbConfig};

/// A configuration folder: destination `example` from the source's start,
/// `schemaChanges = mode`, and one `rdb` adapter per (key, jdbc url,
/// target table).
fn write_conf(
    dir: &Path,
    source: &MariaDb,
    mode: &str,
    adapters: &[(&str, String, &str)],
) -> Result<()> {
    std::fs::create_dir_all(dir.join("adapter/rdb"))?;
    common::write_example_server(dir, &format!("sluice.sink.schemaChanges = {mode}\n"))?;
    common::write_example_instance(dir, source.port(), "w\\\\..*");
    let mut app = String::from("canal.conf:\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n");
    for (key, url, table) in adapters {
        let user = if url.starts_with("jdbc:postgresql") {
            "postgres"
        } else {
            "root"
        };
        app.push_str(&format!(
            "      - name: rdb\n        key: {key}\n        properties:\n          jdbc.url: {url}\n          jdbc.username: {user}\n"
        ));
        std::fs::write(
            dir.join("adapter/rdb").join(format!("{key}.yml")),
            format!(
                "destination: example\ngroupId: g1\nouterAdapterKey: {key}\nconcurrent: true\ndbMapping:\n  database: w\n  table: t\n  targetTable: {table}\n  targetPk:\n    id: id\n  mapAll: true\n"
            ),
        )?;
    }
    std::fs::write(dir.join("adapter/application.yml"), app)?;
    Ok(())
}

/// Waits until `check` holds; its last complaint and the log otherwise.
async fn wait_for<F, Fut>(what: &str, log: &Path, mut check: F) -> Result<()>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Option<String>>>,
{
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let complaint = check().await?;
        let Some(complaint) = complaint else {
            return Ok(());
        };
        if Instant::now() > deadline {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            bail!("{what}: {complaint}\nlog:\n{text}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_added_source_column_is_applied_logged_or_stops_the_sink() -> Result<()> {
    let source = MariaDb::start(MariaDbConfig::default())?;
    source.exec(
        "CREATE DATABASE w; USE w; CREATE TABLE t (id INT PRIMARY KEY, a INT); \
         INSERT INTO t VALUES (1, 10), (2, 20); \
         ALTER TABLE t ADD COLUMN c VARCHAR(20); \
         INSERT INTO t VALUES (3, 30, 'three'); UPDATE t SET c = 'one' WHERE id = 1",
    )?;
    let (_, alter_end) = {
        let rows = source.query("SHOW BINLOG EVENTS")?;
        let alter = rows
            .iter()
            .find(|r| r[5].as_deref().is_some_and(|i| i.contains("ADD COLUMN")))
            .and_then(|r| r[4].clone())
            .unwrap_or_default();
        ((), alter)
    };
    let target = MariaDb::start(MariaDbConfig::default())?;
    target
        .exec("CREATE DATABASE tgt; USE tgt; CREATE TABLE t_apply (id INT PRIMARY KEY, a INT)")?;
    let pg = Postgres::start()?;
    let (client, conn) = tokio_postgres::connect(&pg.conn_string(), tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    client
        .batch_execute(
            "CREATE TABLE t_apply (id int PRIMARY KEY, a int); \
             CREATE TABLE t_log (id int PRIMARY KEY, a int); \
             CREATE TABLE t_stop (id int PRIMARY KEY, a int)",
        )
        .await?;
    let pg_rows = |table: &'static str, columns: &'static str| {
        let client = &client;
        async move {
            let rows = client
                .query(
                    &format!("SELECT concat_ws('|', {columns}) FROM {table} ORDER BY id"),
                    &[],
                )
                .await?;
            Ok::<Vec<String>, anyhow::Error>(rows.iter().map(|r| r.get(0)).collect())
        }
    };

    // apply: both targets get the column and its values.
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    write_conf(
        conf.path(),
        &source,
        "apply",
        &[
            ("apply_pg", pg.jdbc_url(), "t_apply"),
            (
                "maria",
                format!("jdbc:mariadb://127.0.0.1:{}/tgt", target.port()),
                "t_apply",
            ),
        ],
    )?;
    let server = ServerProcess::spawn(conf.path(), &log);
    let expected = ["1|10|one", "2|20", "3|30|three"];
    let mut maria = target.connect()?;
    wait_for("apply", &log, || {
        let rows = pg_rows("t_apply", "id, a, c");
        let in_maria: Result<Vec<String>, _> =
            maria.query("SELECT CONCAT_WS('|', id, a, c) FROM tgt.t_apply ORDER BY id");
        async move {
            let in_pg = rows.await.unwrap_or_default();
            let in_maria = in_maria.unwrap_or_default();
            Ok((in_pg != expected || in_maria != expected)
                .then(|| format!("PostgreSQL {in_pg:?}, MariaDB {in_maria:?}")))
        }
    })
    .await?;
    let pg_type: String = client
        .query_one(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 't_apply'::regclass AND attname = 'c'",
            &[],
        )
        .await?
        .get(0);
    assert_eq!(pg_type, "character varying(20)");
    drop(server);

    // log: the rows without the column, and the column named once.
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    write_conf(
        conf.path(),
        &source,
        "log",
        &[("log_pg", pg.jdbc_url(), "t_log")],
    )?;
    let server = ServerProcess::spawn(conf.path(), &log);
    wait_for("log", &log, || {
        let rows = pg_rows("t_log", "id, a");
        let log = log.clone();
        async move {
            let rows = rows.await.unwrap_or_default();
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let named = text.contains("the source table w.t has a column `c` (varchar(20)) that the target table \"t_log\" lacks")
                && text.contains("sluice.sink.schemaChanges = log");
            Ok((rows != ["1|10", "2|20", "3|30"] || !named)
                .then(|| format!("rows {rows:?}, column named in the log: {named}")))
        }
    })
    .await?;
    drop(server);

    // stop: the rows before the column, and the sink stopped naming where.
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    write_conf(
        conf.path(),
        &source,
        "stop",
        &[("stop_pg", pg.jdbc_url(), "t_stop")],
    )?;
    let _server = ServerProcess::spawn(conf.path(), &log);
    wait_for("stop", &log, || {
        let rows = pg_rows("t_stop", "id, a");
        let log = log.clone();
        async move {
            let rows = rows.await.unwrap_or_default();
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            let stopped = text.contains("sink stopped")
                && text.contains("sluice.sink.schemaChanges = stop: nothing from binlog.000001:");
            Ok((rows != ["1|10", "2|20"] || !stopped)
                .then(|| format!("rows {rows:?}, stop logged: {stopped}")))
        }
    })
    .await?;
    // It stays stopped: the rows after the change never come.
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(pg_rows("t_stop", "id, a").await?, ["1|10", "2|20"]);
    let text = std::fs::read_to_string(&log)?;
    let at: u64 = alter_end.parse().unwrap_or(0);
    let named: Vec<u64> = text
        .match_indices("nothing from binlog.000001:")
        .filter_map(|(i, k)| {
            text[i + k.len()..]
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok())
        })
        .collect();
    assert!(
        named.iter().all(|&p| p >= at),
        "the position named ({named:?}) is after the ALTER (ends at {at})"
    );
    Ok(())
}
