//! The offset stores against real parts: files read and written by the
//! JVM's own serialization, a private ZooKeeper, Curator's `compressed()`
//! data, and fencing by a latch node.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use sluice_engine::java_map::{read_java_map, write_java_map};
use sluice_engine::offset_store::{Fence, DEFAULT_OFFSET_PATH};
use sluice_engine::{
    EngineError, FileOffsetStore, OffsetKey, OffsetStore, SourceOffset, ZooKeeperOffsetStore,
};
use sluice_ha::zookeeper_client::{Acls, Client, CreateMode};
use sluice_ha::{LatchConfig, LeaderLatch, ZkConfig, ZkSession};
use sluice_testkit::ZooKeeperEnsemble;

fn offset(file: &str, pos: u64) -> SourceOffset {
    SourceOffset {
        file: file.into(),
        pos,
        server_id: 223344,
        ts_sec: 1714566645,
        ..Default::default()
    }
}

fn inside_transaction(pos: u64) -> SourceOffset {
    SourceOffset {
        event: 2,
        row: 1,
        gtids: Some("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-57".into()),
        ..offset("mysql-bin.000007", pos)
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap()
}

fn zookeeper() -> ZooKeeperEnsemble {
    ZooKeeperEnsemble::start(1).expect("a private ZooKeeper starts")
}

fn zk_store(servers: &str, path: &str) -> ZooKeeperOffsetStore {
    ZooKeeperOffsetStore::connect(ZkConfig::new(servers), path).unwrap()
}

/// Several engines' offsets in one store, each committed twice, all
/// loaded back by a store opened afresh.
fn assert_keeps_every_key(mut open: impl FnMut() -> Box<dyn OffsetStore>) {
    let a = OffsetKey::new("engine", "dbserver1");
    let b = OffsetKey::new("engine", "dbserver2");
    let c = OffsetKey::new("other-engine", "dbserver1");
    let mut store = open();
    assert_eq!(store.load(&a).unwrap(), None, "a new store holds nothing");
    store.commit(&a, &offset("mysql-bin.000003", 154)).unwrap();
    store.commit(&b, &inside_transaction(391)).unwrap();
    store.commit(&c, &offset("mysql-bin.000001", 4)).unwrap();
    store.commit(&a, &offset("mysql-bin.000003", 391)).unwrap();
    drop(store);
    let mut store = open();
    assert_eq!(
        store.load(&a).unwrap(),
        Some(offset("mysql-bin.000003", 391))
    );
    assert_eq!(store.load(&b).unwrap(), Some(inside_transaction(391)));
    assert_eq!(store.load(&c).unwrap(), Some(offset("mysql-bin.000001", 4)));
    assert_eq!(
        store.load(&OffsetKey::new("engine", "dbserver3")).unwrap(),
        None
    );
}

#[test]
fn file_store_keeps_every_key_across_reopen() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("offsets.dat");
    assert_keeps_every_key(|| Box::new(FileOffsetStore::open(&path).unwrap()));
    // Three entries, one per key, and no temporary file left behind.
    assert_eq!(
        read_java_map(&std::fs::read(&path).unwrap()).unwrap().len(),
        3
    );
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names, ["offsets.dat"]);
}

#[test]
fn zookeeper_store_keeps_every_key_across_reopen() {
    let zk = zookeeper();
    let servers = zk.connect_string();
    let path = "/sluice/engine/debezium-offset-storage";
    assert_keeps_every_key(|| Box::new(zk_store(&servers, path)));
    // The node is persistent and its parents were created.
    let rt = runtime();
    rt.block_on(async {
        let client = Client::connect(&servers).await.unwrap();
        let (data, stat) = client.get_data(path).await.unwrap();
        assert_eq!(stat.ephemeral_owner, 0);
        assert_eq!(&data[..2], [0x1F, 0x8B], "gzip, as Curator's compressed()");
    });
}

#[test]
fn a_missing_node_is_created_empty_and_holds_no_offsets() {
    let zk = zookeeper();
    let servers = zk.connect_string();
    let mut store = zk_store(&servers, DEFAULT_OFFSET_PATH);
    assert_eq!(store.location(), "ZooKeeper node /debezium-offset-storage");
    assert_eq!(store.load(&OffsetKey::new("engine", "db")).unwrap(), None);
    let rt = runtime();
    rt.block_on(async {
        let client = Client::connect(&servers).await.unwrap();
        let (data, _) = client.get_data(DEFAULT_OFFSET_PATH).await.unwrap();
        assert!(data.is_empty());
    });
}

