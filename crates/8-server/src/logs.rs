//! The server's logs: to stderr, a file a day, or Canal's `logs/` layout
//! ([`init`]), and reading the files back for the admin protocol's log
//! requests.
//!
//! Canal's layout (`--log-layout canal`): a line whose event carries a
//! `destination` field (or is inside a span that does) goes to
//! `DIR/{destination}/{destination}.log`, every other line to
//! `DIR/canal/canal.log`. Text lines follow Canal's pattern,
//! `yyyy-MM-dd HH:mm:ss.SSS [thread] LEVEL target - message fields`, in the
//! local time zone.
//!
//! Rotation is daily, on the first line of a new (local) day: the file is
//! renamed `{name}-yyyy-MM-dd.log` (the day it was written), in the same
//! folder, and the 14 newest of those are kept (Canal keeps 14 days too,
//! but gzips them into dated sub-folders; plain files beside the current
//! one can be read back by name through the admin protocol). A file left
//! by an earlier run on an earlier day is rotated the same way when the
//! first line comes.
//!
//! Lines are written on a thread of their own so that a slow disk does not
//! hold up the tasks that log; when it falls 65 536 lines behind, further
//! lines are dropped and their count logged once it catches up.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, SyncSender, TrySendError};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sluice_config::{LogFiles, LogLayout};
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id};
use tracing::{Event, Subscriber};
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;
use tracing_subscriber::Layer;

/// The folder (and file name) of the server's own lines.
pub const SERVER_LOG: &str = "canal";

/// Rotated files kept per folder.
const KEEP_ROTATED: usize = 14;

/// Lines queued for the writer thread, at most.
const QUEUE: usize = 65_536;

/// Files open at once, at most: lines of further destinations go to the
/// server's file (a bound on what stray `destination` values can open).
const MAX_FOLDERS: usize = 1024;

/// The default and the largest amount of a log file read back.
pub const DEFAULT_TAIL_LINES: usize = 100;
const MAX_TAIL_BYTES: u64 = 4 * 1024 * 1024;

/// What the log filter is when `RUST_LOG` is not set: `info`, with the
/// ZooKeeper client's own connection chatter at `warn`.
const DEFAULT_FILTER: &str = "info,zookeeper_client=warn";

/// Why the logs cannot be written where asked.
#[derive(Debug, thiserror::Error)]
pub enum LogInitError {
    #[error("cannot create the log folder {dir}: {source}")]
    Folder { dir: String, source: io::Error },
    #[error("cannot open the log files in {dir}: {reason}")]
    Open { dir: String, reason: String },
}

/// Flushes what is buffered for the log files when dropped: keep it until
/// the process ends.
pub struct LogGuard {
    _daily: Option<tracing_appender::non_blocking::WorkerGuard>,
    _canal: Option<CanalLogGuard>,
}

/// Installs the process's log subscriber once (later calls do nothing):
/// `RUST_LOG` (default `info`), lines as `format` says, to stderr without
/// `files`, else to a file a day (`DIR/sluice.log.yyyy-MM-dd`) or in
/// Canal's layout.
pub fn init(files: Option<&LogFiles>, format: LineFormat) -> Result<LogGuard, LogInitError> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let filter = || {
        tracing_subscriber::EnvFilter::try_from_default_env()
            .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(DEFAULT_FILTER))
    };
    let mut guard = LogGuard {
        _daily: None,
        _canal: None,
    };
    let builder = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_target(false);
    let Some(files) = files else {
        let builder = builder
            .with_writer(std::io::stderr)
            .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()));
        let _ = match format {
            LineFormat::Text => builder.try_init(),
            LineFormat::Json => builder.json().try_init(),
        };
        return Ok(guard);
    };
    let dir = &files.dir;
    std::fs::create_dir_all(dir).map_err(|source| LogInitError::Folder {
        dir: dir.display().to_string(),
        source,
    })?;
    let open_error = |reason: String| LogInitError::Open {
        dir: dir.display().to_string(),
        reason,
    };
    if files.layout == LogLayout::Canal {
        let (layer, canal) = canal_layer(dir, format).map_err(|e| open_error(e.to_string()))?;
        let _ = tracing_subscriber::registry()
            .with(filter())
            .with(layer)
            .try_init();
        guard._canal = Some(canal);
        return Ok(guard);
    }
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("sluice.log")
        .build(dir)
        .map_err(|e| open_error(e.to_string()))?;
    // Written on a thread of its own: a slow disk does not hold up the
    // tasks that log.
    let (writer, daily) = tracing_appender::non_blocking(appender);
    let builder = builder.with_writer(writer).with_ansi(false);
    let _ = match format {
        LineFormat::Text => builder.try_init(),
        LineFormat::Json => builder.json().try_init(),
    };
    guard._daily = Some(daily);
    Ok(guard)
}

