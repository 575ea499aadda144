//! Every start mode against a private MariaDB: earliest, latest, file:pos at
//! and inside a transaction, GTID (multi-domain), time; and resuming from a
//! reported position.

mod common;

use std::time::Duration;

use anyhow::Result;
use common::{collect_all, collect_until, config, runtime, Collector};
use sluice_binlog::events::EventData;
use sluice_binlog::{walk_file, Cell, Value};
use sluice_source::{BinlogStream, GtidState, SourceError, StartPosition};
use sluice_testkit::{MariaDb, MariaDbConfig};

const T: &str = "shop.t";

fn setup() -> Result<MariaDb> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, v VARCHAR(20))")?;
    Ok(db)
}

/// Inserts ids `from..=to`, `per_txn` rows (one statement each) per transaction.
fn insert(db: &MariaDb, from: u32, to: u32, per_txn: u32) -> Result<()> {
    let mut id = from;
    while id <= to {
        let mut sql = String::from("BEGIN;");
        for _ in 0..per_txn {
            if id > to {
                break;
            }
            sql.push_str(&format!("INSERT INTO shop.t VALUES ({id}, 'v{id}');"));
            id += 1;
        }
        sql.push_str("COMMIT");
        db.exec(&sql)?;
    }
    Ok(())
}

fn ids(from: u32, to: u32) -> Vec<String> {
    (from..=to).map(|i| i.to_string()).collect()
}

fn from_end(c: &Collector) -> Vec<String> {
    c.keys(T)
}

#[test]
fn earliest_reads_everything_in_order_with_gtids_and_positions() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 30, 3)?;
    db.exec("UPDATE shop.t SET v = 'changed' WHERE id = 7; DELETE FROM shop.t WHERE id = 8")?;
    let (end_file, end_pos) = db.current_binlog_position()?;
    let gtid_end = db.gtid_binlog_pos()?;

    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.stop_at_end = true;
    let rt = runtime();
    let (c, pos) = rt.block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        let c = collect_all(&mut s, Duration::from_secs(30)).await?;
        Ok::<_, anyhow::Error>((c, s.position().clone()))
    })?;

    let changes = c.changes();
    let inserts: Vec<String> = changes
        .iter()
        .filter(|ch| ch.op == "insert")
        .map(|ch| ch.key())
        .collect();
    assert_eq!(inserts, ids(1, 30));
    let upd = changes.iter().find(|ch| ch.op == "update").expect("update");
    assert_eq!(
        upd.before.as_ref().unwrap(),
        &vec![Some("7".into()), Some("v7".into())]
    );
    assert_eq!(
        upd.after.as_ref().unwrap(),
        &vec![Some("7".into()), Some("changed".into())]
    );
    assert!(changes
        .iter()
        .any(|ch| ch.op == "delete" && ch.key() == "8"));
    assert!(c
        .txns
        .iter()
        .any(|t| t.ddl.iter().any(|d| d.starts_with("CREATE TABLE"))));
    // Every transaction has its GTID; the final position is the end of the binlog.
    assert!(c.txns.iter().all(|t| t.gtid.is_some()));
    assert_eq!(
        (pos.at.file.as_str(), pos.at.offset),
        (end_file.as_str(), end_pos)
    );
    assert_eq!(pos.at.gtid.map(|g| g.to_string()), Some(gtid_end));
    assert_eq!(c.aborted, 0);
    Ok(())
}

#[test]
fn latest_sees_only_new_changes() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 10, 2)?;
    let rt = runtime();
    let c = rt.block_on(async {
        let mut s = BinlogStream::connect(config(&db, StartPosition::Latest)).await?;
        // Written while the dump waits: the server sends them as they commit.
        insert(&db, 11, 20, 2)?;
        let mut c = Collector::default();
        collect_until(&mut s, &mut c, Duration::from_secs(20), |c| {
            c.committed_rows() >= 10
        })
        .await?;
        Ok::<_, anyhow::Error>(c)
    })?;
    assert_eq!(from_end(&c), ids(11, 20));
    Ok(())
}

#[test]
fn file_pos_at_a_boundary() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 5, 1)?;
    let (file, pos) = db.current_binlog_position()?;
    insert(&db, 6, 10, 2)?;
    let mut cfg = config(&db, StartPosition::FilePos { file, pos });
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    assert_eq!(from_end(&c), ids(6, 10));
    Ok(())
}

