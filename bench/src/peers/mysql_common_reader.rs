//! The mysql_common reader: what a Rust program reading a server's binlog
//! without Sluice does. It connects with `mysql_async`, asks for the binlog
//! stream as a replica, and decodes every row of every rows event into
//! mysql_common values (as `crates/1-binlog/benches/decode.rs` does for files),
//! touching each value so none is skipped. Checksums are verified, as Sluice
//! always does.
//!
//! A [`Visit`] sees each rows event and each row as it is decoded, so a
//! throughput benchmark can count and a latency benchmark can stamp them.

use std::ops::ControlFlow;

use anyhow::{bail, Context as _, Result};
use futures_util::StreamExt;
use mysql_async::binlog::events::{Event, EventData, RowsEventData};
use mysql_async::binlog::value::BinlogValue;
use mysql_async::prelude::Queryable;
use mysql_async::{BinlogStreamRequest, Conn, OptsBuilder, Value};

pub use mysql_async::binlog::row::BinlogRow;

/// Where to read from.
#[derive(Debug, Clone)]
pub struct Source {
    pub host: String,
    pub port: u16,
    pub user: String,
    pub password: Option<String>,
    /// Binlog file to start in, e.g. `binlog.000001`.
    pub file: String,
    /// Position in `file` to start at (4: its first event).
    pub position: u64,
    /// The replica's server id; must differ from the server's and other replicas'.
    pub server_id: u32,
}

impl Source {
    /// `user` without password on `127.0.0.1:port`, from the start of `file`.
    pub fn local(port: u16, user: &str, file: &str) -> Self {
        Source {
            host: "127.0.0.1".to_string(),
            port,
            user: user.to_string(),
            password: None,
            file: file.to_string(),
            position: 4,
            server_id: 4242,
        }
    }
}

/// When the read ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Until {
    /// At the end of the server's last binlog (a non-blocking dump).
    End,
    /// Never by itself: the stream waits for new events until a [`Visit`]
    /// callback breaks or the connection fails.
    VisitorBreaks,
}

/// What kind of change a rows event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowsKind {
    Insert,
    Update,
    Delete,
    /// Partial updates and other rows events.
    Other,
}

/// A rows event, seen before its rows are decoded.
#[derive(Debug, Clone, Copy)]
pub struct RowsEventSeen<'a> {
    /// Seconds since the epoch at which the server wrote the event.
    pub timestamp: u32,
    /// Position of the next event in the binlog file.
    pub log_pos: u32,
    pub schema: &'a str,
    pub table: &'a str,
    pub kind: RowsKind,
}

