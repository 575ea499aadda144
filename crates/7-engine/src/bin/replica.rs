//! One replica of an application that embeds the Sluice engine: run several
//! with the same properties (and a `leader.latch.zookeeper.connect.string`)
//! and only the leader streams; kill it and another continues from the
//! offset it committed.
//!
//! ```text
//! cargo run -p sluice-engine --bin sluice-engine-replica -- engine.properties [deliveries.jsonl]
//! ```
//!
//! Every record goes to the delivery log (standard output without one) as a
//! JSON line `{"t_ns":…,"pid":…,"kind":"record","destination":…,"key":…,
//! "value":…,"offset":…}`; after each batch the engine commits by its
//! policy and a `{"kind":"commit","offset":…}` line follows when a commit
//! was written. SIGINT or SIGTERM close the engine cleanly (it commits what
//! was delivered and leaves the latch).

use std::error::Error;
use std::fs::OpenOptions;
use std::io::Write;
use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::{json, Value};
use sluice_engine::{ChangeRecord, Committer, ConsumerError, Engine, EngineConfig};

fn now_ns() -> u128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

fn json_or_null(text: Option<&str>) -> Value {
    text.and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_default_env().unwrap_or_else(|_| "info".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let mut args = std::env::args().skip(1);
    let Some(properties) = args.next() else {
        eprintln!("usage: sluice-engine-replica ENGINE.properties [DELIVERY_LOG]");
        std::process::exit(2);
    };
    let config = EngineConfig::from_file(&properties)?;
    let mut log: Box<dyn Write + Send> = match args.next() {
        Some(path) => Box::new(OpenOptions::new().create(true).append(true).open(path)?),
        None => Box::new(std::io::stdout()),
    };
    let pid = std::process::id();
    let consumer = move |records: Vec<ChangeRecord>,
                         committer: &mut Committer<'_>|
          -> Result<(), ConsumerError> {
        let mut lines = String::new();
        for r in &records {
            let line = json!({
                "t_ns": now_ns() as u64,
                "pid": pid,
                "kind": "record",
                "destination": r.destination,
                "key": json_or_null(r.key.as_deref()),
                "value": json_or_null(r.value.as_deref()),
                "offset": json_or_null(Some(&r.offset.to_json())),
            });
            lines.push_str(&line.to_string());
            lines.push('\n');
        }
        // Leadership checked again right before the side effect: a pause
        // since the engine's check may have let another process take over.
        if !committer.still_leading() {
            return Err("no longer leading: batch not written".into());
        }
        // Handled = written to the log and flushed: only then marked.
        log.write_all(lines.as_bytes())?;
        log.flush()?;
        for r in &records {
            committer.mark_processed(r);
        }
        let before = committer.committed();
        committer.mark_batch_finished()?;
        if let Some(now) = committer.committed() {
            if before.as_ref() != Some(&now) {
                let line = json!({
                    "t_ns": now_ns() as u64,
                    "pid": pid,
                    "kind": "commit",
                    "offset": json_or_null(Some(&now.to_json())),
                });
                writeln!(log, "{line}")?;
                log.flush()?;
            }
        }
        Ok(())
    };
    let engine = Engine::builder()
        .config(config)
        .batch_consumer(consumer)
        .build()?;
    let handle = engine.handle();
    tokio::spawn(async move {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(s) => s,
                Err(_) => return,
            };
        tokio::select! {
            _ = tokio::signal::ctrl_c() => {}
            _ = term.recv() => {}
        }
        handle.close();
    });
    engine.run().await?;
    Ok(())
}
