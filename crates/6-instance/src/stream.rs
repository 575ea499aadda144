//! A change stream: a live source's binlog, read as a replica, turned into
//! change events and encoded by any [`Encoder`] into a sink the caller
//! gives. `sluice tail` runs one with its JSON lines; an embedding program
//! runs one from a destination's `instance.properties`.
//!
//! Stages, per event: the [`BinlogStream`] (reconnects, transaction
//! boundaries), the [`SchemaHook`] (statements followed, tables described),
//! the [`ChangeBuilder`] (transaction state, with the executed GTID set kept
//! from the stream's transaction ends), a [`ChangeFilter`], the encoder.
//! Outputs are handed to the [`ChangeSink`] a whole transaction at a time,
//! at its end: when the connection drops inside a transaction, what was
//! encoded of it is dropped and the transaction is read again from its
//! start, so a sink never sees part of one or one twice.

use std::future::Future;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use sluice_binlog::events::EventData;
use sluice_config::InstanceConfig;
use sluice_events::{
    ChangeBuilder, ChangeEvent, ColumnInfo, ColumnProjection, ColumnRules, Encoder, Op, Position,
    Projections, Table,
};
use sluice_source::position::ResumePosition;
use sluice_source::{BinlogStream, Event, SourceConfig, SourceError, StreamItem};

use crate::schema_hook::{EventPlace, SchemaHook};
// The one filter type, where streams were first given it.
pub use crate::filters::{CanalFilters, ChangeFilter};
mod encoding;
mod parallel;

use encoding::Inline;
pub(crate) use encoding::{Encoding, ReadUpTo, SchemaStep};

/// Where a stream's outputs go: a whole transaction's (or statement's) at a
/// time, in order.
pub trait ChangeSink<T> {
    type Error: std::error::Error + Send + Sync + 'static;
    /// Takes the outputs of one transaction; the stream clears `outputs`
    /// afterwards (a sink may drain or swap it).
    fn write(&mut self, outputs: &mut Vec<T>) -> Result<(), Self::Error>;
}

/// Bytes to a writer, flushed after every transaction so that each reaches
/// the reader whole and at once.
#[derive(Debug)]
pub struct WriteSink<W>(pub W);

impl<W: Write> ChangeSink<u8> for WriteSink<W> {
    type Error = std::io::Error;
    fn write(&mut self, outputs: &mut Vec<u8>) -> Result<(), std::io::Error> {
        self.0.write_all(outputs)?;
        self.0.flush()
    }
}

/// Outputs to a function: `FnSink(|outputs: &mut Vec<T>| ...)`.
#[derive(Debug)]
pub struct FnSink<F>(pub F);

impl<T, E, F> ChangeSink<T> for FnSink<F>
where
    F: FnMut(&mut Vec<T>) -> Result<(), E>,
    E: std::error::Error + Send + Sync + 'static,
{
    type Error = E;
    fn write(&mut self, outputs: &mut Vec<T>) -> Result<(), E> {
        (self.0)(outputs)
    }
}

/// What a stream interleaves with its transactions: outputs that must reach
/// the sink at a place of the binlog, between the transactions before it
/// and those after (an initial snapshot's chunks, each read at a binlog
/// point). The stream asks before writing each transaction, and while it
/// waits for the source.
pub trait Interleave<S> {
    /// Writes to `sink` everything due before a transaction that ends at
    /// `file:end`, waiting for what is due but not ready yet.
    fn before_transaction(
        &mut self,
        file: &str,
        end: u64,
        sink: &mut S,
    ) -> impl Future<Output = Result<(), StreamError>> + Send;

    /// Resolves once something is ready to go with the stream read up to
    /// `file:pos` (between transactions, or inside one whose outputs are
    /// not written yet); never otherwise. Must be cancel-safe.
    fn ready(&mut self, file: &str, pos: u64) -> impl Future<Output = ()> + Send;

