//! Broker records of a private MariaDB's binlog: two tables created, rows
//! inserted, updated and deleted, a column added, the whole binlog as one
//! Canal batch routed with a dynamic topic, a per-topic partition count, a
//! column rule for one table and a table-name rule for the other. Checked
//! for FlatMessage JSON and for protobuf records.

use std::collections::BTreeSet;
use std::ops::ControlFlow;

use prost::Message;
use sluice_canal::proto::{Entry, Messages, Packet, RowChange};
use sluice_encode::canal::CanalEncoder;
use sluice_encode::mq::hash::{java_partition, java_string_hash, row_hash};
use sluice_encode::mq::{MqMessage, MqRouter, RouteConfig};
use sluice_events::{ChangeBuilder, Encoder, Position};
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Every Canal entry of the server's binlog files, serialised, in order.
fn canal_entries(db: &MariaDb) -> Vec<Vec<u8>> {
    let mut changes = ChangeBuilder::new();
    let mut encoder = CanalEncoder::new(false);
    let mut built = Vec::new();
    for path in db.binlog_files().expect("binlog files") {
        let bytes = std::fs::read(&path).expect("a readable binlog");
        let name = path.display().to_string();
        let walked = sluice_binlog::walk_file(&name, &bytes, |at, raw, data| {
            let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
            if let Some(event) = changes.on_event(position, data, None) {
                encoder.encode(&event, &mut built).expect("a Canal entry");
            }
            ControlFlow::Continue(())
        });
        assert!(walked.is_ok(), "{name}: {walked:?}");
    }
    built.iter().map(|b| b.entry.encode_to_vec()).collect()
}

fn shop() -> MariaDb {
    let db = MariaDb::start(MariaDbConfig::default()).expect("a private MariaDB");
    for sql in [
        "CREATE DATABASE shop",
        "CREATE TABLE shop.orders (id BIGINT PRIMARY KEY, customer VARCHAR(32), amount DECIMAL(10,2))",
        "CREATE TABLE shop.users (id INT PRIMARY KEY, name VARCHAR(32))",
        "INSERT INTO shop.orders VALUES (1,'ann',10.00),(2,'bob',20.00),(3,'cat',30.00),\
         (4,'dan',40.00),(5,'eve',50.00),(6,'fay',60.00)",
        "INSERT INTO shop.users VALUES (1,'ann'),(2,'bob')",
        "UPDATE shop.orders SET amount = amount + 1 WHERE id <= 4",
        "DELETE FROM shop.orders WHERE id = 5",
        "ALTER TABLE shop.users ADD COLUMN age INT",
        "UPDATE shop.users SET name = 'ann2' WHERE id = 1",
    ] {
        db.exec(sql).expect(sql);
    }
    db.flush_binlogs().expect("flush");
    db
}

fn config(flat_message: bool) -> RouteConfig {
    RouteConfig {
        flat_message,
        topic: "shop.all".into(),
        dynamic_topic: r"orders:shop\.orders".into(),
        partitions_num: Some(3),
        dynamic_topic_partition_num: "orders:4".into(),
        partition_hash: r"shop\.orders:id,shop\.users".into(),
        ..Default::default()
    }
}

fn route(config: RouteConfig, entries: &[Vec<u8>]) -> Vec<MqMessage> {
    let router = MqRouter::new(config).expect("a valid route config");
    let mut out = Vec::new();
    router
        .messages(11, entries, 1_700_000_000_000, &mut out)
        .expect("records");
    out
}

/// The partition Canal gives an order row of id `id`.
fn order_partition(id: &str) -> i32 {
    java_partition(row_hash("shop", true, [Some(id)]), 4)
}

