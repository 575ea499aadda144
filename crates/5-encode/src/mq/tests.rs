use super::*;
use sluice_canal::proto::{Column, Header, Pair, RowData};

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
        store_value: Some(change.encode_to_vec().into()),
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
        store_value: Some(change.encode_to_vec().into()),
    }
    .encode_to_vec()
}

fn boundary(kind: EntryType) -> Vec<u8> {
    Entry {
        header: Some(header("", "", 4)),
        entry_type: Some(kind as i32),
        store_value: Some(Default::default()),
    }
    .encode_to_vec()
}

fn route(config: RouteConfig, entries: &[Vec<u8>]) -> Vec<MqMessage> {
    route_with(
        MqRouter::new(config).expect("a valid route config"),
        entries,
    )
}

/// As [`route`], the records with their entries keys.
fn route_keyed(config: RouteConfig, entries: &[Vec<u8>]) -> Vec<MqMessage> {
    let router = MqRouter::new(config).expect("a valid route config");
    route_with(router.with_entries_keys(), entries)
}

fn route_with(router: MqRouter, entries: &[Vec<u8>]) -> Vec<MqMessage> {
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

/// A small xorshift generator: the same cases on every run.
struct Cases(u64);

impl Cases {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }
}

const NAMES: [&str; 6] = ["id", "name", "note", "é", "q\"x", "tab\tname"];
const VALUES: [&str; 9] = [
    "",
    "1",
    "42",
    "alice",
    "x\"y\\z\n",
    "naïve 😀",
    "\u{1}\u{1f}",
    "a long value that takes more than one machine word to scan",
    "polygenelubricants",
];

/// A ROWDATA entry as a table's rows nearly always are (every row lists the
/// same columns), with, now and then, what the general path handles alone:
/// rows with other, fewer, more or repeated columns, no columns, no rows,
/// DDL and other event types, NULLs with values, types changing by row.
/// A `snapshot` entry has the header props the snapshot reader gives:
/// `snapshot` = `true`, then `rowsCount` (when there are rows); it draws no
/// more numbers from `g` than another.
fn random_entry(g: &mut Cases, snapshot: bool) -> Vec<u8> {
    let event_type = match g.below(20) {
        0 => None,
        1 => Some(EventType::Alter),
        2 => Some(EventType::Query),
        3..=8 => Some(EventType::Insert),
        9..=14 => Some(EventType::Update),
        _ => Some(EventType::Delete),
    };
    let width = 1 + g.below(4);
    let mut names: Vec<&str> = Vec::new();
    while names.len() < width {
        let n = NAMES[g.below(NAMES.len())];
        if !names.contains(&n) {
            names.push(n);
        }
    }
    let keys: Vec<bool> = names.iter().map(|_| g.chance(40)).collect();
    let rows = if g.chance(3) { 0 } else { 1 + g.below(8) };
    let image = |g: &mut Cases, row: usize| -> Vec<Column> {
        let mut order: Vec<usize> = (0..width).collect();
        if row > 0 && g.chance(5) {
            match g.below(5) {
                0 => order.reverse(),
                1 => order.push(0),
                2 => {
                    order.pop();
                }
                3 => order.clear(),
                _ => order.insert(0, width - 1),
            }
        }
        let mut columns: Vec<Column> = order
            .iter()
            .map(|&i| {
                let null = g.chance(15);
                Column {
                    index: Some(i as i32),
                    sql_type: Some(if g.chance(5) {
                        4
                    } else {
                        [-5, 12, 4, -4][i % 4]
                    }),
                    name: Some(names[i].to_string()),
                    is_key: Some(keys[i]),
                    updated: Some(g.chance(30)),
                    is_null: Some(null),
                    value: if null && !g.chance(10) {
                        None
                    } else {
                        Some(VALUES[g.below(VALUES.len())].to_string())
                    },
                    length: Some(if g.chance(50) { 200 } else { 11 }),
                    mysql_type: Some(
                        if g.chance(5) {
                            "int(11)"
                        } else {
                            "varchar(64)"
                        }
                        .to_string(),
                    ),
                    props: Vec::new(),
                }
            })
            .collect();
        if g.chance(3) {
            if let Some(c) = columns.first_mut() {
                c.props = vec![sluice_canal::proto::Pair::new("k", "v")];
            }
        }
        columns
    };
    let row_datas = (0..rows)
        .map(|r| RowData {
            before_columns: image(g, r),
            after_columns: image(g, r),
            ..Default::default()
        })
        .collect();
    let change = RowChange {
        event_type: event_type.map(|t| t as i32),
        is_ddl: Some(g.chance(3)),
        sql: Some(if g.chance(10) { "insert \"x\"" } else { "" }.into()),
        row_datas,
        ..Default::default()
    };
    let schema = ["shop", "x", "naïve"][g.below(3)];
    let table = ["orders", "y", "users"][g.below(3)];
    let mut header = header(schema, table, 100 + g.below(1000) as i64);
    if g.chance(20) {
        header.gtid = Some("uuid:1-7".into());
    }
    if snapshot {
        header.props.push(Pair::new("snapshot", "true"));
        if rows > 0 {
            header.props.push(Pair::new("rowsCount", rows.to_string()));
        }
    }
    Entry {
        header: Some(header),
        entry_type: Some(if g.chance(3) {
            EntryType::TransactionEnd
        } else {
            EntryType::RowData
        } as i32),
        store_value: Some(change.encode_to_vec().into()),
    }
    .encode_to_vec()
}

