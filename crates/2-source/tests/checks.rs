//! What Sluice refuses, and how it says so: misconfigured servers, purged
//! positions, impossible starts, a replica id clash; and what it must carry:
//! a row of over 16 MiB (a packet split in several).

mod common;

use std::time::Duration;

use anyhow::Result;
use common::{collect_all, config, runtime};
use sluice_binlog::events::EventData;
use sluice_binlog::{Cell, Value};
use sluice_source::{BinlogStream, RowImages, SourceError, StartPosition, StreamItem};
use sluice_testkit::{BinlogFormat, BinlogRowImage, MariaDb, MariaDbConfig};

fn connect_err(cfg: sluice_source::SourceConfig) -> SourceError {
    let start = cfg.start.clone();
    match runtime().block_on(BinlogStream::connect(cfg)) {
        Ok(_) => panic!("the connection must be refused (start {start})"),
        Err(e) => e,
    }
}

#[test]
fn statement_format_is_refused_with_the_fix() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default().binlog_format(BinlogFormat::Statement))?;
    let err = connect_err(config(&db, StartPosition::Latest));
    let msg = err.to_string();
    assert!(
        matches!(
            err,
            SourceError::Misconfigured {
                setting: "binlog_format",
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.contains("STATEMENT") && msg.contains("SET GLOBAL binlog_format = 'ROW'"),
        "{msg}"
    );
    let db = MariaDb::start(MariaDbConfig::default().binlog_format(BinlogFormat::Mixed))?;
    let err = connect_err(config(&db, StartPosition::Latest));
    assert!(err.to_string().contains("binlog_format is MIXED"), "{err}");
    Ok(())
}

#[test]
fn a_row_image_not_accepted_is_refused_with_the_fix() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal))?;
    let err = connect_err(config(&db, StartPosition::Latest));
    assert!(
        matches!(
            err,
            SourceError::Misconfigured {
                setting: "binlog_row_image",
                ..
            }
        ),
        "{err}"
    );
    let msg = err.to_string();
    assert!(
        msg.contains(
            "binlog_row_image is MINIMAL, but Sluice needs FULL (requireFullRowImage=true)"
        ) && msg.contains("SET GLOBAL binlog_row_image = 'FULL'")
            && msg.contains("binlog_row_image=FULL")
            && msg.contains("requireFullRowImage=false"),
        "{msg}"
    );
    // A list that leaves MINIMAL out names itself, and how to widen it.
    let mut cfg = config(&db, StartPosition::Latest);
    cfg.row_images = RowImages::OneOf {
        images: vec!["full".into(), "NOBLOB".into()],
        because: "listed in canal.instance.binlog.image".into(),
        or_else: "add MINIMAL to canal.instance.binlog.image".into(),
    };
    let msg = connect_err(cfg).to_string();
    assert!(
        msg.contains("binlog_row_image is MINIMAL, but Sluice needs FULL or NOBLOB (listed in canal.instance.binlog.image)")
            && msg.ends_with(", or add MINIMAL to canal.instance.binlog.image"),
        "{msg}"
    );
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, a INT, b INT); INSERT INTO shop.t VALUES (1, 2, 3); UPDATE shop.t SET a = 5 WHERE id = 1")?;
    // A list that holds it, in any case, is a yes.
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.row_images = RowImages::OneOf {
        images: vec!["FULL".into(), "minimal".into()],
        because: String::new(),
        or_else: String::new(),
    };
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    let upd = c
        .changes()
        .into_iter()
        .find(|ch| ch.op == "update")
        .expect("update");
    // MINIMAL: the key in the before image, the changed column in the after image.
    assert_eq!(upd.before, Some(vec![Some("1".into()), None, None]));
    assert_eq!(upd.after, Some(vec![None, Some("5".into()), None]));
    Ok(())
}

