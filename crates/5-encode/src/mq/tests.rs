use super::*;
use sluice_canal::proto::{Column, Header, RowData};

fn column(name: &str, key: bool, value: Option<&str>) -> Column {
    Column {
        name: Some(name.into()),
        is_key: Some(key),
        sql_type: Some(if key { -5 } else { 12 }),
        mysql_type: Some(if key { "bigint(20)" } else { "varchar(32)" }.into()),
        is_null: Some(value.is_none()),
        value: value.map(str::to_string),
        updated: Some(false),
        ..Default::default()
    }
}

fn header(schema: &str, table: &str, offset: i64) -> Header {
    Header {
        logfile_name: Some("mysql-bin.000003".into()),
        logfile_offset: Some(offset),
        schema_name: Some(schema.into()),
        table_name: Some(table.into()),
        execute_time: Some(1_704_164_700_000),
        ..Default::default()
    }
}

/// A ROWDATA entry of `rows` (after images, before images for DELETE),
/// each row `(id, name)` with `id` the key.
fn rows_entry(schema: &str, table: &str, op: EventType, rows: &[(&str, Option<&str>)]) -> Vec<u8> {
    let row_datas = rows
        .iter()
        .map(|(id, name)| {
            let image = vec![column("id", true, Some(id)), column("name", false, *name)];
            match op {
                EventType::Delete => RowData {
                    before_columns: image,
                    ..Default::default()
                },
                EventType::Update => {
                    let mut after = image.clone();
                    after[1].updated = Some(true);
                    after[1].value = Some(format!("new-{id}"));
                    after[1].is_null = Some(false);
                    RowData {
                        before_columns: image,
                        after_columns: after,
                        ..Default::default()
                    }
                }
                _ => RowData {
                    after_columns: image,
                    ..Default::default()
                },
            }
        })
        .collect();
    let change = RowChange {
        event_type: Some(op as i32),
        is_ddl: Some(false),
        row_datas,
        ..Default::default()
    };
    Entry {
        header: Some(header(schema, table, 100)),
        entry_type: Some(EntryType::RowData as i32),
        store_value: Some(change.encode_to_vec()),
    }
    .encode_to_vec()
}

fn ddl_entry(schema: &str, table: &str, sql: &str) -> Vec<u8> {
    let change = RowChange {
        event_type: Some(EventType::Alter as i32),
        is_ddl: Some(true),
        sql: Some(sql.into()),
        ..Default::default()
    };
    Entry {
        header: Some(header(schema, table, 200)),
        entry_type: Some(EntryType::RowData as i32),
        store_value: Some(change.encode_to_vec()),
    }
    .encode_to_vec()
}

fn boundary(kind: EntryType) -> Vec<u8> {
    Entry {
        header: Some(header("", "", 4)),
        entry_type: Some(kind as i32),
        store_value: Some(Vec::new()),
    }
    .encode_to_vec()
}

fn route(config: RouteConfig, entries: &[Vec<u8>]) -> Vec<MqMessage> {
    let router = MqRouter::new(config).expect("a valid route config");
    let mut out = Vec::new();
    router
        .messages(9, entries, 1_704_164_700_210, &mut out)
        .expect("records");
    out
}

fn json(m: &MqMessage) -> serde_json::Value {
    serde_json::from_slice(&m.payload).expect("FlatMessage JSON")
}

