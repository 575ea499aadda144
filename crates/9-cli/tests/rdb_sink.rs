//! The relational sink end to end: `sluice server` (TCP mode) with
//! canal-adapter's `application.yml` and `rdb/*.yml` applies a random
//! workload on a table of many column types (inserts, updates, key changes,
//! deletes, several per transaction) to a private PostgreSQL and a private
//! MariaDB target. Afterwards both targets hold exactly the source's rows.
//!
//! Exactly once is checked by the targets themselves: every update raises
//! the row's `counter`, and a trigger logs each (id, counter) a row takes
//! into a table where the pair is unique. An update applied twice would
//! log a pair twice: the target refuses it, the sink stays stuck and the
//! tables never become equal. One lost would leave the tables different.
//!
//! The strings carry tabs, newlines, carriage returns, backslashes and the
//! text `\N` beside NULLs: what `sluice.sink.postgresUpsert = copy` must
//! escape on its way through `COPY`, which one test runs.

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, Context, Result};
use common::{spawn_server, ServerProcess};
use sluice_testkit::mysql::prelude::Queryable;
use sluice_testkit::mysql::{Conn, Value};
use sluice_testkit::postgres::Postgres;
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

const SOURCE_TABLE: &str = "CREATE TABLE t (
    id INT PRIMARY KEY,
    u BIGINT UNSIGNED,
    d DECIMAL(20,6),
    dt DATETIME(6),
    ts TIMESTAMP(3) NULL DEFAULT NULL,
    dd DATE,
    tm TIME,
    s VARCHAR(64) CHARACTER SET utf8mb4,
    tx TEXT CHARACTER SET utf8mb4,
    b BLOB,
    j JSON,
    e ENUM('red','green','blue'),
    st SET('a','b','c'),
    bt BIT(8),
    f DOUBLE,
    counter BIGINT NOT NULL
)";

const PG_TABLE: &str = "CREATE TABLE t (
    id int PRIMARY KEY,
    u numeric(20,0),
    d numeric(20,6),
    dt timestamp(6),
    ts timestamp(3),
    dd date,
    tm time,
    s varchar(64),
    tx text,
    b bytea,
    j jsonb,
    e text,
    st text,
    bt bit(8),
    f double precision,
    counter bigint NOT NULL
);
CREATE TABLE applied (id int, counter bigint, PRIMARY KEY (id, counter));
CREATE FUNCTION log_applied() RETURNS trigger AS $$
BEGIN INSERT INTO applied VALUES (NEW.id, NEW.counter); RETURN NEW; END $$ LANGUAGE plpgsql;
CREATE TRIGGER log_applied AFTER INSERT OR UPDATE ON t FOR EACH ROW EXECUTE FUNCTION log_applied();";

/// Columns as comparable text, MariaDB side.
const MARIADB_SELECT: &str = "SELECT id, CAST(u AS CHAR), CAST(d AS CHAR), \
    DATE_FORMAT(dt, '%Y-%m-%d %H:%i:%s.%f'), DATE_FORMAT(ts, '%Y-%m-%d %H:%i:%s.%f'), \
    CAST(dd AS CHAR), CAST(tm AS CHAR), s, tx, HEX(b), j, e, st, CAST(bt + 0 AS CHAR), \
    CAST(f AS CHAR), counter FROM t ORDER BY id";

/// The same, PostgreSQL side.
const PG_SELECT: &str = "SELECT id::text, u::text, d::text, \
    to_char(dt, 'YYYY-MM-DD HH24:MI:SS.US'), to_char(ts, 'YYYY-MM-DD HH24:MI:SS.US'), \
    dd::text, tm::text, s, tx, upper(encode(b, 'hex')), j::text, e, st, bt::int::text, \
    f::text, counter::text FROM t ORDER BY t.id";

type Rows = Vec<Vec<Option<String>>>;

/// JSON and DOUBLE compared by value (text forms differ between servers).
fn normalise(mut rows: Rows) -> Rows {
    for row in &mut rows {
        if let Some(j) = row[10].as_mut() {
            if let Ok(v) = serde_json::from_str::<serde_json::Value>(j) {
                *j = v.to_string();
            }
        }
        if let Some(f) = row[14].as_mut() {
            if let Ok(v) = f.parse::<f64>() {
                *f = format!("{v:e}");
            }
        }
    }
    rows
}

