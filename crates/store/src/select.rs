//! Per-client selection: which entries of the shared stream one client
//! receives, when the stream reads for several clients with different
//! table filters.
//!
//! The stream reads the union of its clients' filters; each entry says
//! which table it is about ([`EntryMeta::table`]) and which version of that
//! union let it in ([`EntryMeta::filter_version`]). A client's
//! [`Selection`] hands it only the entries its own filter keeps: an entry
//! the stream filtered with exactly the client's filter passes on one
//! integer comparison, any other entry is matched once per table (the
//! answer is remembered). Transaction frames follow their rows: a
//! transaction none of whose entries the client keeps is left out, except
//! that a batch with nothing else carries the last such BEGIN/END pair so
//! the client has something to ack and its cursor moves on.
//!
//! Never decodes an entry: everything it needs is in [`EntryMeta`].

use std::collections::HashMap;
use std::sync::Arc;

use sluice_canal::{EntryPosition, TableFilter};

use crate::EntryMeta;

/// The table an entry is about (a row change, a DDL on a table, a snapshot
/// chunk).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub struct TableName {
    pub schema: String,
    pub table: String,
}

/// What an entry is in its transaction.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Frame {
    Begin,
    End,
    /// Anything else: rows, a DDL, a statement.
    #[default]
    Body,
}

/// The version of the stream's table filter an entry passed. Entries no
/// stream filter decided (snapshot chunks, which follow the configured
/// filter) carry [`NOT_STREAM_FILTERED`].
pub type FilterVersion = u32;

/// See [`FilterVersion`].
pub const NOT_STREAM_FILTERED: FilterVersion = FilterVersion::MAX;

/// Most tables a selection remembers its answer for; past that it forgets
/// them all and starts again (a bound, not a cache policy).
const MEMO_TABLES: usize = 16 * 1024;

/// Which entries one client receives.
#[derive(Debug, Clone)]
pub struct Selection {
    filter: Arc<TableFilter>,
    /// Entries the stream filtered with this version passed the client's
    /// own filter already.
    same_as: Option<FilterVersion>,
    memo: HashMap<Arc<TableName>, bool>,
}

impl Selection {
    /// Selects by `filter`; `same_as`: the stream version whose filter is
    /// this very filter, if the stream reads with it now.
    pub fn new(filter: Arc<TableFilter>, same_as: Option<FilterVersion>) -> Self {
        Selection {
            filter,
            same_as,
            memo: HashMap::new(),
        }
    }

    pub fn filter(&self) -> &TableFilter {
        &self.filter
    }

    /// Whether the client receives an entry (frames aside).
    fn keeps(&mut self, meta: &EntryMeta) -> bool {
        if self.same_as == Some(meta.filter_version) {
            return true;
        }
        let Some(table) = &meta.table else {
            // Statements without a table (CREATE DATABASE, DCL) go to all.
            return true;
        };
        if let Some(&kept) = self.memo.get(table) {
            return kept;
        }
        let kept = self.filter.matches(&table.schema, &table.table);
        if self.memo.len() >= MEMO_TABLES {
            self.memo.clear();
        }
        self.memo.insert(table.clone(), kept);
        kept
    }
}

/// Where a client's selection stands between two entries: a BEGIN not
/// handed out yet (its entry, kept until the transaction shows an entry
/// for the client), whether the open transaction's frame went out, and
/// whether it left anything out.
#[derive(Debug, Clone)]
pub(crate) struct FrameState<E> {
    pending_begin: Option<(E, usize)>,
    handed: bool,
    left_out: bool,
}

impl<E> FrameState<E> {
    /// Inside a transaction whose BEGIN went out.
    pub fn handed() -> Self {
        FrameState {
            pending_begin: None,
            handed: true,
            left_out: false,
        }
    }
}

impl<E> Default for FrameState<E> {
    fn default() -> Self {
        FrameState {
            pending_begin: None,
            handed: false,
            left_out: false,
        }
    }
}

/// A selective batch being gathered, kept between the looks of a waiting
/// GET so each entry is looked at once.
#[derive(Debug)]
pub(crate) struct Gathered<E> {
    /// The client's read pointer it was gathered from.
    pub from: u64,
    /// The next sequence to look at.
    pub upto: u64,
    /// The frame state at `upto`.
    pub state: FrameState<E>,
    pub items: Vec<E>,
    pub bytes: usize,
    pub rows: u64,
    pub time: i64,
    /// The last transaction boundary in `[from, upto)`.
    pub ack_point: Option<EntryPosition>,
    /// The last transaction left out whole, as a BEGIN (if there was one)
    /// and END pair.
    last_left_out: Option<(Option<E>, E)>,
    pub full: bool,
}

/// Limits of one batch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Limits {
    /// Most entries (ITEMSIZE), else most bytes (MEMSIZE).
    pub max_items: Option<usize>,
    pub max_bytes: Option<usize>,
    pub ddl_alone: bool,
}

impl Limits {
    fn room(&self, items: usize, bytes: usize, more_items: usize, more_bytes: usize) -> bool {
        if items == 0 {
            return true;
        }
        self.max_items.is_none_or(|m| items + more_items <= m)
            && self.max_bytes.is_none_or(|m| bytes + more_bytes <= m)
    }

