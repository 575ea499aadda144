//! Column filters in every encoder, on a private MariaDB's binlog: a row
//! inserted, updated in a hidden column only, updated in a shown one, and
//! deleted. A hidden column is in no value, name, type or schema; masks
//! replace values as Debezium's do.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::sync::{Arc, OnceLock};

use prost::Message;
use serde_json::Value as Json;
use sluice_canal::proto::RowChange;
use sluice_encode::canal::CanalEncoder;
use sluice_encode::debezium::{
    DebeziumColumnRules, DebeziumEncoder, DebeziumOptions, DebeziumRecord,
};
use sluice_encode::flat::{FlatEncoder, FlatMessage};
use sluice_encode::tail::TailEncoder;
use sluice_events::{
    CanalColumnRules, ChangeBuilder, ColumnInfo, ColumnRules, Encoder, Position, Projections,
};
use sluice_testkit::{MariaDb, MariaDbConfig};

/// The binlog files of the server that ran the statements, and its
/// tables' columns as a schema tracker describes them.
struct Fixture {
    files: Vec<(String, Vec<u8>)>,
    columns: HashMap<String, Vec<ColumnInfo>>,
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(|| {
        let db = MariaDb::start(MariaDbConfig::default()).expect("a private MariaDB");
        for sql in [
            "CREATE DATABASE shop",
            "CREATE TABLE shop.users (id BIGINT PRIMARY KEY, name VARCHAR(32), \
             email VARCHAR(16), phone VARCHAR(16), tier ENUM('gold','tin'))",
            "CREATE TABLE shop.orders (id BIGINT PRIMARY KEY, total INT)",
            "INSERT INTO shop.users VALUES (1, 'alice', 'a@example.org', '555-1234', 'gold')",
            "UPDATE shop.users SET email = 'b@example.org' WHERE id = 1",
            "UPDATE shop.users SET name = 'alicia' WHERE id = 1",
            "INSERT INTO shop.orders VALUES (10, 99)",
            "DELETE FROM shop.users WHERE id = 1",
        ] {
            db.exec(sql).expect(sql);
        }
        db.flush_binlogs().expect("flush");
        let mut columns: HashMap<String, Vec<ColumnInfo>> = HashMap::new();
        for row in db
            .query(
                "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY FROM information_schema.COLUMNS \
                 WHERE TABLE_SCHEMA = 'shop' ORDER BY TABLE_NAME, ORDINAL_POSITION",
            )
            .expect("columns")
        {
            let text = |i: usize| row[i].clone().unwrap_or_default();
            columns.entry(text(0)).or_default().push(ColumnInfo {
                name: text(1),
                mysql_type: text(2),
                is_key: text(3) == "PRI",
                default: None,
            });
        }
        let files = db
            .binlog_files()
            .expect("binlog files")
            .into_iter()
            .map(|p| {
                let name = p.display().to_string();
                (name, std::fs::read(&p).expect("a readable binlog"))
            })
            .collect();
        Fixture { files, columns }
    })
}

/// Every output `encoder` gives of the binlog, each rows event shown
/// through the projection `rules` give its table.
fn encode<E: Encoder>(encoder: &mut E, rules: Arc<dyn ColumnRules>) -> Vec<E::Output>
where
    E::Error: std::fmt::Debug,
{
    let mut changes = ChangeBuilder::new();
    let mut projections = Projections::new(rules);
    let mut out = Vec::new();
    let f = fixture();
    for (name, bytes) in &f.files {
        let walked = sluice_binlog::walk_file(name, bytes, |at, raw, data| {
            let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
            let (keep, info) = match data {
                sluice_binlog::EventData::Rows(r) if r.table.schema == "shop" => {
                    let info = f.columns.get(&r.table.table).map(Vec::as_slice);
                    let change = sluice_events::RowsChange::new(position, changes.state(), r, info);
                    (projections.get(r.table_id, &change.table), info)
                }
                _ => (None, None),
            };
            if let Some(event) = changes.on_event(position, data, info) {
                let event = event.with_projection(keep.as_ref());
                encoder.encode(&event, &mut out).expect("encoded");
            }
            ControlFlow::Continue(())
        });
        assert!(walked.is_ok(), "{name}: {walked:?}");
    }
    out
}

