//! The stream survives the network and the server: a restart mid-stream, the
//! dump thread killed (between and inside transactions), a half-open
//! connection (a proxy that stops forwarding without closing) — and after
//! each, every row arrives exactly once, whole transactions, in order.

mod common;

use std::sync::atomic::{AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use common::{collect_until, config, ids_in_db, runtime, Collector};
use sluice_source::{BinlogStream, SourceConfig, StartPosition};
use sluice_testkit::mysql::prelude::Queryable;
use sluice_testkit::mysql::{self, OptsBuilder};
use sluice_testkit::{MariaDb, MariaDbConfig};

fn setup() -> Result<MariaDb> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(40))")?;
    Ok(db)
}

/// A writer thread: `txns` transactions of `per_txn` single-row INSERTs each
/// (ids 1, 2, ...), retried through server restarts. A retry that hits a
/// duplicate key finds the transaction already committed.
struct Writer {
    handle: JoinHandle<Result<()>>,
    done: Arc<AtomicU32>,
}

impl Writer {
    fn start(db: &MariaDb, txns: u32, per_txn: u32, pause: Duration) -> Writer {
        let socket = db.socket_path().to_string_lossy().into_owned();
        let done = Arc::new(AtomicU32::new(0));
        let done2 = done.clone();
        let handle = thread::spawn(move || -> Result<()> {
            let opts = OptsBuilder::new().socket(Some(socket)).user(Some("root"));
            let mut conn: Option<mysql::Conn> = None;
            let deadline = Instant::now() + Duration::from_secs(120);
            for t in 0..txns {
                loop {
                    if Instant::now() > deadline {
                        bail!("writer: transaction {t} not committed in time");
                    }
                    let c = match conn.as_mut() {
                        Some(c) => c,
                        None => match mysql::Conn::new(opts.clone()) {
                            Ok(c) => conn.insert(c),
                            Err(_) => {
                                thread::sleep(Duration::from_millis(30));
                                continue;
                            }
                        },
                    };
                    let result = (|| -> mysql::Result<()> {
                        c.query_drop("BEGIN")?;
                        for k in 0..per_txn {
                            let id = t * per_txn + k + 1;
                            c.query_drop(format!(
                                "INSERT INTO shop.t VALUES ({id}, 'row {id} of txn {t}')"
                            ))?;
                        }
                        c.query_drop("COMMIT")
                    })();
                    match result {
                        Ok(()) => break,
                        Err(mysql::Error::MySqlError(e)) if e.code == 1062 => {
                            let _ = c.query_drop("ROLLBACK");
                            break;
                        }
                        Err(_) => {
                            conn = None;
                            thread::sleep(Duration::from_millis(30));
                        }
                    }
                }
                done2.store(t + 1, Ordering::SeqCst);
                if !pause.is_zero() {
                    thread::sleep(pause);
                }
            }
            Ok(())
        });
        Writer { handle, done }
    }

    fn wait_for(&self, txns: u32) -> Result<()> {
        let deadline = Instant::now() + Duration::from_secs(60);
        while self.done.load(Ordering::SeqCst) < txns {
            if self.handle.is_finished() || Instant::now() > deadline {
                bail!("writer stopped at {}", self.done.load(Ordering::SeqCst));
            }
            thread::sleep(Duration::from_millis(5));
        }
        Ok(())
    }

    fn join(self) -> Result<()> {
        self.handle
            .join()
            .map_err(|_| anyhow::anyhow!("writer panicked"))?
    }
}

struct Consumed {
    collector: Collector,
    reconnects: u64,
}

/// A consumer thread reading until `rows` row changes are committed; returns
/// once its stream is connected.
fn consumer(cfg: SourceConfig, rows: usize) -> JoinHandle<Result<Consumed>> {
    let (ready_tx, ready) = mpsc::channel::<()>();
    let handle = thread::spawn(move || {
        runtime().block_on(async {
            let mut s = BinlogStream::connect(cfg).await?;
            let _ = ready_tx.send(());
            let mut c = Collector::default();
            collect_until(&mut s, &mut c, Duration::from_secs(120), |c| {
                c.committed_rows() >= rows
            })
            .await?;
            Ok(Consumed {
                collector: c,
                reconnects: s.reconnects(),
            })
        })
    });
    // On a connect error the sender is dropped and the error shows at join.
    let _ = ready.recv_timeout(Duration::from_secs(30));
    handle
}

fn join<T>(h: JoinHandle<Result<T>>) -> Result<T> {
    h.join().map_err(|_| anyhow::anyhow!("thread panicked"))?
}