/// The records the general path makes of one entry, or its error.
fn general(router: &MqRouter, bytes: &[u8], partitions: i32) -> Result<Vec<MqMessage>, String> {
    let view = EntryView::parse(bytes).map_err(|source| {
        MqError::Entry {
            batch_id: 9,
            source,
        }
        .to_string()
    })?;
    let e = BatchEntry { view, bytes };
    let mut out = Vec::new();
    router
        .flat_entry(9, 1_704_164_700_210, &e, "t", partitions, &mut out)
        .map_err(|e| e.to_string())?;
    Ok(out)
}

/// The records written straight from the entry's bytes are the general
/// path's, byte for byte, for every kind of placement; the entries that
/// path does not take are left to the general one. Entries of the common
/// form, of the other forms, then with bytes changed.
#[test]
fn flat_records_written_from_the_bytes_are_the_general_paths() {
    let configs = [
        RouteConfig {
            topic: "t".into(),
            partition: Some(2),
            ..Default::default()
        },
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(3),
            partition_hash: r".*\..*:$pk$".into(),
            ..Default::default()
        },
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(5),
            partition_hash: r"shop\..*:name^id,x\.y,.*\..*:note^missing^é".into(),
            database_hash: false,
            ..Default::default()
        },
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(1000),
            partition_hash: r"naïve\..*:$pk$,shop\.orders".into(),
            ..Default::default()
        },
    ];
    let routers: Vec<(MqRouter, i32)> = configs
        .into_iter()
        .map(|c| {
            let n = c.partitions_num.unwrap_or(1) as i32;
            (MqRouter::new(c).expect("a valid route config"), n)
        })
        .collect();
    let mut g = Cases(0x9e37_79b9_7f4a_7c15);
    let (mut fast, mut cases, mut fast_snapshots) = (0, 0, 0);
    for round in 0..6_000 {
        let mut bytes = random_entry(&mut g, round % 2 == 1);
        if round % 3 == 0 {
            for _ in 0..1 + g.below(3) {
                let at = g.below(bytes.len());
                match g.below(3) {
                    0 => bytes[at] = g.next() as u8,
                    1 => {
                        bytes.remove(at);
                    }
                    _ => bytes.insert(at, g.next() as u8),
                }
            }
        }
        let Ok(view) = EntryView::parse(&bytes) else {
            continue;
        };
        let e = BatchEntry {
            view,
            bytes: &bytes,
        };
        for (router, partitions) in &routers {
            cases += 1;
            let want = general(router, &bytes, *partitions);
            // Snapshot rows, and only they, have the `snapshot` key.
            let mark = e
                .view
                .header
                .snapshot
                .then_some(&serde_json::Value::Bool(true));
            for m in want.iter().flatten() {
                assert_eq!(json(m).get("snapshot"), mark, "{bytes:?}");
            }
            let mut got = Vec::new();
            if router.flat_parts(9, 1_704_164_700_210, &e, "t", *partitions, &mut got) {
                fast += 1;
                fast_snapshots += usize::from(e.view.header.snapshot);
                assert_eq!(Ok(&got), want.as_ref(), "{bytes:?}");
                for m in &got {
                    let text = std::str::from_utf8(&m.payload).expect("UTF-8");
                    serde_json::from_str::<serde_json::Value>(text).expect("JSON");
                }
            } else {
                assert!(got.is_empty());
            }
        }
    }
    // Most entries of the common form take the fast path, snapshot rows
    // too (half the entries are marked).
    assert!(fast * 3 > cases, "{fast} of {cases}");
    assert!(fast_snapshots * 3 > fast, "{fast_snapshots} of {fast}");
}