/// How lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineFormat {
    /// Canal's text pattern.
    #[default]
    Text,
    /// One JSON object per line: `timestamp`, `level`, `thread`, `target`
    /// and `fields` (with `message`).
    Json,
}

enum Message {
    Line {
        folder: String,
        date: String,
        line: String,
    },
    Shutdown,
}

/// A [`Layer`] that writes Canal's layout; install it with
/// `tracing_subscriber::registry().with(layer)`.
pub struct CanalLogLayer {
    sender: SyncSender<Message>,
    format: LineFormat,
    dropped: Arc<AtomicU64>,
}

/// Flushes and closes the files when dropped: keep it until the process
/// ends.
pub struct CanalLogGuard {
    sender: SyncSender<Message>,
    writer: Option<std::thread::JoinHandle<()>>,
}

impl Drop for CanalLogGuard {
    fn drop(&mut self) {
        let _ = self.sender.send(Message::Shutdown);
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// Creates `dir` and the writer thread of Canal's layout in it.
pub fn canal_layer(dir: &Path, format: LineFormat) -> io::Result<(CanalLogLayer, CanalLogGuard)> {
    std::fs::create_dir_all(dir.join(SERVER_LOG))?;
    let (sender, receiver) = mpsc::sync_channel(QUEUE);
    let dropped = Arc::new(AtomicU64::new(0));
    let mut writer = Writer {
        dir: dir.to_path_buf(),
        files: HashMap::new(),
        dropped: dropped.clone(),
        format,
    };
    let thread = std::thread::Builder::new()
        .name("sluice-log-writer".into())
        .spawn(move || writer.run(receiver))?;
    Ok((
        CanalLogLayer {
            sender: sender.clone(),
            format,
            dropped,
        },
        CanalLogGuard {
            sender,
            writer: Some(thread),
        },
    ))
}

/// The `destination` of a span, kept for the events inside it.
struct SpanDestination(String);

impl<S> Layer<S> for CanalLogLayer
where
    S: Subscriber + for<'a> LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let mut visitor = DestinationOnly(None);
        attrs.record(&mut visitor);
        if let (Some(destination), Some(span)) = (visitor.0, ctx.span(id)) {
            span.extensions_mut().insert(SpanDestination(destination));
        }
    }

