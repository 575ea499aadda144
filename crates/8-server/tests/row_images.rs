//! Sources whose `binlog_row_image` is MINIMAL or NOBLOB, served to a Canal
//! client over the TCP port: a column the row image leaves out is left out
//! of the Canal row as Canal leaves it out (never sent as NULL), `updated`
//! is Canal's (an after column with no before column to compare is
//! updated), and the FlatMessage of each entry follows. A row image
//! `canal.instance.binlog.image` does not list is refused, naming the key.

use std::path::Path;
use std::time::{Duration, Instant};

use sluice_canal::proto::{Column, Entry, EntryType, EventType};
use sluice_client::{Connector, SimpleConnector, TimeUnit};
use sluice_server::encode::flat::{event_type_name, FlatMessage};
use sluice_server::{InstanceState, Server};
use sluice_testkit::{find_free_port, BinlogRowImage, MariaDb, MariaDbConfig};

/// The table every test changes: a key, plain columns, TEXT and BLOB.
const TABLE: &str = "CREATE DATABASE w; CREATE TABLE w.t (id INT PRIMARY KEY, a VARCHAR(10), \
                     b INT, note TEXT, data BLOB)";

/// A configuration folder with destination `example` reading `db` from its
/// first binlog (tables `w.*`), `more` added to its instance.properties.
fn conf_dir(db: &MariaDb, more: &str) -> tempfile::TempDir {
    let conf = tempfile::tempdir().unwrap();
    let dir = conf.path();
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.ip = 127.0.0.1\ncanal.port = {}\ncanal.destinations = example\n\
             canal.auto.scan = false\ncanal.file.data.dir = {}\n",
            find_free_port().unwrap(),
            dir.display()
        ),
    )
    .unwrap();
    write_instance(dir, db.port(), more);
    conf
}

fn write_instance(dir: &Path, db_port: u16, more: &str) {
    std::fs::create_dir_all(dir.join("example")).unwrap();
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.master.journal.name = binlog.000001\n\
             canal.instance.master.position = 4\n\
             canal.instance.filter.regex = w\\\\..*\n{more}"
        ),
    )
    .unwrap();
}

/// One column as the tests compare it: `name@index=value` (`NULL` when
/// `isNull`, with no value sent), then ` key` and ` upd` for `isKey` and
/// `updated`.
fn show(c: &Column) -> String {
    let value = match (c.is_null, c.value.as_deref()) {
        (Some(true), None) => "NULL".to_string(),
        (Some(true), Some(v)) => panic!("a NULL column with a value {v:?}"),
        (_, Some(v)) => v.to_string(),
        (_, None) => panic!("a column that is neither NULL nor valued: {c:?}"),
    };
    let mut s = format!(
        "{}@{}={value}",
        c.name.as_deref().unwrap_or("?"),
        c.index.unwrap_or(-1)
    );
    if c.is_key == Some(true) {
        s.push_str(" key");
    }
    if c.updated == Some(true) {
        s.push_str(" upd");
    }
    s
}

fn show_all(columns: &[Column]) -> String {
    columns.iter().map(show).collect::<Vec<_>>().join(", ")
}

/// The rows of the ROWDATA entries of `w.t`, one line each:
/// `TYPE before[..] after[..]`, and the entries themselves.
async fn receive_rows(client: &mut SimpleConnector, n: usize) -> (Vec<String>, Vec<Entry>) {
    let deadline = Instant::now() + Duration::from_secs(30);
    let mut rows = Vec::new();
    let mut entries = Vec::new();
    while rows.len() < n {
        assert!(Instant::now() < deadline, "only these arrived: {rows:#?}");
        let msg = client
            .get_without_ack(100, Some(200), TimeUnit::Milliseconds)
            .await
            .unwrap();
        for e in msg.entries {
            let is_t = e.header.as_ref().and_then(|h| h.table_name.as_deref()) == Some("t");
            if e.entry_type != Some(EntryType::RowData as i32) || !is_t {
                continue;
            }
            let rc = sluice_client::row_change(&e).unwrap();
            if rc.is_ddl == Some(true) {
                continue;
            }
            let kind = EventType::try_from(rc.event_type.unwrap_or(0))
                .map(event_type_name)
                .unwrap_or("?");
            for rd in &rc.row_datas {
                rows.push(format!(
                    "{kind} before[{}] after[{}]",
                    show_all(&rd.before_columns),
                    show_all(&rd.after_columns)
                ));
            }
            entries.push(e);
        }
        if msg.id > 0 {
            client.ack(msg.id).await.unwrap();
        }
    }
    (rows, entries)
}

