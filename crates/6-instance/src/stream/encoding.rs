//! How a stream's change events become outputs, for the stream's one loop
//! ([`ChangeStream::drive`](super::ChangeStream)): encoded on the stream's
//! task as they are read ([`Inline`], with a snapshot or anything else
//! interleaved between transactions), or gathered into chunks of whole
//! transactions and encoded on the encoding pool
//! ([`Pooled`](super::parallel::Pooled)). The loop itself (receive, follow
//! the schema, build, filter, cut at transaction ends) is the same for both.

use std::sync::Arc;

use sluice_events::{ChangeBuilder, ChangeEvent, ColumnInfo, ColumnProjection, Encoder};
use sluice_source::position::ResumePosition;
use sluice_source::{BinlogStream, Event};

use super::{ChangeSink, Interleave, StreamError};

/// Where the stream has read up to: the file and the position after the
/// last event read.
pub(crate) struct ReadUpTo {
    pub(crate) file: String,
    pub(crate) pos: u64,
}

/// What the schema made of an event, as far as an encoding cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SchemaStep {
    /// Nothing: not a statement the schema follows.
    None,
    /// A statement that changes the schema history was fed to it.
    Statement,
}

/// One way of turning change events into outputs written to a sink `S`:
/// what the stream's one loop ([`ChangeStream::drive`](super::ChangeStream))
/// hands on, and when. Per event the loop calls
/// [`Encoding::before_event`], [`Encoding::event_read`], [`Encoding::push`]
/// for a change that passed the filters, [`Encoding::end_transaction`] at a
/// transaction's end and [`Encoding::event_done`]; while the source has
/// nothing to read, [`Encoding::source_idle`] once and then
/// [`Encoding::ready`] / [`Encoding::write_ready`] until it has.
pub(crate) trait Encoding<S> {
    /// What [`Encoding::ready`] found to write.
    type Ready;
    /// How a run ends early: the stream's own failures, and whatever the
    /// encoding or its sink end it with.
    type Error: From<StreamError>;

    /// Resolves when the run is to end before it connected (a stop asked
    /// for), with what the run returns then; never, by default.
    async fn stop_requested(&mut self, _sink: &mut S) -> Self::Error {
        std::future::pending().await
    }

    /// The stream connected (at `stream.position()`); `builder` makes its
    /// change events.
    async fn started(
        &mut self,
        _stream: &BinlogStream,
        _builder: &mut ChangeBuilder,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// Before each event: writes what is finished, without waiting.
    async fn before_event(
        &mut self,
        stream: &BinlogStream,
        sink: &mut S,
    ) -> Result<(), Self::Error>;

    /// The source moved to another server (a failover): positions from the
    /// next event on are that server's.
    fn source_changed(&mut self) {}

    /// The source has nothing to read for now: a moment to hand work on.
    async fn source_idle(&mut self, sink: &mut S) -> Result<(), Self::Error>;

    /// Resolves once something can be written while the source waits;
    /// never otherwise. Cancel safe.
    async fn ready(&mut self, read: &ReadUpTo, sink: &mut S) -> Self::Ready;

    /// Writes what [`Encoding::ready`] found.
    async fn write_ready(
        &mut self,
        ready: Self::Ready,
        read: &ReadUpTo,
        sink: &mut S,
    ) -> Result<(), Self::Error>;

    /// An event was read and the schema followed it (each event moves the
    /// transaction's state on).
    fn event_read(&mut self, _ev: &Event<'_>, _schema: SchemaStep) {}

    /// A change event that passed the filters, read from `ev`, with the
    /// schema's column information and the columns shown of its table.
    async fn push(
        &mut self,
        change: ChangeEvent<'_>,
        ev: &Event<'_>,
        info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
        sink: &mut S,
    ) -> Result<(), Self::Error>;

    /// The transaction whose end event is at `file:pos` (ending at
    /// `next_pos`) is complete.
    async fn end_transaction(
        &mut self,
        file: &str,
        pos: u64,
        next_pos: u64,
        sink: &mut S,
    ) -> Result<(), Self::Error>;

    /// After each event, `in_transaction` telling whether the stream is
    /// inside a transaction after it.
    async fn event_done(
        &mut self,
        _ev: &Event<'_>,
        _in_transaction: bool,
        _sink: &mut S,
    ) -> Result<(), Self::Error> {
        Ok(())
    }

    /// The connection dropped inside a transaction, which the source sends
    /// again from its start, from `resume`.
    fn transaction_aborted(&mut self, resume: &ResumePosition, reason: &str);

    /// The stream ended (`failed`: on an error): the complete transactions
    /// read go to the sink, what was read of an unfinished one is dropped.
    async fn finish(&mut self, sink: &mut S, failed: bool) -> Result<(), Self::Error>;
}

/// The warning for a transaction the connection dropped inside of, when
/// what was kept of it is dropped and it is read again.
pub(super) fn warn_transaction_read_again(resume: &ResumePosition, reason: &str) {
    tracing::warn!(
        %resume,
        %reason,
        "connection lost inside a transaction; it is read again from its start"
    );
}

/// Encoding on the stream's task, one change after the other, each
/// transaction's outputs written at its end, after what `interleave` has
/// due before it.
pub(super) struct Inline<'a, E: Encoder, I> {
    pub(super) encoder: &'a mut E,
    pub(super) interleave: &'a mut I,
    pub(super) outputs: Vec<E::Output>,
}

impl<E, S, I> Encoding<S> for Inline<'_, E, I>
where
    E: Encoder,
    S: ChangeSink<E::Output>,
    I: Interleave<S>,
{
    type Ready = ();
    type Error = StreamError;

    async fn before_event(
        &mut self,
        _stream: &BinlogStream,
        _sink: &mut S,
    ) -> Result<(), StreamError> {
        Ok(())
    }

    async fn source_idle(&mut self, _sink: &mut S) -> Result<(), StreamError> {
        Ok(())
    }

    async fn ready(&mut self, read: &ReadUpTo, _sink: &mut S) {
        self.interleave.ready(&read.file, read.pos).await;
    }

    async fn write_ready(
        &mut self,
        (): (),
        read: &ReadUpTo,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        self.interleave.write_ready(&read.file, read.pos, sink)
    }

    async fn push(
        &mut self,
        change: ChangeEvent<'_>,
        ev: &Event<'_>,
        _info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
        _sink: &mut S,
    ) -> Result<(), StreamError> {
        let change = change.with_projection(keep.as_ref());
        self.encoder
            .encode(&change, &mut self.outputs)
            .map_err(|e| StreamError::Encode {
                file: ev.file.to_string(),
                pos: ev.pos,
                source: Box::new(e),
            })
    }

    async fn end_transaction(
        &mut self,
        file: &str,
        pos: u64,
        next_pos: u64,
        sink: &mut S,
    ) -> Result<(), StreamError> {
        self.interleave
            .before_transaction(file, next_pos, sink)
            .await?;
        if !self.outputs.is_empty() {
            sink.write(&mut self.outputs)
                .map_err(|e| StreamError::Sink {
                    file: file.to_string(),
                    pos,
                    source: Box::new(e),
                })?;
            self.outputs.clear();
        }
        Ok(())
    }

    fn transaction_aborted(&mut self, resume: &ResumePosition, reason: &str) {
        warn_transaction_read_again(resume, reason);
        self.outputs.clear();
    }

    async fn finish(&mut self, _sink: &mut S, _failed: bool) -> Result<(), StreamError> {
        // Every complete transaction was written at its end.
        self.outputs.clear();
        Ok(())
    }
}
