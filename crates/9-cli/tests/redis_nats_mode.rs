//! `sluice server` in Redis mode (`canal.serverMode = redis`) and NATS mode
//! (`canal.serverMode = nats`) against a private MariaDB and a private
//! broker, while rows are being written and the server is killed with
//! SIGKILL ten times at random moments: afterwards every row is in the
//! Redis stream (at least once, the new ones in commit order) and in the
//! JetStream stream exactly once (a batch sent again after a kill carries
//! the same message ids, and JetStream drops the copies).

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::{bail, ensure, Context, Result};
use common::{spawn_server, start_writer, ServerProcess};
use redis::streams::StreamRangeReply;
use redis::AsyncCommands;
use serde_json::Value;
use sluice_testkit::nats::Nats;
use sluice_testkit::redis::Redis;
use sluice_testkit::{MariaDb, MariaDbConfig};

const KILLS: usize = 10;
/// Kills past [`KILLS`] while a test's proof of a resend is still missing: a
/// kill lands between a publish and its ack only by chance, more rarely on a
/// fast machine.
const MAX_KILLS: usize = 60;

/// The topic: the Redis stream's name, the NATS subject's last token.
const TOPIC: &str = "rows";

/// A MariaDB with table `w.t` and a server configuration that reads it from
/// the binlog's current end, publishing with `mode_keys`.
fn setup(mode_keys: &str) -> Result<(Arc<MariaDb>, tempfile::TempDir)> {
    let db = Arc::new(MariaDb::start(MariaDbConfig::default())?);
    db.exec("CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, v VARCHAR(64))")?;
    let (file, position) = db.current_binlog_position()?;
    let conf = tempfile::tempdir()?;
    std::fs::create_dir_all(conf.path().join("example"))?;
    std::fs::write(
        conf.path().join("canal.properties"),
        format!(
            "canal.destinations = example\n\
             canal.auto.scan = false\n\
             canal.mq.flatMessage = true\n\
             canal.mq.canalBatchSize = 50\n\
             canal.mq.canalGetTimeout = 100\n\
             canal.instance.memory.batch.mode = ITEMSIZE\n\
             canal.instance.memory.buffer.size = 1024\n\
             {mode_keys}"
        ),
    )?;
    std::fs::write(
        conf.path().join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = {file}\n\
             canal.instance.master.position = {position}\n\
             canal.instance.filter.regex = w\\\\..*\n\
             canal.mq.topic = {TOPIC}\n",
            db.port()
        ),
    )?;
    Ok((db, conf))
}

/// The ids of the INSERTed rows of `w.t` in a FlatMessage.
fn row_ids(payload: &[u8]) -> Result<Vec<i64>> {
    let message: Value = serde_json::from_slice(payload).with_context(|| {
        format!(
            "not FlatMessage JSON: {:?}",
            String::from_utf8_lossy(payload)
        )
    })?;
    ensure!(
        message["database"] == "w" && message["table"] == "t" && message["type"] == "INSERT",
        "{message}"
    );
    message["data"]
        .as_array()
        .context("no data")?
        .iter()
        .map(|row| {
            let id: i64 = row["id"]
                .as_str()
                .and_then(|s| s.parse().ok())
                .with_context(|| format!("no id in {row}"))?;
            ensure!(row["v"] == format!("row {id}").as_str(), "{row}");
            Ok(id)
        })
        .collect()
}

/// What the broker holds, as the test reads it.
trait Stored {
    /// Records stored so far (cheap: for the kill loop).
    async fn count(&self) -> Result<u64>;
    /// Every record's payload, in stream order.
    async fn payloads(&self) -> Result<Vec<Vec<u8>>>;
}

struct RedisStream(redis::aio::MultiplexedConnection);

impl Stored for RedisStream {
    async fn count(&self) -> Result<u64> {
        Ok(self.0.clone().xlen(TOPIC).await?)
    }

    async fn payloads(&self) -> Result<Vec<Vec<u8>>> {
        let reply: StreamRangeReply = self.0.clone().xrange_all(TOPIC).await?;
        reply
            .ids
            .iter()
            .map(|entry| match entry.map.get("payload") {
                Some(redis::Value::BulkString(b)) => Ok(b.clone()),
                other => bail!("entry {} has no payload: {other:?}", entry.id),
            })
            .collect()
    }
}

struct JetStream(async_nats::jetstream::Context);