/// Every row in the table once, in order, and the stream's transactions
/// are the writer's (`per_txn` rows each).
fn check_exactly_once(db: &MariaDb, c: &Collector, per_txn: usize) -> Result<()> {
    let in_db = ids_in_db(db, "shop.t")?;
    let streamed = c.keys("shop.t");
    assert_eq!(streamed.len(), in_db.len(), "row count");
    assert_eq!(streamed, in_db, "every row exactly once, in order");
    for t in c.txns.iter().filter(|t| !t.changes.is_empty()) {
        assert_eq!(t.changes.len(), per_txn, "whole transactions: {t:?}");
    }
    Ok(())
}

fn dump_threads(db: &MariaDb) -> Result<Vec<String>> {
    Ok(db
        .query("SHOW PROCESSLIST")?
        .into_iter()
        .filter(|r| r.get(4).cloned().flatten().as_deref() == Some("Binlog Dump"))
        .filter_map(|r| r.first().cloned().flatten())
        .collect())
}

fn wait_for_dump_thread(db: &MariaDb) -> Result<()> {
    let deadline = Instant::now() + Duration::from_secs(30);
    while dump_threads(db)?.is_empty() {
        if Instant::now() > deadline {
            bail!("the stream did not reconnect");
        }
        thread::sleep(Duration::from_millis(10));
    }
    Ok(())
}

#[test]
fn server_restarted_mid_stream() -> Result<()> {
    let mut db = setup()?;
    let (txns, per) = (300u32, 3u32);
    let c = consumer(config(&db, StartPosition::Earliest), (txns * per) as usize);
    let w = Writer::start(&db, txns, per, Duration::from_millis(1));
    w.wait_for(80)?;
    db.restart()?;
    // The stream is back (its dump thread is on the server) before the next restart.
    wait_for_dump_thread(&db)?;
    w.wait_for(180)?;
    db.restart()?;
    w.join()?;
    let got = join(c)?;
    assert!(got.reconnects >= 2, "reconnects: {}", got.reconnects);
    check_exactly_once(&db, &got.collector, per as usize)
}

#[test]
fn server_crashed_mid_stream() -> Result<()> {
    let mut db = setup()?;
    let (txns, per) = (250u32, 2u32);
    let c = consumer(config(&db, StartPosition::Earliest), (txns * per) as usize);
    let w = Writer::start(&db, txns, per, Duration::from_millis(1));
    w.wait_for(100)?;
    // SIGKILL: no shutdown, the server recovers its binlog on the way up.
    db.kill()?;
    db.restart()?;
    w.join()?;
    let got = join(c)?;
    assert!(got.reconnects >= 1, "reconnects: {}", got.reconnects);
    check_exactly_once(&db, &got.collector, per as usize)
}

#[test]
fn killed_dump_thread_while_a_writer_commits() -> Result<()> {
    let db = setup()?;
    let (txns, per) = (400u32, 2u32);
    let c = consumer(config(&db, StartPosition::Earliest), (txns * per) as usize);
    let w = Writer::start(&db, txns, per, Duration::from_millis(1));
    let mut kills = 0;
    let deadline = Instant::now() + Duration::from_secs(60);
    while w.done.load(Ordering::SeqCst) < txns - 20 && Instant::now() < deadline {
        for id in dump_threads(&db)? {
            if db.exec(&format!("KILL {id}")).is_ok() {
                kills += 1;
            }
        }
        thread::sleep(Duration::from_millis(120));
    }
    w.join()?;
    let got = join(c)?;
    assert!(kills >= 3, "kills: {kills}");
    assert!(got.reconnects >= 3, "reconnects: {}", got.reconnects);
    check_exactly_once(&db, &got.collector, per as usize)
}

