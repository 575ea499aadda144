//! The relational sink and tables without a key: a mapping without
//! `concurrent` applies the rows of a keyless table by whole-row match
//! (duplicates, NULLs, updates and deletes of one of two equal rows) into
//! PostgreSQL and MariaDB; a `concurrent: true` mapping of a keyless table
//! is refused with an error naming the mapping and the table.

mod common;

use std::time::{Duration, Instant};

use anyhow::{bail, Result};
use common::ServerProcess;
use sluice_testkit::mysql::prelude::Queryable;
use sluice_testkit::postgres::Postgres;
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Rows as sorted text, `a|s` with `-` for NULL.
fn sorted(mut rows: Vec<String>) -> Vec<String> {
    rows.sort();
    rows
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keyless_tables_are_applied_by_whole_row_and_refused_when_concurrent() -> Result<()> {
    let source = MariaDb::start(MariaDbConfig::default())?;
    source.exec(
        "CREATE DATABASE w; USE w; CREATE TABLE k (a INT, s VARCHAR(20)); CREATE TABLE kc (a INT)",
    )?;
    let target = MariaDb::start(MariaDbConfig::default())?;
    target.exec("CREATE DATABASE tgt; USE tgt; CREATE TABLE k (a INT, s VARCHAR(20))")?;
    let pg = Postgres::start()?;
    let (client, conn) = tokio_postgres::connect(&pg.conn_string(), tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    client
        .batch_execute("CREATE TABLE k (a int, s varchar(20)); CREATE TABLE kc (a int)")
        .await?;

    let conf = tempfile::tempdir()?;
    let dir = conf.path();
    std::fs::create_dir_all(dir.join("adapter/rdb"))?;
    common::write_example_server(dir, "")?;
    common::write_example_instance(dir, source.port(), "w\\\\..*");
    std::fs::write(
        dir.join("adapter/application.yml"),
        format!(
            "canal.conf:\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: pg1\n        properties:\n          jdbc.url: {pg}\n          jdbc.username: postgres\n      - name: rdb\n        key: maria1\n        properties:\n          jdbc.url: jdbc:mariadb://127.0.0.1:{port}/tgt\n          jdbc.username: root\n      - name: rdb\n        key: pg2\n        properties:\n          jdbc.url: {pg}\n          jdbc.username: postgres\n",
            pg = pg.jdbc_url(),
            port = target.port()
        ),
    )?;
    for (file, key, table, concurrent) in [
        ("k_pg.yml", "pg1", "k", false),
        ("k_maria.yml", "maria1", "k", false),
        ("kc.yml", "pg2", "kc", true),
    ] {
        std::fs::write(
            dir.join("adapter/rdb").join(file),
            format!(
                "destination: example\ngroupId: g1\nouterAdapterKey: {key}\nconcurrent: {concurrent}\ndbMapping:\n  database: w\n  table: {table}\n  targetTable: {table}\n  mapAll: true\n"
            ),
        )?;
    }

    // Two equal rows, NULLs, an update and a delete of one of two equal
    // rows, an update to NULL, a row deleted and inserted again.
    source.exec(
        "USE w; \
         INSERT INTO k VALUES (1, 'a'), (1, 'a'), (2, NULL), (3, 'c'), (NULL, NULL); \
         UPDATE k SET s = 'b' WHERE a = 1 LIMIT 1; \
         DELETE FROM k WHERE a = 2; \
         UPDATE k SET a = NULL WHERE a = 3; \
         BEGIN; DELETE FROM k WHERE a IS NULL AND s IS NULL; INSERT INTO k VALUES (NULL, NULL), (4, 'd'); COMMIT; \
         INSERT INTO kc VALUES (1)",
    )?;
    let mut src = source.connect()?;
    let expected: Vec<String> = sorted(
        src.query("SELECT CONCAT(COALESCE(CAST(a AS CHAR), '-'), '|', COALESCE(s, '-')) FROM w.k")?,
    );

    let log = dir.join("server.log");
    let _server = ServerProcess::spawn(dir, &log);
    let mut tgt = target.connect()?;
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let in_pg = sorted(
            client
                .query(
                    "SELECT COALESCE(a::text, '-') || '|' || COALESCE(s, '-') FROM k",
                    &[],
                )
                .await?
                .iter()
                .map(|r| r.get(0))
                .collect(),
        );
        let in_maria: Vec<String> = sorted(tgt.query(
            "SELECT CONCAT(COALESCE(CAST(a AS CHAR), '-'), '|', COALESCE(s, '-')) FROM tgt.k",
        )?);
        let text = std::fs::read_to_string(&log).unwrap_or_default();
        let refused = text.contains("kc.yml: mapping kc: concurrent: true needs a key")
            && text.contains("the target table kc has no primary key");
        if in_pg == expected && in_maria == expected && refused {
            break;
        }
        if Instant::now() > deadline {
            bail!("source {expected:?}\nPostgreSQL {in_pg:?}\nMariaDB {in_maria:?}\nrefusal logged: {refused}\nlog:\n{text}");
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // The refused mapping applied nothing.
    let kc: i64 = client
        .query_one("SELECT count(*) FROM kc", &[])
        .await?
        .get(0);
    assert_eq!(kc, 0);
    Ok(())
}
