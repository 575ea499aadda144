//! The mysql_common reader peer against a private MariaDB: it reads the
//! binlog to its end, decodes every row, and shows each rows event and row
//! to its visitor.

use std::ops::ControlFlow;

use mysql_async::binlog::value::BinlogValue;
use mysql_async::Value;
use sluice_bench::peers::mysql_common_reader::{
    read_blocking, BinlogRow, RowsEventSeen, RowsKind, Source, Until, Visit,
};
use sluice_testkit::{MariaDb, MariaDbConfig};

#[derive(Default)]
struct Record {
    events: Vec<(String, String, RowsKind)>,
    /// (before id, after id) of each row; `None` for a missing image.
    rows: Vec<(Option<i64>, Option<i64>)>,
    stop_after_rows: Option<usize>,
}

fn id(image: Option<&BinlogRow>) -> Option<i64> {
    match image?.as_ref(0)? {
        BinlogValue::Value(Value::Int(x)) => Some(*x),
        other => panic!("id is {other:?}"),
    }
}

impl Visit for Record {
    fn rows_event(&mut self, event: &RowsEventSeen<'_>) -> ControlFlow<()> {
        assert!(event.log_pos > 0);
        self.events.push((
            event.schema.to_string(),
            event.table.to_string(),
            event.kind,
        ));
        ControlFlow::Continue(())
    }

    fn row(&mut self, before: Option<&BinlogRow>, after: Option<&BinlogRow>) -> ControlFlow<()> {
        self.rows.push((id(before), id(after)));
        match self.stop_after_rows {
            Some(n) if self.rows.len() >= n => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    }
}

fn server_with_changes() -> anyhow::Result<(MariaDb, Source)> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    let first = db.binlog_files()?[0]
        .file_name()
        .and_then(|n| n.to_str())
        .expect("a binlog file name")
        .to_string();
    db.exec(
        "CREATE DATABASE shop; \
         CREATE TABLE shop.item (id INT PRIMARY KEY, name VARCHAR(20), price DECIMAL(8,2)); \
         INSERT INTO shop.item VALUES (1, 'tea', 2.50), (2, NULL, NULL), (3, 'jam', 4.00); \
         UPDATE shop.item SET id = 20 WHERE id = 2; \
         DELETE FROM shop.item WHERE id = 3",
    )?;
    let source = Source::local(db.port(), "root", &first);
    Ok((db, source))
}

#[test]
fn reads_to_the_end_decoding_every_row() -> anyhow::Result<()> {
    let (_db, source) = server_with_changes()?;
    let mut record = Record::default();
    let counts = read_blocking(&source, Until::End, &mut record)?;

    let item = |kind| ("shop".to_string(), "item".to_string(), kind);
    assert_eq!(
        record.events,
        vec![
            item(RowsKind::Insert),
            item(RowsKind::Update),
            item(RowsKind::Delete)
        ]
    );
    assert_eq!(
        record.rows,
        vec![
            (None, Some(1)),
            (None, Some(2)),
            (None, Some(3)),
            (Some(2), Some(20)),
            (Some(3), None),
        ]
    );
    assert_eq!(counts.rows_events, 3);
    assert_eq!(counts.rows, 5);
    // Three columns in each of the 6 images (3 inserted, 2 of the update, 1 deleted).
    assert_eq!(counts.cells, 18);
    // Row 2's name and price, in its insert and in the update's two images.
    assert_eq!(counts.nulls, 6);
    Ok(())
}

#[test]
fn a_visitor_ends_the_read() -> anyhow::Result<()> {
    let (_db, source) = server_with_changes()?;
    let mut record = Record {
        stop_after_rows: Some(2),
        ..Record::default()
    };
    // Following (not stopping at the end): only the visitor can end it.
    let counts = read_blocking(&source, Until::VisitorBreaks, &mut record)?;
    assert_eq!(record.rows, vec![(None, Some(1)), (None, Some(2))]);
    assert_eq!(counts.rows, 2);
    Ok(())
}
