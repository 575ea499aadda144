//! CPU per row of the initial snapshot's conversion, without a server: the
//! text-protocol row packets of a chunk of the snapshot benchmark's table
//! (`id BIGINT PRIMARY KEY, a INT, b VARCHAR(32), c DATETIME, d
//! DECIMAL(10,2)`) are read as a result set, each row parsed and written as
//! a binlog row image, and the chunk encoded as one Canal entry, as the
//! snapshot does.
//!
//! Run with `cargo bench -p sluice-instance --bench snapshot_rows`.
//! `SLUICE_BENCH_PATH=image` converts through a binlog row image (tables
//! whose SELECT text is not Canal's) instead of from the text.
//! `SLUICE_BENCH_ROWS` sets the rows of a chunk (default 8192),
//! `SLUICE_BENCH_ITERS` the chunks converted (default 20). It prints the
//! time per row and a checksum of the entries' bytes, which must not change
//! from one version of the conversion to the next. For instructions per
//! row, run the binary under `valgrind --tool=callgrind
//! --toggle-collect='*convert_chunk*'` and divide by rows times chunks.
//!
//! Under `cargo test --benches` (no `--bench` argument) it does nothing.

use std::hint::black_box;
use std::sync::Arc;
use std::time::Instant;

use sluice_binlog::RowsEvent;
use sluice_canal::proto::Pair;
use sluice_encode::canal::{CanalEncoder, SelectRows};
use sluice_events::{Position, RowsChange, TransactionState};
use sluice_instance::snapshot::{rows_event, SelectText, TablePlan, SNAPSHOT_PROP};
use sluice_source::packet::put_lenenc_bytes;
use sluice_source::RawResultSet;

const CREATE: &str = "CREATE TABLE `t` (
  `id` bigint(20) NOT NULL,
  `a` int(11) DEFAULT NULL,
  `b` varchar(32) DEFAULT NULL,
  `c` datetime DEFAULT NULL,
  `d` decimal(10,2) DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci";

fn env_num(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The row packets the server sends for rows `first..first + n`, filled as
/// the snapshot benchmark fills its table.
fn packets(first: u64, n: usize) -> Vec<Vec<u8>> {
    (first..first + n as u64)
        .map(|seq| {
            let secs = seq % 1_000_000;
            let (day, rest) = (1 + secs / 86_400, secs % 86_400);
            let values = [
                seq.to_string(),
                (seq % 100_000).to_string(),
                format!("row number {seq}"),
                format!(
                    "2024-01-{day:02} {:02}:{:02}:{:02}",
                    rest / 3600,
                    rest / 60 % 60,
                    rest % 60
                ),
                format!("{}.{:02}", seq % 100_000 / 100, seq % 100),
            ];
            let mut p = Vec::new();
            for v in &values {
                put_lenenc_bytes(&mut p, v.as_bytes());
            }
            p
        })
        .collect()
}

/// Reads the packets as `Conn::query_rows` does for a chunk, then converts them as the
/// snapshot's `chunk_entry` does: straight from their text (`text`), or
/// through a binlog row image (the way of tables whose text is not
/// Canal's); returns the entry serialised.
#[inline(never)]
fn convert_chunk(plan: &TablePlan, packets: &[Vec<u8>], text: bool) -> prost::bytes::Bytes {
    let columns = plan.schema.columns.iter().map(|c| c.name.clone()).collect();
    let mut rows = RawResultSet::new(columns);
    for p in packets {
        rows.push_text_row(p).expect("a well-formed row packet");
        if rows.len() == 1 {
            rows.reserve_rows_like_last(packets.len() - 1);
        }
    }
    let txn = TransactionState::default();
    let position = Position {
        file: "mariadb-bin.000001",
        offset: 4,
        next_offset: 4,
        server_id: 0,
        timestamp: 0,
    };
    // The entry serialised with the snapshot marker, as the store takes it.
    let marker = [Pair::new(SNAPSHOT_PROP, "true")];
    let select = SelectText::new(&rows);
    let image;
    let (change, select): (_, Option<&dyn SelectRows>) = if text {
        image = RowsEvent::synthetic_write(plan.map.clone(), Vec::new()).expect("an event");
        let change = RowsChange::new(position, &txn, &image, Some(&plan.columns));
        (change, Some(&select))
    } else {
        image = rows_event(plan, &rows, rows.len()).expect("a rows event");
        (
            RowsChange::new(position, &txn, &image, Some(&plan.columns)),
            None,
        )
    };
    let (_, bytes) = CanalEncoder::serialised_snapshot_entry_on_this_thread(
        false, &change, select, &marker, "bench",
    )
    .expect("an entry")
    .expect("every column's text is Canal's");
    bytes
}

fn main() {
    if !std::env::args().any(|a| a == "--bench") {
        println!("snapshot_rows bench: skipped (run it with `cargo bench -p sluice-instance --bench snapshot_rows`)");
        return;
    }
    let rows = env_num("SLUICE_BENCH_ROWS", 8192).max(1);
    let iters = env_num("SLUICE_BENCH_ITERS", 20).max(1);
    let schema =
        sluice_schema::metadata::table_from_create("bench", "t", CREATE).expect("the table");
    let map = sluice_schema::select_rows::table_map_for(&schema, 0).expect("its table map");
    let plan = TablePlan {
        columns: sluice_instance::schema_hook::column_infos(&schema),
        map: Arc::new(map),
        select: sluice_schema::select_rows::select_list(&schema),
        key: Vec::new(),
        schema,
    };
    let chunks: Vec<Vec<Vec<u8>>> = (0..iters)
        .map(|i| packets(1 + (i * rows) as u64, rows))
        .collect();
    // `image` measures the way through a binlog row image; both ways give
    // the same bytes (the same checksum).
    let text = std::env::var("SLUICE_BENCH_PATH").as_deref() != Ok("image");
    let mut checksum = crc32fast::Hasher::new();
    let started = Instant::now();
    for chunk in &chunks {
        let bytes = black_box(convert_chunk(&plan, chunk, text));
        checksum.update(bytes.as_ref());
    }
    let secs = started.elapsed().as_secs_f64();
    let checksum = checksum.finalize();
    let total = (rows * iters) as f64;
    println!(
        "snapshot_rows ({}): {iters} chunks of {rows} rows, {:.0} ns per row, {:.2} M rows/s, checksum {checksum:08x}",
        if text { "from text" } else { "through a row image" },
        secs * 1e9 / total,
        total / secs / 1e6
    );
}