/// Two engines commit to the same node at once, each from a session of its
/// own: every commit reads the node and writes it back expecting the
/// version it read, so neither loses the other's entry.
#[test]
fn concurrent_commits_of_two_engines_keep_both_entries() {
    let zk = zookeeper();
    let servers = zk.connect_string();
    let commits: u64 = 100;
    let writers: Vec<_> = ["dbserver1", "dbserver2"]
        .into_iter()
        .map(|server| {
            let servers = servers.clone();
            std::thread::spawn(move || {
                let mut store = zk_store(&servers, DEFAULT_OFFSET_PATH);
                let key = OffsetKey::new("engine", server);
                for pos in 1..=commits {
                    store
                        .commit(&key, &offset("mysql-bin.000001", pos))
                        .unwrap();
                }
            })
        })
        .collect();
    for writer in writers {
        writer.join().unwrap();
    }
    let mut store = zk_store(&servers, DEFAULT_OFFSET_PATH);
    for server in ["dbserver1", "dbserver2"] {
        assert_eq!(
            store.load(&OffsetKey::new("engine", server)).unwrap(),
            Some(offset("mysql-bin.000001", commits)),
            "{server}"
        );
    }
}

// --- Java ------------------------------------------------------------------

/// `tests/java/OffsetPeer.java` compiled into a directory of its own.
struct JavaPeer {
    _classes: tempfile::TempDir,
    classpath: String,
}

impl JavaPeer {
    fn compile() -> JavaPeer {
        let classes = tempfile::tempdir().unwrap();
        let source = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/java/OffsetPeer.java");
        JavaPeer {
            classpath: sluice_testkit::java::compile_with_curator(&source, classes.path()),
            _classes: classes,
        }
    }

    /// Runs one command; returns its stdout lines.
    fn run(&self, args: &[&str]) -> Vec<String> {
        let out = Command::new("java")
            .arg("-Dorg.slf4j.simpleLogger.defaultLogLevel=warn")
            .arg("-cp")
            .arg(&self.classpath)
            .arg("OffsetPeer")
            .args(args)
            .output()
            .expect("java runs");
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            out.status.success(),
            "OffsetPeer {args:?} failed: {stdout}{}",
            String::from_utf8_lossy(&out.stderr)
        );
        stdout.lines().map(String::from).collect()
    }

    /// The entries a reading command printed, as (key, value) text.
    fn read(&self, args: &[&str]) -> BTreeSet<(String, String)> {
        let lines = self.run(args);
        assert_eq!(lines.last().map(String::as_str), Some("END"), "{lines:?}");
        lines[..lines.len() - 1]
            .iter()
            .map(|line| {
                let entry = line.strip_prefix("ENTRY ").expect("an ENTRY line");
                let (k, v) = entry.split_once('\t').expect("key TAB value");
                (k.to_string(), v.to_string())
            })
            .collect()
    }

    fn write(&self, command: &str, target: &[&str], entries: &[(&OffsetKey, &SourceOffset)]) {
        let texts: Vec<String> = entries
            .iter()
            .flat_map(|(k, o)| [k.to_json(), o.to_json()])
            .collect();
        let mut args: Vec<&str> = vec![command];
        args.extend_from_slice(target);
        args.extend(texts.iter().map(String::as_str));
        assert_eq!(
            self.run(&args),
            [format!("WRITTEN {}", entries.len())],
            "{command}"
        );
    }
}

fn texts(entries: &[(&OffsetKey, &SourceOffset)]) -> BTreeSet<(String, String)> {
    entries
        .iter()
        .map(|(k, o)| (k.to_json(), o.to_json()))
        .collect()
}

