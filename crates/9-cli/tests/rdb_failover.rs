//! The relational sink through a real source failover by GTID: `sluice
//! server` reads a primary whose binlog reached its fourth file, the
//! primary is killed and its replica (whose binlog is in its first file)
//! promoted. The changes read from the replica sit at smaller file numbers
//! than the positions the sink had written, yet they all land in the
//! PostgreSQL target (the source's epoch orders them after), and a kill -9
//! of the server after the failover neither loses nor repeats one (the
//! target's trigger table refuses an update applied twice).

mod common;

use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use common::ServerProcess;
use sluice_testkit::postgres::Postgres;
use sluice_testkit::{MariaDb, MariaDbConfig};

fn write_conf(
    dir: &std::path::Path,
    primary: &MariaDb,
    replica: &MariaDb,
    pg: &Postgres,
) -> Result<()> {
    std::fs::create_dir_all(dir.join("adapter/rdb"))?;
    common::write_example_server(dir, "")?;
    common::write_example_instance(dir, primary.port(), "w\\\\..*");
    // The replica as the failover candidate.
    let instance = dir.join("example/instance.properties");
    let mut text = std::fs::read_to_string(&instance)?;
    text.push_str(&format!(
        "canal.instance.standby.address = 127.0.0.1:{}\n\
         sluice.instance.source.failoverAfter = 1000\n",
        replica.port()
    ));
    std::fs::write(&instance, text)?;
    std::fs::write(
        dir.join("adapter/application.yml"),
        format!(
            "canal.conf:\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: pg\n        properties:\n          jdbc.url: {}\n          jdbc.username: postgres\n",
            pg.jdbc_url()
        ),
    )?;
    std::fs::write(
        dir.join("adapter/rdb/t.yml"),
        "destination: example\ngroupId: g1\nouterAdapterKey: pg\ndbMapping:\n  database: w\n  table: t\n  targetTable: t\n  targetPk:\n    id: id\n  mapAll: true\n",
    )?;
    Ok(())
}

/// `id|v|counter` of every row, in key order.
fn source_rows(db: &MariaDb) -> Result<Vec<String>> {
    Ok(db
        .query("SELECT CONCAT_WS('|', id, v, counter) FROM w.t ORDER BY id")?
        .into_iter()
        .map(|r| r[0].clone().unwrap_or_default())
        .collect())
}

async fn wait_equal(
    source: &MariaDb,
    pg: &tokio_postgres::Client,
    log: &std::path::Path,
) -> Result<usize> {
    let deadline = Instant::now() + Duration::from_secs(90);
    loop {
        let want = source_rows(source)?;
        let have: Vec<String> = pg
            .query(
                "SELECT concat_ws('|', id, v, counter) FROM t ORDER BY id",
                &[],
            )
            .await
            .map(|rows| rows.iter().map(|r| r.get(0)).collect())
            .unwrap_or_default();
        if want == have {
            return Ok(have.len());
        }
        if Instant::now() > deadline {
            let text = std::fs::read_to_string(log).unwrap_or_default();
            bail!("the target never equalled the source ({} rows against {}):\nfirst missing {:?}\nlog:\n{text}",
                have.len(), want.len(), want.iter().find(|r| !have.contains(r)));
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_sink_follows_a_source_failover_to_lower_binlog_numbers_exactly_once() -> Result<()> {
    let mut primary = MariaDb::start(MariaDbConfig::default().server_id(1))?;
    primary.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(20), counter INT NOT NULL)")?;
    let replica = MariaDb::start(
        MariaDbConfig::default()
            .server_id(2)
            .arg("--log-slave-updates=ON"),
    )?;
    replica.replicate_from(&primary)?;
    replica.wait_caught_up(&primary)?;
    let pg = Postgres::start()?;
    let (client, conn) = tokio_postgres::connect(&pg.conn_string(), tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    // Every version of a row written once: (id, counter) repeats only if
    // an update is applied twice.
    client
        .batch_execute(
            "CREATE TABLE t (id int PRIMARY KEY, v text, counter int NOT NULL); \
             CREATE TABLE applied (id int, counter int, PRIMARY KEY (id, counter)); \
             CREATE FUNCTION log_applied() RETURNS trigger AS $$ BEGIN INSERT INTO applied VALUES (NEW.id, NEW.counter); RETURN NEW; END $$ LANGUAGE plpgsql; \
             CREATE TRIGGER t_applied AFTER INSERT OR UPDATE ON t FOR EACH ROW EXECUTE FUNCTION log_applied()",
        )
        .await?;
    let conf = tempfile::tempdir()?;
    let log = conf.path().join("server.log");
    write_conf(conf.path(), &primary, &replica, &pg)?;
    let mut server = ServerProcess::spawn(conf.path(), &log);

    // Rows and updates on the primary, its binlog taken to its fourth file.
    for id in 1..=40 {
        primary.exec(&format!("INSERT INTO w.t VALUES ({id}, 'p{id}', 0)"))?;
    }
    primary.exec("FLUSH BINARY LOGS; FLUSH BINARY LOGS; FLUSH BINARY LOGS")?;
    primary.exec("UPDATE w.t SET counter = counter + 1, v = CONCAT(v, '+') WHERE id <= 20")?;
    wait_equal(&primary, &client, &log).await?;
    let before: String = client
        .query_one("SELECT file FROM sluice_sink_offsets", &[])
        .await?
        .get(0);
    assert_eq!(
        before, "binlog.000004",
        "the sink's position is in the primary's fourth file"
    );

    // The primary is lost with everything on the replica; the replica
    // takes writes, at offsets of its first binlog file.
    replica.wait_caught_up(&primary)?;
    primary.kill()?;
    replica.exec("STOP SLAVE; RESET SLAVE ALL")?;
    for id in 41..=60 {
        replica.exec(&format!("INSERT INTO w.t VALUES ({id}, 'r{id}', 0)"))?;
    }
    replica.exec(
        "UPDATE w.t SET counter = counter + 1 WHERE id % 3 = 0; DELETE FROM w.t WHERE id % 10 = 0",
    )?;
    let rows = wait_equal(&replica, &client, &log).await?;

    // A kill -9 after the failover: the positions of the new server still
    // order after the old ones on the restart.
    drop(server);
    replica.exec("UPDATE w.t SET counter = counter + 1 WHERE id % 4 = 0; INSERT INTO w.t VALUES (61, 'r61', 0)")?;
    server = ServerProcess::spawn(conf.path(), &log);
    wait_equal(&replica, &client, &log).await?;
    let (file, epoch): (String, i64) = {
        let r = client
            .query_one("SELECT file, epoch FROM sluice_sink_offsets", &[])
            .await?;
        (r.get(0), r.get(1))
    };
    assert!(
        epoch >= 1,
        "the position after the failover has epoch {epoch}"
    );
    assert!(
        file.as_str() < before.as_str(),
        "the position {file} is on the new server's binlog, before the old one's number"
    );
    let applied: i64 = client
        .query_one("SELECT count(*) FROM applied", &[])
        .await
        .context("counting the applied versions")?
        .get(0);
    eprintln!("{rows} rows; {applied} row versions applied once each, through a failover from binlog.000004 to {file} (epoch {epoch}) and a kill -9");
    drop(server);
    Ok(())
}
