//! `sluice tail`: follows a live server as a replica and prints every
//! committed row change as one JSON line, with transaction boundaries and
//! DDL statements (format in the README).
//!
//! A transaction is held in memory until its commit and only then printed, so
//! a reconnect in the middle of a transaction (which delivers it again from
//! its start) never shows a partial or repeated transaction. Status and
//! warnings go to standard error.

use std::io::{BufWriter, Write};

use anyhow::{anyhow, Context, Result};
use clap::Args;
use regex::Regex;
use serde_json::{json, Map, Value as Json};
use sluice_binlog::events::EventData;
use sluice_binlog::RowsKind;
use sluice_source::{BinlogStream, Event, SourceConfig, StartPosition, StreamItem};

use sluice_instance::runner::{BinlogOnly, EventPlace, SchemaHook};
use sluice_instance::schema_hook::{ServerMetadata, TrackedSchema};

use crate::render::{column_names, image_json};

#[derive(Args)]
#[command(
    after_help = "Each transaction is printed when it commits, whole: a begin line, its row lines, \
a commit line (DDL statements are one ddl line). Nothing of a transaction is printed before its \
commit, so a reconnect in the middle of one never shows it partly or twice. Column names, \
signedness and ENUM/SET labels come from the schema, read from the server at the start and followed \
through every DDL (with --no-schema: from the binlog's own metadata, else @1, @2, ...).\n\n\
URL parameters: sslMode (DISABLED, PREFERRED, REQUIRED, VERIFY_CA, VERIFY_IDENTITY), sslCa, \
sslServerName, serverPublicKey, allowPublicKeyRetrieval, allowCleartextPasswords, heartbeat, \
readTimeout, connectTimeout, serverId, requireFullRowImage.\n\n\
Password: a password inside the URL is visible to every local user (ps, /proc/PID/cmdline); \
give it in the environment variable SLUICE_SOURCE_PASSWORD or in a file (--password-file) instead."
)]
pub struct TailArgs {
    /// The server: mysql://user@host:port[?sslMode=REQUIRED&...]. A password
    /// written here (user:password@) shows in the process list: prefer
    /// SLUICE_SOURCE_PASSWORD or --password-file.
    #[arg(long)]
    pub source: String,

    /// Read the source's password from this file (one trailing newline is
    /// ignored), instead of the URL or SLUICE_SOURCE_PASSWORD.
    #[arg(long, value_name = "PATH")]
    pub password_file: Option<std::path::PathBuf>,

    /// Where to start: earliest, latest, FILE:POS (e.g. binlog.000003:4),
    /// gtid:SET (MariaDB 0-1-100,1-2-5 or MySQL uuid:1-100) or time:ISO-8601
    /// (the last transaction boundary at or before that time; UTC unless an
    /// offset is given).
    #[arg(long, default_value = "latest")]
    pub from: String,

    /// Print only changes of tables whose `db.table` matches this regular
    /// expression (the whole name must match, e.g. 'shop\..*'). DDL lines are
    /// printed when the table they name matches.
    #[arg(long)]
    pub filter: Option<String>,

    /// The replica server id to use (must be unique among the source's
    /// replicas). Default: derived from host name, local address and process id.
    #[arg(long)]
    pub server_id: Option<u32>,

    /// Exit at the end of the binlog instead of waiting for new changes.
    #[arg(long)]
    pub stop_at_end: bool,

    /// Keep the schema history in this file, so a later run started at an
    /// older position decodes with the schema of that time. Default: in memory,
    /// read from the server at the start.
    #[arg(long)]
    pub schema_history: Option<std::path::PathBuf>,

    /// Do not track the schema: column names and types come from the
    /// binlog's own metadata only (binlog_row_metadata=FULL).
    #[arg(long)]
    pub no_schema: bool,

    /// The largest size, in bytes, that a compressed event's content may
    /// inflate to (MariaDB compressed events, MySQL transaction payloads);
    /// a bigger one stops the stream with an error. Default 268435456
    /// (256 MiB), at most 1073741824.
    #[arg(long, value_name = "BYTES", value_parser = crate::render::parse_event_size)]
    pub max_event_size: Option<usize>,
}