fn ids(m: &MqMessage) -> Vec<String> {
    json(m)["data"]
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| r["id"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The topic an entry of `schema.table` goes to under `dynamic_topic`.
fn topic_of(dynamic_topic: &str, schema: &str, table: &str) -> String {
    let config = RouteConfig {
        topic: "default.topic".into(),
        dynamic_topic: dynamic_topic.into(),
        ..Default::default()
    };
    let out = route(
        config,
        &[rows_entry(schema, table, EventType::Insert, &[("1", None)])],
    );
    assert_eq!(out.len(), 1);
    out[0].topic.clone()
}

/// The examples of Canal's MQ quick start, as `instance.properties` values
/// after the properties file's own unescaping (`\\.` there is `\.` here).
#[test]
fn dynamic_topic_examples() {
    assert_eq!(topic_of(r"test\.test", "test", "test"), "test_test");
    assert_eq!(topic_of(r"test\.test", "test", "other"), "default_topic");
    assert_eq!(topic_of(r".*\..*", "shop", "orders"), "shop_orders");
    assert_eq!(topic_of("test", "test", "anything"), "test");
    assert_eq!(topic_of("test", "test1", "anything"), "default_topic");
    let both = r"test,test1\.test1";
    assert_eq!(topic_of(both, "test", "t"), "test");
    assert_eq!(topic_of(both, "test1", "test1"), "test1_test1");
    assert_eq!(topic_of(both, "test1", "test2"), "default_topic");
    assert_eq!(topic_of(r"testA:test\..*", "test", "x"), "testA");
    let prefixed = r"test0:test,test1:test1\.test1";
    assert_eq!(topic_of(prefixed, "test", "x"), "test0");
    assert_eq!(topic_of(prefixed, "test1", "test1"), "test1");
    assert_eq!(topic_of(prefixed, "test1", "x"), "default_topic");
}

/// A regex without `\.` is a schema pattern: it is tried on the schema
/// only, even when it could match `schema.table`; names match whatever
/// their case and the topic is the matched name lower-cased.
#[test]
fn dynamic_topic_pattern_kinds_and_case() {
    assert_eq!(topic_of("test.*", "testdb", "t"), "testdb");
    assert_eq!(topic_of("shop.+", "shop", "orders"), "default_topic");
    assert_eq!(topic_of(r"Test\.Test", "TEST", "test"), "test_test");
    assert_eq!(topic_of("SHOP", "shop", "x"), "shop");
    assert_eq!(topic_of("Shop.Orders", "shop", "ORDERS"), "shop_orders");
    // First matching rule wins; `schema.table` is tried on every rule first.
    assert_eq!(topic_of(r"a:shop, b:shop\.orders", "shop", "orders"), "b");
    assert_eq!(
        topic_of(r"a:shop\..*; b:shop\.orders", "shop", "orders"),
        "a"
    );
}

/// Dynamic routing drops transaction boundaries; entries without a table
/// go to the default topic; the static topic is used as written, the
/// default topic of dynamic routing with `.` made `_`, as Canal does.
#[test]
fn dynamic_topic_drops_boundaries_and_keeps_the_static_topic_as_written() {
    let entries = [
        boundary(EntryType::TransactionBegin),
        rows_entry("shop", "orders", EventType::Insert, &[("1", None)]),
        rows_entry("shop", "users", EventType::Insert, &[("2", None)]),
        ddl_entry("shop", "", "CREATE DATABASE shop"),
        boundary(EntryType::TransactionEnd),
    ];
    let config = RouteConfig {
        topic: "all.rows".into(),
        dynamic_topic: r"shop\.orders".into(),
        ..Default::default()
    };
    let out = route(config.clone(), &entries);
    let topics: Vec<&str> = out.iter().map(|m| m.topic.as_str()).collect();
    assert_eq!(topics, ["shop_orders", "all_rows", "all_rows"]);
    let static_only = route(
        RouteConfig {
            dynamic_topic: String::new(),
            ..config
        },
        &entries,
    );
    let topics: Vec<&str> = static_only.iter().map(|m| m.topic.as_str()).collect();
    assert_eq!(topics, ["all.rows", "all.rows", "all.rows"]);
}

#[test]
fn bad_rules_are_refused_naming_the_key() {
    let err = |config: RouteConfig| MqRouter::new(config).unwrap_err().to_string();
    let e = err(RouteConfig {
        partition_hash: r"shop\.(orders:id".into(),
        ..Default::default()
    });
    assert!(e.starts_with("canal.mq.partitionHash: rule"), "{e}");
    assert!(e.contains("not a valid regular expression"), "{e}");
    let e = err(RouteConfig {
        dynamic_topic: r"t:shop\.[x".into(),
        ..Default::default()
    });
    assert!(
        e.starts_with("canal.mq.dynamicTopic: rule \"t:shop\\\\.[x\""),
        "{e}"
    );
    let e = err(RouteConfig {
        partitions_num: Some(0),
        ..Default::default()
    });
    assert_eq!(
        e,
        "canal.mq.partitionsNum = 0: expected a number from 1 to 2147483647"
    );
    let e = err(RouteConfig {
        dynamic_topic_partition_num: "orders:4,users".into(),
        ..Default::default()
    });
    assert_eq!(
        e,
        "canal.mq.dynamicTopicPartitionNum: rule \"users\": no partition count (expected topic:count, e.g. mytopic:6)"
    );
    let e = err(RouteConfig {
        dynamic_topic_partition_num: "orders:four".into(),
        ..Default::default()
    });
    assert!(
        e.contains("partition count \"four\" is not a number"),
        "{e}"
    );
    let e = err(RouteConfig {
        dynamic_topic_partition_num: "orders:0".into(),
        ..Default::default()
    });
    assert!(e.contains("partition count \"0\""), "{e}");
    let e = err(RouteConfig {
        partition_hash: r"shop\.orders:".into(),
        ..Default::default()
    });
    assert!(e.contains("no column after ':'"), "{e}");
    let e = err(RouteConfig {
        partition_hash: ":id".into(),
        ..Default::default()
    });
    assert!(e.contains("no table pattern before ':'"), "{e}");
    let e = err(RouteConfig {
        dynamic_topic: ":shop".into(),
        ..Default::default()
    });
    assert!(e.contains("no topic before ':'"), "{e}");
}

#[test]
fn partition_hash_rules_parse_as_canal_splits_them() {
    let rules = PartitionRules::parse(r"test\.test:id^Name ; .*\..*:$PK$, other.t ,").unwrap();
    assert_eq!(
        rules.mode("test", "test"),
        Some(&HashMode::Columns(vec!["id".into(), "Name".into()]))
    );
    assert_eq!(rules.mode("shop", "x"), Some(&HashMode::PrimaryKey));
    let table_only = PartitionRules::parse("other.t").unwrap();
    assert_eq!(table_only.mode("OTHER", "T"), Some(&HashMode::Table));
    assert_eq!(table_only.mode("other", "tt"), None);
    let partitions = TopicPartitions::parse("test.*:4;mycanal:6").unwrap();
    assert_eq!(partitions.partitions("test_orders"), Some(4));
    assert_eq!(partitions.partitions("MyCanal"), Some(6));
    assert_eq!(partitions.partitions("other"), None);
}

/// Without a hash every record goes to `canal.mq.partition`; with one,
/// DDL and tables no rule matches go to partition 0.
#[test]
fn fixed_partition_and_partition_zero() {
    let entries = [
        rows_entry(
            "shop",
            "orders",
            EventType::Insert,
            &[("1", None), ("2", None)],
        ),
        ddl_entry("shop", "orders", "ALTER TABLE orders ADD x INT"),
    ];
    let out = route(
        RouteConfig {
            topic: "t".into(),
            partition: Some(2),
            ..Default::default()
        },
        &entries,
    );
    assert_eq!(
        out.iter().map(|m| m.partition).collect::<Vec<_>>(),
        [Some(2), Some(2)]
    );
    assert_eq!(
        out.iter().map(|m| m.key.clone()).collect::<Vec<_>>(),
        [None, None]
    );
    assert_eq!(out[0].rows, 2);
    assert_eq!(out[0].origin, "shop.orders at mysql-bin.000003:100");
    let out = route(
        RouteConfig {
            topic: "t".into(),
            partition: Some(2),
            partitions_num: Some(4),
            partition_hash: r"shop\.users:id".into(),
            ..Default::default()
        },
        &entries,
    );
    assert_eq!(
        out.iter().map(|m| m.partition).collect::<Vec<_>>(),
        [Some(0), Some(0)]
    );
}

/// A table rule moves the whole FlatMessage to the table name's partition.
#[test]
fn table_hash_keeps_a_table_together() {
    let entries = [rows_entry(
        "shop",
        "orders",
        EventType::Insert,
        &[("1", None), ("2", None), ("3", None)],
    )];
    let out = route(
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(5),
            partition_hash: r".*\..*".into(),
            ..Default::default()
        },
        &entries,
    );
    assert_eq!(out.len(), 1);
    assert_eq!(
        out[0].partition,
        Some(java_partition(java_string_hash("orders"), 5))
    );
    assert_eq!(out[0].key.as_deref(), Some(&b"shop.orders"[..]));
    assert_eq!(ids(&out[0]), ["1", "2", "3"]);
}

/// A column rule splits an entry's rows into one FlatMessage per
/// partition, in partition order, `old` kept beside its row.
#[test]
fn column_hash_splits_rows_and_keeps_old_aligned() {
    let rows: Vec<(String, Option<&str>)> = (1..=12).map(|i| (i.to_string(), Some("x"))).collect();
    let rows: Vec<(&str, Option<&str>)> = rows.iter().map(|(i, n)| (i.as_str(), *n)).collect();
    let entries = [rows_entry("shop", "orders", EventType::Update, &rows)];
    for database_hash in [true, false] {
        let out = route(
            RouteConfig {
                topic: "t".into(),
                partitions_num: Some(3),
                partition_hash: r"shop\.orders:id".into(),
                database_hash,
                ..Default::default()
            },
            &entries,
        );
        let partitions: Vec<i32> = out.iter().filter_map(|m| m.partition).collect();
        let mut sorted = partitions.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(partitions, sorted, "one record per partition, in order");
        let mut seen = 0;
        for m in &out {
            let doc = json(m);
            let ids = ids(m);
            assert_eq!(m.rows, ids.len());
            assert_eq!(m.key.as_deref(), Some(ids[0].as_bytes()));
            for (i, id) in ids.iter().enumerate() {
                let h = row_hash("shop", database_hash, [Some(id.as_str())]);
                assert_eq!(m.partition, Some(java_partition(h, 3)), "row {id}");
                assert_eq!(doc["old"][i]["name"], "x");
                assert_eq!(doc["data"][i]["name"], format!("new-{id}"));
            }
            assert_eq!(doc["pkNames"], serde_json::json!(["id"]));
            seen += ids.len();
        }
        assert_eq!(seen, 12);
    }
}

/// `$pk$` hashes the key columns; NULL hashes as `""`; a topic's own
/// partition count (dynamicTopicPartitionNum) wins over partitionsNum.
#[test]
fn primary_key_hash_and_topic_partition_counts() {
    let entries = [
        rows_entry(
            "shop",
            "orders",
            EventType::Delete,
            &[("7", None), ("8", None)],
        ),
        rows_entry(
            "shop",
            "users",
            EventType::Insert,
            &[("7", None), ("8", None)],
        ),
    ];
    let out = route(
        RouteConfig {
            topic: "t".into(),
            dynamic_topic: r".*\..*".into(),
            partitions_num: Some(1),
            dynamic_topic_partition_num: "shop_users:7".into(),
            partition_hash: r".*\..*:$pk$,x.y:name".into(),
            ..Default::default()
        },
        &entries,
    );
    for m in &out {
        let n = if m.topic == "shop_users" { 7 } else { 1 };
        for id in ids(m) {
            let h = row_hash("shop", true, [Some(id.as_str())]);
            assert_eq!(
                m.partition,
                Some(java_partition(h, n)),
                "{} row {id}",
                m.topic
            );
        }
    }
    let topics: Vec<&str> = out.iter().map(|m| m.topic.as_str()).collect();
    assert!(
        topics.contains(&"shop_users") && topics.contains(&"shop_orders"),
        "{topics:?}"
    );
    // A NULL column hashes as "", a missing one too.
    let nulls = [rows_entry("x", "y", EventType::Insert, &[("1", None)])];
    let out = route(
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(1000),
            partition_hash: "x.y:name^missing".into(),
            ..Default::default()
        },
        &nulls,
    );
    let h = java_string_hash("x");
    assert_eq!(out[0].partition, Some(java_partition(h, 1000)));
    assert_eq!(out[0].key.as_deref(), Some(&b"^"[..]));
}

