//! Instance lifecycle driven by the configuration folder, against a private
//! MariaDB: a new `instance.properties` starts an instance, a changed one
//! reloads it, a removed one stops it; cursors survive a restart.

use std::sync::Arc;
use std::time::Duration;

use sluice_config::ServerConfig;
use sluice_instance::manager::{InstanceManager, InstanceState};
use sluice_meta::{CursorStore, FileCursorStore};
use sluice_store::{Destinations, GetWait};
use sluice_testkit::{MariaDb, MariaDbConfig};

fn write(path: &std::path::Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// Waits up to 30 s (a busy machine) for `name` to be in state `want`.
async fn wait_for(m: &InstanceManager, name: &str, want: InstanceState) {
    for _ in 0..600 {
        if m.states().iter().any(|(n, s)| n == name && *s == want) {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{name} never reached {want:?}: {:?}", m.states());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conf_dir_changes_start_reload_and_stop_instances() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write(
        &conf.path().join("canal.properties"),
        "canal.auto.scan = true\ncanal.auto.scan.interval = 1\n",
    );
    let server = ServerConfig::load(conf.path()).unwrap();
    let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(conf.path()));
    let m = InstanceManager::new(
        server.destinations,
        cursors,
        InstanceManager::binlog_metadata_only(),
    );
    assert!(m.start_all().is_empty());
    assert!(m.states().is_empty());

    let props = conf.path().join("shop/instance.properties");
    write(
        &props,
        &format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\ncanal.instance.master.journal.name = binlog.000001\ncanal.instance.master.position = 4\n",
            db.port()
        ),
    );
    m.scan_once().await;
    wait_for(&m, "shop", InstanceState::Running).await;

    // Consume through the Destinations interface, as the servers do.
    let d = m.destination("shop").expect("running destination");
    d.subscribe(1001, "").unwrap();
    db.exec("INSERT INTO shop.t VALUES (1)").unwrap();
    let mut got = 0;
    for _ in 0..50 {
        let b = d
            .get(1001, 100, GetWait::AtMost(Duration::from_millis(100)))
            .await
            .unwrap();
        if b.id > 0 {
            got += b.entries.len();
            d.ack(1001, b.id).unwrap();
            d.durable().await.unwrap();
        }
        if got >= 3 {
            break;
        }
    }
    assert!(got >= 3, "BEGIN, ROWDATA, END of the insert");
    assert!(
        conf.path().join("shop/meta.log").is_file(),
        "cursor persisted"
    );

    // A changed file reloads the instance.
    tokio::time::sleep(Duration::from_millis(20)).await;
    let mut text = std::fs::read_to_string(&props).unwrap();
    text.push_str("canal.instance.filter.regex = shop\\\\..*\n");
    write(&props, &text);
    m.scan_once().await;
    wait_for(&m, "shop", InstanceState::Running).await;
    assert_eq!(
        m.instance_config("shop").unwrap().filter_regex,
        "shop\\..*",
        "the reloaded instance runs the new configuration"
    );

    // A removed file stops it, and its consumers are refused.
    std::fs::remove_dir_all(conf.path().join("shop")).unwrap();
    m.scan_once().await;
    assert!(m.states().is_empty(), "{:?}", m.states());
    assert!(m.destination("shop").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bad_instance_file_is_reported_and_others_run() {
    let conf = tempfile::tempdir().unwrap();
    write(
        &conf.path().join("canal.properties"),
        "canal.destinations = good,bad\n",
    );
    write(
        &conf.path().join("bad/instance.properties"),
        "canal.instance.master.address = nowhere\n",
    );
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    write(
        &conf.path().join("good/instance.properties"),
        &format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n",
            db.port()
        ),
    );
    let server = ServerConfig::load(conf.path()).unwrap();
    let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(conf.path()));
    let m = InstanceManager::new(
        server.destinations,
        cursors,
        InstanceManager::binlog_metadata_only(),
    );
    let errors = m.start_all();
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].0, "bad");
    assert!(
        errors[0].1.to_string().contains("host:port"),
        "{}",
        errors[0].1
    );
    wait_for(&m, "good", InstanceState::Running).await;
    m.stop_all().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refusing_fence_stops_the_instance_before_it_publishes() {
    use std::sync::atomic::{AtomicBool, Ordering};

    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write(
        &conf.path().join("canal.properties"),
        "canal.destinations = shop\ncanal.auto.scan = false\n",
    );
    write(
        &conf.path().join("shop/instance.properties"),
        &format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\ncanal.instance.master.journal.name = binlog.000001\ncanal.instance.master.position = 4\ncanal.instance.filter.regex = shop\\\\..*\n",
            db.port()
        ),
    );
    let server = ServerConfig::load(conf.path()).unwrap();
    let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(conf.path()));
    let allowed = Arc::new(AtomicBool::new(true));
    let fence_allowed = allowed.clone();
    let m = InstanceManager::with_fence(
        server.destinations,
        cursors,
        InstanceManager::binlog_metadata_only(),
        Arc::new(move |d: &str| d == "shop" && fence_allowed.load(Ordering::SeqCst)),
    );
    assert!(m.start_all().is_empty());
    wait_for(&m, "shop", InstanceState::Running).await;
    let d = m.destination("shop").expect("running destination");
    d.subscribe(1001, "").unwrap();

    let rows = |d: Arc<dyn sluice_store::Destination>| async move {
        let mut got = 0;
        for _ in 0..20 {
            let b = d
                .get(1001, 100, GetWait::AtMost(Duration::from_millis(100)))
                .await
                .unwrap();
            if b.id > 0 {
                got += b.entries.len();
                d.ack(1001, b.id).unwrap();
                d.durable().await.unwrap();
            }
        }
        got
    };
    db.exec("INSERT INTO shop.t VALUES (1)").unwrap();
    assert!(
        rows(d.clone()).await >= 3,
        "BEGIN, ROWDATA, END while allowed"
    );

    allowed.store(false, Ordering::SeqCst);
    db.exec("INSERT INTO shop.t VALUES (2)").unwrap();
    wait_for(&m, "shop", InstanceState::Stopped).await;
    assert_eq!(rows(d).await, 0, "nothing published once fenced");
    assert_eq!(m.state("shop"), Some(InstanceState::Stopped), "no restart");
    m.stop_all().await;
}