fn canal(white: &str, black: &str) -> Arc<dyn ColumnRules> {
    let parse = |t: &str| sluice_config::parse_field_rules(t).expect("rules");
    let (white, black) = (parse(white), parse(black));
    Arc::new(CanalColumnRules::new(
        white.iter().map(|r| (r.table.as_str(), r.columns.clone())),
        black.iter().map(|r| (r.table.as_str(), r.columns.clone())),
    ))
}

fn users(messages: Vec<FlatMessage>) -> Vec<Json> {
    messages
        .into_iter()
        .filter(|m| m.table == "users" && !m.is_ddl)
        .map(|m| serde_json::from_str(&m.to_json()).expect("JSON"))
        .collect()
}

#[test]
fn flat_messages_leave_black_listed_columns_out_everywhere() {
    let mut encoder = FlatEncoder::new(false);
    let messages = users(encode(&mut encoder, canal("", "shop.users:EMAIL/phone")));
    let types: Vec<&str> = messages
        .iter()
        .map(|m| m["type"].as_str().unwrap())
        .collect();
    // The update of email alone still goes out (Canal builds it, with the
    // shown columns unchanged).
    assert_eq!(types, ["INSERT", "UPDATE", "UPDATE", "DELETE"]);
    for m in &messages {
        let text = m.to_string();
        for hidden in ["email", "phone", "example.org", "555-"] {
            assert!(!text.contains(hidden), "{hidden} in {text}");
        }
        assert_eq!(m["sql"], "");
        assert_eq!(m["pkNames"], serde_json::json!(["id"]));
        assert_eq!(
            m["mysqlType"],
            serde_json::json!({"id": "bigint(20)", "name": "varchar(32)", "tier": "enum('gold','tin')"})
        );
    }
    assert_eq!(
        messages[1]["data"],
        serde_json::json!([{"id": "1", "name": "alice", "tier": "1"}])
    );
    assert_eq!(messages[1]["old"], serde_json::json!([{}]));
    assert_eq!(messages[2]["old"], serde_json::json!([{"name": "alice"}]));
    // The other table is untouched.
    let mut encoder = FlatEncoder::new(false);
    let orders: Vec<FlatMessage> = encode(&mut encoder, canal("", "shop.users:email"))
        .into_iter()
        .filter(|m| m.table == "orders" && !m.is_ddl)
        .collect();
    assert_eq!(
        orders[0].data,
        Some(vec![vec![
            ("id".to_string(), Some("10".to_string())),
            ("total".to_string(), Some("99".to_string()))
        ]])
    );
}

#[test]
fn canal_entries_of_a_white_list_have_only_its_columns() {
    let mut encoder = CanalEncoder::new(false);
    let entries = encode(&mut encoder, canal("shop.users:id/name", "shop.users:name"));
    let changes: Vec<RowChange> = entries
        .iter()
        .filter(|e| {
            e.entry
                .header
                .as_ref()
                .and_then(|h| h.table_name.as_deref())
                == Some("users")
        })
        .filter_map(|e| RowChange::decode(e.entry.store_value.as_deref()?).ok())
        .filter(|c| c.is_ddl != Some(true))
        .collect();
    assert_eq!(changes.len(), 4);
    for c in &changes {
        for row in &c.row_datas {
            for col in row.before_columns.iter().chain(&row.after_columns) {
                // The white list wins over the black list for its table.
                assert!(
                    matches!(col.name.as_deref(), Some("id" | "name")),
                    "{col:?}"
                );
            }
        }
    }
    let insert = &changes[0].row_datas[0].after_columns;
    assert_eq!(insert.len(), 2);
    assert_eq!(insert[0].is_key, Some(true));
    assert_eq!(insert[1].value.as_deref(), Some("alice"));
    // Canal keeps a key column only when the white list names it.
    let mut encoder = CanalEncoder::new(false);
    let entries = encode(&mut encoder, canal("shop.users:name", ""));
    let insert = entries
        .iter()
        .filter(|e| {
            e.entry
                .header
                .as_ref()
                .and_then(|h| h.table_name.as_deref())
                == Some("users")
        })
        .filter_map(|e| RowChange::decode(e.entry.store_value.as_deref()?).ok())
        .find(|c| !c.row_datas.is_empty())
        .expect("the insert");
    let names: Vec<_> = insert.row_datas[0]
        .after_columns
        .iter()
        .map(|c| c.name.clone().unwrap_or_default())
        .collect();
    assert_eq!(names, ["name"]);
}