    fn is_full(&self, items: usize, bytes: usize) -> bool {
        self.max_items.is_some_and(|m| items >= m)
            || self.max_bytes.is_some_and(|m| bytes >= m && items > 0)
    }
}

impl<E: Clone> Gathered<E> {
    pub fn start(from: u64, state: FrameState<E>) -> Self {
        Gathered {
            from,
            upto: from,
            state,
            items: Vec::new(),
            bytes: 0,
            rows: 0,
            time: 0,
            ack_point: None,
            last_left_out: None,
            full: false,
        }
    }

    /// Entries the client would get now, counting a stand-in pair.
    pub fn count(&self) -> usize {
        if self.items.is_empty() {
            self.last_left_out
                .as_ref()
                .map_or(0, |(b, _)| 1 + usize::from(b.is_some()))
        } else {
            self.items.len()
        }
    }

    /// Looks at the entries from `upto` on (`entries` yields the entry of
    /// each sequence from `upto`), until the batch is full or they end.
    pub fn extend<'a>(
        &mut self,
        entries: impl Iterator<Item = (&'a E, &'a EntryMeta)>,
        selection: &mut Selection,
        limits: Limits,
    ) where
        E: 'a,
    {
        if self.full {
            return;
        }
        for (item, meta) in entries {
            match meta.frame {
                Frame::Begin => {
                    self.state.pending_begin = Some((item.clone(), meta.bytes));
                    self.state.handed = false;
                    self.state.left_out = false;
                }
                Frame::End => {
                    if self.state.handed || !self.state.left_out {
                        // A transaction with entries for the client, or
                        // one that was empty in the stream already (a
                        // frame the stream lets through on purpose).
                        let begin = self.state.pending_begin.take();
                        let more = 1 + usize::from(begin.is_some());
                        let more_bytes = meta.bytes + begin.as_ref().map_or(0, |b| b.1);
                        if !self.limits_allow(limits, more, more_bytes) {
                            self.state.pending_begin = begin;
                            self.full = true;
                            return;
                        }
                        if let Some((b, bytes)) = begin {
                            self.pick(b, bytes, None);
                        }
                        self.pick(item.clone(), meta.bytes, Some(meta));
                    } else {
                        let begin = self.state.pending_begin.take().map(|(b, _)| b);
                        self.last_left_out = Some((begin, item.clone()));
                    }
                    self.state.handed = false;
                    self.state.left_out = false;
                }
                Frame::Body => {
                    if !selection.keeps(meta) {
                        self.state.left_out = true;
                    } else {
                        let more = 1 + usize::from(self.state.pending_begin.is_some());
                        let more_bytes =
                            meta.bytes + self.state.pending_begin.as_ref().map_or(0, |b| b.1);
                        if limits.ddl_alone && meta.is_ddl && !self.items.is_empty() {
                            self.full = true;
                            return;
                        }
                        if !self.limits_allow(limits, more, more_bytes) {
                            self.full = true;
                            return;
                        }
                        if let Some((b, bytes)) = self.state.pending_begin.take() {
                            self.pick(b, bytes, None);
                        }
                        self.pick(item.clone(), meta.bytes, Some(meta));
                        self.state.handed = true;
                        if limits.ddl_alone && meta.is_ddl {
                            self.note(meta);
                            self.upto += 1;
                            self.full = true;
                            return;
                        }
                    }
                }
            }
            self.note(meta);
            self.upto += 1;
            if limits.is_full(self.items.len(), self.bytes) {
                self.full = true;
                return;
            }
        }
    }

    fn limits_allow(&self, limits: Limits, more: usize, more_bytes: usize) -> bool {
        limits.room(self.items.len(), self.bytes, more, more_bytes)
    }

    fn pick(&mut self, item: E, bytes: usize, meta: Option<&EntryMeta>) {
        self.items.push(item);
        self.bytes += bytes;
        if let Some(m) = meta {
            self.rows += u64::from(m.rows);
            self.time = m.position.timestamp;
        }
    }

    /// Records what every entry looked at brings to the batch's mark.
    fn note(&mut self, meta: &EntryMeta) {
        if meta.ack_point.is_some() {
            self.ack_point = meta.ack_point.clone();
        }
    }

    /// The entries to hand out: those picked, else the last transaction
    /// left out whole (so the batch can be acked and the cursor moves).
    pub fn finish(mut self) -> (Vec<E>, FrameState<E>, GatheredTotals) {
        if self.items.is_empty() {
            if let Some((begin, end)) = self.last_left_out.take() {
                self.items.extend(begin);
                self.items.push(end);
            }
        }
        let totals = GatheredTotals {
            upto: self.upto,
            bytes: self.bytes as u64,
            rows: self.rows,
            time: self.time,
            ack_point: self.ack_point,
        };
        (self.items, self.state, totals)
    }
}

/// What a finished batch covers, for its mark.
#[derive(Debug)]
pub(crate) struct GatheredTotals {
    pub upto: u64,
    pub bytes: u64,
    pub rows: u64,
    pub time: i64,
    pub ack_point: Option<EntryPosition>,
}
