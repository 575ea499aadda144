//! The Debezium encoder on change events built from a real MariaDB's
//! binlog: every column type, inserts, updates, deletes, a primary-key
//! change, a table without key, TRUNCATE, and each option that changes the
//! bytes. Expected values are those of the Debezium spec (§1.8, §1.9).

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::OnceLock;

use serde_json::Value as Json;
use sluice_binlog::{walk_file, EventData};
use sluice_encode::debezium::{
    DebeziumEncoder, DebeziumError, DebeziumOptions, DebeziumRecord, DEFAULT_DEBEZIUM_VERSION,
};
use sluice_events::{ChangeBuilder, ColumnInfo, Encoder, Position};
use sluice_testkit::{BinlogRowImage, BinlogRowMetadata, MariaDb, MariaDbConfig};

mod debezium_sql;
use debezium_sql::{CHANGES, INSERT_TYPES, SETUP, TEMPORAL};

const SERVER_ID: u32 = 223_344;
/// The processing time every record gets: 2024-05-01T12:30:45.211432871Z.
const NOW_NS: i64 = 1_714_566_645_211_432_871;

/// The binlog files a MariaDB wrote for the statements below, and the
/// column descriptions of its tables.
struct Fixture {
    files: Vec<(String, Vec<u8>)>,
    columns: HashMap<(String, String), Vec<ColumnInfo>>,
}

/// The binlog written with `binlog_row_metadata=FULL`.
fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| build_fixture(BinlogRowMetadata::Full).expect("MariaDB fixture"))
}

/// The binlog written with `binlog_row_metadata=MINIMAL`: no names,
/// signedness, charsets or ENUM/SET labels in the table maps.
fn minimal_fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| build_fixture(BinlogRowMetadata::Minimal).expect("MariaDB fixture"))
}

/// The binlog written with `binlog_row_image=MINIMAL`: before images hold
/// the key only, after images the changed columns only.
fn minimal_image_fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        build_fixture_with(BinlogRowMetadata::Full, BinlogRowImage::Minimal)
            .expect("MariaDB fixture")
    })
}

fn build_fixture(metadata: BinlogRowMetadata) -> anyhow::Result<Fixture> {
    build_fixture_with(metadata, BinlogRowImage::Full)
}

fn build_fixture_with(
    metadata: BinlogRowMetadata,
    image: BinlogRowImage,
) -> anyhow::Result<Fixture> {
    let cfg = MariaDbConfig::default()
        .binlog_row_metadata(metadata)
        .binlog_row_image(image)
        .server_id(SERVER_ID)
        .arg("--default-time-zone=+00:00");
    let db = MariaDb::start(cfg)?;
    db.exec(SETUP)?;
    db.exec(TEMPORAL)?;
    db.exec(&format!(
        "SET SESSION sql_mode=''; USE inventory; {INSERT_TYPES}"
    ))?;
    db.exec(CHANGES)?;
    collect(&db)
}

/// A MariaDB (FULL row metadata) that ran `sql`, as a fixture.
fn fixture_from_sql(sql: &str) -> anyhow::Result<Fixture> {
    let cfg = MariaDbConfig::default()
        .binlog_row_metadata(BinlogRowMetadata::Full)
        .server_id(SERVER_ID)
        .arg("--default-time-zone=+00:00");
    let db = MariaDb::start(cfg)?;
    db.exec(sql)?;
    collect(&db)
}

/// The binlog files of `db` and the columns of its `inventory` tables.
fn collect(db: &MariaDb) -> anyhow::Result<Fixture> {
    db.flush_binlogs()?;
    let mut columns: HashMap<(String, String), Vec<ColumnInfo>> = HashMap::new();
    for row in db.query(
        "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY, COLUMN_DEFAULT \
         FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = 'inventory' ORDER BY TABLE_NAME, ORDINAL_POSITION",
    )? {
        let text = |i: usize| row[i].clone().unwrap_or_default();
        columns
            .entry(("inventory".to_string(), text(0)))
            .or_default()
            .push(ColumnInfo {
                name: text(1),
                mysql_type: text(2),
                is_key: text(3) == "PRI",
                default: row[4].clone(),
            });
    }
    let mut files = Vec::new();
    for path in db.binlog_files()? {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        files.push((name, std::fs::read(&path)?));
    }
    Ok(Fixture { files, columns })
}

/// A record of the encoded stream and where its rows event started.
struct Encoded {
    records: Vec<DebeziumRecord>,
    /// Start offsets of the rows events of `inventory`, per table.
    rows_events: HashMap<String, Vec<u64>>,
}

fn encode(options: DebeziumOptions) -> Result<Encoded, DebeziumError> {
    encode_from(fixture(), options)
}