#[test]
fn killed_inside_a_large_transaction_it_is_delivered_again_whole() -> Result<()> {
    let db = setup()?;
    db.exec("CREATE TABLE shop.big (id INT PRIMARY KEY, pad VARCHAR(1000))")?;
    let cfg = config(&db, StartPosition::Latest);
    let (to_main, from_consumer) = mpsc::channel::<&'static str>();
    let (to_consumer, from_main) = mpsc::channel::<()>();
    const BIG: usize = 30_000;
    let handle = thread::spawn(move || -> Result<Collector> {
        runtime().block_on(async {
            let mut s = BinlogStream::connect(cfg).await?;
            to_main.send("connected")?;
            let mut c = Collector::default();
            // Read until inside the big transaction, then stop reading (the
            // server blocks on a full socket) until the dump thread is killed.
            collect_until(&mut s, &mut c, Duration::from_secs(60), |c| {
                c.open_rows > 100
            })
            .await?;
            to_main.send("inside")?;
            from_main.recv()?;
            collect_until(&mut s, &mut c, Duration::from_secs(60), |c| {
                c.committed_rows() >= BIG + 6
            })
            .await?;
            Ok(c)
        })
    });
    assert_eq!(
        from_consumer.recv_timeout(Duration::from_secs(30))?,
        "connected"
    );
    db.exec("INSERT INTO shop.t VALUES (1, 'before'), (2, 'before'), (3, 'before')")?;
    db.exec(&format!(
        "INSERT INTO shop.big SELECT seq, REPEAT('x', 1000) FROM shop.seq_1_to_{BIG}"
    ))?;
    db.exec("INSERT INTO shop.t VALUES (4, 'after'), (5, 'after'), (6, 'after')")?;
    assert_eq!(
        from_consumer.recv_timeout(Duration::from_secs(30))?,
        "inside"
    );
    let killed = dump_threads(&db)?;
    assert!(!killed.is_empty());
    for id in killed {
        db.exec(&format!("KILL {id}"))?;
    }
    to_consumer.send(())?;
    let c = join(handle)?;
    assert!(
        c.aborted >= 1,
        "the partial transaction must be reported aborted"
    );
    let big: Vec<String> = c.keys("shop.big");
    let want: Vec<String> = (1..=BIG).map(|i| i.to_string()).collect();
    assert!(
        big == want,
        "the big transaction exactly once, in order ({} rows)",
        big.len()
    );
    assert_eq!(c.keys("shop.t"), ["1", "2", "3", "4", "5", "6"]);
    let big_txns = c
        .txns
        .iter()
        .filter(|t| t.changes.iter().any(|ch| ch.table == "shop.big"))
        .count();
    assert_eq!(big_txns, 1);
    Ok(())
}

/// A TCP proxy that can stop forwarding on its current connections while
/// keeping them open: what a half-open connection looks like to a client.
struct Proxy {
    port: u16,
    /// Connections with a number below this are held (nothing forwarded).
    hold_below: Arc<AtomicUsize>,
    accepted: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl Proxy {
    fn start(upstream: u16) -> Result<Proxy> {
        let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let port = listener.local_addr()?.port();
        let hold_below = Arc::new(AtomicUsize::new(0));
        let accepted = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (h, a, s) = (hold_below.clone(), accepted.clone(), stop.clone());
        thread::spawn(move || {
            let rt = runtime();
            rt.block_on(async move {
                let Ok(listener) = tokio::net::TcpListener::from_std(listener) else {
                    return;
                };
                while !s.load(Ordering::SeqCst) {
                    let accept =
                        tokio::time::timeout(Duration::from_millis(100), listener.accept()).await;
                    let Ok(Ok((client, _))) = accept else {
                        continue;
                    };
                    let id = a.fetch_add(1, Ordering::SeqCst);
                    let Ok(server) = tokio::net::TcpStream::connect(("127.0.0.1", upstream)).await
                    else {
                        continue;
                    };
                    let (cr, cw) = client.into_split();
                    let (sr, sw) = server.into_split();
                    tokio::spawn(pipe(cr, sw, id, h.clone(), s.clone()));
                    tokio::spawn(pipe(sr, cw, id, h.clone(), s.clone()));
                }
            });
        });
        Ok(Proxy {
            port,
            hold_below,
            accepted,
            stop,
        })
    }

    /// Stops forwarding on every connection accepted so far (they stay open).
    fn hold_current(&self) {
        self.hold_below
            .store(self.accepted.load(Ordering::SeqCst), Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

async fn pipe(
    mut from: tokio::net::tcp::OwnedReadHalf,
    mut to: tokio::net::tcp::OwnedWriteHalf,
    id: usize,
    hold_below: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut buf = vec![0u8; 64 << 10];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => n,
        };
        // A held connection swallows its data and never closes.
        while id < hold_below.load(Ordering::SeqCst) {
            if stop.load(Ordering::SeqCst) {
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        if to.write_all(&buf[..n]).await.is_err() {
            return;
        }
    }
}

#[test]
fn half_open_connection_is_detected_by_the_read_timeout() -> Result<()> {
    let db = setup()?;
    let proxy = Proxy::start(db.port())?;
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.connect.port = proxy.port;
    cfg.connect.read_timeout = Duration::from_millis(1500);
    cfg.heartbeat_period = Duration::from_millis(300);
    let (txns, per) = (300u32, 2u32);
    let c = consumer(cfg, (txns * per) as usize);
    let w = Writer::start(&db, txns, per, Duration::from_millis(2));
    w.wait_for(60)?;
    let held_at = Instant::now();
    proxy.hold_current();
    w.join()?;
    let got = join(c).context("consumer")?;
    assert!(got.reconnects >= 1, "reconnects: {}", got.reconnects);
    assert!(held_at.elapsed() >= Duration::from_millis(1500));
    check_exactly_once(&db, &got.collector, per as usize)
}

#[test]
fn heartbeats_keep_an_idle_stream_alive() -> Result<()> {
    let db = setup()?;
    let mut cfg = config(&db, StartPosition::Latest);
    cfg.heartbeat_period = Duration::from_millis(100);
    cfg.connect.read_timeout = Duration::from_millis(600);
    let (heartbeats, reconnects, c) = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        let mut c = Collector::default();
        // Two seconds of silence: far longer than the read timeout. (Only
        // the rotate and format description that open a dump arrive.)
        let quiet = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                match s.next().await {
                    Ok(Some(item)) => c.feed(item)?,
                    Ok(None) => return Ok::<_, anyhow::Error>(()),
                    Err(e) => return Err(e.into()),
                }
            }
        })
        .await;
        assert!(
            quiet.is_err(),
            "the stream must still be waiting: {quiet:?}"
        );
        assert!(c.txns.is_empty());
        db.exec("INSERT INTO shop.t VALUES (1, 'after the silence')")?;
        collect_until(&mut s, &mut c, Duration::from_secs(10), |c| {
            c.committed_rows() >= 1
        })
        .await?;
        Ok::<_, anyhow::Error>((s.heartbeats(), s.reconnects(), c))
    })?;
    assert!(heartbeats >= 5, "heartbeats: {heartbeats}");
    assert_eq!(reconnects, 0, "heartbeats must keep the connection alive");
    assert_eq!(c.keys("shop.t"), ["1"]);
    Ok(())
}