/// Connects to destination `example` of `server` and subscribes.
async fn connect(server: &Server) -> SimpleConnector {
    let addr = server.local_addr().expect("a TCP port").to_string();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        match SimpleConnector::connect(&addr, "example", "", "").await {
            Ok(mut c) => {
                if c.subscribe("").await.is_ok() {
                    return c;
                }
            }
            Err(e) if Instant::now() >= deadline => panic!("cannot reach {addr}: {e}"),
            Err(_) => {}
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// An entry's FlatMessage, its clock fields blanked.
fn flat(entry: &Entry) -> String {
    let m = FlatMessage::from_entry(entry, 1, 0)
        .unwrap()
        .expect("a ROWDATA entry");
    m.to_json().replace(&format!("\"es\":{},", m.es), "")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn minimal_row_images_arrive_as_canal_sends_them() {
    let db =
        MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal)).unwrap();
    db.exec(TABLE).unwrap();
    db.exec(
        "INSERT INTO w.t (id, a) VALUES (1, 'x'); \
         INSERT INTO w.t VALUES (2, 'y', 7, 'n', 'd'); \
         UPDATE w.t SET b = 5 WHERE id = 1; \
         UPDATE w.t SET a = NULL, note = 'm' WHERE id = 2; \
         UPDATE w.t SET id = 3 WHERE id = 2; \
         DELETE FROM w.t WHERE id = 1",
    )
    .unwrap();
    // canal.instance.binlog.image is left to its default, Canal's
    // FULL,MINIMAL,NOBLOB.
    let conf = conf_dir(&db, "");
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let mut client = connect(&server).await;
    let (rows, entries) = receive_rows(&mut client, 6).await;
    assert_eq!(
        rows,
        [
            // MINIMAL logs the columns an INSERT named, not those it left
            // to their DEFAULT: those are not sent, and never as NULL.
            "INSERT before[] after[id@0=1 key upd, a@1=x upd]",
            "INSERT before[] after[id@0=2 key upd, a@1=y upd, b@2=7 upd, note@3=n upd, data@4=d upd]",
            // The key before, the changed column after: nothing else, and
            // no before column to compare b with, so it is updated.
            "UPDATE before[id@0=1 key] after[b@2=5 upd]",
            // A column set to NULL is there, NULL; the unchanged ones are not.
            "UPDATE before[id@0=2 key] after[a@1=NULL upd, note@3=m upd]",
            // The key changed: before and after hold it.
            "UPDATE before[id@0=2 key] after[id@0=3 key upd]",
            "DELETE before[id@0=1 key] after[]",
        ]
    );
    // FlatMessage (MQ mode), from the same entries as Canal's converter
    // makes it: `data` and the type maps hold the columns the row has;
    // `old` the before values of the updated columns the before image
    // holds (none: the key did not change); `pkNames` comes from the
    // after columns, which do not hold the key.
    let update = entries
        .iter()
        .find(|e| {
            sluice_client::row_change(e).unwrap().event_type == Some(EventType::Update as i32)
        })
        .unwrap();
    assert_eq!(
        flat(update),
        r#"{"data":[{"b":"5"}],"database":"w","gtid":"","id":1,"isDdl":false,"mysqlType":{"b":"int"},"old":[{}],"pkNames":null,"sql":"","sqlType":{"b":4},"table":"t","ts":0,"type":"UPDATE"}"#
    );
    let key_change = &entries[entries.len() - 2];
    assert_eq!(
        flat(key_change),
        r#"{"data":[{"id":"3"}],"database":"w","gtid":"","id":1,"isDdl":false,"mysqlType":{"id":"int"},"old":[{"id":"2"}],"pkNames":["id"],"sql":"","sqlType":{"id":4},"table":"t","ts":0,"type":"UPDATE"}"#
    );
    let delete = entries.last().unwrap();
    assert_eq!(
        flat(delete),
        r#"{"data":[{"id":"1"}],"database":"w","gtid":"","id":1,"isDdl":false,"mysqlType":{"id":"int"},"old":null,"pkNames":["id"],"sql":"","sqlType":{"id":4},"table":"t","ts":0,"type":"DELETE"}"#
    );
    drop(client);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn noblob_row_images_leave_unchanged_blobs_out() {
    let db =
        MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::NoBlob)).unwrap();
    db.exec(TABLE).unwrap();
    db.exec(
        "INSERT INTO w.t VALUES (1, 'x', 1, 'n', 'd'); \
         UPDATE w.t SET b = 2 WHERE id = 1; \
         UPDATE w.t SET note = 'm' WHERE id = 1; \
         UPDATE w.t SET data = NULL WHERE id = 1; \
         DELETE FROM w.t WHERE id = 1",
    )
    .unwrap();
    let conf = conf_dir(&db, "canal.instance.binlog.image = noblob\n");
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let mut client = connect(&server).await;
    let (rows, entries) = receive_rows(&mut client, 5).await;
    assert_eq!(
        rows,
        [
            "INSERT before[] after[id@0=1 key upd, a@1=x upd, b@2=1 upd, note@3=n upd, data@4=d upd]",
            // Every column but the BLOB and TEXT ones the UPDATE left alone.
            "UPDATE before[id@0=1 key, a@1=x, b@2=1] after[id@0=1 key, a@1=x, b@2=2 upd]",
            // A TEXT column changed is in the after image only: updated.
            "UPDATE before[id@0=1 key, a@1=x, b@2=2] after[id@0=1 key, a@1=x, b@2=2, note@3=m upd]",
            "UPDATE before[id@0=1 key, a@1=x, b@2=2] after[id@0=1 key, a@1=x, b@2=2, data@4=NULL upd]",
            "DELETE before[id@0=1 key, a@1=x, b@2=2] after[]",
        ]
    );
    assert_eq!(
        flat(&entries[2]),
        r#"{"data":[{"id":"1","a":"x","b":"2","note":"m"}],"database":"w","gtid":"","id":1,"isDdl":false,"mysqlType":{"id":"int","a":"varchar(10)","b":"int","note":"text"},"old":[{}],"pkNames":["id"],"sql":"","sqlType":{"id":4,"a":12,"b":4,"note":2005},"table":"t","ts":0,"type":"UPDATE"}"#
    );
    drop(client);
    server.shutdown().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_row_image_not_listed_is_refused_naming_the_key() {
    let db =
        MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal)).unwrap();
    let conf = conf_dir(&db, "canal.instance.binlog.image = FULL,NOBLOB\n");
    let server = Server::start(sluice_server::load_config(conf.path()).unwrap())
        .await
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    let message = loop {
        let state = server
            .destinations()
            .into_iter()
            .find(|(d, _)| d == "example")
            .map(|(_, s)| s);
        if let Some(InstanceState::Failed(m)) = state {
            break m;
        }
        assert!(Instant::now() < deadline, "still {state:?}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    for part in [
        &format!("127.0.0.1:{}: binlog_row_image is MINIMAL", db.port()),
        "but Sluice needs FULL or NOBLOB (canal.instance.binlog.image = FULL,NOBLOB)",
        "SET GLOBAL binlog_row_image = 'FULL'",
        "binlog_row_image=FULL in the [mysqld] section",
        "add the source's value to canal.instance.binlog.image in instance.properties",
    ] {
        assert!(message.contains(part), "{part:?} not in: {message}");
    }
    server.shutdown().await.unwrap();
}