impl JetStream {
    async fn info(&self) -> Result<Option<async_nats::jetstream::stream::Info>> {
        match self.0.get_stream("sluice").await {
            Ok(stream) => Ok(Some(stream.get_info().await?)),
            // Not created before the server's first batch.
            Err(_) => Ok(None),
        }
    }
}

impl Stored for JetStream {
    async fn count(&self) -> Result<u64> {
        Ok(self.info().await?.map_or(0, |i| i.state.messages))
    }

    async fn payloads(&self) -> Result<Vec<Vec<u8>>> {
        let Some(info) = self.info().await? else {
            return Ok(Vec::new());
        };
        let stream = self.0.get_stream("sluice").await?;
        let mut out = Vec::new();
        if info.state.messages > 0 {
            for seq in info.state.first_sequence..=info.state.last_sequence {
                let m = stream.get_raw_message(seq).await?;
                ensure!(
                    m.subject.as_str() == format!("sluice.{TOPIC}"),
                    "{}",
                    m.subject
                );
                out.push(m.payload.to_vec());
            }
        }
        Ok(out)
    }
}

/// The ids of every stored row, in stream order.
async fn stored_ids(broker: &impl Stored) -> Result<Vec<i64>> {
    let mut ids = Vec::new();
    for payload in broker.payloads().await? {
        ids.extend(row_ids(&payload)?);
    }
    Ok(ids)
}