    fn on_event(&self, event: &Event<'_>, ctx: Context<'_, S>) {
        let mut fields = Fields::default();
        event.record(&mut fields);
        let destination = fields.destination.clone().or_else(|| {
            ctx.event_scope(event)?.find_map(|span| {
                span.extensions()
                    .get::<SpanDestination>()
                    .map(|d| d.0.clone())
            })
        });
        let folder = match destination {
            Some(d) if is_file_name(&d) => d,
            _ => SERVER_LOG.to_string(),
        };
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let timestamp = local_time(now);
        let date = timestamp.get(..10).unwrap_or_default().to_string();
        let thread = std::thread::current();
        let thread = thread.name().unwrap_or("unnamed");
        let meta = event.metadata();
        let line = match self.format {
            LineFormat::Text => {
                let mut line = format!(
                    "{timestamp} [{thread}] {:<5} {} - {}",
                    meta.level().as_str(),
                    meta.target(),
                    fields.message
                );
                for (k, v) in &fields.others {
                    let _ = write!(line, " {k}={v}");
                }
                line.push('\n');
                line
            }
            LineFormat::Json => {
                let mut map = serde_json::Map::new();
                map.insert("message".into(), fields.message.into());
                if let Some(d) = fields.destination {
                    map.insert("destination".into(), d.into());
                }
                for (k, v) in fields.others {
                    map.insert(k.into(), v.into());
                }
                let mut line = serde_json::json!({
                    "timestamp": timestamp,
                    "level": meta.level().as_str(),
                    "thread": thread,
                    "target": meta.target(),
                    "fields": map,
                })
                .to_string();
                line.push('\n');
                line
            }
        };
        match self.sender.try_send(Message::Line { folder, date, line }) {
            Ok(()) => {}
            Err(TrySendError::Full(_)) => {
                self.dropped.fetch_add(1, Ordering::Relaxed);
            }
            Err(TrySendError::Disconnected(_)) => {}
        }
    }
}

/// `yyyy-MM-dd HH:mm:ss.SSS` in the local time zone.
fn local_time(since_epoch: Duration) -> String {
    let seconds = u32::try_from(since_epoch.as_secs()).unwrap_or(u32::MAX);
    sluice_encode::canal::value::local_timestamp(seconds, since_epoch.subsec_micros(), 3)
}

/// A name that is one plain path component: a destination or file name
/// that cannot lead out of its folder.
fn is_file_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 255
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\', '\0'])
}

#[derive(Default)]
struct Fields {
    message: String,
    destination: Option<String>,
    others: Vec<(&'static str, String)>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "message" => self.message = value.to_string(),
            "destination" => self.destination = Some(value.to_string()),
            name => self.others.push((name, value.to_string())),
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => self.message = format!("{value:?}"),
            "destination" => self.destination = Some(format!("{value:?}")),
            name => self.others.push((name, format!("{value:?}"))),
        }
    }
}

struct DestinationOnly(Option<String>);

impl Visit for DestinationOnly {
    fn record_str(&mut self, field: &Field, value: &str) {
        if field.name() == "destination" {
            self.0 = Some(value.to_string());
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        if field.name() == "destination" {
            self.0 = Some(format!("{value:?}"));
        }
    }
}

struct OpenFile {
    file: BufWriter<File>,
    /// The local day of the lines in it.
    date: String,
}

/// The writer thread's state: one open file per folder.
struct Writer {
    dir: PathBuf,
    files: HashMap<String, OpenFile>,
    dropped: Arc<AtomicU64>,
    format: LineFormat,
}

impl Writer {
    fn run(&mut self, receiver: Receiver<Message>) {
        // Lines that could not be written are said on stderr, at most once
        // a minute: the log itself is what fails.
        let mut last_complaint: Option<std::time::Instant> = None;
        while let Ok(first) = receiver.recv() {
            let mut next = Some(first);
            let mut shutdown = false;
            while let Some(message) = next.take() {
                match message {
                    Message::Shutdown => {
                        shutdown = true;
                        break;
                    }
                    Message::Line { folder, date, line } => {
                        if let Err(e) = self.write(folder, date, line.as_bytes()) {
                            let quiet = match last_complaint {
                                Some(t) => t.elapsed() > Duration::from_secs(60),
                                None => true,
                            };
                            if quiet {
                                eprintln!(
                                    "sluice: cannot write the log in {}: {e}",
                                    self.dir.display()
                                );
                                last_complaint = Some(std::time::Instant::now());
                            }
                        }
                    }
                }
                next = receiver.try_recv().ok();
            }
            let dropped = self.dropped.swap(0, Ordering::Relaxed);
            if dropped > 0 {
                let line = self.dropped_line(dropped);
                let date = line.get(..10).unwrap_or_default().to_string();
                let _ = self.write(SERVER_LOG.to_string(), date, line.as_bytes());
            }
            for f in self.files.values_mut() {
                let _ = f.file.flush();
            }
            if shutdown {
                return;
            }
        }
    }

