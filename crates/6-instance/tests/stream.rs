//! The change-stream pipeline against a private MariaDB, built from a
//! destination's `instance.properties`: its table filter, its tracked
//! schema, and outputs handed over a whole transaction at a time.

use std::convert::Infallible;
use std::path::Path;

use sluice_config::{InstanceConfig, Properties};
use sluice_events::{ChangeEvent, Encoder};
use sluice_instance::stream::{ChangeStream, FnSink, StreamError};
use sluice_testkit::{MariaDb, MariaDbConfig};

/// Encodes each change event as a short description.
struct Describe;

impl Encoder for Describe {
    type Output = String;
    type Error = Infallible;
    fn encode(&mut self, event: &ChangeEvent<'_>, out: &mut Vec<String>) -> Result<(), Infallible> {
        out.push(match event {
            ChangeEvent::Begin { .. } => "begin".to_string(),
            ChangeEvent::Commit { .. } => "commit".to_string(),
            ChangeEvent::Statement(s) => format!("statement {}", s.sql),
            ChangeEvent::Rows(r) => {
                let names: Vec<&str> = r.table.columns().map(|c| c.name).collect();
                format!(
                    "{:?} {}.{} ({}) x{}",
                    r.op,
                    r.table.schema(),
                    r.table.name(),
                    names.join(","),
                    r.rows().count()
                )
            }
        });
        Ok(())
    }
}

fn instance(properties: &str) -> Result<InstanceConfig, sluice_config::ConfigError> {
    InstanceConfig::from_properties(
        Path::new("shop/instance.properties"),
        "shop",
        Properties::parse(properties),
        None,
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_destination_streams_its_tables_a_transaction_at_a_time() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE shop; CREATE DATABASE other; \
         CREATE TABLE shop.t (id INT PRIMARY KEY); CREATE TABLE other.t (id INT PRIMARY KEY); \
         BEGIN; INSERT INTO shop.t VALUES (1), (2); INSERT INTO other.t VALUES (9); COMMIT; \
         INSERT INTO other.t VALUES (10); \
         ALTER TABLE shop.t ADD COLUMN note VARCHAR(10); \
         INSERT INTO shop.t VALUES (3, 'x')",
    )
    .unwrap();
    let config = instance(&format!(
        "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n\
         canal.instance.master.journal.name = binlog.000001\ncanal.instance.master.position = 4\n\
         canal.instance.filter.regex = shop\\\\..*\n",
        db.port()
    ))
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut stream = ChangeStream::for_instance(&config, data.path()).unwrap();
    stream.source_mut().stop_at_end = true;
    let mut batches: Vec<Vec<String>> = Vec::new();
    let mut sink = FnSink(|outputs: &mut Vec<String>| {
        batches.push(std::mem::take(outputs));
        Ok::<_, Infallible>(())
    });
    let end = stream.run(&mut Describe, &mut sink).await.unwrap();
    assert_eq!(end.at.file, "binlog.000001");

    let statements = |b: &[Vec<String>]| -> Vec<String> {
        b.iter()
            .flatten()
            .filter(|o| o.starts_with("statement"))
            .cloned()
            .collect()
    };
    // DDL of other tables is filtered out; a statement naming no table passes.
    let ddl = statements(&batches);
    assert!(
        ddl.iter().any(|s| s.contains("CREATE DATABASE other")),
        "{ddl:?}"
    );
    assert!(
        ddl.iter().any(|s| s.contains("CREATE TABLE shop.t")),
        "{ddl:?}"
    );
    assert!(
        !ddl.iter().any(|s| s.contains("CREATE TABLE other.t")),
        "{ddl:?}"
    );
    let transactions: Vec<&Vec<String>> = batches
        .iter()
        .filter(|b| b.first().map(String::as_str) == Some("begin"))
        .collect();
    assert_eq!(
        transactions,
        [
            // Whole, and without other.t's row.
            &vec![
                "begin".to_string(),
                "Insert shop.t (id) x2".into(),
                "commit".into()
            ],
            // other.t's own transaction: only its boundaries.
            &vec!["begin".to_string(), "commit".into()],
            // Column names from the schema tracked through the ALTER.
            &vec![
                "begin".to_string(),
                "Insert shop.t (id,note) x1".into(),
                "commit".into()
            ],
        ],
        "{batches:#?}"
    );
    assert!(
        data.path().join("shop/schema.history").is_file(),
        "the schema history is kept where the destination keeps it"
    );
}