/// Two streams with one shared server id (the servers of one destination):
/// the newer dump makes the source end the older one at once, and the older
/// stream does not dump again (its reconnect would end the newer dump). A
/// connect gate that refuses keeps a stream from connecting at all.
#[test]
fn a_newer_dump_with_the_shared_id_ends_the_older_and_a_refusing_gate_keeps_it_off() -> Result<()> {
    let db = setup()?;
    let allowed = Arc::new(AtomicBool::new(true));
    let gated = |cfg: &mut SourceConfig| {
        cfg.server_id_seed = Some("example@source".into());
        let gate = allowed.clone();
        cfg.connect_gate = Some(sluice_source::ConnectGate::new(move || {
            gate.load(Ordering::SeqCst)
        }));
    };
    let mut old_cfg = config(&db, StartPosition::Latest);
    gated(&mut old_cfg);
    let refused_cfg = old_cfg.clone();
    let mut new_cfg = config(&db, StartPosition::Latest);
    new_cfg.server_id_seed = Some("example@source".into());
    runtime().block_on(async {
        let mut old = BinlogStream::connect(old_cfg).await?;
        wait_for_dump_thread(&db)?;
        let old_thread = dump_threads(&db)?;
        // The old owner loses the right to dump; the new one starts.
        allowed.store(false, Ordering::SeqCst);
        let mut new = BinlogStream::connect(new_cfg).await?;
        assert_eq!(old.server_id(), new.server_id(), "one id for both");
        let threads = dump_threads(&db)?;
        assert_eq!(threads.len(), 1, "both dumps listed: {threads:?}");
        assert_ne!(threads, old_thread, "the old dump is the one left");
        let end = tokio::time::timeout(Duration::from_secs(10), async {
            loop {
                match old.next().await {
                    Ok(Some(_)) => continue,
                    other => return other.map(|_| ()),
                }
            }
        })
        .await
        .context("the old stream neither ended nor failed")?;
        // MariaDB tells the old dump why it ends (ER_SLAVE_SAME_ID); were
        // the stream to retry, the gate would refuse.
        match end {
            Err(sluice_source::SourceError::Refused { .. }) => {}
            Err(e) if e.server_code() == Some(4052) => {}
            other => bail!("the old stream ended with {other:?}"),
        }
        assert_eq!(dump_threads(&db)?, threads, "the old stream dumped again");
        match BinlogStream::connect(refused_cfg).await {
            Err(sluice_source::SourceError::Refused { addr }) => {
                assert_eq!(addr, format!("127.0.0.1:{}", db.port()))
            }
            other => bail!("a refusing gate let the stream connect: {other:?}"),
        }
        assert_eq!(dump_threads(&db)?, threads, "a refused stream dumped");
        db.exec("INSERT INTO shop.t VALUES (1, 'to the new owner')")?;
        let mut c = Collector::default();
        collect_until(&mut new, &mut c, Duration::from_secs(10), |c| {
            c.committed_rows() >= 1
        })
        .await?;
        assert_eq!(new.reconnects(), 0);
        Ok(())
    })
}
