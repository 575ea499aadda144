//! The Debezium encoder over every binlog of the shared corpus (MySQL 5.0
//! to 9.x and MariaDB files written by real servers), with the table maps'
//! own column descriptions: every row change gives well-formed records with
//! Debezium's envelope and source order, and MySQL transactions that open
//! with a BEGIN query carry its thread id.

use std::ops::ControlFlow;

use serde_json::Value as Json;
use sluice_binlog::{walk_file, EventData};
use sluice_encode::debezium::{DebeziumEncoder, DebeziumError, DebeziumOptions, DebeziumRecord};
use sluice_events::{ChangeBuilder, Encoder, Position};

/// Every binlog file of the corpus (gzip ones unpacked), by relative name.
fn binlogs() -> Vec<(String, Vec<u8>)> {
    sluice_testkit::corpus::corpus_binlogs()
}

/// A record and the thread id of the BEGIN query its transaction opened
/// with, if any.
struct Seen {
    file: String,
    record: DebeziumRecord,
    begin_thread: Option<u32>,
}

/// The records of every corpus file, and how many rows events were refused
/// for a partial JSON update without its before image.
fn encode_corpus(options: &DebeziumOptions) -> (Vec<Seen>, usize) {
    let mut seen = Vec::new();
    let mut partial_json_refused = 0;
    for (name, bytes) in binlogs() {
        let mut encoder = DebeziumEncoder::new(options.clone()).with_clock(|| 1_000_000_000);
        let mut builder = ChangeBuilder::new();
        let mut begin_thread = None;
        // Broken files of the corpus stop with a decode error: what came
        // before it is still checked.
        let _ = walk_file(&name, &bytes, |at, raw, data| {
            if let EventData::Query(q) = data {
                if q.query_text().trim().eq_ignore_ascii_case("BEGIN") {
                    begin_thread = Some(q.thread_id);
                }
            }
            if let EventData::MariadbGtid(_) = data {
                begin_thread = None;
            }
            let position = Position {
                file: &name,
                offset: at.pos,
                next_offset: at.next_pos,
                server_id: raw.header.server_id,
                timestamp: raw.header.timestamp,
            };
            let Some(event) = builder.on_event(position, data, None) else {
                return ControlFlow::Continue(());
            };
            let mut records = Vec::new();
            match encoder.encode(&event, &mut records) {
                Ok(()) => {}
                // A PARTIAL_UPDATE_ROWS diff without the before image
                // (binlog_row_image=MINIMAL) cannot give the whole document.
                Err(DebeziumError::Value { detail, .. }) if detail.contains("partial JSON") => {
                    partial_json_refused += 1;
                }
                Err(e) => panic!("{name}:{}: {e}", at.pos),
            }
            seen.extend(records.into_iter().map(|record| Seen {
                file: name.clone(),
                record,
                begin_thread,
            }));
            ControlFlow::Continue(())
        });
    }
    (seen, partial_json_refused)
}

fn keys(v: &Json) -> Vec<String> {
    v.as_object()
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default()
}

#[test]
fn every_corpus_row_change_gives_well_formed_records() {
    let mut options = DebeziumOptions::new("corpus");
    options.set("converter.schemas.enable", "false").unwrap();
    options.set("skipped.operations", "none").unwrap();
    let (seen, refused) = encode_corpus(&options);
    // json.binlog.000001 has one such event.
    assert_eq!(refused, 1);
    let data: Vec<&Seen> = seen.iter().filter(|s| s.record.value.is_some()).collect();
    assert!(data.len() > 100, "{} data records", data.len());
    let mut with_thread = 0;
    let mut mysql_gtids = 0;
    for s in &data {
        let text = s.record.value.as_deref().unwrap_or_default();
        let v: Json =
            serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: {e}: {text}", s.file));
        assert_eq!(
            keys(&v),
            [
                "before",
                "after",
                "source",
                "transaction",
                "op",
                "ts_ms",
                "ts_us",
                "ts_ns"
            ],
            "{}",
            s.file
        );
        let source = &v["source"];
        assert_eq!(
            keys(source),
            [
                "version",
                "connector",
                "name",
                "ts_ms",
                "snapshot",
                "db",
                "sequence",
                "ts_us",
                "ts_ns",
                "table",
                "server_id",
                "gtid",
                "file",
                "pos",
                "row",
                "thread",
                "query"
            ]
        );
        assert_eq!(source["file"], s.file.as_str());
        assert_eq!(
            s.record.destination,
            format!(
                "corpus.{}.{}",
                source["db"].as_str().unwrap_or_default(),
                source["table"].as_str().unwrap_or_default()
            )
        );
        match s.begin_thread {
            Some(t) => {
                assert_eq!(source["thread"], t, "{}: {text}", s.file);
                with_thread += 1;
            }
            None => assert_eq!(source["thread"], Json::Null, "{}", s.file),
        }
        if let Some(g) = source["gtid"].as_str() {
            // MySQL `uuid:n` or MariaDB `domain-server-seq`.
            if g.contains(':') {
                mysql_gtids += 1;
            }
        }
        if let Some(key) = &s.record.key {
            let k: Json = serde_json::from_str(key).unwrap_or_else(|e| panic!("{e}: {key}"));
            assert!(k.is_object());
        }
        let op = v["op"].as_str().unwrap_or_default();
        match op {
            "c" => assert!(v["before"].is_null() && v["after"].is_object()),
            "u" => assert!(v["before"].is_object() && v["after"].is_object()),
            "d" => assert!(v["before"].is_object() && v["after"].is_null()),
            "t" => assert!(v["before"].is_null() && v["after"].is_null()),
            _ => panic!("op {op:?} in {}", s.file),
        }
    }
    assert!(
        with_thread > 10,
        "{with_thread} records inside BEGIN queries"
    );
    assert!(mysql_gtids > 0, "no MySQL GTID in the corpus records");
}

#[test]
fn corpus_records_wrapped_with_schemas_are_well_formed() {
    let (seen, _) = encode_corpus(&DebeziumOptions::new("corpus"));
    let mut checked = 0;
    for s in &seen {
        for text in [&s.record.key, &s.record.value].into_iter().flatten() {
            let v: Json =
                serde_json::from_str(text).unwrap_or_else(|e| panic!("{}: {e}: {text}", s.file));
            assert_eq!(keys(&v), ["schema", "payload"], "{}", s.file);
            // Every payload field has its schema, in the same order.
            let fields: Vec<String> = v["schema"]["fields"]
                .as_array()
                .map(|f| {
                    f.iter()
                        .map(|f| f["field"].as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default();
            assert_eq!(fields, keys(&v["payload"]), "{}", s.file);
            let after = &v["payload"]["after"];
            if after.is_object() {
                let row_fields: Vec<String> = v["schema"]["fields"][1]["fields"]
                    .as_array()
                    .map(|f| {
                        f.iter()
                            .map(|f| f["field"].as_str().unwrap_or_default().to_string())
                            .collect()
                    })
                    .unwrap_or_default();
                assert_eq!(row_fields, keys(after), "{}", s.file);
            }
            checked += 1;
        }
    }
    assert!(checked > 100, "{checked} documents");
}