/// Java's ObjectInputStream reads what the file store wrote; the store
/// loads what ObjectOutputStream wrote, and for one entry writes the very
/// same bytes.
#[test]
fn java_and_the_file_store_read_each_others_files() {
    let java = JavaPeer::compile();
    let dir = tempfile::tempdir().unwrap();
    let a = OffsetKey::new("engine", "dbserver1");
    let b = OffsetKey::new("engine", "dbserver2");
    let (oa, ob) = (offset("mysql-bin.000003", 391), inside_transaction(154));

    let ours = dir.path().join("ours.dat");
    let mut store = FileOffsetStore::open(&ours).unwrap();
    store.commit(&a, &oa).unwrap();
    store.commit(&b, &ob).unwrap();
    assert_eq!(
        java.read(&["read-file", ours.to_str().unwrap()]),
        texts(&[(&a, &oa), (&b, &ob)])
    );

    let theirs = dir.path().join("theirs.dat");
    java.write(
        "write-file",
        &[theirs.to_str().unwrap()],
        &[(&a, &oa), (&b, &ob)],
    );
    let mut store = FileOffsetStore::open(&theirs).unwrap();
    assert_eq!(store.load(&a).unwrap(), Some(oa.clone()));
    assert_eq!(store.load(&b).unwrap(), Some(ob.clone()));
    // A commit keeps the other Java-written entry, and Java reads it all.
    let newer = offset("mysql-bin.000004", 4);
    store.commit(&a, &newer).unwrap();
    assert_eq!(
        java.read(&["read-file", theirs.to_str().unwrap()]),
        texts(&[(&a, &newer), (&b, &ob)])
    );

    let single = dir.path().join("single.dat");
    java.write("write-file", &[single.to_str().unwrap()], &[(&a, &oa)]);
    assert_eq!(
        std::fs::read(&single).unwrap(),
        write_java_map(&[(a.to_json().into_bytes(), oa.to_json().into_bytes())]),
        "the writer's bytes are ObjectOutputStream's"
    );
}

/// The ZooKeeper data format (gzip of the map) through the JVM's own
/// GZIPInputStream and GZIPOutputStream.
#[test]
fn java_gzip_reads_and_writes_the_node_data_format() {
    let java = JavaPeer::compile();
    let zk = zookeeper();
    let servers = zk.connect_string();
    let dir = tempfile::tempdir().unwrap();
    let rt = runtime();
    let client = rt.block_on(Client::connect(&servers)).unwrap();
    let a = OffsetKey::new("engine", "dbserver1");
    let b = OffsetKey::new("engine", "dbserver2");
    let (oa, ob) = (offset("mysql-bin.000003", 391), inside_transaction(154));

    // Sluice writes the node; Java gunzips and deserializes its data.
    let mut store = zk_store(&servers, "/ours");
    store.commit(&a, &oa).unwrap();
    store.commit(&b, &ob).unwrap();
    let (data, _) = rt.block_on(client.get_data("/ours")).unwrap();
    let file = dir.path().join("ours.gz");
    std::fs::write(&file, data).unwrap();
    assert_eq!(
        java.read(&["read-gzip", file.to_str().unwrap()]),
        texts(&[(&a, &oa), (&b, &ob)])
    );

    // Java gzips a map; put in the node as is, Sluice loads it.
    let file = dir.path().join("theirs.gz");
    java.write(
        "write-gzip",
        &[file.to_str().unwrap()],
        &[(&a, &oa), (&b, &ob)],
    );
    let data = std::fs::read(&file).unwrap();
    rt.block_on(client.create(
        "/theirs",
        &data,
        &CreateMode::Persistent.with_acls(Acls::anyone_all()),
    ))
    .unwrap();
    let mut store = zk_store(&servers, "/theirs");
    assert_eq!(store.load(&a).unwrap(), Some(oa.clone()));
    assert_eq!(store.load(&b).unwrap(), Some(ob.clone()));

    // A plain (not gzipped) map in the node loads too.
    let plain = write_java_map(&[(a.to_json().into_bytes(), oa.to_json().into_bytes())]);
    rt.block_on(client.create(
        "/plain",
        &plain,
        &CreateMode::Persistent.with_acls(Acls::anyone_all()),
    ))
    .unwrap();
    assert_eq!(zk_store(&servers, "/plain").load(&a).unwrap(), Some(oa));
}

