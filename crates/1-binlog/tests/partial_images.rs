//! Rows events whose images leave columns out (`binlog_row_image` MINIMAL
//! or NOBLOB, and NDB's partial rows): each image holds exactly the columns
//! its bitmap names, with their values, and the before and after images of
//! one row follow their own bitmaps. From the corpus (v1 events of NDB 5.1,
//! v2 and PARTIAL_UPDATE_ROWS events of MySQL 8) and from a private MariaDB
//! (its v1 events) under MINIMAL and NOBLOB.

#[allow(dead_code)]
mod common;

use std::ops::ControlFlow;

use common::{load, walk_ours, OurCell, OurWalk};
use sluice_binlog::{Cell, EventData, EventType, RowsKind};
use sluice_testkit::{BinlogRowImage, MariaDb, MariaDbConfig};

/// An image as `[4, -, 40]`: `-` for a column it leaves out, `NULL`.
fn show(cells: &[OurCell]) -> String {
    let shown: Vec<String> = cells
        .iter()
        .map(|c| match c {
            OurCell::Absent => "-".to_string(),
            OurCell::Null => "NULL".to_string(),
            OurCell::Text(t) => t.clone(),
            OurCell::Error(e) => panic!("a value that does not decode: {e}"),
        })
        .collect();
    format!("[{}]", shown.join(", "))
}

/// Every row of the rows events at `pos` in `walk`: the event type's name
/// and each row as `before -> after` (`none` for a missing image).
fn rows_at(walk: &OurWalk, pos: u64) -> (String, Vec<String>) {
    let (event, rows) = walk
        .rows_events()
        .find(|(e, _)| e.pos == pos)
        .unwrap_or_else(|| panic!("no rows event at {pos}"));
    let image = |i: &Option<Vec<OurCell>>| i.as_deref().map_or("none".to_string(), show);
    (
        EventType(event.type_code).name().to_string(),
        rows.rows
            .iter()
            .map(|r| format!("{} -> {}", image(&r.before), image(&r.after)))
            .collect(),
    )
}

#[test]
fn ndb_v1_rows_hold_the_columns_of_their_bitmaps() {
    let file = "rust_mysql_common/write-partial-row.binlog";
    let walk = walk_ours(file, &load(file));
    assert!(walk.error.is_none(), "{:?}", walk.error);
    // Whole rows first, then a WRITE and a DELETE of some columns only.
    assert_eq!(
        rows_at(&walk, 334),
        (
            "WRITE_ROWS_EVENT_V1".into(),
            vec![
                "none -> [3, 3, 3]".into(),
                "none -> [1, 1, 1]".into(),
                "none -> [2, 2, 2]".into(),
                "none -> [4, 4, 4]".into(),
            ]
        )
    );
    assert_eq!(
        rows_at(&walk, 415),
        (
            "WRITE_ROWS_EVENT_V1".into(),
            vec!["none -> [4, -, 40]".into()]
        )
    );
    assert_eq!(
        rows_at(&walk, 453),
        (
            "DELETE_ROWS_EVENT_V1".into(),
            vec!["[2, -, -] -> none".into()]
        )
    );

    let file = "rust_mysql_common/update-partial-row.binlog";
    let walk = walk_ours(file, &load(file));
    assert!(walk.error.is_none(), "{:?}", walk.error);
    assert_eq!(
        rows_at(&walk, 415),
        (
            "UPDATE_ROWS_EVENT_V1".into(),
            vec!["[4, -, 4] -> [4, -, 40]".into()]
        )
    );
    assert_eq!(
        rows_at(&walk, 463),
        (
            "DELETE_ROWS_EVENT_V1".into(),
            vec!["[2, -, -] -> none".into()]
        )
    );
}

#[test]
fn mysql8_minimal_images_hold_what_the_statement_wrote() {
    // An INSERT under MINIMAL logs the columns it set (v2 event).
    let file = "rust_mysql_common/minimal_row_metadata.000001";
    let walk = walk_ours(file, &load(file));
    assert!(walk.error.is_none(), "{:?}", walk.error);
    assert_eq!(
        rows_at(&walk, 374),
        (
            "WRITE_ROWS_EVENT".into(),
            vec!["none -> [1, -, a, -, 3230202323]".into()]
        )
    );

    // A JSON partial update: the key alone before, the changed columns
    // after (the JSON one as its diff, its document not being there).
    let file = "rust_mysql_common/json.binlog.000001";
    let walk = walk_ours(file, &load(file));
    let (kind, rows) = rows_at(&walk, 3750);
    assert_eq!(kind, "PARTIAL_UPDATE_ROWS_EVENT");
    assert_eq!(
        rows,
        [
            "[1, -, -, -] -> [-, JSON_REPLACE(@2, '$.age', 26), Joe, 26]",
            "[2, -, -, -] -> [-, JSON_REPLACE(@2, '$.age', 34), Sue, 34]",
            "[3, -, -, -] -> [-, JSON_REPLACE(@2, '$.age', 42), Pete, 42]",
            "[4, -, -, -] -> [-, JSON_REPLACE(@2, '$.age', 26), Joe, 26]",
            "[5, -, -, -] -> [-, JSON_REPLACE(@2, '$.age', 34), Sue, 34]",
            "[6, -, -, -] -> [-, JSON_REPLACE(@2, '$.age', 42), Pete, 42]",
        ]
    );
}