fn mariadb_rows(conn: &mut Conn, db: &str) -> Result<Rows> {
    conn.query_drop(format!("USE {db}"))?;
    let rows: Vec<sluice_testkit::mysql::Row> = conn.query(MARIADB_SELECT)?;
    Ok(normalise(
        rows.into_iter()
            .map(|r| {
                r.unwrap()
                    .into_iter()
                    .map(|v| match v {
                        Value::NULL => None,
                        Value::Bytes(b) => Some(String::from_utf8_lossy(&b).into_owned()),
                        other => Some(other.as_sql(true).trim_matches('\'').to_string()),
                    })
                    .collect()
            })
            .collect(),
    ))
}

async fn pg_rows(client: &tokio_postgres::Client) -> Result<Rows> {
    let rows = client.query(PG_SELECT, &[]).await?;
    Ok(normalise(
        rows.iter()
            .map(|r| {
                (0..r.len())
                    .map(|i| r.get::<_, Option<String>>(i))
                    .collect()
            })
            .collect(),
    ))
}

async fn pg_client(pg: &Postgres) -> Result<tokio_postgres::Client> {
    let (client, conn) = tokio_postgres::connect(&pg.conn_string(), tokio_postgres::NoTls).await?;
    tokio::spawn(conn);
    Ok(client)
}

/// The source, the two targets and the server's configuration.
struct Setup {
    source: Arc<MariaDb>,
    pg: Postgres,
    target: MariaDb,
    conf: tempfile::TempDir,
}

async fn setup() -> Result<Setup> {
    setup_with("", 1).await
}

/// [`setup`] with `properties` (lines) added to canal.properties, each
/// adapter with `threads` connections.
async fn setup_with(properties: &str, threads: usize) -> Result<Setup> {
    let source = Arc::new(MariaDb::start(MariaDbConfig::default())?);
    source.exec(&format!("CREATE DATABASE w; USE w; {SOURCE_TABLE}"))?;
    let target = MariaDb::start(MariaDbConfig::default())?;
    target.exec(&format!(
        "CREATE DATABASE tgt; USE tgt; {SOURCE_TABLE}; \
         CREATE TABLE applied (id INT, counter BIGINT, PRIMARY KEY (id, counter)); \
         CREATE TRIGGER log_i AFTER INSERT ON t FOR EACH ROW INSERT INTO applied VALUES (NEW.id, NEW.counter); \
         CREATE TRIGGER log_u AFTER UPDATE ON t FOR EACH ROW INSERT INTO applied VALUES (NEW.id, NEW.counter)"
    ))?;
    let pg = Postgres::start()?;
    pg_client(&pg).await?.batch_execute(PG_TABLE).await?;
    let (file, position) = source.current_binlog_position()?;
    let conf = tempfile::tempdir()?;
    let dir = conf.path();
    std::fs::create_dir_all(dir.join("example"))?;
    std::fs::create_dir_all(dir.join("adapter/rdb"))?;
    common::write_example_server(dir, properties)?;
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = {file}\n\
             canal.instance.master.position = {position}\n\
             canal.instance.filter.regex = w\\\\..*\n",
            source.port()
        ),
    )?;
    // canal-adapter's files, in the default place (conf/adapter).
    std::fs::write(
        dir.join("adapter/application.yml"),
        format!(
            "canal.conf:\n  mode: tcp\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: pg1\n        properties:\n          jdbc.driverClassName: org.postgresql.Driver\n          jdbc.url: {}\n          jdbc.username: postgres\n          jdbc.password:\n          commitSize: 500\n          threads: {threads}\n      - name: rdb\n        key: maria1\n        properties:\n          jdbc.url: jdbc:mariadb://127.0.0.1:{}/tgt\n          jdbc.username: root\n          threads: {threads}\n",
            pg.jdbc_url(),
            target.port()
        ),
    )?;
    for (file, key, target_table) in [
        ("t_pg.yml", "pg1", "public.t"),
        ("t_maria.yml", "maria1", "t"),
    ] {
        std::fs::write(
            dir.join("adapter/rdb").join(file),
            format!(
                "destination: example\ngroupId: g1\nouterAdapterKey: {key}\nconcurrent: true\ndbMapping:\n  database: w\n  table: t\n  targetTable: {target_table}\n  targetPk:\n    id: id\n  mapAll: true\n"
            ),
        )?;
    }
    Ok(Setup {
        source,
        pg,
        target,
        conf,
    })
}