/// A history in memory that the test can look into.
#[derive(Clone, Default)]
struct SharedHistory(Arc<std::sync::Mutex<Vec<sluice_schema::HistoryRecord>>>);

impl sluice_schema::SchemaHistoryStore for SharedHistory {
    fn append(&mut self, record: &sluice_schema::HistoryRecord) -> sluice_schema::Result<()> {
        self.0.lock().unwrap().push(record.clone());
        Ok(())
    }

    fn load(&mut self) -> sluice_schema::Result<Vec<sluice_schema::HistoryRecord>> {
        Ok(self.0.lock().unwrap().clone())
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_schema_history_goes_to_the_store_the_server_chooses() {
    use sluice_instance::manager::HistoryStoreFactory;
    use sluice_schema::HistoryRecord;

    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY)")
        .unwrap();
    let conf = tempfile::tempdir().unwrap();
    write(
        &conf.path().join("canal.properties"),
        "canal.destinations = shop\ncanal.auto.scan = false\n",
    );
    write(
        &conf.path().join("shop/instance.properties"),
        &format!(
            "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n",
            db.port()
        ),
    );
    let server = ServerConfig::load(conf.path()).unwrap();
    let cursors: Arc<dyn CursorStore> = Arc::new(FileCursorStore::new(conf.path()));
    let history = SharedHistory::default();
    let opened = Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let factory: HistoryStoreFactory = {
        let history = history.clone();
        let opened = opened.clone();
        Arc::new(move |destination: &str| {
            opened.lock().unwrap().push(destination.to_string());
            Ok(Box::new(history.clone()) as Box<dyn sluice_schema::SchemaHistoryStore>)
        })
    };
    let m = InstanceManager::new(
        server.destinations,
        cursors,
        InstanceManager::schema_tracking_in(factory),
    );
    assert!(m.start_all().is_empty());
    wait_for(&m, "shop", InstanceState::Running).await;

    db.exec("ALTER TABLE shop.t ADD COLUMN note VARCHAR(10)")
        .unwrap();
    // Up to 30 s: on a machine busy with other tests the stream may take
    // seconds to reach the ALTER; it goes on as soon as it is recorded.
    let mut recorded = Vec::new();
    for _ in 0..600 {
        recorded = history.0.lock().unwrap().clone();
        if recorded
            .iter()
            .any(|r| matches!(r, HistoryRecord::Ddl { sql, .. } if sql.contains("ADD COLUMN note")))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert!(
        matches!(recorded.first(), Some(HistoryRecord::Snapshot { catalog, .. }) if catalog.table("shop", "t").is_some()),
        "seeded from the server: {recorded:?}"
    );
    assert!(
        recorded.iter().any(
            |r| matches!(r, HistoryRecord::Ddl { sql, .. } if sql.contains("ADD COLUMN note"))
        ),
        "the ALTER is recorded: {recorded:?}"
    );
    assert_eq!(*opened.lock().unwrap(), vec!["shop".to_string()]);
    assert!(
        !conf.path().join("shop/schema.history").exists(),
        "no history file beside the chosen store"
    );
    m.stop_all().await;
}