/// Callbacks per rows event and per row. Returning `Break` ends the read.
pub trait Visit {
    fn rows_event(&mut self, _event: &RowsEventSeen<'_>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
    /// One row change: a before image (update, delete), an after image
    /// (insert, update), or both.
    fn row(&mut self, _before: Option<&BinlogRow>, _after: Option<&BinlogRow>) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

/// Counts only.
impl Visit for () {}

/// What a read saw, and a fold of every value so that none is left unread.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub events: u64,
    pub rows_events: u64,
    pub rows: u64,
    pub cells: u64,
    pub nulls: u64,
    pub fold: u64,
}

impl Counts {
    #[inline]
    fn add(&mut self, x: u64) {
        self.fold = (self.fold ^ x).wrapping_mul(0x0100_0000_01b3);
    }
}

/// Reads the binlog stream of `source` until `until`, decoding every row.
pub async fn read(source: &Source, until: Until, visit: &mut impl Visit) -> Result<Counts> {
    let opts = OptsBuilder::default()
        .ip_or_hostname(source.host.clone())
        .tcp_port(source.port)
        .user(Some(source.user.clone()))
        .pass(source.password.clone())
        .prefer_socket(false);
    let mut conn = Conn::new(opts)
        .await
        .with_context(|| format!("connecting to {}:{}", source.host, source.port))?;
    if is_mariadb(&mut conn).await? {
        // Announce a GTID-aware replica, as Sluice does, so that MariaDB sends
        // its events as they are rather than rewritten for old replicas.
        conn.query_drop("SET @mariadb_slave_capability = 4").await?;
    }
    let mut request = BinlogStreamRequest::new(source.server_id)
        .with_filename(source.file.as_bytes())
        .with_pos(source.position);
    if until == Until::End {
        request = request.with_non_blocking();
    }
    let mut stream = conn
        .get_binlog_stream(request)
        .await
        .context("requesting the binlog stream")?;

    let mut counts = Counts::default();
    while let Some(event) = stream.next().await {
        let event = event.context("reading the binlog stream")?;
        counts.events += 1;
        verify_checksum(&event)?;
        let Some(EventData::RowsEvent(rows)) = event
            .read_data()
            .with_context(|| format!("event ending at {}", event.header().log_pos()))?
        else {
            continue;
        };
        counts.rows_events += 1;
        let Some(tme) = stream.get_tme(rows.table_id()) else {
            bail!(
                "rows event ending at {} names table id {} without its table map",
                event.header().log_pos(),
                rows.table_id()
            );
        };
        let schema = tme.database_name();
        let table = tme.table_name();
        let seen = RowsEventSeen {
            timestamp: event.header().timestamp(),
            log_pos: event.header().log_pos(),
            schema: &schema,
            table: &table,
            kind: rows_kind(&rows),
        };
        if visit.rows_event(&seen).is_break() {
            break;
        }
        for row in rows.rows(tme) {
            let (before, after) =
                row.with_context(|| format!("a row of the event ending at {}", seen.log_pos))?;
            counts.rows += 1;
            for image in [&before, &after].into_iter().flatten() {
                for i in 0..image.len() {
                    counts.cells += 1;
                    match image.as_ref(i) {
                        Some(BinlogValue::Value(Value::NULL)) => counts.nulls += 1,
                        Some(v) => counts.add(fold_value(v)),
                        // A column left out of a partial image.
                        None => counts.add(3),
                    }
                }
            }
            if visit.row(before.as_ref(), after.as_ref()).is_break() {
                return Ok(counts);
            }
        }
    }
    Ok(counts)
}

/// [`read`] on a runtime of its own on this thread.
pub fn read_blocking(source: &Source, until: Until, visit: &mut impl Visit) -> Result<Counts> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting a runtime")?;
    runtime.block_on(read(source, until, visit))
}

async fn is_mariadb(conn: &mut Conn) -> Result<bool> {
    let version: Option<String> = conn.query_first("SELECT VERSION()").await?;
    Ok(version.is_some_and(|v| v.contains("MariaDB")))
}

fn verify_checksum(event: &Event) -> Result<()> {
    // mysql_common does not verify checksums itself.
    if let (Ok(Some(alg)), Some(stored)) = (event.footer().get_checksum_alg(), event.checksum()) {
        let computed = event.calc_checksum(alg);
        if u32::from_le_bytes(stored) != computed {
            bail!(
                "checksum mismatch in the event ending at {}",
                event.header().log_pos()
            );
        }
    }
    Ok(())
}

fn rows_kind(rows: &RowsEventData<'_>) -> RowsKind {
    match rows {
        RowsEventData::WriteRowsEvent(_) | RowsEventData::WriteRowsEventV1(_) => RowsKind::Insert,
        RowsEventData::UpdateRowsEvent(_) | RowsEventData::UpdateRowsEventV1(_) => RowsKind::Update,
        RowsEventData::DeleteRowsEvent(_) | RowsEventData::DeleteRowsEventV1(_) => RowsKind::Delete,
        _ => RowsKind::Other,
    }
}

#[inline]
fn fold_value(v: &BinlogValue<'_>) -> u64 {
    match v {
        BinlogValue::Value(v) => match v {
            Value::NULL => 1,
            Value::Bytes(b) => (b.len() as u64) << 8 | b.last().copied().unwrap_or(0) as u64,
            Value::Int(x) => *x as u64,
            Value::UInt(x) => *x,
            Value::Float(x) => x.to_bits() as u64,
            Value::Double(x) => x.to_bits(),
            Value::Date(y, mo, d, h, mi, s, us) => {
                (*y as u64) << 48
                    | (*mo as u64) << 40
                    | (*d as u64) << 32
                    | (*h as u64) << 24
                    | (*mi as u64) << 16
                    | (*s as u64) << 8
                    | *us as u64
            }
            Value::Time(neg, d, h, mi, s, us) => {
                (*neg as u64) << 63
                    | (*d as u64) << 40
                    | (*h as u64) << 32
                    | (*mi as u64) << 24
                    | (*s as u64) << 16
                    | *us as u64
            }
        },
        BinlogValue::Jsonb(_) => 2,
        BinlogValue::JsonDiff(d) => d.len() as u64,
    }
}