/// Whole batches routed are the same with the fast path as entry by entry
/// through the general path.
#[test]
fn batches_route_the_same_through_either_path() {
    let config = RouteConfig {
        topic: "t".into(),
        partitions_num: Some(3),
        partition_hash: r".*\..*:$pk$".into(),
        ..Default::default()
    };
    let router = MqRouter::new(config).expect("a valid route config");
    let mut g = Cases(0x2545_f491_4f6c_dd1d);
    for _ in 0..300 {
        let batch: Vec<Vec<u8>> = (0..1 + g.below(6))
            .map(|i| random_entry(&mut g, i % 2 == 1))
            .collect();
        let mut got = Vec::new();
        let routed = router.messages(9, &batch, 1_704_164_700_210, &mut got);
        let mut want = Vec::new();
        let mut failed = None;
        for bytes in &batch {
            match general(&router, bytes, 3) {
                Ok(records) => want.extend(records),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            }
        }
        match (routed, failed) {
            (Ok(()), None) => assert_eq!(got, want),
            (Err(e), Some(f)) => assert_eq!(e.to_string(), f),
            (r, f) => panic!("routed {r:?}, general {f:?}"),
        }
    }
}

/// Every INSERT rows event of the binlog corpus as the Canal entry the
/// encoder makes of it, and as the snapshot reader marks it: the prop
/// `snapshot` = `true` inserted before `rowsCount`. Columns are described
/// as a schema would (the corpus's table maps mostly carry no names), the
/// first one the key.
fn encoded_inserts() -> Vec<(Vec<u8>, Vec<u8>)> {
    use sluice_binlog::events::EventData;
    use sluice_binlog::RowsKind;
    use sluice_events::{ChangeBuilder, ColumnInfo, Position, RowsChange};

    let mut pairs = Vec::new();
    for (name, buf) in sluice_testkit::corpus::corpus_binlogs() {
        let mut changes = ChangeBuilder::new();
        let mut encoder = crate::canal::CanalEncoder::new(false);
        let _ = sluice_binlog::walk_file(&name, &buf, |at, raw, data| {
            let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
            if let EventData::Rows(rows) = data {
                if matches!(rows.kind, RowsKind::Write) {
                    let infos: Vec<ColumnInfo> = (rows.table.columns.iter().enumerate())
                        .map(|(i, c)| ColumnInfo {
                            name: format!("col_{i}"),
                            mysql_type: c.column_type.sql_name().to_string(),
                            is_key: i == 0,
                            default: None,
                        })
                        .collect();
                    let change =
                        RowsChange::new(position, changes.state(), rows, Some(infos.as_slice()));
                    if let Ok(built) = encoder.rows_entry(&change) {
                        let plain = built.entry.encode_to_vec();
                        let mut entry = built.entry;
                        if let Some(h) = entry.header.as_mut() {
                            let at = h.props.len().saturating_sub(1);
                            h.props.insert(at, Pair::new("snapshot", "true"));
                        }
                        pairs.push((plain, entry.encode_to_vec()));
                    }
                }
            } else if let Some(event) = changes.on_event(position, data, None) {
                let _ = encoder.entries(&event);
            }
            std::ops::ControlFlow::Continue(())
        });
    }
    pairs
}