fn encode_from(f: &Fixture, options: DebeziumOptions) -> Result<Encoded, DebeziumError> {
    let mut encoder = DebeziumEncoder::new(options).with_clock(|| NOW_NS);
    let mut builder = ChangeBuilder::new();
    let mut records = Vec::new();
    let mut rows_events: HashMap<String, Vec<u64>> = HashMap::new();
    let mut failure = None;
    for (name, bytes) in &f.files {
        walk_file(name, bytes, |at, raw, data| {
            let columns = match data {
                EventData::Rows(r) => {
                    if r.table.schema == "inventory" {
                        rows_events
                            .entry(r.table.table.clone())
                            .or_default()
                            .push(at.pos);
                    }
                    f.columns
                        .get(&(r.table.schema.clone(), r.table.table.clone()))
                        .map(Vec::as_slice)
                }
                _ => None,
            };
            let position = Position {
                file: name,
                offset: at.pos,
                next_offset: at.next_pos,
                server_id: raw.header.server_id,
                timestamp: raw.header.timestamp,
            };
            if let Some(event) = builder.on_event(position, data, columns) {
                if let Err(e) = encoder.encode(&event, &mut records) {
                    failure = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })
        .expect("binlog file decodes");
        if let Some(e) = failure {
            return Err(e);
        }
    }
    Ok(Encoded {
        records,
        rows_events,
    })
}

fn plain() -> DebeziumOptions {
    let mut o = DebeziumOptions::new("dbserver1");
    o.set("converter.schemas.enable", "false").unwrap();
    o
}

fn json(text: &str) -> Json {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("{e}: {text}"))
}

/// The records of one topic, as (key, value) JSON (tombstone: value Null).
fn topic(e: &Encoded, destination: &str) -> Vec<(Json, Json)> {
    e.records
        .iter()
        .filter(|r| r.destination == destination)
        .map(|r| {
            (
                r.key.as_deref().map(json).unwrap_or(Json::Null),
                r.value.as_deref().map(json).unwrap_or(Json::Null),
            )
        })
        .collect()
}

fn keys(v: &Json) -> Vec<&str> {
    v.as_object()
        .unwrap_or_else(|| panic!("not an object: {v}"))
        .keys()
        .map(String::as_str)
        .collect()
}

/// Asserts the `"name":` members occur in `text` in this order.
fn assert_text_order(text: &str, names: &[&str]) {
    let mut at = 0;
    for n in names {
        let needle = format!("\"{n}\":");
        match text[at..].find(&needle) {
            Some(i) => at += i + needle.len(),
            None => panic!("{needle} not found after byte {at} in {text}"),
        }
    }
}

const ENVELOPE: &[&str] = &[
    "before",
    "after",
    "source",
    "transaction",
    "op",
    "ts_ms",
    "ts_us",
    "ts_ns",
];
const SOURCE: &[&str] = &[
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
    "query",
];

#[test]
fn insert_update_delete_as_debezium_writes_them() {
    let e = encode(plain()).unwrap();
    let recs = topic(&e, "dbserver1.inventory.customers");
    // c, u, d + tombstone (1004); c, then PK change d + tombstone + c (7→8);
    // two inserts in the explicit transaction.
    let ops: Vec<Json> = recs.iter().map(|(_, v)| v["op"].clone()).collect();
    let expected_ops = ["c", "u", "d", "", "c", "d", "", "c", "c", "c"];
    assert_eq!(ops.len(), expected_ops.len(), "{ops:?}");
    for (got, want) in ops.iter().zip(expected_ops) {
        if want.is_empty() {
            assert_eq!(got, &Json::Null, "a tombstone");
        } else {
            assert_eq!(got, want);
        }
    }

    let (key, insert) = &recs[0];
    assert_eq!(key, &json(r#"{"id":1004}"#));
    assert_eq!(insert["before"], Json::Null);
    assert_eq!(
        insert["after"],
        json(r#"{"id":1004,"first_name":"Anne","price":"BNI=","updated":1529476623000}"#)
    );
    assert_eq!(insert["transaction"], Json::Null);
    assert_eq!(insert["ts_ms"], 1_714_566_645_211i64);
    assert_eq!(insert["ts_us"], 1_714_566_645_211_432i64);
    assert_eq!(insert["ts_ns"], NOW_NS);

    let source = &insert["source"];
    assert_eq!(source["version"], DEFAULT_DEBEZIUM_VERSION);
    assert_eq!(source["connector"], "mysql");
    assert_eq!(source["name"], "dbserver1");
    assert_eq!(source["snapshot"], "false");
    assert_eq!(source["db"], "inventory");
    assert_eq!(source["sequence"], Json::Null);
    assert_eq!(source["table"], "customers");
    assert_eq!(source["server_id"], SERVER_ID);
    assert_eq!(source["row"], 0);
    assert_eq!(source["query"], Json::Null);
    // MariaDB opens transactions with its GTID event, not a BEGIN query:
    // no thread id to give.
    assert_eq!(source["thread"], Json::Null);
    let gtid = source["gtid"].as_str().expect("MariaDB always has a GTID");
    assert!(
        gtid.starts_with(&format!("0-{SERVER_ID}-")),
        "MariaDB GTID {gtid}"
    );
    let ts_ms = source["ts_ms"].as_i64().unwrap();
    assert_eq!(ts_ms % 1000, 0, "header time in whole seconds");
    assert_eq!(source["ts_us"].as_i64().unwrap(), ts_ms * 1000);
    assert_eq!(source["ts_ns"].as_i64().unwrap(), ts_ms * 1_000_000);
    assert!(source["file"].as_str().unwrap().contains("bin"));
    // `pos` is the start of the rows event.
    let pos = source["pos"].as_u64().unwrap();
    assert!(e.rows_events["customers"].contains(&pos), "pos {pos}");

    let (key, update) = &recs[1];
    assert_eq!(key, &json(r#"{"id":1004}"#));
    assert_eq!(update["before"]["first_name"], "Anne");
    assert_eq!(update["after"]["first_name"], "Anne Marie");
    assert_eq!(update["after"]["price"], "BNI=");
    assert_ne!(update["source"]["pos"], pos);

    let (key, delete) = &recs[2];
    assert_eq!(key, &json(r#"{"id":1004}"#));
    assert_eq!(delete["before"]["first_name"], "Anne Marie");
    assert_eq!(delete["after"], Json::Null);
    let (key, tombstone) = &recs[3];
    assert_eq!(key, &json(r#"{"id":1004}"#));
    assert_eq!(tombstone, &Json::Null);

    // Field order in the text, as JsonConverter walks the schema.
    let raw = e
        .records
        .iter()
        .find(|r| r.destination == "dbserver1.inventory.customers")
        .and_then(|r| r.value.clone())
        .unwrap();
    assert_eq!(keys(&json(&raw)), ENVELOPE);
    assert_eq!(keys(&json(&raw)["source"]), SOURCE);
    assert_text_order(&raw, &["before", "after", "source"]);
    assert_text_order(&raw, SOURCE);
    assert_text_order(
        &raw,
        &["query", "transaction", "op", "ts_ms", "ts_us", "ts_ns"],
    );
    assert!(
        raw.starts_with("{\"before\":null,\"after\":{\"id\":1004,"),
        "{raw}"
    );

    // NULLs are null.
    let (_, last) = recs.last().unwrap();
    assert_eq!(
        last["after"],
        json(r#"{"id":21,"first_name":null,"price":null,"updated":null}"#)
    );
}

#[test]
fn primary_key_change_is_delete_tombstone_create() {
    let e = encode(plain()).unwrap();
    let recs = topic(&e, "dbserver1.inventory.customers");
    let (k_del, del) = &recs[5];
    let (k_tomb, tomb) = &recs[6];
    let (k_new, create) = &recs[7];
    assert_eq!(k_del, &json(r#"{"id":7}"#));
    assert_eq!(del["op"], "d");
    assert_eq!(del["before"]["id"], 7);
    assert_eq!(del["before"]["price"], "+y4=");
    assert_eq!(del["after"], Json::Null);
    assert_eq!(k_tomb, &json(r#"{"id":7}"#));
    assert_eq!(tomb, &Json::Null);
    assert_eq!(k_new, &json(r#"{"id":8}"#));
    assert_eq!(create["op"], "c");
    assert_eq!(create["before"], Json::Null);
    assert_eq!(create["after"]["id"], 8);
    assert_eq!(del["source"], create["source"], "one row of one event");
}

#[test]
fn table_without_primary_key_has_null_key() {
    let e = encode(plain()).unwrap();
    let recs: Vec<&DebeziumRecord> = e
        .records
        .iter()
        .filter(|r| r.destination == "dbserver1.inventory.nokey")
        .collect();
    assert_eq!(recs.len(), 2, "TRUNCATE is skipped by default");
    for r in &recs {
        assert_eq!(r.key, None);
    }
    let v = json(recs[0].value.as_deref().unwrap());
    assert_eq!(v["after"], json(r#"{"a":1,"b":"one"}"#));
}

#[test]
fn values_of_every_column_type() {
    check_values_of_every_column_type(fixture(), true);
}

/// Without FULL row metadata the declared types (`ColumnInfo::mysql_type`)
/// give signedness, ENUM/SET labels, text versus binary and POINT.
#[test]
fn values_of_every_column_type_without_full_metadata() {
    check_values_of_every_column_type(minimal_fixture(), false);
}

fn check_values_of_every_column_type(f: &Fixture, full_metadata: bool) {
    let e = encode_from(f, plain()).unwrap();
    let recs = topic(&e, "dbserver1.inventory.types");
    assert_eq!(recs.len(), 1);
    let (key, v) = &recs[0];
    assert_eq!(key, &json(r#"{"id":1}"#));
    let a = &v["after"];
    let expect: &[(&str, Json)] = &[
        ("ti", json("-5")),
        ("tiu", json("200")),
        ("si", json("-300")),
        ("siu", json("60000")),
        ("mi", json("-8000000")),
        ("miu", json("16000000")),
        ("i", json("-2000000000")),
        ("iu", json("4000000000")),
        ("bi", json("-9000000000000000000")),
        // BIGINT UNSIGNED max in long mode: two's complement.
        ("biu", json("-1")),
        ("f", json("1.5")),
        ("d", json("2.25")),
        ("dec_pos", json(r#""BNI=""#)),
        ("dec_neg", json(r#""+y4=""#)),
        ("dec_zero", json(r#""AA==""#)),
        // 12345678901234567890.123456789012345678901234567890 unscaled.
        ("dec_big", json(r#""CHJ/Y2mq+DyhUCZ0evjH8ZbOPwrS""#)),
        ("y", json("2024")),
        ("dt", json("19844")),
        ("tm", json("45045500000")),
        ("tm0", json("-3600000000")),
        ("dtm", json("1529476623000")),
        ("dtm3", json("1529476623123")),
        ("dtm6", json("946684800000001")),
        ("ts", json(r#""2018-06-20T13:37:03Z""#)),
        ("ts3", json(r#""2023-01-11T00:34:10.000Z""#)),
        ("ts6", json(r#""2023-01-11T00:34:10.123000Z""#)),
        // Zero dates: null when nullable, epoch when not.
        ("dz", Json::Null),
        ("dznn", json("0")),
        ("dtmz", Json::Null),
        ("c", json(r#""chars""#)),
        ("vc", json(r#""héllo \"q\"""#)),
        ("vc_latin1", json(r#""café""#)),
        ("txt", json(r#""line\nnext""#)),
        // BINARY(4) padded back to 4 bytes.
        ("bin4", json(r#""AQIAAA==""#)),
        ("vb", json(r#""3q2+7w==""#)),
        ("bl", json(r#""+w==""#)),
        ("e", json(r#""b""#)),
        ("s", json(r#""x,z""#)),
        ("bit1", json("true")),
        ("bit3", json(r#""BQ==""#)),
        // b'101010101010' = 0x0AAA, little-endian AA 0A.
        ("bit12", json(r#""qgo=""#)),
        ("n", Json::Null),
        // Debezium reads YEAR as 1900 + the stored byte.
        ("y0", json("1900")),
        ("fmd", json("1.5")),
        ("eu", json(r#""Yes""#)),
    ];
    for (col, want) in expect {
        if *col == "vc_latin1" && !full_metadata {
            // Without the binlog's charsets a latin1 column's bytes are
            // not known to be latin1 (the declared type does not say).
            continue;
        }
        assert_eq!(&a[*col], want, "column {col}");
    }
    // MariaDB's JSON is LONGTEXT: the document's text as written.
    assert_eq!(a["j"], r#"{"a": [1, 2.5]}"#);
    // LINESTRING(0 0,1 1): SRID 0 → null; WKB little-endian, type 2, 2 points.
    let g = &a["g"];
    assert_eq!(keys(g), ["wkb", "srid"]);
    assert_eq!(g["srid"], Json::Null);
    assert_eq!(
        g["wkb"],
        "AQIAAAACAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAPA/AAAAAAAA8D8="
    );
    let pt = &a["pt"];
    assert_eq!(keys(pt), ["x", "y", "wkb", "srid"]);
    assert_eq!(pt["x"], 1.5);
    assert_eq!(pt["y"], -2.25);
    assert_eq!(pt["srid"], Json::Null);
    assert_eq!(pt["wkb"], "AQEAAAAAAAAAAAD4PwAAAAAAAALA");
    // Every column is there, in table order.
    let names: Vec<&str> = keys(a);
    let declared: Vec<&str> = f.columns[&("inventory".into(), "types".into())]
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, declared);
    // Floats as Java prints them: 1.5, 2.25 (and 100.0 would keep its ".0").
    let raw = e
        .records
        .iter()
        .find(|r| r.destination.ends_with(".types"))
        .and_then(|r| r.value.clone())
        .unwrap();
    assert!(raw.contains("\"f\":1.5,\"d\":2.25,"), "{raw}");
}

#[test]
fn options_change_the_values() {
    let after = |o: DebeziumOptions| -> Json {
        let e = encode(o).unwrap();
        topic(&e, "dbserver1.inventory.types")[0].1["after"].clone()
    };
    let with = |pairs: &[(&str, &str)]| {
        let mut o = plain();
        for (k, v) in pairs {
            o.set(k, v).unwrap();
        }
        o
    };
    let a = after(with(&[("decimal.handling.mode", "string")]));
    assert_eq!(a["dec_pos"], "12.34");
    assert_eq!(a["dec_neg"], "-12.34");
    assert_eq!(a["dec_zero"], "0.00");
    let a = after(with(&[("decimal.handling.mode", "double")]));
    assert_eq!(a["dec_pos"], 12.34);
    assert_eq!(a["dec_neg"], -12.34);
    let raw = encode(with(&[("converter.decimal.format", "NUMERIC")])).unwrap();
    let raw = raw
        .records
        .iter()
        .find(|r| r.destination.ends_with(".types"))
        .and_then(|r| r.value.clone())
        .unwrap();
    assert!(
        raw.contains("\"dec_pos\":12.34,\"dec_neg\":-12.34,\"dec_zero\":0.00,"),
        "{raw}"
    );
    let a = after(with(&[("bigint.unsigned.handling.mode", "precise")]));
    assert_eq!(a["biu"], "AP//////////");
    let a = after(with(&[("binary.handling.mode", "hex")]));
    assert_eq!(a["vb"], "deadbeef");
    assert_eq!(a["bin4"], "01020000");
    let a = after(with(&[("binary.handling.mode", "base64-url-safe")]));
    assert_eq!(a["bl"], "-w==");
    assert_eq!(a["vb"], "3q2-7w==");

    let e = encode(with(&[("tombstones.on.delete", "false")])).unwrap();
    assert!(e.records.iter().all(|r| r.value.is_some()), "no tombstones");
    let e = encode(with(&[("skipped.operations", "c,d")])).unwrap();
    let ops: Vec<Json> = topic(&e, "dbserver1.inventory.customers")
        .into_iter()
        .map(|(_, v)| v["op"].clone())
        .collect();
    // Each record is filtered by its own operation: the key change's d and c go too.
    assert_eq!(ops, [json(r#""u""#)], "only the non-key update is left");
    let e = encode(with(&[("skipped.operations", "u")])).unwrap();
    let ops: Vec<Json> = topic(&e, "dbserver1.inventory.customers")
        .into_iter()
        .map(|(_, v)| v["op"].clone())
        .collect();
    let expected: Vec<Json> = ["c", "d", "", "c", "d", "", "c", "c", "c"]
        .iter()
        .map(|o| {
            if o.is_empty() {
                Json::Null
            } else {
                json(&format!("\"{o}\""))
            }
        })
        .collect();
    assert_eq!(ops, expected, "the key change stays (as d and c)");

    let mut o = plain();
    assert!(o.set("decimal.handling.mode", "exact").is_err());
    assert!(o.set("no.such.property", "x").is_err());
}

#[test]
fn truncate_is_emitted_when_not_skipped() {
    let e = encode(with_options(&[("skipped.operations", "none")])).unwrap();
    let recs: Vec<&DebeziumRecord> = e
        .records
        .iter()
        .filter(|r| r.destination == "dbserver1.inventory.nokey")
        .collect();
    assert_eq!(recs.len(), 3);
    let t = recs[2];
    assert_eq!(t.key, None);
    let v = json(t.value.as_deref().unwrap());
    assert_eq!(v["op"], "t");
    assert_eq!(v["before"], Json::Null);
    assert_eq!(v["after"], Json::Null);
    assert_eq!(v["source"]["table"], "nokey");
    assert_eq!(keys(&v), ENVELOPE);

    // With transaction metadata a TRUNCATE still has no transaction (and
    // opens no BEGIN that nothing would END).
    let e = encode(with_options(&[
        ("skipped.operations", "none"),
        ("provide.transaction.metadata", "true"),
    ]))
    .unwrap();
    let last = e.records.last().unwrap();
    let v = json(last.value.as_deref().unwrap());
    assert_eq!(v["op"], "t");
    assert_eq!(v["transaction"], Json::Null);
    let status = |s: &str| {
        e.records
            .iter()
            .filter(|r| r.value.as_deref().is_some_and(|v| v.contains(s)))
            .count()
    };
    assert_eq!(status("\"status\":\"BEGIN\""), status("\"status\":\"END\""));
}

fn with_options(pairs: &[(&str, &str)]) -> DebeziumOptions {
    let mut o = plain();
    for (k, v) in pairs {
        o.set(k, v).unwrap();
    }
    o
}

#[test]
fn transaction_metadata_blocks_and_boundaries() {
    let e = encode(with_options(&[("provide.transaction.metadata", "true")])).unwrap();
    // The explicit transaction: BEGIN, customers 20, nokey 2, customers 21, END.
    let at = e
        .records
        .iter()
        .position(|r| {
            r.destination.ends_with(".customers") && r.key.as_deref() == Some(r#"{"id":20}"#)
        })
        .expect("row 20");
    let window = &e.records[at - 1..at + 4];
    let dest: Vec<&str> = window.iter().map(|r| r.destination.as_str()).collect();
    assert_eq!(
        dest,
        [
            "dbserver1.transaction",
            "dbserver1.inventory.customers",
            "dbserver1.inventory.nokey",
            "dbserver1.inventory.customers",
            "dbserver1.transaction",
        ]
    );
    let begin = json(window[0].value.as_deref().unwrap());
    let id = begin["id"].as_str().unwrap().to_string();
    assert_eq!(
        keys(&begin),
        ["status", "id", "event_count", "data_collections", "ts_ms"]
    );
    assert_eq!(begin["status"], "BEGIN");
    assert_eq!(begin["event_count"], Json::Null);
    assert_eq!(
        json(window[0].key.as_deref().unwrap()),
        serde_json::json!({ "id": id })
    );
    let blocks: Vec<Json> = window[1..4]
        .iter()
        .map(|r| json(r.value.as_deref().unwrap())["transaction"].clone())
        .collect();
    assert_eq!(
        blocks,
        [
            serde_json::json!({"id": id, "total_order": 1, "data_collection_order": 1}),
            serde_json::json!({"id": id, "total_order": 2, "data_collection_order": 1}),
            serde_json::json!({"id": id, "total_order": 3, "data_collection_order": 2}),
        ]
    );
    let end = json(window[4].value.as_deref().unwrap());
    assert_eq!(end["status"], "END");
    assert_eq!(end["id"], id.as_str());
    assert_eq!(end["event_count"], 3);
    assert_eq!(
        end["data_collections"],
        serde_json::json!([
            {"data_collection": "inventory.customers", "event_count": 2},
            {"data_collection": "inventory.nokey", "event_count": 1},
        ])
    );
    // Every data event carries a block; every BEGIN has its END.
    let begins = e
        .records
        .iter()
        .filter(|r| {
            r.value
                .as_deref()
                .is_some_and(|v| v.contains("\"status\":\"BEGIN\""))
        })
        .count();
    let ends = e
        .records
        .iter()
        .filter(|r| {
            r.value
                .as_deref()
                .is_some_and(|v| v.contains("\"status\":\"END\""))
        })
        .count();
    assert_eq!(begins, ends);
    assert!(begins >= 7, "{begins} transactions");
}

#[test]
fn schema_wrapped_records() {
    let e = encode(DebeziumOptions::new("dbserver1")).unwrap();
    let rec = e
        .records
        .iter()
        .find(|r| r.destination == "dbserver1.inventory.customers")
        .unwrap();
    let key = json(rec.key.as_deref().unwrap());
    assert_eq!(keys(&key), ["schema", "payload"]);
    assert_eq!(
        key,
        json(
            r#"{"schema":{"type":"struct","fields":[{"type":"int32","optional":false,"field":"id"}],"optional":false,"name":"dbserver1.inventory.customers.Key"},"payload":{"id":1004}}"#
        )
    );
    let v = json(rec.value.as_deref().unwrap());
    assert_eq!(keys(&v), ["schema", "payload"]);
    let schema = &v["schema"];
    assert_eq!(schema["name"], "dbserver1.inventory.customers.Envelope");
    assert_eq!(schema["version"], 2);
    let fields = schema["fields"].as_array().unwrap();
    let names: Vec<&str> = fields
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(names, ENVELOPE);
    let before = &fields[0];
    assert_eq!(before["name"], "dbserver1.inventory.customers.Value");
    assert_eq!(before["optional"], true);
    assert_eq!(
        before["fields"],
        json(
            r#"[{"type":"int32","optional":false,"field":"id"},
                {"type":"string","optional":true,"field":"first_name"},
                {"type":"bytes","optional":true,"name":"org.apache.kafka.connect.data.Decimal","version":1,"parameters":{"scale":"2","connect.decimal.precision":"10"},"field":"price"},
                {"type":"int64","optional":true,"name":"io.debezium.time.Timestamp","version":1,"field":"updated"}]"#
        )
    );
    assert_eq!(fields[1]["fields"], before["fields"]);
    let source = &fields[2];
    assert_eq!(source["name"], "io.debezium.connector.mysql.Source");
    let source_fields: Vec<&str> = source["fields"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(source_fields, SOURCE);
    assert_eq!(fields[3]["name"], "event.block");
    // The field schema's own key order: type, optional, name, version, parameters, field.
    assert_eq!(
        keys(&before["fields"][2]),
        ["type", "optional", "name", "version", "parameters", "field"]
    );
    // The payload is the plain form.
    let plain_rec = encode(plain()).unwrap();
    let plain_value = plain_rec
        .records
        .iter()
        .find(|r| r.destination == "dbserver1.inventory.customers")
        .and_then(|r| r.value.clone())
        .unwrap();
    assert_eq!(v["payload"], json(&plain_value));

    // Semantic types of the other columns.
    let types = e
        .records
        .iter()
        .find(|r| r.destination == "dbserver1.inventory.types")
        .unwrap();
    let v = json(types.value.as_deref().unwrap());
    let cols = v["schema"]["fields"][1]["fields"].as_array().unwrap();
    let by_name = |n: &str| -> &Json {
        cols.iter()
            .find(|c| c["field"] == n)
            .unwrap_or_else(|| panic!("no field {n}"))
    };
    let semantic = |n: &str| (by_name(n)["type"].clone(), by_name(n)["name"].clone());
    let s = |t: &str, n: &str| (json(&format!("\"{t}\"")), json(&format!("\"{n}\"")));
    assert_eq!(semantic("dt"), s("int32", "io.debezium.time.Date"));
    assert_eq!(semantic("tm"), s("int64", "io.debezium.time.MicroTime"));
    assert_eq!(semantic("dtm"), s("int64", "io.debezium.time.Timestamp"));
    assert_eq!(
        semantic("dtm6"),
        s("int64", "io.debezium.time.MicroTimestamp")
    );
    assert_eq!(
        semantic("ts3"),
        s("string", "io.debezium.time.ZonedTimestamp")
    );
    assert_eq!(semantic("y"), s("int32", "io.debezium.time.Year"));
    assert_eq!(semantic("bit3"), s("bytes", "io.debezium.data.Bits"));
    assert_eq!(by_name("bit3")["parameters"], json(r#"{"length":"3"}"#));
    assert_eq!(by_name("bit1")["type"], "boolean");
    assert_eq!(semantic("e"), s("string", "io.debezium.data.Enum"));
    assert_eq!(by_name("e")["parameters"], json(r#"{"allowed":"a,b,c"}"#));
    assert_eq!(semantic("s"), s("string", "io.debezium.data.EnumSet"));
    assert_eq!(
        semantic("g"),
        s("struct", "io.debezium.data.geometry.Geometry")
    );
    assert_eq!(
        semantic("pt"),
        s("struct", "io.debezium.data.geometry.Point")
    );
    assert_eq!(by_name("tiu")["type"], "int16");
    // Signed TINYINT too: Debezium 3.6.3 writes int16 (the spec said int8).
    assert_eq!(by_name("ti")["type"], "int16");
    // A signed INT after YEAR columns: MariaDB's SIGNEDNESS bits count YEAR.
    assert_eq!(by_name("n")["type"], "int32");
    assert_eq!(by_name("iu")["type"], "int64");
    assert_eq!(by_name("f")["type"], "float");
    assert_eq!(by_name("d")["type"], "double");
    assert_eq!(by_name("fmd")["type"], "double", "FLOAT(M,D) is float64");
    assert_eq!(by_name("g")["optional"], true);
    assert_eq!(by_name("vb")["type"], "bytes");
    assert_eq!(by_name("id")["optional"], false);
    assert_eq!(by_name("n")["optional"], true);
    assert_eq!(v["payload"]["after"]["dt"], 19844);
}

/// Under a MINIMAL row image an update's after image leaves the unchanged
/// key out: it is still an update of that key, not a key change; columns
/// the images leave out are null.
#[test]
fn minimal_row_image_update_keeps_its_key() {
    let e = encode_from(minimal_image_fixture(), plain()).unwrap();
    let recs = topic(&e, "dbserver1.inventory.customers");
    let (key, update) = &recs[1];
    assert_eq!(update["op"], "u");
    assert_eq!(key, &json(r#"{"id":1004}"#));
    assert_eq!(update["after"]["first_name"], "Anne Marie");
    assert_eq!(update["after"]["id"], Json::Null);
    assert_eq!(update["before"]["id"], 1004);
    assert_eq!(update["before"]["first_name"], Json::Null);
    // The real key change still is one.
    let ops: Vec<Json> = recs.iter().map(|(_, v)| v["op"].clone()).collect();
    assert_eq!(ops[5], "d");
    assert_eq!(ops[7], "c");
    assert_eq!(recs[7].0, json(r#"{"id":8}"#));
}

/// The after image of the first record of row `id` of the temporal table.
fn temporal_row(e: &Encoded, id: i64) -> Json {
    topic(e, "dbserver1.inventory.temporal")
        .into_iter()
        .map(|(_, v)| v["after"].clone())
        .find(|a| a["id"] == id)
        .unwrap_or_else(|| panic!("no row {id} of the temporal table"))
}

/// Row id, column, the value's JSON.
type ValueCase = (i64, &'static str, &'static str);
/// Column, Connect type, schema name.
type SchemaCase = (&'static str, &'static str, &'static str);

/// DATE, TIME, DATETIME, TIMESTAMP and YEAR at their edges in each
/// `time.precision.mode`: zero dates (null when nullable, the epoch when
/// not), two-digit years moved to 1970–2069, negative and 838-hour TIMEs,
/// each fractional precision, and values a mode cannot hold (null). The
/// values are those Debezium 3.6.3 writes for the rows of `TEMPORAL`
/// (tests/debezium_oracle.rs compares every one of them).
#[test]
fn temporal_values_in_every_time_precision_mode() {
    let cases: &[(&str, &[ValueCase])] = &[
        (
            "adaptive_time_microseconds",
            &[
                (1, "d", "19844"),
                (1, "dnn", "-1"),
                (1, "t1", "45045500000"),
                (1, "t3", "-3600123000"),
                (1, "t6", "3020399999999"),
                (1, "t6nn", "1"),
                (1, "dt3", "1529476623123"),
                (1, "dt4", "-2208988799999900"),
                (1, "dtnn", "-1000"),
                (1, "dt6nn", "-1"),
                (1, "ts3", r#""2023-01-11T00:34:10.010Z""#),
                (1, "tsnn", r#""1970-01-01T00:00:01.000Z""#),
                (1, "ynn", "1901"),
                (2, "d", "null"),
                (2, "dnn", "0"),
                (2, "t1", "-500000"),
                (2, "t6", "86400000000"),
                (2, "dt0", "null"),
                (2, "dtnn", "0"),
                (2, "tsnn", r#""1970-01-01T00:00:00Z""#),
                (2, "ynn", "1900"),
                (5, "d", "11323"),
                (5, "dnn", "36524"),
                (5, "t6", "-1"),
                (5, "dt0", "0"),
                (5, "dt3", "946684799999"),
                (5, "dt4", "-59011459200000000"),
                (5, "dt6", "null"),
                (5, "dt6nn", "0"),
                (6, "d", "null"),
                (6, "dnn", "0"),
            ],
        ),
        (
            "connect",
            &[
                (1, "d", "19844"),
                (1, "t1", "45045500"),
                (1, "t3", "null"),
                (1, "t6", "null"),
                (1, "tnn", "86399000"),
                (1, "t6nn", "0"),
                (1, "dt4", "-2208988800000"),
                (1, "dt6", "946684800000"),
                (2, "t1", "null"),
                (2, "t6", "86400000"),
                (2, "dt4", "-1"),
                (2, "dnn", "0"),
                (4, "t0", "null"),
                (5, "t1", "null"),
                (5, "d", "11323"),
            ],
        ),
        (
            "isostring",
            &[
                (1, "d", r#""2024-05-01Z""#),
                (1, "dnn", r#""1969-12-31Z""#),
                (1, "t0", r#""12:30:45Z""#),
                (1, "t1", r#""12:30:45.5Z""#),
                (1, "t3", "null"),
                (1, "t6nn", r#""00:00:00.000001Z""#),
                (1, "dt3", r#""2018-06-20T06:37:03.123Z""#),
                (1, "dt4", r#""1900-01-01T00:00:00.0001Z""#),
                (1, "ts0", r#""2018-06-20T13:37:03Z""#),
                (2, "d", "null"),
                (2, "dnn", r#""1970-01-01Z""#),
                (2, "t6", r#""00:00:00Z""#),
                (2, "dtnn", r#""1970-01-01T00:00:00Z""#),
                (2, "dt6nn", r#""2262-04-11T23:47:16.854775Z""#),
                (4, "dt4", r#""1583-01-01T00:00:00Z""#),
                (4, "dt6", r#""2001-01-01T00:00:00Z""#),
                (4, "dt6nn", r#""2000-02-29T12:00:00.5Z""#),
                (5, "dnn", r#""2069-12-31Z""#),
                (5, "dt4", r#""0100-01-01T00:00:00Z""#),
            ],
        ),
        (
            "microseconds",
            &[
                (1, "t0", "45045000000"),
                (1, "dt0", "1529476623000000"),
                (1, "dtnn", "-1000000"),
                (4, "dt0", "-9223372037000000"),
            ],
        ),
        (
            "nanoseconds",
            &[
                (1, "t6nn", "1000"),
                (1, "t6", "3020399999999000"),
                (1, "dt6", "946684800000001000"),
                (2, "dt3", "null"),
                (2, "dt6nn", "9223372036854775000"),
                // The day's nanoseconds overflow although the instant fits.
                (3, "dt6", "null"),
                (3, "dt6nn", "-9223286400000000000"),
                (4, "dt0", "null"),
                (4, "dt3", "null"),
            ],
        ),
        (
            // Debezium takes `adaptive` in any case but lower case.
            "ADAPTIVE",
            &[
                (1, "t0", "45045000"),
                (1, "t3", "-3600123"),
                (1, "t6", "3020399999999"),
                (1, "dt3", "1529476623123"),
                (1, "dt4", "-2208988799999900"),
                // 3020399900 ms wraps as a Java int.
                (5, "t1", "-1274567396"),
            ],
        ),
    ];
    for (mode, expected) in cases {
        let e = encode(with_options(&[("time.precision.mode", mode)])).unwrap();
        for (id, column, want) in expected.iter() {
            assert_eq!(
                temporal_row(&e, *id)[*column],
                json(want),
                "time.precision.mode={mode}: row {id} column {column}"
            );
        }
    }
}

/// The schema of each temporal column per `time.precision.mode`.
#[test]
fn temporal_schemas_in_every_time_precision_mode() {
    let cases: &[(&str, &[SchemaCase])] = &[
        (
            "adaptive_time_microseconds",
            &[
                ("d", "int32", "io.debezium.time.Date"),
                ("t1", "int64", "io.debezium.time.MicroTime"),
                ("dt3", "int64", "io.debezium.time.Timestamp"),
                ("dt4", "int64", "io.debezium.time.MicroTimestamp"),
                ("ts0", "string", "io.debezium.time.ZonedTimestamp"),
                ("y", "int32", "io.debezium.time.Year"),
            ],
        ),
        (
            "connect",
            &[
                ("d", "int32", "org.apache.kafka.connect.data.Date"),
                ("t6", "int32", "org.apache.kafka.connect.data.Time"),
                ("dt6", "int64", "org.apache.kafka.connect.data.Timestamp"),
                ("ts6", "string", "io.debezium.time.ZonedTimestamp"),
                ("y", "int32", "io.debezium.time.Year"),
            ],
        ),
        (
            "isostring",
            &[
                ("d", "string", "io.debezium.time.IsoDate"),
                ("t0", "string", "io.debezium.time.IsoTime"),
                ("dt0", "string", "io.debezium.time.IsoTimestamp"),
                ("ts3", "string", "io.debezium.time.ZonedTimestamp"),
            ],
        ),
        (
            "microseconds",
            &[
                ("t0", "int64", "io.debezium.time.MicroTime"),
                ("dt0", "int64", "io.debezium.time.MicroTimestamp"),
            ],
        ),
        (
            "nanoseconds",
            &[
                ("d", "int32", "io.debezium.time.Date"),
                ("t0", "int64", "io.debezium.time.NanoTime"),
                ("dt3", "int64", "io.debezium.time.NanoTimestamp"),
            ],
        ),
        (
            "Adaptive",
            &[
                ("t3", "int32", "io.debezium.time.Time"),
                ("t6", "int64", "io.debezium.time.MicroTime"),
                ("dt3", "int64", "io.debezium.time.Timestamp"),
                ("dt6", "int64", "io.debezium.time.MicroTimestamp"),
            ],
        ),
    ];
    for (mode, expected) in cases {
        let mut o = DebeziumOptions::new("dbserver1");
        o.set("time.precision.mode", mode).unwrap();
        let e = encode(o).unwrap();
        let value = e
            .records
            .iter()
            .find(|r| r.destination == "dbserver1.inventory.temporal")
            .and_then(|r| r.value.as_deref())
            .map(json)
            .expect("a record of the temporal table");
        let fields = value["schema"]["fields"][1]["fields"]
            .as_array()
            .expect("the after schema's fields")
            .clone();
        for (column, ty, name) in expected.iter() {
            let field = fields
                .iter()
                .find(|f| f["field"] == *column)
                .unwrap_or_else(|| panic!("{mode}: no field {column}"));
            let want = serde_json::json!({
                "type": ty,
                "optional": true,
                "name": name,
                "version": 1,
                "field": column,
            });
            assert_eq!(field, &want, "time.precision.mode={mode}: {column}");
        }
    }
}

/// The values of `time.precision.mode` Debezium 3.6.3's MySQL connector
/// takes, and the two it refuses.
#[test]
fn time_precision_mode_values() {
    let mut o = plain();
    for v in [
        "adaptive_time_microseconds",
        "connect",
        "isostring",
        "microseconds",
        "nanoseconds",
        "ADAPTIVE",
        " Connect ",
    ] {
        o.set("time.precision.mode", v)
            .unwrap_or_else(|e| panic!("{v}: {e}"));
    }
    // Debezium: "The 'adaptive' time.precision.mode is no longer supported".
    let refused = o.set("time.precision.mode", "adaptive").unwrap_err();
    assert!(
        matches!(refused, DebeziumError::Refused { .. }),
        "{refused}"
    );
    assert!(
        refused.to_string().contains("no longer supported"),
        "{refused}"
    );
    // `structured` is a later Debezium's; 3.6.3 does not know it.
    assert!(matches!(
        o.set("time.precision.mode", "structured"),
        Err(DebeziumError::InvalidOption { .. })
    ));
}

/// A NOT NULL column whose value the mode cannot hold stops the encoder
/// with an error naming the column, as it stops Debezium's engine;
/// nullable columns get null (above).
#[test]
fn unrepresentable_not_null_temporal_values_are_errors() {
    let f = unrepresentable_fixture();
    let err = |mode: &str| match encode_from(f, with_options(&[("time.precision.mode", mode)])) {
        Err(DebeziumError::Value {
            table,
            column,
            detail,
            ..
        }) => (table, column, detail),
        other => panic!("{mode}: {:?}", other.map(|e| e.records.len())),
    };
    let (table, column, detail) = err("connect");
    assert_eq!((table.as_str(), column.as_str()), ("negative_time", "t"));
    assert!(detail.contains("-01:00:00"), "{detail}");
    let (_, column, detail) = err("isostring");
    assert_eq!(column, "t");
    assert!(detail.contains("00:00:00..24:00:00"), "{detail}");
    // The TIME table comes first, so nanoseconds reaches the DATETIME one.
    let (table, column, _) = err("nanoseconds");
    assert_eq!((table.as_str(), column.as_str()), ("old_datetime", "dt"));
    // The modes that hold them write them.
    let e = encode_from(f, with_options(&[("time.precision.mode", "microseconds")])).unwrap();
    let after = |t: &str| topic(&e, &format!("dbserver1.inventory.{t}"))[0].1["after"].clone();
    assert_eq!(after("negative_time")["t"], -3_600_000_000i64);
    assert_eq!(after("old_datetime")["dt"], -11_676_096_000_000_000i64);
}

/// Tables whose NOT NULL columns hold what some modes cannot write.
fn unrepresentable_fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let sql = "CREATE DATABASE inventory; USE inventory;
            CREATE TABLE negative_time (id INT PRIMARY KEY, t TIME NOT NULL);
            INSERT INTO negative_time VALUES (1, '-01:00:00');
            CREATE TABLE old_datetime (id INT PRIMARY KEY, dt DATETIME NOT NULL);
            INSERT INTO old_datetime VALUES (1, '1600-01-01 00:00:00');";
        fixture_from_sql(sql).expect("MariaDB fixture")
    })
}