/// The rows of table `w.t` in the binlog of `db`: the event's kind, its
/// type name, and each row as `before -> after`, with the images' own
/// answers to `is_present` and `is_full` checked against their cells.
fn mariadb_rows(db: &MariaDb) -> Vec<String> {
    db.flush_binlogs().expect("flush");
    let mut out = Vec::new();
    for path in db.binlog_files().expect("binlog files") {
        let bytes = std::fs::read(&path).expect("a readable binlog");
        let name = path.display().to_string();
        let walked = sluice_binlog::walk_file(&name, &bytes, |_, raw, data| {
            let EventData::Rows(rows) = data else {
                return ControlFlow::Continue(());
            };
            if rows.table.table != "t" {
                return ControlFlow::Continue(());
            }
            for row in rows.rows() {
                let row = row.expect("a row");
                let image = |img: &Option<sluice_binlog::RowImage<'_>>| {
                    let Some(img) = img else {
                        return "none".to_string();
                    };
                    let table = img.table();
                    let mut shown = Vec::new();
                    for (i, cell) in img.cells().enumerate() {
                        let cell = cell.expect("a cell");
                        assert_eq!(img.is_present(i), !matches!(cell, Cell::Absent));
                        shown.push(match cell {
                            Cell::Absent => "-".to_string(),
                            Cell::Present(v) => v
                                .to_text(&table.columns[i])
                                .expect("a value")
                                .unwrap_or_else(|| "NULL".to_string()),
                        });
                    }
                    assert_eq!(img.is_full(), !shown.iter().any(|s| s == "-"));
                    format!("[{}]", shown.join(", "))
                };
                let kind = match rows.kind {
                    RowsKind::Write => "insert",
                    RowsKind::Update | RowsKind::PartialUpdate => "update",
                    RowsKind::Delete => "delete",
                };
                out.push(format!(
                    "{kind} {}: {} -> {}",
                    raw.header.event_type.name(),
                    image(&row.before),
                    image(&row.after)
                ));
            }
            ControlFlow::Continue(())
        });
        assert!(walked.is_ok(), "{name}: {walked:?}");
    }
    out
}

const CHANGES: &str = "CREATE DATABASE w; \
    CREATE TABLE w.t (id INT PRIMARY KEY, a VARCHAR(10), b INT, note TEXT); \
    INSERT INTO w.t (id, a) VALUES (1, 'x'); \
    UPDATE w.t SET b = 5 WHERE id = 1; \
    UPDATE w.t SET note = 'n', a = NULL WHERE id = 1; \
    DELETE FROM w.t WHERE id = 1";

#[test]
fn mariadb_minimal_images_hold_the_key_before_and_the_changes_after() {
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal))
        .expect("a private MariaDB");
    db.exec(CHANGES).expect("the changes");
    assert_eq!(
        mariadb_rows(&db),
        [
            // The columns the INSERT named, not those it left to their DEFAULT.
            "insert WRITE_ROWS_EVENT_V1: none -> [1, x, -, -]",
            "update UPDATE_ROWS_EVENT_V1: [1, -, -, -] -> [-, -, 5, -]",
            "update UPDATE_ROWS_EVENT_V1: [1, -, -, -] -> [-, NULL, -, n]",
            "delete DELETE_ROWS_EVENT_V1: [1, -, -, -] -> none",
        ]
    );
}

#[test]
fn mariadb_noblob_images_leave_unchanged_text_out() {
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::NoBlob))
        .expect("a private MariaDB");
    db.exec(CHANGES).expect("the changes");
    assert_eq!(
        mariadb_rows(&db),
        [
            // Every column but a TEXT one the INSERT left to its DEFAULT.
            "insert WRITE_ROWS_EVENT_V1: none -> [1, x, NULL, -]",
            "update UPDATE_ROWS_EVENT_V1: [1, x, NULL, -] -> [1, x, 5, -]",
            "update UPDATE_ROWS_EVENT_V1: [1, x, 5, -] -> [1, NULL, 5, n]",
            "delete DELETE_ROWS_EVENT_V1: [1, NULL, 5, -] -> none",
        ]
    );
}
