//! The relational sink's ETL (canal-adapter's `POST /etl/rdb/{key}/{file}`)
//! on a real `sluice server`: rows in the source before the sink's first
//! position (the destination starts at the end of the binlog, so the
//! stream never sees them) are loaded into PostgreSQL (through
//! `sluice admin etl`, with renamed columns) and MariaDB (through the
//! API); rows written while the loads run end equal in source and targets
//! (whole tables compared); `etlCondition` takes the params; an unknown key
//! or file and params without placeholders answer canal-adapter's JSON
//! with 404 and 400. The same again with `sluice.sink.postgresUpsert =
//! copy` (the PostgreSQL load's upserts by `COPY` into a staging table).

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use common::ServerProcess;
use sluice_server::admin_api_client::request;
use sluice_testkit::mysql::prelude::Queryable;
use sluice_testkit::postgres::Postgres;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

/// Rows loaded before the server starts.
const ROWS: u32 = 20_000;

/// Each row as `id|name|n|hex(b)|d`, sorted by id.
const MARIA_ROWS: &str = "SELECT CONCAT_WS('|', id, COALESCE(name, '-'), COALESCE(n, '-'), COALESCE(HEX(b), '-'), COALESCE(DATE_FORMAT(d, '%Y-%m-%d %H:%i:%s.%f'), '-')) FROM {} ORDER BY id";