/// xorshift: the workload and the kill moments, from a printed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A row's values but id and counter, random.
fn values(r: &mut Rng, n: u64) -> Vec<Value> {
    let u = match r.below(3) {
        0 => u64::MAX,
        1 => 0,
        _ => r.next(),
    };
    let bytes: Vec<u8> = (0..r.below(40)).map(|_| r.next() as u8).collect();
    let sets = ["", "a", "b,c", "a,b,c"];
    let ts = if r.below(5) == 0 {
        Value::NULL
    } else {
        Value::from(format!(
            "2024-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
            1 + r.below(12),
            1 + r.below(28),
            r.below(24),
            r.below(60),
            r.below(60),
            r.below(1000)
        ))
    };
    vec![
        Value::from(u),
        Value::from(format!(
            "{}{}.{:06}",
            if r.below(2) == 0 { "-" } else { "" },
            r.below(1 << 40),
            r.below(1_000_000)
        )),
        Value::from(format!(
            "20{:02}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}",
            r.below(99),
            1 + r.below(12),
            1 + r.below(28),
            r.below(24),
            r.below(60),
            r.below(60),
            r.below(1_000_000)
        )),
        ts,
        Value::from(format!(
            "19{:02}-{:02}-{:02}",
            r.below(99),
            1 + r.below(12),
            1 + r.below(28)
        )),
        Value::from(format!(
            "{:02}:{:02}:{:02}",
            r.below(24),
            r.below(60),
            r.below(60)
        )),
        Value::from(format!("héllo 😀 {n} 'q' \\ \t|\n|\r\n|\\N|\\t")),
        if r.below(6) == 0 {
            Value::NULL
        } else {
            Value::from(format!(
                "text {n} ✓\t{}\\\n{}",
                "x".repeat(r.below(200) as usize),
                ["", "\\N", "\\\\", "\r", "\\.", "\n\\.\n"][r.below(6) as usize]
            ))
        },
        Value::Bytes(bytes),
        // Keys in jsonb's order, so that both texts parse alike.
        Value::from(format!(
            "{{\"a\": [1, 2.5, null], \"n\": {n}, \"s\": \"é\"}}"
        )),
        Value::from(["red", "green", "blue"][r.below(3) as usize]),
        Value::from(sets[r.below(4) as usize]),
        Value::from(r.below(256)),
        // Few significant digits: servers print doubles differently.
        Value::from((r.below(1 << 30) as f64 - 5e8) / 64.0),
    ]
}

/// Runs random transactions on `w.t` until `stop` (and at least
/// `at_least`); returns how many, and how many row changes they made.
fn start_workload(
    source: Arc<MariaDb>,
    seed: u64,
    stop: Arc<AtomicBool>,
    at_least: usize,
) -> std::thread::JoinHandle<Result<(usize, usize)>> {
    std::thread::spawn(move || {
        let mut r = Rng(seed);
        let mut conn = source.connect()?;
        conn.query_drop("USE w")?;
        let mut live: BTreeSet<u64> = BTreeSet::new();
        // Counters are unique across rows: a row's (id, counter) pairs
        // never repeat, even through key changes and reinserts.
        let mut next_counter: u64 = 0;
        let mut transactions = 0;
        let mut changes = 0;
        let cols = "u, d, dt, ts, dd, tm, s, tx, b, j, e, st, bt, f";
        while transactions < at_least || !stop.load(Ordering::SeqCst) {
            let mut tx = conn.start_transaction(Default::default())?;
            for _ in 0..1 + r.below(4) {
                let id = r.below(300);
                if !live.contains(&id) {
                    next_counter += 1_000_000;
                    let mut p = vec![Value::from(id)];
                    p.extend(values(&mut r, id));
                    p.push(Value::from(next_counter));
                    tx.exec_drop(
                        format!("INSERT INTO t (id, {cols}, counter) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"),
                        p,
                    )?;
                    live.insert(id);
                    changes += 1;
                    continue;
                }
                match r.below(10) {
                    0 => {
                        tx.exec_drop("DELETE FROM t WHERE id = ?", (id,))?;
                        live.remove(&id);
                        changes += 1;
                    }
                    1 => {
                        let to = 300 + r.below(1_000_000);
                        if !live.contains(&to) {
                            tx.exec_drop(
                                "UPDATE t SET id = ?, counter = counter + 1 WHERE id = ?",
                                (to, id),
                            )?;
                            live.remove(&id);
                            live.insert(to);
                            changes += 1;
                        }
                    }
                    _ => {
                        let v = values(&mut r, id);
                        let which = r.below(14) as usize;
                        let col = cols.split(", ").nth(which).unwrap_or("u");
                        tx.exec_drop(
                            format!("UPDATE t SET counter = counter + 1, {col} = ? WHERE id = ?"),
                            (v[which].clone(), id),
                        )?;
                        changes += 1;
                    }
                }
            }
            tx.commit()?;
            transactions += 1;
        }
        Ok((transactions, changes))
    })
}

