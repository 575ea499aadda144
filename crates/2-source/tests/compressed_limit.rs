//! The live stream inflates MariaDB's compressed events (`log_bin_compress`)
//! under the same ceiling as files: an event bigger than it stops the stream
//! with an error naming the file and position, instead of taking the memory.

mod common;

use anyhow::Result;
use sluice_binlog::events::EventData;
use sluice_binlog::Cell;
use sluice_source::{BinlogStream, SourceError, StartPosition, StreamItem};
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Streams from the start to the end; the length of every BLOB value seen,
/// or the error the stream stopped with.
async fn blob_lengths(db: &MariaDb) -> Result<Result<Vec<usize>, SourceError>> {
    let mut config = common::config(db, StartPosition::Earliest);
    config.stop_at_end = true;
    let mut stream = BinlogStream::connect(config).await?;
    let mut lengths = Vec::new();
    loop {
        let item = match stream.next().await {
            Ok(Some(item)) => item,
            Ok(None) => return Ok(Ok(lengths)),
            Err(e) => return Ok(Err(e)),
        };
        let StreamItem::Event(ev) = item else {
            continue;
        };
        if let EventData::Rows(r) = &ev.data {
            for row in r.rows() {
                let Some(after) = row?.after else { continue };
                for cell in after.cells() {
                    if let Cell::Present(sluice_binlog::Value::Bytes(b)) = cell? {
                        lengths.push(b.len());
                    }
                }
            }
        }
    }
}

#[test]
fn a_compressed_event_over_the_ceiling_stops_the_stream_with_its_position() -> Result<()> {
    let db = MariaDb::start(
        MariaDbConfig::default()
            .log_bin_compress(true)
            .arg("--max-allowed-packet=64M"),
    )?;
    db.exec(
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, b LONGBLOB); \
         INSERT INTO d.t VALUES (1, REPEAT('a', 4 << 20))",
    )?;
    let rt = common::runtime();

    // Under the default ceiling the 4 MiB row arrives whole.
    assert_eq!(rt.block_on(blob_lengths(&db))??, vec![4 << 20]);

    // Under a 1 MiB ceiling its compressed rows event is refused.
    sluice_binlog::compression::set_max_uncompressed(1 << 20);
    let err = match rt.block_on(blob_lengths(&db))? {
        Ok(lengths) => panic!("the stream decoded {lengths:?} over the ceiling"),
        Err(e) => e,
    };
    let SourceError::Decode {
        file, pos, event, ..
    } = &err
    else {
        panic!("not a decoding error: {err}");
    };
    assert!(file.starts_with("binlog."), "{err}");
    assert!(*pos > 4, "{err}");
    assert!(event.contains("COMPRESSED"), "{err}");
    let text = err.to_string();
    assert!(text.contains("over the 1048576-byte ceiling"), "{text}");
    assert!(text.contains(&format!("{file}:{pos}")), "{text}");
    Ok(())
}
