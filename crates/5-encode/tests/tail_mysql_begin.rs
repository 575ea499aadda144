//! `sluice tail` prints a MySQL transaction's begin at its GTID event, the
//! event a replay of the transaction starts from (MySQL writes the GTID
//! event before the BEGIN query), with the GTID event's timestamp.

use std::ops::ControlFlow;
use std::path::PathBuf;

use sluice_binlog::events::EventData;
use sluice_encode::tail::TailEncoder;
use sluice_events::{ChangeBuilder, Encoder, Position};

fn corpus_file(name: &str) -> PathBuf {
    sluice_testkit::corpus::corpus_dir().join(name)
}

#[test]
fn a_mysql_transaction_begins_at_its_gtid_event() {
    let path = corpus_file("rust_mysql_common/binlog-invisible-columns.000001");
    let bytes = std::fs::read(&path).expect("the corpus file (testdata/binlogs)");
    let mut builder = ChangeBuilder::new();
    let mut encoder = TailEncoder::new();
    let mut out = Vec::new();
    let mut gtid_events = Vec::new();
    sluice_binlog::walk_file("binlog.000001", &bytes, |at, raw, data| {
        if matches!(data, EventData::Gtid(_)) {
            gtid_events.push(at.pos);
        }
        let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
        if let Some(change) = builder.on_event(position, data, None) {
            encoder.encode(&change, &mut out).expect("encodes");
        }
        ControlFlow::Continue(())
    })
    .expect("the file decodes");
    let text = String::from_utf8(out).expect("UTF-8 lines");
    let begins: Vec<u64> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|v| v["type"] == "begin")
        .map(|v| v["position"]["pos"].as_u64().expect("a begin position"))
        .collect();
    assert!(!begins.is_empty(), "no transaction with rows in {text}");
    for b in &begins {
        assert!(
            gtid_events.contains(b),
            "begin at {b} is not a GTID event ({gtid_events:?})"
        );
    }
}