/// Waits until both targets equal the source; the last difference otherwise.
async fn wait_equal(s: &Setup, timeout: Duration, log: &Path) -> Result<usize> {
    let client = pg_client(&s.pg).await?;
    let mut src = s.source.connect()?;
    let mut tgt = s.target.connect()?;
    let deadline = Instant::now() + timeout;
    loop {
        let expected = mariadb_rows(&mut src, "w")?;
        let in_pg = pg_rows(&client).await;
        let in_maria = mariadb_rows(&mut tgt, "tgt");
        let diff = |name: &str, got: &Rows| -> Option<String> {
            if *got == expected {
                return None;
            }
            let first = expected
                .iter()
                .zip(got)
                .find(|(a, b)| a != b)
                .map(|(a, b)| format!("source {a:?}\n{name} {b:?}"))
                .unwrap_or_default();
            Some(format!(
                "{name}: {} rows for the source's {}; first difference:\n{first}",
                got.len(),
                expected.len()
            ))
        };
        let problem = match (&in_pg, &in_maria) {
            (Ok(p), Ok(m)) => diff("PostgreSQL", p).or_else(|| diff("MariaDB", m)),
            (Err(e), _) => Some(format!("reading PostgreSQL: {e}")),
            (_, Err(e)) => Some(format!("reading MariaDB: {e}")),
        };
        match problem {
            None => return Ok(expected.len()),
            Some(p) if Instant::now() >= deadline => {
                let text = std::fs::read_to_string(log).unwrap_or_default();
                let kept = std::env::temp_dir().join("rdb_sink_failure.log");
                let _ = std::fs::write(&kept, &text);
                let pg_at: Vec<String> = client
                    .query("SELECT sink || ' ' || mapping || ' ' || file || ':' || pos FROM sluice_sink_offsets", &[])
                    .await
                    .map(|rows| rows.iter().map(|r| r.get(0)).collect())
                    .unwrap_or_default();
                let maria_at: Vec<String> = tgt
                    .query("SELECT CONCAT(sink, ' ', mapping, ' ', file, ':', pos) FROM tgt.sluice_sink_offsets")
                    .unwrap_or_default();
                let source_at = s.source.current_binlog_position().ok();
                eprintln!("positions: source {source_at:?}, PostgreSQL {pg_at:?}, MariaDB {maria_at:?}; log kept in {}", kept.display());
                let tail: Vec<&str> = text.lines().rev().take(30).collect();
                let tail: Vec<&str> = tail.into_iter().rev().collect();
                bail!(
                    "the targets never equalled the source: {p}\nserver log:\n{}",
                    tail.join("\n")
                );
            }
            Some(_) => tokio::time::sleep(Duration::from_millis(300)).await,
        }
    }
}