/// Snapshot rows built by the encoder: both FlatMessage paths write the
/// same bytes, which are the unmarked entry's with `,"snapshot":true` after
/// `pkNames`, in every record of every placement.
#[test]
fn snapshot_entries_of_the_encoder_are_marked_the_same_by_both_paths() {
    let configs = [
        RouteConfig {
            topic: "t".into(),
            partition: Some(0),
            ..Default::default()
        },
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(3),
            partition_hash: r".*\..*:$pk$".into(),
            ..Default::default()
        },
        RouteConfig {
            topic: "t".into(),
            partitions_num: Some(4),
            partition_hash: r".*\..*".into(),
            ..Default::default()
        },
    ];
    let pairs = encoded_inserts();
    assert!(pairs.len() > 50, "only {} INSERT events", pairs.len());
    let (mut fast, mut records) = (0, 0);
    for config in configs {
        let partitions = config.partitions_num.unwrap_or(1) as i32;
        let router = MqRouter::new(config).expect("a valid route config");
        for (plain, marked) in &pairs {
            let view = EntryView::parse(marked).expect("an entry");
            assert!(view.header.snapshot);
            assert!(!EntryView::parse(plain).expect("an entry").header.snapshot);
            let want = general(&router, marked, partitions).expect("records");
            let unmarked = general(&router, plain, partitions).expect("records");
            assert_eq!(want.len(), unmarked.len());
            for (m, u) in want.iter().zip(&unmarked) {
                let text = std::str::from_utf8(&m.payload).expect("UTF-8");
                let u = std::str::from_utf8(&u.payload).expect("UTF-8");
                const MARK: &str = ",\"snapshot\":true,\"sql\":";
                assert_eq!(text.matches(MARK).count(), 1, "{text}");
                assert_eq!(text.replacen(MARK, ",\"sql\":", 1), u);
                let at = text.find(MARK).unwrap_or_default();
                assert!(text[..at].ends_with(']') || text[..at].ends_with("null"));
                assert!(text[..at].contains(",\"pkNames\":"));
                assert_eq!(json(m)["snapshot"], serde_json::Value::Bool(true));
                assert!(json(&unmarked[0]).get("snapshot").is_none());
                records += 1;
            }
            let e = BatchEntry {
                view,
                bytes: marked,
            };
            let mut got = Vec::new();
            if router.flat_parts(9, 1_704_164_700_210, &e, "t", partitions, &mut got) {
                fast += 1;
                assert_eq!(got, want);
            }
        }
    }
    // Most by the fast path (the others, such as rows with columns left out
    // of their image, by the general path alone).
    let cases = pairs.len() * 3;
    assert!(fast * 2 > cases, "{fast} of {cases} by the fast path");
    assert!(records >= pairs.len() * 3);
}