async fn pg_rows(client: &tokio_postgres::Client) -> Result<Vec<String>> {
    Ok(client
        .query(
            "SELECT concat_ws('|', id, coalesce(title, '-'), coalesce(n::text, '-'), coalesce(upper(encode(b, 'hex')), '-'), coalesce(to_char(d, 'YYYY-MM-DD HH24:MI:SS.US'), '-')) FROM t2 ORDER BY id",
            &[],
        )
        .await?
        .iter()
        .map(|r| r.get(0))
        .collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etl_loads_rows_before_the_stream_and_converges_with_writes_during_it() -> Result<()> {
    etl_run("").await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn etl_by_copy_upserts_loads_rows_and_converges_with_writes_during_it() -> Result<()> {
    etl_run("sluice.sink.postgresUpsert = copy\n").await
}

/// The load and the stream, with `properties` (lines) added to
/// canal.properties.
async fn etl_run(properties: &str) -> Result<()> {
    let source = MariaDb::start(MariaDbConfig::default())?;
    source.exec(&format!(
        "SET SESSION max_recursive_iterations = 100000; CREATE DATABASE w; USE w; \
         CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), n INT, b VARBINARY(8), d DATETIME(3)); \
         INSERT INTO t WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < {ROWS}) \
           SELECT i, CONCAT('n', i), i, IF(i % 3 = 0, NULL, UNHEX(LPAD(HEX(i), 6, '0'))), '2024-05-01 10:00:00.125' + INTERVAL i SECOND FROM s"
    ))?;
    let mut src = source.connect()?;
    // The destination starts at the end of the binlog: its stream never
    // has the rows above.
    let (file, pos): (String, u64) = src
        .query_first("SHOW MASTER STATUS")?
        .map(|r: sluice_testkit::mysql::Row| (r.get(0).unwrap(), r.get(1).unwrap()))
        .unwrap();

    let target = MariaDb::start(MariaDbConfig::default())?;
    target.exec(
        "CREATE DATABASE tgt; USE tgt; \
         CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(40), n INT, b VARBINARY(8), d DATETIME(3))",
    )?;
    let pg = Postgres::start()?;
    let (client, conn) = tokio_postgres::connect(&pg.conn_string(), tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    client
        .batch_execute(
            "CREATE TABLE t2 (id bigint PRIMARY KEY, title text, n int, b bytea, d timestamp(3))",
        )
        .await?;

    let conf = tempfile::tempdir()?;
    let dir = conf.path();
    std::fs::create_dir_all(dir.join("adapter/rdb"))?;
    std::fs::create_dir_all(dir.join("example"))?;
    let admin_port = find_free_port()?;
    common::write_example_server(dir, &format!("sluice.admin.http.host = 127.0.0.1\nsluice.admin.http.port = {admin_port}\n{properties}"))?;
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = {file}\n\
             canal.instance.master.position = {pos}\n\
             canal.instance.filter.regex = w\\\\..*\n",
            source.port()
        ),
    )?;
    std::fs::write(
        dir.join("adapter/application.yml"),
        format!(
            "canal.conf:\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: pg1\n        properties:\n          jdbc.url: {pg}\n          jdbc.username: postgres\n      - name: rdb\n        key: maria1\n        properties:\n          jdbc.url: jdbc:mariadb://127.0.0.1:{port}/tgt\n          jdbc.username: root\n",
            pg = pg.jdbc_url(),
            port = target.port()
        ),
    )?;
    // PostgreSQL: a renamed column and targetPk; 500-row batches.
    std::fs::write(
        dir.join("adapter/rdb/t_pg.yml"),
        "destination: example\ngroupId: g1\nouterAdapterKey: pg1\ndbMapping:\n  database: w\n  table: t\n  targetTable: t2\n  targetPk:\n    id: id\n  mapAll: true\n  targetColumns:\n    title: name\n  etlCondition: \"where id >= {} and id < {}\"\n  commitBatch: 500\n",
    )?;
    std::fs::write(
        dir.join("adapter/rdb/t_maria.yml"),
        "destination: example\ngroupId: g1\nouterAdapterKey: maria1\ndbMapping:\n  database: w\n  table: t\n  targetTable: t\n  mapAll: true\n",
    )?;

    let log = dir.join("server.log");
    let _server = ServerProcess::spawn(dir, &log);
    let url = format!("http://127.0.0.1:{admin_port}");
    let mut tgt = target.connect()?;

    // The stream runs: a row written now reaches both targets, and none of
    // the rows before it.
    src.query_drop("INSERT INTO w.t VALUES (1000000, 'marker', 0, NULL, NULL)")?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let in_pg: i64 = client
            .query_one("SELECT count(*) FROM t2", &[])
            .await?
            .get(0);
        let in_maria: Option<i64> = tgt.query_first("SELECT count(*) FROM tgt.t")?;
        if in_pg == 1 && in_maria == Some(1) {
            break;
        }
        if Instant::now() > deadline {
            bail!(
                "the marker row did not arrive: PostgreSQL {in_pg}, MariaDB {in_maria:?}\nlog:\n{}",
                std::fs::read_to_string(&log).unwrap_or_default()
            );
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }

    // canal-adapter's errors, in its JSON.
    let post = |path: String| {
        let url = url.clone();
        async move {
            request(&url, None, "POST", &path, None, Duration::from_secs(120))
                .await
                .unwrap()
        }
    };
    let unknown_key = post("/etl/rdb/nokey/t_pg.yml".into()).await;
    assert_eq!(unknown_key.status, 404, "{:?}", unknown_key.body);
    assert_eq!(unknown_key.body["succeeded"], false);
    let m = unknown_key.body["resultMessage"].as_str().unwrap();
    assert!(m.contains("nokey") && m.contains("pg1"), "{m}");
    let unknown_file = post("/etl/rdb/pg1/nofile.yml".into()).await;
    assert_eq!(unknown_file.status, 404, "{:?}", unknown_file.body);
    assert_eq!(unknown_file.body["succeeded"], false);
    let m = unknown_file.body["resultMessage"].as_str().unwrap();
    assert!(m.contains("nofile.yml") && m.contains("t_pg.yml"), "{m}");
    let no_condition = post("/etl/rdb/maria1/t_maria.yml?params=5".into()).await;
    assert_eq!(no_condition.status, 400, "{:?}", no_condition.body);
    assert!(no_condition.body["resultMessage"]
        .as_str()
        .unwrap()
        .contains("etlCondition"));

    // etlCondition with params: only ids 101..=110 (and the marker stays).
    let part = post("/etl/rdb/pg1/t_pg.yml?params=101;111".into()).await;
    assert_eq!(part.status, 200, "{:?}", part.body);
    assert_eq!(part.body["succeeded"], true);
    assert!(
        part.body["resultMessage"]
            .as_str()
            .unwrap()
            .contains("loaded 10 rows"),
        "{:?}",
        part.body
    );
    let in_pg: i64 = client
        .query_one("SELECT count(*) FROM t2", &[])
        .await?
        .get(0);
    assert_eq!(in_pg, 11);

    // Writes during the loads: updates, deletes and inserts.
    let stop = Arc::new(AtomicBool::new(false));
    let writer = {
        let stop = stop.clone();
        let mut conn = source.connect()?;
        std::thread::spawn(move || -> Result<u64> {
            let mut i: u32 = 0;
            while !stop.load(Ordering::Relaxed) {
                i += 1;
                let id = (i.wrapping_mul(7919) % ROWS) + 1;
                conn.exec_drop(
                    "UPDATE w.t SET n = n + 1, name = CONCAT('u', ?), d = NOW(3) WHERE id = ?",
                    (i, id),
                )?;
                if i.is_multiple_of(5) {
                    conn.exec_drop("DELETE FROM w.t WHERE id = ?", (id + 1,))?;
                }
                if i.is_multiple_of(7) {
                    conn.exec_drop(
                        "INSERT INTO w.t VALUES (?, 'new', ?, x'ff00', NOW(3)) ON DUPLICATE KEY UPDATE n = n + 1",
                        (ROWS + i, i),
                    )?;
                }
            }
            Ok(u64::from(i))
        })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    // PostgreSQL through the command line, MariaDB through the API, at once.
    let cli = {
        let url = url.clone();
        tokio::task::spawn_blocking(move || {
            std::process::Command::new(env!("CARGO_BIN_EXE_sluice"))
                .args(["admin", "--url", &url, "etl", "example", "pg1", "t_pg.yml"])
                .env_remove("SLUICE_ADMIN_URL")
                .env_remove("SLUICE_ADMIN_TOKEN")
                .output()
                .unwrap()
        })
    };
    let maria = post("/etl/rdb/maria1/t_maria.yml".into()).await;
    let cli = cli.await?;
    tokio::time::sleep(Duration::from_millis(300)).await;
    stop.store(true, Ordering::Relaxed);
    let writes = writer.join().unwrap()?;
    assert_eq!(maria.status, 200, "{:?}", maria.body);
    assert_eq!(maria.body["succeeded"], true);
    let out = String::from_utf8_lossy(&cli.stdout);
    assert!(
        cli.status.success() && out.contains("loaded") && out.contains("t_pg.yml"),
        "{out}\n{}",
        String::from_utf8_lossy(&cli.stderr)
    );
    assert!(writes > 10, "the writer wrote {writes} times");

    // Whole tables equal, once the stream caught up.
    let expected: Vec<String> = src.query(MARIA_ROWS.replace("{}", "w.t"))?;
    assert!(expected.len() > ROWS as usize / 2);
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let in_pg = pg_rows(&client).await?;
        let in_maria: Vec<String> = tgt.query(MARIA_ROWS.replace("{}", "tgt.t"))?;
        if in_pg == expected && in_maria == expected {
            break;
        }
        if Instant::now() > deadline {
            let diff = |got: &[String]| {
                let a: std::collections::BTreeSet<_> = expected.iter().collect();
                let b: std::collections::BTreeSet<_> = got.iter().collect();
                let missing: Vec<_> = a.difference(&b).take(5).collect();
                let extra: Vec<_> = b.difference(&a).take(5).collect();
                format!("{} rows; missing {missing:?}; extra {extra:?}", got.len())
            };
            bail!(
                "source {} rows\nPostgreSQL {}\nMariaDB {}",
                expected.len(),
                diff(&in_pg),
                diff(&in_maria)
            );
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
    Ok(())
}