    /// Writes to `sink` what is ready and due with the stream read up to
    /// `file:pos`, without waiting.
    fn write_ready(&mut self, file: &str, pos: u64, sink: &mut S) -> Result<(), StreamError>;
}

/// Nothing to interleave: the plain [`ChangeStream::run`].
struct NoInterleave;

impl<S> Interleave<S> for NoInterleave {
    fn before_transaction(
        &mut self,
        _file: &str,
        _end: u64,
        _sink: &mut S,
    ) -> impl Future<Output = Result<(), StreamError>> + Send {
        std::future::ready(Ok(()))
    }

    fn ready(&mut self, _file: &str, _pos: u64) -> impl Future<Output = ()> + Send {
        std::future::pending()
    }

    fn write_ready(&mut self, _file: &str, _pos: u64, _sink: &mut S) -> Result<(), StreamError> {
        Ok(())
    }
}

/// Why a change stream stopped.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// The source failed in a way that does not heal by reconnecting (its
    /// message names the binlog position for decoding errors).
    #[error(transparent)]
    Source(#[from] SourceError),
    #[error("{file}:{pos}: schema: {message}")]
    Schema {
        file: String,
        pos: u64,
        message: String,
    },
    #[error("{file}:{pos}: {source}")]
    Encode {
        file: String,
        pos: u64,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    #[error("writing the output of the transaction ending at {file}:{pos}")]
    Sink {
        file: String,
        pos: u64,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// An encoding thread of [`ChangeStream::run_parallel`] could not be
    /// started or stopped before its work was done.
    #[error("{0}")]
    Worker(String),
    #[error("destination {destination}: {message}")]
    Config {
        destination: String,
        message: String,
    },
}

/// A source to read, how to follow its schema, which changes to pass and
/// which of their columns to show.
pub struct ChangeStream {
    source: SourceConfig,
    schema: Box<dyn SchemaHook>,
    filter: Option<Box<dyn ChangeFilter>>,
    columns: Option<Arc<dyn ColumnRules>>,
    /// `canal.instance.filter.table.error`, for a stream of a Canal
    /// configuration (see [`ChangeStream::with_canal_table_error`]).
    canal_table_error: Option<bool>,
}

impl std::fmt::Debug for ChangeStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ChangeStream")
            .field("source", &self.source.connect.host)
            .field("start", &self.source.start)
            .field("filtered", &self.filter.is_some())
            .field("columns", &self.columns)
            .finish_non_exhaustive()
    }
}

impl ChangeStream {
    /// Every change of `source`, with tables described by `schema`.
    pub fn new(mut source: SourceConfig, schema: Box<dyn SchemaHook>) -> Self {
        source.names_from_schema = schema.names_columns();
        ChangeStream {
            source,
            schema,
            filter: None,
            columns: None,
            canal_table_error: None,
        }
    }

    /// Follows Canal's `canal.instance.filter.table.error`: with `skip`, a
    /// rows event whose table the schema cannot describe is skipped and
    /// logged with its table and position; without, the stream stops with
    /// an error that names the key.
    pub fn with_canal_table_error(mut self, skip: bool) -> Self {
        self.canal_table_error = Some(skip);
        self
    }

    /// Shows only the columns `rules` keep: each rows event's table gets
    /// its projection, resolved once per table description.
    pub fn with_columns(mut self, rules: Option<Arc<dyn ColumnRules>>) -> Self {
        self.columns = rules;
        self
    }

    /// Passes only the changes `filter` lets through.
    pub fn with_filter(mut self, filter: impl ChangeFilter + 'static) -> Self {
        self.filter = Some(Box::new(filter));
        self
    }