/// Waits until the broker holds more than `before` records.
async fn wait_for_more(broker: &impl Stored, before: u64, timeout: Duration) -> Result<()> {
    let deadline = Instant::now() + timeout;
    while broker.count().await? <= before {
        ensure!(
            Instant::now() < deadline,
            "no new record within {timeout:?} (still {before})"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    Ok(())
}

/// A small xorshift generator: the kill moments, from a seed printed so a
/// failing run can be told apart.
struct Moments(u64);

impl Moments {
    fn next_ms(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        20 + self.0 % 400
    }
}

fn log_tail(log: &Path) -> String {
    let text = std::fs::read_to_string(log).unwrap_or_default();
    let lines: Vec<&str> = text.lines().collect();
    let tail = lines[lines.len().saturating_sub(40)..].join("\n");
    format!("the server's log ends with:\n{tail}")
}

/// Writes rows while the server is killed [`KILLS`] times, and more (up to
/// [`MAX_KILLS`]) until `enough` holds, then waits until every row written is
/// stored; returns the kills, the rows written and every stored row id, in
/// stream order.
async fn write_while_killing(
    broker: &impl Stored,
    db: &Arc<MariaDb>,
    conf: &Path,
    log: &Path,
    enough: impl Fn(u64) -> bool,
) -> Result<(usize, i64, Vec<i64>)> {
    let seed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_nanos() as u64)
        | 1;
    eprintln!("kill moments seed {seed}");
    let mut moments = Moments(seed);
    let stop = Arc::new(AtomicBool::new(false));
    let writer = start_writer(db.clone(), stop.clone());
    let mut server = ServerProcess::spawn(conf, log);
    let outcome = async {
        let mut kills = 0;
        loop {
            // Let it publish a little, then kill it at a random moment.
            let before = broker.count().await?;
            wait_for_more(broker, before, Duration::from_secs(60)).await?;
            tokio::time::sleep(Duration::from_millis(moments.next_ms())).await;
            server.kill();
            kills += 1;
            // Judged while no server runs, once what was in flight has landed.
            let done = kills >= MAX_KILLS
                || (kills >= KILLS && {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    enough(broker.count().await?)
                });
            server = ServerProcess::spawn(conf, log);
            if done {
                return Ok::<_, anyhow::Error>(kills);
            }
        }
    }
    .await;
    stop.store(true, Ordering::SeqCst);
    let rows = writer
        .join()
        .map_err(|_| anyhow::anyhow!("the writer thread panicked"))?;
    let kills = outcome?;
    // Rows 0..rows were written; wait until each is stored.
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        let ids = stored_ids(broker).await?;
        let seen: std::collections::BTreeSet<i64> = ids.iter().copied().collect();
        if (0..rows).all(|id| seen.contains(&id)) {
            server.kill();
            return Ok((kills, rows, ids));
        }
        if Instant::now() >= deadline {
            let missing: Vec<i64> = (0..rows).filter(|i| !seen.contains(i)).take(10).collect();
            bail!("rows never stored within 60 s (first 10 of those missing): {missing:?}");
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_mode_server_killed_10_times_stores_every_row_at_least_once() -> Result<()> {
    let redis = Redis::start()?;
    let (db, conf) = setup(&format!(
        "canal.serverMode = redis\nsluice.mq.redis.url = {}\n",
        redis.url()
    ))?;
    let log = conf.path().join("server.log");
    let client = redis::Client::open(redis.url())?;
    let broker = RedisStream(client.get_multiplexed_async_connection().await?);
    let (kills, rows, ids) = write_while_killing(&broker, &db, conf.path(), &log, |_| true)
        .await
        .with_context(|| log_tail(&log))?;
    // Every row; the new ones in commit order (a batch sent again repeats
    // rows already stored, it never skips one).
    let mut first_seen: BTreeMap<i64, usize> = BTreeMap::new();
    for (at, id) in ids.iter().enumerate() {
        first_seen.entry(*id).or_insert(at);
    }
    ensure!(
        first_seen.keys().copied().eq(0..rows),
        "rows stored are not exactly 0..{rows}"
    );
    let order: Vec<usize> = first_seen.values().copied().collect();
    ensure!(
        order.windows(2).all(|w| w[0] < w[1]),
        "a row first arrived before one written earlier"
    );
    eprintln!(
        "{kills} kills: {} records for {rows} rows in the Redis stream",
        ids.len()
    );
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_mode_server_killed_10_times_stores_every_row_exactly_once() -> Result<()> {
    let nats = Nats::start()?;
    let (db, conf) = setup(&format!(
        "canal.serverMode = nats\nsluice.mq.nats.url = {}\n",
        nats.url()
    ))?;
    let log = conf.path().join("server.log");
    let client = async_nats::connect(nats.url()).await?;
    // A plain subscriber sees every publish, the copies JetStream drops too:
    // proof that the kills made the server send records again.
    let mut subscriber = client.subscribe(format!("sluice.{TOPIC}")).await?;
    let published = Arc::new(AtomicU64::new(0));
    let counting = {
        let published = published.clone();
        tokio::spawn(async move {
            while futures_lite::StreamExt::next(&mut subscriber)
                .await
                .is_some()
            {
                published.fetch_add(1, Ordering::SeqCst);
            }
        })
    };
    let broker = JetStream(async_nats::jetstream::new(client.clone()));
    // Kill until some record has been published more often than stored.
    let resent = {
        let published = published.clone();
        move |stored: u64| published.load(Ordering::SeqCst) > stored
    };
    let (kills, rows, ids) = write_while_killing(&broker, &db, conf.path(), &log, resent)
        .await
        .with_context(|| log_tail(&log))?;
    ensure!(
        ids.len() as i64 == rows,
        "{} rows stored for {rows} written: some twice",
        ids.len()
    );
    ensure!(
        ids.iter().copied().eq(0..rows),
        "rows not stored once each in commit order"
    );
    // Every record is stored, so its publishes have reached the subscriber.
    client.flush().await?;
    tokio::time::sleep(Duration::from_millis(500)).await;
    counting.abort();
    let published = published.load(Ordering::SeqCst);
    ensure!(
        published > rows as u64,
        "{published} publishes for {rows} rows after {kills} kills: no record was sent again"
    );
    eprintln!("{kills} kills: {published} publishes, {rows} rows stored once each in JetStream");
    Ok(())
}

/// A value the Redis or NATS settings cannot use stops the start with the
/// file, line and key.
#[test]
fn a_bad_redis_or_nats_key_stops_the_server_naming_its_line() -> Result<()> {
    for (keys, key) in [
        (
            "canal.serverMode = redis\nsluice.mq.redis.maxlen = 0\n",
            "sluice.mq.redis.maxlen",
        ),
        (
            "canal.serverMode = nats\nsluice.mq.nats.stream = a.b\n",
            "sluice.mq.nats.stream",
        ),
    ] {
        let dir = tempfile::tempdir()?;
        std::fs::write(
            dir.path().join("canal.properties"),
            format!(
                "{keys}canal.destinations =\ncanal.auto.scan = false\ncanal.file.data.dir = {}\n",
                dir.path().display()
            ),
        )?;
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
                bail!("the server still runs with {key} bad: {}", log_tail(&log));
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let text = std::fs::read_to_string(&log)?;
        ensure!(!status.success(), "{text}");
        let at = format!(
            "{}:2: {key} = ",
            dir.path().join("canal.properties").display()
        );
        ensure!(text.contains(&at), "no {at:?} in: {text}");
    }
    Ok(())
}
