//! How a stream's change events become outputs, for the stream's one loop
//! ([`ChangeStream::drive`](super::ChangeStream)): encoded on the stream's
//! task as they are read ([`Inline`], with a snapshot or anything else
//! interleaved between transactions), or gathered into chunks of whole
//! transactions and encoded on the encoding pool
//! ([`Pooled`](super::parallel::Pooled)). The loop itself (receive, follow
//! the schema, build, filter, cut at transaction ends) is the same for both.

use std::sync::Arc;

use sluice_events::{ChangeEvent, ColumnInfo, ColumnProjection, Encoder};
use sluice_source::Event;

use super::{ChangeSink, Interleave, StreamError};

/// Where the stream has read up to: the file and the position after the
/// last event read.
pub(super) struct ReadUpTo {
    pub(super) file: String,
    pub(super) pos: u64,
}

/// One way of turning change events into outputs written to a sink `S`.
/// The loop calls, per event: [`Encoding::event_read`], [`Encoding::push`]
/// for a change that passed the filters, [`Encoding::end_transaction`] at a
/// transaction's end; while the source has nothing to read,
/// [`Encoding::source_idle`] once and then [`Encoding::ready`] /
/// [`Encoding::write_ready`] until it has.
pub(super) trait Encoding<S> {
    /// What [`Encoding::ready`] found to write.
    type Ready;

    /// Writes what is finished, without waiting (before each event).
    fn write_finished(&mut self, sink: &mut S) -> Result<(), StreamError>;

    /// The source has nothing to read for now: a moment to hand work on.
    async fn source_idle(&mut self, sink: &mut S) -> Result<(), StreamError>;

    /// Resolves once something can be written while the source waits;
    /// never otherwise. Cancel safe.
    async fn ready(&mut self, read: &ReadUpTo) -> Self::Ready;

    /// Writes what [`Encoding::ready`] found.
    fn write_ready(
        &mut self,
        ready: Self::Ready,
        read: &ReadUpTo,
        sink: &mut S,
    ) -> Result<(), StreamError>;

    /// An event was read (each moves the transaction's state on).
    fn event_read(&mut self) {}

    /// A change event that passed the filters, read from `ev`, with the
    /// schema's column information and the columns shown of its table.
    fn push(
        &mut self,
        change: ChangeEvent<'_>,
        ev: &Event<'_>,
        info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
    ) -> Result<(), StreamError>;

    /// The transaction whose end event is at `file:pos` (ending at
    /// `next_pos`) is complete.
    async fn end_transaction(
        &mut self,
        file: &str,
        pos: u64,
        next_pos: u64,
        sink: &mut S,
    ) -> Result<(), StreamError>;

    /// The connection dropped inside a transaction: what was kept of it is
    /// dropped, it is read again from its start.
    fn transaction_aborted(&mut self);

    /// The stream ended (or failed): the complete transactions read go to
    /// the sink, what was read of an unfinished one is dropped.
    async fn finish(&mut self, sink: &mut S) -> Result<(), StreamError>;
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

    fn write_finished(&mut self, _sink: &mut S) -> Result<(), StreamError> {
        Ok(())
    }

    async fn source_idle(&mut self, _sink: &mut S) -> Result<(), StreamError> {
        Ok(())
    }

    async fn ready(&mut self, read: &ReadUpTo) {
        self.interleave.ready(&read.file, read.pos).await;
    }

    fn write_ready(&mut self, (): (), read: &ReadUpTo, sink: &mut S) -> Result<(), StreamError> {
        self.interleave.write_ready(&read.file, read.pos, sink)
    }

    fn push(
        &mut self,
        change: ChangeEvent<'_>,
        ev: &Event<'_>,
        _info: Option<&Arc<[ColumnInfo]>>,
        keep: Option<ColumnProjection>,
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

    fn transaction_aborted(&mut self) {
        self.outputs.clear();
    }

    async fn finish(&mut self, _sink: &mut S) -> Result<(), StreamError> {
        // Every complete transaction was written at its end.
        self.outputs.clear();
        Ok(())
    }
}