#[test]
fn binlog_off_is_refused() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default().arg("--skip-log-bin"))?;
    let err = connect_err(config(&db, StartPosition::Latest));
    assert!(
        matches!(
            err,
            SourceError::Misconfigured {
                setting: "log_bin",
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("enable the binary log"), "{err}");
    Ok(())
}

#[test]
fn purged_positions_name_the_oldest_one_left() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY)")?;
    for i in 1..=4 {
        db.exec(&format!("INSERT INTO shop.t VALUES ({i})"))?;
        db.flush_binlogs()?;
    }
    let first_gtid = "0-1-1";
    // The server keeps files it still needs for crash recovery until InnoDB
    // has checkpointed them: retry until the purge takes.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        db.exec("PURGE BINARY LOGS TO 'binlog.000003'")?;
        let first = db.query_scalar("SHOW BINARY LOGS")?.unwrap_or_default();
        if first == "binlog.000003" {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "binlogs not purged");
        std::thread::sleep(Duration::from_millis(100));
    }
    let oldest_gtid = db
        .query_scalar("SELECT BINLOG_GTID_POS('binlog.000003', 4)")?
        .unwrap_or_default();

    // By file and offset ...
    let err = connect_err(config(
        &db,
        StartPosition::FilePos {
            file: "binlog.000001".into(),
            pos: 4,
        },
    ));
    let msg = err.to_string();
    assert!(matches!(err, SourceError::PositionPurged { .. }), "{msg}");
    assert!(msg.contains("binlog.000001:4"), "names the request: {msg}");
    assert!(
        msg.contains("binlog.000003:4"),
        "names the oldest file: {msg}"
    );
    assert!(
        msg.contains(&oldest_gtid),
        "names the oldest GTID position: {msg}"
    );

    // ... and by GTID.
    let err = connect_err(config(
        &db,
        format!("gtid:{first_gtid}")
            .parse()
            .map_err(anyhow::Error::msg)?,
    ));
    let msg = err.to_string();
    assert!(matches!(err, SourceError::PositionPurged { .. }), "{msg}");
    assert!(msg.contains("binlog.000003:4"), "{msg}");

    // The oldest position still works.
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    assert_eq!(c.keys("shop.t"), ["3", "4"]);
    Ok(())
}

#[test]
fn impossible_starts_and_id_clashes_are_clear() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    let (file, _) = db.current_binlog_position()?;
    let err = connect_err(config(
        &db,
        StartPosition::FilePos {
            file: file.clone(),
            pos: 1 << 20,
        },
    ));
    assert!(matches!(err, SourceError::InvalidStart { .. }), "{err}");
    assert!(
        err.to_string().contains("past the end of the file"),
        "{err}"
    );
    assert!(err.to_string().contains("1048576"), "{err}");

    db.exec("CREATE DATABASE shop")?;
    let err = connect_err(config(
        &db,
        "gtid:0-1-999".parse().map_err(anyhow::Error::msg)?,
    ));
    assert!(matches!(err, SourceError::InvalidStart { .. }), "{err}");
    assert!(
        err.to_string().contains("not in this server's binlog"),
        "{err}"
    );

    let mut cfg = config(&db, StartPosition::Latest);
    cfg.server_id = Some(db.config().server_id);
    let err = connect_err(cfg);
    assert!(
        err.to_string().contains("the source's own server_id"),
        "{err}"
    );

    // A configured id is used as is.
    let mut cfg = config(&db, StartPosition::Latest);
    cfg.server_id = Some(4242);
    let s = runtime().block_on(BinlogStream::connect(cfg))?;
    assert_eq!(s.server_id(), 4242);
    let hosts = db.query("SHOW SLAVE HOSTS")?;
    assert!(
        hosts
            .iter()
            .any(|r| r.first().cloned().flatten().as_deref() == Some("4242")),
        "registered as a replica: {hosts:?}"
    );
    Ok(())
}

#[test]
fn a_row_over_16_mib_arrives_whole() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default().arg("--max-allowed-packet=64M"))?;
    const SIZE: usize = 20 << 20;
    db.exec(&format!(
        "CREATE DATABASE shop; CREATE TABLE shop.blobs (id INT PRIMARY KEY, b LONGBLOB); \
         INSERT INTO shop.blobs VALUES (1, REPEAT('ab', {})); INSERT INTO shop.blobs VALUES (2, 'small')",
        SIZE / 2
    ))?;
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.stop_at_end = true;
    let (sizes, ok) = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        let mut sizes = Vec::new();
        let mut ok = true;
        while let Some(item) = s.next().await? {
            let StreamItem::Event(ev) = item else {
                continue;
            };
            if let EventData::Rows(r) = &ev.data {
                for row in r.rows() {
                    let row = row?;
                    let after = row.after.expect("insert");
                    for cell in after.cells() {
                        if let Cell::Present(Value::Bytes(b)) = cell? {
                            sizes.push(b.len());
                            if b.len() == SIZE {
                                ok &= b.chunks(2).all(|c| c == b"ab");
                            }
                        }
                    }
                }
            }
        }
        Ok::<_, anyhow::Error>((sizes, ok))
    })?;
    assert_eq!(sizes, [SIZE, 5]);
    assert!(ok, "the 20 MiB value arrives intact");
    Ok(())
}