#[test]
fn file_pos_inside_a_transaction_skips_to_the_next_one() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 3, 3)?;
    insert(&db, 4, 6, 3)?; // the transaction we start inside of
    insert(&db, 7, 9, 3)?;
    // Find, in the file on disk, the rows event that inserts id 5 and the
    // GTID event of the transaction after it.
    let path = db.binlog_files()?.pop().expect("a binlog file");
    let file_name = path.file_name().unwrap().to_string_lossy().to_string();
    let bytes = std::fs::read(&path)?;
    let mut row5_pos = None;
    let mut next_gtid_pos = None;
    let _ = walk_file(&file_name, &bytes, |at, _raw, data| {
        match data {
            EventData::Rows(r) => {
                for row in r.rows().flatten() {
                    if let Some(after) = &row.after {
                        if let Some(Ok(Cell::Present(Value::Int(5)))) = after.cells().next() {
                            row5_pos = Some(at.pos);
                        }
                    }
                }
            }
            EventData::MariadbGtid(_) if row5_pos.is_some() && next_gtid_pos.is_none() => {
                next_gtid_pos = Some(at.pos);
            }
            _ => {}
        }
        std::ops::ControlFlow::Continue(())
    });
    let (row5_pos, next_gtid_pos) = (row5_pos.expect("row 5"), next_gtid_pos.expect("next gtid"));

    let mut cfg = config(
        &db,
        StartPosition::FilePos {
            file: file_name.clone(),
            pos: row5_pos,
        },
    );
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    // Nothing of the transaction we started in; everything after it.
    assert_eq!(from_end(&c), ids(7, 9));
    assert_eq!(c.first_txn_event, Some((file_name, next_gtid_pos)));
    Ok(())
}

#[test]
fn gtid_start_with_several_domains() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 3, 1)?;
    db.exec(
        "SET SESSION gtid_domain_id = 1; INSERT INTO shop.t VALUES (101, 'd1'); \
         INSERT INTO shop.t VALUES (102, 'd1'); SET SESSION gtid_domain_id = 0",
    )?;
    let both_mid = db.gtid_binlog_pos()?;
    insert(&db, 4, 6, 1)?;
    db.exec(
        "SET SESSION gtid_domain_id = 1; INSERT INTO shop.t VALUES (103, 'd1'); \
         INSERT INTO shop.t VALUES (104, 'd1'); SET SESSION gtid_domain_id = 0",
    )?;
    let domain0_end = db
        .query_scalar("SELECT @@gtid_binlog_pos")?
        .unwrap_or_default();
    insert(&db, 7, 7, 1)?;
    let gtid_end = db.gtid_binlog_pos()?;
    assert!(both_mid.contains(','), "two domains: {both_mid}");

    let run = |start: &str| -> Result<(Collector, sluice_source::ResumePosition)> {
        let mut cfg = config(&db, start.parse().map_err(anyhow::Error::msg)?);
        cfg.stop_at_end = true;
        runtime().block_on(async {
            let mut s = BinlogStream::connect(cfg).await?;
            let c = collect_all(&mut s, Duration::from_secs(20)).await?;
            Ok((c, s.position().clone()))
        })
    };
    // Both domains at their middle: the rest of both, in commit order.
    let (c, pos) = run(&format!("gtid:{both_mid}"))?;
    assert_eq!(
        from_end(&c),
        ["4", "5", "6", "103", "104", "7"]
            .map(String::from)
            .to_vec()
    );
    assert_eq!(
        pos.at.gtid.as_ref().map(ToString::to_string),
        Some(gtid_end.clone())
    );
    assert!(c.txns.iter().all(|t| t.gtid.is_some()));

    // Domain 1 at its middle, domain 0 further on: only what each still lacks.
    let mut state: sluice_source::MariadbGtidState =
        domain0_end.parse().map_err(anyhow::Error::msg)?;
    let mid: sluice_source::MariadbGtidState = both_mid.parse().map_err(anyhow::Error::msg)?;
    state.domains.insert(1, mid.domains[&1]);
    let (c, _) = run(&format!("gtid:{state}"))?;
    assert_eq!(from_end(&c), ["103", "104", "7"].map(String::from).to_vec());
    Ok(())
}

#[test]
fn time_start_begins_at_the_last_boundary_before_the_time() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 3, 1)?;
    db.flush_binlogs()?;
    insert(&db, 4, 6, 1)?;
    // Event timestamps have one-second resolution.
    std::thread::sleep(Duration::from_millis(1100));
    let t: i64 = db
        .query_scalar("SELECT UNIX_TIMESTAMP()")?
        .unwrap_or_default()
        .parse()?;
    insert(&db, 7, 9, 1)?;
    db.flush_binlogs()?;
    insert(&db, 10, 12, 1)?;
    let iso = sluice_source::position::format_utc(t);
    let mut cfg = config(
        &db,
        format!("time:{iso}").parse().map_err(anyhow::Error::msg)?,
    );
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    assert_eq!(from_end(&c), ids(7, 12));
    Ok(())
}