    fn dropped_line(&self, dropped: u64) -> String {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        let timestamp = local_time(now);
        let message = format!("{dropped} log lines dropped: the log writer fell behind");
        match self.format {
            LineFormat::Text => {
                format!("{timestamp} [sluice-log-writer] WARN  sluice - {message}\n")
            }
            LineFormat::Json => format!(
                "{}\n",
                serde_json::json!({
                    "timestamp": timestamp,
                    "level": "WARN",
                    "thread": "sluice-log-writer",
                    "target": "sluice",
                    "fields": { "message": message },
                })
            ),
        }
    }

    fn write(&mut self, folder: String, date: String, line: &[u8]) -> io::Result<()> {
        let folder = if self.files.contains_key(&folder) || self.files.len() < MAX_FOLDERS {
            folder
        } else {
            SERVER_LOG.to_string()
        };
        let stale = self.files.get(&folder).is_some_and(|f| f.date != date);
        if stale {
            if let Some(mut old) = self.files.remove(&folder) {
                old.file.flush()?;
                drop(old.file);
                rotate(&self.dir.join(&folder), &folder, &old.date)?;
            }
        }
        let open = match self.files.entry(folder) {
            std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
            std::collections::hash_map::Entry::Vacant(e) => {
                let dir = self.dir.join(e.key());
                std::fs::create_dir_all(&dir)?;
                let path = dir.join(format!("{}.log", e.key()));
                // A file of an earlier day, left by an earlier run.
                if let Some(written) = modified_date(&path) {
                    if written != date {
                        rotate(&dir, e.key(), &written)?;
                    }
                }
                let file = OpenOptions::new().create(true).append(true).open(&path)?;
                e.insert(OpenFile {
                    file: BufWriter::new(file),
                    date,
                })
            }
        };
        open.file.write_all(line)
    }
}

/// The local day a file was last written, if it exists.
fn modified_date(path: &Path) -> Option<String> {
    let modified = std::fs::metadata(path).ok()?.modified().ok()?;
    let since = modified.duration_since(UNIX_EPOCH).ok()?;
    local_time(since).get(..10).map(str::to_string)
}

/// Renames `dir/name.log` to `dir/name-{date}.log` (`-{date}.1.log`… when
/// that exists) and keeps the [`KEEP_ROTATED`] newest rotated files.
fn rotate(dir: &Path, name: &str, date: &str) -> io::Result<()> {
    let current = dir.join(format!("{name}.log"));
    if !current.exists() {
        return Ok(());
    }
    let mut target = dir.join(format!("{name}-{date}.log"));
    let mut n = 1;
    while target.exists() {
        target = dir.join(format!("{name}-{date}.{n}.log"));
        n += 1;
    }
    std::fs::rename(&current, &target)?;
    let prefix = format!("{name}-");
    let mut rotated: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.starts_with(&prefix) && f.ends_with(".log") && is_rotated(&f[prefix.len()..]))
        .collect();
    rotated.sort();
    let excess = rotated.len().saturating_sub(KEEP_ROTATED);
    for old in &rotated[..excess] {
        let _ = std::fs::remove_file(dir.join(old));
    }
    Ok(())
}

/// `yyyy-MM-dd.log` or `yyyy-MM-dd.N.log`: only files this module rotated
/// are ever removed.
fn is_rotated(rest: &str) -> bool {
    let b = rest.as_bytes();
    b.len() >= 14
        && b[..10].iter().enumerate().all(|(i, c)| {
            if i == 4 || i == 7 {
                *c == b'-'
            } else {
                c.is_ascii_digit()
            }
        })
        && (rest[10..] == *".log"
            || rest[10..]
                .strip_prefix('.')
                .and_then(|r| r.strip_suffix(".log"))
                .is_some_and(|n| !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit())))
}

