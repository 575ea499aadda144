//! `sluice tail` lines of a private MariaDB writing MINIMAL and NOBLOB row
//! images: a column the image leaves out holds `null` in its slot and is
//! listed in `absent_before` / `absent_after`, so a NULL the server logged
//! (not listed) is told from a column it did not log.

use std::ops::ControlFlow;

use serde_json::{json, Value};
use sluice_encode::tail::TailEncoder;
use sluice_events::{ChangeBuilder, Encoder, Position};
use sluice_testkit::{BinlogRowImage, MariaDb, MariaDbConfig};

const CHANGES: &str = "CREATE DATABASE w; \
    CREATE TABLE w.t (id INT PRIMARY KEY, a VARCHAR(10), b INT, note TEXT); \
    INSERT INTO w.t VALUES (1, 'x', NULL, 'n'); \
    UPDATE w.t SET b = 5, a = NULL WHERE id = 1; \
    DELETE FROM w.t WHERE id = 1";

/// The row lines of `db`'s binlog, each reduced to its op and images.
fn row_lines(image: BinlogRowImage) -> Vec<Value> {
    let db = MariaDb::start(MariaDbConfig::default().binlog_row_image(image))
        .expect("a private MariaDB");
    db.exec(CHANGES).expect("the changes");
    db.flush_binlogs().expect("flush");
    let mut builder = ChangeBuilder::new();
    let mut encoder = TailEncoder::new();
    let mut out = Vec::new();
    for path in db.binlog_files().expect("binlog files") {
        let bytes = std::fs::read(&path).expect("a readable binlog");
        let walked = sluice_binlog::walk_file("binlog", &bytes, |at, raw, data| {
            let position = Position::at("binlog", at.pos, at.next_pos, &raw.header);
            if let Some(change) = builder.on_event(position, data, None) {
                encoder.encode(&change, &mut out).expect("encodes");
            }
            ControlFlow::Continue(())
        });
        assert!(walked.is_ok(), "{walked:?}");
    }
    String::from_utf8(out)
        .expect("UTF-8 lines")
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).expect("a JSON line"))
        .filter(|v| v["type"] == "row")
        .map(|v| {
            let mut kept = serde_json::Map::new();
            for key in ["op", "before", "after", "absent_before", "absent_after"] {
                if let Some(x) = v.get(key) {
                    kept.insert(key.to_string(), x.clone());
                }
            }
            Value::Object(kept)
        })
        .collect()
}

#[test]
fn minimal_lines_list_the_columns_left_out() {
    assert_eq!(
        row_lines(BinlogRowImage::Minimal),
        [
            json!({"op": "insert", "before": null, "after": ["1", "x", null, "n"]}),
            json!({"op": "update", "before": ["1", null, null, null], "absent_before": [1, 2, 3],
                   "after": [null, null, "5", null], "absent_after": [0, 3]}),
            json!({"op": "delete", "before": ["1", null, null, null], "absent_before": [1, 2, 3],
                   "after": null}),
        ]
    );
}

#[test]
fn noblob_lines_list_the_text_left_out() {
    assert_eq!(
        row_lines(BinlogRowImage::NoBlob),
        [
            json!({"op": "insert", "before": null, "after": ["1", "x", null, "n"]}),
            json!({"op": "update", "before": ["1", "x", null, null], "absent_before": [3],
                   "after": ["1", null, "5", null], "absent_after": [3]}),
            json!({"op": "delete", "before": ["1", null, "5", null], "absent_before": [3],
                   "after": null}),
        ]
    );
}