/// Protobuf records (`canal.mq.flatMessage = false`) carry snapshot entries
/// as they are, props included: the batch as read, and each row an entry of
/// its own when rows are split by a hash.
#[test]
fn protobuf_records_keep_the_snapshot_prop() {
    let pairs = encoded_inserts();
    let marked: Vec<Vec<u8>> = pairs.into_iter().map(|(_, m)| m).take(40).collect();
    let props = |bytes: &[u8]| {
        let entry = Entry::decode(bytes).expect("an entry");
        entry
            .header
            .expect("a header")
            .props
            .iter()
            .map(|p| (p.key().to_string(), p.value().to_string()))
            .collect::<Vec<_>>()
    };
    for config in [
        RouteConfig {
            flat_message: false,
            topic: "t".into(),
            partition: Some(0),
            ..Default::default()
        },
        RouteConfig {
            flat_message: false,
            topic: "t".into(),
            partitions_num: Some(3),
            partition_hash: r".*\..*:$pk$".into(),
            ..Default::default()
        },
    ] {
        let split = !config.partition_hash.is_empty();
        let out = route(config, &marked);
        let mut entries = 0;
        for m in &out {
            for bytes in packet(m).1.messages {
                let props = props(&bytes);
                let snapshot = ("snapshot".to_string(), "true".to_string());
                assert_eq!(props.iter().filter(|p| **p == snapshot).count(), 1);
                // Before `rowsCount`, which stays last.
                assert_eq!(props.last().map(|p| p.0.as_str()), Some("rowsCount"));
                assert_eq!(props[props.len() - 2], snapshot);
                if !split {
                    assert!(marked.contains(&bytes));
                }
                entries += 1;
            }
        }
        assert!(entries >= marked.len());
    }
}

/// An entry like `rows_entry`'s at `offset`.
fn rows_entry_at(offset: i64, rows: &[(&str, Option<&str>)]) -> Vec<u8> {
    let mut entry = Entry::decode(rows_entry("shop", "users", EventType::Insert, rows).as_slice())
        .expect("an entry");
    if let Some(h) = entry.header.as_mut() {
        h.logfile_offset = Some(offset);
    }
    entry.encode_to_vec()
}

#[test]
fn entries_key_is_the_same_for_the_same_entries_and_differs_otherwise() {
    let a = rows_entry_at(100, &[("1", Some("a"))]);
    let b = rows_entry_at(200, &[("2", Some("b"))]);
    // Snapshot rows read at one binlog point share a position.
    let b_twin = rows_entry_at(200, &[("3", Some("c"))]);
    let flat = RouteConfig {
        topic: "t".into(),
        ..Default::default()
    };
    // Only a router asked for them gives keys: hashing costs.
    assert!(route(flat.clone(), std::slice::from_ref(&a))[0]
        .entries_key
        .is_empty());
    let first = route_keyed(flat.clone(), &[a.clone(), b.clone()]);
    let again = route_keyed(flat.clone(), &[b.clone(), b_twin.clone()]);
    assert_eq!(first[1].entries_key, again[0].entries_key, "same entry");
    assert!(first[1].entries_key.starts_with("mysql-bin.000003:200#"));
    assert_ne!(again[0].entries_key, again[1].entries_key, "same position");
    assert_ne!(first[0].entries_key, first[1].entries_key);

    // One protobuf record per batch: a batch cut elsewhere is other entries.
    let proto = RouteConfig {
        flat_message: false,
        ..flat.clone()
    };
    let whole = route_keyed(proto.clone(), &[a.clone(), b.clone()]);
    assert_eq!(whole.len(), 1);
    assert!(
        whole[0]
            .entries_key
            .starts_with("mysql-bin.000003:100-mysql-bin.000003:200#"),
        "{}",
        whole[0].entries_key
    );
    assert_eq!(
        whole[0].entries_key,
        route_keyed(proto.clone(), &[a.clone(), b.clone()])[0].entries_key
    );
    assert_ne!(
        whole[0].entries_key,
        route_keyed(proto, std::slice::from_ref(&a))[0].entries_key
    );

    // Rows of one entry split over partitions share its key.
    let split = route_keyed(
        RouteConfig {
            partitions_num: Some(4),
            partition_hash: r"shop\.users:id".into(),
            ..flat
        },
        &[rows_entry_at(
            300,
            &[("1", None), ("2", None), ("3", None), ("4", None)],
        )],
    );
    assert!(split.len() > 1, "{split:?}");
    assert!(split.iter().all(|m| m.entries_key == split[0].entries_key));
}