#[test]
fn a_bad_destination_configuration_is_named() {
    let config = instance(
        "canal.instance.master.address = 127.0.0.1:1\ncanal.instance.filter.regex = shop\\\\.(\n",
    )
    .unwrap();
    let data = tempfile::tempdir().unwrap();
    let err = ChangeStream::for_instance(&config, data.path()).unwrap_err();
    assert!(
        matches!(&err, StreamError::Config { destination, .. } if destination == "shop"),
        "{err}"
    );
    assert!(err.to_string().contains("shop\\.("), "{err}");

    let mut config = instance("canal.instance.master.address = 127.0.0.1:1\n").unwrap();
    config.master_address = "nowhere".into();
    let err = ChangeStream::for_instance(&config, data.path()).unwrap_err();
    assert!(err.to_string().contains("is not host:port"), "{err}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn encoding_threads_hand_over_the_transactions_one_thread_does() {
    let db = MariaDb::start(MariaDbConfig::default()).unwrap();
    db.exec(
        "CREATE DATABASE shop; CREATE DATABASE other; \
         CREATE TABLE shop.t (id INT PRIMARY KEY, body TEXT); \
         CREATE TABLE other.t (id INT PRIMARY KEY)",
    )
    .unwrap();
    // Enough bytes of rows for several chunks, between DDL and filtered rows.
    for batch in 0..12 {
        db.exec(&format!(
            "BEGIN; INSERT INTO shop.t (id, body) SELECT {batch} * 1000 + seq, REPEAT('x', 300) \
               FROM shop.seq_1_to_150; \
             INSERT INTO other.t VALUES ({batch}); COMMIT; INSERT INTO other.t VALUES ({batch} + 100)"
        ))
        .unwrap();
        if batch % 5 == 2 {
            db.exec(&format!("ALTER TABLE shop.t ADD COLUMN c{batch} INT"))
                .unwrap();
        }
    }
    let config = instance(&format!(
        "canal.instance.master.address = 127.0.0.1:{}\ncanal.instance.dbUsername = root\n\
         canal.instance.master.journal.name = binlog.000001\ncanal.instance.master.position = 4\n\
         canal.instance.filter.regex = shop\\\\..*\n",
        db.port()
    ))
    .unwrap();
    let mut runs = Vec::new();
    for workers in [None, Some(1), Some(3)] {
        let data = tempfile::tempdir().unwrap();
        let mut stream = ChangeStream::for_instance(&config, data.path()).unwrap();
        stream.source_mut().stop_at_end = true;
        let mut batches: Vec<Vec<String>> = Vec::new();
        let mut sink = FnSink(|outputs: &mut Vec<String>| {
            batches.push(std::mem::take(outputs));
            Ok::<_, Infallible>(())
        });
        let end = match workers {
            None => stream.run(&mut Describe, &mut sink).await.unwrap(),
            Some(n) => stream
                .run_parallel(n, || Describe, &mut sink)
                .await
                .unwrap(),
        };
        runs.push((end, batches));
    }
    let (one_end, one) = &runs[0];
    let rows = one
        .iter()
        .flatten()
        .filter(|o| o.starts_with("Insert shop.t"))
        .count();
    assert!(rows >= 12, "{one:#?}");
    for (end, batches) in &runs[1..] {
        assert_eq!(end, one_end);
        assert_eq!(batches, one, "the same transactions, in the same order");
    }
}