pub fn run(args: &TailArgs) -> Result<()> {
    init_logging();
    if let Some(n) = args.max_event_size {
        sluice_binlog::compression::set_max_uncompressed(n);
    }
    let start: StartPosition = args.from.parse().map_err(|e: String| anyhow!(e))?;
    let mut config = SourceConfig::from_url(&args.source)?.starting_at(start);
    let env_password = std::env::var_os(PASSWORD_ENV);
    if let Some(password) = source_password(
        !config.connect.password.is_empty(),
        args.password_file.as_deref(),
        env_password.as_deref(),
    )? {
        config.connect.password = password;
    }
    if let Some(id) = args.server_id {
        if id == 0 {
            return Err(anyhow!(
                "--server-id 0 is not allowed: a replica needs a non-zero id"
            ));
        }
        config.server_id = Some(id);
    }
    config.stop_at_end = args.stop_at_end;
    let filter = match &args.filter {
        Some(re) => Some(
            Regex::new(&format!("^(?:{re})$"))
                .with_context(|| format!("--filter '{re}' is not a valid regular expression"))?,
        ),
        None => None,
    };
    let schema = if args.no_schema {
        Box::new(BinlogOnly) as Box<dyn SchemaHook>
    } else {
        tracked_schema(&config.connect, args.schema_history.as_deref())?
    };
    // Multi-threaded: the schema tracker's server queries block a worker.
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the async runtime")?;
    runtime.block_on(tail(config, filter, schema))
}

/// The environment variable that may hold the source's password.
const PASSWORD_ENV: &str = "SLUICE_SOURCE_PASSWORD";

/// The password from `--password-file` or [`PASSWORD_ENV`], if one is
/// given; at most one of them and the URL may hold it. A password in the
/// URL is accepted with a warning: any local user can read a command line.
fn source_password(
    in_url: bool,
    file: Option<&std::path::Path>,
    env: Option<&std::ffi::OsStr>,
) -> Result<Option<String>> {
    let given: Vec<&str> = [
        (in_url, "a password in --source"),
        (file.is_some(), "--password-file"),
        (env.is_some(), PASSWORD_ENV),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect();
    if given.len() > 1 {
        return Err(anyhow!(
            "the source's password is given more than once ({}): keep one",
            given.join(" and ")
        ));
    }
    if in_url {
        tracing::warn!(
            "the password in --source is visible to every local user (ps, /proc/PID/cmdline): \
             give it in {PASSWORD_ENV} or a --password-file instead"
        );
    }
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).with_context(|| {
            format!(
                "cannot read the source's password from --password-file {}",
                path.display()
            )
        })?;
        let password = text
            .strip_suffix('\n')
            .map(|t| t.strip_suffix('\r').unwrap_or(t))
            .unwrap_or(&text);
        return Ok(Some(password.to_string()));
    }
    if let Some(value) = env {
        let password = value.to_str().ok_or_else(|| {
            anyhow!("{PASSWORD_ENV} is not valid UTF-8: the password must be UTF-8 text")
        })?;
        return Ok(Some(password.to_string()));
    }
    Ok(None)
}

fn tracked_schema(
    connect: &sluice_source::conn::ConnectOptions,
    history: Option<&std::path::Path>,
) -> Result<Box<dyn SchemaHook>> {
    let store: Box<dyn sluice_schema::SchemaHistoryStore> = match history {
        Some(path) => Box::new(
            sluice_schema::FileHistoryStore::open(path)
                .with_context(|| format!("opening the schema history {}", path.display()))?,
        ),
        None => Box::new(sluice_schema::MemoryHistoryStore::default()),
    };
    let tracker =
        sluice_schema::SchemaTracker::open(store, sluice_schema::TrackerOptions::default())
            .context("reading the schema history")?;
    Ok(Box::new(TrackedSchema::new(
        tracker,
        Some(ServerMetadata::new(connect.clone())),
        sluice_canal::TableFilter::all(),
    )))
}

pub(crate) fn init_logging() {
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_target(false)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .try_init();
}

/// The transaction being collected.
#[derive(Default)]
struct Txn {
    lines: Vec<String>,
    begin: Option<Json>,
    has_rows: bool,
}