fn packet(m: &MqMessage) -> (Packet, Messages) {
    let p = Packet::decode(m.payload.as_slice()).expect("a Packet");
    let body = Messages::decode(p.body.as_slice()).expect("Messages");
    (p, body)
}

/// Without routing a protobuf record is the batch as read, the way Canal
/// serialises a raw message: type and body only, the batch id always set,
/// transaction boundaries kept.
#[test]
fn protobuf_batch_as_read() {
    let entries = vec![
        boundary(EntryType::TransactionBegin),
        rows_entry(
            "shop",
            "orders",
            EventType::Insert,
            &[("1", None), ("2", None)],
        ),
        boundary(EntryType::TransactionEnd),
    ];
    let config = RouteConfig {
        flat_message: false,
        topic: "t".into(),
        partition: Some(1),
        ..Default::default()
    };
    let out = route(config.clone(), &entries);
    assert_eq!(out.len(), 1);
    let (p, body) = packet(&out[0]);
    assert_eq!(p.r#type, PacketType::Messages as i32);
    assert_eq!(
        (p.version, p.compression, p.magic_number),
        (None, None, None)
    );
    assert_eq!(body.batch_id, 9);
    assert_eq!(body.messages, entries);
    assert_eq!(out[0].partition, Some(1));
    assert_eq!(out[0].rows, 2);
    assert_eq!(out[0].origin, "shop.orders at mysql-bin.000003:100");
    // Non-raw with the transaction filter: version 1, no batch id, no boundaries.
    let out = route(
        RouteConfig {
            raw_entry: false,
            filter_transaction_entry: true,
            ..config
        },
        &entries,
    );
    let (p, body) = packet(&out[0]);
    assert_eq!(p.version, Some(1));
    assert_eq!(body.batch_id, 0);
    assert_eq!(body.messages, entries[1..2]);
}

/// With a column rule, protobuf records carry one row per entry, regrouped
/// per partition; DDL goes to partition 0; boundaries are dropped.
#[test]
fn protobuf_rows_split_per_partition() {
    let entries = vec![
        boundary(EntryType::TransactionBegin),
        rows_entry(
            "shop",
            "orders",
            EventType::Insert,
            &[("1", None), ("2", None), ("3", None), ("4", None)],
        ),
        ddl_entry("shop", "orders", "ALTER TABLE orders ADD x INT"),
        rows_entry("shop", "users", EventType::Insert, &[("5", None)]),
        boundary(EntryType::TransactionEnd),
    ];
    let out = route(
        RouteConfig {
            flat_message: false,
            topic: "t".into(),
            partitions_num: Some(4),
            partition_hash: r"shop\.orders:ID,shop\.users".into(),
            ..Default::default()
        },
        &entries,
    );
    let mut rows_seen = 0;
    let mut ddl_seen = false;
    for m in &out {
        let (p, body) = packet(m);
        assert_eq!(p.version, Some(1));
        assert_eq!(body.batch_id, 0);
        let mut rows_here = 0;
        for bytes in &body.messages {
            let entry = Entry::decode(bytes.as_slice()).unwrap();
            assert_eq!(entry.entry_type, Some(EntryType::RowData as i32));
            let change = RowChange::decode(entry.store_value.as_deref().unwrap()).unwrap();
            let table = entry.header.unwrap().table_name.unwrap();
            if change.is_ddl == Some(true) {
                assert_eq!(m.partition, Some(0));
                ddl_seen = true;
                continue;
            }
            if table == "users" {
                let p = java_partition(java_string_hash("users"), 4);
                assert_eq!(m.partition, Some(p));
                continue;
            }
            assert_eq!(change.row_datas.len(), 1, "one row per entry");
            let id = change.row_datas[0].after_columns[0].value.clone().unwrap();
            let h = row_hash("shop", true, [Some(id.as_str())]);
            assert_eq!(m.partition, Some(java_partition(h, 4)), "row {id}");
            rows_here += 1;
            rows_seen += 1;
        }
        assert!(m.rows >= rows_here);
    }
    assert_eq!(rows_seen, 4);
    assert!(ddl_seen);
}

/// The bytes Canal's serializer writes, field by field: the raw path
/// (type 3, body 5 with batch id 1 and entries 2) and the entries path
/// (version 2 = 1, type 3, body 5 with entries only).
#[test]
fn protobuf_packets_are_byte_for_byte_canals() {
    let entry = boundary(EntryType::TransactionBegin);
    let mut messages = vec![0x12, entry.len() as u8];
    messages.extend_from_slice(&entry);
    let raw = raw_packet(9, &[&entry]);
    let mut want = vec![0x18, 0x07, 0x2a, (2 + messages.len()) as u8, 0x08, 9];
    want.extend_from_slice(&messages);
    assert_eq!(raw, want);
    let entries = entries_packet([entry.as_slice()]);
    let mut want = vec![0x10, 0x01, 0x18, 0x07, 0x2a, messages.len() as u8];
    want.extend_from_slice(&messages);
    assert_eq!(entries, want);
}