fn seed() -> u64 {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    eprintln!("seed {seed}");
    seed
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_and_mariadb_targets_equal_the_source() -> Result<()> {
    let s = setup().await?;
    let log = s.conf.path().join("server.log");
    // The workload is written first, then the server catches up with it:
    // the time it takes is the sinks' pace.
    let stop = Arc::new(AtomicBool::new(true));
    let (transactions, changes) = start_workload(s.source.clone(), seed(), stop, 3000)
        .join()
        .map_err(|_| anyhow::anyhow!("the workload panicked"))??;
    let started = Instant::now();
    let _server = ServerProcess::spawn(s.conf.path(), &log);
    let rows = wait_equal(&s, Duration::from_secs(90), &log).await?;
    let took = started.elapsed();
    eprintln!(
        "{transactions} transactions, {changes} row changes ({rows} rows left) applied to PostgreSQL and MariaDB in {took:?} from the server's start: {:.0} changes/s per target",
        changes as f64 / took.as_secs_f64()
    );
    Ok(())
}

/// `sluice.sink.postgresUpsert = copy`: PostgreSQL's upserts go by `COPY`
/// into a staging table; its rows equal the source's all the same, each
/// update applied once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_copy_upserts_equal_the_source() -> Result<()> {
    let s = setup_with("sluice.sink.postgresUpsert = copy\n", 1).await?;
    let log = s.conf.path().join("server.log");
    let stop = Arc::new(AtomicBool::new(true));
    let (transactions, changes) = start_workload(s.source.clone(), seed(), stop, 3000)
        .join()
        .map_err(|_| anyhow::anyhow!("the workload panicked"))??;
    let _server = ServerProcess::spawn(s.conf.path(), &log);
    let rows = wait_equal(&s, Duration::from_secs(90), &log).await?;
    // The sink's session holds its staging table: the rows went by COPY.
    let staging: i64 = pg_client(&s.pg)
        .await?
        .query_one(
            "SELECT count(*) FROM pg_class WHERE relname LIKE 'sluice\\_stage\\_%' AND relpersistence = 't'",
            &[],
        )
        .await?
        .get(0);
    anyhow::ensure!(
        staging > 0,
        "no staging table: the upserts did not go by COPY"
    );
    eprintln!("{transactions} transactions, {changes} row changes ({rows} rows left) applied by COPY upserts");
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn targets_equal_the_source_through_10_server_kills_and_a_kill_of_each_target() -> Result<()>
{
    let mut s = setup().await?;
    let log = s.conf.path().join("server.log");
    let seed = seed();
    let mut moments = Rng(seed.rotate_left(17) | 1);
    let stop = Arc::new(AtomicBool::new(false));
    let workload = start_workload(s.source.clone(), seed, stop.clone(), 0);
    let mut server = ServerProcess::spawn(s.conf.path(), &log);
    let outcome = async {
        for kill in 0..10 {
            tokio::time::sleep(Duration::from_millis(300 + moments.below(1500))).await;
            server.kill();
            match kill {
                3 => {
                    s.pg.kill()?;
                    server = ServerProcess::spawn(s.conf.path(), &log);
                    tokio::time::sleep(Duration::from_millis(800)).await;
                    s.pg.restart().context("restarting PostgreSQL")?;
                }
                6 => {
                    s.target.kill()?;
                    server = ServerProcess::spawn(s.conf.path(), &log);
                    tokio::time::sleep(Duration::from_millis(800)).await;
                    s.target
                        .restart()
                        .context("restarting the target MariaDB")?;
                }
                _ => server = ServerProcess::spawn(s.conf.path(), &log),
            }
        }
        Ok::<_, anyhow::Error>(())
    }
    .await;
    stop.store(true, Ordering::SeqCst);
    let (transactions, _) = workload
        .join()
        .map_err(|_| anyhow::anyhow!("the workload panicked"))??;
    outcome?;
    let rows = wait_equal(&s, Duration::from_secs(90), &log).await?;
    let restarts = std::fs::read_to_string(&log)?
        .matches("sink applying")
        .count();
    eprintln!("{transactions} transactions ({rows} rows left), 10 server kills, each target killed once; the sinks started {restarts} times");
    Ok(())
}

/// The positions of `sink` in a target's `sluice_sink_offsets`: (name,
/// mapping, file:pos).
async fn pg_positions(pg: &Postgres, sink: &str) -> Result<Vec<(String, String, String)>> {
    let rows = pg_client(pg)
        .await?
        .query(
            "SELECT sink, mapping, file || ':' || pos FROM sluice_sink_offsets WHERE sink LIKE $1 ORDER BY sink, mapping",
            &[&format!("{sink}%")],
        )
        .await?;
    Ok(rows
        .iter()
        .map(|r| (r.get(0), r.get(1), r.get(2)))
        .collect())
}

/// `threads: 3`: each adapter applies over three connections, rows
/// partitioned by key, each partition with its own positions; through
/// server kills both targets end equal to the source with every update
/// applied once. After a clean stop, `threads: 2` takes over from the
/// three partitions' common position.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn threads_apply_over_partitions_through_kills_and_threads_change_after_a_clean_stop(
) -> Result<()> {
    let s = setup_with("", 3).await?;
    let log = s.conf.path().join("server.log");
    let seed = seed();
    let mut moments = Rng(seed.rotate_left(17) | 1);
    let stop = Arc::new(AtomicBool::new(false));
    let workload = start_workload(s.source.clone(), seed, stop.clone(), 0);
    let mut server = ServerProcess::spawn(s.conf.path(), &log);
    let mut connections = 0i64;
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(500 + moments.below(1500))).await;
        let now: i64 = pg_client(&s.pg)
            .await?
            .query_one(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'sluice-sink'",
                &[],
            )
            .await?
            .get(0);
        connections = connections.max(now);
        server.kill();
        server = ServerProcess::spawn(s.conf.path(), &log);
    }
    stop.store(true, Ordering::SeqCst);
    let (transactions, _) = workload
        .join()
        .map_err(|_| anyhow::anyhow!("the workload panicked"))??;
    let rows = wait_equal(&s, Duration::from_secs(90), &log).await?;
    anyhow::ensure!(
        connections >= 3,
        "the PostgreSQL sink held {connections} connections, not 3"
    );
    // Caught up with a quiet source: every partition at one position.
    tokio::time::sleep(Duration::from_millis(500)).await;
    server.kill();
    let three = pg_positions(&s.pg, "example/g1/pg1").await?;
    let names: Vec<&str> = three.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(
        names,
        [
            "example/g1/pg1#1/3",
            "example/g1/pg1#2/3",
            "example/g1/pg1#3/3"
        ]
    );
    assert!(three.iter().all(|(_, _, p)| *p == three[0].2), "{three:?}");

    // Two threads from here on.
    let app = s.conf.path().join("adapter/application.yml");
    std::fs::write(
        &app,
        std::fs::read_to_string(&app)?.replace("threads: 3", "threads: 2"),
    )?;
    let _server = ServerProcess::spawn(s.conf.path(), &log);
    s.source
        .exec("UPDATE w.t SET counter = counter + 1; DELETE FROM w.t WHERE id % 7 = 0")?;
    wait_equal(&s, Duration::from_secs(90), &log).await?;
    let two = pg_positions(&s.pg, "example/g1/pg1").await?;
    let names: Vec<&str> = two.iter().map(|(n, _, _)| n.as_str()).collect();
    assert_eq!(names, ["example/g1/pg1#1/2", "example/g1/pg1#2/2"]);
    assert!(
        std::fs::read_to_string(&log)?.contains("threads changed; the former partitions agree"),
        "the change of threads is not in the log"
    );
    eprintln!("{transactions} transactions ({rows} rows left) over 3 partitions through 5 server kills, then 2 partitions");
    Ok(())
}