async fn tail(
    config: SourceConfig,
    filter: Option<Regex>,
    mut schema: Box<dyn SchemaHook>,
) -> Result<()> {
    let mut stream = BinlogStream::connect(config).await?;
    let (file, offset) = (stream.position().file.clone(), stream.position().offset);
    schema
        .on_start(&file, offset)
        .map_err(|e| anyhow!("schema at {file}:{offset}: {e}"))?;
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    let mut txn = Txn::default();
    while let Some(item) = stream.next().await? {
        let ev = match item {
            StreamItem::TransactionAborted { resume, reason } => {
                tracing::warn!(
                    %resume,
                    %reason,
                    "connection lost inside a transaction; it is read again from its start"
                );
                txn = Txn::default();
                continue;
            }
            StreamItem::Event(ev) => ev,
        };
        let mut ev = ev;
        follow_schema(&mut ev, schema.as_mut())?;
        handle(&ev, &filter, &mut txn)?;
        if let Some(end) = ev.ends_transaction {
            if txn.has_rows {
                let mut commit = Map::new();
                commit.insert("type".into(), json!("commit"));
                commit.insert(
                    "position".into(),
                    position(end.file.as_str(), end.offset, ev.gtid),
                );
                if let EventData::Xid(x) = &ev.data {
                    commit.insert("xid".into(), json!(x));
                }
                commit.insert("timestamp".into(), json!(end.timestamp));
                if let Some(g) = &end.gtid {
                    commit.insert("gtid_state".into(), json!(g.to_string()));
                }
                if let Some(b) = txn.begin.take() {
                    writeln!(out, "{b}")?;
                }
                for l in &txn.lines {
                    out.write_all(l.as_bytes())?;
                    out.write_all(b"\n")?;
                }
                writeln!(out, "{}", Json::Object(commit))?;
            } else {
                for l in &txn.lines {
                    out.write_all(l.as_bytes())?;
                    out.write_all(b"\n")?;
                }
            }
            txn = Txn::default();
            // Whole transactions reach the reader at once, and at once.
            out.flush().context("writing to standard output")?;
        }
    }
    out.flush().context("writing to standard output")?;
    tracing::info!(position = %stream.position(), "end of the binlog reached");
    Ok(())
}

/// Feeds statements to the schema tracker and gives rows events the
/// described table (names, signedness, labels of that time).
fn follow_schema(ev: &mut Event<'_>, schema: &mut dyn SchemaHook) -> Result<()> {
    let mut place = EventPlace {
        file: ev.file,
        pos: ev.pos,
        next_pos: ev.next_pos,
        status_vars: &[],
    };
    match &mut ev.data {
        EventData::Query(q) => {
            let sql = q.query_text().trim().to_string();
            let head: String = sql.chars().take(8).collect::<String>().to_ascii_uppercase();
            if head != "BEGIN" && head != "COMMIT" && !head.starts_with("XA ") {
                place.status_vars = q.status_vars;
                let db = q.schema_text().into_owned();
                schema
                    .on_query(&place, &db, &sql)
                    .map_err(|e| anyhow!("{}:{}: schema: {e}", ev.file, ev.pos))?;
            }
        }
        EventData::Rows(r) => {
            let (table, _) = schema
                .describe(&place, &r.table)
                .map_err(|e| anyhow!("{}:{}: schema: {e}", ev.file, ev.pos))?;
            r.table = table;
        }
        _ => {}
    }
    Ok(())
}

fn position(file: &str, pos: u64, gtid: Option<&str>) -> Json {
    json!({"file": file, "pos": pos, "gtid": gtid})
}