    /// The stream of a destination: its source address, credentials, TLS
    /// mode, replica id and configured start position, its Canal table
    /// and column filters, and its schema tracked as the instance tracks it, with the
    /// history in `{data_dir}/{destination}/schema.history` (which no
    /// running instance of the destination may share).
    pub fn for_instance(config: &InstanceConfig, data_dir: &Path) -> Result<Self, StreamError> {
        let invalid = |message: String| StreamError::Config {
            destination: config.destination.clone(),
            message,
        };
        let connect = crate::source_options::source_connect_options(config).map_err(invalid)?;
        let filter = crate::source_options::canal_filters(config).map_err(invalid)?;
        let schema = crate::schema_hook::tracked_schema(
            data_dir,
            &config.destination,
            &connect,
            filter.tables.clone(),
        )
        .map_err(invalid)?;
        let source = SourceConfig {
            failover: crate::source_options::source_failover(config, &connect),
            connect,
            start: crate::source_options::configured_start(config),
            server_id: (config.slave_id != 0).then_some(config.slave_id),
            row_images: crate::source_options::source_row_images(config),
            ..Default::default()
        };
        Ok(ChangeStream::new(source, schema)
            .with_canal_table_error(config.filter_table_error)
            .with_filter(filter)
            .with_columns(crate::columns::instance_rules(config)))
    }

    /// The source this stream reads, to adjust before [`ChangeStream::run`]
    /// (e.g. `stop_at_end`).
    pub fn source_mut(&mut self) -> &mut SourceConfig {
        &mut self.source
    }

    /// Connects to the source and tells the schema hook where the stream
    /// starts.
    async fn connect(
        self,
    ) -> Result<
        (
            BinlogStream,
            Box<dyn SchemaHook>,
            Option<Box<dyn ChangeFilter>>,
            Option<Projections>,
        ),
        StreamError,
    > {
        let ChangeStream {
            source,
            mut schema,
            filter,
            columns,
            canal_table_error: _,
        } = self;
        let stream = BinlogStream::connect(source).await?;
        let (file, offset) = (
            stream.position().at.file.clone(),
            stream.position().at.offset,
        );
        schema
            .on_start(&file, offset)
            .map_err(|message| StreamError::Schema {
                file,
                pos: offset,
                message,
            })?;
        Ok((stream, schema, filter, columns.map(Projections::new)))
    }

    /// Reads the source until the end of its binlog when `stop_at_end` is
    /// set, else until an error: every change event to `encoder`, its
    /// outputs to `sink` at each transaction's end. Returns the position
    /// after the last complete transaction.
    pub async fn run<E, S>(
        self,
        encoder: &mut E,
        sink: &mut S,
    ) -> Result<ResumePosition, StreamError>
    where
        E: Encoder,
        S: ChangeSink<E::Output>,
    {
        self.run_interleaved(encoder, sink, &mut NoInterleave).await
    }

    /// As [`ChangeStream::run`], with `interleave` asked before each
    /// transaction is written and while the source has nothing to read, so
    /// that what it writes reaches `sink` at its place in the binlog.
    pub async fn run_interleaved<E, S, I>(
        self,
        encoder: &mut E,
        sink: &mut S,
        interleave: &mut I,
    ) -> Result<ResumePosition, StreamError>
    where
        E: Encoder,
        S: ChangeSink<E::Output>,
        I: Interleave<S>,
    {
        let mut inline = Inline {
            encoder,
            interleave,
            outputs: Vec::new(),
        };
        self.drive(&mut inline, sink).await
    }

    /// As [`ChangeStream::run`], with the encoding spread over `workers`
    /// encoders from `make_encoder`, on the process's encoding threads
    /// ([`EncodePool`](crate::encode_pool::EncodePool), one per core); the outputs reach
    /// `sink` in stream order, a whole transaction at a time, the same as
    /// one encoder would give them. This task still receives, decodes
    /// events, follows the schema and writes. An encoder here must keep no
    /// state from one transaction to the next: each sees only some of them.
    /// When the stream fails, the transactions read before the failure are
    /// written before the error is returned, as with one thread.
    pub async fn run_parallel<E, F, S>(
        self,
        workers: usize,
        make_encoder: F,
        sink: &mut S,
    ) -> Result<ResumePosition, StreamError>
    where
        E: Encoder + Send + 'static,
        E::Output: Send + 'static,
        F: FnMut() -> E,
        S: ChangeSink<E::Output>,
    {
        let pool = parallel::Pool::start(workers, make_encoder)
            .map_err(|e| StreamError::Worker(format!("starting an encoding thread: {e}")))?;
        let mut pooled = parallel::Pooled {
            pool,
            pending: parallel::Pending::default(),
        };
        self.drive(&mut pooled, sink).await
    }