/// Why a log request cannot be answered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LogReadError {
    #[error("the server writes its log to standard error, not to files: start it with --log-dir DIR --log-layout canal to read logs here")]
    NoFiles,
    #[error("the server logs to {0} as one file a day, not per destination: start it with --log-layout canal for destination logs")]
    NotPerDestination(String),
    #[error("{what} {name:?} is not a plain file name")]
    BadName { what: &'static str, name: String },
    #[error("reading {path}: {error}")]
    Read { path: String, error: String },
}

/// Whose log: the server's or a destination's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogOf<'a> {
    Server,
    Destination(&'a str),
}

/// The folder of `of`'s log files and the name of its current file.
fn place(files: Option<&LogFiles>, of: LogOf<'_>) -> Result<(PathBuf, String), LogReadError> {
    let files = files.ok_or(LogReadError::NoFiles)?;
    match (files.layout, of) {
        (LogLayout::Canal, LogOf::Server) => {
            Ok((files.dir.join(SERVER_LOG), format!("{SERVER_LOG}.log")))
        }
        (LogLayout::Canal, LogOf::Destination(d)) => {
            if !is_file_name(d) {
                return Err(LogReadError::BadName {
                    what: "destination",
                    name: d.to_string(),
                });
            }
            Ok((files.dir.join(d), format!("{d}.log")))
        }
        (LogLayout::Sluice, LogOf::Server) => {
            // The newest of sluice.log.yyyy-MM-dd.
            let newest = file_names(&files.dir)?
                .into_iter()
                .filter(|f| f.starts_with("sluice.log"))
                .max()
                .unwrap_or_else(|| "sluice.log".into());
            Ok((files.dir.clone(), newest))
        }
        (LogLayout::Sluice, LogOf::Destination(_)) => Err(LogReadError::NotPerDestination(
            files.dir.display().to_string(),
        )),
    }
}

/// The names of the files in `dir`, sorted; none if it does not exist.
fn file_names(dir: &Path) -> Result<Vec<String>, LogReadError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(LogReadError::Read {
                path: dir.display().to_string(),
                error: e.to_string(),
            })
        }
    };
    let mut names: Vec<String> = entries
        .filter_map(|e| {
            let e = e.ok()?;
            e.file_type().ok()?.is_file().then_some(())?;
            e.file_name().into_string().ok()
        })
        .collect();
    names.sort();
    Ok(names)
}

/// The log files of `of`, as Canal lists them: names joined by commas.
pub fn list(files: Option<&LogFiles>, of: LogOf<'_>) -> Result<String, LogReadError> {
    let (dir, _) = place(files, of)?;
    let mut names = file_names(&dir)?;
    if files.is_some_and(|f| f.layout == LogLayout::Sluice) {
        names.retain(|f| f.starts_with("sluice.log"));
    }
    Ok(names.join(","))
}