/// Curator's `setData().compressed()` and `getData().decompressed()` on
/// the same node as the store, both ways, as a Java fleet and Sluice
/// would share it during a migration.
#[test]
fn curator_and_the_zookeeper_store_share_the_node() {
    let java = JavaPeer::compile();
    let zk = zookeeper();
    let servers = zk.connect_string();
    let node = "/app/debezium-offset-storage";
    let a = OffsetKey::new("engine", "dbserver1");
    let b = OffsetKey::new("engine", "dbserver2");
    let (oa, ob) = (offset("mysql-bin.000003", 391), inside_transaction(154));

    // Java creates the node and writes first (the Java fleet before).
    java.write("zk-write", &[&servers, node], &[(&a, &oa), (&b, &ob)]);
    let mut store = zk_store(&servers, node);
    assert_eq!(store.load(&a).unwrap(), Some(oa.clone()));
    assert_eq!(store.load(&b).unwrap(), Some(ob.clone()));

    // Sluice takes over and commits; Java reads both entries.
    let newer = offset("mysql-bin.000004", 4);
    store.commit(&a, &newer).unwrap();
    assert_eq!(
        java.read(&["zk-read", &servers, node]),
        texts(&[(&a, &newer), (&b, &ob)])
    );

    // Java writes again; Sluice sees it at once (its load syncs first).
    let newest = offset("mysql-bin.000005", 120);
    java.write("zk-write", &[&servers, node], &[(&a, &newest), (&b, &ob)]);
    assert_eq!(store.load(&a).unwrap(), Some(newest));
}

// --- Fencing -----------------------------------------------------------------

/// An ephemeral node stands for the latch: commits go through while it
/// exists; once it is deleted a commit is `Fenced` and writes nothing.
#[test]
fn a_fenced_commit_writes_only_while_the_latch_node_exists() {
    let zk = zookeeper();
    let servers = zk.connect_string();
    let rt = runtime();
    let client = rt.block_on(Client::connect(&servers)).unwrap();
    let latch = "/leader/_c_6f1e0cb5-5f7c-4d0c-9a39-2bb0e2e1b3a1-latch-0000000000";
    rt.block_on(client.mkdir(
        "/leader",
        &CreateMode::Persistent.with_acls(Acls::anyone_all()),
    ))
    .unwrap();
    rt.block_on(client.create(
        latch,
        b"rust-1",
        &CreateMode::Ephemeral.with_acls(Acls::anyone_all()),
    ))
    .unwrap();

    let fence: Fence = Arc::new(move || Some(latch.to_string()));
    let mut store = zk_store(&servers, DEFAULT_OFFSET_PATH).with_fence(fence);
    let key = OffsetKey::new("engine", "dbserver1");
    let first = offset("mysql-bin.000003", 391);
    store.commit(&key, &first).unwrap();
    assert_eq!(store.load(&key).unwrap(), Some(first.clone()));
    let (_, before) = rt.block_on(client.get_data(DEFAULT_OFFSET_PATH)).unwrap();

    rt.block_on(client.delete(latch, None)).unwrap();
    match store.commit(&key, &offset("mysql-bin.000003", 999)) {
        Err(EngineError::Fenced { location }) => {
            assert_eq!(location, "ZooKeeper node /debezium-offset-storage")
        }
        other => panic!("expected Fenced, got {other:?}"),
    }
    let (_, after) = rt.block_on(client.get_data(DEFAULT_OFFSET_PATH)).unwrap();
    assert_eq!(after.version, before.version, "nothing was written");
    assert_eq!(store.load(&key).unwrap(), Some(first.clone()));

    // An unfenced store on the same node still writes.
    let mut unfenced = zk_store(&servers, DEFAULT_OFFSET_PATH);
    let later = offset("mysql-bin.000004", 4);
    unfenced.commit(&key, &later).unwrap();
    assert_eq!(store.load(&key).unwrap(), Some(later));
}

/// The fence is this process's `LeaderLatch`: commits while it leads,
/// `Fenced` (nothing written) once it has closed.
#[test]
fn a_commit_fenced_by_a_leader_latch_stops_when_leadership_ends() {
    let zk = zookeeper();
    let servers = zk.connect_string();
    let rt = runtime();
    let session = rt
        .block_on(ZkSession::connect(
            ZkConfig::new(&servers).with_session_timeout(Duration::from_secs(4)),
        ))
        .unwrap();
    let latch =
        rt.block_on(async { LeaderLatch::start(&session, LatchConfig::new().with_id("rust-1")) });
    assert!(rt
        .block_on(latch.await_leadership(Duration::from_secs(15)))
        .unwrap());
    let leading = latch.subscribe();
    let node = latch.watch_node();
    let fence: Fence = Arc::new(move || {
        if *leading.borrow() {
            node.borrow().clone()
        } else {
            None
        }
    });
    let mut store = zk_store(&servers, DEFAULT_OFFSET_PATH).with_fence(fence);
    let key = OffsetKey::new("engine", "dbserver1");
    let first = offset("mysql-bin.000003", 391);
    store.commit(&key, &first).unwrap();

    rt.block_on(latch.close()).unwrap();
    assert!(matches!(
        store.commit(&key, &offset("mysql-bin.000003", 999)),
        Err(EngineError::Fenced { .. })
    ));
    assert_eq!(store.load(&key).unwrap(), Some(first));
    rt.block_on(session.close());
}