fn handle(ev: &Event<'_>, filter: &Option<Regex>, txn: &mut Txn) -> Result<()> {
    if ev.starts_transaction {
        *txn = Txn::default();
        txn.begin = Some(json!({
            "type": "begin",
            "position": position(ev.file, ev.pos, ev.gtid),
            "timestamp": ev.raw.header.timestamp,
        }));
    }
    match &ev.data {
        EventData::Rows(r) => {
            let t = &r.table;
            if let Some(f) = filter {
                if !f.is_match(&format!("{}.{}", t.schema, t.table)) {
                    return Ok(());
                }
            }
            let op = match r.kind {
                RowsKind::Write => "insert",
                RowsKind::Update | RowsKind::PartialUpdate => "update",
                RowsKind::Delete => "delete",
            };
            let columns = column_names(t);
            for row in r.rows() {
                let row = row.with_context(|| format!("{}:{}: rows event", ev.file, ev.pos))?;
                let mut o = Map::new();
                o.insert("type".into(), json!("row"));
                o.insert("op".into(), json!(op));
                o.insert("db".into(), json!(t.schema));
                o.insert("table".into(), json!(t.table));
                o.insert("columns".into(), columns.clone());
                match &row.before {
                    Some(img) => image_json(t, img, "before", &mut o)?,
                    None => {
                        o.insert("before".into(), Json::Null);
                    }
                }
                match &row.after {
                    Some(img) => image_json(t, img, "after", &mut o)?,
                    None => {
                        o.insert("after".into(), Json::Null);
                    }
                }
                o.insert("position".into(), position(ev.file, ev.pos, ev.gtid));
                txn.lines.push(Json::Object(o).to_string());
                txn.has_rows = true;
            }
        }
        EventData::Query(q) if ev.ends_transaction.is_some() => {
            let sql = q.query_text();
            let head = sql.trim_start().to_ascii_uppercase();
            let control = ["BEGIN", "COMMIT", "ROLLBACK", "XA "]
                .iter()
                .any(|k| head.starts_with(k));
            if control {
                return Ok(());
            }
            let db = q.schema_text();
            if let Some(f) = filter {
                match ddl_table(&sql, &db) {
                    Some(name) if f.is_match(&name) => {}
                    _ => return Ok(()),
                }
            }
            txn.lines.push(
                json!({
                    "type": "ddl",
                    "db": db,
                    "sql": sql,
                    "position": position(ev.file, ev.pos, ev.gtid),
                    "timestamp": ev.raw.header.timestamp,
                })
                .to_string(),
            );
        }
        _ => {}
    }
    Ok(())
}

/// `db.table` for simple one-table DDL (CREATE/ALTER/DROP/TRUNCATE/RENAME
/// TABLE); `None` for anything else.
fn ddl_table(sql: &str, default_db: &str) -> Option<String> {
    let mut words = sql.split_whitespace().peekable();
    let verb = words.next()?.to_ascii_uppercase();
    if !matches!(
        verb.as_str(),
        "CREATE" | "ALTER" | "DROP" | "TRUNCATE" | "RENAME"
    ) {
        return None;
    }
    let mut saw_table = false;
    for w in words.by_ref() {
        let u = w.to_ascii_uppercase();
        if u == "TABLE" {
            saw_table = true;
            break;
        }
        if !matches!(
            u.as_str(),
            "TEMPORARY" | "OR" | "REPLACE" | "ONLINE" | "OFFLINE" | "IGNORE"
        ) {
            return None;
        }
    }
    if !saw_table {
        return None;
    }
    let mut name = words.next()?;
    while matches!(name.to_ascii_uppercase().as_str(), "IF" | "NOT" | "EXISTS") {
        name = words.next()?;
    }
    let name = name.split(['(', ',', ';']).next().unwrap_or(name);
    let parts: Vec<String> = name
        .split('.')
        .map(|p| p.trim_matches('`').to_string())
        .collect();
    match parts.as_slice() {
        [t] => Some(format!("{default_db}.{t}")),
        [d, t] => Some(format!("{d}.{t}")),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::ddl_table;

    #[test]
    fn ddl_table_names() {
        assert_eq!(
            ddl_table("CREATE TABLE t (a int)", "shop").as_deref(),
            Some("shop.t")
        );
        assert_eq!(
            ddl_table("drop table if exists `x`.`y`", "shop").as_deref(),
            Some("x.y")
        );
        assert_eq!(
            ddl_table("ALTER ONLINE TABLE o ADD c INT", "s").as_deref(),
            Some("s.o")
        );
        assert_eq!(
            ddl_table("CREATE TABLE IF NOT EXISTS a.b(x int)", "s").as_deref(),
            Some("a.b")
        );
        assert_eq!(ddl_table("CREATE DATABASE shop", "").as_deref(), None);
        assert_eq!(ddl_table("TRUNCATE t", "s").as_deref(), None);
    }
}