#[test]
fn records_of_two_tables() {
    let db = shop();
    let entries = canal_entries(&db);
    let users_partition = java_partition(java_string_hash("users"), 3);

    let flat = route(config(true), &entries);
    let mut inserted = BTreeSet::new();
    let mut updated = BTreeSet::new();
    let mut deleted = BTreeSet::new();
    let mut user_types = Vec::new();
    for m in &flat {
        let doc: serde_json::Value = serde_json::from_slice(&m.payload).expect("JSON");
        assert_eq!(doc["id"], 11);
        let table = doc["table"].as_str().unwrap_or_default();
        let kind = doc["type"].as_str().unwrap_or_default();
        let rows = doc["data"].as_array().cloned().unwrap_or_default();
        assert_eq!(m.rows, rows.len());
        if doc["isDdl"] == true {
            assert_eq!(m.partition, Some(0), "DDL goes to partition 0: {doc}");
            assert_eq!(m.key, None);
        }
        match (table, doc["isDdl"] == true) {
            ("orders", ddl) => {
                assert_eq!(m.topic, "orders");
                assert!(
                    m.origin.starts_with("shop.orders at binlog.000001:"),
                    "{}",
                    m.origin
                );
                if ddl {
                    continue;
                }
                let ids: Vec<&str> = rows.iter().map(|r| r["id"].as_str().unwrap()).collect();
                for id in &ids {
                    assert_eq!(m.partition, Some(order_partition(id)), "{kind} order {id}");
                }
                assert_eq!(m.key.as_deref(), Some(ids[0].as_bytes()));
                let set = match kind {
                    "INSERT" => &mut inserted,
                    "UPDATE" => &mut updated,
                    "DELETE" => &mut deleted,
                    other => panic!("unexpected {other}"),
                };
                for (i, id) in ids.iter().enumerate() {
                    assert!(set.insert(id.to_string()), "{kind} {id} once");
                    if kind == "UPDATE" {
                        let n: u32 = id.parse().unwrap();
                        assert_eq!(rows[i]["amount"], format!("{}.00", n * 10 + 1));
                        assert_eq!(
                            doc["old"][i],
                            serde_json::json!({"amount": format!("{}.00", n * 10)})
                        );
                    }
                }
            }
            ("users", ddl) => {
                assert_eq!(m.topic, "shop_all");
                user_types.push(kind.to_string());
                if !ddl {
                    assert_eq!(m.partition, Some(users_partition));
                    assert_eq!(m.key.as_deref(), Some(&b"shop.users"[..]));
                }
            }
            (_, _) => {
                assert_eq!(m.topic, "shop_all", "no table, default topic: {doc}");
            }
        }
    }
    let all: BTreeSet<String> = (1..=6).map(|i| i.to_string()).collect();
    assert_eq!(inserted, all);
    assert_eq!(updated, (1..=4).map(|i| i.to_string()).collect());
    assert_eq!(deleted, BTreeSet::from(["5".to_string()]));
    assert_eq!(user_types, ["CREATE", "INSERT", "ALTER", "UPDATE"]);
    // The six inserted orders spread over more than one partition, one
    // record each (ids 1..6 hash to different partitions of 4).
    let insert_records = flat
        .iter()
        .filter(|m| {
            m.topic == "orders"
                && String::from_utf8_lossy(&m.payload).contains(r#""type":"INSERT""#)
        })
        .count();
    let insert_partitions: BTreeSet<i32> =
        (1..=6).map(|i| order_partition(&i.to_string())).collect();
    assert!(insert_partitions.len() > 1);
    assert_eq!(insert_records, insert_partitions.len());

    // The same batch as protobuf records: entries regrouped per partition,
    // one order row per entry, no transaction boundaries.
    let proto = route(config(false), &entries);
    let mut order_rows = 0;
    for m in &proto {
        let packet = Packet::decode(m.payload.as_slice()).expect("a Packet");
        assert_eq!(packet.version, Some(1));
        let body = Messages::decode(packet.body.as_slice()).expect("Messages");
        assert!(!body.messages.is_empty());
        let mut rows_here = 0;
        for bytes in &body.messages {
            let entry = Entry::decode(bytes.as_slice()).expect("an Entry");
            let header = entry.header.clone().unwrap_or_default();
            assert!(
                entry.entry_type == Some(sluice_canal::proto::EntryType::RowData as i32),
                "no transaction boundaries"
            );
            let change = RowChange::decode(entry.store_value.as_deref().unwrap_or_default())
                .expect("a RowChange");
            rows_here += change.row_datas.len();
            if change.is_ddl == Some(true) || change.row_datas.is_empty() {
                assert_eq!(m.partition, Some(0));
                continue;
            }
            match header.table_name.as_deref() {
                Some("orders") => {
                    assert_eq!(m.topic, "orders");
                    assert_eq!(change.row_datas.len(), 1);
                    let row = &change.row_datas[0];
                    let image = if row.after_columns.is_empty() {
                        &row.before_columns
                    } else {
                        &row.after_columns
                    };
                    let id = image[0].value.as_deref().unwrap_or_default();
                    assert_eq!(m.partition, Some(order_partition(id)), "order {id}");
                    order_rows += 1;
                }
                Some("users") => {
                    assert_eq!(m.topic, "shop_all");
                    assert_eq!(m.partition, Some(users_partition));
                }
                other => panic!("unexpected table {other:?}"),
            }
        }
        assert_eq!(m.rows, rows_here);
    }
    assert_eq!(order_rows, 6 + 4 + 1);
}