#[test]
fn resuming_from_a_reported_position_is_exactly_once() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 10, 2)?;
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.stop_at_end = true;
    let rt = runtime();
    let first = rt.block_on(async {
        let mut s = BinlogStream::connect(cfg.clone()).await?;
        let mut c = Collector::default();
        // Stop after 3 transactions of shop.t rows (plus the DDL ones).
        collect_until(&mut s, &mut c, Duration::from_secs(20), |c| {
            c.txns.iter().filter(|t| !t.changes.is_empty()).count() >= 3
        })
        .await?;
        Ok::<_, anyhow::Error>(c)
    })?;
    let resume = first.txns.last().expect("a transaction").end.clone();
    insert(&db, 11, 14, 2)?;
    // By file:pos ...
    let by_pos = rt.block_on(async {
        let mut s = BinlogStream::connect(cfg.clone().starting_at(StartPosition::FilePos {
            file: resume.at.file.clone(),
            pos: resume.at.offset,
        }))
        .await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    // ... and by the GTID state of the same position.
    let gtid = resume.at.gtid.clone().expect("gtid state");
    assert!(matches!(gtid, GtidState::MariaDb(_)));
    let by_gtid = rt.block_on(async {
        let mut s =
            BinlogStream::connect(cfg.clone().starting_at(StartPosition::Gtid(gtid))).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    let mut all = first.keys(T);
    all.extend(by_pos.keys(T));
    assert_eq!(all, ids(1, 14));
    assert_eq!(by_gtid.keys(T), by_pos.keys(T));
    Ok(())
}

#[test]
fn a_mysql_gtid_set_on_mariadb_is_refused_clearly() -> Result<()> {
    let db = setup()?;
    let cfg = config(
        &db,
        "gtid:3e11fa47-71ca-11e1-9e33-c80aa9429562:1-5"
            .parse()
            .map_err(anyhow::Error::msg)?,
    );
    let err = runtime()
        .block_on(BinlogStream::connect(cfg))
        .expect_err("must fail");
    assert!(matches!(err, SourceError::InvalidStart { .. }), "{err}");
    assert!(err.to_string().contains("MariaDB"), "{err}");
    Ok(())
}

#[test]
fn rows_events_decode_the_same_on_another_thread() -> Result<()> {
    let db = setup()?;
    insert(&db, 1, 6, 3)?;
    db.exec("UPDATE shop.t SET v = 'x' WHERE id < 3")?;
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.stop_at_end = true;
    let render = |r: &sluice_binlog::RowsEvent<'_>| -> Vec<String> {
        r.rows()
            .map(|row| {
                let row = row.expect("row");
                let mut s = String::new();
                for img in [&row.before, &row.after].into_iter().flatten() {
                    for (i, cell) in img.cells().enumerate() {
                        if let Ok(Cell::Present(v)) = cell {
                            s.push_str(
                                &v.to_text(&r.table.columns[i])
                                    .ok()
                                    .flatten()
                                    .unwrap_or_default(),
                            );
                            s.push('|');
                        }
                    }
                }
                s
            })
            .collect()
    };
    let (here, owned) = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        let (mut here, mut owned) = (Vec::new(), Vec::new());
        while let Some(item) = s.next().await? {
            let sluice_source::StreamItem::Event(ev) = item else {
                continue;
            };
            if let EventData::Rows(r) = &ev.data {
                here.extend(render(r));
                owned.push(ev.to_owned_rows().expect("a rows event"));
            } else {
                assert!(ev.to_owned_rows().is_none());
            }
        }
        Ok::<_, anyhow::Error>((here, owned))
    })?;
    let there = std::thread::spawn(move || -> Vec<String> {
        owned
            .iter()
            .flat_map(|o| render(&o.rows_event().expect("rows event")))
            .collect()
    })
    .join()
    .expect("thread");
    assert_eq!(here.len(), 8);
    assert_eq!(here, there);
    Ok(())
}

/// MariaDB writes no BEGIN for a transaction: its GTID event opens it. A
/// transaction whose DML is logged as statements (session binlog_format
/// STATEMENT) ends at its XID, not at its first statement, so no position
/// inside it is ever reported as a place to resume from.
#[test]
fn a_mariadb_transaction_of_statements_ends_at_its_commit() -> Result<()> {
    let db = setup()?;
    let (file, pos) = db.current_binlog_position()?;
    db.exec(
        "SET SESSION binlog_format = 'STATEMENT'; BEGIN; \
         INSERT INTO shop.t VALUES (1, 'a'); INSERT INTO shop.t VALUES (2, 'b'); \
         UPDATE shop.t SET v = 'c' WHERE id = 1; COMMIT",
    )?;
    db.exec("CREATE TABLE shop.u (id INT PRIMARY KEY)")?;
    let mut cfg = config(&db, StartPosition::FilePos { file, pos });
    cfg.stop_at_end = true;
    let rt = runtime();
    let c = rt.block_on(async {
        let mut stream = BinlogStream::connect(cfg).await?;
        collect_all(&mut stream, Duration::from_secs(30)).await
    })?;
    let ddl: Vec<Vec<String>> = c.txns.iter().map(|t| t.ddl.clone()).collect();
    assert_eq!(
        c.txns.len(),
        2,
        "one transaction of three statements, then one DDL: {ddl:?}"
    );
    assert!(
        ddl[0].is_empty(),
        "no statement ends the transaction: {ddl:?}"
    );
    assert!(ddl[1][0].starts_with("CREATE TABLE"), "{ddl:?}");
    Ok(())
}
