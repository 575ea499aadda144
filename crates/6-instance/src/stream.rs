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
    ChangeBuilder, ChangeEvent, ColumnInfo, ColumnProjection, ColumnRules, Encoder, Position,
    Projections, Table,
};
use sluice_source::position::ResumePosition;
use sluice_source::{BinlogStream, Event, SourceConfig, SourceError, StreamItem};

use crate::schema_hook::{EventPlace, SchemaHook};
// The one filter type, where streams were first given it.
pub use crate::filters::{CanalFilters, ChangeFilter};
mod encoding;
mod parallel;

use encoding::{Encoding, Inline, ReadUpTo};

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
        }
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
        let connect = crate::manager::source_connect_options(config).map_err(invalid)?;
        let filter = crate::manager::canal_filters(config).map_err(invalid)?;
        let schema = crate::schema_hook::tracked_schema(
            data_dir,
            &config.destination,
            &connect,
            filter.tables.clone(),
        )
        .map_err(invalid)?;
        let source = SourceConfig {
            failover: crate::manager::source_failover(config, &connect),
            connect,
            start: crate::manager::configured_start(config),
            server_id: (config.slave_id != 0).then_some(config.slave_id),
            row_images: crate::manager::source_row_images(config),
            ..Default::default()
        };
        Ok(ChangeStream::new(source, schema)
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
        } = self;
        let stream = BinlogStream::connect(source).await?;
        let (file, offset) = (stream.position().file.clone(), stream.position().offset);
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
    /// has the schema follow it, builds its change event, filters it and
    /// hands it to `encoding`, cutting at transaction ends; while the
    /// source has nothing to read, `encoding` writes what it can. When the
    /// stream ends or fails, the complete transactions read go to `sink`
    /// before the result is returned.
    async fn drive<S, En>(
        self,
        encoding: &mut En,
        sink: &mut S,
    ) -> Result<ResumePosition, StreamError>
    where
        En: Encoding<S>,
    {
        let (mut stream, mut schema, filter, mut columns) = self.connect().await?;
        let mut builder = ChangeBuilder::new();
        let mut read = ReadUpTo {
            file: stream.position().file.clone(),
            pos: stream.position().offset,
        };
        let stopped: Result<(), StreamError> = loop {
            encoding.write_finished(sink)?;
            let item = {
                let next = stream.next();
                tokio::pin!(next);
                let polled =
                    std::future::poll_fn(|cx| std::task::Poll::Ready(next.as_mut().poll(cx))).await;
                match polled {
                    std::task::Poll::Ready(item) => item,
                    std::task::Poll::Pending => {
                        encoding.source_idle(sink).await?;
                        loop {
                            let ready = tokio::select! {
                                biased;
                                item = &mut next => break item,
                                ready = encoding.ready(&read) => ready,
                            };
                            encoding.write_ready(ready, &read, sink)?;
                        }
                    }
                }
            };
            let mut ev = match item {
                Ok(Some(StreamItem::Event(ev))) => ev,
                Ok(Some(StreamItem::TransactionAborted { resume, reason })) => {
                    tracing::warn!(
                        %resume,
                        %reason,
                        "connection lost inside a transaction; it is read again from its start"
                    );
                    encoding.transaction_aborted();
                    continue;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e.into()),
            };
            if !ev.artificial && ev.payload_index.is_none() && ev.next_pos > 0 {
                if read.file != ev.file {
                    read.file = ev.file.to_string();
                }
                read.pos = ev.next_pos;
            }
            let info = match follow_schema(&mut ev, schema.as_mut()) {
                Ok(info) => info,
                Err(e) => break Err(e),
            };
            let keep = projection(columns.as_mut(), &ev, info.as_deref());
            let end = ev.ends_transaction;
            encoding.event_read();
            if let Some(change) = build_change(&mut builder, &ev, info.as_deref()) {
                if passes(filter.as_deref(), &change) {
                    if let Err(e) = encoding.push(change, &ev, info.as_ref(), keep) {
                        break Err(e);
                    }
                }
            }
            if end.is_some() {
                encoding
                    .end_transaction(ev.file, ev.pos, ev.next_pos, sink)
                    .await?;
            }
        };
        // The transactions read before the end (or the failure) are written
        // first; what was read of an unfinished one is dropped.
        encoding.finish(sink).await?;
        stopped?;
        tracing::info!(position = %stream.position(), "end of the binlog reached");
        Ok(stream.position().clone())
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

/// Whether `change` passes `filter`.
fn passes(filter: Option<&dyn ChangeFilter>, change: &ChangeEvent<'_>) -> bool {
    match (filter, change) {
        (None, _) => true,
        (Some(f), ChangeEvent::Rows(r)) => f.rows(r.table.schema(), r.table.name(), r.op),
        (Some(f), ChangeEvent::Statement(st)) => f.statement(st),
        (Some(_), ChangeEvent::Begin { .. } | ChangeEvent::Commit { .. }) => true,
    }
}

/// The change event `ev` makes, if any; at a transaction's end the
/// executed GTID set moves on first.
fn build_change<'a>(
    builder: &'a mut ChangeBuilder,
    ev: &'a Event<'a>,
    info: Option<&'a [ColumnInfo]>,
) -> Option<ChangeEvent<'a>> {
    if let Some(end) = &ev.ends_transaction {
        builder.set_executed_gtid_set(end.gtid.as_ref().map(|g| g.to_string()).unwrap_or_default());
    }
    let position = Position {
        file: ev.file,
        offset: ev.pos,
        next_offset: ev.next_pos,
        server_id: ev.raw.header.server_id,
        timestamp: ev.raw.header.timestamp,
    };
    builder.on_event(position, &ev.data, info)
}

/// Feeds statements to the schema hook and gives a rows event the table as
/// the schema describes it (names, signedness, labels of that time), and
/// the schema's column information when it has it.
fn follow_schema(
    ev: &mut Event<'_>,
    schema: &mut dyn SchemaHook,
) -> Result<Option<Arc<[ColumnInfo]>>, StreamError> {
    let mut place = EventPlace {
        file: ev.file,
        pos: ev.pos,
        next_pos: ev.next_pos,
        status_vars: &[],
    };
    let (server_id, timestamp) = (ev.raw.header.server_id, ev.raw.header.timestamp);
    let gtids = ev
        .ends_transaction
        .and_then(|end| end.gtid.as_ref())
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
            if crate::schema_hook::changes_schema_history(sql) {
                place.status_vars = q.status_vars;
                schema.on_statement_source(server_id, timestamp, gtids.as_deref());
                schema
                    .on_query(&place, &q.schema_text(), sql)
                    .map_err(failed)?;
            }
            Ok(None)
        }
        EventData::Rows(r) => {
            let (table, info) = schema.describe(&place, &r.table).map_err(failed)?;
            r.table = table;
            Ok(info)
        }
        _ => Ok(None),
    }
}
