//! The embedded engine in a child process of a benchmark: the bench binary
//! run again as `BENCH --engine-child PROPERTIES RECORDS`, so that the
//! process's peak memory is the engine's alone. Shared by the engine
//! benchmark (records/s beside Debezium) and the memory benchmark.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sluice_engine::{ChangeRecord, Committer, ConsumerError, Engine, EngineConfig};

/// Writes the engine's properties for a child into `dir`: the server on
/// 127.0.0.1:`port` as `user`, streamed from the binlog's start (no
/// snapshot) without schemas or tombstones, file offsets and history in
/// `dir`, then the lines of `extra`. Returns the file's path.
pub fn write_properties(
    dir: &Path,
    port: u16,
    (user, password): (&str, &str),
    server_id: u32,
    extra: &str,
) -> PathBuf {
    let props = dir.join("engine.properties");
    std::fs::write(
        &props,
        format!(
            "name=bench\ntopic.prefix=bench\ndatabase.hostname=127.0.0.1\ndatabase.port={port}\n\
             database.user={user}\ndatabase.password={password}\ndatabase.server.id={server_id}\n\
             snapshot.mode=never\nconverter.schemas.enable=false\ntombstones.on.delete=false\n\
             offset.storage.file.filename={}\nschema.history.internal.file.filename={}\n{extra}",
            dir.join("offsets.dat").display(),
            dir.join("history.dat").display(),
        ),
    )
    .expect("engine properties");
    props
}

/// What the child saw.
pub struct EngineRun {
    /// Data records (not schema change records).
    pub records: u64,
    /// First record to last, in seconds.
    pub span: f64,
    /// Start of the engine to the last record, in seconds.
    pub from_start: f64,
}

/// Runs the engine of `properties` with a batch consumer that touches
/// every record's JSON, marks it and finishes each batch, until it has
/// `records` data records (with 0: until none came for `idle_end`) or the
/// engine stops.
pub fn run(properties: &str, records: u64, idle_end: Duration) -> EngineRun {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    runtime.block_on(async {
        let config = EngineConfig::from_file(properties).expect("engine properties");
        // Data records are counted, as Debezium's side counts them: not the
        // schema change records (to the bare topic prefix).
        let prefix = config.debezium.topic_prefix.clone();
        let started = Instant::now();
        let state = Arc::new(Mutex::new((0u64, None::<Instant>, None::<Instant>)));
        let seen = state.clone();
        let consumer = move |batch: Vec<ChangeRecord>,
                             committer: &mut Committer<'_>|
              -> Result<(), ConsumerError> {
            let now = Instant::now();
            let mut s = seen.lock().map_err(|_| "poisoned")?;
            if s.1.is_none() {
                s.1 = Some(now);
            }
            for r in &batch {
                // Touch the JSON as a consumer would.
                std::hint::black_box(r.value.as_ref().map(|v| v.len()));
                committer.mark_processed(r);
            }
            s.0 += batch.iter().filter(|r| r.destination != prefix).count() as u64;
            s.2 = Some(Instant::now());
            drop(s);
            committer.mark_batch_finished()?;
            Ok(())
        };
        let engine = Engine::builder()
            .config(config)
            .batch_consumer(consumer)
            .build()
            .expect("engine");
        let handle = engine.handle();
        let run = tokio::spawn(engine.run());
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let s = *state.lock().expect("state");
            let idle = s.2.is_some_and(|t| t.elapsed() >= idle_end);
            if (records > 0 && s.0 >= records) || (records == 0 && idle) || run.is_finished() {
                break;
            }
        }
        handle.close();
        run.await.expect("engine task").expect("engine");
        let (n, first, last) = *state.lock().expect("state");
        EngineRun {
            records: n,
            span: match (first, last) {
                (Some(f), Some(l)) => (l - f).as_secs_f64(),
                _ => 0.0,
            },
            from_start: last.map(|l| (l - started).as_secs_f64()).unwrap_or(0.0),
        }
    })
}
