//! `sluice tail`: follows a live server as a replica and prints every
//! committed row change as one JSON line, with transaction boundaries and
//! DDL statements (format in the README).
//!
//! A transaction is held in memory until its commit and only then printed, so
//! a reconnect in the middle of a transaction (which delivers it again from
//! its start) never shows a partial or repeated transaction. Status and
//! warnings go to standard error.

use std::io::BufWriter;

use anyhow::{anyhow, Context, Result};
use clap::Args;
use regex::Regex;
use sluice_encode::tail::TailEncoder;
use sluice_source::password::{source_password, PASSWORD_ENV};
use sluice_source::{SourceConfig, StartPosition};

use sluice_instance::runner::{BinlogOnly, SchemaHook};
use sluice_instance::stream::{ChangeStream, StreamError, WriteSink};

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

    /// Print only these columns of the tables named, in Canal's
    /// canal.instance.filter.field syntax: db.table:col1/col2,db2.table2:col3
    /// (names without regard to case; a table's key columns only when
    /// listed). Other tables keep all their columns.
    #[arg(long, value_name = "SPEC")]
    pub columns: Option<String>,

    /// Leave these columns of the tables named out of every line (their
    /// names and values), in the same syntax as --columns; a table named by
    /// --columns shows what --columns lists.
    #[arg(long, value_name = "SPEC")]
    pub exclude_columns: Option<String>,

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
    #[arg(long, value_name = "BYTES", value_parser = crate::decode::parse_event_size)]
    pub max_event_size: Option<usize>,

    /// Encoders that turn rows into JSON at once beside the one reading the
    /// stream, on the encoding threads (one per CPU); the output is the
    /// same whatever the number. Default: the number of CPUs, at most 4.
    /// 0: all on the reading thread.
    #[arg(long, value_name = "N")]
    pub threads: Option<usize>,
}

pub fn run(args: &TailArgs) -> Result<()> {
    let _log_guard = crate::logging::init(&Default::default())?;
    if let Some(n) = args.max_event_size {
        sluice_binlog::compression::set_max_uncompressed(n);
    }
    let start: StartPosition = args.from.parse().map_err(|e: String| anyhow!(e))?;
    let mut config = SourceConfig::from_url(&args.source)?.starting_at(start);
    let env_password = std::env::var_os(PASSWORD_ENV);
    if let Some(password) = source_password(
        !config.connect.password.is_empty(),
        args.password_file.as_deref(),
        "--password-file",
        env_password.as_deref(),
    )
    .map_err(|e| anyhow!(e))?
    {
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
    let columns = sluice_instance::columns::parse_canal_rules(
        ("--columns", args.columns.as_deref().unwrap_or("")),
        (
            "--exclude-columns",
            args.exclude_columns.as_deref().unwrap_or(""),
        ),
    )
    .map_err(|e| anyhow!(e))?;
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
    let make_encoder = move || {
        let encoder = TailEncoder::new();
        match filter.clone() {
            Some(re) => encoder.with_filter(Box::new(move |name: &str| re.is_match(name))),
            None => encoder,
        }
    };
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get().min(4)));
    let stdout = std::io::stdout();
    let mut sink = WriteSink(BufWriter::with_capacity(1 << 16, stdout.lock()));
    let stream = ChangeStream::new(config, schema).with_columns(columns);
    let run = async {
        if threads == 0 {
            stream.run(&mut make_encoder(), &mut sink).await
        } else {
            stream.run_parallel(threads, make_encoder, &mut sink).await
        }
    };
    match runtime.block_on(run) {
        Ok(_) => Ok(()),
        Err(StreamError::Sink { source, .. }) => {
            Err(anyhow!(source).context("writing to standard output"))
        }
        Err(e) => Err(e.into()),
    }
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
    sluice_instance::schema_hook::tracked_schema_in(
        store,
        connect,
        sluice_canal::TableFilter::all(),
    )
    .map_err(|e| anyhow!("reading the schema history: {e}"))
}
