//! The engine's memory when most transactions are filtered out
//! (`SLUICE_BENCH_ENGINE_FILTERED=N`): a private MariaDB gets N single-row
//! transactions of `bench.other` with 1,000 of `bench.t` spread among
//! them, evenly; the engine
//! child, with `table.include.list=bench\.t`, reads the binlog from its
//! start until it has the 1,000 records. Its peak RSS is set beside that of
//! the same child on a MariaDB holding the 1,000 rows alone, with encoding
//! on the stream's task (`sluice.encode.threads=1`) and on two threads.
//! Writes docs/benchmarks.md between the `engine-filtered-bench` markers.

use std::time::Instant;

use super::{bench_docs, sluice_pass_with, MariaDb, MariaDbConfig, Pass};

const SELECTED: u64 = 1000;
const BEGIN: &str = "<!-- engine-filtered-bench:begin -->";
const END: &str = "<!-- engine-filtered-bench:end -->";

/// A MariaDB with `filtered` single-row transactions of `bench.other` and
/// [`SELECTED`] of `bench.t` spread among them.
fn source(filtered: u64) -> MariaDb {
    let db = MariaDb::start(MariaDbConfig::default()).expect("MariaDB");
    db.exec(
        "SET GLOBAL innodb_flush_log_at_trx_commit = 2; SET GLOBAL sync_binlog = 0;
         CREATE USER dbz@'%' IDENTIFIED BY 'dbz'; GRANT ALL ON *.* TO dbz@'%';
         CREATE DATABASE bench; USE bench;
         CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(40));
         CREATE TABLE other (id INT PRIMARY KEY, v VARCHAR(40));",
    )
    .expect("the tables");
    // Autocommit inside a procedure: each INSERT is a transaction.
    let every = (filtered / SELECTED).max(1);
    db.exec(&format!(
        "USE bench;
         CREATE PROCEDURE fill() BEGIN
           DECLARE i INT DEFAULT 0;
           DECLARE s INT DEFAULT 0;
           WHILE i < {filtered} OR s < {SELECTED} DO
             IF i < {filtered} THEN
               INSERT INTO other VALUES (i, CONCAT('a row the engine filters out ', i));
             END IF;
             IF s < {SELECTED} AND (i >= {filtered} OR i % {every} = 0) THEN
               SET s = s + 1;
               INSERT INTO t VALUES (s, CONCAT('a selected row ', s));
             END IF;
             SET i = i + 1;
           END WHILE;
         END;
         CALL fill();"
    ))
    .expect("the transactions");
    db
}

fn pass(db: &MariaDb, threads: u32) -> Pass {
    let p = sluice_pass_with(
        db,
        SELECTED,
        &format!("table.include.list=bench\\\\.t\nsluice.encode.threads={threads}\n"),
    );
    assert_eq!(p.records, SELECTED, "the selected rows, and no other");
    p
}

pub fn measure(filtered: u64) {
    let made = Instant::now();
    let busy = source(filtered);
    let quiet = source(0);
    eprintln!(
        "engine filtered: sources made in {:.1} s",
        made.elapsed().as_secs_f64()
    );
    let mut rows = String::new();
    for threads in [1, 2] {
        // Interleaved: the busy source, then the quiet one.
        let b = pass(&busy, threads);
        let q = pass(&quiet, threads);
        eprintln!(
            "engine filtered: threads {threads}: {:.1} MB with {filtered} filtered transactions, {:.1} MB without ({:.2} s / {:.2} s to the last record)",
            b.peak_rss_mb, q.peak_rss_mb, b.from_start, q.from_start
        );
        rows.push_str(&format!(
            "| {threads} | {:.0} MB | {:.2} s | {:.0} MB | {:.2} s |\n",
            b.peak_rss_mb, b.from_start, q.peak_rss_mb, q.from_start
        ));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    let body = format!(
        "## Embedded engine: memory with filtered-out transactions\n\n\
         A private MariaDB gets {filtered} single-row transactions of `bench.other` with {SELECTED} of `bench.t` spread evenly among them; the engine (a child process, `table.include.list=bench\\.t`, file offsets and history, `snapshot.mode=never`) reads the binlog from its start until its consumer has the {SELECTED} records. Beside it, the same on a MariaDB holding the {SELECTED} transactions of `bench.t` alone. Peak RSS is the child's `VmHWM`. Machine: {} CPUs by `nproc`, load average {} at the end.\n\n\
         | `sluice.encode.threads` | peak RSS, {filtered} filtered transactions | start → last record | peak RSS, none filtered | start → last record |\n\
         | ---: | ---: | ---: | ---: | ---: |\n{rows}\n\
         Reproduce: `SLUICE_BENCH_ENGINE_FILTERED={filtered} cargo bench -p sluice-cli --bench engine`.",
        std::thread::available_parallelism().map_or(0, |n| n.get()),
        load.split_whitespace().next().unwrap_or("?"),
    );
    println!("{body}");
    if std::env::var_os("SLUICE_BENCH_NO_DOCS").is_none() {
        bench_docs::write_section(BEGIN, END, &body).expect("write docs/benchmarks.md");
    }
}