    /// The stream's one loop, whichever the encoding: receives each event,
    /// has the stages follow it ([`Stages::follow`]: schema, change event,
    /// filters, `encoding`), cutting at transaction ends; while the source
    /// has nothing to read, `encoding` writes what it can. When the stream
    /// ends or fails, the complete transactions read go to `sink` before
    /// the result is returned.
    pub(crate) async fn drive<S, En>(
        self,
        encoding: &mut En,
        sink: &mut S,
    ) -> Result<ResumePosition, En::Error>
    where
        En: Encoding<S>,
    {
        let table_error = self.canal_table_error;
        let connected = tokio::select! {
            connected = self.connect() => connected?,
            stop = encoding.stop_requested(sink) => return Err(stop),
        };
        let (mut stream, schema, filter, columns) = connected;
        let mut stages = Stages {
            schema,
            filter,
            columns,
            table_error,
            builder: ChangeBuilder::new(),
            source_changed: false,
        };
        stages
            .builder
            .set_source_epoch(stages.schema.source_epoch());
        encoding.started(&stream, &mut stages.builder).await?;
        let mut read = ReadUpTo {
            file: stream.position().at.file.clone(),
            pos: stream.position().at.offset,
        };
        let mut failovers = stream.failovers();
        let stopped: Result<(), En::Error> = loop {
            encoding.before_event(&stream, sink).await?;
            if stream.failovers() > failovers {
                // The first event read there tells the schema history.
                failovers = stream.failovers();
                stages.source_changed = true;
                encoding.source_changed();
            }
            let mut ev = match next_item(&mut stream, &read, encoding, sink).await? {
                Ok(Some(StreamItem::Event(ev))) => ev,
                Ok(Some(StreamItem::TransactionAborted { resume, reason })) => {
                    encoding.transaction_aborted(resume, reason);
                    continue;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(StreamError::from(e).into()),
            };
            // The server's own rotate and format description for this
            // session: not events of the binlog.
            if ev.artificial {
                continue;
            }
            if ev.payload_index.is_none() && ev.next_pos > 0 {
                if read.file != ev.file {
                    read.file = ev.file.to_string();
                }
                read.pos = ev.next_pos;
            }
            if let Err(e) = stages.follow(&mut ev, encoding, sink).await {
                break Err(e);
            }
            if ev.ends_transaction.is_some() {
                encoding
                    .end_transaction(ev.file, ev.pos, ev.next_pos, sink)
                    .await?;
            }
            let in_transaction = stages.builder.state().in_transaction;
            encoding.event_done(&ev, in_transaction, sink).await?;
        };
        // The transactions read before the end (or the failure) are written
        // first; what was read of an unfinished one is dropped.
        encoding.finish(sink, stopped.is_err()).await?;
        stopped?;
        tracing::info!(position = %stream.position(), "end of the binlog reached");
        Ok(stream.position().clone())
    }
}

/// The next item of `stream`; while the source has nothing to read,
/// `encoding` hands on what it can (`read`: where the stream stands).
async fn next_item<'s, S, En>(
    stream: &'s mut BinlogStream,
    read: &ReadUpTo,
    encoding: &mut En,
    sink: &mut S,
) -> Result<Result<Option<StreamItem<'s>>, SourceError>, En::Error>
where
    En: Encoding<S>,
{
    let next = stream.next();
    tokio::pin!(next);
    let polled = std::future::poll_fn(|cx| std::task::Poll::Ready(next.as_mut().poll(cx))).await;
    if let std::task::Poll::Ready(item) = polled {
        return Ok(item);
    }
    encoding.source_idle(sink).await?;
    loop {
        let ready = tokio::select! {
            biased;
            item = &mut next => return Ok(item),
            ready = encoding.ready(read, sink) => ready,
        };
        encoding.write_ready(ready, read, sink).await?;
    }
}