// --- Damaged data ------------------------------------------------------------

#[test]
fn a_damaged_file_is_an_error_naming_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let key = OffsetKey::new("engine", "dbserver1");
    let good = write_java_map(&[(
        key.to_json().into_bytes(),
        offset("mysql-bin.000003", 4).to_json().into_bytes(),
    )]);
    let cases: [(&str, Vec<u8>, &str); 3] = [
        ("truncated.dat", good[..good.len() - 7].to_vec(), "at byte"),
        ("json.dat", br#"{"file":"x"}"#.to_vec(), "at byte 0"),
        (
            "bad-offset.dat",
            write_java_map(&[(key.to_json().into_bytes(), b"{\"pos\":4}".to_vec())]),
            "no `file`",
        ),
    ];
    for (name, bytes, says) in cases {
        let path = dir.path().join(name);
        std::fs::write(&path, &bytes).unwrap();
        let e = match FileOffsetStore::open(&path) {
            Err(e) => e,
            Ok(mut store) => store.load(&key).unwrap_err(),
        };
        let text = e.to_string();
        assert!(
            matches!(e, EngineError::Store { .. })
                && text.contains(path.to_str().unwrap())
                && text.contains(says),
            "{name}: {text}"
        );
    }
    // An empty file, as a crash of Kafka's non-atomic writer can leave,
    // holds no offsets.
    let empty = dir.path().join("empty.dat");
    std::fs::write(&empty, b"").unwrap();
    assert_eq!(
        FileOffsetStore::open(&empty).unwrap().load(&key).unwrap(),
        None
    );
}

#[test]
fn damaged_node_data_is_an_error_naming_the_node() {
    let zk = zookeeper();
    let servers = zk.connect_string();
    let rt = runtime();
    let client = rt.block_on(Client::connect(&servers)).unwrap();
    let key = OffsetKey::new("engine", "dbserver1");
    let mut good = zk_store(&servers, "/good");
    good.commit(&key, &offset("mysql-bin.000003", 4)).unwrap();
    let (gzipped, _) = rt.block_on(client.get_data("/good")).unwrap();
    let cases: [(&str, Vec<u8>, &str); 3] = [
        (
            "/truncated",
            gzipped[..gzipped.len() - 6].to_vec(),
            "damaged gzip",
        ),
        ("/text", b"offsets: none".to_vec(), "neither gzip nor"),
        (
            "/cut-map",
            {
                let map = write_java_map(&[(b"k".to_vec(), b"v".to_vec())]);
                map[..map.len() - 2].to_vec()
            },
            "at byte",
        ),
    ];
    for (node, data, says) in cases {
        rt.block_on(client.create(
            node,
            &data,
            &CreateMode::Persistent.with_acls(Acls::anyone_all()),
        ))
        .unwrap();
        let e = ZooKeeperOffsetStore::connect(ZkConfig::new(&servers), node).unwrap_err();
        let text = e.to_string();
        assert!(
            matches!(e, EngineError::Store { .. })
                && text.contains(&format!("ZooKeeper node {node}"))
                && text.contains(says),
            "{node}: {text}"
        );
        // A store opened while the data was good reports it on load.
        rt.block_on(client.set_data("/good", &data, None)).unwrap();
        let text = good.load(&key).unwrap_err().to_string();
        assert!(
            text.contains("ZooKeeper node /good") && text.contains(says),
            "{text}"
        );
        // And a commit does not overwrite what it cannot read.
        assert!(good.commit(&key, &offset("mysql-bin.000009", 4)).is_err());
        let (still, _) = rt.block_on(client.get_data("/good")).unwrap();
        assert_eq!(still, data);
    }
}