#[test]
fn tail_lines_leave_hidden_columns_out() {
    let mut encoder = TailEncoder::new();
    let out = encode(&mut encoder, canal("", "shop.users:email/phone"));
    let text = String::from_utf8(out).expect("UTF-8");
    let rows: Vec<Json> = text
        .lines()
        .map(|l| serde_json::from_str::<Json>(l).expect("JSON"))
        .filter(|l| l["type"] == "row" && l["table"] == "users")
        .collect();
    assert_eq!(rows.len(), 4);
    for r in &rows {
        assert_eq!(r["columns"], serde_json::json!(["id", "name", "tier"]));
        assert!(!r.to_string().contains("example.org"), "{r}");
    }
    assert_eq!(rows[0]["after"], serde_json::json!(["1", "alice", "gold"]));
    assert_eq!(rows[1]["before"], rows[1]["after"]);
}

fn debezium(options: DebeziumOptions, rules: DebeziumColumnRules) -> Vec<DebeziumRecord> {
    let mut encoder = DebeziumEncoder::new(options).with_clock(|| 0);
    encode(&mut encoder, Arc::new(rules))
        .into_iter()
        .filter(|r| r.destination == "db1.shop.users")
        .collect()
}

#[test]
fn debezium_records_leave_excluded_columns_out_and_mask_others() {
    let mut options = DebeziumOptions::new("db1");
    for (k, v) in [
        ("column.mask.with.4.chars", "shop\\.users\\.name"),
        (
            "column.mask.hash.SHA-256.with.salt.CzQMA0cB5K",
            "shop.users.email, shop.users.id",
        ),
        ("column.mask.hash.v2.MD5.with.salt.x", "shop.users.tier"),
    ] {
        options.set(k, v).expect(k);
    }
    let records = debezium(
        options,
        DebeziumColumnRules::new(None, Some("SHOP.USERS.PHONE")).expect("rules"),
    );
    let values: Vec<Json> = records
        .iter()
        .filter_map(|r| r.value.as_deref())
        .map(|v| serde_json::from_str(v).expect("JSON"))
        .collect();
    assert_eq!(values.len(), 4);
    let hash = |v: &str| {
        sluice_encode::debezium::Mask::Hash {
            algorithm: sluice_encode::debezium::HashAlgorithm::Sha256,
            salt: b"CzQMA0cB5K".to_vec(),
            v2: false,
        }
        .apply(Some(v), Some(16))
        .expect("a hash")
    };
    let tin_or_gold = sluice_encode::debezium::Mask::Hash {
        algorithm: sluice_encode::debezium::HashAlgorithm::Md5,
        salt: b"x".to_vec(),
        v2: true,
    }
    .apply(Some("gold"), None)
    .expect("a hash");
    let after = &values[0]["payload"]["after"];
    assert_eq!(
        after,
        &serde_json::json!({"id": 1, "name": "****", "email": hash("a@example.org"), "tier": tin_or_gold})
    );
    let fields = &values[0]["schema"]["fields"][1]["fields"];
    let names: Vec<&str> = fields
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["field"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["id", "name", "email", "tier"]);
    assert_eq!(
        fields[1]["parameters"],
        serde_json::json!({"masked": "true"})
    );
    assert_eq!(
        fields[3]["parameters"],
        serde_json::json!({"allowed": "gold,tin", "masked": "true"})
    );
    // The key keeps the primary key as it is (ids are not character
    // columns: no mask applies to them anyway).
    let key: Json = serde_json::from_str(records[0].key.as_deref().unwrap()).unwrap();
    assert_eq!(key["payload"], serde_json::json!({"id": 1}));
    // The update of the email alone: an update with the new hash.
    assert_eq!(values[1]["payload"]["op"], "u");
    assert_eq!(
        values[1]["payload"]["after"]["email"],
        hash("b@example.org")
    );
    for v in &values {
        let text = v.to_string();
        for hidden in ["phone", "555-", "example.org", "alice"] {
            assert!(!text.contains(hidden), "{hidden} in {text}");
        }
    }

    // An include list: only its columns, and the key still whole.
    let records = debezium(
        DebeziumOptions::new("db1"),
        DebeziumColumnRules::new(Some("shop\\.users\\.name"), None).expect("rules"),
    );
    let value: Json = serde_json::from_str(records[0].value.as_deref().unwrap()).unwrap();
    assert_eq!(
        value["payload"]["after"],
        serde_json::json!({"name": "alice"})
    );
    let key: Json = serde_json::from_str(records[0].key.as_deref().unwrap()).unwrap();
    assert_eq!(key["payload"], serde_json::json!({"id": 1}));
}