/// The last `lines` lines (100 when 0 or less) of `of`'s current log file,
/// or of `file` in its folder, joined by `\n`: at most the last 4 MiB of
/// the file. A file not written yet reads as empty (as Canal).
pub fn tail(
    files: Option<&LogFiles>,
    of: LogOf<'_>,
    file: Option<&str>,
    lines: i32,
) -> Result<String, LogReadError> {
    let (dir, current) = place(files, of)?;
    let name = match file.filter(|f| !f.is_empty()) {
        Some(f) if !is_file_name(f) => {
            return Err(LogReadError::BadName {
                what: "file",
                name: f.to_string(),
            })
        }
        Some(f) => f.to_string(),
        None => current,
    };
    let lines = usize::try_from(lines)
        .ok()
        .filter(|n| *n > 0)
        .unwrap_or(DEFAULT_TAIL_LINES);
    let path = dir.join(name);
    let read_error = |e: io::Error| LogReadError::Read {
        path: path.display().to_string(),
        error: e.to_string(),
    };
    let mut f = match File::open(&path) {
        Ok(f) => f,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(String::new()),
        Err(e) => return Err(read_error(e)),
    };
    let len = f.metadata().map_err(read_error)?.len();
    let from = len.saturating_sub(MAX_TAIL_BYTES);
    f.seek(SeekFrom::Start(from)).map_err(read_error)?;
    let mut bytes = Vec::new();
    f.take(MAX_TAIL_BYTES)
        .read_to_end(&mut bytes)
        .map_err(read_error)?;
    let text = String::from_utf8_lossy(&bytes);
    // Started inside a line: that partial line is left out.
    let text = match (from > 0, text.find('\n')) {
        (true, Some(i)) => &text[i + 1..],
        _ => &text[..],
    };
    let all: Vec<&str> = text.lines().collect();
    Ok(all[all.len().saturating_sub(lines)..].join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_go_to_the_server_file_or_their_destination_s_file() {
        use tracing_subscriber::layer::SubscriberExt;
        let dir = tempfile::tempdir().unwrap();
        let (layer, guard) = canal_layer(dir.path(), LineFormat::Text).unwrap();
        let subscriber = tracing_subscriber::registry().with(layer);
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!("server starting");
            tracing::info!(
                destination = "example",
                position = 4,
                "instance reading the source"
            );
            tracing::warn!(destination = %"other", "instance stopped");
            let span = tracing::info_span!("stream", destination = "example");
            span.in_scope(|| tracing::error!(error = "gone", "inside the span"));
            tracing::info!(destination = "../escape", "not a folder name");
        });
        drop(guard);
        let read = |p: &str| std::fs::read_to_string(dir.path().join(p)).unwrap();
        let server = read("canal/canal.log");
        let example = read("example/example.log");
        let other = read("other/other.log");
        assert_eq!(server.lines().count(), 2, "{server}");
        assert!(server.contains(" - server starting\n"), "{server}");
        assert!(server.contains(" - not a folder name\n"), "{server}");
        assert_eq!(example.lines().count(), 2, "{example}");
        assert!(
            example.contains(" - instance reading the source position=4\n"),
            "{example}"
        );
        assert!(
            example.contains(" - inside the span error=gone\n"),
            "{example}"
        );
        assert!(other.contains("WARN "), "{other}");
        // Canal's pattern: `yyyy-MM-dd HH:mm:ss.SSS [thread] LEVEL target - message`.
        let first = server.lines().next().unwrap();
        let (stamp, rest) = first.split_at(23);
        let shape: String = stamp
            .chars()
            .map(|c| if c.is_ascii_digit() { '9' } else { c })
            .collect();
        assert_eq!(shape, "9999-99-99 99:99:99.999", "{first}");
        let (thread, rest) = rest.split_once("] ").unwrap();
        assert!(thread.starts_with(" ["), "{first}");
        assert_eq!(
            rest, "INFO  sluice_server::logs::tests - server starting",
            "{first}"
        );
        assert!(!dir.path().join("escape").exists());
    }

    #[test]
    fn a_file_of_an_earlier_day_is_rotated_on_the_first_line() {
        use tracing_subscriber::layer::SubscriberExt;
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("example")).unwrap();
        let old = dir.path().join("example/example.log");
        std::fs::write(&old, "yesterday's line\n").unwrap();
        let two_days_ago = SystemTime::now() - Duration::from_secs(2 * 86_400);
        File::options()
            .write(true)
            .open(&old)
            .unwrap()
            .set_modified(two_days_ago)
            .unwrap();
        let day = local_time(two_days_ago.duration_since(UNIX_EPOCH).unwrap())[..10].to_string();
        let (layer, guard) = canal_layer(dir.path(), LineFormat::Json).unwrap();
        tracing::subscriber::with_default(tracing_subscriber::registry().with(layer), || {
            tracing::info!(destination = "example", "today's line");
        });
        drop(guard);
        let rotated = dir.path().join(format!("example/example-{day}.log"));
        assert_eq!(
            std::fs::read_to_string(rotated).unwrap(),
            "yesterday's line\n"
        );
        let today = std::fs::read_to_string(&old).unwrap();
        let line: serde_json::Value = serde_json::from_str(today.trim_end()).unwrap();
        assert_eq!(line["fields"]["message"], "today's line");
        assert_eq!(line["fields"]["destination"], "example");
        assert_eq!(line["level"], "INFO");
    }

    #[test]
    fn only_plain_names_are_file_names() {
        for ok in ["example", "canal", "a.b", "x-2024-01-01.log"] {
            assert!(is_file_name(ok), "{ok}");
        }
        for bad in ["", ".", "..", "../etc", "a/b", "a\\b", "a\0b"] {
            assert!(!is_file_name(bad), "{bad:?}");
        }
    }

    #[test]
    fn rotated_names_are_recognised() {
        assert!(is_rotated("2024-01-31.log"));
        assert!(is_rotated("2024-01-31.2.log"));
        assert!(!is_rotated("2024-01-31.log.gz"));
        assert!(!is_rotated("notes.log"));
        assert!(!is_rotated("2024-01-31..log"));
    }

    #[test]
    fn rotation_renames_with_the_day_and_keeps_fourteen() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        for day in 1..=20 {
            std::fs::write(d.join("example.log"), format!("day {day}\n")).unwrap();
            rotate(d, "example", &format!("2024-01-{day:02}")).unwrap();
        }
        std::fs::write(d.join("example.log"), "again\n").unwrap();
        rotate(d, "example", "2024-01-20").unwrap();
        std::fs::write(d.join("keep-me.txt"), "not a log\n").unwrap();
        let names = file_names(d).unwrap();
        assert_eq!(names.len(), 15, "{names:?}");
        assert_eq!(
            names.first().map(String::as_str),
            Some("example-2024-01-08.log")
        );
        assert!(
            names.contains(&"example-2024-01-20.1.log".to_string()),
            "{names:?}"
        );
        assert!(names.contains(&"keep-me.txt".to_string()));
        assert_eq!(
            std::fs::read_to_string(d.join("example-2024-01-20.1.log")).unwrap(),
            "again\n"
        );
    }

    #[test]
    fn tail_reads_the_last_lines_and_refuses_names_leading_out() {
        let dir = tempfile::tempdir().unwrap();
        let files = LogFiles {
            dir: dir.path().to_path_buf(),
            layout: LogLayout::Canal,
        };
        std::fs::create_dir_all(dir.path().join("example")).unwrap();
        let text: String = (1..=150).map(|i| format!("line {i}\n")).collect();
        std::fs::write(dir.path().join("example/example.log"), text).unwrap();
        let of = LogOf::Destination("example");
        assert_eq!(
            tail(Some(&files), of, None, 2).unwrap(),
            "line 149\nline 150"
        );
        let default = tail(Some(&files), of, None, 0).unwrap();
        assert_eq!(default.lines().count(), 100);
        assert!(default.starts_with("line 51\n"), "{default}");
        assert_eq!(tail(Some(&files), LogOf::Server, None, 5).unwrap(), "");
        assert_eq!(list(Some(&files), of).unwrap(), "example.log");
        assert!(matches!(
            tail(Some(&files), of, Some("../canal/canal.log"), 5),
            Err(LogReadError::BadName { .. })
        ));
        assert!(matches!(
            list(Some(&files), LogOf::Destination("..")),
            Err(LogReadError::BadName { .. })
        ));
        assert_eq!(tail(None, of, None, 5), Err(LogReadError::NoFiles));
    }
}
