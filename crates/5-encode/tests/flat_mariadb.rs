//! FlatMessage JSON of a private MariaDB's binlog: a table created, rows
//! inserted, updated and deleted, a column added. Every ROWDATA entry gives
//! one document; transaction boundaries give none.

use std::ops::ControlFlow;

use sluice_encode::flat::{FlatEncoder, FlatMessage};
use sluice_events::{ChangeBuilder, Encoder, Position};
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Every FlatMessage of the server's binlog files, in order.
fn flat_messages(db: &MariaDb, batch_id: i64) -> Vec<FlatMessage> {
    let mut changes = ChangeBuilder::new();
    let mut encoder = FlatEncoder::new(false);
    encoder.batch_id = batch_id;
    let mut out = Vec::new();
    for path in db.binlog_files().expect("binlog files") {
        let bytes = std::fs::read(&path).expect("a readable binlog");
        let name = path.display().to_string();
        let walked = sluice_binlog::walk_file(&name, &bytes, |at, raw, data| {
            let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
            if let Some(event) = changes.on_event(position, data, None) {
                encoder.encode(&event, &mut out).expect("a FlatMessage");
            }
            ControlFlow::Continue(())
        });
        assert!(walked.is_ok(), "{name}: {walked:?}");
    }
    out
}

#[test]
fn flat_messages_of_a_table_s_life() {
    let db = MariaDb::start(MariaDbConfig::default()).expect("a private MariaDB");
    let create = "CREATE TABLE shop.user (id BIGINT PRIMARY KEY, name VARCHAR(32), \
                  score DECIMAL(10,2), note TEXT)";
    for sql in [
        "CREATE DATABASE shop",
        create,
        "INSERT INTO shop.user VALUES (1, 'alice', 12.50, NULL), (2, 'ann', 1.00, 'n\"ö')",
        "UPDATE shop.user SET name = 'bob' WHERE id = 1",
        "DELETE FROM shop.user WHERE id = 2",
        "ALTER TABLE shop.user ADD COLUMN age INT",
    ] {
        db.exec(sql).expect(sql);
    }
    db.flush_binlogs().expect("flush");
    let started_ms = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    let messages: Vec<FlatMessage> = flat_messages(&db, 7)
        .into_iter()
        .filter(|m| m.table == "user")
        .collect();
    let types: Vec<&str> = messages.iter().map(|m| m.event_type).collect();
    assert_eq!(types, ["CREATE", "INSERT", "UPDATE", "DELETE", "ALTER"]);
    for m in &messages {
        assert!(
            m.ts >= started_ms,
            "ts {} is when the message was made",
            m.ts
        );
        assert!(
            m.es > 0 && m.es % 1000 == 0,
            "es {} is the event's second",
            m.es
        );
        let json = m.to_json();
        let parsed: serde_json::Value = serde_json::from_str(&json).expect("valid JSON");
        assert_eq!(parsed["id"], 7);
    }
    let json = |i: usize| {
        let m = &messages[i];
        m.to_json()
            .replace(&format!("\"es\":{},", m.es), "\"es\":ES,")
            .replace(&format!("\"ts\":{},", m.ts), "\"ts\":TS,")
    };
    let types = r#""mysqlType":{"id":"bigint","name":"varchar","score":"decimal","note":"blob"},"#;
    let sql_types = r#""sqlType":{"id":-5,"name":12,"score":3,"note":2005},"#;
    assert_eq!(
        json(0),
        format!(
            r#"{{"data":null,"database":"shop","es":ES,"gtid":"","id":7,"isDdl":true,"mysqlType":null,"old":null,"pkNames":null,"sql":"{create}","sqlType":null,"table":"user","ts":TS,"type":"CREATE"}}"#
        )
    );
    assert_eq!(
        json(1),
        format!(
            r#"{{"data":[{{"id":"1","name":"alice","score":"12.50","note":null}},{{"id":"2","name":"ann","score":"1.00","note":"n\"ö"}}],"database":"shop","es":ES,"gtid":"","id":7,"isDdl":false,{types}"old":null,"pkNames":["id"],"sql":"",{sql_types}"table":"user","ts":TS,"type":"INSERT"}}"#
        )
    );
    assert_eq!(
        json(2),
        format!(
            r#"{{"data":[{{"id":"1","name":"bob","score":"12.50","note":null}}],"database":"shop","es":ES,"gtid":"","id":7,"isDdl":false,{types}"old":[{{"name":"alice"}}],"pkNames":["id"],"sql":"",{sql_types}"table":"user","ts":TS,"type":"UPDATE"}}"#
        )
    );
    assert_eq!(
        json(3),
        format!(
            r#"{{"data":[{{"id":"2","name":"ann","score":"1.00","note":"n\"ö"}}],"database":"shop","es":ES,"gtid":"","id":7,"isDdl":false,{types}"old":null,"pkNames":["id"],"sql":"",{sql_types}"table":"user","ts":TS,"type":"DELETE"}}"#
        )
    );
    assert_eq!(
        json(4),
        r#"{"data":null,"database":"shop","es":ES,"gtid":"","id":7,"isDdl":true,"mysqlType":null,"old":null,"pkNames":null,"sql":"ALTER TABLE shop.user ADD COLUMN age INT","sqlType":null,"table":"user","ts":TS,"type":"ALTER"}"#
    );
}
