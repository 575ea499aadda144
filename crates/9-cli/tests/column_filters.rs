//! Column filters through `sluice server`'s Canal TCP port: rows already
//! in the tables (the initial snapshot) and changes after the start, read
//! by a Canal client. A black-listed column is in no before or after
//! column; a white list shows exactly its columns, the key among them
//! because it is listed.

mod common;

use std::path::Path;
use std::time::{Duration, Instant};

use common::{connect_example, spawn_server};
use sluice_canal::proto::{Column, EntryType, EventType};
use sluice_client::{row_change, Connector, TimeUnit};
use sluice_testkit::{find_free_port, MariaDb, MariaDbConfig};

fn write_conf(dir: &Path, db_port: u16, canal_port: u16) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.port = {canal_port}\ncanal.destinations = example\ncanal.auto.scan = false\n"
        ),
    )
    .unwrap();
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.filter.regex = shop\\\\..*\n\
             canal.instance.filter.field = shop.orders:ID/total\n\
             canal.instance.filter.black.field = shop.users:email/phone,shop.orders:total\n\
             sluice.instance.snapshot.mode = initial\n\
             sluice.instance.snapshot.chunkSize = 2\n"
        ),
    )
    .unwrap();
}

/// One row's columns as a client sees them: (name, value).
fn columns(cs: &[Column]) -> Vec<(String, Option<String>)> {
    cs.iter()
        .map(|c| {
            (
                c.name.clone().unwrap_or_default(),
                c.value.clone().filter(|_| c.is_null != Some(true)),
            )
        })
        .collect()
}

/// A row change seen: table, event type, snapshot or not, before, after.
type Seen = (
    String,
    EventType,
    bool,
    Vec<(String, Option<String>)>,
    Vec<(String, Option<String>)>,
);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hidden_columns_never_reach_a_canal_client() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE shop;
         CREATE TABLE shop.users (id INT PRIMARY KEY, name VARCHAR(20), email VARCHAR(40), phone VARCHAR(20));
         CREATE TABLE shop.orders (id INT PRIMARY KEY, total INT, note VARCHAR(40));
         INSERT INTO shop.users VALUES (1, 'ann', 'ann@example.org', '555-0001'),
             (2, 'bob', 'bob@example.org', '555-0002'), (3, 'cy', 'cy@example.org', NULL);
         INSERT INTO shop.orders VALUES (10, 5, 'secret note 10');",
    )
    .unwrap();
    let conf = tempfile::tempdir().unwrap();
    let port = find_free_port().unwrap();
    write_conf(conf.path(), db.port(), port);
    let log = conf.path().join("server.log");
    let mut server = spawn_server(conf.path(), &log);
    let addr = format!("127.0.0.1:{port}");
    let mut client = connect_example(&addr, Duration::from_secs(30)).await;

    let mut seen: Vec<Seen> = Vec::new();
    let mut changed = false;
    let deadline = Instant::now() + Duration::from_secs(60);
    // The snapshot's rows (4), then the changes made once it is under way.
    while seen.len() < 4 + 4 {
        assert!(
            Instant::now() < deadline,
            "only {} row changes seen: {seen:#?}\n{}",
            seen.len(),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        let msg = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        for e in &msg.entries {
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let Some(header) = &e.header else { continue };
            let rc = row_change(e).unwrap();
            if rc.is_ddl == Some(true) {
                continue;
            }
            let snapshot = header
                .props
                .iter()
                .any(|p| p.key.as_deref() == Some("snapshot"));
            let table = header.table_name.clone().unwrap_or_default();
            let et = EventType::try_from(rc.event_type.unwrap_or(0)).unwrap();
            for row in &rc.row_datas {
                seen.push((
                    table.clone(),
                    et,
                    snapshot,
                    columns(&row.before_columns),
                    columns(&row.after_columns),
                ));
            }
        }
        if msg.id >= 0 {
            client.ack(msg.id).await.unwrap();
        }
        if !changed && seen.iter().filter(|s| s.2).count() >= 4 {
            db.exec(
                "UPDATE shop.users SET email = 'new@example.org' WHERE id = 1;
                 UPDATE shop.users SET name = 'anna', phone = '555-0009' WHERE id = 1;
                 INSERT INTO shop.orders VALUES (11, 7, 'secret note 11');
                 DELETE FROM shop.users WHERE id = 2;",
            )
            .unwrap();
            changed = true;
        }
    }
    let _ = server.kill();
    let _ = server.wait();

    for (table, _, _, before, after) in &seen {
        for (name, value) in before.iter().chain(after) {
            let v = value.as_deref().unwrap_or("");
            assert!(
                !v.contains("example.org") && !v.contains("555-") && !v.contains("secret"),
                "{table}.{name} = {v:?} published"
            );
            match table.as_str() {
                "users" => assert!(["id", "name"].contains(&name.as_str()), "users.{name}"),
                // The white list wins over the black list for its table.
                _ => assert!(["id", "total"].contains(&name.as_str()), "orders.{name}"),
            }
        }
    }
    let snapshot: Vec<&Seen> = seen.iter().filter(|s| s.2).collect();
    assert_eq!(snapshot.len(), 4, "{seen:#?}");
    let ann = snapshot
        .iter()
        .find(|s| s.0 == "users" && s.4.first().and_then(|c| c.1.as_deref()) == Some("1"))
        .expect("ann's snapshot row");
    assert_eq!(
        ann.4,
        [
            ("id".to_string(), Some("1".to_string())),
            ("name".to_string(), Some("ann".to_string()))
        ]
    );
    let order = snapshot
        .iter()
        .find(|s| s.0 == "orders")
        .expect("the order");
    assert_eq!(
        order.4,
        [
            ("id".to_string(), Some("10".to_string())),
            ("total".to_string(), Some("5".to_string()))
        ]
    );

    let stream: Vec<&Seen> = seen.iter().filter(|s| !s.2).collect();
    let kinds: Vec<(&str, EventType)> = stream.iter().map(|s| (s.0.as_str(), s.1)).collect();
    assert_eq!(
        kinds,
        [
            // The update of the hidden email alone still goes out, as Canal's.
            ("users", EventType::Update),
            ("users", EventType::Update),
            ("orders", EventType::Insert),
            ("users", EventType::Delete),
        ]
    );
    assert_eq!(stream[0].3, stream[0].4, "only hidden columns changed");
    assert_eq!(
        stream[1].4[1],
        ("name".to_string(), Some("anna".to_string()))
    );
    assert_eq!(stream[3].3[0], ("id".to_string(), Some("2".to_string())));
}