/// A canal-adapter file the sink cannot use stops the start, naming the
/// file and the key.
#[test]
fn a_bad_adapter_file_stops_the_server_naming_the_file_and_the_key() -> Result<()> {
    let good_app = "canal.conf:\n  canalAdapters:\n  - instance: example\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: k\n        properties:\n          jdbc.url: jdbc:postgresql://127.0.0.1:1/postgres\n";
    let good_mapping = "destination: example\ndbMapping:\n  database: w\n  table: t\n  targetTable: t\n  mapAll: true\n";
    for (app, mapping, file, expected) in [
        (
            good_app.replace("jdbc:postgresql", "jdbc:oracle"),
            good_mapping.to_string(),
            "application.yml",
            "canal.conf.canalAdapters[0].groups[0].outerAdapters[0].properties.jdbc.url",
        ),
        (
            good_app.to_string(),
            good_mapping.replace("table: t\n", "tabel: t\n"),
            "rdb/t.yml",
            "dbMapping: unknown field `tabel`",
        ),
    ] {
        let dir = tempfile::tempdir()?;
        std::fs::create_dir_all(dir.path().join("adapter/rdb"))?;
        std::fs::write(
            dir.path().join("canal.properties"),
            format!(
                "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.destinations =\ncanal.auto.scan = false\n",
                find_free_port()?
            ),
        )?;
        std::fs::write(dir.path().join("adapter/application.yml"), app)?;
        std::fs::write(dir.path().join("adapter/rdb/t.yml"), mapping)?;
        let log = dir.path().join("server.log");
        let mut child = spawn_server(dir.path(), &log);
        let deadline = Instant::now() + Duration::from_secs(30);
        let status = loop {
            if let Some(status) = child.try_wait()? {
                break status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                let _ = child.wait();
                bail!("the server still runs with a bad {file}");
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let text = std::fs::read_to_string(&log)?;
        anyhow::ensure!(!status.success(), "{text}");
        let at = format!(
            "{}: {expected}",
            dir.path().join("adapter").join(file).display()
        );
        anyhow::ensure!(text.contains(&at), "no {at:?} in: {text}");
    }
    Ok(())
}