/// What an event goes through between the source and its encoding: the
/// schema follows it, the change builder makes its change event, the
/// filters and the column filters apply.
struct Stages {
    schema: Box<dyn SchemaHook>,
    filter: Option<Box<dyn ChangeFilter>>,
    columns: Option<Projections>,
    /// `canal.instance.filter.table.error`, for a Canal configuration.
    table_error: Option<bool>,
    builder: ChangeBuilder,
    /// The source moved to another server since the last event.
    source_changed: bool,
}

impl Stages {
    /// Has the schema follow `ev`, makes its change event and hands it to
    /// `encoding` when it passes the filters. Rows of a table the filter
    /// drops are passed over before the schema describes their table.
    async fn follow<S, En>(
        &mut self,
        ev: &mut Event<'_>,
        encoding: &mut En,
        sink: &mut S,
    ) -> Result<(), En::Error>
    where
        En: Encoding<S>,
    {
        if std::mem::take(&mut self.source_changed) {
            if let Err(message) = self.schema.on_source_change(ev.file, ev.pos) {
                return Err(schema_error(ev, message).into());
            }
            self.builder.set_source_epoch(self.schema.source_epoch());
        }
        if let Some(f) = self.filter.as_deref_mut() {
            f.refresh();
        }
        let followed = if rows_dropped(self.filter.as_deref(), ev) {
            Followed::Passed
        } else {
            follow_schema(ev, self.schema.as_mut(), self.table_error)?
        };
        encoding.event_read(ev, followed.step());
        let ev: &Event<'_> = ev;
        if let Some(end) = ev.ends_transaction {
            self.builder.set_executed_gtid_set(
                end.at
                    .gtid
                    .as_ref()
                    .map(|g| g.to_string())
                    .unwrap_or_default(),
            );
        }
        let info = match followed {
            Followed::Passed => {
                self.builder.pass_over();
                return Ok(());
            }
            Followed::Rows(info) => info,
            Followed::Other(_) => None,
        };
        let Some(change) = build_change(&mut self.builder, ev, info.as_deref()) else {
            return Ok(());
        };
        if !passes(self.filter.as_deref(), &change) {
            return Ok(());
        }
        let keep = projection(self.columns.as_mut(), ev, info.as_deref());
        encoding.push(change, ev, info.as_ref(), keep, sink).await
    }
}

/// The columns shown of a rows event's table (`ev`, its table described
/// by the schema), when column filters name it.
fn projection(
    columns: Option<&mut Projections>,
    ev: &Event<'_>,
    info: Option<&[ColumnInfo]>,
) -> Option<ColumnProjection> {
    let columns = columns?;
    let EventData::Rows(r) = &ev.data else {
        return None;
    };
    let table = Table {
        map: &r.table,
        info,
        keep: None,
    };
    columns.get(r.table_id, &table)
}

/// Whether `filter` drops the rows of `ev` by their table and kind, before
/// the schema describes the table.
fn rows_dropped(filter: Option<&dyn ChangeFilter>, ev: &Event<'_>) -> bool {
    match (filter, &ev.data) {
        (Some(f), EventData::Rows(r)) => !f.rows(&r.table.schema, &r.table.table, Op::of(r.kind)),
        _ => false,
    }
}

