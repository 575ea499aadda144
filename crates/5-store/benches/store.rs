//! Entries per second through the event store to an in-process consumer:
//! a producer task puts serialised entries (the size of a wide row), a
//! consumer gets batches of 1000 and acks each. Writes its figures to
//! docs/benchmarks.md between the `store-bench` markers.

use std::sync::Arc;
use std::time::Instant;

use sluice_canal::EntryPosition;
use sluice_store::{BatchMode, EntryBytes, EntryMeta, EventStore, GetWait, StoreConfig};
use sluice_testkit::bench_docs;

const ENTRIES: u64 = 2_000_000;
const ENTRY_BYTES: usize = 600;

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        return;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let (secs, got) = runtime.block_on(run());
    let rate = got as f64 / secs;
    let mb = got as f64 * ENTRY_BYTES as f64 / secs / 1e6;
    let text = format!(
        "## Event store: entries through the store to an in-process consumer\n\n\
         {ENTRIES} entries of {ENTRY_BYTES} bytes (a serialised wide-row entry), store bounded at 16,384 entries / 16 MB \
         (Canal's defaults), one producer task, one consumer getting batches of 1000 and acking each, 2 worker threads.\n\n\
         | entries | seconds | entries/s | MB/s |\n| ---: | ---: | ---: | ---: |\n| {got} | {secs:.2} | {rate:.0} | {mb:.0} |\n\n\
         Reproduce: `cargo bench -p sluice-store --bench store`.\n"
    );
    println!("{text}");
    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_none() {
        if let Err(e) = bench_docs::write_section(
            "<!-- store-bench:begin -->",
            "<!-- store-bench:end -->",
            &text,
        ) {
            eprintln!("cannot write docs/benchmarks.md: {e}");
        }
    }
}

async fn run() -> (f64, u64) {
    let store = Arc::new(EventStore::new(StoreConfig {
        batch_mode: BatchMode::ItemSize,
        ..Default::default()
    }));
    store.subscribe(1001, None);
    let payload: EntryBytes = EntryBytes::from(vec![7u8; ENTRY_BYTES]);
    let start = Instant::now();
    let producer = {
        let store = store.clone();
        tokio::spawn(async move {
            for i in 0..ENTRIES {
                let meta = EntryMeta {
                    bytes: ENTRY_BYTES,
                    ack_point: (i % 10 == 9).then(|| EntryPosition {
                        journal_name: "binlog.000001".into(),
                        position: i + 1,
                        ..Default::default()
                    }),
                    position: EntryPosition::default(),
                    is_ddl: false,
                    rows: 0,
                    ..Default::default()
                };
                if store.put(payload.clone(), meta).await.is_err() {
                    return;
                }
            }
        })
    };
    let mut got = 0u64;
    while got < ENTRIES {
        let b = match store
            .get(
                1001,
                1000,
                GetWait::AtMost(std::time::Duration::from_millis(50)),
            )
            .await
        {
            Ok(b) => b,
            Err(_) => break,
        };
        if b.id > 0 {
            got += b.entries.len() as u64;
            let _ = store.ack(1001, b.id);
        }
    }
    let secs = start.elapsed().as_secs_f64();
    let _ = producer.await;
    (secs, got)
}
