//! Throughput of the engine to an in-process consumer: runs the engine of a
//! properties file until it delivered N records, then prints one JSON line
//! `{"records":…,"bytes":…,"secs":…,"peak_rss_kb":…}` (seconds from
//! `run()` to the N-th record; peak RSS of this process) and exits.
//!
//! ```text
//! cargo run --release -p sluice-engine --example count -- engine.properties 1300000
//! ```

use std::error::Error;
use std::time::Instant;

use sluice_engine::{ChangeRecord, Committer, ConsumerError, Engine, EngineConfig};

/// `VmHWM` of /proc/self/status: the peak resident set, in kB.
fn peak_rss_kb() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|v| v.parse().ok())
        })
        .unwrap_or(0)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(properties), Some(n)) = (args.next(), args.next()) else {
        eprintln!("usage: count ENGINE.properties RECORDS");
        std::process::exit(2);
    };
    let wanted: u64 = n.parse()?;
    let config = EngineConfig::from_file(&properties)?;
    let started = Instant::now();
    let mut records = 0u64;
    let mut bytes = 0u64;
    let mut finished_in = None;
    let (tx, rx) = tokio::sync::oneshot::channel::<(u64, u64, f64)>();
    let mut tx = Some(tx);
    let consumer = move |batch: Vec<ChangeRecord>,
                         committer: &mut Committer<'_>|
          -> Result<(), ConsumerError> {
        for r in &batch {
            records += 1;
            bytes += r.value.as_ref().map_or(0, |v| v.len()) as u64
                + r.key.as_ref().map_or(0, |k| k.len()) as u64;
            committer.mark_processed(r);
        }
        committer.mark_batch_finished()?;
        if records >= wanted && finished_in.is_none() {
            let secs = started.elapsed().as_secs_f64();
            finished_in = Some(secs);
            if let Some(tx) = tx.take() {
                let _ = tx.send((records, bytes, secs));
            }
        }
        Ok(())
    };
    let engine = Engine::builder()
        .config(config)
        .batch_consumer(consumer)
        .build()?;
    let handle = engine.handle();
    let run = tokio::spawn(engine.run());
    let (records, bytes, secs) = rx.await?;
    handle.close();
    run.await??;
    println!(
        "{{\"records\":{records},\"bytes\":{bytes},\"secs\":{secs:.3},\"peak_rss_kb\":{}}}",
        peak_rss_kb()
    );
    Ok(())
}