/// Whether `change` passes `filter` (rows were filtered before their
/// table was described).
fn passes(filter: Option<&dyn ChangeFilter>, change: &ChangeEvent<'_>) -> bool {
    match (filter, change) {
        (Some(f), ChangeEvent::Statement(st)) => f.statement(st),
        _ => true,
    }
}

/// The change event `ev` makes, if any.
fn build_change<'a>(
    builder: &'a mut ChangeBuilder,
    ev: &'a Event<'a>,
    info: Option<&'a [ColumnInfo]>,
) -> Option<ChangeEvent<'a>> {
    let position = Position {
        file: ev.file,
        offset: ev.pos,
        next_offset: ev.next_pos,
        server_id: ev.raw.header.server_id,
        timestamp: ev.raw.header.timestamp,
    };
    builder.on_event(position, &ev.data, info)
}

/// What following the schema made of an event.
enum Followed {
    /// A rows event passed over: its table is filtered out, or cannot be
    /// described and `canal.instance.filter.table.error` skips it.
    Passed,
    /// A rows event, its table described, with the schema's column
    /// information when it has it.
    Rows(Option<Arc<[ColumnInfo]>>),
    /// Any other event.
    Other(SchemaStep),
}

impl Followed {
    fn step(&self) -> SchemaStep {
        match self {
            Followed::Other(step) => *step,
            Followed::Passed | Followed::Rows(_) => SchemaStep::None,
        }
    }
}

fn schema_error(ev: &Event<'_>, message: String) -> StreamError {
    StreamError::Schema {
        file: ev.file.to_string(),
        pos: ev.pos,
        message,
    }
}

/// Feeds statements to the schema hook and gives a rows event the table as
/// the schema describes it (names, signedness, labels of that time), and
/// the schema's column information when it has it. `table_error` is
/// Canal's `canal.instance.filter.table.error` when the stream follows a
/// Canal configuration: a table that cannot be described then skips its
/// rows event (`true`) or stops the stream with an error naming the key.
fn follow_schema(
    ev: &mut Event<'_>,
    schema: &mut dyn SchemaHook,
    table_error: Option<bool>,
) -> Result<Followed, StreamError> {
    let mut place = EventPlace {
        file: ev.file,
        pos: ev.pos,
        next_pos: ev.next_pos,
        status_vars: &[],
    };
    let (server_id, timestamp) = (ev.raw.header.server_id, ev.raw.header.timestamp);
    let gtids = ev
        .ends_transaction
        .and_then(|end| end.at.gtid.as_ref())
        .map(|g| g.to_string());
    let failed = |message: String| StreamError::Schema {
        file: ev.file.to_string(),
        pos: ev.pos,
        message,
    };
    match &mut ev.data {
        EventData::Query(q) => {
            let text = q.query_text();
            let sql = text.trim();
            if !crate::schema_hook::changes_schema_history(sql) {
                return Ok(Followed::Other(SchemaStep::None));
            }
            place.status_vars = q.status_vars;
            schema.on_statement_source(server_id, timestamp, gtids.as_deref());
            schema
                .on_query(&place, &q.schema_text(), sql)
                .map_err(failed)?;
            Ok(Followed::Other(SchemaStep::Statement))
        }
        EventData::Rows(r) => match schema.describe(&place, &r.table) {
            Ok((table, info)) => {
                r.table = table;
                Ok(Followed::Rows(info))
            }
            Err(message) if table_error == Some(true) => {
                tracing::warn!(
                    table = %format_args!("{}.{}", r.table.schema, r.table.table),
                    at = %format_args!("{}:{}", place.file, place.pos),
                    error = message,
                    "rows event skipped: its table cannot be described (canal.instance.filter.table.error)"
                );
                Ok(Followed::Passed)
            }
            Err(message) if table_error == Some(false) => Err(failed(format!(
                "{message} (canal.instance.filter.table.error = true skips the rows events of such a table instead)"
            ))),
            Err(message) => Err(failed(message)),
        },
        _ => Ok(Followed::Other(SchemaStep::None)),
    }
}
