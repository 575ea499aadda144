//! What the MQ-mode benchmarks share: the bench binlog's facts, the server
//! process, the destination's cursor and the figures' formatting.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use sluice_testkit::bench_binlog::BenchBinlog;

/// The workspace's root folder.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .ancestors()
        .nth(2)
        .map(Path::to_path_buf)
        .unwrap_or_else(|| PathBuf::from("."))
}

/// `SLUICE_BENCH_MQ_PROPERTIES`: more `canal.properties` lines, `;`-separated
/// (e.g. `kafka.linger.ms = 20;canal.mq.canalBatchSize = 1024`).
pub fn extra_properties() -> String {
    std::env::var("SLUICE_BENCH_MQ_PROPERTIES")
        .unwrap_or_default()
        .split(';')
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{}\n", l.trim()))
        .collect()
}

/// `sluice server --conf CONF` (the release build), its log in
/// `CONF/server.log`.
pub fn spawn_server(conf: &Path) -> Child {
    let log = std::fs::File::create(conf.join("server.log")).expect("server log");
    Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["server", "--conf"])
        .arg(conf)
        .env(
            "RUST_LOG",
            std::env::var("SLUICE_BENCH_RUST_LOG").unwrap_or_else(|_| "warn".into()),
        )
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .expect("start sluice server")
}

/// The highest cursor position (`"position":N`) in the destination's
/// cursor files, 0 before the first ack.
pub fn cursor_position(dest: &Path) -> u64 {
    ["meta.log", "meta.log.1", "meta.dat"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(dest.join(f)).ok())
        .flat_map(|text| {
            text.match_indices("\"position\":")
                .filter_map(|(i, key)| {
                    let digits: String = text[i + key.len()..]
                        .chars()
                        .take_while(char::is_ascii_digit)
                        .collect();
                    digits.parse::<u64>().ok()
                })
                .collect::<Vec<_>>()
        })
        .max()
        .unwrap_or(0)
}

/// Polls the destination `CONF/bench`'s cursor every 20 ms until it reaches
/// `end`: the server's CPU seconds and peak RSS (MB) then, read while it
/// still runs. Panics with the server's log when it exits first.
pub fn wait_for_cursor(server: &mut Child, conf: &Path, end: u64, label: &str) -> (f64, f64) {
    let t = Instant::now();
    let pid = server.id();
    let dest = conf.join("bench");
    loop {
        std::thread::sleep(Duration::from_millis(20));
        if let Ok(Some(status)) = server.try_wait() {
            let log = std::fs::read_to_string(conf.join("server.log")).unwrap_or_default();
            panic!("sluice server exited ({status}):\n{log}");
        }
        let usage = sluice_testkit::bench_docs::process_usage(pid);
        let at = cursor_position(&dest);
        if at >= end {
            return usage;
        }
        assert!(
            t.elapsed() < Duration::from_secs(1800),
            "{label}: the cursor is at {at} after 30 minutes"
        );
    }
}

/// The row changes in the binlog (decoded: MariaDB does not log an
/// UPDATE's rows that it leaves as they were, so the generator's counts can
/// be higher), and where the cursor stands once the last transaction is
/// acked: the end of the last commit (Xid) event.
pub fn binlog_facts(input: &BenchBinlog) -> (u64, u64) {
    let (mut rows, mut end) = (0u64, 0u64);
    for name in &input.files {
        let buf = std::fs::read(input.dir.join(name)).expect("read a binlog file");
        sluice_binlog::walk_file(name, &buf, |at, _, data| {
            match data {
                sluice_binlog::EventData::Rows(r) => rows += r.rows().count() as u64,
                sluice_binlog::EventData::Xid(_) => end = at.next_pos,
                _ => {}
            }
            std::ops::ControlFlow::Continue(())
        })
        .expect("walk the bench binlog");
    }
    (rows, end)
}

pub fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `n` rounded, with `,` between thousands.
pub fn thousands(n: f64) -> String {
    let s = format!("{:.0}", n);
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// The setups every pass runs: a name for the table and their
/// `canal.properties` lines.
pub struct Setup {
    pub name: &'static str,
    pub lines: &'static str,
}

pub const SETUPS: &[Setup] = &[
    Setup {
        name: "Canal's defaults: gets of 50 KB",
        lines: "",
    },
    Setup {
        name: "the same, one batch in flight (`sluice.mq.inFlightBatches = 1`, as Canal sends)",
        lines: "sluice.mq.inFlightBatches = 1\n",
    },
    Setup {
        name: "`canal.mq.canalBatchSize = 1024`: gets of 1 MB",
        lines: "canal.mq.canalBatchSize = 1024\n",
    },
];

/// Records are placed by primary key over this many partitions.
pub const PARTITIONS: i32 = 3;

/// The configuration folder of one pass: `canal.properties` with the
/// broker's `mode_lines` (`canal.serverMode` and its keys) and the setup's
/// lines, and destination `bench` reading the bench binlog from
/// `first_file` of the MariaDB on `db_port`, into `topic`.
pub fn write_conf(
    dir: &Path,
    db_port: u16,
    first_file: &str,
    mode_lines: &str,
    topic: &str,
    setup: &str,
) {
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "{mode_lines}canal.destinations = bench\n\
             canal.auto.scan = false\n\
             canal.instance.global.spring.xml = classpath:spring/file-instance.xml\n\
             canal.mq.flatMessage = true\n{setup}{}",
            extra_properties()
        ),
    )
    .expect("write canal.properties");
    std::fs::create_dir_all(dir.join("bench")).expect("create the destination folder");
    std::fs::write(
        dir.join("bench/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{db_port}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.dbPassword =\n\
             canal.instance.master.journal.name = {first_file}\n\
             canal.instance.master.position = 4\n\
             canal.mq.topic = {topic}\n\
             canal.mq.partitionsNum = {PARTITIONS}\n\
             canal.mq.partitionHash = .*\\\\..*:$pk$\n"
        ),
    )
    .expect("write instance.properties");
}
